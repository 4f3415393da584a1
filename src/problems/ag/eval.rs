//! THE AG evaluator (problems.md §4): checks a solution and computes every
//! metric from the instance and the solution alone. It imports no engine.
//!
//! Rejected: an `assign` of the wrong length; a player without a server
//! (`null`) or with a server index out of range; a main-game player sent to
//! P2P; an AG partly in P2P; a P2P AG without exactly one `p2p` entry, an
//! entry for an AG not in P2P; an `s`/`rs` not a member of its AG; `s = rs`
//! in an AG of two players or more.
//!
//! Metrics (docs/ag.md): loads before and after; servers over `max_load`
//! and over the target `⌊(1 − margin)·max_load⌋`; players moved (a player
//! sent to P2P counts as moved); whole AGs moved, AGs split across servers,
//! AGs and players sent to P2P; overhead messages (seed 004 Tables 1–2):
//! `before = 2 · moved`, `after = 2 · I · F · (players moved apart from
//! their AG or main-game players moved)`, `return = p2p players ·
//! return_rate`; per P2P AG the latency of `S` to its other players (mean,
//! SD), `Uptime_min` of `S` and `RS` and the failure likelihood of
//! [`ag_failure_likelihood`].
//!
//! Objective (minimised, lexicographic, encoded with `W = P + 1`):
//! `excess · W² + p2p players · W + players moved`, where `excess = Σ_s
//! max(0, load_s − target_s)`. Exact in `f64` while it stays below 2^53
//! (always at excess 0, i.e. for every target-feasible solution).
//!
//! Cost: `O(P + Σ_{P2P AGs} size)`.

use crate::core::{metrics_map, Verdict};
use crate::problems::ag::gamma::{ag_failure_likelihood, probability_of_disconnection};
use crate::problems::ag::model::{dist, AgInstance, AgSolution, Dest};
use serde::{Deserialize, Serialize};

/// One P2P AG's QoS.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct P2pAgMetrics {
    /// The AG.
    pub ag: usize,
    /// Its players.
    pub size: usize,
    /// `AG.S`.
    pub s: usize,
    /// `AG.RS`.
    pub rs: usize,
    /// Mean latency of `S` to the AG's other players, ms (0 alone).
    pub latency_mean: f64,
    /// Its standard deviation (population).
    pub latency_sd: f64,
    /// Mean latency of the AG's players to the cluster, ms (Table 4's CS column).
    pub cs_latency_mean: f64,
    /// `Uptime_min` of `S`, hours.
    pub s_uptime_min: f64,
    /// `Uptime_min` of `RS`, hours.
    pub rs_uptime_min: f64,
    /// The AG's failure likelihood (§5.2.1).
    pub failure: f64,
    /// Total latency of the P2P subarea's links (Fig. 2: every other player
    /// to `S` and to `RS`, plus `S`–`RS`), ms.
    pub link_latency: f64,
    /// `PD(S) · PD(RS)`: both servers disconnect.
    pub servers_fail: f64,
}

/// The metrics of a valid solution.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AgMetrics {
    /// Σ over servers of the load above the target.
    pub excess: u64,
    /// Players sent to P2P.
    pub players_p2p: u64,
    /// Players whose destination differs from their server (P2P included).
    pub players_moved: u64,
    /// Largest server load after.
    pub max_load: u64,
    /// Servers over `max_load` before.
    pub overloaded_before: usize,
    /// Servers over `max_load` after.
    pub overloaded_after: usize,
    /// Servers over the target after.
    pub over_target_after: usize,
    /// AGs moved whole to another server.
    pub ags_moved: usize,
    /// AGs whose players end on more than one server.
    pub ags_split: usize,
    /// AGs sent to P2P.
    pub ags_p2p: usize,
    /// Main-game players moved.
    pub main_moved: u64,
    /// Table 1/2 "before": `2 · players moved`.
    pub overhead_before: f64,
    /// Table 1 "after": `2 · I · F · players moved apart from their AG`.
    pub overhead_after: f64,
    /// Table 2 return traffic: `players_p2p · return_rate`.
    pub overhead_return: f64,
    /// The sum of the three.
    pub overhead_total: f64,
    /// Mean over P2P AGs of their `latency_mean` (0 without P2P AGs).
    pub p2p_latency_mean: f64,
    /// Mean over P2P AGs of their failure likelihood.
    pub p2p_failure_mean: f64,
    /// Largest P2P AG failure likelihood.
    pub p2p_failure_max: f64,
    /// Mean over P2P AGs of their `link_latency`.
    pub p2p_link_latency_mean: f64,
    /// Mean over P2P AGs of their `servers_fail`.
    pub p2p_servers_fail_mean: f64,
    /// Load per server before.
    pub loads_before: Vec<u64>,
    /// Load per server after.
    pub loads_after: Vec<u64>,
    /// Every P2P AG.
    pub p2p_ags: Vec<P2pAgMetrics>,
}

impl AgMetrics {
    /// The lexicographic objective, encoded (module docs).
    pub fn objective(&self, players: usize) -> f64 {
        let w = players as f64 + 1.0;
        self.excess as f64 * w * w + self.players_p2p as f64 * w + self.players_moved as f64
    }
}

/// The evaluator's word on one solution.
#[derive(Debug, Clone)]
pub struct AgEvaluation {
    /// Metrics (present when the solution is valid).
    pub metrics: Option<AgMetrics>,
    /// The objective.
    pub objective: Option<f64>,
    /// Every violation found (empty = valid).
    pub violations: Vec<String>,
}

impl AgEvaluation {
    /// The shared verdict.
    pub fn verdict(&self) -> Verdict {
        Verdict {
            objective: self.objective,
            metrics: self.metrics.as_ref().map(metrics_map).unwrap_or_default(),
            violations: self.violations.clone(),
        }
    }
}

/// Evaluates a solution.
pub fn evaluate(inst: &AgInstance, sol: &AgSolution) -> AgEvaluation {
    let violations = check(inst, sol);
    if !violations.is_empty() {
        return AgEvaluation {
            metrics: None,
            objective: None,
            violations,
        };
    }
    let m = metrics(inst, sol);
    AgEvaluation {
        objective: Some(m.objective(inst.players())),
        metrics: Some(m),
        violations,
    }
}

fn push_capped(v: &mut Vec<String>, count: &mut usize, msg: impl FnOnce() -> String) {
    *count += 1;
    if *count <= 5 {
        v.push(msg());
    }
}

/// Every violation of `sol` (at most 5 of each kind listed, then a count).
pub fn check(inst: &AgInstance, sol: &AgSolution) -> Vec<String> {
    let (np, n) = (inst.players(), inst.servers());
    if sol.assign.len() != np {
        let len = sol.assign.len();
        return vec![format!(
            "assign has {len} entries, expected {np} (one per player)"
        )];
    }
    let mut v = Vec::new();
    let mut bad = 0;
    for (p, d) in sol.assign.iter().enumerate() {
        match d {
            None => push_capped(&mut v, &mut bad, || {
                format!("player {p} has no server (assign[{p}] is null)")
            }),
            Some(Dest::Server(s)) if *s >= n => push_capped(&mut v, &mut bad, || {
                format!("assign[{p}] = {s} is not a server (0..{n})")
            }),
            Some(Dest::P2p(_)) if inst.ag[p].is_none() => push_capped(&mut v, &mut bad, || {
                format!("assign[{p}]: main-game player {p} cannot go to p2p")
            }),
            _ => {}
        }
    }
    if bad > 5 {
        v.push(format!("… {bad} bad assign entries in all"));
    }
    check_p2p(inst, sol, &mut v);
    v
}

fn check_p2p(inst: &AgInstance, sol: &AgSolution, v: &mut Vec<String>) {
    let in_p2p = |p: usize| matches!(sol.assign[p], Some(Dest::P2p(_)));
    let mut entry = vec![0usize; inst.ags()];
    for (i, r) in sol.p2p.iter().enumerate() {
        let Some(m) = inst.members.get(r.ag) else {
            v.push(format!(
                "p2p[{i}].ag = {} is not an AG (0..{})",
                r.ag,
                inst.ags()
            ));
            continue;
        };
        entry[r.ag] += 1;
        if !m.iter().all(|&p| in_p2p(p)) {
            v.push(format!("p2p[{i}]: AG {} is not in p2p", r.ag));
        }
        for (f, p) in [("s", r.s), ("rs", r.rs)] {
            if m.binary_search(&p).is_err() {
                v.push(format!("p2p[{i}].{f} = {p} is not a member of AG {}", r.ag));
            }
        }
        if r.s == r.rs && m.len() >= 2 {
            v.push(format!(
                "p2p[{i}]: s = rs = {} in AG {} of {} players",
                r.s,
                r.ag,
                m.len()
            ));
        }
    }
    for (a, m) in inst.members.iter().enumerate() {
        let k = m.iter().filter(|&&p| in_p2p(p)).count();
        if k > 0 && k < m.len() {
            v.push(format!(
                "AG {a} is partly in p2p ({k} of {} players)",
                m.len()
            ));
        } else if k > 0 && entry[a] == 0 {
            v.push(format!("AG {a} is in p2p without a p2p entry (s, rs)"));
        }
        if entry[a] > 1 {
            v.push(format!("AG {a} has {} p2p entries", entry[a]));
        }
    }
}

/// Players per server after, and `(players in P2P, players moved, main-game
/// players moved)`.
fn loads_and_moves(inst: &AgInstance, sol: &AgSolution) -> (Vec<u64>, (u64, u64, u64)) {
    let mut loads_after = vec![0u64; inst.servers()];
    let (mut p2p, mut moved, mut main_moved) = (0u64, 0u64, 0u64);
    for (p, d) in sol.assign.iter().enumerate() {
        match d {
            Some(Dest::Server(s)) => {
                loads_after[*s] += 1;
                if *s != inst.server[p] {
                    moved += 1;
                    main_moved += u64::from(inst.ag[p].is_none());
                }
            }
            _ => {
                p2p += 1;
                moved += 1;
            }
        }
    }
    (loads_after, (p2p, moved, main_moved))
}

/// The mean of `f` over the P2P AGs (0 when there are none).
fn p2p_mean(ags: &[P2pAgMetrics], f: impl Fn(&P2pAgMetrics) -> f64) -> f64 {
    ags.iter().map(f).fold(0.0, |s, x| s + x) / ags.len().max(1) as f64
}

/// The metrics of a valid solution.
pub fn metrics(inst: &AgInstance, sol: &AgSolution) -> AgMetrics {
    let n = inst.servers();
    let loads_before = inst.loads_before();
    let (loads_after, (p2p, moved, main_moved)) = loads_and_moves(inst, sol);
    let (ags_moved, ags_split, ags_p2p, apart) = ag_moves(inst, sol);
    let o = inst.overhead;
    let over = |l: &[u64]| (0..n).filter(|&s| l[s] > inst.max_load[s]).count();
    let p2p_ags: Vec<P2pAgMetrics> = sol
        .p2p
        .iter()
        .map(|r| p2p_qos(inst, r.ag, r.s, r.rs))
        .collect();
    let (before, after) = (
        2.0 * moved as f64,
        2.0 * o.interaction * o.rate * (apart + main_moved) as f64,
    );
    let ret = p2p as f64 * o.return_rate;
    AgMetrics {
        excess: (0..n)
            .map(|s| loads_after[s].saturating_sub(inst.target(s)))
            .sum(),
        players_p2p: p2p,
        players_moved: moved,
        max_load: loads_after.iter().copied().max().unwrap_or(0),
        overloaded_before: over(&loads_before),
        overloaded_after: over(&loads_after),
        over_target_after: (0..n).filter(|&s| loads_after[s] > inst.target(s)).count(),
        ags_moved,
        ags_split,
        ags_p2p,
        main_moved,
        overhead_before: before,
        overhead_after: after,
        overhead_return: ret,
        overhead_total: before + after + ret,
        p2p_latency_mean: p2p_mean(&p2p_ags, |a| a.latency_mean),
        p2p_failure_mean: p2p_mean(&p2p_ags, |a| a.failure),
        p2p_failure_max: p2p_ags.iter().map(|a| a.failure).fold(0.0, f64::max),
        p2p_link_latency_mean: p2p_mean(&p2p_ags, |a| a.link_latency),
        p2p_servers_fail_mean: p2p_mean(&p2p_ags, |a| a.servers_fail),
        loads_before,
        loads_after,
        p2p_ags,
    }
}

/// `(whole AGs moved, AGs split, AGs in P2P, players of split AGs that
/// moved)`.
fn ag_moves(inst: &AgInstance, sol: &AgSolution) -> (usize, usize, usize, u64) {
    let (mut moved, mut split, mut p2p, mut apart) = (0, 0, 0, 0u64);
    for (a, m) in inst.members.iter().enumerate() {
        let home = inst.ag_server(a);
        let first = sol.assign[m[0]];
        if matches!(first, Some(Dest::P2p(_))) {
            p2p += 1;
        } else if m.iter().all(|&p| sol.assign[p] == first) {
            moved += usize::from(first != Some(Dest::Server(home)));
        } else {
            split += 1;
            apart += m
                .iter()
                .filter(|&&p| sol.assign[p] != Some(Dest::Server(home)))
                .count() as u64;
        }
    }
    (moved, split, p2p, apart)
}

/// The QoS of AG `a` in P2P with server `s` and replica `rs`.
pub fn p2p_qos(inst: &AgInstance, a: usize, s: usize, rs: usize) -> P2pAgMetrics {
    let m = &inst.members[a];
    let lat: Vec<f64> = m
        .iter()
        .filter(|&&p| p != s)
        .map(|&p| inst.latency(s, p))
        .collect();
    let k = lat.len().max(1) as f64;
    let mean = lat.iter().fold(0.0, |s, x| s + x) / k;
    let sd = (lat.iter().map(|l| (l - mean).powi(2)).sum::<f64>() / k).sqrt();
    let cs = m
        .iter()
        .map(|&p| dist(inst.net[p], inst.cluster_net))
        .sum::<f64>()
        / m.len().max(1) as f64;
    let pd: Vec<f64> = m
        .iter()
        .map(|&p| probability_of_disconnection(inst.uptime_min(p)))
        .collect();
    P2pAgMetrics {
        ag: a,
        size: m.len(),
        s,
        rs,
        latency_mean: mean,
        latency_sd: sd,
        cs_latency_mean: cs,
        s_uptime_min: inst.uptime_min(s),
        rs_uptime_min: inst.uptime_min(rs),
        failure: ag_failure_likelihood(&pd),
        link_latency: m
            .iter()
            .filter(|&&p| p != s && p != rs)
            .map(|&p| inst.latency(s, p) + inst.latency(rs, p))
            .sum::<f64>()
            + inst.latency(s, rs),
        servers_fail: probability_of_disconnection(inst.uptime_min(s))
            * probability_of_disconnection(inst.uptime_min(rs)),
    }
}
