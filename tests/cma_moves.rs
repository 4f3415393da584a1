//! The mirror move graph: cheapest moves stay exact through moves and rescans.

use serverpick::problems::cma::model::CmaInstance;
use serverpick::problems::cma::moves::{prev_float, MoveGraph};

#[test]
fn prev_float_is_strictly_below() {
    for x in [1.0, -1.0, 0.0, 1e-300, -3.5] {
        assert!(prev_float(x) < x);
    }
}

#[test]
fn peek_finds_the_true_minimum_after_moves_and_rescans() {
    // 200 clients on mirror 0, keys to mirror 1 are i-dependent.
    let rows: Vec<Vec<f64>> = (0..200)
        .map(|i| vec![0.0, ((i * 37) % 200) as f64 + 0.5])
        .collect();
    let inst = CmaInstance::from_rows("p", vec![200, 200], &rows).unwrap();
    let mut g = MoveGraph::new(&inst);
    g.bulk_place((0..200).map(|i| (i, 0)));
    let mut expect: Vec<f64> = (0..200).map(|i| ((i * 37) % 200) as f64 + 0.5).collect();
    expect.sort_by(f64::total_cmp);
    for want in expect.iter().take(120) {
        let (key, _) = g.peek(0, 1).unwrap();
        assert_eq!(key, *want);
        g.move_top(0, 1).unwrap();
    }
    // moving some back makes them candidates again
    let (key, i) = g.peek(1, 0).unwrap();
    assert_eq!(key, -119.5);
    g.move_top(1, 0).unwrap();
    assert_eq!(g.mirror_of(i), Some(0));
    assert_eq!(g.peek(0, 1).unwrap().0, 119.5);
}

/// The least `d(i,v) − d(i,u)` over the clients on `u`, by brute force.
fn brute_least(inst: &CmaInstance, g: &MoveGraph<'_>, u: usize, v: usize) -> f64 {
    (0..inst.clients())
        .filter(|&i| g.mirror_of(i) == Some(u))
        .map(|i| inst.delay(i, v) - inst.delay(i, u))
        .fold(f64::INFINITY, f64::min)
}

#[test]
fn cached_moves_match_brute_force_through_mode_switches() {
    // 160 clients on 3 mirrors (one without capacity): random adds, removes
    // and moves push mirror loads across the scan/heap thresholds (48 up,
    // 24 down) in both directions; after every step every pair's cached
    // least move and peeked client must match a brute-force scan.
    use rand::{Rng, SeedableRng};
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
    let rows: Vec<Vec<f64>> = (0..160)
        .map(|_| {
            (0..4)
                .map(|_| f64::from(rng.random_range(0u32..40)))
                .collect()
        })
        .collect();
    let inst = CmaInstance::from_rows("modes", vec![160, 160, 0, 160], &rows).unwrap();
    let mut g = MoveGraph::new(&inst);
    g.bulk_place((0..60).map(|i| (i, if i % 3 == 0 { 0 } else { 1 })));
    for step in 0..3000 {
        let i = rng.random_range(0..160);
        let target = [0, 0, 1, 3][rng.random_range(0..4)];
        let phase = (step / 500) % 2 == 0; // fill, then drain
        match g.mirror_of(i) {
            None if phase || rng.random_bool(0.2) => g.add(i, target),
            Some(_) if !phase || rng.random_bool(0.2) => {
                g.remove(i);
            }
            Some(u) if u != target && g.peek(u, target).is_some() => {
                g.move_top(u, target).unwrap();
            }
            _ => {}
        }
        for u in [0, 1, 3] {
            for v in 0..4 {
                let want = if u == v || v == 2 {
                    f64::INFINITY
                } else {
                    brute_least(&inst, &g, u, v)
                };
                assert_eq!(g.arc_cost(u, v), want, "step {step} arc {u}->{v}");
                match g.peek(u, v) {
                    None => assert_eq!(want, f64::INFINITY, "step {step} {u}->{v}"),
                    Some((key, c)) => {
                        assert_eq!(key, want, "step {step} {u}->{v}");
                        assert_eq!(g.mirror_of(c), Some(u));
                        assert_eq!(inst.delay(c, v) - inst.delay(c, u), key);
                    }
                }
            }
        }
    }
}
