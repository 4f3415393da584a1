//! `summary.md`: per problem × engine aggregates of an annotated result set.

use crate::bench::row::{BenchRow, CONFLICT};
use crate::core::Status;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

/// Aggregates of one (problem, engine).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct EngineSummary {
    /// Problem name.
    pub problem: String,
    /// Engine name.
    pub engine: String,
    /// Distinct instance files with a row.
    pub instances: usize,
    /// Rows (instances × repetitions).
    pub runs: usize,
    /// Instances with an `optimal` row (solved to proven optimality).
    pub proven_optimal: usize,
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
    /// Median time, ms (every row).
    pub median_ms: Option<f64>,
    /// 95th percentile time, ms (nearest rank).
    pub p95_ms: Option<f64>,
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
    EngineSummary {
        instances: files(&|_| true),
        runs: g.len(),
        proven_optimal: files(&|r| r.status == Status::Optimal),
        at_best: files(&|r| r.gap.is_some_and(|x| x.abs() <= 1e-9)),
        errors: count(Status::Error),
        infeasible: count(Status::Infeasible),
        time_limits: count(Status::TimeLimit),
        mean_gap: (!gaps.is_empty()).then(|| gaps.iter().sum::<f64>() / gaps.len() as f64),
        median_gap: median(&gaps),
        max_gap: gaps.iter().copied().reduce(f64::max),
        median_ms: median(&times),
        p95_ms: quantile(&times, 0.95),
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
/// engines are listed in `engine_order`.
pub fn render_markdown(
    rows: &[BenchRow],
    conflicts: &[String],
    note: Option<&str>,
    engine_order: &[String],
) -> String {
    let mut s = String::from("# Benchmark summary\n\n");
    if let Some(n) = note {
        let _ = writeln!(s, "{n}\n");
    }
    write_conflicts(&mut s, conflicts);
    write_provenance(&mut s, rows);
    write_engine_tables(&mut s, &summarize(rows, engine_order));
    s.push_str(
        "\ngap = (objective − best known) / best known over rows with a solution; \
         best known = the least objective found on the instance, a proven optimum when an \
         exact engine's proof reaches it. Times are engine wall times (with `--jobs` > 1 \
         engines share the machine).\n",
    );
    s
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
/// engine.
fn write_engine_tables(s: &mut String, sums: &[EngineSummary]) {
    let mut problem = "";
    for e in sums {
        if e.problem != problem {
            problem = &e.problem;
            let _ = writeln!(
                s,
                "\n## {problem}\n\n\
                 | engine | instances | runs | proven optimal | at best known | errors | \
                 infeasible | time limit | mean gap | median gap | max gap | median ms | p95 ms |\n\
                 |---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
            );
        }
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            e.engine,
            e.instances,
            e.runs,
            e.proven_optimal,
            e.at_best,
            e.errors,
            e.infeasible,
            e.time_limits,
            pct(e.mean_gap),
            pct(e.median_gap),
            pct(e.max_gap),
            ms(e.median_ms),
            ms(e.p95_ms)
        );
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
}
