//! The figures (SVG) and `findings.md` of `repro ag`, read from the CSV
//! tables of [`crate::app::ag::repro::snap`] and
//! [`crate::app::ag::repro::sim`].

use crate::app::ag::repro::sim::SIM_ENGINES;
use crate::app::ag::repro::Csv;
use crate::app::report::plot::{draw_chart, series_table, ChartSpec, Series, Style};
use crate::error::{Error, Result};
use std::path::{Path, PathBuf};

/// The table `stem` (empty when missing).
pub fn table<'a>(tables: &'a [(String, Csv)], stem: &str) -> &'a Csv {
    static EMPTY: Csv = Csv {
        header: Vec::new(),
        rows: Vec::new(),
    };
    tables
        .iter()
        .find(|(s, _)| s == stem)
        .map_or(&EMPTY, |(_, t)| t)
}

/// A line series of column `y` against column `x` (NaN cells left out).
pub fn line(t: &Csv, label: &str, x: &str, y: &str) -> Series {
    let points = t
        .col(x)
        .into_iter()
        .zip(t.col(y))
        .filter(|(a, b)| a.is_finite() && b.is_finite())
        .collect();
    Series {
        label: label.to_string(),
        points,
        style: Style::Line,
        counts: Vec::new(),
    }
}

/// One figure: file stem, chart, x column, `(label, table, y column)`.
#[derive(Debug, Clone)]
pub struct Fig {
    /// File stem.
    pub stem: String,
    /// Title and axes.
    pub spec: ChartSpec,
    /// X column.
    pub x: String,
    /// Series: label, table stem, y column.
    pub series: Vec<(String, String, String)>,
}

fn fig(
    stem: &str,
    title: &str,
    x_desc: &str,
    y_desc: &str,
    x: &str,
    series: Vec<(String, String, String)>,
) -> Fig {
    Fig {
        stem: stem.into(),
        spec: ChartSpec {
            title: title.into(),
            x_desc: x_desc.into(),
            y_desc: y_desc.into(),
            log_x: false,
            log_y: false,
        },
        x: x.into(),
        series,
    }
}

fn of(stem: &str, v: &[(&str, &str)]) -> Vec<(String, String, String)> {
    v.iter()
        .map(|(l, c)| (l.to_string(), stem.to_string(), c.to_string()))
        .collect()
}

/// Every figure of the study: the snapshot figures, then the simulation's.
pub fn figure_list() -> Vec<Fig> {
    let mut v = snapshot_figures();
    v.extend(sim_figures());
    v
}

/// One snapshot figure: stem, title, x and y descriptions, x column,
/// table stem, and its series (label, y column).
type Snapshot = (
    &'static str,
    &'static str,
    &'static str,
    &'static str,
    &'static str,
    &'static str,
    &'static [(&'static str, &'static str)],
);

/// Figs. 9–12, as [`snapshot_figures`] draws them.
const SNAPSHOTS: [Snapshot; 4] = [
    (
        "fig9-loads",
        "Fig. 9: load per server, scenario A (snapshot)",
        "server",
        "players",
        "server",
        "fig9",
        &[
            ("before", "before"),
            ("classic", "classic"),
            ("hybrid", "hybrid"),
            ("exact", "exact"),
            ("max_load", "max_load"),
        ],
    ),
    (
        "fig10-messages",
        "Fig. 10: messages vs extra players, I = 10% (hot-spot snapshots)",
        "extra players on server 1",
        "messages (Table 1)",
        "extra",
        "fig10",
        &[
            ("classic F=20", "classic_f20"),
            ("classic F=25", "classic_f25"),
            ("hybrid", "hybrid"),
            ("exact", "exact"),
        ],
    ),
    (
        "fig11-p2p",
        "Fig. 11: players kept vs sent to P2P, scenario B (snapshot)",
        "server",
        "players",
        "server",
        "fig11",
        &[
            ("before", "before"),
            ("hybrid kept", "hybrid_kept"),
            ("hybrid to P2P", "hybrid_p2p"),
            ("exact kept", "exact_kept"),
            ("exact to P2P", "exact_p2p"),
            ("target", "target"),
        ],
    ),
    (
        "fig12-return",
        "Fig. 12: overhead vs return rate, scenario B (snapshot)",
        "return rate",
        "messages (Table 2)",
        "return_rate",
        "fig12",
        &[("hybrid", "hybrid"), ("exact", "exact")],
    ),
];

/// Figs. 9–12.
fn snapshot_figures() -> Vec<Fig> {
    SNAPSHOTS
        .iter()
        .map(|&(stem, title, x_desc, y_desc, x, table, series)| {
            fig(stem, title, x_desc, y_desc, x, of(table, series))
        })
        .collect()
}

/// The simulation's per-minute charts.
fn sim_figures() -> Vec<Fig> {
    let mut v = Vec::new();
    for s in ["a", "b"] {
        for (stem, what, col) in [
            ("max-load", "largest server load", "max_load"),
            ("p2p", "players in P2P", "p2p"),
            ("moved", "players moved per minute", "moved"),
        ] {
            let title = format!("Simulation, scenario {}: {what}", s.to_uppercase());
            let series = SIM_ENGINES
                .iter()
                .map(|e| (e.to_string(), format!("sim-{s}-{e}"), col.to_string()))
                .collect();
            v.push(fig(
                &format!("sim-{s}-{stem}"),
                &title,
                "minute",
                "players",
                "minute",
                series,
            ));
        }
    }
    v
}

/// The series of a figure.
pub fn fig_series(f: &Fig, tables: &[(String, Csv)]) -> Vec<Series> {
    f.series
        .iter()
        .map(|(label, t, y)| line(table(tables, t), label, &f.x, y))
        .collect()
}

/// Draws every figure into `dir`.
pub fn figures(tables: &[(String, Csv)], dir: &Path) -> Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    let mut out = Vec::new();
    for f in figure_list() {
        let path = dir.join(format!("{}.svg", f.stem));
        draw_chart(&path, &f.spec, &fig_series(&f, tables))?;
        out.push(path);
    }
    Ok(out)
}

/// Appends the numbers behind every snapshot figure (the simulation's are
/// in its CSV files).
pub fn numbers(md: &mut String, tables: &[(String, Csv)]) {
    for f in figure_list().iter().filter(|f| !f.stem.starts_with("sim-")) {
        md.push_str(&format!("\n### {}\n", f.spec.title));
        series_table(md, &f.x, |x| format!("{x}"), &fig_series(f, tables));
    }
}
