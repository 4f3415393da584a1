//! Reading a CMA static solution (`eval`, `--start`-less hosts): a
//! solution file written by `solve` (its `solution`) or a bare solution
//! object, `{"assign": [mirror per row]}` or `{"split": [[[mirror,
//! players], …] per row]}` (docs/formats.md).

use crate::error::{Error, Result};
use crate::io::json_strict::parse_value;
use crate::problems::cma::engines::CmaSolution;
use serde_json::Value;
use std::path::Path;

/// Reads a CMA static solution file (see the module doc).
pub fn read_cma_solution(path: &Path) -> Result<CmaSolution> {
    let file = path.display().to_string();
    let text = crate::io::read_text(path)?;
    cma_solution_from_value(parse_value(&text, &file)?, &file)
}

/// A CMA static solution from a solution file's JSON (see
/// [`read_cma_solution`]); `file` names it in errors.
pub fn cma_solution_from_value(value: Value, file: &str) -> Result<CmaSolution> {
    let inner = match value.get("solution") {
        Some(s) if value.get("engine").is_some() => s.clone(),
        _ => value,
    };
    match (inner.get("assign"), inner.get("split")) {
        (Some(a), None) => Ok(CmaSolution::whole(read_assign(a, file)?)),
        (None, Some(s)) => Ok(CmaSolution {
            assign: None,
            split: Some(read_split(s, file)?),
        }),
        (Some(_), Some(_)) => Err(Error::input(
            file,
            "split",
            "give one of assign and split, not both",
        )),
        (None, None) => Err(Error::input(
            file,
            "assign",
            "expected {\"assign\": [mirror per client row]} or {\"split\": [[[mirror, players], …] per client row]}",
        )),
    }
}

fn read_assign(v: &Value, file: &str) -> Result<Vec<usize>> {
    let Value::Array(items) = v else {
        return Err(Error::input(
            file,
            "assign",
            "expected an array of mirror indices, one per client row",
        ));
    };
    items
        .iter()
        .enumerate()
        .map(|(i, v)| index(v, file, || format!("assign[{i}]"), "a mirror index"))
        .collect()
}

fn read_split(v: &Value, file: &str) -> Result<Vec<Vec<[usize; 2]>>> {
    let shape = "expected [[mirror, players], …] per client row";
    let Value::Array(rows) = v else {
        return Err(Error::input(file, "split", shape));
    };
    let mut out = Vec::with_capacity(rows.len());
    for (i, row) in rows.iter().enumerate() {
        let Value::Array(pairs) = row else {
            return Err(Error::input(file, format!("split[{i}]"), shape));
        };
        let mut parsed = Vec::with_capacity(pairs.len());
        for (p, pair) in pairs.iter().enumerate() {
            let field = || format!("split[{i}][{p}]");
            match pair.as_array().map(Vec::as_slice) {
                Some([j, c]) => parsed.push([
                    index(j, file, field, "a mirror index")?,
                    index(c, file, field, "a player count")?,
                ]),
                _ => return Err(Error::input(file, field(), "expected [mirror, players]")),
            }
        }
        out.push(parsed);
    }
    Ok(out)
}

fn index(v: &Value, file: &str, field: impl Fn() -> String, what: &str) -> Result<usize> {
    v.as_u64()
        .and_then(|x| usize::try_from(x).ok())
        .ok_or_else(|| Error::input(file, field(), format!("{v} is not {what}")))
}
