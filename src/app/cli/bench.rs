//! `serverpick bench` and `serverpick bench-merge`, and the run options
//! they share with the families' `repro` commands.
//!
//! Exit status: a run that finds a contradiction (a claimed optimum, bound or
//! infeasibility beaten by another engine) writes every output, marks the
//! rows `check = CONFLICT`, lists the conflicts at the top of `summary.md`
//! and then returns an error, so the command exits non-zero.

use crate::app::cli::{parse_time_limit, split_list};
use crate::bench::{runner, BenchConfig, BenchOutcome, Shard};
use crate::core::registry::Registry;
use crate::core::{ParamKind, ParamSpec, SolveOptions};
use crate::error::{Error, Result};
use clap::Args;
use std::path::{Path, PathBuf};

/// Options shared by `bench` and `repro`.
#[derive(Debug, Clone, Args)]
pub struct RunArgs {
    /// Engine names, comma-separated or repeated, or `all` (every engine that
    /// applies to each instance). `--engines` is accepted too.
    #[arg(
        long = "engine",
        short,
        visible_alias = "engines",
        default_value = "all"
    )]
    pub engines: Vec<String>,
    /// Wall-time limit of each run (each instance × engine × repetition),
    /// seconds (`none` or 0: no limit). Ctrl-C ends the whole run; the rows
    /// finished are kept (`--resume` goes on).
    #[arg(long, default_value = "60", allow_hyphen_values = true)]
    pub time_limit: String,
    /// Repetitions per (instance, engine); repetition k runs with seed + k.
    #[arg(long, default_value_t = 1)]
    pub repeat: u32,
    /// Worker threads running (instance, engine) units in parallel (0 = one
    /// per core). Use 1 when runtimes matter.
    #[arg(long, default_value_t = 0)]
    pub jobs: usize,
    /// Keep the rows already in OUT/results.jsonl and run only the missing ones.
    #[arg(long)]
    pub resume: bool,
    /// Base seed for randomised engines.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// No progress bar and no progress lines.
    #[arg(long, short)]
    pub quiet: bool,
    /// When stderr is not a terminal (a batch job's log), print a progress
    /// line every SECS seconds: units done, running and left, error rows,
    /// time left (0: never).
    #[arg(long, value_name = "SECS", default_value_t = 30.0)]
    pub progress_every: f64,
}

/// `serverpick bench PATH... [--engines LIST|all] [--time-limit SECS]
/// [--repeat N] [--jobs N] [--shard K/N] [--resume] [--out DIR]`.
#[derive(Debug, Clone, Args)]
pub struct BenchArgs {
    /// Instance files or folders (searched recursively for *.json; mixed
    /// problems allowed).
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
    /// Output folder (results.jsonl, results.csv, summary.md, *.svg).
    #[arg(long, default_value = "bench-out")]
    pub out: PathBuf,
    /// Run only shard K of N (0-based, e.g. `--shard $SLURM_ARRAY_TASK_ID/8`);
    /// combine the shards' folders with `bench-merge`.
    #[arg(long)]
    pub shard: Option<String>,
    /// Shared run options.
    #[command(flatten)]
    pub run: RunArgs,
    /// A folder of solution files produced elsewhere (repeatable): each is
    /// matched to its instance (its `instance_sha256`, else its instance
    /// name), evaluated and added as a row of the engine it names.
    #[arg(long, value_name = "DIR")]
    pub solutions: Vec<PathBuf>,
    /// The engine name of every imported solution's row.
    #[arg(long, value_name = "NAME")]
    pub solutions_engine: Option<String>,
    /// External engines.
    #[command(flatten)]
    pub external: ExternalArgs,
    /// Models out, HiGHS log, threads per run (`--jobs` runs in parallel
    /// each use up to `--threads`).
    #[command(flatten)]
    pub solver: crate::app::cli::model::SolverArgs,
}

/// External engines (`solve` and `bench`): a researcher's command run
/// beside the built-in engines and judged by the same evaluator.
#[derive(Debug, Clone, Default, Args)]
pub struct ExternalArgs {
    /// An external engine, `NAME='COMMAND ARGS…'` (repeatable): run on every
    /// instance beside the engines selected. Placeholders: {instance}
    /// {solution} {time_limit} {seed} {threads} {problem}. It writes its
    /// solution (JSON, docs/formats.md) to {solution} or prints it on
    /// stdout. No shell runs it unless you write one (`sh -c '…'`).
    #[arg(long = "engine-cmd", value_name = "NAME=COMMAND")]
    pub engine_cmd: Vec<String>,
    /// A TOML file of external engines (`[[engine]]` tables: name, command,
    /// families, problems, env, cwd).
    #[arg(long, value_name = "FILE")]
    pub engines_file: Option<PathBuf>,
    /// Address-space limit of each external command, MiB (`ulimit -v`).
    #[arg(long, value_name = "MB")]
    pub engine_mem_limit: Option<u64>,
}

impl ExternalArgs {
    /// The external engines these flags declare (names checked against
    /// each other and the built-in engines); logs go to `log_dir`.
    pub fn engines(
        &self,
        builtin: &[String],
        log_dir: Option<PathBuf>,
        threads: usize,
    ) -> Result<crate::external::ExternalEngines> {
        let mut specs = Vec::new();
        if let Some(f) = &self.engines_file {
            specs.extend(crate::external::read_engines_file(f)?);
        }
        for flag in &self.engine_cmd {
            specs.push(crate::external::ExternalSpec::from_flag(flag)?);
        }
        crate::external::spec::check_names(&specs, builtin)?;
        if self.engine_mem_limit == Some(0) {
            return Err(Error::Usage(
                "--engine-mem-limit must be at least 1 MB".into(),
            ));
        }
        Ok(crate::external::ExternalEngines {
            specs,
            mem_limit_mb: self.engine_mem_limit,
            log_dir,
            threads,
        })
    }
}

/// `serverpick bench-merge DIR... --out DIR`.
#[derive(Debug, Clone, Args)]
pub struct BenchMergeArgs {
    /// Result folders (each with a results.jsonl), e.g. one per shard.
    #[arg(required = true)]
    pub dirs: Vec<PathBuf>,
    /// Output folder of the combined result set.
    #[arg(long)]
    pub out: PathBuf,
}

/// Adds every family's engine parameters to `cmd` as `--NAME VALUE` flags
/// (read back by [`params_into`]): `solve` and `bench`.
pub fn with_all_params(cmd: clap::Command, registry: &Registry) -> clap::Command {
    with_params(cmd, &registry.params())
}

/// Adds these engine parameters to `cmd` as `--NAME VALUE` flags (a
/// family's `repro` command adds its own).
pub fn with_params(mut cmd: clap::Command, params: &[ParamSpec]) -> clap::Command {
    for &p in params {
        let mut arg = clap::Arg::new(p.name)
            .long(p.name)
            .value_name(match p.kind {
                ParamKind::Count { .. } => "N",
                ParamKind::Flag { .. } => "true|false",
                ParamKind::Real { .. } => "X",
            })
            .help(format!(
                "{} ({}) [default: {}]",
                p.help,
                p.expected(),
                p.default_text()
            ));
        if matches!(p.kind, ParamKind::Flag { .. }) {
            // `--lexicographic` alone means true; `--no-lexicographic` false.
            arg = arg.num_args(0..=1).default_missing_value("true");
            cmd = cmd.arg(
                clap::Arg::new(format!("no-{}", p.name))
                    .long(format!("no-{}", p.name))
                    .action(clap::ArgAction::SetTrue)
                    .help(format!("same as --{} false", p.name)),
            );
        }
        cmd = cmd.arg(arg);
    }
    cmd
}

/// Sets the engine parameters `params` given on the command line (`m`: the
/// parsed flags of a command built with [`with_params`]).
pub fn params_into(
    opts: &mut SolveOptions,
    params: &[ParamSpec],
    m: &clap::ArgMatches,
) -> Result<()> {
    for p in params {
        if let Ok(Some(v)) = m.try_get_one::<String>(p.name) {
            opts.set(p, v)?;
        }
        if let Ok(Some(true)) = m.try_get_one::<bool>(&format!("no-{}", p.name)) {
            opts.set(p, "false")?;
        }
    }
    Ok(())
}

/// The run configuration of `bench` and the `repro` commands.
pub fn config(
    paths: Vec<PathBuf>,
    out: &Path,
    run: &RunArgs,
    params: &[ParamSpec],
    m: &clap::ArgMatches,
) -> Result<BenchConfig> {
    let list = split_list(&run.engines);
    let engines = (!list.iter().any(|e| e == "all")).then_some(list);
    let mut cfg = BenchConfig::new(paths, out.to_path_buf());
    cfg.engines = engines;
    cfg.options = SolveOptions::new(parse_time_limit(&run.time_limit)?, run.seed);
    params_into(&mut cfg.options, params, m)?;
    cfg.repeat = run.repeat;
    cfg.jobs = run.jobs;
    cfg.resume = run.resume;
    cfg.progress = !run.quiet;
    cfg.reports = std::sync::Arc::new(crate::app::report::Standard {
        registry: crate::problems::registry(),
    });
    cfg.progress_every = progress_every(run.progress_every)?;
    Ok(cfg)
}

/// `--progress-every SECS`: 0 = never, else a positive, finite interval.
fn progress_every(secs: f64) -> Result<Option<std::time::Duration>> {
    if secs == 0.0 {
        return Ok(None);
    }
    std::time::Duration::try_from_secs_f64(secs)
        .map(Some)
        .map_err(|_| {
            Error::Usage(format!(
                "--progress-every {secs}: expected a number of seconds >= 0"
            ))
        })
}

/// Reports a finished run on stderr; contradictions become an error.
pub fn report(what: &str, out: &Path, o: &BenchOutcome) -> Result<()> {
    let errors = o
        .rows
        .iter()
        .filter(|r| r.status == crate::core::Status::Error)
        .count();
    eprintln!(
        "{what}: {} rows ({} run now, {} already there), {errors} error rows → {}",
        o.rows.len(),
        o.ran,
        o.skipped,
        out.display()
    );
    if o.conflicts.is_empty() {
        return Ok(());
    }
    for c in &o.conflicts {
        eprintln!("CONFLICT: {c}");
    }
    Err(Error::Conflicts {
        count: o.conflicts.len(),
        detail: format!(
            "a claimed optimum, bound or infeasibility was beaten by another engine (a bug; \
             rows marked check=CONFLICT, see {}/summary.md)",
            out.display()
        ),
    })
}

/// Runs `serverpick bench` (`m`: its parsed flags, for engine parameters).
pub fn run_bench(registry: &Registry, args: &BenchArgs, m: &clap::ArgMatches) -> Result<()> {
    let mut cfg = config(
        args.paths.clone(),
        &args.out,
        &args.run,
        &registry.params(),
        m,
    )?;
    // The app's families (the built-in ones and any added) label the plots.
    cfg.reports = std::sync::Arc::new(crate::app::report::Standard {
        registry: registry.clone(),
    });
    cfg.options = cfg.options.with_io(args.solver.io()?);
    cfg.shard = args.shard.as_deref().map(str::parse::<Shard>).transpose()?;
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let jobs = if cfg.jobs == 0 { cores } else { cfg.jobs };
    cfg.solutions.clone_from(&args.solutions);
    cfg.solutions_engine.clone_from(&args.solutions_engine);
    cfg.external = args.external.engines(
        &registry.known_engines(),
        Some(args.out.join("logs")),
        args.solver
            .threads
            .map_or((cores / jobs).max(1), |t| t as usize),
    )?;
    let outcome = runner::run_bench(&cfg, registry)?;
    report("bench", &args.out, &outcome)
}

/// Runs `serverpick bench-merge`.
pub fn run_bench_merge(registry: &Registry, args: &BenchMergeArgs) -> Result<()> {
    let reports = crate::app::report::Standard {
        registry: registry.clone(),
    };
    let outcome = crate::bench::merge::merge(&args.dirs, &args.out, registry, &reports)?;
    report("bench-merge", &args.out, &outcome)
}
