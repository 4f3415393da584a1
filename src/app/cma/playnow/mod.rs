//! `serverpick repro playnow`: the "play now" population study (issue 12,
//! beyond seed 000's note) and `j-playnow` on seed 002's scenarios.
//!
//! - [`pool`]: players arrive at a pool of mixed-size servers, press "play
//!   now" under each policy and leave after an exponential session; pings
//!   from a measured latency matrix (default: the bundled PlanetLab sample)
//!   or a synthetic plane.
//! - [`cma_cmp`]: `j-playnow` against `j-sa/l-sa` and `bf` on the
//!   instances `repro cma` builds.
//! - [`report`]: CSV files, SVG figures and `findings.md`, which answers the
//!   note's reader: do huge servers steal players?
//! - [`cli`]: the `repro playnow` hook.
//!
//! Deterministic: a seed gives the same files (no wall times are written).

pub mod cli;
pub mod cma_cmp;
pub mod pool;
pub mod report;

use crate::error::Result;
use crate::problems::cma::gen::Scenario;
use cma_cmp::{compare, CmpConfig, CmpRow};
use pool::{build_workload, simulate_pool, PingSource, PoolConfig, PoolPolicy, PoolRun};
use std::path::{Path, PathBuf};

/// Every parameter of one study.
#[derive(Debug, Clone)]
pub struct PlaynowConfig {
    /// The pool and arrival process (its `load` is replaced per load).
    pub pool: PoolConfig,
    /// Loads studied (mean players / total slots).
    pub loads: Vec<f64>,
    /// Where pings come from.
    pub pings: PingSource,
    /// How `findings.md` names the ping source.
    pub ping_label: String,
    /// The seed 002 comparison (`None`: skipped).
    pub cma: Option<CmpConfig>,
}

impl PlaynowConfig {
    /// The full study: 4 × 64, 10 × 24 and 10 × 16 slots, loads 0.15, 0.3
    /// and 0.5, 30-minute sessions over 1200 minutes sampled every 5; seed
    /// 002's three scenarios at 5, 10, 20 mirrors at the paper's size (scale 1).
    pub fn standard(seed: u64, pings: PingSource, ping_label: String) -> Self {
        PlaynowConfig {
            pool: PoolConfig {
                sizes: vec![(64, 4), (24, 10), (16, 10)],
                load: 0.3,
                session_min: 30.0,
                duration_min: 1200.0,
                sample_min: 5.0,
                seed,
            },
            loads: vec![0.15, 0.3, 0.5],
            pings,
            ping_label,
            cma: Some(CmpConfig {
                scenarios: vec![Scenario::Join, Scenario::Leave, Scenario::Dynamic],
                mirrors: vec![5, 10, 20],
                scale: 1.0,
                seed: 1,
            }),
        }
    }

    /// A small study for tests: 2 × 64, 4 × 24, 4 × 16 slots, loads 0.2
    /// and 0.5, 120 minutes; seed 002's join and dynamic at 5 mirrors,
    /// scale 0.05.
    pub fn quick(seed: u64, pings: PingSource, ping_label: String) -> Self {
        let mut c = Self::standard(seed, pings, ping_label);
        c.pool.sizes = vec![(64, 2), (24, 4), (16, 4)];
        c.pool.session_min = 20.0;
        c.pool.duration_min = 120.0;
        c.loads = vec![0.2, 0.5];
        c.cma = Some(CmpConfig {
            scenarios: vec![Scenario::Join, Scenario::Dynamic],
            mirrors: vec![5],
            scale: 0.05,
            seed: 1,
        });
        c
    }

    /// Total slots of the pool.
    pub fn total_slots(&self) -> u64 {
        self.pool.slots().iter().map(|&s| u64::from(s)).sum()
    }

    /// The largest servers' share of the slots.
    pub fn largest_slot_share(&self) -> f64 {
        let slots = self.pool.slots();
        let largest = slots.iter().copied().max().unwrap_or(0);
        let on: u64 = slots
            .iter()
            .filter(|&&s| s == largest)
            .map(|&s| u64::from(s))
            .sum();
        on as f64 / self.total_slots().max(1) as f64
    }
}

/// Every policy's run at one load.
#[derive(Debug, Clone)]
pub struct LoadRuns {
    /// The load.
    pub load: f64,
    /// One run per [`PoolPolicy::ALL`] entry.
    pub runs: Vec<PoolRun>,
}

/// Runs the population study: every load × every policy.
pub fn run_study(cfg: &PlaynowConfig) -> Result<Vec<LoadRuns>> {
    let mut out = Vec::with_capacity(cfg.loads.len());
    for &load in &cfg.loads {
        let pool = PoolConfig {
            load,
            ..cfg.pool.clone()
        };
        let w = build_workload(&pool, &cfg.pings)?;
        let runs = PoolPolicy::ALL
            .into_iter()
            .map(|p| simulate_pool(&w, p))
            .collect::<Result<Vec<_>>>()?;
        out.push(LoadRuns { load, runs });
    }
    Ok(out)
}

/// What `repro playnow` produced.
#[derive(Debug, Clone)]
pub struct PlaynowOutcome {
    /// The population study.
    pub loads: Vec<LoadRuns>,
    /// The seed 002 comparison (empty when skipped).
    pub cma: Vec<CmpRow>,
    /// The figures written.
    pub figures: Vec<PathBuf>,
}

/// Runs the study and the comparison and writes everything into `out`.
pub fn repro_playnow(cfg: &PlaynowConfig, out: &Path) -> Result<PlaynowOutcome> {
    let loads = run_study(cfg)?;
    let cma = match &cfg.cma {
        Some(c) => compare(c)?,
        None => Vec::new(),
    };
    let figures = report::write_all(cfg, &loads, &cma, out)?;
    Ok(PlaynowOutcome {
        loads,
        cma,
        figures,
    })
}
