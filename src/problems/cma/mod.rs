//! CMA — capacitated client-to-mirror assignment (Webb & Soh, seed 002;
//! problems.md §3), static and with joins and leaves.
//!
//! - [`model`]: instances, capacities, events, the assignment state;
//!   [`eval`]: THE CMA evaluator; [`file`](mod@file): the instance format; [`gen`]:
//!   seed 002 §4's BRITE topology and scenarios; [`events`]: simulation
//!   output files.
//! - The paper's policies, named as the paper names them: [`join`]
//!   (`j_greedy`, `j_sa`), [`leave`] (`l_ignore`, `l_greedy`, `l_sa`) on the
//!   MC/MP move graph [`moves`]; [`sim`]: the join/leave simulation with
//!   `brute_force`; exact engines [`exact_flow`] (min-cost flow) and
//!   [`exact_lp`] (the LP on HiGHS).
//! - [`engines`]: the static engines by CLI name and [`engines::run_cma`];
//!   [`repro`]: seed 002 §4 Figs. 4–8; [`cli`]: `simulate`, `gen cma`,
//!   `repro cma`, `plan cma`.
//! - [`plan`]: capacity planning — which `K` candidate mirrors to open
//!   (capacitated p-median), the curve over `K` (docs/plan.md).

pub mod arrays;
pub mod class_flow;
pub mod class_rows;
pub mod engines;
pub mod eval;
pub mod exact_flow;
pub mod exact_lp;
pub mod file;
pub mod file_fields;
pub mod gen;
pub mod join;
pub mod leave;
pub mod model;
pub mod moves;
pub mod pings;
pub mod plan;
pub mod row_classes;
pub mod sim;
pub mod sites;
pub mod solution_file;
pub mod transport;
pub mod weighted;

use crate::core::engine;
use crate::core::table::{fmt_ms, note, Table};
use crate::core::{
    EvalReport, Family, ForeignEngine, InstanceFeatures, NamedArray, ParamSpec, ProblemInstance,
    SolveOptions, SolveRecord, SolveRow, Source,
};
use crate::error::Result;
use eval::{CmaReport, DEFAULT_THRESHOLD_MS};
use model::CmaInstance;
use serde_json::{json, Map, Value};
use std::any::Any;

pub use engines::LP_MAX_CELLS;

/// The CMA family.
#[derive(Debug, Clone, Copy)]
pub struct CmaFamily;

/// The registry's handle on the CMA family.
pub static FAMILY: CmaFamily = CmaFamily;

impl Family for CmaFamily {
    fn name(&self) -> &'static str {
        "cma"
    }

    fn problems(&self) -> &'static [&'static str] {
        &["cma"]
    }

    fn parse(
        &self,
        src: &Source,
        _start: Option<&str>,
        _opts: &SolveOptions,
    ) -> Result<Box<dyn ProblemInstance>> {
        Ok(Box::new(Instance(file::parse_cma_source(src)?)))
    }

    fn engines(&self) -> Vec<String> {
        engine::names(engines::ENGINES)
    }

    fn params(&self) -> Vec<ParamSpec> {
        vec![exact_lp::LP_MAX_CELLS]
    }

    fn size_label(&self) -> &'static str {
        "clients × mirrors"
    }

    fn render_table(&self, rows: &[SolveRow]) -> String {
        render_table(rows)
    }
}

/// A CMA instance read from a file.
#[derive(Debug, Clone)]
pub struct Instance(pub CmaInstance);

impl ProblemInstance for Instance {
    fn family(&self) -> &'static dyn Family {
        &FAMILY
    }

    fn name(&self) -> &str {
        &self.0.name
    }

    fn problem(&self) -> &'static str {
        "cma"
    }

    fn features(&self) -> InstanceFeatures {
        let i = &self.0;
        let mut f = Map::new();
        f.insert("mirrors".into(), json!(i.mirrors()));
        f.insert("clients".into(), json!(i.clients()));
        if i.players().is_some() {
            f.insert("players".into(), json!(i.total_players()));
        }
        f.insert("total_capacity".into(), json!(i.total_capacity()));
        f.insert("events".into(), json!(i.events.as_ref().map(Vec::len)));
        InstanceFeatures {
            size: (i.mirrors() * i.clients()) as f64,
            features: f,
        }
    }

    fn applicable_engines(&self) -> Vec<String> {
        if self.unsolvable().is_some() {
            return Vec::new();
        }
        engine::in_all(engines::ENGINES, &self.0)
    }

    fn unsolvable(&self) -> Option<String> {
        self.0.events.as_ref().map(|_| {
            "a dynamic CMA instance (events): replay it with `serverpick simulate FILE \
             --policy j-sa/l-sa`, or name engines to solve its rows statically"
                .to_string()
        })
    }

    fn run_engine(&self, name: &str, opts: &SolveOptions) -> SolveRecord {
        engine::run_named(engines::ENGINES, "CMA", &self.0, name, opts)
    }

    fn run_foreign(&self, foreign: &dyn ForeignEngine, opts: &SolveOptions) -> SolveRecord {
        engine::run_foreign(foreign, self, &self.0, opts)
    }

    fn solution_from_assignment(&self, assign: &[usize]) -> Result<Value> {
        Ok(json!({ "assign": assign }))
    }

    fn to_value(&self) -> Result<Value> {
        arrays::to_value(&self.0)
    }

    fn arrays(&self) -> Vec<NamedArray> {
        arrays::arrays(&self.0)
    }

    fn eval_value(&self, solution: Value, source: &str) -> Result<EvalReport> {
        let inst = &self.0;
        let sol = solution_file::cma_solution_from_value(solution, source)?;
        let ev = engines::evaluate_cma_solution(inst, &sol, DEFAULT_THRESHOLD_MS);
        let m = &ev.metrics;
        let lines = vec![
            (
                "instance".to_string(),
                format!(
                    "{} ({} mirrors, {} clients{})",
                    inst.name,
                    inst.mirrors(),
                    inst.clients(),
                    match inst.players() {
                        Some(_) => format!(", {} players", inst.total_players()),
                        None => String::new(),
                    }
                ),
            ),
            ("total".into(), format!("{:.3} ms", m.total_delay)),
            ("average".into(), format!("{:.3} ms", m.avg_delay)),
            ("max".into(), format!("{:.3} ms", m.max_delay)),
            (
                format!("<= {} ms", m.threshold),
                format!("{} of {}", m.under_threshold, m.present),
            ),
            (
                "loads".into(),
                format!("{:?} (capacities {:?})", m.loads, inst.capacity),
            ),
        ];
        Ok(EvalReport {
            lines,
            verdict: ev.verdict(),
        })
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

fn render_table(rows: &[SolveRow]) -> String {
    let header = [
        "instance",
        "engine",
        "status",
        "total delay",
        "bound",
        "avg delay",
        "max delay",
        "under 100 ms",
        "time ms",
        "note",
    ];
    let right: Vec<bool> = header
        .iter()
        .map(|h| !matches!(*h, "instance" | "engine" | "status" | "note"))
        .collect();
    let mut t = Table::new(&header, &right);
    for row in rows {
        let r = &row.record;
        let m: Option<CmaReport> = serde_json::from_value(Value::Object(r.metrics.clone())).ok();
        let share = m
            .as_ref()
            .map(|m| format!("{:.1}%", 100.0 * m.share_under_threshold));
        t.push(vec![
            r.instance.clone(),
            r.engine.clone(),
            r.status.to_string(),
            fmt_ms(m.as_ref().map(|m| m.total_delay)),
            fmt_ms(r.bound),
            fmt_ms(m.as_ref().map(|m| m.avg_delay)),
            fmt_ms(m.as_ref().map(|m| m.max_delay)),
            share.unwrap_or_else(|| "-".into()),
            format!("{:.1}", r.time_ms),
            note(r.message.as_deref().unwrap_or_default()),
        ]);
    }
    t.render()
}
