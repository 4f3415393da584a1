//! Paper reproductions: generate the paper's instances, run them through the
//! benchmark runner (same outputs as `bench`), and draw the paper's figures.
//!
//! - [`repro_spd`]: seed 001 §IV. Random networks of 20/25/30 servers with
//!   30/50/80/100/120 clients, 30 per combination, Γ rescaled to 500 ms,
//!   μ = f·Γ with f = 1.0 … 1.5 (one network per (servers, clients, index),
//!   reused for every f and for both models, as the paper repeats "with
//!   different delay bounds"). Engines: Table VI (CS: `alg-m`, `spdcs-h`,
//!   `k-best`), Table VII (P2P: `alg-m`, `spdp2p-h`, `zizo`, `k-best`), plus
//!   `exact`. Figures: servers used per algorithm vs f (Figs. 7–9's server
//!   counts), servers used and delay per algorithm vs clients at the paper's
//!   f = 1.3 (Figs. 7–9), runtime per algorithm.
//! - `repro_cma`: seed 002 §4 Figs. 4–8, in [`crate::app::cma::repro`].

use crate::app::report::plot::{draw_chart, series_table, ChartSpec, Series, Style};
use crate::app::report::summary::median;
use crate::bench::row::BenchRow;
use crate::bench::runner::{run_bench, BenchConfig, BenchOutcome};
use crate::bench::{export, Dispatch};
use crate::core::Status;
use crate::error::{Error, Result};
use crate::problems::spd::file::to_file;
use crate::problems::spd::gen::{generate_paper_spd, PaperSpdParams};
use crate::problems::spd::model::CommModel;
use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::{Path, PathBuf};

/// The engines of seed 001 Tables VI and VII, plus `exact`.
pub const SPD_PAPER_ENGINES: &[&str] = &["alg-m", "spdcs-h", "spdp2p-h", "zizo", "k-best", "exact"];

/// The paper's f for its per-algorithm figures (Figs. 7–9).
pub const PAPER_FIGURE_F: f64 = 1.3;

/// The seed 001 §IV grid.
#[derive(Debug, Clone)]
pub struct SpdGrid {
    /// Server counts (paper: 20, 25, 30).
    pub servers: Vec<usize>,
    /// Client counts (paper: 30, 50, 80, 100, 120).
    pub clients: Vec<usize>,
    /// Bound factors f (paper: 1.0 … 1.5).
    pub factors: Vec<f64>,
    /// Communication models (paper: both).
    pub models: Vec<CommModel>,
    /// Networks per (servers, clients) cell (paper: 30).
    pub instances_per_cell: usize,
    /// Base seed of the generator.
    pub seed: u64,
}

impl Default for SpdGrid {
    fn default() -> Self {
        SpdGrid {
            servers: vec![20, 25, 30],
            clients: vec![30, 50, 80, 100, 120],
            factors: vec![1.0, 1.1, 1.2, 1.3, 1.4, 1.5],
            models: vec![CommModel::Cs, CommModel::P2p],
            instances_per_cell: 30,
            seed: 1,
        }
    }
}

/// Generator seed of network `index` of cell (`servers`, `clients`): the same
/// network for every f and both models.
pub fn cell_seed(base: u64, servers: usize, clients: usize, index: usize) -> u64 {
    base.wrapping_mul(1_000_003)
        .wrapping_add((servers as u64) << 32)
        .wrapping_add((clients as u64) << 16)
        .wrapping_add(index as u64)
}

/// Writes the grid's instances under `dir/<model>/`; returns how many.
pub fn write_spd_grid(grid: &SpdGrid, dir: &Path) -> Result<usize> {
    let mut count = 0;
    for &model in &grid.models {
        let sub = dir.join(model.to_string());
        std::fs::create_dir_all(&sub).map_err(|e| Error::io(&sub, e))?;
        for &s in &grid.servers {
            for &c in &grid.clients {
                for i in 0..grid.instances_per_cell {
                    for &f in &grid.factors {
                        let p = PaperSpdParams {
                            servers: s,
                            clients: c,
                            model,
                            bound_factor: f,
                            ..PaperSpdParams::default()
                        };
                        // The generator names it as `gen spd` does (one naming scheme).
                        let inst = generate_paper_spd(&p, cell_seed(grid.seed, s, c, i))?;
                        let path = sub.join(format!("{}.json", inst.name));
                        let text = serde_json::to_string(&to_file(&inst))
                            .map_err(|e| Error::Usage(format!("cannot serialise: {e}")))?;
                        std::fs::write(&path, text).map_err(|e| Error::io(&path, e))?;
                        count += 1;
                    }
                }
            }
        }
    }
    Ok(count)
}

/// Runs seed 001 §IV: writes the instances to `bench.out/instances`, runs
/// them (engines default to [`SPD_PAPER_ENGINES`]) and draws the figures.
pub fn repro_spd(
    grid: &SpdGrid,
    bench: &BenchConfig,
    dispatch: &dyn Dispatch,
) -> Result<BenchOutcome> {
    let inst_dir = bench.out.join("instances");
    write_spd_grid(grid, &inst_dir)?;
    let mut cfg = bench.clone();
    cfg.paths = vec![inst_dir];
    if cfg.engines.is_none() {
        cfg.engines = Some(SPD_PAPER_ENGINES.iter().map(|s| s.to_string()).collect());
    }
    let outcome = run_bench(&cfg, dispatch)?;
    spd_figures(&outcome.rows, &bench.out)?;
    Ok(outcome)
}

/// Redraws the seed 001 figures from `dir/results.jsonl` (e.g. after
/// `bench-merge` of sharded runs).
pub fn spd_figures_from(dir: &Path) -> Result<Vec<PathBuf>> {
    let rows = export::read_jsonl(&dir.join(crate::bench::runner::RESULTS_JSONL))?.rows;
    spd_figures(&rows, dir)
}

fn solved(r: &BenchRow) -> bool {
    matches!(
        r.status,
        Status::Optimal | Status::Feasible | Status::TimeLimit
    ) && r.objective.is_some()
}

fn text(r: &BenchRow, key: &str) -> Option<String> {
    r.extra
        .get(key)
        .and_then(|v| v.as_str())
        .map(str::to_string)
}

/// Aggregates a group of values (mean, median).
type Agg = fn(&[f64]) -> Option<f64>;

/// Per engine: `x → values` of `y` over the selected rows.
type Grouped = BTreeMap<String, BTreeMap<u64, Vec<f64>>>;

fn group(
    rows: &[&BenchRow],
    x: &dyn Fn(&BenchRow) -> Option<f64>,
    y: &dyn Fn(&BenchRow) -> Option<f64>,
) -> Grouped {
    let mut g: Grouped = BTreeMap::new();
    for r in rows {
        if let (Some(xv), Some(yv)) = (x(r), y(r)) {
            g.entry(r.engine.clone())
                .or_default()
                .entry(xv.to_bits())
                .or_default()
                .push(yv);
        }
    }
    g
}

fn mean(v: &[f64]) -> Option<f64> {
    (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
}

fn to_series(g: &Grouped, agg: Agg) -> Vec<Series> {
    let order = |e: &str| SPD_PAPER_ENGINES.iter().position(|k| *k == e).unwrap_or(99);
    let mut v: Vec<Series> = g
        .iter()
        .map(|(e, per)| Series {
            label: e.clone(),
            points: per
                .iter()
                .filter_map(|(x, ys)| agg(ys).map(|y| (f64::from_bits(*x), y)))
                .collect(),
            counts: per
                .values()
                .filter(|ys| agg(ys).is_some())
                .map(Vec::len)
                .collect(),
            style: Style::Line,
        })
        .collect();
    v.sort_by_key(|s| order(&s.label));
    v
}

/// Draws the seed 001 figures for every model present in `rows` into `dir`
/// and writes their numbers to `dir/figures.md`.
pub fn spd_figures(rows: &[BenchRow], dir: &Path) -> Result<Vec<PathBuf>> {
    let mut written = Vec::new();
    let mut md = String::from("# Seed 001 §IV figures: the numbers behind the plots\n");
    for model in ["cs", "p2p"] {
        let mine: Vec<&BenchRow> = rows
            .iter()
            .filter(|r| r.problem == "spd" && text(r, "model").as_deref() == Some(model))
            .collect();
        if mine.is_empty() {
            continue;
        }
        for (name, g, agg, sp) in model_figures(model, &mine) {
            let series = to_series(&g, agg);
            let path = dir.join(format!("fig-{name}-{model}.svg"));
            draw_chart(&path, &sp, &series)?;
            written.push(path);
            table(
                &mut md,
                &format!("{model}: {}", sp.title),
                &sp.x_desc,
                &series,
            );
        }
    }
    export::write_atomic(&dir.join("figures.md"), md.as_bytes())?;
    Ok(written)
}

/// The figures of one model: file stem, grouped data, aggregate, chart.
fn model_figures(model: &str, mine: &[&BenchRow]) -> [(&'static str, Grouped, Agg, ChartSpec); 4] {
    let ok: Vec<&BenchRow> = mine.iter().copied().filter(|r| solved(r)).collect();
    let f_of = |r: &BenchRow| r.number("bound_factor");
    let clients = |r: &BenchRow| r.number("clients");
    let hosts = |r: &BenchRow| r.number("hosts");
    let at_f: Vec<&BenchRow> = ok
        .iter()
        .copied()
        .filter(|r| f_of(r).is_some_and(|f| (f - PAPER_FIGURE_F).abs() < 1e-9))
        .collect();
    let servers = "mean servers used";
    [
        (
            "servers-vs-f",
            group(&ok, &f_of, &hosts),
            mean,
            spec(
                model,
                "servers used vs bound factor f",
                "f (μ = f·Γ, Γ = 500 ms)",
                servers,
                false,
            ),
        ),
        (
            "servers-vs-clients",
            group(&at_f, &clients, &hosts),
            mean,
            spec(model, "servers used, f = 1.3", "clients", servers, false),
        ),
        (
            "delay-vs-clients",
            group(&at_f, &clients, &|r| r.number("delay")),
            mean,
            spec(
                model,
                "delay, f = 1.3 (μ = 650 ms)",
                "clients",
                "mean delay (ms)",
                false,
            ),
        ),
        (
            "runtime-vs-clients",
            group(mine, &clients, &|r| Some(r.time_ms.max(1e-3))),
            median,
            spec(
                model,
                "runtime (all f)",
                "clients",
                "median runtime (ms, log scale)",
                true,
            ),
        ),
    ]
}

fn spec(model: &str, what: &str, x: &str, y: &str, log_y: bool) -> ChartSpec {
    ChartSpec {
        title: format!("SPD-{}: {what} (seed 001 §IV)", model.to_uppercase()),
        x_desc: x.into(),
        y_desc: y.into(),
        log_x: false,
        log_y,
    }
}

fn table(md: &mut String, title: &str, x_desc: &str, series: &[Series]) {
    let _ = writeln!(md, "\n## {title}");
    series_table(
        md,
        &format!("engine \\ {x_desc}"),
        |x| format!("{x}"),
        series,
    );
}
