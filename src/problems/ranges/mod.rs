//! Ranges — range partitioning for object location (Colyseus, seed 003
//! §6.1 and §6.3; problems.md §6): split a linearised game map into one
//! contiguous key range per node so that the largest node load
//! (publications of its cells + every subscription touching it, once) is
//! least.
//!
//! - [`model`]: instances, splits and owner vectors; [`file`](mod@file): the instance
//!   and solution formats; [`eval`]: THE evaluator (loads, matching load,
//!   fan-out, moved cells).
//! - [`oracle`]: the `O(log K)` range-load oracle; [`exact`]: the parametric
//!   search; [`hash`]: the plain DHT; [`nbr_adjust`]: neighbour adjustment
//!   and `uniform`; [`leave_join`]: Mercury's leave-join balancing;
//!   [`exact_budget`]: the best split within a migration budget;
//!   [`engines`]: the engines by CLI name and [`engines::run_ranges`].
//! - [`curves`]: Hilbert, Z-order, row and x-key orders; [`gen`]: Colyseus'
//!   maps and workload; [`workload`]: the moving workload;
//!   [`simulate`] + [`sim_report`]: `simulate-ranges`; [`repro`] +
//!   [`repro_report`]: `repro ranges` (seed 003 Table 2, Fig. 9);
//!   [`cli`]: `gen ranges`, `repro ranges`, `simulate-ranges`.
//!
//! docs/ranges.md describes the problem, the format, every engine and the
//! measured numbers.

pub mod curves;
pub mod engines;
pub mod eval;
pub mod exact;
pub mod exact_budget;
pub mod file;
pub mod gen;
pub mod hash;
pub mod leave_join;
pub mod model;
pub mod nbr_adjust;
pub mod oracle;
pub mod simulate;
pub mod start;
pub mod workload;

use crate::core::engine;
use crate::core::table::{short, Table};
use crate::core::{
    EvalReport, Family, ForeignEngine, InstanceFeatures, ParamSpec, ProblemInstance, SolveOptions,
    SolveRecord, SolveRow, Source,
};
use crate::error::Result;
use engines::{RangesRun, BUDGET, DELTA, REGIONS, VNODES};
use eval::{evaluate, RangesMetrics};
use model::RangesInstance;
use serde_json::{json, Map, Value};
use std::any::Any;

/// The ranges family.
#[derive(Debug, Clone, Copy)]
pub struct RangesFamily;

/// The registry's handle on the ranges family.
pub static FAMILY: RangesFamily = RangesFamily;

impl Family for RangesFamily {
    fn name(&self) -> &'static str {
        "ranges"
    }

    fn problems(&self) -> &'static [&'static str] {
        &["ranges"]
    }

    fn parse(
        &self,
        src: &Source,
        start: Option<&str>,
        opts: &SolveOptions,
    ) -> Result<Box<dyn ProblemInstance>> {
        let inst = file::parse_ranges(&src.text, &src.file, &src.default_name)?;
        let current = match start {
            Some(s) => Some(start::current_split(&inst, s, opts)?),
            None => None,
        };
        Ok(Box::new(Instance(inst, current)))
    }

    fn takes_start(&self) -> bool {
        true
    }

    fn engines(&self) -> Vec<String> {
        engines::engine_names()
    }

    fn params(&self) -> Vec<ParamSpec> {
        vec![DELTA, VNODES, REGIONS, BUDGET]
    }

    fn size_label(&self) -> &'static str {
        "cells"
    }

    fn render_table(&self, rows: &[SolveRow]) -> String {
        render_table(rows)
    }
}

/// A ranges instance read from a file, with the current split `solve
/// --start` gave (`None`: engines that need one use `uniform`).
#[derive(Debug, Clone)]
pub struct Instance(pub RangesInstance, pub Option<Vec<usize>>);

impl Instance {
    /// The run's problem: the instance and its current split.
    fn run(&self) -> RangesRun<'_> {
        RangesRun {
            inst: &self.0,
            current: self.1.as_deref(),
        }
    }
}

impl ProblemInstance for Instance {
    fn family(&self) -> &'static dyn Family {
        &FAMILY
    }

    fn name(&self) -> &str {
        &self.0.name
    }

    fn problem(&self) -> &'static str {
        "ranges"
    }

    fn features(&self) -> InstanceFeatures {
        let i = &self.0;
        let mut f = Map::new();
        f.insert("nodes".into(), json!(i.nodes));
        f.insert("cells".into(), json!(i.cells()));
        f.insert("subscriptions".into(), json!(i.subscriptions.len()));
        f.insert("intervals".into(), json!(i.intervals()));
        InstanceFeatures {
            size: i.cells() as f64,
            features: f,
        }
    }

    fn applicable_engines(&self) -> Vec<String> {
        engine::in_all(engines::engines(), &self.run())
    }

    fn run_engine(&self, name: &str, opts: &SolveOptions) -> SolveRecord {
        engine::run_named(engines::engines(), "ranges", &self.run(), name, opts)
    }

    fn run_foreign(&self, foreign: &dyn ForeignEngine, opts: &SolveOptions) -> SolveRecord {
        engine::run_foreign(foreign, self, &self.run(), opts)
    }

    fn reported_problems(&self) -> Vec<&'static str> {
        vec!["ranges", engines::ANY_OWNERSHIP, engines::WITHIN_BUDGET]
    }

    fn to_value(&self) -> Result<Value> {
        Ok(file::to_file_value(&self.0))
    }

    fn eval_value(&self, solution: Value, source: &str) -> Result<EvalReport> {
        let inst = &self.0;
        let sol = file::ranges_solution_from_value(solution, source)?;
        let ev = evaluate(inst, &sol);
        let mut lines = vec![(
            "instance".to_string(),
            format!(
                "{} ({} nodes, {} cells, {} subscriptions)",
                inst.name,
                inst.nodes,
                inst.cells(),
                inst.subscriptions.len()
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

fn report_lines(m: &RangesMetrics) -> Vec<(String, String)> {
    let few = |v: &[f64]| {
        let shown: Vec<String> = v.iter().take(12).map(|x| format!("{x}")).collect();
        let more = if v.len() > 12 { ", …" } else { "" };
        format!("[{}{more}]", shown.join(", "))
    };
    vec![
        (
            "max load".into(),
            format!(
                "{} (mean {:.3}, max/mean {:.3})",
                m.max_load, m.mean_load, m.max_over_mean
            ),
        ),
        (
            "matching".into(),
            format!(
                "max {} (mean {:.3}, max/mean {:.3})",
                m.max_matching, m.mean_matching, m.matching_max_over_mean
            ),
        ),
        (
            "fan-out".into(),
            format!(
                "mean {:.3}, p95 {}, max {}",
                m.fanout_mean, m.fanout_p95, m.fanout_max
            ),
        ),
        (
            "split".into(),
            format!(
                "{}, {} empty nodes",
                if m.contiguous {
                    "contiguous"
                } else {
                    "scattered"
                },
                m.empty_nodes
            ),
        ),
        ("loads".into(), few(&m.loads)),
    ]
}

fn render_table(rows: &[SolveRow]) -> String {
    let header = [
        "instance",
        "engine",
        "status",
        "max load",
        "bound",
        "max/mean",
        "match max/mean",
        "fan-out",
        "p95",
        "time ms",
        "note",
    ];
    let right: Vec<bool> = header
        .iter()
        .map(|h| !matches!(*h, "instance" | "engine" | "status" | "note"))
        .collect();
    let mut t = Table::new(&header, &right);
    let num = |x: Option<f64>, d: usize| x.map_or("-".to_string(), |x| format!("{x:.d$}"));
    for row in rows {
        let r = &row.record;
        let m: Option<RangesMetrics> =
            serde_json::from_value(Value::Object(r.metrics.clone())).ok();
        let m = m.as_ref();
        t.push(vec![
            r.instance.clone(),
            r.engine.clone(),
            r.status.to_string(),
            num(m.map(|m| m.max_load), 3),
            num(r.bound, 3),
            num(m.map(|m| m.max_over_mean), 3),
            num(m.map(|m| m.matching_max_over_mean), 3),
            num(m.map(|m| m.fanout_mean), 2),
            m.map_or("-".into(), |m| m.fanout_p95.to_string()),
            format!("{:.1}", r.time_ms),
            short(r.message.as_deref().unwrap_or_default(), 60),
        ]);
    }
    t.render()
}
