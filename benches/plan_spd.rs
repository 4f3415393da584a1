//! `plan spd` benches (fixed seeds): the whole CS frontier of a 40-server,
//! 200-client instance (issue 14's goal: under 5 s, proven) and of a
//! paper-size 25 × 120 CS instance (`generate_paper_spd`, seed 1). The P2P
//! frontier is measured by hand (README): one sample takes minutes.

use criterion::{criterion_group, criterion_main, Criterion};
use serverpick::problems::spd::gen::{generate_paper_spd, PaperSpdParams};
use serverpick::problems::spd::model::{CommModel, SpdInstance};
use serverpick::problems::spd::plan::{frontier, PlanOptions};
use std::hint::black_box;
use std::time::Duration;

fn instance(servers: usize, clients: usize, model: CommModel) -> SpdInstance {
    let p = PaperSpdParams {
        servers,
        clients,
        model,
        bound_factor: 1.0,
        ..PaperSpdParams::default()
    };
    generate_paper_spd(&p, 1).expect("generated instance")
}

fn bench_plan_spd(c: &mut Criterion) {
    let opts = PlanOptions {
        range: (None, None),
        time_limit: None,
        seed: 1,
        io: Default::default(),
    };
    let mut g = c.benchmark_group("plan_spd");
    g.sample_size(10).measurement_time(Duration::from_secs(20));
    for (n, m) in [(25, 120), (40, 200)] {
        let inst = instance(n, m, CommModel::Cs);
        g.bench_function(format!("cs_{n}x{m}_frontier"), |b| {
            b.iter(|| {
                let fr = frontier(black_box(&inst), &opts, |_| {}).expect("frontier");
                assert!(fr.points.iter().all(|p| p.status == "proven"));
                fr.points.len()
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench_plan_spd);
criterion_main!(benches);
