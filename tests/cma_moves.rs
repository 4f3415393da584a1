//! The mirror move graph: cheapest moves stay exact through moves and rescans.

use serverpick::engine::cma_moves::{prev_float, MoveGraph};
use serverpick::model::cma::CmaInstance;

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
