//! What a solution file claims, checked against THE evaluator (`eval`;
//! issue 29, fuzz3 D8): the objective, every metric, the bound, the gap and
//! the status, with the one tolerance of [`crate::core::check`].
//!
//! ```
//! use serverpick::core::claims::false_claims;
//! use serverpick::core::{SolveRecord, Status, Verdict};
//! let mut r = SolveRecord::unsolved("i", "spd", "exact");
//! r.status = Status::Optimal;
//! r.objective = Some(1.0);
//! r.bound = Some(5.0);
//! let truth = Verdict { objective: Some(2.0), ..Verdict::default() };
//! let lies = false_claims(&r, &truth);
//! let fields: Vec<&str> = lies.iter().map(|l| l.field.as_str()).collect();
//! assert_eq!(fields, ["objective", "bound"]); // and the bound is above 2
//! ```

use crate::core::check::below;
use crate::core::{relative_gap, SolveRecord, Status, Verdict};
use serde_json::Value;
use std::fmt;

/// One claim of a file that the evaluator contradicts.
#[derive(Debug, Clone, PartialEq)]
pub struct FalseClaim {
    /// The field (`objective`, `metrics.delay`, `bound`, `status`, …).
    pub field: String,
    /// What the file says.
    pub claimed: String,
    /// What is true (the evaluator's value, or what the claim needs).
    pub truth: String,
}

impl fmt::Display for FalseClaim {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: the file claims {}, but {}",
            self.field, self.claimed, self.truth
        )
    }
}

fn num(x: f64) -> String {
    if x != 0.0 && !(1e-3..1e9).contains(&x.abs()) {
        format!("{x:e}")
    } else {
        format!("{x}")
    }
}

fn close(a: f64, b: f64) -> bool {
    !below(a, b) && !below(b, a)
}

/// Every claim of `file` that `truth` (the evaluator's verdict on its
/// solution) contradicts; empty when all hold.
pub fn false_claims(file: &SolveRecord, truth: &Verdict) -> Vec<FalseClaim> {
    let mut out = Vec::new();
    let mut lie = |field: &str, claimed: String, truth: String| {
        out.push(FalseClaim {
            field: field.into(),
            claimed,
            truth,
        })
    };
    match (file.objective, truth.objective) {
        (Some(c), Some(t)) if !close(c, t) => lie(
            "objective",
            num(c),
            format!("the evaluator finds {}", num(t)),
        ),
        (Some(c), None) if truth.is_feasible() => lie(
            "objective",
            num(c),
            "the evaluator gives no objective".into(),
        ),
        _ => {}
    }
    let objective = truth.objective.or(file.objective);
    if let (Some(b), Some(o)) = (file.bound, objective) {
        if below(o, b) {
            lie(
                "bound",
                num(b),
                format!("a lower bound cannot exceed the objective {}", num(o)),
            );
        }
        if let Some(g) = file.gap {
            let true_gap = relative_gap(o, b).max(0.0);
            let both_infinite = g.is_infinite() && true_gap.is_infinite();
            if !(close(g, true_gap) || both_infinite) {
                lie(
                    "gap",
                    num(g),
                    format!("(objective − bound) / bound = {}", num(true_gap)),
                );
            }
        }
    }
    status_claims(file, truth, objective, &mut lie);
    metric_claims(file, truth, &mut lie);
    out
}

fn status_claims(
    file: &SolveRecord,
    truth: &Verdict,
    objective: Option<f64>,
    lie: &mut impl FnMut(&str, String, String),
) {
    match file.status {
        Status::Optimal => match (file.bound, objective) {
            (Some(b), Some(o)) if below(b, o) => lie(
                "status",
                "optimal".into(),
                format!(
                    "its bound {} does not reach the objective {}",
                    num(b),
                    num(o)
                ),
            ),
            _ if !truth.is_feasible() => lie(
                "status",
                "optimal".into(),
                "the evaluator rejects the solution".into(),
            ),
            _ => {}
        },
        Status::Infeasible if file.solution.is_some() && truth.is_feasible() => lie(
            "status",
            "infeasible".into(),
            "the file's own solution is feasible".into(),
        ),
        _ => {}
    }
}

fn metric_claims(file: &SolveRecord, truth: &Verdict, lie: &mut impl FnMut(&str, String, String)) {
    for (key, claimed) in &file.metrics {
        let Some(actual) = truth.metrics.get(key) else {
            continue; // a note the evaluator does not compute (e.g. Γ)
        };
        let same = match (claimed.as_f64(), actual.as_f64()) {
            (Some(c), Some(a)) => close(c, a),
            _ => claimed == actual || (claimed.is_null() && actual.is_null()),
        };
        if !same {
            lie(
                &format!("metrics.{key}"),
                short(claimed),
                format!("the evaluator finds {}", short(actual)),
            );
        }
    }
}

fn short(v: &Value) -> String {
    match v.as_f64() {
        Some(x) => num(x),
        None => {
            let s = v.to_string();
            if s.chars().count() > 60 {
                format!("{}…", s.chars().take(60).collect::<String>())
            } else {
                s
            }
        }
    }
}

/// Whether `v` (a solution file's fields) is a record `solve` wrote (it
/// has `engine` or `status`), not a bare solution; a record written for
/// another instance or problem than `inst` is refused: its `instance`
/// name, its `problem` (one of those `inst`'s runs report) and, when
/// `sha256` gives the instance file's, its `instance_sha256`. `label`
/// names the record in errors.
pub fn check_written_for(
    v: &serde_json::Map<String, Value>,
    inst: &dyn crate::core::ProblemInstance,
    label: &str,
    sha256: Option<&dyn Fn() -> crate::error::Result<String>>,
) -> crate::error::Result<bool> {
    if !(v.contains_key("engine") || v.contains_key("status")) {
        return Ok(false);
    }
    let field = |f: &str| v.get(f).and_then(Value::as_str).map(str::to_string);
    let wrong = |f: &str, got: &str, expected: &str| {
        crate::error::Error::Usage(format!(
            "{label}: written for {f} '{got}', not '{expected}' (give the instance it was solved on)"
        ))
    };
    if let Some(got) = field("instance").filter(|g| g != inst.name()) {
        return Err(wrong("instance", &got, inst.name()));
    }
    if let Some(got) = field("problem") {
        if !inst.reported_problems().contains(&got.as_str()) {
            return Err(wrong("problem", &got, inst.problem()));
        }
    }
    if let (Some(got), Some(sha256)) = (field("instance_sha256"), sha256) {
        let ours = sha256()?;
        if !got.eq_ignore_ascii_case(&ours) {
            return Err(wrong("the instance file with instance_sha256", &got, &ours));
        }
    }
    Ok(true)
}
