//! One decision of the search ([`super`]) on several threads, with the
//! same answer on any thread count.
//!
//! The tree is cut into *pieces*: the root, and runs of untried branches
//! of a node. A worker searches one piece depth-first; every
//! [`DONATE_EVERY`] nodes of its piece, when a worker waits for work, it
//! *donates* the untried branches of its shallowest node that has any, as
//! a new piece, to a queue the workers take from (the leftmost piece
//! first). So the queue never holds more pieces than there are idle
//! workers, and one thread never donates.
//!
//! The answer is the *leftmost* solution: each piece is named by the branch
//! indices from the root to its first branch, a solution by those to its
//! leaf, and a search ends when every piece left of the best solution found
//! so far is refuted (pieces right of it stop). So a feasible decision
//! returns the same solution on one thread as on eight, and an infeasible
//! one is proven by refuting every piece.
//!
//! A donated run of branches keeps the cuts ([`Search::cap_refuted`]) of
//! the branches refuted before it left, and takes that of the branch its
//! node is still searching as if it were refuted: were it not, it would
//! hold a solution left of the piece, and the piece's answer would not
//! count. So every piece searches exactly its part of the one-thread
//! tree, wherever and whenever the donations happen: the same nodes (for
//! a refutation) and the same first solution.
//!
//! When the deadline stops a decision that already holds a solution right
//! of open pieces, that solution answers "feasible" (the count is proven;
//! which solution, then, may depend on timing). The host stage's
//! decisions end at their first solution
//! ([`Search::first_solution_wins`]): any solution answers the count, and
//! the pieces left of it would only pick which one. In the host stage a
//! decision's helper threads wait while other counts are decided beside
//! it (`busy`), so the threads go to the decision left alone.
//!
//! Complexity: the nodes of the plain search (for a feasible decision,
//! plus those of pieces right of its solution searched meanwhile); a
//! donation copies one node state (`O(n + m)` words).

use super::critical::{Critical, MAX_CRITICAL};
use super::{stack_bytes, Frame, Search, State, Stop};
use crate::problems::spd::exact::Probe;
use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;
use std::sync::atomic::{AtomicUsize, Ordering as AtomicOrdering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::Duration;

/// Nodes a worker searches in its piece between two donations.
pub(super) const DONATE_EVERY: u64 = 1_000;

/// Where a piece starts.
enum Start {
    /// The decision's root.
    Root(State),
    /// Untried branches of a node.
    Branches(Frame),
    /// A critical pair's root ([`super::critical`]), built when taken.
    Critical(Critical),
}

/// A part of the tree one worker searches.
struct Piece {
    /// Branch indices from the root to the piece's first branch.
    key: Vec<u32>,
    /// Branch indices from the root to the piece's node.
    node: Vec<u32>,
    start: Start,
}

impl PartialEq for Piece {
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key
    }
}
impl Eq for Piece {}
impl PartialOrd for Piece {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Piece {
    fn cmp(&self, other: &Self) -> Ordering {
        self.key.cmp(&other.key)
    }
}

/// What the workers share.
struct Shared {
    /// Pieces not started, leftmost first.
    queue: BinaryHeap<Reverse<Piece>>,
    /// Pieces being searched.
    running: usize,
    /// The leftmost solution found so far, with its leaf's branch indices.
    best: Option<(Vec<u32>, State)>,
    /// A piece ended without an answer (deadline, a failed worker): stop.
    stopped: bool,
    /// A worker failed: its piece is lost.
    failed: bool,
    /// Pieces donated.
    donated: u64,
    /// Workers waiting for a piece.
    idle: usize,
}

/// The queue of pieces and its wake-up signal.
pub(super) struct Pool {
    shared: Mutex<Shared>,
    wake: Condvar,
    /// Whether the first solution found ends the search
    /// ([`Search::first_solution_wins`]).
    first_wins: bool,
}

impl Pool {
    /// A queue holding the tree as `roots` (the whole tree as one
    /// piece, or one piece per critical pair).
    fn new(roots: Vec<Piece>, first_wins: bool) -> Arc<Pool> {
        Arc::new(Pool {
            shared: Mutex::new(Shared {
                queue: roots.into_iter().map(Reverse).collect(),
                running: 0,
                best: None,
                stopped: false,
                failed: false,
                donated: 0,
                idle: 0,
            }),
            wake: Condvar::new(),
            first_wins,
        })
    }

    /// Whether the search is over with the solution it holds (the first
    /// solution wins, and one is found).
    fn settled(&self, sh: &Shared) -> bool {
        self.first_wins && sh.best.is_some()
    }

    fn lock(&self) -> MutexGuard<'_, Shared> {
        self.shared.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Whether a worker waits for a piece that is not queued yet.
    fn hungry(&self) -> bool {
        let sh = self.lock();
        sh.queue.len() < sh.idle
    }

    /// Queues a piece and wakes the waiting workers (all: a held-back
    /// helper woken alone would leave the idle one asleep).
    fn push(&self, piece: Piece) {
        let mut sh = self.lock();
        sh.queue.push(Reverse(piece));
        sh.donated += 1;
        drop(sh);
        self.wake.notify_all();
    }

    /// The leftmost piece not right of the best solution (`None`: nothing
    /// left, or stopped); waits while other workers may still donate, or
    /// while `open()` says this worker must not work yet.
    fn take(&self, open: impl Fn() -> bool) -> Option<Piece> {
        let mut sh = self.lock();
        loop {
            if sh.stopped || (sh.running == 0 && sh.queue.is_empty()) || self.settled(&sh) {
                return None;
            }
            if !open() {
                // a helper held back while other decisions run: look again
                // soon (it is not idle, so nobody donates to it)
                let (g, _) = self
                    .wake
                    .wait_timeout(sh, Duration::from_millis(20))
                    .unwrap_or_else(|e| e.into_inner());
                sh = g;
                continue;
            }
            if let Some(Reverse(piece)) = sh.queue.pop() {
                if sh.best.as_ref().is_some_and(|(b, _)| piece.key > *b) {
                    continue;
                }
                sh.running += 1;
                return Some(piece);
            }
            sh.idle += 1;
            sh = self.wake.wait(sh).unwrap_or_else(|e| e.into_inner());
            sh.idle -= 1;
        }
    }

    /// Records how a piece ended.
    fn done(&self, out: Result<Option<(Vec<u32>, State)>, Stop>) {
        let mut sh = self.lock();
        sh.running -= 1;
        match out {
            Ok(Some((key, st))) => {
                if sh.best.as_ref().is_none_or(|(b, _)| key < *b) {
                    sh.best = Some((key, st));
                }
            }
            Ok(None) | Err(Stop::Beaten) => {}
            Err(Stop::Deadline | Stop::Budget) => sh.stopped = true,
        }
        drop(sh);
        self.wake.notify_all();
    }
}

/// Runs `workers` on threads with stacks that fit the recursion; helper
/// `i ≥ 1` works only while [`helper_open`]. False when no thread
/// started or one failed.
fn run_workers(
    workers: &mut [Search],
    pool: &Arc<Pool>,
    threads: usize,
    busy: Option<&AtomicUsize>,
) -> bool {
    run_on_threads(workers, |i, w| {
        w.work(pool, move || helper_open(i, threads, busy))
    })
}

/// Whether worker `i` of `threads` may work while `busy` decisions run
/// side by side (the host stage's ladder): `busy · (i + 1) <= threads`,
/// so the threads go to a decision once the others are done.
pub(super) fn helper_open(i: usize, threads: usize, busy: Option<&AtomicUsize>) -> bool {
    busy.is_none_or(|b| b.load(AtomicOrdering::Relaxed).max(1) * (i + 1) <= threads)
}

/// Runs `work(i, worker)` for every worker on its own thread with a stack
/// that fits the recursion (one level per branching decision). False when
/// the first worker's thread did not start (then none runs: held-back
/// helpers could wait on each other's decisions) or any thread failed;
/// a helper that did not start is left out.
pub(super) fn run_on_threads<'a>(
    workers: &mut [Search<'a>],
    work: impl Fn(usize, &mut Search<'a>) + Sync,
) -> bool {
    let Some(first) = workers.first() else {
        return false;
    };
    let stack = stack_bytes(first.inst.clients());
    let work = &work;
    std::thread::scope(|sc| {
        let mut handles = Vec::new();
        for (i, w) in workers.iter_mut().enumerate() {
            let spawned = std::thread::Builder::new()
                .stack_size(stack)
                .spawn_scoped(sc, move || work(i, w));
            match spawned {
                Ok(h) => handles.push(h),
                Err(_) if i == 0 => return false,
                Err(_) => {}
            }
        }
        // every handle joined (no short cut), then all must have ended well
        let joined: Vec<bool> = handles.into_iter().map(|h| h.join().is_ok()).collect();
        joined.iter().all(|&ok| ok)
    })
}

/// A worker's view of the piece it searches.
#[derive(Clone)]
pub(super) struct PieceRun {
    pool: Arc<Pool>,
    /// The piece's key (it stops once a solution left of it is known).
    key: Vec<u32>,
    /// Length of the path to the piece's node.
    base: usize,
    /// The worker's node count when the piece began.
    from: u64,
    /// A donation is due at the next branch.
    due: bool,
    /// The leaf path of the solution the piece found.
    leaf: Option<Vec<u32>>,
}

impl Search<'_> {
    /// Decides "at most `k` hosts" without a node budget on `threads`
    /// workers (the deadline still holds): the leftmost solution, or a
    /// refutation of every piece. With `busy` (decisions running side by
    /// side, the host stage's ladder), helper `i` works only while `busy ·
    /// (i + 1) <= threads`: the threads go to a decision once the others
    /// are done, not to the speculative right of each.
    pub(crate) fn decide_split(
        &mut self,
        k: usize,
        threads: usize,
        busy: Option<&AtomicUsize>,
    ) -> Probe {
        self.k = k;
        let root = Piece {
            key: Vec::new(),
            node: Vec::new(),
            start: Start::Root(self.root_state()),
        };
        self.decide_pieces(k, vec![root], threads, busy)
    }

    /// [`Search::decide_split`] over the variation stage's critical pairs
    /// ([`super::critical`]): one piece per pair, the `i`-th named `[i]`
    /// (a virtual root whose branches they are); over the whole tree when
    /// there are more than [`MAX_CRITICAL`] pairs.
    pub(crate) fn decide_critical(
        &mut self,
        k: usize,
        d: f64,
        threads: usize,
        busy: Option<&AtomicUsize>,
    ) -> Probe {
        self.k = k;
        let Some(pairs) = self.critical_pairs(d, MAX_CRITICAL) else {
            return self.decide_split(k, threads, busy);
        };
        let pieces = pairs
            .into_iter()
            .enumerate()
            .map(|(i, cfg)| Piece {
                key: vec![i as u32],
                node: vec![i as u32],
                start: Start::Critical(cfg),
            })
            .collect();
        self.decide_pieces(k, pieces, threads, busy)
    }

    /// Searches `pieces` (the tree's parts) on `threads` workers.
    fn decide_pieces(
        &mut self,
        k: usize,
        pieces: Vec<Piece>,
        threads: usize,
        busy: Option<&AtomicUsize>,
    ) -> Probe {
        self.k = k;
        self.budget = u64::MAX;
        if k == 0 {
            return Probe::Infeasible;
        }
        let pool = Pool::new(pieces, self.first_wins);
        let base = (self.nodes, self.cuts, self.packing_refuted);
        let mut workers: Vec<Search> = (0..threads.max(1)).map(|_| self.clone()).collect();
        let started = run_workers(&mut workers, &pool, threads, busy);
        for w in &workers {
            self.nodes += w.nodes - base.0;
            self.cuts += w.cuts - base.1;
            self.packing_refuted += w.packing_refuted - base.2;
        }
        let sh = pool.lock();
        self.pieces += sh.donated;
        // any solution answers "feasible"; only a refutation needs every piece
        match (&sh.best, started && !sh.failed, sh.stopped) {
            (Some((_, st)), _, _) => self.found(st.clone()),
            (None, false, _) => Probe::Unknown("a search thread did not start or failed".into()),
            (None, true, true) => Probe::Unknown("the deadline was hit".into()),
            (None, true, false) => Probe::Infeasible,
        }
    }

    /// A worker: takes pieces until none is left.
    fn work(&mut self, pool: &Arc<Pool>, open: impl Fn() -> bool) {
        while let Some(piece) = pool.take(&open) {
            let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                self.run_piece(piece, pool)
            }));
            let Ok(out) = run else {
                // a lost piece: no refutation can be claimed any more
                pool.lock().failed = true;
                pool.done(Err(Stop::Deadline));
                return;
            };
            let leaf = self.piece.as_mut().and_then(|r| r.leaf.take());
            pool.done(out.map(|found| found.map(|st| (leaf.unwrap_or_default(), st))));
        }
        self.piece = None;
    }

    /// Searches one piece.
    fn run_piece(&mut self, piece: Piece, pool: &Arc<Pool>) -> Result<Option<State>, Stop> {
        self.piece = Some(PieceRun {
            pool: Arc::clone(pool),
            key: piece.key,
            base: piece.node.len(),
            from: self.nodes,
            due: false,
            leaf: None,
        });
        self.path = piece.node;
        match piece.start {
            Start::Root(st) => self.dfs(st),
            Start::Branches(frame) => self.branches(frame, &mut Vec::new()),
            // (most roots fail at once, before any node: the deadline is
            // looked at here)
            Start::Critical(_) if self.deadline.expired() => Err(Stop::Deadline),
            Start::Critical(cfg) => match self.critical_root(cfg) {
                Some(st) => self.dfs(st),
                None => Ok(None),
            },
        }
    }

    /// Counts a node of the piece; every `donate_every` ([`DONATE_EVERY`]
    /// but in tests) a donation is due.
    pub(super) fn count_piece_node(&mut self) {
        if let Some(r) = self.piece.as_mut() {
            if (self.nodes - r.from) % self.donate_every == 0 {
                r.due = true;
            }
        }
    }

    /// Stops a piece that lies right of a solution already found.
    pub(super) fn check_beaten(&self) -> Result<(), Stop> {
        let Some(r) = self.piece.as_ref() else {
            return Ok(());
        };
        let sh = r.pool.lock();
        if sh.stopped {
            return Err(Stop::Deadline);
        }
        match &sh.best {
            Some((b, _)) if r.key > *b || r.pool.settled(&sh) => Err(Stop::Beaten),
            _ => Ok(()),
        }
    }

    /// Notes the path of the solution just found.
    pub(super) fn solved(&mut self) {
        if let Some(r) = self.piece.as_mut() {
            r.leaf = Some(self.path.clone());
        }
    }

    /// When a donation is due: the untried branches of the shallowest
    /// node on `stack` that has any become a piece of their own. Its
    /// state takes the cut of the branch that node is still searching, as
    /// if it were refuted: were it not, it would hold a solution left of the
    /// piece, and the piece's answer would not count.
    pub(super) fn maybe_donate(&mut self, stack: &mut [Frame]) {
        let Some(r) = self.piece.as_mut().filter(|r| r.due) else {
            return;
        };
        r.due = false;
        if !self.always_donate && !r.pool.hungry() {
            return;
        }
        let (base, pool) = (r.base, Arc::clone(&r.pool));
        let Some(level) = stack.iter().position(|f| f.next < f.values.len()) else {
            return;
        };
        let f = &mut stack[level];
        let first = f.first + f.next as u32;
        let values = f.values.split_off(f.next);
        let mut st = f.st.clone();
        let searching =
            (level + 1 < stack.len()).then(|| stack[level].values[stack[level].next - 1]);
        // (under a descent that branch may still tighten the limit past
        // the cut's test: no cut)
        if let Some((s, p)) = searching.filter(|_| self.descent.is_none()) {
            self.cap_refuted(&mut st, s, p);
        }
        let node = self.path[..base + level].to_vec();
        let mut key = node.clone();
        key.push(first);
        let frame = Frame {
            st,
            values,
            next: 0,
            first,
        };
        pool.push(Piece {
            key,
            node,
            start: Start::Branches(frame),
        });
    }
}

#[cfg(test)]
#[path = "p2p_search_split_tests.rs"]
mod tests;
