//! Solution import (`bench --solutions DIR`): solution files produced
//! elsewhere (any tool, any machine) become rows of the result set, scored
//! by the family's evaluator and cross-checked like any engine's.
//!
//! A file is matched to its instance by the `instance_sha256` it records (a
//! `solve --out` file records it), else by its instance name (the file's
//! `instance`, or `<instance>.<engine>.solution.json`, the name `solve --out`
//! gives). Its engine is `--solutions-engine`, else the file's `engine`, else
//! the file name's. A file for no instance of the run is skipped with a note;
//! one whose name matches an instance but whose hash does not is refused
//! with an `error` row (it was written for another version of the file).

use crate::core::{Ctx, FailureReason, ForeignEngine, Outcome, ProblemInstance};
use crate::error::{Error, Result};
use crate::external::answer::{self, Answer};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// One imported solution, matched to a loaded instance.
#[derive(Debug, Clone)]
pub struct Import {
    /// Index of its instance among the loaded files.
    pub instance: usize,
    /// The engine its row reports.
    pub engine: String,
    /// The file it came from.
    pub source: PathBuf,
    /// Its answer, or why it is refused.
    pub answer: std::result::Result<Answer, String>,
}

impl Import {
    /// The wall time the file reports (0 when it reports none).
    pub fn time_ms(&self) -> f64 {
        self.answer
            .as_ref()
            .ok()
            .and_then(|a| a.time_ms)
            .unwrap_or(0.0)
    }
}

impl ForeignEngine for Import {
    fn name(&self) -> &str {
        &self.engine
    }

    fn solve(&self, _inst: &dyn ProblemInstance, _ctx: &Ctx) -> Outcome<Value> {
        let from = self.source.display();
        match &self.answer {
            Ok(a) => {
                let o = a.outcome.clone();
                let note = format!("imported from {from}");
                let message = match &o.message {
                    Some(m) => format!("{m} ({note})"),
                    None => note,
                };
                o.with_message(message)
            }
            Err(why) => Outcome::failed(FailureReason::Rejected, format!("{from}: {why}")),
        }
    }
}

/// An instance of the run, as matching sees it.
pub struct Candidate<'a> {
    /// Its name.
    pub name: &'a str,
    /// Its file's SHA-256.
    pub sha256: Option<String>,
}

/// Reads every `*.json` file under `dirs` and matches it to `instances`.
pub fn read(
    dirs: &[PathBuf],
    engine: Option<&str>,
    instances: &[Candidate],
) -> Result<Vec<Import>> {
    let mut files = Vec::new();
    for d in dirs {
        if !d.is_dir() {
            return Err(Error::Usage(format!(
                "--solutions {}: not a folder",
                d.display()
            )));
        }
        let json = |p: &Path| p.extension().is_some_and(|e| e == "json");
        crate::io::walk_files(d, &json, &mut files)?;
    }
    let mut out = Vec::new();
    for f in files {
        match import_one(&f, engine, instances) {
            Ok(Some(i)) => out.push(i),
            Ok(None) => {}
            Err(why) => eprintln!("bench: --solutions {}: skipped: {why}", f.display()),
        }
    }
    Ok(out)
}

/// `(instance, engine)` from `<instance>.<engine>.solution.json`.
fn name_parts(path: &Path) -> Option<(String, String)> {
    let name = path.file_name()?.to_str()?;
    let stem = name.strip_suffix(".solution.json")?;
    let (inst, engine) = stem.rsplit_once('.')?;
    Some((inst.to_string(), engine.to_string()))
}

fn import_one(
    path: &Path,
    engine: Option<&str>,
    instances: &[Candidate],
) -> std::result::Result<Option<Import>, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read it: {e}"))?;
    let parts = name_parts(path);
    let answer = answer::parse(&bytes).map_err(|e| format!("not a solution: {e}"))?;
    let engine = engine
        .map(str::to_string)
        .or_else(|| answer.engine.clone())
        .or_else(|| parts.as_ref().map(|p| p.1.clone()))
        .ok_or("no engine name: the file has no `engine`; pass --solutions-engine NAME")?;
    let name = answer
        .instance
        .clone()
        .or_else(|| parts.as_ref().map(|p| p.0.clone()));
    let (instance, refusal) = match_instance(&answer, name.as_deref(), instances)?;
    Ok(Some(Import {
        instance,
        engine,
        source: path.to_path_buf(),
        answer: match refusal {
            Some(why) => Err(why),
            None => Ok(answer),
        },
    }))
}

/// The instance an answer belongs to, with a refusal when only its name
/// matches.
fn match_instance(
    answer: &Answer,
    name: Option<&str>,
    instances: &[Candidate],
) -> std::result::Result<(usize, Option<String>), String> {
    if let Some(sha) = &answer.instance_sha256 {
        if let Some(i) = instances.iter().position(|c| {
            c.sha256
                .as_deref()
                .is_some_and(|s| s.eq_ignore_ascii_case(sha))
        }) {
            return Ok((i, None));
        }
    }
    let name = name.ok_or("no instance name (`instance`) and no instance_sha256")?;
    let same: Vec<usize> = (0..instances.len())
        .filter(|&i| instances[i].name == name)
        .collect();
    match (same.as_slice(), &answer.instance_sha256) {
        ([], _) => Err(format!("no instance named '{name}' in this run")),
        ([i], None) => Ok((*i, None)),
        ([i], Some(sha)) => Ok((
            *i,
            Some(format!(
                "written for another version of instance '{name}' (instance_sha256 {sha} \
                 differs from the file's)"
            )),
        )),
        (_, _) => Err(format!(
            "instance name '{name}' is shared by {} files of this run and the file records no \
             matching instance_sha256",
            same.len()
        )),
    }
}
