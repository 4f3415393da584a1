//! Dolan–Moré performance profiles of one problem's rows (Dolan & Moré,
//! "Benchmarking optimization software with performance profiles", 2002):
//! the pure computation ([`performance_profile`], [`gap_profile`]) and the
//! two SVGs per problem drawn from it ([`write_profile_plots`]).
//!
//! Both profiles run over every instance file of the problem (any row on
//! it): an engine that did not run on an instance, or did not solve it,
//! never counts there, so each curve ends at the fraction of instances the
//! engine solved.

use crate::app::report::plot::{draw_chart_in, ChartSpec, GapAxis, Series, Style};
use crate::app::report::summary::median;
use crate::bench::row::BenchRow;
use crate::core::Status;
use crate::error::Result;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// A feasible row "reaches the best known" (and solves its instance for the
/// time profile) when its gap is at most this.
pub const SOLVED_GAP: f64 = 1e-9;

/// Times are clamped to at least this (ms), so a ratio never divides by 0.
pub const MIN_TIME_MS: f64 = 1e-3;

/// One step curve per engine: `(x, fraction of instances)` breakpoints,
/// right-continuous, x ascending, the last one at the profile's right end.
pub type Profile = Vec<(String, Vec<(f64, f64)>)>;

/// Whether a row solves its instance for the time profile: status
/// `optimal`, or `feasible` at the best known (gap ≤ [`SOLVED_GAP`]).
pub fn solves(r: &BenchRow) -> bool {
    r.status == Status::Optimal
        || (r.status == Status::Feasible && r.gap.is_some_and(|g| g.abs() <= SOLVED_GAP))
}

/// The time profile of `rows` (one problem): per engine (in order of first
/// appearance) the fraction ρ(τ) of instances it solved (see [`solves`])
/// within τ times the fastest engine that solved the instance. With
/// repetitions an engine's time on an instance is the median over its
/// solving rows. x = τ, from 1 to the largest finite ratio (at least 2).
pub fn performance_profile(rows: &[&BenchRow]) -> Profile {
    let times = medians(rows, |r| solves(r).then_some(r.time_ms.max(MIN_TIME_MS)));
    let mut best: BTreeMap<&str, f64> = BTreeMap::new();
    for (_, per) in &times {
        for (f, t) in per {
            let b = best.entry(f).or_insert(*t);
            *b = b.min(*t);
        }
    }
    let ratios: Vec<(&str, Vec<f64>)> = times
        .iter()
        .map(|(e, per)| {
            let r = per
                .iter()
                .filter_map(|(f, t)| best.get(f).map(|b| t / b))
                .collect();
            (*e, r)
        })
        .collect();
    let end = ratios
        .iter()
        .flat_map(|(_, r)| r.iter().copied())
        .fold(2.0, f64::max);
    curves(&ratios, instance_count(rows), 1.0, end)
}

/// The gap profile of `rows` (one problem): per engine the fraction of
/// instances whose gap to the best known is ≤ g (with repetitions, the
/// median gap over its rows with a solution; rows without one never
/// count). x = g (a fraction), from 0 to the largest finite gap (1 % when
/// every gap is 0).
pub fn gap_profile(rows: &[&BenchRow]) -> Profile {
    let gaps = medians(rows, |r| r.gap.filter(|g| g.is_finite()));
    let values: Vec<(&str, Vec<f64>)> = gaps
        .iter()
        .map(|(e, per)| (*e, per.values().copied().collect()))
        .collect();
    let max = values
        .iter()
        .flat_map(|(_, v)| v.iter().copied())
        .fold(0.0, f64::max);
    let end = if max > 0.0 { max } else { 0.01 };
    curves(&values, instance_count(rows), 0.0, end)
}

/// Distinct instance files.
fn instance_count(rows: &[&BenchRow]) -> usize {
    rows.iter()
        .map(|r| r.file.as_str())
        .collect::<BTreeSet<_>>()
        .len()
}

/// Per engine (first appearance), per file, the median of `value` over the
/// rows where it is `Some` (engines with no such row keep an empty map).
fn medians<'a>(
    rows: &[&'a BenchRow],
    value: impl Fn(&BenchRow) -> Option<f64>,
) -> Vec<(&'a str, BTreeMap<&'a str, f64>)> {
    let mut per: Vec<(&str, BTreeMap<&str, Vec<f64>>)> = Vec::new();
    for r in rows {
        let k = match per.iter().position(|(e, _)| *e == r.engine) {
            Some(k) => k,
            None => {
                per.push((&r.engine, BTreeMap::new()));
                per.len() - 1
            }
        };
        if let Some(v) = value(r) {
            if let Some((_, m)) = per.get_mut(k) {
                m.entry(r.file.as_str()).or_default().push(v);
            }
        }
    }
    per.into_iter()
        .map(|(e, m)| {
            let med = m
                .into_iter()
                .filter_map(|(f, v)| median(&v).map(|x| (f, x)))
                .collect();
            (e, med)
        })
        .collect()
}

/// The step curves: per engine, ρ(x) = #{values ≤ x} / `n` at `start`, at
/// each distinct value inside (`start`, `end`) and at `end`.
fn curves(values: &[(&str, Vec<f64>)], n: usize, start: f64, end: f64) -> Profile {
    if n == 0 {
        return Vec::new();
    }
    values
        .iter()
        .map(|(e, v)| {
            let mut v = v.clone();
            v.sort_by(f64::total_cmp);
            let rho = |x: f64| v.iter().filter(|&&y| y <= x).count() as f64 / n as f64;
            let mut pts = vec![(start, rho(start))];
            for &x in &v {
                if x > pts[pts.len() - 1].0 && x < end {
                    pts.push((x, rho(x)));
                }
            }
            if end > pts[pts.len() - 1].0 {
                pts.push((end, rho(end)));
            }
            (e.to_string(), pts)
        })
        .collect()
}

/// The fraction axis, with room for curves at 0 and 1.
const FRACTION_AXIS: (f64, f64) = (-0.02, 1.02);

/// Writes `perf-profile-<problem>.svg` (x = log₂ τ) and
/// `gap-profile-<problem>.svg` (x = gap in %, logarithmic in gap + ε when
/// the gaps span decades: [`GapAxis`]) into `dir` from `rows` (one
/// problem; engines in order of first appearance); returns the files.
pub fn write_profile_plots(problem: &str, rows: &[&BenchRow], dir: &Path) -> Result<Vec<PathBuf>> {
    let series = |p: Profile, fx: &dyn Fn(f64) -> f64| -> Vec<Series> {
        p.into_iter()
            .map(|(label, pts)| Series {
                label,
                points: pts.into_iter().map(|(x, y)| (fx(x), y)).collect(),
                style: Style::Step,
                counts: Vec::new(),
            })
            .collect()
    };
    let right = |s: &[Series]| {
        s.iter()
            .flat_map(|s| s.points.last())
            .fold(0.0, |m, p| p.0.max(m))
    };
    let time = series(performance_profile(rows), &f64::log2);
    let spec = ChartSpec {
        title: format!("{problem}: time profile (Dolan–Moré)"),
        x_desc: "log2 τ, τ = time / fastest time that solved the instance \
                 (solved: optimal, or feasible at the best known)"
            .into(),
        y_desc: "fraction of instances solved within τ".into(),
        log_x: false,
        log_y: false,
    };
    let perf = dir.join(format!("perf-profile-{problem}.svg"));
    let x = (0.0, right(&time).max(1.0));
    draw_chart_in(&perf, &spec, &time, Some(x), Some(FRACTION_AXIS))?;
    let profile = gap_profile(rows);
    let gaps: Vec<f64> = profile
        .iter()
        .flat_map(|(_, pts)| pts.iter().map(|p| 100.0 * p.0))
        .collect();
    let axis = GapAxis::fit(&gaps);
    let gap = series(profile, &|g| axis.at(100.0 * g));
    let spec = ChartSpec {
        title: format!("{problem}: gap profile"),
        x_desc: axis.desc("gap to the best known, g"),
        y_desc: "fraction of instances with a solution at gap ≤ g".into(),
        log_x: axis.log(),
        log_y: false,
    };
    let path = dir.join(format!("gap-profile-{problem}.svg"));
    // A linear axis starts at 0; a logarithmic one is fitted (from ε).
    let x = (!axis.log()).then(|| (0.0, right(&gap).max(1e-6)));
    draw_chart_in(&path, &spec, &gap, x, Some(FRACTION_AXIS))?;
    Ok(vec![perf, path])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(file: &str, engine: &str, status: Status, time_ms: f64, gap: Option<f64>) -> BenchRow {
        serde_json::from_value(serde_json::json!({
            "instance": file, "problem": "spd", "engine": engine, "status": status,
            "objective": null, "best_known": null, "best_known_is_optimal": null,
            "gap": gap, "time_ms": time_ms, "repetition": 0, "file": file,
            "bound": null, "size": null, "check": null, "message": null,
        }))
        .expect("a valid row")
    }

    /// e1 exact (optimal everywhere), e2 a heuristic reaching the best
    /// known on a and b only. Ratios: a: e1 1, e2 2; b: e1 4, e2 1;
    /// c: e1 1, e2 ∞.
    fn two_by_three() -> Vec<BenchRow> {
        vec![
            row("a", "e1", Status::Optimal, 10.0, Some(0.0)),
            row("a", "e2", Status::Feasible, 20.0, Some(0.0)),
            row("b", "e1", Status::Optimal, 40.0, Some(0.0)),
            row("b", "e2", Status::Feasible, 10.0, Some(0.0)),
            row("c", "e1", Status::Optimal, 5.0, Some(0.0)),
            row("c", "e2", Status::Feasible, 1.0, Some(0.1)),
        ]
    }

    #[test]
    fn time_profile_of_two_engines_on_three_instances() {
        let rows = two_by_three();
        let refs: Vec<&BenchRow> = rows.iter().collect();
        let p = performance_profile(&refs);
        let third = 1.0 / 3.0;
        assert_eq!(p[0], ("e1".into(), vec![(1.0, 2.0 / 3.0), (4.0, 1.0)]));
        assert_eq!(
            p[1],
            (
                "e2".into(),
                vec![(1.0, third), (2.0, 2.0 / 3.0), (4.0, 2.0 / 3.0)]
            )
        );
    }

    #[test]
    fn time_outs_never_solve_and_repetitions_take_the_median() {
        let mut rows = two_by_three();
        // e2 on c: a time-out at gap 0 is not "solved"; e1 on a: two more
        // repetitions, median 30 (ratio 1.5 against e2's 20 → e2 now 1).
        rows.push(row("c", "e2", Status::TimeLimit, 1.0, Some(0.0)));
        rows.push(row("a", "e1", Status::Optimal, 30.0, Some(0.0)));
        rows.push(row("a", "e1", Status::Optimal, 50.0, Some(0.0)));
        let refs: Vec<&BenchRow> = rows.iter().collect();
        let p = performance_profile(&refs);
        let third = 1.0 / 3.0;
        assert_eq!(p[0].1, vec![(1.0, third), (1.5, 2.0 / 3.0), (4.0, 1.0)]);
        assert_eq!(p[1].1, vec![(1.0, 2.0 / 3.0), (4.0, 2.0 / 3.0)]);
    }

    #[test]
    fn gap_profile_counts_only_rows_with_a_solution() {
        let mut rows = two_by_three();
        rows.push(row("d", "e1", Status::Error, 1.0, None));
        rows.push(row("d", "e2", Status::Feasible, 1.0, Some(0.05)));
        let refs: Vec<&BenchRow> = rows.iter().collect();
        let p = gap_profile(&refs);
        // Four instances; e1: gaps 0, 0, 0 (d has none); e2: 0, 0, 0.1, 0.05.
        assert_eq!(p[0].1, vec![(0.0, 0.75), (0.1, 0.75)]);
        assert_eq!(p[1].1, vec![(0.0, 0.5), (0.05, 0.75), (0.1, 1.0)]);
    }

    #[test]
    fn no_rows_no_curves() {
        assert!(performance_profile(&[]).is_empty() && gap_profile(&[]).is_empty());
    }
}
