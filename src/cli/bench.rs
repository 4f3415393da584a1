//! `serverpick bench`, `serverpick bench-merge` and `serverpick repro`.
//!
//! Exit status: a run that finds a contradiction (a claimed optimum, bound or
//! infeasibility beaten by another engine) writes every output, marks the
//! rows `check = CONFLICT`, lists the conflicts at the top of `summary.md`
//! and then returns an error, so the command exits non-zero.

use crate::bench::repro::{self, SpdGrid};
use crate::bench::repro_cma::CmaGrid;
use crate::bench::{runner, BenchConfig, BenchOutcome, Registry, Shard};
use crate::cli::{parse_time_limit, split_list};
use crate::engine::SolveOptions;
use crate::error::{Error, Result};
use crate::io::gen_cma::Scenario;
use crate::model::spd::CommModel;
use clap::{Args, Subcommand};
use std::path::{Path, PathBuf};

/// Options shared by `bench` and `repro`.
#[derive(Debug, Clone, Args)]
pub struct RunArgs {
    /// Engine names, comma-separated or repeated, or `all` (every engine that
    /// applies to each instance).
    #[arg(long, short, default_value = "all")]
    pub engines: Vec<String>,
    /// Wall-time limit per exact run, seconds (`none` for no limit).
    #[arg(long, default_value = "60")]
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
    /// k-best refuses to enumerate more subsets (× roots) than this.
    #[arg(long, default_value_t = 2_000_000)]
    pub kbest_max_subsets: u64,
    /// Exact SPD: stop at the proven minimum host count (skip the delay and
    /// variation stages).
    #[arg(long)]
    pub no_lexicographic: bool,
    /// No progress bar.
    #[arg(long, short)]
    pub quiet: bool,
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

/// `serverpick repro spd|cma …`.
#[derive(Debug, Clone, Args)]
pub struct ReproArgs {
    /// Which paper.
    #[command(subcommand)]
    pub what: ReproCommand,
}

/// The reproducible experiments.
#[derive(Debug, Clone, Subcommand)]
pub enum ReproCommand {
    /// Seed 001 §IV (SPD): Tables VI/VII engines plus `exact`.
    Spd(ReproSpdArgs),
    /// Seed 002 §4 Figs. 4–8 (CMA): join, leave and dynamic scenarios under
    /// the paper's policies, plus the static instances through the engines.
    Cma(ReproCmaArgs),
}

/// `serverpick repro spd`.
#[derive(Debug, Clone, Args)]
pub struct ReproSpdArgs {
    /// Server counts.
    #[arg(long, value_delimiter = ',', default_value = "20,25,30")]
    pub servers: Vec<usize>,
    /// Client counts.
    #[arg(long, value_delimiter = ',', default_value = "30,50,80,100,120")]
    pub clients: Vec<usize>,
    /// Bound factors f (μ = f·Γ).
    #[arg(long, value_delimiter = ',', default_value = "1.0,1.1,1.2,1.3,1.4,1.5")]
    pub factors: Vec<f64>,
    /// Communication models (cs, p2p).
    #[arg(long, value_delimiter = ',', default_value = "cs,p2p")]
    pub models: Vec<String>,
    /// Random networks per (servers, clients) cell (paper: 30).
    #[arg(long, default_value_t = 30)]
    pub instances_per_cell: usize,
    /// Generator seed.
    #[arg(long, default_value_t = 1)]
    pub gen_seed: u64,
    /// Output folder (instances/, results, summary, figures).
    #[arg(long, default_value = "repro-spd")]
    pub out: PathBuf,
    /// Only redraw the figures from OUT/results.jsonl (e.g. after bench-merge).
    #[arg(long)]
    pub figures_only: bool,
    /// Shared run options (`--engines all` = the tables' engines plus exact).
    #[command(flatten)]
    pub run: RunArgs,
}

/// `serverpick repro cma`.
#[derive(Debug, Clone, Args)]
pub struct ReproCmaArgs {
    /// Scenarios (join, leave, dynamic).
    #[arg(long, value_delimiter = ',', default_value = "join,leave,dynamic")]
    pub scenarios: Vec<String>,
    /// Mirror counts.
    #[arg(long, value_delimiter = ',', default_value = "5,10,20")]
    pub mirrors: Vec<usize>,
    /// Client-count factor: round(1000·scale) clients (dynamic: 1300·scale),
    /// capacities scaled with them (1 = the paper).
    #[arg(long, default_value_t = 1.0)]
    pub scale: f64,
    /// Dynamic policies (simulate's names), comma-separated.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "j-greedy/l-ignore,j-greedy/l-greedy,j-sa/l-sa,j-sa-rebuild/l-sa-rebuild,bf"
    )]
    pub policies: Vec<String>,
    /// Runs per (instance, policy); each event's time is the median over them.
    #[arg(long, default_value_t = 3)]
    pub timing_runs: usize,
    /// Delay requirement for "players under threshold" (ms).
    #[arg(long, default_value_t = 100.0)]
    pub threshold: f64,
    /// Generator seed (the same instances as `gen cma --paper-set --seed`).
    #[arg(long, default_value_t = 1)]
    pub gen_seed: u64,
    /// BRITE's inter-AS edge connection (as `gen cma --edge-conn`).
    #[arg(long, default_value = "smallest")]
    pub edge_conn: String,
    /// Output folder (instances/, sim/, results, summary, figures/, figures.md).
    #[arg(long, default_value = "repro-cma")]
    pub out: PathBuf,
    /// Shared run options for the static instances (`--engines all` =
    /// exact-flow, exact, greedy, j-sa).
    #[command(flatten)]
    pub run: RunArgs,
}

fn config(paths: Vec<PathBuf>, out: &Path, run: &RunArgs) -> Result<BenchConfig> {
    let list = split_list(&run.engines);
    let engines = (!list.iter().any(|e| e == "all")).then_some(list);
    let mut cfg = BenchConfig::new(paths, out.to_path_buf());
    cfg.engines = engines;
    cfg.options = SolveOptions {
        time_limit: parse_time_limit(&run.time_limit)?,
        kbest_max_subsets: run.kbest_max_subsets,
        seed: run.seed,
        lexicographic: !run.no_lexicographic,
    };
    cfg.repeat = run.repeat;
    cfg.jobs = run.jobs;
    cfg.resume = run.resume;
    cfg.progress = !run.quiet;
    Ok(cfg)
}

/// Reports a finished run on stderr; contradictions become an error.
fn report(what: &str, out: &Path, o: &BenchOutcome) -> Result<()> {
    let errors = o
        .rows
        .iter()
        .filter(|r| r.status == crate::model::Status::Error)
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
    Err(Error::Solver(format!(
        "{} conflict(s): a claimed optimum, bound or infeasibility was beaten by another \
         engine (a bug; rows marked check=CONFLICT, see {}/summary.md)",
        o.conflicts.len(),
        out.display()
    )))
}

/// Runs `serverpick bench`.
pub fn run_bench(args: &BenchArgs) -> Result<()> {
    let mut cfg = config(args.paths.clone(), &args.out, &args.run)?;
    cfg.shard = args.shard.as_deref().map(str::parse::<Shard>).transpose()?;
    let outcome = runner::run_bench(&cfg, &Registry)?;
    report("bench", &args.out, &outcome)
}

/// Runs `serverpick bench-merge`.
pub fn run_bench_merge(args: &BenchMergeArgs) -> Result<()> {
    let outcome = runner::merge(&args.dirs, &args.out, &Registry)?;
    report("bench-merge", &args.out, &outcome)
}

/// Runs `serverpick repro`.
pub fn run_repro(args: &ReproArgs) -> Result<()> {
    match &args.what {
        ReproCommand::Spd(a) => run_repro_spd(a),
        ReproCommand::Cma(a) => run_repro_cma(a),
    }
}

fn run_repro_spd(a: &ReproSpdArgs) -> Result<()> {
    if a.figures_only {
        let figs = repro::spd_figures_from(&a.out)?;
        eprintln!("repro spd: {} figures → {}", figs.len(), a.out.display());
        return Ok(());
    }
    let models = a
        .models
        .iter()
        .map(|m| match m.trim() {
            "cs" => Ok(CommModel::Cs),
            "p2p" => Ok(CommModel::P2p),
            other => Err(Error::Usage(format!(
                "--models: '{other}' is not cs or p2p"
            ))),
        })
        .collect::<Result<Vec<_>>>()?;
    let grid = SpdGrid {
        servers: a.servers.clone(),
        clients: a.clients.clone(),
        factors: a.factors.clone(),
        models,
        instances_per_cell: a.instances_per_cell,
        seed: a.gen_seed,
    };
    let cfg = config(Vec::new(), &a.out, &a.run)?;
    let outcome = repro::repro_spd(&grid, &cfg, &Registry)?;
    report("repro spd", &a.out, &outcome)
}

fn run_repro_cma(a: &ReproCmaArgs) -> Result<()> {
    let scenarios = a
        .scenarios
        .iter()
        .map(|s| Scenario::parse(s.trim()))
        .collect::<Result<Vec<_>>>()?;
    let grid = CmaGrid {
        scenarios,
        mirrors: a.mirrors.clone(),
        scale: a.scale,
        policies: a.policies.iter().map(|p| p.trim().to_string()).collect(),
        threshold: a.threshold,
        seed: a.gen_seed,
        timing_runs: a.timing_runs.max(1),
        edge_conn: crate::cli::cma::parse_edge_conn(&a.edge_conn)?,
    };
    let cfg = config(Vec::new(), &a.out, &a.run)?;
    let outcome = repro::repro_cma(&grid, &cfg, &Registry)?;
    eprintln!(
        "repro cma: {} scenario runs × {} policies → {}/sim, {} figures → {}/figures",
        outcome.runs.len(),
        grid.policies.len(),
        a.out.display(),
        outcome.figures.len(),
        a.out.display()
    );
    report("repro cma", &a.out, &outcome.bench)
}
