//! SPD instance generators.
//!
//! [`generate_paper_spd`] follows seed 001 §IV: random networks of 20/25/30
//! servers and 30–120 clients, server links reduced by 30% (the
//! well-provisioned network), all latencies rescaled so that Γ = 500 ms, and
//! μ = f·Γ. The paper does not say how its random networks were drawn; here
//! servers and clients are uniform points in a 1000 × 1000 square; a server
//! link's latency is 0.7 × the Euclidean distance, and the server network is
//! the Euclidean minimum spanning tree plus Waxman links (probability
//! `α·exp(−d / (β·L))`, α = 0.6, β = 0.3, L the largest distance) — connected
//! by construction. Access paths cross the ordinary Internet: a client's
//! last-mile latency (uniform in [0, 50]) plus the distance stretched by a
//! per-pair factor uniform in [1, 2]. Without that stretch one server reaches
//! everyone from f ≈ 1.2 on; with it, servers used fall gradually as f grows,
//! as in the paper's Figs. 7–9 (25 servers, 120 clients, 10 seeds, SPDCS-H:
//! mean 7.7, 5.7, 4.9, 3.5, 2.4, 2.1 hosts for f = 1.0 … 1.5). Seeded
//! (ChaCha8), so a (params, seed) pair always gives the same instance.
//!
//! [`generate_from_matrix`] picks distinct server and client nodes from a
//! measured RTT matrix (e.g. the shipped `data/latency/planetlab490-sample`): the
//! servers' network is the server–server submatrix scaled by 0.7 (a complete
//! overlay, symmetrised by the mean of both directions), access is the
//! client–server submatrix; missing or non-positive off-diagonal values are
//! "no link"/"no access".

use crate::error::{Error, Result};
use crate::net::network::ServerNetwork;

/// Most servers `gen spd` draws: the Waxman network has `O(n²)` links and the
/// network runs a Dijkstra per server (1,000 take about 6 s; 2,000 minutes).
pub const GEN_SPD_MAX_SERVERS: usize = 1_000;
/// Most clients `gen spd` draws (100,000 × 25 servers: about 1 s, 20 MB).
pub const GEN_SPD_MAX_CLIENTS: usize = 100_000;

/// Checks generator sizes and the bound factor: at least one server and one
/// client, at most [`GEN_SPD_MAX_SERVERS`] and [`GEN_SPD_MAX_CLIENTS`], and a
/// finite factor > 0. Errors are usage errors naming the flag.
pub fn check_gen_spd_params(servers: usize, clients: usize, bound_factor: f64) -> Result<()> {
    if servers == 0 || servers > GEN_SPD_MAX_SERVERS {
        return Err(Error::Usage(format!(
            "--servers {servers}: give 1 to {GEN_SPD_MAX_SERVERS} servers"
        )));
    }
    if clients == 0 || clients > GEN_SPD_MAX_CLIENTS {
        return Err(Error::Usage(format!(
            "--clients {clients}: give 1 to {GEN_SPD_MAX_CLIENTS} clients"
        )));
    }
    if !(bound_factor.is_finite() && bound_factor > 0.0) {
        return Err(Error::Usage(format!(
            "--factor {bound_factor}: the bound factor must be a finite number > 0"
        )));
    }
    Ok(())
}
use crate::problems::spd::model::{BoundSpec, CommModel, SpdInstance};
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Parameters of the paper's random experiment.
#[derive(Debug, Clone)]
pub struct PaperSpdParams {
    /// Number of servers (paper: 20, 25, 30).
    pub servers: usize,
    /// Number of clients (paper: 30, 50, 80, 100, 120).
    pub clients: usize,
    /// CS or P2P.
    pub model: CommModel,
    /// f in μ = f·Γ (paper: 1.0 … 1.5).
    pub bound_factor: f64,
    /// Γ after rescaling, ms (paper: 500).
    pub gamma_ms: f64,
    /// Factor on server-link latencies (paper: 0.7, "reduced by 30%").
    pub link_scale: f64,
}

impl Default for PaperSpdParams {
    fn default() -> Self {
        PaperSpdParams {
            servers: 25,
            clients: 120,
            model: CommModel::Cs,
            bound_factor: 1.3,
            gamma_ms: 500.0,
            link_scale: 0.7,
        }
    }
}

/// Waxman link probability `α·exp(−d / (β·L))`.
const WAXMAN_ALPHA: f64 = 0.6;
/// See [`WAXMAN_ALPHA`].
const WAXMAN_BETA: f64 = 0.3;
/// Largest last-mile latency of a client, in square units (before rescaling).
const LAST_MILE: f64 = 50.0;
/// Internet paths are longer than the straight line by a factor in [1, 1 + STRETCH].
const STRETCH: f64 = 1.0;

fn dist(a: (f64, f64), b: (f64, f64)) -> f64 {
    ((a.0 - b.0).powi(2) + (a.1 - b.1).powi(2)).sqrt()
}

/// Euclidean MST (Prim, `O(n²)`) plus Waxman links over `points`.
fn waxman_links(points: &[(f64, f64)], rng: &mut ChaCha8Rng) -> Vec<(usize, usize, f64)> {
    let n = points.len();
    let mut links = Vec::new();
    let mut in_tree = vec![false; n];
    let mut best = vec![(f64::INFINITY, 0usize); n];
    if n > 0 {
        in_tree[0] = true;
        for v in 1..n {
            best[v] = (dist(points[0], points[v]), 0);
        }
    }
    for _ in 1..n {
        let Some(v) = (0..n)
            .filter(|&v| !in_tree[v])
            .min_by(|&a, &b| best[a].0.total_cmp(&best[b].0))
        else {
            break;
        };
        in_tree[v] = true;
        links.push((best[v].1, v, best[v].0));
        for u in 0..n {
            let d = dist(points[v], points[u]);
            if !in_tree[u] && d < best[u].0 {
                best[u] = (d, v);
            }
        }
    }
    let max_d = (0..n)
        .flat_map(|u| (0..n).map(move |v| (u, v)))
        .map(|(u, v)| dist(points[u], points[v]))
        .fold(1e-9, f64::max);
    // The spanning tree's links, as (low, high) pairs: the Waxman pass visits
    // every pair once, so only a tree link can already be present (a set
    // instead of a scan of `links` keeps this O(n²), same draws).
    let tree: std::collections::HashSet<(usize, usize)> = links
        .iter()
        .map(|&(a, b, _)| (a.min(b), a.max(b)))
        .collect();
    for u in 0..n {
        for v in u + 1..n {
            let d = dist(points[u], points[v]);
            let p = WAXMAN_ALPHA * (-d / (WAXMAN_BETA * max_d)).exp();
            let already = tree.contains(&(u, v));
            if !already && rng.random::<f64>() < p {
                links.push((u, v, d));
            }
        }
    }
    links
}

/// A paper-size instance (25 servers, 120 clients, seed 001 §IV's figures)
/// with bound factor `f`.
pub fn paper_size_spd(model: CommModel, f: f64, seed: u64) -> Result<SpdInstance> {
    let p = PaperSpdParams {
        model,
        bound_factor: f,
        ..PaperSpdParams::default()
    };
    generate_paper_spd(&p, seed)
}

/// One random instance of seed 001's experiment (see the module docs).
pub fn generate_paper_spd(p: &PaperSpdParams, seed: u64) -> Result<SpdInstance> {
    check_gen_spd_params(p.servers, p.clients, p.bound_factor)?;
    if p.servers == 0 || p.clients == 0 {
        return Err(Error::Usage(
            "need at least one server and one client".into(),
        ));
    }
    if !(p.bound_factor.is_finite() && p.bound_factor > 0.0) {
        return Err(Error::Usage(format!(
            "bound factor {} is not positive",
            p.bound_factor
        )));
    }
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let point = |rng: &mut ChaCha8Rng| (rng.random::<f64>() * 1000.0, rng.random::<f64>() * 1000.0);
    let servers: Vec<(f64, f64)> = (0..p.servers).map(|_| point(&mut rng)).collect();
    let clients: Vec<(f64, f64)> = (0..p.clients).map(|_| point(&mut rng)).collect();
    let links = waxman_links(&servers, &mut rng);
    let raw_links: Vec<(usize, usize, f64)> = links
        .iter()
        .map(|&(u, v, d)| (u, v, d * p.link_scale))
        .collect();
    let access: Vec<Vec<f64>> = clients
        .iter()
        .map(|&c| {
            let last_mile = rng.random::<f64>() * LAST_MILE;
            servers
                .iter()
                .map(|&s| last_mile + dist(c, s) * (1.0 + rng.random::<f64>() * STRETCH))
                .collect()
        })
        .collect();
    // Rescale so that Γ = gamma_ms (Γ scales linearly with all latencies).
    let probe = build(p, &raw_links, &access, 1.0, BoundSpec::Factor(1.0), seed)?;
    let scale = if probe.gamma > 0.0 {
        p.gamma_ms / probe.gamma
    } else {
        1.0
    };
    build(
        p,
        &raw_links,
        &access,
        scale,
        BoundSpec::Factor(p.bound_factor),
        seed,
    )
}

fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

fn build(
    p: &PaperSpdParams,
    links: &[(usize, usize, f64)],
    access: &[Vec<f64>],
    scale: f64,
    bound: BoundSpec,
    seed: u64,
) -> Result<SpdInstance> {
    let links: Vec<(usize, usize, f64)> = links
        .iter()
        .map(|&(u, v, d)| (u, v, round3(d * scale)))
        .collect();
    let access: Vec<Vec<Option<f64>>> = access
        .iter()
        .map(|row| row.iter().map(|&a| Some(round3(a * scale))).collect())
        .collect();
    let net = ServerNetwork::new(p.servers, &links);
    let name = format!(
        "paper-{}-{}s-{}c-f{}-s{seed}",
        p.model, p.servers, p.clients, p.bound_factor
    );
    SpdInstance::new(name, p.model, net, &access, bound)
}

/// Parameters for [`generate_from_matrix`].
#[derive(Debug, Clone)]
pub struct MatrixSpdParams {
    /// Number of server nodes to pick.
    pub servers: usize,
    /// Number of client nodes to pick.
    pub clients: usize,
    /// CS or P2P.
    pub model: CommModel,
    /// f in μ = f·Γ.
    pub bound_factor: f64,
    /// Factor on the server–server submatrix (0.7 as seed 001 does).
    pub link_scale: f64,
    /// Factor on every value (e.g. 1000 for a matrix in seconds).
    pub unit_scale: f64,
}

/// Builds an instance from a measured matrix (see the module docs).
pub fn generate_from_matrix(
    matrix: &[Vec<f64>],
    p: &MatrixSpdParams,
    seed: u64,
    label: &str,
) -> Result<SpdInstance> {
    check_matrix_params(matrix.len(), p)?;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut nodes: Vec<usize> = (0..matrix.len()).collect();
    nodes.shuffle(&mut rng);
    let (srv, cli) = (
        &nodes[..p.servers],
        &nodes[p.servers..p.servers + p.clients],
    );
    let links = server_links(matrix, srv, p);
    let access = client_access(matrix, srv, cli, p.unit_scale)?;
    let net = ServerNetwork::new(p.servers, &links);
    let name = format!(
        "{label}-{}-{}s-{}c-f{}-s{seed}",
        p.model, p.servers, p.clients, p.bound_factor
    );
    let mut inst = SpdInstance::new(
        name,
        p.model,
        net,
        &access,
        BoundSpec::Factor(p.bound_factor),
    )?;
    inst.server_names = Some(srv.iter().map(|i| format!("node{i}")).collect());
    inst.client_names = Some(cli.iter().map(|i| format!("node{i}")).collect());
    Ok(inst)
}

/// The grid parameters, `--unit-scale`, and that the matrix's `total` nodes
/// are enough for the servers and clients.
fn check_matrix_params(total: usize, p: &MatrixSpdParams) -> Result<()> {
    check_gen_spd_params(p.servers, p.clients, p.bound_factor)?;
    if !(p.unit_scale.is_finite() && p.unit_scale > 0.0) {
        return Err(Error::Usage(format!(
            "--unit-scale {}: must be a finite number > 0",
            p.unit_scale
        )));
    }
    if p.servers == 0 || p.clients == 0 || p.servers + p.clients > total {
        return Err(Error::Usage(format!(
            "cannot pick {} servers and {} clients from a matrix of {total} nodes",
            p.servers, p.clients
        )));
    }
    Ok(())
}

/// The measured latency from node `a` to node `b` in ms, `None` when missing
/// (not finite or not positive).
fn measured(matrix: &[Vec<f64>], unit_scale: f64, a: usize, b: usize) -> Option<f64> {
    let v = matrix[a][b];
    (v.is_finite() && v > 0.0).then_some(v * unit_scale)
}

/// A link between every pair of picked servers with a measurement in either
/// direction (the mean of both when both exist), scaled by `link_scale`.
fn server_links(
    matrix: &[Vec<f64>],
    srv: &[usize],
    p: &MatrixSpdParams,
) -> Vec<(usize, usize, f64)> {
    let value = |a: usize, b: usize| measured(matrix, p.unit_scale, a, b);
    let mut links = Vec::new();
    for (i, &a) in srv.iter().enumerate() {
        for (j, &b) in srv.iter().enumerate().skip(i + 1) {
            let w = match (value(a, b), value(b, a)) {
                (Some(x), Some(y)) => Some((x + y) / 2.0),
                (x, y) => x.or(y),
            };
            if let Some(w) = w {
                links.push((i, j, round3(w * p.link_scale)));
            }
        }
    }
    links
}

/// Client-to-server access latencies; an error when a picked client reaches
/// no picked server.
fn client_access(
    matrix: &[Vec<f64>],
    srv: &[usize],
    cli: &[usize],
    unit_scale: f64,
) -> Result<Vec<Vec<Option<f64>>>> {
    let access: Vec<Vec<Option<f64>>> = cli
        .iter()
        .map(|&c| {
            srv.iter()
                .map(|&s| measured(matrix, unit_scale, c, s).map(round3))
                .collect()
        })
        .collect();
    if let Some(c) = access
        .iter()
        .position(|row| row.iter().all(Option::is_none))
    {
        return Err(Error::Usage(format!(
            "picked client node {} has no measured latency to any picked server; try another seed",
            cli[c]
        )));
    }
    Ok(access)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paper_instances_are_seeded_and_rescaled() {
        let p = PaperSpdParams {
            servers: 10,
            clients: 20,
            ..Default::default()
        };
        let a = generate_paper_spd(&p, 3).unwrap();
        let b = generate_paper_spd(&p, 3).unwrap();
        let c = generate_paper_spd(&p, 4).unwrap();
        assert!((a.gamma - 500.0).abs() < 1.0, "Γ = {}", a.gamma);
        assert!((a.bound - 1.3 * a.gamma).abs() < 1e-9);
        assert_eq!(a.access_row(5), b.access_row(5));
        assert_ne!(a.access_row(5), c.access_row(5));
        // connected: every pair of servers at a finite distance
        assert!((0..10).all(|s| (0..10).all(|t| a.network.dist(s, t).is_finite())));
    }
}
