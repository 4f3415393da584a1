//! Reading and writing AG instance files (formats.md "AG instance") and AG
//! solutions. Unknown fields are rejected; every error names the file, the
//! field and the index (`players.ag[3]`, `uptime[7][2]`).
//!
//! Checks: `servers` a count or names; `max_load` one whole number >= 1 or
//! one per server; `margin` in `[0, 1)`; `map.rows · map.cols = servers`,
//! positive finite sides; the `players` arrays all of one length >= 1, every
//! number finite; AG indices `0..A` each with a member; `server` indices in
//! range and shared by all members of an AG (default: the region of `x, y`);
//! `uptime` one history per player, at most 50 finite values >= 0.
//! A `players` column may be `{"csv": "relative/path.csv"}` (formats.md
//! "Large matrices": headerless, one row per player, empty cell = `null`,
//! path policy and size limits of [`crate::net::matrix`]): one value per row
//! for `x`, `y`, `ag`, `server`, two for `net` (a blank line is no CSV row:
//! write a main-game player's `ag` as `""`). CSV values must be `>= 0`
//! (the shared CSV reader's rule); shift `net` coordinates if needed —
//! latencies are distances, so a shift changes nothing.

use crate::error::{Error, Result};
use crate::io::fields::read_count_or_names;
use crate::io::json_strict::{from_value, parse_value};
use crate::net::matrix::{read_matrix_shaped, MatrixSource};
use crate::problems::ag::model::{AgInstance, AgSolution, GameMap, Overhead};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::path::Path;

/// Largest uptime history per player (seed 004 §3.2).
pub const MAX_HISTORY: usize = 50;
/// Largest absolute coordinate accepted (map and network), keeps sums exact.
pub const MAX_COORD: f64 = 1e9;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct AgFile {
    problem: String,
    version: u32,
    #[serde(default)]
    name: Option<String>,
    servers: Value,
    max_load: Value,
    #[serde(default)]
    margin: Option<f64>,
    map: GameMap,
    players: Players,
    #[serde(default)]
    uptime: Option<Vec<Vec<f64>>>,
    #[serde(default)]
    cluster_net: Option<[f64; 2]>,
    #[serde(default)]
    overhead: Option<Overhead>,
    #[serde(default)]
    source: Option<String>,
}

#[derive(Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
struct Players {
    x: Vec<f64>,
    y: Vec<f64>,
    net: Vec<[f64; 2]>,
    ag: Vec<Option<usize>>,
    #[serde(default)]
    server: Option<Vec<usize>>,
}

/// Reads and validates an AG instance file.
pub fn read_ag(path: &Path) -> Result<AgInstance> {
    parse_ag_source(&crate::core::Source::read(path)?)
}

/// Parses an AG instance from JSON text (`file` names it in errors; CSV
/// columns are relative to the current folder).
pub fn parse_ag(text: &str, file: &str, default_name: &str) -> Result<AgInstance> {
    parse_ag_in(text, file, default_name, Path::new(""))
}

/// Replaces every `{"csv": …}` player column by the array it holds.
fn inline_csv_columns(value: &mut Value, file: &str, base_dir: &Path) -> Result<()> {
    let Some(players) = value.get_mut("players").and_then(Value::as_object_mut) else {
        return Ok(());
    };
    let src = MatrixSource { file, base_dir };
    for (key, col) in players.iter_mut() {
        if !col.is_object() {
            continue;
        }
        let width = if key == "net" { 2 } else { 1 };
        let field = format!("players.{key}");
        let rows = read_matrix_shaped(col, &field, &src, None, width)?;
        let mut out = Vec::with_capacity(rows.len());
        for (i, row) in rows.iter().enumerate() {
            if row.len() != width {
                let msg = format!("row has {} values, expected {width}", row.len());
                return Err(Error::input(file, format!("{field}[{i}]"), msg));
            }
            let cell = |v: Option<f64>| match v {
                Some(x) if x.fract() == 0.0 && x < 9e15 => json!(x as u64),
                Some(x) => json!(x),
                None => Value::Null,
            };
            out.push(if width == 1 {
                cell(row[0])
            } else {
                json!([cell(row[0]), cell(row[1])])
            });
        }
        *col = Value::Array(out);
    }
    Ok(())
}

/// [`parse_ag`] with CSV columns relative to `base_dir`.
pub fn parse_ag_in(
    text: &str,
    file: &str,
    default_name: &str,
    base_dir: &Path,
) -> Result<AgInstance> {
    let mut value = parse_value(text, file)?;
    inline_csv_columns(&mut value, file, base_dir)?;
    let raw: AgFile = from_value(value, file, "")?;
    check_header(&raw, file)?;
    let (n, server_names) = read_count_or_names(&raw.servers, file, "servers", "server")?;
    // The map's regions are the servers: checked before anything of size n.
    check_map(&raw.map, n, file)?;
    let max_load = read_max_load(&raw.max_load, n, file)?;
    let margin = raw.margin.unwrap_or(0.1);
    if !(0.0..1.0).contains(&margin) {
        let msg = format!("{margin} is not in [0, 1)");
        return Err(Error::input(file, "margin", msg));
    }
    let p = &raw.players;
    let np = p.x.len();
    check_players(p, file)?;
    let members = ag_members(&p.ag, file)?;
    let server = match &p.server {
        Some(s) => s.clone(),
        None => (0..np).map(|i| raw.map.region(p.x[i], p.y[i])).collect(),
    };
    check_servers(&server, &members, n, file)?;
    let uptime = raw.uptime.unwrap_or_else(|| vec![Vec::new(); np]);
    check_uptime(&uptime, np, file)?;
    let cluster_net = raw.cluster_net.unwrap_or([0.0, 0.0]);
    check_finite(&cluster_net, file, |i| format!("cluster_net[{i}]"))?;
    let overhead = raw.overhead.unwrap_or_default();
    check_overhead(&overhead, file)?;
    Ok(AgInstance {
        name: raw.name.unwrap_or_else(|| default_name.into()),
        server_names,
        max_load,
        margin,
        map: raw.map,
        x: p.x.clone(),
        y: p.y.clone(),
        net: p.net.clone(),
        ag: p.ag.clone(),
        server,
        uptime,
        cluster_net,
        overhead,
        members,
        source: raw.source,
    })
}

/// `problem` and `version`.
fn check_header(raw: &AgFile, file: &str) -> Result<()> {
    if raw.problem != "ag" {
        let msg = format!("'{}' is not \"ag\"", raw.problem);
        return Err(Error::input(file, "problem", msg));
    }
    if raw.version != 1 {
        let msg = format!("version {} is not supported (1 is)", raw.version);
        return Err(Error::input(file, "version", msg));
    }
    Ok(())
}

fn check_overhead(o: &Overhead, file: &str) -> Result<()> {
    let fields = [
        ("interaction", o.interaction),
        ("rate", o.rate),
        ("return_rate", o.return_rate),
    ];
    for (f, v) in fields {
        if !(v.is_finite() && v >= 0.0) {
            return Err(Error::input(
                file,
                format!("overhead.{f}"),
                format!("{v} is not >= 0"),
            ));
        }
    }
    Ok(())
}

fn read_max_load(v: &Value, n: usize, file: &str) -> Result<Vec<u64>> {
    let one = |v: &Value, field: String| match v.as_u64() {
        Some(x) if x >= 1 => Ok(x),
        _ => Err(Error::input(
            file,
            field,
            format!("{v} is not a whole number >= 1"),
        )),
    };
    match v {
        Value::Array(a) if a.len() == n => a
            .iter()
            .enumerate()
            .map(|(i, x)| one(x, format!("max_load[{i}]")))
            .collect(),
        Value::Array(a) => {
            let msg = format!("has {} values, expected {n} (one per server)", a.len());
            Err(Error::input(file, "max_load", msg))
        }
        _ => Ok(vec![one(v, "max_load".into())?; n]),
    }
}

fn check_map(m: &GameMap, n: usize, file: &str) -> Result<()> {
    if !(m.width.is_finite() && m.width > 0.0 && m.height.is_finite() && m.height > 0.0) {
        return Err(Error::input(
            file,
            "map",
            "width and height must be finite and > 0",
        ));
    }
    if m.rows == 0 || m.cols == 0 || m.rows.checked_mul(m.cols) != Some(n) {
        let msg = format!("{} × {} regions are not the {n} servers", m.rows, m.cols);
        return Err(Error::input(file, "map", msg));
    }
    Ok(())
}

fn check_finite(v: &[f64], file: &str, field: impl Fn(usize) -> String) -> Result<()> {
    match v
        .iter()
        .position(|x| !(x.is_finite() && x.abs() <= MAX_COORD))
    {
        Some(i) => Err(Error::input(
            file,
            field(i),
            format!("{} is not a finite coordinate within ±{MAX_COORD}", v[i]),
        )),
        None => Ok(()),
    }
}

fn check_players(p: &Players, file: &str) -> Result<()> {
    let np = p.x.len();
    if np == 0 {
        return Err(Error::input(
            file,
            "players.x",
            "at least one player is needed",
        ));
    }
    let lens = [
        ("y", p.y.len()),
        ("net", p.net.len()),
        ("ag", p.ag.len()),
        ("server", p.server.as_ref().map_or(np, Vec::len)),
    ];
    for (f, len) in lens {
        if len != np {
            let msg = format!("has {len} entries, expected {np} (one per player, as x)");
            return Err(Error::input(file, format!("players.{f}"), msg));
        }
    }
    check_finite(&p.x, file, |i| format!("players.x[{i}]"))?;
    check_finite(&p.y, file, |i| format!("players.y[{i}]"))?;
    for (i, c) in p.net.iter().enumerate() {
        check_finite(c, file, |j| format!("players.net[{i}][{j}]"))?;
    }
    Ok(())
}

fn ag_members(ag: &[Option<usize>], file: &str) -> Result<Vec<Vec<usize>>> {
    let count = ag
        .iter()
        .flatten()
        .max()
        .map_or(0, |&m| m.saturating_add(1));
    if count > ag.len() {
        let i = ag.iter().position(|a| *a == Some(count - 1)).unwrap_or(0);
        let msg = format!(
            "AG {} but only {} players: AGs are numbered 0, 1, …",
            count - 1,
            ag.len()
        );
        return Err(Error::input(file, format!("players.ag[{i}]"), msg));
    }
    let mut members = vec![Vec::new(); count];
    for (p, a) in ag.iter().enumerate() {
        if let Some(a) = a {
            members[*a].push(p);
        }
    }
    if let Some(a) = members.iter().position(Vec::is_empty) {
        let msg = format!("AG {a} has no member (AGs are numbered 0..{count} without gaps)");
        return Err(Error::input(file, "players.ag", msg));
    }
    Ok(members)
}

fn check_servers(server: &[usize], members: &[Vec<usize>], n: usize, file: &str) -> Result<()> {
    if let Some(i) = server.iter().position(|&s| s >= n) {
        let msg = format!("{} is not a server (0..{n})", server[i]);
        return Err(Error::input(file, format!("players.server[{i}]"), msg));
    }
    for (a, m) in members.iter().enumerate() {
        let s0 = server[m[0]];
        if let Some(&p) = m.iter().find(|&&p| server[p] != s0) {
            let msg = format!(
                "player {p} of AG {a} is on server {}, its AG on server {s0} (player {})",
                server[p], m[0]
            );
            return Err(Error::input(file, format!("players.server[{p}]"), msg));
        }
    }
    Ok(())
}

fn check_uptime(uptime: &[Vec<f64>], np: usize, file: &str) -> Result<()> {
    if uptime.len() != np {
        let msg = format!(
            "has {} histories, expected {np} (one per player)",
            uptime.len()
        );
        return Err(Error::input(file, "uptime", msg));
    }
    for (i, h) in uptime.iter().enumerate() {
        if h.len() > MAX_HISTORY {
            let msg = format!("has {} sessions, at most {MAX_HISTORY} are kept", h.len());
            return Err(Error::input(file, format!("uptime[{i}]"), msg));
        }
        if let Some(j) = h.iter().position(|v| !(v.is_finite() && *v >= 0.0)) {
            let msg = format!("{} is not a session length >= 0 (hours)", h[j]);
            return Err(Error::input(file, format!("uptime[{i}][{j}]"), msg));
        }
    }
    Ok(())
}

/// The instance as a file value.
pub fn to_file_value(inst: &AgInstance) -> Value {
    let servers = match &inst.server_names {
        Some(names) => json!(names),
        None => json!(inst.servers()),
    };
    let uniform = inst.max_load.windows(2).all(|w| w[0] == w[1]);
    let max_load = if uniform {
        json!(inst.max_load[0])
    } else {
        json!(inst.max_load)
    };
    let mut v = json!({
        "problem": "ag",
        "version": 1,
        "name": inst.name,
        "servers": servers,
        "max_load": max_load,
        "margin": inst.margin,
        "map": inst.map,
        "players": Players {
            x: inst.x.clone(),
            y: inst.y.clone(),
            net: inst.net.clone(),
            ag: inst.ag.clone(),
            server: Some(inst.server.clone()),
        },
        "uptime": inst.uptime,
        "cluster_net": inst.cluster_net,
        "overhead": inst.overhead,
    });
    if let Some(s) = &inst.source {
        v["source"] = json!(s);
    }
    v
}

/// Writes an instance file (one JSON document).
pub fn write_ag(path: &Path, inst: &AgInstance) -> Result<()> {
    let text = serde_json::to_string(&to_file_value(inst))
        .map_err(|e| Error::Usage(format!("cannot serialise the instance: {e}")))?;
    std::fs::write(path, text + "\n").map_err(|e| Error::io(path, e))
}

/// Reads an AG solution from a `solve` output file or a bare
/// `{"assign": […], "p2p": […]}`; a type error names its field
/// (`solution.assign[4]`). Semantics are the evaluator's to check.
pub fn read_ag_solution(path: &Path) -> Result<AgSolution> {
    crate::io::solution_file::read_solution(path)
}

/// Parses and validates an instance from its [`crate::core::Source`].
pub fn parse_ag_source(src: &crate::core::Source) -> Result<AgInstance> {
    parse_ag_in(&src.text, &src.file, &src.default_name, &src.base)
}
