//! `serverpick eval INSTANCE SOLUTION`: the evaluator's metrics and verdict.

use crate::cli::out;
use crate::core::registry::read_instance;
use crate::error::{Error, Result};
use std::path::{Path, PathBuf};

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
    check_written_for(&args.solution, inst.name(), inst.problem(), inst.family())?;
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
        out::println(&serde_json::to_string(&out).map_err(|e| Error::Usage(e.to_string()))?)?;
        return Ok(if v.is_feasible() { 0 } else { 1 });
    }
    let mut text = String::new();
    for (label, value) in &report.lines {
        text.push_str(&format!("{label:<10} {value}\n"));
    }
    if v.is_feasible() {
        text.push_str("verdict    feasible\n");
    } else {
        text.push_str("verdict    infeasible\n");
        for why in &v.violations {
            text.push_str(&format!("  - {why}\n"));
        }
    }
    out::print(&text)?;
    Ok(if v.is_feasible() { 0 } else { 1 })
}

/// A solution file written by `solve` names its instance and problem: a file
/// written for another instance is a usage error, not an infeasible solution.
/// A problem the instance's family reads (a family may report a relaxation
/// as a problem of its own, e.g. `ag-split`) is the instance's.
fn check_written_for(
    solution: &Path,
    name: &str,
    problem: &str,
    family: &dyn crate::core::Family,
) -> Result<()> {
    let text = crate::io::read_text(solution)?;
    let Ok(serde_json::Value::Object(v)) = serde_json::from_str::<serde_json::Value>(&text) else {
        return Ok(()); // the family's reader reports what is wrong with it
    };
    if !(v.contains_key("engine") || v.contains_key("status")) {
        return Ok(()); // a bare solution names no instance
    }
    for (field, expected) in [("instance", name), ("problem", problem)] {
        match v.get(field).and_then(serde_json::Value::as_str) {
            Some(got) if got != expected && !(field == "problem" && family.reads(got)) => {
                return Err(Error::Usage(format!(
                    "{}: written for {field} '{got}', not '{expected}' (give the instance it was \
                     solved on)",
                    solution.display()
                )))
            }
            _ => {}
        }
    }
    Ok(())
}
