//! Solution files (formats.md "Solution file"): written by `solve`, read by
//! `eval` and usable as an SPDVR `start`.

use crate::core::SolveRecord;
use crate::error::{Error, Result};
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
    let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
    let value: Value =
        serde_json::from_str(&text).map_err(|e| Error::input(&file, "", e.to_string()))?;
    let inner = if value.get("engine").is_some() || value.get("status").is_some() {
        let record: SolveRecord =
            serde_json::from_value(value).map_err(|e| Error::input(&file, "", e.to_string()))?;
        record.solution.ok_or_else(|| {
            Error::input(
                &file,
                "solution",
                "the file holds no solution (the engine found none)",
            )
        })?
    } else {
        value
    };
    serde_json::from_value(inner).map_err(|e| Error::input(&file, "solution", e.to_string()))
}
