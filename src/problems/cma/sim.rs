//! The dynamic CMA simulation (problems.md §3, seed 002 §4): replay an
//! instance's joins and leaves under a policy (one join algorithm + one leave
//! algorithm, or `bf`), and record THE evaluator's metrics after every event.
//!
//! Policies: `j-sa/l-sa` (incremental), `j-sa-rebuild/l-sa-rebuild` (the
//! paper's `O(nk)` rebuild), `j-greedy/l-greedy`, `j-greedy/l-ignore`, `bf`
//! (re-solve with `exact-flow` after every event; transfers = clients whose
//! mirror changed), and `j-playnow/l-ignore` or `j-playnow/l-greedy` (the
//! joiner takes seed 000's best-ranked mirror, problems.md §5). J-SA and L-SA need an optimal state (paper §3.2), so they
//! are refused with a non-optimal partner or a non-optimal `start`.
//! `time_us` is the policy's own time per event (the evaluator is not timed).

use crate::error::{Error, Result};
use crate::problems::cma::eval::{count_transfers, evaluate_cma};
use crate::problems::cma::exact_flow::{exact_flow_graph, residual_potentials};
use crate::problems::cma::model::{CmaEvent, CmaInstance, CmaState};
use crate::problems::cma::moves::MoveGraph;
use crate::problems::cma::{join as cma_join, leave as cma_leave};
use serde::Serialize;
use std::time::Instant;

/// A join algorithm.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JoinAlg {
    /// J-greedy.
    Greedy,
    /// J-SA, incremental.
    Sa,
    /// J-SA with the paper's `MC`/`MP` rebuild.
    SaRebuild,
    /// J-playnow: seed 000's best-ranked mirror (problems.md §5).
    PlayNow,
}

/// A leave algorithm.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LeaveAlg {
    /// L-ignore.
    Ignore,
    /// L-greedy.
    Greedy,
    /// L-SA, incremental.
    Sa,
    /// L-SA with the paper's rebuild.
    SaRebuild,
}

/// A dynamic policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Policy {
    /// A join and a leave algorithm.
    Pair(JoinAlg, LeaveAlg),
    /// Brute force: `exact-flow` from scratch after every event.
    Bf,
}

/// The policies of the paper plus the rebuild pair, as the CLI spells them.
pub const POLICY_NAMES: [&str; 6] = [
    "j-sa/l-sa",
    "j-sa-rebuild/l-sa-rebuild",
    "j-greedy/l-greedy",
    "j-greedy/l-ignore",
    "bf",
    "j-playnow/l-ignore",
];

impl Policy {
    /// Parses `join/leave` or `bf`, refusing combinations that break J-SA's
    /// or L-SA's need for an optimal state.
    pub fn parse(s: &str) -> Result<Policy> {
        if s == "bf" {
            return Ok(Policy::Bf);
        }
        let usage = || {
            Error::Usage(format!(
                "unknown policy '{s}' (known: {})",
                POLICY_NAMES.join(", ")
            ))
        };
        let (j, l) = s.split_once('/').ok_or_else(usage)?;
        let join = match j {
            "j-greedy" => JoinAlg::Greedy,
            "j-sa" => JoinAlg::Sa,
            "j-sa-rebuild" => JoinAlg::SaRebuild,
            "j-playnow" => JoinAlg::PlayNow,
            _ => return Err(usage()),
        };
        let leave = match l {
            "l-ignore" => LeaveAlg::Ignore,
            "l-greedy" => LeaveAlg::Greedy,
            "l-sa" => LeaveAlg::Sa,
            "l-sa-rebuild" => LeaveAlg::SaRebuild,
            _ => return Err(usage()),
        };
        let join_sa = matches!(join, JoinAlg::Sa | JoinAlg::SaRebuild);
        let leave_sa = matches!(leave, LeaveAlg::Sa | LeaveAlg::SaRebuild);
        if join_sa != leave_sa {
            let (sa, other) = if join_sa { (j, l) } else { (l, j) };
            return Err(Error::Usage(format!(
                "policy '{s}' is refused: {sa} needs an optimal assignment and {other} does not keep one \
                 (seed 002 §3.2: J-SA/L-SA cannot be combined with a non-optimal algorithm); \
                 use j-sa/l-sa, j-sa-rebuild/l-sa-rebuild, j-greedy/l-greedy, j-greedy/l-ignore or bf"
            )));
        }
        if join_sa && ((join == JoinAlg::Sa) != (leave == LeaveAlg::Sa)) {
            return Err(Error::Usage(format!(
                "policy '{s}' mixes the incremental and the rebuild variants; \
                 use j-sa/l-sa or j-sa-rebuild/l-sa-rebuild"
            )));
        }
        Ok(Policy::Pair(join, leave))
    }

    /// True for J-SA/L-SA policies (they require an optimal start).
    pub fn needs_optimal_start(&self) -> bool {
        matches!(self, Policy::Pair(JoinAlg::Sa | JoinAlg::SaRebuild, _))
    }
}

/// Options of a simulation.
#[derive(Debug, Clone)]
pub struct SimOptions {
    /// Delay requirement for `under_threshold` (ms).
    pub threshold: f64,
    /// Also solve the static optimum of the present clients after every
    /// event (`optimal_total`), to compare with the policy.
    pub verify: bool,
}

impl Default for SimOptions {
    fn default() -> Self {
        SimOptions {
            threshold: crate::problems::cma::eval::DEFAULT_THRESHOLD_MS,
            verify: false,
        }
    }
}

/// One event's record (the row of `events.csv` / `events.jsonl`).
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct EventRecord {
    /// 1-based event number.
    pub step: usize,
    /// `join` or `leave`.
    pub kind: &'static str,
    /// The client row.
    pub client: usize,
    /// The joiner's mirror (joins only).
    pub mirror: Option<usize>,
    /// Present clients after the event.
    pub present: usize,
    /// Total delay of present clients (ms).
    pub total_delay: f64,
    /// Average delay (ms).
    pub avg_delay: f64,
    /// Maximum delay (ms).
    pub max_delay: f64,
    /// Present clients within the threshold.
    pub under_threshold: usize,
    /// Existing clients moved to another mirror by this event.
    pub transfers: usize,
    /// Policy time for this event, microseconds.
    pub time_us: f64,
    /// The static optimum of the present clients (with `verify`).
    pub optimal_total: Option<f64>,
}

/// A whole simulation.
#[derive(Debug, Clone)]
pub struct SimResult {
    /// Instance name.
    pub instance: String,
    /// Policy as given.
    pub policy: String,
    /// Threshold used.
    pub threshold: f64,
    /// One record per event.
    pub records: Vec<EventRecord>,
    /// The final assignment.
    pub final_assign: Vec<Option<usize>>,
}

enum Runner<'a> {
    Simple(CmaState, JoinAlg, LeaveAlg),
    Graph(Box<MoveGraph<'a>>),
    Bf(Vec<Option<usize>>),
}

impl<'a> Runner<'a> {
    fn new(inst: &'a CmaInstance, policy: Policy) -> Result<Self> {
        let start = inst
            .start
            .clone()
            .unwrap_or_else(|| vec![None; inst.clients()]);
        if policy.needs_optimal_start() {
            if let Err(gain) = residual_potentials(inst, &start) {
                return Err(Error::Usage(format!(
                    "J-SA/L-SA need an optimal start, and this start is not optimal \
                     (a chain of moves lowers its total delay by about {gain:.6} ms); \
                     start from an optimal assignment (e.g. the exact-flow solution) or use bf"
                )));
            }
        }
        Ok(match policy {
            Policy::Bf => Runner::Bf(start),
            Policy::Pair(JoinAlg::Sa, _) => {
                let mut g = MoveGraph::new(inst);
                g.bulk_place(
                    start
                        .iter()
                        .enumerate()
                        .filter_map(|(i, a)| a.map(|j| (i, j))),
                );
                let pot = residual_potentials(inst, &start)
                    .map_err(|_| Error::Solver("start lost optimality".into()))?;
                g.set_potentials(pot);
                g.normalise();
                Runner::Graph(Box::new(g))
            }
            Policy::Pair(j, l) => Runner::Simple(CmaState::from_assignment(inst, &start), j, l),
        })
    }

    fn assignment(&self) -> Vec<Option<usize>> {
        match self {
            Runner::Simple(s, _, _) => s.assignment().to_vec(),
            Runner::Graph(g) => g.assignment(),
            Runner::Bf(a) => a.clone(),
        }
    }

    fn apply(&mut self, inst: &'a CmaInstance, ev: CmaEvent) -> Result<()> {
        match (self, ev) {
            (Runner::Simple(s, j, _), CmaEvent::Join(i)) => match j {
                JoinAlg::SaRebuild => cma_join::j_sa_rebuild(inst, s, i).map(|_| ()),
                JoinAlg::PlayNow => cma_join::j_playnow(inst, s, i).map(|_| ()),
                _ => cma_join::j_greedy(inst, s, i).map(|_| ()),
            },
            (Runner::Simple(s, _, l), CmaEvent::Leave(i)) => match l {
                LeaveAlg::Ignore => cma_leave::l_ignore(s, i),
                LeaveAlg::Greedy => cma_leave::l_greedy(inst, s, i),
                _ => cma_leave::l_sa_rebuild(inst, s, i),
            }
            .map(|_| ()),
            (Runner::Graph(g), CmaEvent::Join(i)) => cma_join::j_sa(g, i).map(|_| ()),
            (Runner::Graph(g), CmaEvent::Leave(i)) => cma_leave::l_sa(g, i).map(|_| ()),
            (Runner::Bf(a), ev) => brute_force(inst, a, ev),
        }
    }
}

/// The paper's brute force (BF, seed 002 §4): after the event, re-solve the
/// static problem over the players present from scratch (exact, with
/// `exact-flow`'s min-cost flow), ignoring the current assignment. Cost: one
/// exact solve per event.
pub fn brute_force(
    inst: &CmaInstance,
    assign: &mut Vec<Option<usize>>,
    ev: CmaEvent,
) -> Result<()> {
    let slot = assign
        .get_mut(ev.client())
        .ok_or_else(|| Error::Usage(format!("event client {} is not a client row", ev.client())))?;
    *slot = match ev {
        CmaEvent::Join(_) => Some(usize::MAX),
        CmaEvent::Leave(_) => None,
    };
    let clients: Vec<usize> = (0..assign.len()).filter(|&i| assign[i].is_some()).collect();
    let g = exact_flow_graph(inst, &clients)?
        .ok_or_else(|| Error::Usage("more clients than the total capacity".into()))?;
    *assign = g.assignment();
    Ok(())
}

fn events_of(inst: &CmaInstance) -> Result<&[CmaEvent]> {
    inst.events.as_deref().ok_or_else(|| {
        Error::Usage(format!(
            "{}: the instance has no events (a static instance: use solve)",
            inst.name
        ))
    })
}

/// Replays the events under `policy` and records the evaluator's metrics
/// after every event.
pub fn simulate(inst: &CmaInstance, policy_name: &str, opts: &SimOptions) -> Result<SimResult> {
    let policy = Policy::parse(policy_name)?;
    let events = events_of(inst)?;
    let mut runner = Runner::new(inst, policy)?;
    let mut before = runner.assignment();
    let mut records = Vec::with_capacity(events.len());
    for (step, &ev) in events.iter().enumerate() {
        let started = Instant::now();
        runner.apply(inst, ev)?;
        let time_us = started.elapsed().as_secs_f64() * 1e6;
        let after = runner.assignment();
        let eval = evaluate_cma(inst, &after, opts.threshold);
        if !eval.is_feasible() {
            return Err(Error::Solver(format!(
                "event {}: policy {policy_name} produced an invalid state: {}",
                step + 1,
                eval.violations.join("; ")
            )));
        }
        let optimal_total = if opts.verify {
            Some(optimum_of(inst, &after)?)
        } else {
            None
        };
        let m = &eval.metrics;
        records.push(EventRecord {
            step: step + 1,
            kind: ev.kind(),
            client: ev.client(),
            mirror: match ev {
                CmaEvent::Join(i) => after[i],
                CmaEvent::Leave(_) => None,
            },
            present: m.present,
            total_delay: m.total_delay,
            avg_delay: m.avg_delay,
            max_delay: m.max_delay,
            under_threshold: m.under_threshold,
            transfers: count_transfers(&before, &after),
            time_us,
            optimal_total,
        });
        before = after;
    }
    Ok(SimResult {
        instance: inst.name.clone(),
        policy: policy_name.to_string(),
        threshold: opts.threshold,
        records,
        final_assign: before,
    })
}

/// The static optimum (total delay) of the clients present in `assign`.
pub fn optimum_of(inst: &CmaInstance, assign: &[Option<usize>]) -> Result<f64> {
    let clients: Vec<usize> = (0..assign.len()).filter(|&i| assign[i].is_some()).collect();
    let g = exact_flow_graph(inst, &clients)?
        .ok_or_else(|| Error::Usage("more clients than the total capacity".into()))?;
    Ok(clients
        .iter()
        .filter_map(|&i| g.mirror_of(i).map(|j| inst.delay(i, j)))
        .sum())
}

/// Replays the events under `policy` without evaluating: the policy's total
/// time in seconds and the event count (for benchmarks).
pub fn replay(inst: &CmaInstance, policy_name: &str) -> Result<(f64, usize)> {
    let policy = Policy::parse(policy_name)?;
    let events = events_of(inst)?;
    let mut runner = Runner::new(inst, policy)?;
    let started = Instant::now();
    for &ev in events {
        runner.apply(inst, ev)?;
    }
    Ok((started.elapsed().as_secs_f64(), events.len()))
}
