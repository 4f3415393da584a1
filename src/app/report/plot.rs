//! SVG plots of a result set (plotters, SVG backend only): per problem,
//! gap vs runtime per engine, runtime vs instance size per engine and the
//! time and gap profiles ([`crate::app::report::profile`]); and a small
//! line-chart helper the paper reproductions reuse.

use crate::app::report::profile;
use crate::app::report::summary::median;
use crate::bench::row::BenchRow;
use crate::core::registry::Registry;
use crate::error::{Error, Result};
use plotters::coord::ranged1d::{AsRangedCoord, Ranged, ValueFormatter};
use plotters::coord::Shift;
use plotters::element::DashedPathElement;
use plotters::prelude::*;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// How a series is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    /// Markers only (scatter).
    Points,
    /// A line through the points (sorted by x) with markers.
    Line,
    /// A right-continuous step function through the points (sorted by x):
    /// level with each point until the next x, then up or down; markers at
    /// the points. For performance profiles.
    Step,
}

/// One labelled series.
#[derive(Debug, Clone)]
pub struct Series {
    /// Legend label (an engine name).
    pub label: String,
    /// `(x, y)` points.
    pub points: Vec<(f64, f64)>,
    /// Drawing style.
    pub style: Style,
    /// How many runs each point aggregates (aligned with `points`; empty
    /// when a point is one run); [`series_table`] prints them.
    pub counts: Vec<usize>,
}

/// Titles and axes of a chart.
#[derive(Debug, Clone)]
pub struct ChartSpec {
    /// Caption.
    pub title: String,
    /// X axis description (with unit).
    pub x_desc: String,
    /// Y axis description (with unit).
    pub y_desc: String,
    /// Logarithmic x axis.
    pub log_x: bool,
    /// Logarithmic y axis.
    pub log_y: bool,
}

/// Tableau-10: distinguishable, colour-blind-friendlier than plotters' default.
const COLORS: [RGBColor; 10] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
    RGBColor(188, 189, 34),
    RGBColor(23, 190, 207),
];

/// An axis turns logarithmic when its largest positive value is more than
/// this many times its smallest (more than two decades).
pub const LOG_AXIS_SPAN: f64 = 100.0;

/// Whether the positive finite `values` span more than [`LOG_AXIS_SPAN`].
pub fn spans_decades(values: impl Iterator<Item = f64>) -> bool {
    let (mut lo, mut hi) = (f64::INFINITY, 0.0_f64);
    for v in values.filter(|v| v.is_finite() && *v > 0.0) {
        (lo, hi) = (lo.min(v), hi.max(v));
    }
    lo.is_finite() && hi > LOG_AXIS_SPAN * lo
}

/// A gap axis, in %: linear, or — when the positive gaps span decades
/// ([`spans_decades`]) and none is negative — logarithmic in gap + ε,
/// ε one decade below the smallest positive gap's decade, so a gap of 0
/// sits at ε, a decade under every other point.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GapAxis {
    /// The shift of a logarithmic axis, %; `None` = linear.
    pub epsilon: Option<f64>,
}

impl GapAxis {
    /// The axis for these gaps (in %).
    pub fn fit(gaps: &[f64]) -> Self {
        let finite = || gaps.iter().copied().filter(|g| g.is_finite());
        let log = spans_decades(finite()) && finite().all(|g| g >= 0.0);
        let min = finite().filter(|g| *g > 0.0).fold(f64::INFINITY, f64::min);
        GapAxis {
            epsilon: log.then(|| 10f64.powf(min.log10().floor() - 1.0)),
        }
    }

    /// Where a gap (in %) is drawn.
    pub fn at(&self, gap: f64) -> f64 {
        gap + self.epsilon.unwrap_or(0.0)
    }

    /// Whether the axis is logarithmic.
    pub fn log(&self) -> bool {
        self.epsilon.is_some()
    }

    /// The axis description for `what` (e.g. "gap to best known"), saying
    /// what a log axis plots.
    pub fn desc(&self, what: &str) -> String {
        match self.epsilon {
            None => format!("{what} (%)"),
            Some(e) => format!(
                "{what} + ε (%, log scale; ε = {}, so a gap of 0 is drawn at ε)",
                fmt_tick(e)
            ),
        }
    }
}

fn plot_err(e: impl std::fmt::Display) -> Error {
    Error::Usage(format!("plot: {e}"))
}

/// Axis range over `values` (padded; strictly positive for log axes).
fn axis_range(values: impl Iterator<Item = f64>, log: bool) -> (f64, f64) {
    let v: Vec<f64> = values
        .filter(|x| x.is_finite() && (!log || *x > 0.0))
        .collect();
    let lo = v.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if !lo.is_finite() {
        return if log { (0.1, 10.0) } else { (0.0, 1.0) };
    }
    if log {
        // Whole decades, so a log axis always shows at least two labelled
        // powers of ten (a value at a power of ten starts or ends the axis).
        let lo = 10f64.powf((lo.log10() + 1e-9).floor());
        let hi = 10f64.powf((hi.log10() - 1e-9).ceil());
        (lo * 0.98, hi.max(lo * 10.0) * 1.02)
    } else if (hi - lo).abs() < 1e-12 {
        (
            lo - 0.5_f64.max(lo.abs() * 0.1),
            hi + 0.5_f64.max(hi.abs() * 0.1),
        )
    } else {
        let pad = (hi - lo) * 0.06;
        (lo - pad, hi + pad)
    }
}

/// Draws `series` into an SVG at `path`. Points with a non-positive
/// coordinate on a log axis are left out.
pub fn draw_chart(path: &Path, spec: &ChartSpec, series: &[Series]) -> Result<()> {
    draw_chart_in(path, spec, series, None, None)
}

/// [`draw_chart`] with fixed axis ranges (`(low, high)`; `None` = fitted to
/// the data), e.g. a profile's fraction axis from 0 to 1.
pub fn draw_chart_in(
    path: &Path,
    spec: &ChartSpec,
    series: &[Series],
    x_range: Option<(f64, f64)>,
    y_range: Option<(f64, f64)>,
) -> Result<()> {
    let keep = |p: &(f64, f64)| {
        p.0.is_finite()
            && p.1.is_finite()
            && (!spec.log_x || p.0 > 0.0)
            && (!spec.log_y || p.1 > 0.0)
    };
    let series: Vec<Series> = series
        .iter()
        .map(|s| Series {
            points: s.points.iter().copied().filter(keep).collect(),
            ..s.clone()
        })
        .collect();
    let xs = x_range.unwrap_or_else(|| {
        axis_range(
            series.iter().flat_map(|s| s.points.iter().map(|p| p.0)),
            spec.log_x,
        )
    });
    let ys = y_range.unwrap_or_else(|| {
        axis_range(
            series.iter().flat_map(|s| s.points.iter().map(|p| p.1)),
            spec.log_y,
        )
    });
    match (spec.log_x, spec.log_y) {
        (false, false) => draw_on(path, spec, &series, xs.0..xs.1, ys.0..ys.1),
        (true, false) => draw_on(path, spec, &series, (xs.0..xs.1).log_scale(), ys.0..ys.1),
        (false, true) => draw_on(path, spec, &series, xs.0..xs.1, (ys.0..ys.1).log_scale()),
        (true, true) => draw_on(
            path,
            spec,
            &series,
            (xs.0..xs.1).log_scale(),
            (ys.0..ys.1).log_scale(),
        ),
    }
}

fn fmt_tick(v: f64) -> String {
    let a = v.abs();
    if a == 0.0 {
        "0".into()
    } else if !(1e-3..1e5).contains(&a) {
        format!("{v:.0e}")
    } else if a >= 100.0 {
        format!("{v:.0}")
    } else {
        let s = format!("{v:.3}");
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

/// Width of the legend panel right of the plot area (the legend never
/// covers data).
const LEGEND_WIDTH: u32 = 300;

fn draw_on<X, Y>(path: &Path, spec: &ChartSpec, series: &[Series], x: X, y: Y) -> Result<()>
where
    X: AsRangedCoord<Value = f64>,
    Y: AsRangedCoord<Value = f64>,
    X::CoordDescType: Ranged<ValueType = f64> + ValueFormatter<f64>,
    Y::CoordDescType: Ranged<ValueType = f64> + ValueFormatter<f64>,
{
    let root = SVGBackend::new(path, (960 + LEGEND_WIDTH, 600)).into_drawing_area();
    root.fill(&WHITE).map_err(plot_err)?;
    let (plot_area, legend_area) = root.split_horizontally(960);
    let mut chart = ChartBuilder::on(&plot_area)
        .caption(&spec.title, ("sans-serif", 22))
        .margin(16)
        .x_label_area_size(52)
        .y_label_area_size(72)
        .build_cartesian_2d(x, y)
        .map_err(plot_err)?;
    chart
        .configure_mesh()
        .x_desc(&spec.x_desc)
        .y_desc(&spec.y_desc)
        .x_label_formatter(&|v| fmt_tick(*v))
        .y_label_formatter(&|v| fmt_tick(*v))
        .axis_desc_style(("sans-serif", 17))
        .label_style(("sans-serif", 14))
        .light_line_style(RGBColor(235, 235, 235))
        .draw()
        .map_err(plot_err)?;
    for (i, s) in series.iter().enumerate() {
        let color = COLORS[i % COLORS.len()];
        let mut pts = s.points.clone();
        if s.style != Style::Points {
            pts.sort_by(|a, b| a.0.total_cmp(&b.0));
            let path = match s.style {
                Style::Step => step_path(&pts),
                _ => pts.clone(),
            };
            draw_line(&mut chart, i, path, color)?;
        }
        let fill = color.mix(if s.style == Style::Points { 0.55 } else { 1.0 });
        for p in &pts {
            draw_marker(&plot_area, i, chart.backend_coord(p), fill)?;
        }
    }
    draw_legend(&legend_area, series)?;
    root.present().map_err(plot_err)
}

/// The corners of a right-continuous step function through `pts` (sorted
/// by x): each level runs to the next point's x.
fn step_path(pts: &[(f64, f64)]) -> Vec<(f64, f64)> {
    let mut out = Vec::with_capacity(2 * pts.len());
    for (k, p) in pts.iter().enumerate() {
        if let Some(prev) = k.checked_sub(1).and_then(|j| pts.get(j)) {
            out.push((p.0, prev.1));
        }
        out.push(*p);
    }
    out
}

/// Dash pattern by series index (`(dash, gap)` in pixels; `None` = solid), so
/// lines stay apart in greyscale.
fn dash(i: usize) -> Option<(u32, u32)> {
    [None, Some((10, 5)), Some((3, 4)), Some((16, 6))][(i / COLORS.len() + i) % 4]
}

fn draw_line<DB: DrawingBackend, CT: CoordTranslate<From = (f64, f64)>>(
    chart: &mut ChartContext<'_, DB, CT>,
    i: usize,
    pts: Vec<(f64, f64)>,
    color: RGBColor,
) -> Result<()> {
    let style = color.stroke_width(2);
    match dash(i) {
        None => chart.draw_series(LineSeries::new(pts, style)).map(|_| ()),
        Some((d, g)) => chart
            .draw_series(DashedLineSeries::new(pts, d, g, style))
            .map(|_| ()),
    }
    .map_err(plot_err)
}

/// The legend, one row per series (its marker, its line pattern, its label;
/// series with identical points are named together), in its own panel.
fn draw_legend<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, series: &[Series]) -> Result<()> {
    let font = ("sans-serif", 14).into_font();
    let mut y = 70;
    for (i, s) in series.iter().enumerate() {
        let color = COLORS[i % COLORS.len()];
        let line: Vec<(i32, i32)> = vec![(8, y), (40, y)];
        if s.style != Style::Points {
            let style = color.stroke_width(2);
            match dash(i) {
                None => area.draw(&PathElement::new(line, style)),
                Some((d, g)) => area.draw(&DashedPathElement::new(line, d, g, style)),
            }
            .map_err(plot_err)?;
        }
        draw_marker(area, i, (24, y), color.into())?;
        let same: Vec<String> = series
            .iter()
            .filter(|o| o.label != s.label)
            .filter_map(|o| coincide(s, o))
            .collect();
        let label = if same.is_empty() {
            s.label.clone()
        } else {
            format!("{} ({})", s.label, same.join("; "))
        };
        let lines = wrap(&label, LEGEND_CHARS);
        for (k, text) in lines.iter().enumerate() {
            area.draw(&Text::new(
                text.clone(),
                (48, y - 8 + 17 * k as i32),
                font.clone(),
            ))
            .map_err(plot_err)?;
        }
        y += 10 + 17 * lines.len().max(1) as i32;
    }
    Ok(())
}

/// Characters per legend line (the legend panel is [`LEGEND_WIDTH`] wide).
const LEGEND_CHARS: usize = 30;

/// Splits `text` into lines of at most `width` characters at spaces (a
/// longer word gets a line of its own).
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut cur = String::new();
    for word in text.split_whitespace() {
        if !cur.is_empty() && cur.chars().count() + 1 + word.chars().count() > width {
            lines.push(std::mem::take(&mut cur));
        }
        if !cur.is_empty() {
            cur.push(' ');
        }
        cur.push_str(word);
    }
    if !cur.is_empty() {
        lines.push(cur);
    }
    lines
}

/// How `a` hides under `b`: `= b` when every point of `a` is one of `b`'s,
/// `= b at k of n` when at least half are (points and lines; a step curve
/// only when it is `b` whole); `None` otherwise.
fn coincide(a: &Series, b: &Series) -> Option<String> {
    let n = a.points.len();
    let k = a
        .points
        .iter()
        .filter(|p| {
            b.points
                .iter()
                .any(|q| q.0 == p.0 && (q.1 - p.1).abs() <= 1e-9)
        })
        .count();
    // A step curve (a profile) shares its end points with most others: only
    // a whole curve drawn twice is worth a note.
    let whole = k == n && b.points.len() == n;
    if matches!(a.style, Style::Step) && !whole {
        return None;
    }
    if n == 0 || 2 * k < n.max(2) {
        None
    } else if k == n {
        Some(format!("= {}", b.label))
    } else {
        Some(format!("= {} at {k} of {n}", b.label))
    }
}

/// Draws series `i`'s marker at pixel `at`: eight shapes (filled and hollow
/// circle, square and triangle, an upright and a diagonal cross), so shape
/// as well as colour and dash tells series apart.
fn draw_marker<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    i: usize,
    at: (i32, i32),
    color: RGBAColor,
) -> Result<()> {
    let (x, y) = at;
    let filled = color.filled();
    let hollow = color.stroke_width(2);
    let square = [(x - 4, y - 4), (x + 4, y + 4)];
    let r = match i % 8 {
        0 => area.draw(&Circle::new(at, 4, filled)),
        1 => area.draw(&TriangleMarker::new(at, 5, filled)),
        2 => area.draw(&Rectangle::new(square, filled)),
        3 => area.draw(&Cross::new(at, 4, hollow)),
        4 => area.draw(&Circle::new(at, 4, hollow)),
        5 => area.draw(&Rectangle::new(square, hollow)),
        6 => area.draw(&TriangleMarker::new(at, 5, hollow)),
        _ => area
            .draw(&PathElement::new(vec![(x - 5, y), (x + 5, y)], hollow))
            .and_then(|_| area.draw(&PathElement::new(vec![(x, y - 5), (x, y + 5)], hollow))),
    };
    r.map_err(plot_err)
}

/// Rows grouped by problem, then engine (in `order`, then first appearance).
fn by_problem_engine<'a>(
    rows: &'a [BenchRow],
    order: &[String],
) -> BTreeMap<&'a str, Vec<(&'a str, Vec<&'a BenchRow>)>> {
    let mut out: BTreeMap<&str, Vec<(&str, Vec<&BenchRow>)>> = BTreeMap::new();
    for r in rows {
        let engines = out.entry(r.problem.as_str()).or_default();
        match engines.iter_mut().find(|(e, _)| *e == r.engine) {
            Some((_, v)) => v.push(r),
            None => engines.push((r.engine.as_str(), vec![r])),
        }
    }
    let rank = |e: &str| order.iter().position(|k| k == e).unwrap_or(order.len());
    for engines in out.values_mut() {
        engines.sort_by_key(|(e, _)| rank(e));
    }
    out
}

/// Writes `gap-vs-time-<problem>.svg`, `time-vs-size-<problem>.svg` and the
/// profiles `perf-profile-<problem>.svg`, `gap-profile-<problem>.svg` (see
/// [`crate::app::report::profile`]) into `dir` (legend in `engine_order`); returns
/// the files written.
pub fn write_bench_plots(
    rows: &[BenchRow],
    dir: &Path,
    engine_order: &[String],
    registry: &Registry,
) -> Result<Vec<PathBuf>> {
    let mut written = Vec::new();
    for (problem, engines) in by_problem_engine(rows, engine_order) {
        let gaps: Vec<f64> = engines
            .iter()
            .flat_map(|(_, rs)| rs.iter().filter_map(|r| r.gap.map(|g| 100.0 * g)))
            .collect();
        let axis = GapAxis::fit(&gaps);
        let gap: Vec<Series> = engines
            .iter()
            .map(|(e, rs)| Series {
                label: e.to_string(),
                points: rs
                    .iter()
                    .filter_map(|r| r.gap.map(|g| (r.time_ms.max(1e-3), axis.at(100.0 * g))))
                    .collect(),
                style: Style::Points,
                counts: Vec::new(),
            })
            .collect();
        let path = dir.join(format!("gap-vs-time-{problem}.svg"));
        let spec = ChartSpec {
            title: format!("{problem}: gap to best known vs runtime"),
            x_desc: "engine runtime (ms, log scale)".into(),
            y_desc: axis.desc("gap to best known"),
            log_x: true,
            log_y: axis.log(),
        };
        draw_chart(&path, &spec, &gap)?;
        written.push(path);
        let path = dir.join(format!("time-vs-size-{problem}.svg"));
        let sizes = size_series(&engines);
        let log_size = spans_decades(sizes.iter().flat_map(|s| s.points.iter().map(|p| p.0)));
        draw_chart(&path, &size_spec(problem, log_size, registry), &sizes)?;
        written.push(path);
        let flat: Vec<&BenchRow> = engines
            .iter()
            .flat_map(|(_, rs)| rs.iter().copied())
            .collect();
        written.extend(profile::write_profile_plots(problem, &flat, dir)?);
    }
    Ok(written)
}

/// The runtime-vs-size chart; `log_x` when the sizes span decades.
fn size_spec(problem: &str, log_x: bool, registry: &Registry) -> ChartSpec {
    ChartSpec {
        title: format!("{problem}: runtime vs instance size (line: median)"),
        x_desc: format!(
            "instance size ({}{})",
            registry
                .reader_of(problem)
                .map(|f| f.size_label())
                .unwrap_or("problem-defined"),
            if log_x { ", log scale" } else { "" }
        ),
        y_desc: "engine runtime (ms, log scale)".into(),
        log_x,
        log_y: true,
    }
}

/// Median runtime per distinct size, per engine.
fn size_series(engines: &[(&str, Vec<&BenchRow>)]) -> Vec<Series> {
    engines
        .iter()
        .map(|(e, rs)| {
            let mut per: BTreeMap<u64, Vec<f64>> = BTreeMap::new();
            for r in rs {
                if let Some(s) = r.size {
                    per.entry(s.to_bits())
                        .or_default()
                        .push(r.time_ms.max(1e-3));
                }
            }
            Series {
                label: e.to_string(),
                points: per
                    .into_iter()
                    .filter_map(|(s, t)| median(&t).map(|m| (f64::from_bits(s), m)))
                    .collect(),
                style: Style::Line,
                counts: Vec::new(),
            }
        })
        .collect()
}

/// Appends a Markdown table with one row per series and one column per
/// distinct x (ascending): the numbers behind a chart. `corner` heads the
/// label column; `x_label` names each x column; missing points show `–`;
/// a point that aggregates runs shows how many (`n=`).
pub fn series_table(
    md: &mut String,
    corner: &str,
    x_label: impl Fn(f64) -> String,
    series: &[Series],
) {
    use std::fmt::Write;
    let mut xs: Vec<f64> = series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.0))
        .collect();
    xs.sort_by(f64::total_cmp);
    xs.dedup();
    let head: Vec<String> = xs.iter().map(|&x| x_label(x)).collect();
    let _ = writeln!(md, "\n| {corner} | {} |", head.join(" | "));
    let _ = writeln!(md, "|---|{}", "---:|".repeat(xs.len()));
    for s in series {
        let cells: Vec<String> = xs
            .iter()
            .map(|x| {
                let at = s.points.iter().position(|p| p.0 == *x);
                match (at, at.and_then(|k| s.counts.get(k))) {
                    (None, _) => "–".into(),
                    (Some(k), Some(n)) => format!("{:.3} (n={n})", s.points[k].1),
                    (Some(k), None) => format!("{:.3}", s.points[k].1),
                }
            })
            .collect();
        let _ = writeln!(md, "| {} | {} |", s.label, cells.join(" | "));
    }
}

#[cfg(test)]
mod tests {
    use super::{spans_decades, step_path, wrap, GapAxis};

    #[test]
    fn gap_axes_turn_logarithmic_past_two_decades() {
        let linear = GapAxis::fit(&[0.0, 1.0, 50.0]);
        assert_eq!((linear.log(), linear.at(3.0)), (false, 3.0));
        assert_eq!(linear.desc("gap"), "gap (%)");
        // 0.5 % to 1,100 %: ε = 0.01 % (a decade below 0.5's decade).
        let log = GapAxis::fit(&[0.0, 0.5, 3.0, 1100.0]);
        assert!(log.log());
        assert!((log.at(0.0) - 0.01).abs() < 1e-12);
        assert!(log.desc("gap").contains("ε = 0.01"), "{}", log.desc("gap"));
        // A negative gap keeps the axis linear; so does a single value.
        assert!(!GapAxis::fit(&[-1.0, 0.5, 1100.0]).log());
        assert!(!GapAxis::fit(&[0.0, 7.0]).log());
        assert!(spans_decades([1.0, 100.5].into_iter()));
        assert!(!spans_decades([0.0, 1.0, 100.0].into_iter()));
    }

    #[test]
    fn a_step_path_holds_each_level_to_the_next_x() {
        let p = step_path(&[(0.0, 0.5), (1.0, 0.75), (2.0, 1.0)]);
        assert_eq!(
            p,
            vec![(0.0, 0.5), (1.0, 0.5), (1.0, 0.75), (2.0, 0.75), (2.0, 1.0)]
        );
        assert!(step_path(&[]).is_empty());
    }

    #[test]
    fn legend_labels_wrap_at_spaces() {
        assert_eq!(wrap("a bb ccc", 4), vec!["a bb", "ccc"]);
        assert_eq!(wrap("averylongword x", 4), vec!["averylongword", "x"]);
        assert!(wrap("", 4).is_empty());
    }
}
