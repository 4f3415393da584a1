//! Shared by the `plan cma` tests: brute force over every K-subset, and
//! options that prove exactly.
#![allow(dead_code)]

use serverpick::problems::cma::exact_flow::solve_exact_flow_capacities;
use serverpick::problems::cma::model::CmaInstance;
use serverpick::problems::cma::plan::curve::PlanOptions;
use serverpick::problems::cma::plan::exact::ExactSettings;

/// The least objective over every K-subset, each solved as a
/// transportation problem (never the nearest-open shortcut); `None` when no
/// K-subset holds every player. Unit rows only.
pub fn brute_force(inst: &CmaInstance, cost: &[f64], k: usize) -> Option<f64> {
    let m = inst.mirrors();
    let mut best: Option<f64> = None;
    for mask in 0u32..(1 << m) {
        if mask.count_ones() as usize != k {
            continue;
        }
        let on = |j: usize| mask >> j & 1 == 1;
        let cap: Vec<usize> = (0..m)
            .map(|j| if on(j) { inst.capacity[j] } else { 0 })
            .collect();
        if cap.iter().sum::<usize>() < inst.clients() {
            continue;
        }
        let (assign, _) = solve_exact_flow_capacities(inst, cap).unwrap().unwrap();
        let delay: f64 = assign
            .iter()
            .enumerate()
            .map(|(i, &j)| inst.delay(i, j))
            .sum();
        let obj = delay + (0..m).filter(|&j| on(j)).map(|j| cost[j]).sum::<f64>();
        if best.is_none_or(|b| obj < b) {
            best = Some(obj);
        }
    }
    best
}

/// `engine` for one `K` (or every `K` with `None`), `exact` at gap 0.
pub fn exact_opts(engine: &str, k: Option<usize>) -> PlanOptions {
    PlanOptions {
        engine: engine.into(),
        mirrors: k,
        exact: ExactSettings {
            gap: 0.0,
            ..ExactSettings::default()
        },
        ..PlanOptions::default()
    }
}
