//! SPDVR benches (fixed seeds):
//! - `chains` (Algorithm 1 + Algorithm Chains, `O(K log K)`) on 1,000,000
//!   tuples: 100,000 clients × 10 hosts;
//! - `spdvrp2p-h`, `p2p-vr-ls` and `exact` on a paper-size instance (25
//!   servers, 120 clients, f = 1.3; start `spdp2p-h`), and `exact` for CS.

use criterion::{criterion_group, criterion_main, Criterion};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serverpick::core::Ctx;
use serverpick::core::SolveOptions;
use serverpick::net::network::ServerNetwork;
use serverpick::problems::spd::model::{BoundSpec, CommModel, SpdInstance, SpdSolution};
use serverpick::problems::spdvr::chains::chains;
use serverpick::problems::spdvr::engines::{spdvr_engine, start_for, SpdvrRun};
use std::hint::black_box;
use std::time::Duration;

/// `m` clients, `n` servers on a line (link 10 ms), access uniform [10, 100);
/// the start: root 0, every client on its nearest server (all `n` are hosts),
/// μ generous, so the list has `m · n` tuples.
fn big_cs(m: usize, n: usize) -> (SpdInstance, SpdSolution) {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let links: Vec<(usize, usize, f64)> = (1..n).map(|s| (s - 1, s, 10.0)).collect();
    let access: Vec<Vec<Option<f64>>> = (0..m)
        .map(|_| {
            (0..n)
                .map(|_| Some(rng.random_range(10.0..100.0)))
                .collect()
        })
        .collect();
    let bound = BoundSpec::Absolute(2.0 * (100.0 + 10.0 * n as f64));
    let inst = SpdInstance::new(
        "big",
        CommModel::Cs,
        ServerNetwork::new(n, &links),
        &access,
        bound,
    )
    .expect("valid");
    let assign = (0..m).map(|c| c % n).collect();
    (
        inst,
        SpdSolution {
            root: Some(0),
            assign,
        },
    )
}

fn bench_chains(c: &mut Criterion) {
    let (inst, start) = big_cs(100_000, 10);
    let mut g = c.benchmark_group("chains");
    g.sample_size(10).measurement_time(Duration::from_secs(5));
    g.bench_function("1M tuples (100k clients x 10 hosts)", |b| {
        b.iter(|| black_box(chains(&inst, &start)))
    });
    g.finish();
}

fn bench_paper_size(c: &mut Criterion) {
    let opts = SolveOptions::default();
    let mut g = c.benchmark_group("spdvr paper-size (25 servers, 120 clients, f=1.3)");
    g.sample_size(10).measurement_time(Duration::from_secs(3));
    for (model, start_engine, engines) in [
        (
            CommModel::P2p,
            "spdp2p-h",
            vec!["spdvrp2p-h", "p2p-vr-ls", "exact"],
        ),
        (CommModel::Cs, "spdcs-h", vec!["chains", "exact"]),
    ] {
        let inst = paper_spd(4, model);
        let start = start_for(&inst, Some(start_engine), &opts).expect("start");
        for name in engines {
            let engine = spdvr_engine(name).expect("engine");
            let run = SpdvrRun {
                inst: &inst,
                start: &start,
            };
            g.bench_function(format!("{model} {name}"), |b| {
                b.iter(|| black_box(engine.solve(&run, &Ctx::new(&opts))))
            });
        }
    }
    g.finish();
}

criterion_group!(benches, bench_chains, bench_paper_size);
criterion_main!(benches);

/// A seed 001 §IV instance: 25 servers, 120 clients, f = 1.3 (the crate's generator).
fn paper_spd(
    seed: u64,
    model: serverpick::problems::spd::model::CommModel,
) -> serverpick::problems::spd::model::SpdInstance {
    serverpick::problems::spd::gen::paper_size_spd(model, 1.3, seed).expect("generated instance")
}
