//! `summary.md`: per problem × engine aggregates of an annotated result set.

use crate::bench::row::{BenchRow, CONFLICT};
use crate::core::Status;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

/// Shift of the time SGM in [`EngineSummary::sgm_ms_10s`], ms (MIPLIB's 10 s).
pub const SGM_SHIFT_MS_10S: f64 = 10_000.0;
/// Shift of the time SGM in [`EngineSummary::sgm_ms_1ms`], ms (for fast
/// heuristics, whose times a 10 s shift would flatten).
pub const SGM_SHIFT_MS_1MS: f64 = 1.0;
/// Shift of the gap SGM in [`EngineSummary::sgm_gap`] (1 %, as a fraction).
pub const SGM_SHIFT_GAP: f64 = 0.01;

/// Aggregates of one (problem, engine); `summary.json` holds them as flat
/// objects.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct EngineSummary {
    /// Problem name.
    pub problem: String,
    /// Engine name.
    pub engine: String,
    /// Distinct instance files with a row.
    pub instances: usize,
    /// Rows (instances × repetitions).
    pub runs: usize,
    /// Solved instances: those with an `optimal` row within its time limit
    /// (see [`timed_out`]); without a limit, every `optimal` row counts.
    pub solved: usize,
    /// Instances where some row reached the best known objective (gap 0).
    pub at_best: usize,
    /// Rows with status `error`.
    pub errors: usize,
    /// Rows with status `infeasible`.
    pub infeasible: usize,
    /// Rows with status `time_limit`.
    pub time_limits: usize,
    /// Mean gap over rows with a gap.
    pub mean_gap: Option<f64>,
    /// Median gap.
    pub median_gap: Option<f64>,
    /// Largest gap.
    pub max_gap: Option<f64>,
    /// Shifted geometric mean of the gap over rows with a gap, shift
    /// [`SGM_SHIFT_GAP`] (1 %).
    pub sgm_gap: Option<f64>,
    /// Median time, ms (every row).
    pub median_ms: Option<f64>,
    /// 95th percentile time, ms (nearest rank).
    pub p95_ms: Option<f64>,
    /// Shifted geometric mean of [`counted_time_ms`] over every row, shift
    /// [`SGM_SHIFT_MS_10S`] (10 s).
    pub sgm_ms_10s: Option<f64>,
    /// The same with shift [`SGM_SHIFT_MS_1MS`] (1 ms).
    pub sgm_ms_1ms: Option<f64>,
}

/// The shifted geometric mean `exp(mean(ln(v_i + shift))) − shift`, the
/// operations-research convention for times and gaps (a shift damps the
/// weight of tiny values). `None` when `values` is empty or some value is
/// not finite or has `v + shift <= 0`. The result is clamped to
/// `[min, max]` of `values` (where the exact mean lies), so rounding never
/// turns equal values into a slightly different mean.
///
/// ```
/// use serverpick::app::report::summary::shifted_geometric_mean;
/// let g = shifted_geometric_mean(&[1.0, 10.0, 100.0], 0.0).unwrap();
/// assert!((g - 10.0).abs() < 1e-9);
/// // Shift 1: exp(mean(ln 1, ln 3)) − 1 = √3 − 1.
/// let s = shifted_geometric_mean(&[0.0, 2.0], 1.0).unwrap();
/// assert!((s - (3f64.sqrt() - 1.0)).abs() < 1e-12);
/// assert_eq!(shifted_geometric_mean(&[], 1.0), None);
/// ```
pub fn shifted_geometric_mean(values: &[f64], shift: f64) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    let (mut sum, mut lo, mut hi) = (0.0, f64::INFINITY, f64::NEG_INFINITY);
    for &v in values {
        let x = v + shift;
        if !v.is_finite() || !x.is_finite() || x <= 0.0 {
            return None;
        }
        sum += x.ln();
        (lo, hi) = (lo.min(v), hi.max(v));
    }
    Some(((sum / values.len() as f64).exp() - shift).clamp(lo, hi))
}

/// Whether a row counts as a time-out: status `time_limit` or `error`, or a
/// time above its limit (`time_limit_s`, when the row has one).
pub fn timed_out(r: &BenchRow) -> bool {
    matches!(r.status, Status::TimeLimit | Status::Error)
        || r.time_limit_s.is_some_and(|t| r.time_ms > 1e3 * t)
}

/// The time a row counts with in the time SGMs, ms: a time-out (see
/// [`timed_out`]) counts at the row's time limit when it has one, else at
/// its own time; every other row at its own time.
pub fn counted_time_ms(r: &BenchRow) -> f64 {
    match r.time_limit_s {
        Some(t) if timed_out(r) => 1e3 * t,
        _ => r.time_ms,
    }
}

/// The `q`-quantile (nearest rank) of `v`, `None` when empty.
pub fn quantile(v: &[f64], q: f64) -> Option<f64> {
    let mut s: Vec<f64> = v.iter().copied().filter(|x| x.is_finite()).collect();
    if s.is_empty() {
        return None;
    }
    s.sort_by(f64::total_cmp);
    let rank = (q * s.len() as f64).ceil().max(1.0) as usize;
    Some(s[rank.min(s.len()) - 1])
}

/// The median (mean of the two middle values for an even count).
pub fn median(v: &[f64]) -> Option<f64> {
    let mut s: Vec<f64> = v.iter().copied().filter(|x| x.is_finite()).collect();
    if s.is_empty() {
        return None;
    }
    s.sort_by(f64::total_cmp);
    let n = s.len();
    Some(if n % 2 == 1 {
        s[n / 2]
    } else {
        (s[n / 2 - 1] + s[n / 2]) / 2.0
    })
}

/// Aggregates per (problem, engine): problems by name, engines in
/// `engine_order` (names not in it after, in order of first appearance).
pub fn summarize(rows: &[BenchRow], engine_order: &[String]) -> Vec<EngineSummary> {
    let mut order: Vec<(String, String)> = Vec::new();
    let mut groups: BTreeMap<(String, String), Vec<&BenchRow>> = BTreeMap::new();
    for r in rows {
        let key = (r.problem.clone(), r.engine.clone());
        if !groups.contains_key(&key) {
            order.push(key.clone());
        }
        groups.entry(key).or_default().push(r);
    }
    let rank = |e: &str| {
        engine_order
            .iter()
            .position(|k| k == e)
            .unwrap_or(engine_order.len())
    };
    order.sort_by(|a, b| a.0.cmp(&b.0).then(rank(&a.1).cmp(&rank(&b.1))));
    order
        .into_iter()
        .map(|key| {
            let g = &groups[&key];
            summarize_group(key.0, key.1, g)
        })
        .collect()
}

fn summarize_group(problem: String, engine: String, g: &[&BenchRow]) -> EngineSummary {
    let files = |pred: &dyn Fn(&BenchRow) -> bool| {
        g.iter()
            .filter(|r| pred(r))
            .map(|r| r.file.as_str())
            .collect::<BTreeSet<_>>()
            .len()
    };
    let count = |s: Status| g.iter().filter(|r| r.status == s).count();
    let gaps: Vec<f64> = g.iter().filter_map(|r| r.gap).collect();
    let times: Vec<f64> = g.iter().map(|r| r.time_ms).collect();
    let counted: Vec<f64> = g.iter().map(|r| counted_time_ms(r)).collect();
    EngineSummary {
        instances: files(&|_| true),
        runs: g.len(),
        solved: files(&|r| r.status == Status::Optimal && !timed_out(r)),
        at_best: files(&|r| r.gap.is_some_and(|x| x.abs() <= 1e-9)),
        errors: count(Status::Error),
        infeasible: count(Status::Infeasible),
        time_limits: count(Status::TimeLimit),
        mean_gap: (!gaps.is_empty()).then(|| gaps.iter().sum::<f64>() / gaps.len() as f64),
        median_gap: median(&gaps),
        max_gap: gaps.iter().copied().reduce(f64::max),
        sgm_gap: shifted_geometric_mean(&gaps, SGM_SHIFT_GAP),
        median_ms: median(&times),
        p95_ms: quantile(&times, 0.95),
        sgm_ms_10s: shifted_geometric_mean(&counted, SGM_SHIFT_MS_10S),
        sgm_ms_1ms: shifted_geometric_mean(&counted, SGM_SHIFT_MS_1MS),
        problem,
        engine,
    }
}

fn pct(x: Option<f64>) -> String {
    x.map(|v| format!("{:.2}%", 100.0 * v))
        .unwrap_or_else(|| "–".into())
}

fn ms(x: Option<f64>) -> String {
    match x {
        Some(v) if v >= 100.0 => format!("{v:.0}"),
        Some(v) => format!("{v:.3}"),
        None => "–".into(),
    }
}

/// Renders `summary.md`. `conflicts` (from [`crate::bench::row::annotate`])
/// come first, loudly; `note` (e.g. "shard 1/4") goes under the title;
/// engines are listed in `engine_order`. No plots are linked (see
/// [`render_markdown_with_plots`]).
pub fn render_markdown(
    rows: &[BenchRow],
    conflicts: &[String],
    note: Option<&str>,
    engine_order: &[String],
) -> String {
    render_markdown_with_plots(rows, conflicts, note, engine_order, &[])
}

/// [`render_markdown`], linking under each problem's table the profile
/// plots among `plots` (file names in the summary's folder, e.g.
/// `perf-profile-spd.svg`, as written by [`crate::app::report::plot`]).
pub fn render_markdown_with_plots(
    rows: &[BenchRow],
    conflicts: &[String],
    note: Option<&str>,
    engine_order: &[String],
    plots: &[String],
) -> String {
    let mut s = String::from("# Benchmark summary\n\n");
    if let Some(n) = note {
        let _ = writeln!(s, "{n}\n");
    }
    write_conflicts(&mut s, conflicts);
    write_provenance(&mut s, rows);
    write_engine_tables(&mut s, &summarize(rows, engine_order), plots);
    s.push_str(
        "\ngap = (objective − best known) / best known over rows with a solution; \
         best known = the least objective found on the instance, a proven optimum when an \
         exact engine's proof reaches it. Times are engine wall times (with `--jobs` > 1 \
         engines share the machine).\n\n\
         proven optimal = solved: instances with an `optimal` row within the time limit. \
         sgm = shifted geometric mean exp(mean(ln(x + s))) − s. `sgm ms (10 s)` uses \
         s = 10 s (MIPLIB's shift), `sgm ms (1 ms)` uses s = 1 ms (it separates fast \
         heuristics); both run over every row, a time-out (status `time_limit` or \
         `error`, or a time above the limit) counted at the run's time limit when it had \
         one, else at its own time. `sgm gap` uses s = 1 % over the rows with a gap; rows \
         without a solution are left out (they are the errors / infeasible / time limit \
         columns). Profiles: see docs/bench.md.\n",
    );
    s
}

/// `summary.json`: the numbers of [`summarize`] for machines — `rows`,
/// `instances` (distinct files), `conflicts` and one flat object per
/// (problem, engine) under `engines`.
pub fn summary_json(
    rows: &[BenchRow],
    conflicts: &[String],
    engine_order: &[String],
) -> serde_json::Value {
    let instances = rows
        .iter()
        .map(|r| r.file.as_str())
        .collect::<BTreeSet<_>>()
        .len();
    serde_json::json!({
        "rows": rows.len(),
        "instances": instances,
        "conflicts": conflicts,
        "engines": summarize(rows, engine_order),
    })
}

/// The conflicts section, when there are any.
fn write_conflicts(s: &mut String, conflicts: &[String]) {
    if conflicts.is_empty() {
        return;
    }
    let _ = writeln!(
        s,
        "## ⚠ {} CONFLICT(S): a claimed optimum, bound or infeasibility is beaten\n\n\
         These are bugs (problems.md: \"a claimed optimum that a heuristic beats is a \
         bug\"). The rows involved have `check = {CONFLICT}`.\n",
        conflicts.len()
    );
    for c in conflicts {
        let _ = writeln!(s, "- {c}");
    }
    s.push('\n');
}

/// One table per problem (a heading when the problem changes), a row per
/// engine; under each table, links to its profile plots among `plots`.
fn write_engine_tables(s: &mut String, sums: &[EngineSummary], plots: &[String]) {
    let mut problem = "";
    for e in sums {
        if e.problem != problem {
            write_profile_links(s, problem, plots);
            problem = &e.problem;
            let _ = writeln!(
                s,
                "\n## {problem}\n\n\
                 | engine | instances | runs | proven optimal | at best known | errors | \
                 infeasible | time limit | mean gap | median gap | max gap | median ms | p95 ms | \
                 sgm ms (10 s) | sgm ms (1 ms) | sgm gap |\n\
                 |---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
            );
        }
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            e.engine,
            e.instances,
            e.runs,
            e.solved,
            e.at_best,
            e.errors,
            e.infeasible,
            e.time_limits,
            pct(e.mean_gap),
            pct(e.median_gap),
            pct(e.max_gap),
            ms(e.median_ms),
            ms(e.p95_ms),
            ms(e.sgm_ms_10s),
            ms(e.sgm_ms_1ms),
            pct(e.sgm_gap)
        );
    }
    write_profile_links(s, problem, plots);
}

/// Links to `problem`'s time and gap profiles, those of them in `plots`.
fn write_profile_links(s: &mut String, problem: &str, plots: &[String]) {
    if problem.is_empty() {
        return;
    }
    let mut links = Vec::new();
    for (what, stem) in [
        ("time profile", "perf-profile"),
        ("gap profile", "gap-profile"),
    ] {
        let file = format!("{stem}-{problem}.svg");
        if plots.contains(&file) {
            links.push(format!("![{what}]({file})"));
        }
    }
    if !links.is_empty() {
        let _ = writeln!(s, "\n{}", links.join("\n"));
    }
}

fn write_provenance(s: &mut String, rows: &[BenchRow]) {
    let mut per_file: BTreeMap<&str, Option<bool>> = BTreeMap::new();
    for r in rows {
        per_file.insert(&r.file, r.best_known_is_optimal);
    }
    let total = per_file.len();
    let proven = per_file.values().filter(|v| **v == Some(true)).count();
    let none = per_file.values().filter(|v| v.is_none()).count();
    let _ = writeln!(
        s,
        "{} rows over {total} instances. Best known is a proven optimum on {proven}, \
         the best found (not proven) on {}, and missing (no engine found a solution) on {none}.",
        rows.len(),
        total - proven - none
    );
    let limits: BTreeSet<Option<u64>> = rows
        .iter()
        .map(|r| r.time_limit_s.map(f64::to_bits))
        .collect();
    let show = |l: &Option<u64>| match l {
        Some(b) => format!("{} s", f64::from_bits(*b)),
        None => "none".into(),
    };
    let all: Vec<String> = limits.iter().map(show).collect();
    match all.as_slice() {
        [] => {}
        [one] => {
            let _ = writeln!(s, "Per-run time limit: {one}.");
        }
        many => {
            let _ = writeln!(
                s,
                "Per-run time limits differ between rows: {}.",
                many.join(", ")
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(file: &str, engine: &str, status: Status, time_ms: f64, gap: Option<f64>) -> BenchRow {
        let mut r: BenchRow = serde_json::from_value(serde_json::json!({
            "instance": file, "problem": "spd", "engine": engine, "status": status,
            "objective": null, "best_known": null, "best_known_is_optimal": null,
            "gap": gap, "time_ms": time_ms, "repetition": 0, "file": file,
            "bound": null, "size": null, "check": null, "message": null,
        }))
        .expect("a valid row");
        r.time_limit_s = Some(1.0);
        r
    }

    fn close(a: Option<f64>, b: f64) -> bool {
        a.is_some_and(|a| (a - b).abs() <= 1e-9 * b.abs().max(1.0))
    }

    #[test]
    fn sgm_by_hand() {
        assert!(close(
            shifted_geometric_mean(&[1.0, 10.0, 100.0], 0.0),
            10.0
        ));
        // (2·8)^(1/2) = 4 after the shift of 1: values 1 and 7.
        assert!(close(shifted_geometric_mean(&[1.0, 7.0], 1.0), 3.0));
        assert!(close(shifted_geometric_mean(&[5.0], 10.0), 5.0));
        assert_eq!(shifted_geometric_mean(&[], 0.0), None);
        assert_eq!(shifted_geometric_mean(&[0.0], 0.0), None);
        assert_eq!(shifted_geometric_mean(&[f64::NAN], 1.0), None);
        // Equal values give exactly that value, whatever the shift.
        assert_eq!(shifted_geometric_mean(&[0.0, 0.0], 0.01), Some(0.0));
        assert_eq!(
            shifted_geometric_mean(&[17.858219], 10_000.0),
            Some(17.858219)
        );
    }

    #[test]
    fn a_time_out_counts_at_the_limit() {
        let fast = row("a", "e", Status::Feasible, 10.0, Some(0.0));
        let out = row("b", "e", Status::TimeLimit, 1003.0, None);
        let err = row("c", "e", Status::Error, 0.5, None);
        let late = row("d", "e", Status::Optimal, 1500.0, Some(0.0));
        assert_eq!(counted_time_ms(&fast), 10.0);
        assert_eq!(counted_time_ms(&out), 1000.0);
        assert_eq!(counted_time_ms(&err), 1000.0);
        assert_eq!(counted_time_ms(&late), 1000.0);
        let mut nolimit = row("e", "e", Status::Error, 0.5, None);
        nolimit.time_limit_s = None;
        assert_eq!(counted_time_ms(&nolimit), 0.5);
        // Shift 1 ms: (11 · 1001)^(1/2) − 1.
        let s = &summarize(&[fast, out], &[])[0];
        assert!(close(s.sgm_ms_1ms, (11.0f64 * 1001.0).sqrt() - 1.0));
        assert!(close(
            s.sgm_ms_10s,
            (10_010.0f64 * 11_000.0).sqrt() - 10_000.0
        ));
        // The gap SGM skips the time-out (no gap): only 0 remains.
        assert_eq!(s.sgm_gap, Some(0.0));
        assert_eq!((s.solved, s.time_limits), (0, 1));
    }

    #[test]
    fn solved_means_optimal_within_the_limit() {
        let rows = [
            row("a", "x", Status::Optimal, 900.0, Some(0.0)),
            row("b", "x", Status::Optimal, 1500.0, Some(0.0)),
            row("c", "x", Status::Feasible, 5.0, Some(0.1)),
        ];
        let s = &summarize(&rows, &[])[0];
        assert_eq!((s.instances, s.solved, s.at_best), (3, 1, 2));
        // Gaps 0, 0, 0.1 with shift 0.01: (0.01 · 0.01 · 0.11)^(1/3) − 0.01.
        assert!(close(s.sgm_gap, (0.01f64 * 0.01 * 0.11).cbrt() - 0.01));
    }

    #[test]
    fn json_has_one_flat_entry_per_problem_engine() {
        let rows = [
            row("a", "x", Status::Optimal, 1.0, Some(0.0)),
            row("a", "y", Status::Feasible, 1.0, Some(0.5)),
        ];
        let v = summary_json(&rows, &["c".into()], &["y".into(), "x".into()]);
        assert_eq!(
            (v["rows"].as_u64(), v["instances"].as_u64()),
            (Some(2), Some(1))
        );
        let e = v["engines"].as_array().expect("engines");
        assert_eq!(e.len(), 2);
        assert_eq!(
            (e[0]["engine"].as_str(), e[0]["solved"].as_u64()),
            (Some("y"), Some(0))
        );
        assert!(e[1]["sgm_ms_10s"].is_number() && e[1]["sgm_gap"].is_number());
        assert_eq!(v["conflicts"][0].as_str(), Some("c"));
    }
}
