//! Solution files (formats.md "Solution file"): written by `solve`, read by
//! `eval` and usable as an SPDVR `start`.

use crate::core::SolveRecord;
use crate::error::{Error, Result};
use crate::io::json_strict::{from_value, parse_value};
use serde::de::DeserializeOwned;
use serde_json::Value;
use std::path::Path;

/// Writes a record as a pretty-printed solution file.
pub fn write_record(path: &Path, record: &SolveRecord) -> Result<()> {
    let text = serde_json::to_string_pretty(record)
        .map_err(|e| Error::Usage(format!("cannot serialise the solution: {e}")))?;
    std::fs::write(path, text + "\n").map_err(|e| Error::io(path, e))
}

/// Reads a family's solution (e.g. SPD's `{"root": .., "assign": [..]}`)
/// from a solution file written by `solve`, or from the bare object.
pub fn read_solution<T: DeserializeOwned>(path: &Path) -> Result<T> {
    let file = path.display().to_string();
    let text = crate::io::read_text(path)?;
    solution_from_value(parse_value(&text, &file)?, &file)
}

/// A family's solution from a solution file's JSON (a `solve --out` record
/// or the bare object); `file` names it in errors.
pub fn solution_from_value<T: DeserializeOwned>(value: Value, file: &str) -> Result<T> {
    let file = file.to_string();
    let (inner, prefix) = if value.get("engine").is_some() || value.get("status").is_some() {
        let record: SolveRecord = from_value(value, &file, "")?;
        let inner = record.solution.ok_or_else(|| {
            Error::input(
                &file,
                "solution",
                "the file holds no solution (the engine found none)",
            )
        })?;
        (inner, "solution")
    } else {
        (value, "")
    };
    from_value(inner, &file, prefix)
}
