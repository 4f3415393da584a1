//! SPD benches (fixed seeds): `exact` against the heuristics on paper-size
//! instances of seed 001 §IV (`generate_paper_spd`: 25 servers, 120 clients,
//! f = 1.3), CS and P2P; plus `exact` at f = 1.0, where more hosts are needed.
//! Sample size 10 keeps the whole run within a minute or two.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use serverpick::engine::{spd_engine, SolveOptions};
use serverpick::io::gen_spd::{generate_paper_spd, PaperSpdParams};
use serverpick::model::spd::{CommModel, SpdInstance};
use std::hint::black_box;
use std::time::Duration;

fn instance(model: CommModel, f: f64, seed: u64) -> SpdInstance {
    let p = PaperSpdParams {
        servers: 25,
        clients: 120,
        model,
        bound_factor: f,
        ..PaperSpdParams::default()
    };
    generate_paper_spd(&p, seed).expect("generated instance")
}

fn bench_spd(c: &mut Criterion) {
    let opts = SolveOptions::default();
    let mut group = c.benchmark_group("spd");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(5));
    let cases = [
        (CommModel::Cs, 1.3, vec!["exact", "spdcs-h"]),
        (CommModel::P2p, 1.3, vec!["exact", "spdp2p-h"]),
        (CommModel::Cs, 1.0, vec!["exact", "spdcs-h"]),
        (CommModel::P2p, 1.0, vec!["exact", "spdp2p-h"]),
    ];
    for (model, f, engines) in cases {
        let inst = instance(model, f, 0);
        for name in engines {
            let engine = spd_engine(name).expect("engine exists");
            let id = BenchmarkId::new(format!("{model}-25s-120c-f{f}"), name);
            group.bench_with_input(id, &inst, |b, inst| {
                b.iter(|| black_box(engine.solve(inst, &opts)))
            });
        }
    }
    group.finish();
}

criterion_group!(benches, bench_spd);
criterion_main!(benches);
