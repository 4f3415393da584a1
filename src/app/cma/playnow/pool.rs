//! The "play now" population study: players arrive at a pool of servers of
//! mixed sizes, press "play now", stay for an exponential session and leave.
//!
//! - A [`Workload`] is one seeded stream: server sizes, every arrival's time,
//!   session end and ping to every server (a CMA instance whose rows are the
//!   arrivals, whose mirrors are the servers and whose capacities are the
//!   slots, so the CMA optimum reads it directly).
//! - [`simulate_pool`] replays it under a [`PoolPolicy`]; every policy sees
//!   the same arrivals and departures (a player leaves at its session end
//!   whatever server it is on). An arrival that finds every server full is
//!   turned away. Every `sample_every` minutes a [`Sample`] records the
//!   pool. The CMA optimum re-solves the static min-total-delay assignment
//!   of the present players (capacities = slots, `exact_flow`) at every
//!   sample: it moves players, which no server browser does.
//!
//! Cost: `O(S)` per arrival (one score per server), `O(P log P)` per sample
//! (the p95), plus one exact solve per sample for the optimum.

use crate::error::{Error, Result};
use crate::problems::cma::exact_flow::exact_flow_graph;
use crate::problems::cma::model::CmaInstance;
use crate::problems::rank::model::{Player, Server};
use crate::problems::rank::score::{score, Preset};
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Players from which a game is viable (seed 000: viability 0.5 at 12).
pub const VIABLE_PLAYERS: u32 = 12;

/// How an arriving player picks a server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PoolPolicy {
    /// "Play now" under a rank preset: the best-scoring joinable server.
    Preset(Preset),
    /// The lowest-ping server with a free slot.
    PingOnly,
    /// The server with the most players and a free slot (lower ping first).
    FullestFirst,
    /// The static min-total-delay assignment of the present players,
    /// re-solved at every sample (players move).
    CmaOptimum,
}

impl PoolPolicy {
    /// Every policy, in table order.
    pub const ALL: [PoolPolicy; 7] = [
        PoolPolicy::Preset(Preset::Seed000),
        PoolPolicy::Preset(Preset::Ns2V1),
        PoolPolicy::Preset(Preset::Ns2V2),
        PoolPolicy::Preset(Preset::Tf2Quickplay),
        PoolPolicy::PingOnly,
        PoolPolicy::FullestFirst,
        PoolPolicy::CmaOptimum,
    ];

    /// Its name in tables and files.
    pub fn name(self) -> &'static str {
        match self {
            PoolPolicy::Preset(p) => p.name(),
            PoolPolicy::PingOnly => "ping-only",
            PoolPolicy::FullestFirst => "fullest-first",
            PoolPolicy::CmaOptimum => "cma-optimum",
        }
    }
}

/// Where pings come from.
#[derive(Debug, Clone)]
pub enum PingSource {
    /// A measured square RTT matrix (ms); servers and players are its nodes.
    Matrix(Vec<Vec<f64>>),
    /// `nodes` points in a unit square; ping = 5 ms + 300 ms × distance.
    Synthetic {
        /// Node count.
        nodes: usize,
    },
}

/// One population study's parameters.
#[derive(Debug, Clone)]
pub struct PoolConfig {
    /// `(slots, servers)` pairs, e.g. `(64, 4), (24, 10), (16, 10)`.
    pub sizes: Vec<(u32, usize)>,
    /// Mean players present over total slots (arrival rate × mean session).
    pub load: f64,
    /// Mean session length, minutes (exponential).
    pub session_min: f64,
    /// Simulated time, minutes.
    pub duration_min: f64,
    /// Minutes between samples.
    pub sample_min: f64,
    /// RNG seed (servers' nodes, arrivals, sessions, players' nodes).
    pub seed: u64,
}

impl PoolConfig {
    /// Every server's slots, in pool order.
    pub fn slots(&self) -> Vec<u32> {
        self.sizes
            .iter()
            .flat_map(|&(s, n)| std::iter::repeat_n(s, n))
            .collect()
    }

    fn check(&self) -> Result<()> {
        let positive = |x: f64| x.is_finite() && x > 0.0;
        if self.slots().is_empty() || self.sizes.iter().any(|&(s, _)| s == 0) {
            return Err(Error::Usage("the pool needs servers of >= 1 slot".into()));
        }
        if !(positive(self.load) && self.load <= 10.0) {
            return Err(Error::Usage(format!(
                "load {} is not in (0, 10]",
                self.load
            )));
        }
        let times = [self.session_min, self.duration_min, self.sample_min];
        if !times.into_iter().all(positive) || self.sample_min > self.duration_min {
            return Err(Error::Usage(
                "session, duration and sample step must be > 0, sample <= duration".into(),
            ));
        }
        Ok(())
    }
}

/// One seeded arrival stream over one pool.
#[derive(Debug, Clone)]
pub struct Workload {
    /// Rows = arrivals, mirrors = servers, capacity = slots, delay = ping.
    pub inst: CmaInstance,
    /// Slots per server.
    pub slots: Vec<u32>,
    /// Arrival time per row, minutes (ascending).
    pub arrive: Vec<f64>,
    /// Session end per row, minutes.
    pub depart: Vec<f64>,
    /// Simulated time, minutes.
    pub duration: f64,
    /// Minutes between samples.
    pub sample_every: f64,
}

fn exp_sample(rng: &mut ChaCha8Rng, mean: f64) -> f64 {
    let u: f64 = rng.random_range(f64::EPSILON..1.0);
    -mean * u.ln()
}

fn synthetic_matrix(nodes: usize, rng: &mut ChaCha8Rng) -> Vec<Vec<f64>> {
    let pts: Vec<(f64, f64)> = (0..nodes.max(2))
        .map(|_| (rng.random::<f64>(), rng.random::<f64>()))
        .collect();
    pts.iter()
        .map(|a| {
            pts.iter()
                .map(|b| 5.0 + 300.0 * ((a.0 - b.0).powi(2) + (a.1 - b.1).powi(2)).sqrt())
                .collect()
        })
        .collect()
}

/// The median positive finite entry (stands in for missing measurements).
fn median_positive(m: &[Vec<f64>]) -> Option<f64> {
    let mut v: Vec<f64> = m
        .iter()
        .flatten()
        .copied()
        .filter(|x| x.is_finite() && *x > 0.0)
        .collect();
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied()
}

/// Builds the workload of `cfg` with pings from `pings`. Servers sit on
/// distinct nodes when the matrix has at least twice as many nodes as
/// servers (else nodes repeat); players sit on the other nodes. A
/// non-positive or missing RTT (the diagonal, a gap) counts as the matrix's
/// median positive RTT.
pub fn build_workload(cfg: &PoolConfig, pings: &PingSource) -> Result<Workload> {
    cfg.check()?;
    let mut rng = ChaCha8Rng::seed_from_u64(cfg.seed);
    let matrix = match pings {
        PingSource::Matrix(m) => m.clone(),
        PingSource::Synthetic { nodes } => synthetic_matrix(*nodes, &mut rng),
    };
    let n = matrix.len();
    let fill = median_positive(&matrix)
        .ok_or_else(|| Error::Usage("the latency matrix has no positive RTT".into()))?;
    if n < 2 || matrix.iter().any(|r| r.len() != n) {
        return Err(Error::Usage(
            "the latency matrix must be square, >= 2 nodes".into(),
        ));
    }
    let slots = cfg.slots();
    let mut order: Vec<usize> = (0..n).collect();
    order.shuffle(&mut rng);
    let server_nodes: Vec<usize> = if 2 * slots.len() <= n {
        order[..slots.len()].to_vec()
    } else {
        (0..slots.len()).map(|_| rng.random_range(0..n)).collect()
    };
    let player_nodes: Vec<usize> = if 2 * slots.len() <= n {
        order[slots.len()..].to_vec()
    } else {
        order.clone()
    };
    let total: u32 = slots.iter().sum();
    let rate = cfg.load * f64::from(total) / cfg.session_min;
    let (mut arrive, mut depart, mut delay) = (Vec::new(), Vec::new(), Vec::new());
    let mut t = exp_sample(&mut rng, 1.0 / rate);
    while t < cfg.duration_min {
        let node = player_nodes[rng.random_range(0..player_nodes.len())];
        arrive.push(t);
        depart.push(t + exp_sample(&mut rng, cfg.session_min));
        for &s in &server_nodes {
            let v = matrix[node][s];
            delay.push(if v.is_finite() && v > 0.0 { v } else { fill });
        }
        t += exp_sample(&mut rng, 1.0 / rate);
    }
    let capacity: Vec<usize> = slots.iter().map(|&s| s as usize).collect();
    let name = format!("playnow-load{}-seed{}", cfg.load, cfg.seed);
    Ok(Workload {
        inst: CmaInstance::new(name, capacity, delay)?,
        slots,
        arrive,
        depart,
        duration: cfg.duration_min,
        sample_every: cfg.sample_min,
    })
}

/// The pool at one sample time.
#[derive(Debug, Clone, PartialEq)]
pub struct Sample {
    /// Minutes since the start.
    pub t: f64,
    /// Arrivals so far.
    pub arrived: usize,
    /// Departures so far (of players who got in).
    pub departed: usize,
    /// Arrivals turned away (every server full) so far.
    pub rejected: usize,
    /// Players on servers now.
    pub present: usize,
    /// Servers with at least [`VIABLE_PLAYERS`] players.
    pub viable: usize,
    /// Players on those servers.
    pub on_viable: usize,
    /// Mean ping of present players, ms (0 when nobody is present).
    pub mean_ping: f64,
    /// 95th percentile ping (nearest rank), ms.
    pub p95_ping: f64,
    /// Players on the largest servers / present (0 when nobody is present).
    pub share_large: f64,
    /// The fullest server's players / slots.
    pub max_fill: f64,
}

/// One policy's run over a workload.
#[derive(Debug, Clone)]
pub struct PoolRun {
    /// The policy.
    pub policy: PoolPolicy,
    /// One sample per `sample_every` minutes.
    pub samples: Vec<Sample>,
}

/// The server `policy` gives row `i` given the current loads (`None`: every
/// server is full). Presets score each joinable server as the rank family
/// does (`play_now`: ping = the row's delay, players = load, max players =
/// slots, the other inputs unknown); ties go to the lower index.
pub fn choose(policy: PoolPolicy, w: &Workload, loads: &[u32], i: usize) -> Option<usize> {
    let row = w.inst.row(i);
    let player = Player::default();
    let mut best: Option<(usize, (f64, f64))> = None;
    for (j, (&load, &slots)) in loads.iter().zip(&w.slots).enumerate() {
        if load >= slots {
            continue;
        }
        let key = match policy {
            PoolPolicy::Preset(p) => {
                let s = Server {
                    name: String::new(),
                    players: load,
                    max_players: slots,
                    ping: Some(row[j]),
                    perf_score: None,
                    skill: None,
                    joinable: None,
                    favorite: false,
                };
                (score(p, &player, &s).score, 0.0)
            }
            PoolPolicy::FullestFirst => (f64::from(load), -row[j]),
            PoolPolicy::PingOnly | PoolPolicy::CmaOptimum => (-row[j], 0.0),
        };
        let better = best.is_none_or(|(_, b)| key.0 > b.0 || (key.0 == b.0 && key.1 > b.1));
        if better {
            best = Some((j, key));
        }
    }
    best.map(|(j, _)| j)
}

struct State {
    assign: Vec<Option<usize>>,
    loads: Vec<u32>,
    arrived: usize,
    departed: usize,
    rejected: usize,
    present: usize,
}

/// Replays `w` under `policy`. Fails (never panics) if a state breaks the
/// invariants (a server over its slots, players not conserved).
pub fn simulate_pool(w: &Workload, policy: PoolPolicy) -> Result<PoolRun> {
    let n = w.arrive.len();
    let mut by_depart: Vec<usize> = (0..n).collect();
    by_depart.sort_by(|&a, &b| w.depart[a].total_cmp(&w.depart[b]).then(a.cmp(&b)));
    let total: usize = w.slots.iter().map(|&s| s as usize).sum();
    let mut st = State {
        assign: vec![None; n],
        loads: vec![0; w.slots.len()],
        arrived: 0,
        departed: 0,
        rejected: 0,
        present: 0,
    };
    let (mut next_arrival, mut next_departure) = (0, 0);
    let steps = (w.duration / w.sample_every).floor() as usize;
    let mut samples = Vec::with_capacity(steps);
    for k in 1..=steps {
        let t = k as f64 * w.sample_every;
        loop {
            let a = w.arrive.get(next_arrival).copied().filter(|&x| x <= t);
            let d = by_depart
                .get(next_departure)
                .map(|&i| (i, w.depart[i]))
                .filter(|&(_, x)| x <= t);
            match (a, d) {
                (None, None) => break,
                (_, Some((i, x))) if a.is_none_or(|a| x <= a) => {
                    next_departure += 1;
                    leave(&mut st, i);
                }
                _ => {
                    arrive(&mut st, w, policy, next_arrival, total);
                    next_arrival += 1;
                }
            }
        }
        if policy == PoolPolicy::CmaOptimum {
            resolve(&mut st, w)?;
        }
        samples.push(sample(&st, w, t)?);
    }
    Ok(PoolRun { policy, samples })
}

fn leave(st: &mut State, i: usize) {
    if let Some(slot) = st.assign.get_mut(i) {
        if let Some(j) = slot.take() {
            if let Some(l) = st.loads.get_mut(j) {
                *l = l.saturating_sub(1);
            }
            st.present -= 1;
            st.departed += 1;
        }
    }
}

fn arrive(st: &mut State, w: &Workload, policy: PoolPolicy, i: usize, total: usize) {
    st.arrived += 1;
    let pick = if policy == PoolPolicy::CmaOptimum {
        // placed by the next re-solve; counted against the total capacity
        (st.present < total).then_some(usize::MAX)
    } else {
        choose(policy, w, &st.loads, i)
    };
    match pick {
        Some(j) => {
            if let Some(l) = st.loads.get_mut(j) {
                *l += 1;
            }
            st.assign[i] = Some(j);
            st.present += 1;
        }
        None => st.rejected += 1,
    }
}

/// The CMA optimum: every present player re-placed by `exact_flow`.
fn resolve(st: &mut State, w: &Workload) -> Result<()> {
    let clients: Vec<usize> = (0..st.assign.len())
        .filter(|&i| st.assign[i].is_some())
        .collect();
    let g = exact_flow_graph(&w.inst, &clients)?
        .ok_or_else(|| Error::Solver("more present players than slots".into()))?;
    st.loads.iter_mut().for_each(|l| *l = 0);
    for &i in &clients {
        let j = g
            .mirror_of(i)
            .ok_or_else(|| Error::Solver(format!("player {i} left unplaced")))?;
        st.assign[i] = Some(j);
        st.loads[j] += 1;
    }
    Ok(())
}

fn sample(st: &State, w: &Workload, t: f64) -> Result<Sample> {
    let largest = w.slots.iter().copied().max().unwrap_or(0);
    let mut pings = Vec::with_capacity(st.present);
    let mut on_large = 0usize;
    for (i, a) in st.assign.iter().enumerate() {
        if let Some(&j) = a.as_ref().filter(|&&j| j < w.slots.len()) {
            pings.push(w.inst.delay(i, j));
            on_large += usize::from(w.slots[j] == largest);
        }
    }
    let placed: usize = st.loads.iter().map(|&l| l as usize).sum();
    let over = st.loads.iter().zip(&w.slots).any(|(l, s)| l > s);
    let conserved = st.arrived == st.present + st.departed + st.rejected;
    if over || placed != st.present || pings.len() != st.present || !conserved {
        return Err(Error::Solver(format!(
            "t={t}: broken pool state (over slots {over}, placed {placed}, present {})",
            st.present
        )));
    }
    pings.sort_by(f64::total_cmp);
    let p = pings.len();
    let viable: Vec<u32> = st
        .loads
        .iter()
        .copied()
        .filter(|&l| l >= VIABLE_PLAYERS)
        .collect();
    let share = |x: usize| if p == 0 { 0.0 } else { x as f64 / p as f64 };
    Ok(Sample {
        t,
        arrived: st.arrived,
        departed: st.departed,
        rejected: st.rejected,
        present: st.present,
        viable: viable.len(),
        on_viable: viable.iter().map(|&l| l as usize).sum(),
        mean_ping: if p == 0 {
            0.0
        } else {
            pings.iter().sum::<f64>() / p as f64
        },
        p95_ping: pings
            .get(((p as f64 * 0.95).ceil() as usize).saturating_sub(1))
            .copied()
            .unwrap_or(0.0),
        share_large: share(on_large),
        max_fill: st
            .loads
            .iter()
            .zip(&w.slots)
            .map(|(&l, &s)| f64::from(l) / f64::from(s))
            .fold(0.0, f64::max),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::problems::rank::model::RankInstance;
    use crate::problems::rank::ranking::play_now;

    fn small(load: f64, seed: u64) -> Workload {
        let cfg = PoolConfig {
            sizes: vec![(64, 1), (24, 2), (16, 3)],
            load,
            session_min: 10.0,
            duration_min: 60.0,
            sample_min: 2.0,
            seed,
        };
        build_workload(&cfg, &PingSource::Synthetic { nodes: 40 }).unwrap()
    }

    #[test]
    fn preset_choice_is_the_rank_familys_play_now() {
        let w = small(0.5, 3);
        let loads = [63, 0, 24, 3, 15, 16];
        for i in 0..w.arrive.len().min(30) {
            for preset in Preset::ALL {
                let servers: Vec<Server> = (0..w.slots.len())
                    .map(|j| Server {
                        name: format!("s{j}"),
                        players: loads[j],
                        max_players: w.slots[j],
                        ping: Some(w.inst.delay(i, j)),
                        perf_score: None,
                        skill: None,
                        joinable: None,
                        favorite: false,
                    })
                    .collect();
                let inst = RankInstance::new("t", preset, Player::default(), servers);
                let want = play_now(&inst, preset).map(|r| r.index);
                assert_eq!(choose(PoolPolicy::Preset(preset), &w, &loads, i), want);
            }
        }
    }

    #[test]
    fn full_pools_turn_players_away_and_counts_are_conserved() {
        let w = small(3.0, 5);
        for p in PoolPolicy::ALL {
            let run = simulate_pool(&w, p).unwrap();
            assert_eq!(run.samples.len(), 30);
            let last = run.samples.last().unwrap();
            assert!(last.rejected > 0, "{}", p.name());
            for s in &run.samples {
                assert_eq!(s.arrived, s.present + s.departed + s.rejected);
                assert!(s.max_fill <= 1.0 && s.on_viable <= s.present);
                assert!(s.present <= 64 + 48 + 48);
            }
        }
    }

    #[test]
    fn baselines_pick_as_named() {
        let w = small(0.5, 1);
        let loads = [10, 0, 5, 0, 15, 0];
        let row = w.inst.row(0);
        let nearest = (0..6)
            .min_by(|&a, &b| row[a].total_cmp(&row[b]).then(a.cmp(&b)))
            .unwrap();
        assert_eq!(choose(PoolPolicy::PingOnly, &w, &loads, 0), Some(nearest));
        assert_eq!(choose(PoolPolicy::FullestFirst, &w, &loads, 0), Some(4));
        let full = [64, 24, 24, 16, 16, 16];
        assert_eq!(choose(PoolPolicy::FullestFirst, &w, &full, 0), None);
    }

    #[test]
    fn bad_configurations_are_refused() {
        let mut cfg = PoolConfig {
            sizes: vec![(16, 2)],
            load: 0.0,
            session_min: 10.0,
            duration_min: 60.0,
            sample_min: 2.0,
            seed: 1,
        };
        let syn = PingSource::Synthetic { nodes: 10 };
        assert!(build_workload(&cfg, &syn).is_err());
        cfg.load = 0.5;
        cfg.sample_min = 100.0;
        assert!(build_workload(&cfg, &syn).is_err());
        cfg.sample_min = 2.0;
        let ragged = PingSource::Matrix(vec![vec![0.0, 1.0], vec![1.0]]);
        assert!(build_workload(&cfg, &ragged).is_err());
        let zeros = PingSource::Matrix(vec![vec![0.0; 3]; 3]);
        assert!(build_workload(&cfg, &zeros).is_err());
    }
}
