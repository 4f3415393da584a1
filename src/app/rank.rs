//! `serverpick rank FILE [--preset NAME] [--play-now] [--json]`: the servers
//! ordered by score with every factor of every score, or the play-now pick.
//!
//! Exit codes: 0; 1 with `--play-now` when no server is joinable; 2 on bad
//! input or usage.

use crate::app::cli::usage;
use crate::app::cli::{CliHook, HookPlace};
use crate::core::table::Table;
use crate::error::{Error, Result};
use crate::problems::rank::model::RankInstance;
use crate::problems::rank::ranking::{play_now, rank, Ranked};
use crate::problems::rank::score::{Combine, Preset};
use crate::problems::read_instance;
use clap::{Args, FromArgMatches};
use serde_json::{json, Map, Value};
use std::path::PathBuf;

/// Arguments of `serverpick rank`.
#[derive(clap::Args, Debug, Clone)]
pub struct RankArgs {
    /// A rank input file (`"problem": "rank"`).
    pub file: PathBuf,
    /// Preset (seed000, ns2-v1, ns2-v2, tf2-quickplay); default: the file's
    /// `preset`, else seed000.
    #[arg(long)]
    pub preset: Option<String>,
    /// Keep only joinable servers and print the best one.
    #[arg(long)]
    pub play_now: bool,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
}

/// Reads `path` as a rank input.
pub fn load(path: &std::path::Path) -> Result<RankInstance> {
    let loaded = read_instance(path)?;
    match loaded
        .as_any()
        .downcast_ref::<crate::problems::rank::Instance>()
    {
        Some(crate::problems::rank::Instance(inst)) => Ok(inst.clone()),
        None => Err(Error::Usage(format!(
            "{}: rank needs a rank input (\"problem\": \"rank\")",
            path.display()
        ))),
    }
}

/// Runs `serverpick rank`; returns the exit code.
pub fn run_rank_cmd(args: &RankArgs) -> Result<i32> {
    let inst = load(&args.file)?;
    let preset = match &args.preset {
        None => inst.preset,
        Some(p) => Preset::parse(p).ok_or_else(|| {
            Error::Usage(format!(
                "--preset {p}: unknown (known: {})",
                Preset::names()
            ))
        })?,
    };
    let rows = if args.play_now {
        play_now(&inst, preset).into_iter().collect()
    } else {
        rank(&inst, preset)
    };
    if args.json {
        let out = json!({
            "instance": inst.name,
            "preset": preset.name(),
            "combine": preset.combine(),
            "play_now": args.play_now,
            "servers": rows.iter().enumerate().map(|(k, r)| row_json(&inst, k, r)).collect::<Vec<_>>(),
        });
        println!("{}", serde_json::to_string_pretty(&out).unwrap_or_default());
    } else {
        print!("{}", render(&inst, preset, &rows, args.play_now));
    }
    if args.play_now && rows.is_empty() {
        eprintln!("{}: no joinable server", args.file.display());
        return Ok(1);
    }
    Ok(0)
}

/// One ranked server as JSON (rank is 1-based).
pub fn row_json(inst: &RankInstance, k: usize, r: &Ranked) -> Value {
    let s = &inst.servers[r.index];
    let named = |fs: &[crate::problems::rank::score::Factor]| {
        fs.iter()
            .map(|f| (f.name.to_string(), json!(f.value)))
            .collect::<Map<String, Value>>()
    };
    let missing: Vec<&str> = r
        .breakdown
        .factors
        .iter()
        .filter(|f| f.missing)
        .map(|f| f.name)
        .collect();
    json!({
        "rank": k + 1,
        "index": r.index,
        "name": s.name,
        "players": s.players,
        "max_players": s.max_players,
        "ping": s.ping,
        "joinable": s.is_joinable(),
        "favorite": s.favorite,
        "score": r.breakdown.score,
        "factors": named(&r.breakdown.factors),
        "missing": missing,
        "details": named(&r.breakdown.details),
    })
}

/// The table `rank` prints: one row per server, one column per factor
/// (`*` marks a missing input, counted as neutral).
pub fn render(inst: &RankInstance, preset: Preset, rows: &[Ranked], play_now: bool) -> String {
    let names = preset.factor_names();
    let mut header = vec!["#", "server", "players", "ping ms", "score"];
    header.extend_from_slice(names);
    let right: Vec<bool> = header.iter().map(|h| *h != "server").collect();
    let mut t = Table::new(&header, &right);
    for (k, r) in rows.iter().enumerate() {
        let s = &inst.servers[r.index];
        let mut row = vec![
            format!("{}", k + 1),
            format!("{}{}", s.name, if s.favorite { " (fav)" } else { "" }),
            format!("{}/{}", s.players, s.max_players),
            s.ping.map_or("-".into(), |p| format!("{p:.0}")),
            format!("{:.6}", r.breakdown.score),
        ];
        for f in r.breakdown.factors.iter() {
            row.push(format!(
                "{:.4}{}",
                f.value,
                if f.missing { "*" } else { "" }
            ));
        }
        t.push(row);
    }
    let op = match preset.combine() {
        Combine::Product => " × ",
        Combine::Sum => " + ",
    };
    let what = if play_now { "play now" } else { "ranking" };
    format!(
        "{} — {what}, preset {}: score = {}\n{}",
        inst.name,
        preset.name(),
        names.join(op),
        t.render()
    )
}

/// The commands the rank family adds (`rank`).
pub fn hooks() -> Vec<CliHook> {
    vec![CliHook {
        place: HookPlace::TopLevel,
        command: RankArgs::augment_args(clap::Command::new("rank").about(
            "Rank servers for one player (\"play now\", seed 000): every server by score with \
             every factor, or --play-now for the best joinable one",
        )),
        run: |m| run_rank_cmd(&RankArgs::from_arg_matches(m).map_err(usage)?),
    }]
}
