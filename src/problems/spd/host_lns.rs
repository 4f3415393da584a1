//! `host-lns` (beyond the paper): a P2P host-minimising large-neighbourhood
//! search. From `host-search`'s solution with `u` hosts it asks for `u−1`
//! hosts by *dives*: a group of `r` hosts (a host and its `r−1` nearest
//! open hosts by server distance) is closed, every other host keeps its
//! clients, and the exact constraint search (`p2p_search`) places the
//! closed hosts' clients with at most `u−1` hosts in all, at most
//! [`DIVE_NODES`] nodes a dive. Groups grow from two hosts to
//! `--host-lns-group` (by default three quarters of the start's hosts,
//! at least 8: [`auto_group`]), each host in turn seeding one; a
//! solution found restarts the dives from it. It stops when no dive
//! finds one, after `--host-lns-nodes` search nodes in all (200,000 by
//! default), or at `--time-limit`. The dives run two at a time (one per
//! thread, the earlier one's solution winning) and use no randomness, so
//! a run is repeatable on any thread count. A dive's refutation proves
//! nothing about the host count (only about its neighbourhood), so
//! `host-lns` never claims a minimum. `exact` starts
//! from its result with the same budget.
//!
//! Where the restarted search (`host-search`) branches from the empty
//! assignment, a dive keeps most of a good solution fixed: at 200 servers
//! × 1,000 clients (`gen spd --model p2p --factor 1.2 --seed 1`) the
//! search's decision at 9 hosts found nothing in a minute, and a dive
//! closing 6 of a 10-host solution's hosts found 9 in 0.3 s.
//!
//! Complexity: bounded by the node budget; a dive places the kept clients
//! in `O(m·n·log m)` and its nodes cost `O(n·m/64 + n·log m)` word
//! operations each.
//!
//! ```
//! use serverpick::core::{Ctx, Engine, SolveOptions};
//! use serverpick::problems::spd::host_lns::HostLns;
//! use serverpick::problems::spd::model::{seed001_fig1, CommModel};
//! let inst = seed001_fig1(CommModel::P2p, 110.0)?;
//! let out = HostLns.solve(&inst, &Ctx::new(&SolveOptions::default()));
//! assert!(out.solution.is_some());
//! # Ok::<(), serverpick::Error>(())
//! ```

use crate::core::engine::{Ctx, Engine};
use crate::core::{ParamSpec, SolveOptions, StopReason};
use crate::problems::spd::engines::{for_models, SpdOutcome};
use crate::problems::spd::eval::hosts_of;
use crate::problems::spd::exact::p2p::{allowed_pairs, Limits};
use crate::problems::spd::exact::p2p_search::Search;
use crate::problems::spd::exact::{score, Deadline, Probe, Scored};
use crate::problems::spd::host_ls::host_ls;
use crate::problems::spd::host_search::{host_search_from, HOST_SEARCH_NODES};
use crate::problems::spd::model::{CommModel, SpdInstance};

/// `host-lns`.
pub struct HostLns;

/// The node budget of `host-lns` (all dives together).
pub const HOST_LNS_NODES: ParamSpec = ParamSpec::count(
    "host-lns-nodes",
    200_000,
    0,
    u64::MAX,
    "host-lns (and exact's P2P start): search nodes of the dives (0: no dives)",
);

/// Most search nodes of one dive.
pub const DIVE_NODES: u64 = 5_000;

/// Most hosts a dive closes (0: [`auto_group`]).
pub const HOST_LNS_GROUP: ParamSpec = ParamSpec::count(
    "host-lns-group",
    0,
    0,
    1_000_000,
    "host-lns (and exact's P2P start): most hosts one dive closes (0: three quarters of the start's hosts, at least 8)",
);

/// The group limit when `--host-lns-group` is 0: three quarters of the
/// hosts of the solution the dives start from, at least 8. (At 200 ×
/// 1,000, f = 1.0, seeds 1 and 2, 24 hosts: groups up to 12 found 22
/// hosts where groups up to 8 found 24 and 23, in 3.2 and 2.9 s instead
/// of 2.2 and 2.3 s; at 11 hosts groups up to 12 took 8–10 s instead of
/// 3.6 s for the same count. Three quarters instead of half, over the 24
/// instances of 160 × 800 and 200 × 1,000 (`docs/spd-scale.md`,
/// twenty-eighth round): 19 → 18 hosts (160, f = 1.0 seed 1; 1.0 → 3.5 s),
/// 18 → 17 (160, f = 1.0 seed 3; 1.1 → 1.2 s), 15 → 14 (200, f = 1.1
/// seed 2; 1.3 → 3.1 s), the same count elsewhere in at most 2.2 s more;
/// every host (a whole re-solve per dive) found no more.)
pub fn auto_group(hosts: usize) -> usize {
    (hosts.saturating_mul(3) / 4).max(8)
}

/// `host-lns` from a given (feasible, scored) start: the best solution
/// found, within `opts`' [`HOST_LNS_NODES`] and [`HOST_LNS_GROUP`],
/// stopped by `dl`.
pub(crate) fn host_lns_from(
    inst: &SpdInstance,
    best: Option<Scored>,
    opts: &SolveOptions,
    dl: &Deadline,
) -> Option<Scored> {
    host_lns_run(inst, best, opts, dl).0
}

/// [`host_lns_from`], and whether the node budget ran out.
fn host_lns_run(
    inst: &SpdInstance,
    mut best: Option<Scored>,
    opts: &SolveOptions,
    dl: &Deadline,
) -> (Option<Scored>, bool) {
    let nodes = opts.count(&HOST_LNS_NODES);
    let max_group = match opts.count(&HOST_LNS_GROUP) {
        0 => best.as_ref().map_or(0, |sc| auto_group(sc.metrics.hosts)),
        g => usize::try_from(g).unwrap_or(usize::MAX),
    };
    if nodes == 0 || dl.expired() || best.is_none() {
        return (best, false);
    }
    let lim = Limits::bound(inst.bound);
    let Ok(lists) = allowed_pairs(inst, &lim) else {
        return (best, false);
    };
    let new = || Search::new(inst, lim, lists.clone(), dl.clone());
    let Some(mut pair) = new().zip(new()) else {
        return (best, false);
    };
    while let Some(sc) = best.as_ref() {
        match dives(inst, &mut pair, &sc.sol.assign, nodes, max_group) {
            Some(better) => best = Some(better),
            None => break,
        }
    }
    (best, pair.0.nodes() + pair.1.nodes() >= nodes)
}

/// The dives from `assign` for one host fewer, groups of two hosts first,
/// each host in turn seeding one ([`group`]); the first solution found
/// ([`dive_groups`]).
fn dives(
    inst: &SpdInstance,
    pair: &mut (Search, Search),
    assign: &[usize],
    nodes: u64,
    max_group: usize,
) -> Option<Scored> {
    let hosts = hosts_of(assign);
    let k = hosts.len().checked_sub(1).filter(|&k| k > 0)?;
    let groups = (2..=max_group.min(hosts.len()))
        .flat_map(|r| hosts.iter().map(move |&h| (r, h)))
        .map(|(r, h)| group(inst, &hosts, h, r));
    dive_groups(pair, assign, k, groups, nodes)
}

/// Dives from `assign` with at most `k` hosts, one per closed-host set of
/// `groups` in order, two at a time (one per search of `pair`, in
/// parallel when the pool has two threads; the earlier one's solution
/// wins, so the answer does not depend on the thread count), at most
/// [`DIVE_NODES`] each and `nodes` for both searches in all: the first
/// solution found.
pub(crate) fn dive_groups(
    pair: &mut (Search, Search),
    assign: &[usize],
    k: usize,
    mut groups: impl Iterator<Item = Vec<bool>>,
    nodes: u64,
) -> Option<Scored> {
    loop {
        let (a, b) = (&mut pair.0, &mut pair.1);
        let left = nodes
            .checked_sub(a.nodes() + b.nodes())
            .filter(|&n| n > 0)?;
        if a.out_of_time() {
            return None;
        }
        let first = DIVE_NODES.min(left);
        let second = DIVE_NODES.min(left - first);
        let dive = |s: &mut Search, closed: &[bool], budget: u64| match budget {
            0 => Probe::Unknown("no nodes left".into()),
            _ => s.dive(assign, closed, k, budget),
        };
        let (x, y) = match (groups.next(), groups.next()) {
            (Some(g), Some(h)) => rayon::join(|| dive(a, &g, first), || dive(b, &h, second)),
            (Some(g), None) => (dive(a, &g, first), Probe::Unknown("no second dive".into())),
            _ => return None,
        };
        for got in [x, y] {
            if let Probe::Feasible(sc) = got {
                return Some(sc);
            }
        }
    }
}

/// Host `h` and its `r−1` nearest other hosts (server distance; ties by
/// index), as a per-server flag.
pub(crate) fn group(inst: &SpdInstance, hosts: &[usize], h: usize, r: usize) -> Vec<bool> {
    let mut near: Vec<(f64, usize)> = hosts
        .iter()
        .filter(|&&t| t != h)
        .map(|&t| (inst.network.dist(h.min(t), h.max(t)), t))
        .collect();
    near.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    let mut closed = vec![false; inst.servers()];
    closed[h] = true;
    for &(_, t) in near.iter().take(r - 1) {
        closed[t] = true;
    }
    closed
}

impl Engine<SpdInstance> for HostLns {
    fn name(&self) -> &str {
        "host-lns"
    }
    fn applies(&self, inst: &SpdInstance) -> Result<(), String> {
        for_models(self.name(), &[CommModel::P2p], inst)
    }

    fn solve(&self, inst: &SpdInstance, ctx: &Ctx) -> SpdOutcome {
        let dl = &ctx.deadline;
        let start = host_ls(inst).and_then(|s| score(inst, s));
        let searched = ctx.opts.count(&HOST_SEARCH_NODES);
        let (start, proven) = host_search_from(inst, start, searched, ctx.opts.seed, dl.clone());
        let (best, spent) = if proven {
            (start, false)
        } else {
            host_lns_run(inst, start, ctx.opts, dl)
        };
        // the time limit or an interrupt, else the node budget, ended it
        let stop = dl.stop().or(spent.then_some(StopReason::NodeLimit));
        match best {
            Some(sc) if proven => {
                let mut out = SpdOutcome::found(sc.sol);
                out.message = Some(format!(
                    "host count {} proven minimal by host-search's search (delay and variation not minimised)",
                    sc.metrics.hosts
                ));
                out.with_stop(stop)
            }
            Some(sc) => SpdOutcome::found(sc.sol).with_stop(stop),
            None => {
                SpdOutcome::no_solution("no solution found within the time budget").with_stop(stop)
            }
        }
    }
}
