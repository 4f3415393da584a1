//! The descents of the lexicographic stages against the bisections (two
//! routes to the same optimum), on one thread and split over three with
//! every decision probed.

use super::*;
use crate::problems::spd::exact::p2p::tests::tiny;
use crate::problems::spd::exact::p2p_hosts::min_hosts;
use crate::problems::spd::exact::HostStage;

/// A descent's steps: each solution it kept better than the one before
/// (the first than `start`), the last of them `best`, then the proof below
/// `best`, in time order.
fn check_steps(side: Side, steps: &[StageStep], start: &Scored, best: &Scored) {
    let (name, value): (&str, fn(&Scored) -> f64) = match side {
        Side::Upper => ("delay", |s| s.metrics.delay),
        Side::Lower => ("variation", |s| s.metrics.variation),
    };
    let (last, kept) = steps.split_last().expect("the proof's step");
    assert_eq!(
        last.step,
        format!("{name} below {}", value(best)),
        "{steps:?}"
    );
    assert_eq!(last.result, StageStep::INFEASIBLE, "{steps:?}");
    let mut prev = value(start);
    for st in kept {
        assert_eq!(st.result, StageStep::FEASIBLE, "{steps:?}");
        let v: f64 = st.step[name.len() + 1..].parse().expect("a value");
        match side {
            Side::Upper => assert!(v < prev, "{steps:?}"),
            Side::Lower => assert!(v <= prev, "{steps:?}"),
        }
        prev = v;
    }
    assert_eq!(prev, value(best), "{steps:?}");
    assert!(steps.windows(2).all(|w| w[0].ms <= w[1].ms), "{steps:?}");
}

/// The proven least host count's solution of a tiny instance (`None`:
/// infeasible).
fn host_optimum(inst: &SpdInstance) -> Option<Scored> {
    match min_hosts(inst, None, 1, &Deadline::none()) {
        HostStage::Proven(sc) => Some(sc),
        HostStage::Infeasible(_) => None,
        _ => panic!("not proven"),
    }
}

/// Both stages by descent with `first_try` nodes before probing.
fn by_descent(inst: &SpdInstance, best: Scored, first_try: u64) -> (Scored, Scored) {
    let dl = Deadline::none();
    let upper = Limits {
        mu: inst.bound,
        hi: next_down(best.metrics.delay),
        lo: f64::NEG_INFINITY,
    };
    let (d, why, steps) = descend(
        inst,
        Side::Upper,
        upper,
        best.clone(),
        first_try,
        false,
        &dl,
    )
    .expect("small");
    assert!(why.is_none(), "{why:?}");
    check_steps(Side::Upper, &steps, &best, &d);
    let lower = Limits {
        mu: inst.bound,
        hi: d.metrics.delay,
        lo: next_up(min_pair(inst, &d.sol)),
    };
    let (v, why, steps) =
        descend(inst, Side::Lower, lower, d.clone(), first_try, true, &dl).expect("small");
    assert!(why.is_none(), "{why:?}");
    check_steps(Side::Lower, &steps, &d, &v);
    (d, v)
}

/// Both stages by bisection.
fn by_bisection(inst: &SpdInstance, allowed: &Allowed, best: Scored) -> (Scored, Scored) {
    let dl = Deadline::none();
    let (d, why) = delay_bisection(inst, allowed, best, &dl);
    assert!(why.is_none(), "{why:?}");
    let (v, why) = variation_bisection(inst, allowed, d.clone(), &dl);
    assert!(why.is_none(), "{why:?}");
    (d, v)
}

/// The descents reach the bisections' least delay and variation, on
/// random instances with many ties (their limits tighten mid-search, over
/// nodes whose free clients and cuts were made under looser ones).
fn descents_equal_bisections_on(threads: usize, first_try: u64, seeds: std::ops::Range<u64>) {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("a pool");
    let mut improved = 0;
    for seed in seeds {
        let inst = tiny(6, 10, [0.7, 0.9, 1.1][seed as usize % 3], 7000 + seed);
        let Some(best) = host_optimum(&inst) else {
            continue;
        };
        let allowed = allowed_pairs(&inst, &Limits::bound(inst.bound)).expect("feasible");
        let (d2, v2) = by_bisection(&inst, &allowed, best.clone());
        let (d1, v1) = pool.install(|| by_descent(&inst, best.clone(), first_try));
        let key = |s: &Scored| (s.metrics.hosts, s.metrics.delay, s.metrics.variation);
        assert_eq!(key(&d1).0, best.metrics.hosts, "seed {seed}: hosts");
        assert_eq!(key(&d1).1, key(&d2).1, "seed {seed}: delay");
        assert_eq!(key(&v1), key(&v2), "seed {seed}: variation");
        improved += usize::from(d1.metrics.delay < best.metrics.delay);
    }
    // the descents had something to do
    assert!(improved > 20, "only {improved} delays improved");
}

#[test]
fn descents_equal_bisections() {
    descents_equal_bisections_on(1, FIRST_TRY, 0..300);
}

/// The same, split over three threads and probed before every search.
#[test]
fn split_probed_descents_equal_bisections() {
    descents_equal_bisections_on(3, 1, 300..500);
}

/// A random 10 × 40 instance (`seed`), its host optimum, pairs and least
/// delay by bisection.
struct Bisected {
    seed: u64,
    inst: SpdInstance,
    best: Scored,
    allowed: Allowed,
    want: Scored,
}

/// [`Bisected`] for `seed` (`None`: the instance is infeasible).
fn bisected(seed: u64) -> Option<Bisected> {
    let inst = tiny(10, 40, [0.7, 0.9, 1.1][seed as usize % 3], 7000 + seed);
    let best = host_optimum(&inst)?;
    let allowed = allowed_pairs(&inst, &Limits::bound(inst.bound)).expect("feasible");
    let (want, why) = delay_bisection(&inst, &allowed, best.clone(), &Deadline::none());
    assert!(why.is_none(), "{why:?}");
    Some(Bisected {
        seed,
        inst,
        best,
        allowed,
        want,
    })
}

/// A delay descent split over three threads from the bound μ itself (no
/// probing before it), its windows capped by a probing pass at its start
/// and after every improvement (`caps`), reaches the bisection's least
/// delay: with the passes' probes improving the descent (as `exact` runs
/// them) and without (then the passes find nothing, and a cap cutting an
/// optimum's pair shows).
fn capped_descents_equal_bisections_on(improving: bool) {
    use crate::problems::spd::exact::p2p_search::{caps_moved, Search};
    let before = caps_moved();
    let mut improved = 0;
    for b in (500..800).filter_map(bisected) {
        let (inst, best, seed) = (&b.inst, &b.best, b.seed);
        // from the bound itself: the descent improves several times
        let lim = Limits::bound(inst.bound);
        let lists = b.allowed.clone();
        let d = Descent::new(Side::Upper, lim.hi);
        let mut search = Search::new(inst, lim, lists, Deadline::none()).expect("small");
        search.set_descent(Some(d.clone()));
        search.enable_caps();
        search.set_caps_pass_improves(improving);
        let k = best.metrics.hosts;
        assert!(matches!(search.decide_split(k, 3, None), Probe::Infeasible));
        let got = d.best().expect("the host optimum fits the bound");
        assert_eq!(got.metrics.delay, b.want.metrics.delay, "seed {seed}");
        improved += usize::from(b.want.metrics.delay < best.metrics.delay);
    }
    assert!(improved > 20, "only {improved} delays improved");
    assert!(caps_moved() > before, "no pass capped a window");
}

#[test]
fn capped_descents_equal_bisections() {
    capped_descents_equal_bisections_on(true);
}

#[test]
fn strictly_capped_descents_equal_bisections() {
    capped_descents_equal_bisections_on(false);
}

/// The delay stage as `exact` runs it (the delay dives, then the descent
/// from their best) reaches the bisection's least delay, its steps the
/// dives' finds and then the descent's, in order.
#[test]
fn dived_delay_stage_equals_bisection() {
    let mut improved = 0;
    for b in (800..1000).filter_map(bisected) {
        let (inst, best, seed) = (&b.inst, &b.best, b.seed);
        let (got, why, steps) = delay_stage(inst, &b.allowed, best.clone(), &Deadline::none());
        assert!(why.is_none(), "seed {seed}: {why:?}");
        assert_eq!(got.metrics.hosts, best.metrics.hosts, "seed {seed}");
        assert_eq!(got.metrics.delay, b.want.metrics.delay, "seed {seed}");
        check_steps(Side::Upper, &steps, best, &got);
        improved += usize::from(b.want.metrics.delay < best.metrics.delay);
    }
    assert!(improved > 20, "only {improved} delays improved");
}

/// The descents' thresholds step to the adjacent float, nothing between.
#[test]
fn thresholds_step_to_the_adjacent_float() {
    for x in [630.572, 1.0, 1e-300, 0.0, -0.0, -2.5, f64::MAX] {
        let (d, u) = (next_down(x), next_up(x));
        assert!(d < x && x < u, "{x}");
        assert_eq!(next_up(d), if x == 0.0 { 0.0 } else { x }, "{x}");
        assert_eq!(next_down(u), if x == 0.0 { 0.0 } else { x }, "{x}");
    }
    assert_eq!(next_down(f64::INFINITY), f64::MAX);
}
