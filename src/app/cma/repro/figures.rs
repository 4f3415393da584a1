//! The figures of `repro cma` (seed 002 Figs. 4–8, the paper's numbering)
//! and `figures.md`, the numbers behind them.
//!
//! Per scenario run (`<scenario>-<k>m`; the leave scenario plots its leave
//! phase, x = leaves so far, as Fig. 6 does): average delay (Figs. 4, 6, 7),
//! maximum delay (same figures), players within the threshold, and transfers
//! per event (running mean), one series per policy (events that leave the
//! system empty are not drawn: no delay). Per join run: the delay
//! CDF after the last join (Fig. 5). Per scenario: policy time vs mirrors
//! with the paper's Fig. 8 values. Charts show at most [`MAX_POINTS`] points
//! per series (every s-th event and the last); the tables in `figures.md`
//! read the full records.

use crate::app::cma::repro::findings::{findings_md, PAPER_FIG8};
use crate::app::cma::repro::{CmaGrid, ScenarioRun};
use crate::app::report::plot::{draw_chart, series_table, ChartSpec, Series, Style};
use crate::bench::export::write_atomic;
use crate::bench::row::BenchRow;
use crate::error::{Error, Result};
use crate::problems::cma::eval::delay_cdf;
use crate::problems::cma::gen::Scenario;
use crate::problems::cma::sim::{EventRecord, SimResult};
use std::fmt::Write;
use std::path::{Path, PathBuf};

/// Most points per series drawn in a chart.
pub const MAX_POINTS: usize = 400;

/// The records a figure shows and the step before its first one: the leave
/// phase for the leave scenario, every event otherwise.
pub fn phase<'a>(run: &ScenarioRun, sim: &'a SimResult) -> (&'a [EventRecord], usize) {
    let recs = &sim.records[..];
    if run.scenario != Scenario::Leave {
        return (recs, 0);
    }
    let p = recs
        .iter()
        .position(|r| r.kind == "leave")
        .unwrap_or(recs.len());
    (&recs[p..], p)
}

/// The policy's own time over [`phase`], ms.
pub fn phase_ms(run: &ScenarioRun, sim: &SimResult) -> f64 {
    phase(run, sim).0.iter().map(|r| r.time_us).sum::<f64>() / 1e3
}

fn paper_fig(s: Scenario) -> &'static str {
    match s {
        Scenario::Join => "Fig. 4",
        Scenario::Leave => "Fig. 6",
        _ => "Fig. 7",
    }
}

/// The per-event quantities drawn per run: file stem, caption, y axis.
const METRICS: [(&str, &str, &str); 4] = [
    (
        "avg-delay",
        "average delay",
        "average delay of present players (ms)",
    ),
    (
        "max-delay",
        "maximum delay",
        "maximum delay of present players (ms)",
    ),
    (
        "under-threshold",
        "players within the delay requirement",
        "players within the threshold",
    ),
    (
        "transfers",
        "transfers per event (running mean)",
        "transfers per event, mean so far",
    ),
];

fn metric(stem: &str, recs: &[EventRecord]) -> Vec<f64> {
    match stem {
        "avg-delay" => recs.iter().map(|r| r.avg_delay).collect(),
        "max-delay" => recs.iter().map(|r| r.max_delay).collect(),
        "under-threshold" => recs.iter().map(|r| r.under_threshold as f64).collect(),
        _ => {
            let mut sum = 0usize;
            recs.iter()
                .enumerate()
                .map(|(i, r)| {
                    sum += r.transfers;
                    sum as f64 / (i + 1) as f64
                })
                .collect()
        }
    }
}

/// Every `s`-th point and the last, at most `max` (about).
pub fn thin(points: &[(f64, f64)], max: usize) -> Vec<(f64, f64)> {
    let stride = points.len().div_ceil(max.max(1)).max(1);
    points
        .iter()
        .enumerate()
        .filter(|(i, _)| i % stride == 0 || *i + 1 == points.len())
        .map(|(_, p)| *p)
        .collect()
}

fn line(label: &str, points: Vec<(f64, f64)>) -> Series {
    Series {
        label: label.to_string(),
        points,
        style: Style::Line,
        counts: Vec::new(),
    }
}

fn chart(title: String, x: &str, y: &str, log_y: bool) -> ChartSpec {
    ChartSpec {
        title,
        x_desc: x.into(),
        y_desc: y.into(),
        log_x: false,
        log_y,
    }
}

/// Draws `series` (thinned) into `dir/<stem>.svg`.
fn draw(dir: &Path, stem: &str, spec: &ChartSpec, series: &[Series]) -> Result<PathBuf> {
    let thinned: Vec<Series> = series
        .iter()
        .map(|s| Series {
            points: thin(&s.points, MAX_POINTS),
            ..s.clone()
        })
        .collect();
    let path = dir.join(format!("{stem}.svg"));
    draw_chart(&path, spec, &thinned)?;
    Ok(path)
}

/// A table of `series` (all over the same x values) at ten checkpoints.
fn checkpoint_table(md: &mut String, x_desc: &str, series: &[Series]) {
    let len = series.iter().map(|s| s.points.len()).max().unwrap_or(0);
    let mut idx: Vec<usize> = (1..=10).map(|i| (len * i).div_ceil(10)).collect();
    idx.dedup();
    let head: Vec<&str> = series.iter().map(|s| s.label.as_str()).collect();
    let _ = writeln!(md, "\n| {x_desc} | {} |", head.join(" | "));
    let _ = writeln!(md, "|---:|{}", "---:|".repeat(series.len()));
    for i in idx.into_iter().filter(|&i| i > 0) {
        let x = series
            .iter()
            .find_map(|s| s.points.get(i - 1).map(|p| p.0))
            .unwrap_or(i as f64);
        let cells: Vec<String> = series
            .iter()
            .map(|s| {
                s.points
                    .get(i - 1)
                    .map_or_else(|| "–".into(), |p| format!("{:.3}", p.1))
            })
            .collect();
        let _ = writeln!(md, "| {x} | {} |", cells.join(" | "));
    }
}

/// The four per-event figures of one run.
fn run_figures(run: &ScenarioRun, dir: &Path, md: &mut String) -> Result<Vec<PathBuf>> {
    let label = run.label();
    let x_desc = if run.scenario == Scenario::Leave {
        "leaves so far"
    } else {
        "event"
    };
    let _ = writeln!(
        md,
        "\n## {label}: {} ({}, {} client rows, {} events)",
        paper_fig(run.scenario),
        run.inst.name,
        run.inst.clients(),
        run.inst.events.as_ref().map_or(0, Vec::len)
    );
    let mut written = Vec::new();
    for (stem, what, y_desc) in METRICS {
        let series: Vec<Series> = run
            .sims
            .iter()
            .map(|sim| {
                let (recs, off) = phase(run, sim);
                let ys = metric(stem, recs);
                // An empty system (after the last leave) has no delay.
                let pts = recs
                    .iter()
                    .zip(ys)
                    .filter(|(r, _)| r.present > 0 || stem == "transfers")
                    .map(|(r, y)| ((r.step - off) as f64, y))
                    .collect();
                line(&sim.policy, pts)
            })
            .collect();
        let title = format!("CMA {label}: {what} ({}-like)", paper_fig(run.scenario));
        let spec = chart(title, x_desc, y_desc, false);
        written.push(draw(dir, &format!("fig-{stem}-{label}"), &spec, &series)?);
        let _ = writeln!(md, "\n### {what} (`figures/fig-{stem}-{label}.svg`)");
        checkpoint_table(md, x_desc, &series);
    }
    Ok(written)
}

/// Fig. 5: the delay CDF after the last join, per policy.
fn cdf_figure(run: &ScenarioRun, dir: &Path, md: &mut String, thr: f64) -> Result<PathBuf> {
    let label = run.label();
    let series: Vec<Series> = run
        .sims
        .iter()
        .map(|s| line(&s.policy, delay_cdf(&run.inst, &s.final_assign)))
        .collect();
    let title = format!("CMA {label}: delay CDF after the last join (Fig. 5-like)");
    let spec = chart(
        title,
        "delay (ms)",
        "share of players with delay <= x",
        false,
    );
    let path = draw(dir, &format!("fig-cdf-{label}"), &spec, &series)?;
    let _ = writeln!(
        md,
        "\n## {label}: delay CDF after the last join, Fig. 5 (`figures/fig-cdf-{label}.svg`)\n\n\
         | policy | within {thr} ms | 10 % | 25 % | 50 % | 75 % | 90 % | 95 % | 99 % | 100 % |\n\
         |---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    );
    for (s, sim) in series.iter().zip(&run.sims) {
        let q: Vec<String> = [0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99, 1.0]
            .iter()
            .map(|&q| {
                let d = s
                    .points
                    .iter()
                    .find(|p| p.1 >= q - 1e-12)
                    .map_or(0.0, |p| p.0);
                format!("{d:.2}")
            })
            .collect();
        let under = sim.records.last().map_or(0, |r| r.under_threshold);
        let _ = writeln!(md, "| {} | {under} | {} |", s.label, q.join(" | "));
    }
    Ok(path)
}

/// Fig. 8: policy time vs mirrors for one scenario, with the paper's values.
fn runtime_figure(
    grid: &CmaGrid,
    runs: &[&ScenarioRun],
    scenario: Scenario,
    dir: &Path,
    md: &mut String,
) -> Result<PathBuf> {
    let name = scenario.name();
    let mut series: Vec<Series> = grid
        .policies
        .iter()
        .map(|p| {
            let pts = runs
                .iter()
                .filter_map(|r| r.sim(p).map(|s| (r.mirrors as f64, phase_ms(r, s))))
                .collect();
            line(p, pts)
        })
        .collect();
    for (_, alg, ms) in PAPER_FIG8.iter().filter(|f| f.0 == scenario) {
        series.push(Series {
            label: format!("paper: {alg}"),
            points: [5.0, 10.0, 20.0]
                .into_iter()
                .zip(ms.iter().copied())
                .collect(),
            style: Style::Points,
            counts: Vec::new(),
        });
    }
    let what = match scenario {
        Scenario::Join => "time of all joins",
        Scenario::Leave => "time of the leave phase",
        _ => "time of all events",
    };
    let title = format!("CMA {name}: policy {what} vs mirrors (Fig. 8-like)");
    let spec = chart(title, "mirrors", "policy time (ms, log scale)", true);
    let path = draw(dir, &format!("fig-runtime-{name}"), &spec, &series)?;
    let _ = writeln!(
        md,
        "\n## {name}: policy {what}, ms, Fig. 8 (`figures/fig-runtime-{name}.svg`)"
    );
    checkpoint_free_table(md, &series);
    Ok(path)
}

/// A series × x table over every distinct x.
fn checkpoint_free_table(md: &mut String, series: &[Series]) {
    series_table(md, "series", |x| format!("{x} mirrors"), series);
}

/// The static instances' benchmark rows.
fn bench_table(md: &mut String, rows: &[BenchRow]) {
    md.push_str(
        "\n## Static instances (`results.csv`, `summary.md`)\n\n\
         Every scenario instance's first min(n, ΣC) rows, no events. `j-sa` here is J-SA \
         with the clients joining in row order and `greedy` is J-greedy the same way, so \
         on the join instances their times are Fig. 8(a)'s, without the evaluator.\n\n\
         | instance | engine | status | total delay | gap | ms |\n|---|---|---|---:|---:|---:|\n",
    );
    for r in rows {
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} | {} | {:.3} |",
            r.instance,
            r.engine,
            r.status,
            r.objective.map_or("–".into(), |o| format!("{o:.3}")),
            r.gap.map_or("–".into(), |g| format!("{:.3} %", 100.0 * g)),
            r.time_ms
        );
    }
}

/// Draws every figure into `out/figures/` and writes `out/figures.md`.
pub fn cma_figures(
    grid: &CmaGrid,
    runs: &[ScenarioRun],
    rows: &[BenchRow],
    out: &Path,
) -> Result<Vec<PathBuf>> {
    let dir = out.join("figures");
    std::fs::create_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;
    let mut md = String::from("# Seed 002 §4 (CMA), Figs. 4–8: the numbers behind the plots\n");
    let _ = writeln!(
        md,
        "\nGenerator seed {}, client scale {} (1 = the paper's 1000 / 1300 clients), mirrors {:?}, \
         policies {}, threshold {} ms. Figure numbers are the paper's: Fig. 4 join, Fig. 5 CDF \
         after the joins, Fig. 6 leave, Fig. 7 dynamic, Fig. 8 running times. Policy times are \
         the algorithms' own (the evaluator is not timed), one run on this machine.",
        grid.seed,
        grid.scale,
        grid.mirrors,
        grid.policies.join(", "),
        grid.threshold
    );
    md.push_str(&findings_md(grid, runs));
    let mut written = Vec::new();
    for run in runs {
        written.extend(run_figures(run, &dir, &mut md)?);
    }
    for run in runs.iter().filter(|r| r.scenario == Scenario::Join) {
        written.push(cdf_figure(run, &dir, &mut md, grid.threshold)?);
    }
    for &scenario in &grid.scenarios {
        let mine: Vec<&ScenarioRun> = runs.iter().filter(|r| r.scenario == scenario).collect();
        written.push(runtime_figure(grid, &mine, scenario, &dir, &mut md)?);
    }
    bench_table(&mut md, rows);
    write_atomic(&out.join("figures.md"), md.as_bytes())?;
    Ok(written)
}
