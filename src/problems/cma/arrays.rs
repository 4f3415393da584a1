//! A CMA instance as hosts see it: a self-contained file's JSON, named
//! arrays for numpy, and the file's JSON built from arrays.

use crate::core::NamedArray;
use crate::error::{Error, Result};
use crate::io::json_text::{whole_or_as_given, FileText, HostArray, Shape};
use crate::problems::cma::file::to_file;
use crate::problems::cma::model::CmaInstance;
use serde_json::{json, Number, Value};

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

/// An instance file's text from arrays (the Python package's
/// `cma_instance`), for [`parse_cma_source`](crate::problems::cma::file::parse_cma_source)
/// to check as a file: `delay` (client rows × mirrors), `capacity` (one
/// per mirror: whole numbers are written as integers, others as given,
/// which the reader refuses naming `capacity[j]`) and optionally `players`
/// (one per row, likewise). `file` names the arrays in errors. A delay
/// JSON cannot hold (`NaN`, ±∞) is refused here, naming it; the shapes are
/// checked against the limit of a file before anything is allocated
/// ([`FileText`]).
pub fn text_from_arrays(
    file: &str,
    name: Option<&str>,
    delay: HostArray<'_>,
    capacity: HostArray<'_>,
    players: Option<HostArray<'_>>,
) -> Result<String> {
    let mut shapes: Vec<Shape<'_>> = vec![("delay", &delay.shape), ("capacity", &capacity.shape)];
    if let Some(p) = &players {
        shapes.push(("players", &p.shape));
    }
    let mut text = FileText::new(file, &shapes)?;
    text.field("problem", &json!("cma"))?;
    text.field("version", &json!(1))?;
    if let Some(n) = name {
        text.field("name", &json!(n))?;
    }
    // The mirrors are the delay matrix's columns: a capacity of another
    // length is then the reader's error on `capacity`.
    text.field("mirrors", &json!(delay.dims().1))?;
    let whole = |what: &'static str, field: &'static str| {
        move |x: f64, i: usize| match whole_or_as_given(x) {
            Some(n) => Ok(Some(n)),
            None => Err(Error::input(
                file,
                format!("{field}[{i}]"),
                format!("{x} is not {what}"),
            )),
        }
    };
    text.vector("capacity", capacity, whole("an integer >= 0", "capacity"))?;
    if let Some(p) = players {
        let what = "a player count (an integer >= 0)";
        text.vector("players", p, whole(what, "players"))?;
    }
    text.matrix("delay", delay, |x, i, j| match Number::from_f64(x) {
        Some(n) => Ok(Some(n)),
        None => Err(Error::input(
            file,
            format!("delay[{i}][{j}]"),
            format!("{x}: every client must have a finite delay to every mirror"),
        )),
    })?;
    text.finish()
}
