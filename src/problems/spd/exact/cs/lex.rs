//! CS stages 2 and 3 (least delay, then least variation, at the proven
//! host count `k*`), root by root.
//!
//! Both stages look for the least *key* over solutions with at most `k*`
//! hosts: the delay stage's key is the longest one-way path `T` (pairs
//! allowed: `p <= T`), the variation stage's is `−L` for the shortest
//! path `L` at the proven `T*` (pairs allowed: `L <= p <= T*`). A root
//! whose floor (delay: `max_c min_s p`, Algorithm Matching's longest path
//! for that root; variation: `−min_c max_{s, p <= T*} p`) is not below the
//! best key found is skipped. Each other root is tested just below the
//! best key, again and again while the test finds a cover (each cover
//! lowers the best key, or at least this root's bound): one failed test
//! per root ends it, and settles most roots at once (no improvement). The
//! variation stage gives each client its *longest* path within `T*` among
//! the hosts found, so a cover found jumps as far as its host set allows.
//! Refuting a key near the optimum is the expensive test (seconds at 200
//! servers × 2,000 clients), found covers are cheap: this upward order
//! needs one refutation per root where a bisection over the root's path
//! values needed one per halving near the optimum (measured in
//! `docs/spd-scale.md`).
//! Every test is a [`Goal::Any`] cover of the root's allowed pairs, so a
//! key found is a path value and the result is exact.
//!
//! Cost: `O(n·m)` per root for its floor, and per test for the next
//! candidate key; per root one cover test plus one per improvement it finds.

use super::{extremes, lock, Cover, Cs, Window};
use crate::core::StageTime;
use crate::lp::model_out::install;
use crate::problems::spd::exact::cover::Goal;
use crate::problems::spd::exact::{score, Deadline, LexResult, Scored};
use crate::problems::spd::model::SpdInstance;
use rayon::prelude::*;
use std::sync::Mutex;

/// Which stage runs.
#[derive(Debug, Clone, Copy)]
enum Kind {
    /// Least longest path.
    Delay,
    /// Largest shortest path with every path within `T*`.
    Variation(f64),
}

impl Kind {
    /// A solution's key (smaller is better).
    fn key(self, cs: &Cs, sc: &Scored) -> f64 {
        let (hi, lo) = extremes(cs, &sc.sol);
        match self {
            Kind::Delay => hi,
            Kind::Variation(_) => -lo,
        }
    }

    /// The pairs a test of `key` allows.
    fn window(self, key: f64) -> Window {
        match self {
            Kind::Delay => Window {
                lo: f64::NEG_INFINITY,
                hi: key,
            },
            Kind::Variation(t) => Window { lo: -key, hi: t },
        }
    }

    /// The key of a pair with path `p`, `None` when no test uses it.
    fn of(self, cs: &Cs, p: f64) -> Option<f64> {
        match self {
            Kind::Delay => cs.ok(p, Window::ALL).then_some(p),
            Kind::Variation(t) => (p <= t && cs.ok(p, Window::ALL)).then_some(-p),
        }
    }

    /// No solution with root `r` has a smaller key (`+∞`: none at all).
    fn floor(self, cs: &Cs, r: usize) -> f64 {
        let d = cs.to_root(r);
        let mut floor = f64::NEG_INFINITY;
        for c in 0..cs.m {
            let a = cs.inst.access_row(c);
            // the client's best key with this root
            let best = (0..cs.n)
                .filter_map(|s| self.of(cs, a[s] + d[s]))
                .fold(f64::INFINITY, f64::min);
            floor = floor.max(best);
        }
        floor
    }

    /// Root `r`'s largest key in `[from, below)`.
    fn largest(self, cs: &Cs, r: usize, from: f64, below: f64) -> Option<f64> {
        let d = &cs.to_root(r);
        (0..cs.m)
            .flat_map(|c| {
                let a = cs.inst.access_row(c);
                (0..cs.n).filter_map(move |s| self.of(cs, a[s] + d[s]))
            })
            .filter(|&k| k >= from && k < below)
            .max_by(f64::total_cmp)
    }
}

/// One stage over every root; returns the best solution and `None` when
/// its key is proven least, else why not.
fn stage(cs: &Cs, kind: Kind, best: Scored, dl: &Deadline) -> (Scored, Option<String>) {
    let k = best.metrics.hosts;
    let floors: Vec<(f64, usize)> = install(dl, || {
        (0..cs.n)
            .into_par_iter()
            .map(|r| (kind.floor(cs, r), r))
            .collect()
    });
    let mut roots: Vec<(f64, usize)> = floors.into_iter().filter(|f| f.0.is_finite()).collect();
    roots.sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    let search = RootSearch {
        cs,
        kind,
        k,
        best: Mutex::new(best),
        dl,
    };
    let why = Mutex::new(None::<String>);
    install(dl, || {
        roots.par_iter().for_each(|&(floor, r)| {
            if lock(&why).is_some() {
                return;
            }
            if let Err(w) = search.root(r, floor) {
                *lock(&why) = Some(w);
            }
        })
    });
    let best = search.best.into_inner().unwrap_or_else(|e| e.into_inner());
    (best, why.into_inner().unwrap_or_else(|e| e.into_inner()))
}

/// The shared state of one stage's per-root searches.
struct RootSearch<'a> {
    cs: &'a Cs<'a>,
    kind: Kind,
    k: usize,
    best: Mutex<Scored>,
    dl: &'a Deadline,
}

impl RootSearch<'_> {
    /// The best key found so far (over every root).
    fn upper(&self) -> f64 {
        self.kind.key(self.cs, &lock(&self.best))
    }

    /// Root `r`'s least key below the shared best, `floor` its floor:
    /// tests just below the best key until one fails. Each cover found
    /// lowers the bound below which the next test looks (its own key, or
    /// another root's better one), so the loop ends; the failed test proves
    /// that no key of this root is below the bound (keys are path values).
    fn root(&self, r: usize, floor: f64) -> Result<(), String> {
        let mut below = self.upper();
        while let Some(next) = self.kind.largest(self.cs, r, floor, below) {
            let Some(found) = self.test(r, next)? else {
                return Ok(());
            };
            below = found.min(next).min(self.upper());
        }
        Ok(())
    }

    /// Is there a cover of root `r` with at most `k*` hosts in the window
    /// of `key`? The key of the solution found (kept if better).
    fn test(&self, r: usize, key: f64) -> Result<Option<f64>, String> {
        let win = self.kind.window(key);
        match self.cs.cover(r, win, self.k, Goal::Any, self.dl) {
            Cover::Found(h) => {
                let Some(sc) = self
                    .cs
                    .assign(r, &h, win, matches!(self.kind, Kind::Variation(_)))
                    .and_then(|s| score(self.cs.inst, s))
                else {
                    return Err(format!("root {r}: a cover gave no feasible assignment"));
                };
                let found = self.kind.key(self.cs, &sc);
                let mut b = lock(&self.best);
                if sc.metrics.better_than(&b.metrics) {
                    *b = sc;
                }
                Ok(Some(found))
            }
            Cover::None => Ok(None),
            Cover::Unknown(..) => Err("the deadline was hit".into()),
            Cover::Error(e) => Err(format!("HiGHS failed: {e}")),
        }
    }
}

/// Stage 2 alone: the least delay with at most `best`'s host count; `None`
/// when proven, else why not.
pub(crate) fn min_delay(
    inst: &SpdInstance,
    best: Scored,
    dl: &Deadline,
) -> (Scored, Option<String>) {
    stage(&Cs::new(inst), Kind::Delay, best, dl)
}

/// Stages 2 and 3: least delay, then least variation, at `k*` hosts.
pub(crate) fn lexicographic(inst: &SpdInstance, best: Scored, dl: &Deadline) -> LexResult {
    let mut stages = Vec::new();
    let (cs, best, why) = StageTime::time(&mut stages, "delay", || {
        let cs = Cs::new(inst);
        let (best, why) = stage(&cs, Kind::Delay, best, dl);
        (cs, best, why)
    });
    let mut notes = Vec::new();
    if let Some(w) = why {
        notes.push(format!(
            "delay stage not proven ({w}); variation not minimised"
        ));
        return LexResult {
            best,
            notes,
            stages,
        };
    }
    let (best, why) = StageTime::time(&mut stages, "variation", || {
        let t_star = extremes(&cs, &best.sol).0;
        stage(&cs, Kind::Variation(t_star), best, dl)
    });
    if let Some(w) = why {
        notes.push(format!(
            "delay proven minimal; variation stage not proven ({w})"
        ));
    }
    LexResult {
        best,
        notes,
        stages,
    }
}
