//! The runner's overhead per external unit (issue 22): spawn, wait, read
//! the answer, evaluate, on a 25 × 120 SPD instance (seed 001 §IV size,
//! fixed seed). The command is `cat` of a precomputed answer (spdcs-h's
//! solution), so the time is the crate's part plus one `fork`/`exec` of a
//! trivial program, not a heuristic's. Compare `builtin spdcs-h` (the same
//! answer computed in-process).

use criterion::{criterion_group, criterion_main, Criterion};
use serverpick::core::SolveOptions;
use serverpick::external::{ExternalEngines, ExternalSpec};
use serverpick::problems::read_instance;
use serverpick::problems::spd::file::{to_file, write_spd_file};
use serverpick::problems::spd::gen::{generate_paper_spd, PaperSpdParams};
use serverpick::problems::spd::model::CommModel;
use std::hint::black_box;
use std::time::Duration;

fn bench_external(c: &mut Criterion) {
    let dir = std::env::temp_dir().join(format!("serverpick-bench-ext-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a scratch folder");
    let p = PaperSpdParams {
        servers: 25,
        clients: 120,
        model: CommModel::Cs,
        bound_factor: 1.3,
        ..PaperSpdParams::default()
    };
    let inst = generate_paper_spd(&p, 0).expect("generated instance");
    let path = dir.join("spd-25x120.json");
    write_spd_file(&path, &to_file(&inst)).expect("instance written");
    let loaded = read_instance(&path).expect("instance read");
    let opts = SolveOptions::default();
    let heuristic = loaded.run_engine("spdcs-h", &opts);
    let answer = dir.join("answer.json");
    let body = serde_json::json!({ "solution": heuristic.solution });
    std::fs::write(&answer, body.to_string()).expect("answer written");
    let spec = ExternalSpec::from_flag(&format!("cat=cat {}", answer.display())).expect("spec");
    let engines = ExternalEngines {
        specs: vec![spec.clone()],
        threads: 1,
        ..ExternalEngines::default()
    };
    let mut group = c.benchmark_group("external-overhead-spd-25x120");
    group.sample_size(50);
    group.measurement_time(Duration::from_secs(5));
    group.bench_function("cat answer (spawn + read + evaluate)", |b| {
        b.iter(|| {
            let r = engines.run(&spec, loaded.as_ref(), &path, "bench", &opts);
            assert!(r.objective.is_some(), "{:?}", r.message);
            black_box(r)
        })
    });
    group.bench_function("builtin spdcs-h", |b| {
        b.iter(|| black_box(loaded.run_engine("spdcs-h", &opts)))
    });
    group.finish();
    let _ = std::fs::remove_dir_all(&dir);
}

criterion_group!(benches, bench_external);
criterion_main!(benches);
