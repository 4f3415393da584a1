//! The AG family's commands: `gen ag` (seed 004 §5's scenarios A and B) and
//! `repro ag` (seed 004 §5's Figs. 9–12, Tables 4–5 and the simulation).

use crate::app::ag::repro::{repro_ag, AgReproConfig};
use crate::app::cli::{CliHook, HookPlace};
use crate::error::{Error, Result};
use crate::problems::ag::file::write_ag;
use crate::problems::ag::gen::{generate_ag, GenAgConfig};
use clap::{Args, FromArgMatches};
use std::path::PathBuf;

/// `gen ag`: an AG instance of scenario A or B.
#[derive(Args, Debug, Clone)]
pub struct GenAgArgs {
    /// Scenario: a (hot-spots at full capacity) or b (20% over capacity).
    #[arg(long, default_value = "a")]
    pub scenario: String,
    /// Servers (map regions).
    #[arg(long, default_value_t = 10)]
    pub servers: usize,
    /// Region rows (0 = the most square grid).
    #[arg(long, default_value_t = 0)]
    pub rows: usize,
    /// Capacity per server, players.
    #[arg(long, default_value_t = 5500)]
    pub max_load: u64,
    /// Players as a multiple of the cluster capacity (default: A 1.0, B 1.2).
    #[arg(long)]
    pub load: Option<f64>,
    /// Region weights are 1 ± spread (default: A 0.5, B 0.2).
    #[arg(long)]
    pub spread: Option<f64>,
    /// Share of players in the main game.
    #[arg(long, default_value_t = 0.1)]
    pub main_share: f64,
    /// AG sizes and their percentages of the AGs, SIZE:PERCENT,…
    #[arg(long, default_value = "5:30,10:30,20:20,25:10,40:10")]
    pub mix: String,
    /// Past sessions per player (at most 50).
    #[arg(long, default_value_t = 10)]
    pub history: usize,
    /// Seed.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Output file.
    #[arg(long, short)]
    pub out: PathBuf,
}

fn parse_mix(s: &str) -> Result<Vec<(usize, f64)>> {
    s.split(',')
        .map(|part| {
            let (z, w) = part.split_once(':').unwrap_or((part, ""));
            match (z.trim().parse::<usize>(), w.trim().parse::<f64>()) {
                (Ok(z), Ok(w)) => Ok((z, w)),
                _ => Err(Error::Usage(format!(
                    "--mix {s}: '{part}' is not SIZE:PERCENT"
                ))),
            }
        })
        .collect()
}

/// Runs `gen ag`.
pub fn run_gen_ag(args: &GenAgArgs) -> Result<()> {
    let scenario = match args.scenario.as_str() {
        "a" | "A" => 'a',
        "b" | "B" => 'b',
        other => return Err(Error::Usage(format!("--scenario {other}: a or b"))),
    };
    let inst = generate_ag(&GenAgConfig {
        scenario,
        servers: args.servers,
        rows: args.rows,
        max_load: args.max_load,
        load: args.load,
        spread: args.spread,
        main_share: args.main_share,
        mix: parse_mix(&args.mix)?,
        history: args.history,
        seed: args.seed,
    })?;
    write_ag(&args.out, &inst)?;
    eprintln!(
        "wrote {} ({} servers, {} players, {} AGs)",
        args.out.display(),
        inst.servers(),
        inst.players(),
        inst.ags()
    );
    Ok(())
}

fn gen_hook(m: &clap::ArgMatches) -> Result<i32> {
    let args = GenAgArgs::from_arg_matches(m).map_err(|e| Error::Usage(e.to_string()))?;
    run_gen_ag(&args)?;
    Ok(0)
}

/// `repro ag`: seed 004 §5.
#[derive(Args, Debug, Clone)]
pub struct ReproAgArgs {
    /// Output folder (CSV tables, figures/, findings.md).
    #[arg(long, default_value = "repro-ag")]
    pub out: PathBuf,
    /// Seed of every instance and of the simulation.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// The small study (capacity 550, 20 simulated minutes).
    #[arg(long)]
    pub quick: bool,
    /// AG sizes and their percentages of the AGs, SIZE:PERCENT,…
    #[arg(long, default_value = "5:30,10:30,20:20,25:10,40:10")]
    pub mix: String,
    /// Time limit of each `exact` run, seconds.
    #[arg(long, default_value_t = 30.0)]
    pub exact_limit: f64,
}

/// Runs `repro ag`.
pub fn run_repro_ag(args: &ReproAgArgs) -> Result<()> {
    let mut cfg = AgReproConfig::new(args.seed, args.quick);
    cfg.mix = parse_mix(&args.mix)?;
    if !(args.exact_limit.is_finite() && args.exact_limit > 0.0) {
        return Err(Error::Usage(format!(
            "--exact-limit {} is not a positive time",
            args.exact_limit
        )));
    }
    cfg.exact_limit = args.exact_limit;
    let o = repro_ag(&cfg, &args.out)?;
    eprintln!(
        "repro ag: {} tables, {} figures, {} → {}",
        o.tables.len(),
        o.figures.len(),
        o.findings.display(),
        args.out.display()
    );
    Ok(())
}

fn repro_hook(m: &clap::ArgMatches) -> Result<i32> {
    let args = ReproAgArgs::from_arg_matches(m).map_err(|e| Error::Usage(e.to_string()))?;
    run_repro_ag(&args)?;
    Ok(0)
}

/// The family's commands.
pub fn hooks() -> Vec<CliHook> {
    vec![
        CliHook {
            place: HookPlace::Gen,
            command: GenAgArgs::augment_args(clap::Command::new("ag")).about(
                "Generate an AG instance: seed 004's scenario A (hot-spots) or B (over capacity)",
            ),
            run: gen_hook,
        },
        CliHook {
            place: HookPlace::Repro,
            command: ReproAgArgs::augment_args(clap::Command::new("ag")).about(
                "Seed 004 §5: Figs. 9-12 and Tables 4-5 on scenario A/B snapshots (classic, \
                 hybrid, exact) and a time-stepped simulation; CSV, SVG, findings.md",
            ),
            run: repro_hook,
        },
    ]
}
