//! `serverpick plan cma FILE [--mirrors K | --max-mirrors K | --max-avg-delay D] --out DIR`.

use crate::app::cli::parse_time_limit;
use crate::app::cli::usage;
use crate::app::cli::{CliHook, HookPlace};
use crate::app::cma::plan_output::{render_table, write_plan};
use crate::core::{interrupt, Status};
use crate::error::{Error, Result};
use crate::problems::cma::model::CmaInstance;
use crate::problems::cma::plan::curve::{plan_with, PlanOptions};
use crate::problems::cma::plan::exact::ExactSettings;
use crate::problems::cma::plan::exact::PointResult;
use crate::problems::cma::plan::points::{read_points, PointsLog};
use crate::problems::cma::plan::Planner;
use crate::problems::read_instance;
use clap::{Args, FromArgMatches};
use std::path::PathBuf;

/// `plan cma`: which K candidate mirrors to open (capacitated p-median).
#[derive(Args, Debug, Clone)]
pub struct PlanCmaArgs {
    /// A CMA instance file (its mirrors are the candidates; an optional
    /// `open_cost` adds opening costs to the objective).
    pub file: PathBuf,
    /// Open exactly K mirrors (else: the whole curve K = 1 … all).
    #[arg(long)]
    pub mirrors: Option<usize>,
    /// The curve only up to K mirrors (K = 1 … K); with --max-avg-delay,
    /// look no further than K.
    #[arg(long, value_name = "K")]
    pub max_mirrors: Option<usize>,
    /// The fewest mirrors whose average delay is at most D (ms); opening
    /// costs are then ignored.
    #[arg(long, allow_negative_numbers = true)]
    pub max_avg_delay: Option<f64>,
    /// exact (branch and bound, proven), greedy (greedy-add), swap
    /// (Teitz–Bart from greedy) or milp (HiGHS; small instances).
    #[arg(long, default_value = "exact")]
    pub engine: String,
    /// Relative gap at which exact calls a point proven.
    #[arg(long, default_value_t = 1e-6, allow_negative_numbers = true)]
    pub gap: f64,
    /// Wall-time limit of the whole run in seconds (0 or none = no limit);
    /// the point running at the deadline reports its best set and bound, the
    /// points after it are reported unsolved (time_limit) at once.
    #[arg(long, default_value = "none", allow_hyphen_values = true)]
    pub time_limit: String,
    /// Output folder: plan.json, curve.csv, curve.jsonl, curve.svg,
    /// solution.json, `solutions/k<K>.json`, and points.jsonl (each point as
    /// it is settled: Ctrl-C keeps them).
    #[arg(long)]
    pub out: PathBuf,
    /// Continue a run that was stopped (Ctrl-C, a time limit): the points
    /// in OUT/points.jsonl are kept, not solved again.
    #[arg(long)]
    pub resume: bool,
    /// Models out (`--engine milp`: one per K), HiGHS log, threads.
    #[command(flatten)]
    pub solver: crate::app::cli::model::SolverArgs,
}

/// Runs `plan cma`; exit code 1 when `--max-avg-delay` is met by no `K`.
pub fn run_plan_cma(a: &PlanCmaArgs) -> Result<i32> {
    let loaded = read_instance(&a.file)?;
    let Some(crate::problems::cma::Instance(inst)) = loaded
        .as_any()
        .downcast_ref::<crate::problems::cma::Instance>()
    else {
        return Err(Error::Usage(format!(
            "{}: plan cma needs a CMA instance (\"problem\": \"cma\")",
            a.file.display()
        )));
    };
    let opts = PlanOptions {
        engine: a.engine.clone(),
        mirrors: a.mirrors,
        max_mirrors: a.max_mirrors,
        max_avg_delay: a.max_avg_delay,
        exact: ExactSettings {
            gap: a.gap,
            ..ExactSettings::default()
        },
        time_limit: parse_time_limit(&a.time_limit)?,
        progress: inst.clients() * inst.mirrors() >= 100_000,
        io: a.solver.io()?.for_run(&inst.name, &a.engine),
    };
    if a.solver.write_model.is_some() && a.engine != "milp" {
        eprintln!(
            "plan cma: --engine {} builds no MILP (only `milp` does); no model written",
            a.engine
        );
    }
    interrupt::install();
    crate::io::create_out_dir(&a.out)?;
    let mode = mode(a);
    let done = resumed(a, inst, &mode)?;
    let mut log = PointsLog::open(&a.out, &inst.name, &mode, a.resume)?;
    let p = plan_with(inst, &opts, &done, &mut |p| log.append(p))?;
    write_plan(&a.out, inst, &p)?;
    if interrupt::interrupted() {
        return Ok(interrupted(&p, &a.out));
    }
    report(a, inst, &p)
}

/// Prints the finished plan's table and summary; the exit code (1 when
/// `--max-avg-delay` is out of reach).
fn report(
    a: &PlanCmaArgs,
    inst: &crate::problems::cma::model::CmaInstance,
    p: &crate::problems::cma::plan::curve::Plan,
) -> Result<i32> {
    crate::app::cli::out::print(&render_table(inst, p))?;
    eprintln!(
        "plan cma: {} points in {:.2} s ({} transportation problems) → {}",
        p.points.len(),
        p.time_ms / 1e3,
        p.evaluations,
        a.out.display()
    );
    match (a.max_avg_delay, p.chosen) {
        (Some(d), None) => {
            eprintln!("plan cma: no number of mirrors reaches an average delay <= {d}");
            Ok(1)
        }
        (Some(d), Some(k)) => {
            crate::app::cli::out::println(&format!(
                "fewest mirrors with average delay <= {d}: K = {k}"
            ))?;
            Ok(0)
        }
        _ => Ok(0),
    }
}

/// Says what an interrupted run kept; the exit code (130).
fn interrupted(p: &crate::problems::cma::plan::curve::Plan, out: &std::path::Path) -> i32 {
    let settled = p.points.iter().filter(|p| p.status != Status::TimeLimit);
    eprintln!(
        "plan cma: interrupted: {} points settled, kept in {} (--resume goes on)",
        settled.count(),
        out.display()
    );
    interrupt::EXIT_INTERRUPTED
}

/// The points a previous run left in `--out` (with `--resume`; without it
/// the run starts afresh and replaces them).
fn resumed(a: &PlanCmaArgs, inst: &CmaInstance, mode: &str) -> Result<Vec<PointResult>> {
    if !a.resume {
        return Ok(Vec::new());
    }
    let mut planner = Planner::new(inst);
    read_points(&a.out, &mut planner, mode)
}

/// What a settled point depends on besides the instance: the engine, the
/// objective (with opening costs or delay only) and the gap.
fn mode(a: &PlanCmaArgs) -> String {
    let objective = if a.max_avg_delay.is_some() {
        "delay"
    } else {
        "delay+open-cost"
    };
    format!("{} {objective} gap {}", a.engine, a.gap)
}

/// The `plan cma` hook.
pub fn hook() -> CliHook {
    CliHook {
        place: HookPlace::Plan,
        command: PlanCmaArgs::augment_args(clap::Command::new("cma").about(
            "Which K candidate mirrors of a CMA instance to open (capacitated p-median): \
             one K, the curve of total and average delay against K, or the fewest mirrors \
             meeting an average delay",
        )),
        run: |m| run_plan_cma(&PlanCmaArgs::from_arg_matches(m).map_err(usage)?),
    }
}
