//! `greedy` (greedy-add): opens mirrors one at a time, each time the one
//! that lowers the uncapacitated cost `Σ_i w_i min_{j open} d_ij + Σ f_j` the
//! most, among the mirrors that keep `K` mirrors with enough capacity
//! reachable; the final set's assignment is the transportation optimum.
//! `O(K·nk + K·k² log k)` plus one transportation problem.

use super::{Planner, SetEval};
use crate::error::Result;

/// The greedy-add mirror set for `k` (`None` when no `k` mirrors have
/// enough capacity).
pub fn greedy_set(planner: &Planner<'_>, k: usize) -> Option<Vec<usize>> {
    let inst = planner.inst;
    let (n, m) = (inst.clients(), inst.mirrors());
    if k == 0 || k > m || !planner.k_feasible(k) {
        return None;
    }
    let mut best = vec![f64::INFINITY; n];
    let mut open: Vec<usize> = Vec::with_capacity(k);
    let mut is_open = vec![false; m];
    let mut total = vec![0.0; m];
    while open.len() < k {
        // One sequential pass over the matrix: the cost after adding each j.
        total
            .iter_mut()
            .zip(&planner.cost)
            .for_each(|(t, c)| *t = *c);
        for (i, &b) in best.iter().enumerate() {
            let w = inst.weight(i) as f64;
            for (t, &d) in total.iter_mut().zip(inst.row(i)) {
                *t += w * b.min(d);
            }
        }
        let mut pick: Option<(f64, usize)> = None;
        for j in 0..m {
            if is_open[j] || !reachable(planner, &is_open, j, k - open.len() - 1) {
                continue;
            }
            if pick.is_none_or(|(t, _)| total[j] < t) {
                pick = Some((total[j], j));
            }
        }
        let (_, j) = pick?;
        is_open[j] = true;
        open.push(j);
        for (i, b) in best.iter_mut().enumerate() {
            *b = b.min(inst.delay(i, j));
        }
    }
    open.sort_unstable();
    Some(open)
}

/// Whether opening `j` (on top of `is_open`) and `more` further mirrors can
/// reach the player count in capacity.
fn reachable(planner: &Planner<'_>, is_open: &[bool], j: usize, more: usize) -> bool {
    let cap = &planner.inst.capacity;
    let mut rest: Vec<usize> = (0..cap.len())
        .filter(|&x| x != j && !is_open[x])
        .map(|x| cap[x])
        .collect();
    rest.sort_unstable_by(|a, b| b.cmp(a));
    let have: usize = (0..cap.len())
        .filter(|&x| is_open[x])
        .map(|x| cap[x])
        .sum::<usize>()
        + cap[j];
    have + rest.iter().take(more).sum::<usize>() >= planner.players()
}

/// The greedy-add solution for `k`, evaluated exactly.
pub fn greedy(planner: &mut Planner<'_>, k: usize) -> Result<Option<SetEval>> {
    match greedy_set(planner, k) {
        Some(set) => planner.evaluate(&set),
        None => Ok(None),
    }
}
