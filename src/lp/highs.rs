//! Solving a good_lp model on HiGHS with honest status, bound and gap.
//!
//! good_lp's HiGHS backend folds several HiGHS statuses into `TimeLimit`, hides
//! the dual bound and errors out on a time limit without an incumbent. Here the
//! model is still built with good_lp, but handed to HiGHS through
//! `HighsProblem::into_inner`, and the result is read from HiGHS itself:
//! the model status, `mip_dual_bound`, `mip_gap` and the primal solution status.
//! Every HiGHS model status is kept one to one ([`MipResult::model_status`]);
//! a limit that ended the solve is typed ([`MipResult::stop`]: time,
//! iterations, solutions, memory, interrupt) instead of folded into one.
//! Columns are in good_lp's variable order, so `Variable::index()` indexes the
//! returned values.

use crate::core::{Deadline, Outcome, Status, StopReason};
use crate::lp::model_out::{LogPart, SolverIo, Stage};
use crate::lp::write::LpModel;
use good_lp::solvers::highs::highs;
use good_lp::variable::VariableDefinition;
use good_lp::{Constraint, Expression, ProblemVariables, SolverModel, Variable};
use highs::{HighsModelStatus, HighsSolutionStatus, Model, SolvedModel};
use std::sync::Arc;

/// A model under construction: good_lp variables plus their column numbers
/// (good_lp keeps a variable's index private; HiGHS columns follow creation
/// order, so the builder counts them).
#[derive(Default, Clone)]
pub struct MipBuilder {
    vars: ProblemVariables,
    count: usize,
    /// Name columns ([`Self::add_as`]): only when the model is written.
    naming: bool,
}

/// A variable and its HiGHS column.
#[derive(Debug, Clone, Copy)]
pub struct Col {
    /// The good_lp variable, for expressions.
    pub var: Variable,
    /// Its column index in the HiGHS model.
    pub idx: usize,
}

impl MipBuilder {
    /// An empty model.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a variable.
    pub fn add(&mut self, def: VariableDefinition) -> Col {
        let var = self.vars.add(def);
        self.count += 1;
        Col {
            var,
            idx: self.count - 1,
        }
    }

    /// An empty model whose columns are named ([`Self::add_as`]) when
    /// `dl`'s run writes its models.
    pub fn for_run(dl: &Deadline) -> Self {
        MipBuilder {
            naming: dl.io().is_some_and(|io| io.model_out.is_some()),
            ..Self::default()
        }
    }

    /// Adds a variable that means `meaning()` (`x[client 3, server 1]`),
    /// named so only when the model is written (the sidecar's meaning, the
    /// file's name).
    pub fn add_as(&mut self, def: VariableDefinition, meaning: impl FnOnce() -> String) -> Col {
        if self.naming {
            self.add(def.name(meaning()))
        } else {
            self.add(def)
        }
    }

    /// True when the model will be written (name rows then).
    pub fn naming(&self) -> bool {
        self.naming
    }

    /// `c`, named `name()` when the model is written (the sidecar's and
    /// the file's row name).
    pub fn row(&self, c: Constraint, name: impl FnOnce() -> String) -> Constraint {
        row_named(c, self.naming, name)
    }

    /// Number of variables so far.
    pub fn len(&self) -> usize {
        self.count
    }

    /// True when no variable was added.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }
}

/// `c`, named `name()` when `on`.
pub fn row_named(c: Constraint, on: bool, name: impl FnOnce() -> String) -> Constraint {
    if on {
        c.set_name(name())
    } else {
        c
    }
}

/// Settings of one MIP solve.
#[derive(Debug, Clone)]
pub struct MipSettings {
    /// Wall-time limit, seconds.
    pub time_limit: Option<f64>,
    /// Relative MIP gap at which HiGHS stops (0 = prove optimality).
    pub rel_gap: f64,
    /// Absolute MIP gap at which HiGHS stops. For an integer objective, a value
    /// just below 1 proves optimality as soon as the bound rounds up to it.
    pub abs_gap: f64,
    /// HiGHS threads (1 keeps parallel per-model solves from oversubscribing).
    pub threads: u32,
    /// Random seed handed to HiGHS.
    pub seed: u64,
    /// Keep a copy of the model to solve it again without presolve if
    /// HiGHS's run fails (see [`minimise`]). Costs a copy of the good_lp
    /// model; off for large pure LPs.
    pub retry_without_presolve: bool,
    /// The run's deadline: HiGHS's time limit is what it leaves once the
    /// model has been handed over (that hand-over is not free: seconds for
    /// millions of columns), never more than `time_limit`.
    pub deadline: Option<Deadline>,
    /// Models out, log and threads of the run (from `deadline`, see
    /// [`Self::within`]).
    pub io: Option<Arc<SolverIo>>,
    /// What this model is, for its file name and sidecar.
    pub stage: Stage,
}

impl Default for MipSettings {
    fn default() -> Self {
        MipSettings {
            time_limit: None,
            rel_gap: 0.0,
            abs_gap: 1e-6,
            threads: 1,
            seed: 0,
            retry_without_presolve: true,
            deadline: None,
            io: None,
            stage: Stage::new("model", "objective"),
        }
    }
}

impl MipSettings {
    /// Checks every setting once, before HiGHS sees it: a time limit that
    /// is a number of seconds ≥ 0, gaps that are finite and ≥ 0, at least
    /// one thread.
    pub fn validate(&self) -> std::result::Result<(), String> {
        if let Some(t) = self.time_limit {
            if t.is_nan() || t < 0.0 {
                return Err(format!("time limit {t}: expected seconds >= 0"));
            }
        }
        for (name, g) in [("relative", self.rel_gap), ("absolute", self.abs_gap)] {
            if !g.is_finite() || g < 0.0 {
                return Err(format!("{name} MIP gap {g}: expected a finite number >= 0"));
            }
        }
        if self.threads == 0 {
            return Err("threads 0: expected at least 1".into());
        }
        Ok(())
    }

    /// The settings of one solve inside a run: the time the run's
    /// `deadline` has left (never the full limit), one thread, and
    /// `abs_gap` (just below 1 proves an integer objective optimal).
    pub fn within(deadline: &Deadline, abs_gap: f64) -> Self {
        let io = deadline.io().cloned();
        MipSettings {
            time_limit: deadline.remaining_secs(),
            abs_gap,
            deadline: Some(deadline.clone()),
            threads: io.as_ref().and_then(|io| io.threads).unwrap_or(1),
            io,
            ..MipSettings::default()
        }
    }

    /// The same settings for model `stage`.
    pub fn stage(mut self, stage: Stage) -> Self {
        self.stage = stage;
        self
    }

    /// Writes the model when the run writes its models; `Err`: the result
    /// to return instead of solving (a write failure, or write-only).
    fn write_model(
        &self,
        model: &MipBuilder,
        objective: &Expression,
        constraints: &[Constraint],
    ) -> Result<(), MipResult> {
        let Some(out) = self.io.as_ref().and_then(|io| io.model_out.as_ref()) else {
            return Ok(());
        };
        let m = LpModel::capture(&model.vars, objective, constraints);
        let file = out
            .write(&m, &self.stage)
            .map_err(|e| MipResult::error(format!("writing the model: {e}")))?;
        if out.write_only {
            let msg = format!("model written to {}, not solved", file.display());
            return Err(MipResult::error(msg));
        }
        Ok(())
    }
}

/// What HiGHS says about a solve.
#[derive(Debug, Clone)]
pub struct MipResult {
    /// `Optimal`, `Infeasible`, `TimeLimit` (with or without incumbent), or
    /// `Error` (message set).
    pub status: Status,
    /// Column values when HiGHS has a feasible primal solution.
    pub values: Option<Vec<f64>>,
    /// Objective of the incumbent.
    pub objective: Option<f64>,
    /// Proven bound on the objective (minimisation: lower bound).
    pub bound: Option<f64>,
    /// HiGHS's relative gap.
    pub gap: Option<f64>,
    /// The raw HiGHS model status, for messages.
    pub message: Option<String>,
    /// Which HiGHS limit ended the solve (its model status mapped one to
    /// one: time, iteration, solution and memory limits, interrupt).
    pub stop: Option<StopReason>,
    /// HiGHS's model status as HiGHS names it (`Optimal`,
    /// `ReachedTimeLimit`, …), kept in the record.
    pub model_status: Option<&'static str>,
}

impl MipResult {
    /// Value of `col` in the incumbent.
    pub fn value(&self, col: Col) -> Option<f64> {
        self.values
            .as_ref()
            .and_then(|vals| vals.get(col.idx).copied())
    }

    /// `outcome` tagged with this solve's stop reason and HiGHS status.
    pub fn tag<S>(&self, outcome: Outcome<S>) -> Outcome<S> {
        outcome
            .with_stop(self.stop)
            .with_solver_status(self.model_status.map(str::to_string))
    }

    fn error(message: String) -> Self {
        MipResult {
            status: Status::Error,
            values: None,
            objective: None,
            bound: None,
            gap: None,
            message: Some(message),
            stop: None,
            model_status: None,
        }
    }
}

/// Minimises `objective` over the builder's variables subject to
/// `constraints` with HiGHS. `start`: an optional full incumbent (one value
/// per column, in order).
///
/// HiGHS has been seen to end a MIP with "solve error" when the answer of
/// its presolved model does not fit the original one ("MIP solver claims
/// optimality, but with primal infeasibilities", a P2P variation test of
/// issue 10). Such a run is solved once more without presolve, in the time
/// left.
pub fn minimise(
    model: MipBuilder,
    objective: Expression,
    constraints: Vec<Constraint>,
    start: Option<&[f64]>,
    settings: &MipSettings,
) -> MipResult {
    if let Err(why) = settings.validate() {
        return MipResult::error(format!("HiGHS settings: {why}"));
    }
    if let Err(r) = settings.write_model(&model, &objective, &constraints) {
        return r;
    }
    let began = std::time::Instant::now();
    let spare = settings
        .retry_without_presolve
        .then(|| (model.clone(), objective.clone(), constraints.clone()));
    match solve_once(model, objective, constraints, start, settings, true) {
        Ok(r) => r,
        Err(Failure::Done(r)) => r,
        Err(Failure::Run(first)) => {
            let Some((m, o, c)) = spare else {
                return MipResult::error(format!("HiGHS failed: {first}"));
            };
            let mut again = settings.clone();
            again.time_limit = settings
                .time_limit
                .map(|t| (t - began.elapsed().as_secs_f64()).max(0.0));
            match solve_once(m, o, c, start, &again, false) {
                Ok(r) => r,
                Err(Failure::Done(r)) => r,
                Err(Failure::Run(e)) => {
                    MipResult::error(format!("HiGHS failed: {first}; without presolve: {e}"))
                }
            }
        }
    }
}

/// Why a solve gave no result of its own.
enum Failure {
    /// HiGHS's run itself failed (the message); worth a retry.
    Run(String),
    /// A final answer (e.g. the model or an option was refused).
    Done(MipResult),
}

fn solve_once(
    model: MipBuilder,
    objective: Expression,
    constraints: Vec<Constraint>,
    start: Option<&[f64]>,
    settings: &MipSettings,
    presolve: bool,
) -> Result<MipResult, Failure> {
    let log = settings.io.as_ref().and_then(|io| {
        let l = io.log.as_ref()?;
        Some(LogPart::new(l, &io.run, &settings.stage.name))
    });
    let mut model =
        prepare(model, objective, constraints, start, settings).map_err(Failure::Done)?;
    if !presolve && model.try_set_option("presolve", "off").is_err() {
        return Err(Failure::Done(MipResult::error(
            "HiGHS refused presolve = off".into(),
        )));
    }
    if let Some(part) = &log {
        let path = part.part.to_string_lossy().into_owned();
        if model.try_set_option("log_file", path.as_str()).is_err()
            || model.try_set_option("output_flag", true).is_err()
            || model.try_set_option("log_to_console", false).is_err()
        {
            return Err(Failure::Done(MipResult::error(
                "HiGHS refused the log options".into(),
            )));
        }
    }
    // HiGHS (and its log file) is dropped with the solved model, inside
    // read_result: only then is the part complete
    let result = solve_rechecked(model, settings).map(|(s, r)| read_result(s, r));
    if let Some(part) = log {
        part.finish();
    }
    result
}

/// Builds the HiGHS model with the settings and the start.
fn prepare(
    model: MipBuilder,
    objective: Expression,
    constraints: Vec<Constraint>,
    start: Option<&[f64]>,
    settings: &MipSettings,
) -> Result<Model, MipResult> {
    if start.is_some_and(|s| s.len() != model.count) {
        return Err(MipResult::error(
            "the start has the wrong number of columns".into(),
        ));
    }
    let mut problem = model.vars.minimise(objective).using(highs);
    for c in constraints {
        problem.add_constraint(c);
    }
    let mut model = match problem.try_into_inner() {
        Ok(m) => m,
        Err(e) => return Err(MipResult::error(format!("HiGHS rejected the model: {e}"))),
    };
    model.make_quiet();
    let mut options: Vec<(&str, f64)> = vec![
        ("mip_rel_gap", settings.rel_gap),
        ("mip_abs_gap", settings.abs_gap),
    ];
    let left = settings
        .deadline
        .as_ref()
        .and_then(Deadline::remaining_secs);
    let limit = match (settings.time_limit, left) {
        (Some(t), Some(l)) => Some(t.min(l)),
        (t, l) => t.or(l),
    };
    if let Some(t) = limit {
        options.push(("time_limit", t.max(0.0)));
    }
    for (k, v) in options {
        if model.try_set_option(k, v).is_err() {
            return Err(MipResult::error(format!("HiGHS refused option {k} = {v}")));
        }
    }
    let threads = i32::try_from(settings.threads.max(1)).unwrap_or(1);
    let seed = i32::try_from(settings.seed % (i32::MAX as u64)).unwrap_or(0);
    if model.try_set_option("threads", threads).is_err()
        || model.try_set_option("random_seed", seed).is_err()
    {
        return Err(MipResult::error(
            "HiGHS refused the threads/seed options".into(),
        ));
    }
    if let Some(vals) = start {
        model.set_solution(Some(vals), None, None, None);
    }
    Ok(model)
}

/// Solves; an `Infeasible` claim is accepted only when a re-solve without
/// presolve agrees (the flag says whether one ran).
fn solve_rechecked(model: Model, settings: &MipSettings) -> Result<(SolvedModel, bool), Failure> {
    let began = std::time::Instant::now();
    let mut solved = model
        .try_solve()
        .map_err(|e| Failure::Run(format!("{e:?}")))?;
    let mut rechecked = false;
    if solved.status() == HighsModelStatus::Infeasible {
        // HiGHS's MIP presolve sometimes declares feasible models infeasible
        // (issue 10: a P2P lexicographic test; cf. ERGO-Code/HiGHS#3090).
        // An infeasibility claim is what proves a threshold or a host count,
        // so it is only accepted when the solve without presolve agrees.
        let mut again = Model::from(solved);
        let left = settings
            .time_limit
            .map(|t| (t - began.elapsed().as_secs_f64()).max(0.0));
        if again.try_set_option("presolve", "off").is_err()
            || left.is_some_and(|t| again.try_set_option("time_limit", t).is_err())
        {
            return Err(Failure::Done(MipResult::error(
                "HiGHS refused the presolve re-check options".into(),
            )));
        }
        solved = match again.try_solve() {
            Ok(s) => s,
            Err(e) => {
                return Err(Failure::Done(MipResult::error(format!(
                    "HiGHS failed in the re-check without presolve: {e:?}"
                ))))
            }
        };
        rechecked = true;
    }
    Ok((solved, rechecked))
}

/// HiGHS's name of a model status, one to one.
fn status_name(s: HighsModelStatus) -> &'static str {
    match s {
        HighsModelStatus::NotSet => "NotSet",
        HighsModelStatus::LoadError => "LoadError",
        HighsModelStatus::ModelError => "ModelError",
        HighsModelStatus::PresolveError => "PresolveError",
        HighsModelStatus::SolveError => "SolveError",
        HighsModelStatus::PostsolveError => "PostsolveError",
        HighsModelStatus::ModelEmpty => "ModelEmpty",
        HighsModelStatus::Infeasible => "Infeasible",
        HighsModelStatus::Unbounded => "Unbounded",
        HighsModelStatus::UnboundedOrInfeasible => "UnboundedOrInfeasible",
        HighsModelStatus::ObjectiveBound => "ObjectiveBound",
        HighsModelStatus::ObjectiveTarget => "ObjectiveTarget",
        HighsModelStatus::ReachedTimeLimit => "ReachedTimeLimit",
        HighsModelStatus::ReachedIterationLimit => "ReachedIterationLimit",
        HighsModelStatus::Unknown => "Unknown",
        HighsModelStatus::ReachedSolutionLimit => "ReachedSolutionLimit",
        HighsModelStatus::ReachedInterrupt => "ReachedInterrupt",
        HighsModelStatus::ReachedMemoryLimit => "ReachedMemoryLimit",
        HighsModelStatus::Optimal => "Optimal",
        // A status a newer HiGHS adds: named, not guessed.
        _ => "Other",
    }
}

/// Status, values, objective, bound and gap as HiGHS reports them.
fn read_result(solved: SolvedModel, rechecked: bool) -> MipResult {
    let model_status = solved.status();
    let has_primal = solved.primal_solution_status() == HighsSolutionStatus::Feasible;
    let values = has_primal.then(|| solved.get_solution().columns().to_vec());
    let objective = has_primal.then(|| solved.objective_value());
    let bound = solved
        .double_info_value(c"mip_dual_bound")
        .ok()
        .filter(|b| b.is_finite());
    let gap = solved
        .double_info_value(c"mip_gap")
        .ok()
        .filter(|g| g.is_finite());
    let stop = match model_status {
        HighsModelStatus::ReachedTimeLimit => Some(StopReason::TimeLimit),
        HighsModelStatus::ReachedIterationLimit => Some(StopReason::IterationLimit),
        HighsModelStatus::ReachedSolutionLimit => Some(StopReason::SolutionLimit),
        HighsModelStatus::ReachedInterrupt => Some(StopReason::Interrupted),
        HighsModelStatus::ReachedMemoryLimit => Some(StopReason::MemoryLimit),
        _ => None,
    };
    let status = match model_status {
        HighsModelStatus::Optimal => Status::Optimal,
        HighsModelStatus::Infeasible => Status::Infeasible,
        // A limit ended it: the user-facing word is `time_limit` (a limit
        // was hit); `stop` says which.
        _ if stop.is_some() => Status::TimeLimit,
        other => {
            let mut r = MipResult::error(format!("HiGHS ended with status {other:?}"));
            r.values = values;
            r.objective = objective;
            r.model_status = Some(status_name(other));
            return r;
        }
    };
    MipResult {
        status,
        values,
        objective,
        bound: bound.or(if status == Status::Optimal {
            objective
        } else {
            None
        }),
        gap,
        message: Some(
            if rechecked && model_status != HighsModelStatus::Infeasible {
                format!("{model_status:?} (presolve had claimed Infeasible)")
            } else {
                format!("{model_status:?}")
            },
        ),
        stop,
        model_status: Some(status_name(model_status)),
    }
}

#[cfg(test)]
#[path = "highs_tests.rs"]
mod tests;
