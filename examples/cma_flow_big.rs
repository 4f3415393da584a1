//! Times `exact-flow` on a generated static CMA instance and reports peak
//! memory, against one `j-greedy` pass over the same rows (CPU time of
//! every thread, mean of at least `REPEAT` runs and 0.5 s: the ratio holds
//! on a busy machine, where wall times do not): `cargo run --release --example cma_flow_big -- CLIENTS MIRRORS
//! [SEED] [FILE]` (with FILE, solves that instance instead). Peak resident
//! memory (VmHWM) is read from /proc before and after the solve.

use serverpick::problems::cma::exact_flow::solve_exact_flow;
use serverpick::problems::cma::file::read_cma;
use serverpick::problems::cma::gen::{generate_cma, GenCmaConfig, Scenario};
use serverpick::problems::cma::join::j_greedy;
use serverpick::problems::cma::model::CmaState;
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
    let mut r = Ok(None);
    // CPU time is read from scheduler statistics, which advance by ticks:
    // each side runs at least `repeat` times and 0.5 s, and means are kept.
    let (mut runs, mut cpu_sum) = (0usize, 0.0);
    let start = Instant::now();
    while runs < repeat.max(1) || start.elapsed().as_secs_f64() < 0.5 {
        let (t1, c1) = (Instant::now(), cpu_s());
        r = solve_exact_flow(&inst);
        solve_s = solve_s.min(t1.elapsed().as_secs_f64());
        cpu_sum += cpu_s() - c1;
        runs += 1;
    }
    let cpu = cpu_sum / runs as f64;
    let (mut greedy_runs, c2, start) = (0usize, cpu_s(), Instant::now());
    while greedy_runs < repeat.max(1) || start.elapsed().as_secs_f64() < 0.5 {
        let mut st = CmaState::empty(&inst);
        for i in 0..inst.clients() {
            if j_greedy(&inst, &mut st, i).is_err() {
                break;
            }
        }
        std::hint::black_box(st.loads());
        greedy_runs += 1;
    }
    let greedy_cpu = (cpu_s() - c2) / greedy_runs as f64;
    let after = vm_mb("VmHWM:");
    match r {
        Ok(Some((assign, bound))) => {
            let total: f64 = assign
                .iter()
                .enumerate()
                .map(|(i, &j)| inst.delay(i, j))
                .sum();
            println!(
                "{}: n={} k={} build {:.2} s; exact-flow {:.1} ms wall, {:.1} ms CPU (best wall, mean CPU of {runs}); one j-greedy pass {:.1} ms CPU (mean of {greedy_runs}) ({:.2} passes); total {:.3} bound {:.3} gap {:.2e}; \
                 delay matrix {:.0} MB; RSS before solve {:.0} MB, peak during solve {:.0} MB",
                inst.name,
                inst.clients(),
                inst.mirrors(),
                gen_s,
                solve_s * 1e3,
                cpu * 1e3,
                greedy_cpu * 1e3,
                cpu / greedy_cpu,
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
