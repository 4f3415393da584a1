//! SPDVR measurements on paper-size instances (seed 001 §IV: 25 servers, 120
//! clients, f = 1.3), 10 seeds, CS (start: `spdcs-h`) and P2P (start:
//! `spdp2p-h`). Prints per-instance rows and, per engine, the median
//! variation and delay before/after, the median gap to `exact` (P2P) and the
//! median / max engine wall time (`SolveRecord::time_ms`: the engine's own
//! solve on one thread, start excluded).
//!
//! `cargo run --release --example spdvr_measure [SEEDS] [TIME_LIMIT_S]`

use serverpick::core::SolveOptions;
use serverpick::core::SolveRecord;
use serverpick::problems::spd::model::CommModel;
use serverpick::problems::spdvr::engines::{run_spdvr, start_for};
use std::collections::BTreeMap;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n == 0 {
        return f64::NAN;
    }
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

fn metric(r: &SolveRecord, k: &str) -> f64 {
    r.metrics
        .get(k)
        .and_then(|v| v.as_f64())
        .unwrap_or(f64::NAN)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let seeds: u64 = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(10);
    let limit: f64 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(60.0);
    let opts = SolveOptions::new(Some(limit), 0);
    for (model, start_engine, engines) in [
        (CommModel::Cs, "spdcs-h", vec!["chains", "exact"]),
        (
            CommModel::P2p,
            "spdp2p-h",
            vec!["spdvrp2p-h", "p2p-vr-ls", "exact"],
        ),
    ] {
        println!("\n== {model} (start {start_engine}), 25 servers, 120 clients, f = 1.3 ==");
        println!(
            "seed engine       status      hosts  V_before  V_after  D_before  D_after  time_ms"
        );
        let mut rows: BTreeMap<&str, Vec<SolveRecord>> = BTreeMap::new();
        for seed in 0..seeds {
            let inst = paper_spd(seed, model);
            let start = start_for(&inst, Some(start_engine), &opts).expect("start");
            for &e in &engines {
                let r = run_spdvr(e, &inst, &start, &opts).expect("run");
                println!(
                    "{seed:>4} {e:<12} {:<10} {:>2}->{:<2} {:>9.2} {:>8.2} {:>9.2} {:>8.2} {:>8.2}",
                    r.status.as_str(),
                    metric(&r, "hosts_before"),
                    metric(&r, "hosts"),
                    metric(&r, "variation_before"),
                    metric(&r, "variation"),
                    metric(&r, "delay_before"),
                    metric(&r, "delay"),
                    r.time_ms
                );
                rows.entry(e).or_default().push(r);
            }
        }
        summarise(&engines, &rows);
    }
}

fn summarise(engines: &[&str], rows: &BTreeMap<&str, Vec<SolveRecord>>) {
    let exact = &rows["exact"];
    let optimal = exact
        .iter()
        .filter(|r| r.status.as_str() == "optimal")
        .count();
    println!(
        "exact proved optimality on {optimal}/{} instances",
        exact.len()
    );
    println!("engine       med V_before  med V_after  med D_before  med D_after  med gap  max gap  med ms  max ms");
    for &e in engines {
        let rs = &rows[e];
        let col = |k: &str| median(rs.iter().map(|r| metric(r, k)).collect());
        let gaps: Vec<f64> = rs
            .iter()
            .zip(exact)
            .map(|(r, x)| {
                let best = metric(x, "variation");
                (metric(r, "variation") - best) / best
            })
            .collect();
        let max_gap = gaps.iter().cloned().fold(0.0, f64::max);
        let times: Vec<f64> = rs.iter().map(|r| r.time_ms).collect();
        let max_t = times.iter().cloned().fold(0.0, f64::max);
        println!(
            "{e:<12} {:>12.2} {:>12.2} {:>12.2} {:>12.2} {:>7.2}% {:>7.2}% {:>7.2} {:>7.2}",
            col("variation_before"),
            col("variation"),
            col("delay_before"),
            col("delay"),
            100.0 * median(gaps),
            100.0 * max_gap,
            median(times),
            max_t
        );
    }
}

/// A seed 001 §IV instance: 25 servers, 120 clients, f = 1.3 (the crate's generator).
fn paper_spd(
    seed: u64,
    model: serverpick::problems::spd::model::CommModel,
) -> serverpick::problems::spd::model::SpdInstance {
    serverpick::problems::spd::gen::paper_size_spd(model, 1.3, seed).expect("generated instance")
}
