//! Seed 002 §4 (Webb & Soh, CMA), Figs. 4–8: `serverpick repro cma`.
//!
//! 1. Instances: for every scenario (join, leave, dynamic) × mirror count
//!    (paper: 5, 10, 20) the generator's instance ([`generate_cma`]: the
//!    BRITE-like 5000-node topology, 1000 clients — 1300 dynamic — with the
//!    paper's capacities, split evenly for 10/20 mirrors), with the seeds of
//!    `gen cma --paper-set`, written to `OUT/instances/cma-<scenario>-<k>m.json`.
//!    `scale` shrinks the client count (and the capacities with it).
//! 2. Simulations: every instance replayed under every policy (paper:
//!    `j-greedy/l-ignore`, `j-greedy/l-greedy`, `j-sa/l-sa`, `bf`; by default
//!    also `j-sa-rebuild/l-sa-rebuild`, the paper's implementation) by
//!    [`simulate`]; per-event outputs in
//!    `OUT/sim/<scenario>-<k>m/<policy with / as _>/` (`events.csv`,
//!    `events.jsonl`, `summary.md`). Each policy runs `timing_runs` times
//!    (the states are deterministic); an event's `time_us` is its median.
//! 3. The same outputs as `bench`: the static instance of every scenario
//!    instance (its first `min(n, ΣC)` client rows without events — every
//!    client joined, up to full capacity) in `OUT/instances/static/`, run by
//!    [`run_bench`] with `exact-flow`, `exact` (the LP; left out of "all"
//!    above the dispatch's size limit), `j-greedy` and `j-sa`.
//! 4. Figures ([`crate::app::cma::repro::figures`]): `OUT/figures/*.svg` and
//!    `OUT/figures.md`.

pub mod figures;
pub mod findings;

use crate::app::cma::events::write_simulation;
use crate::app::report::summary::median;
use crate::bench::runner::{run_bench, BenchConfig, BenchOutcome, RESULTS_JSONL};
use crate::bench::Dispatch;
use crate::error::{Error, Result};
use crate::problems::cma::eval::DEFAULT_THRESHOLD_MS;
use crate::problems::cma::file::write_cma;
use crate::problems::cma::gen::{generate_cma, paper_set_config, EdgeConn, Scenario};
use crate::problems::cma::model::CmaInstance;
use crate::problems::cma::sim::{simulate, Policy, SimOptions, SimResult};
use figures::cma_figures;
use std::path::{Path, PathBuf};

/// The policies of seed 002 §4 (Figs. 4–8).
pub const CMA_PAPER_POLICIES: &[&str] =
    &["j-greedy/l-ignore", "j-greedy/l-greedy", "j-sa/l-sa", "bf"];

/// The default policies: the paper's plus `j-sa-rebuild/l-sa-rebuild`, the
/// paper's own `O(nk)`-per-event implementation of J-SA/L-SA, whose times
/// are the ones Fig. 8 reports.
pub const CMA_REPRO_POLICIES: &[&str] = &[
    "j-greedy/l-ignore",
    "j-greedy/l-greedy",
    "j-sa/l-sa",
    "j-sa-rebuild/l-sa-rebuild",
    "bf",
];

/// The static engines run on the static instances.
pub const CMA_REPRO_ENGINES: &[&str] = &["exact-flow", "exact", "j-greedy", "j-sa"];

/// The paper's capacity proportions (100, 150, 200, 250, 300 for join and
/// leave; 50, 75, 100, 125, 150 for dynamic).
const PAPER_WEIGHTS: [usize; 5] = [2, 3, 4, 5, 6];

/// The seed 002 §4 grid.
#[derive(Debug, Clone)]
pub struct CmaGrid {
    /// Scenarios (paper: join, leave, dynamic).
    pub scenarios: Vec<Scenario>,
    /// Mirror counts (paper: 5, 10, 20).
    pub mirrors: Vec<usize>,
    /// Client-count factor: `round(1000·scale)` clients (dynamic:
    /// `round(1300·scale)`), capacities scaled with them (paper: 1).
    pub scale: f64,
    /// Policies, as `simulate` spells them.
    pub policies: Vec<String>,
    /// Delay requirement for "players under threshold" (paper: 100 ms).
    pub threshold: f64,
    /// Base generator seed (the paper set's seeds are derived from it).
    pub seed: u64,
    /// Runs per (instance, policy); each event's recorded time is the
    /// median over them (one preempted event no longer dominates a total).
    pub timing_runs: usize,
    /// BRITE's inter-AS edge connection of the topology (default: the
    /// generator's, [`crate::net::brite::BriteConfig::seed_002`]).
    pub edge_conn: EdgeConn,
}

impl Default for CmaGrid {
    fn default() -> Self {
        CmaGrid {
            scenarios: vec![Scenario::Join, Scenario::Leave, Scenario::Dynamic],
            mirrors: vec![5, 10, 20],
            scale: 1.0,
            policies: CMA_REPRO_POLICIES.iter().map(|s| s.to_string()).collect(),
            threshold: DEFAULT_THRESHOLD_MS,
            seed: 1,
            timing_runs: 3,
            edge_conn: crate::net::brite::BriteConfig::seed_002().edge_conn,
        }
    }
}

impl CmaGrid {
    fn check(&self) -> Result<()> {
        if !(self.scale.is_finite() && self.scale > 0.0) {
            return Err(Error::Usage(format!(
                "--scale {} is not a positive factor",
                self.scale
            )));
        }
        if !(self.threshold.is_finite() && self.threshold >= 0.0) {
            return Err(Error::Usage(format!(
                "--threshold {} is not a delay >= 0",
                self.threshold
            )));
        }
        if self.mirrors.contains(&0) || self.mirrors.is_empty() {
            return Err(Error::Usage("--mirrors: every count must be >= 1".into()));
        }
        if let Some(s) = self.scenarios.iter().find(|s| **s == Scenario::Static) {
            return Err(Error::Usage(format!(
                "--scenarios: '{}' has no events; the static instances are derived from \
                 join, leave and dynamic",
                s.name()
            )));
        }
        for p in &self.policies {
            Policy::parse(p)?;
        }
        Ok(())
    }

    /// Client rows of a scenario's instance.
    pub fn clients(&self, scenario: Scenario) -> usize {
        ((paper_clients(scenario) as f64 * self.scale).round() as usize).max(1)
    }
}

/// The paper's client rows: 1300 for dynamic, else 1000.
pub fn paper_clients(scenario: Scenario) -> usize {
    if scenario == Scenario::Dynamic {
        1300
    } else {
        1000
    }
}

/// One scenario instance and its simulations (one per policy, in grid order).
#[derive(Debug, Clone)]
pub struct ScenarioRun {
    /// The scenario.
    pub scenario: Scenario,
    /// Mirror count.
    pub mirrors: usize,
    /// The generated instance (with events).
    pub inst: CmaInstance,
    /// One simulation per policy.
    pub sims: Vec<SimResult>,
}

impl ScenarioRun {
    /// `<scenario>-<k>m`, the run's folder and figure suffix.
    pub fn label(&self) -> String {
        format!("{}-{}m", self.scenario.name(), self.mirrors)
    }

    /// The simulation under `policy`, if it was run.
    pub fn sim(&self, policy: &str) -> Option<&SimResult> {
        self.sims.iter().find(|s| s.policy == policy)
    }
}

/// What `repro cma` produced.
#[derive(Debug, Clone)]
pub struct CmaReproOutcome {
    /// The benchmark over the static instances.
    pub bench: BenchOutcome,
    /// Every scenario run.
    pub runs: Vec<ScenarioRun>,
    /// The figures written.
    pub figures: Vec<PathBuf>,
}

/// A policy name made safe for a folder name (`/` → `_`).
pub fn policy_dir(policy: &str) -> String {
    policy.replace(['/', '\\'], "_")
}

/// Splits `total` in proportion to `w` (largest remainders).
fn split_proportional(total: usize, w: &[usize]) -> Vec<usize> {
    let sum: usize = w.iter().sum::<usize>().max(1);
    let mut cap: Vec<usize> = w.iter().map(|x| total * x / sum).collect();
    let mut order: Vec<usize> = (0..w.len()).collect();
    order.sort_by_key(|&j| std::cmp::Reverse((total * w[j]) % sum));
    let left = total - cap.iter().sum::<usize>();
    for &j in order.iter().take(left) {
        cap[j] += 1;
    }
    cap
}

/// The scenario's instance for `k` mirrors (the paper's at scale 1).
pub fn scenario_instance(grid: &CmaGrid, scenario: Scenario, k: usize) -> Result<CmaInstance> {
    let n = grid.clients(scenario);
    let mut cfg = paper_set_config(grid.seed, scenario, k);
    cfg.brite.edge_conn = grid.edge_conn;
    if n != paper_clients(scenario) {
        cfg.clients = Some(n);
        if k == PAPER_WEIGHTS.len() {
            // The generator's totals: n (join, leave), 500·n/1300 (dynamic).
            let total = if scenario == Scenario::Dynamic {
                500 * n / 1300
            } else {
                n
            };
            cfg.capacity = Some(split_proportional(total, &PAPER_WEIGHTS));
        }
    }
    generate_cma(&cfg)
}

/// The static instance of a scenario instance: its first `min(n, ΣC)` rows,
/// no events (every client joined, up to full capacity).
pub fn static_instance(inst: &CmaInstance, label: &str) -> Result<CmaInstance> {
    let k = inst.mirrors();
    let m = inst.clients().min(inst.total_capacity());
    let delay = inst.delay_matrix()[..m * k].to_vec();
    let mut st = CmaInstance::new(format!("cma-static-{label}"), inst.capacity.clone(), delay)?;
    st.source = Some(format!(
        "the first {m} client rows of {} without events (every client joined, up to full \
         capacity): serverpick repro cma (seed 002 §4)",
        inst.name
    ));
    Ok(st)
}

/// Replays `inst` under every policy of the grid and writes each one's
/// outputs to `dir/<policy>/`.
fn simulate_all(grid: &CmaGrid, inst: &CmaInstance, dir: &Path) -> Result<Vec<SimResult>> {
    let opts = SimOptions {
        threshold: grid.threshold,
        verify: false,
    };
    let mut sims = Vec::with_capacity(grid.policies.len());
    for p in &grid.policies {
        let mut sim = simulate(inst, p, &opts)?;
        let mut times: Vec<Vec<f64>> = sim.records.iter().map(|r| vec![r.time_us]).collect();
        for _ in 1..grid.timing_runs {
            let again = simulate(inst, p, &opts)?;
            for (t, r) in times.iter_mut().zip(&again.records) {
                t.push(r.time_us);
            }
        }
        for (r, t) in sim.records.iter_mut().zip(&times) {
            r.time_us = median(t).unwrap_or(r.time_us);
        }
        write_simulation(&dir.join(policy_dir(p)), inst, &sim)?;
        sims.push(sim);
    }
    Ok(sims)
}

fn refuse_existing_results(bench: &BenchConfig) -> Result<()> {
    let jsonl = bench.out.join(RESULTS_JSONL);
    let used = std::fs::metadata(&jsonl).is_ok_and(|m| m.len() > 0);
    if used && !bench.resume {
        return Err(Error::Usage(format!(
            "{} already holds results: pass --resume to continue that run, or choose \
             another --out",
            jsonl.display()
        )));
    }
    Ok(())
}

/// Runs seed 002 §4 into `bench.out` (see the module docs); engines default
/// to [`CMA_REPRO_ENGINES`].
pub fn repro_cma(
    grid: &CmaGrid,
    bench: &BenchConfig,
    dispatch: &dyn Dispatch,
) -> Result<CmaReproOutcome> {
    grid.check()?;
    refuse_existing_results(bench)?;
    let inst_dir = bench.out.join("instances");
    let static_dir = inst_dir.join("static");
    std::fs::create_dir_all(&static_dir).map_err(|e| Error::io(&static_dir, e))?;
    let mut runs = Vec::new();
    for &scenario in &grid.scenarios {
        for &k in &grid.mirrors {
            let inst = scenario_instance(grid, scenario, k)?;
            let label = format!("{}-{k}m", scenario.name());
            write_cma(&inst_dir.join(format!("cma-{label}.json")), &inst, false)?;
            let st = static_instance(&inst, &label)?;
            write_cma(&static_dir.join(format!("{}.json", st.name)), &st, false)?;
            let sims = simulate_all(grid, &inst, &bench.out.join("sim").join(&label))?;
            runs.push(ScenarioRun {
                scenario,
                mirrors: k,
                inst,
                sims,
            });
        }
    }
    let mut cfg = bench.clone();
    cfg.paths = vec![static_dir];
    if cfg.engines.is_none() {
        cfg.engines = Some(CMA_REPRO_ENGINES.iter().map(|s| s.to_string()).collect());
    }
    let outcome = run_bench(&cfg, dispatch)?;
    let figures = cma_figures(grid, &runs, &outcome.rows, &bench.out)?;
    Ok(CmaReproOutcome {
        bench: outcome,
        runs,
        figures,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::cma::repro::figures::thin;

    #[test]
    fn proportional_split_keeps_the_total_and_the_paper_shape() {
        assert_eq!(
            split_proportional(1000, &PAPER_WEIGHTS),
            vec![100, 150, 200, 250, 300]
        );
        assert_eq!(
            split_proportional(500, &PAPER_WEIGHTS),
            vec![50, 75, 100, 125, 150]
        );
        for total in 0..200 {
            let c = split_proportional(total, &PAPER_WEIGHTS);
            assert_eq!(c.iter().sum::<usize>(), total);
            assert!(c.windows(2).all(|w| w[0] <= w[1]), "{total}: {c:?}");
        }
    }

    #[test]
    fn paper_scale_instances_are_the_paper_set_ones() {
        let grid = CmaGrid::default();
        let inst = scenario_instance(&grid, Scenario::Dynamic, 5).unwrap();
        assert_eq!(inst.capacity, vec![50, 75, 100, 125, 150]);
        assert_eq!(inst.clients(), 1300);
        let same = generate_cma(&paper_set_config(1, Scenario::Dynamic, 5)).unwrap();
        assert_eq!(inst.delay_matrix(), same.delay_matrix());
        assert_eq!(inst.events, same.events);
        let st = static_instance(&inst, "dynamic-5m").unwrap();
        assert_eq!((st.clients(), st.events.is_none()), (500, true));
        assert_eq!(st.row(499), inst.row(499));
    }

    #[test]
    fn shrunk_instances_keep_the_capacity_shape() {
        let grid = CmaGrid {
            scale: 0.1,
            ..CmaGrid::default()
        };
        let join = scenario_instance(&grid, Scenario::Join, 5).unwrap();
        assert_eq!(join.capacity, vec![10, 15, 20, 25, 30]);
        let dynamic = scenario_instance(&grid, Scenario::Dynamic, 10).unwrap();
        assert_eq!((dynamic.clients(), dynamic.total_capacity()), (130, 50));
    }

    #[test]
    fn thinning_keeps_the_first_and_last_points() {
        let pts: Vec<(f64, f64)> = (0..1001).map(|i| (i as f64, 0.0)).collect();
        let t = thin(&pts, 400);
        assert!(t.len() <= 401 && t.len() > 300);
        assert_eq!((t[0].0, t[t.len() - 1].0), (0.0, 1000.0));
        assert_eq!(thin(&pts[..3], 400).len(), 3);
    }

    #[test]
    fn policy_folders_are_path_safe() {
        assert_eq!(policy_dir("j-sa/l-sa"), "j-sa_l-sa");
        assert_eq!(policy_dir("bf"), "bf");
    }
}
