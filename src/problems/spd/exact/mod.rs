//! Exact SPD (`exact`): proven minimum host count, then (unless
//! [`LEXICOGRAPHIC`] is off) least delay and least variation at
//! that count, on HiGHS (problems.md §1).
//!
//! # What `optimal` means
//!
//! * `optimal`: the whole objective is proven: the host count `|H|` is
//!   minimal and, when the lexicographic stages are on (the default), so are
//!   the delay and then the variation at that host count. `bound` = the
//!   proven minimum host count. With `--lexicographic false`, `optimal`
//!   covers the host count alone and the message says so.
//! * `time_limit` with `bound` = the host count: the host count is proven but
//!   a lexicographic stage hit the deadline; the message names the proven
//!   stage and the ones not proven, and the solution is the best found.
//! * `infeasible`: proven that no solution meets μ (CS: Γ > μ, `message`
//!   gives Γ; P2P: no host count is feasible, or a client has no
//!   usable server).
//! * `time_limit` with a lower `bound`: the deadline ([`SolveOptions::time_limit`], for the whole
//!   run, heuristics included) hit before the host count was proven; the
//!   best solution found (the heuristics' at least) is returned and `bound` is
//!   a proven lower bound on `|H|`.
//! * `error`: HiGHS failed (its message is passed on). Never a panic.
//!
//! Every model decides feasibility with exactly the evaluator's arithmetic:
//! pair delays are computed in the evaluator's order and compared with
//! [`within_bound`](crate::core::within_bound); the MILPs only see 0/1
//! structure (who may serve whom, which pairs of choices conflict), so the
//! solver's float tolerances cannot make a claim wrong. Every returned
//! solution is re-checked by the evaluator in [`run_spd`](crate::problems::spd::engines::run_spd).
//! Every stage's proof is an infeasibility claim of HiGHS (or a bound); since
//! HiGHS's MIP presolve has been seen to declare feasible tests infeasible
//! (issue 10), [`minimise`](crate::lp::highs::minimise) accepts `Infeasible`
//! only when a re-solve without presolve agrees.
//!
//! # CS model (per root, [`cs`])
//!
//! For a root `r`, server `s` *covers* client `c` iff
//! `within_bound(2·(a(c,s) + D(s,r)), μ)`. The least host count with root `r`
//! is the set cover
//!
//! ```text
//! min Σ_s y_s   s.t.  y_r = 1,   Σ_{s covers c} y_s >= 1  ∀c,   y ∈ {0,1}
//! ```
//!
//! (clients covered by `r` are dropped; the cover is over the other servers).
//! `k* = min_r` of it. Each cover is decided by [`cover`]: the classical
//! reductions (rows no column covers, forced columns, dominated rows and
//! columns, to a fixpoint, on bitsets), then a depth-first branch and
//! bound with packing, ratio and Lagrangian bounds and reduced-cost column
//! fixing; only a cover whose search exceeds [`cs::NODE_BUDGET`] nodes goes
//! to HiGHS as the MILP above (on the reduced rows). No path table is
//! kept: a root's rows cost `O(n·m)` from `a` and `D`. The roots are solved
//! in parallel (rayon), ordered by their greedy cover (which also seeds
//! the incumbent, with `spdcs-h` and `alg-m`); each root looks only for a
//! cover below the best host count known when it starts, so "none" proves
//! the root cannot beat it.
//!
//! Lexicographic stages (all exact, each test a cover of one root's
//! allowed pairs, [`cs`]'s `lex`):
//! * delay: the least `T` among the path values `p(c,s,r)` (with `2p`
//!   within μ) such that some root has a cover of size `<= k*` using only
//!   pairs with `p <= T`. Roots whose floor (their least longest path with
//!   any number of hosts) is not below the best `T` found are skipped; the
//!   others are tested just below the best `T`, again while a test finds a
//!   cover (each lowers the best), so each root ends with one failed test.
//!   `D* = 2·T*`.
//! * variation: at `T*`, the largest `L` such that some root has a cover
//!   of size `<= k*` using only pairs with `L <= p <= T*`, the same way
//!   (a root's ceiling: `min_c max_{s, p <= T*} p`); each client then takes
//!   its host with the longest path within the window (the largest `L`
//!   the host set allows). `V* = 2·(T* − L*)`.
//!
//! # P2P ([`p2p_search`], [`p2p_hosts`], [`p2p_lex`]; MILP in [`p2p`])
//!
//! Every P2P test, "is there an assignment with at most `k` hosts whose pair
//! delays fit the limits?", is decided by a depth-first constraint search
//! ([`p2p_search`]): per host the envelope of its clients' accesses, per
//! server the window of accesses a client may still take there (pair delays
//! are monotone, so only envelope extremes matter), free and forced
//! clients, an orphan lower bound, and branching on the client with fewest
//! options; a decision that 20,000 nodes do not settle is helped by
//! probing (`p2p_search_probe`: pairs `(client, server)` refuted by a short
//! search alone are dropped for that decision; with a lower limit the
//! probes run under the upper one alone).
//! The host stage ([`p2p_hosts`]) decides `k = 1, 2, …` up to the
//! incumbent's count; the first feasible `k` is proven minimal. The
//! lexicographic stages run the same search as a branch and bound
//! (`p2p_search_descent`), the delay stage after *delay dives*
//! (`p2p_lex_dives`: large-neighbourhood dives that re-place the clients
//! of the hosts at the largest delay, which only move its start): one
//! search from just below the incumbent's
//! delay whose upper limit drops below every solution it finds, then one
//! at `θ = D*` whose lower limit rises above every solution's smallest
//! pair; the last solution of each is optimal when the search ends.
//! Instances too large for the search (bitsets over
//! `p2p_search::MAX_PREFIX_WORDS` words, or over
//! `p2p_search::MAX_CLIENTS` clients) use the level-indicator MILP
//! instead, stated next; the two are checked against each other and
//! against brute force in the tests.
//!
//! The MILP: `x_cs ∈ {0,1}`: client `c` uses server `s` (only for pairs that can meet μ
//! with every other client somewhere); `Σ_s x_cs = 1`. Per server `s`, the
//! distinct access latencies of its possible clients sorted ascending,
//! `α_s0 < α_s1 < …`, and level indicators `z_sk ∈ {0,1}` = "some client with
//! access `>= α_sk` uses `s`": `z_s,k+1 <= z_sk`, `x_cs <= z_s,lev(c,s)`.
//! `z_s0` is "s is a host"; the objective is `min Σ_s z_s0`.
//! * cross-host pairs, exactly: for `s < t`, levels `k`, `l` with
//!   `(α_sk + D(s,t)) + α_tl` over the bound: `z_sk + z_tl <= 1` (only the
//!   staircase of minimal conflicting pairs is emitted; the rest follows from
//!   monotonicity). Disconnected servers get `z_s0 + z_t0 <= 1`.
//! * same host, distinct clients only: a level is *big* when two clients at
//!   it would break the bound; at most one client of a server is at a big
//!   level (`Σ_{big} x_cs <= 1`), and with `w_sl` = "some non-big client at
//!   level `>= l`" (monotone, `x_js <= w_s,lev(j,s)`), each big level `k`
//!   conflicts with the first non-big level `l` it cannot pair with:
//!   `z_sk + w_sl <= 1`.
//!
//! A single client needs one host (its delay is 0 by definition).
//!
//! On the MILP route, one and two hosts are decided by enumeration first
//! ([`p2p_few`]): one host = every client on one server; two
//! hosts `{s, t}` = a 2-SAT over "client on `s` or on `t`" whose clauses are
//! the conflicting pairs of choices.
//!
//! On the MILP route, lexicographic delay for P2P: the test with the bound `θ` (a pair
//! fits iff it meets μ and `q <= θ`) and at most `k*` hosts: first a test of the
//! next candidate below the incumbent's delay (heuristics are often optimal),
//! then bisection between a
//! proven-infeasible `θ` and the delay of the best solution found, first on
//! reals while more than [`CANDIDATE_LIMIT`] candidate pair values lie
//! between them, then over the explicit sorted list of candidate values
//! `a(i,s) + D(s,t) + a(j,t)`, so the result is exact.
//! Variation for P2P: the test on both sides (the search's envelopes have
//! both extremes; the MILP mirrors its level indicators over descending
//! access latencies to forbid pairs with `q < L`), and the largest
//! feasible `L` at `θ = D*` is searched the same way.
//!
//! Complexity: exponential in the worst case (set cover and the P2P model
//! are NP-hard); per CS test up to `n` set covers of `n` columns and `m`
//! rows, each `O(n·m)` to build and reduce before its search; a
//! P2P search node costs `O(n·m/64 + n·log m + Σ_s |window_s|)`; the P2P
//! MILP has `O(n·m)` binaries and `O(n²·m)` conflict rows.

pub mod cover;
pub mod cs;
pub mod p2p;
pub mod p2p_few;
pub mod p2p_hosts;
pub mod p2p_lex;
pub mod p2p_search;
pub(crate) mod p2p_support;

use crate::core::engine::{Ctx, Engine};
use crate::core::{SolveOptions, StageTime, Status};
use crate::problems::spd::algorithm_matching::AlgorithmMatching;
use crate::problems::spd::engines::{SpdOutcome, LEXICOGRAPHIC};
use crate::problems::spd::eval::{evaluate_spd, SpdMetrics};
use crate::problems::spd::host_lns::host_lns_from;
use crate::problems::spd::host_ls::{host_ls_from, START_ENGINES};
use crate::problems::spd::host_search::{host_search_from, HOST_SEARCH_NODES};
use crate::problems::spd::model::{CommModel, SpdInstance, SpdSolution};
use crate::problems::spd::spdcs_h::SpdcsH;

/// At most this many explicit candidate delay values are listed for the
/// P2P delay/variation searches; above it, bisection runs on reals first.
pub const CANDIDATE_LIMIT: usize = 200_000;

/// `exact`.
pub struct ExactSpd;

pub(crate) use crate::core::Deadline;

/// A solution with the evaluator's metrics (only feasible ones are kept).
#[derive(Debug, Clone)]
pub(crate) struct Scored {
    /// The solution.
    pub sol: SpdSolution,
    /// Its metrics, from [`evaluate_spd`].
    pub metrics: SpdMetrics,
}

/// Evaluates `sol`; `None` unless feasible.
pub(crate) fn score(inst: &SpdInstance, sol: SpdSolution) -> Option<Scored> {
    let ev = evaluate_spd(inst, &sol);
    if !ev.is_feasible() {
        return None;
    }
    ev.metrics.map(|metrics| Scored { sol, metrics })
}

/// Keeps the lexicographically better of `best` and `cand`.
pub(crate) fn keep_better(best: &mut Option<Scored>, cand: Option<Scored>) {
    if let Some(c) = cand {
        if best
            .as_ref()
            .is_none_or(|b| c.metrics.better_than(&b.metrics))
        {
            *best = Some(c);
        }
    }
}

/// The best heuristic solution (the incumbent the exact search starts from).
pub(crate) fn heuristic_incumbent(inst: &SpdInstance, ctx: &Ctx) -> Option<Scored> {
    // The paper's heuristics are cheap and always run, so that even a run
    // out of time has an incumbent; host-ls only while time is left.
    // (host-ls starts from the same P2P heuristics' solutions: they run once)
    let engines: &[&dyn Engine<SpdInstance>] = match inst.model {
        CommModel::Cs => &[&AlgorithmMatching, &SpdcsH],
        CommModel::P2p => &START_ENGINES,
    };
    let sols: Vec<SpdSolution> = engines
        .iter()
        .filter_map(|e| e.solve(inst, ctx).solution)
        .collect();
    let mut best = None;
    for sol in &sols {
        keep_better(&mut best, score(inst, sol.clone()));
    }
    if inst.model == CommModel::P2p && !ctx.deadline.expired() {
        if let Some(sol) = host_ls_from(inst, sols) {
            keep_better(&mut best, score(inst, sol));
        }
    }
    best
}

/// The exact search's start: the heuristics' best and, for P2P, what
/// `host-search` and then `host-lns` make of it (same budgets and seed as
/// the engines, so `exact` is never worse than either); with the lower
/// bound on the host count, raised to the start's count when
/// `host-search` proved it minimal.
fn start(inst: &SpdInstance, ctx: &Ctx, known_lb: usize) -> (Option<Scored>, usize) {
    let incumbent = heuristic_incumbent(inst, ctx);
    if inst.model == CommModel::Cs {
        return (incumbent, known_lb);
    }
    let nodes = ctx.opts.count(&HOST_SEARCH_NODES);
    let dl = ctx.deadline.clone();
    match host_search_from(inst, incumbent, nodes, ctx.opts.seed, dl.clone()) {
        (Some(sc), true) => {
            let lb = known_lb.max(sc.metrics.hosts);
            (Some(sc), lb)
        }
        (best, _) => (host_lns_from(inst, best, ctx.opts, &dl), known_lb),
    }
}

/// How the host-count stage ended.
pub(crate) enum HostStage {
    /// Proven minimum; the solution has that many hosts.
    Proven(Scored),
    /// Proven infeasible; the message says why.
    Infeasible(String),
    /// Deadline hit: the best solution (if any) and a proven lower bound.
    Unproven(Option<Scored>, usize),
    /// HiGHS failed.
    Failed(String, Option<Scored>),
}

/// The result of the lexicographic stages: the final solution and the notes
/// on stages that were not proven (empty when all were).
pub(crate) struct LexResult {
    /// Best solution found (host count `k*`).
    pub best: Scored,
    /// Stages not proven, for the message.
    pub notes: Vec<String>,
    /// The stages run (`delay`, `variation`) and their wall times.
    pub stages: Vec<StageTime>,
}

/// A single client: any server it can reach is a one-host solution with
/// delay 0 (CS: rooted there; the root with least access wins).
fn single_client(inst: &SpdInstance) -> SpdOutcome {
    let row = inst.access_row(0);
    let best = (0..row.len())
        .filter(|&s| row[s].is_finite())
        .min_by(|&a, &b| row[a].total_cmp(&row[b]));
    let Some(s) = best else {
        return outcome(Status::Infeasible, None, None, "client 0 reaches no server");
    };
    let root = (inst.model == CommModel::Cs).then_some(s);
    let sol = SpdSolution {
        root,
        assign: vec![s],
    };
    match score(inst, sol) {
        Some(sc) => outcome(
            Status::Optimal,
            Some(sc.sol),
            Some(1.0),
            "proven lexicographic optimum (a single client: one host, least delay)",
        ),
        None => outcome(
            Status::Infeasible,
            None,
            None,
            &format!(
                "Γ = {} > μ = {}: the single client's least CS delay exceeds the bound",
                inst.gamma, inst.bound
            ),
        ),
    }
}

fn outcome(status: Status, sol: Option<SpdSolution>, bound: Option<f64>, msg: &str) -> SpdOutcome {
    SpdOutcome {
        status,
        solution: sol,
        bound,
        message: Some(msg.to_string()),
        reason: (status == Status::Error).then_some(crate::core::FailureReason::SolverError),
        stop: None,
        solver_status: None,
        stages: Vec::new(),
    }
}

/// Turns the stages' results into the engine's outcome.
fn finish(
    host: HostStage,
    lex: Option<LexResult>,
    lexicographic: bool,
    model: CommModel,
) -> SpdOutcome {
    match host {
        HostStage::Infeasible(msg) => outcome(Status::Infeasible, None, None, &msg),
        HostStage::Failed(msg, inc) => outcome(
            Status::Error,
            inc.map(|s| s.sol),
            None,
            &format!("HiGHS failed: {msg}"),
        ),
        HostStage::Unproven(inc, lb) => {
            let msg = format!("deadline hit before the host count was proven (lower bound {lb})");
            outcome(Status::TimeLimit, inc.map(|s| s.sol), Some(lb as f64), &msg)
        }
        HostStage::Proven(sc) => {
            let k = sc.metrics.hosts as f64;
            // `optimal` covers the whole objective: when a lexicographic stage
            // is not proven the run is `time_limit`, its bound the proven host
            // count, its message the stages proven and not.
            let mut status = Status::Optimal;
            let (sol, msg) = match lex {
                None if lexicographic => (sc.sol, "host count proven minimal".to_string()),
                None => (
                    sc.sol,
                    "host count proven minimal (lexicographic stages off)".to_string(),
                ),
                Some(l) if l.notes.is_empty() => (l.best.sol, proven_note(model)),
                Some(l) => {
                    status = Status::TimeLimit;
                    (
                        l.best.sol,
                        format!(
                            "proven stages: hosts (bound {k}); not proven: {}",
                            l.notes.join("; ")
                        ),
                    )
                }
            };
            outcome(status, Some(sol), Some(k), &msg)
        }
    }
}

fn proven_note(model: CommModel) -> String {
    match model {
        CommModel::Cs | CommModel::P2p => {
            "proven lexicographic optimum (hosts, then delay, then variation)".to_string()
        }
    }
}

/// Reports its stage times (`timing.stages`): `start` (the heuristics'
/// incumbent; for P2P also `host-search` and `host-lns`), `hosts`, and with
/// the lexicographic stages `delay` and `variation` (the pair filter or the
/// CS covers' setup counted in `delay`). For P2P the `hosts` stage lists
/// its decisions as steps (`at most k hosts`: the answer and wall time),
/// which say whether the stage's time went to refuting a count or to
/// finding a solution at one; the `delay` and `variation` stages list the
/// solutions their descents kept and end with the proof (`delay below
/// D*`), so the gap between the last find and the end is the proof's.
impl Engine<SpdInstance> for ExactSpd {
    fn name(&self) -> &str {
        "exact"
    }

    fn solve(&self, inst: &SpdInstance, ctx: &Ctx) -> SpdOutcome {
        let deadline = &ctx.deadline;
        if inst.clients() == 1 {
            return single_client(inst);
        }
        let mut stages = Vec::new();
        let (incumbent, lb) = StageTime::time(&mut stages, "start", || start(inst, ctx, 1));
        let (host, steps) = StageTime::time(&mut stages, "hosts", || match inst.model {
            CommModel::Cs => (cs::min_hosts(inst, incumbent, lb, deadline), Vec::new()),
            CommModel::P2p => p2p_hosts::min_hosts_steps(inst, incumbent, lb, deadline),
        });
        let undecided = p2p_hosts::undecided_note(&steps);
        if let Some(hosts) = stages.last_mut() {
            hosts.steps = steps;
        }
        let lexicographic = ctx.opts.flag(&LEXICOGRAPHIC);
        let mut lex = match (&host, lexicographic) {
            (HostStage::Proven(sc), true) => Some(match inst.model {
                CommModel::Cs => cs::lexicographic(inst, sc.clone(), deadline),
                CommModel::P2p => p2p_lex::lexicographic(inst, sc.clone(), deadline),
            }),
            _ => None,
        };
        if let Some(l) = lex.as_mut() {
            stages.append(&mut l.stages);
        }
        let mut out = finish(host, lex, lexicographic, inst.model);
        if let (Some(msg), Some(note)) = (out.message.as_mut(), undecided) {
            if out.status == Status::TimeLimit {
                msg.push_str(&note);
            }
        }
        out.with_stages(stages)
    }
}

/// The first two stages alone, for capacity planning (`plan spd`): the
/// least host count at the instance's bound and the least delay at that
/// count. The second field is `None` unless the host count is proven; then
/// it holds the least-delay solution and `None` when that delay is proven
/// (else why not).
pub(crate) fn hosts_then_delay(
    inst: &SpdInstance,
    opts: &SolveOptions,
    known_lb: usize,
) -> (HostStage, Option<(Scored, Option<String>)>) {
    let ctx = Ctx::new(opts);
    let deadline = ctx.deadline.clone();
    if inst.clients() == 1 {
        let out = single_client(inst);
        return match out.solution.and_then(|s| score(inst, s)) {
            Some(sc) => (HostStage::Proven(sc.clone()), Some((sc, None))),
            None => (HostStage::Infeasible(out.message.unwrap_or_default()), None),
        };
    }
    let (incumbent, lb) = start(inst, &ctx, known_lb);
    let host = match inst.model {
        CommModel::Cs => cs::min_hosts(inst, incumbent, lb, &deadline),
        CommModel::P2p => p2p_hosts::min_hosts(inst, incumbent, lb, &deadline),
    };
    let delay = match &host {
        HostStage::Proven(sc) => Some(match inst.model {
            CommModel::Cs => cs::min_delay(inst, sc.clone(), &deadline),
            CommModel::P2p => p2p_lex::min_delay(inst, sc.clone(), &deadline),
        }),
        _ => None,
    };
    (host, delay)
}

/// One feasibility test of a lexicographic stage.
pub(crate) enum Probe {
    /// A feasible solution meeting the tested threshold.
    Feasible(Scored),
    /// Proven: nothing meets the threshold (at host count `k*`).
    Infeasible,
    /// Deadline hit or HiGHS failed: the reason.
    Unknown(String),
}

/// A search over candidate thresholds in *key* space (`key = dir · value`,
/// ascending; a smaller key is more restrictive): finds the smallest key
/// whose test is feasible, knowing the keys below `lo` are infeasible and
/// `best` is feasible with key `value(best) · dir`.
pub(crate) struct KeySearch<'a> {
    /// Candidate values in key space, ascending, distinct.
    pub keys: &'a [f64],
    /// `+1` to minimise the value, `-1` to maximise it.
    pub dir: f64,
}

impl KeySearch<'_> {
    /// Runs the bisection; returns the best solution and `None` when the
    /// optimum is proven, or the reason it is not.
    pub(crate) fn run(
        &self,
        mut lo: usize,
        mut best: Scored,
        value: impl Fn(&Scored) -> f64,
        mut probe: impl FnMut(f64) -> Probe,
    ) -> (Scored, Option<String>) {
        let pos = |s: &Scored| {
            let k = self.dir * value(s);
            self.keys.partition_point(|&x| x < k)
        };
        let mut hi = pos(&best);
        let mut first = true;
        while lo < hi {
            // the incumbent is often optimal: try the next better key first
            let mid = if first { hi - 1 } else { lo + (hi - lo) / 2 };
            first = false;
            match probe(self.dir * self.keys[mid]) {
                Probe::Feasible(s) => {
                    hi = pos(&s).min(mid);
                    best = s;
                }
                Probe::Infeasible => lo = mid + 1,
                Probe::Unknown(why) => return (best, Some(why)),
            }
        }
        (best, None)
    }
}
