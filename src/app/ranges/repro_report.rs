//! `repro ranges`' outputs: `table2.svg`, `fig9_rect.svg`, `fig9_sqr.svg`
//! and `findings.md` (each seed 003 claim: the paper, the measurement,
//! whether it holds and by which criterion).

use crate::app::ranges::repro::{log_slope, ReproResult, Table2Row, FIG9_ENGINES};
use crate::app::report::plot::{draw_chart, series_table, ChartSpec, Series, Style};
use crate::error::{Error, Result};
use std::fmt::Write;
use std::path::Path;

/// One claim, checked.
#[derive(Debug, Clone, PartialEq)]
pub struct Finding {
    /// The claim.
    pub claim: String,
    /// What the paper reports.
    pub paper: String,
    /// What this run measured.
    pub measured: String,
    /// Whether it holds (`None`: informational).
    pub holds: Option<bool>,
}

fn row<'a>(r: &'a ReproResult, engine: &str) -> Option<&'a Table2Row> {
    r.table2.iter().find(|t| t.engine == engine)
}

/// `1 − a/b`: how much lower `a` is than `b`.
fn reduction(a: f64, b: f64) -> f64 {
    if b > 0.0 {
        1.0 - a / b
    } else {
        0.0
    }
}

fn fig9_points(r: &ReproResult, shape: &str, engine: &str) -> Vec<(f64, f64)> {
    r.fig9
        .iter()
        .filter(|p| p.shape == shape && p.engine == engine)
        .map(|p| (p.players as f64, p.fanout))
        .collect()
}

fn table2_findings(r: &ReproResult) -> Vec<Finding> {
    let (Some(dht), Some(lj), Some(ex)) = (row(r, "hash"), row(r, "leave-join"), row(r, "exact"))
    else {
        return Vec::new();
    };
    let load = reduction(lj.max_over_mean, dht.max_over_mean);
    let per_seed: Vec<String> = lj
        .per_seed
        .iter()
        .zip(&dht.per_seed)
        .map(|(a, b)| format!("{:.0}%", 100.0 * reduction(*a, *b)))
        .collect();
    let mat = reduction(lj.matching_max_over_mean, dht.matching_max_over_mean);
    vec![
        Finding {
            claim: "Table 2: range DHT + leave-join lowers max/mean load vs the DHT by about 25% (holds: 12.5–37.5%)".into(),
            paper: "≈ 25% (max per-node bandwidth relative to the mean)".into(),
            measured: format!(
                "{:.1}% (max/mean {:.3} vs {:.3}; per seed: {})",
                100.0 * load,
                lj.max_over_mean,
                dht.max_over_mean,
                per_seed.join(", ")
            ),
            holds: Some((0.125..=0.375).contains(&load)),
        },
        Finding {
            claim: "Table 2: … and max/mean matching load by about 42% (holds: 21–63%)".into(),
            paper: "≈ 42% (max per-node matching bandwidth)".into(),
            measured: format!(
                "{:.1}% (matching max/mean {:.3} vs {:.3})",
                100.0 * mat,
                lj.matching_max_over_mean,
                dht.matching_max_over_mean
            ),
            holds: Some((0.21..=0.63).contains(&mat)),
        },
        Finding {
            claim: "beyond the paper: the exact contiguous optimum vs the DHT".into(),
            paper: "–".into(),
            measured: format!(
                "{:.1}% lower max/mean ({:.3}); leave-join's max load is {:.1}% above exact's",
                100.0 * reduction(ex.max_over_mean, dht.max_over_mean),
                ex.max_over_mean,
                100.0 * (lj.max_load / ex.max_load.max(f64::MIN_POSITIVE) - 1.0)
            ),
            holds: None,
        },
    ]
}

fn slope_text(s: Option<f64>) -> String {
    s.map_or("n/a (one size)".into(), |s| format!("{s:.2}"))
}

fn fig9_findings(r: &ReproResult) -> Vec<Finding> {
    let slope = |shape: &str, engine: &str| log_slope(&fig9_points(r, shape, engine));
    let flat = |s: Option<f64>| s.map(|s| s.abs() < 0.15);
    let upper = |shape: &str| {
        let p = fig9_points(r, shape, "hash");
        log_slope(&p[p.len() / 2..])
    };
    let (lj_rect, lj_sqr) = (slope("rect", "leave-join"), slope("sqr", "leave-join"));
    let (h_rect, h_sqr) = (slope("rect", "hash"), slope("sqr", "hash"));
    let (ex_rect, ex_sqr) = (slope("rect", "exact"), slope("sqr", "exact"));
    let (aoi_rect, aoi_sqr) = (
        slope("rect", "leave-join-aoi"),
        slope("sqr", "leave-join-aoi"),
    );
    vec![
        Finding {
            claim: "Fig. 9: range DHT fan-out stays constant on rect maps (holds: abs(log–log slope) < 0.15)".into(),
            paper: "constant".into(),
            measured: format!("slope {}", slope_text(lj_rect)),
            holds: flat(lj_rect),
        },
        Finding {
            claim: "Fig. 9: range DHT fan-out grows with √N on sqr maps (holds: slope 0.35–0.65)".into(),
            paper: "∝ √N (slope 0.5)".into(),
            measured: format!("slope {}", slope_text(lj_sqr)),
            holds: lj_sqr.map(|s| (0.35..=0.65).contains(&s)),
        },
        Finding {
            claim: "Fig. 9: DHT fan-out is constant on both maps (holds: abs(slope) < 0.15 on each)".into(),
            paper: "constant".into(),
            measured: format!(
                "rect slope {}, sqr slope {} (upper half of the sizes only: rect {}, sqr {})",
                slope_text(h_rect),
                slope_text(h_sqr),
                slope_text(upper("rect")),
                slope_text(upper("sqr"))
            ),
            holds: flat(h_rect).zip(flat(h_sqr)).map(|(a, b)| a && b),
        },
        Finding {
            claim: "beyond the paper: the exact optimum's fan-out".into(),
            paper: "–".into(),
            measured: format!("rect slope {}, sqr slope {}", slope_text(ex_rect), slope_text(ex_sqr)),
            holds: None,
        },
        Finding {
            claim: "beyond the paper: leave-join with subscriptions as exact AoI cells (not the x hub)".into(),
            paper: "–".into(),
            measured: format!("rect slope {}, sqr slope {}", slope_text(aoi_rect), slope_text(aoi_sqr)),
            holds: None,
        },
    ]
}

/// Every finding of a run.
pub fn findings(r: &ReproResult) -> Vec<Finding> {
    let mut f = table2_findings(r);
    f.extend(fig9_findings(r));
    f
}

fn fig9_series(r: &ReproResult, shape: &str) -> Vec<Series> {
    FIG9_ENGINES
        .iter()
        .map(|&e| Series {
            label: if e == "hash" {
                "dht (hash)".into()
            } else {
                e.to_string()
            },
            points: fig9_points(r, shape, e),
            style: Style::Line,
            counts: Vec::new(),
        })
        .collect()
}

fn table2_series(r: &ReproResult) -> Vec<Series> {
    r.table2
        .iter()
        .map(|t| Series {
            label: t.engine.to_string(),
            points: (0..t.per_seed.len())
                .map(|i| ((r.config.seed + i as u64) as f64, t.per_seed[i]))
                .collect(),
            style: Style::Points,
            counts: Vec::new(),
        })
        .collect()
}

fn markdown(r: &ReproResult, found: &[Finding]) -> String {
    let c = &r.config;
    let mut md = String::from("# repro ranges: seed 003 §6.3 (Table 2, Fig. 9)\n\n");
    let _ = writeln!(
        md,
        "Generated Colyseus maps (`gen ranges` defaults), curve `{}`, base seed {}; \
         Table 2: {} players = nodes, rect map, {} seed(s); Fig. 9: players {:?}, {} seed(s) per point.\n",
        c.curve.name(), c.seed, c.table_players, c.table_seeds, c.players, c.fig9_seeds
    );
    md.push_str("## Findings\n\n| claim | paper | measured | holds |\n|---|---|---|---|\n");
    for f in found {
        let holds = match f.holds {
            Some(true) => "yes",
            Some(false) => "no",
            None => "–",
        };
        let _ = writeln!(
            md,
            "| {} | {} | {} | {holds} |",
            f.claim, f.paper, f.measured
        );
    }
    md.push_str("\n## Table 2 (means over the seeds)\n\n");
    md.push_str("| engine | max/mean load | max/mean matching | max load | mean fan-out |\n|---|---:|---:|---:|---:|\n");
    for t in &r.table2 {
        let _ = writeln!(
            md,
            "| {} | {:.3} | {:.3} | {:.2} | {:.2} |",
            t.engine, t.max_over_mean, t.matching_max_over_mean, t.max_load, t.fanout_mean
        );
    }
    for shape in ["rect", "sqr"] {
        let _ = writeln!(
            md,
            "\n## Fig. 9, {shape} maps: mean fan-out (`fig9_{shape}.svg`)"
        );
        series_table(
            &mut md,
            "engine \\ players",
            |x| format!("{x}"),
            &fig9_series(r, shape),
        );
    }
    md
}

/// Writes the SVGs and `findings.md` into `out`; returns the findings.
pub fn write_report(out: &Path, r: &ReproResult) -> Result<Vec<Finding>> {
    std::fs::create_dir_all(out).map_err(|e| Error::io(out, e))?;
    for shape in ["rect", "sqr"] {
        let spec = ChartSpec {
            title: format!("Fig. 9 ({shape} maps): subscription fan-out"),
            x_desc: "players = nodes".into(),
            y_desc: "mean fan-out (nodes per subscription)".into(),
            log_x: true,
            log_y: false,
        };
        draw_chart(
            &out.join(format!("fig9_{shape}.svg")),
            &spec,
            &fig9_series(r, shape),
        )?;
    }
    let spec = ChartSpec {
        title: format!(
            "Table 2: {}-player rect game, max/mean load",
            r.config.table_players
        ),
        x_desc: "seed".into(),
        y_desc: "max load / mean load".into(),
        log_x: false,
        log_y: false,
    };
    draw_chart(&out.join("table2.svg"), &spec, &table2_series(r))?;
    let found = findings(r);
    let path = out.join("findings.md");
    std::fs::write(&path, markdown(r, &found)).map_err(|e| Error::io(&path, e))?;
    Ok(found)
}
