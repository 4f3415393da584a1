//! A probing pass ([`super::probe`]) on several threads: each server's
//! binary search is independent of the others' (every probe starts from
//! the decision's root with its own node budget), so workers take servers
//! in turn from a shared counter. The pass ends as the one-thread pass
//! does: with the solution of the least server whose binary search found
//! one (servers before it are finished, those after it abandoned), else
//! with every server's refuted positions. So on any thread count a pass
//! drops the same pairs for the same node count, or ends with the same
//! solution (the node count then depends on how far the other servers
//! got).
//!
//! Under a descent ([`super::descent`]) a probe's solution tightens the
//! limit the later probes run under, so there the pass stays on one
//! thread, in server order.
//!
//! Complexity: as the one-thread pass, `O(n · log m)` probes, spread over
//! the threads.

use super::probe::PassEnd;
use super::split::{helper_open, run_on_threads};
use super::{Search, State, Stop};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Duration;

/// The threads a pass may use: `threads` workers, of which helper `i ≥ 1`
/// works only while `busy · (i + 1) <= threads` (the host stage's
/// decisions running side by side, as in [`Search::decide_split`]).
#[derive(Clone, Copy)]
pub(crate) struct PassThreads<'b> {
    pub threads: usize,
    pub busy: Option<&'b AtomicUsize>,
}

impl PassThreads<'_> {
    /// One worker.
    #[cfg(test)]
    pub(crate) const ONE: PassThreads<'static> = PassThreads {
        threads: 1,
        busy: None,
    };

    /// `threads` workers held back by `busy`.
    #[cfg(test)]
    pub(crate) fn with(threads: usize, busy: Option<&AtomicUsize>) -> PassThreads<'_> {
        PassThreads { threads, busy }
    }

    /// Whether worker `i` may take a server now (the first always may: it
    /// takes servers until none is left).
    fn open(&self, i: usize) -> bool {
        i == 0 || helper_open(i, self.threads, self.busy)
    }
}

/// The servers of a pass, shared by its workers.
struct Servers {
    /// The next server to probe.
    next: AtomicUsize,
    /// The least server whose probes found a solution (`usize::MAX`: none).
    found: AtomicUsize,
    /// A worker stopped (the deadline): the others stop too.
    stopped: AtomicBool,
    /// The first worker is done (it takes servers until none is left, so
    /// a held-back helper waits no longer).
    first_done: AtomicBool,
}

/// Marks the first worker done however it ends (a panic too).
struct FirstDone<'s>(&'s AtomicBool);

impl Drop for FirstDone<'_> {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Release);
    }
}

/// What one worker brings back.
#[derive(Default)]
struct Worked {
    /// Refuted positions of the servers it finished.
    dead: Vec<(usize, Vec<bool>)>,
    /// The least server it found a solution at, with that solution.
    solution: Option<(usize, Box<State>)>,
    /// Why it stopped early.
    stop: Option<Stop>,
}

impl Search<'_> {
    /// A probing pass with `per_probe` nodes a probe on `on`'s threads
    /// (one under a descent). The workers' node counts add up into this
    /// search's. `Err` when a worker thread did not start or failed.
    pub(super) fn probe_pass(
        &mut self,
        per_probe: u64,
        on: PassThreads,
    ) -> Result<Result<PassEnd, Stop>, String> {
        let threads = if self.descent.is_some() {
            1
        } else {
            on.threads.max(1)
        };
        if threads == 1 {
            return self.deep(|s| s.probe_all(per_probe));
        }
        let root = self.root_state();
        let servers = Servers {
            next: AtomicUsize::new(0),
            found: AtomicUsize::new(usize::MAX),
            stopped: AtomicBool::new(false),
            first_done: AtomicBool::new(false),
        };
        let base = (self.nodes, self.cuts, self.packing_refuted);
        let mut workers: Vec<Search> = (0..threads).map(|_| self.clone()).collect();
        let results = Mutex::new(Vec::new());
        let started = run_on_threads(&mut workers, |i, w| {
            let _done = (i == 0).then(|| FirstDone(&servers.first_done));
            let out = w.pass_worker(&root, per_probe, &servers, || on.open(i));
            results.lock().unwrap_or_else(|e| e.into_inner()).push(out);
        });
        for w in &workers {
            self.nodes += w.nodes - base.0;
            self.cuts += w.cuts - base.1;
            self.packing_refuted += w.packing_refuted - base.2;
        }
        if !started {
            return Err("a probing thread did not start or failed".into());
        }
        let results = results.into_inner().unwrap_or_else(|e| e.into_inner());
        Ok(self.merge_pass(results))
    }

    /// One worker of a pass: takes servers until none is left, a solution
    /// at an earlier server is known, or a stop.
    fn pass_worker(
        &mut self,
        root: &State,
        per_probe: u64,
        servers: &Servers,
        open: impl Fn() -> bool,
    ) -> Worked {
        let n = self.lists.len();
        let mut out = Worked::default();
        loop {
            if servers.stopped.load(Ordering::Relaxed) {
                return out;
            }
            if !open() {
                if servers.first_done.load(Ordering::Acquire) {
                    return out;
                }
                std::thread::sleep(Duration::from_millis(5));
                continue;
            }
            let s = servers.next.fetch_add(1, Ordering::Relaxed);
            if s >= n || s > servers.found.load(Ordering::Acquire) {
                return out;
            }
            let mut dead = vec![false; self.lists[s].len()];
            let abandon = || {
                servers.found.load(Ordering::Acquire) < s || servers.stopped.load(Ordering::Relaxed)
            };
            match self.probe_server(root, s, per_probe, &mut dead, abandon) {
                Ok(None) => out.dead.push((s, dead)),
                Ok(Some(st)) => {
                    servers.found.fetch_min(s, Ordering::AcqRel);
                    out.solution = Some((s, st));
                    // (every later server this worker could take is past `s`)
                    return out;
                }
                Err(Stop::Beaten) => return out,
                Err(stop) => {
                    servers.stopped.store(true, Ordering::Relaxed);
                    out.stop = Some(stop);
                    return out;
                }
            }
        }
    }

    /// The pass's end from its workers': the least server's solution, else
    /// a stop, else every server's refuted positions.
    fn merge_pass(&self, results: Vec<Worked>) -> Result<PassEnd, Stop> {
        let mut dead: Vec<Vec<bool>> = self.lists.iter().map(|l| vec![false; l.len()]).collect();
        let mut best: Option<(usize, Box<State>)> = None;
        let mut stop = None;
        for w in results {
            for (s, d) in w.dead {
                dead[s] = d;
            }
            if let Some((s, st)) = w.solution {
                if best.as_ref().is_none_or(|(b, _)| s < *b) {
                    best = Some((s, st));
                }
            }
            stop = stop.or(w.stop);
        }
        match (best, stop) {
            (Some((_, st)), _) => Ok(PassEnd::Solution(st)),
            (None, Some(stop)) => Err(stop),
            (None, None) => Ok(PassEnd::Dead(dead)),
        }
    }
}

#[cfg(test)]
#[path = "p2p_search_pass_tests.rs"]
mod tests;
