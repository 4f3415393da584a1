//! Tests of [`super`] (the Lagrangian bound of the mirror-opening problem).

use super::*;
use crate::problems::cma::sites::{generate_sites, SitesConfig};

/// A sites instance (every capacity = every player: the uncapacitated
/// path applies), optionally with players per row (0..=3, some empty).
fn instance(n: usize, seed: u64, weighted: bool) -> CmaInstance {
    let inst = generate_sites(&SitesConfig {
        sites: n,
        max_open_cost: (seed % 2 == 0).then_some(40),
        seed,
        ..SitesConfig::default()
    })
    .expect("generates");
    if !weighted {
        return inst;
    }
    let players: Vec<usize> = (0..n).map(|i| (i * 7 + seed as usize) % 4).collect();
    let total: usize = players.iter().sum();
    let mut w =
        CmaInstance::new_weighted("w", vec![total; n], inst.delay_matrix().to_vec(), players)
            .expect("weighted");
    w.open_cost = inst.open_cost.clone();
    w
}

/// Multipliers around the least delays, some far out (long walks past
/// the compact row starts: the column scan of the subgradient).
fn multipliers(lag: &Lagrangian<'_>, spread: f64, seed: u64) -> Vec<f64> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    lag.initial_lambda()
        .iter()
        .map(|&l| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            l + spread * (x % 1000) as f64 / 1000.0
        })
        .collect()
}

#[test]
fn the_uncapacitated_walks_equal_the_general_selection() {
    for seed in 1..7 {
        for weighted in [false, true] {
            let inst = instance(90, seed, weighted);
            let cost = inst.open_cost.clone().unwrap_or_else(|| vec![0.0; 90]);
            let mut fast = Lagrangian::new(&inst, &cost);
            let mut general = Lagrangian::new(&inst, &cost);
            assert!(fast.uncapacitated && fast.near_width > 0);
            general.uncapacitated = false;
            let mut fix = vec![Fix::Free; 90];
            fix[(seed as usize * 5) % 90] = Fix::Closed;
            fix[(seed as usize * 11 + 3) % 90] = Fix::Open;
            for (spread, k) in [(0.0, 3), (20.0, 9), (400.0, 40), (5000.0, 2)] {
                let lambda = multipliers(&fast, spread, seed);
                let a = fast.evaluate(&lambda, &fix, k).expect("a K-set");
                let b = general.evaluate(&lambda, &fix, k).expect("a K-set");
                // Sums in another order: equal up to rounding, and the
                // chosen sets may then differ on ties.
                assert!((a.value - b.value).abs() < 1e-6 * (1.0 + b.value.abs()));
                for (x, y) in a.v.iter().zip(&b.v) {
                    assert!(x == y || (x - y).abs() < 1e-6 * (1.0 + y.abs()));
                }
                let (ga, na) = fast.subgradient(&a.chosen);
                let (gb, nb) = general.subgradient(&a.chosen);
                assert_eq!(ga, gb, "seed {seed} weighted {weighted} spread {spread}");
                assert!((na - nb).abs() < 1e-9);
            }
        }
    }
}
