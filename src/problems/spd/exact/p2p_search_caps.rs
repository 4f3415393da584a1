//! Probing's refutations as window caps inside a running descent
//! ([`super::descent`], the delay stage).
//!
//! A descent's search cannot drop pairs from its lists while it runs (its
//! nodes hold positions in them), and the probing passes before it ran
//! under the start's looser limit. Once the limit has stood still for a
//! while (no solution found for [`Caps::wait`]), one worker runs a
//! probing pass ([`Search::shave`]'s binary search per server) under the
//! current limit; where a server's whole tail from some position is
//! refuted (its first refuted position and the later ones refuted with
//! it, [`Search::drop_above`]), that position becomes the server's *cap*,
//! shared by every
//! worker. A state narrowed before the latest caps is stale: its windows
//! are cut at the caps, and a state whose host already holds a capped
//! client is pruned ([`Search::apply_caps`]).
//!
//! Sound: a probe refutes "client `c` on server `s`, at most `k` hosts,
//! every pair within the limit" under the limit at that time (a probe that
//! finds a solution improves the descent and goes on under the tighter
//! limit), and the limit only tightens, so no later solution puts `c` on
//! `s`. When a pass runs depends on wall time, so a descent's node count
//! and which optimal solution it returns may vary from run to run; its
//! optimum does not.
//!
//! Measured (160 × 800 P2P, f = 1.2, seeds 1 and 3, two threads, one run
//! each): the delay stage 75.0 → 46.2 s and 86.4 → 59.7 s, with 2–4
//! passes of about 0.8 s each (`docs/spd-scale.md`, sixteenth round).
//!
//! Complexity: a pass is `O(n · log m)` probes of at most [`PER_PROBE`] nodes each
//! for `n` servers and `m` clients; applying the caps to a state `O(n)`.

use super::probe::PER_PROBE;
use super::{Search, State, Stop};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Least time the limit must stand still before a pass (none in the
/// tests: there a pass follows every improvement, and one runs at the
/// start, so the tests' descents exercise the caps).
#[cfg(not(test))]
const MIN_WAIT: Duration = Duration::from_millis(500);
#[cfg(test)]
const MIN_WAIT: Duration = Duration::ZERO;

/// Whether the search looks at its node number `nodes` whether a pass is
/// due: every 256 nodes (every node in the tests, whose searches are
/// short).
#[cfg(not(test))]
pub(super) fn look_at(nodes: u64) -> bool {
    nodes % 256 == 0
}
#[cfg(test)]
pub(super) fn look_at(_nodes: u64) -> bool {
    true
}

/// Caps moved by passes, over every search of the test binary (the tests
/// check that their descents' passes cut something).
#[cfg(test)]
pub(crate) static MOVED: AtomicU64 = AtomicU64::new(0);

/// The caps shared by a split descent's workers.
pub(crate) struct Caps {
    /// Per server, the first list position no solution may use.
    end: Vec<AtomicUsize>,
    /// Bumped whenever a cap moves.
    generation: AtomicU64,
    /// A pass is running.
    running: AtomicBool,
    /// When the limit last moved, the limit the last pass ended under, and
    /// how long that pass took.
    clock: Mutex<Clock>,
}

struct Clock {
    moved: Instant,
    passed_at: f64,
    took: Duration,
}

impl Caps {
    /// No caps yet over lists of these lengths, probed already under the
    /// limit `hi` (the passes before the descent's search).
    fn new(lens: impl Iterator<Item = usize>, hi: f64) -> Arc<Caps> {
        Arc::new(Caps {
            end: lens.map(AtomicUsize::new).collect(),
            generation: AtomicU64::new(0),
            running: AtomicBool::new(false),
            clock: Mutex::new(Clock {
                moved: Instant::now(),
                // (the tests pass under the start's limit too)
                passed_at: if cfg!(test) { f64::INFINITY } else { hi },
                took: Duration::ZERO,
            }),
        })
    }

    fn clock(&self) -> std::sync::MutexGuard<'_, Clock> {
        self.clock.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The limit moved (a solution was found).
    pub(super) fn moved(&self) {
        self.clock().moved = Instant::now();
    }

    /// How long the limit must stand still before a pass: the last pass's
    /// time, at least [`MIN_WAIT`] (so passes take at most about half of
    /// one worker's time).
    fn wait(c: &Clock) -> Duration {
        c.took.max(MIN_WAIT)
    }

    /// Claims the next pass under limit `hi` when one is due.
    fn claim(&self, hi: f64) -> bool {
        {
            let c = self.clock();
            if hi >= c.passed_at || c.moved.elapsed() < Caps::wait(&c) {
                return false;
            }
        }
        !self.running.swap(true, Ordering::AcqRel)
    }

    /// The cap of server `s`.
    #[cfg(test)]
    pub(super) fn end(&self, s: usize) -> usize {
        self.end[s].load(Ordering::Acquire)
    }

    /// The current generation (states narrowed before it are stale).
    pub(super) fn generation(&self) -> u64 {
        self.generation.load(Ordering::Acquire)
    }
}

impl Search<'_> {
    /// Makes this search's workers share caps (a descent on the upper
    /// limit only: without a lower limit a refuted pair refutes its
    /// server's tail, [`Search::drop_above`]).
    pub(crate) fn enable_caps(&mut self) {
        self.caps = Some(Caps::new(self.lists.iter().map(Vec::len), self.lim.hi));
        self.caps_pass = true;
    }

    /// Whether a pass's probes may improve the descent (on by default).
    #[cfg(test)]
    pub(crate) fn set_caps_pass_improves(&mut self, on: bool) {
        self.caps_pass_improves = on;
    }

    /// Runs a pass when one is due (called when [`look_at`] says).
    pub(super) fn maybe_cap(&mut self) -> Result<(), Stop> {
        let Some(caps) = self.caps.clone().filter(|_| self.caps_pass) else {
            return Ok(());
        };
        if !caps.claim(self.lim.hi) {
            return Ok(());
        }
        let t0 = Instant::now();
        let out = self.cap_pass(&caps);
        // (the pass's probes may have tightened the limit)
        self.follow_descent();
        {
            let mut c = caps.clock();
            c.passed_at = self.lim.hi;
            c.took = t0.elapsed();
        }
        caps.running.store(false, Ordering::Release);
        out
    }

    /// One probing pass on a copy of this search (its own root, no piece);
    /// its refuted tails become caps.
    pub(super) fn cap_pass(&mut self, caps: &Caps) -> Result<(), Stop> {
        let mut probe = self.clone();
        probe.piece = None;
        probe.path = Vec::new();
        probe.caps_pass = false;
        probe.follow_descent();
        if !self.caps_pass_improves {
            // probes under the current limit alone: a probe's solution
            // leaves its pair (probing for another search's limits)
            probe.descent = None;
            probe.probes_only = true;
        }
        let before = probe.nodes;
        let run = probe.deep(|s| s.probe_all(PER_PROBE));
        self.nodes += probe.nodes - before;
        let dead = match run {
            Ok(Ok(super::probe::PassEnd::Dead(dead))) => dead,
            // a probe's solution under a descent improves it and goes on;
            // the deadline ends the decision
            Ok(Err(Stop::Deadline)) => return Err(Stop::Deadline),
            _ => return Ok(()),
        };
        let mut moved = false;
        for (s, d) in dead.iter().enumerate() {
            let tail = d.len() - d.iter().rev().take_while(|&&gone| gone).count();
            if tail < caps.end[s].fetch_min(tail, Ordering::AcqRel) {
                moved = true;
                #[cfg(test)]
                MOVED.fetch_add(1, Ordering::Relaxed);
            }
        }
        if moved {
            caps.generation.fetch_add(1, Ordering::AcqRel);
        }
        Ok(())
    }

    /// Whether `st` was narrowed before the latest caps.
    pub(super) fn caps_stale(&self, st: &State) -> bool {
        self.caps
            .as_ref()
            .is_some_and(|c| c.generation() != st.caps_gen)
    }

    /// Cuts every window at its server's cap: false when a host already
    /// holds a client at or past its cap.
    pub(super) fn apply_caps(&self, st: &mut State) -> bool {
        let Some(caps) = self.caps.as_ref() else {
            return true;
        };
        st.caps_gen = caps.generation();
        for (s, end) in caps.end.iter().enumerate() {
            let cap = end.load(Ordering::Acquire);
            if st.env[s].is_some_and(|(_, hi)| hi >= cap) {
                return false;
            }
            let (a, b) = st.win[s];
            st.win[s] = (a, b.min(cap).max(a));
        }
        true
    }
}
