//! `exact` for P2P, lexicographic stages: least delay, then least variation,
//! at the proven host count `k*` (searches described in [`super`]).

use crate::core::{StageStep, StageTime, Status};
use crate::problems::spd::exact::p2p::{allowed_pairs, min_pair, pair_q, Limits, P2pModel};
use crate::problems::spd::exact::p2p_search::descent::{next_down, next_up, Descent, Side};
use crate::problems::spd::exact::p2p_search::probe::{decide_planned, Plan, FIRST_TRY};
use crate::problems::spd::exact::{
    heuristic_incumbent, score, Deadline, KeySearch, LexResult, Probe, Scored, CANDIDATE_LIMIT,
};
use crate::problems::spd::exact::{p2p_few, p2p_search};
use crate::problems::spd::model::SpdInstance;
use std::time::Instant;

/// Allowed `(client, access)` per server, sorted by access.
type Allowed = Vec<Vec<(usize, f64)>>;

/// A stage's result: the best solution, why it is not proven (`None`:
/// proven), and the steps of its descent (none on the bisection route).
type StageOut = (Scored, Option<String>, Vec<StageStep>);

/// Calls `f(s, x, t, run)` for every server pair `s <= t`, every allowed
/// access `x` on `s` and the run of allowed clients of `t` whose pair value
/// with `x` has its key `dir · q` in `(kl, kb]`.
fn for_each_run(
    inst: &SpdInstance,
    allowed: &Allowed,
    dir: f64,
    (kl, kb): (f64, f64),
    mut f: impl FnMut(usize, f64, usize, &[(usize, f64)]),
) {
    let n = allowed.len();
    for s in 0..n {
        for &(_, x) in &allowed[s] {
            for (t, list) in allowed.iter().enumerate().skip(s) {
                let q = |y: f64| pair_q(inst, s, x, t, y);
                // q ascends along `list`; the key range is one run
                let (start, end) = if dir > 0.0 {
                    (
                        list.partition_point(|&(_, y)| q(y) <= kl),
                        list.partition_point(|&(_, y)| q(y) <= kb),
                    )
                } else {
                    (
                        list.partition_point(|&(_, y)| q(y) < -kb),
                        list.partition_point(|&(_, y)| q(y) < -kl),
                    )
                };
                if start < end {
                    f(s, x, t, &list[start..end]);
                }
            }
        }
    }
}

/// Number of candidate pair values (with multiplicity) with key in the range.
fn count(inst: &SpdInstance, allowed: &Allowed, dir: f64, range: (f64, f64)) -> usize {
    let mut total = 0usize;
    for_each_run(inst, allowed, dir, range, |_, _, _, run| total += run.len());
    total
}

/// The distinct candidate keys in the range, ascending. Every pair delay an
/// assignment over allowed pairs can have is among them (plus some values
/// of no real pair, which only cost a test).
fn keys(inst: &SpdInstance, allowed: &Allowed, dir: f64, range: (f64, f64)) -> Vec<f64> {
    let mut out = Vec::new();
    for_each_run(inst, allowed, dir, range, |s, x, t, run| {
        out.extend(run.iter().map(|&(_, y)| dir * pair_q(inst, s, x, t, y)));
    });
    out.sort_unstable_by(f64::total_cmp);
    out.dedup();
    out
}

/// The paper's heuristics run at the tested bound (delay stage only): a
/// solution they find with at most `k` hosts answers the test without a MILP.
fn heuristic_at(inst: &SpdInstance, lim: &Limits, k: usize) -> Option<Scored> {
    if lim.lo > f64::NEG_INFINITY || !lim.hi.is_finite() {
        return None;
    }
    let mut at = inst.clone();
    at.bound = lim.hi.min(inst.bound);
    at.bound_factor = None;
    let opts = crate::core::SolveOptions::default();
    let sc = heuristic_incumbent(&at, &crate::core::Ctx::new(&opts))?;
    if sc.metrics.hosts > k {
        return None;
    }
    // re-scored against the instance itself (its bound is not lower)
    score(inst, sc.sol).filter(|s| lim.fits(s.metrics.delay))
}

/// One test: a solution with at most `k` hosts whose pairs fit `lim`.
fn probe(inst: &SpdInstance, lim: Limits, k: usize, dl: &Deadline) -> Probe {
    if dl.expired() {
        return Probe::Unknown("the deadline was hit".into());
    }
    // the pair filter first: below the least feasible delay it already
    // refutes the test, without running the heuristics
    let Ok(lists) = allowed_pairs(inst, &lim) else {
        return Probe::Infeasible;
    };
    if k > 2 {
        if let Some(sc) = heuristic_at(inst, &lim, k) {
            return Probe::Feasible(sc);
        }
    }
    if let Some(answer) = p2p_search::probe::decide_probed(inst, lim, lists, k, dl, None) {
        return answer;
    }
    match k {
        1 => return p2p_few::single_host(inst, &lim),
        2 => return p2p_few::at_most_two_hosts(inst, &lim, dl),
        _ => {}
    }
    let Ok(model) = P2pModel::new(inst, lim, dl) else {
        return Probe::Infeasible;
    };
    let ans = model.solve(Some(k), true, None, dl);
    let found = ans.solution.and_then(|s| score(inst, s));
    match (ans.status, found) {
        (Status::Optimal | Status::TimeLimit, Some(sc)) => Probe::Feasible(sc),
        (Status::Infeasible, _) => Probe::Infeasible,
        (Status::TimeLimit, None) => Probe::Unknown("the deadline was hit".into()),
        (status, _) => Probe::Unknown(format!(
            "HiGHS ended with {status}: {}",
            ans.message.unwrap_or_default()
        )),
    }
}

/// A two-phase search in key space (`key = dir · value`): real bisection
/// while more than [`CANDIDATE_LIMIT`] candidates remain between the last
/// infeasible key and the best key, then bisection over the explicit list.
struct TwoPhase<'a> {
    inst: &'a SpdInstance,
    allowed: &'a Allowed,
    dir: f64,
    /// No candidate key is below this.
    key_min: f64,
}

impl TwoPhase<'_> {
    /// The largest candidate key strictly below `kb` (and `>= key_min`).
    fn prev_key(&self, kb: f64) -> Option<f64> {
        let mut best: Option<f64> = None;
        let n = self.allowed.len();
        for s in 0..n {
            for &(_, x) in &self.allowed[s] {
                for t in s..n {
                    let list = &self.allowed[t];
                    let q = |y: f64| pair_q(self.inst, s, x, t, y);
                    let cand = if self.dir > 0.0 {
                        let end = list.partition_point(|&(_, y)| q(y) < kb);
                        end.checked_sub(1).map(|i| q(list[i].1))
                    } else {
                        let start = list.partition_point(|&(_, y)| q(y) <= -kb);
                        list.get(start).map(|&(_, y)| -q(y))
                    };
                    if let Some(k) = cand.filter(|&k| k >= self.key_min && k < kb) {
                        best = Some(best.map_or(k, |b: f64| b.max(k)));
                    }
                }
            }
        }
        best
    }

    fn run(
        &self,
        mut best: Scored,
        value: impl Fn(&Scored) -> f64,
        mut probe: impl FnMut(f64) -> Probe,
    ) -> (Scored, Option<String>) {
        let mut k_inf = f64::NEG_INFINITY;
        // the incumbent is often optimal: try the next better candidate first
        if let Some(p) = self.prev_key(self.dir * value(&best)) {
            match probe(self.dir * p) {
                Probe::Feasible(s) => best = s,
                Probe::Infeasible => return (best, None),
                Probe::Unknown(why) => return (best, Some(why)),
            }
        }
        loop {
            let k_best = self.dir * value(&best);
            if count(self.inst, self.allowed, self.dir, (k_inf, k_best)) <= CANDIDATE_LIMIT {
                break;
            }
            let low = k_inf.max(self.key_min);
            let mid = low + (k_best - low) / 2.0;
            if !(mid > low && mid < k_best) {
                break;
            }
            match probe(self.dir * mid) {
                Probe::Feasible(s) => best = s,
                Probe::Infeasible => k_inf = mid,
                Probe::Unknown(why) => return (best, Some(why)),
            }
        }
        let k_best = self.dir * value(&best);
        let mut keys = keys(self.inst, self.allowed, self.dir, (k_inf, k_best));
        keys.retain(|&k| k >= self.key_min);
        KeySearch {
            keys: &keys,
            dir: self.dir,
        }
        .run(0, best, value, probe)
    }
}

/// Stage 2 alone: the least delay with at most `best`'s host count; `None`
/// when proven, else why not.
pub(crate) fn min_delay(
    inst: &SpdInstance,
    best: Scored,
    dl: &Deadline,
) -> (Scored, Option<String>) {
    match allowed_pairs(inst, &Limits::bound(inst.bound)) {
        Ok(allowed) => {
            let (best, why, _) = delay_stage(inst, &allowed, best, dl);
            (best, why)
        }
        Err(_) => (best, Some("the pair filter failed".into())),
    }
}

/// A stage by branch and bound ([`descent`]): one search from `lim` (just
/// past `best`'s value) whose limit tightens at each solution it finds;
/// its first plain search takes `first_try` nodes ([`Plan`]); `critical`:
/// `lim.hi` is the proven least delay ([`Plan::critical`]). Its steps: each
/// solution kept, then the last search's answer (`delay below 576.6`:
/// `infeasible` or `unknown`), with the milliseconds from its start.
/// `Err` gives `best` back when the search declines the instance.
#[allow(clippy::result_large_err)]
fn descend(
    inst: &SpdInstance,
    side: Side,
    lim: Limits,
    best: Scored,
    first_try: u64,
    critical: bool,
    dl: &Deadline,
) -> Result<StageOut, Scored> {
    let start = match side {
        Side::Upper => lim.hi,
        Side::Lower => lim.lo,
    };
    let d = Descent::new(side, start);
    let last = |best: &Scored, result: &str, ms: f64| StageStep {
        step: match side {
            Side::Upper => format!("delay below {}", best.metrics.delay),
            Side::Lower => format!("variation below {}", best.metrics.variation),
        },
        result: result.into(),
        ms,
    };
    if dl.expired() {
        let steps = vec![last(&best, StageStep::UNKNOWN, 0.0)];
        return Ok((best, Some("the deadline was hit".into()), steps));
    }
    // the pair filter alone may refute the start threshold
    let Ok(lists) = allowed_pairs(inst, &lim) else {
        let steps = vec![last(&best, StageStep::INFEASIBLE, d.elapsed_ms())];
        return Ok((best, None, steps));
    };
    let plan = Plan {
        first_try,
        descent: Some(d.clone()),
        critical,
        ..Plan::default()
    };
    let k = best.metrics.hosts;
    let Some(ans) = decide_planned(inst, lim, lists, k, plan, dl) else {
        return Err(best);
    };
    // every solution the descent keeps beats `best`
    let best = d.best().unwrap_or(best);
    let (why, result) = match ans {
        Probe::Infeasible => (None, StageStep::INFEASIBLE),
        Probe::Unknown(why) => (Some(why), StageStep::UNKNOWN),
        Probe::Feasible(_) => (
            Some("the descent ended on a decision".into()),
            StageStep::UNKNOWN,
        ),
    };
    let mut steps = d.steps();
    steps.push(last(&best, result, d.elapsed_ms()));
    Ok((best, why, steps))
}

fn delay_stage(inst: &SpdInstance, allowed: &Allowed, best: Scored, dl: &Deadline) -> StageOut {
    let began = Instant::now();
    let (best, mut steps) = dives::delay_dives(inst, best, dl);
    let dived_ms = began.elapsed().as_secs_f64() * 1e3;
    let start = Limits {
        mu: inst.bound,
        hi: next_down(best.metrics.delay),
        lo: f64::NEG_INFINITY,
    };
    let (best, why, descent) = match descend(inst, Side::Upper, start, best, FIRST_TRY, false, dl) {
        Ok(done) => done,
        Err(best) => {
            let (best, why) = delay_bisection(inst, allowed, best, dl);
            (best, why, Vec::new())
        }
    };
    // the descent's milliseconds count from its own start
    steps.extend(descent.into_iter().map(|st| StageStep {
        ms: st.ms + dived_ms,
        ..st
    }));
    (best, why, steps)
}

/// Stage 2 by bisection over the candidate delays (when the search
/// declines the instance).
fn delay_bisection(
    inst: &SpdInstance,
    allowed: &Allowed,
    best: Scored,
    dl: &Deadline,
) -> (Scored, Option<String>) {
    let (mu, k) = (inst.bound, best.metrics.hosts);
    let delay = TwoPhase {
        inst,
        allowed,
        dir: 1.0,
        key_min: 0.0,
    };
    delay.run(
        best,
        |s| s.metrics.delay,
        |t| {
            probe(
                inst,
                Limits {
                    mu,
                    hi: t,
                    lo: f64::NEG_INFINITY,
                },
                k,
                dl,
            )
        },
    )
}

/// Stages 2 and 3 for P2P: least delay, then least variation, at `k*` hosts.
/// (The stage times: the pair filter counts in `delay`.)
pub(crate) fn lexicographic(inst: &SpdInstance, best: Scored, dl: &Deadline) -> LexResult {
    let mu = inst.bound;
    let mut stages = Vec::new();
    let delay = StageTime::time(&mut stages, "delay", || {
        let allowed = allowed_pairs(inst, &Limits::bound(mu)).ok()?;
        let (best, why, steps) = delay_stage(inst, &allowed, best.clone(), dl);
        Some((allowed, best, why, steps))
    });
    let Some((allowed, best, why, steps)) = delay else {
        let notes = vec!["delay and variation not minimised: the pair filter failed".into()];
        return LexResult {
            best,
            notes,
            stages,
        };
    };
    attach(&mut stages, steps);
    if let Some(w) = why {
        let notes = vec![format!(
            "delay stage not proven ({w}); variation not minimised"
        )];
        return LexResult {
            best,
            notes,
            stages,
        };
    }
    let (best, why, steps) = StageTime::time(&mut stages, "variation", || {
        variation_stage(inst, &allowed, best, dl)
    });
    attach(&mut stages, steps);
    let notes = why
        .map(|w| {
            vec![format!(
                "delay proven minimal; variation stage not proven ({w})"
            )]
        })
        .unwrap_or_default();
    LexResult {
        best,
        notes,
        stages,
    }
}

/// Gives the last stage timed its descent's steps.
fn attach(stages: &mut [StageTime], steps: Vec<StageStep>) {
    if let Some(last) = stages.last_mut() {
        last.steps = steps;
    }
}

/// Stage 3: the largest smallest pair (least variation) at `best`'s
/// delay and host count, by a descent split over the critical pairs (the
/// delay stage proved `best`'s delay least, so every solution has a pair
/// at it: [`Plan::critical`]).
fn variation_stage(inst: &SpdInstance, allowed: &Allowed, best: Scored, dl: &Deadline) -> StageOut {
    let start = Limits {
        mu: inst.bound,
        hi: best.metrics.delay,
        lo: next_up(min_pair(inst, &best.sol)),
    };
    // (the delay stage proved `hi` least: every solution has a pair at it)
    match descend(inst, Side::Lower, start, best, FIRST_TRY, true, dl) {
        Ok(done) => done,
        Err(best) => {
            let (best, why) = variation_bisection(inst, allowed, best, dl);
            (best, why, Vec::new())
        }
    }
}

/// Stage 3 by bisection over the candidate smallest pairs (when the search
/// declines the instance).
fn variation_bisection(
    inst: &SpdInstance,
    allowed: &Allowed,
    best: Scored,
    dl: &Deadline,
) -> (Scored, Option<String>) {
    let (mu, k, d_star) = (inst.bound, best.metrics.hosts, best.metrics.delay);
    let var = TwoPhase {
        inst,
        allowed,
        dir: -1.0,
        key_min: -d_star,
    };
    var.run(
        best,
        |s| min_pair(inst, &s.sol),
        |l| {
            probe(
                inst,
                Limits {
                    mu,
                    hi: d_star,
                    lo: l,
                },
                k,
                dl,
            )
        },
    )
}

#[path = "p2p_lex_dives.rs"]
mod dives;

#[cfg(test)]
#[path = "p2p_lex_tests.rs"]
mod tests;
