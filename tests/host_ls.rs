//! `host-ls` (P2P host-elimination local search, beyond the paper): its
//! solutions are feasible, never use more hosts than the paper heuristics it
//! starts from, and never beat `exact`'s proven host count.

mod common_spd;

use common_spd::random_spd_in;
use proptest::prelude::*;
use serverpick::core::{SolveOptions, Status};
use serverpick::problems::spd::engines::{run_spd, spd_engine};
use serverpick::problems::spd::model::{CommModel, SpdInstance};

fn hosts(inst: &SpdInstance, engine: &str) -> (Status, Option<usize>) {
    let rec = run_spd(
        spd_engine(engine).expect("engine"),
        inst,
        &SolveOptions::new(Some(60.0), 0),
    );
    let h = rec.metrics.get("hosts").and_then(|v| v.as_u64());
    (rec.status, h.map(|h| h as usize))
}

fn check(inst: &SpdInstance) -> Result<(), TestCaseError> {
    let (st, ls) = hosts(inst, "host-ls");
    // an error here would be a rejected solution or a failure
    let starts: Vec<Option<usize>> = ["alg-m", "spdp2p-h", "zizo"]
        .iter()
        .map(|e| hosts(inst, e).1)
        .collect();
    if starts.iter().all(Option::is_none) {
        prop_assert!(ls.is_none(), "host-ls found a solution with no start");
        return Ok(());
    }
    prop_assert_eq!(st, Status::Feasible);
    let ls = ls.expect("hosts");
    for s in starts.into_iter().flatten() {
        prop_assert!(ls <= s, "host-ls {} hosts, a start {}", ls, s);
    }
    let (est, ex) = hosts(inst, "exact");
    if est == Status::Optimal {
        prop_assert!(
            ex.is_some_and(|e| e <= ls),
            "exact {:?} vs host-ls {}",
            ex,
            ls
        );
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn host_ls_is_feasible_and_never_worse_than_its_starts(
        n in 2usize..=8, m in 2usize..=14,
        f in prop::sample::select(vec![0.9, 1.0, 1.1, 1.3]), seed in any::<u64>()) {
        check(&random_spd_in(n, m, CommModel::P2p, f, seed, 4, 12))?;
    }
}

#[test]
fn host_ls_does_not_apply_to_cs() {
    let inst = random_spd_in(4, 6, CommModel::Cs, 1.2, 1, 4, 12);
    let (st, _) = hosts(&inst, "host-ls");
    assert_eq!(st, Status::Error);
}
