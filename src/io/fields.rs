//! Field readers shared by the instance formats.

use crate::error::{Error, Result};
use serde_json::Value;

/// Re-points an input error built against `<memory>` to the file being read.
pub fn relabel(e: Error, file: &str) -> Error {
    match e {
        Error::Input(mut ie) => {
            ie.file = file.to_string();
            Error::Input(ie)
        }
        other => other,
    }
}

/// The largest count any size field may declare (servers, mirrors, nodes,
/// …): each family checks its own, tighter limit against the data, and
/// this one keeps a declared size from reaching an allocation first.
pub const MAX_COUNT: u64 = 100_000_000;

/// A number as people read it: plain when short, else `1e20`, `1e308`.
pub fn short_number(x: &serde_json::Number) -> String {
    match x.as_f64() {
        Some(f) if f.abs() >= 1e9 && x.as_u64().is_none_or(|u| u > 999_999_999_999) => {
            format!("{f:e}")
        }
        _ => x.to_string(),
    }
}

/// Checks a declared count: a whole number from 1 to `max` (errors say
/// which of the three it is not).
pub fn check_count(x: &serde_json::Number, max: u64, file: &str, field: &str) -> Result<u64> {
    let shown = short_number(x);
    match (x.as_u64(), x.as_f64()) {
        (Some(n), _) if (1..=max).contains(&n) => Ok(n),
        (Some(0), _) => Err(Error::input(file, field, "0: at least 1 is needed")),
        (Some(_), _) => Err(Error::input(
            file,
            field,
            format!("{shown} is too large (max {max})"),
        )),
        (None, Some(f)) if f.is_finite() && f >= 1.0 && f.fract() == 0.0 => Err(Error::input(
            file,
            field,
            format!("{shown} is too large (max {max})"),
        )),
        _ => Err(Error::input(
            file,
            field,
            format!("{shown} is not a whole number >= 1"),
        )),
    }
}

/// Reads a field that is either a count `>= 1` or a non-empty array of names
/// (`servers`, `mirrors`); `what` is the singular noun for messages.
pub fn read_count_or_names(
    v: &Value,
    file: &str,
    field: &str,
    what: &str,
) -> Result<(usize, Option<Vec<String>>)> {
    match v {
        // Only a count: callers check it against the data (rows of that
        // many values) before allocating anything of that size.
        Value::Number(x) => {
            let n = check_count(x, MAX_COUNT, file, field)?;
            let n = usize::try_from(n).map_err(|_| {
                Error::input(file, field, format!("{n} {what}s do not fit this machine"))
            })?;
            Ok((n, None))
        }
        Value::Array(names) if !names.is_empty() => {
            let names = names
                .iter()
                .enumerate()
                .map(|(i, s)| match s {
                    Value::String(s) => Ok(s.clone()),
                    _ => Err(Error::input(
                        file,
                        format!("{field}[{i}]"),
                        "expected a name (string)",
                    )),
                })
                .collect::<Result<Vec<_>>>()?;
            Ok((names.len(), Some(names)))
        }
        _ => Err(Error::input(
            file,
            field,
            "expected a count >= 1 or an array of names",
        )),
    }
}
