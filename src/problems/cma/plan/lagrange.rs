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
//! `O(nk)` for a full scan; setup `O(nk log k)`. When every mirror holds
//! every player (no capacity can bind) no selection is needed: `v_j` is
//! accumulated during the walk, which starts in a compact copy of each
//! row's first 32 entries (it stays in cache), the `K` smallest `v_j` are
//! found by linear-time selection (`O(n + N + k)` in all), and the
//! subgradient re-walks the same prefixes or scans the `K` chosen columns
//! of a column-major copy, whichever is shorter (`O(min(N, nK))`).
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

/// Width of the compact row starts of the uncapacitated walks.
const NEAR_WIDTH: usize = 32;

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
    /// Every mirror holds every player: `v_j` is the whole sum of its
    /// negative reduced delays, accumulated in one pass without `cand`.
    uncapacitated: bool,
    /// Per player, how many of its sorted mirrors have a negative reduced
    /// delay at the last evaluation (uncapacitated only).
    reach: Vec<u32>,
    /// Width of the compact copy of every sorted row's start (uncapacitated
    /// only; 0 otherwise): the walks rarely go further, and `n` short rows
    /// stay in cache where `n` rows of `k` do not.
    near_width: usize,
    /// The first `near_width` delays of every sorted row, and their mirrors.
    near_d: Vec<f64>,
    near_j: Vec<u32>,
    /// `Σ reach` of the last evaluation.
    total_reach: usize,
    /// Column-major copy of the delays (uncapacitated only): the
    /// subgradient then scans the `K` chosen columns when that is less work
    /// than the players' walks.
    columns: Vec<f64>,
    /// The multipliers of the last evaluation (uncapacitated only).
    last_lambda: Vec<f64>,
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
        let uncapacitated = inst.capacity.iter().all(|&c| c >= inst.total_players());
        let near_width = if uncapacitated { k.min(NEAR_WIDTH) } else { 0 };
        let near = |i: usize| i * k..i * k + near_width;
        let near_d: Vec<f64> = (0..n).flat_map(|i| sorted[near(i)].to_vec()).collect();
        let near_j: Vec<u32> = (0..n).flat_map(|i| order[near(i)].to_vec()).collect();
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
            uncapacitated,
            reach: vec![0; n],
            total_reach: 0,
            columns: if uncapacitated {
                (0..k)
                    .flat_map(|j| (0..n).map(move |i| (i, j)))
                    .map(|(i, j)| inst.delay(i, j))
                    .collect()
            } else {
                Vec::new()
            },
            last_lambda: Vec::new(),
            near_width,
            near_d,
            near_j,
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

    /// `v_j = f_j + Σ_i w_i·min(0, d_ij − λ_i)` for every mirror not closed
    /// (`INFINITY` when closed) in one walk over the sorted rows, recording
    /// each player's walk length in `reach`: the uncapacitated case, where
    /// no selection is needed.
    fn uncapacitated_values(&mut self, lambda: &[f64], fix: &[Fix]) -> Vec<f64> {
        let (k, p) = (self.inst.mirrors(), self.near_width);
        let mut v = self.cost.to_vec();
        let mut total = 0;
        for (i, &l) in lambda.iter().enumerate() {
            let w = self.w.as_ref().map_or(1.0, |w| w[i]);
            let mut reach = 0;
            if w != 0.0 {
                // The compact prefix first (it stays in cache), then the
                // rest of the sorted row when `λ_i` reaches beyond it.
                let ds = &self.near_d[i * p..(i + 1) * p];
                let js = &self.near_j[i * p..(i + 1) * p];
                reach = accumulate(&mut v, ds, js, l, w);
                if reach as usize == p {
                    let ds = &self.sorted[i * k + p..(i + 1) * k];
                    let js = &self.order[i * k + p..(i + 1) * k];
                    reach += accumulate(&mut v, ds, js, l, w);
                }
            }
            self.reach[i] = reach;
            total += reach as usize;
        }
        self.total_reach = total;
        self.last_lambda.clear();
        self.last_lambda.extend_from_slice(lambda);
        for (vj, f) in v.iter_mut().zip(fix) {
            if *f == Fix::Closed {
                *vj = f64::INFINITY;
            }
        }
        v
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
        let mut chosen = Vec::with_capacity(k);
        let mut free = Vec::new();
        for (j, f) in fix.iter().enumerate() {
            match f {
                Fix::Closed => continue,
                Fix::Open => chosen.push(j),
                Fix::Free => free.push(j),
            }
        }
        if chosen.len() > k || chosen.len() + free.len() < k {
            return None;
        }
        let v = if self.uncapacitated {
            self.uncapacitated_values(lambda, fix)
        } else {
            self.collect_negatives(lambda, fix);
            let mut v = vec![f64::INFINITY; m];
            for j in chosen.iter().chain(&free) {
                v[*j] = self.mirror_value(*j);
            }
            v
        };
        let take = k - chosen.len();
        least_first(&mut free, &v, take, !self.uncapacitated);
        chosen.extend(free.iter().take(take));
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
        if self.uncapacitated {
            return self.uncapacitated_subgradient(chosen);
        }
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

    /// The subgradient when every mirror holds every player: player `i`
    /// goes to every chosen mirror among its first `reach_i` sorted ones.
    fn uncapacitated_subgradient(&mut self, chosen: &[usize]) -> (Vec<f64>, f64) {
        let (n, k) = (self.inst.clients(), self.inst.mirrors());
        if chosen.len() * n < self.total_reach {
            // Scan the chosen columns: `O(K·n)`, sequential.
            let mut hits = vec![0u32; n];
            for &j in chosen {
                let col = &self.columns[j * n..(j + 1) * n];
                for ((h, &d), &l) in hits.iter_mut().zip(col).zip(&self.last_lambda) {
                    *h += u32::from(d < l);
                }
            }
            let mut norm = 0.0;
            let g: Vec<f64> = (0..n)
                .map(|i| {
                    let w = self.w.as_ref().map_or(1.0, |w| w[i]);
                    let gi = if self.reach[i] == 0 {
                        w
                    } else {
                        w - w * hits[i] as f64
                    };
                    norm += gi * gi;
                    gi
                })
                .collect();
            return (g, norm);
        }
        let mut is_chosen = vec![false; k];
        chosen.iter().for_each(|&j| is_chosen[j] = true);
        let mut norm = 0.0;
        let g: Vec<f64> = (0..self.inst.clients())
            .map(|i| {
                let (p, r) = (self.near_width, self.reach[i] as usize);
                let near = &self.near_j[i * p..i * p + r.min(p)];
                let rest = &self.order[i * k + p..i * k + r.max(p)];
                let count = |js: &[u32]| js.iter().filter(|&&j| is_chosen[j as usize]).count();
                let hits = (count(near) + count(rest)) as f64;
                let w = self.w.as_ref().map_or(1.0, |w| w[i]);
                let gi = w - w * hits;
                norm += gi * gi;
                gi
            })
            .collect();
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

/// Puts the `take` mirrors of least `v_j` (ties: lower index) first in
/// `free`: by linear-time selection, or by a whole sort when `sort` (the
/// capacity cover may need the free mirrors in that order).
fn least_first(free: &mut [usize], v: &[f64], take: usize, sort: bool) {
    let by_v = |a: &usize, b: &usize| v[*a].total_cmp(&v[*b]).then(a.cmp(b));
    if sort {
        free.sort_by(by_v);
    } else if take > 0 && take < free.len() {
        free.select_nth_unstable_by(take - 1, by_v);
    }
}

/// `v_j += w·(d − l)` along one sorted run while `d < l`; returns how many
/// entries it took.
fn accumulate(v: &mut [f64], ds: &[f64], js: &[u32], l: f64, w: f64) -> u32 {
    let mut taken = 0;
    for (&d, &j) in ds.iter().zip(js) {
        if d >= l {
            break;
        }
        v[j as usize] += w * (d - l);
        taken += 1;
    }
    taken
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

#[cfg(test)]
#[path = "lagrange_tests.rs"]
mod tests;
