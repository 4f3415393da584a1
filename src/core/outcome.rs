//! What an engine returns ([`Outcome`]), what the evaluator says of it
//! ([`Verdict`]), and the one filler that turns both into a [`SolveRecord`].
//!
//! Engines never score themselves: an [`Outcome`] carries a solution and a
//! claim (status, bound); [`fill_record`] asks the family's evaluator for every
//! metric and the objective, then enforces, with the tolerance of
//! [`crate::core::check`]:
//! - a solution the evaluator rejects makes the run `error` (`rejected`);
//! - a claimed bound above the evaluated objective makes the run `error`;
//! - an `optimal` claim whose bound does not reach the objective is
//!   downgraded to `feasible`;
//! - the gap is `(objective − bound) / bound`.

use crate::core::check::below;
use crate::core::{relative_gap, FailureReason, SolveRecord, StageTime, Status, StopReason};
use serde::Serialize;
use serde_json::{Map, Value};

/// An engine's answer before evaluation: a solution (if any) and what the
/// engine claims about it. The metrics are not here on purpose.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome<S> {
    /// `feasible` for heuristics; `optimal`/`time_limit`/`infeasible` from
    /// exact engines; `error` when the engine found nothing or refused.
    pub status: Status,
    /// The solution, if one was found.
    pub solution: Option<S>,
    /// Proven lower bound on the objective (exact engines).
    pub bound: Option<f64>,
    /// A note, or why it failed.
    pub message: Option<String>,
    /// Why it failed, typed.
    pub reason: Option<FailureReason>,
    /// Which limit or event ended it early, when one did.
    pub stop: Option<StopReason>,
    /// The LP/MILP backend's final status (HiGHS's model status), when one ran.
    pub solver_status: Option<String>,
    /// The engine's stages and their wall times, when it reports them
    /// (the record's `timing.stages`).
    pub stages: Vec<StageTime>,
}

impl<S> Outcome<S> {
    /// A heuristic's solution (`feasible`).
    pub fn found(solution: S) -> Self {
        Outcome::claim(Status::Feasible, solution, None)
    }

    /// A solution with a status and an optional proven bound.
    pub fn claim(status: Status, solution: S, bound: Option<f64>) -> Self {
        Outcome {
            status,
            solution: Some(solution),
            bound,
            message: None,
            reason: None,
            stop: None,
            solver_status: None,
            stages: Vec::new(),
        }
    }

    /// No solution, with a status that is not a failure (e.g. `infeasible`).
    pub fn without_solution(status: Status, message: impl Into<String>) -> Self {
        Outcome {
            status,
            solution: None,
            bound: None,
            message: Some(message.into()),
            reason: None,
            stop: None,
            solver_status: None,
            stages: Vec::new(),
        }
    }

    /// A failure (`error`) with its reason.
    pub fn failed(reason: FailureReason, message: impl Into<String>) -> Self {
        Outcome {
            reason: Some(reason),
            ..Outcome::without_solution(Status::Error, message)
        }
    }

    /// The engine found no solution (not a proof of infeasibility).
    pub fn no_solution(message: impl Into<String>) -> Self {
        Outcome::failed(FailureReason::NoSolution, message)
    }

    /// Adds a note.
    pub fn with_message(mut self, message: impl Into<String>) -> Self {
        self.message = Some(message.into());
        self
    }

    /// Records which limit or event ended the run early.
    pub fn with_stop(mut self, stop: Option<StopReason>) -> Self {
        self.stop = stop;
        self
    }

    /// Records the engine's stage times.
    pub fn with_stages(mut self, stages: Vec<StageTime>) -> Self {
        self.stages = stages;
        self
    }

    /// Records the backend's final status.
    pub fn with_solver_status(mut self, status: Option<String>) -> Self {
        self.solver_status = status;
        self
    }

    /// Maps the solution with a fallible `f`: its error, if any.
    pub fn try_map<T, E>(self, f: impl FnOnce(S) -> Result<T, E>) -> Result<Outcome<T>, E> {
        let solution = self.solution.map(f).transpose()?;
        Ok(Outcome {
            status: self.status,
            solution,
            bound: self.bound,
            message: self.message,
            reason: self.reason,
            stop: self.stop,
            solver_status: self.solver_status,
            stages: self.stages,
        })
    }

    /// Maps the solution.
    pub fn map<T>(self, f: impl FnOnce(S) -> T) -> Outcome<T> {
        Outcome {
            status: self.status,
            solution: self.solution.map(f),
            bound: self.bound,
            message: self.message,
            reason: self.reason,
            stop: self.stop,
            solver_status: self.solver_status,
            stages: self.stages,
        }
    }
}

/// The evaluator's word on one solution.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Verdict {
    /// The primary objective (minimised), when the solution is scored.
    pub objective: Option<f64>,
    /// Every metric, as the solution file's `metrics` object (the family's
    /// typed metrics, serialised).
    pub metrics: Map<String, Value>,
    /// Why the solution is infeasible; empty when it is feasible.
    pub violations: Vec<String>,
}

impl Verdict {
    /// True when the evaluator accepts the solution.
    pub fn is_feasible(&self) -> bool {
        self.violations.is_empty()
    }
}

/// Serialises typed metrics into the record's metrics object.
pub fn metrics_map<M: Serialize>(metrics: &M) -> Map<String, Value> {
    match serde_json::to_value(metrics) {
        Ok(Value::Object(map)) => map,
        _ => Map::new(),
    }
}

/// Fills `record` from an engine's `outcome`, asking `evaluate` for the
/// verdict on its solution (see the module docs for the rules).
pub fn fill_record<S: Serialize>(
    record: &mut SolveRecord,
    outcome: Outcome<S>,
    evaluate: impl FnOnce(&S) -> Verdict,
) {
    record.status = outcome.status;
    record.message = outcome.message;
    record.bound = outcome.bound;
    record.reason = outcome.reason;
    record.stop = outcome.stop;
    record.solver_status = outcome.solver_status;
    let Some(sol) = outcome.solution else {
        return;
    };
    let verdict = evaluate(&sol);
    record.solution = serde_json::to_value(&sol).ok();
    record.metrics = verdict.metrics;
    if !verdict.violations.is_empty() {
        let why = verdict.violations.join("; ");
        reject(record, format!("the evaluator rejects the solution: {why}"));
        record.objective = None;
        return;
    }
    record.objective = verdict.objective;
    let (Some(obj), Some(bound)) = (record.objective, record.bound) else {
        return;
    };
    if below(obj, bound) {
        reject(
            record,
            format!("claimed bound {bound} exceeds the evaluated objective {obj}"),
        );
        return;
    }
    record.gap = Some(relative_gap(obj, bound).max(0.0));
    if record.status == Status::Optimal && below(bound, obj) {
        record.status = Status::Feasible;
        record.message = Some(format!(
            "the bound {bound} does not prove the objective {obj} optimal"
        ));
    }
}

fn reject(record: &mut SolveRecord, why: String) {
    record.status = Status::Error;
    record.reason = Some(FailureReason::Rejected);
    record.message = Some(match record.message.take() {
        Some(m) => format!("{m}; {why}"),
        None => why,
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(outcome: Outcome<u32>, objective: f64, violations: Vec<String>) -> SolveRecord {
        let mut r = SolveRecord::unsolved("i", "p", "e");
        fill_record(&mut r, outcome, |_| Verdict {
            objective: Some(objective),
            metrics: Map::new(),
            violations,
        });
        r
    }

    #[test]
    fn the_evaluator_has_the_last_word() {
        let r = run(Outcome::claim(Status::Optimal, 1, Some(3.0)), 3.0, vec![]);
        assert_eq!((r.status, r.gap), (Status::Optimal, Some(0.0)));
        let r = run(Outcome::claim(Status::Optimal, 1, Some(4.0)), 3.0, vec![]);
        assert_eq!(r.status, Status::Error);
        assert_eq!(r.reason, Some(FailureReason::Rejected));
        let r = run(Outcome::claim(Status::Optimal, 1, Some(2.0)), 3.0, vec![]);
        assert_eq!(r.status, Status::Feasible);
        let r = run(Outcome::found(1), 3.0, vec!["bad".into()]);
        assert_eq!((r.status, r.objective), (Status::Error, None));
    }
}
