//! `serverpick repro ranges`: seed 003 §6.3's object-location results on
//! generated Colyseus maps ([`crate::problems::ranges::gen`]), plus the exact optimum.
//!
//! 1. **Table 2** (96-fed-rect): a 96-player rect map, one node per player,
//!    for `table_seeds` seeds; the plain DHT (`hash`) against the range DHT
//!    balanced by `leave-join`, and `exact`, `nbr-adjust`, `uniform`; max/mean
//!    load and max/mean matching load per engine (means over the seeds).
//! 2. **Fig. 9** (scaling): rect and sqr maps for each player count (one node
//!    per player), mean subscription fan-out of `hash`, `leave-join` and
//!    `exact` (mean over `fig9_seeds` seeds), and the log–log slope of fan-out
//!    against `N` per (map, engine).
//!
//! The key is Colyseus' rangedht key (`--curve x`, by x, column by column)
//! unless `--curve` says otherwise. With the x key the range engines see
//! Mercury's single-attribute hub ([`x_hub`]): a subscription is the range of
//! its x values, every y of those columns (seed 003 §4: "the object placer
//! could use the x dimension attribute directly as the key"); the DHT
//! (`hash`) sees the areas of interest cell by cell (a DHT splits a range
//! query into region lookups). Fig. 9 also shows `leave-join` on the exact
//! AoI cells (`leave-join-aoi`, beyond the paper). Every number comes from
//! THE evaluator.
//! [`super::repro_report`] writes the SVGs and `findings.md`.

use crate::core::SolveOptions;
use crate::error::{Error, Result};
use crate::problems::ranges::engines::solve;
use crate::problems::ranges::eval::{evaluate, RangesMetrics};
use crate::problems::ranges::gen::{generate_ranges, GenRangesConfig, MapShape};
use crate::problems::ranges::model::{Curve, RangesInstance};

/// Table 2's engines, in table order.
pub const TABLE2_ENGINES: [&str; 5] = ["hash", "leave-join", "exact", "nbr-adjust", "uniform"];

/// Fig. 9's engines (`leave-join-aoi`: leave-join on the AoI cells, not
/// the x hub).
pub const FIG9_ENGINES: [&str; 4] = ["hash", "leave-join", "exact", "leave-join-aoi"];

/// Mercury's x hub: with the x key (column-major cells), every subscription
/// becomes the one interval of all cells of the columns it spans. Other
/// curves: the instance unchanged. `O(#subscriptions)`.
pub fn x_hub(inst: &RangesInstance) -> RangesInstance {
    let Some(map) = inst.map.filter(|m| m.curve == Curve::X && m.height > 0) else {
        return inst.clone();
    };
    let (h, k) = (map.height, inst.cells());
    let mut out = inst.clone();
    for s in &mut out.subscriptions {
        if let (Some(first), Some(last)) = (s.ranges.first(), s.ranges.last()) {
            let (a, b) = (first[0] / h * h, ((last[1] / h + 1) * h).min(k) - 1);
            s.ranges = vec![[a, b]];
        }
    }
    out.name = format!("{}-xhub", inst.name);
    out
}

/// The instance an engine of the reproduction sees (see the module docs).
pub fn engine_view(engine: &str, inst: &RangesInstance) -> RangesInstance {
    match engine {
        "hash" | "leave-join-aoi" => inst.clone(),
        _ => x_hub(inst),
    }
}

/// The reproduction's settings.
#[derive(Debug, Clone, PartialEq)]
pub struct ReproConfig {
    /// Players (= nodes) of the Table 2 game (paper: 96).
    pub table_players: usize,
    /// Seeds averaged in Table 2.
    pub table_seeds: usize,
    /// Player counts of Fig. 9.
    pub players: Vec<usize>,
    /// Seeds averaged per Fig. 9 point.
    pub fig9_seeds: usize,
    /// Linear order of the cells.
    pub curve: Curve,
    /// Base seed (seed `i` of a series is `seed + i`).
    pub seed: u64,
}

impl ReproConfig {
    /// The full reproduction.
    pub fn full(seed: u64) -> Self {
        ReproConfig {
            table_players: 96,
            table_seeds: 5,
            players: vec![16, 32, 64, 128, 256, 512],
            fig9_seeds: 3,
            curve: Curve::X,
            seed,
        }
    }

    /// A small run (tests, CI): fewer seeds and sizes.
    pub fn quick(seed: u64) -> Self {
        ReproConfig {
            table_players: 96,
            table_seeds: 1,
            players: vec![16, 32, 64],
            fig9_seeds: 1,
            ..ReproConfig::full(seed)
        }
    }
}

/// One Table 2 row: an engine's means over the seeds.
#[derive(Debug, Clone, PartialEq)]
pub struct Table2Row {
    /// Engine.
    pub engine: &'static str,
    /// Mean max/mean load.
    pub max_over_mean: f64,
    /// Mean max/mean matching load.
    pub matching_max_over_mean: f64,
    /// Mean max load.
    pub max_load: f64,
    /// Mean fan-out.
    pub fanout_mean: f64,
    /// max/mean per seed (aligned with the seeds).
    pub per_seed: Vec<f64>,
}

/// One Fig. 9 point: mean fan-out of an engine on a map shape and size.
#[derive(Debug, Clone, PartialEq)]
pub struct Fig9Point {
    /// `rect` or `sqr`.
    pub shape: &'static str,
    /// Engine.
    pub engine: &'static str,
    /// Players (= nodes).
    pub players: usize,
    /// Mean subscription fan-out, averaged over the seeds.
    pub fanout: f64,
}

/// Everything the reproduction measured.
#[derive(Debug, Clone, PartialEq)]
pub struct ReproResult {
    /// Its settings.
    pub config: ReproConfig,
    /// Table 2.
    pub table2: Vec<Table2Row>,
    /// Fig. 9.
    pub fig9: Vec<Fig9Point>,
}

fn instance(shape: MapShape, players: usize, curve: Curve, seed: u64) -> Result<RangesInstance> {
    generate_ranges(&GenRangesConfig {
        shape,
        players,
        curve,
        seed,
        ..GenRangesConfig::default()
    })
}

/// Runs `engine` and evaluates its solution.
pub fn measure(engine: &str, inst: &RangesInstance, seed: u64) -> Result<RangesMetrics> {
    let inst = &engine_view(engine, inst);
    let engine = engine.strip_suffix("-aoi").unwrap_or(engine);
    let mut opts = SolveOptions::default();
    opts.seed = seed;
    let out = solve(engine, inst, &opts);
    let fail = || {
        let why = out.message.clone().unwrap_or_default();
        Error::Usage(format!("repro ranges: {engine} on {}: {why}", inst.name))
    };
    let sol = out.solution.as_ref().ok_or_else(fail)?;
    evaluate(inst, sol).metrics.ok_or_else(fail)
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len().max(1) as f64
}

fn table2(cfg: &ReproConfig) -> Result<Vec<Table2Row>> {
    let insts = (0..cfg.table_seeds as u64)
        .map(|i| instance(MapShape::Rect, cfg.table_players, cfg.curve, cfg.seed + i))
        .collect::<Result<Vec<_>>>()?;
    let mut rows = Vec::new();
    for engine in TABLE2_ENGINES {
        let ms = insts
            .iter()
            .enumerate()
            .map(|(i, inst)| measure(engine, inst, cfg.seed + i as u64))
            .collect::<Result<Vec<_>>>()?;
        let col = |f: fn(&RangesMetrics) -> f64| ms.iter().map(f).collect::<Vec<f64>>();
        let per_seed = col(|m| m.max_over_mean);
        rows.push(Table2Row {
            engine,
            max_over_mean: mean(&per_seed),
            matching_max_over_mean: mean(&col(|m| m.matching_max_over_mean)),
            max_load: mean(&col(|m| m.max_load)),
            fanout_mean: mean(&col(|m| m.fanout_mean)),
            per_seed,
        });
    }
    Ok(rows)
}

fn fig9(cfg: &ReproConfig) -> Result<Vec<Fig9Point>> {
    let mut points = Vec::new();
    for (shape, name) in [(MapShape::Rect, "rect"), (MapShape::Sqr, "sqr")] {
        for &players in &cfg.players {
            let insts = (0..cfg.fig9_seeds as u64)
                .map(|i| instance(shape, players, cfg.curve, cfg.seed + i))
                .collect::<Result<Vec<_>>>()?;
            for engine in FIG9_ENGINES {
                let f = insts
                    .iter()
                    .enumerate()
                    .map(|(i, inst)| {
                        measure(engine, inst, cfg.seed + i as u64).map(|m| m.fanout_mean)
                    })
                    .collect::<Result<Vec<_>>>()?;
                points.push(Fig9Point {
                    shape: name,
                    engine,
                    players,
                    fanout: mean(&f),
                });
            }
        }
    }
    Ok(points)
}

/// Runs the reproduction (no files written).
pub fn run_repro(cfg: &ReproConfig) -> Result<ReproResult> {
    if cfg.players.is_empty()
        || cfg.table_seeds == 0
        || cfg.fig9_seeds == 0
        || cfg.table_players == 0
    {
        return Err(Error::Usage(
            "repro ranges: at least one player count, one seed and one Table 2 player".into(),
        ));
    }
    Ok(ReproResult {
        config: cfg.clone(),
        table2: table2(cfg)?,
        fig9: fig9(cfg)?,
    })
}

/// The least-squares slope of `ln y` against `ln x` (`None` with fewer than
/// two distinct positive points).
pub fn log_slope(points: &[(f64, f64)]) -> Option<f64> {
    let p: Vec<(f64, f64)> = points
        .iter()
        .filter(|(x, y)| *x > 0.0 && *y > 0.0)
        .map(|(x, y)| (x.ln(), y.ln()))
        .collect();
    let n = p.len() as f64;
    let (mx, my) = (
        p.iter().map(|q| q.0).sum::<f64>() / n,
        p.iter().map(|q| q.1).sum::<f64>() / n,
    );
    let sxx: f64 = p.iter().map(|q| (q.0 - mx).powi(2)).sum();
    if p.len() < 2 || sxx <= 0.0 {
        return None;
    }
    Some(p.iter().map(|q| (q.0 - mx) * (q.1 - my)).sum::<f64>() / sxx)
}
