//! `exact` for the CS model: one set cover per root (model and stages in
//! [`super`]'s docs), decided by [`cover`]'s reductions and branch and
//! bound, HiGHS only when the search exceeds [`NODE_BUDGET`] nodes.
//!
//! Paths `p(c,s,r) = a(c,s) + D(s,r)` are computed where needed (the
//! evaluator's sum), never tabled: a root's rows cost `O(n·m)`.

use super::cover::{self, bits_of, Bits, Budget, CoverAnswer, Goal, MilpStage, Reduced};
use crate::core::within_bound;
use crate::lp::model_out::{install, Stage};
use crate::problems::spd::exact::{keep_better, score, Deadline, HostStage, Scored};
use crate::problems::spd::model::{SpdInstance, SpdSolution};
use rayon::prelude::*;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

mod lex;
mod reference;
pub(crate) use lex::{lexicographic, min_delay};
pub(crate) use reference::write_reference;

/// Search nodes one cover test may take before the reduced cover goes to
/// HiGHS instead.
pub const NODE_BUDGET: u64 = 200_000;

/// One set-cover answer for a root (host sets include the root, first).
enum Cover {
    /// A host set within the cap (the least for [`Goal::Least`]).
    Found(Vec<usize>),
    /// Proven: no cover within the cap (or a client nobody covers).
    None,
    /// Deadline hit: a proven lower bound on the host count with this
    /// root, and a host set within the cap if one was met.
    Unknown(usize, Option<Vec<usize>>),
    /// HiGHS failed.
    Error(String),
}

/// Which pairs a test allows: `lo <= p(c,s,r) <= hi`, and `2p` within μ.
#[derive(Debug, Clone, Copy)]
struct Window {
    lo: f64,
    hi: f64,
}

impl Window {
    /// Every pair within μ.
    const ALL: Window = Window {
        lo: f64::NEG_INFINITY,
        hi: f64::INFINITY,
    };
}

/// The instance and the μ test, shared by the stages.
struct Cs<'a> {
    inst: &'a SpdInstance,
    n: usize,
    m: usize,
}

impl<'a> Cs<'a> {
    fn new(inst: &'a SpdInstance) -> Self {
        Cs {
            inst,
            n: inst.servers(),
            m: inst.clients(),
        }
    }

    #[inline]
    fn path(&self, c: usize, s: usize, r: usize) -> f64 {
        self.inst.cs_path(c, s, r)
    }

    /// Does `s` cover `c` for root `r` within μ?
    fn fits(&self, c: usize, s: usize, r: usize) -> bool {
        within_bound(2.0 * self.path(c, s, r), self.inst.bound)
    }

    /// Is the pair `(c, s)` usable with root `r` in `win`?
    #[inline]
    fn ok(&self, p: f64, win: Window) -> bool {
        p >= win.lo && p <= win.hi && within_bound(2.0 * p, self.inst.bound)
    }

    /// `D(s, r)` for every server `s`.
    fn to_root(&self, r: usize) -> Vec<f64> {
        (0..self.n).map(|s| self.inst.network.dist(s, r)).collect()
    }

    /// Each client to the host with the least path in `win` (the largest
    /// with `longest`: the variation stage's choice, raising the shortest
    /// path); ties to the lower index; `None` if some client has none.
    fn assign(&self, r: usize, hosts: &[usize], win: Window, longest: bool) -> Option<SpdSolution> {
        let mut sorted = hosts.to_vec();
        sorted.sort_unstable();
        let mut assign = Vec::with_capacity(self.m);
        for c in 0..self.m {
            let paths = sorted
                .iter()
                .map(|&s| (self.path(c, s, r), s))
                .filter(|&(p, _)| self.ok(p, win));
            let s = if longest {
                // the first of equal maxima: the lower index
                paths.fold(None, |b: Option<(f64, usize)>, x| match b {
                    Some(b) if b.0 >= x.0 => Some(b),
                    _ => Some(x),
                })
            } else {
                paths.min_by(|a, b| a.0.total_cmp(&b.0))
            }?;
            assign.push(s.1);
        }
        Some(SpdSolution {
            root: Some(r),
            assign,
        })
    }

    /// The rows of root `r`'s cover in `win`: per client `r` does not
    /// serve, the bitset of the other servers that may; `None` when a
    /// client has no server at all.
    fn rows(&self, r: usize, win: Window) -> Option<Vec<Bits>> {
        let d = self.to_root(r);
        let mut rows = Vec::new();
        for c in 0..self.m {
            let a = self.inst.access_row(c);
            if self.ok(a[r] + d[r], win) {
                continue;
            }
            let row = bits_of(
                self.n,
                (0..self.n).filter(|&s| s != r && self.ok(a[s] + d[s], win)),
            );
            if row.iter().all(|&w| w == 0) {
                return None;
            }
            rows.push(row);
        }
        Some(rows)
    }

    /// Root `r`'s cover in `win` with at most `cap` hosts (root included):
    /// the least for [`Goal::Least`], any for [`Goal::Any`].
    fn cover(&self, r: usize, win: Window, cap: usize, goal: Goal, dl: &Deadline) -> Cover {
        let Some(rows) = self.rows(r, win) else {
            return Cover::None;
        };
        if rows.is_empty() {
            return if cap >= 1 {
                Cover::Found(vec![r])
            } else {
                Cover::None
            };
        }
        let Some(red) = cover::reduce(self.n, &rows) else {
            return Cover::None;
        };
        self.search(r, &red, cap, goal, dl)
    }

    /// The search on a reduced cover of root `r`, HiGHS past the budget.
    fn search(&self, r: usize, red: &Reduced, cap: usize, goal: Goal, dl: &Deadline) -> Cover {
        let Some(cols) = cap.checked_sub(1) else {
            return Cover::None;
        };
        let budget = Budget {
            deadline: dl,
            nodes: Some(NODE_BUDGET),
        };
        let mut answer = cover::search_reduced(red, cols, goal, budget);
        if matches!(answer, CoverAnswer::Unknown { .. }) && !dl.expired() {
            answer = self.milp(r, red, cols, goal, dl);
        }
        let with_root = |h: Vec<usize>| std::iter::once(r).chain(h).collect();
        match answer {
            CoverAnswer::Found(h) => Cover::Found(with_root(h)),
            CoverAnswer::None => Cover::None,
            CoverAnswer::Unknown { lb, cover } => Cover::Unknown(lb + 1, cover.map(with_root)),
            CoverAnswer::Error(e) => Cover::Error(e),
        }
    }

    /// The reduced cover on HiGHS (forced columns added back).
    fn milp(&self, r: usize, red: &Reduced, cols: usize, goal: Goal, dl: &Deadline) -> CoverAnswer {
        let Some(room) = cols.checked_sub(red.forced.len()) else {
            return CoverAnswer::None;
        };
        let stage = match goal {
            Goal::Least => Stage::new(format!("hosts-root{r}"), "host count with this root"),
            Goal::Any => Stage::new(
                format!("test-root{r}-k{}", cols + 1),
                "host count (a feasibility test)",
            ),
        };
        // the root and the forced columns are hosts too
        let offset = 1.0 + red.forced.len() as f64;
        let named = MilpStage { stage, offset };
        let back = |h: Vec<usize>| -> Vec<usize> {
            let mut all: Vec<usize> = h.iter().map(|&p| red.cols[p]).collect();
            all.extend_from_slice(&red.forced);
            all.sort_unstable();
            all
        };
        match cover::min_cover_milp(red.cols.len(), &red.rows, room, goal, (dl, named)) {
            CoverAnswer::Found(h) => CoverAnswer::Found(back(h)),
            CoverAnswer::Unknown { lb, cover } => CoverAnswer::Unknown {
                lb: lb + red.forced.len(),
                cover: cover.map(back),
            },
            other => other,
        }
    }

    /// A greedy cover of root `r` (root first) within μ, for the order in
    /// which the roots are searched and an early incumbent.
    fn greedy(&self, r: usize) -> Option<Vec<usize>> {
        let rows = self.rows(r, Window::ALL)?;
        let red = cover::reduce(self.n, &rows)?;
        let mut h = cover::greedy(&red);
        h.insert(0, r);
        Some(h)
    }
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
        cs: &cs,
        best: AtomicUsize::new(incumbent.as_ref().map_or(usize::MAX, |s| s.metrics.hosts)),
        best_sol: Mutex::new(incumbent),
        failure: Mutex::new(None),
    };
    let mut order: Vec<(usize, usize)> = install(dl, || {
        (0..cs.n)
            .into_par_iter()
            .filter_map(|r| cs.greedy(r).map(|h| (roots.offer(r, &h, Window::ALL), r)))
            .collect()
    });
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
    cs: &'a Cs<'a>,
    best: AtomicUsize,
    best_sol: Mutex<Option<Scored>>,
    failure: Mutex<Option<String>>,
}

impl Roots<'_> {
    /// Scores host set `h` of root `r` and keeps it if better; returns its
    /// host count (`usize::MAX` when it is no solution).
    fn offer(&self, r: usize, h: &[usize], win: Window) -> usize {
        let sc = self
            .cs
            .assign(r, h, win, false)
            .and_then(|sol| score(self.cs.inst, sol));
        let k = sc.as_ref().map_or(usize::MAX, |s| s.metrics.hosts);
        self.best.fetch_min(k, Ordering::SeqCst);
        keep_better(&mut lock(&self.best_sol), sc);
        k
    }

    /// Root `r`'s least cover below the best so far; returns a proven lower
    /// bound on the host count with root `r`.
    fn try_root(&self, r: usize, known_lb: usize, dl: &Deadline) -> usize {
        let cap = self.best.load(Ordering::SeqCst).saturating_sub(1);
        if cap < known_lb {
            return cap + 1;
        }
        match self.cs.cover(r, Window::ALL, cap, Goal::Least, dl) {
            Cover::Found(h) => {
                self.offer(r, &h, Window::ALL);
                h.len()
            }
            Cover::None => cap + 1,
            Cover::Unknown(lb, h) => {
                if let Some(h) = h {
                    self.offer(r, &h, Window::ALL);
                }
                lb.min(cap + 1)
            }
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
