//! The registry of problem families as a value, and reading any instance
//! file through it.
//!
//! The crate's own families are listed once, in `src/problems/mod.rs`
//! (`problems::registry()`). The command layer builds the registry and hands
//! it down; another crate, or a test, adds its own family with
//! [`Registry::with`], and from then on `solve`, `eval`, `bench`, `gen` and
//! `repro` run with that registry treat it like the built-in ones. There is
//! no global list.
//!
//! ```
//! let reg = serverpick::problems::registry();
//! assert!(reg.find("cma").is_some());
//! let inst = reg.read_instance(std::path::Path::new("instances/cma-small.json")).unwrap();
//! assert_eq!(inst.problem(), "cma");
//! ```

use crate::core::family::{Family, ProblemInstance, Source};
use crate::core::{ParamSpec, SolveOptions};
use crate::error::{Error, Result};
use std::path::Path;

/// The families a program knows, in table order.
#[derive(Clone, Default)]
pub struct Registry {
    families: Vec<&'static dyn Family>,
}

impl std::fmt::Debug for Registry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries(self.families.iter().map(|fam| fam.name()))
            .finish()
    }
}

impl Registry {
    /// A registry of these families, in this order.
    pub fn new(families: Vec<&'static dyn Family>) -> Self {
        Registry { families }
    }

    /// The same registry with `family` added after the others (ignored when
    /// one of that name is there already).
    pub fn with(mut self, family: &'static dyn Family) -> Self {
        if self.find(family.name()).is_none() {
            self.families.push(family);
        }
        self
    }

    /// Every family, in table order.
    pub fn families(&self) -> &[&'static dyn Family] {
        &self.families
    }

    /// The family named `name`.
    pub fn find(&self, name: &str) -> Option<&'static dyn Family> {
        self.families.iter().copied().find(|f| f.name() == name)
    }

    /// The family that reads files of `problem` by default.
    pub fn reader_of(&self, problem: &str) -> Option<&'static dyn Family> {
        self.families
            .iter()
            .copied()
            .find(|f| f.problems().contains(&problem))
    }

    /// Every family name, in table order.
    pub fn family_names(&self) -> Vec<&'static str> {
        self.families.iter().map(|f| f.name()).collect()
    }

    /// Every problem name files may carry.
    pub fn problem_names(&self) -> Vec<&'static str> {
        self.families
            .iter()
            .flat_map(|f| f.problems().iter().copied())
            .collect()
    }

    /// Every engine name of every family, in table order, each once.
    pub fn known_engines(&self) -> Vec<String> {
        let mut names: Vec<String> = Vec::new();
        for n in self.families.iter().flat_map(|f| f.engines()) {
            if !names.contains(&n) {
                names.push(n);
            }
        }
        names
    }

    /// Every engine parameter of every family, each name once.
    pub fn params(&self) -> Vec<ParamSpec> {
        let mut out: Vec<ParamSpec> = Vec::new();
        for p in self.families.iter().flat_map(|f| f.params()) {
            if !out.iter().any(|q| q.name == p.name) {
                out.push(p);
            }
        }
        out
    }

    /// The `"problem"` field of an instance file.
    pub fn problem_of(&self, path: &Path) -> Result<String> {
        let text = crate::io::read_text(path)?;
        self.problem_of_text(&text, &path.display().to_string())
    }

    /// The `"problem"` field of an instance file's text (`file` names it in
    /// errors).
    pub fn problem_of_text(&self, text: &str, file: &str) -> Result<String> {
        // A known problem named at the top level is found without parsing
        // the whole file (the family's reader parses and checks all of it);
        // any other case takes the strict parse, so its errors come first.
        let skimmed = crate::io::json_matrix::top_level_string(text, "problem");
        if let Some(p) = skimmed.filter(|p| self.reader_of(p).is_some()) {
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
    pub fn read_instance(&self, path: &Path) -> Result<Box<dyn ProblemInstance>> {
        self.read_instance_as(path, None, None, &SolveOptions::default())
    }

    /// Reads an instance from its text (a file's, or one built in memory)
    /// with the family its `"problem"` names: the same checks and errors as
    /// a file.
    pub fn parse_instance(&self, src: &Source) -> Result<Box<dyn ProblemInstance>> {
        let problem = self.problem_of_text(&src.text, &src.file)?;
        let family = self
            .reader_of(&problem)
            .ok_or_else(|| self.not_read(&src.file, &problem))?;
        family.parse(src, None, &SolveOptions::default())
    }

    /// Reads an instance file as `problem` (default: the file's own), with
    /// an optional start (`solve --start`). A start without a problem picks
    /// the family that takes starts and reads the file.
    pub fn read_instance_as(
        &self,
        path: &Path,
        problem: Option<&str>,
        start: Option<&str>,
        opts: &SolveOptions,
    ) -> Result<Box<dyn ProblemInstance>> {
        let file_problem = self.problem_of(path)?;
        let file = path.display().to_string();
        let family = match problem {
            Some(p) => {
                let f = self.reader_of(p).ok_or_else(|| {
                    Error::Usage(format!(
                        "--problem {p}: unknown problem (known: {})",
                        self.problem_names().join(", ")
                    ))
                })?;
                if !f.reads(&file_problem) {
                    return Err(Error::Usage(format!(
                        "{file}: a '{file_problem}' instance cannot be solved as '{p}'"
                    )));
                }
                f
            }
            None if start.is_some() => self
                .families
                .iter()
                .copied()
                .find(|f| f.takes_start() && f.reads(&file_problem))
                .ok_or_else(|| {
                    Error::Usage(format!(
                        "{file}: --start does not apply to a '{file_problem}' instance"
                    ))
                })?,
            None => self
                .reader_of(&file_problem)
                .ok_or_else(|| self.not_read(&file, &file_problem))?,
        };
        if start.is_some() && !family.takes_start() {
            return Err(Error::Usage(format!(
                "{file}: --start does not apply to the '{}' problem",
                family.name()
            )));
        }
        family.read(path, start, opts)
    }

    /// A file whose `"problem"` no family reads.
    fn not_read(&self, file: &str, problem: &str) -> Error {
        Error::input(
            file,
            "problem",
            format!(
                "'{problem}' is not a problem serverpick reads ({})",
                self.problem_names().join(", ")
            ),
        )
    }
}
