//! CMA instance generator: the BRITE topology of seed 002 §4 (problems.md
//! §3) and the paper's join, leave and dynamic scenarios, static instances
//! of any size, and instances drawn from a measured latency matrix.
//!
//! Topology ([`brite_top_down`], module [`crate::net::brite`]): BRITE's
//! top-down model as seed 002 §4 describes it, "50 AS domains derived by the
//! Barabasi-Albert model and 100 nodes per AS derived by the Waxman model;
//! every link is uniformly distributed in the delay range [0ms, 25ms]", with
//! the parameters the paper leaves out taken from BRITE's sample
//! `TD_ASBarabasi_RTWaxman.conf` (AS `m = 2`; router `m = 2`, `alpha =
//! 0.15`, `beta = 0.2`, incremental growth, random placement on a 1000 ×
//! 1000 plane) except the inter-AS edge connection, BRITE's `edgeConn = 2`
//! (smallest degree: one border router per AS) instead of the sample's
//! random choice: with the random choice the paper's reported delay level is
//! out of reach ([`BriteConfig::seed_002`] gives the numbers).
//! `d(i, j)` is the shortest-path delay (Dijkstra from every mirror;
//! symmetric links make that the all-pairs value), one-way as the paper
//! defines it (§2: the time from sending to receiving an update). The paper's
//! 5000 nodes are `A = 50` ASes of `R = 100` routers; bigger instances add
//! ASes so that every client is its own node. Mirrors and clients are
//! distinct nodes drawn uniformly at random, as the paper draws them.
//!
//! Scenarios (seed 002 §4): `join` (1000 clients join; 5 mirrors with
//! capacities 100..300), `leave` (the same joins, then every client leaves
//! in join order, FIFO), `dynamic` (1300 clients, capacities 50..150: fill to
//! 400 by join-join-leave-a-random-client, then 500 joins and 500 leaves in
//! random order). With 10 or 20 mirrors the same total capacity is split
//! evenly. `static`: `n` clients, no events, total capacity `ceil(n·(1+slack))`
//! split in random proportions (weights uniform in [1, 3]).
//!
//! The paper set ([`paper_set_config`]) draws, as the paper does, one
//! topology for every scenario, and the leave scenario starts from the join
//! scenario's clients and mirrors (§4.2: "populated with 1000 players ... as
//! described in Sec. 4.1").
//!
//! Everything is seeded (ChaCha8).

use crate::error::{Error, Result};
pub use crate::net::brite::{brite_like, brite_top_down, BriteConfig, EdgeConn, Topology};
use crate::net::matrix::read_measured_matrix;
use crate::problems::cma::model::{CmaEvent, CmaInstance, MAX_MIRRORS};
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use std::path::{Path, PathBuf};

/// The instance shape to generate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scenario {
    /// Seed 002 §4.1: every client joins.
    Join,
    /// Seed 002 §4.2: every client joins, then all leave in join order.
    Leave,
    /// Seed 002 §4.3: fill to 400, then 500 joins and 500 leaves at random.
    Dynamic,
    /// No events: the static problem.
    Static,
}

impl Scenario {
    /// Parses `join`, `leave`, `dynamic` or `static`.
    pub fn parse(s: &str) -> Result<Scenario> {
        match s {
            "join" => Ok(Scenario::Join),
            "leave" => Ok(Scenario::Leave),
            "dynamic" => Ok(Scenario::Dynamic),
            "static" => Ok(Scenario::Static),
            other => Err(Error::Usage(format!(
                "unknown CMA scenario '{other}' (join, leave, dynamic, static, sites)"
            ))),
        }
    }

    /// The scenario's name as the CLI spells it.
    pub fn name(self) -> &'static str {
        match self {
            Scenario::Join => "join",
            Scenario::Leave => "leave",
            Scenario::Dynamic => "dynamic",
            Scenario::Static => "static",
        }
    }
}

/// The seed that picks the clients and mirrors of the paper set's instance
/// for (`scenario`, `mirrors`) under base seed `base`: `base·1000 + 100·s +
/// k` with `s` = 0 (join and leave: the leave scenario replays the join
/// scenario's population, seed 002 §4.2), 1 (dynamic), 2 (static); distinct
/// for `k < 100` (the paper's 5, 10, 20).
pub fn paper_set_seed(base: u64, scenario: Scenario, mirrors: usize) -> u64 {
    let s = match scenario {
        Scenario::Join | Scenario::Leave => 0u64,
        Scenario::Dynamic => 1,
        Scenario::Static => 2,
    };
    base.wrapping_mul(1000)
        .wrapping_add(s * 100)
        .wrapping_add(mirrors as u64)
}

/// The paper set's instance for (`scenario`, `mirrors`) under base seed
/// `base` (`gen cma --paper-set` and `repro cma` both use it, so both write
/// the same instances): one topology for every scenario (topology seed
/// `base`), clients and mirrors from [`paper_set_seed`].
pub fn paper_set_config(base: u64, scenario: Scenario, mirrors: usize) -> GenCmaConfig {
    GenCmaConfig {
        scenario,
        mirrors,
        seed: paper_set_seed(base, scenario, mirrors),
        topology_seed: Some(base),
        ..GenCmaConfig::default()
    }
}

/// Generator settings.
#[derive(Debug, Clone)]
pub struct GenCmaConfig {
    /// Instance shape.
    pub scenario: Scenario,
    /// Number of mirrors `k`.
    pub mirrors: usize,
    /// Number of client rows (default: 1000 for join/leave/static, 1300 dynamic).
    pub clients: Option<usize>,
    /// Explicit capacities (one per mirror); default: the scenario's.
    pub capacity: Option<Vec<usize>>,
    /// Static instances: total capacity `ceil(n·(1 + slack))`.
    pub slack: f64,
    /// The topology (BRITE top-down; default [`BriteConfig::seed_002`]).
    /// When `clients + mirrors` exceed its size, ASes are added.
    pub brite: BriteConfig,
    /// Draw the topology from this seed instead of from `seed` (the paper
    /// set shares one topology between its instances).
    pub topology_seed: Option<u64>,
    /// Draw nodes from this measured square matrix (whitespace separated,
    /// ms) instead of a generated topology.
    pub from_matrix: Option<PathBuf>,
    /// Seed.
    pub seed: u64,
}

impl Default for GenCmaConfig {
    fn default() -> Self {
        GenCmaConfig {
            scenario: Scenario::Join,
            mirrors: 5,
            clients: None,
            capacity: None,
            slack: 0.0,
            brite: BriteConfig::seed_002(),
            topology_seed: None,
            from_matrix: None,
            seed: 1,
        }
    }
}

/// Default capacities of a scenario: the paper's for 5 mirrors, else the
/// paper's total split evenly (remainder to the first mirrors).
fn scenario_capacity(cfg: &GenCmaConfig, n: usize, rng: &mut ChaCha8Rng) -> Vec<usize> {
    let k = cfg.mirrors;
    let (paper, total): (&[usize], usize) = match cfg.scenario {
        Scenario::Join | Scenario::Leave => (&[100, 150, 200, 250, 300], n),
        Scenario::Dynamic => (&[50, 75, 100, 125, 150], 500 * n / 1300),
        Scenario::Static => {
            // n·(1 + slack) is rounded up, forgiving the float's last bits:
            // 200 · 1.1 is 220.00000000000003, and its ceiling must be 220.
            let exact = n as f64 * (1.0 + cfg.slack);
            let total = (exact - 1e-9 * exact.max(1.0)).ceil() as usize;
            let w: Vec<f64> = (0..k).map(|_| rng.random_range(1.0..3.0)).collect();
            return split_by_weights(total, &w);
        }
    };
    if k == 5 && paper.iter().sum::<usize>() == total {
        return paper.to_vec();
    }
    split_by_weights(total, &vec![1.0; k])
}

fn split_by_weights(total: usize, w: &[f64]) -> Vec<usize> {
    let sum: f64 = w.iter().sum();
    let mut cap: Vec<usize> = w
        .iter()
        .map(|x| (total as f64 * x / sum).floor() as usize)
        .collect();
    let mut left = total - cap.iter().sum::<usize>();
    let mut j = 0;
    while left > 0 {
        cap[j % w.len()] += 1;
        left -= 1;
        j += 1;
    }
    cap
}

/// The events of a scenario over `n` rows, keeping at most `total` present.
fn scenario_events(
    s: Scenario,
    n: usize,
    total: usize,
    rng: &mut ChaCha8Rng,
) -> Option<Vec<CmaEvent>> {
    match s {
        Scenario::Static => None,
        Scenario::Join => Some((0..n.min(total)).map(CmaEvent::Join).collect()),
        Scenario::Leave => {
            let m = n.min(total);
            let mut ev: Vec<CmaEvent> = (0..m).map(CmaEvent::Join).collect();
            ev.extend((0..m).map(CmaEvent::Leave));
            Some(ev)
        }
        Scenario::Dynamic => Some(dynamic_events(n, total, rng)),
    }
}

/// Seed 002 §4.3: join, join, leave-a-random-client until `fill` are
/// present (`fill = 400·n/1300`), then the remaining rows join and as many
/// leaves happen, in random order.
fn dynamic_events(n: usize, total: usize, rng: &mut ChaCha8Rng) -> Vec<CmaEvent> {
    let fill = (400 * n / 1300).min(total);
    let mut ev = Vec::new();
    let mut present: Vec<usize> = Vec::new();
    let mut next = 0usize;
    while present.len() < fill && next + 1 < n {
        for _ in 0..2 {
            ev.push(CmaEvent::Join(next));
            present.push(next);
            next += 1;
        }
        let p = rng.random_range(0..present.len());
        ev.push(CmaEvent::Leave(present.swap_remove(p)));
    }
    let joins = n - next;
    let mut kinds: Vec<bool> = (0..joins)
        .map(|_| true)
        .chain((0..joins).map(|_| false))
        .collect();
    kinds.shuffle(rng);
    let mut pending = kinds.into_iter().collect::<std::collections::VecDeque<_>>();
    while let Some(join) = pending.pop_front() {
        let can_join = next < n && present.len() < total;
        let can_leave = !present.is_empty();
        if can_join && (join || !can_leave) {
            ev.push(CmaEvent::Join(next));
            present.push(next);
            next += 1;
        } else if can_leave {
            let p = rng.random_range(0..present.len());
            ev.push(CmaEvent::Leave(present.swap_remove(p)));
        }
    }
    ev
}

/// Picks `k` distinct mirror nodes and `n` client nodes (distinct from the
/// mirrors, and from each other when the pool allows; else with
/// replacement). Returns (mirrors, clients, with_replacement).
fn pick_nodes(
    nodes: usize,
    k: usize,
    n: usize,
    rng: &mut ChaCha8Rng,
) -> Result<(Vec<usize>, Vec<usize>, bool)> {
    if k >= nodes {
        return Err(Error::Usage(format!(
            "{k} mirrors need more than {nodes} nodes"
        )));
    }
    let mut all: Vec<usize> = (0..nodes).collect();
    all.shuffle(rng);
    let mirrors = all[..k].to_vec();
    let pool = &all[k..];
    if n <= pool.len() {
        return Ok((mirrors, pool[..n].to_vec(), false));
    }
    let clients = (0..n)
        .map(|_| pool[rng.random_range(0..pool.len())])
        .collect();
    Ok((mirrors, clients, true))
}

/// Most client rows `gen cma` writes.
pub const GEN_CMA_MAX_CLIENTS: usize = 2_000_000;
/// Most delay cells (`clients × mirrors`) `gen cma` writes: 800 MB of `f64`.
pub const GEN_CMA_MAX_CELLS: usize = 100_000_000;
/// Largest `--slack` (static total capacity `ceil(n·(1 + slack))`).
pub const GEN_CMA_MAX_SLACK: f64 = 1000.0;

/// Checks `gen cma`'s sizes and slack (usage errors naming the flag): 1 to
/// [`MAX_MIRRORS`] mirrors, 1 to [`GEN_CMA_MAX_CLIENTS`] clients, at most
/// [`GEN_CMA_MAX_CELLS`] delays, `0 <= slack <= GEN_CMA_MAX_SLACK`.
pub fn check_gen_cma_params(mirrors: usize, clients: usize, slack: f64) -> Result<()> {
    if mirrors == 0 || mirrors > MAX_MIRRORS {
        return Err(Error::Usage(format!(
            "--mirrors {mirrors}: give 1 to {MAX_MIRRORS} mirrors"
        )));
    }
    if clients == 0 || clients > GEN_CMA_MAX_CLIENTS {
        return Err(Error::Usage(format!(
            "--clients {clients}: give 1 to {GEN_CMA_MAX_CLIENTS} clients"
        )));
    }
    if clients.saturating_mul(mirrors) > GEN_CMA_MAX_CELLS {
        return Err(Error::Usage(format!(
            "--clients {clients} × --mirrors {mirrors}: more than {GEN_CMA_MAX_CELLS} delays"
        )));
    }
    if !(slack.is_finite() && (0.0..=GEN_CMA_MAX_SLACK).contains(&slack)) {
        return Err(Error::Usage(format!(
            "--slack {slack}: must be a number from 0 to {GEN_CMA_MAX_SLACK}"
        )));
    }
    Ok(())
}

/// Generates an instance.
pub fn generate_cma(cfg: &GenCmaConfig) -> Result<CmaInstance> {
    let n = cfg.clients.unwrap_or(match cfg.scenario {
        Scenario::Dynamic => 1300,
        _ => 1000,
    });
    check_gen_cma_params(cfg.mirrors, n, cfg.slack)?;
    let mut rng = ChaCha8Rng::seed_from_u64(cfg.seed);
    let k = cfg.mirrors;
    let (delay, origin) = match &cfg.from_matrix {
        Some(path) => matrix_delays(path, n, k, &mut rng)?,
        None => topology_delays(cfg, n, k, &mut rng)?,
    };
    let capacity = match &cfg.capacity {
        Some(c) if c.len() == k => c.clone(),
        Some(c) => {
            return Err(Error::Usage(format!(
                "{} capacities given for {k} mirrors",
                c.len()
            )))
        }
        None => scenario_capacity(cfg, n, &mut rng),
    };
    let total = capacity.iter().sum();
    let name = format!("cma-{}-{k}m-{n}c-s{}", cfg.scenario.name(), cfg.seed);
    let mut inst = CmaInstance::new(name, capacity, delay)?;
    inst.events = scenario_events(cfg.scenario, n, total, &mut rng);
    inst.source = Some(format!(
        "serverpick gen cma --scenario {} --mirrors {k} --clients {n} --seed {}: {origin} (seed 002 §4)",
        cfg.scenario.name(),
        cfg.seed
    ));
    Ok(inst)
}

fn replacement_note(rep: bool) -> &'static str {
    if rep {
        ", clients drawn with replacement"
    } else {
        ""
    }
}

/// Client-to-mirror delays (row-major) between nodes of a measured matrix,
/// and the instance's provenance.
fn matrix_delays(
    path: &Path,
    n: usize,
    k: usize,
    rng: &mut ChaCha8Rng,
) -> Result<(Vec<f64>, String)> {
    let m = read_measured_matrix(path)?;
    check_non_negative(&m, path)?;
    let (mirrors, clients, rep) = pick_nodes(m.len(), k, n, rng)?;
    let delay = clients
        .iter()
        .flat_map(|&c| {
            let row = &m[c];
            mirrors.iter().map(move |&j| row[j])
        })
        .collect();
    let origin = format!(
        "nodes of the measured matrix {} ({} nodes{})",
        path.display(),
        m.len(),
        replacement_note(rep)
    );
    Ok((delay, origin))
}

/// Client-to-mirror shortest-path delays (row-major) on the BRITE topology
/// of `cfg`, and the instance's provenance.
fn topology_delays(
    cfg: &GenCmaConfig,
    n: usize,
    k: usize,
    rng: &mut ChaCha8Rng,
) -> Result<(Vec<f64>, String)> {
    let b = &cfg.brite;
    let per_as = b.routers_per_as.max(1);
    let brite = BriteConfig {
        ases: b.ases.max((n + k).div_ceil(per_as)),
        ..b.clone()
    };
    let topo = match cfg.topology_seed {
        Some(s) => brite_top_down(&brite, &mut ChaCha8Rng::seed_from_u64(s)),
        None => brite_top_down(&brite, rng),
    };
    let (mirrors, clients, rep) = pick_nodes(topo.nodes(), k, n, rng)?;
    let cols: Vec<Vec<f64>> = mirrors
        .par_iter()
        .map(|&j| topo.distances_from(j))
        .collect();
    let delay = clients
        .iter()
        .flat_map(|&c| cols.iter().map(move |col| col[c]))
        .collect();
    let topo_seed = cfg
        .topology_seed
        .map_or(String::new(), |s| format!(", topology seed {s}"));
    let origin = format!(
        "BRITE top-down topology{topo_seed}: {} Barabasi-Albert ASes (m={}) x {per_as} Waxman routers \
         (m={}, alpha={}, beta={}), edgeConn={}, {} links, link delays U[{},{}] ms{}",
        brite.ases,
        brite.as_m,
        brite.router_m,
        brite.alpha,
        brite.beta,
        brite.edge_conn.name(),
        topo.links(),
        brite.link_delay.0,
        brite.link_delay.1,
        replacement_note(rep)
    );
    Ok((delay, origin))
}

/// Delays are used as they are, so a measured matrix must not hold negative
/// values (some datasets mark missing pairs that way).
fn check_non_negative(m: &[Vec<f64>], path: &Path) -> Result<()> {
    for (i, row) in m.iter().enumerate() {
        if let Some(j) = row.iter().position(|&v| v < 0.0) {
            return Err(Error::input(
                path.display().to_string(),
                format!("line {} column {}", i + 1, j + 1),
                format!("{} is not a latency >= 0", row[j]),
            ));
        }
    }
    Ok(())
}
