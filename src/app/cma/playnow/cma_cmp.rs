//! `j-playnow` against `j-sa/l-sa` and the exact optimum (`bf`) on seed
//! 002's scenarios (join, leave, dynamic × mirror counts), the instances of
//! `repro cma` ([`scenario_instance`], scaled by `scale`), replayed by the
//! CMA simulator on the same events.
//!
//! Policies that the simulator refuses (`j-playnow/l-sa`: L-SA needs an
//! optimal state and J-playnow does not keep one) are listed with the
//! refusal instead of a row.

use crate::app::cma::repro::{scenario_instance, CmaGrid};
use crate::error::Result;
use crate::problems::cma::gen::Scenario;
use crate::problems::cma::sim::{simulate, Policy, SimOptions, SimResult};

/// The policies compared (simulate's names), `bf` last (the reference).
pub const CMP_POLICIES: &[&str] = &[
    "j-playnow/l-ignore",
    "j-playnow/l-greedy",
    "j-greedy/l-greedy",
    "j-sa/l-sa",
    "bf",
];

/// Policies asked for that the simulator refuses (with its reason).
pub const CMP_REFUSED: &[&str] = &["j-playnow/l-sa"];

/// One policy on one scenario run.
#[derive(Debug, Clone, PartialEq)]
pub struct CmpRow {
    /// `<scenario>-<k>m`.
    pub run: String,
    /// The policy.
    pub policy: String,
    /// Events replayed.
    pub events: usize,
    /// Mean over events (with someone present) of the average delay, ms.
    pub mean_avg_delay: f64,
    /// Average delay after the last event with someone present, ms.
    pub final_avg_delay: f64,
    /// `mean_avg_delay` over `bf`'s, minus 1, percent.
    pub gap_mean_pct: f64,
    /// `final_avg_delay` over `bf`'s, minus 1, percent.
    pub gap_final_pct: f64,
}

/// The comparison's grid.
#[derive(Debug, Clone)]
pub struct CmpConfig {
    /// Scenarios.
    pub scenarios: Vec<Scenario>,
    /// Mirror counts.
    pub mirrors: Vec<usize>,
    /// `repro cma`'s client-count factor (1 = the paper's 1000/1300).
    pub scale: f64,
    /// Generator seed (`repro cma --gen-seed`).
    pub seed: u64,
}

fn delays(sim: &SimResult) -> (usize, f64, f64) {
    let with: Vec<f64> = sim
        .records
        .iter()
        .filter(|r| r.present > 0)
        .map(|r| r.avg_delay)
        .collect();
    let mean = if with.is_empty() {
        0.0
    } else {
        with.iter().sum::<f64>() / with.len() as f64
    };
    (sim.records.len(), mean, with.last().copied().unwrap_or(0.0))
}

fn pct(x: f64, reference: f64) -> f64 {
    if reference > 0.0 {
        (x / reference - 1.0) * 100.0
    } else {
        0.0
    }
}

/// Replays every scenario run under [`CMP_POLICIES`].
pub fn compare(cfg: &CmpConfig) -> Result<Vec<CmpRow>> {
    let grid = CmaGrid {
        scale: cfg.scale,
        seed: cfg.seed,
        ..CmaGrid::default()
    };
    let opts = SimOptions::default();
    let mut rows = Vec::new();
    for &scenario in &cfg.scenarios {
        for &k in &cfg.mirrors {
            let inst = scenario_instance(&grid, scenario, k)?;
            let run = format!("{}-{k}m", scenario.name());
            let mut found = Vec::new();
            for p in CMP_POLICIES {
                found.push((p, delays(&simulate(&inst, p, &opts)?)));
            }
            let (_, (_, ref_mean, ref_final)) = found[found.len() - 1];
            rows.extend(found.into_iter().map(|(p, (events, mean, last))| CmpRow {
                run: run.clone(),
                policy: p.to_string(),
                events,
                mean_avg_delay: mean,
                final_avg_delay: last,
                gap_mean_pct: pct(mean, ref_mean),
                gap_final_pct: pct(last, ref_final),
            }));
        }
    }
    Ok(rows)
}

/// Each refused policy with the simulator's message.
pub fn refusals() -> Vec<(String, String)> {
    CMP_REFUSED
        .iter()
        .filter_map(|p| {
            Policy::parse(p)
                .err()
                .map(|e| (p.to_string(), e.to_string()))
        })
        .collect()
}
