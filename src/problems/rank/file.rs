//! Reading rank inputs (formats.md "Rank input").
//!
//! ```json
//! {"problem": "rank", "version": 1, "name": "browser-tiny", "preset": "seed000",
//!  "player": {"skill": 1500, "favorites": ["eu-2"]},
//!  "servers": [{"name": "eu-1", "players": 14, "max_players": 24, "ping": 48.0,
//!               "perf_score": 6.0, "skill": 1400, "joinable": true}]}
//! ```
//!
//! - `preset` (optional, default `seed000`): a name of
//!   [`Preset`];
//! - `player` (optional): `skill` (optional, finite), `favorites` (optional
//!   server names);
//! - `servers` (at least one): `name` (unique), `players` and `max_players`
//!   (whole numbers >= 0; `max_players <= players` is allowed: a full
//!   server), `ping` (optional, ms, finite, >= 0), `perf_score` and `skill`
//!   (optional, finite), `joinable` (optional, default true).
//!
//! Unknown fields are rejected; every error names the file, the field and
//! the server's index, e.g. `b.json: servers[3].ping: -4 is not a latency >= 0`.

use super::model::{Player, RankInstance, Server};
use super::score::Preset;
use crate::error::{Error, Result};
use serde::Deserialize;
use serde_json::Value;
use std::collections::HashMap;
use std::path::Path;

/// The file as written, before validation.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RankFile {
    problem: String,
    version: u32,
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    preset: Option<String>,
    #[serde(default)]
    player: Option<PlayerFile>,
    servers: Vec<Value>,
    #[serde(default)]
    #[allow(dead_code)]
    source: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct PlayerFile {
    #[serde(default)]
    skill: Option<f64>,
    #[serde(default)]
    favorites: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ServerFile {
    name: String,
    players: u32,
    max_players: u32,
    #[serde(default)]
    ping: Option<f64>,
    #[serde(default)]
    perf_score: Option<f64>,
    #[serde(default)]
    skill: Option<f64>,
    #[serde(default)]
    joinable: Option<bool>,
}

/// Reads and validates a rank input file.
pub fn read_rank(path: &Path) -> Result<RankInstance> {
    let src = crate::core::Source::read(path)?;
    parse_rank(&src.text, &src.file, &src.default_name)
}

/// Parses a rank input from JSON text (`file` names it in errors; `default_name`
/// is the instance name when the file gives none).
pub fn parse_rank(text: &str, file: &str, default_name: &str) -> Result<RankInstance> {
    let raw: RankFile =
        serde_json::from_str(text).map_err(|e| Error::input(file, "", e.to_string()))?;
    if raw.problem != "rank" {
        let msg = format!("'{}' is not \"rank\"", raw.problem);
        return Err(Error::input(file, "problem", msg));
    }
    if raw.version != 1 {
        let msg = format!("version {} is not supported (1 is)", raw.version);
        return Err(Error::input(file, "version", msg));
    }
    let preset = match raw.preset.as_deref() {
        None => Preset::Seed000,
        Some(p) => Preset::parse(p).ok_or_else(|| {
            let msg = format!("unknown preset '{p}' (known: {})", Preset::names());
            Error::input(file, "preset", msg)
        })?,
    };
    let player = read_player(raw.player, file)?;
    if raw.servers.is_empty() {
        return Err(Error::input(
            file,
            "servers",
            "at least one server is needed",
        ));
    }
    let mut seen: HashMap<String, usize> = HashMap::new();
    let mut servers = Vec::with_capacity(raw.servers.len());
    for (i, v) in raw.servers.into_iter().enumerate() {
        let s = read_server(v, file, i)?;
        if let Some(j) = seen.insert(s.name.clone(), i) {
            let msg = format!("'{}' is also the name of servers[{j}]", s.name);
            return Err(Error::input(file, format!("servers[{i}].name"), msg));
        }
        servers.push(s);
    }
    let name = raw.name.unwrap_or_else(|| default_name.to_string());
    Ok(RankInstance::new(name, preset, player, servers))
}

fn read_player(raw: Option<PlayerFile>, file: &str) -> Result<Player> {
    let Some(p) = raw else {
        return Ok(Player::default());
    };
    if let Some(s) = p.skill {
        if !s.is_finite() {
            return Err(Error::input(file, "player.skill", "not a finite number"));
        }
    }
    Ok(Player {
        skill: p.skill,
        favorites: p.favorites,
    })
}

fn read_server(v: Value, file: &str, i: usize) -> Result<Server> {
    let field = |f: &str| format!("servers[{i}]{f}");
    let raw: ServerFile =
        serde_json::from_value(v).map_err(|e| Error::input(file, field(""), e.to_string()))?;
    if let Some(p) = raw.ping {
        if !(p.is_finite() && p >= 0.0) {
            let msg = format!("{p} is not a latency >= 0");
            return Err(Error::input(file, field(".ping"), msg));
        }
    }
    for (name, x) in [(".perf_score", raw.perf_score), (".skill", raw.skill)] {
        if x.is_some_and(|x| !x.is_finite()) {
            return Err(Error::input(file, field(name), "not a finite number"));
        }
    }
    Ok(Server {
        name: raw.name,
        players: raw.players,
        max_players: raw.max_players,
        ping: raw.ping,
        perf_score: raw.perf_score,
        skill: raw.skill,
        joinable: raw.joinable,
        favorite: false,
    })
}

/// The input as a rank file's JSON (what [`parse_rank`] reads back).
pub fn to_file_value(inst: &RankInstance) -> Value {
    let servers: Vec<Value> = inst
        .servers
        .iter()
        .map(|s| {
            let mut o = serde_json::Map::new();
            o.insert("name".into(), s.name.clone().into());
            o.insert("players".into(), s.players.into());
            o.insert("max_players".into(), s.max_players.into());
            let optional = [
                ("ping", s.ping),
                ("perf_score", s.perf_score),
                ("skill", s.skill),
            ];
            for (k, v) in optional {
                if let Some(x) = v {
                    o.insert(k.into(), x.into());
                }
            }
            if let Some(j) = s.joinable {
                o.insert("joinable".into(), j.into());
            }
            Value::Object(o)
        })
        .collect();
    let mut player = serde_json::Map::new();
    if let Some(skill) = inst.player.skill {
        player.insert("skill".into(), skill.into());
    }
    player.insert("favorites".into(), inst.player.favorites.clone().into());
    serde_json::json!({
        "problem": "rank",
        "version": 1,
        "name": inst.name,
        "preset": inst.preset.name(),
        "player": player,
        "servers": servers,
    })
}
