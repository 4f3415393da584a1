//! The static CMA over shift classes ([`crate::problems::cma::row_classes`]):
//! a transportation problem with `D` class rows of `w_c` units each, solved
//! by successive shortest paths that move a class's units in bulk.
//!
//! 1. start: from 256 classes on, a sample is solved first: every 8th
//!    unit, counted class by class (a class of `w` units keeps about
//!    `w / 8`; small classes are kept or dropped whole), with capacities
//!    scaled by the sample's share of the units (rounded up), recursively.
//!    Its dual prices `p` start the whole, and each sampled class starts
//!    split as the sample split it (scaled to its units). Sampling units,
//!    not classes, matters: the BRITE instances have classes of tens of
//!    thousands of clients, which a price error of a few tenths of a
//!    millisecond would put whole on one mirror (sampling every 8th class
//!    instead: 1,500–1,700 augmentations at the top of 1,000,000 × 50
//!    instead of 50–70). Every other class is put whole on a mirror
//!    minimising `offset + p_j`. The sample's complementary slackness
//!    (a class it puts on `j` has `offset_j + p_j` least) makes
//!    `π_j = −p_j`, `π_t = 0` valid potentials; a mirror with a price
//!    counts as full (its arc to the sink is saturated), as in
//!    [`crate::problems::cma::exact_flow`];
//! 2. successive shortest paths on the `k` mirrors plus the sink `t`: arc
//!    `u → v` is the cheapest move of a class present on `u` (its offset
//!    at `v` minus its offset at `u`; cached per pair, a row recomputed from
//!    `u`'s classes when its cheapest class leaves), `j → t` below
//!    capacity, `t → j` with flow. Dijkstra on reduced costs (`O(k²)`,
//!    clipped at 0 against rounding) from every node with excess to the
//!    first node with a deficit; the path carries as many units as its
//!    bottleneck allows (the excess, the deficit, and each moving class's
//!    units on its mirror), so a search moves a class, not a unit;
//! 3. the dual prices `p_j = max(0, π_t − π_j)` (`INFINITY` for a closed
//!    mirror).
//!
//! Time `O(A·(k² + L·|u|·k))` for `A` augmentations, path length `L` and
//! `|u|` classes on a mirror, plus `O(Dk)` to place; memory `O(Dk)`.
//! Measured (`gen cma --scenario static --seed 1`, 1,000,000 × 50, 8,292
//! classes): 66 augmentations at the top, 126 / 660 / 300 / 214 at depths
//! 1–4; about 25 ms in all, most of it in the middle samples, whose classes
//! hold one or two units each.
//!
//! [`crate::problems::cma::class_rows`] applies it to an instance's rows.

use crate::error::{Error, Result};
use crate::problems::cma::moves::prices_of;

/// From this many classes on, the start comes from a sample.
const SAMPLE_FROM: usize = 256;
/// One unit in this many is sampled.
const SAMPLE_STRIDE: usize = 8;
/// Deepest sample.
const MAX_DEPTH: usize = 8;
const NONE: u32 = u32::MAX;

/// An optimal split of the classes and the dual prices proving it.
#[derive(Debug, Clone)]
pub struct ClassSplit {
    /// Per class, `(mirror, units)` by mirror.
    pub parts: Vec<Vec<(usize, usize)>>,
    /// Per mirror, its dual price (`INFINITY` when closed).
    pub prices: Vec<f64>,
}

/// Solves the classes (`offsets`: `k` per class; `weight`: units per class)
/// on mirrors with capacities `cap` (0 = closed). `Ok(None)` when the units
/// exceed `Σ cap`.
pub fn solve_classes(
    k: usize,
    offsets: &[f64],
    weight: &[usize],
    cap: &[usize],
) -> Result<Option<ClassSplit>> {
    solve_at_depth(k, offsets, weight, cap, 0)
}

fn solve_at_depth(
    k: usize,
    offsets: &[f64],
    weight: &[usize],
    cap: &[usize],
    depth: usize,
) -> Result<Option<ClassSplit>> {
    let units = weight.iter().fold(0usize, |a, &w| a.saturating_add(w));
    if units > cap.iter().fold(0usize, |a, &c| a.saturating_add(c)) {
        return Ok(None);
    }
    if units > 0 && cap.iter().all(|&c| c == 0) {
        return Err(Error::Solver("every mirror has capacity 0".into()));
    }
    let start = start(k, offsets, weight, cap, depth)?;
    let mut g = ClassGraph::new(k, offsets, cap);
    g.place(weight, &start);
    g.route(units)?;
    Ok(Some(ClassSplit {
        parts: g.parts(),
        prices: g.prices(),
    }))
}

/// Where the classes start: prices, and per class the split it starts
/// with (empty: whole on a mirror minimising `offset + p_j`).
struct Start {
    prices: Vec<f64>,
    split: Vec<Vec<(usize, usize)>>,
}

/// The start: from `SAMPLE_FROM` classes on, every `SAMPLE_STRIDE`-th unit
/// (counted class by class) is solved first, with capacities scaled by the
/// share of units (rounded up); its prices start the whole, and every
/// sampled class starts split as the sample split it (scaled to its units;
/// the sample's complementary slackness keeps the potentials valid). Else
/// prices 0; `INFINITY` for closed mirrors in either case.
fn start(
    k: usize,
    offsets: &[f64],
    weight: &[usize],
    cap: &[usize],
    depth: usize,
) -> Result<Start> {
    let closed = |j: usize, p: f64| if cap[j] == 0 { f64::INFINITY } else { p };
    let d = weight.len();
    let flat = || Start {
        prices: (0..k).map(|j| closed(j, 0.0)).collect(),
        split: vec![Vec::new(); d],
    };
    if d < SAMPLE_FROM || depth >= MAX_DEPTH {
        return Ok(flat());
    }
    let (mut before, mut sample, mut sub_weight) = (0usize, Vec::new(), Vec::new());
    for (c, &w) in weight.iter().enumerate() {
        let s = (before + w) / SAMPLE_STRIDE - before / SAMPLE_STRIDE;
        before += w;
        if s > 0 {
            sample.push(c);
            sub_weight.push(s);
        }
    }
    if sample.is_empty() {
        return Ok(flat());
    }
    let sub_offsets: Vec<f64> = sample
        .iter()
        .flat_map(|&c| offsets[c * k..(c + 1) * k].iter().copied())
        .collect();
    let ratio = sub_weight.iter().sum::<usize>() as f64 / before.max(1) as f64;
    let scaled: Vec<usize> = cap
        .iter()
        .map(|&c| ((c as f64 * ratio).ceil() as usize).min(c))
        .collect();
    let Some(sub) = solve_at_depth(k, &sub_offsets, &sub_weight, &scaled, depth + 1)? else {
        return Ok(flat());
    };
    let mut split = vec![Vec::new(); d];
    for ((&c, &s), parts) in sample.iter().zip(&sub_weight).zip(&sub.parts) {
        split[c] = scale_parts(parts, s, weight[c]);
    }
    Ok(Start {
        prices: (0..k)
            .map(|j| {
                let p = sub.prices[j];
                closed(j, if p.is_finite() { p.max(0.0) } else { 0.0 })
            })
            .collect(),
        split,
    })
}

/// A split of `s` units scaled to `w` units (rounded down, the rest to the
/// largest part).
fn scale_parts(parts: &[(usize, usize)], s: usize, w: usize) -> Vec<(usize, usize)> {
    let mut out: Vec<(usize, usize)> = parts
        .iter()
        .map(|&(m, u)| (m, (u as u128 * w as u128 / s.max(1) as u128) as usize))
        .collect();
    let given: usize = out.iter().map(|p| p.1).sum();
    if let Some(big) = (0..out.len()).max_by_key(|&i| (parts[i].1, usize::MAX - i)) {
        out[big].1 += w.saturating_sub(given);
    }
    out.retain(|p| p.1 > 0);
    out
}

/// A class's units on one mirror, and its place in the mirror's list.
#[derive(Debug, Clone, Copy)]
struct Part {
    mirror: u32,
    units: usize,
    pos: u32,
}

/// Classes on mirrors, the cheapest move per mirror pair, sink flows and
/// node potentials (index `k` is the sink).
struct ClassGraph<'a> {
    k: usize,
    offsets: &'a [f64],
    cap: &'a [usize],
    open: Vec<usize>,
    parts: Vec<Vec<Part>>,
    members: Vec<Vec<u32>>,
    /// Cheapest move `u → v` (`INFINITY`: none), exact unless `u` is dirty.
    arc: Vec<f64>,
    /// The class making that move.
    by: Vec<u32>,
    dirty: Vec<bool>,
    load: Vec<usize>,
    /// Flow on `j → t`.
    sink: Vec<usize>,
    pot: Vec<f64>,
}

/// One step of a path: `u → v`, moving `class` when both are mirrors.
type Step = (usize, usize, u32);

impl<'a> ClassGraph<'a> {
    fn new(k: usize, offsets: &'a [f64], cap: &'a [usize]) -> Self {
        ClassGraph {
            k,
            offsets,
            cap,
            open: (0..k).filter(|&j| cap[j] > 0).collect(),
            parts: vec![Vec::new(); offsets.len() / k.max(1)],
            members: vec![Vec::new(); k],
            arc: vec![f64::INFINITY; k * k],
            by: vec![NONE; k * k],
            dirty: vec![false; k],
            load: vec![0; k],
            sink: vec![0; k],
            pot: vec![0.0; k + 1],
        }
    }

    fn row(&self, c: usize) -> &'a [f64] {
        &self.offsets[c * self.k..(c + 1) * self.k]
    }

    /// Every class split as `start` splits it, or whole on an open mirror
    /// minimising `offset + p_j` (the lowest index on ties); potentials
    /// `−p`, and a priced mirror's sink arc saturated.
    fn place(&mut self, weight: &[usize], start: &Start) {
        let prices = &start.prices;
        for (c, &w) in weight.iter().enumerate() {
            if w == 0 {
                continue;
            }
            if !start.split[c].is_empty() {
                for &(m, u) in &start.split[c] {
                    self.add(c, m, u);
                }
                continue;
            }
            let row = self.row(c);
            let mut best = self.open[0];
            for &j in &self.open {
                if row[j] + prices[j] < row[best] + prices[best] {
                    best = j;
                }
            }
            self.add(c, best, w);
        }
        for &j in &self.open {
            self.pot[j] = -prices[j];
            let priced = prices[j] > 0.0;
            self.sink[j] = if priced {
                self.cap[j]
            } else {
                self.load[j].min(self.cap[j])
            };
        }
    }

    /// `units` more of class `c` on mirror `v`.
    fn add(&mut self, c: usize, v: usize, units: usize) {
        self.load[v] += units;
        if let Some(p) = self.parts[c].iter_mut().find(|p| p.mirror as usize == v) {
            p.units += units;
            return;
        }
        self.parts[c].push(Part {
            mirror: v as u32,
            units,
            pos: self.members[v].len() as u32,
        });
        self.members[v].push(c as u32);
        if !self.dirty[v] {
            let (k, row) = (self.k, self.row(c));
            for &w in &self.open {
                let m = row[w] - row[v];
                if w != v && m < self.arc[v * k + w] {
                    self.arc[v * k + w] = m;
                    self.by[v * k + w] = c as u32;
                }
            }
        }
    }

    /// `units` fewer of class `c` on mirror `u` (it has at least that many).
    fn remove(&mut self, c: usize, u: usize, units: usize) -> Result<()> {
        let at = self.parts[c]
            .iter()
            .position(|p| p.mirror as usize == u)
            .filter(|&a| self.parts[c][a].units >= units)
            .ok_or_else(|| Error::Solver(format!("class {c} has too few units on {u}")))?;
        self.load[u] -= units;
        self.parts[c][at].units -= units;
        if self.parts[c][at].units > 0 {
            return Ok(());
        }
        let pos = self.parts[c].swap_remove(at).pos as usize;
        self.members[u].swap_remove(pos);
        if let Some(&moved) = self.members[u].get(pos) {
            if let Some(p) = self.parts[moved as usize]
                .iter_mut()
                .find(|p| p.mirror as usize == u)
            {
                p.pos = pos as u32;
            }
        }
        let k = self.k;
        if self.by[u * k..(u + 1) * k].contains(&(c as u32)) {
            self.dirty[u] = true;
        }
        Ok(())
    }

    /// Recomputes the cheapest moves out of `u` from its classes.
    fn refresh(&mut self, u: usize) {
        let k = self.k;
        self.arc[u * k..(u + 1) * k].fill(f64::INFINITY);
        self.by[u * k..(u + 1) * k].fill(NONE);
        for &c in &self.members[u] {
            let row = &self.offsets[c as usize * k..(c as usize + 1) * k];
            for &w in &self.open {
                let m = row[w] - row[u];
                if w != u && m < self.arc[u * k + w] {
                    self.arc[u * k + w] = m;
                    self.by[u * k + w] = c;
                }
            }
        }
        self.dirty[u] = false;
    }

    /// Routes until every node is balanced (`units` = the classes' total).
    fn route(&mut self, units: usize) -> Result<()> {
        let k = self.k;
        loop {
            let mut e = vec![0i64; k + 1];
            for &j in &self.open {
                e[j] = self.load[j] as i64 - self.sink[j] as i64;
            }
            e[k] = self.sink.iter().map(|&s| s as i64).sum::<i64>() - units as i64;
            if e.iter().all(|&b| b <= 0) {
                return if e.iter().all(|&b| b == 0) {
                    Ok(())
                } else {
                    Err(Error::Solver("class flow left unbalanced".into()))
                };
            }
            let (dist, pred, target) = self.search(&e)?;
            for (p, &d) in self.pot.iter_mut().zip(&dist) {
                *p += d.min(dist[target]);
            }
            let path = self.path(&pred, target)?;
            self.augment(&path, &e)?;
        }
    }

    /// Dijkstra on reduced costs (clipped at 0) from every excess node to
    /// the first deficit node: distances, predecessors, the target.
    fn search(&mut self, e: &[i64]) -> Result<(Vec<f64>, Vec<u32>, usize)> {
        let k = self.k;
        let mut dist: Vec<f64> = e
            .iter()
            .map(|&b| if b > 0 { 0.0 } else { f64::INFINITY })
            .collect();
        let mut pred = vec![NONE; k + 1];
        let mut done = vec![false; k + 1];
        loop {
            let u = (0..=k)
                .filter(|&v| !done[v] && dist[v].is_finite())
                .min_by(|&a, &b| dist[a].total_cmp(&dist[b]))
                .ok_or_else(|| Error::Solver("no deficit is reachable from an excess".into()))?;
            done[u] = true;
            if e[u] < 0 {
                return Ok((dist, pred, u));
            }
            let du = dist[u];
            let mut relax = |v: usize, cost: f64, pot: &[f64]| {
                let d = du + (cost + pot[u] - pot[v]).max(0.0);
                if !done[v] && d < dist[v] {
                    dist[v] = d;
                    pred[v] = u as u32;
                }
            };
            if u == k {
                for &v in &self.open {
                    if self.sink[v] > 0 {
                        relax(v, 0.0, &self.pot);
                    }
                }
                continue;
            }
            if self.dirty[u] {
                self.refresh(u);
            }
            for &v in &self.open {
                let a = self.arc[u * k + v];
                if a.is_finite() {
                    relax(v, a, &self.pot);
                }
            }
            if self.sink[u] < self.cap[u] {
                relax(k, 0.0, &self.pot);
            }
        }
    }

    /// The steps from a source to `target`, with each move's class.
    fn path(&self, pred: &[u32], target: usize) -> Result<Vec<Step>> {
        let k = self.k;
        let mut steps = Vec::new();
        let mut v = target;
        while pred[v] != NONE {
            let u = pred[v] as usize;
            let class = if u < k && v < k {
                self.by[u * k + v]
            } else {
                NONE
            };
            if u < k && v < k && class == NONE {
                return Err(Error::Solver(format!("no move from {u} to {v}")));
            }
            steps.push((u, v, class));
            v = u;
            if steps.len() > k + 1 {
                return Err(Error::Solver("the shortest path has a cycle".into()));
            }
        }
        steps.reverse();
        Ok(steps)
    }

    /// Moves the path's bottleneck along it.
    fn augment(&mut self, steps: &[Step], e: &[i64]) -> Result<()> {
        let k = self.k;
        let (Some(first), Some(last)) = (steps.first(), steps.last()) else {
            return Err(Error::Solver("an empty path".into()));
        };
        let mut units = e[first.0].min(-e[last.1]);
        for &(u, v, c) in steps {
            let room = if u == k {
                self.sink[v] as i64
            } else if v == k {
                (self.cap[u] - self.sink[u]) as i64
            } else {
                self.units_on(c as usize, u) as i64
            };
            units = units.min(room);
        }
        if units <= 0 {
            return Err(Error::Solver("a path without room".into()));
        }
        let units = units as usize;
        for &(u, v, c) in steps {
            if u == k {
                self.sink[v] -= units;
            } else if v == k {
                self.sink[u] += units;
            } else {
                self.remove(c as usize, u, units)?;
                self.add(c as usize, v, units);
            }
        }
        Ok(())
    }

    fn units_on(&self, c: usize, u: usize) -> usize {
        self.parts[c]
            .iter()
            .find(|p| p.mirror as usize == u)
            .map_or(0, |p| p.units)
    }

    fn parts(&self) -> Vec<Vec<(usize, usize)>> {
        self.parts
            .iter()
            .map(|ps| {
                let mut v: Vec<(usize, usize)> =
                    ps.iter().map(|p| (p.mirror as usize, p.units)).collect();
                v.sort_unstable();
                v
            })
            .collect()
    }

    fn prices(&self) -> Vec<f64> {
        prices_of(&self.pot, self.cap)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scaled_parts_keep_the_units_and_give_the_rest_to_the_largest() {
        assert_eq!(scale_parts(&[(0, 1), (2, 2)], 3, 10), vec![(0, 3), (2, 7)]);
        assert_eq!(scale_parts(&[(4, 1), (5, 1)], 2, 1), vec![(4, 1)]);
    }

    #[test]
    fn a_full_mirror_sends_a_class_on_and_prices_prove_it() {
        // Class 0 (3 units) wants mirror 0 (capacity 2); class 1 (1 unit)
        // is indifferent.
        let offsets = [0.0, 5.0, 0.0, 0.0];
        let s = solve_classes(2, &offsets, &[3, 1], &[2, 2])
            .unwrap()
            .unwrap();
        assert_eq!(s.parts, vec![vec![(0, 2), (1, 1)], vec![(1, 1)]]);
        assert_eq!(s.prices, vec![5.0, 0.0]);
        assert!(solve_classes(2, &offsets, &[3, 2], &[2, 2])
            .unwrap()
            .is_none());
    }

    #[test]
    fn many_empty_classes_leave_the_sample_empty() {
        // 300 classes (enough to sample) holding 3 units in all: the
        // sample of every 8th unit is empty, and the start is flat.
        let offsets: Vec<f64> = (0..600).map(|x| f64::from(x % 7)).collect();
        let mut weight = vec![0; 300];
        weight[5] = 1;
        weight[100] = 2;
        let s = solve_classes(2, &offsets, &weight, &[1, 5])
            .unwrap()
            .unwrap();
        let units: usize = s.parts.iter().flatten().map(|p| p.1).sum();
        assert_eq!(units, 3);
        assert!(s.prices.iter().all(|p| p.is_finite()));
    }
}
