//! Checks of the CMA file's optional per-row and per-mirror fields
//! (`players`, `open_cost`, `clients`), each error naming the field and
//! index.

use crate::error::{Error, Result};
use crate::net::matrix::{read_matrix_shaped, MatrixSource};
use crate::problems::cma::model::MAX_PLAYERS;
use serde_json::Value;
use std::path::Path;

/// `players`: one integer `>= 0` per delay row, inline or as a one-column
/// CSV or `.npy` (read with the matrix reader's checks and path policy);
/// their sum at most [`MAX_PLAYERS`].
pub fn read_players(v: &Value, n: usize, file: &str, base: &Path) -> Result<Vec<usize>> {
    let src = MatrixSource {
        file,
        base_dir: base,
    };
    let column = match v {
        Value::Array(items) => items
            .iter()
            .enumerate()
            .map(|(i, x)| match x.as_f64() {
                Some(f) => Ok(vec![Some(f)]),
                None => Err(Error::input(
                    file,
                    format!("players[{i}]"),
                    format!("{x} is not a player count (an integer >= 0)"),
                )),
            })
            .collect::<Result<Vec<_>>>()?,
        _ => read_matrix_shaped(v, "players", &src, Some(n), 1)?,
    };
    if column.len() != n {
        return Err(Error::input(
            file,
            "players",
            format!(
                "has {} values, expected {n} (one per delay row)",
                column.len()
            ),
        ));
    }
    let mut total = 0usize;
    let mut out = Vec::with_capacity(n);
    for (i, cell) in column.iter().enumerate() {
        let count = match cell.as_slice() {
            [Some(x)] if x.fract() == 0.0 && (0.0..=MAX_PLAYERS as f64).contains(x) => *x as usize,
            [Some(x)] if x.fract() == 0.0 && *x > MAX_PLAYERS as f64 => {
                return Err(Error::input(
                    file,
                    format!("players[{i}]"),
                    format!("{x} players are more than the limit of {MAX_PLAYERS}"),
                ));
            }
            other => {
                let shown = match other {
                    [Some(x)] => x.to_string(),
                    [None] => "null".into(),
                    _ => format!("a row of {} values", other.len()),
                };
                return Err(Error::input(
                    file,
                    format!("players[{i}]"),
                    format!("{shown} is not a player count (an integer >= 0)"),
                ));
            }
        };
        total = total.saturating_add(count);
        if total > MAX_PLAYERS {
            return Err(Error::input(
                file,
                format!("players[{i}]"),
                format!("the players add up to more than the limit of {MAX_PLAYERS}"),
            ));
        }
        out.push(count);
    }
    Ok(out)
}

/// `open_cost`, when given: one finite value `>= 0` per mirror.
pub fn check_open_cost(costs: Vec<f64>, k: usize, file: &str) -> Result<Vec<f64>> {
    if costs.len() != k {
        return Err(Error::input(
            file,
            "open_cost",
            format!("has {} values, expected {k} (one per mirror)", costs.len()),
        ));
    }
    if let Some((j, c)) = costs
        .iter()
        .enumerate()
        .find(|(_, c)| !(c.is_finite() && **c >= 0.0))
    {
        return Err(Error::input(
            file,
            format!("open_cost[{j}]"),
            format!("{c} is not a finite cost >= 0"),
        ));
    }
    Ok(costs)
}

/// `clients`, when given, names every delay row.
pub fn check_client_names(names: Vec<String>, n: usize, file: &str) -> Result<Vec<String>> {
    if names.len() != n {
        return Err(Error::input(
            file,
            "clients",
            format!(
                "has {} names, expected {n} (one per delay row)",
                names.len()
            ),
        ));
    }
    Ok(names)
}
