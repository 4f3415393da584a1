//! The branch and bound of [`super::search_reduced`].
//!
//! A node holds the uncovered rows `U`, the allowed columns `A` and the
//! room `R` (columns a cover may still take). It is cut by, in order:
//!
//! * the packing bound (rows of `U` with pairwise disjoint allowed
//!   columns each need a column of their own) and the ratio bound
//!   `⌈|U| / most rows of U one allowed column covers⌉`;
//! * a Lagrangian bound: for any `u >= 0` over `U`, every cover `x` of
//!   `U` by allowed columns with `|x| <= R` satisfies
//!   `|x| >= Σ_i u_i + Σ_j x_j rc_j`, `rc_j = 1 − Σ_{i ∈ U ∩ j} u_i`, so
//!   `|x| >= LB(u) = Σ_i u_i + (sum of the R most negative rc_j)`, and the
//!   node is cut when `LB(u) > R`. `u` is improved by subgradient steps
//!   (warm-started from the parent's). The same inequality fixes columns:
//!   `j` is dropped when `Σ u + rc_j + (the R − 1 most negative others)`
//!   exceeds `R` (no cover within the room takes it), and taken alone
//!   when leaving it out costs more than `R`.
//!
//! Float sums only make the bound a little off; cuts use a margin of
//! `1e-6` (cover sizes are integers, bounds are at most a few hundred).
//! Then the node branches on the uncovered row with the fewest allowed
//! columns, a child per column (largest `Σ u` first), each child
//! forbidding the columns of its elder siblings.

use super::{bits_of, clear, count, count_and, is_empty, ones, transpose, Bits, Budget, Goal};

/// Margin of the Lagrangian cuts.
const EPS: f64 = 1e-6;

/// Subgradient steps at the first node and at the others, and the steps
/// without improvement after which the step length halves.
const ROOT_STEPS: (usize, usize) = (3000, 30);
const NODE_STEPS: (usize, usize) = (30, 5);

/// The branch and bound's state.
pub(super) struct Search<'a> {
    row_cols: &'a [Bits],
    row_list: Vec<Vec<u32>>,
    col_rows: Vec<Bits>,
    col_list: Vec<Vec<u32>>,
    /// The most columns a cover may still have (lowered by each cover
    /// found when looking for the least).
    limit: usize,
    goal: Goal,
    chosen: Vec<usize>,
    /// The best cover found (positions).
    pub(super) best: Option<Vec<usize>>,
    nodes: u64,
    budget: Budget<'a>,
    /// Stop now (budget hit, or `Goal::Any` has its cover).
    stopped: bool,
    /// The budget (nodes or deadline) ended the search.
    pub(super) budget_hit: bool,
}

/// What the Lagrangian bound says about a node.
enum Verdict {
    /// No cover within the room.
    Cut,
    /// Columns to drop, and a column every cover within the room takes.
    Keep(Bits, Option<usize>),
}

impl<'a> Search<'a> {
    pub(super) fn new(
        rows: &'a [Bits],
        n_cols: usize,
        limit: usize,
        goal: Goal,
        budget: Budget<'a>,
    ) -> Self {
        let col_rows = transpose(rows, n_cols);
        let list = |b: &Bits| ones(b).map(|x| x as u32).collect();
        Search {
            row_cols: rows,
            row_list: rows.iter().map(list).collect(),
            col_list: col_rows.iter().map(list).collect(),
            col_rows,
            limit,
            goal,
            chosen: Vec::new(),
            best: None,
            nodes: 0,
            budget,
            stopped: false,
            budget_hit: false,
        }
    }

    /// Runs the search from the whole reduced instance; returns the
    /// first node's lower bound.
    pub(super) fn run(&mut self) -> usize {
        let all_rows = bits_of(self.row_cols.len(), 0..self.row_cols.len());
        let all_cols = bits_of(self.col_rows.len(), 0..self.col_rows.len());
        let lb = self.lower_bound(&all_rows, &all_cols);
        let u = vec![0.0; self.row_cols.len()];
        self.node(&all_rows, &all_cols, u);
        lb
    }

    fn out_of_budget(&mut self) -> bool {
        self.nodes += 1;
        let over = self.budget.nodes.is_some_and(|n| self.nodes > n)
            || (self.nodes % 1024 == 1 && self.budget.deadline.expired());
        self.budget_hit |= over;
        self.stopped |= over;
        self.stopped
    }

    fn node(&mut self, uncovered: &Bits, allowed: &Bits, mut u: Vec<f64>) {
        if self.out_of_budget() {
            return;
        }
        if is_empty(uncovered) {
            self.best = Some(self.chosen.clone());
            self.stopped |= self.goal == Goal::Any;
            self.limit = self.chosen.len().saturating_sub(1);
            return;
        }
        let room = self.limit.saturating_sub(self.chosen.len());
        if room == 0 || self.lower_bound(uncovered, allowed) > room {
            return;
        }
        let steps = if self.nodes == 1 {
            ROOT_STEPS
        } else {
            NODE_STEPS
        };
        let (mut allowed, order) = match self.lagrange(uncovered, allowed, room, &mut u, steps) {
            Verdict::Cut => return,
            Verdict::Keep(_, Some(j)) => (allowed.clone(), vec![j]),
            Verdict::Keep(drop, None) => {
                let allowed: Bits = allowed.iter().zip(&drop).map(|(a, d)| a & !d).collect();
                let Some(order) = self.children(uncovered, &allowed, &u) else {
                    return;
                };
                (allowed, order)
            }
        };
        for j in order {
            if self.stopped || self.limit <= self.chosen.len() {
                return;
            }
            clear(&mut allowed, j);
            let next: Bits = uncovered
                .iter()
                .zip(&self.col_rows[j])
                .map(|(x, c)| x & !c)
                .collect();
            self.chosen.push(j);
            self.node(&next, &allowed, u.clone());
            self.chosen.pop();
        }
    }

    /// The allowed columns of the uncovered row with the fewest, largest
    /// `Σ u` first (`None` when a row has none: no cover below).
    fn children(&self, uncovered: &Bits, allowed: &Bits, u: &[f64]) -> Option<Vec<usize>> {
        let mut best: Option<(u32, usize)> = None;
        for i in ones(uncovered) {
            let k = count_and(&self.row_cols[i], allowed);
            if k == 0 {
                return None;
            }
            if best.is_none_or(|(bk, _)| k < bk) {
                best = Some((k, i));
            }
        }
        let (_, row) = best?;
        let weight = |j: usize| -> f64 {
            ones(&self.col_rows[j])
                .filter(|&i| uncovered[i / 64] >> (i % 64) & 1 == 1)
                .map(|i| u[i])
                .sum()
        };
        let mut order: Vec<(f64, u32, usize)> = ones(&self.row_cols[row])
            .filter(|&j| allowed[j / 64] >> (j % 64) & 1 == 1)
            .map(|j| (weight(j), count_and(&self.col_rows[j], uncovered), j))
            .collect();
        order.sort_unstable_by(|a, b| b.0.total_cmp(&a.0).then(b.1.cmp(&a.1)).then(a.2.cmp(&b.2)));
        Some(order.into_iter().map(|x| x.2).collect())
    }

    /// Columns any cover of `uncovered` with `allowed` columns needs at
    /// least: the packing and ratio bounds (module docs).
    pub(super) fn lower_bound(&self, uncovered: &Bits, allowed: &Bits) -> usize {
        let mut used = vec![0u64; allowed.len()];
        let mut packed = 0;
        for i in ones(uncovered) {
            let row = &self.row_cols[i];
            let clash = row
                .iter()
                .zip(allowed)
                .zip(&used)
                .any(|((r, a), x)| r & a & x != 0);
            if !clash {
                used.iter_mut()
                    .zip(row.iter().zip(allowed))
                    .for_each(|(x, (r, a))| *x |= r & a);
                packed += 1;
            }
        }
        let left = count(uncovered) as usize;
        let most = ones(allowed)
            .map(|j| count_and(&self.col_rows[j], uncovered) as usize)
            .max()
            .unwrap_or(0);
        match (left, most) {
            (0, _) => 0,
            (_, 0) => usize::MAX,
            _ => packed.max(left.div_ceil(most)),
        }
    }
}

/// One evaluation of the Lagrangian bound at `u`.
struct Eval {
    /// `LB(u)`.
    lb: f64,
    /// `Σ u`.
    sum: f64,
    /// `rc_j` per column (allowed ones only meaningful).
    rc: Vec<f64>,
    /// The `R` most negative `rc` (columns), ascending by `rc`.
    picked: Vec<usize>,
}

impl Search<'_> {
    fn evaluate(&self, rows: &[usize], allowed: &Bits, room: usize, u: &[f64]) -> Eval {
        let mut rc = vec![1.0; self.col_rows.len()];
        let mut sum = 0.0;
        for &i in rows {
            sum += u[i];
            for &j in &self.row_list[i] {
                rc[j as usize] -= u[i];
            }
        }
        let mut neg: Vec<usize> = ones(allowed).filter(|&j| rc[j] < 0.0).collect();
        neg.sort_unstable_by(|&a, &b| rc[a].total_cmp(&rc[b]));
        neg.truncate(room);
        let lb = sum + neg.iter().map(|&j| rc[j]).sum::<f64>();
        Eval {
            lb,
            sum,
            rc,
            picked: neg,
        }
    }

    /// Subgradient steps on `u` (kept at the best point found), then the
    /// cut or the columns to drop or take (module docs).
    fn lagrange(
        &self,
        uncovered: &Bits,
        allowed: &Bits,
        room: usize,
        u: &mut Vec<f64>,
        steps: (usize, usize),
    ) -> Verdict {
        let rows: Vec<usize> = ones(uncovered).collect();
        let target = room as f64 + 1.0;
        let mut best = self.evaluate(&rows, allowed, room, u);
        let mut best_u = u.clone();
        let (mut lambda, mut stale) = (1.0, 0);
        let mut cur = best_u.clone();
        let mut e = self.evaluate(&rows, allowed, room, &cur);
        for _ in 0..steps.0 {
            if best.lb > room as f64 + EPS || lambda < 1e-3 {
                break;
            }
            let mut g: Vec<f64> = vec![1.0; self.row_cols.len()];
            for &j in &e.picked {
                for &i in &self.col_list[j] {
                    g[i as usize] -= 1.0;
                }
            }
            let norm: f64 = rows
                .iter()
                .map(|&i| {
                    if cur[i] <= 0.0 && g[i] < 0.0 {
                        0.0
                    } else {
                        g[i] * g[i]
                    }
                })
                .sum();
            if norm == 0.0 {
                break;
            }
            let t = lambda * (target - e.lb).max(0.05) / norm;
            for &i in &rows {
                cur[i] = (cur[i] + t * g[i]).max(0.0);
            }
            e = self.evaluate(&rows, allowed, room, &cur);
            if e.lb > best.lb + 1e-9 {
                best_u.clone_from(&cur);
                best = e.clone_eval();
                stale = 0;
            } else {
                stale += 1;
                if stale >= steps.1 {
                    lambda /= 2.0;
                    stale = 0;
                }
            }
        }
        *u = best_u;
        self.verdict(&best, allowed, room)
    }

    /// The cut, or the columns `best` drops and a column it forces.
    fn verdict(&self, best: &Eval, allowed: &Bits, room: usize) -> Verdict {
        let r = room as f64;
        if best.lb > r + EPS {
            return Verdict::Cut;
        }
        let picked = &best.picked;
        let top: f64 = picked.iter().map(|&j| best.rc[j]).sum();
        // with `j` outside `picked`: `j` plus the R − 1 most negative
        let but_last = top - picked.last().map_or(0.0, |&j| best.rc[j].min(0.0));
        let short = picked.len() < room;
        let mut drop = vec![0u64; allowed.len()];
        for j in ones(allowed).filter(|j| !picked.contains(j)) {
            let with_j = best.sum + best.rc[j] + if short { top } else { but_last };
            if with_j > r + EPS {
                drop[j / 64] |= 1 << (j % 64);
            }
        }
        // without `j` of `picked`: the next most negative takes its place
        let next = ones(allowed)
            .filter(|j| !picked.contains(j))
            .map(|j| best.rc[j].min(0.0))
            .fold(0.0, f64::min);
        let forced = picked
            .iter()
            .copied()
            .find(|&j| best.sum + top - best.rc[j] + next > r + EPS);
        Verdict::Keep(drop, forced)
    }
}

impl Eval {
    fn clone_eval(&self) -> Eval {
        Eval {
            lb: self.lb,
            sum: self.sum,
            rc: self.rc.clone(),
            picked: self.picked.clone(),
        }
    }
}
