//! Models out and solver settings in: `--write-model DIR`
//! (`--model-format mps|lp`), `--solver-log FILE`, `--threads N`.
//!
//! [`SolverIo`] is checked once by the CLI and kept in
//! [`SolveOptions`](crate::core::SolveOptions); the run's
//! [`Deadline`](crate::core::Deadline), which every HiGHS call of a run
//! receives, carries it to [`minimise`](crate::lp::highs::minimise): the one
//! place every MILP/LP of every exact engine passes. There each model is
//! written (before it is solved, so a stopped solve still leaves it) as
//! `<instance>.<engine>.<stage>.<mps|lp>` with a JSON sidecar
//! `<same>.json`: what each column and row means and how the objective
//! relates to the engine's.

use crate::error::{Error, Result};
use crate::lp::write::{to_lp, to_mps, LpModel};
use serde_json::json;
use std::collections::HashMap;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// The file format of written models.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ModelFormat {
    /// Free MPS (`.mps`).
    #[default]
    Mps,
    /// CPLEX LP (`.lp`).
    Lp,
}

impl ModelFormat {
    /// `mps` or `lp` (a usage error otherwise).
    pub fn parse(s: &str) -> Result<Self> {
        match s.trim().to_ascii_lowercase().as_str() {
            "mps" => Ok(ModelFormat::Mps),
            "lp" => Ok(ModelFormat::Lp),
            _ => Err(Error::BadFlag {
                flag: "--model-format".into(),
                value: s.into(),
                expected: "mps or lp".into(),
            }),
        }
    }

    /// The file extension.
    pub fn ext(self) -> &'static str {
        match self {
            ModelFormat::Mps => "mps",
            ModelFormat::Lp => "lp",
        }
    }
}

/// Where a run's models go, and which run it is.
#[derive(Debug, Clone, Default)]
pub struct ModelOut {
    /// The folder (made and checked by [`SolverIo::check`]).
    pub dir: PathBuf,
    /// File format.
    pub format: ModelFormat,
    /// Instance name (set per run).
    pub instance: String,
    /// Engine name (set per run).
    pub engine: String,
    /// Only write: each model is written and not solved (the `model`
    /// command's reference formulations).
    pub write_only: bool,
    /// Files written so far, shared by the run's clones (stage name → count,
    /// and the list of paths).
    written: Arc<Mutex<Written>>,
}

#[derive(Debug, Default)]
struct Written {
    stages: HashMap<String, usize>,
    files: Vec<PathBuf>,
}

/// HiGHS and rayon settings of a command: models out, the log, threads.
#[derive(Debug, Clone, Default)]
pub struct SolverIo {
    /// Write every model (`--write-model`).
    pub model_out: Option<ModelOut>,
    /// HiGHS's log, appended to this file (`--solver-log`).
    pub log: Option<PathBuf>,
    /// Threads for HiGHS and the engines' rayon loops (`--threads`); `None`
    /// keeps each engine's default (HiGHS on one thread).
    pub threads: Option<u32>,
    /// `<instance>.<engine>` of the run ([`Self::for_run`]), for the log.
    pub run: String,
}

impl PartialEq for SolverIo {
    fn eq(&self, o: &Self) -> bool {
        self.log == o.log
            && self.threads == o.threads
            && self
                .model_out
                .as_ref()
                .map(|m| (&m.dir, m.format, &m.instance, &m.engine))
                == o.model_out
                    .as_ref()
                    .map(|m| (&m.dir, m.format, &m.instance, &m.engine))
    }
}

/// One model's labels: its stage, what the objective is in the engine's
/// terms, and whether it is a reference formulation the engine does not
/// solve itself.
#[derive(Debug, Clone, Default)]
pub struct Stage {
    /// Stage name in the file name (`hosts`, `delay`, `k3`, `cover-r2-k4`).
    pub name: String,
    /// What the objective measures (`host count`, `Σ delay`).
    pub objective: String,
    /// Set on a reference formulation (why the engine solves another way).
    pub reference: Option<String>,
}

impl Stage {
    /// A stage named `name` whose objective means `objective`.
    pub fn new(name: impl Into<String>, objective: impl Into<String>) -> Self {
        Stage {
            name: name.into(),
            objective: objective.into(),
            reference: None,
        }
    }

    /// The same stage, labelled a reference formulation (`why`: what the
    /// engine does instead).
    pub fn reference(mut self, why: impl Into<String>) -> Self {
        self.reference = Some(why.into());
        self
    }
}

impl SolverIo {
    /// Checks the settings once, before any run: at least one thread, the
    /// model folder made and writable, the log file's folder there.
    pub fn check(&self) -> Result<()> {
        if self.threads == Some(0) {
            return Err(Error::BadFlag {
                flag: "--threads".into(),
                value: "0".into(),
                expected: "a whole number >= 1".into(),
            });
        }
        if let Some(m) = &self.model_out {
            let dir = &m.dir;
            if dir.exists() && !dir.is_dir() {
                let msg = format!("--write-model {}: is a file, not a folder", dir.display());
                return Err(Error::Usage(msg));
            }
            std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
            let probe = dir.join(".serverpick-write-test");
            std::fs::write(&probe, b"").map_err(|e| Error::io(dir, e))?;
            let _ = std::fs::remove_file(&probe);
        }
        if let Some(log) = &self.log {
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(log)
                .map_err(|e| Error::io(log, e))?;
        }
        Ok(())
    }

    /// The same settings for one run of `engine` on `instance` (the files'
    /// names; a fresh list of files written).
    pub fn for_run(&self, instance: &str, engine: &str) -> Self {
        let mut io = self.clone();
        io.run = format!("{instance}.{engine}");
        if let Some(m) = &mut io.model_out {
            m.instance = instance.to_string();
            m.engine = engine.to_string();
            m.written = Arc::default();
        }
        io
    }

    /// The files written since [`Self::for_run`].
    pub fn written(&self) -> Vec<PathBuf> {
        self.model_out
            .as_ref()
            .and_then(|m| m.written.lock().ok().map(|w| w.files.clone()))
            .unwrap_or_default()
    }

    /// Runs `f` on a rayon pool of [`Self::threads`] threads (the global
    /// pool when unset or when the pool cannot be made).
    pub fn install<R: Send>(&self, f: impl FnOnce() -> R + Send) -> R {
        let pool = self.threads.and_then(|n| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(n as usize)
                .build()
                .ok()
        });
        match pool {
            Some(p) => p.install(f),
            None => f(),
        }
    }
}

impl ModelOut {
    /// Models into `dir` as `format`.
    pub fn new(dir: PathBuf, format: ModelFormat) -> Self {
        ModelOut {
            dir,
            format,
            ..ModelOut::default()
        }
    }

    /// `DIR/<instance>.<engine>.<stage>` (a stage met again gets `-2`,
    /// `-3`, …), the extension left off.
    fn stem(&self, stage: &str) -> PathBuf {
        let n = match self.written.lock() {
            Ok(mut w) => {
                let n = w.stages.entry(stage.to_string()).or_insert(0);
                *n += 1;
                *n
            }
            Err(_) => 1,
        };
        let stage = if n > 1 {
            format!("{stage}-{n}")
        } else {
            stage.to_string()
        };
        let or = |s: &str, default: &str| {
            if s.is_empty() {
                default.to_string()
            } else {
                s.to_string()
            }
        };
        let (inst, engine) = (or(&self.instance, "model"), or(&self.engine, "run"));
        let name = format!("{inst}.{engine}.{stage}");
        self.dir.join(crate::io::safe_name(&name))
    }

    /// Writes `m` and its sidecar; returns the model file's path.
    pub fn write(&self, m: &LpModel, stage: &Stage) -> std::result::Result<PathBuf, String> {
        let stem = self.stem(&stage.name);
        let file = stem.with_extension(format!("{}.{}", ext_of(&stem), self.format.ext()));
        let title = file
            .file_name()
            .map_or(String::new(), |f| f.to_string_lossy().into_owned());
        let text = match self.format {
            ModelFormat::Mps => to_mps(m, &title),
            ModelFormat::Lp => to_lp(m, &title),
        };
        std::fs::write(&file, text).map_err(|e| format!("{}: {e}", file.display()))?;
        let side = stem.with_extension(format!("{}.json", ext_of(&stem)));
        let body = serde_json::to_string_pretty(&self.sidecar(m, stage, &title))
            .map_err(|e| e.to_string())?;
        std::fs::write(&side, body + "\n").map_err(|e| format!("{}: {e}", side.display()))?;
        if let Ok(mut w) = self.written.lock() {
            w.files.push(file.clone());
        }
        Ok(file)
    }

    fn sidecar(&self, m: &LpModel, stage: &Stage, file: &str) -> serde_json::Value {
        let cols: Vec<_> = m
            .cols
            .iter()
            .enumerate()
            .map(|(i, c)| json!({"index": i, "name": c.name, "meaning": c.meaning}))
            .collect();
        let rows: Vec<_> = m
            .rows
            .iter()
            .enumerate()
            .map(|(i, r)| json!({"index": i, "name": r.name}))
            .collect();
        json!({
            "file": file,
            "format": self.format.ext(),
            "instance": self.instance,
            "engine": self.engine,
            "stage": stage.name,
            "reference": stage.reference.is_some(),
            "reference_note": stage.reference,
            "objective": {
                "sense": "minimise",
                "meaning": stage.objective,
                "scale": 1.0,
                "offset": m.offset,
                "note": "engine objective = scale * (file objective + offset)",
            },
            "size": {
                "columns": m.cols.len(),
                "integer_columns": m.integers(),
                "rows": m.rows.len(),
                "nonzeros": m.nonzeros(),
            },
            "columns": cols,
            "rows": rows,
        })
    }
}

/// Runs `f` on the rayon pool `dl`'s run asks for (`--threads`), else on
/// the global pool.
pub fn install<R: Send>(dl: &crate::core::Deadline, f: impl FnOnce() -> R + Send) -> R {
    match dl.io() {
        Some(io) => io.install(f),
        None => f(),
    }
}

/// The part of a stem after its last dot (the stage), which
/// `with_extension` would otherwise replace.
fn ext_of(stem: &Path) -> String {
    stem.extension()
        .map_or(String::new(), |e| e.to_string_lossy().into_owned())
}

/// One HiGHS log: HiGHS writes (and truncates) its own `log_file`, so each
/// call logs to a part file next to the log, appended to it afterwards
/// under a lock with a header line.
#[derive(Debug)]
pub struct LogPart {
    /// The file HiGHS writes.
    pub part: PathBuf,
    log: PathBuf,
    header: String,
}

static LOG_LOCK: Mutex<u64> = Mutex::new(0);

impl LogPart {
    /// A part file for one HiGHS call of `stage`.
    pub fn new(log: &Path, run: &str, stage: &str) -> Self {
        let n = LOG_LOCK.lock().map_or(0, |mut n| {
            *n += 1;
            *n
        });
        let name = log
            .file_name()
            .map_or("highs.log".into(), |f| f.to_string_lossy().into_owned());
        let part = log.with_file_name(format!(".{name}.{}.{n}", std::process::id()));
        LogPart {
            part,
            log: log.to_path_buf(),
            header: format!("==== serverpick: {run} {stage} ====\n"),
        }
    }

    /// Appends the part to the log and removes it (best effort: a log that
    /// cannot be written is not worth failing a solve).
    pub fn finish(self) {
        let body = std::fs::read(&self.part).unwrap_or_default();
        let _ = std::fs::remove_file(&self.part);
        let _guard = LOG_LOCK.lock();
        if let Ok(mut f) = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.log)
        {
            let _ = f.write_all(self.header.as_bytes());
            let _ = f.write_all(&body);
        }
    }
}
