//! Reading speed of a large CSV matrix (issue 25), for the README's
//! Performance section: `cargo run --release --example csv_read_speed --
//! FILE [REPEATS] [ref]` reads FILE whole (the one read `solve` does), then
//! parses it with the fast path (`parse_csv`, rayon's threads) REPEATS times
//! (default 3) and, with `ref`, with the reference parser once, printing
//! wall times and MB/s (10^6 bytes). Compare with `cat FILE > /dev/null`
//! and `wc -l FILE`.

use serverpick::net::csv_fast::{parse_csv, parse_reference};
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let Some(path) = args.get(1) else {
        eprintln!("usage: csv_read_speed FILE [REPEATS]");
        std::process::exit(2);
    };
    let repeats: usize = args.get(2).and_then(|r| r.parse().ok()).unwrap_or(3);
    let mb = |bytes: usize, s: f64| bytes as f64 / 1e6 / s;
    let t = Instant::now();
    let bytes = std::fs::read(path).expect("readable file");
    let s = t.elapsed().as_secs_f64();
    println!("read:      {s:.3} s  {:.0} MB/s", mb(bytes.len(), s));
    println!("threads:   {}", rayon::current_num_threads());
    for _ in 0..repeats {
        let t = Instant::now();
        let m = parse_csv(&bytes, path).expect("valid CSV");
        let s = t.elapsed().as_secs_f64();
        println!(
            "fast:      {s:.3} s  {:.0} MB/s  ({} rows, {} values)",
            mb(bytes.len(), s),
            m.rows(),
            m.values.len()
        );
    }
    // What the former read path also paid: rows of `Option<f64>`, then
    // copied into the engines' flat matrix.
    let m = parse_csv(&bytes, path).expect("valid CSV");
    let t = Instant::now();
    let rows = m.to_matrix();
    let flat: Vec<f64> = rows
        .iter()
        .flatten()
        .map(|c| c.unwrap_or(f64::NAN))
        .collect();
    let s = t.elapsed().as_secs_f64();
    println!(
        "rows:      {s:.3} s  to build {} row vectors and flatten them ({} values)",
        rows.len(),
        flat.len()
    );
    if args.get(3).is_none_or(|a| a != "ref") {
        return;
    }
    let t = Instant::now();
    let m = parse_reference(&bytes, path).expect("valid CSV");
    let s = t.elapsed().as_secs_f64();
    println!(
        "reference: {s:.3} s  {:.0} MB/s  ({} rows)",
        mb(bytes.len(), s),
        m.len()
    );
}
