//! `chains`: SPDVRCS-H, seed 001 §III-B Algorithm 1 with Algorithm Chains,
//! with problems.md §2's errata (line 5 tests `2·p <= μ`; line 13 compares
//! with `dv`).
//!
//! With `S' = H(A)` (contact servers of the start and its root `r`), list
//! every tuple `(c, s, p = a(c,s) + D(s,r))` with `s ∈ S'` and `2p <= μ`, sort
//! by `p`, and find the shortest window of consecutive entries that covers
//! every client (a *chain*). The client's entry with the least `p` in the best
//! window is its new contact server.
//!
//! Exact for CS: any assignment's paths lie in the window between its least
//! and largest path, so no assignment beats the narrowest chain, and the chain
//! gives an assignment whose variation is at most its width. Among narrowest
//! chains the first (least head) also has the least tail, so the delay is the
//! least among variation-optimal assignments (problems.md's tie rule).
//!
//! Instead of the paper's rescan from every head (`O(K²)`), a two-pointer
//! sweep finds each head's minimal chain: `O(K log K)` for the sort and `O(K)`
//! for the sweep, `K <= m·|S'|` the list length.
//!
//! ```
//! use serverpick::net::network::ServerNetwork;
//! use serverpick::problems::spd::model::*;
//! use serverpick::problems::spdvr::chains::chains;
//! let net = ServerNetwork::new(2, &[(0, 1, 10.0)]);
//! let access = vec![vec![Some(5.0), Some(30.0)], vec![Some(40.0), Some(12.0)]];
//! let inst = SpdInstance::new("doc", CommModel::Cs, net, &access, BoundSpec::Absolute(100.0)).unwrap();
//! let start = SpdSolution { root: Some(0), assign: vec![0, 1] };
//! // paths to root 0: client 0: 5 (via 0) or 40 (via 1); client 1: 40 or 22
//! let sol = chains(&inst, &start).unwrap();
//! assert_eq!(sol.assign, vec![1, 0]); // window [40, 40]: variation 0
//! ```

use crate::core::engine::{Ctx, Engine};
use crate::core::within_bound;
use crate::core::Status;
use crate::problems::spd::engines::for_models;
use crate::problems::spd::engines::SpdOutcome;
use crate::problems::spd::eval::approx_eq;
use crate::problems::spd::model::{CommModel, SpdInstance, SpdSolution};
use crate::problems::spdvr::engines::SpdvrRun;
use crate::problems::spdvr::eval::allowed_hosts;

/// `chains` (SPDVRCS-H).
pub struct Chains;

/// One entry of the list `L`: client, server, one-way path `p`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Tuple {
    /// Client.
    pub client: u32,
    /// Contact server.
    pub server: u32,
    /// `a(c,s) + D(s,r)`.
    pub path: f64,
}

/// Algorithm 1, lines 1–9: the list `L` sorted by path (ties by client, then
/// server, so the result is deterministic). `O(K log K)`.
pub fn construct_list(inst: &SpdInstance, root: usize, hosts: &[usize]) -> Vec<Tuple> {
    let mut list = Vec::with_capacity(inst.clients() * hosts.len());
    for c in 0..inst.clients() {
        for &s in hosts {
            let p = inst.cs_path(c, s, root);
            if p.is_finite() && within_bound(2.0 * p, inst.bound) {
                list.push(Tuple {
                    client: c as u32,
                    server: s as u32,
                    path: p,
                });
            }
        }
    }
    list.sort_unstable_by(|x, y| {
        x.path
            .total_cmp(&y.path)
            .then(x.client.cmp(&y.client))
            .then(x.server.cmp(&y.server))
    });
    list
}

/// Algorithm Chains on a sorted list of `m` clients: the narrowest window
/// `(head, tail)` (inclusive indices) covering every client, the first one
/// among equally narrow windows; `None` when no window covers every client.
/// Two pointers, `O(K)`.
pub fn narrowest_chain(list: &[Tuple], m: usize) -> Option<(usize, usize)> {
    let mut count = vec![0u32; m];
    let mut covered = 0usize;
    let mut best: Option<(usize, usize, f64)> = None;
    let mut tail = 0usize; // one past the window's last entry
    for head in 0..list.len() {
        while covered < m && tail < list.len() {
            let c = list[tail].client as usize;
            if count[c] == 0 {
                covered += 1;
            }
            count[c] += 1;
            tail += 1;
        }
        if covered < m {
            break;
        }
        let width = list[tail - 1].path - list[head].path;
        let better = match best {
            None => true,
            Some((_, _, w)) => width < w && !approx_eq(width, w),
        };
        if better {
            best = Some((head, tail - 1, width));
        }
        let c = list[head].client as usize;
        count[c] -= 1;
        if count[c] == 0 {
            covered -= 1;
        }
    }
    best.map(|(h, t, _)| (h, t))
}

/// SPDVRCS-H from `start` (which must carry its root): the assignment of the
/// narrowest chain, each client on its least-path entry in it. `None` when
/// the start has no root or no chain exists (impossible for a feasible start).
pub fn chains(inst: &SpdInstance, start: &SpdSolution) -> Option<SpdSolution> {
    chains_with_bound(inst, start).map(|(sol, _)| sol)
}

/// [`chains`] with its certificate: the narrowest window covering every
/// client, `w = p(tail) − p(head)`. Every assignment on the start's hosts
/// and root picks one entry per client, and those entries span a covering
/// window, so no assignment has a variation below `2w`: `2w` is a proven
/// lower bound, and the chain's assignment attains it (the head's client
/// takes the head, the tail's client appears nowhere earlier in the window).
pub fn chains_with_bound(inst: &SpdInstance, start: &SpdSolution) -> Option<(SpdSolution, f64)> {
    let root = start.root?;
    let allowed = allowed_hosts(inst, start);
    let hosts: Vec<usize> = (0..inst.servers()).filter(|&s| allowed[s]).collect();
    let list = construct_list(inst, root, &hosts);
    let m = inst.clients();
    let (head, tail) = narrowest_chain(&list, m)?;
    let bound = 2.0 * (list[tail].path - list[head].path);
    let mut assign: Vec<Option<usize>> = vec![None; m];
    for t in &list[head..=tail] {
        let slot = &mut assign[t.client as usize];
        if slot.is_none() {
            *slot = Some(t.server as usize);
        }
    }
    let assign: Option<Vec<usize>> = assign.into_iter().collect();
    let sol = SpdSolution {
        root: Some(root),
        assign: assign?,
    };
    Some((sol, bound))
}

impl<'a> Engine<SpdvrRun<'a>> for Chains {
    fn name(&self) -> &str {
        "chains"
    }
    fn applies(&self, run: &SpdvrRun<'a>) -> Result<(), String> {
        for_models(self.name(), &[CommModel::Cs], run.inst)
    }

    fn solve(&self, run: &SpdvrRun<'a>, _ctx: &Ctx) -> SpdOutcome {
        let (inst, start) = (run.inst, run.start);
        match chains_with_bound(inst, start) {
            // Exact for CS (problems.md §2): the narrowest covering window is
            // the minimum variation; its width is the certificate the record
            // filler checks against the evaluator's variation.
            Some((sol, bound)) => SpdOutcome::claim(Status::Optimal, sol, Some(bound)),
            None => {
                SpdOutcome::no_solution("no chain covers every client (is the start feasible?)")
            }
        }
    }
}
