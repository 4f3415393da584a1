//! Delay dives: the delay stage's large-neighbourhood start ([`super`]).
//!
//! Before the delay stage's branch and bound, dives of the exact search
//! ([`Search::dive`], as `host-lns` runs them for the host count) look for
//! a solution with the same host count and a smaller largest pair delay:
//! the hosts of every pair at the largest delay are closed (so no such
//! pair is left), alone and then with each other host in turn and its
//! nearest other hosts ([`groups`]); every other host keeps its clients,
//! and the search places the closed hosts' clients under the limit just
//! below the best delay, with the same host count. A solution found restarts the dives
//! from it under its own tighter limit. A dive's refutation proves
//! nothing: the descent that follows starts from the best solution found
//! and proves its optimum itself, so the dives only change where it
//! starts (its answer's value is the same).
//!
//! Measured from the host stage's solutions (two threads): at 160 × 800
//! P2P f = 1.1 seed 2 the dives go from 549.371 to the optimum 532.678 in
//! 17 finds and 0.38 s, where the descent alone had not got below 537.648
//! in 100 s; at 200 × 1,000 f = 1.2 seed 3 from 597.572 to 573.835 (the
//! optimum) in 15 finds and 0.52 s. Every find there came within 27,500
//! nodes of the dives; a round that finds nothing took 17,000–71,000, so
//! the budget stops at 50,000.
//!
//! Complexity: one pair filter, then at most [`DELAY_DIVE_NODES`] search
//! nodes in all, a dive `O(m·n·log m)` to place the kept clients; finding
//! the hosts at the largest delay is `O(m + h²)` for `h` hosts and `m`
//! clients.

use super::next_down;
use crate::core::StageStep;
use crate::problems::spd::eval::{hosts_of, p2p_extremes};
use crate::problems::spd::exact::p2p::{allowed_pairs, pair_q, Limits};
use crate::problems::spd::exact::p2p_search::Search;
use crate::problems::spd::exact::{Deadline, Scored};
use crate::problems::spd::host_lns::{dive_groups, group};
use crate::problems::spd::model::SpdInstance;
use std::time::Instant;

/// Search nodes of all delay dives together.
pub(crate) const DELAY_DIVE_NODES: u64 = 50_000;

/// Most hosts a dive closes beside those at the largest delay.
const MAX_EXTRA: usize = 6;

/// The best solution the delay dives find from `best` (`best` itself when
/// none is better), within [`DELAY_DIVE_NODES`] nodes and `dl`, and a
/// step for each better one (`delay 536.8`, `feasible`, with the
/// milliseconds since the dives began).
pub(crate) fn delay_dives(
    inst: &SpdInstance,
    mut best: Scored,
    dl: &Deadline,
) -> (Scored, Vec<StageStep>) {
    let began = Instant::now();
    let mut steps = Vec::new();
    let mut spent = 0u64;
    let at = |delay: f64| Limits {
        mu: inst.bound,
        hi: next_down(delay),
        lo: f64::NEG_INFINITY,
    };
    // the pair filter once, under the first limit: its lists hold every
    // pair of a solution under the tighter ones too (the search checks
    // the limit itself), and a filter costs as much as many dives
    let Ok(lists) = allowed_pairs(inst, &at(best.metrics.delay)) else {
        return (best, steps); // nothing fits below the start's delay
    };
    while spent < DELAY_DIVE_NODES && !dl.expired() {
        let lim = at(best.metrics.delay);
        let new = || Search::new(inst, lim, lists.clone(), dl.clone());
        let Some(mut pair) = new().zip(new()) else {
            break;
        };
        let assign = &best.sol.assign;
        let hosts = hosts_of(assign);
        let at_max = hosts_at_max(inst, assign, &hosts, lim.hi);
        let groups = groups(inst, &hosts, at_max);
        let found = dive_groups(
            &mut pair,
            assign,
            hosts.len(),
            groups,
            DELAY_DIVE_NODES - spent,
        );
        spent += pair.0.nodes() + pair.1.nodes();
        match found {
            Some(sc) if sc.metrics.delay < best.metrics.delay => {
                steps.push(StageStep {
                    step: format!("delay {}", sc.metrics.delay),
                    result: StageStep::FEASIBLE.into(),
                    ms: began.elapsed().as_secs_f64() * 1e3,
                });
                best = sc;
            }
            _ => break,
        }
    }
    (best, steps)
}

/// Per server: is it a host of `assign` with a pair above `hi` (`hosts`:
/// the hosts, ascending)? Each host's two largest accesses from the
/// evaluator's [`p2p_extremes`], its pairs summed by [`pair_q`] as the
/// evaluator sums them.
fn hosts_at_max(inst: &SpdInstance, assign: &[usize], hosts: &[usize], hi: f64) -> Vec<bool> {
    let ext = p2p_extremes(inst, assign);
    let mut at_max = vec![false; inst.servers()];
    for (i, &s) in hosts.iter().enumerate() {
        let e = ext[s];
        if e.count >= 2 && pair_q(inst, s, e.max1, s, e.max2) > hi {
            at_max[s] = true;
        }
        for &t in &hosts[i + 1..] {
            if pair_q(inst, s, e.max1, t, ext[t].max1) > hi {
                at_max[s] = true;
                at_max[t] = true;
            }
        }
    }
    at_max
}

/// The closed-host sets of the dives: the hosts at the largest delay
/// alone, then with each other host in turn and its `r − 1` nearest other
/// hosts ([`group`], among the hosts not at the largest delay), `r` from 1
/// to [`MAX_EXTRA`].
fn groups<'a>(
    inst: &'a SpdInstance,
    hosts: &'a [usize],
    at_max: Vec<bool>,
) -> impl Iterator<Item = Vec<bool>> + 'a {
    let others: Vec<usize> = hosts.iter().copied().filter(|&h| !at_max[h]).collect();
    let extra = MAX_EXTRA.min(others.len());
    let base = at_max.clone();
    let grown = (1..=extra).flat_map(move |r| {
        let (others, base) = (others.clone(), base.clone());
        (0..others.len()).map(move |i| {
            let mut closed = group(inst, &others, others[i], r);
            closed.iter_mut().zip(&base).for_each(|(c, &b)| *c |= b);
            closed
        })
    });
    std::iter::once(at_max).chain(grown)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::problems::spd::exact::p2p::tests::tiny;
    use crate::problems::spd::exact::score;
    use crate::problems::spd::model::SpdSolution;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// The hosts at the largest delay are those of some client pair above
    /// the limit, pair by pair (ties in every latency and at the limit).
    #[test]
    fn hosts_at_max_are_those_of_a_pair_above_the_limit() {
        let mut rng = ChaCha8Rng::seed_from_u64(41);
        for seed in 0..300 {
            let inst = tiny(8, 12, 1.5, 9000 + seed);
            let (n, m) = (inst.servers(), inst.clients());
            let assign: Vec<usize> = (0..m)
                .map(|c| {
                    let ok: Vec<usize> =
                        (0..n).filter(|&s| inst.access(c, s).is_finite()).collect();
                    ok[rng.random_range(0..ok.len())]
                })
                .collect();
            let pair = |c: usize, d: usize| {
                let (s, t) = (assign[c], assign[d]);
                pair_q(&inst, s, inst.access(c, s), t, inst.access(d, t))
            };
            let pairs: Vec<(usize, usize)> = (0..m)
                .flat_map(|c| (c + 1..m).map(move |d| (c, d)))
                .collect();
            // at an actual pair's value (ties) and just below it
            let q = pair(
                pairs[seed as usize % pairs.len()].0,
                pairs[seed as usize % pairs.len()].1,
            );
            for hi in [q, next_down(q)] {
                let mut want = vec![false; n];
                for &(c, d) in pairs.iter().filter(|&&(c, d)| pair(c, d) > hi) {
                    want[assign[c]] = true;
                    want[assign[d]] = true;
                }
                let hosts = hosts_of(&assign);
                assert_eq!(
                    hosts_at_max(&inst, &assign, &hosts, hi),
                    want,
                    "seed {seed}, {hi}"
                );
            }
        }
    }

    /// The dives keep the host count, never worsen the delay, report each
    /// better solution once in order, and their solutions pass the
    /// evaluator; on many random instances with ties they improve the
    /// host optimum's delay.
    #[test]
    fn delay_dives_keep_hosts_and_only_improve() {
        use crate::problems::spd::exact::p2p_hosts::min_hosts;
        use crate::problems::spd::exact::HostStage;
        let mut improved = 0;
        for seed in 0..200 {
            let inst = tiny(10, 40, [0.7, 0.9, 1.1][seed as usize % 3], 7000 + seed);
            let HostStage::Proven(start) = min_hosts(&inst, None, 1, &Deadline::none()) else {
                continue;
            };
            let (got, steps) = delay_dives(&inst, start.clone(), &Deadline::none());
            let again = score(&inst, SpdSolution::clone(&got.sol)).expect("feasible");
            assert_eq!(again.metrics.delay, got.metrics.delay, "seed {seed}");
            assert!(got.metrics.hosts <= start.metrics.hosts, "seed {seed}");
            assert!(got.metrics.delay <= start.metrics.delay, "seed {seed}");
            let mut prev = start.metrics.delay;
            for st in &steps {
                let v: f64 = st.step["delay ".len()..].parse().expect("a value");
                assert!(v < prev, "seed {seed}: {steps:?}");
                prev = v;
            }
            assert_eq!(prev, got.metrics.delay, "seed {seed}: {steps:?}");
            improved += usize::from(!steps.is_empty());
        }
        assert!(improved > 20, "only {improved} dives improved");
    }
}
