//! SPD / SPDVR instances and solutions (problems.md §1–2, formats.md).

use crate::error::{Error, Result};
use crate::net::network::ServerNetwork;
use serde::{Deserialize, Serialize};
use std::fmt;

/// Communication model of a session.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CommModel {
    /// Client-server: every message goes through a root (central server).
    Cs,
    /// Peer-to-peer / mirrored: messages go host to host directly.
    P2p,
}

impl fmt::Display for CommModel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            CommModel::Cs => "cs",
            CommModel::P2p => "p2p",
        })
    }
}

/// What the instance file is mainly for (`"problem"` field).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SpdProblem {
    /// Server selection with a delay bound.
    Spd,
    /// Delay-variation reduction from a start solution.
    Spdvr,
}

/// A solution: a contact server per client, and the root for CS.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SpdSolution {
    /// Central server (CS only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub root: Option<usize>,
    /// `assign[c]` = contact server of client `c`.
    pub assign: Vec<usize>,
}

/// How the delay bound was given.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum BoundSpec {
    /// `bound`: μ in ms.
    Absolute(f64),
    /// `bound_factor`: f with μ = f·Γ.
    Factor(f64),
}

/// A validated SPD/SPDVR instance.
#[derive(Debug, Clone)]
pub struct SpdInstance {
    /// Instance name.
    pub name: String,
    /// `spd` or `spdvr`.
    pub problem: SpdProblem,
    /// CS or P2P.
    pub model: CommModel,
    /// The servers' network with all-pairs shortest paths.
    pub network: ServerNetwork,
    /// Optional server names.
    pub server_names: Option<Vec<String>>,
    /// Optional client names.
    pub client_names: Option<Vec<String>>,
    clients: usize,
    /// Row-major `clients × servers` access latencies; `INFINITY` = no access.
    access: Vec<f64>,
    /// The delay bound μ (resolved from `bound_factor` when given that way).
    pub bound: f64,
    /// The factor f when the bound was given as `bound_factor`.
    pub bound_factor: Option<f64>,
    /// Γ: the least CS delay over all roots and assignments (Algorithm Matching).
    pub gamma: f64,
    /// Optional start solution (SPDVR).
    pub start: Option<SpdSolution>,
}

impl SpdInstance {
    /// Builds an instance from already shape-checked parts (the file reader
    /// reports shape errors with file and field; this re-checks cheaply and
    /// reports against `<memory>`).
    ///
    /// `access[c][s]` is `None` where client `c` has no access to server `s`.
    pub fn new(
        name: impl Into<String>,
        model: CommModel,
        network: ServerNetwork,
        access: &[Vec<Option<f64>>],
        bound: BoundSpec,
    ) -> Result<Self> {
        let n = network.len();
        if n == 0 {
            return Err(Error::input(
                "<memory>",
                "servers",
                "at least one server is needed",
            ));
        }
        let flat = flatten_access(access, n)?;
        let mut inst = SpdInstance {
            name: name.into(),
            problem: SpdProblem::Spd,
            model,
            network,
            server_names: None,
            client_names: None,
            clients: access.len(),
            access: flat,
            bound: 0.0,
            bound_factor: None,
            gamma: f64::INFINITY,
            start: None,
        };
        inst.gamma = inst.min_cs_delay().1;
        match bound {
            BoundSpec::Absolute(mu) => inst.bound = mu,
            BoundSpec::Factor(f) => {
                inst.bound = f * inst.gamma;
                inst.bound_factor = Some(f);
            }
        }
        Ok(inst)
    }

    /// Number of servers `n`.
    pub fn servers(&self) -> usize {
        self.network.len()
    }

    /// Number of clients `m`.
    pub fn clients(&self) -> usize {
        self.clients
    }

    /// Access latency `a(c, s)`; `INFINITY` when there is no access.
    #[inline]
    pub fn access(&self, c: usize, s: usize) -> f64 {
        self.access[c * self.network.len() + s]
    }

    /// Access row of client `c`.
    pub fn access_row(&self, c: usize) -> &[f64] {
        let n = self.network.len();
        &self.access[c * n..(c + 1) * n]
    }

    /// One-way CS path latency `a(c, s) + D(s, r)`.
    #[inline]
    pub fn cs_path(&self, c: usize, s: usize, r: usize) -> f64 {
        self.access(c, s) + self.network.dist(s, r)
    }

    /// Algorithm Matching's assignment for root `r`, restricted to servers with
    /// `allowed[s]` (all when `None`): each client to the server minimising
    /// `a(c,s) + D(s,r)`, ties to the lower index. Returns the assignment and the
    /// longest one-way path. `O(n · m)`.
    pub fn matching_for_root(&self, r: usize, allowed: Option<&[bool]>) -> (Vec<usize>, f64) {
        let n = self.servers();
        let mut assign = Vec::with_capacity(self.clients);
        let mut worst: f64 = 0.0;
        for c in 0..self.clients {
            let mut best = (f64::INFINITY, r);
            for s in 0..n {
                if allowed.is_some_and(|a| !a[s]) {
                    continue;
                }
                let p = self.cs_path(c, s, r);
                if p < best.0 {
                    best = (p, s);
                }
            }
            worst = worst.max(best.0);
            assign.push(best.1);
        }
        (assign, worst)
    }

    /// The root and the least CS delay `2 · max_c min_s (a(c,s) + D(s,r))` over
    /// all roots: Γ. Ties go to the lower root. `O(n² · m)`.
    pub fn min_cs_delay(&self) -> (usize, f64) {
        let mut best = (0, f64::INFINITY);
        for r in 0..self.servers() {
            let (_, worst) = self.matching_for_root(r, None);
            if 2.0 * worst < best.1 {
                best = (r, 2.0 * worst);
            }
        }
        best
    }
}

/// `access` as one row-major vector, a missing value as `∞`: at least one
/// client, `n` values per row, each present one a finite latency >= 0.
fn flatten_access(access: &[Vec<Option<f64>>], n: usize) -> Result<Vec<f64>> {
    if access.is_empty() {
        return Err(Error::input(
            "<memory>",
            "access",
            "at least one client is needed",
        ));
    }
    let mut flat = Vec::with_capacity(access.len() * n);
    for (c, row) in access.iter().enumerate() {
        if row.len() != n {
            return Err(Error::input(
                "<memory>",
                format!("access[{c}]"),
                format!("has {} values, expected {n} (one per server)", row.len()),
            ));
        }
        for (s, v) in row.iter().enumerate() {
            match v {
                Some(x) if !(x.is_finite() && *x >= 0.0) => {
                    return Err(Error::input(
                        "<memory>",
                        format!("access[{c}][{s}]"),
                        format!("{x} is not a finite latency >= 0"),
                    ))
                }
                Some(x) => flat.push(*x),
                None => flat.push(f64::INFINITY),
            }
        }
    }
    Ok(flat)
}

/// Seed 001 Fig. 1 with Table I's access latencies (clients a..e × servers
/// A..E) and the server distances the paper's text and Tables IV–V imply:
/// d(A,B) = 9, d(B,C) = 8, d(B,D) = 12, d(C,D) = 10 (so d(A,C) = 17,
/// d(A,D) = 21); E hangs off D (15). The same data as
/// `instances/spd-fig1-*.json`. The paper's worked example, shared by the
/// unit and integration tests; `mu` is the delay bound (an invalid one is
/// an error).
pub fn seed001_fig1(model: CommModel, mu: f64) -> Result<SpdInstance> {
    let links = [
        (0, 1, 9.0),
        (1, 2, 8.0),
        (1, 3, 12.0),
        (2, 3, 10.0),
        (3, 4, 15.0),
    ];
    let net = ServerNetwork::new(5, &links);
    let table1 = [
        [41., 55., 39., 70., 65.],
        [52., 32., 43., 25., 48.],
        [51., 37., 32., 72., 48.],
        [52., 64., 60., 39., 48.],
        [68., 37., 56., 55., 63.],
    ];
    let access: Vec<Vec<Option<f64>>> = table1
        .iter()
        .map(|r| r.iter().map(|&x| Some(x)).collect())
        .collect();
    SpdInstance::new("fig1", model, net, &access, BoundSpec::Absolute(mu))
}
