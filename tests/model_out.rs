//! `--write-model`, `serverpick model`, `--solver-log`, `--threads`: every
//! written model, read back and solved on HiGHS, gives the engine's optimum
//! (sidecar offset applied); a sidecar maps an optimal column vector back to
//! a solution `eval` accepts; bad folders and thread counts are clear errors.

mod common_cli;

use common_cli::{bundled, serverpick, text};
use serde_json::Value;
use serverpick::lp::read::{read_mps, solve};
use std::path::{Path, PathBuf};

/// Runs `solve --json --write-model DIR` with `args`; the JSON records.
fn solve_writing(args: &[&str], dir: &Path) -> Vec<Value> {
    let d = dir.display().to_string();
    let mut all = vec!["solve", "--json", "--write-model", d.as_str()];
    all.extend_from_slice(args);
    let o = serverpick(&all);
    assert!(o.status.success(), "{all:?}: {}", text(&o.stderr));
    text(&o.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON record"))
        .collect()
}

/// The sidecar of a model file.
fn sidecar(model: &Path) -> Value {
    let side = model.with_extension("json");
    let body = std::fs::read_to_string(&side).expect("a sidecar");
    serde_json::from_str(&body).expect("sidecar JSON")
}

/// Reads `dir/<name>.mps` back and solves it: (status, objective + the
/// sidecar's offset, column values).
fn round_trip(dir: &Path, name: &str) -> (String, Option<f64>, Option<Vec<f64>>) {
    let path = dir.join(format!("{name}.mps"));
    let mps = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
    let model = read_mps(&mps).expect("the MPS reads back");
    let side = sidecar(&path);
    assert_eq!(
        side["size"]["columns"].as_u64(),
        Some(model.cols.len() as u64)
    );
    assert_eq!(side["size"]["rows"].as_u64(), Some(model.rows.len() as u64));
    let offset = side["objective"]["offset"].as_f64().expect("an offset");
    let s = solve(&model).expect("HiGHS solves it");
    (s.status, s.objective.map(|o| o + offset), s.values)
}

fn close(a: Option<f64>, b: f64) -> bool {
    a.is_some_and(|a| (a - b).abs() <= 1e-6 * (1.0 + b.abs()))
}

fn files(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

/// `x[client C, server S]` / `x[client C, mirror S]` columns at 1: the
/// assignment.
fn assignment(model: &Path, values: &[f64], clients: usize) -> Vec<usize> {
    let side = sidecar(model);
    let mut assign = vec![usize::MAX; clients];
    for col in side["columns"].as_array().expect("columns") {
        let meaning = col["meaning"].as_str().unwrap_or("");
        let idx = col["index"].as_u64().unwrap_or(0) as usize;
        let Some(rest) = meaning.strip_prefix("x[client ") else {
            continue;
        };
        let nums: Vec<usize> = rest
            .split(|c: char| !c.is_ascii_digit())
            .filter_map(|t| t.parse().ok())
            .collect();
        if values[idx] > 0.5 {
            assign[nums[0]] = nums[1];
        }
    }
    assert!(assign.iter().all(|&a| a != usize::MAX), "{assign:?}");
    assign
}

fn eval_ok(instance: &str, solution: &Value, dir: &Path) {
    let file = dir.join("from-sidecar.json");
    std::fs::write(&file, solution.to_string()).expect("write");
    let o = serverpick(&["eval", instance, &file.display().to_string()]);
    assert!(o.status.success(), "{}{}", text(&o.stdout), text(&o.stderr));
    assert!(text(&o.stdout).contains("feasible"), "{}", text(&o.stdout));
}

#[test]
fn spd_cs_reference_and_root_models_give_the_engines_host_count() {
    for name in ["spd-fig1-cs", "planetlabdata_1-cs-20s-60c-f1-s11"] {
        let dir = tempfile::tempdir().expect("tempdir");
        let recs = solve_writing(
            &[&bundled(&format!("{name}.json")), "-e", "exact"],
            dir.path(),
        );
        let hosts = recs[0]["metrics"]["hosts"].as_f64().expect("hosts");
        let (status, obj, _) = round_trip(dir.path(), &format!("{name}.exact.reference-cs-hosts"));
        assert_eq!(status, "Optimal");
        assert!(close(obj, hosts), "{name}: {obj:?} vs {hosts}");
        let side = sidecar(
            &dir.path()
                .join(format!("{name}.exact.reference-cs-hosts.mps")),
        );
        assert_eq!(side["reference"], Value::Bool(true));
        // the engine's own per-root models: each optimum is a host count no
        // better than the proven one (most are infeasible: capped below it)
        for f in files(dir.path()).iter().filter(|f| f.ends_with(".mps")) {
            let stem = f.trim_end_matches(".mps");
            let (status, obj, _) = round_trip(dir.path(), stem);
            match status.as_str() {
                "Optimal" if stem.contains("hosts-root") => {
                    assert!(obj.is_some_and(|o| o >= hosts - 1e-6), "{stem}: {obj:?}")
                }
                "Optimal" | "Infeasible" => {}
                s => panic!("{stem}: {s}"),
            }
        }
    }
}

#[test]
fn spd_p2p_milp_gives_the_host_count_and_maps_back_to_a_solution() {
    for name in ["spd-fig1-p2p", "planetlabdata_1-p2p-20s-60c-f1.1-s11"] {
        let dir = tempfile::tempdir().expect("tempdir");
        let inst = bundled(&format!("{name}.json"));
        let recs = solve_writing(&[&inst, "-e", "exact"], dir.path());
        let hosts = recs[0]["metrics"]["hosts"].as_f64().expect("hosts");
        let stem = format!("{name}.exact.reference-p2p-hosts");
        let (status, obj, values) = round_trip(dir.path(), &stem);
        assert_eq!(status, "Optimal");
        assert!(close(obj, hosts), "{name}: {obj:?} vs {hosts}");
        let clients = recs[0]["solution"]["assign"].as_array().map_or(0, Vec::len);
        let model = dir.path().join(format!("{stem}.mps"));
        let assign = assignment(&model, &values.expect("values"), clients);
        let used: std::collections::BTreeSet<usize> = assign.iter().copied().collect();
        assert_eq!(used.len() as f64, hosts);
        eval_ok(&inst, &serde_json::json!({ "assign": assign }), dir.path());
    }
}

#[test]
fn spdvr_variation_stage_gives_the_engines_variation() {
    for name in ["spd-fig1-cs", "spd-fig1-p2p"] {
        let dir = tempfile::tempdir().expect("tempdir");
        let inst = bundled(&format!("{name}.json"));
        let args = [
            inst.as_str(),
            "--problem",
            "spdvr",
            "--start",
            "exact",
            "-e",
            "exact",
        ];
        let recs = solve_writing(&args, dir.path());
        let v = recs[0]["objective"].as_f64().expect("objective");
        let (status, obj, _) = round_trip(dir.path(), &format!("{name}.exact.variation"));
        assert_eq!(status, "Optimal");
        assert!(close(obj, v), "{name}: {obj:?} vs {v}");
        // the start engine's models are named apart
        assert!(files(dir.path())
            .iter()
            .any(|f| f.contains(".start-exact.")));
    }
}

#[test]
fn cma_lp_gives_the_total_delay_and_maps_back_to_a_solution() {
    let dir = tempfile::tempdir().expect("tempdir");
    let inst = bundled("cma-small.json");
    let recs = solve_writing(&[&inst, "-e", "exact,exact-flow"], dir.path());
    let total = recs[0]["objective"].as_f64().expect("objective");
    let (status, obj, values) = round_trip(dir.path(), "small-static.exact.lp");
    assert_eq!(status, "Optimal");
    assert!(close(obj, total), "{obj:?} vs {total}");
    let clients = recs[0]["solution"]["assign"].as_array().map_or(0, Vec::len);
    let model = dir.path().join("small-static.exact.lp.mps");
    let assign = assignment(&model, &values.expect("values"), clients);
    eval_ok(&inst, &serde_json::json!({ "assign": assign }), dir.path());
    // exact-flow builds no LP: the CMA LP is written as its reference
    let (status, obj, _) = round_trip(dir.path(), "small-static.exact-flow.reference-lp");
    assert_eq!(status, "Optimal");
    assert!(close(
        obj,
        recs[1]["objective"].as_f64().unwrap_or(f64::NAN)
    ));
    let side = sidecar(&dir.path().join("small-static.exact-flow.reference-lp.mps"));
    assert_eq!(side["reference"], Value::Bool(true));
}

#[test]
fn cma_plan_milp_gives_the_points_objective() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (out, models) = (dir.path().join("out"), dir.path().join("models"));
    let o = serverpick(&[
        "plan",
        "cma",
        &bundled("cma-plan-planetlab-12m.json"),
        "--engine",
        "milp",
        "--mirrors",
        "3",
        "--out",
        &out.display().to_string(),
        "--write-model",
        &models.display().to_string(),
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let plan: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("plan.json")).expect("plan.json"))
            .expect("JSON");
    let want = plan["points"][0]["objective"].as_f64().expect("objective");
    let stem = format!("{}.milp.k3", plan["instance"].as_str().unwrap_or(""));
    let (status, obj, _) = round_trip(&models, &stem);
    assert_eq!(status, "Optimal");
    assert!(close(obj, want), "{obj:?} vs {want}");
}

#[test]
fn ag_stages_give_the_engines_stage_values() {
    let dir = tempfile::tempdir().expect("tempdir");
    let recs = solve_writing(&[&bundled("ag-small.json"), "-e", "exact"], dir.path());
    let m = &recs[0]["metrics"];
    let stages = [
        ("stage1-p2p", m["players_p2p"].as_f64()),
        ("stage2-moved", m["players_moved"].as_f64()),
        ("stage3-load", m["max_load"].as_f64()),
    ];
    for (stage, want) in stages {
        let want = want.unwrap_or_else(|| panic!("{stage}: no metric in {m}"));
        let (status, obj, _) = round_trip(dir.path(), &format!("ag-small.exact.{stage}"));
        assert_eq!(status, "Optimal", "{stage}");
        assert!(close(obj, want), "{stage}: {obj:?} vs {want}");
    }
}

#[test]
fn model_command_lists_lp_files_and_notes_engines_without_a_model() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path().display().to_string();
    let o = serverpick(&[
        "model",
        &bundled("ag-small.json"),
        "--engine",
        "exact",
        "--out",
        &d,
        "--model-format",
        "lp",
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let listed: Vec<PathBuf> = text(&o.stdout).lines().map(PathBuf::from).collect();
    assert_eq!(listed.len(), 3, "{listed:?}");
    for f in &listed {
        let lp = std::fs::read_to_string(f).expect("listed file");
        for part in ["Minimize", "Subject To", "Bounds", "General", "End"] {
            assert!(lp.contains(part), "{part} missing in {}", f.display());
        }
    }
    let o = serverpick(&["model", &bundled("ranges-tiny.json"), "--out", &d]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(
        text(&o.stderr).contains("built no MILP/LP"),
        "{}",
        text(&o.stderr)
    );
}

#[test]
fn solver_log_holds_highs_output_and_threads_reach_the_run() {
    let dir = tempfile::tempdir().expect("tempdir");
    let log = dir.path().join("highs.log");
    let l = log.display().to_string();
    let o = serverpick(&[
        "solve",
        &bundled("cma-small.json"),
        "-e",
        "exact",
        "--solver-log",
        &l,
        "--threads",
        "2",
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let body = std::fs::read_to_string(&log).expect("the log");
    assert!(
        body.contains("==== serverpick: small-static.exact lp ===="),
        "{body}"
    );
    assert!(body.contains("HiGHS") || body.contains("Solving"), "{body}");
    // the default stays quiet
    let o = serverpick(&["solve", &bundled("cma-small.json"), "-e", "exact"]);
    assert!(!text(&o.stdout).contains("Presolving"));
}

#[test]
fn bad_folders_and_thread_counts_are_usage_errors() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("plain-file");
    std::fs::write(&file, "x").expect("write");
    let under = file.join("models");
    let inst = bundled("cma-small.json");
    for flag in ["--write-model", "--solver-log"] {
        let o = serverpick(&["solve", &inst, flag, &under.display().to_string()]);
        assert_eq!(o.status.code(), Some(2), "{flag}: {}", text(&o.stderr));
        let err = text(&o.stderr);
        assert!(err.contains(&*file.display().to_string()), "{flag}: {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
    let o = serverpick(&["solve", &inst, "--write-model", &file.display().to_string()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("not a folder"),
        "{}",
        text(&o.stderr)
    );
    for cmd in [
        &["solve", inst.as_str()][..],
        &["bench", inst.as_str(), "--out", "x"][..],
    ] {
        let mut args = cmd.to_vec();
        args.extend(["--threads", "0"]);
        let o = serverpick(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(text(&o.stderr).contains("--threads"), "{}", text(&o.stderr));
    }
    let o = serverpick(&[
        "solve",
        &inst,
        "--model-format",
        "xml",
        "--write-model",
        "y",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("mps or lp"));
}

/// With highspy installed, HiGHS's own MPS and LP readers agree with the
/// engine (skipped silently otherwise: no network in CI).
#[test]
fn highspy_reads_the_files_when_installed() {
    let has = std::process::Command::new("python3")
        .args(["-c", "import highspy"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !has {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let recs = solve_writing(&[&bundled("cma-small.json"), "-e", "exact"], dir.path());
    let total = recs[0]["objective"].as_f64().expect("objective");
    let lp_dir = dir.path().join("lp");
    let o = serverpick(&[
        "model",
        &bundled("cma-small.json"),
        "--out",
        &lp_dir.display().to_string(),
        "--model-format",
        "lp",
    ]);
    assert!(o.status.success());
    let script = "import sys, highspy\nfor f in sys.argv[1:]:\n    h = highspy.Highs()\n    \
                  h.setOptionValue('output_flag', False)\n    h.readModel(f)\n    h.run()\n    \
                  print(h.getInfo().objective_function_value)\n";
    let mps = dir.path().join("small-static.exact.lp.mps");
    let lp = lp_dir.join("small-static.exact.lp.lp");
    let o = std::process::Command::new("python3")
        .args(["-c", script])
        .arg(&mps)
        .arg(&lp)
        .output()
        .expect("python3 runs");
    let out = text(&o.stdout);
    let objs: Vec<f64> = out.lines().filter_map(|l| l.trim().parse().ok()).collect();
    assert_eq!(objs.len(), 2, "{out}{}", text(&o.stderr));
    assert!(
        objs.iter().all(|&v| close(Some(v), total)),
        "{objs:?} vs {total}"
    );
}

#[test]
fn plan_spd_writes_each_bounds_reference_with_the_frontiers_host_count() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (out, models) = (dir.path().join("out"), dir.path().join("models"));
    let o = serverpick(&[
        "plan",
        "spd",
        &bundled("spd-fig1-cs.json"),
        "--out",
        &out.display().to_string(),
        "--write-model",
        &models.display().to_string(),
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let body = std::fs::read_to_string(out.join("frontier.jsonl")).expect("frontier");
    let points: Vec<(f64, f64)> = body
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).expect("JSON"))
        .map(|p| {
            (
                p["mu"].as_f64().unwrap_or(f64::NAN),
                p["hosts"].as_f64().unwrap_or(f64::NAN),
            )
        })
        .collect();
    let mut checked = 0;
    for f in files(&models)
        .iter()
        .filter(|f| f.ends_with(".reference-cs-hosts.mps"))
    {
        // spd-fig1-cs.exact.mu<μ>.reference-cs-hosts.mps: solved at bound μ
        let stem = f.trim_end_matches(".mps");
        let mu: f64 = stem
            .trim_start_matches("spd-fig1-cs.exact.mu")
            .trim_end_matches(".reference-cs-hosts")
            .parse()
            .expect("a bound in the name");
        // the least host count at μ: the fewest hosts of a breakpoint <= μ
        let least = points
            .iter()
            .filter(|p| p.0 <= mu)
            .map(|p| p.1)
            .fold(f64::INFINITY, f64::min);
        let (status, obj, _) = round_trip(&models, stem);
        if least.is_finite() {
            assert_eq!(status, "Optimal", "{stem}");
            assert!(close(obj, least), "{stem}: {obj:?} vs {least}");
        } else {
            // below the last breakpoint the sweep proved no solution
            assert_eq!(status, "Infeasible", "{stem}");
        }
        checked += 1;
    }
    assert!(
        checked >= points.len(),
        "{checked} models for {} breakpoints",
        points.len()
    );
}
