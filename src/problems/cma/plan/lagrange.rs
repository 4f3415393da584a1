//! The Lagrangian bound of the capacitated p-median (strong formulation):
//!
//! `min Σ_ij d_ij x_ij + Σ_j f_j y_j` s.t. `Σ_j x_ij = 1` (every player;
//! with player counts a row is a region of `w_i` players, `x_ij` counts
//! players, `Σ_j x_ij = w_i`, and each multiplier is per player),
//! `Σ_i x_ij <= C_j y_j`, `x_ij <= y_j`, `Σ_j y_j = K`, `x, y ∈ {0,1}`.
//!
//! Relaxing `Σ_j x_ij = 1` with multipliers `λ_i` leaves, per mirror, the
//! `C_j` most negative reduced delays `d_ij − λ_i`: `v_j = f_j + Σ` of them,
//! and `L(λ) = Σ_i λ_i + Σ_{K smallest v_j} v_j` (mirrors fixed open always
//! count, closed ones never). Each subproblem has the integrality property,
//! so `max_λ L(λ)` equals the LP bound of the strong formulation; every `λ`
//! gives a valid lower bound (weak duality). Only mirrors with
//! `d_ij < λ_i` contribute, so each player's row is kept sorted and walked
//! only that far: one evaluation costs `O(n + N + k log k)` for `N`
//! negative reduced delays (a linear-time selection per mirror), against
//! `O(nk)` for a full scan; setup `O(nk log k)`.
//!
//! The subproblem also keeps the capacity cover `Σ_j C_j y_j >= n` (in
//! rounded units, [`super::cover`]), which the LP only meets fractionally.
//!
//! [`Lagrangian::ascend`] runs the subgradient method with Polyak steps
//! `t = θ (UB − L) / ‖g‖²`, `g_i = 1 − Σ_j x_ij`, halving `θ` when the bound
//! stalls (Beasley 1985's rule at the root with many candidates: `θ = 2`,
//! halved after 30 steps without progress).

use super::cover::{self, Cover};
use crate::problems::cma::model::CmaInstance;

/// A mirror's state in a branch-and-bound node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fix {
    /// Not decided.
    Free,
    /// Fixed open.
    Open,
    /// Fixed closed.
    Closed,
}

/// One evaluation of `L(λ)`.
#[derive(Debug, Clone)]
pub struct LagEval {
    /// `L(λ)`, a lower bound on the node's objective.
    pub value: f64,
    /// The `K` mirrors the relaxation opens.
    pub chosen: Vec<usize>,
    /// `v_j` per mirror (`INFINITY` when closed).
    pub v: Vec<f64>,
    /// `L(λ)` without the capacity cover (the `K` smallest `v_j`): the base
    /// of reduced-cost fixing.
    pub free_value: f64,
    /// The mirrors of `free_value`.
    pub free_chosen: Vec<usize>,
}

/// What a subgradient ascent found.
#[derive(Debug, Clone)]
pub struct Ascent {
    /// The best bound and its evaluation (`None` = the fixings leave no
    /// `K`-set).
    pub best: Option<LagEval>,
    /// Distinct mirror sets the relaxation opened (latest last, at most 8),
    /// candidates for the primal heuristic.
    pub sets: Vec<Vec<usize>>,
    /// Evaluations of `L` done.
    pub iterations: usize,
}

/// Settings of one ascent.
#[derive(Debug, Clone, Copy)]
pub struct AscentSettings {
    /// Most evaluations.
    pub iterations: usize,
    /// Initial step factor `θ`.
    pub theta: f64,
    /// Stop as soon as the bound reaches this (the incumbent minus the
    /// tolerance: the node is pruned).
    pub stop_at: f64,
    /// The incumbent objective (`INFINITY` when none), the Polyak target.
    pub upper: f64,
    /// Halve `θ` after this many steps without a better bound.
    pub stall: usize,
}

/// Each player's mirrors sorted by delay, and work buffers for `L(λ)`.
#[derive(Debug)]
pub struct Lagrangian<'a> {
    inst: &'a CmaInstance,
    cost: &'a [f64],
    /// Row-major `n × k`: player `i`'s mirrors by ascending delay.
    order: Vec<u32>,
    /// The delays in that order.
    sorted: Vec<f64>,
    /// Per mirror: the players with a negative reduced delay, then (after
    /// selection) the `C_j` most negative.
    cand: Vec<Vec<(f64, u32)>>,
    count: Vec<f64>,
    cover: Cover,
    /// Players per row, when the instance counts them (`None`: one each).
    w: Option<Vec<f64>>,
    /// Per mirror, players taken from the last entry of `cand[j]` (weighted
    /// rows only: the one region the capacity splits).
    last_taken: Vec<f64>,
}

impl<'a> Lagrangian<'a> {
    /// Sorts every player's row (`O(nk log k)` time, `O(nk)` memory).
    pub fn new(inst: &'a CmaInstance, cost: &'a [f64]) -> Self {
        let (n, k) = (inst.clients(), inst.mirrors());
        let mut order = Vec::with_capacity(n * k);
        let mut sorted = Vec::with_capacity(n * k);
        let mut idx: Vec<u32> = Vec::with_capacity(k);
        for i in 0..n {
            let row = inst.row(i);
            idx.clear();
            idx.extend(0..k as u32);
            idx.sort_by(|&a, &b| row[a as usize].total_cmp(&row[b as usize]).then(a.cmp(&b)));
            order.extend_from_slice(&idx);
            sorted.extend(idx.iter().map(|&j| row[j as usize]));
        }
        Lagrangian {
            inst,
            cost,
            order,
            sorted,
            cand: vec![Vec::new(); k],
            count: vec![0.0; n],
            cover: Cover::default(),
            w: inst
                .is_weighted()
                .then(|| (0..n).map(|i| inst.weight(i) as f64).collect()),
            last_taken: vec![0.0; k],
        }
    }

    /// Multipliers to start from: each player's least delay (then every
    /// `v_j = f_j` and `L` is the all-open, uncapacitated bound).
    pub fn initial_lambda(&self) -> Vec<f64> {
        let k = self.inst.mirrors();
        (0..self.inst.clients())
            .map(|i| self.sorted[i * k])
            .collect()
    }

    /// Fills `cand` with the negative reduced delays of the open or free
    /// mirrors, walking each player's sorted row only while `d_ij < λ_i`:
    /// `O(n + Σ_i #negative_i)` instead of `O(nk)`.
    fn collect_negatives(&mut self, lambda: &[f64], fix: &[Fix]) {
        let k = self.inst.mirrors();
        self.cand.iter_mut().for_each(Vec::clear);
        for (i, &l) in lambda.iter().enumerate() {
            if self.w.as_ref().is_some_and(|w| w[i] == 0.0) {
                continue;
            }
            let ds = &self.sorted[i * k..(i + 1) * k];
            let js = &self.order[i * k..(i + 1) * k];
            for (&d, &j) in ds.iter().zip(js) {
                if d >= l {
                    break;
                }
                if fix[j as usize] != Fix::Closed {
                    self.cand[j as usize].push((d - l, i as u32));
                }
            }
        }
    }

    /// `v_j`, keeping in `cand[j]` only its `C_j` most negative entries
    /// (linear-time selection); with player counts, the most negative
    /// players up to `C_j` (sorted, the last region possibly in part).
    fn mirror_value(&mut self, j: usize) -> f64 {
        let cap = self.inst.capacity[j];
        if let Some(w) = &self.w {
            return self.cost[j] + fill_players(&mut self.cand[j], w, cap, &mut self.last_taken[j]);
        }
        let c = &mut self.cand[j];
        if c.len() > cap {
            if cap == 0 {
                c.clear();
            } else {
                c.select_nth_unstable_by(cap - 1, |a, b| a.0.total_cmp(&b.0));
                c.truncate(cap);
            }
        }
        self.cost[j] + c.iter().map(|&(r, _)| r).sum::<f64>()
    }

    /// `L(λ)` under `fix` with exactly `k` mirrors open; `None` when the
    /// fixings allow no `k`-set.
    pub fn evaluate(&mut self, lambda: &[f64], fix: &[Fix], k: usize) -> Option<LagEval> {
        let m = self.inst.mirrors();
        let mut v = vec![f64::INFINITY; m];
        let mut chosen = Vec::with_capacity(k);
        let mut free = Vec::new();
        self.collect_negatives(lambda, fix);
        for j in 0..m {
            match fix[j] {
                Fix::Closed => continue,
                Fix::Open => chosen.push(j),
                Fix::Free => free.push(j),
            }
            v[j] = self.mirror_value(j);
        }
        if chosen.len() > k || chosen.len() + free.len() < k {
            return None;
        }
        free.sort_by(|&a, &b| v[a].total_cmp(&v[b]).then(a.cmp(&b)));
        chosen.extend(free.iter().take(k - chosen.len()));
        chosen.sort_unstable();
        let sum_lambda = match &self.w {
            Some(w) => lambda.iter().zip(w).map(|(l, w)| l * w).sum::<f64>(),
            None => lambda.iter().sum::<f64>(),
        };
        let free_value = sum_lambda + chosen.iter().map(|&j| v[j]).sum::<f64>();
        let free_chosen = chosen.clone();
        let n = self.inst.total_players();
        let cap = &self.inst.capacity;
        // The cover programme's table has `F·(r+1)·257` cells: skipped (the
        // bound stays valid, only weaker) when that would exceed 4 million.
        let small = free.len().saturating_mul(k + 1) <= 16_000;
        if small && chosen.iter().map(|&j| cap[j]).sum::<usize>() < n {
            let u = cover::unit(n);
            let weight: Vec<usize> = cap.iter().map(|&c| c.div_ceil(u)).collect();
            let open: Vec<usize> = (0..m).filter(|&j| fix[j] == Fix::Open).collect();
            let have: usize = open.iter().map(|&j| weight[j]).sum();
            let need = n.div_ceil(u).saturating_sub(have);
            let pick = self
                .cover
                .choose(&free, &v, &weight, k - open.len(), need)?;
            chosen = [open, pick].concat();
            chosen.sort_unstable();
        }
        let value = sum_lambda + chosen.iter().map(|&j| v[j]).sum::<f64>();
        Some(LagEval {
            value,
            chosen,
            v,
            free_value,
            free_chosen,
        })
    }

    /// The subgradient `g_i = w_i − Σ_{j chosen} x_ij` (players; `w_i = 1`
    /// without counts) of the last [`evaluate`](Self::evaluate) with its
    /// squared norm.
    fn subgradient(&mut self, chosen: &[usize]) -> (Vec<f64>, f64) {
        self.count.iter_mut().for_each(|c| *c = 0.0);
        for &j in chosen {
            let last = self.cand[j].len().wrapping_sub(1);
            for (p, &(_, i)) in self.cand[j].iter().enumerate() {
                self.count[i as usize] += match &self.w {
                    Some(_) if p == last => self.last_taken[j],
                    Some(w) => w[i as usize],
                    None => 1.0,
                };
            }
        }
        let g: Vec<f64> = match &self.w {
            Some(w) => self.count.iter().zip(w).map(|(&c, &w)| w - c).collect(),
            None => self.count.iter().map(|&c| 1.0 - c).collect(),
        };
        let norm = g.iter().map(|x| x * x).sum();
        (g, norm)
    }

    /// Subgradient ascent from `lambda` (left at the best multipliers found).
    /// `O(iterations · nk)`.
    pub fn ascend(
        &mut self,
        lambda: &mut [f64],
        fix: &[Fix],
        k: usize,
        s: AscentSettings,
    ) -> Ascent {
        let mut out = Ascent {
            best: None,
            sets: Vec::new(),
            iterations: 0,
        };
        let mut best_lambda = lambda.to_vec();
        let (mut theta, mut stall) = (s.theta, 0usize);
        while out.iterations < s.iterations && theta > 1e-4 {
            out.iterations += 1;
            let Some(ev) = self.evaluate(lambda, fix, k) else {
                return out;
            };
            if !out.sets.contains(&ev.chosen) {
                if out.sets.len() == 8 {
                    out.sets.remove(0);
                }
                out.sets.push(ev.chosen.clone());
            }
            let (g, norm) = self.subgradient(&ev.chosen);
            let value = ev.value;
            if out.best.as_ref().is_none_or(|b| value > b.value) {
                best_lambda.copy_from_slice(lambda);
                out.best = Some(ev.clone());
                stall = 0;
            } else {
                stall += 1;
                if stall >= s.stall {
                    theta /= 2.0;
                    stall = 0;
                }
            }
            if value >= s.stop_at || norm == 0.0 {
                break;
            }
            let target = if s.upper.is_finite() && s.upper > value {
                s.upper
            } else {
                value + (value.abs() * 0.01).max(1.0)
            };
            let t = theta * (target - value) / norm;
            for (l, gi) in lambda.iter_mut().zip(&g) {
                *l += t * gi;
            }
        }
        lambda.copy_from_slice(&best_lambda);
        out
    }
}

/// The most negative reduced delays of one mirror up to `cap` players:
/// keeps in `cand` the regions that fit (the last in part, its players in
/// `last_taken`; it is the one with the largest kept reduced delay) and
/// returns `Σ players × reduced delay`. A weighted quickselect: `O(N)`
/// expected for `N` candidates, against `O(N log N)` for sorting them.
fn fill_players(cand: &mut Vec<(f64, u32)>, w: &[f64], cap: usize, last_taken: &mut f64) -> f64 {
    let weight = |c: &[(f64, u32)]| c.iter().map(|&(_, i)| w[i as usize]).sum::<f64>();
    let room = cap as f64;
    *last_taken = 0.0;
    if cand.is_empty() || room <= 0.0 {
        cand.clear();
        return 0.0;
    }
    // [lo, hi) holds the entry that crosses the capacity; `before` players
    // lie in entries left of lo.
    let (mut lo, mut hi, mut before) = (0usize, cand.len(), 0.0);
    if weight(cand) > room {
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            let part = &mut cand[lo..hi];
            part.select_nth_unstable_by(mid - lo, |a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
            let left = weight(&cand[lo..mid]);
            if before + left >= room {
                hi = mid;
            } else {
                before += left;
                lo = mid;
            }
        }
        cand.truncate(hi);
    }
    // the entry with the largest reduced delay goes last (it takes the rest)
    let last = (0..cand.len())
        .max_by(|&a, &b| {
            cand[a]
                .0
                .total_cmp(&cand[b].0)
                .then(cand[a].1.cmp(&cand[b].1))
        })
        .unwrap_or(0);
    let end = cand.len() - 1;
    cand.swap(last, end);
    let full = weight(&cand[..end]);
    let (r_last, i_last) = cand[end];
    *last_taken = w[i_last as usize].min(room - full);
    cand[..end]
        .iter()
        .map(|&(r, i)| w[i as usize] * r)
        .sum::<f64>()
        + *last_taken * r_last
}
