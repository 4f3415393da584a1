//! `host-search` (restarted constraint search for fewer P2P hosts, beyond
//! the paper): feasible, never worse than `host-ls` it starts from, never
//! better than `exact`'s proven host count, equal to it when it claims a
//! proof, and the same answer for the same seed.

mod common_spd;

use common_spd::random_spd_in;
use proptest::prelude::*;
use serverpick::core::{SolveOptions, Status};
use serverpick::problems::spd::engines::{run_spd, spd_engine};
use serverpick::problems::spd::host_search::host_search;
use serverpick::problems::spd::model::{CommModel, SpdInstance};

fn run(inst: &SpdInstance, engine: &str) -> (Status, Option<usize>, String) {
    let rec = run_spd(
        spd_engine(engine).expect("engine"),
        inst,
        &SolveOptions::new(Some(60.0), 3),
    );
    let h = rec.metrics.get("hosts").and_then(|v| v.as_u64());
    (
        rec.status,
        h.map(|h| h as usize),
        rec.message.unwrap_or_default(),
    )
}

fn check(inst: &SpdInstance) -> Result<(), TestCaseError> {
    let (st, hs, msg) = run(inst, "host-search");
    let (_, ls, _) = run(inst, "host-ls");
    let Some(ls) = ls else {
        return Ok(());
    };
    prop_assert_eq!(st, Status::Feasible);
    let hs = hs.expect("hosts");
    prop_assert!(hs <= ls, "host-search {} hosts, host-ls {}", hs, ls);
    let (est, ex, _) = run(inst, "exact");
    prop_assert_eq!(est, Status::Optimal);
    let ex = ex.expect("hosts");
    prop_assert!(ex <= hs, "exact {} vs host-search {}", ex, hs);
    if msg.contains("proven minimal") {
        prop_assert_eq!(ex, hs, "host-search claimed a proof: {}", msg);
    }
    let again = host_search(inst, 100_000, 3, &serverpick::core::Deadline::none()).best;
    let first = host_search(inst, 100_000, 3, &serverpick::core::Deadline::none()).best;
    prop_assert_eq!(again, first, "same seed, different answers");
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn host_search_is_feasible_and_between_host_ls_and_exact(
        n in 2usize..=9, m in 2usize..=16,
        f in prop::sample::select(vec![0.9, 1.0, 1.1, 1.3]), seed in any::<u64>()) {
        check(&random_spd_in(n, m, CommModel::P2p, f, seed, 4, 12))?;
    }
}

/// At the smallest size (40 servers × 200 clients, generator seed
/// 1, f = 1.0 and 1.2) the default budget reaches `exact`'s host count.
#[test]
fn host_search_reaches_the_optimum_at_40_servers() {
    for f in [1.0, 1.2] {
        let inst = common_spd::paper_spd(40, 200, CommModel::P2p, f, 1);
        let (_, hs, _) = run(&inst, "host-search");
        let (est, ex, _) = run(&inst, "exact");
        assert_eq!(est, Status::Optimal);
        assert_eq!(hs, ex, "f = {f}");
    }
}

#[test]
fn host_search_does_not_apply_to_cs() {
    let inst = random_spd_in(4, 6, CommModel::Cs, 1.2, 1, 4, 12);
    assert_eq!(run(&inst, "host-search").0, Status::Error);
}
