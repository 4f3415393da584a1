//! The problem-family interface: what `solve`, `eval`, `bench`, `gen` and
//! `repro` need of a family, and nothing else.
//!
//! A family lives in its own folder under `src/problems/` and implements
//! [`Family`] (the family as a whole: its name, file reader, engines, table,
//! CLI commands) and [`ProblemInstance`] (one instance read from a file: its
//! engines, one engine run checked by the family's evaluator, features, the
//! evaluation of a solution file). The registry
//! ([`crate::core::registry`]) lists the families; the generic layers
//! (`core`, `bench`, `cli`) know no family by name. A family's own commands
//! (`gen NAME`, `repro NAME`, …) are clap types and live in `cli`
//! ([`crate::cli::CliHook`]), so `core` knows no clap.

use crate::core::outcome::Verdict;
use crate::core::{ForeignEngine, ParamSpec, SolveOptions, SolveRecord};
use crate::error::Result;
use serde_json::{Map, Value};
use std::any::Any;
use std::path::Path;

/// Instance attributes copied into every benchmark row: a size for "runtime
/// vs size" plots and a few scalar features (e.g. servers, clients, bound
/// factor) so results can be grouped without reopening the instance.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct InstanceFeatures {
    /// One number that grows with the instance's difficulty (its family's
    /// [`Family::size_label`] says what it is).
    pub size: f64,
    /// Scalar features, in column order.
    pub features: Map<String, Value>,
}

/// One run's record with its instance's features, for the `solve` table.
#[derive(Debug, Clone)]
pub struct SolveRow {
    /// The run.
    pub record: SolveRecord,
    /// The instance's features.
    pub features: InstanceFeatures,
}

/// What `eval` reports of a solution file.
#[derive(Debug, Clone, Default)]
pub struct EvalReport {
    /// Labelled lines for people (`("hosts", "3 [0, 2, 5]")`), in order.
    pub lines: Vec<(String, String)>,
    /// The evaluator's verdict (metrics, objective, violations).
    pub verdict: Verdict,
}

/// A problem family.
pub trait Family: Sync + Send {
    /// The family's name (its folder), e.g. `spd`.
    fn name(&self) -> &'static str;

    /// The `"problem"` values of the instance files this family reads by
    /// default (e.g. `["cma"]`).
    fn problems(&self) -> &'static [&'static str];

    /// Whether it can read a file whose `"problem"` is `file_problem` when
    /// asked to (`solve --problem NAME`). Default: only its own.
    fn reads(&self, file_problem: &str) -> bool {
        self.problems().contains(&file_problem)
    }

    /// Whether its instances take a start solution (`solve --start`).
    fn takes_start(&self) -> bool {
        false
    }

    /// Reads an instance file. `start` is `solve --start` (only for families
    /// that [take a start](Family::takes_start)).
    fn read(
        &self,
        path: &Path,
        start: Option<&str>,
        opts: &SolveOptions,
    ) -> Result<Box<dyn ProblemInstance>>;

    /// Every engine name, in table order (its engine list's names).
    fn engines(&self) -> Vec<String>;

    /// The engines' parameters (each becomes a `--NAME` flag of `solve` and
    /// `bench`).
    fn params(&self) -> Vec<ParamSpec> {
        Vec::new()
    }

    /// What [`InstanceFeatures::size`] measures, for plot axes.
    fn size_label(&self) -> &'static str {
        "instance size"
    }

    /// The `solve` table of this family's runs.
    fn render_table(&self, rows: &[SolveRow]) -> String;
}

/// One instance of a family, read from a file.
pub trait ProblemInstance: Send + Sync {
    /// Its family.
    fn family(&self) -> &'static dyn Family;

    /// The instance's name.
    fn name(&self) -> &str;

    /// The problem its runs report (a value of [`Family::problems`]).
    fn problem(&self) -> &'static str;

    /// Size and features for benchmark rows.
    fn features(&self) -> InstanceFeatures;

    /// The engines `--engine all` runs on it, in table order.
    fn applicable_engines(&self) -> Vec<String>;

    /// Why `--engine all` runs nothing on it, when that is so (e.g. a
    /// dynamic instance that `simulate` replays).
    fn unsolvable(&self) -> Option<String> {
        None
    }

    /// Runs `engine`, has the family's evaluator check and score the
    /// solution, and returns the record. Never panics on purpose; an unknown
    /// or inapplicable engine gives an `error` record with its reason.
    fn run_engine(&self, engine: &str, opts: &SolveOptions) -> SolveRecord;

    /// Runs an engine from outside the family's list (an external command,
    /// a Python function) through the same runner: its JSON solution is
    /// read as the family's solution and scored by the family's evaluator.
    fn run_foreign(&self, engine: &dyn ForeignEngine, opts: &SolveOptions) -> SolveRecord;

    /// The problems its runs may report (its own, and the relaxations or
    /// restrictions some engines report, e.g. ranges' `ranges-any`):
    /// `eval` accepts solution files written for any of them.
    fn reported_problems(&self) -> Vec<&'static str> {
        vec![self.problem()]
    }

    /// Evaluates a solution file (a `solve --out` file or a bare solution).
    fn eval_file(&self, solution: &Path) -> Result<EvalReport>;

    /// For downcasting to the family's own type.
    fn as_any(&self) -> &dyn Any;
}

impl std::fmt::Debug for dyn ProblemInstance {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} instance '{}'", self.problem(), self.name())
    }
}
