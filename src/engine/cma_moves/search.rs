//! Shortest chains on the move graph: Dijkstra over reduced costs, the
//! potential update, and applying a chain of moves.

use super::{MoveGraph, Search, NONE};
use crate::error::Result;

impl MoveGraph<'_> {
    /// Dijkstra over reduced costs from the nodes with a finite `init` label
    /// (`k + 1` entries; index `k` = sink) to `target`. Arcs into the sink
    /// are used when `target` is the sink, arcs out of it when `from_t`.
    /// `O(k²)` plus row refreshes. Potentials are not changed.
    pub fn search(&mut self, init: &[f64], target: usize, from_t: bool) -> Search {
        let k = self.k;
        let mut dist = init.to_vec();
        let mut pred = vec![NONE; k + 1];
        let mut done = vec![false; k + 1];
        let mut open: Vec<usize> = (0..=k).filter(|&x| dist[x].is_finite()).collect();
        let mut reached = false;
        while !open.is_empty() {
            let mut at = 0;
            for (idx, &x) in open.iter().enumerate().skip(1) {
                let o = open[at];
                if dist[x] < dist[o] || (dist[x] == dist[o] && x < o) {
                    at = idx;
                }
            }
            let x = open.swap_remove(at);
            let dx = dist[x];
            done[x] = true;
            if x == target {
                reached = true;
                break;
            }
            let mut relax = |v: usize, d: f64, open: &mut Vec<usize>| {
                if !done[v] && d < dist[v] {
                    if dist[v] == f64::INFINITY {
                        open.push(v);
                    }
                    dist[v] = d;
                    pred[v] = x as u32;
                }
            };
            if x == k {
                if from_t {
                    for &u in &self.active {
                        if !self.members[u].is_empty() {
                            relax(u, dx + (self.pot[k] - self.pot[u]).max(0.0), &mut open);
                        }
                    }
                }
                continue;
            }
            if !self.members[x].is_empty() {
                self.refresh_row(x);
                let row = &self.arc[x * k..(x + 1) * k];
                let base = self.pot[x];
                for &v in &self.active {
                    let c = row[v];
                    if v != x && c.is_finite() {
                        relax(v, dx + (c + base - self.pot[v]).max(0.0), &mut open);
                    }
                }
            }
            if target == k && self.members[x].len() < self.cap[x] {
                relax(k, dx + (self.pot[x] - self.pot[k]).max(0.0), &mut open);
            }
        }
        Search {
            dist,
            pred,
            reached,
        }
    }

    /// `π_v += min(dist_v, L)` with `L` the target's distance (or the largest
    /// finite one when unreached): keeps every reduced cost `>= 0`.
    pub fn update_potentials(&mut self, s: &Search, target: usize) {
        let cap = if s.reached {
            s.dist[target]
        } else {
            s.dist
                .iter()
                .copied()
                .filter(|d| d.is_finite())
                .fold(0.0, f64::max)
        };
        let k = self.k;
        for &x in &self.active {
            self.pot[x] += s.dist[x].min(cap);
        }
        self.pot[k] += s.dist[k].min(cap);
    }

    /// The nodes of the search path ending at `target`, source first.
    pub fn path(&self, s: &Search, target: usize) -> Vec<usize> {
        let mut path = vec![target];
        let mut x = target;
        while s.pred[x] != NONE && path.len() <= self.k + 1 {
            x = s.pred[x] as usize;
            path.push(x);
        }
        path.reverse();
        path
    }

    /// Applies the moves of a mirror chain `a → b → …` (consecutive mirror
    /// pairs; the sink is skipped), last arc first, so each arc moves the
    /// client its search cost was read from. Returns the number of moves.
    pub fn apply_chain(&mut self, chain: &[usize]) -> Result<usize> {
        let k = self.k;
        let mirrors: Vec<usize> = chain.iter().copied().filter(|&x| x != k).collect();
        for w in mirrors.windows(2).rev() {
            self.move_top(w[0], w[1])?;
        }
        Ok(mirrors.len().saturating_sub(1))
    }

    /// The true cost of a mirror chain (sum of its arcs' cached costs).
    pub fn chain_cost(&mut self, chain: &[usize]) -> f64 {
        let k = self.k;
        let mirrors: Vec<usize> = chain.iter().copied().filter(|&x| x != k).collect();
        mirrors.windows(2).map(|w| self.arc_cost(w[0], w[1])).sum()
    }
}
