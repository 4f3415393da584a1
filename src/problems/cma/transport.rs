//! The static CMA with player counts as a transportation problem with
//! supplies, solved by the primal network simplex (`exact-flow` on weighted
//! rows when the shift classes of [`crate::problems::cma::class_rows`] do
//! not certify; `plan cma` evaluates mirror sets of weighted instances
//! with it).
//!
//! Nodes: the client rows (supply `w_i`), the open mirrors (demand `C_j`), a
//! dummy supplier of the spare capacity `Σ C_j − Σ w_i` (arcs to every
//! mirror at cost 0) and a root joined to every node by an artificial arc of
//! cost `M` (big-M start: the artificial arcs carry the supplies). Arcs
//! `i → j` cost `d(i,j)` and are uncapacitated; they are never stored, their
//! costs are read from the delay matrix.
//!
//! - pricing: block search (Grigoriadis), a source row at a time, blocks of
//!   `10·⌈√m⌉` arcs, the most negative reduced cost of the first block that
//!   has one enters. Measured against `√m` blocks: 3,000 regions × 40
//!   mirrors, 4,400 pivots instead of 14,000 (21 ms instead of 65 ms, on a
//!   loaded 2-core machine);
//!   10,000 × 200, 22,500 instead of 41,000 (0.55 s instead of 0.86 s);
//!   `30·√m` was slower again (bigger scans, no fewer pivots);
//! - leaving arc: the last blocking arc of the cycle from its apex
//!   (Cunningham's strongly feasible trees: no cycling);
//! - update: the cut subtree is re-hung on the entering arc, its potentials
//!   shifted by one constant (`O(subtree)`), through child lists.
//!
//! Time per pivot `O(√m + depth + subtree)`, `m = n·k` arcs; the number of
//! pivots is not polynomially bounded in theory and about `1.5–2.2·(n + k)`
//! on the instances above. Memory `O(n + k)` beyond the delay matrix. The dual prices
//! are recomputed from the optimal split by Bellman-Ford on the `k`-mirror
//! residual graph ([`split_prices`]), which also checks optimality
//! independently: a negative cycle there is an error, never a claim.

use crate::error::{Error, Result};
use crate::problems::cma::exact_flow::residual_distances;
use crate::problems::cma::exact_lp::Split;
use crate::problems::cma::model::CmaInstance;

/// The optimal split of every row's players over the mirrors with capacity
/// `cap` (0 = closed) and the dual prices proving it (`INFINITY` for a
/// closed mirror), or `None` when the players exceed `Σ cap`.
pub fn solve_transport(inst: &CmaInstance, cap: &[usize]) -> Result<Option<(Split, Vec<f64>)>> {
    let players = inst.total_players();
    let spare = cap
        .iter()
        .fold(0usize, |a, &c| a.saturating_add(c))
        .checked_sub(players);
    let Some(spare) = spare else {
        return Ok(None);
    };
    let mut s = Simplex::new(inst, cap, spare);
    s.run()?;
    let split = s.split()?;
    let prices = split_prices(inst, cap, &split)
        .map_err(|gain| Error::Solver(format!("network simplex ended {gain} above the optimum")))?;
    Ok(Some((split, prices)))
}

/// The primal network simplex state (see the module doc).
struct Simplex<'a> {
    inst: &'a CmaInstance,
    /// Open mirrors (node `n + a` is mirror `act[a]`).
    act: Vec<usize>,
    n: usize,
    parent: Vec<usize>,
    /// Arc joining a node to its parent.
    pred: Vec<usize>,
    /// Whether that arc points from the node up to its parent.
    up: Vec<bool>,
    flow: Vec<u64>,
    pi: Vec<f64>,
    depth: Vec<usize>,
    children: Vec<Vec<usize>>,
    child_pos: Vec<usize>,
    big_m: f64,
    eps: f64,
    /// The row the next pricing starts at.
    next_row: usize,
}

/// No node (the root's parent) and no arc (no entering arc found).
const NONE: usize = usize::MAX;

impl<'a> Simplex<'a> {
    fn new(inst: &'a CmaInstance, cap: &[usize], spare: usize) -> Self {
        let act: Vec<usize> = (0..cap.len()).filter(|&j| cap[j] > 0).collect();
        let n = inst.clients();
        let nodes = n + act.len() + 2;
        let root = nodes - 1;
        let big_m = 1.0 + inst.max_delay().max(1.0) * nodes as f64;
        let mut s = Simplex {
            inst,
            n,
            parent: vec![root; nodes],
            pred: vec![0; nodes],
            up: vec![true; nodes],
            flow: vec![0; nodes],
            pi: vec![0.0; nodes],
            depth: vec![1; nodes],
            children: vec![Vec::new(); nodes],
            child_pos: vec![0; nodes],
            big_m,
            eps: 1e-9 * inst.max_delay().max(1.0),
            next_row: 0,
            act,
        };
        s.parent[root] = NONE;
        s.depth[root] = 0;
        for v in 0..root {
            let supply: i128 = if v < n {
                inst.weight(v) as i128
            } else if v < n + s.act.len() {
                -(cap[s.act[v - n]] as i128)
            } else {
                spare as i128
            };
            s.pred[v] = s.artificial(v);
            s.up[v] = supply >= 0;
            s.flow[v] = supply.unsigned_abs() as u64;
            s.pi[v] = if supply >= 0 { -big_m } else { big_m };
            s.child_pos[v] = s.children[root].len();
            s.children[root].push(v);
        }
        s
    }

    fn nodes(&self) -> usize {
        self.parent.len()
    }
    fn ka(&self) -> usize {
        self.act.len()
    }
    /// Real arcs: `n·ka` row arcs then `ka` dummy arcs.
    fn real_arcs(&self) -> usize {
        self.n * self.ka() + self.ka()
    }
    fn artificial(&self, v: usize) -> usize {
        self.real_arcs() + v
    }

    /// `(tail, head, cost)` of a real or artificial arc.
    fn arc(&self, e: usize) -> (usize, usize, f64) {
        let (n, ka) = (self.n, self.ka());
        if e < n * ka {
            let (i, a) = (e / ka, e % ka);
            (i, n + a, self.inst.delay(i, self.act[a]))
        } else if e < self.real_arcs() {
            (n + ka, n + (e - n * ka), 0.0)
        } else {
            let v = e - self.real_arcs();
            let root = self.nodes() - 1;
            // an artificial arc keeps the direction it started with
            let (t, h) = if self.is_up_artificial(v) {
                (v, root)
            } else {
                (root, v)
            };
            (t, h, self.big_m)
        }
    }

    /// Direction of `v`'s artificial arc: up unless `v` is a mirror (demand).
    fn is_up_artificial(&self, v: usize) -> bool {
        !(v >= self.n && v < self.n + self.ka())
    }

    fn run(&mut self) -> Result<()> {
        while let Some(e) = self.find_entering() {
            self.pivot(e)?;
        }
        let art_flow =
            (0..self.nodes() - 1).any(|v| self.pred[v] >= self.real_arcs() && self.flow[v] > 0);
        if art_flow {
            return Err(Error::Solver(
                "network simplex: an artificial arc keeps flow (infeasible?)".into(),
            ));
        }
        Ok(())
    }

    /// Block search over the real arcs from where the last search stopped,
    /// a source row at a time (row `n` = the dummy's arcs): the reduced
    /// costs of a row are `d(i, act[a]) + π_i − π_{n+a}`, read straight off
    /// the delay row.
    fn find_entering(&mut self) -> Option<usize> {
        let (n, ka) = (self.n, self.ka());
        if ka == 0 {
            return None;
        }
        // ten times Grigoriadis's √m: fewer, better pivots (4,400 instead of
        // 14,000 at 3,000 × 40, each moving a smaller subtree; measured, see
        // the module doc)
        let block = ((self.real_arcs() as f64).sqrt() * 10.0).ceil() as usize;
        let block = block.max(ka);
        let (mut best, mut best_rc) = (NONE, -self.eps);
        let mut row = self.next_row;
        let mut scanned = 0usize;
        for _ in 0..=n {
            let base = if row < n {
                self.pi[row]
            } else {
                self.pi[n + ka]
            };
            let mirror_pi = &self.pi[n..n + ka];
            if row < n {
                let d = self.inst.row(row);
                for (a, (&j, &pj)) in self.act.iter().zip(mirror_pi).enumerate() {
                    let rc = d[j] + base - pj;
                    if rc < best_rc {
                        best_rc = rc;
                        best = row * ka + a;
                    }
                }
            } else {
                for (a, &pj) in mirror_pi.iter().enumerate() {
                    let rc = base - pj;
                    if rc < best_rc {
                        best_rc = rc;
                        best = n * ka + a;
                    }
                }
            }
            row = if row == n { 0 } else { row + 1 };
            scanned += ka;
            if scanned >= block && best != NONE {
                break;
            }
            if scanned >= block {
                scanned = 0;
            }
        }
        self.next_row = row;
        (best != NONE).then_some(best)
    }

    /// Pushes flow round the cycle of entering arc `e` and updates the tree.
    fn pivot(&mut self, e: usize) -> Result<()> {
        let (u, w, _) = self.arc(e);
        let (u_side, w_side) = self.cycle_sides(u, w);
        // w side is walked upward with the cycle (w → apex): an up arc gains.
        // u side is walked downward (apex → u): an up arc loses.
        let loses = |s: &Self, x: usize, upward: bool| s.up[x] != upward;
        let mut theta = u64::MAX;
        for &x in &w_side {
            if loses(self, x, true) {
                theta = theta.min(self.flow[x]);
            }
        }
        for &x in &u_side {
            if loses(self, x, false) {
                theta = theta.min(self.flow[x]);
            }
        }
        if theta == u64::MAX {
            return Err(Error::Solver("network simplex: unbounded cycle".into()));
        }
        // the last blocking arc from the apex: w side nearest the apex,
        // else u side nearest u.
        let leave_w = w_side
            .iter()
            .rev()
            .find(|&&x| loses(self, x, true) && self.flow[x] == theta)
            .copied();
        let leave = match leave_w {
            Some(x) => (x, w),
            None => {
                let x = u_side
                    .iter()
                    .find(|&&x| loses(self, x, false) && self.flow[x] == theta)
                    .copied()
                    .ok_or_else(|| Error::Solver("network simplex: no leaving arc".into()))?;
                (x, u)
            }
        };
        for &x in &w_side {
            self.push(x, theta, !loses(self, x, true));
        }
        for &x in &u_side {
            self.push(x, theta, !loses(self, x, false));
        }
        self.rehang(e, leave, theta);
        Ok(())
    }

    fn push(&mut self, x: usize, theta: u64, gains: bool) {
        if gains {
            self.flow[x] += theta;
        } else {
            self.flow[x] -= theta;
        }
    }

    /// The tree nodes (each standing for its arc to its parent) from `u`
    /// and from `w` up to, not including, their common ancestor.
    fn cycle_sides(&self, mut u: usize, mut w: usize) -> (Vec<usize>, Vec<usize>) {
        let (mut us, mut ws) = (Vec::new(), Vec::new());
        while u != w {
            if self.depth[u] >= self.depth[w] {
                us.push(u);
                u = self.parent[u];
            } else {
                ws.push(w);
                w = self.parent[w];
            }
        }
        (us, ws)
    }

    /// Removes the leaving arc (`q`'s arc to its parent, `q` on `inside`'s
    /// side of the cycle) and hangs `q`'s subtree from the entering arc `e`
    /// at `inside`, reversing the path `inside … q`.
    fn rehang(&mut self, e: usize, (q, inside): (usize, usize), theta: u64) {
        let (t, h, cost) = self.arc(e);
        let outside = if inside == t { h } else { t };
        let mut path = vec![inside];
        while *path.last().unwrap_or(&q) != q {
            let x = path[path.len() - 1];
            path.push(self.parent[x]);
        }
        let olds: Vec<(usize, bool, u64)> = path
            .iter()
            .map(|&x| (self.pred[x], self.up[x], self.flow[x]))
            .collect();
        for &x in &path {
            self.detach(x);
        }
        for idx in 1..path.len() {
            let (pred, up, flow) = olds[idx - 1];
            self.attach(path[idx], path[idx - 1], pred, !up, flow);
        }
        self.attach(inside, outside, e, inside == t, theta);
        let target = if inside == t {
            self.pi[outside] - cost
        } else {
            self.pi[outside] + cost
        };
        self.shift_subtree(inside, target - self.pi[inside]);
    }

    /// Unlinks `x` from its parent's children.
    fn detach(&mut self, x: usize) {
        let p = self.parent[x];
        if p == NONE {
            return;
        }
        let pos = self.child_pos[x];
        self.children[p].swap_remove(pos);
        if let Some(&moved) = self.children[p].get(pos) {
            self.child_pos[moved] = pos;
        }
        self.parent[x] = NONE;
    }

    fn attach(&mut self, x: usize, parent: usize, pred: usize, up: bool, flow: u64) {
        self.parent[x] = parent;
        self.pred[x] = pred;
        self.up[x] = up;
        self.flow[x] = flow;
        self.child_pos[x] = self.children[parent].len();
        self.children[parent].push(x);
    }

    /// Adds `delta` to the potentials of `top`'s subtree and refreshes its
    /// depths.
    fn shift_subtree(&mut self, top: usize, delta: f64) {
        let mut stack = vec![top];
        while let Some(x) = stack.pop() {
            self.pi[x] += delta;
            self.depth[x] = self.depth[self.parent[x]] + 1;
            stack.extend_from_slice(&self.children[x]);
        }
    }

    /// The flows on basic row arcs, per row `[mirror, players]`.
    fn split(&self) -> Result<Split> {
        let mut split: Split = vec![Vec::new(); self.n];
        let rows = self.n * self.ka();
        for v in 0..self.nodes() - 1 {
            let e = self.pred[v];
            if e < rows && self.flow[v] > 0 {
                let (i, a) = (e / self.ka(), e % self.ka());
                split[i].push([self.act[a], self.flow[v] as usize]);
            }
        }
        for (i, pairs) in split.iter_mut().enumerate() {
            pairs.sort_unstable();
            let sum: usize = pairs.iter().map(|p| p[1]).sum();
            if sum != self.inst.weight(i) {
                return Err(Error::Solver(format!(
                    "network simplex placed {sum} of row {i}'s {} players",
                    self.inst.weight(i)
                )));
            }
        }
        Ok(split)
    }
}

/// Dual prices of a split by Bellman-Ford on the residual graph of the
/// `k` mirrors plus a sink ([`residual_distances`]; moving a player of a
/// row `u → v` costs `d(i,v) − d(i,u)`): `p_j = max(0, π_t − π_j)`,
/// `INFINITY` for a closed mirror. `Err(gain)` when a negative cycle shows
/// the split is not optimal. `O(nk + k³)`.
pub fn split_prices(
    inst: &CmaInstance,
    cap: &[usize],
    split: &Split,
) -> std::result::Result<Vec<f64>, f64> {
    let k = inst.mirrors();
    let mut arcs = vec![f64::INFINITY; k * k];
    let mut load = vec![0usize; k];
    for (i, pairs) in split.iter().enumerate() {
        let row = inst.row(i);
        for &[u, c] in pairs {
            load[u] += c;
            for v in (0..k).filter(|&v| v != u && cap[v] > 0) {
                arcs[u * k + v] = arcs[u * k + v].min(row[v] - row[u]);
            }
        }
    }
    let dist = residual_distances(inst, cap, &arcs, &load)?;
    Ok((0..k)
        .map(|j| {
            if cap[j] > 0 {
                (dist[k] - dist[j]).max(0.0)
            } else {
                f64::INFINITY
            }
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::problems::cma::exact_flow::dual_bound;

    fn weighted(rows: &[Vec<f64>], cap: Vec<usize>, w: Vec<usize>) -> CmaInstance {
        CmaInstance::new_weighted("t", cap, rows.concat(), w).unwrap()
    }

    #[test]
    fn a_region_is_split_when_its_mirror_is_full() {
        // 5 players near mirror 0 (capacity 3), 2 near mirror 1.
        let inst = weighted(&[vec![1.0, 10.0], vec![8.0, 2.0]], vec![3, 5], vec![5, 2]);
        let (split, prices) = solve_transport(&inst, &inst.capacity).unwrap().unwrap();
        assert_eq!(split, vec![vec![[0, 3], [1, 2]], vec![[1, 2]]]);
        let total = 3.0 * 1.0 + 2.0 * 10.0 + 2.0 * 2.0;
        let bound = dual_bound(&inst, &[0, 1], &prices);
        assert!((bound - total).abs() < 1e-9, "{bound} vs {total}");
    }

    #[test]
    fn too_many_players_is_none_and_closed_mirrors_stay_empty() {
        let inst = weighted(&[vec![1.0, 10.0, 0.0]], vec![3, 5, 9], vec![6]);
        assert!(solve_transport(&inst, &[3, 0, 0]).unwrap().is_none());
        let (split, p) = solve_transport(&inst, &[3, 5, 0]).unwrap().unwrap();
        assert_eq!(split, vec![vec![[0, 3], [1, 3]]]);
        assert!(p[2].is_infinite());
    }
}
