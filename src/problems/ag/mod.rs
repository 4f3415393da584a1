//! AG — auxiliary-game balancing on a hybrid cluster + P2P platform (seed
//! 004; problems.md §4): servers over capacity shed players to other
//! servers or send whole auxiliary games (AGs) to a P2P area, where two of
//! each AG's players act as its server and replica.
//!
//! - [`model`]: instances and solutions; [`file`](mod@file): the formats; [`eval`]:
//!   THE evaluator (loads, moves, Tables 1–2 overhead, P2P QoS);
//!   [`gamma`]: the uptime model and failure likelihood.
//! - [`hybrid`]: Algorithm 1 and `distributes`; [`classic`]: Bezerra et
//!   al.; [`exact`]: the aggregated lexicographic MILP; [`roles`]: exact
//!   `(S, RS)` choices; [`engines`]: the
//!   engines by CLI name and [`engines::run_ag`].
//! - [`gen`]: scenarios A and B at any size; [`cli`]: `gen ag`, `repro ag`;
//!   [`repro`]: seed 004 §5 (snapshot figures and the simulation).
//!
//! docs/ag.md describes the model, every engine and the measured numbers.

pub mod classic;
pub mod engines;
pub mod eval;
pub mod exact;
pub mod file;
pub mod gamma;
pub mod gen;
pub mod hybrid;
pub mod model;
pub mod roles;

use crate::core::engine;
use crate::core::table::{short, Table};
use crate::core::{
    EvalReport, Family, ForeignEngine, InstanceFeatures, ProblemInstance, SolveOptions,
    SolveRecord, SolveRow, Source,
};
use crate::error::Result;
use engines::ENGINES;
use eval::{evaluate, AgMetrics};
use model::AgInstance;
use serde_json::{json, Map, Value};
use std::any::Any;

/// The AG family.
#[derive(Debug, Clone, Copy)]
pub struct AgFamily;

/// The registry's handle on the AG family.
pub static FAMILY: AgFamily = AgFamily;

impl Family for AgFamily {
    fn name(&self) -> &'static str {
        "ag"
    }

    fn problems(&self) -> &'static [&'static str] {
        &["ag"]
    }

    /// Also the problems its engines report ([`engines`]), so `eval` takes
    /// their solution files.
    fn reads(&self, file_problem: &str) -> bool {
        matches!(file_problem, "ag" | "ag-over" | "ag-players" | "ag-split")
    }

    fn parse(
        &self,
        src: &Source,
        _start: Option<&str>,
        _opts: &SolveOptions,
    ) -> Result<Box<dyn ProblemInstance>> {
        Ok(Box::new(Instance(file::parse_ag_source(src)?)))
    }

    fn engines(&self) -> Vec<String> {
        engine::names(ENGINES)
    }

    fn size_label(&self) -> &'static str {
        "players"
    }

    fn render_table(&self, rows: &[SolveRow]) -> String {
        render_table(rows)
    }
}

/// An AG instance read from a file.
#[derive(Debug, Clone)]
pub struct Instance(pub AgInstance);

impl ProblemInstance for Instance {
    fn family(&self) -> &'static dyn Family {
        &FAMILY
    }

    fn name(&self) -> &str {
        &self.0.name
    }

    fn problem(&self) -> &'static str {
        "ag"
    }

    fn features(&self) -> InstanceFeatures {
        let i = &self.0;
        let mut f = Map::new();
        f.insert("servers".into(), json!(i.servers()));
        f.insert("players".into(), json!(i.players()));
        f.insert("ags".into(), json!(i.ags()));
        InstanceFeatures {
            size: i.players() as f64,
            features: f,
        }
    }

    fn applicable_engines(&self) -> Vec<String> {
        engine::in_all(ENGINES, &self.0)
    }

    fn run_engine(&self, name: &str, opts: &SolveOptions) -> SolveRecord {
        engine::run_named(ENGINES, "ag", &self.0, name, opts)
    }

    fn run_foreign(&self, foreign: &dyn ForeignEngine, opts: &SolveOptions) -> SolveRecord {
        engine::run_foreign(foreign, self, &self.0, opts)
    }

    fn reported_problems(&self) -> Vec<&'static str> {
        engines::REPORTED.to_vec()
    }

    fn to_value(&self) -> Result<Value> {
        Ok(file::to_file_value(&self.0))
    }

    fn eval_value(&self, solution: Value, source: &str) -> Result<EvalReport> {
        let inst = &self.0;
        let sol: model::AgSolution =
            crate::io::solution_file::solution_from_value(solution, source)?;
        let ev = evaluate(inst, &sol);
        let mut lines = vec![(
            "instance".to_string(),
            format!(
                "{} ({} servers, {} players, {} AGs)",
                inst.name,
                inst.servers(),
                inst.players(),
                inst.ags()
            ),
        )];
        if let Some(m) = &ev.metrics {
            lines.extend(report_lines(m));
        }
        Ok(EvalReport {
            lines,
            verdict: ev.verdict(),
        })
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

fn few(v: &[u64]) -> String {
    let shown: Vec<String> = v.iter().take(12).map(|x| x.to_string()).collect();
    let more = if v.len() > 12 { ", …" } else { "" };
    format!("[{}{more}]", shown.join(", "))
}

fn report_lines(m: &AgMetrics) -> Vec<(String, String)> {
    vec![
        ("loads before".into(), few(&m.loads_before)),
        ("loads after".into(), few(&m.loads_after)),
        (
            "overloaded".into(),
            format!(
                "{} → {} servers over max_load, {} over target (excess {})",
                m.overloaded_before, m.overloaded_after, m.over_target_after, m.excess
            ),
        ),
        (
            "moved".into(),
            format!(
                "{} players ({} main game), {} AGs whole, {} AGs split",
                m.players_moved, m.main_moved, m.ags_moved, m.ags_split
            ),
        ),
        (
            "p2p".into(),
            format!("{} AGs, {} players", m.ags_p2p, m.players_p2p),
        ),
        (
            "overhead".into(),
            format!(
                "{:.1} messages (before {:.1}, after {:.1}, return {:.1})",
                m.overhead_total, m.overhead_before, m.overhead_after, m.overhead_return
            ),
        ),
        (
            "p2p qos".into(),
            format!(
                "latency S→players mean {:.1} ms, links {:.1} ms; failure mean {:.3e}, \
                 max {:.3e}; S and RS both fail {:.4}",
                m.p2p_latency_mean,
                m.p2p_link_latency_mean,
                m.p2p_failure_mean,
                m.p2p_failure_max,
                m.p2p_servers_fail_mean
            ),
        ),
    ]
}

fn render_table(rows: &[SolveRow]) -> String {
    let header = [
        "instance", "engine", "status", "p2p", "moved", "max load", "over", "excess", "overhead",
        "time ms", "note",
    ];
    let right: Vec<bool> = header
        .iter()
        .map(|h| !matches!(*h, "instance" | "engine" | "status" | "note"))
        .collect();
    let mut t = Table::new(&header, &right);
    for row in rows {
        let r = &row.record;
        // Each cell from its own metric: one missing (NaN, shown as null)
        // value does not blank the others.
        let int = |k: &str| {
            r.metrics
                .get(k)
                .and_then(Value::as_u64)
                .map_or("-".to_string(), |v| v.to_string())
        };
        let overhead = r.metrics.get("overhead_total").and_then(Value::as_f64);
        t.push(vec![
            r.instance.clone(),
            r.engine.clone(),
            r.status.to_string(),
            int("players_p2p"),
            int("players_moved"),
            int("max_load"),
            int("overloaded_after"),
            int("excess"),
            overhead.map_or("-".into(), |o| format!("{o:.0}")),
            format!("{:.1}", r.time_ms),
            short(r.message.as_deref().unwrap_or_default(), 60),
        ]);
    }
    t.render()
}
