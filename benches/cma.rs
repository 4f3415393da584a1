//! CMA benchmarks (fixed seeds): `exact-flow` on 100,000 clients × 20
//! mirrors (BRITE-like delays, tight random capacities, and uniform random
//! delays) and 200,000 × 50 (BRITE-like), each beside one `j-greedy` pass
//! on the same instance (issue 25's yardstick: exact-flow in at most a few
//! greedy passes), and the per-event cost of incremental J-SA/L-SA against the
//! paper's O(nk) rebuild in the seed 002 §4.3 dynamic scenario with 20
//! mirrors; `exact-flow` with player counts (10,000 regions × 200 mirrors,
//! 10⁷ players). Run: `cargo bench --bench cma`.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serverpick::core::{Ctx, SolveOptions};
use serverpick::problems::cma::class_rows::solve_players_by_classes;
use serverpick::problems::cma::engines::cma_engine;
use serverpick::problems::cma::exact_flow::solve_exact_flow;
use serverpick::problems::cma::gen::{generate_cma, GenCmaConfig, Scenario};
use serverpick::problems::cma::model::CmaInstance;
use serverpick::problems::cma::sim::replay;
use serverpick::problems::cma::transport::solve_transport;
use serverpick::problems::cma::weighted::with_random_players;
use std::time::Duration;

fn brite_static(n: usize, k: usize, seed: u64) -> CmaInstance {
    generate_cma(&GenCmaConfig {
        scenario: Scenario::Static,
        mirrors: k,
        clients: Some(n),
        seed,
        ..GenCmaConfig::default()
    })
    .expect("generator")
}

fn uniform_static(n: usize, k: usize, seed: u64) -> CmaInstance {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let delay: Vec<f64> = (0..n * k).map(|_| rng.random_range(0.0..200.0)).collect();
    let mut cap = vec![n / k; k];
    cap[0] += n - cap.iter().sum::<usize>();
    CmaInstance::new("uniform", cap, delay).expect("instance")
}

fn exact_flow(c: &mut Criterion) {
    let mut g = c.benchmark_group("cma_exact_flow");
    g.sample_size(10).measurement_time(Duration::from_secs(4));
    let greedy = cma_engine("j-greedy").expect("engine");
    let opts = SolveOptions::default();
    for (label, inst) in [
        ("brite_100000x20", brite_static(100_000, 20, 7)),
        ("uniform_100000x20", uniform_static(100_000, 20, 7)),
        ("brite_200000x50", brite_static(200_000, 50, 7)),
    ] {
        g.bench_function(label, |b| {
            b.iter(|| solve_exact_flow(&inst).expect("solve").expect("feasible"))
        });
        g.bench_function(format!("{label}_j_greedy"), |b| {
            b.iter(|| greedy.solve(&inst, &Ctx::new(&opts)))
        });
    }
    g.finish();
}

/// `exact-flow` with player counts: 10,000 regions × 200 mirrors, about
/// 10⁷ players (counts uniform in 1..1999), 5 % spare capacity; the
/// network simplex of `transport.rs` against the shift classes of
/// `class_rows.rs` (what `exact-flow` runs first).
fn exact_flow_weighted(c: &mut Criterion) {
    let mut g = c.benchmark_group("cma_exact_flow_weighted");
    g.sample_size(10).measurement_time(Duration::from_secs(10));
    let unit = generate_cma(&GenCmaConfig {
        scenario: Scenario::Static,
        mirrors: 200,
        clients: Some(10_000),
        slack: 0.05,
        seed: 1,
        ..GenCmaConfig::default()
    })
    .expect("generator");
    let inst = with_random_players(unit, (1, 1999), 1, false).expect("players");
    g.bench_function("brite_10000x200_1e7_players", |b| {
        b.iter(|| {
            solve_transport(&inst, &inst.capacity)
                .expect("solve")
                .expect("feasible")
        })
    });
    g.bench_function("brite_10000x200_1e7_players_classes", |b| {
        b.iter(|| {
            solve_players_by_classes(&inst)
                .expect("solve")
                .expect("certified")
        })
    });
    g.finish();
}

fn dynamic_policies(c: &mut Criterion) {
    let inst = generate_cma(&GenCmaConfig {
        scenario: Scenario::Dynamic,
        mirrors: 20,
        seed: 240,
        ..GenCmaConfig::default()
    })
    .expect("generator");
    let mut g = c.benchmark_group("cma_dynamic_20m_2200_events");
    g.sample_size(20).measurement_time(Duration::from_secs(3));
    for policy in [
        "j-sa/l-sa",
        "j-sa-rebuild/l-sa-rebuild",
        "j-greedy/l-greedy",
    ] {
        g.bench_with_input(BenchmarkId::from_parameter(policy), &policy, |b, p| {
            b.iter(|| replay(&inst, p).expect("replay"))
        });
    }
    g.finish();
}

criterion_group!(benches, exact_flow, exact_flow_weighted, dynamic_policies);
criterion_main!(benches);
