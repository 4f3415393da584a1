//! Ranges benchmark (fixed seed): `exact` (oracle build + parametric
//! search) at the goal size of issue 13 — K ≈ 1,000,000 cells, N = 1,000
//! nodes, 100,000 subscriptions — on a generated Colyseus rect map
//! (Hilbert order, Zipf waypoints), and the oracle build alone.
//! Run: `cargo bench --bench ranges`.

use criterion::{criterion_group, criterion_main, Criterion};
use serverpick::problems::ranges::exact::exact_split;
use serverpick::problems::ranges::gen::{generate_ranges, GenRangesConfig, MapShape};
use serverpick::problems::ranges::model::Curve;
use serverpick::problems::ranges::oracle::LoadOracle;
use std::time::Duration;

fn goal_instance() -> serverpick::problems::ranges::model::RangesInstance {
    // rect map for 800 players: 1000 × 20 units; resolution 7 → 7000 × 140
    // = 980,000 cells; AoI half-width 1 unit (15 × 15 cells).
    generate_ranges(&GenRangesConfig {
        shape: MapShape::Rect,
        players: 800,
        nodes: 1000,
        objects: 100_000,
        curve: Curve::Hilbert,
        resolution: 7,
        aoi: 1.0,
        seed: 13,
        ..GenRangesConfig::default()
    })
    .expect("generator")
}

fn exact(c: &mut Criterion) {
    let inst = goal_instance();
    eprintln!(
        "goal instance: {} cells, {} nodes, {} subscriptions, {} intervals",
        inst.cells(),
        inst.nodes,
        inst.subscriptions.len(),
        inst.intervals()
    );
    let mut g = c.benchmark_group("ranges_exact");
    g.sample_size(10).measurement_time(Duration::from_secs(10));
    g.bench_function("oracle_build", |b| b.iter(|| LoadOracle::new(&inst)));
    g.bench_function("exact_1m_cells_1000_nodes_100k_subs", |b| {
        b.iter(|| exact_split(&LoadOracle::new(&inst), inst.nodes))
    });
    g.finish();
}

criterion_group!(benches, exact);
criterion_main!(benches);
