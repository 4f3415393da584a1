//! The AG model (problems.md §4): servers, players, auxiliary games, and the
//! quantities every engine and the evaluator share (loads, targets, AG
//! membership, latencies, uptime statistics, the gamma uptime model).

use serde::{Deserialize, Serialize};

/// Shape of the paper's uptime gamma (seed 004 §5).
pub const GAMMA_K: f64 = 1.157143;
/// Scale of the paper's uptime gamma, hours.
pub const GAMMA_THETA: f64 = 2.419754;

/// The paper's Tables 1–2 parameters.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Overhead {
    /// `I`: share of interacting players split across servers.
    pub interaction: f64,
    /// `F`: message rate between interacting players (messages/s).
    pub rate: f64,
    /// Share of P2P players returning to the cluster when their AG ends.
    pub return_rate: f64,
}

impl Default for Overhead {
    fn default() -> Self {
        Overhead {
            interaction: 0.1,
            rate: 20.0,
            return_rate: 0.5,
        }
    }
}

/// The game map: `rows × cols` rectangles, server `i` manages the `i`-th in
/// row-major order.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GameMap {
    /// Width of the world.
    pub width: f64,
    /// Height of the world.
    pub height: f64,
    /// Region rows.
    pub rows: usize,
    /// Region columns.
    pub cols: usize,
}

impl GameMap {
    /// The region (server) of a map position, clamped to the map.
    pub fn region(&self, x: f64, y: f64) -> usize {
        let cell = |v: f64, len: f64, n: usize| {
            let c = (v / len * n as f64).floor();
            if c.is_nan() || c < 0.0 {
                0
            } else {
                (c as usize).min(n - 1)
            }
        };
        cell(y, self.height, self.rows) * self.cols + cell(x, self.width, self.cols)
    }

    /// The regions sharing an edge with `s`, in index order.
    pub fn neighbours(&self, s: usize) -> Vec<usize> {
        let (r, c) = (s / self.cols, s % self.cols);
        let mut out = Vec::with_capacity(4);
        if r > 0 {
            out.push(s - self.cols);
        }
        if c > 0 {
            out.push(s - 1);
        }
        if c + 1 < self.cols {
            out.push(s + 1);
        }
        if r + 1 < self.rows {
            out.push(s + self.cols);
        }
        out
    }
}

/// One AG instance, validated.
#[derive(Debug, Clone, PartialEq)]
pub struct AgInstance {
    /// Name.
    pub name: String,
    /// Server names, when the file gives them.
    pub server_names: Option<Vec<String>>,
    /// Capacity per server, players.
    pub max_load: Vec<u64>,
    /// Algorithm 1's margin (share of `max_load`).
    pub margin: f64,
    /// The world.
    pub map: GameMap,
    /// Map position per player.
    pub x: Vec<f64>,
    /// Map position per player.
    pub y: Vec<f64>,
    /// Network coordinates per player (latency = Euclidean distance, ms).
    pub net: Vec<[f64; 2]>,
    /// AG per player (`None` = main game).
    pub ag: Vec<Option<usize>>,
    /// Current server per player.
    pub server: Vec<usize>,
    /// Past session lengths per player, hours.
    pub uptime: Vec<Vec<f64>>,
    /// The cluster's network coordinates.
    pub cluster_net: [f64; 2],
    /// Tables 1–2 parameters.
    pub overhead: Overhead,
    /// Members per AG, ascending player index (every AG has one at least).
    pub members: Vec<Vec<usize>>,
    /// Provenance.
    pub source: Option<String>,
}

impl AgInstance {
    /// Servers.
    pub fn servers(&self) -> usize {
        self.max_load.len()
    }

    /// Players.
    pub fn players(&self) -> usize {
        self.ag.len()
    }

    /// AGs.
    pub fn ags(&self) -> usize {
        self.members.len()
    }

    /// The server an AG runs on now (all members share it).
    pub fn ag_server(&self, a: usize) -> usize {
        self.members[a].first().map_or(0, |&p| self.server[p])
    }

    /// The balanced level of server `s`: `⌊(1 − margin) · max_load⌋` players.
    pub fn target(&self, s: usize) -> u64 {
        ((1.0 - self.margin) * self.max_load[s] as f64 + 1e-9)
            .floor()
            .max(0.0) as u64
    }

    /// Algorithm 1's quota for server `s` at `load`: `extra + ⌈margin ·
    /// max_load⌉` players (0 when not over `max_load`).
    pub fn quota(&self, s: usize, load: u64) -> u64 {
        let max = self.max_load[s];
        if load <= max {
            return 0;
        }
        let extra = (self.margin * max as f64 - 1e-9).ceil().max(0.0) as u64;
        load - max + extra
    }

    /// Loads per server now.
    pub fn loads_before(&self) -> Vec<u64> {
        let mut l = vec![0u64; self.servers()];
        for &s in &self.server {
            l[s] += 1;
        }
        l
    }

    /// Latency between two players (Euclidean distance of their network
    /// coordinates).
    pub fn latency(&self, a: usize, b: usize) -> f64 {
        dist(self.net[a], self.net[b])
    }

    /// A player's `Uptime_min = mean − std` of its history (population std;
    /// 0 for an empty history).
    pub fn uptime_min(&self, p: usize) -> f64 {
        uptime_min(&self.uptime[p])
    }
}

/// Euclidean distance.
pub fn dist(a: [f64; 2], b: [f64; 2]) -> f64 {
    ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2)).sqrt()
}

/// `mean − std` (population) of a history; 0 when empty.
pub fn uptime_min(h: &[f64]) -> f64 {
    if h.is_empty() {
        return 0.0;
    }
    let n = h.len() as f64;
    let mean = h.iter().sum::<f64>() / n;
    let var = h.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / n;
    mean - var.sqrt()
}

/// Where a player ends: a server or the P2P area.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Dest {
    /// A server index.
    Server(usize),
    /// `"p2p"`.
    P2p(P2pTag),
}

/// The literal `"p2p"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum P2pTag {
    /// `"p2p"`.
    #[serde(rename = "p2p")]
    P2p,
}

/// The P2P area's destination.
pub const P2P: Dest = Dest::P2p(P2pTag::P2p);

/// Server and replica of one AG sent to P2P.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct P2pRoles {
    /// The AG.
    pub ag: usize,
    /// `AG.S`, a player index.
    pub s: usize,
    /// `AG.RS`, a player index.
    pub rs: usize,
}

/// A solution: a destination per player (`None` = no server, rejected) and
/// the roles of every P2P AG.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AgSolution {
    /// Per player.
    pub assign: Vec<Option<Dest>>,
    /// Per P2P AG.
    #[serde(default)]
    pub p2p: Vec<P2pRoles>,
}
