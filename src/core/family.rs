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
//! ([`crate::app::cli::CliHook`]), so `core` knows no clap.

use crate::core::outcome::Verdict;
use crate::core::{ForeignEngine, ParamSpec, SolveOptions, SolveRecord};
use crate::error::{Error, Result};
use serde_json::{Map, Value};
use std::any::Any;
use std::path::{Path, PathBuf};

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

/// An instance file's text and where it came from: what [`Family::parse`]
/// reads, from a file ([`Source::read`]) or from memory (the Python
/// package's array constructors), with the same checks and the same errors.
#[derive(Debug, Clone)]
pub struct Source {
    /// The JSON text.
    pub text: String,
    /// What errors name as the file (a path, or e.g. `<arrays>`).
    pub file: String,
    /// The folder side files (CSV matrices) are relative to.
    pub base: PathBuf,
    /// The instance's name when the text gives none (a file's stem).
    pub default_name: String,
}

impl Source {
    /// Reads a file: its text, its path as the name errors use, its folder
    /// and its stem.
    pub fn read(path: &Path) -> Result<Self> {
        let text = crate::io::read_text(path)?;
        let stem = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "instance".into());
        Ok(Source {
            text,
            file: path.display().to_string(),
            base: path.parent().unwrap_or(Path::new(".")).to_path_buf(),
            default_name: stem,
        })
    }

    /// Text held in memory: `file` names it in errors, side files are
    /// relative to the current folder, the default name is `default_name`.
    pub fn memory(text: String, file: &str, default_name: &str) -> Self {
        Source {
            text,
            file: file.to_string(),
            base: PathBuf::from("."),
            default_name: default_name.to_string(),
        }
    }
}

/// A numeric array of an instance's data (row-major), for numpy views.
#[derive(Debug, Clone, PartialEq)]
pub struct NamedArray {
    /// Its name (`access`, `delay`, …).
    pub name: &'static str,
    /// Its shape (one entry for a vector, two for a matrix).
    pub shape: Vec<usize>,
    /// The values, row-major; `NaN` where the file has `null` (no link).
    pub data: Vec<f64>,
}

impl NamedArray {
    /// A matrix of `rows` rows from a row-major vector.
    pub fn matrix(name: &'static str, rows: usize, data: Vec<f64>) -> Self {
        let cols = data.len().checked_div(rows).unwrap_or(0);
        NamedArray {
            name,
            shape: vec![rows, cols],
            data,
        }
    }

    /// A vector.
    pub fn vector(name: &'static str, data: Vec<f64>) -> Self {
        NamedArray {
            name,
            shape: vec![data.len()],
            data,
        }
    }
}

/// What a family cannot do from memory (a family from outside the crate that
/// implements only the file interface).
fn unsupported(family: &str, what: &str) -> Error {
    Error::Usage(format!("the '{family}' family does not support {what}"))
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
    /// that [take a start](Family::takes_start)). Default: the file's
    /// [`Source`] through [`Family::parse`], so a family implements one of
    /// the two (the built-in ones implement `parse`).
    fn read(
        &self,
        path: &Path,
        start: Option<&str>,
        opts: &SolveOptions,
    ) -> Result<Box<dyn ProblemInstance>> {
        self.parse(&Source::read(path)?, start, opts)
    }

    /// Reads an instance from its text ([`Source`]): the same checks and
    /// errors as [`Family::read`] on a file holding that text. Default: not
    /// supported (a usage error; a family that reads only files overrides
    /// [`Family::read`]).
    fn parse(
        &self,
        _src: &Source,
        _start: Option<&str>,
        _opts: &SolveOptions,
    ) -> Result<Box<dyn ProblemInstance>> {
        Err(unsupported(self.name(), "reading instances from memory"))
    }

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
    /// Default: the file's JSON through [`ProblemInstance::eval_value`].
    fn eval_file(&self, solution: &Path) -> Result<EvalReport> {
        let file = solution.display().to_string();
        let text = crate::io::read_text(solution)?;
        let value = crate::io::json_strict::parse_value(&text, &file)?;
        self.eval_value(value, &file)
    }

    /// Evaluates a solution given as JSON (a whole solution file's content
    /// or the bare solution); `file` names it in errors.
    fn eval_value(&self, _solution: Value, _file: &str) -> Result<EvalReport> {
        Err(unsupported(
            self.family().name(),
            "evaluating JSON solutions",
        ))
    }

    /// The family's solution for one assignment (a server or mirror index
    /// per client), for families whose solutions are one; others: a usage
    /// error.
    fn solution_from_assignment(&self, _assign: &[usize]) -> Result<Value> {
        Err(Error::Usage(format!(
            "a '{}' solution is not one assignment: give the solution object",
            self.problem()
        )))
    }

    /// The instance as a self-contained instance file's JSON (side files
    /// inlined), which [`Family::parse`] reads back to an equal instance.
    fn to_value(&self) -> Result<Value> {
        Err(unsupported(self.family().name(), "writing instances"))
    }

    /// Its numeric data as named arrays (e.g. SPD's `access`), for numpy.
    /// Default: none.
    fn arrays(&self) -> Vec<NamedArray> {
        Vec::new()
    }

    /// For downcasting to the family's own type.
    fn as_any(&self) -> &dyn Any;
}

impl std::fmt::Debug for dyn ProblemInstance {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} instance '{}'", self.problem(), self.name())
    }
}
