//! The class solver ([`crate::problems::cma::class_flow`]) applied to an
//! instance's rows: group them into shift classes
//! ([`crate::problems::cma::row_classes`]), solve the classes, give each
//! class's rows its parts in row order, and certify the result on the
//! real rows: THE evaluator ([`crate::problems::cma::eval`]) finds it
//! feasible, and the LP dual bound of the class prices
//! ([`crate::problems::cma::exact_flow::dual_bound`]) equals the total
//! delay it measured (within [`crate::core::check`]'s tolerance). When the
//! certificate fails the caller solves otherwise, so the proof does not
//! depend on the grouping.
//!
//! - [`solve_rows_by_classes`]: unit rows (`exact-flow`'s first try);
//! - [`solve_players_by_classes`]: rows that count players, each row
//!   split over its class's parts as its players need (`exact-flow` on
//!   weighted rows; grouped at any class count: on 10,000 regions × 200
//!   mirrors with 10⁷ players, 4,917 classes, criterion
//!   `cma_exact_flow_weighted` measured 156 ms against the network
//!   simplex's 388 ms, load 3.3).
//!
//! One read of the matrix to group, the evaluator's and the bound's to
//! certify, `O(n)` to hand out.

use crate::core::check::below;
use crate::error::{Error, Result};
use crate::problems::cma::class_flow::solve_classes;
use crate::problems::cma::eval::{
    evaluate_cma_split, evaluate_cma_static, CmaEvaluation, DEFAULT_THRESHOLD_MS,
};
use crate::problems::cma::exact_flow::dual_bound;
use crate::problems::cma::exact_lp::Split;
use crate::problems::cma::model::CmaInstance;
use crate::problems::cma::row_classes::group_rows;

/// A certified optimum over an instance's rows: `solution` is the mirror
/// per row (unit rows) or the `[mirror, players]` pairs per row (rows
/// with player counts).
#[derive(Debug, Clone)]
pub struct Certified<S> {
    /// The assignment.
    pub solution: S,
    /// The dual prices (`INFINITY` for a closed mirror).
    pub prices: Vec<f64>,
    /// Their LP dual bound, equal to the assignment's delay.
    pub bound: f64,
}

/// The static optimum over every row of a unit-row instance, found over
/// its shift classes: the mirror per row, the dual prices and the LP dual
/// bound. `Ok(None)` when the rows have too many classes (more than
/// `n / share`), when there are more rows than capacity, or when the
/// certificate fails (see the module doc; then the caller solves row by
/// row).
pub fn solve_rows_by_classes(
    inst: &CmaInstance,
    share: usize,
) -> Result<Option<Certified<Vec<usize>>>> {
    if inst.is_weighted() {
        return Ok(None);
    }
    let Some(classes) = group_rows(inst.delay_matrix(), inst.mirrors(), inst.max_delay(), share)
    else {
        return Ok(None);
    };
    let cap = &inst.capacity;
    let Some(split) = solve_classes(inst.mirrors(), &classes.offsets, &classes.weight, cap)? else {
        return Ok(None);
    };
    let assign = expand(&classes.of_row, &split.parts)?;
    let evaluation = evaluate_cma_static(inst, &assign, DEFAULT_THRESHOLD_MS);
    Ok(certify(inst, &evaluation, assign, split.prices))
}

/// Each row's mirror: a class's rows, in row order, fill its parts in
/// mirror order. `O(n)`.
fn expand(of_row: &[u32], parts: &[Vec<(usize, usize)>]) -> Result<Vec<usize>> {
    let mut at = vec![0usize; parts.len()];
    let mut used = vec![0usize; parts.len()];
    of_row
        .iter()
        .map(|&c| {
            let c = c as usize;
            let short = || Error::Solver(format!("class {c} has more rows than units"));
            let ps = parts.get(c).ok_or_else(short)?;
            while ps.get(at[c]).is_some_and(|p| used[c] == p.1) {
                at[c] += 1;
                used[c] = 0;
            }
            let &(mirror, _) = ps.get(at[c]).ok_or_else(short)?;
            used[c] += 1;
            Ok(mirror)
        })
        .collect()
}

/// The static optimum of rows with player counts, found over the rows'
/// shift classes (each class weighs its rows' players). `Ok(None)` when
/// the players exceed the capacity or the certificate fails (see the
/// module doc).
pub fn solve_players_by_classes(inst: &CmaInstance) -> Result<Option<Certified<Split>>> {
    let Some(classes) = group_rows(inst.delay_matrix(), inst.mirrors(), inst.max_delay(), 1) else {
        return Ok(None);
    };
    let mut weight = vec![0usize; classes.len()];
    for (i, &c) in classes.of_row.iter().enumerate() {
        weight[c as usize] += inst.weight(i);
    }
    let cap = &inst.capacity;
    let Some(found) = solve_classes(inst.mirrors(), &classes.offsets, &weight, cap)? else {
        return Ok(None);
    };
    let split = hand_out_players(inst, &classes.of_row, &found.parts)?;
    let evaluation = evaluate_cma_split(inst, &split, DEFAULT_THRESHOLD_MS);
    Ok(certify(inst, &evaluation, split, found.prices))
}

/// Each row's players taken, in row order, from its class's parts in
/// mirror order (a row may span two or more parts). `O(n + parts)`.
fn hand_out_players(
    inst: &CmaInstance,
    of_row: &[u32],
    parts: &[Vec<(usize, usize)>],
) -> Result<Split> {
    let mut at = vec![0usize; parts.len()];
    let mut used = vec![0usize; parts.len()];
    let mut split = Vec::with_capacity(of_row.len());
    for (i, &c) in of_row.iter().enumerate() {
        let c = c as usize;
        let short = || Error::Solver(format!("class {c} has more players than units"));
        let ps = parts.get(c).ok_or_else(short)?;
        let (mut left, mut row) = (inst.weight(i), Vec::new());
        while left > 0 {
            let &(mirror, units) = ps.get(at[c]).ok_or_else(short)?;
            let take = left.min(units - used[c]);
            if take > 0 {
                row.push([mirror, take]);
            }
            left -= take;
            used[c] += take;
            if used[c] == units {
                at[c] += 1;
                used[c] = 0;
            }
        }
        split.push(row);
    }
    Ok(split)
}

/// `solution` with its prices and their bound, when THE evaluator's
/// `evaluation` of it is feasible and the LP dual bound of `prices` over
/// the real rows (weighted by their players) is not below the delay it
/// measured.
fn certify<S>(
    inst: &CmaInstance,
    evaluation: &CmaEvaluation,
    solution: S,
    prices: Vec<f64>,
) -> Option<Certified<S>> {
    if !evaluation.is_feasible() {
        return None;
    }
    let rows: Vec<usize> = (0..inst.clients()).collect();
    let bound = dual_bound(inst, &rows, &prices);
    (!below(bound, evaluation.metrics.total_delay)).then_some(Certified {
        solution,
        prices,
        bound,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_class_is_split_over_mirrors_in_row_order() {
        let parts = vec![vec![(1, 2), (3, 1)], vec![(0, 2)]];
        assert_eq!(
            expand(&[0, 1, 0, 0, 1], &parts).unwrap(),
            vec![1, 0, 1, 3, 0]
        );
        assert!(expand(&[1, 1, 1], &parts).is_err());
    }
}
