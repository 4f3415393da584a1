//! THE engine interface and THE runner.
//!
//! Every engine of every family — the papers' heuristics, the exact engines,
//! a researcher's external command, a Python function — is an [`Engine`] of
//! its family's [`Problem`], and every run goes through [`run`]:
//!
//! ```text
//!   family folder                      core (this file)
//!   ─────────────                      ────────────────
//!   impl Problem for SpdInstance  ──►  run(engine, instance, opts)
//!     type Solution, evaluate()          1. applies?        → not_applicable row
//!   static ENGINES: &[&dyn Engine]       2. Ctx: options + the run's Deadline
//!     one line per engine         ──►    3. timed engine.solve → Outcome
//!   struct Zizo; impl Engine               4. fill_record: THE evaluator scores it,
//!     name, applies, solve                    claims checked (bound, optimal)
//!                                          5. stop reason, reported problem,
//!                                             the problem's annotations
//! ```
//!
//! A new engine is one file with a unit struct implementing [`Engine`] and one
//! line in its family's engine list; engines are looked up by [`find`] in that
//! list only, so no engine name is compared as a string anywhere else.
//!
//! ```
//! use serverpick::core::engine::{run, Ctx, Engine};
//! use serverpick::core::{Outcome, SolveOptions, Status};
//! use serverpick::problems::spd::model::{SpdInstance, SpdSolution};
//!
//! /// Every client on server 0.
//! struct AllOnZero;
//! impl Engine<SpdInstance> for AllOnZero {
//!     fn name(&self) -> &str { "all-on-zero" }
//!     fn solve(&self, inst: &SpdInstance, _ctx: &Ctx) -> Outcome<SpdSolution> {
//!         Outcome::found(SpdSolution { root: None, assign: vec![0; inst.clients()] })
//!     }
//! }
//! let inst = serverpick::problems::spd::file::read_spd(
//!     std::path::Path::new("instances/spd-fig1-p2p.json")).unwrap();
//! let record = run(&AllOnZero, &inst, &SolveOptions::default());
//! assert_eq!(record.engine, "all-on-zero");
//! assert_ne!(record.status, Status::Optimal); // the evaluator had its word
//! ```

use crate::core::outcome::{fill_record, Outcome, Verdict};
use crate::core::{timed, Deadline, FailureReason, SolveOptions, SolveRecord, Status, Timing};
use crate::core::{ProblemInstance, StopReason};
use crate::error::{Error, Result};
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;

/// A family's instance as engines see it: its solution type and THE
/// evaluator. The evaluator never imports an engine.
pub trait Problem: Send + Sync {
    /// What engines return (serialised as the record's `solution`).
    type Solution: Serialize + DeserializeOwned;

    /// The instance's name, for records.
    fn instance_name(&self) -> &str;

    /// The problem its runs report by default (`spd`, `cma`, …).
    fn problem(&self) -> &'static str;

    /// THE evaluator: every metric, the objective and the violations.
    fn evaluate(&self, solution: &Self::Solution) -> Verdict;

    /// The problem a run reports once its solution is evaluated, from what
    /// the engine declared (e.g. AG's whole-AG runs that leave a server over
    /// target report `ag-over`). Default: the declared problem.
    fn reported_problem(&self, declared: &'static str, _verdict: &Verdict) -> &'static str {
        declared
    }

    /// Adds instance facts to a finished record (e.g. the start's metrics of
    /// an SPDVR run). Default: nothing.
    fn annotate(&self, _record: &mut SolveRecord) {}
}

/// What an engine gets besides its instance: the options and the run's
/// deadline (time limit and interrupt flag).
#[derive(Debug, Clone)]
pub struct Ctx<'a> {
    /// Seed, time limit and engine parameters (validated).
    pub opts: &'a SolveOptions,
    /// When the run must end. Check [`Deadline::stop`] at checkpoints and
    /// hand [`Deadline::remaining_secs`] to HiGHS.
    pub deadline: Deadline,
}

impl<'a> Ctx<'a> {
    /// The context of one run: the options' command deadline, capped by
    /// their per-run time limit from now.
    pub fn new(opts: &'a SolveOptions) -> Self {
        Ctx {
            opts,
            deadline: opts.run_deadline(),
        }
    }
}

/// One engine of problem `P`.
pub trait Engine<P: Problem + ?Sized>: Send + Sync {
    /// Its name as the CLI spells it.
    fn name(&self) -> &str;

    /// Whether it can run on `inst` (`Err(why)` gives a `not_applicable`
    /// row). Default: always.
    fn applies(&self, _inst: &P) -> std::result::Result<(), String> {
        Ok(())
    }

    /// Whether `--engine all` runs it on `inst` (it may still be named).
    /// Default: whenever it applies.
    fn in_all(&self, inst: &P) -> bool {
        self.applies(inst).is_ok()
    }

    /// The problem its rows report (a relaxation such as `ranges-any`, or a
    /// restriction such as `ranges-budget`, is checked apart). Default: the
    /// instance's.
    fn problem(&self, inst: &P, _ctx: &Ctx) -> &'static str {
        inst.problem()
    }

    /// Runs it: a solution and a claim, never a score.
    fn solve(&self, inst: &P, ctx: &Ctx) -> Outcome<P::Solution>;
}

/// A family's engine list, in table order (`'e`: `'static` for a family's
/// own list).
pub type Engines<'e, P> = [&'e (dyn Engine<P> + 'e)];

/// The names in `engines`, in order.
pub fn names<P: Problem + ?Sized>(engines: &Engines<'_, P>) -> Vec<String> {
    engines.iter().map(|e| e.name().to_string()).collect()
}

/// The engines `--engine all` runs on `inst`, in table order.
pub fn in_all<P: Problem + ?Sized>(engines: &Engines<'_, P>, inst: &P) -> Vec<String> {
    engines
        .iter()
        .filter(|e| e.in_all(inst))
        .map(|e| e.name().to_string())
        .collect()
}

/// The engine called `name` in `family`'s list `engines`.
pub fn find<'e, P: Problem + ?Sized>(
    engines: &Engines<'e, P>,
    family: &str,
    name: &str,
) -> Result<&'e (dyn Engine<P> + 'e)> {
    engines
        .iter()
        .copied()
        .find(|e| e.name() == name)
        .ok_or_else(|| Error::UnknownEngine {
            family: family.to_string(),
            name: name.to_string(),
            known: names(engines),
        })
}

/// Runs `engine` on `inst` and returns the evaluated record (see the module
/// docs for the steps). Never panics on purpose; the bench runner still
/// catches panics.
pub fn run<P: Problem + ?Sized>(
    engine: &dyn Engine<P>,
    inst: &P,
    opts: &SolveOptions,
) -> SolveRecord {
    let ctx = Ctx::new(opts);
    let declared = engine.problem(inst, &ctx);
    let name = engine.name();
    if let Err(why) = engine.applies(inst) {
        let mut r = SolveRecord::failed(
            inst.instance_name(),
            declared,
            name,
            FailureReason::NotApplicable,
            why,
        );
        inst.annotate(&mut r);
        return r;
    }
    let mut record = SolveRecord::unsolved(inst.instance_name(), declared, name);
    let (mut outcome, ms) = timed(|| engine.solve(inst, &ctx));
    record.time_ms = ms;
    let stages = std::mem::take(&mut outcome.stages);
    let mut verdict = Verdict::default();
    let mut evaluate_ms = None;
    fill_record(&mut record, outcome, |s| {
        let (v, ms) = timed(|| inst.evaluate(s));
        evaluate_ms = Some(ms);
        verdict = v;
        verdict.clone()
    });
    record.timing = Some(Timing {
        solve_ms: Some(ms),
        evaluate_ms,
        stages,
        ..Timing::default()
    });
    if record.status == Status::TimeLimit && record.stop.is_none() {
        record.stop = Some(ctx.deadline.stop().unwrap_or(StopReason::TimeLimit));
    }
    record.problem = inst.reported_problem(declared, &verdict).to_string();
    inst.annotate(&mut record);
    record
}

/// Runs the engine called `name` from `family`'s list; an unknown name gives
/// an `error` row (`bad_input`) naming the known engines.
pub fn run_named<P: Problem + ?Sized>(
    engines: &Engines<'_, P>,
    family: &str,
    inst: &P,
    name: &str,
    opts: &SolveOptions,
) -> SolveRecord {
    match find(engines, family, name) {
        Ok(e) => run(e, inst, opts),
        Err(err) => SolveRecord::failed(
            inst.instance_name(),
            inst.problem(),
            name,
            FailureReason::BadInput,
            err.to_string(),
        ),
    }
}

/// An engine from outside the family's list that answers in JSON: an
/// external command, a Python function. It runs through the same [`run`]
/// (same evaluator, same claim checks) via [`run_foreign`].
pub trait ForeignEngine: Send + Sync {
    /// Its name.
    fn name(&self) -> &str;
    /// Whether it applies to this instance (e.g. the families or problems
    /// it was declared for). Default: always.
    fn applies(&self, _inst: &dyn ProblemInstance) -> std::result::Result<(), String> {
        Ok(())
    }
    /// Untimed set-up before a run on `inst` (e.g. the Python view of the
    /// instance a Python engine is handed). Default: nothing.
    fn prepare(&self, _inst: &dyn ProblemInstance) {}
    /// Solves `inst`; the solution is the family's solution as JSON.
    fn solve(&self, inst: &dyn ProblemInstance, ctx: &Ctx) -> Outcome<Value>;
}

/// `foreign` run on `inst` (the family's instance `typed` and its dynamic
/// face `dynamic`) through [`run`]: a JSON solution that is not the family's
/// shape is an `error` row (`rejected`) naming what is wrong.
pub fn run_foreign<P: Problem + ?Sized>(
    foreign: &dyn ForeignEngine,
    dynamic: &dyn ProblemInstance,
    typed: &P,
    opts: &SolveOptions,
) -> SolveRecord {
    foreign.prepare(dynamic);
    run(&Adapter { foreign, dynamic }, typed, opts)
}

struct Adapter<'a> {
    foreign: &'a dyn ForeignEngine,
    dynamic: &'a dyn ProblemInstance,
}

impl<P: Problem + ?Sized> Engine<P> for Adapter<'_> {
    fn name(&self) -> &str {
        self.foreign.name()
    }

    fn applies(&self, _inst: &P) -> std::result::Result<(), String> {
        self.foreign.applies(self.dynamic)
    }

    fn solve(&self, _inst: &P, ctx: &Ctx) -> Outcome<P::Solution> {
        self.foreign
            .solve(self.dynamic, ctx)
            .try_map(serde_json::from_value::<P::Solution>)
            .unwrap_or_else(|e| {
                let what = self.dynamic.problem();
                let msg = format!("the solution is not a {what} solution: {e}");
                Outcome::failed(FailureReason::Rejected, msg)
            })
    }
}
