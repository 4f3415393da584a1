//! `gen cma --scenario sites`: every site is a player and a candidate mirror
//! (the p-median / facility-location shape of OR-Library's `pmed` set).
//!
//! A random connected graph on `N` sites: a random spanning tree (site `i`
//! joins a uniformly drawn earlier site) plus random extra edges up to
//! `edges_per_site · N` edges in all (no loops, no duplicates), integer edge
//! costs uniform in `1..=max_edge_cost`; `d(i, j)` is the shortest-path
//! cost (Dijkstra from every site), so delays are integers and `d(i, i) = 0`.
//! Capacities are `N` (non-binding) unless given; optional integer opening
//! costs are uniform in `0..=max_open_cost`. Seeded (ChaCha8).

use crate::error::{Error, Result};
use crate::problems::cma::model::CmaInstance;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashSet};

/// Most sites (`N × N` delays).
pub const SITES_MAX: usize = 10_000;

/// Settings of the sites scenario.
#[derive(Debug, Clone)]
pub struct SitesConfig {
    /// Number of sites `N` (players = candidates).
    pub sites: usize,
    /// Edges per site (the graph has `max(N − 1, edges_per_site · N)` edges
    /// when that many distinct pairs exist).
    pub edges_per_site: f64,
    /// Edge costs are uniform in `1..=max_edge_cost`.
    pub max_edge_cost: u32,
    /// Capacities: one value for every site, or one per site; `None` = `N`
    /// (never binding).
    pub capacity: Option<Vec<usize>>,
    /// Opening costs uniform in `0..=max_open_cost` (integers); `None` = no
    /// opening costs.
    pub max_open_cost: Option<u32>,
    /// Seed.
    pub seed: u64,
}

impl Default for SitesConfig {
    fn default() -> Self {
        SitesConfig {
            sites: 100,
            edges_per_site: 2.0,
            max_edge_cost: 100,
            capacity: None,
            max_open_cost: None,
            seed: 1,
        }
    }
}

/// Generates a sites instance (errors name the flag).
pub fn generate_sites(cfg: &SitesConfig) -> Result<CmaInstance> {
    let n = cfg.sites;
    if !(1..=SITES_MAX).contains(&n) {
        return Err(Error::Usage(format!(
            "--sites {n}: give 1 to {SITES_MAX} sites"
        )));
    }
    if cfg.max_edge_cost == 0 {
        return Err(Error::Usage("the largest edge cost must be >= 1".into()));
    }
    let capacity = match &cfg.capacity {
        None => vec![n; n],
        Some(c) if c.len() == 1 => vec![c[0]; n],
        Some(c) if c.len() == n => c.clone(),
        Some(c) => {
            return Err(Error::Usage(format!(
                "--capacity: {} values for {n} sites (give one, or one per site)",
                c.len()
            )))
        }
    };
    let mut rng = ChaCha8Rng::seed_from_u64(cfg.seed);
    let adj = random_graph(n, cfg, &mut rng);
    let rows: Vec<Vec<f64>> = (0..n).into_par_iter().map(|s| dijkstra(&adj, s)).collect();
    let delay: Vec<f64> = rows.into_iter().flatten().collect();
    let name = format!("cma-sites-{n}-s{}", cfg.seed);
    let mut inst = CmaInstance::new(name, capacity, delay)?;
    if let Some(f) = cfg.max_open_cost {
        inst.open_cost = Some((0..n).map(|_| rng.random_range(0..=f) as f64).collect());
    }
    inst.source = Some(format!(
        "serverpick gen cma --scenario sites --sites {n} --seed {}: random connected graph, \
         {} edges per site, integer edge costs U[1,{}], shortest-path delays; every site a \
         player and a candidate",
        cfg.seed, cfg.edges_per_site, cfg.max_edge_cost
    ));
    Ok(inst)
}

/// Adjacency lists `(neighbour, cost)` of a random connected graph.
fn random_graph(n: usize, cfg: &SitesConfig, rng: &mut ChaCha8Rng) -> Vec<Vec<(usize, u32)>> {
    let mut adj: Vec<Vec<(usize, u32)>> = vec![Vec::new(); n];
    let mut seen: HashSet<(usize, usize)> = HashSet::new();
    let mut add = |a: usize, b: usize, rng: &mut ChaCha8Rng, adj: &mut Vec<Vec<(usize, u32)>>| {
        let key = (a.min(b), a.max(b));
        if a == b || !seen.insert(key) {
            return false;
        }
        let w = rng.random_range(1..=cfg.max_edge_cost);
        adj[a].push((b, w));
        adj[b].push((a, w));
        true
    };
    for i in 1..n {
        let j = rng.random_range(0..i);
        add(i, j, rng, &mut adj);
    }
    let pairs = n * (n - 1) / 2;
    let want = ((cfg.edges_per_site.max(0.0) * n as f64) as usize).min(pairs);
    let mut edges = n - 1;
    while edges < want {
        let (a, b) = (rng.random_range(0..n), rng.random_range(0..n));
        if add(a, b, rng, &mut adj) {
            edges += 1;
        }
    }
    adj
}

/// Shortest-path costs from `s` (the graph is connected).
fn dijkstra(adj: &[Vec<(usize, u32)>], s: usize) -> Vec<f64> {
    let mut dist = vec![u64::MAX; adj.len()];
    let mut heap = BinaryHeap::new();
    dist[s] = 0;
    heap.push(Reverse((0u64, s)));
    while let Some(Reverse((d, u))) = heap.pop() {
        if d > dist[u] {
            continue;
        }
        for &(v, w) in &adj[u] {
            let nd = d + u64::from(w);
            if nd < dist[v] {
                dist[v] = nd;
                heap.push(Reverse((nd, v)));
            }
        }
    }
    dist.into_iter().map(|d| d as f64).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sites_are_seeded_symmetric_and_integral() {
        let cfg = SitesConfig {
            sites: 30,
            max_open_cost: Some(50),
            ..SitesConfig::default()
        };
        let a = generate_sites(&cfg).expect("generates");
        let b = generate_sites(&cfg).expect("generates");
        assert_eq!(a.delay_matrix(), b.delay_matrix());
        assert_eq!(a.open_cost, b.open_cost);
        for i in 0..30 {
            assert_eq!(a.delay(i, i), 0.0);
            for j in 0..30 {
                assert_eq!(a.delay(i, j), a.delay(j, i));
                assert_eq!(a.delay(i, j).fract(), 0.0);
            }
        }
        assert!(a.capacity.iter().all(|&c| c == 30));
    }

    #[test]
    fn bad_sizes_are_refused() {
        let zero = SitesConfig {
            sites: 0,
            ..SitesConfig::default()
        };
        assert!(generate_sites(&zero).is_err());
        let caps = SitesConfig {
            sites: 5,
            capacity: Some(vec![1, 2]),
            ..SitesConfig::default()
        };
        assert!(generate_sites(&caps).is_err());
    }
}
