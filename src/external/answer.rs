//! The answer protocol of external engines and imported solution files
//! (docs/formats.md "Solution protocol"): a JSON object that is either the
//! family's bare solution (`{"assign": [...]}`) or a wrapper
//!
//! ```json
//! {"solution": {"assign": [0, 2, 2]}, "status": "optimal", "bound": 41.5,
//!  "objective": 41.5, "message": "…", "instance_sha256": "…"}
//! ```
//!
//! whose claims (`status`, `bound`) are checked like a built-in engine's, and
//! whose `objective`, when given, must be what the evaluator computes. A
//! `solve --out` file is such a wrapper.

use crate::core::{FailureReason, Outcome, Status};
use serde_json::Value;

/// A parsed answer: the claim to evaluate and what must be checked after.
#[derive(Debug, Clone)]
pub struct Answer {
    /// The solution and the claims.
    pub outcome: Outcome<Value>,
    /// The objective the answer says it has (checked against the evaluator).
    pub objective: Option<f64>,
    /// The SHA-256 of the instance file it was written for.
    pub instance_sha256: Option<String>,
    /// The instance name it names.
    pub instance: Option<String>,
    /// The engine it names.
    pub engine: Option<String>,
    /// The wall time it reports, ms.
    pub time_ms: Option<f64>,
}

/// Keys of a wrapper (an object with any of them other than the family's
/// own keys is read as a wrapper when it has `solution` or `status`).
const WRAPPER_KEYS: &[&str] = &["solution", "status"];

/// Parses an answer; `Err` says what is wrong with it (for an `error` row).
pub fn parse(bytes: &[u8]) -> Result<Answer, String> {
    let text =
        std::str::from_utf8(bytes).map_err(|e| format!("the answer is not UTF-8 text: {e}"))?;
    let text = text.trim_start_matches('\u{feff}');
    let value: Value = serde_json::from_str(text).map_err(|e| {
        let head: String = text.chars().take(60).collect();
        format!("the answer is not JSON ({e}); it begins {head:?}")
    })?;
    from_value(value)
}

/// Reads an answer already parsed as JSON (a Python engine's return value).
pub fn from_value(value: Value) -> Result<Answer, String> {
    let Value::Object(map) = value else {
        return Err("the answer is not a JSON object".into());
    };
    if !WRAPPER_KEYS.iter().any(|k| map.contains_key(*k)) {
        return Ok(bare(Value::Object(map)));
    }
    wrapper(map)
}

fn bare(solution: Value) -> Answer {
    Answer {
        outcome: Outcome::found(solution),
        objective: None,
        instance_sha256: None,
        instance: None,
        engine: None,
        time_ms: None,
    }
}

fn wrapper(mut map: serde_json::Map<String, Value>) -> Result<Answer, String> {
    let status = match map.get("status") {
        None | Some(Value::Null) => None,
        Some(v) => Some(serde_json::from_value::<Status>(v.clone()).map_err(|_| {
            format!("status {v} is not one of optimal, feasible, infeasible, time_limit, error")
        })?),
    };
    let number = |key: &str| -> Result<Option<f64>, String> {
        match map.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(v) => v
                .as_f64()
                .filter(|x| x.is_finite())
                .map(Some)
                .ok_or_else(|| format!("{key} {v} is not a finite number")),
        }
    };
    let bound = number("bound")?;
    let objective = number("objective")?;
    let time_ms = number("time_ms")?;
    let text = |key: &str| map.get(key).and_then(Value::as_str).map(str::to_string);
    let message = text("message");
    let (instance_sha256, instance, engine) =
        (text("instance_sha256"), text("instance"), text("engine"));
    let solution = map.remove("solution").filter(|v| !v.is_null());
    let outcome = claim(status, solution, bound, message)?;
    Ok(Answer {
        outcome,
        objective,
        instance_sha256,
        instance,
        engine,
        time_ms,
    })
}

fn claim(
    status: Option<Status>,
    solution: Option<Value>,
    bound: Option<f64>,
    message: Option<String>,
) -> Result<Outcome<Value>, String> {
    let mut o = match (status, solution) {
        (Some(Status::Infeasible), Some(_)) => {
            return Err("status infeasible with a solution".into())
        }
        (Some(Status::Infeasible), None) => {
            Outcome::without_solution(Status::Infeasible, "claimed infeasible")
        }
        (Some(Status::Error), _) => Outcome::failed(
            FailureReason::NoSolution,
            message
                .clone()
                .unwrap_or_else(|| "the engine reports an error".into()),
        ),
        (s, Some(sol)) => Outcome::claim(s.unwrap_or(Status::Feasible), sol, bound),
        (Some(Status::TimeLimit), None) => {
            Outcome::without_solution(Status::TimeLimit, "no solution within the limit")
        }
        (_, None) => return Err("the answer has no solution".into()),
    };
    if let Some(m) = message {
        o.message = Some(m);
    }
    Ok(o)
}

/// Why a claimed objective is not the evaluator's (`None` when it agrees to
/// 1e-6, relative or absolute, or when either is missing).
pub fn objective_disagrees(claimed: Option<f64>, evaluated: Option<f64>) -> Option<String> {
    let (claimed, evaluated) = (claimed?, evaluated?);
    let close = crate::core::relative_gap(claimed, evaluated).abs() <= 1e-6
        || (claimed - evaluated).abs() <= 1e-6;
    (!close).then(|| {
        format!("the answer claims objective {claimed}; the evaluator computes {evaluated}")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bare_and_wrapped_answers() {
        let a = parse(br#"{"assign": [0, 1]}"#).unwrap();
        assert_eq!(a.outcome.status, Status::Feasible);
        assert_eq!(
            a.outcome.solution,
            Some(serde_json::json!({"assign": [0, 1]}))
        );
        let a =
            parse(br#"{"solution": {"assign": [0]}, "status": "optimal", "bound": 3}"#).unwrap();
        assert_eq!(
            (a.outcome.status, a.outcome.bound),
            (Status::Optimal, Some(3.0))
        );
        let a = parse(br#"{"status": "infeasible"}"#).unwrap();
        assert_eq!(a.outcome.status, Status::Infeasible);
    }

    #[test]
    fn bad_answers_say_why() {
        for (text, says) in [
            (&b"not json"[..], "not JSON"),
            (b"[1, 2]", "not a JSON object"),
            (br#"{"status": "great", "solution": {}}"#, "status"),
            (br#"{"status": "optimal"}"#, "no solution"),
            (br#"{"solution": {}, "bound": "x"}"#, "bound"),
            (b"\xff\xfe", "UTF-8"),
        ] {
            let e = parse(text).unwrap_err();
            assert!(e.contains(says), "{e}");
        }
    }
}
