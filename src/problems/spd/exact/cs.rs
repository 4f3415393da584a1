//! `exact` for the CS model: one set cover per root (model and stages in
//! [`super`]'s docs).

use crate::core::{within_bound, Status};
use crate::lp::highs::MipSettings;
use crate::lp::highs::{minimise, Col, MipBuilder};
use crate::lp::model_out::{install, Stage};
use crate::problems::spd::exact::{
    keep_better, score, Deadline, HostStage, KeySearch, LexResult, Probe, Scored,
};
use crate::problems::spd::model::{SpdInstance, SpdSolution};
use good_lp::{constraint, variable, Expression};
use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;

/// One set-cover answer for a root.
enum Cover {
    /// A host set (the root first) of size within the cap.
    Found(Vec<usize>),
    /// Proven: no cover within the cap (or a client nobody covers).
    None,
    /// Deadline hit: a proven lower bound on the cover size (root included).
    Unknown(usize),
    /// HiGHS failed.
    Error(String),
}

/// Path table `p(c,s,r) = a(c,s) + D(s,r)` (the evaluator's sum).
mod reference;
pub(crate) use reference::write_reference;

struct Cs<'a> {
    inst: &'a SpdInstance,
    n: usize,
    m: usize,
    p: Vec<f64>,
}

impl<'a> Cs<'a> {
    fn new(inst: &'a SpdInstance) -> Self {
        let (n, m) = (inst.servers(), inst.clients());
        let mut p = Vec::with_capacity(n * n * m);
        for r in 0..n {
            for s in 0..n {
                p.extend((0..m).map(|c| inst.cs_path(c, s, r)));
            }
        }
        Cs { inst, n, m, p }
    }

    #[inline]
    fn path(&self, c: usize, s: usize, r: usize) -> f64 {
        self.p[(r * self.n + s) * self.m + c]
    }

    /// Does `s` cover `c` for root `r` within μ?
    fn fits(&self, c: usize, s: usize, r: usize) -> bool {
        within_bound(2.0 * self.path(c, s, r), self.inst.bound)
    }

    /// Each client to the host with the least path among those `ok` allows
    /// (ties to the lower index); `None` if some client has none.
    fn assign(
        &self,
        r: usize,
        hosts: &[usize],
        ok: &dyn Fn(usize, usize) -> bool,
    ) -> Option<SpdSolution> {
        let mut sorted = hosts.to_vec();
        sorted.sort_unstable();
        let mut assign = Vec::with_capacity(self.m);
        for c in 0..self.m {
            let s = sorted
                .iter()
                .copied()
                .filter(|&s| ok(c, s))
                .min_by(|&a, &b| self.path(c, a, r).total_cmp(&self.path(c, b, r)))?;
            assign.push(s);
        }
        Some(SpdSolution {
            root: Some(r),
            assign,
        })
    }

    /// The rows (clients `r` does not cover) and their covering servers.
    fn rows(&self, r: usize, ok: &dyn Fn(usize, usize) -> bool) -> Option<Vec<Vec<usize>>> {
        let mut rows = Vec::new();
        for c in (0..self.m).filter(|&c| !ok(c, r)) {
            let row: Vec<usize> = (0..self.n).filter(|&s| s != r && ok(c, s)).collect();
            if row.is_empty() {
                return None;
            }
            rows.push(row);
        }
        Some(rows)
    }

    /// Least cover with root `r` of size `<= cap` (root included), using
    /// pairs `ok(c, s)`. With `minimise` false any cover within the cap does.
    fn cover(
        &self,
        r: usize,
        ok: &dyn Fn(usize, usize) -> bool,
        cap: usize,
        minimise: bool,
        dl: &Deadline,
    ) -> Cover {
        let Some(rows) = self.rows(r, ok) else {
            return Cover::None;
        };
        if rows.is_empty() {
            return if cap >= 1 {
                Cover::Found(vec![r])
            } else {
                Cover::None
            };
        }
        if cap < 2 {
            return Cover::None;
        }
        let greedy = greedy_cover(self.n, &rows);
        if greedy.len() < cap && (!minimise || greedy.len() == 1) {
            return Cover::Found(std::iter::once(r).chain(greedy).collect());
        }
        if dl.expired() {
            return Cover::Unknown(2);
        }
        self.cover_milp(r, &rows, &greedy, (cap, minimise), dl)
    }

    fn cover_milp(
        &self,
        r: usize,
        rows: &[Vec<usize>],
        greedy: &[usize],
        (cap, minimise_hosts): (usize, bool),
        dl: &Deadline,
    ) -> Cover {
        let mut b = MipBuilder::for_run(dl);
        let mut col: Vec<Option<Col>> = vec![None; self.n];
        for &s in rows.iter().flatten() {
            if col[s].is_none() {
                col[s] = Some(b.add_as(variable().binary(), || format!("y[server {s}]")));
            }
        }
        let cols: Vec<(usize, Col)> = (0..self.n).filter_map(|s| col[s].map(|c| (s, c))).collect();
        let total: Expression = cols.iter().map(|(_, c)| c.var).sum();
        let mut cons = vec![constraint!(total.clone() <= (cap - 1) as f64).set_name("cap".into())];
        for (i, row) in rows.iter().enumerate() {
            let e: Expression = row.iter().filter_map(|&s| col[s].map(|c| c.var)).sum();
            cons.push(b.row(constraint!(e >= 1.0), || format!("cover_{i}")));
        }
        let start = (greedy.len() < cap).then(|| {
            let mut v = vec![0.0; cols.len()];
            for &s in greedy {
                if let Some(c) = col[s] {
                    v[c.idx] = 1.0;
                }
            }
            v
        });
        // the root is a host too: host count = Σ y + 1 (HiGHS drops the
        // constant; the sidecar keeps it as the offset)
        let stage = match minimise_hosts {
            true => Stage::new(format!("hosts-root{r}"), "host count with this root"),
            false => Stage::new(
                format!("test-root{r}-k{cap}"),
                "host count (a feasibility test)",
            ),
        };
        let res = minimise(
            b,
            total + 1.0,
            cons,
            start.as_deref(),
            &MipSettings::within(dl, 0.999).stage(stage),
        );
        match res.status {
            Status::Optimal => match &res.values {
                Some(v) => Cover::Found(
                    std::iter::once(r)
                        .chain(cols.iter().filter(|(_, c)| v[c.idx] > 0.5).map(|(s, _)| *s))
                        .collect(),
                ),
                None => Cover::Error("HiGHS reported optimal without a solution".into()),
            },
            Status::Infeasible => Cover::None,
            Status::TimeLimit => {
                let lb = res.bound.map_or(1.0, |b| (b - 1e-6).ceil().max(1.0));
                Cover::Unknown(1 + lb as usize)
            }
            _ => Cover::Error(
                res.message
                    .unwrap_or_else(|| "unknown HiGHS failure".into()),
            ),
        }
    }
}

/// Greedy set cover over `rows` (servers chosen, ascending by choice order):
/// repeatedly the server covering the most uncovered rows, ties to the lower
/// index. `O(n · rows · k)`.
fn greedy_cover(n: usize, rows: &[Vec<usize>]) -> Vec<usize> {
    let mut covered = vec![false; rows.len()];
    let mut chosen = Vec::new();
    let mut left = rows.len();
    while left > 0 {
        let mut count = vec![0usize; n];
        for (i, row) in rows.iter().enumerate() {
            if !covered[i] {
                row.iter().for_each(|&s| count[s] += 1);
            }
        }
        let s = (0..n).fold(0, |b, s| if count[s] > count[b] { s } else { b });
        if count[s] == 0 {
            break;
        }
        chosen.push(s);
        for (i, row) in rows.iter().enumerate() {
            if !covered[i] && row.contains(&s) {
                covered[i] = true;
                left -= 1;
            }
        }
    }
    chosen
}

/// Stage 1: the proven least host count over all roots, knowing that no
/// solution has fewer than `known_lb` hosts (1 when nothing is known):
/// roots stop trying once the best reaches it.
pub(crate) fn min_hosts(
    inst: &SpdInstance,
    incumbent: Option<Scored>,
    known_lb: usize,
    dl: &Deadline,
) -> HostStage {
    write_reference(inst, dl);
    if !within_bound(inst.gamma, inst.bound) {
        return HostStage::Infeasible(format!(
            "Γ = {} > μ = {}: no CS solution meets the bound",
            inst.gamma, inst.bound
        ));
    }
    let cs = Cs::new(inst);
    let roots = Roots {
        inst,
        cs: &cs,
        best: AtomicUsize::new(incumbent.as_ref().map_or(usize::MAX, |s| s.metrics.hosts)),
        best_sol: Mutex::new(incumbent),
        failure: Mutex::new(None),
    };
    let mut order: Vec<(usize, usize)> = (0..cs.n)
        .filter_map(|r| {
            cs.rows(r, &|c, s| cs.fits(c, s, r))
                .map(|rows| (greedy_cover(cs.n, &rows).len(), r))
        })
        .collect();
    order.sort_unstable();
    let lbs: Vec<usize> = install(dl, || {
        order
            .par_iter()
            .map(|&(_, r)| roots.try_root(r, known_lb, dl))
            .collect()
    });
    roots.stage(lbs.into_iter().min().unwrap_or(usize::MAX))
}

/// The roots' shared state in stage 1: the best cover size and solution
/// so far, and a backend failure.
struct Roots<'a> {
    inst: &'a SpdInstance,
    cs: &'a Cs<'a>,
    best: AtomicUsize,
    best_sol: Mutex<Option<Scored>>,
    failure: Mutex<Option<String>>,
}

impl Roots<'_> {
    /// Root `r`'s least cover below the best so far; returns a proven lower
    /// bound on the host count with root `r`.
    fn try_root(&self, r: usize, known_lb: usize, dl: &Deadline) -> usize {
        let ok = |c: usize, s: usize| self.cs.fits(c, s, r);
        let cap = self.best.load(Ordering::SeqCst).saturating_sub(1);
        if cap < known_lb {
            return cap + 1;
        }
        match self.cs.cover(r, &ok, cap, true, dl) {
            Cover::Found(h) => {
                let sc = self
                    .cs
                    .assign(r, &h, &ok)
                    .and_then(|sol| score(self.inst, sol));
                if let Some(k) = sc.as_ref().map(|s| s.metrics.hosts) {
                    self.best.fetch_min(k, Ordering::SeqCst);
                }
                keep_better(&mut lock(&self.best_sol), sc);
                h.len()
            }
            Cover::None => cap + 1,
            Cover::Unknown(lb) => lb.min(cap + 1),
            Cover::Error(e) => {
                *lock(&self.failure) = Some(e);
                1
            }
        }
    }

    /// How stage 1 ended, given the least of the roots' lower bounds.
    fn stage(self, lb: usize) -> HostStage {
        let best_sol = self
            .best_sol
            .into_inner()
            .unwrap_or_else(|e| e.into_inner());
        if let Some(e) = self.failure.into_inner().unwrap_or_else(|e| e.into_inner()) {
            return HostStage::Failed(e, best_sol);
        }
        match best_sol {
            Some(sc) if lb >= sc.metrics.hosts => HostStage::Proven(sc),
            Some(sc) => HostStage::Unproven(Some(sc), lb),
            // A root stopped by the deadline may still have a cover: not a
            // proof of infeasibility.
            None if lb < usize::MAX => HostStage::Unproven(None, lb),
            None => HostStage::Infeasible("no root has a cover within μ".into()),
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Longest and shortest one-way path of a CS solution (search positions only;
/// the reported metrics come from the evaluator).
fn extremes(cs: &Cs, sol: &SpdSolution) -> (f64, f64) {
    let r = sol.root.unwrap_or(0);
    sol.assign
        .iter()
        .enumerate()
        .map(|(c, &s)| cs.path(c, s, r))
        .fold((f64::NEG_INFINITY, f64::INFINITY), |(hi, lo), p| {
            (hi.max(p), lo.min(p))
        })
}

/// One parallel test over every root: a cover of size `<= k` using pairs
/// with `lo <= p <= hi` (and within μ).
fn probe(cs: &Cs, k: usize, lo: f64, hi: f64, dl: &Deadline) -> Probe {
    let found = AtomicBool::new(false);
    let results: Vec<Result<Option<Scored>, String>> = install(dl, || {
        (0..cs.n)
            .into_par_iter()
            .map(|r| {
                if found.load(Ordering::SeqCst) {
                    return Ok(None);
                }
                let ok = |c: usize, s: usize| {
                    let p = cs.path(c, s, r);
                    p <= hi && p >= lo && cs.fits(c, s, r)
                };
                match cs.cover(r, &ok, k, false, dl) {
                    Cover::Found(h) => {
                        let sc = cs.assign(r, &h, &ok).and_then(|sol| score(cs.inst, sol));
                        if sc.is_some() {
                            found.store(true, Ordering::SeqCst);
                        }
                        Ok(sc)
                    }
                    Cover::None => Ok(None),
                    Cover::Unknown(_) => Err("the deadline was hit".into()),
                    Cover::Error(e) => Err(format!("HiGHS failed: {e}")),
                }
            })
            .collect()
    });
    let mut why = None;
    for r in results {
        match r {
            Ok(Some(sc)) => return Probe::Feasible(sc),
            Ok(None) => {}
            Err(e) => why = Some(e),
        }
    }
    why.map_or(Probe::Infeasible, Probe::Unknown)
}

/// The distinct one-way path values within μ, ascending.
fn path_values(cs: &Cs) -> Vec<f64> {
    let mut values: Vec<f64> =
        cs.p.iter()
            .copied()
            .filter(|&p| within_bound(2.0 * p, cs.inst.bound))
            .collect();
    values.sort_unstable_by(f64::total_cmp);
    values.dedup();
    values
}

/// Stage 2 alone: the least delay with at most `best`'s host count; `None`
/// when proven, else why not.
pub(crate) fn min_delay(
    inst: &SpdInstance,
    best: Scored,
    dl: &Deadline,
) -> (Scored, Option<String>) {
    delay_stage(&Cs::new(inst), best, dl)
}

/// The least longest path root `r` allows with any number of hosts (each
/// client on its best server within μ): no cover for `r` does better.
fn root_floor(cs: &Cs, r: usize) -> f64 {
    (0..cs.m)
        .map(|c| {
            (0..cs.n)
                .filter(|&s| cs.fits(c, s, r))
                .map(|s| cs.path(c, s, r))
                .fold(f64::INFINITY, f64::min)
        })
        .fold(f64::NEG_INFINITY, f64::max)
}

/// Root `r`'s distinct path values in `[floor, below)` within μ, ascending.
fn root_values(cs: &Cs, r: usize, floor: f64, below: f64) -> Vec<f64> {
    let block = &cs.p[r * cs.n * cs.m..(r + 1) * cs.n * cs.m];
    let mut v: Vec<f64> = block
        .iter()
        .copied()
        .filter(|&p| p >= floor && p < below && within_bound(2.0 * p, cs.inst.bound))
        .collect();
    v.sort_unstable_by(f64::total_cmp);
    v.dedup();
    v
}

/// Stage 2 by root: roots in order of their floor; a root whose floor is not
/// below the best longest path is skipped, the others are tested just below
/// it (one cover test settles most) and bisected over their own path values
/// when they improve it. `O(n)` floors plus, per improving root,
/// `O(log V_r)` cover tests.
fn delay_stage(cs: &Cs, best: Scored, dl: &Deadline) -> (Scored, Option<String>) {
    let k = best.metrics.hosts;
    let mut roots: Vec<(f64, usize)> = (0..cs.n).map(|r| (root_floor(cs, r), r)).collect();
    roots.retain(|(f, _)| f.is_finite());
    roots.sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    let best = Mutex::new(best);
    let why = Mutex::new(None::<String>);
    install(dl, || {
        roots.par_iter().for_each(|&(floor, r)| {
            if lock(&why).is_some() {
                return;
            }
            if let Err(w) = bisect_root(cs, r, floor, k, &best, dl) {
                *lock(&why) = Some(w);
            }
        })
    });
    let best = best.into_inner().unwrap_or_else(|e| e.into_inner());
    (best, why.into_inner().unwrap_or_else(|e| e.into_inner()))
}

/// Bisection over root `r`'s path values below the shared best's longest
/// path; improvements go into `best`.
fn bisect_root(
    cs: &Cs,
    r: usize,
    floor: f64,
    k: usize,
    best: &Mutex<Scored>,
    dl: &Deadline,
) -> Result<(), String> {
    let upper = |b: &Mutex<Scored>| extremes(cs, &lock(b).sol).0;
    if floor >= upper(best) {
        return Ok(());
    }
    let vals = root_values(cs, r, floor, upper(best));
    let (mut lo, mut hi) = (0, vals.len());
    let mut first = true;
    while lo < hi {
        // the incumbent is often optimal: try just below it first
        let mid = if first { hi - 1 } else { lo + (hi - lo) / 2 };
        first = false;
        let t = vals[mid];
        let ok = |c: usize, s: usize| cs.path(c, s, r) <= t && cs.fits(c, s, r);
        match cs.cover(r, &ok, k, false, dl) {
            Cover::Found(h) => {
                let sc = cs.assign(r, &h, &ok).and_then(|sol| score(cs.inst, sol));
                let found = sc.as_ref().map_or(t, |s| extremes(cs, &s.sol).0);
                if let Some(sc) = sc {
                    let mut b = lock(best);
                    if sc.metrics.better_than(&b.metrics) {
                        *b = sc;
                    }
                }
                hi = vals.partition_point(|&v| v < found).min(mid);
            }
            Cover::None => lo = mid + 1,
            Cover::Unknown(_) => return Err("the deadline was hit".into()),
            Cover::Error(e) => return Err(format!("HiGHS failed: {e}")),
        }
        // another root may have improved the best meanwhile
        hi = hi.min(vals.partition_point(|&v| v < upper(best)));
    }
    Ok(())
}

/// Stages 2 and 3: least delay, then least variation, at `k*` hosts.
pub(crate) fn lexicographic(inst: &SpdInstance, best: Scored, dl: &Deadline) -> LexResult {
    let cs = Cs::new(inst);
    let k = best.metrics.hosts;
    let values = path_values(&cs);
    let mut notes = Vec::new();
    let (best, why) = delay_stage(&cs, best, dl);
    if let Some(w) = why {
        notes.push(format!(
            "delay stage not proven ({w}); variation not minimised"
        ));
        return LexResult { best, notes };
    }
    let t_star = extremes(&cs, &best.sol).0;
    let keys: Vec<f64> = values
        .iter()
        .rev()
        .filter(|&&v| v <= t_star)
        .map(|&v| -v)
        .collect();
    let search = KeySearch {
        keys: &keys,
        dir: -1.0,
    };
    let (best, why) = search.run(
        0,
        best,
        |s| extremes(&cs, &s.sol).1,
        |l| probe(&cs, k, l, t_star, dl),
    );
    if let Some(w) = why {
        notes.push(format!(
            "delay proven minimal; variation stage not proven ({w})"
        ));
    }
    LexResult { best, notes }
}
