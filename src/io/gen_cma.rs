//! CMA instance generator: the BRITE-like topology of seed 002 §4
//! (problems.md §3) and the paper's join, leave and dynamic scenarios, static
//! instances of any size, and instances drawn from a measured latency matrix.
//!
//! Topology ([`brite_like`]): `A` autonomous systems joined by Barabási-Albert
//! preferential attachment (each new AS links to `m = 2` existing ones,
//! chosen with probability proportional to degree; an AS link joins a random
//! router of each), `R` routers per AS grown by Waxman (BRITE's incremental
//! model: each new router links to `m = 2` earlier routers of its AS chosen
//! with probability `∝ α·exp(−dist/(β·L))`, `α = 0.15`, `β = 0.2`, routers
//! uniform on a 1000 × 1000 plane), every link delay uniform in `[0, 25]` ms.
//! Delays are shortest-path lengths (Dijkstra from every mirror; symmetric
//! links make that the all-pairs value). The paper's 5000 nodes are `A = 50`,
//! `R = 100`; bigger instances scale `A` so that every client is its own node.
//!
//! Scenarios (seed 002 §4): `join` (1000 clients join; 5 mirrors with
//! capacities 100..300), `leave` (the same joins, then every client leaves
//! in join order, FIFO), `dynamic` (1300 clients, capacities 50..150: fill to
//! 400 by join-join-leave-a-random-client, then 500 joins and 500 leaves in
//! random order). With 10 or 20 mirrors the same total capacity is split
//! evenly. `static`: `n` clients, no events, total capacity `ceil(n·(1+slack))`
//! split in random proportions (weights uniform in [1, 3]).
//! Everything is seeded (ChaCha8).

use crate::error::{Error, Result};
use crate::io::matrix::read_measured_matrix;
use crate::model::cma::{CmaEvent, CmaInstance};
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use std::cmp::Ordering;
use std::collections::BinaryHeap;
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
                "unknown CMA scenario '{other}' (join, leave, dynamic, static)"
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

/// The seed of the paper set's instance for (`scenario`, `mirrors`) under
/// base seed `base` (`gen cma --paper-set` and `repro cma` use the same one,
/// so both write the same instances): `base·100 + 10·s + k` with
/// `s` = 0 (join), 1 (leave), 2 (dynamic), 3 (static).
pub fn paper_set_seed(base: u64, scenario: Scenario, mirrors: usize) -> u64 {
    let s = match scenario {
        Scenario::Join => 0u64,
        Scenario::Leave => 1,
        Scenario::Dynamic => 2,
        Scenario::Static => 3,
    };
    base.wrapping_mul(100)
        .wrapping_add(s * 10)
        .wrapping_add(mirrors as u64)
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
    /// Routers per AS of the topology.
    pub nodes_per_as: usize,
    /// Minimum topology size (the paper's 5000).
    pub min_nodes: usize,
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
            nodes_per_as: 100,
            min_nodes: 5000,
            from_matrix: None,
            seed: 1,
        }
    }
}

/// An undirected weighted graph (adjacency lists).
#[derive(Debug, Clone)]
pub struct Topology {
    adj: Vec<Vec<(u32, f64)>>,
}

impl Topology {
    /// Number of nodes.
    pub fn nodes(&self) -> usize {
        self.adj.len()
    }

    /// Number of undirected links.
    pub fn links(&self) -> usize {
        self.adj.iter().map(Vec::len).sum::<usize>() / 2
    }

    fn link(&mut self, u: usize, v: usize, w: f64) {
        self.adj[u].push((v as u32, w));
        self.adj[v].push((u as u32, w));
    }

    /// Shortest-path delays from `src` to every node (Dijkstra, binary heap).
    pub fn distances_from(&self, src: usize) -> Vec<f64> {
        let mut dist = vec![f64::INFINITY; self.adj.len()];
        let mut heap = BinaryHeap::new();
        dist[src] = 0.0;
        heap.push(Item(0.0, src as u32));
        while let Some(Item(d, u)) = heap.pop() {
            if d > dist[u as usize] {
                continue;
            }
            for &(v, w) in &self.adj[u as usize] {
                let nd = d + w;
                if nd < dist[v as usize] {
                    dist[v as usize] = nd;
                    heap.push(Item(nd, v));
                }
            }
        }
        dist
    }
}

#[derive(PartialEq)]
struct Item(f64, u32);
impl Eq for Item {}
impl Ord for Item {
    fn cmp(&self, o: &Self) -> Ordering {
        o.0.total_cmp(&self.0).then(o.1.cmp(&self.1))
    }
}
impl PartialOrd for Item {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}

/// The BRITE-like two-level topology: `ases` Barabási-Albert ASes of
/// `per_as` Waxman routers each, link delays uniform in `[0, 25]` ms.
/// Connected by construction. `O(ases · per_as²)` time.
pub fn brite_like(ases: usize, per_as: usize, rng: &mut ChaCha8Rng) -> Topology {
    let (ases, per_as) = (ases.max(1), per_as.max(1));
    let mut topo = Topology {
        adj: vec![Vec::new(); ases * per_as],
    };
    let delay = |rng: &mut ChaCha8Rng| rng.random_range(0.0..=25.0);
    let (alpha, beta, side) = (0.15, 0.2, 1000.0f64);
    let scale = beta * side * std::f64::consts::SQRT_2;
    for a in 0..ases {
        let base = a * per_as;
        let pts: Vec<(f64, f64)> = (0..per_as)
            .map(|_| (rng.random_range(0.0..side), rng.random_range(0.0..side)))
            .collect();
        for t in 1..per_as {
            let mut w: Vec<f64> = (0..t)
                .map(|s| {
                    let d = ((pts[t].0 - pts[s].0).powi(2) + (pts[t].1 - pts[s].1).powi(2)).sqrt();
                    alpha * (-d / scale).exp()
                })
                .collect();
            for _ in 0..2.min(t) {
                let s = weighted_pick(&w, rng);
                w[s] = 0.0;
                let d = delay(rng);
                topo.link(base + t, base + s, d);
            }
        }
    }
    // Barabási-Albert over ASes: endpoint list = degree-proportional sampling.
    let mut ends: Vec<usize> = Vec::new();
    for a in 1..ases {
        let mut chosen: Vec<usize> = Vec::new();
        let mut tries = 0;
        while chosen.len() < 2.min(a) {
            tries += 1;
            let b = if ends.is_empty() || tries > 100 {
                rng.random_range(0..a)
            } else {
                ends[rng.random_range(0..ends.len())]
            };
            if !chosen.contains(&b) {
                chosen.push(b);
            }
        }
        for b in chosen {
            let u = a * per_as + rng.random_range(0..per_as);
            let v = b * per_as + rng.random_range(0..per_as);
            let d = delay(rng);
            topo.link(u, v, d);
            ends.push(a);
            ends.push(b);
        }
    }
    topo
}

fn weighted_pick(w: &[f64], rng: &mut ChaCha8Rng) -> usize {
    let total: f64 = w.iter().sum();
    if total <= 0.0 {
        return rng.random_range(0..w.len());
    }
    let mut x = rng.random_range(0.0..total);
    for (i, &wi) in w.iter().enumerate() {
        if x < wi {
            return i;
        }
        x -= wi;
    }
    w.len() - 1
}

/// Default capacities of a scenario: the paper's for 5 mirrors, else the
/// paper's total split evenly (remainder to the first mirrors).
fn scenario_capacity(cfg: &GenCmaConfig, n: usize, rng: &mut ChaCha8Rng) -> Vec<usize> {
    let k = cfg.mirrors;
    let (paper, total): (&[usize], usize) = match cfg.scenario {
        Scenario::Join | Scenario::Leave => (&[100, 150, 200, 250, 300], n),
        Scenario::Dynamic => (&[50, 75, 100, 125, 150], 500 * n / 1300),
        Scenario::Static => {
            let total = (n as f64 * (1.0 + cfg.slack)).ceil() as usize;
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

/// Generates an instance.
pub fn generate_cma(cfg: &GenCmaConfig) -> Result<CmaInstance> {
    if cfg.mirrors == 0 {
        return Err(Error::Usage("at least one mirror is needed".into()));
    }
    let mut rng = ChaCha8Rng::seed_from_u64(cfg.seed);
    let n = cfg.clients.unwrap_or(match cfg.scenario {
        Scenario::Dynamic => 1300,
        _ => 1000,
    });
    let k = cfg.mirrors;
    let (delay, origin) = match &cfg.from_matrix {
        Some(path) => {
            let m = read_measured_matrix(path)?;
            check_non_negative(&m, path)?;
            let (mirrors, clients, rep) = pick_nodes(m.len(), k, n, &mut rng)?;
            let delay: Vec<f64> = clients
                .iter()
                .flat_map(|&c| mirrors.iter().map(move |&j| (c, j)))
                .map(|(c, j)| m[c][j])
                .collect();
            let how = if rep {
                ", clients drawn with replacement"
            } else {
                ""
            };
            (
                delay,
                format!(
                    "nodes of the measured matrix {} ({} nodes{how})",
                    path.display(),
                    m.len()
                ),
            )
        }
        None => {
            let per_as = cfg.nodes_per_as.max(1);
            let want = cfg.min_nodes.max(n + k);
            let ases = want.div_ceil(per_as);
            let topo = brite_like(ases, per_as, &mut rng);
            let (mirrors, clients, rep) = pick_nodes(topo.nodes(), k, n, &mut rng)?;
            let cols: Vec<Vec<f64>> = mirrors
                .par_iter()
                .map(|&j| topo.distances_from(j))
                .collect();
            let delay: Vec<f64> = clients
                .iter()
                .flat_map(|&c| cols.iter().map(move |col| col[c]))
                .collect();
            let how = if rep {
                ", clients drawn with replacement"
            } else {
                ""
            };
            (delay, format!("BRITE-like topology: {ases} Barabasi-Albert ASes x {per_as} Waxman routers, {} links, delays U[0,25] ms{how}", topo.links()))
        }
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
