//! Reading and writing CMA instance files (formats.md "CMA instance").
//!
//! ```json
//! {"problem": "cma", "version": 1, "name": "paper-fig3",
//!  "mirrors": ["G", "H", "I"], "capacity": [2, 2, 2],
//!  "delay": [[4, 5, 10], [4, 5, 10], [1, 8, 10]],
//!  "events": [{"join": 0}, {"join": 1}, {"leave": 0}],
//!  "start": {"assign": [null, null, 0]}}
//! ```
//!
//! - exactly one of `capacity` (integers >= 0) or `resources`
//!   (`{"bandwidth": [..], "cpu": [..], "b": .., "ls": .., "lc": ..}`);
//! - `delay`: one row per client, one value per mirror (inline or
//!   `{"csv": path}`); every value present (no `null`: every client reaches
//!   every mirror); each delay at most [`crate::net::matrix::MAX_LATENCY_MS`]
//!   (1e9 ms, about 11.6 days; see `io::matrix`);
//! - `events` (optional): each `{"join": row}` or `{"leave": row}`; a join of
//!   a present client, a leave of an absent one, or more present clients than
//!   the total capacity is an error naming the event;
//! - `open_cost` (optional): one cost `>= 0` per mirror, read by `plan cma`
//!   only;
//! - `start` (optional): `{"assign": [mirror or null per row]}` (a solution
//!   file's `solution`), or that array alone; it must respect capacities.
//!
//! Unknown fields are rejected; every error names the file, field and index.

use crate::core::Source;
use crate::error::{Error, Result};
use crate::io::fields::{read_count_or_names, relabel};
use crate::io::json_matrix::take_inline_matrix;
use crate::io::json_strict::parse_typed;
use crate::net::csv_fast::FlatMatrix;
use crate::net::matrix::{read_matrix_flat, write_csv, MatrixSource};
use crate::problems::cma::file_fields::{check_client_names, check_open_cost, read_players};
use crate::problems::cma::model::{CmaEvent, CmaInstance, CmaResources, MAX_MIRRORS};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::path::Path;

/// The resources object as written.
#[derive(Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ResourcesFile {
    /// `α_j` per mirror.
    pub bandwidth: Vec<f64>,
    /// `β_j` per mirror.
    pub cpu: Vec<f64>,
    /// Bandwidth per player.
    pub b: f64,
    /// Simulation processing per player.
    pub ls: f64,
    /// Connection processing per player.
    pub lc: f64,
}

/// The file as written, before validation.
#[derive(Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct CmaFile {
    /// `"cma"`.
    pub problem: String,
    /// Format version (1).
    pub version: u32,
    /// Instance name (defaults to the file stem).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// A count or an array of names.
    pub mirrors: Value,
    /// `C_j` per mirror.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capacity: Option<Value>,
    /// Resources from which capacities are derived.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resources: Option<ResourcesFile>,
    /// One row per client, one value per mirror.
    pub delay: Value,
    /// Optional client names.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clients: Option<Vec<String>>,
    /// Joins and leaves (dynamic problem).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub events: Option<Vec<Value>>,
    /// Initial assignment (dynamic problem).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start: Option<Value>,
    /// Free-form provenance.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// Optional cost of opening each mirror (`plan cma` only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open_cost: Option<Vec<f64>>,
    /// Optional players per row (integers `>= 0`; inline, `{"csv"}` or
    /// `{"npy"}` of one column).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub players: Option<Value>,
}

/// Reads and validates a CMA instance file.
pub fn read_cma(path: &Path) -> Result<CmaInstance> {
    parse_cma_source(&Source::read(path)?)
}

/// Parses and validates an instance from its [`Source`] (a file's text or
/// one built in memory).
pub fn parse_cma_source(src: &Source) -> Result<CmaInstance> {
    parse_cma_named(&src.text, &src.file, &src.base, &src.default_name)
}

/// Parses a CMA instance from JSON text (CSV paths relative to `base`).
pub fn parse_cma(text: &str, file: &str, base: &Path) -> Result<CmaInstance> {
    parse_cma_named(text, file, base, "instance")
}

/// Reads an inline `delay` matrix by the fast path
/// ([`take_inline_matrix`]) when it applies and the rest of the file then
/// parses; otherwise everything the slow way (so errors are that path's).
fn parse_cma_named(text: &str, file: &str, base: &Path, default_name: &str) -> Result<CmaInstance> {
    if let Some((short, matrix)) = take_inline_matrix(text, "delay") {
        if let Ok(raw) = parse_typed::<CmaFile>(&short, file) {
            return validate(raw, Some(matrix), file, base, default_name);
        }
    }
    let raw: CmaFile = parse_typed(text, file)?;
    validate(raw, None, file, base, default_name)
}

/// Validates a parsed file; `delay` is its matrix when the fast path
/// already read it (`raw.delay` is then a placeholder).
fn validate(
    raw: CmaFile,
    delay: Option<FlatMatrix>,
    file: &str,
    base: &Path,
    default_name: &str,
) -> Result<CmaInstance> {
    check_header(&raw, file)?;
    let (k, mirror_names) = read_count_or_names(&raw.mirrors, file, "mirrors", "mirror")?;
    let delay = match delay {
        Some(m) => m,
        None => read_delay_matrix(&raw.delay, file, base, k)?,
    };
    let (n, flat) = check_delays(delay, file, k)?;
    let players = match &raw.players {
        Some(v) => Some(read_players(v, n, file, base)?),
        None => None,
    };
    let total = players.as_ref().map_or(n, |p| p.iter().sum());
    let (capacity, resources) =
        read_capacity_or_resources(&raw.capacity, raw.resources, k, total, file)?;
    if players.is_some() && (raw.events.is_some() || raw.start.is_some()) {
        return Err(Error::input(
            file,
            "players",
            "a dynamic instance (events or start) has one player per row: drop players, \
             or repeat a row once per player",
        ));
    }
    let name = raw.name.unwrap_or_else(|| default_name.into());
    let mut inst = match players {
        Some(p) => CmaInstance::new_weighted(name, capacity, flat, p),
        None => CmaInstance::new(name, capacity, flat),
    }
    .map_err(|e| relabel(e, file))?;
    inst.resources = resources;
    inst.mirror_names = mirror_names;
    inst.source = raw.source;
    if let Some(costs) = raw.open_cost {
        inst.open_cost = Some(check_open_cost(costs, k, file)?);
    }
    if let Some(names) = raw.clients {
        inst.client_names = Some(check_client_names(names, n, file)?);
    }
    if let Some(s) = &raw.start {
        inst.start = Some(read_start(s, &inst, file)?);
    }
    if let Some(ev) = &raw.events {
        inst.events = Some(read_events(ev, &inst, file)?);
    }
    Ok(inst)
}

/// `problem` must be "cma" and `version` 1.
fn check_header(raw: &CmaFile, file: &str) -> Result<()> {
    if raw.problem != "cma" {
        return Err(Error::input(
            file,
            "problem",
            format!("'{}' is not \"cma\"", raw.problem),
        ));
    }
    if raw.version != 1 {
        return Err(Error::input(
            file,
            "version",
            format!("version {} is not supported (1 is)", raw.version),
        ));
    }
    Ok(())
}

/// Reads the `delay` field's matrix (inline, CSV or `.npy`).
fn read_delay_matrix(delay: &Value, file: &str, base: &Path, k: usize) -> Result<FlatMatrix> {
    let src = MatrixSource {
        file,
        base_dir: base,
    };
    read_matrix_flat(delay, "delay", &src, None, k)
}

/// Checks the `delay` matrix (n rows of k values, none null) and returns
/// n with the row-major n × k delays.
fn check_delays(matrix: FlatMatrix, file: &str, k: usize) -> Result<(usize, Vec<f64>)> {
    let n = matrix.rows();
    if n == 0 {
        return Err(Error::input(
            file,
            "delay",
            "at least one client row is needed",
        ));
    }
    // The declared mirror count is checked against the data before the
    // n × k matrix is used.
    if let Some((i, row)) = matrix.iter_rows().enumerate().find(|(_, r)| r.len() != k) {
        return Err(Error::input(
            file,
            format!("delay[{i}]"),
            format!("has {} values, expected {k} (one per mirror)", row.len()),
        ));
    }
    if k > MAX_MIRRORS {
        return Err(Error::input(
            file,
            "mirrors",
            format!("{k} mirrors are more than the limit of {MAX_MIRRORS} (the engines keep k × k tables)"),
        ));
    }
    // Every row has k cells, so the flat buffer is the row-major n × k
    // matrix; a missing value (NaN) is the first null in row-major order.
    if let Some(at) = matrix.values.iter().position(|d| d.is_nan()) {
        return Err(Error::input(
            file,
            format!("delay[{}][{}]", at / k, at % k),
            "null: every client must have a delay to every mirror",
        ));
    }
    Ok((n, matrix.values))
}

/// Exactly one of `capacity` or `resources`; resources also give the
/// per-mirror capacities for n players.
fn read_capacity_or_resources(
    capacity: &Option<Value>,
    resources: Option<ResourcesFile>,
    k: usize,
    n: usize,
    file: &str,
) -> Result<(Vec<usize>, Option<CmaResources>)> {
    match (capacity, resources) {
        (Some(c), None) => Ok((read_capacity(c, k, file)?, None)),
        (None, Some(r)) => {
            let r = read_resources(r, k, file)?;
            Ok((r.capacities(n), Some(r)))
        }
        _ => Err(Error::input(
            file,
            "capacity",
            "give exactly one of capacity or resources",
        )),
    }
}

fn read_capacity(v: &Value, k: usize, file: &str) -> Result<Vec<usize>> {
    let Value::Array(items) = v else {
        return Err(Error::input(
            file,
            "capacity",
            "expected an array of integers >= 0",
        ));
    };
    if items.len() != k {
        return Err(Error::input(
            file,
            "capacity",
            format!("has {} values, expected {k} (one per mirror)", items.len()),
        ));
    }
    items
        .iter()
        .enumerate()
        .map(|(j, c)| {
            c.as_u64().map(|c| c as usize).ok_or_else(|| {
                Error::input(
                    file,
                    format!("capacity[{j}]"),
                    format!("{c} is not an integer >= 0"),
                )
            })
        })
        .collect()
}

fn read_resources(r: ResourcesFile, k: usize, file: &str) -> Result<CmaResources> {
    for (field, vals) in [("bandwidth", &r.bandwidth), ("cpu", &r.cpu)] {
        if vals.len() != k {
            return Err(Error::input(
                file,
                format!("resources.{field}"),
                format!("has {} values, expected {k} (one per mirror)", vals.len()),
            ));
        }
        if let Some((j, x)) = vals.iter().enumerate().find(|(_, x)| !x.is_finite()) {
            return Err(Error::input(
                file,
                format!("resources.{field}[{j}]"),
                format!("{x} is not a finite number"),
            ));
        }
    }
    for (field, x, strict) in [("b", r.b, true), ("lc", r.lc, true), ("ls", r.ls, false)] {
        let ok = x.is_finite() && if strict { x > 0.0 } else { x >= 0.0 };
        if !ok {
            let want = if strict { "> 0" } else { ">= 0" };
            return Err(Error::input(
                file,
                format!("resources.{field}"),
                format!("{x} is not a finite number {want}"),
            ));
        }
    }
    Ok(CmaResources {
        bandwidth: r.bandwidth,
        cpu: r.cpu,
        b: r.b,
        ls: r.ls,
        lc: r.lc,
    })
}

fn read_start(v: &Value, inst: &CmaInstance, file: &str) -> Result<Vec<Option<usize>>> {
    let (n, k) = (inst.clients(), inst.mirrors());
    let (arr, field) = match v {
        Value::Array(a) => (a, "start"),
        Value::Object(o) => match (o.get("assign"), o.len()) {
            (Some(Value::Array(a)), 1) => (a, "start.assign"),
            _ => {
                return Err(Error::input(
                    file,
                    "start",
                    "expected {\"assign\": [mirror or null per client row]}",
                ))
            }
        },
        _ => return Err(Error::input(file, "start", "expected {\"assign\": [...]}")),
    };
    if arr.len() != n {
        return Err(Error::input(
            file,
            field,
            format!(
                "has {} entries, expected {n} (one per client row)",
                arr.len()
            ),
        ));
    }
    let mut loads = vec![0usize; k];
    let mut out = Vec::with_capacity(n);
    for (i, a) in arr.iter().enumerate() {
        let m = match a {
            Value::Null => None,
            other => match other.as_u64() {
                Some(j) if (j as usize) < k => Some(j as usize),
                _ => {
                    return Err(Error::input(
                        file,
                        format!("{field}[{i}]"),
                        format!("{other} is not a mirror index (0..{k}) or null"),
                    ))
                }
            },
        };
        if let Some(j) = m {
            loads[j] += 1;
            if loads[j] > inst.capacity[j] {
                return Err(Error::input(
                    file,
                    format!("{field}[{i}]"),
                    format!(
                        "mirror {} gets more than its capacity {}",
                        inst.mirror_label(j),
                        inst.capacity[j]
                    ),
                ));
            }
        }
        out.push(m);
    }
    Ok(out)
}

fn read_events(items: &[Value], inst: &CmaInstance, file: &str) -> Result<Vec<CmaEvent>> {
    let n = inst.clients();
    let total = inst.total_capacity();
    let mut present: Vec<bool> = match &inst.start {
        Some(s) => s.iter().map(Option::is_some).collect(),
        None => vec![false; n],
    };
    let mut count = present.iter().filter(|&&p| p).count();
    let mut out = Vec::with_capacity(items.len());
    for (e, item) in items.iter().enumerate() {
        let field = format!("events[{e}]");
        let ev = parse_event(item, n, file, &field)?;
        let i = ev.client();
        match ev {
            CmaEvent::Join(_) if present[i] => {
                return Err(Error::input(
                    file,
                    &field,
                    format!("client {i} joins but is already present"),
                ))
            }
            CmaEvent::Leave(_) if !present[i] => {
                return Err(Error::input(
                    file,
                    &field,
                    format!("client {i} leaves but is not present"),
                ))
            }
            CmaEvent::Join(_) => {
                count += 1;
                if count > total {
                    return Err(Error::input(
                        file,
                        &field,
                        format!("the join of client {i} makes {count} clients present, more than the total capacity {total}"),
                    ));
                }
            }
            CmaEvent::Leave(_) => count -= 1,
        }
        present[i] = matches!(ev, CmaEvent::Join(_));
        out.push(ev);
    }
    Ok(out)
}

fn parse_event(item: &Value, n: usize, file: &str, field: &str) -> Result<CmaEvent> {
    let Value::Object(o) = item else {
        return Err(Error::input(
            file,
            field,
            "expected {\"join\": row} or {\"leave\": row}",
        ));
    };
    let (key, val) = match (o.len(), o.iter().next()) {
        (1, Some((k, v))) => (k.as_str(), v),
        _ => {
            return Err(Error::input(
                file,
                field,
                "expected exactly one of join or leave",
            ))
        }
    };
    let i = match val.as_u64() {
        Some(i) if (i as usize) < n => i as usize,
        _ => {
            return Err(Error::input(
                file,
                format!("{field}.{key}"),
                format!("{val} is not a client row (0..{n})"),
            ))
        }
    };
    match key {
        "join" => Ok(CmaEvent::Join(i)),
        "leave" => Ok(CmaEvent::Leave(i)),
        other => Err(Error::input(
            file,
            format!("{field}.{other}"),
            "unknown event kind (join or leave)",
        )),
    }
}

/// The file form of an instance. With `csv = Some(name)` the delay matrix is
/// referenced as `{"csv": name}` (write it with [`write_cma`]).
pub fn to_file(inst: &CmaInstance, csv: Option<&str>) -> CmaFile {
    let k = inst.mirrors();
    let delay = match csv {
        Some(name) => json!({ "csv": name }),
        None => Value::Array((0..inst.clients()).map(|i| json!(inst.row(i))).collect()),
    };
    let (capacity, resources) = match &inst.resources {
        Some(r) => (
            None,
            Some(ResourcesFile {
                bandwidth: r.bandwidth.clone(),
                cpu: r.cpu.clone(),
                b: r.b,
                ls: r.ls,
                lc: r.lc,
            }),
        ),
        None => (Some(json!(inst.capacity)), None),
    };
    let events = inst.events.as_ref().map(|ev| {
        ev.iter()
            .map(|e| json!({ e.kind(): e.client() }))
            .collect::<Vec<_>>()
    });
    CmaFile {
        problem: "cma".into(),
        version: 1,
        name: Some(inst.name.clone()),
        mirrors: match &inst.mirror_names {
            Some(n) => json!(n),
            None => json!(k),
        },
        capacity,
        resources,
        delay,
        clients: inst.client_names.clone(),
        events,
        start: inst.start.as_ref().map(|s| json!({ "assign": s })),
        source: inst.source.clone(),
        open_cost: inst.open_cost.clone(),
        players: inst.players().map(|p| json!(p)),
    }
}

/// Where [`write_cma_with`] puts the delay matrix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SideFile {
    /// Inline, in the JSON file.
    Inline,
    /// A headerless CSV next to it (`<stem>.delay.csv`).
    Csv,
    /// numpy's `.npy` next to it (`<stem>.delay.npy`, float64, C order).
    Npy,
}

/// Writes `inst` to `path`. With `csv`, the delay matrix goes to a headerless
/// CSV next to it (`<stem>.delay.csv`), which keeps large instances small.
pub fn write_cma(path: &Path, inst: &CmaInstance, csv: bool) -> Result<()> {
    let side = if csv { SideFile::Csv } else { SideFile::Inline };
    write_cma_with(path, inst, side)
}

/// Writes `inst` to `path` with its delay matrix where `side` says.
pub fn write_cma_with(path: &Path, inst: &CmaInstance, side: SideFile) -> Result<()> {
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "instance".into());
    let dir = path.parent().unwrap_or(Path::new("."));
    // A side file's name replaces the placeholder (the matrix is never
    // inlined on the way).
    let mut file = to_file(inst, (side != SideFile::Inline).then_some("side"));
    match side {
        SideFile::Inline => {}
        SideFile::Csv => {
            let name = format!("{stem}.delay.csv");
            write_delay_csv(&dir.join(&name), inst)?;
            file.delay = json!({ "csv": name });
        }
        SideFile::Npy => {
            let name = format!("{stem}.delay.npy");
            let values = (0..inst.clients()).flat_map(|i| inst.row(i).iter().copied());
            let shape = (inst.clients(), inst.mirrors());
            crate::net::npy::write_npy(&dir.join(&name), shape, values)?;
            file.delay = json!({ "npy": name });
        }
    }
    let text = serde_json::to_string_pretty(&file)
        .map_err(|e| Error::Usage(format!("cannot serialise the instance: {e}")))?;
    std::fs::write(path, text + "\n").map_err(|e| Error::io(path, e))
}

fn write_delay_csv(path: &Path, inst: &CmaInstance) -> Result<()> {
    if inst.clients() * inst.mirrors() <= 1_000_000 {
        let rows: Vec<Vec<Option<f64>>> = (0..inst.clients())
            .map(|i| inst.row(i).iter().map(|&d| Some(d)).collect())
            .collect();
        return write_csv(path, &rows);
    }
    use std::io::Write;
    let f = std::fs::File::create(path).map_err(|e| Error::io(path, e))?;
    let mut w = std::io::BufWriter::new(f);
    for i in 0..inst.clients() {
        let line: Vec<String> = inst.row(i).iter().map(|d| format!("{d}")).collect();
        writeln!(w, "{}", line.join(",")).map_err(|e| Error::io(path, e))?;
    }
    w.flush().map_err(|e| Error::io(path, e))
}
