//! Solve status shared by every problem (problems.md "Results, status and gap").

use serde::{Deserialize, Serialize};
use std::fmt;

/// How an engine's run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// A solution proven optimal.
    Optimal,
    /// A valid solution whose optimality is unknown (every heuristic).
    Feasible,
    /// Proven: no feasible solution exists.
    Infeasible,
    /// The time limit was hit; the run may carry an incumbent.
    TimeLimit,
    /// The engine failed (bad input, a refusal, a heuristic that found nothing).
    Error,
}

impl Status {
    /// The lower-case name used in files and tables.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Optimal => "optimal",
            Status::Feasible => "feasible",
            Status::Infeasible => "infeasible",
            Status::TimeLimit => "time_limit",
            Status::Error => "error",
        }
    }
}

/// Why a run ended in [`Status::Error`] (or produced nothing): typed, so
/// tables and filters need not parse messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FailureReason {
    /// The engine does not apply to this instance (e.g. a CS-only engine on a
    /// P2P instance).
    NotApplicable,
    /// The engine declined to run (e.g. k-best above its subset cap).
    Refused,
    /// A heuristic that found no solution (not a proof of infeasibility).
    NoSolution,
    /// The request or the instance is unusable (unknown engine, bad start).
    BadInput,
    /// The evaluator rejected the engine's solution, or its claimed bound.
    Rejected,
    /// The LP/MILP backend failed.
    SolverError,
    /// The engine panicked (caught by the runner).
    Panicked,
    /// An external command failed: it could not start, exited with a
    /// non-zero code, or a signal killed it.
    CommandFailed,
    /// A library caller's engine (a Python function) raised an exception.
    Raised,
}

impl FailureReason {
    /// The snake-case name used in files and tables.
    pub fn as_str(self) -> &'static str {
        match self {
            FailureReason::NotApplicable => "not_applicable",
            FailureReason::Refused => "refused",
            FailureReason::NoSolution => "no_solution",
            FailureReason::BadInput => "bad_input",
            FailureReason::Rejected => "rejected",
            FailureReason::SolverError => "solver_error",
            FailureReason::Panicked => "panicked",
            FailureReason::CommandFailed => "command_failed",
            FailureReason::Raised => "raised",
        }
    }
}

/// Which limit or event ended a run early (argmin's `TerminationReason`,
/// Clarabel's status): recorded beside [`Status`], so a node-limit stop and a
/// time-limit stop read differently even when both carry an incumbent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StopReason {
    /// The wall-clock deadline (`--time-limit`).
    TimeLimit,
    /// A search's node budget (e.g. `--host-search-nodes`).
    NodeLimit,
    /// An iteration limit (HiGHS's simplex/IPM iterations, a round cap).
    IterationLimit,
    /// A limit on the number of solutions found (HiGHS).
    SolutionLimit,
    /// A memory limit (HiGHS, or an engine's own cap on its model size).
    MemoryLimit,
    /// Ctrl-C, or a caller's interrupt flag.
    Interrupted,
    /// The engine declined to go on (its own size cap, a refusal).
    Refused,
}

impl StopReason {
    /// The snake-case name used in files and tables.
    pub fn as_str(self) -> &'static str {
        match self {
            StopReason::TimeLimit => "time_limit",
            StopReason::NodeLimit => "node_limit",
            StopReason::IterationLimit => "iteration_limit",
            StopReason::SolutionLimit => "solution_limit",
            StopReason::MemoryLimit => "memory_limit",
            StopReason::Interrupted => "interrupted",
            StopReason::Refused => "refused",
        }
    }
}

impl fmt::Display for StopReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Display for FailureReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Relative gap of `objective` to `best_known` as problems.md defines it:
/// `(objective − best) / best`. A best of zero gives 0 when equal, else infinity.
pub fn relative_gap(objective: f64, best_known: f64) -> f64 {
    if best_known == 0.0 {
        if objective == 0.0 {
            0.0
        } else {
            f64::INFINITY
        }
    } else {
        (objective - best_known) / best_known.abs()
    }
}

/// Feasibility tolerance (problems.md): a delay meets the bound `mu` when
/// `delay <= mu + 1e-9 * max(1, mu)`. An infinite delay (hosts that cannot
/// reach each other) meets no bound, not even an infinite one.
pub fn within_bound(delay: f64, mu: f64) -> bool {
    delay.is_finite() && delay <= mu + 1e-9 * mu.abs().max(1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bound_tolerance_and_infinity() {
        assert!(within_bound(100.0 + 1e-8, 100.0));
        assert!(!within_bound(100.001, 100.0));
        assert!(!within_bound(f64::INFINITY, f64::INFINITY));
        assert!(within_bound(5.0, f64::INFINITY));
    }
}
