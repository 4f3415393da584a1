//! A CMA instance as hosts see it: a self-contained file's JSON, named
//! arrays for numpy, and the file's JSON built from arrays.

use crate::core::NamedArray;
use crate::error::{Error, Result};
use crate::problems::cma::file::to_file;
use crate::problems::cma::model::CmaInstance;
use serde_json::{json, Value};

/// The instance as a self-contained file's JSON (the matrix inlined).
pub fn to_value(inst: &CmaInstance) -> Result<Value> {
    serde_json::to_value(to_file(inst, None))
        .map_err(|e| Error::Usage(format!("cannot serialise instance '{}': {e}", inst.name)))
}

/// Its data as arrays: `delay` (client rows × mirrors), `capacity`, and
/// `open_cost` and `players` when the instance has them.
pub fn arrays(inst: &CmaInstance) -> Vec<NamedArray> {
    let delay: Vec<f64> = (0..inst.clients())
        .flat_map(|i| inst.row(i).iter().copied())
        .collect();
    let capacity = inst.capacity.iter().map(|&c| c as f64).collect();
    let mut out = vec![
        NamedArray::matrix("delay", inst.clients(), delay),
        NamedArray::vector("capacity", capacity),
    ];
    if let Some(cost) = &inst.open_cost {
        out.push(NamedArray::vector("open_cost", cost.clone()));
    }
    if let Some(players) = inst.players() {
        let players = players.iter().map(|&w| w as f64).collect();
        out.push(NamedArray::vector("players", players));
    }
    out
}

/// An instance file's JSON from arrays (the Python package's
/// `cma_instance`): `delay` is `rows × mirrors` row-major; whole
/// capacities are written as integers, others as given (which the file
/// checks refuse). Read it with [`parse_cma_source`](crate::problems::cma::file::parse_cma_source) for the file checks.
pub fn value_from_arrays(name: Option<&str>, delay: (usize, &[f64]), capacity: &[f64]) -> Value {
    let (rows, data) = delay;
    let matrix = crate::problems::spd::file::json_rows(rows, data);
    let mut file = json!({
        "problem": "cma",
        "version": 1,
        "mirrors": capacity.len(),
        "capacity": capacity.iter().map(|&c| whole_or_as_given(c)).collect::<Vec<_>>(),
        "delay": matrix,
    });
    if let (Some(n), Some(obj)) = (name, file.as_object_mut()) {
        obj.insert("name".into(), Value::from(n));
    }
    file
}

/// Adds `players` (one count per row) to a file's JSON built by
/// [`value_from_arrays`]; whole numbers are written as integers, others as
/// given (which the file checks refuse, naming `players[i]`).
pub fn set_players(file: &mut Value, players: &[f64]) {
    if let Some(obj) = file.as_object_mut() {
        let values: Vec<Value> = players.iter().map(|&x| whole_or_as_given(x)).collect();
        obj.insert("players".into(), Value::Array(values));
    }
}

/// A whole number `>= 0` as a JSON integer, anything else as given (the
/// file checks then refuse it with its field and index).
fn whole_or_as_given(x: f64) -> Value {
    if x.fract() == 0.0 && (0.0..9.0e15).contains(&x) {
        Value::from(x as u64)
    } else {
        crate::problems::spd::file::finite_or_null(x)
    }
}
