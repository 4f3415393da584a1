//! Branch and bound on a pair-delay threshold ([`super`], the lexicographic
//! stages): one search whose limit tightens at every solution it finds,
//! instead of a bisection of separate decisions.
//!
//! A *descent* holds a threshold and the best solution found so far. For
//! the delay stage (`Side::Upper`) every solution found lowers the upper
//! limit to just below its largest pair delay; for the variation stage
//! (`Side::Lower`, the upper limit fixed at the least delay) it raises the
//! lower limit to just above its smallest pair delay. The search goes on
//! under the tighter limit; when it ends without a further solution, the
//! best one is optimal (or, with none, the start threshold is refuted).
//!
//! The nodes on the stack were narrowed under a looser limit. A node
//! whose state is older than the current limit is *re-narrowed* before it
//! branches again ([`Search::renarrow`]): its hosts' extreme pairs are
//! checked against the new limit (same host: the two largest and the two
//! smallest accesses; across hosts: the extremes) and every window is
//! narrowed against every host. A looser window is sound, only weaker, so
//! every prune stays exact. The refuted-branch cuts
//! ([`Search::cap_refuted`]) stay sound: a cut is made under the limit at
//! the time, at least as tight as any the refuted branch was searched
//! under, and a tighter limit only removes solutions. (A split search's
//! donated piece does not take the cut of the branch still being searched:
//! that branch may still lower the limit below the cut's test.)
//!
//! The threshold is shared by the workers of a split search
//! ([`super::split`]) through an atomic; the optimum's value is the same
//! on any thread count, which of several optimal solutions is returned may
//! depend on timing.
//!
//! Complexity: the nodes of the search under the final limit plus those
//! visited before each tightening; a re-narrowing costs `O(m + h² + n·h·log
//! m)` for `h` hosts, `n` servers and `m` clients.

use super::bits::{ones, set};
use super::{Search, State};
use crate::core::StageStep;
use crate::problems::spd::eval::Extremes;
use crate::problems::spd::exact::p2p::{min_pair, pair_q};
use crate::problems::spd::exact::{Probe, Scored};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// Which limit a descent tightens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Side {
    /// The upper limit (least delay).
    Upper,
    /// The lower limit (largest smallest pair: least variation).
    Lower,
}

/// The shared threshold and best solution of a descent.
pub(crate) struct Descent {
    side: Side,
    /// The threshold's bits (`f64`): only ever tightened.
    limit: AtomicU64,
    /// The best solution so far.
    best: Mutex<Option<Scored>>,
    /// When the descent began.
    began: Instant,
    /// Each kept solution: its stage value and when it was found.
    steps: Mutex<Vec<StageStep>>,
}

impl Descent {
    /// A descent on `side` from the threshold `start` (solutions must fit
    /// it).
    pub(crate) fn new(side: Side, start: f64) -> Arc<Descent> {
        Arc::new(Descent {
            side,
            limit: AtomicU64::new(start.to_bits()),
            best: Mutex::new(None),
            began: Instant::now(),
            steps: Mutex::new(Vec::new()),
        })
    }

    /// Which limit this descent tightens.
    pub(crate) fn side(&self) -> Side {
        self.side
    }

    /// The current threshold.
    pub(crate) fn limit(&self) -> f64 {
        f64::from_bits(self.limit.load(Ordering::Acquire))
    }

    /// The best solution found (none: nothing fit the start threshold).
    pub(crate) fn best(&self) -> Option<Scored> {
        self.best.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// The solutions kept, in order, as steps (`delay 583.64` or
    /// `variation 31.2`: `feasible`, with the milliseconds from the
    /// descent's start to the find).
    pub(crate) fn steps(&self) -> Vec<StageStep> {
        self.steps.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Milliseconds since the descent began.
    pub(crate) fn elapsed_ms(&self) -> f64 {
        self.began.elapsed().as_secs_f64() * 1e3
    }

    /// Offers a solution whose extreme pair on this side is `q`: kept, and
    /// the threshold moved past `q`, when it beats the threshold.
    fn offer(&self, sc: Scored, q: f64) {
        let mut best = self.best.lock().unwrap_or_else(|e| e.into_inner());
        let (now, next) = (self.limit(), self.past(q));
        let better = match self.side {
            Side::Upper => q <= now && next < now,
            Side::Lower => q >= now && next > now,
        };
        if better {
            self.limit.store(next.to_bits(), Ordering::Release);
            let step = match self.side {
                Side::Upper => format!("delay {}", sc.metrics.delay),
                Side::Lower => format!("variation {}", sc.metrics.variation),
            };
            self.steps
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push(StageStep {
                    step,
                    result: StageStep::FEASIBLE.into(),
                    ms: self.elapsed_ms(),
                });
            *best = Some(sc);
        }
    }

    /// The tightest threshold that excludes `q`.
    fn past(&self, q: f64) -> f64 {
        match self.side {
            Side::Upper => next_down(q),
            Side::Lower => next_up(q),
        }
    }
}

/// The largest float below `x` (`f64::next_down`, stable only since Rust
/// 1.86, above this crate's MSRV).
pub(crate) fn next_down(x: f64) -> f64 {
    if x.is_nan() || x == f64::NEG_INFINITY {
        return x;
    }
    if x == 0.0 {
        return -f64::from_bits(1);
    }
    let b = x.to_bits();
    f64::from_bits(if x > 0.0 { b - 1 } else { b + 1 })
}

/// The least float above `x` (`f64::next_up`).
pub(crate) fn next_up(x: f64) -> f64 {
    -next_down(-x)
}

impl Search<'_> {
    /// Takes the descent's current threshold into the search's limits.
    pub(super) fn follow_descent(&mut self) {
        let Some(d) = self.descent.as_ref() else {
            return;
        };
        let t = d.limit();
        match d.side() {
            Side::Upper if t < self.lim.hi => self.lim.hi = t,
            Side::Lower if t > self.lim.lo => self.lim.lo = t,
            _ => {}
        }
    }

    /// Whether `st` was narrowed under a looser limit than the current one.
    pub(super) fn stale(&self, st: &State) -> bool {
        st.lim != (self.lim.hi, self.lim.lo) || self.caps_stale(st)
    }

    /// A complete state under a descent: offered as a solution (the limit
    /// then moves past it).
    pub(super) fn improve(&mut self, st: State) {
        let Some(d) = self.descent.clone() else {
            return;
        };
        // the threshold moves past the evaluator's delay, or the smallest
        // pair summed as it sums them
        if let Probe::Feasible(sc) = self.found(st) {
            let q = match d.side() {
                Side::Upper => sc.metrics.delay,
                Side::Lower => min_pair(self.inst, &sc.sol),
            };
            d.offer(sc, q);
            if let Some(c) = self.caps.as_ref() {
                c.moved();
            }
        }
        self.follow_descent();
    }

    /// Re-narrows a state to the current limit: false when its hosts'
    /// extreme pairs break it. The clients the free-client rule placed go
    /// back (that rule's "never hurts" held under the old limit only: a
    /// free client may now break a same-host pair it did not break
    /// before) and the rule runs again under the new limit.
    pub(super) fn renarrow(&self, st: &mut State) -> bool {
        for c in ones(&st.free).collect::<Vec<_>>() {
            st.assign[c] = usize::MAX;
            set(&mut st.open, c);
        }
        st.free.iter_mut().for_each(|x| *x = 0);
        let ext = self.extremes(st);
        let hosts: Vec<usize> = (0..st.env.len()).filter(|&s| st.env[s].is_some()).collect();
        let lim = &self.lim;
        for (i, &s) in hosts.iter().enumerate() {
            let e = &ext[s];
            if !self.same_host_fits(s, e) {
                return false;
            }
            for &u in &hosts[i + 1..] {
                let hi_q = pair_q(self.inst, s, e.max1, u, ext[u].max1);
                let lo_q = pair_q(self.inst, s, e.min1, u, ext[u].min1);
                if !(lim.hi_ok(hi_q) && lim.lo_ok(lo_q)) {
                    return false;
                }
            }
        }
        if !self.apply_caps(st) {
            return false;
        }
        for u in 0..st.win.len() {
            if !self.eligible(st, u) {
                continue;
            }
            for &s in &hosts {
                if let Some((lo, hi)) = st.env[s] {
                    st.win[u] = self.narrow(u, st.win[u], s, self.val(s, lo), self.val(s, hi));
                }
            }
        }
        for &s in &hosts {
            self.free_on(st, s);
        }
        st.lim = (self.lim.hi, self.lim.lo);
        true
    }

    /// Per server, the extremes of its assigned clients' accesses (the
    /// evaluator's [`Extremes`]).
    fn extremes(&self, st: &State) -> Vec<Extremes> {
        let n = st.env.len();
        let mut ext = vec![Extremes::EMPTY; n];
        for (c, &s) in st.assign.iter().enumerate() {
            if s < n {
                ext[s].push(self.inst.access(c, s));
            }
        }
        ext
    }
}
