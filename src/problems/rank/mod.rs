//! Rank — server ranking for "play now" (seed 000; problems.md §5).
//!
//! - [`model`]: one player, many servers; [`file`](mod@file): the rank input
//!   (formats.md "Rank input"); [`score`]: THE score, every factor of every
//!   preset with its source; [`ranking`]: the ranking and "play now";
//!   [`eval`]: THE evaluator of an ordering; [`cli`]: `serverpick rank`
//!   (`serverpick repro playnow`, the population study that compares the
//!   ranking with CMA's optimum, lives in [`crate::app::cma::playnow`]:
//!   it needs both families, and CMA already uses the score.)
//! - Through the family interface (`solve`, `eval`, `bench`): one engine per
//!   preset, `rank-<preset>`, whose solution is its ordering
//!   (`{"order": [..]}`). Every ordering is scored under the instance's
//!   preset: objective = −(score of its first server). The engine of the
//!   instance's own preset claims `optimal` (its first server has the
//!   highest score, and it proves it: bound = −highest score); the others
//!   are `feasible` and show what another browser's pick is worth.
//!
//! Docs: `docs/rank.md`.

pub mod eval;
pub mod file;
pub mod model;
pub mod ranking;
pub mod score;

use crate::core::engine::{self, Ctx, Engine, Engines, Problem};
use crate::core::table::{short, Table};
use crate::core::{
    EvalReport, Family, ForeignEngine, InstanceFeatures, Outcome, ProblemInstance, SolveOptions,
    SolveRecord, SolveRow, Source, Status, Verdict,
};
use crate::error::Result;
use crate::io::solution_file::solution_from_value;
use eval::{evaluate_order, RankReport, RankSolution};
use model::RankInstance;
use score::Preset;
use serde_json::{json, Map, Value};
use std::any::Any;

/// The rank family.
#[derive(Debug, Clone, Copy)]
pub struct RankFamily;

/// The registry's handle on the rank family.
pub static FAMILY: RankFamily = RankFamily;

/// The engine name of a preset (`rank-<preset>`).
pub fn engine_name(p: Preset) -> &'static str {
    match p {
        Preset::Seed000 => "rank-seed000",
        Preset::Ns2V1 => "rank-ns2-v1",
        Preset::Ns2V2 => "rank-ns2-v2",
        Preset::Tf2Quickplay => "rank-tf2-quickplay",
    }
}

/// The preset of engine `name`.
pub fn engine_preset(name: &str) -> Option<Preset> {
    Preset::ALL.into_iter().find(|&p| engine_name(p) == name)
}

impl Family for RankFamily {
    fn name(&self) -> &'static str {
        "rank"
    }

    fn problems(&self) -> &'static [&'static str] {
        &["rank"]
    }

    fn parse(
        &self,
        src: &Source,
        _start: Option<&str>,
        _opts: &SolveOptions,
    ) -> Result<Box<dyn ProblemInstance>> {
        let inst = file::parse_rank(&src.text, &src.file, &src.default_name)?;
        Ok(Box::new(Instance(inst)))
    }

    fn engines(&self) -> Vec<String> {
        engine::names(ENGINES)
    }

    fn size_label(&self) -> &'static str {
        "servers"
    }

    fn render_table(&self, rows: &[SolveRow]) -> String {
        render_table(rows)
    }
}

/// A rank input read from a file.
#[derive(Debug, Clone)]
pub struct Instance(pub RankInstance);

/// `rank-<preset>`: every server ordered by the preset's score.
#[derive(Debug, Clone, Copy)]
pub struct RankEngine(pub Preset);

/// THE list of rank engines, one per preset, in table order.
pub static ENGINES: &Engines<'static, RankInstance> = &[
    &RankEngine(Preset::Seed000),
    &RankEngine(Preset::Ns2V1),
    &RankEngine(Preset::Ns2V2),
    &RankEngine(Preset::Tf2Quickplay),
];

impl Problem for RankInstance {
    type Solution = RankSolution;

    fn instance_name(&self) -> &str {
        &self.name
    }

    fn problem(&self) -> &'static str {
        "rank"
    }

    /// THE evaluator: every ordering scored under the instance's preset.
    fn evaluate(&self, sol: &RankSolution) -> Verdict {
        evaluate_order(self, &sol.order).1
    }
}

impl Engine<RankInstance> for RankEngine {
    fn name(&self) -> &str {
        engine_name(self.0)
    }

    /// The instance's own preset claims `optimal` (its first server has the
    /// highest score: bound = −highest score); the others are `feasible`.
    fn solve(&self, inst: &RankInstance, _ctx: &Ctx) -> Outcome<RankSolution> {
        let preset = self.0;
        let ranked = ranking::order_scores(inst, preset);
        let order: Vec<usize> = ranked.iter().map(|r| r.0).collect();
        let outcome = match ranked.first() {
            Some(&(_, top)) if preset == inst.preset => {
                Outcome::claim(Status::Optimal, order, Some(-top))
            }
            Some(_) => Outcome::found(order).with_message(format!(
                "ordered by {}, scored under {}",
                preset.name(),
                inst.preset.name()
            )),
            None => Outcome::no_solution("no servers"),
        };
        outcome.map(|order| RankSolution { order })
    }
}

/// Runs engine `engine` (`rank-<preset>`) on `inst` through the one runner.
pub fn run_rank(engine: &str, inst: &RankInstance) -> SolveRecord {
    let opts = SolveOptions::new(None, 0);
    engine::run_named(ENGINES, "rank", inst, engine, &opts)
}

impl ProblemInstance for Instance {
    fn family(&self) -> &'static dyn Family {
        &FAMILY
    }

    fn name(&self) -> &str {
        &self.0.name
    }

    fn problem(&self) -> &'static str {
        "rank"
    }

    fn features(&self) -> InstanceFeatures {
        let i = &self.0;
        let joinable = i.servers.iter().filter(|s| s.is_joinable()).count();
        let mut f = Map::new();
        f.insert("servers".into(), json!(i.servers.len()));
        f.insert("joinable".into(), json!(joinable));
        f.insert("preset".into(), json!(i.preset.name()));
        InstanceFeatures {
            size: i.servers.len() as f64,
            features: f,
        }
    }

    fn applicable_engines(&self) -> Vec<String> {
        engine::in_all(ENGINES, &self.0)
    }

    fn run_engine(&self, name: &str, opts: &SolveOptions) -> SolveRecord {
        engine::run_named(ENGINES, "rank", &self.0, name, opts)
    }

    fn run_foreign(&self, foreign: &dyn ForeignEngine, opts: &SolveOptions) -> SolveRecord {
        engine::run_foreign(foreign, self, &self.0, opts)
    }

    fn to_value(&self) -> Result<Value> {
        Ok(file::to_file_value(&self.0))
    }

    fn eval_value(&self, solution: Value, source: &str) -> Result<EvalReport> {
        let sol: RankSolution = solution_from_value(solution, source)?;
        let (report, verdict) = evaluate_order(&self.0, &sol.order);
        let mut lines = vec![(
            "instance".to_string(),
            format!("{} ({} servers)", self.0.name, self.0.servers.len()),
        )];
        if let Some(r) = report {
            lines.push(("preset".into(), r.preset.clone()));
            lines.push((
                "top".into(),
                format!("{} (score {:.6})", r.top, r.top_score),
            ));
            let pick = match (&r.play_now, r.play_now_score) {
                (Some(n), Some(s)) => format!("{n} (score {s:.6})"),
                _ => "no joinable server".into(),
            };
            lines.push(("play now".into(), pick));
            lines.push(("best score".into(), format!("{:.6}", r.best_score)));
        }
        Ok(EvalReport { lines, verdict })
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
        "top",
        "top score",
        "play now",
        "best",
        "time ms",
        "note",
    ];
    let right: Vec<bool> = header
        .iter()
        .map(|h| matches!(*h, "top score" | "best" | "time ms"))
        .collect();
    let mut t = Table::new(&header, &right);
    for row in rows {
        let r = &row.record;
        let m: Option<RankReport> = serde_json::from_value(Value::Object(r.metrics.clone())).ok();
        let num = |x: Option<f64>| x.map_or("-".to_string(), |x| format!("{x:.4}"));
        t.push(vec![
            r.instance.clone(),
            r.engine.clone(),
            r.status.to_string(),
            m.as_ref().map_or("-".into(), |m| m.top.clone()),
            num(m.as_ref().map(|m| m.top_score)),
            m.as_ref()
                .and_then(|m| m.play_now.clone())
                .unwrap_or_else(|| "-".into()),
            num(m.as_ref().map(|m| m.best_score)),
            format!("{:.2}", r.time_ms),
            short(r.message.as_deref().unwrap_or_default(), 60),
        ]);
    }
    t.render()
}
