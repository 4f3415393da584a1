//! `plan cma` with every site a candidate (`gen cma --scenario sites`,
//! capacities non-binding, seed 1): `exact` against the strong MILP on
//! HiGHS (`milp`, one thread) at 300 sites, K = 100; `exact` at 1,000
//! sites for K = 5, 25, 50, 130, 167 and 333 (25 and 50 need a tree, 130
//! the long root ascent); the 500-site curve K = 1 … 50
//! (`--max-mirrors 50`). Run: `cargo bench --bench plan_sites`.

use criterion::{criterion_group, criterion_main, Criterion};
use serverpick::problems::cma::model::CmaInstance;
use serverpick::problems::cma::plan::curve::{plan, PlanOptions};
use serverpick::problems::cma::sites::{generate_sites, SitesConfig};
use std::time::Duration;

fn sites(n: usize) -> CmaInstance {
    generate_sites(&SitesConfig {
        sites: n,
        seed: 1,
        ..SitesConfig::default()
    })
    .expect("generator")
}

fn one_k(engine: &str, k: usize) -> PlanOptions {
    PlanOptions {
        engine: engine.into(),
        mirrors: Some(k),
        ..PlanOptions::default()
    }
}

fn plan_sites(c: &mut Criterion) {
    let s300 = sites(300);
    let mut g = c.benchmark_group("plan_sites_300");
    g.sample_size(10).measurement_time(Duration::from_secs(20));
    for engine in ["exact", "milp"] {
        g.bench_function(format!("{engine}_k100"), |b| {
            b.iter(|| plan(&s300, &one_k(engine, 100)).expect("plan"))
        });
    }
    g.finish();
    let s1000 = sites(1000);
    let mut g = c.benchmark_group("plan_sites_1000");
    g.sample_size(10).measurement_time(Duration::from_secs(20));
    for k in [5, 25, 50, 130, 167, 333] {
        g.bench_function(format!("exact_k{k}"), |b| {
            b.iter(|| plan(&s1000, &one_k("exact", k)).expect("plan"))
        });
    }
    g.finish();
    let s500 = sites(500);
    let mut g = c.benchmark_group("plan_sites_500");
    g.sample_size(10).measurement_time(Duration::from_secs(20));
    let curve = PlanOptions {
        max_mirrors: Some(50),
        ..PlanOptions::default()
    };
    g.bench_function("exact_curve_k1_to_50", |b| {
        b.iter(|| plan(&s500, &curve).expect("plan"))
    });
    g.finish();
}

criterion_group!(benches, plan_sites);
criterion_main!(benches);
