//! `plan cma` at the goal size: 10,000 players × 50 candidate mirrors
//! (`gen cma --scenario static --slack 4`, seed 1: the K largest capacities
//! hold every player from K = 7), the whole proven curve K = 1 … 50 with
//! `exact`, and the greedy heuristic at K = 20 (swap evaluates `K·(k − K)`
//! transportation problems per pass: minutes at this size). Run:
//! `cargo bench --bench plan_cma`.

use criterion::{criterion_group, criterion_main, Criterion};
use serverpick::problems::cma::gen::{generate_cma, GenCmaConfig, Scenario};
use serverpick::problems::cma::plan::curve::{plan, PlanOptions};
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

criterion_group!(benches, plan_cma);
criterion_main!(benches);
