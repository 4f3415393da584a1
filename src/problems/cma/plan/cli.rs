//! `serverpick plan cma FILE [--mirrors K | --max-avg-delay D] --out DIR`.

use super::curve::{plan, PlanOptions};
use super::exact::ExactSettings;
use super::output::{render_table, write_plan};
use crate::cli::parse_time_limit;
use crate::cli::usage;
use crate::cli::{CliHook, HookPlace};
use crate::core::registry::read_instance;
use crate::error::{Error, Result};
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
    /// points not proven by then are reported as time_limit with their bound.
    #[arg(long, default_value = "none")]
    pub time_limit: String,
    /// Output folder: plan.json, curve.csv, curve.jsonl, curve.svg,
    /// solution.json, solutions/k<K>.json.
    #[arg(long)]
    pub out: PathBuf,
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
        max_avg_delay: a.max_avg_delay,
        exact: ExactSettings {
            gap: a.gap,
            ..ExactSettings::default()
        },
        time_limit: parse_time_limit(&a.time_limit)?,
        progress: inst.clients() * inst.mirrors() >= 100_000,
    };
    let p = plan(inst, &opts)?;
    write_plan(&a.out, inst, &p)?;
    crate::cli::out::print(&render_table(inst, &p))?;
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
            crate::cli::out::println(&format!(
                "fewest mirrors with average delay <= {d}: K = {k}"
            ))?;
            Ok(0)
        }
        _ => Ok(0),
    }
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
