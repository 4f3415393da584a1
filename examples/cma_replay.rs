//! Times a policy's replay of a dynamic CMA instance (no evaluation):
//! `cargo run --release --example cma_replay -- FILE POLICY [REPEAT]`.

use serverpick::problems::cma::file::read_cma;
use serverpick::problems::cma::sim::replay;
use std::path::Path;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 3 {
        eprintln!("usage: cma_replay FILE POLICY [REPEAT]");
        std::process::exit(2);
    }
    let inst = match read_cma(Path::new(&args[1])) {
        Ok(i) => i,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(2);
        }
    };
    let repeat: usize = args.get(3).and_then(|r| r.parse().ok()).unwrap_or(1);
    let mut best = f64::INFINITY;
    let mut events = 0;
    for _ in 0..repeat {
        match replay(&inst, &args[2]) {
            Ok((t, n)) => {
                best = best.min(t);
                events = n;
            }
            Err(e) => {
                eprintln!("error: {e}");
                std::process::exit(2);
            }
        }
    }
    println!(
        "{} {}: {} events, best of {repeat}: {:.3} ms, {:.3} us/event",
        inst.name,
        args[2],
        events,
        best * 1e3,
        best * 1e6 / events.max(1) as f64
    );
}
