//! Zoom-In Zoom-Out (`zizo`; Lee, Ko, Calo, NOSSDAV'04), reconstructed from
//! seed 001's summary as problems.md §1 fixes it. P2P (mirrored servers) only,
//! as in seed 001 Table VII.
//!
//! 1. Zoom in: every client to its nearest server by access latency (ties to
//!    the lower index). If that assignment already breaks μ, ZIZO fails (seed
//!    001 Fig. 5 shows such a failure).
//! 2. Core server `s*`: the server minimising `max_c (a(c,σ(c)) + D(σ(c), s))`.
//! 3. Zoom out: visit the hosts other than `s*`, farthest from `s*` first (ties
//!    to the lower index), and move each of their clients one hop toward `s*`
//!    on the canonical shortest-path tree rooted at `s*` whenever the P2P delay
//!    stays within μ. A host left without clients is released. Repeat rounds
//!    until nothing moves.
//!
//! Each move is checked in `O(m)` against the other clients' pair delays, so a
//! round costs `O(m²)` and there are at most `O(n · m)` productive rounds
//! (each client moves at most its depth in the tree): `O(n · m³)` worst case,
//! as seed 001 Table VII states.

use crate::core::engine::{Ctx, Engine};
use crate::core::within_bound;
use crate::problems::spd::engines::{for_models, SpdOutcome};
use crate::problems::spd::eval::evaluate_spd;
use crate::problems::spd::model::{CommModel, SpdInstance, SpdSolution};

/// `zizo`.
pub struct Zizo;

/// Zoom in: the nearest server of every client.
pub fn zoom_in(inst: &SpdInstance) -> Vec<usize> {
    (0..inst.clients())
        .map(|c| {
            let row = inst.access_row(c);
            (0..row.len()).fold(0, |b, s| if row[s] < row[b] { s } else { b })
        })
        .collect()
}

/// The core server `s*` for an assignment.
pub fn core_server(inst: &SpdInstance, assign: &[usize]) -> usize {
    let mut best = (f64::INFINITY, 0);
    for s in 0..inst.servers() {
        let worst = assign
            .iter()
            .enumerate()
            .map(|(c, &h)| inst.access(c, h) + inst.network.dist(h, s))
            .fold(0.0, f64::max);
        if worst < best.0 {
            best = (worst, s);
        }
    }
    best.1
}

/// Does moving client `c` to server `to` keep every pair with `c` within μ?
fn move_fits(inst: &SpdInstance, assign: &[usize], c: usize, to: usize) -> bool {
    let ac = inst.access(c, to);
    assign.iter().enumerate().all(|(j, &h)| {
        j == c
            || within_bound(
                ac + inst.network.dist(to, h) + inst.access(j, h),
                inst.bound,
            )
    })
}

/// One zoom-out round; returns whether any client moved.
fn zoom_out_round(inst: &SpdInstance, assign: &mut [usize], core: usize) -> bool {
    let mut hosts: Vec<usize> = assign.to_vec();
    hosts.sort_unstable();
    hosts.dedup();
    hosts.retain(|&h| h != core);
    hosts.sort_by(|&x, &y| {
        let (dx, dy) = (inst.network.dist(x, core), inst.network.dist(y, core));
        dy.total_cmp(&dx).then(x.cmp(&y))
    });
    let mut moved = false;
    for h in hosts {
        let Some(path) = inst.network.path(h, core) else {
            continue;
        };
        let parent = path[1];
        for c in 0..assign.len() {
            if assign[c] == h
                && inst.access(c, parent).is_finite()
                && move_fits(inst, assign, c, parent)
            {
                assign[c] = parent;
                moved = true;
            }
        }
    }
    moved
}

/// Zoom-In Zoom-Out: zoom in, then zoom out toward the core server until
/// nothing moves. `None` when zoom-in already breaks the bound (ZIZO fails).
pub fn zizo(inst: &SpdInstance) -> Option<SpdSolution> {
    let mut assign = zoom_in(inst);
    let start = SpdSolution {
        root: None,
        assign: assign.clone(),
    };
    if !evaluate_spd(inst, &start).is_feasible() {
        return None;
    }
    let core = core_server(inst, &assign);
    while zoom_out_round(inst, &mut assign, core) {}
    Some(SpdSolution { root: None, assign })
}

impl Engine<SpdInstance> for Zizo {
    fn name(&self) -> &str {
        "zizo"
    }
    fn applies(&self, inst: &SpdInstance) -> Result<(), String> {
        for_models(self.name(), &[CommModel::P2p], inst)
    }

    fn solve(&self, inst: &SpdInstance, _ctx: &Ctx) -> SpdOutcome {
        match zizo(inst) {
            Some(sol) => SpdOutcome::found(sol),
            None => SpdOutcome::no_solution(
                "zoom-in (every client at its nearest server) already exceeds the bound",
            ),
        }
    }
}
