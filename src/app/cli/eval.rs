//! `serverpick eval INSTANCE SOLUTION`: the evaluator's metrics and verdict,
//! and every claim a solution file makes checked against it.
//!
//! Exit codes: 0 feasible and every claim true; 1 infeasible, or a false
//! claim (objective, a metric, the bound, the gap, the status, or an
//! optimum beaten by an `--against` file); 2 a file written for another
//! instance or problem (its name, or its `instance_sha256`), or unreadable
//! input.

use crate::app::cli::out;
use crate::core::check::below;
use crate::core::claims::{check_written_for, false_claims, FalseClaim};
use crate::core::registry::Registry;
use crate::core::{EvalReport, ProblemInstance, SolveRecord, Status};
use crate::error::{Error, Result};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// Arguments of `serverpick eval`.
#[derive(Debug, clap::Args)]
pub struct EvalArgs {
    /// The instance file.
    pub instance: PathBuf,
    /// A solution file written by `solve` (its claims — objective, metrics,
    /// bound, gap, status — are checked too), or the bare solution object
    /// (e.g. SPD's `{"root": .., "assign": [..]}`).
    pub solution: PathBuf,
    /// Another solution file for the same instance: a claimed optimum or
    /// bound that it beats is a false claim (repeatable).
    #[arg(long)]
    pub against: Vec<PathBuf>,
    /// Print the verdict as one JSON object.
    #[arg(long)]
    pub json: bool,
}

/// Runs `eval`; exit code 0 when the solution is feasible and every claim
/// holds, 1 when not.
pub fn run_eval(reg: &Registry, args: &EvalArgs) -> Result<i32> {
    let inst = reg.read_instance(&args.instance)?;
    let record = written_record(&args.solution, inst.as_ref(), &args.instance)?;
    let report = inst.eval_file(&args.solution)?;
    let mut lies = record
        .as_ref()
        .map(|r| false_claims(r, &report.verdict))
        .unwrap_or_default();
    for other in &args.against {
        let instance = (inst.as_ref(), args.instance.as_path());
        lies.extend(beaten_by(instance, record.as_ref(), &report, other)?);
    }
    let ok = report.verdict.is_feasible() && lies.is_empty();
    if args.json {
        print_json(inst.as_ref(), &report, &lies)?;
    } else {
        print_text(&report, &lies)?;
    }
    Ok(if ok { 0 } else { 1 })
}

fn print_json(inst: &dyn ProblemInstance, report: &EvalReport, lies: &[FalseClaim]) -> Result<()> {
    let v = &report.verdict;
    let claims: Vec<Value> = lies
        .iter()
        .map(|l| serde_json::json!({"field": l.field, "claimed": l.claimed, "truth": l.truth}))
        .collect();
    let out = serde_json::json!({
        "instance": inst.name(),
        "problem": inst.problem(),
        "feasible": v.is_feasible(),
        "objective": v.objective,
        "metrics": v.metrics,
        "violations": v.violations,
        "false_claims": claims,
    });
    let text = serde_json::to_string(&out).map_err(|e| Error::Internal(e.to_string()))?;
    out::println(&text)
}

fn print_text(report: &EvalReport, lies: &[FalseClaim]) -> Result<()> {
    let v = &report.verdict;
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
    if !lies.is_empty() {
        text.push_str("claims     false\n");
        for l in lies {
            text.push_str(&format!("  - {l}\n"));
        }
    }
    out::print(&text)
}

/// The solution file as a record when `solve` wrote it (it has `engine` or
/// `status`), after checking that it was written for this instance and one
/// of the problems its runs report; `None` for a bare solution.
fn written_record(
    solution: &Path,
    inst: &dyn ProblemInstance,
    instance_file: &Path,
) -> Result<Option<SolveRecord>> {
    let text = crate::io::read_text(solution)?;
    let file = solution.display().to_string();
    // Strict: a duplicate key is an error naming its path.
    let Value::Object(v) = crate::io::json_strict::parse_value(&text, &file)? else {
        return Ok(None); // the family's reader reports what is wrong with it
    };
    let sha =
        || crate::external::file_sha256(instance_file).map_err(|e| Error::io(instance_file, e));
    if !check_written_for(&v, inst, &file, Some(&sha))? {
        return Ok(None);
    }
    Ok(Some(claims_of(&v, &file)?))
}

/// The claims of a solution file's fields, each optional (a file written
/// by another tool may carry only some).
fn claims_of(v: &serde_json::Map<String, Value>, file: &str) -> Result<SolveRecord> {
    let mut r = SolveRecord::unsolved("", "", "");
    let number = |f: &str| match v.get(f) {
        None | Some(Value::Null) => Ok(None),
        Some(x) => x
            .as_f64()
            .map(Some)
            .ok_or_else(|| Error::input(file, f, format!("{x} is not a number"))),
    };
    r.objective = number("objective")?;
    r.bound = number("bound")?;
    r.gap = number("gap")?;
    r.status = match v.get("status") {
        None => Status::Feasible,
        Some(s) => serde_json::from_value(s.clone())
            .map_err(|_| Error::input(file, "status", format!("{s} is not a status")))?,
    };
    if let Some(Value::Object(m)) = v.get("metrics") {
        r.metrics = m.clone();
    }
    r.solution = v.get("solution").cloned();
    Ok(r)
}

/// The false claims `other` (another solution file of the same instance)
/// exposes: an optimum or bound of this file that its feasible solution
/// beats.
fn beaten_by(
    (inst, instance_file): (&dyn ProblemInstance, &Path),
    record: Option<&SolveRecord>,
    report: &EvalReport,
    other: &Path,
) -> Result<Vec<FalseClaim>> {
    written_record(other, inst, instance_file)?;
    let theirs = inst.eval_file(other)?.verdict;
    let (Some(r), Some(better)) = (record, theirs.objective.filter(|_| theirs.is_feasible()))
    else {
        return Ok(Vec::new());
    };
    let mut lies = Vec::new();
    let shown = other.display();
    if let Some(b) = r.bound.filter(|&b| below(better, b)) {
        lies.push(FalseClaim {
            field: "bound".into(),
            claimed: format!("{b}"),
            truth: format!("{shown} has a feasible solution of objective {better}"),
        });
    }
    let ours = report.verdict.objective.or(r.objective);
    if let Some(o) = ours.filter(|&o| r.status == Status::Optimal && below(better, o)) {
        lies.push(FalseClaim {
            field: "status".into(),
            claimed: format!("optimal at {o}"),
            truth: format!("{shown} has a feasible solution of objective {better}"),
        });
    }
    Ok(lies)
}
