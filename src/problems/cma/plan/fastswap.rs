//! Fast swap local search for the uncapacitated objective
//! `Σ_i w_i min_{j open} d_ij + Σ_{j open} f_j` (`w_i` the row's players; Whitaker's fast interchange as
//! Resende & Werneck, "A fast swap-based local search procedure for
//! location problems", describe it).
//!
//! Each player keeps its closest and second-closest open mirror. For a
//! closed candidate `c`, one pass over the players gives the gain of
//! opening it (players closer to `c` than to their closest move to `c`) and,
//! per open mirror `r`, the extra loss of also closing `r` (its players that
//! `c` does not attract go to `min(d2, d(i, c))`): every swap of one pass
//! costs `O(n·m + m·K)` in all instead of one evaluation per swap. The best
//! swap is made, the closest / second-closest lists are updated (only the
//! players that lost one of them are rescanned), until no swap improves.
//!
//! When the nearest-open assignment respects the capacities this objective
//! is the true one ([`super::Planner::evaluate`] then skips the
//! transportation problem); otherwise the set found is a heuristic start,
//! evaluated exactly by the caller.

use crate::problems::cma::model::CmaInstance;

/// The open set with each player's closest and second-closest open mirror.
#[derive(Debug, Clone)]
pub struct FastSwap<'a> {
    inst: &'a CmaInstance,
    cost: &'a [f64],
    /// Open mirrors (unordered).
    pub open: Vec<usize>,
    is_open: Vec<bool>,
    c1: Vec<usize>,
    d1: Vec<f64>,
    d2: Vec<f64>,
    c2: Vec<usize>,
    /// Players per row.
    w: Vec<f64>,
}

/// One swap: open `insert`, close `remove`; `profit` = old − new objective.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Move {
    /// The mirror to open.
    pub insert: usize,
    /// The mirror to close.
    pub remove: usize,
    /// Decrease of the objective.
    pub profit: f64,
}

impl<'a> FastSwap<'a> {
    /// The state of `open` (at least one mirror; duplicates ignored).
    pub fn new(inst: &'a CmaInstance, cost: &'a [f64], open: &[usize]) -> Self {
        let n = inst.clients();
        let mut is_open = vec![false; inst.mirrors()];
        let mut set = Vec::with_capacity(open.len());
        for &j in open {
            if !is_open[j] {
                is_open[j] = true;
                set.push(j);
            }
        }
        let mut s = FastSwap {
            inst,
            cost,
            open: set,
            is_open,
            c1: vec![0; n],
            d1: vec![f64::INFINITY; n],
            d2: vec![f64::INFINITY; n],
            c2: vec![usize::MAX; n],
            w: (0..n).map(|i| inst.weight(i) as f64).collect(),
        };
        (0..n).for_each(|i| s.rescan(i));
        s
    }

    /// Recomputes player `i`'s closest and second-closest open mirrors.
    fn rescan(&mut self, i: usize) {
        let row = self.inst.row(i);
        let (mut b1, mut j1, mut b2, mut j2) =
            (f64::INFINITY, usize::MAX, f64::INFINITY, usize::MAX);
        for &j in &self.open {
            let d = row[j];
            if d < b1 || (d == b1 && j < j1) {
                (b2, j2) = (b1, j1);
                (b1, j1) = (d, j);
            } else if d < b2 || (d == b2 && j < j2) {
                (b2, j2) = (d, j);
            }
        }
        (self.d1[i], self.c1[i], self.d2[i], self.c2[i]) = (b1, j1, b2, j2);
    }

    /// The nearest open mirror per player.
    pub fn nearest(&self) -> &[usize] {
        &self.c1
    }

    /// `Σ_i w_i d(i, closest open) + Σ_{open} f_j`.
    pub fn objective(&self) -> f64 {
        let assigned: f64 = self.d1.iter().zip(&self.w).map(|(d, w)| w * d).sum();
        assigned + self.open.iter().map(|&j| self.cost[j]).sum::<f64>()
    }

    /// The best single swap (largest profit, `None` with nothing to swap):
    /// one pass over the matrix, `O(n·m + m·K)`.
    pub fn best_move(&self) -> Option<Move> {
        let m = self.inst.mirrors();
        let k = self.open.len();
        if k == 0 || k == m {
            return None;
        }
        let mut pos = vec![usize::MAX; m];
        for (p, &j) in self.open.iter().enumerate() {
            pos[j] = p;
        }
        let mut gain = vec![0.0; m];
        let mut loss = vec![0.0; m * k];
        for i in 0..self.inst.clients() {
            let row = self.inst.row(i);
            let (d1, d2, r, w) = (self.d1[i], self.d2[i], pos[self.c1[i]], self.w[i]);
            if w == 0.0 {
                continue;
            }
            for (c, &d) in row.iter().enumerate() {
                if self.is_open[c] {
                    continue;
                }
                if d < d1 {
                    gain[c] += w * (d1 - d);
                } else {
                    loss[c * k + r] += w * (d.min(d2) - d1);
                }
            }
        }
        let mut best: Option<Move> = None;
        for c in (0..m).filter(|&c| !self.is_open[c]) {
            for (p, &r) in self.open.iter().enumerate() {
                let profit = gain[c] - loss[c * k + p] - self.cost[c] + self.cost[r];
                if best.is_none_or(|b| profit > b.profit) {
                    best = Some(Move {
                        insert: c,
                        remove: r,
                        profit,
                    });
                }
            }
        }
        best
    }

    /// Makes the swap `mv`, updating the closest lists: players that lost
    /// their closest or second-closest are rescanned, the others only
    /// compare with the new mirror.
    pub fn apply(&mut self, mv: Move) {
        let (c, r) = (mv.insert, mv.remove);
        let Some(p) = self.open.iter().position(|&j| j == r) else {
            return;
        };
        if self.is_open[c] {
            return;
        }
        self.open[p] = c;
        self.is_open[r] = false;
        self.is_open[c] = true;
        for i in 0..self.inst.clients() {
            if self.c1[i] == r || self.c2[i] == r {
                self.rescan(i);
                continue;
            }
            let d = self.inst.delay(i, c);
            if d < self.d1[i] || (d == self.d1[i] && c < self.c1[i]) {
                (self.d2[i], self.c2[i]) = (self.d1[i], self.c1[i]);
                (self.d1[i], self.c1[i]) = (d, c);
            } else if d < self.d2[i] || (d == self.d2[i] && c < self.c2[i]) {
                (self.d2[i], self.c2[i]) = (d, c);
            }
        }
    }

    /// Best-improvement swaps until none improves by more than `tol` or
    /// `max_moves` were made; returns the number of moves.
    pub fn run(&mut self, tol: f64, max_moves: usize) -> usize {
        let mut moves = 0;
        while moves < max_moves {
            match self.best_move() {
                Some(mv) if mv.profit > tol => self.apply(mv),
                _ => break,
            }
            moves += 1;
        }
        moves
    }

    /// The open set, ascending.
    pub fn sorted_open(&self) -> Vec<usize> {
        let mut s = self.open.clone();
        s.sort_unstable();
        s
    }
}

/// The fast-swap local optimum from `start` (at most `4·K + 100` moves).
pub fn local_search(inst: &CmaInstance, cost: &[f64], start: &[usize], tol: f64) -> Vec<usize> {
    if start.is_empty() {
        return Vec::new();
    }
    let mut s = FastSwap::new(inst, cost, start);
    s.run(tol, 4 * start.len() + 100);
    s.sorted_open()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::problems::cma::sites::{generate_sites, SitesConfig};

    #[test]
    fn incremental_state_equals_a_fresh_one_after_every_move() {
        for seed in 1..6 {
            let cfg = SitesConfig {
                sites: 40,
                max_open_cost: (seed % 2 == 0).then_some(60),
                seed,
                ..SitesConfig::default()
            };
            let inst = generate_sites(&cfg).expect("generates");
            let cost = inst.open_cost.clone().unwrap_or_else(|| vec![0.0; 40]);
            let start: Vec<usize> = (0..7).map(|x| x * 5).collect();
            let mut s = FastSwap::new(&inst, &cost, &start);
            while let Some(mv) = s.best_move().filter(|m| m.profit > 1e-9) {
                let before = s.objective();
                s.apply(mv);
                let fresh = FastSwap::new(&inst, &cost, &s.open);
                assert!((before - mv.profit - fresh.objective()).abs() < 1e-6);
                assert!((s.objective() - fresh.objective()).abs() < 1e-6);
                assert_eq!(s.d1, fresh.d1);
                assert_eq!(s.d2, fresh.d2);
            }
        }
    }

    #[test]
    fn every_predicted_profit_matches_a_full_evaluation() {
        let inst = generate_sites(&SitesConfig {
            sites: 25,
            max_open_cost: Some(30),
            ..SitesConfig::default()
        })
        .expect("generates");
        let cost = inst.open_cost.clone().unwrap_or_default();
        let s = FastSwap::new(&inst, &cost, &[0, 3, 9, 17]);
        let best = s.best_move().expect("a move");
        let mut top = f64::NEG_INFINITY;
        for c in (0..25).filter(|c| !s.open.contains(c)) {
            for &r in &s.open {
                let set: Vec<usize> = s.open.iter().map(|&j| if j == r { c } else { j }).collect();
                let profit = s.objective() - FastSwap::new(&inst, &cost, &set).objective();
                top = top.max(profit);
            }
        }
        assert!((best.profit - top).abs() < 1e-6);
    }
}
