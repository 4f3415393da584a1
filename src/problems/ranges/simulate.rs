//! `simulate-ranges`: a [`Workload`] replayed over time, rebalanced every
//! step by each policy from its own previous split (beyond seed 003).
//!
//! | policy | per step |
//! |---|---|
//! | `leave-join` | Mercury's leave-join from the previous split |
//! | `nbr-adjust` | neighbour adjustment from the previous split |
//! | `hash` | the plain DHT: a fixed owner per cell, never moves |
//! | `uniform-static` | equal cell counts, never moves |
//! | `exact-every-step` | the step's exact optimum, whatever it migrates |
//! | `exact-budget` | the least max load moving at most `budget` cells from the previous split |
//!
//! Step 0 starts every contiguous policy from `uniform`. Per step and policy:
//! max load, mean load, max/mean, cells migrated (owner changed from the
//! previous step) and the gap to the step's exact (contiguous) optimum;
//! `hash` is not contiguous, so its gap may be negative. All loads come from
//! THE evaluator. Cost per step: one oracle build, `exact`, and each
//! policy (`exact-budget`: `O(probes · N·K)`).

use crate::error::{Error, Result};
use crate::problems::ranges::eval::evaluate_owner;
use crate::problems::ranges::exact::exact_split;
use crate::problems::ranges::exact_budget::{exact_budget, split_moves};
use crate::problems::ranges::hash::dht_hash;
use crate::problems::ranges::leave_join::leave_join_from;
use crate::problems::ranges::model::{starts_to_owner, RangesInstance};
use crate::problems::ranges::nbr_adjust::{nbr_adjust_from, uniform};
use crate::problems::ranges::oracle::LoadOracle;
use crate::problems::ranges::workload::{Workload, WorkloadConfig};
use serde::Serialize;

/// The policies, in table order.
pub const POLICIES: [&str; 6] = [
    "leave-join",
    "nbr-adjust",
    "hash",
    "uniform-static",
    "exact-every-step",
    "exact-budget",
];

/// Simulation settings.
#[derive(Debug, Clone, PartialEq)]
pub struct SimConfig {
    /// The workload.
    pub workload: WorkloadConfig,
    /// Steps (instances) to replay.
    pub steps: usize,
    /// Cells `exact-budget` may migrate per step (0 = `K/50`).
    pub budget: u64,
    /// `leave-join`'s heaviness threshold.
    pub delta: f64,
}

/// One (step, policy) row of `steps.csv`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StepRow {
    /// Step, from 0.
    pub step: usize,
    /// Policy name.
    pub policy: &'static str,
    /// Largest node load.
    pub max_load: f64,
    /// Mean node load.
    pub mean_load: f64,
    /// `max_load / mean_load`.
    pub max_over_mean: f64,
    /// Cells whose owner changed from the previous step.
    pub migrated: usize,
    /// The step's exact contiguous optimum.
    pub optimum: f64,
    /// `max_load / optimum − 1`.
    pub gap: f64,
}

/// What a policy holds between steps.
#[derive(Debug, Clone)]
enum State {
    Split(Vec<usize>),
    Owner(Vec<usize>),
}

/// Runs one policy on one step from `state`; returns the new state and the
/// cells migrated.
fn rebalance(
    policy: &str,
    inst: &RangesInstance,
    oracle: &LoadOracle,
    opt: &[usize],
    state: &State,
    cfg: &SimConfig,
) -> Result<(State, usize)> {
    let k = inst.cells();
    let State::Split(prev) = state else {
        return Ok((state.clone(), 0));
    };
    let next = match policy {
        "leave-join" => leave_join_from(oracle, prev, cfg.delta, 4 * prev.len().max(1)).starts,
        "nbr-adjust" => {
            nbr_adjust_from(
                oracle,
                prev.clone(),
                crate::problems::ranges::engines::NBR_MAX_ROUNDS,
            )
            .0
        }
        "exact-every-step" => opt.to_vec(),
        "exact-budget" => {
            let b = if cfg.budget == 0 {
                (k / 50) as u64
            } else {
                cfg.budget
            };
            exact_budget(oracle, prev, b)
                .map_err(|e| Error::Usage(format!("exact-budget: {e}")))?
                .starts
        }
        _ => prev.clone(),
    };
    let moved = split_moves(prev, &next, k);
    Ok((State::Split(next), moved))
}

fn initial(policy: &str, k: usize, n: usize, seed: u64) -> State {
    match policy {
        "hash" => State::Owner(dht_hash(k, n, 0, 1, seed)),
        _ => State::Split(uniform(k, n)),
    }
}

/// Replays the workload; rows in (step, policy) order. Deterministic per
/// seed.
pub fn simulate_ranges(cfg: &SimConfig) -> Result<Vec<StepRow>> {
    if cfg.delta.is_nan() || cfg.delta <= 0.0 {
        return Err(Error::Usage(format!(
            "--leave-join-delta {}: must be > 0",
            cfg.delta
        )));
    }
    let mut wl = Workload::new(&cfg.workload)?;
    let first = wl.instance();
    let (k, n) = (first.cells(), first.nodes);
    let mut states: Vec<State> = POLICIES
        .iter()
        .map(|p| initial(p, k, n, cfg.workload.seed))
        .collect();
    let mut rows = Vec::with_capacity(cfg.steps * POLICIES.len());
    for step in 0..cfg.steps {
        if step > 0 {
            wl.advance();
        }
        let inst = wl.instance();
        let oracle = LoadOracle::new(&inst);
        let opt = exact_split(&oracle, n);
        for (p, policy) in POLICIES.iter().enumerate() {
            let (next, migrated) = rebalance(policy, &inst, &oracle, &opt.starts, &states[p], cfg)?;
            let owner = match &next {
                State::Split(s) => starts_to_owner(s, k),
                State::Owner(o) => o.clone(),
            };
            let m = evaluate_owner(&inst, &owner);
            let gap = if opt.objective > 0.0 {
                m.max_load / opt.objective - 1.0
            } else {
                0.0
            };
            rows.push(StepRow {
                step,
                policy,
                max_load: m.max_load,
                mean_load: m.mean_load,
                max_over_mean: m.max_over_mean,
                migrated,
                optimum: opt.objective,
                gap,
            });
            states[p] = next;
        }
    }
    Ok(rows)
}

/// Per-policy aggregates over the steps.
#[derive(Debug, Clone, PartialEq)]
pub struct PolicySummary {
    /// Policy name.
    pub policy: &'static str,
    /// Mean of max/mean over the steps.
    pub mean_max_over_mean: f64,
    /// Worst max/mean.
    pub worst_max_over_mean: f64,
    /// Mean gap to the step optimum.
    pub mean_gap: f64,
    /// Largest gap.
    pub max_gap: f64,
    /// Cells migrated over all steps.
    pub migrated: usize,
}

/// Aggregates `rows` per policy, in [`POLICIES`] order.
pub fn summarise(rows: &[StepRow]) -> Vec<PolicySummary> {
    POLICIES
        .iter()
        .map(|&policy| {
            let r: Vec<&StepRow> = rows.iter().filter(|r| r.policy == policy).collect();
            let len = r.len().max(1) as f64;
            PolicySummary {
                policy,
                mean_max_over_mean: r.iter().map(|x| x.max_over_mean).sum::<f64>() / len,
                worst_max_over_mean: r.iter().map(|x| x.max_over_mean).fold(0.0, f64::max),
                mean_gap: r.iter().map(|x| x.gap).sum::<f64>() / len,
                max_gap: r.iter().map(|x| x.gap).fold(f64::NEG_INFINITY, f64::max),
                migrated: r.iter().map(|x| x.migrated).sum(),
            }
        })
        .collect()
}
