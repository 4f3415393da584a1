//! The out folder of `plan cma`: `plan.json` (every point with its opened
//! mirrors, status, objective, bound, gap), `curve.csv`, `curve.jsonl`,
//! `curve.svg` and `curve-total.svg` (average and total delay against `K`), `solution.json` (the
//! chosen `K`'s assignment as a CMA solution file for `serverpick eval`)
//! and `solutions/k<K>.json` for every solved `K`; and the stdout table.

use crate::app::report::plot::{draw_chart, ChartSpec, Series, Style};
use crate::core::table::{fixed, Table};
use crate::core::{fill_record, Outcome, SolveRecord, Status};
use crate::error::{Error, Result};
use crate::problems::cma::engines::{evaluate_cma_solution, CmaSolution};
use crate::problems::cma::eval::DEFAULT_THRESHOLD_MS;
use crate::problems::cma::model::CmaInstance;
use crate::problems::cma::plan::curve::{rel_gap, Plan};
use crate::problems::cma::plan::exact::PointResult;
use serde_json::{json, Value};
use std::path::Path;

/// One curve point as JSON (a `curve.jsonl` line).
pub fn point_json(inst: &CmaInstance, p: &PointResult) -> Value {
    let n = inst.total_players().max(1) as f64;
    let b = p.best.as_ref();
    json!({
        "k": p.k,
        "status": p.status.as_str(),
        "objective": b.map(|b| b.objective),
        "total_delay": b.map(|b| b.delay),
        "avg_delay": b.map(|b| b.delay / n),
        "open_cost": b.map(|b| b.objective - b.delay),
        "bound": p.bound,
        "gap": b.and_then(|b| p.bound.map(|l| rel_gap(b.objective, l))),
        "open": b.map(|b| b.open.iter().map(|&j| inst.mirror_label(j)).collect::<Vec<_>>()),
        "open_index": b.map(|b| b.open.clone()),
        "nodes": p.nodes,
        "time_ms": p.time_ms,
        "proof": p.proof,
    })
}

fn cell(v: &Value) -> String {
    match v {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        Value::Array(a) => a.iter().map(cell).collect::<Vec<_>>().join(" "),
        other => other.to_string(),
    }
}

const COLUMNS: [&str; 11] = [
    "k",
    "status",
    "objective",
    "total_delay",
    "avg_delay",
    "open_cost",
    "bound",
    "gap",
    "open",
    "nodes",
    "time_ms",
];

/// Writes every output file into `dir` (created when missing).
pub fn write_plan(dir: &Path, inst: &CmaInstance, plan: &Plan) -> Result<()> {
    std::fs::create_dir_all(dir.join("solutions")).map_err(|e| Error::io(dir, e))?;
    let rows: Vec<Value> = plan.points.iter().map(|p| point_json(inst, p)).collect();
    let mut csv = COLUMNS.join(",") + "\n";
    let mut jsonl = String::new();
    for r in &rows {
        let cells: Vec<String> = COLUMNS.iter().map(|c| csv_quote(&cell(&r[*c]))).collect();
        csv += &(cells.join(",") + "\n");
        jsonl += &(r.to_string() + "\n");
    }
    write(&dir.join("curve.csv"), &csv)?;
    write(&dir.join("curve.jsonl"), &jsonl)?;
    let summary = json!({
        "instance": inst.name,
        "engine": plan.engine,
        "players": inst.total_players(),
        "rows": inst.clients(),
        "candidates": inst.mirrors(),
        "with_open_costs": plan.with_costs,
        "chosen_k": plan.chosen,
        "evaluations": plan.evaluations,
        "time_ms": plan.time_ms,
        "points": rows,
    });
    write(&dir.join("plan.json"), &pretty(&summary)?)?;
    for p in &plan.points {
        if p.best.is_some() {
            let rec = record(inst, plan, p);
            write(
                &dir.join("solutions").join(format!("k{}.json", p.k)),
                &pretty(&rec)?,
            )?;
        }
    }
    if let Some(p) = plan.chosen.and_then(|k| plan.point(k)) {
        write(&dir.join("solution.json"), &pretty(&record(inst, plan, p))?)?;
    }
    draw_curve(&dir.join("curve.svg"), inst, plan)
}

fn csv_quote(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

fn pretty(v: &impl serde::Serialize) -> Result<String> {
    serde_json::to_string_pretty(v)
        .map(|s| s + "\n")
        .map_err(|e| Error::Usage(format!("cannot serialise the plan: {e}")))
}

fn write(path: &Path, text: &str) -> Result<()> {
    std::fs::write(path, text).map_err(|e| Error::io(path, e))
}

/// The solution file of one point (`solve --out`'s format). The CMA
/// evaluator fills the record (objective = total delay, metrics, checks);
/// its status is `feasible`: the point's optimum is over K open mirrors, not
/// the instance's CMA optimum, so the p-median proof goes into the metrics
/// (`plan_status`, `plan_bound`) and the message, never into `bound`.
fn record(inst: &CmaInstance, plan: &Plan, p: &PointResult) -> SolveRecord {
    let mut r = SolveRecord::unsolved(&inst.name, "cma", &format!("plan-{}", plan.engine));
    r.time_ms = p.time_ms;
    let Some(b) = &p.best else {
        r.status = p.status;
        return r;
    };
    let proof = if p.status == Status::Optimal {
        "proven the least objective over every choice of K mirrors"
    } else {
        "not proven over every choice of K mirrors"
    };
    let outcome = Outcome {
        status: Status::Feasible,
        solution: Some(CmaSolution::from_split(b.split.clone())),
        bound: None,
        message: Some(format!(
            "plan cma: {} of {} mirrors opened; {proof}",
            p.k,
            inst.mirrors()
        )),
        reason: None,
        stop: None,
        solver_status: None,
        stages: Vec::new(),
    };
    fill_record(&mut r, outcome, |sol| {
        evaluate_cma_solution(inst, sol, DEFAULT_THRESHOLD_MS).verdict()
    });
    let m = &mut r.metrics;
    m.insert("k".into(), json!(p.k));
    m.insert("open_cost".into(), json!(b.objective - b.delay));
    m.insert("open".into(), json!(b.open));
    m.insert("plan_status".into(), json!(p.status));
    m.insert("plan_objective".into(), json!(b.objective));
    m.insert("plan_bound".into(), json!(p.bound));
    r
}

/// Total and average delay against `K` (two charts side by side are not
/// needed: the average is the total over `n`, so one chart of the average
/// with the proven bound, and one of the total).
fn draw_curve(path: &Path, inst: &CmaInstance, plan: &Plan) -> Result<()> {
    let n = inst.total_players().max(1) as f64;
    let pts = |f: &dyn Fn(&PointResult) -> Option<f64>| -> Vec<(f64, f64)> {
        plan.points
            .iter()
            .filter_map(|p| f(p).map(|y| (p.k as f64, y)))
            .collect()
    };
    let mut series = vec![Series {
        label: "average delay (ms)".into(),
        points: pts(&|p| p.best.as_ref().map(|b| b.delay / n)),
        style: Style::Line,
        counts: Vec::new(),
    }];
    if !plan.with_costs {
        series.push(Series {
            label: "proven bound / players".into(),
            points: pts(&|p| p.bound.map(|l| l / n)),
            style: Style::Line,
            counts: Vec::new(),
        });
    }
    let spec = ChartSpec {
        title: format!(
            "{}: average delay vs open mirrors ({} players; total = average × {})",
            inst.name,
            inst.total_players(),
            inst.total_players()
        ),
        x_desc: "K (mirrors opened)".into(),
        y_desc: "average delay (ms)".into(),
        log_x: false,
        log_y: false,
    };
    draw_chart(path, &spec, &series)?;
    let total = Series {
        label: "total delay (ms)".into(),
        points: pts(&|p| p.best.as_ref().map(|b| b.delay)),
        style: Style::Line,
        counts: Vec::new(),
    };
    let spec = ChartSpec {
        title: format!("{}: total delay vs open mirrors", inst.name),
        y_desc: "total delay (ms)".into(),
        ..spec
    };
    draw_chart(&path.with_file_name("curve-total.svg"), &spec, &[total])
}

/// The stdout table: one row per point.
pub fn render_table(inst: &CmaInstance, plan: &Plan) -> String {
    let mut t = Table::new(
        &[
            "K",
            "status",
            "objective",
            "avg delay",
            "bound",
            "gap",
            "capacity",
            "time",
        ],
        &[true, false, true, true, true, true, true, true],
    );
    for p in &plan.points {
        let b = p.best.as_ref();
        let cap: usize = b.map_or(0, |b| b.open.iter().map(|&j| inst.capacity[j]).sum());
        t.push(vec![
            p.k.to_string(),
            p.status.as_str().to_string(),
            b.map_or("-".into(), |b| fixed(b.objective, 3)),
            b.map_or("-".into(), |b| {
                fixed(b.delay / inst.total_players().max(1) as f64, 3)
            }),
            p.bound.map_or("-".into(), |l| fixed(l, 3)),
            match (b, p.bound) {
                (Some(b), Some(l)) => format!("{:.2e}", rel_gap(b.objective, l)),
                _ => "-".into(),
            },
            if b.is_some() {
                cap.to_string()
            } else {
                "-".into()
            },
            format!("{:.0} ms", p.time_ms),
        ]);
    }
    let mut out = t.render();
    if plan.points.iter().any(|p| p.status == Status::Infeasible) {
        out += "infeasible: the K largest capacities hold fewer than all players\n";
    }
    out
}
