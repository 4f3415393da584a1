//! The HiGHS flags every solving command shares (`--write-model`,
//! `--model-format`, `--solver-log`, `--threads`) and `serverpick model`,
//! which only writes models.
//!
//! `--threads N` is per run: HiGHS's `threads` option and the rayon pool of
//! engines that solve models in parallel (SPD `exact` on CS: N roots at a
//! time, each HiGHS call on one thread). `bench --jobs J` still sets how many
//! runs go in parallel, so a bench run uses up to J × N threads.

use crate::app::cli::bench::params_into;
use crate::app::cli::parse_time_limit;
use crate::core::registry::Registry;
use crate::core::{Deadline, SolveOptions};
use crate::error::{Error, Result};
use crate::lp::model_out::{ModelFormat, ModelOut, SolverIo};
use std::path::{Path, PathBuf};

/// HiGHS flags of `solve`, `bench`, `plan spd`, `plan cma`.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct SolverArgs {
    /// Write every MILP/LP the exact engines build into DIR, one file per
    /// solve stage (`<instance>.<engine>.<stage>.mps`) with a JSON sidecar
    /// saying what each column and row means; written before solving.
    #[arg(long, value_name = "DIR")]
    pub write_model: Option<PathBuf>,
    /// Format of `--write-model` files: `mps` (free MPS) or `lp` (CPLEX LP).
    #[arg(long, value_name = "mps|lp", default_value = "mps")]
    pub model_format: String,
    /// Append HiGHS's log of every solve to FILE (default: HiGHS is quiet).
    #[arg(long, value_name = "FILE")]
    pub solver_log: Option<PathBuf>,
    /// Threads of each run: HiGHS's `threads` and the rayon pool of engines
    /// that solve models in parallel (at least 1; default: HiGHS on one
    /// thread, rayon on every core).
    #[arg(long, value_name = "N")]
    pub threads: Option<u32>,
}

impl SolverArgs {
    /// The checked settings (folder made and writable, N >= 1).
    pub fn io(&self) -> Result<SolverIo> {
        let format = ModelFormat::parse(&self.model_format)?;
        let io = SolverIo {
            model_out: self
                .write_model
                .as_ref()
                .map(|dir| ModelOut::new(dir.clone(), format)),
            log: self.solver_log.clone(),
            threads: self.threads,
            run: String::new(),
        };
        io.check()?;
        Ok(io)
    }
}

/// `serverpick model INSTANCE... --engine exact --out DIR`.
#[derive(Debug, clap::Args)]
pub struct ModelArgs {
    /// Instance files.
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
    /// Engines, comma-separated (their MILP/LP stages are written).
    #[arg(long, short, default_value = "exact")]
    pub engine: Vec<String>,
    /// Folder the models and sidecars go into.
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// `mps` (free MPS) or `lp` (CPLEX LP).
    #[arg(long, value_name = "mps|lp", default_value = "mps")]
    pub model_format: String,
    /// Solve each file as this problem (e.g. `spdvr`).
    #[arg(long)]
    pub problem: Option<String>,
    /// Start solution or engine, for problems that take one (SPDVR).
    #[arg(long)]
    pub start: Option<String>,
    /// Wall-time limit, seconds (`none` or 0: no limit).
    #[arg(long, default_value = "60", allow_hyphen_values = true)]
    pub time_limit: String,
    /// Seed for randomised stages.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
}

/// Runs `model`: each engine runs with its models written; the files are
/// listed on stdout (nothing else is). A stage's model depends on the
/// earlier stages' optima, so the stages are solved to reach the next one.
pub fn run_model(reg: &Registry, a: &ModelArgs, m: &clap::ArgMatches) -> Result<i32> {
    crate::core::interrupt::install();
    let solver = SolverArgs {
        write_model: Some(a.out.clone()),
        model_format: a.model_format.clone(),
        ..SolverArgs::default()
    };
    let limit = parse_time_limit(&a.time_limit)?;
    let mut opts = SolveOptions::new(limit, a.seed)
        .with_deadline(Deadline::after(limit))
        .with_io(solver.io()?);
    params_into(&mut opts, &reg.params(), m)?;
    let engines = crate::app::cli::split_list(&a.engine);
    for file in &a.paths {
        let inst = reg.read_instance_as(file, a.problem.as_deref(), a.start.as_deref(), &opts)?;
        for e in &engines {
            if !inst.family().engines().contains(e) {
                return Err(Error::Usage(format!(
                    "{}: no engine '{e}' for a '{}' instance",
                    file.display(),
                    inst.problem()
                )));
            }
            let run = opts.for_run(inst.name(), e);
            let rec = inst.run_engine(e, &run);
            let files = run.io().written();
            note_if_none(file, e, &files);
            for f in files {
                crate::app::cli::out::println(&f.display().to_string())?;
            }
            if let Some(msg) = rec
                .message
                .filter(|_| rec.status == crate::core::Status::Error)
            {
                eprintln!("serverpick: {}: {e}: {msg}", file.display());
            }
        }
    }
    Ok(0)
}

/// The note for a run that wrote no model although asked to.
pub fn note_if_none(file: &Path, engine: &str, files: &[PathBuf]) {
    if files.is_empty() {
        eprintln!(
            "serverpick: {}: engine '{engine}' built no MILP/LP in this run (it solves by \
             search, flow or a heuristic, or needed no model); no model written",
            file.display()
        );
    }
}
