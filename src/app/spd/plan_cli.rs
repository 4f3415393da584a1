//! `serverpick plan spd FILE --out DIR`: the delay-bound / host-count
//! frontier of an SPD instance ([`crate::problems::spd::plan::frontier`]).

use crate::app::cli::out::print;
use crate::app::cli::parse_time_limit;
use crate::app::cli::{CliHook, HookPlace};
use crate::app::spd::plan_out::write_frontier;
use crate::core::table::Table;
use crate::error::{Error, Result};
use crate::problems::spd::file::read_spd;
use crate::problems::spd::plan::points::{read_points, PointsLog};
use crate::problems::spd::plan::{factor_range, frontier_from, Breakpoint, Frontier, PlanOptions};
use clap::{Args, FromArgMatches};
use std::path::PathBuf;

/// Arguments of `serverpick plan spd`.
#[derive(Debug, clap::Args)]
pub struct PlanSpdArgs {
    /// The SPD instance (its own bound is ignored).
    pub file: PathBuf,
    /// Output folder: frontier.csv, frontier.jsonl, frontier.svg, points/.
    #[arg(short, long)]
    pub out: PathBuf,
    /// Limit the sweep to bounds μ = f·Γ with f in LO..HI (either side may be
    /// empty, e.g. 1.0..1.5 or 1.2..); default: from one host down to the
    /// least feasible bound.
    #[arg(long)]
    pub factors: Option<String>,
    /// Wall-time limit of the whole sweep, seconds (`none` or 0: no limit):
    /// each solve gets the time left; the sweep then ends with the
    /// breakpoints it has.
    #[arg(long, default_value = "none", allow_hyphen_values = true)]
    pub time_limit: String,
    /// Seed for the heuristics that seed each solve.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Continue a stopped run (Ctrl-C): the breakpoints in OUT/points.jsonl
    /// are kept, the sweep goes on below the last one.
    #[arg(long)]
    pub resume: bool,
    /// Models out (each μ's stages), HiGHS log, threads.
    #[command(flatten)]
    pub solver: crate::app::cli::model::SolverArgs,
}

/// The `plan spd` hook.
pub fn hook() -> CliHook {
    CliHook {
        place: HookPlace::Plan,
        command: PlanSpdArgs::augment_args(clap::Command::new("spd").about(
            "Servers needed vs delay bound: every breakpoint (μ, least host count), proven",
        )),
        run: |m| {
            let a = PlanSpdArgs::from_arg_matches(m).map_err(|e| Error::Usage(e.to_string()))?;
            run_plan_spd(&a)
        },
    }
}

/// Runs `plan spd` (exit 0; each point's status says what is proven).
pub fn run_plan_spd(a: &PlanSpdArgs) -> Result<i32> {
    let inst = read_spd(&a.file)?;
    let range = match &a.factors {
        Some(f) => factor_range(f, inst.gamma)?,
        None => (None, None),
    };
    let opts = PlanOptions {
        range,
        time_limit: parse_time_limit(&a.time_limit)?,
        seed: a.seed,
        io: a.solver.io()?,
    };
    eprintln!(
        "plan spd: {} ({}, {} servers, {} clients, Γ = {:.3})",
        inst.name,
        inst.model,
        inst.servers(),
        inst.clients(),
        inst.gamma
    );
    crate::core::interrupt::install();
    crate::io::create_out_dir(&a.out)?;
    let done = match a.resume {
        true => read_points(&a.out, &inst.name, &opts)?,
        false => Vec::new(),
    };
    let mut log = PointsLog::open(&a.out, &inst.name, &opts, a.resume)?;
    let fr = frontier_from(&inst, &opts, done, |p| {
        eprintln!(
            "  μ = {:.3}: {} hosts ({}, {:.0} ms)",
            p.mu, p.hosts, p.status, p.time_ms
        );
        log.append(p);
    })?;
    let written = write_frontier(&a.out, &inst, &fr)?;
    print(&table(&fr))?;
    eprintln!(
        "{} breakpoints in {:.0} ms; {}; wrote {} files to {}",
        fr.points.len(),
        fr.time_ms,
        fr.end,
        written.len(),
        a.out.display()
    );
    if crate::core::interrupt::interrupted() {
        return Ok(crate::core::interrupt::EXIT_INTERRUPTED);
    }
    Ok(0)
}

fn table(fr: &Frontier) -> String {
    let mut t = Table::new(
        &[
            "μ (ms)",
            "f = μ/Γ",
            "hosts",
            "lower bound",
            "status",
            "variation",
            "time ms",
            "note",
        ],
        &[true, true, true, true, false, true, true, false],
    );
    for p in &fr.points {
        t.push(row(p));
    }
    t.render()
}

fn row(p: &Breakpoint) -> Vec<String> {
    vec![
        format!("{:.3}", p.mu),
        p.factor.map_or("-".into(), |f| format!("{f:.4}")),
        p.hosts.to_string(),
        p.hosts_lb.to_string(),
        p.status.to_string(),
        format!("{:.3}", p.variation),
        format!("{:.1}", p.time_ms),
        p.note.clone().unwrap_or_default(),
    ]
}
