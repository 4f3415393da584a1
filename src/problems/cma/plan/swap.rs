//! `swap`: the Teitz–Bart interchange heuristic from the greedy-add set:
//! try closing an open mirror and opening a closed one, evaluating every
//! swap exactly (the transportation problem, cached per set); take the
//! first improving swap and start over, until a whole pass finds none or
//! `max_passes` passes were made. A pass tries at most `K·(k − K)` swaps,
//! each `O(nk + E·k²)`.

use super::greedy::greedy_set;
use super::{Planner, SetEval};
use crate::error::Result;

/// Improves `start` by single swaps; returns the best set found,
/// evaluated.
pub fn swap_from(
    planner: &mut Planner<'_>,
    start: Vec<usize>,
    max_passes: usize,
) -> Result<Option<SetEval>> {
    let m = planner.mirrors();
    let Some(mut cur) = planner.evaluate(&start)? else {
        return Ok(None);
    };
    let tol = planner.tolerance();
    for _ in 0..max_passes {
        let mut improved = false;
        'pass: for out_pos in 0..cur.open.len() {
            for j_in in 0..m {
                if cur.open.binary_search(&j_in).is_ok() {
                    continue;
                }
                let mut set = cur.open.clone();
                set[out_pos] = j_in;
                set.sort_unstable();
                if let Some(obj) = planner.objective(&set)? {
                    if obj < cur.objective - tol {
                        if let Some(better) = planner.evaluate(&set)? {
                            cur = better;
                            improved = true;
                            break 'pass;
                        }
                    }
                }
            }
        }
        if !improved {
            break;
        }
    }
    Ok(Some(cur))
}

/// The swap heuristic for `k`, started from greedy-add (up to 50 passes).
pub fn swap(planner: &mut Planner<'_>, k: usize) -> Result<Option<SetEval>> {
    match greedy_set(planner, k) {
        Some(set) => swap_from(planner, set, 50),
        None => Ok(None),
    }
}
