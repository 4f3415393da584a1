//! What `repro playnow` writes: `timeline.csv` (every sample of every
//! policy and load), `summary.csv` (steady-state means), `cma.csv` (the
//! seed 002 comparison), `figures/*.svg` and `findings.md`.
//!
//! Steady state = the samples in the second half of the simulated time
//! (the pool starts empty; a mean session is much shorter than half the
//! run). Every file is a function of the runs alone (no times), so a seed
//! gives the same bytes.

use super::cma_cmp::{refusals, CmpRow};
use super::pool::{PoolPolicy, PoolRun, Sample, VIABLE_PLAYERS};
use super::{LoadRuns, PlaynowConfig};
use crate::app::report::plot::{draw_chart, series_table, ChartSpec, Series, Style};
use crate::bench::export::write_atomic;
use crate::error::{Error, Result};
use crate::problems::rank::score::players_score;
use std::fmt::Write;
use std::path::{Path, PathBuf};

/// Steady-state means of one policy at one load.
#[derive(Debug, Clone, PartialEq)]
pub struct Steady {
    /// The load.
    pub load: f64,
    /// The policy's name.
    pub policy: &'static str,
    /// Mean present players.
    pub present: f64,
    /// Mean viable games.
    pub viable: f64,
    /// Mean share of present players on viable games.
    pub on_viable_share: f64,
    /// Mean of the mean ping, ms.
    pub mean_ping: f64,
    /// Mean of the p95 ping, ms.
    pub p95_ping: f64,
    /// Mean share of players on the largest servers.
    pub share_large: f64,
    /// Arrivals turned away over the whole run / arrivals.
    pub rejected_share: f64,
}

fn mean(xs: impl Iterator<Item = f64>) -> f64 {
    let (s, n) = xs.fold((0.0, 0usize), |(s, n), x| (s + x, n + 1));
    if n == 0 {
        0.0
    } else {
        s / n as f64
    }
}

/// The steady-state means of `run`.
pub fn steady(load: f64, run: &PoolRun, duration: f64) -> Steady {
    let tail: Vec<&Sample> = run
        .samples
        .iter()
        .filter(|s| s.t > duration / 2.0)
        .collect();
    let m = |f: &dyn Fn(&Sample) -> f64| mean(tail.iter().map(|s| f(s)));
    let last = run.samples.last();
    Steady {
        load,
        policy: run.policy.name(),
        present: m(&|s| s.present as f64),
        viable: m(&|s| s.viable as f64),
        on_viable_share: m(&|s| s.on_viable as f64 / (s.present.max(1)) as f64),
        mean_ping: m(&|s| s.mean_ping),
        p95_ping: m(&|s| s.p95_ping),
        share_large: m(&|s| s.share_large),
        rejected_share: last.map_or(0.0, |s| s.rejected as f64 / s.arrived.max(1) as f64),
    }
}

fn write(path: &Path, text: &str) -> Result<()> {
    write_atomic(path, text.as_bytes())
}

/// `timeline.csv`: one row per (load, policy, sample).
pub fn timeline_csv(loads: &[LoadRuns]) -> String {
    let mut out = String::from(
        "load,policy,t_min,arrived,departed,rejected,present,viable,on_viable,\
         mean_ping_ms,p95_ping_ms,share_largest,max_fill\n",
    );
    for l in loads {
        for r in &l.runs {
            for s in &r.samples {
                let _ = writeln!(
                    out,
                    "{},{},{},{},{},{},{},{},{},{:.4},{:.4},{:.6},{:.6}",
                    l.load,
                    r.policy.name(),
                    s.t,
                    s.arrived,
                    s.departed,
                    s.rejected,
                    s.present,
                    s.viable,
                    s.on_viable,
                    s.mean_ping,
                    s.p95_ping,
                    s.share_large,
                    s.max_fill
                );
            }
        }
    }
    out
}

fn summary_csv(rows: &[Steady]) -> String {
    let mut out = String::from(
        "load,policy,present,viable,on_viable_share,mean_ping_ms,p95_ping_ms,\
         share_largest,rejected_share\n",
    );
    for s in rows {
        let _ = writeln!(
            out,
            "{},{},{:.3},{:.3},{:.4},{:.3},{:.3},{:.4},{:.4}",
            s.load,
            s.policy,
            s.present,
            s.viable,
            s.on_viable_share,
            s.mean_ping,
            s.p95_ping,
            s.share_large,
            s.rejected_share
        );
    }
    out
}

fn cma_csv(rows: &[CmpRow]) -> String {
    let mut out = String::from(
        "run,policy,events,mean_avg_delay_ms,final_avg_delay_ms,gap_mean_pct,gap_final_pct\n",
    );
    for r in rows {
        let _ = writeln!(
            out,
            "{},{},{},{:.4},{:.4},{:.3},{:.3}",
            r.run,
            r.policy,
            r.events,
            r.mean_avg_delay,
            r.final_avg_delay,
            r.gap_mean_pct,
            r.gap_final_pct
        );
    }
    out
}

/// The per-sample quantities drawn: file stem, caption, y axis, value.
type Metric = (&'static str, &'static str, &'static str, fn(&Sample) -> f64);

const METRICS: [Metric; 5] = [
    (
        "viable",
        "viable games (>= 12 players)",
        "servers with >= 12 players",
        |s| s.viable as f64,
    ),
    ("on-viable", "players on viable games", "players", |s| {
        s.on_viable as f64
    }),
    (
        "mean-ping",
        "mean ping",
        "mean ping of present players (ms)",
        |s| s.mean_ping,
    ),
    ("p95-ping", "p95 ping", "95th percentile ping (ms)", |s| {
        s.p95_ping
    }),
    (
        "share-largest",
        "share of players on the largest servers",
        "players on the largest servers / present",
        |s| s.share_large,
    ),
];

fn line(label: &str, points: Vec<(f64, f64)>, style: Style) -> Series {
    Series {
        label: label.to_string(),
        points,
        style,
        counts: Vec::new(),
    }
}

fn spec(title: String, x: &str, y: &str) -> ChartSpec {
    ChartSpec {
        title,
        x_desc: x.into(),
        y_desc: y.into(),
        log_x: false,
        log_y: false,
    }
}

/// Draws every figure into `dir`; returns their paths.
pub fn figures(
    cfg: &PlaynowConfig,
    loads: &[LoadRuns],
    rows: &[Steady],
    dir: &Path,
) -> Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    let mut paths = Vec::new();
    for l in loads {
        for (stem, caption, y, f) in METRICS {
            let series: Vec<Series> = l
                .runs
                .iter()
                .map(|r| {
                    let pts = r.samples.iter().map(|s| (s.t, f(s))).collect();
                    line(r.policy.name(), pts, Style::Line)
                })
                .collect();
            let title = format!("{caption}, load {}", l.load);
            let path = dir.join(format!("{stem}-load{}.svg", l.load));
            draw_chart(&path, &spec(title, "time (min)", y), &series)?;
            paths.push(path);
        }
    }
    let mut series: Vec<Series> = Vec::new();
    for r in loads.first().map(|l| l.runs.as_slice()).unwrap_or_default() {
        let name = r.policy.name();
        let pts = rows
            .iter()
            .filter(|s| s.policy == name)
            .map(|s| (s.load, s.share_large))
            .collect();
        series.push(line(name, pts, Style::Line));
    }
    let slot_share = cfg.largest_slot_share();
    let pts = cfg.loads.iter().map(|&l| (l, slot_share)).collect();
    series.push(line("slot share of the largest servers", pts, Style::Line));
    let path = dir.join("share-largest-vs-load.svg");
    let title = "steady-state share of players on the largest servers".to_string();
    draw_chart(
        &path,
        &spec(title, "load (mean players / slots)", "share"),
        &series,
    )?;
    paths.push(path);
    Ok(paths)
}

/// `figures/cma-gap.svg`: per scenario and policy (not `bf`), the gap of
/// the mean average delay to `bf` against the mirror count.
fn cma_figure(cmp: &[CmpRow], dir: &Path) -> Result<PathBuf> {
    let mut series: Vec<Series> = Vec::new();
    for r in cmp.iter().filter(|r| r.policy != "bf") {
        let (scenario, k) = r.run.rsplit_once('-').unwrap_or((&r.run, ""));
        let k: f64 = k.trim_end_matches('m').parse().unwrap_or(0.0);
        let label = format!("{scenario}: {}", r.policy);
        match series.iter_mut().find(|s| s.label == label) {
            Some(s) => s.points.push((k, r.gap_mean_pct)),
            None => series.push(line(&label, vec![(k, r.gap_mean_pct)], Style::Line)),
        }
    }
    let path = dir.join("cma-gap.svg");
    let title = "seed 002 scenarios: mean average delay above the optimum (bf)".to_string();
    draw_chart(&path, &spec(title, "mirrors", "gap to bf (%)"), &series)?;
    Ok(path)
}

/// Writes the CSV files, the figures and `findings.md` into `out`.
pub fn write_all(
    cfg: &PlaynowConfig,
    loads: &[LoadRuns],
    cmp: &[CmpRow],
    out: &Path,
) -> Result<Vec<PathBuf>> {
    std::fs::create_dir_all(out).map_err(|e| Error::io(out, e))?;
    let rows: Vec<Steady> = loads
        .iter()
        .flat_map(|l| {
            l.runs
                .iter()
                .map(|r| steady(l.load, r, cfg.pool.duration_min))
        })
        .collect();
    write(&out.join("timeline.csv"), &timeline_csv(loads))?;
    write(&out.join("summary.csv"), &summary_csv(&rows))?;
    if !cmp.is_empty() {
        write(&out.join("cma.csv"), &cma_csv(cmp))?;
    }
    let mut figs = figures(cfg, loads, &rows, &out.join("figures"))?;
    if !cmp.is_empty() {
        figs.push(cma_figure(cmp, &out.join("figures"))?);
    }
    write(
        &out.join("findings.md"),
        &findings_md(cfg, loads, &rows, cmp),
    )?;
    Ok(figs)
}

fn pool_text(cfg: &PlaynowConfig) -> String {
    let sizes: Vec<String> = cfg
        .pool
        .sizes
        .iter()
        .map(|(s, n)| format!("{n} × {s} slots"))
        .collect();
    format!(
        "{} ({} slots); mean session {} min (exponential), {} min simulated, a sample every \
         {} min, seed {}; pings: {}",
        sizes.join(", "),
        cfg.total_slots(),
        cfg.pool.session_min,
        cfg.pool.duration_min,
        cfg.pool.sample_min,
        cfg.pool.seed,
        cfg.ping_label
    )
}

fn steady_table(md: &mut String, rows: &[Steady], slot_share: f64) {
    let _ = writeln!(
        md,
        "\n| load | policy | present | viable games | on viable | mean ping | p95 ping | \
         share on largest | ÷ slot share | turned away |\n|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|"
    );
    for s in rows {
        let _ = writeln!(
            md,
            "| {} | {} | {:.1} | {:.2} | {:.1}% | {:.1} | {:.1} | {:.1}% | {:.2} | {:.2}% |",
            s.load,
            s.policy,
            s.present,
            s.viable,
            100.0 * s.on_viable_share,
            s.mean_ping,
            s.p95_ping,
            100.0 * s.share_large,
            s.share_large / slot_share.max(f64::MIN_POSITIVE),
            100.0 * s.rejected_share
        );
    }
}

fn answer(md: &mut String, cfg: &PlaynowConfig, rows: &[Steady]) {
    let slot_share = cfg.largest_slot_share();
    let largest = cfg.pool.slots().into_iter().max().unwrap_or(0);
    let _ = writeln!(
        md,
        "\n## Do huge servers steal players?\n\nThe {largest}-slot servers hold {:.1}% of the \
         slots. A policy draws players to them when their share of the players is above that \
         (ratio > 1). Steady-state share on the {largest}-slot servers ÷ their slot share, per \
         load:\n",
        100.0 * slot_share
    );
    for name in PoolPolicy::ALL.map(|p| p.name()) {
        let mine: Vec<&Steady> = rows.iter().filter(|s| s.policy == name).collect();
        if mine.is_empty() {
            continue;
        }
        let ratio = |s: &Steady| s.share_large / slot_share.max(f64::MIN_POSITIVE);
        let cells: Vec<String> = mine
            .iter()
            .map(|s| format!("{:.2} at {}", ratio(s), s.load))
            .collect();
        let above = mine.iter().filter(|s| ratio(s) > 1.05).count();
        let verdict = match above {
            0 => "no".to_string(),
            n if n == mine.len() => "**yes**, at every load".to_string(),
            n => format!("at {n} of {} loads", mine.len()),
        };
        let _ = writeln!(md, "- `{name}`: {} — {verdict}.", cells.join(", "));
    }
    let sizes: Vec<String> = cfg
        .pool
        .sizes
        .iter()
        .map(|&(s, _)| {
            let f = f64::from(s);
            let v1 = players_score(0.0, f, 2.0 / 3.0, 1.0 / 3.0);
            let v2 = players_score(0.0, f.min(24.0), 0.5, 0.5);
            format!("{s} slots: {v1:.4} (seed000) / {v2:.4} (ns2-v2)")
        })
        .collect();
    let _ = writeln!(
        md,
        "\nWhy: seed 000's PlayersScore adds the viability derivative times the *open slots*, \
         so an empty or seeding server's bonus grows with its size. PlayersScore of an empty \
         server — {}. `ns2-v1` has the same shape (weights 0.66/0.33). `ns2-v2` counts open \
         slots up to 24 only, which removes most of the pull. `tf2-quickplay` scores servers \
         under 18 slots −100 (never picked while anything else has room) and peaks at 5/6 \
         full.",
        sizes.join("; ")
    );
}

fn cma_section(md: &mut String, cfg: &PlaynowConfig, cmp: &[CmpRow]) {
    let Some(c) = &cfg.cma else { return };
    let _ = writeln!(
        md,
        "\n## J-playnow on seed 002's scenarios\n\nThe instances of `repro cma` at scale {} \
         (generator seed {}), every policy on the same events; `bf` re-solves the exact \
         optimum after every event and is the reference of the gaps. Mean = over events with \
         someone present; final = after the last such event. Also in `cma.csv`; the \
         mean gap against the mirror count: `figures/cma-gap.svg`.\n\n\
         | run | policy | events | mean avg delay ms | final avg delay ms | gap mean | gap final |\n\
         |---|---|---:|---:|---:|---:|---:|",
        c.scale, c.seed
    );
    for r in cmp {
        let _ = writeln!(
            md,
            "| {} | {} | {} | {:.2} | {:.2} | {:+.2}% | {:+.2}% |",
            r.run,
            r.policy,
            r.events,
            r.mean_avg_delay,
            r.final_avg_delay,
            tidy(r.gap_mean_pct),
            tidy(r.gap_final_pct)
        );
    }
    for (p, why) in refusals() {
        let _ = writeln!(md, "\n`{p}` is not run: {why}");
    }
}

/// `x` rounded to 2 decimals with `-0.00` shown as `0.00`.
fn tidy(x: f64) -> f64 {
    let r = (x * 100.0).round() / 100.0;
    if r == 0.0 {
        0.0
    } else {
        r
    }
}

/// `findings.md`.
pub fn findings_md(
    cfg: &PlaynowConfig,
    loads: &[LoadRuns],
    rows: &[Steady],
    cmp: &[CmpRow],
) -> String {
    let slot_share = cfg.largest_slot_share();
    let mut md = format!(
        "# \"Play now\" population study (seed 000)\n\nPool: {}. Players arrive (Poisson), \
         press \"play now\" and stay for their session. A game is viable from {VIABLE_PLAYERS} \
         players. Steady state = the second half of the run. Figures: `figures/`; every \
         sample: `timeline.csv`; this table: `summary.csv`.\n\nPolicies: `seed000`, `ns2-v1`, \
         `ns2-v2`, `tf2-quickplay` = the rank presets' \"play now\" (best-scoring server with a \
         free slot, ping = measured RTT, other inputs unknown); `ping-only` = lowest ping; \
         `fullest-first` = most players; `cma-optimum` = the min-total-delay assignment of the \
         present players, re-solved at every sample (it moves players).\n",
        pool_text(cfg)
    );
    steady_table(&mut md, rows, slot_share);
    answer(&mut md, cfg, rows);
    for l in loads {
        let first = METRICS[0];
        let series: Vec<Series> = l
            .runs
            .iter()
            .map(|r| {
                let every = (r.samples.len() / 8).max(1);
                let pts = r
                    .samples
                    .iter()
                    .enumerate()
                    .filter(|(k, _)| (k + 1) % every == 0)
                    .map(|(_, s)| (s.t, (first.3)(s)))
                    .collect();
                line(r.policy.name(), pts, Style::Line)
            })
            .collect();
        let _ = write!(md, "\n### Viable games over time, load {}\n", l.load);
        series_table(&mut md, "policy \\ minute", |x| format!("{x:.0}"), &series);
    }
    cma_section(&mut md, cfg, cmp);
    md
}
