//! The class solver ([`crate::problems::cma::class_flow`]) applied to an
//! instance's rows: group them into shift classes
//! ([`crate::problems::cma::row_classes`]), solve the classes, give each
//! class's rows its parts in row order, and certify the result on the
//! real rows: every load within capacity, and the LP dual bound of the
//! class prices equal to the rows' total delay (within
//! [`crate::core::check`]'s tolerance). When the certificate fails the
//! caller solves otherwise, so the proof does not depend on the grouping.
//!
//! - [`solve_rows_by_classes`]: unit rows (`exact-flow`'s first try);
//! - [`solve_players_by_classes`]: rows that count players, each row
//!   split over its class's parts as its players need (`exact-flow` on
//!   weighted rows; grouped at any class count: on 10,000 regions × 200
//!   mirrors with 10⁷ players, 4,917 classes, it took 136 ms against the
//!   network simplex's 384 ms).
//!
//! One read of the matrix to group, one to certify, `O(n)` to hand out.

use crate::core::check::below;
use crate::error::{Error, Result};
use crate::problems::cma::class_flow::solve_classes;
use crate::problems::cma::exact_lp::Split;
use crate::problems::cma::model::CmaInstance;
use crate::problems::cma::row_classes::group_rows;
use rayon::prelude::*;

/// A certified optimum over an instance's rows.
#[derive(Debug, Clone)]
pub struct Certified {
    /// The mirror of each row.
    pub assign: Vec<usize>,
    /// The dual prices (`INFINITY` for a closed mirror).
    pub prices: Vec<f64>,
    /// Their LP dual bound, equal to the assignment's delay.
    pub bound: f64,
}

/// The static optimum over every row of a unit-row instance with
/// capacities `cap`, found over its shift classes: the mirror per row, the
/// dual prices and the LP dual bound. `Ok(None)` when the rows have too many
/// classes (more than `n / share`), when there are more rows than capacity,
/// or when the certificate fails: a load above capacity, or the bound on
/// the real rows short of the assignment's delay by more than the
/// tolerance (then the caller solves row by row). One read of the matrix
/// to group, one to certify.
pub fn solve_rows_by_classes(
    inst: &CmaInstance,
    cap: &[usize],
    share: usize,
) -> Result<Option<Certified>> {
    if inst.is_weighted() {
        return Ok(None);
    }
    let Some(classes) = group_rows(inst.delay_matrix(), inst.mirrors(), inst.max_delay(), share)
    else {
        return Ok(None);
    };
    let Some(split) = solve_classes(inst.mirrors(), &classes.offsets, &classes.weight, cap)? else {
        return Ok(None);
    };
    let assign = expand(&classes.of_row, &split.parts)?;
    let loads = assign.iter().map(|&j| (j, 1));
    let Some(bound) = certificate(loads, cap, || certify(inst, &assign, &split.prices, cap)) else {
        return Ok(None);
    };
    Ok(Some(Certified {
        assign,
        prices: split.prices,
        bound,
    }))
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

/// The assignment's total delay and the LP dual bound of `prices` with
/// capacities `cap`, both over the real rows in one parallel pass (fixed
/// chunks summed in order: the same bits on any number of threads).
fn certify(inst: &CmaInstance, assign: &[usize], prices: &[f64], cap: &[usize]) -> (f64, f64) {
    let k = inst.mirrors();
    let parts: Vec<(f64, f64)> = inst
        .delay_matrix()
        .par_chunks(CERTIFY_CHUNK * k)
        .zip(assign.par_chunks(CERTIFY_CHUNK))
        .map(|(rows, mirrors)| {
            let (mut delay, mut least) = (0.0, 0.0);
            for (row, &m) in rows.chunks_exact(k).zip(mirrors) {
                delay += row[m];
                least += least_priced(row, prices);
            }
            (delay, least)
        })
        .collect();
    let delay: f64 = parts.iter().map(|p| p.0).sum();
    let least: f64 = parts.iter().map(|p| p.1).sum();
    (delay, least - paid(prices, cap))
}

/// A certified optimum over rows that count players.
#[derive(Debug, Clone)]
pub struct CertifiedSplit {
    /// Per row, `[mirror, players]` pairs.
    pub split: Split,
    /// The dual prices (`INFINITY` for a closed mirror).
    pub prices: Vec<f64>,
    /// Their LP dual bound, equal to the split's delay.
    pub bound: f64,
}

/// The static optimum of rows with player counts over mirrors with
/// capacities `cap`, found over the rows' shift classes (each class
/// weighs its rows' players). `Ok(None)` when the players exceed `Σ cap`
/// or the certificate fails (see the module doc).
pub fn solve_players_by_classes(
    inst: &CmaInstance,
    cap: &[usize],
) -> Result<Option<CertifiedSplit>> {
    let Some(classes) = group_rows(inst.delay_matrix(), inst.mirrors(), inst.max_delay(), 1) else {
        return Ok(None);
    };
    let mut weight = vec![0usize; classes.len()];
    for (i, &c) in classes.of_row.iter().enumerate() {
        weight[c as usize] += inst.weight(i);
    }
    let Some(found) = solve_classes(inst.mirrors(), &classes.offsets, &weight, cap)? else {
        return Ok(None);
    };
    let split = hand_out_players(inst, &classes.of_row, &found.parts)?;
    let loads = split.iter().flatten().map(|&[j, u]| (j, u));
    let sums = || certify_split(inst, &split, &found.prices, cap);
    let Some(bound) = certificate(loads, cap, sums) else {
        return Ok(None);
    };
    Ok(Some(CertifiedSplit {
        split,
        prices: found.prices,
        bound,
    }))
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

/// [`certify`] for a split: `Σ u·d(i,m)` and the LP dual bound with each
/// row weighted by its players.
fn certify_split(inst: &CmaInstance, split: &Split, prices: &[f64], cap: &[usize]) -> (f64, f64) {
    let k = inst.mirrors();
    let parts: Vec<(f64, f64)> = inst
        .delay_matrix()
        .par_chunks(CERTIFY_CHUNK * k)
        .zip(split.par_chunks(CERTIFY_CHUNK))
        .map(|(rows, pairs)| {
            let (mut delay, mut least) = (0.0, 0.0);
            for (row, pairs) in rows.chunks_exact(k).zip(pairs) {
                let mut players = 0;
                for &[m, u] in pairs {
                    delay += u as f64 * row[m];
                    players += u;
                }
                if players > 0 {
                    least += players as f64 * least_priced(row, prices);
                }
            }
            (delay, least)
        })
        .collect();
    let delay: f64 = parts.iter().map(|p| p.0).sum();
    let least: f64 = parts.iter().map(|p| p.1).sum();
    (delay, least - paid(prices, cap))
}

/// `min_j (d(i,j) + p_j)` of one row.
fn least_priced(row: &[f64], prices: &[f64]) -> f64 {
    row.iter()
        .zip(prices)
        .map(|(d, p)| d + p)
        .fold(f64::INFINITY, f64::min)
}

/// `Σ_j C_j p_j` over the mirrors with a finite price.
fn paid(prices: &[f64], cap: &[usize]) -> f64 {
    prices
        .iter()
        .zip(cap)
        .filter(|(p, _)| p.is_finite())
        .map(|(p, &c)| p * c as f64)
        .sum()
}

/// The bound, when every load (`(mirror, players)` pairs) is within
/// capacity and then `delay_and_bound` (computed only in that case) has
/// its bound not below its delay.
fn certificate(
    loads: impl Iterator<Item = (usize, usize)>,
    cap: &[usize],
    delay_and_bound: impl FnOnce() -> (f64, f64),
) -> Option<f64> {
    let mut load = vec![0usize; cap.len()];
    for (j, u) in loads {
        *load.get_mut(j)? += u;
    }
    if load.iter().zip(cap).any(|(l, c)| l > c) {
        return None;
    }
    let (delay, bound) = delay_and_bound();
    (!below(bound, delay)).then_some(bound)
}

/// Rows per chunk of [`certify`].
const CERTIFY_CHUNK: usize = 32_768;

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
