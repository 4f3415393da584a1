//! `exact-ll` and `exact-pd`: the P2P roles `(S, RS)` of an AG chosen
//! exactly by enumerating every pair of its players (beyond the paper; the
//! placement is Algorithm 1's).
//!
//! - `exact-ll` minimises the total latency of the P2P subarea's links
//!   (seed 004 Fig. 2: every other player linked to `S` and to `RS`, plus
//!   the `S`–`RS` link): `T(S) + T(RS) − d(S, RS)` with `T(p)` = p's total
//!   latency to the AG. The paper's LL takes the two smallest `T` and so
//!   ignores the `− d(S, RS)` term; `S` is the pair's player with the lower
//!   `T` (it serves the others).
//! - `exact-pd` minimises the probability that both `S` and `RS` disconnect
//!   (the AG's state is lost only then): `PD(S) · PD(RS)`, `PD` of §5.2.1.
//!   `PD` never increases with `Uptime_min`, so the paper's PD greedy (two
//!   highest `Uptime_min`) is already optimal for this objective; the engine
//!   shows it (tests/ag.rs checks equality on generated instances).
//!
//! Ties: the lexicographically smallest pair of player indices. Cost:
//! `O(size²)` per AG (at most 780 pairs for 40 players).

use crate::problems::ag::gamma::probability_of_disconnection;
use crate::problems::ag::model::AgInstance;

/// The pair of `a`'s members minimising `cost(i, j)` over `i < j`
/// (positions in the member list); `(S, RS)` ordered by `first`.
fn best_pair(
    inst: &AgInstance,
    a: usize,
    cost: impl Fn(usize, usize) -> f64,
    first: impl Fn(usize, usize) -> bool,
) -> (usize, usize) {
    let m = &inst.members[a];
    if m.len() < 2 {
        return (m[0], m[0]);
    }
    let mut best = (f64::INFINITY, 0, 1);
    for i in 0..m.len() {
        for j in i + 1..m.len() {
            let c = cost(i, j);
            if c < best.0 {
                best = (c, i, j);
            }
        }
    }
    let (i, j) = (best.1, best.2);
    if first(i, j) {
        (m[i], m[j])
    } else {
        (m[j], m[i])
    }
}

/// `exact-ll`'s `(S, RS)` of AG `a`.
pub fn exact_ll_roles(inst: &AgInstance, a: usize) -> (usize, usize) {
    let m = &inst.members[a];
    let total: Vec<f64> = m
        .iter()
        .map(|&p| m.iter().map(|&q| inst.latency(p, q)).sum())
        .collect();
    best_pair(
        inst,
        a,
        |i, j| total[i] + total[j] - inst.latency(m[i], m[j]),
        |i, j| total[i] <= total[j],
    )
}

/// `exact-pd`'s `(S, RS)` of AG `a`.
pub fn exact_pd_roles(inst: &AgInstance, a: usize) -> (usize, usize) {
    let m = &inst.members[a];
    let up: Vec<f64> = m.iter().map(|&p| inst.uptime_min(p)).collect();
    let pd: Vec<f64> = up
        .iter()
        .map(|&u| probability_of_disconnection(u))
        .collect();
    best_pair(inst, a, |i, j| pd[i] * pd[j], |i, j| up[i] >= up[j])
}
