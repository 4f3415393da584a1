//! The ranges family's commands: `gen ranges` (Colyseus' maps and workload),
//! `repro ranges` (seed 003 Table 2 and Fig. 9) and `simulate-ranges` (the
//! workload over time). Everything they do is a library call.

use crate::app::cli::{CliHook, HookPlace};
use crate::app::ranges::repro::{run_repro, ReproConfig};
use crate::app::ranges::repro_report::write_report;
use crate::app::ranges::sim_report::{summary_table, write_outputs};
use crate::error::{Error, Result};
use crate::problems::ranges::file::write_ranges;
use crate::problems::ranges::gen::{generate_ranges, GenRangesConfig, MapShape};
use crate::problems::ranges::model::Curve;
use crate::problems::ranges::simulate::{simulate_ranges, SimConfig};
use crate::problems::ranges::workload::WorkloadConfig;
use clap::{Args, FromArgMatches};
use std::path::PathBuf;

/// The map and its players, shared by `gen ranges` and `simulate-ranges`.
#[derive(Args, Debug, Clone)]
pub struct MapArgs {
    /// Map shape: rect (20 units high) or sqr.
    #[arg(long, default_value = "rect")]
    pub map: String,
    /// Players (the map area grows with them; one object each by default).
    #[arg(long, default_value_t = 96)]
    pub players: usize,
    /// Nodes (default: one per player).
    #[arg(long, default_value_t = 0)]
    pub nodes: usize,
    /// Linear order: hilbert, z, row or x (by x key).
    #[arg(long, default_value = "hilbert")]
    pub curve: String,
    /// Cells per map unit along each axis.
    #[arg(long, default_value_t = 1)]
    pub resolution: usize,
    /// Waypoints (default: one per 4 players, at least 2).
    #[arg(long, default_value_t = 0)]
    pub waypoints: usize,
    /// Zipf exponent of waypoint popularity.
    #[arg(long, default_value_t = 1.0)]
    pub zipf: f64,
    /// Half-width of the area of interest (map units).
    #[arg(long, default_value_t = 3.0)]
    pub aoi: f64,
    /// Seed.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

/// `gen ranges`: a Colyseus-style map and workload as a ranges instance.
#[derive(Args, Debug, Clone)]
pub struct GenRangesArgs {
    /// The map and its players.
    #[command(flatten)]
    pub map: MapArgs,
    /// Publishing and subscribing objects (default: one per player).
    #[arg(long, default_value_t = 0)]
    pub objects: usize,
    /// Output file.
    #[arg(long, short)]
    pub out: PathBuf,
}

/// Runs `gen ranges`.
pub fn run_gen_ranges(args: &GenRangesArgs) -> Result<()> {
    let m = &args.map;
    let inst = generate_ranges(&GenRangesConfig {
        shape: parse_shape(&m.map)?,
        players: m.players,
        nodes: m.nodes,
        objects: args.objects,
        curve: parse_curve(&m.curve)?,
        resolution: m.resolution,
        waypoints: m.waypoints,
        zipf: m.zipf,
        aoi: m.aoi,
        seed: m.seed,
    })?;
    write_ranges(&args.out, &inst)?;
    eprintln!(
        "wrote {} ({} cells, {} nodes, {} subscriptions)",
        args.out.display(),
        inst.cells(),
        inst.nodes,
        inst.subscriptions.len()
    );
    Ok(())
}

fn gen_hook(m: &clap::ArgMatches) -> Result<i32> {
    let args = GenRangesArgs::from_arg_matches(m).map_err(|e| Error::Usage(e.to_string()))?;
    run_gen_ranges(&args)?;
    Ok(0)
}

/// The family's commands.
pub fn hooks() -> Vec<CliHook> {
    vec![
        CliHook {
            place: HookPlace::Gen,
            command: GenRangesArgs::augment_args(clap::Command::new("ranges")).about(
                "Generate a ranges instance: Colyseus' maps, Zipf waypoints, areas of interest",
            ),
            run: gen_hook,
        },
        CliHook {
            place: HookPlace::Repro,
            command: ReproRangesArgs::augment_args(clap::Command::new("ranges"))
                .about("Seed 003 Table 2 (DHT vs range DHT + leave-join) and Fig. 9 (fan-out scaling), with the exact optimum"),
            run: repro_hook,
        },
        CliHook {
            place: HookPlace::TopLevel,
            command: SimRangesArgs::augment_args(clap::Command::new("simulate-ranges"))
                .about("Replay a moving ranges workload and rebalance it every step with each policy"),
            run: sim_hook,
        },
    ]
}

fn parse_curve(s: &str) -> Result<Curve> {
    Curve::parse(s).ok_or_else(|| Error::Usage(format!("--curve {s}: hilbert, z, row or x")))
}

fn parse_shape(s: &str) -> Result<MapShape> {
    match s {
        "rect" => Ok(MapShape::Rect),
        "sqr" => Ok(MapShape::Sqr),
        other => Err(Error::Usage(format!("--map {other}: rect or sqr"))),
    }
}

/// `repro ranges`.
#[derive(Args, Debug, Clone)]
pub struct ReproRangesArgs {
    /// Output folder (findings.md, table2.svg, fig9_rect.svg, fig9_sqr.svg).
    #[arg(long)]
    pub out: PathBuf,
    /// Base seed.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// A small run: 1 seed, players 16, 32, 64.
    #[arg(long)]
    pub quick: bool,
    /// Linear order (default: x, Colyseus' rangedht key).
    #[arg(long, default_value = "x")]
    pub curve: String,
}

fn repro_hook(m: &clap::ArgMatches) -> Result<i32> {
    let a = ReproRangesArgs::from_arg_matches(m).map_err(|e| Error::Usage(e.to_string()))?;
    let mut cfg = if a.quick {
        ReproConfig::quick(a.seed)
    } else {
        ReproConfig::full(a.seed)
    };
    cfg.curve = parse_curve(&a.curve)?;
    let r = run_repro(&cfg)?;
    let found = write_report(&a.out, &r)?;
    for f in &found {
        let holds = f.holds.map_or("–", |h| if h { "yes" } else { "no" });
        println!("[{holds:>3}] {}: {}", f.claim, f.measured);
    }
    eprintln!("wrote {}", a.out.join("findings.md").display());
    Ok(0)
}

/// `simulate-ranges`.
#[derive(Args, Debug, Clone)]
pub struct SimRangesArgs {
    /// The map and its players (one moving object each).
    #[command(flatten)]
    pub map: MapArgs,
    /// Steps to replay.
    #[arg(long, default_value_t = 50)]
    pub steps: usize,
    /// Map units a player walks per step.
    #[arg(long, default_value_t = 1.0)]
    pub speed: f64,
    /// Steps between rotations of the waypoint popularity (0 = never).
    #[arg(long, default_value_t = 10)]
    pub shift_every: usize,
    /// Cells exact-budget may migrate per step (0 = K/50).
    #[arg(long, default_value_t = 0)]
    pub budget: u64,
    /// leave-join's heaviness threshold.
    #[arg(long, default_value_t = std::f64::consts::SQRT_2)]
    pub leave_join_delta: f64,
    /// Output folder (steps.csv, max_over_mean.svg, migrated.svg).
    #[arg(long)]
    pub out: PathBuf,
}

fn sim_hook(m: &clap::ArgMatches) -> Result<i32> {
    let a = SimRangesArgs::from_arg_matches(m).map_err(|e| Error::Usage(e.to_string()))?;
    let cfg = SimConfig {
        workload: WorkloadConfig {
            shape: parse_shape(&a.map.map)?,
            players: a.map.players,
            nodes: a.map.nodes,
            curve: parse_curve(&a.map.curve)?,
            resolution: a.map.resolution,
            waypoints: a.map.waypoints,
            zipf: a.map.zipf,
            aoi: a.map.aoi,
            speed: a.speed,
            shift_every: a.shift_every,
            seed: a.map.seed,
        },
        steps: a.steps,
        budget: a.budget,
        delta: a.leave_join_delta,
    };
    let rows = simulate_ranges(&cfg)?;
    let title = format!(
        "{} {} players, {} steps, seed {}",
        a.map.map, a.map.players, a.steps, a.map.seed
    );
    write_outputs(&a.out, &rows, &title)?;
    print!("{}", summary_table(&rows));
    eprintln!("wrote {}", a.out.join("steps.csv").display());
    Ok(0)
}
