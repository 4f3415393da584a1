//! Engines that are functions: a library caller (the Python package) hands
//! in a closure from the instance to an answer, and it runs through the same
//! runner, evaluator and claim checks as built-in and external engines.
//!
//! The answer follows the protocol of external commands (docs/formats.md
//! "Solution protocol"): the family's bare solution or a wrapper with
//! `solution`, `status`, `bound`, `objective`, `message`. A JSON array of
//! indices is read as an assignment (one server or mirror per client) for
//! families whose solution is one. A claimed `objective` is checked against
//! the evaluator here, before the run's own evaluation.

use crate::core::{Ctx, FailureReason, ForeignEngine, Outcome, ProblemInstance};
use crate::external::answer;
use serde_json::Value;

/// What a function engine's call gives: the answer as JSON, or what went
/// wrong.
pub type CallResult = Result<Value, CallError>;

/// What went wrong in a function engine's call.
#[derive(Debug, Clone, PartialEq)]
pub enum CallError {
    /// The function raised (an exception's last line): reason `raised`.
    Raised(String),
    /// It returned something that is not an answer (not JSON data):
    /// reason `rejected`.
    Rejected(String),
}

/// A function engine: its name, the families or problems it is for (empty:
/// all) and the function.
pub struct FnEngine<F>
where
    F: Fn(&dyn ProblemInstance, &Ctx) -> CallResult + Send + Sync,
{
    name: String,
    only: Vec<String>,
    call: F,
    prepare: Option<Prepare>,
}

/// An untimed set-up run before each call ([`FnEngine::prepare`]).
pub type Prepare = Box<dyn Fn(&dyn ProblemInstance) + Send + Sync>;

impl<F> FnEngine<F>
where
    F: Fn(&dyn ProblemInstance, &Ctx) -> CallResult + Send + Sync,
{
    /// An engine called `name` that runs `call`.
    pub fn new(name: impl Into<String>, call: F) -> Self {
        FnEngine {
            name: name.into(),
            only: Vec::new(),
            call,
            prepare: None,
        }
    }

    /// Runs `prepare` before each call, outside the run's time (e.g. to
    /// build the caller's view of the instance once).
    pub fn prepare(mut self, prepare: Prepare) -> Self {
        self.prepare = Some(prepare);
        self
    }

    /// Restricts it to these families or problems.
    pub fn only(mut self, families_or_problems: Vec<String>) -> Self {
        self.only = families_or_problems;
        self
    }
}

impl<F> ForeignEngine for FnEngine<F>
where
    F: Fn(&dyn ProblemInstance, &Ctx) -> CallResult + Send + Sync,
{
    fn name(&self) -> &str {
        &self.name
    }

    fn applies(&self, inst: &dyn ProblemInstance) -> Result<(), String> {
        let (family, problem) = (inst.family().name(), inst.problem());
        if self.only.is_empty() || self.only.iter().any(|o| o == family || o == problem) {
            Ok(())
        } else {
            Err(format!("declared for {} only", self.only.join(", ")))
        }
    }

    fn prepare(&self, inst: &dyn ProblemInstance) {
        if let Some(p) = &self.prepare {
            p(inst);
        }
    }

    fn solve(&self, inst: &dyn ProblemInstance, ctx: &Ctx) -> Outcome<Value> {
        match (self.call)(inst, ctx) {
            Err(CallError::Raised(msg)) => Outcome::failed(FailureReason::Raised, msg),
            Err(CallError::Rejected(msg)) => Outcome::failed(FailureReason::Rejected, msg),
            Ok(value) => judge(inst, value),
        }
    }
}

/// The outcome of an answer: an assignment is made the family's solution,
/// a wrapper's claims are kept, a claimed objective is checked.
pub fn judge(inst: &dyn ProblemInstance, value: Value) -> Outcome<Value> {
    let value = match value {
        Value::Array(items) => match assignment(inst, &items) {
            Ok(v) => v,
            Err(msg) => return Outcome::failed(FailureReason::Rejected, msg),
        },
        other => other,
    };
    let answer = match answer::from_value(value) {
        Ok(a) => a,
        Err(msg) => return Outcome::failed(FailureReason::Rejected, msg),
    };
    if let (Some(claimed), Some(solution)) = (answer.objective, &answer.outcome.solution) {
        let evaluated = inst
            .eval_value(solution.clone(), "the answer")
            .ok()
            .and_then(|r| r.verdict.objective);
        if let Some(msg) = answer::objective_disagrees(Some(claimed), evaluated) {
            return Outcome::failed(FailureReason::Rejected, msg);
        }
    }
    answer.outcome
}

fn assignment(inst: &dyn ProblemInstance, items: &[Value]) -> Result<Value, String> {
    let assign = items
        .iter()
        .enumerate()
        .map(|(i, v)| {
            v.as_u64()
                .and_then(|u| usize::try_from(u).ok())
                .ok_or_else(|| format!("assignment[{i}] = {v} is not an index"))
        })
        .collect::<Result<Vec<usize>, String>>()?;
    inst.solution_from_assignment(&assign)
        .map_err(|e| e.to_string())
}
