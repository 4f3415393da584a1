//! The command-line interface: raw flags are turned into checked options here,
//! `main` stays thin.

pub mod bench;
pub mod cma;
pub mod eval;
pub mod gen;
pub mod solve;
pub mod table;

use crate::error::{Error, Result};
use clap::{Parser, Subcommand};

/// serverpick — which game servers a session uses and which server each player
/// connects to: the published heuristics and exact optima.
#[derive(Debug, Parser)]
#[command(name = "serverpick", version, about, long_about = None)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Solve instance files (or folders of them) with one or more engines and
    /// print a comparison table.
    Solve(solve::SolveArgs),
    /// Check a solution against its instance with the evaluator.
    Eval(eval::EvalArgs),
    /// Generate instances.
    #[command(subcommand)]
    Gen(gen::GenCommand),
    /// Replay a dynamic CMA instance (joins and leaves) under a join/leave
    /// policy, writing per-event records and a summary.
    Simulate(cma::SimulateArgs),
    /// Benchmark engines over instance folders: optimality gaps, runtimes,
    /// CSV/JSONL, summary and plots; parallel, resumable, shardable.
    Bench(bench::BenchArgs),
    /// Combine the output folders of sharded `bench` runs into one.
    BenchMerge(bench::BenchMergeArgs),
    /// Reproduce a paper's experiment (`spd`: seed 001 §IV; `cma`: seed 002 §4).
    Repro(bench::ReproArgs),
}

/// Runs a parsed command line; returns the process exit code.
///
/// 0: success; 1: a check failed (an infeasible solution in `eval`, a claimed
/// optimum beaten by a heuristic in `solve`); 2: bad input or usage.
pub fn run(cli: Cli) -> i32 {
    let result = match cli.command {
        Command::Solve(args) => solve::run_solve(&args),
        Command::Eval(args) => eval::run_eval(&args),
        Command::Gen(cmd) => gen::run_gen(&cmd),
        Command::Simulate(args) => cma::run_simulate(&args).map(|_| 0),
        Command::Bench(args) => bench::run_bench(&args).map(|_| 0),
        Command::BenchMerge(args) => bench::run_bench_merge(&args).map(|_| 0),
        Command::Repro(args) => bench::run_repro(&args).map(|_| 0),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("serverpick: {e}");
            exit_code(&e)
        }
    }
}

/// Exit code for an error.
pub fn exit_code(e: &Error) -> i32 {
    if e.is_user_error() {
        2
    } else {
        1
    }
}

/// Splits `a,b,c` lists given once or repeatedly.
pub fn split_list(items: &[String]) -> Vec<String> {
    items
        .iter()
        .flat_map(|s| s.split(','))
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .collect()
}

/// Parses a positive time limit in seconds (`0` or `none` = no limit).
pub fn parse_time_limit(raw: &str) -> Result<Option<f64>> {
    if raw.eq_ignore_ascii_case("none") {
        return Ok(None);
    }
    let bad = || {
        Error::Usage(format!(
            "--time-limit {raw}: expected seconds > 0 (or 'none')"
        ))
    };
    let t: f64 = raw.parse().map_err(|_| bad())?;
    if t == 0.0 {
        Ok(None)
    } else if t.is_finite() && t > 0.0 {
        Ok(Some(t))
    } else {
        Err(bad())
    }
}
