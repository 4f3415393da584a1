//! Shortest chains on the move graph: Dijkstra over reduced costs, the
//! potential update, and applying a chain of moves.

use super::{MoveGraph, Search, NONE};
use crate::error::Result;

impl Search {
    /// Every label `INFINITY`, no predecessor, for `nodes` nodes.
    pub fn reset(&mut self, nodes: usize) {
        self.dist.clear();
        self.dist.resize(nodes, f64::INFINITY);
        self.pred.clear();
        self.pred.resize(nodes, NONE);
        self.reached = false;
    }
}

impl MoveGraph<'_> {
    /// The search buffers, to be handed back with [`MoveGraph::restore`]
    /// (so that an event allocates nothing): labels reset for `k + 1` nodes.
    pub fn take_search(&mut self) -> Search {
        let mut s = std::mem::take(&mut self.scratch.search);
        s.reset(self.k + 1);
        s
    }

    /// Hands the search buffers back.
    pub fn restore(&mut self, s: Search) {
        self.scratch.search = s;
    }

    /// Dijkstra over reduced costs from the nodes with a finite label in
    /// `s.dist` (`k + 1` entries; index `k` = sink) to `target`; fills
    /// `s.dist`, `s.pred`, `s.reached`. Arcs into the sink are used when
    /// `target` is the sink, arcs out of it when `from_t`. `O(k²)` plus row
    /// refreshes. Potentials are not changed.
    pub fn search(&mut self, s: &mut Search, target: usize, from_t: bool) {
        let k = self.k;
        // `open` = the label of every unsettled node, INFINITY once settled.
        let mut open = std::mem::take(&mut self.scratch.open);
        open.clear();
        open.extend_from_slice(&s.dist);
        s.reached = false;
        loop {
            // The unsettled node of least label: the target on ties (so the
            // search stops early), else the lowest index.
            let (mut x, mut dx) = (usize::MAX, f64::INFINITY);
            for (v, &d) in open.iter().enumerate() {
                if d < dx {
                    (x, dx) = (v, d);
                }
            }
            if open
                .get(target)
                .is_some_and(|&d| d <= dx && d < f64::INFINITY)
            {
                (x, dx) = (target, open[target]);
            }
            if x == usize::MAX {
                break;
            }
            open[x] = f64::INFINITY;
            if x == target {
                s.reached = true;
                break;
            }
            if x == k {
                if from_t {
                    self.relax_from_sink(s, &mut open, dx);
                }
                continue;
            }
            if !self.members[x].is_empty() {
                self.relax_row(s, &mut open, x, dx);
            }
            if target == k && self.members[x].len() < self.cap[x] {
                let d = dx + (self.pot[x] - self.pot[k]).max(0.0);
                if d < s.dist[k] {
                    s.dist[k] = d;
                    open[k] = d;
                    s.pred[k] = x as u32;
                }
            }
        }
        self.scratch.open = open;
    }

    /// Relaxes every move arc out of settled mirror `x` (label `dx`).
    /// Settled nodes need no test: reduced costs are `>= 0`, so their labels
    /// (`<= dx`) never improve.
    fn relax_row(&mut self, s: &mut Search, open: &mut [f64], x: usize, dx: f64) {
        self.refresh_row(x);
        let k = self.k;
        let row = &self.arc[x * k..(x + 1) * k];
        let base = self.pot[x];
        let xu = x as u32;
        let labels = s.dist[..k]
            .iter_mut()
            .zip(&mut s.pred[..k])
            .zip(&mut open[..k]);
        for ((&c, &pv), ((dv, pr), ov)) in row.iter().zip(&self.pot[..k]).zip(labels) {
            let red = c + base - pv;
            let d = dx + if red > 0.0 { red } else { 0.0 };
            let better = d < *dv;
            *dv = if better { d } else { *dv };
            *ov = if better { d } else { *ov };
            *pr = if better { xu } else { *pr };
        }
    }

    /// Relaxes the sink's arcs `t → j` to every mirror holding clients.
    fn relax_from_sink(&mut self, s: &mut Search, open: &mut [f64], dt: f64) {
        let k = self.k;
        for &u in &self.active {
            if !self.members[u].is_empty() {
                let d = dt + (self.pot[k] - self.pot[u]).max(0.0);
                if d < s.dist[u] {
                    s.dist[u] = d;
                    open[u] = d;
                    s.pred[u] = k as u32;
                }
            }
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
        let mut path = Vec::new();
        self.path_into(s, target, &mut path);
        path
    }

    /// [`MoveGraph::path`] into a buffer.
    fn path_into(&self, s: &Search, target: usize, path: &mut Vec<usize>) {
        path.clear();
        path.push(target);
        let mut x = target;
        while s.pred[x] != NONE && path.len() <= self.k + 1 {
            x = s.pred[x] as usize;
            path.push(x);
        }
        path.reverse();
    }

    /// Applies the moves of a mirror chain `a → b → …` (consecutive mirror
    /// pairs; the sink is skipped), last arc first, so each arc moves the
    /// client its search cost was read from. Returns the number of moves.
    pub fn apply_chain(&mut self, chain: &[usize]) -> Result<usize> {
        let k = self.k;
        let mut moves = 0;
        let mut next = NONE as usize;
        for &x in chain.iter().rev().filter(|&&x| x != k) {
            if next != NONE as usize {
                self.move_top(x, next)?;
                moves += 1;
            }
            next = x;
        }
        Ok(moves)
    }

    /// The true cost of a mirror chain (sum of its arcs' cached costs).
    pub fn chain_cost(&mut self, chain: &[usize]) -> f64 {
        let k = self.k;
        let mut cost = 0.0;
        let mut prev = NONE as usize;
        for &x in chain.iter().filter(|&&x| x != k) {
            if prev != NONE as usize {
                cost += self.arc_cost(prev, x);
            }
            prev = x;
        }
        cost
    }
}
