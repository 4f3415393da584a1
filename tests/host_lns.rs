//! `host-lns` (large-neighbourhood dives for fewer P2P hosts, beyond the
//! paper): feasible, never worse than `host-search` it starts from, never
//! better than `exact`'s proven host count, and the same answer run twice.

mod common_spd;

use common_spd::{paper_spd, random_spd_in};
use proptest::prelude::*;
use serverpick::core::SolveRecord;
use serverpick::core::{SolveOptions, Status, StopReason};
use serverpick::problems::spd::engines::{run_spd, spd_engine};
use serverpick::problems::spd::host_lns::{auto_group, HOST_LNS_GROUP, HOST_LNS_NODES};
use serverpick::problems::spd::model::{CommModel, SpdInstance};

fn run_with(inst: &SpdInstance, engine: &str, opts: &SolveOptions) -> SolveRecord {
    run_spd(spd_engine(engine).expect("engine"), inst, opts)
}

fn hosts(r: &SolveRecord) -> Option<u64> {
    r.metrics.get("hosts").and_then(|v| v.as_u64())
}

fn check(inst: &SpdInstance) -> Result<(), TestCaseError> {
    let opts = SolveOptions::new(Some(60.0), 3);
    let hs = run_with(inst, "host-search", &opts);
    let Some(hs_hosts) = hosts(&hs) else {
        return Ok(());
    };
    let lns = run_with(inst, "host-lns", &opts);
    prop_assert_eq!(lns.status, Status::Feasible, "{:?}", lns.message);
    let lns_hosts = hosts(&lns).expect("hosts");
    prop_assert!(
        lns_hosts <= hs_hosts,
        "host-lns {} hosts, host-search {}",
        lns_hosts,
        hs_hosts
    );
    let ex = run_with(inst, "exact", &opts);
    prop_assert_eq!(ex.status, Status::Optimal);
    let ex_hosts = hosts(&ex).expect("hosts");
    prop_assert!(
        ex_hosts <= lns_hosts,
        "exact {} vs host-lns {}",
        ex_hosts,
        lns_hosts
    );
    let again = run_with(inst, "host-lns", &opts);
    prop_assert_eq!(
        &again.metrics,
        &lns.metrics,
        "the same run, different answers"
    );
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn host_lns_is_feasible_and_between_host_search_and_exact(
        n in 2usize..=9, m in 2usize..=16,
        f in prop::sample::select(vec![0.9, 1.0, 1.1, 1.3]), seed in any::<u64>()) {
        check(&random_spd_in(n, m, CommModel::P2p, f, seed, 4, 12))?;
    }
}

/// A paper instance where the dives pay (`gen spd --servers 80 --clients
/// 400 --model p2p --factor 1.2 --seed 3`): `host-search` stops at 7
/// hosts, the dives find 6. With no dive budget `host-lns` is
/// `host-search`; a budget too small to end the dives stops at
/// `node_limit`.
#[test]
fn dives_find_fewer_hosts_and_say_what_stopped_them() {
    let inst = paper_spd(80, 400, CommModel::P2p, 1.2, 3);
    let opts = SolveOptions::new(None, 0);
    let hs = hosts(&run_with(&inst, "host-search", &opts)).unwrap();
    let none = opts.clone().with(&HOST_LNS_NODES, 0).unwrap();
    assert_eq!(hosts(&run_with(&inst, "host-lns", &none)), Some(hs));
    let lns = run_with(&inst, "host-lns", &opts);
    assert!(hosts(&lns).unwrap() < hs, "{lns:?}, host-search {hs}");
    let pairs = opts.clone().with(&HOST_LNS_GROUP, 2).unwrap();
    let two = run_with(&inst, "host-lns", &pairs);
    assert_eq!(two.status, Status::Feasible, "{:?}", two.message);
    assert!(hosts(&two).unwrap() <= hs);
    let few = opts.with(&HOST_LNS_NODES, 1).unwrap();
    let r = run_with(&inst, "host-lns", &few);
    assert_eq!(r.status, Status::Feasible, "{:?}", r.message);
    assert_eq!(r.stop, Some(StopReason::NodeLimit), "{r:?}");
}

#[test]
fn host_lns_does_not_apply_to_cs() {
    let inst = random_spd_in(4, 6, CommModel::Cs, 1.2, 1, 4, 12);
    assert_eq!(
        run_with(&inst, "host-lns", &SolveOptions::new(Some(60.0), 3)).status,
        Status::Error
    );
}

/// The default group limit: three quarters of the start's hosts, at
/// least 8.
#[test]
fn the_default_group_grows_with_the_hosts() {
    assert_eq!(auto_group(3), 8);
    assert_eq!(auto_group(11), 8);
    assert_eq!(auto_group(19), 14);
    assert_eq!(auto_group(24), 18);
}

/// The dives run two at a time; the earlier one's solution wins, so one
/// thread and two give the same answer.
#[test]
fn one_thread_and_two_agree() {
    // the instance above, where the dives find a solution
    let inst = paper_spd(80, 400, CommModel::P2p, 1.2, 3);
    let opts = SolveOptions::new(None, 0);
    let on = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| run_with(&inst, "host-lns", &opts))
    };
    let (one, two) = (on(1), on(2));
    assert_eq!(one.status, Status::Feasible, "{:?}", one.message);
    assert!(one.message.is_none(), "host-search proved it: no dives ran");
    assert_eq!(one.metrics, two.metrics);
}
