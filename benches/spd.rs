//! SPD benches (fixed seeds): `exact` against the heuristics on paper-size
//! instances of seed 001 §IV (`generate_paper_spd`: 25 servers, 120 clients,
//! f = 1.3), CS and P2P; plus `exact` at f = 1.0, where more hosts are needed.
//! Sample size 10 keeps the whole run within a minute or two.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use serverpick::core::{Ctx, SolveOptions};
use serverpick::problems::spd::engines::spd_engine;
use serverpick::problems::spd::engines::LEXICOGRAPHIC;
use serverpick::problems::spd::gen::{generate_paper_spd, PaperSpdParams};
use serverpick::problems::spd::model::{CommModel, SpdInstance};
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
    let lex = SolveOptions::default();
    let hosts_only = SolveOptions::default()
        .with(&LEXICOGRAPHIC, false)
        .expect("a flag");
    let mut group = c.benchmark_group("spd");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(5));
    // (model, f, engine, label, options). P2P at 40–80 servers: `spd_p2p_scale`.
    let cases = [
        (CommModel::Cs, 1.3, "spdcs-h", "spdcs-h", &lex),
        (CommModel::Cs, 1.3, "exact", "exact-hosts", &hosts_only),
        (CommModel::Cs, 1.3, "exact", "exact-lexicographic", &lex),
        (CommModel::P2p, 1.3, "spdp2p-h", "spdp2p-h", &lex),
        (CommModel::P2p, 1.3, "exact", "exact-hosts", &hosts_only),
        (CommModel::P2p, 1.3, "exact", "exact-lexicographic", &lex),
        (CommModel::Cs, 1.0, "spdcs-h", "spdcs-h", &lex),
        (CommModel::Cs, 1.0, "exact", "exact-lexicographic", &lex),
        (CommModel::P2p, 1.0, "spdp2p-h", "spdp2p-h", &lex),
        (CommModel::P2p, 1.0, "exact", "exact-hosts", &hosts_only),
        (CommModel::P2p, 1.0, "exact", "exact-lexicographic", &lex),
    ];
    for (model, f, name, label, opts) in cases {
        let inst = instance(model, f, 0);
        let engine = spd_engine(name).expect("engine exists");
        let id = BenchmarkId::new(format!("{model}-25s-120c-f{f}"), label);
        group.bench_with_input(id, &inst, |b, inst| {
            b.iter(|| black_box(engine.solve(inst, &Ctx::new(opts))))
        });
    }
    group.finish();
}

criterion_group!(benches, bench_spd);
criterion_main!(benches);
