//! P2P SPD at 40–200 servers (issues 10 and 25), fixed seeds
//! (`generate_paper_spd` seed 1 unless named): `exact`'s whole lexicographic
//! optimum at 40 × 200, its proven host count at 60 × 300 and 80 × 400, and
//! `host-search` (default node budget) at 80 × 400; its whole optimum at
//! 120 × 600, f = 1.3 (the lexicographic stages by branch and bound,
//! `p2p_search_descent.rs`: 4.6 s a run where the bisection took 17.6 s;
//! 4.1 s with the tight packing check, `p2p_search_packing.rs`; 3.7 s
//! with the ninth round's cheaper packing and narrowing);
//! at 200 × 1,000 the
//! host count of f = 1.3, seed 3 (the search refutes 5 hosts with probing,
//! `p2p_search_probe.rs`, about 4.4 s an iteration), on the run's threads
//! and on one (the split decision, `p2p_search_split.rs`, against the
//! plain one), `host-search` (f = 1.0) and `host-lns` (f = 1.2: 11 hosts
//! from `host-search`, 9 after the dives). The other 200 × 1,000 and
//! 160 × 800 runs end at the time limit or take over 10 s, so they are in
//! `docs/spd-scale.md`'s tables, not here. CS at 200 × 2,000 (issue 25 part 3): `exact`'s
//! whole lexicographic optimum on f = 1.3, seed 2 (`gen spd --servers 200
//! --clients 2000 --model cs --factor 1.3 --seed 2`, about 3 s of CPU).
//! Sample size 10; the whole run takes several
//! minutes.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use serverpick::core::Ctx;
use serverpick::core::SolveOptions;
use serverpick::problems::spd::engines::{spd_engine, LEXICOGRAPHIC};
use serverpick::problems::spd::gen::{generate_paper_spd, PaperSpdParams};
use serverpick::problems::spd::model::{CommModel, SpdInstance};
use std::hint::black_box;
use std::time::Duration;

fn instance(servers: usize, clients: usize, f: f64, seed: u64) -> SpdInstance {
    instance_in(CommModel::P2p, servers, clients, f, seed)
}

fn instance_in(model: CommModel, servers: usize, clients: usize, f: f64, seed: u64) -> SpdInstance {
    let p = PaperSpdParams {
        servers,
        clients,
        model,
        bound_factor: f,
        ..PaperSpdParams::default()
    };
    generate_paper_spd(&p, seed).expect("generated instance")
}

fn bench_p2p_scale(c: &mut Criterion) {
    let lex = SolveOptions::default();
    let hosts_only = SolveOptions::default()
        .with(&LEXICOGRAPHIC, false)
        .expect("a flag");
    let mut group = c.benchmark_group("spd_p2p_scale");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(10));
    let mut cases = Vec::new();
    for f in [1.0, 1.1, 1.2] {
        cases.push((40, 200, f, 1, "exact", "exact-lexicographic", &lex));
        cases.push((60, 300, f, 1, "exact", "exact-hosts", &hosts_only));
    }
    cases.push((80, 400, 1.2, 1, "exact", "exact-hosts", &hosts_only));
    cases.push((80, 400, 1.0, 1, "host-search", "host-search", &lex));
    cases.push((120, 600, 1.3, 1, "exact", "exact-lexicographic", &lex));
    cases.push((200, 1000, 1.3, 3, "exact", "exact-hosts", &hosts_only));
    cases.push((200, 1000, 1.0, 1, "host-search", "host-search", &lex));
    cases.push((200, 1000, 1.2, 1, "host-lns", "host-lns", &lex));
    for (n, m, f, seed, name, label, opts) in cases {
        let inst = instance(n, m, f, seed);
        let engine = spd_engine(name).expect("engine exists");
        let case = match seed {
            1 => format!("p2p-{n}s-{m}c-f{f}"),
            _ => format!("p2p-{n}s-{m}c-f{f}-s{seed}"),
        };
        let id = BenchmarkId::new(case, label);
        group.bench_with_input(id, &inst, |b, inst| {
            b.iter(|| black_box(engine.solve(inst, &Ctx::new(opts))))
        });
    }
    // the same host count on one thread: the ladder decides one count at
    // a time and a decision's search is not split (p2p_search_split.rs)
    let inst = instance(200, 1000, 1.3, 3);
    let one = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("a one-thread pool");
    let engine = spd_engine("exact").expect("engine exists");
    let id = BenchmarkId::new("p2p-200s-1000c-f1.3-s3", "exact-hosts-1-thread");
    group.bench_with_input(id, &inst, |b, inst| {
        b.iter(|| one.install(|| black_box(engine.solve(inst, &Ctx::new(&hosts_only)))))
    });
    let cs = instance_in(CommModel::Cs, 200, 2000, 1.3, 2);
    let engine = spd_engine("exact").expect("engine exists");
    let id = BenchmarkId::new("cs-200s-2000c-f1.3-s2", "exact-lexicographic");
    group.bench_with_input(id, &cs, |b, inst| {
        b.iter(|| black_box(engine.solve(inst, &Ctx::new(&lex))))
    });
    group.finish();
}

criterion_group!(benches, bench_p2p_scale);
criterion_main!(benches);
