//! `serverpick repro playnow [--out DIR] [--seed N] [--quick] [--matrix PATH
//! | --synthetic] [--loads L,..] [--cma-scale X | --no-cma]`.

use super::pool::PingSource;
use super::{repro_playnow, PlaynowConfig};
use crate::app::cli::usage;
use crate::app::cli::{CliHook, HookPlace};
use crate::error::{Error, Result};
use crate::net::matrix::read_measured_matrix;
use clap::{Args, FromArgMatches};
use std::path::{Path, PathBuf};

/// The bundled latency sample (100 PlanetLab nodes), relative to the
/// repository root.
pub const SAMPLE_MATRIX: &str = "data/latency/planetlab490-sample/PlanetLabData_1_100";

/// Arguments of `serverpick repro playnow`.
#[derive(Args, Debug, Clone)]
pub struct ReproPlaynowArgs {
    /// Output folder (timeline.csv, summary.csv, cma.csv, figures/, findings.md).
    #[arg(long, default_value = "repro-playnow")]
    pub out: PathBuf,
    /// Seed of the pool (server nodes, arrivals, sessions, player nodes).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// The small study (tests, a quick look).
    #[arg(long)]
    pub quick: bool,
    /// A measured RTT matrix (square, ms); default: the bundled PlanetLab
    /// sample.
    #[arg(long, conflicts_with = "synthetic")]
    pub matrix: Option<PathBuf>,
    /// Pings from a synthetic plane (200 nodes) instead of a matrix.
    #[arg(long)]
    pub synthetic: bool,
    /// Loads (mean players / total slots), comma-separated.
    #[arg(long, value_delimiter = ',')]
    pub loads: Option<Vec<f64>>,
    /// Client-count factor of the seed 002 comparison (1 = the paper's).
    #[arg(long, conflicts_with = "no_cma")]
    pub cma_scale: Option<f64>,
    /// Skip the seed 002 comparison.
    #[arg(long)]
    pub no_cma: bool,
}

fn default_matrix() -> PathBuf {
    let here = PathBuf::from(SAMPLE_MATRIX);
    if here.is_file() {
        return here;
    }
    Path::new(env!("CARGO_MANIFEST_DIR")).join(SAMPLE_MATRIX)
}

fn pings(a: &ReproPlaynowArgs) -> Result<(PingSource, String)> {
    if a.synthetic {
        let label = "synthetic plane, 200 nodes, 5 ms + 300 ms × distance".to_string();
        return Ok((PingSource::Synthetic { nodes: 200 }, label));
    }
    let path = a.matrix.clone().unwrap_or_else(default_matrix);
    let m = read_measured_matrix(&path)?;
    let name = path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    let label = format!("measured RTT matrix `{name}` ({} nodes)", m.len());
    Ok((PingSource::Matrix(m), label))
}

/// Builds the study's configuration from the flags.
pub fn config(a: &ReproPlaynowArgs) -> Result<PlaynowConfig> {
    let (src, label) = pings(a)?;
    let mut cfg = if a.quick {
        PlaynowConfig::quick(a.seed, src, label)
    } else {
        PlaynowConfig::standard(a.seed, src, label)
    };
    if let Some(l) = &a.loads {
        if l.is_empty() {
            return Err(Error::Usage("--loads: at least one load".into()));
        }
        cfg.loads = l.clone();
    }
    if a.no_cma {
        cfg.cma = None;
    }
    if let (Some(s), Some(c)) = (a.cma_scale, cfg.cma.as_mut()) {
        if !(s.is_finite() && s > 0.0) {
            return Err(Error::Usage(format!(
                "--cma-scale {s} is not a positive factor"
            )));
        }
        c.scale = s;
    }
    Ok(cfg)
}

/// Runs `serverpick repro playnow`.
pub fn run(a: &ReproPlaynowArgs) -> Result<()> {
    let cfg = config(a)?;
    let o = repro_playnow(&cfg, &a.out)?;
    eprintln!(
        "repro playnow: {} loads × {} policies, {} seed-002 rows, {} figures → {}",
        o.loads.len(),
        o.loads.first().map_or(0, |l| l.runs.len()),
        o.cma.len(),
        o.figures.len(),
        a.out.display()
    );
    Ok(())
}

/// The `repro playnow` hook.
pub fn hook() -> CliHook {
    CliHook {
        place: HookPlace::Repro,
        command: ReproPlaynowArgs::augment_args(clap::Command::new("playnow").about(
            "\"Play now\" population study (seed 000): players join a pool of 16/24/64-slot \
             servers under each rank preset, ping-only, fullest-first and the CMA optimum; \
             plus j-playnow on seed 002's scenarios",
        )),
        run: |m| run(&ReproPlaynowArgs::from_arg_matches(m).map_err(usage)?).map(|_| 0),
    }
}
