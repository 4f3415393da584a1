//! AG benchmark (fixed seeds): `hybrid` (Algorithm 1 + distributes LL) and
//! `exact` (the aggregated lexicographic MILP, all three stages) on seed
//! 004's paper size — 10 servers of 5,500 players, scenarios A (46,750
//! players) and B (66,000) — and at 10× (100 servers, 467,500 and 660,000
//! players). Generation is outside the timed loop.
//! Run: `cargo bench --bench ag`.

use criterion::{criterion_group, criterion_main, Criterion};
use serverpick::core::{SolveOptions, Status};
use serverpick::problems::ag::engines::solve;
use serverpick::problems::ag::gen::{generate_ag, GenAgConfig};
use serverpick::problems::ag::model::AgInstance;
use std::time::Duration;

fn instance(scenario: char, servers: usize) -> AgInstance {
    generate_ag(&GenAgConfig {
        scenario,
        servers,
        history: 10,
        seed: 4,
        ..GenAgConfig::default()
    })
    .expect("generator")
}

fn ag(c: &mut Criterion) {
    let opts = SolveOptions::new(Some(600.0), 0);
    let mut g = c.benchmark_group("ag");
    g.sample_size(10).measurement_time(Duration::from_secs(10));
    for servers in [10, 100] {
        for scenario in ['a', 'b'] {
            let inst = instance(scenario, servers);
            let label = format!("{scenario}_{servers}s_{}p", inst.players());
            let e = solve("exact", &inst, &opts);
            assert_eq!(e.status, Status::Optimal, "{label}: {:?}", e.message);
            g.bench_function(format!("hybrid_{label}"), |b| {
                b.iter(|| solve("hybrid", &inst, &opts))
            });
            g.bench_function(format!("exact_{label}"), |b| {
                b.iter(|| solve("exact", &inst, &opts))
            });
        }
    }
    g.finish();
}

criterion_group!(benches, ag);
criterion_main!(benches);
