//! Times `exact-flow` on a generated static CMA instance and reports peak
//! memory: `cargo run --release --example cma_flow_big -- CLIENTS MIRRORS
//! [SEED] [FILE]` (with FILE, solves that instance instead). Peak resident
//! memory (VmHWM) is read from /proc before and after the solve.

use serverpick::problems::cma::exact_flow::solve_exact_flow;
use serverpick::problems::cma::file::read_cma;
use serverpick::problems::cma::gen::{generate_cma, GenCmaConfig, Scenario};
use std::path::Path;
use std::time::Instant;

/// A memory field of /proc/self/status (e.g. "VmRSS:"), MB.
fn vm_mb(field: &str) -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines().find(|l| l.starts_with(field)).and_then(|l| {
                l.split_whitespace()
                    .nth(1)
                    .and_then(|v| v.parse::<f64>().ok())
            })
        })
        .map_or(f64::NAN, |kb| kb / 1024.0)
}

/// CPU time of every thread of this process, seconds (the sum of
/// /proc/self/task/*/schedstat), so that timings on a shared machine count
/// only the time actually on a core (rayon's workers included).
fn cpu_s() -> f64 {
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return f64::NAN;
    };
    let ns: f64 = tasks
        .flatten()
        .filter_map(|t| std::fs::read_to_string(t.path().join("schedstat")).ok())
        .filter_map(|s| {
            s.split_whitespace()
                .next()
                .and_then(|v| v.parse::<f64>().ok())
        })
        .sum();
    ns / 1e9
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let arg = |i: usize, d: u64| args.get(i).and_then(|a| a.parse().ok()).unwrap_or(d);
    let (n, k, seed) = (arg(1, 100_000) as usize, arg(2, 20) as usize, arg(3, 7));
    let t0 = Instant::now();
    let inst = match args.get(4) {
        Some(f) if f == "uniform" => {
            use rand::{Rng, SeedableRng};
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
            let delay: Vec<f64> = (0..n * k).map(|_| rng.random_range(0.0..200.0)).collect();
            let w: Vec<f64> = (0..k).map(|_| rng.random_range(1.0..3.0)).collect();
            let sum: f64 = w.iter().sum();
            let mut cap: Vec<usize> = w
                .iter()
                .map(|x| (n as f64 * x / sum).floor() as usize)
                .collect();
            let short = n - cap.iter().sum::<usize>();
            cap[0] += short;
            serverpick::problems::cma::model::CmaInstance::new(
                format!("uniform-{n}x{k}-s{seed}"),
                cap,
                delay,
            )
        }
        Some(f) => read_cma(Path::new(f)),
        None => generate_cma(&GenCmaConfig {
            scenario: Scenario::Static,
            mirrors: k,
            clients: Some(n),
            seed,
            ..GenCmaConfig::default()
        }),
    };
    let inst = match inst {
        Ok(i) => i,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(2);
        }
    };
    let gen_s = t0.elapsed().as_secs_f64();
    // Reset the peak-RSS counter (Linux), so the peak below is the solve's.
    let _ = std::fs::write("/proc/self/clear_refs", "5");
    let before = vm_mb("VmRSS:");
    let repeat: usize = std::env::var("REPEAT")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(1);
    let mut solve_s = f64::INFINITY;
    let mut cpu = f64::INFINITY;
    let mut r = Ok(None);
    for _ in 0..repeat.max(1) {
        let (t1, c1) = (Instant::now(), cpu_s());
        r = solve_exact_flow(&inst);
        solve_s = solve_s.min(t1.elapsed().as_secs_f64());
        cpu = cpu.min(cpu_s() - c1);
    }
    let after = vm_mb("VmHWM:");
    match r {
        Ok(Some((assign, bound))) => {
            let total: f64 = assign
                .iter()
                .enumerate()
                .map(|(i, &j)| inst.delay(i, j))
                .sum();
            println!(
                "{}: n={} k={} build {:.2} s; exact-flow {:.1} ms wall, {:.1} ms CPU (best of {repeat}); total {:.3} bound {:.3} gap {:.2e}; \
                 delay matrix {:.0} MB; RSS before solve {:.0} MB, peak during solve {:.0} MB",
                inst.name,
                inst.clients(),
                inst.mirrors(),
                gen_s,
                solve_s * 1e3,
                cpu * 1e3,
                total,
                bound,
                (total - bound) / total,
                (inst.clients() * inst.mirrors() * 8) as f64 / 1048576.0,
                before,
                after
            );
        }
        Ok(None) => println!("infeasible"),
        Err(e) => eprintln!("error: {e}"),
    }
}
