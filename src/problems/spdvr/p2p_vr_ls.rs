//! `p2p-vr-ls` (beyond the paper): iterated local search for P2P delay
//! variation on the start's hosts.
//!
//! 1. Run SPDVRP2P-H (Algorithm 2) from the start, so the result is never
//!    worse than `spdvrp2p-h`.
//! 2. Local search: sweep the clients; move each to the host that lowers
//!    `(V, D)` lexicographically (keeping `D <= μ`), until a sweep moves no
//!    one. Unlike Algorithm 2, every client is tried, not only the two of the
//!    extreme pair, and delay breaks ties, so the search crosses plateaus of
//!    equal variation.
//! 3. Iterate: perturb 1–3 clients (half the time a client of the current
//!    extreme pairs, else any client) onto random hosts that keep `D <= μ`,
//!    local search again, accept when not worse (plateau walking), keep the
//!    best. A fixed number of rounds ([`ROUNDS`]), seeded by
//!    `SolveOptions::seed` (ChaCha8): deterministic.
//!
//! Each move is evaluated incrementally (`P2pMoves`): `O(m + k²)` per
//! client and `O(k)` per candidate host, so a sweep costs `O(m·(m + k²))`.

use crate::core::engine::{Ctx, Engine};
use crate::core::within_bound;
use crate::problems::spd::engines::for_models;
use crate::problems::spd::engines::SpdOutcome;
use crate::problems::spd::eval::approx_eq;
use crate::problems::spd::model::{CommModel, SpdInstance, SpdSolution};
use crate::problems::spdvr::engines::SpdvrRun;
use crate::problems::spdvr::p2p_moves::{vd, P2pMoves};
use crate::problems::spdvr::spdvrp2p_h::{end_pair, host_list, phase, End};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// `p2p-vr-ls`.
pub struct P2pVrLs;

/// Perturbation rounds.
pub const ROUNDS: usize = 300;

/// Strict lexicographic `a < b` on (variation, delay), with tolerance.
fn better(a: (f64, f64), b: (f64, f64)) -> bool {
    if !approx_eq(a.0, b.0) {
        return a.0 < b.0;
    }
    !approx_eq(a.1, b.1) && a.1 < b.1
}

/// Best-move sweeps until no client improves; returns `(V, D)`.
fn local_search(st: &mut P2pMoves, mu: f64) -> (f64, f64) {
    let mut current = st.value();
    loop {
        let mut improved = false;
        for c in 0..st.clients() {
            let w = st.without(c);
            let (lo, hi) = st.with_client(&w, c, st.slot[c]);
            let mut best = (vd(lo, hi), st.slot[c]);
            for h in 0..st.slots() {
                let (lo, hi) = st.with_client(&w, c, h);
                if hi.is_finite() && within_bound(hi, mu) && better(vd(lo, hi), best.0) {
                    best = (vd(lo, hi), h);
                }
            }
            if best.1 != st.slot[c] {
                st.slot[c] = best.1;
                current = best.0;
                improved = true;
            }
        }
        if !improved {
            return current;
        }
    }
}

/// Moves `count` clients to random hosts that keep `D <= μ`.
fn perturb(st: &mut P2pMoves, rng: &mut ChaCha8Rng, mu: f64, count: usize) {
    let m = st.clients();
    for _ in 0..count {
        let c = if rng.random_bool(0.5) {
            let end = if rng.random_bool(0.5) {
                End::First
            } else {
                End::Last
            };
            match end_pair(st, end) {
                Some((i, _)) if rng.random_bool(0.5) => i,
                Some((_, j)) => j,
                None => return,
            }
        } else {
            rng.random_range(0..m)
        };
        let w = st.without(c);
        let options: Vec<usize> = (0..st.slots())
            .filter(|&h| h != st.slot[c])
            .filter(|&h| {
                let hi = st.with_client(&w, c, h).1;
                hi.is_finite() && within_bound(hi, mu)
            })
            .collect();
        if !options.is_empty() {
            st.slot[c] = options[rng.random_range(0..options.len())];
        }
    }
}

/// `p2p-vr-ls` from `start` with `rounds` perturbations; `None` when the
/// start uses a server out of range.
pub fn p2p_vr_ls(
    inst: &SpdInstance,
    start: &SpdSolution,
    seed: u64,
    rounds: usize,
) -> Option<SpdSolution> {
    let mu = inst.bound;
    let mut st = P2pMoves::new(inst, host_list(inst, start), start)?;
    if st.clients() < 2 {
        return Some(st.solution());
    }
    phase(&mut st, End::First, mu);
    phase(&mut st, End::Last, mu);
    let mut cur_val = local_search(&mut st, mu);
    let mut cur = st.slot.clone();
    let (mut best_val, mut best) = (cur_val, cur.clone());
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    for _ in 0..rounds {
        st.slot.clone_from(&cur);
        let count = rng.random_range(1..=3);
        perturb(&mut st, &mut rng, mu, count);
        let val = local_search(&mut st, mu);
        if !better(cur_val, val) {
            cur_val = val;
            cur.clone_from(&st.slot);
            if better(val, best_val) {
                best_val = val;
                best.clone_from(&st.slot);
            }
        }
    }
    st.slot = best;
    Some(st.solution())
}

impl<'a> Engine<SpdvrRun<'a>> for P2pVrLs {
    fn name(&self) -> &str {
        "p2p-vr-ls"
    }
    fn applies(&self, run: &SpdvrRun<'a>) -> Result<(), String> {
        for_models(self.name(), &[CommModel::P2p], run.inst)
    }

    fn solve(&self, run: &SpdvrRun<'a>, ctx: &Ctx) -> SpdOutcome {
        let (inst, start) = (run.inst, run.start);
        match p2p_vr_ls(inst, start, ctx.opts.seed, ROUNDS) {
            Some(sol) => SpdOutcome::found(sol),
            None => SpdOutcome::no_solution("the start does not fit the instance"),
        }
    }
}
