//! `plan cma` at the goal size: 10,000 players × 50 candidate mirrors
//! (`gen cma --scenario static --slack 4`, seed 1: the K largest capacities
//! hold every player from K = 7), the whole proven curve K = 1 … 50 with
//! `exact`, and the greedy heuristic at K = 20 (swap evaluates `K·(k − K)`
//! transportation problems per pass: minutes at this size). Run:
//! `cargo bench --bench plan_cma`. Also the tight 3,000 × 40 instances of
//! issue 24 at K = 22 (`plan_cma_tight_3000x40`).

use criterion::{criterion_group, criterion_main, Criterion};
use serverpick::problems::cma::gen::{generate_cma, GenCmaConfig, Scenario};
use serverpick::problems::cma::plan::curve::{plan, PlanOptions};
use serverpick::problems::cma::weighted::with_random_players;
use std::time::Duration;

fn goal_instance() -> serverpick::problems::cma::model::CmaInstance {
    generate_cma(&GenCmaConfig {
        scenario: Scenario::Static,
        mirrors: 50,
        clients: Some(10_000),
        slack: 4.0,
        seed: 1,
        ..GenCmaConfig::default()
    })
    .expect("generator")
}

fn plan_cma(c: &mut Criterion) {
    let inst = goal_instance();
    let mut g = c.benchmark_group("plan_cma_10000x50");
    g.sample_size(10).measurement_time(Duration::from_secs(30));
    g.bench_function("exact_curve_all_k", |b| {
        b.iter(|| plan(&inst, &PlanOptions::default()).expect("plan"))
    });
    g.bench_function("greedy_k20", |b| {
        b.iter(|| {
            plan(
                &inst,
                &PlanOptions {
                    engine: "greedy".into(),
                    mirrors: Some(20),
                    ..PlanOptions::default()
                },
            )
            .expect("plan")
        })
    });
    g.finish();
}

/// The tight capacitated p-median of issue 24: `gen cma --scenario static
/// --mirrors 40 --clients 3000`, every capacity 150 (K = 20 is the
/// feasibility threshold), K = 22, seeds 1–3; and the same with regions of
/// 1..9 players (capacity 750 each, about 15,000 players).
fn plan_cma_tight(c: &mut Criterion) {
    let mut g = c.benchmark_group("plan_cma_tight_3000x40");
    g.sample_size(10).measurement_time(Duration::from_secs(30));
    let tight = |seed: u64, cap: usize| {
        generate_cma(&GenCmaConfig {
            scenario: Scenario::Static,
            mirrors: 40,
            clients: Some(3000),
            capacity: Some(vec![cap; 40]),
            seed,
            ..GenCmaConfig::default()
        })
        .expect("generator")
    };
    let k22 = PlanOptions {
        mirrors: Some(22),
        ..PlanOptions::default()
    };
    for seed in 1..=3 {
        let inst = tight(seed, 150);
        g.bench_function(format!("cap150_k22_seed{seed}"), |b| {
            b.iter(|| plan(&inst, &k22).expect("plan"))
        });
    }
    let weighted = with_random_players(tight(1, 750), (1, 9), 1, true).expect("players");
    g.bench_function("players1to9_cap750_k22_seed1", |b| {
        b.iter(|| plan(&weighted, &k22).expect("plan"))
    });
    g.finish();
}

criterion_group!(benches, plan_cma, plan_cma_tight);
criterion_main!(benches);
