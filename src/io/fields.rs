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
        Value::Number(x) => match x.as_u64().and_then(|n| usize::try_from(n).ok()) {
            Some(n) if n >= 1 => Ok((n, None)),
            _ => Err(Error::input(
                file,
                field,
                format!("{x} is not a {what} count >= 1"),
            )),
        },
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
