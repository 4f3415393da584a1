//! Ranges benchmark (fixed seed): `exact` (oracle build + parametric
//! search) at the goal size of issue 13 — K ≈ 1,000,000 cells, N = 1,000
//! nodes, 100,000 subscriptions — on a generated Colyseus rect map
//! (Hilbert order, Zipf waypoints), the oracle build alone, and a synthetic
//! instance of the same size where the search has to iterate.
//! Over time (`ranges_time`): one `simulate-ranges` step (96 players, all
//! six policies) and `exact-budget` alone at K = 100,000 cells, N = 100.
//! Run: `cargo bench --bench ranges` (`-- ranges_time` for those two).

use criterion::{criterion_group, criterion_main, Criterion};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serverpick::problems::ranges::exact::exact_split;
use serverpick::problems::ranges::exact_budget::exact_budget;
use serverpick::problems::ranges::gen::{generate_ranges, GenRangesConfig, MapShape};
use serverpick::problems::ranges::model::{normalise, Curve, RangesInstance, Subscription};
use serverpick::problems::ranges::nbr_adjust::uniform;
use serverpick::problems::ranges::oracle::LoadOracle;
use serverpick::problems::ranges::simulate::{simulate_ranges, SimConfig};
use serverpick::problems::ranges::workload::WorkloadConfig;
use std::time::Duration;

fn goal_instance() -> RangesInstance {
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

/// A synthetic instance of the goal size where no single cell decides the
/// optimum (so the parametric search has to iterate): 1,000,000 cells with
/// publication rates 0..10, 100,000 subscriptions of 1–3 intervals (each up
/// to 2,000 cells, within a window of 20,000 cells), rates 1..10.
fn synthetic_instance() -> RangesInstance {
    let mut rng = ChaCha8Rng::seed_from_u64(13);
    let k = 1_000_000;
    let publish = (0..k)
        .map(|_| f64::from(rng.random_range(0u32..10)))
        .collect();
    let subscriptions = (0..100_000)
        .map(|_| {
            let base = rng.random_range(0..k - 20_000);
            let parts = rng.random_range(1..=3);
            let ranges: Vec<[usize; 2]> = (0..parts)
                .map(|_| {
                    let a = base + rng.random_range(0..18_000);
                    [a, a + rng.random_range(0..2_000)]
                })
                .collect();
            Subscription {
                ranges: normalise(&ranges),
                rate: f64::from(rng.random_range(1u32..10)),
            }
        })
        .collect();
    RangesInstance {
        name: "synthetic".into(),
        nodes: 1000,
        publish,
        subscriptions,
        map: None,
        source: None,
    }
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
    let e = exact_split(&LoadOracle::new(&inst), inst.nodes);
    eprintln!("goal: exact {} after {} probes", e.objective, e.probes);
    g.bench_function("exact_1m_cells_1000_nodes_100k_subs", |b| {
        b.iter(|| exact_split(&LoadOracle::new(&inst), inst.nodes))
    });
    let syn = synthetic_instance();
    let e = exact_split(&LoadOracle::new(&syn), syn.nodes);
    eprintln!(
        "synthetic: {} intervals; exact {} (bound {}) after {} probes",
        syn.intervals(),
        e.objective,
        e.bound,
        e.probes
    );
    g.bench_function("exact_synthetic_1m_cells_1000_nodes_100k_subs", |b| {
        b.iter(|| exact_split(&LoadOracle::new(&syn), syn.nodes))
    });
    g.finish();
}

/// 100,000 cells, rates 0..10, 10,000 subscriptions of 1–2 intervals
/// (each up to 300 cells), 100 nodes.
fn budget_instance() -> RangesInstance {
    let mut rng = ChaCha8Rng::seed_from_u64(17);
    let k = 100_000;
    let publish = (0..k)
        .map(|_| f64::from(rng.random_range(0u32..10)))
        .collect();
    let subscriptions = (0..10_000)
        .map(|_| {
            let base = rng.random_range(0..k - 2_000);
            let ranges: Vec<[usize; 2]> = (0..rng.random_range(1..=2))
                .map(|_| {
                    let a = base + rng.random_range(0..1_500);
                    [a, a + rng.random_range(0..300)]
                })
                .collect();
            Subscription {
                ranges: normalise(&ranges),
                rate: f64::from(rng.random_range(1u32..10)),
            }
        })
        .collect();
    RangesInstance {
        name: "budget".into(),
        nodes: 100,
        publish,
        subscriptions,
        map: None,
        source: None,
    }
}

fn over_time(c: &mut Criterion) {
    let mut g = c.benchmark_group("ranges_time");
    g.sample_size(10).measurement_time(Duration::from_secs(5));
    let cfg = SimConfig {
        workload: WorkloadConfig::default(),
        steps: 1,
        budget: 0,
        delta: std::f64::consts::SQRT_2,
    };
    g.bench_function("simulate_one_step_96p_six_policies", |b| {
        b.iter(|| simulate_ranges(&cfg).expect("simulate"))
    });
    let inst = budget_instance();
    let oracle = LoadOracle::new(&inst);
    let current = uniform(inst.cells(), inst.nodes);
    let r = exact_budget(&oracle, &current, 2_000).expect("within the limit");
    eprintln!(
        "exact-budget 100k cells, 100 nodes, B = 2000: {} (bound {}), {} migrated, {} probes",
        r.objective, r.bound, r.migrated, r.probes
    );
    g.bench_function("exact_budget_100k_cells_100_nodes_b2000", |b| {
        b.iter(|| exact_budget(&oracle, &current, 2_000).expect("within the limit"))
    });
    g.finish();
}

criterion_group!(benches, over_time, exact);
criterion_main!(benches);
