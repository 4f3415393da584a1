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
    let r = run_spd(k_best, &inst, &SolveOptions::new(Some(1e-9), 0));
    assert_eq!(r.status, Status::TimeLimit, "{:?}", r.message);
    let r = run_spd(k_best, &inst, &SolveOptions::new(None, 0));
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

/// Issue 21: the record says which limit ended a run. `host-search` with a
/// node budget too small to prove anything stops at `node_limit`; with a
/// time limit that has passed, at `time_limit`; an exact run stopped by time
/// says so too.
#[test]
fn a_node_limit_and_a_time_limit_read_differently() {
    use serverpick::core::StopReason;
    use serverpick::problems::spd::gen::{generate_paper_spd, PaperSpdParams};
    use serverpick::problems::spd::host_search::HOST_SEARCH_NODES;
    use serverpick::problems::spd::model::CommModel;
    let p = PaperSpdParams {
        servers: 60,
        clients: 300,
        model: CommModel::P2p,
        bound_factor: 1.0,
        ..PaperSpdParams::default()
    };
    let inst = generate_paper_spd(&p, 1).unwrap();
    let search = spd_engine("host-search").unwrap();
    let few = SolveOptions::new(None, 0)
        .with(&HOST_SEARCH_NODES, 1)
        .unwrap();
    let r = run_spd(search, &inst, &few);
    assert_eq!(r.status, Status::Feasible, "{:?}", r.message);
    assert_eq!(r.stop, Some(StopReason::NodeLimit), "{r:?}");
    let r = run_spd(search, &inst, &SolveOptions::new(Some(1e-9), 0));
    assert_eq!(r.stop, Some(StopReason::TimeLimit), "{r:?}");
    let cs = read_spd(&instance("planetlabdata_1-cs-20s-60c-f1-s11.json")).unwrap();
    let k_best = spd_engine("k-best").unwrap();
    let r = run_spd(k_best, &cs, &SolveOptions::new(Some(1e-9), 0));
    assert_eq!(
        (r.status, r.stop),
        (Status::TimeLimit, Some(StopReason::TimeLimit)),
        "{r:?}"
    );
}

/// Issue 21: a raised interrupt flag stops an exact run at its next
/// checkpoint, and the record says `interrupted`.
#[test]
fn an_interrupt_flag_stops_an_exact_run() {
    use serverpick::core::{Deadline, StopReason};
    use std::sync::atomic::AtomicBool;
    use std::sync::Arc;
    let inst = read_spd(&instance("planetlabdata_1-cs-20s-60c-f1-s11.json")).unwrap();
    let raised = Arc::new(AtomicBool::new(true));
    let opts = SolveOptions::new(None, 0).with_deadline(Deadline::none().with_flag(raised));
    let r = run_spd(spd_engine("k-best").unwrap(), &inst, &opts);
    assert_eq!(
        (r.status, r.stop),
        (Status::TimeLimit, Some(StopReason::Interrupted)),
        "{r:?}"
    );
}
