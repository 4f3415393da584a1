//! A pass on several threads is the one-thread pass: the same pairs
//! dropped, with the same node count, or the same solution.

use super::super::probe::{Shave, PER_PROBE};
use super::super::tests::paper_case;
use super::super::{Probe, Search};
use super::PassThreads;
use crate::core::Deadline;
use crate::problems::spd::exact::p2p::allowed_pairs;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::sync::atomic::AtomicUsize;

/// What a pass gave: the kept lists or the solution's assignment, and the
/// search's node count after it.
type Pass = (Result<Vec<Vec<(usize, f64)>>, Vec<usize>>, u64);

#[test]
fn a_pass_on_any_thread_count_is_the_one_thread_pass() {
    let mut rng = ChaCha8Rng::seed_from_u64(43);
    let (mut found, mut dropped) = (0, 0);
    for seed in 0..160 {
        let (inst, mut lim) = paper_case(&mut rng, seed);
        lim.lo = f64::NEG_INFINITY;
        let Ok(lists) = allowed_pairs(&inst, &lim) else {
            continue;
        };
        let k = rng.random_range(1..=inst.servers() / 3);
        let per = [1, PER_PROBE][seed as usize % 2];
        let pass = |on: PassThreads| -> Option<Pass> {
            let mut s = Search::new(&inst, lim, lists.clone(), Deadline::none())?;
            let end = match s.shave(k, per, on) {
                Shave::Found(Probe::Feasible(sc)) => Err(sc.sol.assign),
                Shave::Kept(kept, _) => Ok(kept),
                _ => panic!("seed {seed}: the pass did not end"),
            };
            Some((end, s.nodes()))
        };
        let Some(one) = pass(PassThreads::ONE) else {
            continue;
        };
        // two decisions side by side: helper 1 of 2 is held back
        let held = AtomicUsize::new(2);
        for on in [
            PassThreads::with(2, None),
            PassThreads::with(3, None),
            PassThreads::with(2, Some(&held)),
        ] {
            let other = pass(on).expect("small");
            assert!(
                other.0 == one.0,
                "seed {seed}, k {k}: {:?} vs {:?}",
                other.0.as_ref().map(|_| ()),
                one.0.as_ref().map(|_| ())
            );
            if one.0.is_ok() {
                assert_eq!(other.1, one.1, "seed {seed}, k {k}: nodes");
            }
        }
        match &one.0 {
            Err(_) => found += 1,
            Ok(kept) => {
                dropped += usize::from(
                    kept.iter().map(Vec::len).sum::<usize>() < lists.iter().map(Vec::len).sum(),
                )
            }
        }
    }
    // both ends are exercised
    assert!(
        found > 10 && dropped > 10,
        "{found} solutions, {dropped} passes dropping"
    );
}
