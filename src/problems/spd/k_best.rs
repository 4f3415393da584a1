//! k-best (`k-best`, the brute force of seed 001 §IV-C).
//!
//! `k` = the host count of SPDCS-H (CS) or SPDP2P-H (P2P). Every `k`-subset
//! of servers is tried as the host set, with every root in it; clients are
//! assigned by Algorithm Matching restricted to the subset, and the feasible
//! result with the least delay, then variation (then fewer hosts), is kept.
//! For P2P the matching tree is evaluated in the P2P model.
//! Complexity `O(C(n,k) · k · k · m)`: exponential in `k`, so the engine
//! refuses (status `error`) when `C(n,k) · k` exceeds
//! [`KBEST_MAX_SUBSETS`].

use crate::core::engine::{Ctx, Engine};
use crate::core::Deadline;
use crate::core::{FailureReason, Status};
use crate::problems::spd::engines::{SpdOutcome, KBEST_MAX_SUBSETS};
use crate::problems::spd::eval::{approx_eq, evaluate_spd, SpdMetrics};
use crate::problems::spd::model::{CommModel, SpdInstance, SpdSolution};
use crate::problems::spd::spdcs_h::SpdcsH;
use crate::problems::spd::spdp2p_h::Spdp2pH;

/// `k-best`.
pub struct KBest;

/// `C(n, k)`; `None` when it does not fit in a `u128` (n above about 130
/// with k near n/2).
pub fn binomial(n: u64, k: u64) -> Option<u128> {
    if k > n {
        return Some(0);
    }
    let k = k.min(n - k);
    let mut acc: u128 = 1;
    for i in 0..k {
        // acc · (n − i) is divisible by i + 1 (it is C(n, i+1) · (i + 1)).
        acc = acc.checked_mul(u128::from(n - i))? / u128::from(i + 1);
    }
    Some(acc)
}

/// `k · C(n, k)`, the subset-root pairs k-best tries, as people read it:
/// exact, or "more than 3.4e38" when it does not fit in a `u128`.
fn pairs_text(n: u64, k: u64) -> (Option<u128>, String) {
    match binomial(n, k).and_then(|b| b.checked_mul(u128::from(k))) {
        Some(w) => (Some(w), w.to_string()),
        None => (None, format!("more than {:e}", u128::MAX as f64)),
    }
}

/// Calls `f` with every `k`-subset of `0..n` in lexicographic order, until
/// `f` returns `false`.
fn for_each_subset(n: usize, k: usize, mut f: impl FnMut(&[usize]) -> bool) {
    if k == 0 || k > n {
        return;
    }
    let mut idx: Vec<usize> = (0..k).collect();
    loop {
        if !f(&idx) {
            return;
        }
        let mut i = k;
        while i > 0 && idx[i - 1] == n - k + i - 1 {
            i -= 1;
        }
        if i == 0 {
            return;
        }
        idx[i - 1] += 1;
        for j in i..k {
            idx[j] = idx[j - 1] + 1;
        }
    }
}

fn better(m: &SpdMetrics, b: &SpdMetrics) -> bool {
    if !approx_eq(m.delay, b.delay) {
        return m.delay < b.delay;
    }
    if !approx_eq(m.variation, b.variation) {
        return m.variation < b.variation;
    }
    m.hosts < b.hosts
}

/// The best `k`-subset solution; `None` when no subset is feasible.
pub fn k_best(inst: &SpdInstance, k: usize) -> Option<SpdSolution> {
    k_best_until(inst, k, &Deadline::none()).0
}

/// [`k_best`] that stops at `deadline`: the best solution of the subsets
/// tried, and whether every subset was tried.
pub fn k_best_until(
    inst: &SpdInstance,
    k: usize,
    deadline: &Deadline,
) -> (Option<SpdSolution>, bool) {
    let n = inst.servers();
    let mut allowed = vec![false; n];
    let mut best: Option<(SpdMetrics, SpdSolution)> = None;
    let mut complete = true;
    for_each_subset(n, k, |subset| {
        if deadline.expired() {
            complete = false;
            return false;
        }
        subset.iter().for_each(|&s| allowed[s] = true);
        for &r in subset {
            let (assign, _) = inst.matching_for_root(r, Some(&allowed));
            let root = (inst.model == CommModel::Cs).then_some(r);
            let sol = SpdSolution { root, assign };
            let ev = evaluate_spd(inst, &sol);
            if !ev.is_feasible() {
                continue;
            }
            if let Some(m) = ev.metrics {
                if best.as_ref().is_none_or(|(b, _)| better(&m, b)) {
                    best = Some((m, sol));
                }
            }
        }
        subset.iter().for_each(|&s| allowed[s] = false);
        true
    });
    (best.map(|(_, s)| s), complete)
}

impl Engine<SpdInstance> for KBest {
    fn name(&self) -> &str {
        "k-best"
    }

    fn solve(&self, inst: &SpdInstance, ctx: &Ctx) -> SpdOutcome {
        let seed = match inst.model {
            CommModel::Cs => SpdcsH.solve(inst, ctx),
            CommModel::P2p => Spdp2pH.solve(inst, ctx),
        };
        let Some(seed) = seed.solution else {
            return SpdOutcome::no_solution(
                "k-best needs k from SPDCS-H/SPDP2P-H, which found no solution",
            );
        };
        let Some(k) = evaluate_spd(inst, &seed).metrics.map(|m| m.hosts) else {
            return SpdOutcome::no_solution("k-best could not evaluate the SPDCS-H seed");
        };
        let (work, shown) = pairs_text(inst.servers() as u64, k as u64);
        let cap = ctx.opts.count(&KBEST_MAX_SUBSETS);
        if work.is_none_or(|w| w > u128::from(cap)) {
            return SpdOutcome::failed(
                FailureReason::Refused,
                format!(
                    "refused: k = {k} over {} servers means {shown} subset-root pairs, above the cap of {cap} (raise --kbest-max-subsets)",
                    inst.servers(),
                ),
            );
        }
        match k_best_until(inst, k, &ctx.deadline) {
            (Some(sol), true) => SpdOutcome::found(sol),
            (None, true) => {
                SpdOutcome::no_solution(format!("no {k}-subset of servers meets the bound"))
            }
            (Some(sol), false) => SpdOutcome::claim(Status::TimeLimit, sol, None)
                .with_message(format!("time limit hit: the best of the {k}-subsets tried")),
            (None, false) => SpdOutcome::without_solution(
                Status::TimeLimit,
                format!("time limit hit before a feasible {k}-subset was found"),
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subsets_are_enumerated_once_each() {
        for n in 0..8usize {
            for k in 0..=n + 1 {
                let mut seen = Vec::new();
                for_each_subset(n, k, |s| {
                    seen.push(s.to_vec());
                    true
                });
                let distinct: std::collections::BTreeSet<Vec<usize>> =
                    seen.iter().cloned().collect();
                let expected = if k == 0 {
                    0
                } else {
                    binomial(n as u64, k as u64).unwrap_or(u128::MAX)
                };
                assert_eq!(seen.len() as u128, expected, "n {n} k {k}");
                assert_eq!(distinct.len(), seen.len(), "a subset twice, n {n} k {k}");
                for s in &seen {
                    assert!(s.windows(2).all(|w| w[0] < w[1]) && s.iter().all(|&x| x < n));
                }
            }
        }
        assert_eq!(binomial(25, 5), Some(53130));
        // fuzz4 M4: the refusal's count is exact, not a saturated u64.
        let (work, shown) = pairs_text(100, 21);
        assert_eq!(work, Some(42_878_669_632_304_774_637_600));
        assert_eq!(shown, "42878669632304774637600");
        assert_eq!(
            pairs_text(400, 200).1,
            format!("more than {:e}", u128::MAX as f64)
        );
        let mut calls = 0;
        for_each_subset(6, 2, |_| {
            calls += 1;
            calls < 4
        });
        assert_eq!(calls, 4, "stops when asked");
    }
}
