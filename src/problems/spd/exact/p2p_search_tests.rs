//! The constraint search against brute force on tiny instances with ties.

use super::*;
use crate::problems::spd::exact::p2p::tests::{exists, random_case};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// Feasibility agrees with brute force for random thresholds (both sides)
/// and host caps; found solutions meet them.
#[test]
fn search_matches_brute_force() {
    let dl = Deadline::none();
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    for seed in 0..1500 {
        let (inst, lim, k) = random_case(&mut rng, seed, 7);
        let want = exists(&inst, &lim, k);
        let got = decide(&inst, lim, k, u64::MAX, &dl).expect("small enough");
        match got {
            Probe::Feasible(sc) => {
                assert!(want, "seed {seed}: found a solution brute force denies");
                assert!(sc.metrics.hosts <= k, "seed {seed}");
                assert!(lim.fits(sc.metrics.delay), "seed {seed}");
            }
            Probe::Infeasible => assert!(
                !want,
                "seed {seed}: {} clients, k {k} {lim:?}",
                inst.clients()
            ),
            Probe::Unknown(why) => panic!("seed {seed}: {why}"),
        }
    }
}
