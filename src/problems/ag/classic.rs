//! `classic`: the individual-player balancing of Bezerra et al., seed 004's
//! comparison (§2, §5.1).
//!
//! Reading implemented (docs/ag.md): for each server over `max_load` (index
//! order), its `extra = load − max_load` players (its players in index
//! order, main game and AG members alike, so AGs may split) move one by one
//! to the least-loaded server of its neighbourhood that is below
//! `max_load` (ties: lower index). The neighbourhood starts as the regions
//! sharing an edge with its own and widens ring by ring (breadth-first over
//! the region grid) whenever no server in it has room. Players no server
//! can take stay (the server stays overloaded). Nothing goes to P2P.

use crate::problems::ag::model::{AgInstance, AgSolution, Dest};
use std::collections::VecDeque;

/// The BFS rings of regions around `s` (ring 1 = edge neighbours).
fn rings(inst: &AgInstance, s: usize) -> Vec<Vec<usize>> {
    let n = inst.servers();
    let mut dist = vec![usize::MAX; n];
    dist[s] = 0;
    let mut q = VecDeque::from([s]);
    let mut out: Vec<Vec<usize>> = Vec::new();
    while let Some(u) = q.pop_front() {
        for v in inst.map.neighbours(u) {
            if dist[v] == usize::MAX {
                dist[v] = dist[u] + 1;
                if out.len() < dist[v] {
                    out.push(Vec::new());
                }
                out[dist[v] - 1].push(v);
                q.push_back(v);
            }
        }
    }
    out
}

/// The classic balancing. Cost: `O(Σ extra · N + P)`.
pub fn classic(inst: &AgInstance) -> AgSolution {
    let n = inst.servers();
    let mut load = inst.loads_before();
    let mut assign: Vec<Option<Dest>> =
        inst.server.iter().map(|&s| Some(Dest::Server(s))).collect();
    let mut on: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (p, &s) in inst.server.iter().enumerate() {
        on[s].push(p);
    }
    for i in 0..n {
        let mut extra = load[i].saturating_sub(inst.max_load[i]);
        let mut hood: Vec<usize> = Vec::new();
        let mut next = rings(inst, i).into_iter();
        let mut players = on[i].iter();
        while extra > 0 {
            let to = hood
                .iter()
                .copied()
                .filter(|&j| load[j] < inst.max_load[j])
                .min_by(|&a, &b| load[a].cmp(&load[b]).then(a.cmp(&b)));
            let Some(j) = to else {
                match next.next() {
                    Some(ring) => hood.extend(ring),
                    None => break,
                }
                continue;
            };
            let Some(&p) = players.next() else { break };
            assign[p] = Some(Dest::Server(j));
            load[i] -= 1;
            load[j] += 1;
            extra -= 1;
        }
    }
    AgSolution {
        assign,
        p2p: Vec::new(),
    }
}
