//! `serverpick eval INSTANCE SOLUTION`: the evaluator's metrics and verdict.

use crate::core::registry::read_instance;
use crate::error::{Error, Result};
use std::path::PathBuf;

/// Arguments of `serverpick eval`.
#[derive(Debug, clap::Args)]
pub struct EvalArgs {
    /// The instance file.
    pub instance: PathBuf,
    /// A solution file written by `solve`, or the bare solution object (e.g.
    /// SPD's `{"root": .., "assign": [..]}`).
    pub solution: PathBuf,
    /// Print the verdict as one JSON object.
    #[arg(long)]
    pub json: bool,
}

/// Runs `eval`; exit code 0 when the solution is feasible, 1 when not.
pub fn run_eval(args: &EvalArgs) -> Result<i32> {
    let inst = read_instance(&args.instance)?;
    let report = inst.eval_file(&args.solution)?;
    let v = &report.verdict;
    if args.json {
        let out = serde_json::json!({
            "instance": inst.name(),
            "problem": inst.problem(),
            "feasible": v.is_feasible(),
            "objective": v.objective,
            "metrics": v.metrics,
            "violations": v.violations,
        });
        println!(
            "{}",
            serde_json::to_string(&out).map_err(|e| Error::Usage(e.to_string()))?
        );
        return Ok(if v.is_feasible() { 0 } else { 1 });
    }
    for (label, value) in &report.lines {
        println!("{label:<10} {value}");
    }
    Ok(print_verdict(v.is_feasible(), &v.violations))
}

/// Prints the evaluator's verdict; returns the exit code (0 feasible, 1 not).
pub fn print_verdict(feasible: bool, violations: &[String]) -> i32 {
    if feasible {
        println!("verdict    feasible");
        return 0;
    }
    println!("verdict    infeasible");
    for v in violations {
        println!("  - {v}");
    }
    1
}
