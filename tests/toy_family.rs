//! A family from outside the crate: registered once, it runs through
//! `solve`, `eval` and `bench` without any change to `cli/` or `bench/` —
//! the acceptance test of the one-folder-per-family interface.

use serde::{Deserialize, Serialize};
use serde_json::{json, Map};
use serverpick::core::registry;
use serverpick::core::{
    fill_record, EvalReport, Family, InstanceFeatures, Outcome, ProblemInstance, SolveOptions,
    SolveRecord, SolveRow, Status, Verdict,
};
use serverpick::io::solution_file::read_solution;
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
    fn engines(&self) -> Vec<&'static str> {
        vec!["first", "best", "wrong"]
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
        vec!["first".into(), "best".into()]
    }
    fn run_engine(&self, engine: &str, _opts: &SolveOptions) -> SolveRecord {
        let v = &self.0.values;
        let best = (0..v.len())
            .min_by(|&a, &b| v[a].total_cmp(&v[b]))
            .unwrap_or(0);
        let outcome = match engine {
            "first" => Outcome::found(Pick { index: 0 }),
            "best" => Outcome::claim(Status::Optimal, Pick { index: best }, Some(v[best])),
            // Claims an optimum it does not have: the cross-check must catch it.
            _ => Outcome::claim(Status::Optimal, Pick { index: 0 }, None),
        };
        let mut r = SolveRecord::unsolved(&self.0.name, "toy", engine);
        fill_record(&mut r, outcome, |p| verdict(&self.0, p));
        r
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

fn cli(args: &[&str]) -> i32 {
    let mut full = vec!["serverpick"];
    full.extend_from_slice(args);
    serverpick::cli::run_args(full)
}

#[test]
fn a_registered_family_runs_through_solve_eval_and_bench() {
    registry::register(&TOY);
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
