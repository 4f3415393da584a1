//! The ranges family's commands: `gen ranges` (Colyseus' maps and workload).
//! Everything it does is a library call.

use crate::core::{CliHook, HookPlace};
use crate::error::{Error, Result};
use crate::problems::ranges::file::write_ranges;
use crate::problems::ranges::gen::{generate_ranges, GenRangesConfig, MapShape};
use crate::problems::ranges::model::Curve;
use clap::{Args, FromArgMatches};
use std::path::PathBuf;

/// `gen ranges`: a Colyseus-style map and workload as a ranges instance.
#[derive(Args, Debug, Clone)]
pub struct GenRangesArgs {
    /// Map shape: rect (20 units high) or sqr.
    #[arg(long, default_value = "rect")]
    pub map: String,
    /// Players (the map area grows with them).
    #[arg(long, default_value_t = 96)]
    pub players: usize,
    /// Nodes (default: one per player).
    #[arg(long, default_value_t = 0)]
    pub nodes: usize,
    /// Publishing and subscribing objects (default: one per player).
    #[arg(long, default_value_t = 0)]
    pub objects: usize,
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
    /// Output file.
    #[arg(long, short)]
    pub out: PathBuf,
}

/// Runs `gen ranges`.
pub fn run_gen_ranges(args: &GenRangesArgs) -> Result<()> {
    let shape = match args.map.as_str() {
        "rect" => MapShape::Rect,
        "sqr" => MapShape::Sqr,
        other => return Err(Error::Usage(format!("--map {other}: rect or sqr"))),
    };
    let curve = Curve::parse(&args.curve)
        .ok_or_else(|| Error::Usage(format!("--curve {}: hilbert, z, row or x", args.curve)))?;
    let inst = generate_ranges(&GenRangesConfig {
        shape,
        players: args.players,
        nodes: args.nodes,
        objects: args.objects,
        curve,
        resolution: args.resolution,
        waypoints: args.waypoints,
        zipf: args.zipf,
        aoi: args.aoi,
        seed: args.seed,
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
    vec![CliHook {
        place: HookPlace::Gen,
        command: GenRangesArgs::augment_args(clap::Command::new("ranges"))
            .about("Generate a ranges instance: Colyseus' maps, Zipf waypoints, areas of interest"),
        run: gen_hook,
    }]
}
