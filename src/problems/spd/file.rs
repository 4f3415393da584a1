//! Reading and writing SPD/SPDVR instance files (formats.md "SPD / SPDVR
//! instance"). Unknown fields are rejected; every error names the file, the
//! field and the index. Latencies (`access`, `links`, `server_latency`) are at
//! most [`crate::net::matrix::MAX_LATENCY_MS`] (1e9 ms, see `io::matrix`).

use crate::core::{NamedArray, Source};
use crate::error::{Error, Result};
use crate::io::fields::{read_count_or_names, relabel};
use crate::io::json_matrix::{take_inline_matrix_of, Cells};
use crate::io::json_strict::{from_value, parse_typed};
use crate::io::json_text::{FileText, HostArray};
use crate::net::csv_fast::FlatMatrix;
use crate::net::matrix::{check_latency, read_matrix_shaped, Matrix, MatrixSource};
use crate::net::network::{ServerNetwork, MAX_SERVERS};
use crate::problems::spd::model::{BoundSpec, CommModel, SpdInstance, SpdProblem, SpdSolution};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::path::Path;

/// The file as written, before validation.
#[derive(Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct SpdFile {
    /// `"spd"` or `"spdvr"`.
    pub problem: SpdProblem,
    /// Format version (1).
    pub version: u32,
    /// Instance name (defaults to the file stem).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// `"cs"` or `"p2p"`.
    pub model: CommModel,
    /// μ in ms.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bound: Option<f64>,
    /// f with μ = f·Γ.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bound_factor: Option<f64>,
    /// A count or an array of names.
    pub servers: Value,
    /// Undirected links `[u, v, latency]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub links: Option<Value>,
    /// `n × n` matrix, `null` = no direct link.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_latency: Option<Value>,
    /// One row per client, one value per server.
    pub access: Value,
    /// Optional client names.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clients: Option<Vec<String>>,
    /// Optional start solution (SPDVR): the solution object, or a whole
    /// solution file written by `solve --out` (its `solution` is used).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start: Option<Value>,
    /// Free-form provenance (generator, dataset attribution).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
}

/// Reads and validates an SPD/SPDVR instance file.
pub fn read_spd(path: &Path) -> Result<SpdInstance> {
    parse_spd_source(&Source::read(path)?)
}

/// Parses and validates an instance from its [`Source`] (a file's text or
/// one built in memory).
pub fn parse_spd_source(src: &Source) -> Result<SpdInstance> {
    parse_spd_named(&src.text, &src.file, &src.base, &src.default_name)
}

/// Parses an instance from JSON text (CSV paths relative to `base`).
pub fn parse_spd(text: &str, file: &str, base: &Path) -> Result<SpdInstance> {
    parse_spd_named(text, file, base, "instance")
}

/// Inline `access` and `server_latency` matrices the fast path
/// ([`take_inline_matrix_of`]) read before the rest of the file.
#[derive(Default)]
struct Inline {
    access: Option<FlatMatrix>,
    server_latency: Option<FlatMatrix>,
}

/// Reads the inline matrices by the fast path when it applies and the rest
/// of the file then parses; otherwise everything the slow way (so errors
/// are that path's). The fast path reads `null` as a missing value, as the
/// slow one does.
fn parse_spd_named(text: &str, file: &str, base: &Path, default_name: &str) -> Result<SpdInstance> {
    let mut inline = Inline::default();
    let mut short: Option<String> = None;
    for (key, slot) in [
        ("access", &mut inline.access),
        ("server_latency", &mut inline.server_latency),
    ] {
        let now = short.as_deref().unwrap_or(text);
        if let Some((rest, m)) = take_inline_matrix_of(now, key, Cells::LatenciesOrNull) {
            *slot = Some(m);
            short = Some(rest);
        }
    }
    if let Some(rest) = &short {
        if let Ok(raw) = parse_typed::<SpdFile>(rest, file) {
            return validate(raw, inline, file, base, default_name);
        }
    }
    let raw: SpdFile = parse_typed(text, file)?;
    validate(raw, Inline::default(), file, base, default_name)
}

/// The file name shown in errors: as the user gave it.
pub fn display_name(path: &Path) -> String {
    path.display().to_string()
}

/// Validates a parsed file; `inline` holds the matrices the fast path
/// already read (the fields of `raw` are then placeholders).
fn validate(
    raw: SpdFile,
    inline: Inline,
    file: &str,
    base: &Path,
    default_name: &str,
) -> Result<SpdInstance> {
    if raw.version != 1 {
        return Err(Error::input(
            file,
            "version",
            format!("version {} is not supported (1 is)", raw.version),
        ));
    }
    let src = MatrixSource {
        file,
        base_dir: base,
    };
    let (n, server_names) = read_count_or_names(&raw.servers, file, "servers", "server")?;
    // The declared server count is checked against the data (one access value
    // per server) before anything of size n² is allocated.
    let access = match inline.access {
        Some(m) => m.to_matrix(),
        None => read_matrix_shaped(&raw.access, "access", &src, None, n)?,
    };
    check_access(&access, n, file)?;
    check_server_limit(n, file)?;
    let network = read_network(&raw, inline.server_latency, &src, n)?;
    if let Some(names) = &raw.clients {
        check_client_names(names, access.len(), file)?;
    }
    let bound = read_bound(raw.bound, raw.bound_factor, file)?;
    let mut inst = SpdInstance::new(
        raw.name.unwrap_or_else(|| default_name.to_string()),
        raw.model,
        network,
        &access,
        bound,
    )
    .map_err(|e| relabel(e, file))?;
    if matches!(bound, BoundSpec::Factor(_)) && !inst.gamma.is_finite() {
        return Err(Error::input(
            file,
            "bound_factor",
            "Γ is infinite (no root reaches every client), so f·Γ is undefined: give bound",
        ));
    }
    inst.problem = raw.problem;
    inst.server_names = server_names;
    inst.client_names = raw.clients;
    if let Some(start) = raw.start {
        let start = read_start(start, file)?;
        check_start(&start, &inst, file)?;
        inst.start = Some(start);
    }
    Ok(inst)
}

/// At most [`MAX_SERVERS`] servers.
fn check_server_limit(n: usize, file: &str) -> Result<()> {
    if n > MAX_SERVERS {
        return Err(Error::input(
            file,
            "servers",
            format!("{n} servers are more than the limit of {MAX_SERVERS} (the network keeps n × n tables)"),
        ));
    }
    Ok(())
}

/// The server network from exactly one of `links` or `server_latency`.
/// (`inline`: the `server_latency` matrix when the fast path read it.)
fn read_network(
    raw: &SpdFile,
    inline: Option<FlatMatrix>,
    src: &MatrixSource<'_>,
    n: usize,
) -> Result<ServerNetwork> {
    let file = src.file;
    match (&raw.links, &raw.server_latency) {
        (Some(links), None) => Ok(ServerNetwork::new(n, &read_links(links, n, file)?)),
        (None, Some(m)) => {
            let matrix = match inline {
                Some(flat) => flat.to_matrix(),
                None => read_matrix_shaped(m, "server_latency", src, Some(n), n)?,
            };
            check_server_matrix(&matrix, n, file)?;
            Ok(ServerNetwork::from_matrix(&matrix))
        }
        _ => Err(Error::input(
            file,
            "links",
            "give exactly one of links or server_latency",
        )),
    }
}

/// `clients`, when given, names every access row.
fn check_client_names(names: &[String], rows: usize, file: &str) -> Result<()> {
    if names.len() != rows {
        return Err(Error::input(
            file,
            "clients",
            format!(
                "has {} names, expected {} (one per access row)",
                names.len(),
                rows
            ),
        ));
    }
    Ok(())
}

/// Exactly one of `bound` (a finite latency >= 0) or `bound_factor` (a
/// positive factor).
fn read_bound(bound: Option<f64>, bound_factor: Option<f64>, file: &str) -> Result<BoundSpec> {
    match (bound, bound_factor) {
        (Some(mu), None) if mu.is_finite() && mu >= 0.0 => Ok(BoundSpec::Absolute(mu)),
        (Some(mu), None) => Err(Error::input(
            file,
            "bound",
            format!("{mu} is not a finite latency >= 0"),
        )),
        (None, Some(f)) if f.is_finite() && f > 0.0 => Ok(BoundSpec::Factor(f)),
        (None, Some(f)) => Err(Error::input(
            file,
            "bound_factor",
            format!("{f} is not a positive factor"),
        )),
        _ => Err(Error::input(
            file,
            "bound",
            "give exactly one of bound or bound_factor",
        )),
    }
}

fn read_links(v: &Value, n: usize, file: &str) -> Result<Vec<(usize, usize, f64)>> {
    let Value::Array(items) = v else {
        return Err(Error::input(
            file,
            "links",
            "expected an array of [u, v, latency]",
        ));
    };
    let mut links = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let field = format!("links[{i}]");
        let parts = match item {
            Value::Array(p) if p.len() == 3 => p,
            _ => return Err(Error::input(file, &field, "expected [u, v, latency]")),
        };
        let mut ends = [0usize; 2];
        for (k, end) in ends.iter_mut().enumerate() {
            *end = match parts[k].as_u64() {
                Some(u) if (u as usize) < n => u as usize,
                _ => {
                    return Err(Error::input(
                        file,
                        format!("{field}[{k}]"),
                        format!("{} is not a server index (0..{n})", parts[k]),
                    ))
                }
            };
        }
        if ends[0] == ends[1] {
            return Err(Error::input(
                file,
                &field,
                format!("links server {} to itself", ends[0]),
            ));
        }
        let w = parts[2].as_f64().unwrap_or(f64::NAN);
        let w = check_latency(w, &format!("{field}[2]"), file)?;
        links.push((ends[0], ends[1], w));
    }
    Ok(links)
}

#[allow(clippy::needless_range_loop)] // (i, j) and (j, i) are compared
fn check_server_matrix(m: &Matrix, n: usize, file: &str) -> Result<()> {
    if m.len() != n {
        return Err(Error::input(
            file,
            "server_latency",
            format!("has {} rows, expected {n} (one per server)", m.len()),
        ));
    }
    for (i, row) in m.iter().enumerate() {
        if row.len() != n {
            return Err(Error::input(
                file,
                format!("server_latency[{i}]"),
                format!("has {} values, expected {n} (one per server)", row.len()),
            ));
        }
    }
    for i in 0..n {
        if m[i][i].is_some_and(|d| d != 0.0) {
            return Err(Error::input(
                file,
                format!("server_latency[{i}][{i}]"),
                "the diagonal must be 0 or null",
            ));
        }
        for j in i + 1..n {
            let same = match (m[i][j], m[j][i]) {
                (Some(a), Some(b)) => (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0),
                (None, None) => true,
                _ => false,
            };
            if !same {
                return Err(Error::input(
                    file,
                    format!("server_latency[{i}][{j}]"),
                    format!(
                        "{} differs from server_latency[{j}][{i}] = {}: the server network is undirected (symmetrise the matrix)",
                        link(m[i][j]), link(m[j][i])
                    ),
                ));
            }
        }
    }
    Ok(())
}

fn check_access(m: &Matrix, n: usize, file: &str) -> Result<()> {
    if m.is_empty() {
        return Err(Error::input(
            file,
            "access",
            "at least one client row is needed",
        ));
    }
    for (c, row) in m.iter().enumerate() {
        if row.len() != n {
            return Err(Error::input(
                file,
                format!("access[{c}]"),
                format!("has {} values, expected {n} (one per server)", row.len()),
            ));
        }
        if row.iter().all(Option::is_none) {
            return Err(Error::input(
                file,
                format!("access[{c}]"),
                "the client has no access to any server",
            ));
        }
    }
    Ok(())
}

/// The `start` field: a solution object, or a solution file's record whose
/// `solution` is taken (errors name `start.solution…` then).
fn read_start(value: Value, file: &str) -> Result<SpdSolution> {
    let is_record = value.get("engine").is_some() || value.get("status").is_some();
    if !is_record {
        return from_value(value, file, "start");
    }
    match value.get("solution") {
        Some(inner) => from_value(inner.clone(), file, "start.solution"),
        None => Err(Error::input(
            file,
            "start.solution",
            "the solution file holds no solution (its engine found none)",
        )),
    }
}

fn check_start(start: &SpdSolution, inst: &SpdInstance, file: &str) -> Result<()> {
    let (n, m) = (inst.servers(), inst.clients());
    if start.assign.len() != m {
        return Err(Error::input(
            file,
            "start.assign",
            format!(
                "has {} entries, expected {m} (one per client)",
                start.assign.len()
            ),
        ));
    }
    for (c, &s) in start.assign.iter().enumerate() {
        if s >= n {
            return Err(Error::input(
                file,
                format!("start.assign[{c}]"),
                format!("{s} is not a server index (0..{n})"),
            ));
        }
    }
    match (inst.model, start.root) {
        (CommModel::Cs, None) => Err(Error::input(file, "start.root", "a CS start needs a root")),
        (CommModel::Cs, Some(r)) if r >= n => Err(Error::input(
            file,
            "start.root",
            format!("{r} is not a server index (0..{n})"),
        )),
        (CommModel::P2p, Some(_)) => {
            Err(Error::input(file, "start.root", "a P2P start has no root"))
        }
        _ => Ok(()),
    }
}

/// Serialises an instance back to the file format (inline matrices).
pub fn to_file(inst: &SpdInstance) -> SpdFile {
    let n = inst.servers();
    let access: Vec<Vec<Value>> = (0..inst.clients())
        .map(|c| {
            inst.access_row(c)
                .iter()
                .map(|&a| {
                    if a.is_finite() {
                        Value::from(a)
                    } else {
                        Value::Null
                    }
                })
                .collect()
        })
        .collect();
    let links: Vec<Value> = inst
        .network
        .links()
        .into_iter()
        .map(|(u, v, w)| serde_json::json!([u, v, w]))
        .collect();
    SpdFile {
        problem: inst.problem,
        version: 1,
        name: Some(inst.name.clone()),
        model: inst.model,
        bound: inst.bound_factor.is_none().then_some(inst.bound),
        bound_factor: inst.bound_factor,
        servers: match &inst.server_names {
            Some(names) => serde_json::json!(names),
            None => Value::from(n),
        },
        links: Some(Value::Array(links)),
        server_latency: None,
        access: serde_json::json!(access),
        clients: inst.client_names.clone(),
        start: inst
            .start
            .as_ref()
            .and_then(|s| serde_json::to_value(s).ok()),
        source: None,
    }
}

/// Writes an instance file: one key per line, matrices one row per line.
pub fn write_spd_file(path: &Path, file: &SpdFile) -> Result<()> {
    let value = serde_json::to_value(file)
        .map_err(|e| Error::Usage(format!("cannot serialise the instance: {e}")))?;
    std::fs::write(path, format_rows(&value)).map_err(|e| Error::io(path, e))
}

/// JSON with top-level keys on their own lines and arrays of arrays one row per line.
pub fn format_rows(value: &Value) -> String {
    let Value::Object(map) = value else {
        return value.to_string();
    };
    let mut out = String::from("{\n");
    let n = map.len();
    for (i, (k, v)) in map.iter().enumerate() {
        out.push_str(&format!("  {}: ", Value::String(k.clone())));
        match v {
            Value::Array(rows) if !rows.is_empty() && rows.iter().all(Value::is_array) => {
                out.push_str("[\n");
                for (j, row) in rows.iter().enumerate() {
                    out.push_str("    ");
                    out.push_str(&row.to_string());
                    out.push_str(if j + 1 < rows.len() { ",\n" } else { "\n" });
                }
                out.push_str("  ]");
            }
            other => out.push_str(&other.to_string()),
        }
        out.push_str(if i + 1 < n { ",\n" } else { "\n" });
    }
    out.push_str("}\n");
    out
}

/// A link's latency as people read it (`null` = no link).
fn link(x: Option<f64>) -> String {
    x.map_or_else(|| "null (no link)".into(), |v| format!("{v}"))
}

/// The instance as a self-contained file's JSON.
pub fn to_value(inst: &SpdInstance) -> Result<Value> {
    serde_json::to_value(to_file(inst))
        .map_err(|e| Error::Usage(format!("cannot serialise instance '{}': {e}", inst.name)))
}

/// Its data as arrays: `access` (clients × servers), `server_latency` (the
/// direct links, `NaN` where there is none, 0 on the diagonal), `distance`
/// (shortest paths between servers) and the scalar `mu`.
pub fn arrays(inst: &SpdInstance) -> Vec<NamedArray> {
    let (n, m) = (inst.servers(), inst.clients());
    let access: Vec<f64> = (0..m)
        .flat_map(|c| inst.access_row(c).iter().map(|&a| nan_if_infinite(a)))
        .collect();
    let mut links = vec![f64::NAN; n * n];
    for s in 0..n {
        links[s * n + s] = 0.0;
    }
    for (u, v, w) in inst.network.links() {
        links[u * n + v] = w;
        links[v * n + u] = w;
    }
    let distance: Vec<f64> = (0..n)
        .flat_map(|s| (0..n).map(move |t| (s, t)))
        .map(|(s, t)| nan_if_infinite(inst.network.dist(s, t)))
        .collect();
    vec![
        NamedArray::matrix("access", m, access),
        NamedArray::matrix("server_latency", n, links),
        NamedArray::matrix("distance", n, distance),
        NamedArray {
            name: "mu",
            shape: Vec::new(),
            data: vec![inst.bound],
        },
    ]
}

fn nan_if_infinite(x: f64) -> f64 {
    if x.is_finite() {
        x
    } else {
        f64::NAN
    }
}

/// An instance file's text from arrays (the Python package's
/// `spd_instance`), for [`parse_spd_source`] to check as a file: `access`
/// (clients × servers), `latency` (the servers × servers direct links;
/// `NaN` or ±∞ in either become `null`: no link, unreachable) and the
/// delay bound `mu` (ms), which must be finite. `file` names the arrays in
/// errors; the shapes are checked against the limit of a file before
/// anything is allocated ([`FileText`]).
pub fn text_from_arrays(
    file: &str,
    name: Option<&str>,
    model: &str,
    mu: f64,
    latency: HostArray<'_>,
    access: HostArray<'_>,
) -> Result<String> {
    let shapes = [
        ("server_latency", &latency.shape[..]),
        ("access", &access.shape[..]),
    ];
    let mut text = FileText::new(file, &shapes)?;
    let Some(bound) = serde_json::Number::from_f64(mu) else {
        return Err(Error::input(
            file,
            "mu",
            format!("{mu} is not a delay bound (a finite number of ms)"),
        ));
    };
    text.field("problem", &serde_json::json!("spd"))?;
    text.field("version", &serde_json::json!(1))?;
    if let Some(n) = name {
        text.field("name", &Value::from(n))?;
    }
    text.field("model", &Value::from(model))?;
    text.field("bound", &Value::Number(bound))?;
    text.field("servers", &Value::from(latency.dims().0))?;
    let link = |x: f64, _: usize, _: usize| Ok(serde_json::Number::from_f64(x));
    text.matrix("server_latency", latency, link)?;
    text.matrix("access", access, link)?;
    text.finish()
}
