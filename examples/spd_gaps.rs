//! How far the SPD heuristics are from the proven optimum host count.
//!
//! `cargo run --release --example spd_gaps [-- SEEDS [TIME_LIMIT_S [F,F,..]]]`
//!
//! For each bound factor (default `1.3,1.0`: the brief's f = 1.3, where one
//! host usually suffices, and the tighter f = 1.0), each model (CS, P2P) and
//! seeds `0..SEEDS` (default 10), generates the paper-size instance of seed
//! 001 §IV (25 servers, 120 clients, `generate_paper_spd`), runs `exact` (default limit 120 s) and every
//! heuristic through `run_spd` (so the evaluator scores everything), and
//! prints per instance and in summary: how often `exact` proved optimality,
//! its median and maximum time, and each heuristic's mean gap in hosts
//! `(h − h*) / h*` to the proven optimum `h*` (instances without a proof are
//! left out of the gaps; heuristic failures are counted separately).

use serverpick::core::SolveOptions;
use serverpick::core::Status;
use serverpick::problems::spd::engines::{run_spd, spd_engine};
use serverpick::problems::spd::gen::{generate_paper_spd, PaperSpdParams};
use serverpick::problems::spd::model::CommModel;

fn main() -> serverpick::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let seeds: u64 = args.first().and_then(|s| s.parse().ok()).unwrap_or(10);
    let limit: f64 = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(120.0);
    let factors: Vec<f64> = args
        .get(2)
        .map(|s| s.split(',').filter_map(|x| x.parse().ok()).collect())
        .unwrap_or_else(|| vec![1.3, 1.0]);
    for f in factors {
        for model in [CommModel::Cs, CommModel::P2p] {
            run_model(model, f, seeds, limit)?;
        }
    }
    Ok(())
}

fn heuristics(model: CommModel) -> Vec<&'static str> {
    match model {
        CommModel::Cs => vec!["alg-m", "spdcs-h", "k-best"],
        CommModel::P2p => vec!["alg-m", "spdp2p-h", "zizo", "k-best"],
    }
}

fn run_model(model: CommModel, f: f64, seeds: u64, limit: f64) -> serverpick::Result<()> {
    let names = heuristics(model);
    let opts = SolveOptions::new(Some(limit), 0);
    let exact = spd_engine("exact")?;
    let (mut proven, mut times) = (0usize, Vec::new());
    let mut gaps: Vec<Vec<f64>> = vec![Vec::new(); names.len()];
    let mut fails = vec![0usize; names.len()];
    println!("== {model}: 25 servers, 120 clients, f = {f}, seeds 0..{seeds}, limit {limit} s");
    for seed in 0..seeds {
        let p = PaperSpdParams {
            model,
            bound_factor: f,
            ..PaperSpdParams::default()
        };
        let inst = generate_paper_spd(&p, seed)?;
        let rec = run_spd(exact, &inst, &opts);
        times.push(rec.time_ms / 1e3);
        let h_star = rec.objective.filter(|_| rec.status == Status::Optimal);
        proven += usize::from(h_star.is_some());
        let mut line = format!(
            "seed {seed}: exact {} hosts {:?} delay {:?} var {:?} {:.2} s",
            rec.status,
            rec.objective,
            rec.metrics.get("delay").and_then(|v| v.as_f64()),
            rec.metrics.get("variation").and_then(|v| v.as_f64()),
            rec.time_ms / 1e3
        );
        for (i, name) in names.iter().enumerate() {
            let hrec = run_spd(spd_engine(name)?, &inst, &opts);
            match hrec.objective.filter(|_| hrec.status == Status::Feasible) {
                Some(h) => {
                    line += &format!(" | {name} {h}");
                    if let Some(hs) = h_star {
                        gaps[i].push((h - hs) / hs);
                    }
                }
                None => {
                    fails[i] += 1;
                    line += &format!(" | {name} {}", hrec.status);
                }
            }
        }
        println!("{line}");
        if let Some(m) = &rec.message {
            println!("    exact: {m}");
        }
    }
    times.sort_by(f64::total_cmp);
    let median = if times.is_empty() {
        f64::NAN
    } else if times.len() % 2 == 1 {
        times[times.len() / 2]
    } else {
        (times[times.len() / 2 - 1] + times[times.len() / 2]) / 2.0
    };
    println!(
        "exact proved optimality on {proven}/{seeds}; time median {median:.2} s, max {:.2} s",
        times.last().copied().unwrap_or(f64::NAN)
    );
    for (i, name) in names.iter().enumerate() {
        let mean = gaps[i].iter().sum::<f64>() / gaps[i].len().max(1) as f64;
        println!(
            "  {name:9} mean host gap {:.1}% over {} proven instances; failed on {}",
            100.0 * mean,
            gaps[i].len(),
            fails[i]
        );
    }
    Ok(())
}
