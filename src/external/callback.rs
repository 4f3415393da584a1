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
//!
//! A function cannot be stopped from outside. A host that runs it
//! elsewhere (the Python package runs it on a thread of its own) waits for
//! it with [`await_call`] until the run's deadline or interrupt: the run
//! then ends at once with status `time_limit` and the stop recorded, and the
//! function's answer, when it comes, is dropped.

use crate::core::{
    Ctx, FailureReason, ForeignEngine, Outcome, ProblemInstance, Status, StopReason,
};
use crate::external::answer;
use serde_json::Value;
use std::time::Duration;

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
    /// The run's deadline or interrupt came first ([`await_call`]): status
    /// `time_limit`, this stop recorded, no solution.
    Unfinished(StopReason),
}

/// How often [`await_call`] looks at the deadline and the interrupt flag
/// while the call has not answered.
pub const AWAIT_SLICE: Duration = Duration::from_millis(20);

/// Waits for a call that runs elsewhere until it answers or the run must
/// stop. `poll(wait)` waits up to `wait` for the call and gives its answer
/// once there is one. When the deadline or the interrupt comes first, the
/// call is left to finish on its own, its answer unread:
/// `Err(CallError::Unfinished(stop))`.
pub fn await_call(ctx: &Ctx, mut poll: impl FnMut(Duration) -> Option<CallResult>) -> CallResult {
    loop {
        let wait = ctx
            .deadline
            .remaining()
            .map_or(AWAIT_SLICE, |r| r.min(AWAIT_SLICE));
        if let Some(answer) = poll(wait) {
            return answer;
        }
        if let Some(stop) = ctx.deadline.stop() {
            return Err(CallError::Unfinished(stop));
        }
    }
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
            Err(CallError::Unfinished(stop)) => unfinished(stop),
            Ok(value) => judge(inst, value),
        }
    }
}

/// The outcome of a call that had not answered when the run had to stop.
fn unfinished(stop: StopReason) -> Outcome<Value> {
    let when = match stop {
        StopReason::Interrupted => "at the interrupt",
        _ => "at the time limit",
    };
    Outcome::without_solution(
        Status::TimeLimit,
        format!(
            "the function had not returned {when}; it cannot be stopped, so it runs on in the \
             background and its answer is dropped"
        ),
    )
    .with_stop(Some(stop))
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::{Deadline, SolveOptions};
    use crate::problems::read_instance;
    use serde_json::json;
    use std::path::Path;
    use std::sync::atomic::AtomicBool;
    use std::sync::{mpsc, Arc};

    /// A poll that never answers (a call still running).
    fn never(wait: Duration) -> Option<CallResult> {
        std::thread::sleep(wait);
        None
    }

    #[test]
    fn an_answer_that_comes_is_taken() {
        let opts = SolveOptions::default();
        let (tx, rx) = mpsc::channel();
        let t = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(30));
            tx.send(Ok(json!([0]))).unwrap();
        });
        let got = await_call(&Ctx::new(&opts), |wait| rx.recv_timeout(wait).ok());
        assert_eq!(got, Ok(json!([0])));
        t.join().unwrap();
    }

    #[test]
    fn the_deadline_and_the_interrupt_end_the_wait() {
        let opts = SolveOptions::new(Some(0.05), 1);
        let got = await_call(&Ctx::new(&opts), never);
        assert_eq!(got, Err(CallError::Unfinished(StopReason::TimeLimit)));
        let flag = Arc::new(AtomicBool::new(true));
        let opts = SolveOptions::default().with_deadline(Deadline::none().with_flag(flag));
        let got = await_call(&Ctx::new(&opts), never);
        assert_eq!(got, Err(CallError::Unfinished(StopReason::Interrupted)));
    }

    #[test]
    fn an_unfinished_call_is_a_time_limit_row_with_its_stop() {
        let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("instances/cma-small.json");
        let inst = read_instance(&file).unwrap();
        let (tx, rx) = mpsc::channel::<CallResult>();
        // The call "runs elsewhere" and answers long after the limit.
        let late = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(300));
            tx.send(Ok(json!([0, 0, 2, 1, 1, 1, 2, 0]))).is_err()
        });
        let rx = std::sync::Mutex::new(rx);
        let engine = FnEngine::new("slow", move |_: &dyn ProblemInstance, ctx: &Ctx| {
            let rx = rx.lock().unwrap();
            await_call(ctx, |wait| rx.recv_timeout(wait).ok())
        });
        let r = inst.run_foreign(&engine, &SolveOptions::new(Some(0.05), 1));
        assert_eq!(r.status, Status::TimeLimit, "{r:?}");
        assert_eq!(r.stop, Some(StopReason::TimeLimit));
        assert_eq!((r.reason, &r.solution), (None, &None));
        assert!(r
            .message
            .as_deref()
            .unwrap_or("")
            .contains("at the time limit"));
        // The run is over and its engine dropped: the late answer finds no
        // one waiting, and nothing panics.
        drop(engine);
        assert!(late.join().unwrap(), "the late answer was not dropped");
    }
}
