//! Failed-literal probing ("shaving") for the search ([`super`]): before
//! a hard decision of `k` hosts, allowed pairs `(c, s)` are tried alone,
//! "client `c` on server `s` with at most `k` hosts", each by a search of
//! at most [`PER_PROBE`] nodes (a last, deeper pass of [`ESCALATE`] times
//! that when the passes fade and the decision is still open). A probe
//! that finishes without a solution
//! proves that no assignment with at most `k` hosts puts `c` on `s`, so
//! the pair is dropped for this decision; a probe that finds a solution
//! answers it. Dropping pairs narrows every window, option count and
//! orphan bound at every node of the decision that follows.
//!
//! Without a lower limit, a refuted pair refutes every later pair of the
//! same server whose same-host pair with it fits ([`Search::drop_above`]),
//! so each server needs only a binary search over its list for the first
//! refuted position: `O(log m)` probes per server instead of one per pair.
//! Measured at 200 servers × 1,000 clients (f = 1.3, seed 1, k = 6): one
//! pass drops 9,629 of 88,300 pairs with 26,000 probe nodes, where a probe
//! of every pair with 2 nodes each dropped 9,636 with 167,000. With a
//! lower limit that monotonicity fails: the probes run under the upper
//! limit alone, and not at all in the variation stage, whose critical
//! pairs narrow the search more (`decide_lower`).
//!
//! A pass's servers are probed on the run's threads ([`super::pass`]):
//! the same pairs dropped, or the same solution found, on any count.
//!
//! Complexity: a pass is `O(n · log m)` probes of at most [`PER_PROBE`]
//! nodes each (the escalated pass [`ESCALATE`] times that), for `n`
//! servers and `m` clients.

use super::descent::Descent;
pub(crate) use super::pass::PassThreads;
use super::{Search, State, Stop};
use crate::lp::model_out::install;
use crate::problems::spd::exact::p2p::{pair_q, Limits};
use crate::problems::spd::exact::{p2p_support, Deadline, Probe};
use crate::problems::spd::model::SpdInstance;
use std::ops::ControlFlow;
use std::sync::atomic::AtomicUsize;
use std::sync::Arc;

/// Nodes of the first plain search of a decision (most decisions end
/// there; probing runs only when it does not).
pub(crate) const FIRST_TRY: u64 = 20_000;

/// Nodes a probe may take (its first is its propagation and bounds).
pub(super) const PER_PROBE: u64 = 20;

/// Most probing passes of one decision.
const MAX_PASSES: usize = 4;

/// Passes stop once one drops fewer than `1 / FADE` of the pairs the
/// first pass dropped: later passes cost as much as the first and, on the
/// 200-server instances, such a pass was followed by one dropping less
/// still (f = 1.3, seed 3, k = 5: 11,118, 1,220, 257, 69 pairs for
/// 27,000–31,000 nodes each), while the plain search between them is a
/// restart from scratch.
const FADE: usize = 8;

/// Once the passes fade (or [`MAX_PASSES`] ran) and a plain search as
/// long as a deeper pass would take still leaves the decision open, one
/// last pass probes with this many times [`PER_PROBE`] nodes a probe: the
/// refutations 20 nodes miss, which decide the final search's size where
/// it is large. Measured (200 × 1,000, host stage; `docs/spd-scale.md`,
/// twenty-seventh round): one thread, CPU time, f = 1.0 seed 3 102.9 →
/// 42.6 s (the refutation of 14 hosts 6.95 → 1.78 million nodes), f = 1.1
/// seed 2 136.9 → 110.2 s, seed 1 78.7 → 65.8 s (×4: 65.7 s at f = 1.0
/// seed 3; ×16: 45.1 s there and 121.7 s at f = 1.1 seed 2; every pass at
/// 150 nodes: 40.1 and 124.3 s, but twice the time at f = 1.3). Two
/// threads, 60 s: f = 1.1 seed 2 proven in 57.0 s (undecided before), f
/// = 1.0 seed 3 52.2 → 25.0 s, f = 1.1 seed 1 41.5 → 36.7 s; f = 1.2 seeds
/// 1 and 3 9.4 → 13.1 s and 9.3 → 13.3 s while the passes ran on one
/// thread (on both since [`super::pass`]: host stage 11.3 → 8.6 s and
/// 11.4 → 8.3 s).
/// Not under a descent: at 160 × 800 the delay stage took 2.9 → 6.0 s
/// (f = 1.1 seed 3) and 3.4 → 6.6 s (f = 1.0 seed 3) with it.
pub(super) const ESCALATE: u64 = 8;

#[cfg(test)]
thread_local! {
    /// Deeper passes ([`ESCALATE`]) run on this thread (per thread, so that
    /// a test counts its own decisions, not those of tests beside it).
    pub(super) static ESCALATED: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// What a probing pass found.
pub(crate) enum Shave {
    /// A probe found a solution with at most `k` hosts.
    Found(Probe),
    /// The pairs that survive, per server (the dropped ones removed), and
    /// how many were dropped.
    Kept(Vec<Vec<(usize, f64)>>, usize),
    /// The deadline hit, or the search thread failed: nothing is dropped.
    Stopped(String),
}

/// How a pass ended inside the search thread.
pub(super) enum PassEnd {
    /// Per server and list position: refuted?
    Dead(Vec<Vec<bool>>),
    /// A probe's complete state.
    Solution(Box<State>),
}

impl Search<'_> {
    /// One probing pass at `k` hosts with `per_probe` nodes a probe on
    /// `on`'s threads ([`Search::probe_pass`]; upper limit only: with a
    /// lower limit nothing is probed).
    pub(crate) fn shave(&mut self, k: usize, per_probe: u64, on: PassThreads) -> Shave {
        self.k = k;
        let run = self.probe_pass(per_probe, on);
        let dead = match run {
            Err(why) => return Shave::Stopped(why),
            Ok(Err(Stop::Deadline | Stop::Beaten)) => {
                return Shave::Stopped("the deadline was hit".into())
            }
            Ok(Err(Stop::Budget)) => return Shave::Stopped("probe budget".into()),
            Ok(Ok(PassEnd::Solution(st))) => return Shave::Found(self.found(*st)),
            Ok(Ok(PassEnd::Dead(dead))) => dead,
        };
        let mut dropped = 0;
        let kept = self
            .lists
            .iter()
            .zip(&dead)
            .map(|(list, d)| {
                let keep: Vec<(usize, f64)> = list
                    .iter()
                    .zip(d)
                    .filter(|(_, &gone)| !gone)
                    .map(|(p, _)| *p)
                    .collect();
                dropped += list.len() - keep.len();
                keep
            })
            .collect();
        Shave::Kept(kept, dropped)
    }

    /// Per server, a binary search for its first refuted position; every
    /// later one that fits with it is refuted too.
    pub(super) fn probe_all(&mut self, per_probe: u64) -> Result<PassEnd, Stop> {
        let root = self.root_state();
        let mut dead: Vec<Vec<bool>> = self.lists.iter().map(|l| vec![false; l.len()]).collect();
        if self.lim.lo > f64::NEG_INFINITY || self.k == 0 {
            return Ok(PassEnd::Dead(dead));
        }
        for (s, d) in dead.iter_mut().enumerate() {
            if let Some(done) = self.probe_server(&root, s, per_probe, d, || false)? {
                return Ok(PassEnd::Solution(done));
            }
        }
        Ok(PassEnd::Dead(dead))
    }

    /// Server `s`'s binary search for its first refuted position, marked
    /// in `dead` with every later one it refutes; `Some` a probe's
    /// solution. `abandon` is looked at before each probe (then
    /// `Err(Stop::Beaten)`: a parallel pass knows a solution at an earlier
    /// server, [`super::pass`]).
    pub(super) fn probe_server(
        &mut self,
        root: &State,
        s: usize,
        per_probe: u64,
        dead: &mut [bool],
        abandon: impl Fn() -> bool,
    ) -> Result<Option<Box<State>>, Stop> {
        let (mut lo, mut hi) = (0, dead.len());
        while lo < hi {
            if abandon() {
                return Err(Stop::Beaten);
            }
            let mid = lo + (hi - lo) / 2;
            match self.probe_one(root, s, mid, per_probe)? {
                Some(done) => return Ok(Some(done)),
                None if self.refuted => hi = mid,
                None => lo = mid + 1,
            }
        }
        self.drop_above(s, hi, dead);
        Ok(None)
    }

    /// Probes position `i` of server `s`: `Some` a solution, else
    /// `self.refuted` says whether the probe refuted the pair.
    fn probe_one(
        &mut self,
        root: &State,
        s: usize,
        i: usize,
        per_probe: u64,
    ) -> Result<Option<Box<State>>, Stop> {
        let mut st = root.clone();
        self.put(&mut st, s, i);
        self.budget = self.nodes.saturating_add(per_probe);
        self.refuted = false;
        match self.dfs(st) {
            // probing for another search's limits: the pair stays
            Ok(Some(_)) if self.probes_only => Ok(None),
            Ok(Some(done)) => Ok(Some(Box::new(done))),
            Ok(None) => {
                self.refuted = true;
                Ok(None)
            }
            Err(Stop::Budget) => Ok(None),
            Err(stop) => Err(stop),
        }
    }

    /// Without a lower limit, position `p` of `s` refuted refutes every
    /// later position `i` whose same-host pair with `p` fits: moving
    /// client `p` onto `s` in a solution with client `i` on `s` keeps it a
    /// solution (`p`'s pairs are no larger than `i`'s, the pair `(p, i)`
    /// fits, and the host count does not grow).
    pub(super) fn drop_above(&self, s: usize, p: usize, dead: &mut [bool]) {
        let Some(&(_, x)) = self.lists[s].get(p) else {
            return;
        };
        dead[p] = true;
        for (i, gone) in dead.iter_mut().enumerate().skip(p + 1) {
            let y = self.lists[s][i].1;
            *gone = self.lim.hi_ok(pair_q(self.inst, s, x, s, y));
        }
    }
}

/// Decides "at most `k` hosts within `lim`" over `lists`
/// ([`allowed_pairs`](crate::problems::spd::exact::p2p::allowed_pairs)):
/// a plain search of [`FIRST_TRY`] nodes; when that does not settle it, a
/// probing pass ([`Search::shave`]) drops the refuted pairs, the pair
/// filter's support rounds drop what lost its support, and the search is
/// tried again with as many nodes as the pass took; after [`MAX_PASSES`]
/// passes, a pass that drops nothing, or one that drops under `1 /`
/// [`FADE`] of what the first dropped, the search is tried with
/// [`ESCALATE`] times the pass's nodes and then one deeper pass runs
/// ([`ESCALATE`] times [`PER_PROBE`] nodes a probe; not under a descent,
/// whose final search starts at once); then the search runs without a
/// node limit (the deadline still holds), split over the run's threads
/// ([`Search::decide_split`]: the same answer on any thread count). With a
/// lower limit, see `decide_lower`. `None` when the search declines the
/// instance.
pub(crate) fn decide_probed(
    inst: &SpdInstance,
    lim: Limits,
    lists: Vec<Vec<(usize, f64)>>,
    k: usize,
    dl: &Deadline,
    busy: Option<&AtomicUsize>,
) -> Option<Probe> {
    let plan = Plan {
        busy,
        ..Plan::default()
    };
    decide_planned(inst, lim, lists, k, plan, dl)
}

/// How [`decide_planned`] runs a decision.
pub(crate) struct Plan<'b> {
    /// Nodes of the first plain search ([`FIRST_TRY`]; the tests cut it
    /// to make every decision probe).
    pub first_try: u64,
    /// Decisions running side by side ([`Search::decide_split`]).
    pub busy: Option<&'b AtomicUsize>,
    /// The branch and bound the decision belongs to
    /// ([`super::descent`]): then "infeasible" means that nothing beats
    /// the descent's best solution.
    pub descent: Option<Arc<Descent>>,
    /// The upper limit is the proven least delay at `k` hosts (the
    /// variation stage): every solution has a pair of exactly that
    /// delay, and the search runs one piece per such pair
    /// ([`Search::decide_critical`]).
    pub critical: bool,
    /// Nodes a probe may take in the first passes ([`PER_PROBE`]; the
    /// tests cut it so that small decisions reach the deeper pass, of
    /// [`ESCALATE`] times this many).
    pub per_probe: u64,
    /// Whether a plain search follows each pass (the tests turn them off,
    /// so that small decisions reach the deeper pass).
    pub restarts: bool,
    /// Servers whose opening the branching prefers ([`Search::prefer`]:
    /// the host stage's incumbent's hosts).
    pub prefer: Option<Arc<Vec<bool>>>,
    /// Whether the final split search ends at the first solution its
    /// threads find, not the leftmost ([`Search::first_solution_wins`]:
    /// the host stage, where any solution answers the count).
    pub first_solution: bool,
}

impl Default for Plan<'_> {
    fn default() -> Self {
        Plan {
            first_try: FIRST_TRY,
            busy: None,
            descent: None,
            critical: false,
            per_probe: PER_PROBE,
            restarts: true,
            prefer: None,
            first_solution: false,
        }
    }
}

/// [`decide_probed`] as `plan` says.
pub(crate) fn decide_planned(
    inst: &SpdInstance,
    lim: Limits,
    lists: Vec<Vec<(usize, f64)>>,
    k: usize,
    plan: Plan,
    dl: &Deadline,
) -> Option<Probe> {
    if lim.lo > f64::NEG_INFINITY {
        return decide_lower(inst, lim, lists, k, plan, dl);
    }
    let threads = install(dl, rayon::current_num_threads);
    let descent = plan.descent.is_some();
    let on = PassThreads {
        threads,
        busy: plan.busy,
    };
    let mut first = Search::new(inst, lim, lists, dl.clone())?;
    first.prefer(plan.prefer.clone());
    let mut search = match probed(inst, first, k, &plan, on) {
        ControlFlow::Continue(search) => search,
        ControlFlow::Break(settled) => return settled,
    };
    if descent {
        search.enable_caps();
    }
    search.first_solution_wins(plan.first_solution);
    Some(search.decide_split(k, threads, plan.busy))
}

/// The plain searches and probing passes before a decision's final
/// search: `Continue` with the search over the pairs kept, or `Break`
/// with the decision's answer when one of them settled it (`None`: the
/// search declined the instance).
fn probed<'a>(
    inst: &'a SpdInstance,
    mut search: Search<'a>,
    k: usize,
    plan: &Plan,
    on: PassThreads,
) -> ControlFlow<Option<Probe>, Search<'a>> {
    let dl = search.deadline.clone();
    search.set_descent(plan.descent.clone());
    let mut budget = plan.first_try;
    let mut first_drop = None;
    let (mut per_probe, mut passes) = (plan.per_probe, 0);
    loop {
        let now = if passes == 0 || plan.restarts {
            budget
        } else {
            0
        };
        match search.decide(k, now) {
            Probe::Unknown(_) if !dl.expired() => {}
            settled => return ControlFlow::Break(Some(settled)),
        }
        let before = search.nodes();
        #[cfg(test)]
        if per_probe > plan.per_probe {
            ESCALATED.with(|n| n.set(n.get() + 1));
        }
        let (mut kept, dropped) = match search.shave(k, per_probe, on) {
            Shave::Found(p) => return ControlFlow::Break(Some(p)),
            Shave::Stopped(why) => return ControlFlow::Break(Some(Probe::Unknown(why))),
            Shave::Kept(kept, dropped) => (kept, dropped),
        };
        // (a descent's probes may have tightened the limit)
        let lim = search.lim;
        if dropped > 0 && support(inst, &lim, &mut kept).is_err() {
            return ControlFlow::Break(Some(Probe::Infeasible));
        }
        let pass_nodes = search.nodes() - before;
        budget = budget.max(pass_nodes).max(1);
        let Some(next) = Search::new(inst, lim, kept, dl.clone()) else {
            return ControlFlow::Break(None);
        };
        search = next;
        search.set_descent(plan.descent.clone());
        search.prefer(plan.prefer.clone());
        passes += 1;
        let first = *first_drop.get_or_insert(dropped);
        let faded = passes >= MAX_PASSES || dropped == 0 || dropped.saturating_mul(FADE) < first;
        if per_probe > plan.per_probe || (faded && plan.descent.is_some()) {
            return ControlFlow::Continue(search);
        }
        if faded {
            // a plain search about as long as a deeper pass, then that pass
            budget = budget.max(pass_nodes.saturating_mul(ESCALATE));
            per_probe = plan.per_probe.saturating_mul(ESCALATE);
        }
    }
}

/// A decision with a lower limit: the probes run under the upper limit
/// alone (a pair refuted there is refuted under both, and without a lower
/// limit refutations extend along each server's list,
/// [`Search::drop_above`]); a probe's solution there answers nothing. Then
/// the search runs with both limits, split over the run's threads. With
/// [`Plan::critical`] (the variation stage) nothing is probed and the
/// search runs one piece per critical pair ([`Search::decide_critical`]).
fn decide_lower(
    inst: &SpdInstance,
    lim: Limits,
    mut lists: Vec<Vec<(usize, f64)>>,
    k: usize,
    plan: Plan,
    dl: &Deadline,
) -> Option<Probe> {
    let Plan {
        busy,
        descent,
        critical,
        ..
    } = plan;
    let upper = Limits {
        lo: f64::NEG_INFINITY,
        ..lim
    };
    let threads = install(dl, rayon::current_num_threads);
    let on = PassThreads { threads, busy };
    let mut first_drop = None;
    // (the critical pairs' roots are narrow enough: at 160 × 800, f = 1.2
    // seed 1, the stage took 3.0 s with these passes, 1.2 s without)
    let passes = if critical { 0 } else { MAX_PASSES };
    for _ in 0..passes {
        let mut probing = Search::new(inst, upper, lists.clone(), dl.clone())?;
        probing.probes_only = true;
        let (mut kept, dropped) = match probing.shave(k, PER_PROBE, on) {
            Shave::Found(_) | Shave::Kept(_, 0) => break,
            Shave::Stopped(why) => return Some(Probe::Unknown(why)),
            Shave::Kept(kept, dropped) => (kept, dropped),
        };
        if support(inst, &upper, &mut kept).is_err() {
            return Some(Probe::Infeasible);
        }
        lists = kept;
        let first = *first_drop.get_or_insert(dropped);
        if dropped.saturating_mul(FADE) < first {
            break;
        }
    }
    let mut search = Search::new(inst, lim, lists, dl.clone())?;
    search.set_descent(descent);
    if critical {
        return Some(search.decide_critical(k, lim.hi, threads, busy));
    }
    Some(search.decide_split(k, threads, busy))
}

/// The pair filter's support rounds until nothing more drops; `Err` when a
/// client is left without a pair.
fn support(inst: &SpdInstance, lim: &Limits, lists: &mut [Vec<(usize, f64)>]) -> Result<(), usize> {
    let size = |l: &[Vec<(usize, f64)>]| l.iter().map(Vec::len).sum::<usize>();
    loop {
        let before = size(lists);
        p2p_support::round(inst, lim, lists)?;
        if size(lists) == before {
            return Ok(());
        }
    }
}
