//! Tests of [`super`]: the tied clients' groups, and the chunked
//! placement's move heaps against scans of the mirrors' members.

use super::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Rows drawn from a few distinct patterns (many exact ties), integer
/// delays, `k` mirrors with room for `n`.
fn tied_instance(n: usize, k: usize, seed: u64) -> CmaInstance {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let patterns: Vec<Vec<f64>> = (0..7)
        .map(|_| (0..k).map(|_| rng.random_range(0..5) as f64).collect())
        .collect();
    let delay: Vec<f64> = (0..n)
        .flat_map(|_| patterns[rng.random_range(0..patterns.len())].clone())
        .collect();
    let cap = vec![n / k + 3; k];
    CmaInstance::new(format!("tied-{seed}"), cap, delay).expect("valid")
}

/// The groups and counts equal a sort of all sets; an empty set or too
/// many groups give `None`.
#[test]
fn group_counts_match_a_sort() {
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    for _ in 0..200 {
        let tied: Vec<(usize, u64)> = (0..rng.random_range(0..60))
            .map(|t| (t, rng.random_range(1..12u64)))
            .collect();
        let mut sets: Vec<u64> = tied.iter().map(|&(_, b)| b).collect();
        sets.sort_unstable();
        let (groups, count) = group_counts(&tied).expect("few groups");
        let mut want = sets.clone();
        want.dedup();
        assert_eq!(groups, want);
        for (g, c) in groups.iter().zip(&count) {
            assert_eq!(*c, sets.iter().filter(|&&b| b == *g).count());
        }
    }
    assert_eq!(group_counts(&[(0, 3), (1, 0)]), None);
    let many: Vec<(usize, u64)> = (0..=ties::MAX_GROUPS).map(|t| (t, t as u64 + 1)).collect();
    assert_eq!(group_counts(&many), None);
    assert!(group_counts(&many[1..]).is_some());
}

/// Asserts that every pair's cheapest move from the heaps equals a scan
/// of the source mirror's members.
fn assert_heaps_exact(g: &mut MoveGraph<'_>, inst: &CmaInstance, k: usize) {
    for u in 0..k {
        for v in 0..k {
            let scan = g.members[u]
                .iter()
                .map(|&c| {
                    (
                        inst.row(c as usize)[v] - inst.row(c as usize)[u],
                        c as usize,
                    )
                })
                .min_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
            let peek = g.peek(u, v);
            if u == v || scan.is_none() {
                assert_eq!(peek, None);
            } else {
                assert_eq!(peek.map(|(c, _)| c), scan.map(|(c, _)| c), "pair {u}->{v}");
            }
        }
    }
}

/// Chunk sizes from 7 rows to one chunk; at 300 rows per chunk, seed
/// cuts far below most moves, at 1,000 below all (any seed must stay
/// correct).
#[test]
fn chunked_placement_builds_exact_heaps_that_stay_exact_under_moves() {
    for seed in 0..4 {
        let (n, k) = (4_000, 4);
        let inst = tied_instance(n, k, seed);
        let clients: Vec<usize> = (0..n).collect();
        let p: Vec<f64> = (0..k).map(|j| (j % 3) as f64).collect();
        for chunk in [7, 300, 1_000, 16_384] {
            // Below every move at 1,000 rows per chunk: every pair
            // starts from its least move alone.
            let low = match chunk {
                300 => Some(vec![0.5; k * k]),
                1_000 => Some(vec![-100.0; k * k]),
                _ => None,
            };
            let mut g = MoveGraph::place_at_prices_in(
                &inst,
                inst.capacity.clone(),
                &clients,
                (&p, 1e-9),
                low.as_deref(),
                chunk,
            );
            for &i in &clients {
                let u = g.mirror_of(i).expect("placed");
                let row = inst.row(i);
                let best = row
                    .iter()
                    .zip(&p)
                    .map(|(d, q)| d + q)
                    .fold(f64::INFINITY, f64::min);
                assert!(
                    row[u] + p[u] <= best + 1e-9,
                    "client {i} not at a least d + p"
                );
            }
            assert_eq!((0..k).map(|j| g.load(j)).sum::<usize>(), n);
            assert_heaps_exact(&mut g, &inst, k);
            // Drain well past the budget along a few pairs (heaps run
            // out and are rescanned), checking after every batch.
            let mut rng = ChaCha8Rng::seed_from_u64(seed + 100);
            for _ in 0..4 {
                let u = rng.random_range(0..k);
                let v = (u + rng.random_range(1..k)) % k;
                for _ in 0..(budget_for(n, k) + 90).min(g.load(u)) {
                    g.move_top(u, v).expect("a client to move");
                }
                assert_heaps_exact(&mut g, &inst, k);
            }
        }
    }
}
