//! The constraint search against brute force on tiny instances with ties.

use super::*;
use crate::problems::spd::exact::p2p::tests::{exists, tiny};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Feasibility agrees with brute force for random thresholds (both sides)
/// and host caps; found solutions meet them.
#[test]
fn search_matches_brute_force() {
    let dl = Deadline::new(None);
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    for seed in 0..1500 {
        let (n, m) = (rng.random_range(2..=5), rng.random_range(2..=7));
        let inst = tiny(n, m, 1.0, seed);
        let mu = inst.bound;
        let hi = if rng.random::<bool>() {
            mu
        } else {
            mu * rng.random_range(0.3..1.0)
        };
        let lo = if rng.random::<bool>() {
            f64::NEG_INFINITY
        } else {
            mu * rng.random_range(0.0..0.6)
        };
        let lim = Limits { mu, hi, lo };
        let k = rng.random_range(1..=n.min(4));
        let want = exists(&inst, &lim, k);
        let got = decide(&inst, lim, k, u64::MAX, &dl).expect("small enough");
        match got {
            Probe::Feasible(sc) => {
                assert!(want, "seed {seed}: found a solution brute force denies");
                assert!(sc.metrics.hosts <= k, "seed {seed}");
                assert!(lim.fits(sc.metrics.delay), "seed {seed}");
            }
            Probe::Infeasible => assert!(!want, "seed {seed}: n {n} m {m} k {k} {lim:?}"),
            Probe::Unknown(why) => panic!("seed {seed}: {why}"),
        }
    }
}
