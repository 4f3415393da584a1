//! A family from outside the crate: registered once, it runs through
//! `solve`, `eval` and `bench` without any change to `cli/` or `bench/` —
//! the acceptance test of the one-folder-per-family interface. And an engine
//! from outside the crate added to an existing family (SPD) through the
//! public engine interface: the family's evaluator judges it.

use serde::{Deserialize, Serialize};
use serde_json::{json, Map};
use serverpick::core::engine::{self, Ctx, Engine, Engines, Problem};
use serverpick::core::{
    EvalReport, FailureReason, Family, ForeignEngine, InstanceFeatures, Outcome, ProblemInstance,
    SolveOptions, SolveRecord, SolveRow, Status, Verdict,
};
use serverpick::io::solution_file::read_solution;
use serverpick::problems::spd::model::{SpdInstance, SpdSolution};
use serverpick::Result;
use std::any::Any;
use std::path::Path;

/// Toy problem: pick one of `values`; the objective is the value picked.
struct Toy;
static TOY: Toy = Toy;

#[derive(Debug, Deserialize)]
struct ToyFile {
    #[allow(dead_code)]
    problem: String,
    name: String,
    values: Vec<f64>,
}

#[derive(Debug, Serialize, Deserialize)]
struct Pick {
    index: usize,
}

struct ToyInstance(ToyFile);

impl Problem for ToyFile {
    type Solution = Pick;
    fn instance_name(&self) -> &str {
        &self.name
    }
    fn problem(&self) -> &'static str {
        "toy"
    }
    fn evaluate(&self, pick: &Pick) -> Verdict {
        verdict(self, pick)
    }
}

/// The toy engines, as values.
struct First;
struct Best;
/// Claims an optimum it does not have: the cross-check must catch it.
struct Wrong;
static TOY_ENGINES: &Engines<'static, ToyFile> = &[&First, &Best, &Wrong];

impl Engine<ToyFile> for First {
    fn name(&self) -> &str {
        "first"
    }
    fn solve(&self, _: &ToyFile, _: &Ctx) -> Outcome<Pick> {
        Outcome::found(Pick { index: 0 })
    }
}

impl Engine<ToyFile> for Best {
    fn name(&self) -> &str {
        "best"
    }
    fn solve(&self, inst: &ToyFile, _: &Ctx) -> Outcome<Pick> {
        let v = &inst.values;
        let best = (0..v.len()).min_by(|&a, &b| v[a].total_cmp(&v[b]));
        match best {
            Some(b) => Outcome::claim(Status::Optimal, Pick { index: b }, Some(v[b])),
            None => Outcome::no_solution("no values"),
        }
    }
}

impl Engine<ToyFile> for Wrong {
    fn name(&self) -> &str {
        "wrong"
    }
    /// Only when named: `--engine all` leaves it out.
    fn in_all(&self, _: &ToyFile) -> bool {
        false
    }
    fn solve(&self, _: &ToyFile, _: &Ctx) -> Outcome<Pick> {
        Outcome::claim(Status::Optimal, Pick { index: 0 }, None)
    }
}

fn verdict(inst: &ToyFile, pick: &Pick) -> Verdict {
    match inst.values.get(pick.index) {
        Some(&v) => Verdict {
            objective: Some(v),
            metrics: Map::from_iter([("value".to_string(), json!(v))]),
            violations: vec![],
        },
        None => Verdict {
            violations: vec![format!("index {} is out of range", pick.index)],
            ..Verdict::default()
        },
    }
}

impl Family for Toy {
    fn name(&self) -> &'static str {
        "toy"
    }
    fn problems(&self) -> &'static [&'static str] {
        &["toy"]
    }
    fn read(
        &self,
        path: &Path,
        _: Option<&str>,
        _: &SolveOptions,
    ) -> Result<Box<dyn ProblemInstance>> {
        let text = std::fs::read_to_string(path).map_err(|e| serverpick::Error::io(path, e))?;
        let file: ToyFile = serde_json::from_str(&text)
            .map_err(|e| serverpick::Error::input(path.display().to_string(), "", e.to_string()))?;
        Ok(Box::new(ToyInstance(file)))
    }
    fn engines(&self) -> Vec<String> {
        engine::names(TOY_ENGINES)
    }
    fn render_table(&self, rows: &[SolveRow]) -> String {
        rows.iter()
            .map(|r| {
                format!(
                    "{} {} {}\n",
                    r.record.instance, r.record.engine, r.record.status
                )
            })
            .collect()
    }
}

impl ProblemInstance for ToyInstance {
    fn family(&self) -> &'static dyn Family {
        &TOY
    }
    fn name(&self) -> &str {
        &self.0.name
    }
    fn problem(&self) -> &'static str {
        "toy"
    }
    fn features(&self) -> InstanceFeatures {
        InstanceFeatures {
            size: self.0.values.len() as f64,
            features: Map::new(),
        }
    }
    fn applicable_engines(&self) -> Vec<String> {
        engine::in_all(TOY_ENGINES, &self.0)
    }
    fn run_engine(&self, name: &str, opts: &SolveOptions) -> SolveRecord {
        engine::run_named(TOY_ENGINES, "toy", &self.0, name, opts)
    }
    fn run_foreign(&self, foreign: &dyn ForeignEngine, opts: &SolveOptions) -> SolveRecord {
        engine::run_foreign(foreign, self, &self.0, opts)
    }
    fn eval_file(&self, solution: &Path) -> Result<EvalReport> {
        let pick: Pick = read_solution(solution)?;
        Ok(EvalReport {
            lines: vec![("index".into(), pick.index.to_string())],
            verdict: verdict(&self.0, &pick),
        })
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// The command line with the toy family added to the crate's.
fn cli(args: &[&str]) -> i32 {
    let mut full = vec!["serverpick"];
    full.extend_from_slice(args);
    let app = serverpick::app::cli::App::builtin().with_family(&TOY, Vec::new);
    serverpick::app::cli::run_args_with(&app, full)
}

#[test]
fn a_registered_family_runs_through_solve_eval_and_bench() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("toy.json");
    std::fs::write(
        &file,
        r#"{"problem": "toy", "name": "t1", "values": [3, 1, 2]}"#,
    )
    .unwrap();
    let f = file.to_str().unwrap();
    let out = dir.path().join("sol");

    // solve: both applicable engines, solution files written.
    assert_eq!(cli(&["solve", f, "--out", out.to_str().unwrap()]), 0);
    let best = out.join("t1.best.solution.json");
    let rec: SolveRecord = serde_json::from_str(&std::fs::read_to_string(&best).unwrap()).unwrap();
    assert_eq!((rec.status, rec.objective), (Status::Optimal, Some(1.0)));

    // eval: the solution file is accepted; an out-of-range pick is not.
    assert_eq!(cli(&["eval", f, best.to_str().unwrap()]), 0);
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, r#"{"index": 7}"#).unwrap();
    assert_eq!(cli(&["eval", f, bad.to_str().unwrap()]), 1);

    // The one cross-check: a false optimum beaten by another engine fails solve.
    assert_eq!(cli(&["solve", f, "--engine", "wrong,best"]), 1);

    // bench: rows for the toy family, best known proven by `best`.
    let bench = dir.path().join("bench");
    assert_eq!(
        cli(&["bench", f, "--out", bench.to_str().unwrap(), "-q"]),
        0
    );
    let rows = serverpick::bench::export::read_jsonl(&bench.join("results.jsonl"))
        .unwrap()
        .rows;
    assert_eq!(rows.len(), 2);
    assert!(rows.iter().all(|r| r.problem == "toy"));
    let first = rows.iter().find(|r| r.engine == "first").unwrap();
    assert_eq!(first.best_known, Some(1.0));
    assert_eq!(first.best_known_is_optimal, Some(true));
    assert_eq!(first.gap, Some(2.0));
}

/// A toy SPD engine written outside the crate: every client on its nearest
/// server, claiming (falsely) to be optimal with a bound of one host.
struct Nearest;

impl Engine<SpdInstance> for Nearest {
    fn name(&self) -> &str {
        "nearest"
    }
    fn solve(&self, inst: &SpdInstance, _ctx: &Ctx) -> Outcome<SpdSolution> {
        let assign = (0..inst.clients())
            .map(|c| {
                let row = inst.access_row(c);
                (0..row.len())
                    .min_by(|&a, &b| row[a].total_cmp(&row[b]))
                    .unwrap_or(0)
            })
            .collect();
        Outcome::claim(
            Status::Optimal,
            SpdSolution { root: None, assign },
            Some(1.0),
        )
    }
}

#[test]
fn an_engine_from_outside_joins_an_existing_family() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("instances/spd-fig1-p2p.json");
    let inst = serverpick::problems::spd::file::read_spd(&path).unwrap();
    let opts = SolveOptions::default();
    // The same runner as the built-in engines: the SPD evaluator scores it
    // and the false claim (bound 1 below the evaluated host count) is caught.
    let rec = engine::run(&Nearest, &inst, &opts);
    assert_eq!(
        (rec.engine.as_str(), rec.problem.as_str()),
        ("nearest", "spd")
    );
    let hosts = rec.metrics["hosts"].as_u64().unwrap();
    assert!(hosts > 1, "{rec:?}");
    assert_eq!(rec.status, Status::Feasible, "{rec:?}");
    assert_eq!(rec.objective, Some(hosts as f64));
    // Beside the family's own engines, judged alike: exact is no worse.
    let exact = engine::run_named(
        serverpick::problems::spd::engines::ENGINES,
        "SPD",
        &inst,
        "exact",
        &opts,
    );
    assert!(exact.objective.unwrap() <= rec.objective.unwrap());
}

/// A foreign (JSON) engine on a family's dynamic instance: a wrong shape is
/// a `rejected` row, a right one is scored.
struct Json(serde_json::Value);

impl ForeignEngine for Json {
    fn name(&self) -> &str {
        "json"
    }
    fn solve(&self, _inst: &dyn ProblemInstance, _ctx: &Ctx) -> Outcome<serde_json::Value> {
        Outcome::found(self.0.clone())
    }
}

#[test]
fn a_foreign_engine_goes_through_the_same_runner() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("instances/spd-fig1-p2p.json");
    let inst = serverpick::problems::read_instance(&path).unwrap();
    let opts = SolveOptions::default();
    let builtin = inst.run_engine("alg-m", &opts);
    let good = Json(builtin.solution.clone().unwrap());
    let rec = inst.run_foreign(&good, &opts);
    assert_eq!(
        (rec.status, rec.objective),
        (builtin.status, builtin.objective),
        "{rec:?}"
    );
    let clients = inst.features().features["clients"].as_u64().unwrap() as usize;
    let infeasible = Json(json!({"assign": vec![0; clients]}));
    let rec = inst.run_foreign(&infeasible, &opts);
    assert_eq!(rec.reason, Some(FailureReason::Rejected), "{rec:?}");
    assert!(rec.message.unwrap().contains("exceeds the bound"));
    let bad = Json(json!({"nope": 1}));
    let rec = inst.run_foreign(&bad, &opts);
    assert_eq!(rec.status, Status::Error);
    assert_eq!(rec.reason, Some(FailureReason::Rejected));
    assert!(rec.message.unwrap().contains("not a spd solution"));
}

/// Every family's engine parameters: a default of their type inside their
/// range, a doc line, one flag name each.
#[test]
fn every_engine_parameter_is_well_declared() {
    let params = serverpick::problems::registry().params();
    assert!(!params.is_empty());
    for p in &params {
        p.validate().unwrap();
        assert!(!p.help.is_empty(), "--{} has no doc line", p.name);
        let mut o = SolveOptions::default();
        let err = o.set(p, "not-a-value").unwrap_err();
        assert!(err.to_string().contains(&format!("--{}", p.name)), "{err}");
    }
}
