//! Matrix input (issue 25): the fast CSV path against the reference parser
//! on the same bytes, `.npy` and inline JSON, each as bytes per second.
//! Fixed seed, 40,000 rows × 50 columns of uniform delays written with
//! Rust's shortest round-trip formatting (about 18 bytes a cell). Run:
//! `cargo bench --bench input` (under a minute).

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serverpick::io::json_matrix::take_inline_matrix;
use serverpick::io::json_strict::parse_value;
use serverpick::net::csv_fast::{parse_csv, parse_reference};
use serverpick::net::matrix::{read_matrix_flat, MatrixSource};
use std::hint::black_box;
use std::path::Path;
use std::time::Duration;

const ROWS: usize = 40_000;
const COLS: usize = 50;

fn values() -> Vec<f64> {
    let mut rng = ChaCha8Rng::seed_from_u64(25);
    (0..ROWS * COLS)
        .map(|_| rng.random_range(0.0..300.0))
        .collect()
}

fn csv_text(values: &[f64]) -> String {
    let mut out = String::new();
    for row in values.chunks(COLS) {
        let cells: Vec<String> = row.iter().map(|v| v.to_string()).collect();
        out.push_str(&cells.join(","));
        out.push('\n');
    }
    out
}

fn input(c: &mut Criterion) {
    let values = values();
    let csv = csv_text(&values);
    let mut g = c.benchmark_group("input");
    g.sample_size(10).measurement_time(Duration::from_secs(3));
    g.throughput(Throughput::Bytes(csv.len() as u64));
    g.bench_function("csv_fast", |b| {
        b.iter(|| parse_csv(black_box(csv.as_bytes()), "m.csv").expect("csv"))
    });
    g.bench_function("csv_reference", |b| {
        b.iter(|| parse_reference(black_box(csv.as_bytes()), "m.csv").expect("csv"))
    });
    let dir = tempfile::tempdir().expect("temp dir");
    let npy = dir.path().join("m.npy");
    serverpick::net::npy::write_npy(&npy, (ROWS, COLS), values.iter().copied()).expect("npy");
    let side = serde_json::json!({ "npy": "m.npy" });
    let src = MatrixSource {
        file: "i.json",
        base_dir: dir.path(),
    };
    g.throughput(Throughput::Bytes(
        std::fs::metadata(&npy).expect("npy").len(),
    ));
    g.bench_function("npy", |b| {
        b.iter(|| read_matrix_flat(&side, "delay", &src, None, COLS).expect("npy"))
    });
    let rows: Vec<String> = csv.lines().map(|l| format!("[{l}]")).collect();
    let json = format!("[{}]", rows.join(",\n"));
    let here = MatrixSource {
        file: "i.json",
        base_dir: Path::new("."),
    };
    g.throughput(Throughput::Bytes(json.len() as u64));
    g.bench_function("json_inline", |b| {
        b.iter(|| {
            let v = parse_value(black_box(&json), "i.json").expect("json");
            read_matrix_flat(&v, "delay", &here, None, COLS).expect("rows")
        })
    });
    // The same matrix in a file's `delay` field, by the fast path that CMA
    // files now take (`io::json_matrix`).
    let file = format!("{{\"problem\": \"cma\", \"delay\": {json}}}");
    g.throughput(Throughput::Bytes(file.len() as u64));
    g.bench_function("json_inline_fast", |b| {
        b.iter(|| take_inline_matrix(black_box(&file), "delay").expect("fast path"))
    });
    g.finish();
}

criterion_group!(benches, input);
criterion_main!(benches);
