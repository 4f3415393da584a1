//! The one registry of problem families, and reading any instance file
//! through it.
//!
//! The crate's own families are listed once, in `src/problems/mod.rs`
//! (`problems::builtin`). Another crate, or a test, adds its own with
//! [`register`]; from then on `solve`, `eval`, `bench`, `gen` and `repro`
//! treat it like the built-in ones.

use crate::core::family::{Family, ProblemInstance, Source};
use crate::core::{ParamSpec, SolveOptions};
use crate::error::{Error, Result};
use std::path::Path;
use std::sync::RwLock;

static EXTRA: RwLock<Vec<&'static dyn Family>> = RwLock::new(Vec::new());

/// Adds a family (ignored when one of that name is registered already).
pub fn register(family: &'static dyn Family) {
    if find(family.name()).is_some() {
        return;
    }
    let mut extra = EXTRA.write().unwrap_or_else(|e| e.into_inner());
    extra.push(family);
}

/// Every family: the crate's, then the registered ones.
pub fn families() -> Vec<&'static dyn Family> {
    let mut all: Vec<&'static dyn Family> = crate::problems::builtin()
        .iter()
        .map(|r| r.family)
        .collect();
    all.extend(EXTRA.read().unwrap_or_else(|e| e.into_inner()).iter());
    all
}

/// The family named `name`.
pub fn find(name: &str) -> Option<&'static dyn Family> {
    families().into_iter().find(|f| f.name() == name)
}

/// The family that reads files of `problem` by default.
pub fn reader_of(problem: &str) -> Option<&'static dyn Family> {
    families()
        .into_iter()
        .find(|f| f.problems().contains(&problem))
}

/// Every problem name files may carry.
pub fn problem_names() -> Vec<&'static str> {
    families()
        .iter()
        .flat_map(|f| f.problems().iter().copied())
        .collect()
}

/// Every engine name of every family, in table order, each once.
pub fn known_engines() -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for n in families().iter().flat_map(|f| f.engines()) {
        if !names.contains(&n) {
            names.push(n);
        }
    }
    names
}

/// Every engine parameter of every family, each name once.
pub fn params() -> Vec<ParamSpec> {
    let mut out: Vec<ParamSpec> = Vec::new();
    for p in families().iter().flat_map(|f| f.params()) {
        if !out.iter().any(|q| q.name == p.name) {
            out.push(p);
        }
    }
    out
}

/// The `"problem"` field of an instance file.
pub fn problem_of(path: &Path) -> Result<String> {
    let text = crate::io::read_text(path)?;
    problem_of_text(&text, &path.display().to_string())
}

/// The `"problem"` field of an instance file's text (`file` names it in
/// errors).
pub fn problem_of_text(text: &str, file: &str) -> Result<String> {
    // A known problem named at the top level is found without parsing the
    // whole file (the family's reader parses and checks all of it); any
    // other case takes the strict parse, so its errors come first as before.
    let skimmed = crate::io::json_matrix::top_level_string(text, "problem");
    if let Some(p) = skimmed.filter(|p| reader_of(p).is_some()) {
        return Ok(p);
    }
    let value = crate::io::json_strict::parse_value(text, file)?;
    match value.get("problem") {
        Some(serde_json::Value::String(p)) => Ok(p.clone()),
        Some(_) => Err(Error::input(file, "problem", "expected a string")),
        None => Err(Error::input(
            file,
            "problem",
            "missing: every instance names its problem",
        )),
    }
}

/// Reads any instance file with the family its `"problem"` names.
pub fn read_instance(path: &Path) -> Result<Box<dyn ProblemInstance>> {
    read_instance_as(path, None, None, &SolveOptions::default())
}

/// Reads an instance from its text (a file's, or one built in memory) with
/// the family its `"problem"` names: the same checks and errors as a file.
pub fn parse_instance(src: &Source) -> Result<Box<dyn ProblemInstance>> {
    let problem = problem_of_text(&src.text, &src.file)?;
    let family = reader_of(&problem).ok_or_else(|| {
        Error::input(
            &src.file,
            "problem",
            format!(
                "'{problem}' is not a problem serverpick reads ({})",
                problem_names().join(", ")
            ),
        )
    })?;
    family.parse(src, None, &SolveOptions::default())
}

/// Reads an instance file as `problem` (default: the file's own), with an
/// optional start (`solve --start`). A start without a problem picks the
/// family that takes starts and reads the file.
pub fn read_instance_as(
    path: &Path,
    problem: Option<&str>,
    start: Option<&str>,
    opts: &SolveOptions,
) -> Result<Box<dyn ProblemInstance>> {
    let file_problem = problem_of(path)?;
    let file = path.display().to_string();
    let family = match problem {
        Some(p) => {
            let f = families()
                .into_iter()
                .find(|f| f.problems().contains(&p))
                .ok_or_else(|| {
                    Error::Usage(format!(
                        "--problem {p}: unknown problem (known: {})",
                        problem_names().join(", ")
                    ))
                })?;
            if !f.reads(&file_problem) {
                return Err(Error::Usage(format!(
                    "{file}: a '{file_problem}' instance cannot be solved as '{p}'"
                )));
            }
            f
        }
        None if start.is_some() => families()
            .into_iter()
            .find(|f| f.takes_start() && f.reads(&file_problem))
            .ok_or_else(|| {
                Error::Usage(format!(
                    "{file}: --start does not apply to a '{file_problem}' instance"
                ))
            })?,
        None => reader_of(&file_problem).ok_or_else(|| {
            Error::input(
                &file,
                "problem",
                format!(
                    "'{file_problem}' is not a problem serverpick reads ({})",
                    problem_names().join(", ")
                ),
            )
        })?,
    };
    if start.is_some() && !family.takes_start() {
        return Err(Error::Usage(format!(
            "{file}: --start does not apply to the '{}' problem",
            family.name()
        )));
    }
    family.read(path, start, opts)
}
