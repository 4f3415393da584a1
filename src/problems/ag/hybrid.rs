//! Seed 004's Algorithm 1 (`hybrid`) and Algorithm 2's `distributes`.

use crate::problems::ag::model::{AgInstance, AgSolution, Dest, P2pRoles, P2P};
use std::collections::VecDeque;

/// Algorithm 2's CRITERIA for `AG.S` / `AG.RS`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Criteria {
    /// Latency Lookup: lowest total latency to the AG's other players.
    Ll,
    /// Probability of Disconnection: highest `Uptime_min = mean − std`.
    Pd,
}

/// Algorithm 2's `distributes`: `(S, RS)` of AG `a` by `criteria` (ties:
/// lower player index). An AG of one player gets `S = RS`.
/// Cost: LL `O(size²)`, PD `O(size · history)`.
pub fn distributes(inst: &AgInstance, a: usize, criteria: Criteria) -> (usize, usize) {
    let m = &inst.members[a];
    let mut key: Vec<(f64, usize)> = match criteria {
        Criteria::Ll => m
            .iter()
            .map(|&p| (m.iter().map(|&q| inst.latency(p, q)).sum(), p))
            .collect(),
        Criteria::Pd => m.iter().map(|&p| (-inst.uptime_min(p), p)).collect(),
    };
    key.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    let s = key[0].1;
    (s, key.get(1).map_or(s, |k| k.1))
}

/// Where each AG ends under a placement: a server or P2P.
pub type Placement = Vec<Dest>;

/// Turns an AG placement (main-game players stay) into a solution, with
/// `distributes(criteria)` for every P2P AG.
pub fn placement_solution(inst: &AgInstance, place: &[Dest], criteria: Criteria) -> AgSolution {
    placement_with_roles(inst, place, |a| distributes(inst, a, criteria))
}

/// Turns an AG placement (main-game players stay) into a solution, with
/// `roles(a)` as `(S, RS)` of every P2P AG.
pub fn placement_with_roles(
    inst: &AgInstance,
    place: &[Dest],
    roles: impl Fn(usize) -> (usize, usize),
) -> AgSolution {
    let mut assign: Vec<Option<Dest>> =
        inst.server.iter().map(|&s| Some(Dest::Server(s))).collect();
    let mut p2p = Vec::new();
    for (a, m) in inst.members.iter().enumerate() {
        for &p in m {
            assign[p] = Some(place[a]);
        }
        if place[a] == P2P {
            let (s, rs) = roles(a);
            p2p.push(P2pRoles { ag: a, s, rs });
        }
    }
    AgSolution { assign, p2p }
}

/// Algorithm 1 (`hybrid`): while some server is over `max_load`, every
/// overloaded server sheds `extra + ⌈margin · max_load⌉` players as whole
/// AGs (in AG index order), each to the server with the most room below
/// its target `⌊(1 − margin)·max_load⌋` that can take it whole (ties: lower
/// index); an AG no server can take goes to P2P. Receivers never pass their
/// target, so a pass leaves every shedding server at or below its target
/// unless it runs out of AGs (main-game players stay): at most two passes.
/// Cost: `O(A · N)` per pass (the paper's θ(N²) per overloaded server).
pub fn algorithm_1_hybrid(inst: &AgInstance) -> Placement {
    let n = inst.servers();
    let mut load = inst.loads_before();
    let mut place: Placement = (0..inst.ags())
        .map(|a| Dest::Server(inst.ag_server(a)))
        .collect();
    let mut on: Vec<VecDeque<usize>> = vec![VecDeque::new(); n];
    for a in 0..inst.ags() {
        on[inst.ag_server(a)].push_back(a);
    }
    loop {
        let mut changed = false;
        for i in 0..n {
            let mut quota = inst.quota(i, load[i]);
            while quota > 0 {
                let Some(a) = on[i].pop_front() else { break };
                let size = inst.members[a].len() as u64;
                load[i] -= size;
                quota = quota.saturating_sub(size);
                changed = true;
                match best_receiver(inst, &load, i, size) {
                    Some(j) => {
                        load[j] += size;
                        place[a] = Dest::Server(j);
                    }
                    None => place[a] = P2P,
                }
            }
        }
        if !changed {
            return place;
        }
    }
}

/// The server other than `from` with the most room below its target that
/// can take `size` more players.
fn best_receiver(inst: &AgInstance, load: &[u64], from: usize, size: u64) -> Option<usize> {
    (0..inst.servers())
        .filter(|&j| j != from && load[j] + size <= inst.target(j))
        .max_by(|&a, &b| {
            let room = |j: usize| inst.target(j) - load[j];
            room(a).cmp(&room(b)).then(b.cmp(&a))
        })
}
