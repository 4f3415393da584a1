//! Engines honour the time limit, including model building, and refuse
//! models above their memory cap (issue 15 item 7). No test here measures
//! wall time: a limit of a nanosecond is over before the first check.

use serverpick::core::{FailureReason, SolveOptions, Status};
use serverpick::problems::cma::engines::run_cma;
use serverpick::problems::cma::exact_lp::LP_MAX_CELLS;
use serverpick::problems::cma::file::read_cma;
use serverpick::problems::spd::engines::{run_spd, spd_engine};
use serverpick::problems::spd::file::read_spd;
use std::path::Path;

fn instance(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("instances")
        .join(name)
}

#[test]
fn k_best_stops_at_the_time_limit() {
    let inst = read_spd(&instance("planetlabdata_1-cs-20s-60c-f1-s11.json")).unwrap();
    let k_best = spd_engine("k-best").unwrap();
    let r = run_spd(k_best.as_ref(), &inst, &SolveOptions::new(Some(1e-9), 0));
    assert_eq!(r.status, Status::TimeLimit, "{:?}", r.message);
    let r = run_spd(k_best.as_ref(), &inst, &SolveOptions::new(None, 0));
    assert_eq!(r.status, Status::Feasible, "{:?}", r.message);
}

#[test]
fn the_cma_lp_honours_its_time_limit_and_memory_cap() {
    let inst = read_cma(&instance("cma-small.json")).unwrap();
    let r = run_cma("exact", &inst, &SolveOptions::new(Some(1e-9), 0));
    assert_eq!(r.status, Status::TimeLimit, "{:?}", r.message);
    let capped = SolveOptions::default().with(&LP_MAX_CELLS, 10).unwrap();
    let r = run_cma("exact", &inst, &capped);
    assert_eq!(
        (r.status, r.reason),
        (Status::Error, Some(FailureReason::Refused))
    );
    assert!(r.message.unwrap().contains("--lp-max-cells"));
    let r = run_cma("exact", &inst, &SolveOptions::default());
    assert_eq!(r.status, Status::Optimal);
}
