//! `plan cma`: which `K` of the candidate mirrors to open (a capacitated
//! p-median) so that the total delay of all players — plus the opening costs
//! of the opened mirrors when the instance gives `open_cost` — is least,
//! honouring capacities; and the curve of that optimum against `K`.
//!
//! - [`Planner`]: the instance with its opening costs and the exact
//!   evaluation of one mirror set (the transportation problem of
//!   [`crate::problems::cma::exact_flow`] with closed mirrors at capacity 0),
//!   cached per set;
//! - [`lagrange`]: the Lagrangian bound (assignment constraints relaxed),
//!   equal to the LP bound of the strong formulation at its best multipliers;
//! - [`exact`]: branch and bound over the mirrors' open/closed decisions with
//!   that bound, reduced-cost fixing and the transportation problem at the
//!   leaves; [`greedy`] (greedy-add) and [`swap`] (Teitz–Bart) heuristics;
//!   [`milp`]: the strong formulation on HiGHS (the small-instance
//!   reference);
//! - [`curve`]: every `K`, or the fewest mirrors meeting an average delay;
//!   [`output`]: the out folder (solution, curve CSV/JSONL/SVG);
//!   [`cli`]: the command.

pub mod cover;
pub mod curve;
pub mod exact;
pub mod fastswap;
pub mod greedy;
pub mod lagrange;
pub mod milp;
pub mod points;
pub mod swap;

use crate::error::Result;
use crate::problems::cma::exact_flow::solve_exact_flow_capacities;
use crate::problems::cma::exact_lp::Split;
use crate::problems::cma::model::CmaInstance;
use crate::problems::cma::transport::solve_transport;
use std::collections::HashMap;

/// An exactly evaluated mirror set: the optimal assignment for it.
#[derive(Debug, Clone, PartialEq)]
pub struct SetEval {
    /// Opened mirrors, ascending.
    pub open: Vec<usize>,
    /// Per client row, `[mirror, players]` pairs (only opened mirrors
    /// appear; one pair per row unless the instance counts players and a
    /// region is split).
    pub split: Split,
    /// Total delay of the assignment.
    pub delay: f64,
    /// Objective: `delay` + Σ open_cost of `open`.
    pub objective: f64,
}

/// The instance being planned, its opening costs and a cache of evaluated
/// mirror sets (objective, `None` = capacity below the player count).
#[derive(Debug)]
pub struct Planner<'a> {
    /// The CMA instance (its capacities are the candidates' capacities).
    pub inst: &'a CmaInstance,
    /// Opening cost per mirror (zeros when the instance gives none).
    pub cost: Vec<f64>,
    cache: HashMap<Vec<u64>, Option<f64>>,
    /// Number of transportation problems solved.
    pub evaluations: usize,
    /// Number of sets evaluated by the nearest-open assignment (capacities
    /// not binding, no transportation problem).
    pub nearest_evaluations: usize,
    /// Σ over players of the nearest candidate's delay (the cheap bound of
    /// points the deadline leaves unsolved), once computed.
    pub nearest_total: Option<f64>,
}

impl<'a> Planner<'a> {
    /// A planner over `inst` (its `open_cost`, or zeros).
    pub fn new(inst: &'a CmaInstance) -> Self {
        let cost = inst
            .open_cost
            .clone()
            .unwrap_or_else(|| vec![0.0; inst.mirrors()]);
        Planner {
            inst,
            cost,
            cache: HashMap::new(),
            evaluations: 0,
            nearest_evaluations: 0,
            nearest_total: None,
        }
    }

    /// Number of candidate mirrors.
    pub fn mirrors(&self) -> usize {
        self.inst.mirrors()
    }

    /// Σ capacity of `open`.
    pub fn capacity_of(&self, open: &[usize]) -> usize {
        open.iter().map(|&j| self.inst.capacity[j]).sum()
    }

    /// Whether some `K`-subset of the mirrors has enough capacity for every
    /// player (the `K` largest capacities sum to at least the players).
    pub fn k_feasible(&self, k: usize) -> bool {
        let mut caps = self.inst.capacity.clone();
        caps.sort_unstable_by(|a, b| b.cmp(a));
        caps.iter().take(k).sum::<usize>() >= self.players()
    }

    /// Players to place: `Σ` row counts (the row count without counts).
    pub fn players(&self) -> usize {
        self.inst.total_players()
    }

    /// Absolute tolerance on objectives: `1e-9 · max(1, objective scale)`.
    pub fn tolerance(&self) -> f64 {
        let scale = self.inst.max_delay() * self.players() as f64 + self.cost.iter().sum::<f64>();
        1e-9 * scale.max(1.0)
    }

    /// The optimal assignment for the mirror set `open` (the transportation
    /// problem, `O(nk + E·k²)`, see `exact_flow`); `None` when `open` lacks
    /// capacity for every player.
    pub fn evaluate(&mut self, open: &[usize]) -> Result<Option<SetEval>> {
        let mut open = open.to_vec();
        open.sort_unstable();
        open.dedup();
        let key = set_key(&open, self.mirrors());
        if self.capacity_of(&open) < self.players() {
            self.cache.insert(key, None);
            return Ok(None);
        }
        let split = match self.nearest_if_feasible(&open) {
            Some(split) => {
                self.nearest_evaluations += 1;
                split
            }
            None => {
                let mut cap = vec![0usize; self.mirrors()];
                for &j in &open {
                    cap[j] = self.inst.capacity[j];
                }
                self.evaluations += 1;
                let Some(split) = self.transport(cap)? else {
                    self.cache.insert(key, None);
                    return Ok(None);
                };
                split
            }
        };
        let delay: f64 = split
            .iter()
            .enumerate()
            .flat_map(|(i, pairs)| pairs.iter().map(move |&[j, c]| (i, j, c)))
            .map(|(i, j, c)| c as f64 * self.inst.delay(i, j))
            .sum();
        let objective = delay + open.iter().map(|&j| self.cost[j]).sum::<f64>();
        self.cache.insert(key, Some(objective));
        Ok(Some(SetEval {
            open,
            split,
            delay,
            objective,
        }))
    }

    /// The objective of `open` when the nearest-open assignment respects
    /// the capacities (then it is optimal), without building that
    /// assignment; `None` when a capacity binds or `open` is empty. `open`
    /// is sorted and free of duplicates. Sums in the order
    /// [`evaluate`](Self::evaluate) does, so the two agree to the bit.
    fn nearest_objective(&self, open: &[usize]) -> Option<f64> {
        let nearest = self.nearest_open(open)?;
        let delay: f64 = nearest
            .iter()
            .enumerate()
            .map(|(i, &j)| self.inst.weight(i) as f64 * self.inst.delay(i, j))
            .sum();
        Some(delay + open.iter().map(|&j| self.cost[j]).sum::<f64>())
    }

    /// [`evaluate`](Self::evaluate), but when the nearest-open assignment
    /// already shows (without building it) that `open` does not beat
    /// `upper − tolerance`, only its objective is cached and `None` is
    /// returned: the exact search's cheap path for the sets it tries.
    pub fn evaluate_if_better(&mut self, open: &[usize], upper: f64) -> Result<Option<SetEval>> {
        let mut sorted = open.to_vec();
        sorted.sort_unstable();
        sorted.dedup();
        if self.capacity_of(&sorted) >= self.players() {
            if let Some(objective) = self.nearest_objective(&sorted) {
                if objective >= upper - self.tolerance() {
                    self.nearest_evaluations += 1;
                    let key = set_key(&sorted, self.mirrors());
                    self.cache.insert(key, Some(objective));
                    return Ok(None);
                }
            }
        }
        self.evaluate(&sorted)
    }

    /// The transportation problem over the mirrors with capacity `cap`:
    /// `exact-flow`'s unit algorithm, or the network simplex when rows
    /// count players.
    fn transport(&self, cap: Vec<usize>) -> Result<Option<Split>> {
        if self.inst.is_weighted() {
            return Ok(solve_transport(self.inst, &cap)?.map(|(split, _)| split));
        }
        Ok(solve_exact_flow_capacities(self.inst, cap)?
            .map(|(assign, _)| assign.into_iter().map(|j| vec![[j, 1]]).collect()))
    }

    /// Every player at its nearest mirror of `open` (`O(n·|open|)`), when
    /// that assignment respects the capacities — then it is optimal, as no
    /// player can do better; `None` when some capacity would be exceeded
    /// (the transportation problem decides).
    fn nearest_if_feasible(&self, open: &[usize]) -> Option<Split> {
        let nearest = self.nearest_open(open)?;
        let split = nearest
            .iter()
            .enumerate()
            .map(|(i, &j)| match self.inst.weight(i) {
                0 => Vec::new(),
                w => vec![[j, w]],
            })
            .collect();
        Some(split)
    }

    /// Each row's nearest mirror of `open` (the lowest index on ties),
    /// `O(n·|open|)`; `None` when that overloads a mirror or `open` is
    /// empty.
    fn nearest_open(&self, open: &[usize]) -> Option<Vec<usize>> {
        let first = *open.first()?;
        let mut load = vec![0usize; self.mirrors()];
        let mut nearest = Vec::with_capacity(self.inst.clients());
        for i in 0..self.inst.clients() {
            let row = self.inst.row(i);
            let mut best = first;
            for &j in &open[1..] {
                if row[j] < row[best] {
                    best = j;
                }
            }
            load[best] += self.inst.weight(i);
            nearest.push(best);
        }
        let over = open.iter().any(|&j| load[j] > self.inst.capacity[j]);
        (!over).then_some(nearest)
    }

    /// Whether every delay and opening cost is an integer (then every
    /// objective is one, and a bound `b` proves `⌈b⌉`).
    pub fn integral(&self) -> bool {
        let int = |x: &f64| x.is_finite() && x.fract() == 0.0 && x.abs() < 1e15;
        self.inst.delay_matrix().iter().all(int) && self.cost.iter().all(int)
    }

    /// The cached objective of `open`, if it was evaluated (`Some(None)` =
    /// not enough capacity).
    pub fn cached(&self, open: &[usize]) -> Option<Option<f64>> {
        let mut sorted = open.to_vec();
        sorted.sort_unstable();
        self.cache.get(&set_key(&sorted, self.mirrors())).copied()
    }

    /// The objective of `open` (cached; `None` = not enough capacity).
    pub fn objective(&mut self, open: &[usize]) -> Result<Option<f64>> {
        let mut sorted = open.to_vec();
        sorted.sort_unstable();
        let key = set_key(&sorted, self.mirrors());
        if let Some(v) = self.cache.get(&key) {
            return Ok(*v);
        }
        sorted.dedup();
        if self.capacity_of(&sorted) >= self.players() {
            if let Some(objective) = self.nearest_objective(&sorted) {
                self.nearest_evaluations += 1;
                self.cache.insert(key, Some(objective));
                return Ok(Some(objective));
            }
        }
        Ok(self.evaluate(&sorted)?.map(|e| e.objective))
    }
}

/// A bitset key of a mirror set.
fn set_key(open: &[usize], k: usize) -> Vec<u64> {
    let mut key = vec![0u64; k.div_ceil(64)];
    for &j in open {
        key[j / 64] |= 1 << (j % 64);
    }
    key
}

/// The engines of `plan cma`.
pub const PLAN_ENGINES: [&str; 4] = ["exact", "greedy", "swap", "milp"];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::problems::cma::sites::{generate_sites, SitesConfig};

    #[test]
    fn the_cheap_objective_equals_the_full_evaluation() {
        for (seed, cap) in [(1, None), (2, Some(vec![9])), (3, Some(vec![30]))] {
            let inst = generate_sites(&SitesConfig {
                sites: 30,
                capacity: cap,
                max_open_cost: Some(25),
                seed,
                ..SitesConfig::default()
            })
            .expect("generates");
            for k in [2, 4, 7] {
                let set: Vec<usize> = (0..k).map(|x| (x * 13 + seed as usize) % 30).collect();
                let full = Planner::new(&inst).evaluate(&set).expect("solves");
                let cheap = Planner::new(&inst).objective(&set).expect("solves");
                assert_eq!(full.as_ref().map(|e| e.objective), cheap);
                let Some(full) = full else { continue };
                let mut p = Planner::new(&inst);
                let skipped = p.evaluate_if_better(&set, full.objective).expect("solves");
                assert!(skipped.is_none() || p.evaluations > 0);
                if seed != 2 {
                    // Capacities that cannot bind: no transportation problem.
                    assert!(skipped.is_none());
                    assert_eq!(p.evaluations, 0);
                }
                assert_eq!(p.cached(&set), Some(Some(full.objective)));
                let kept = Planner::new(&inst)
                    .evaluate_if_better(&set, full.objective + 1.0)
                    .expect("solves")
                    .expect("better than the bar");
                assert_eq!(kept.objective, full.objective);
            }
        }
    }
}
