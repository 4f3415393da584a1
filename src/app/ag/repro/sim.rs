//! The time-stepped discrete-event simulation of seed 004 §5 (the paper
//! used SimPy; this is a deterministic minute-by-minute reading).
//!
//! - **Start.** The scenario's generated instance at the cluster's capacity
//!   (`load = 1.0`, the paper's "loaded with its allowed maximum").
//! - **Sessions.** Each player's session length is a gamma(k = 1.157143,
//!   θ = 2.419754) draw, hours (the paper's uptime model); the players
//!   present at the start get the renewal equilibrium's residual
//!   `U · gamma(k + 1, θ)`. A player whose session ends disconnects. Each
//!   minute, connections = that minute's disconnections ÷ 1.1 (scenario A:
//!   disconnections 10% above connections) or × 1.2 (scenario B), the
//!   fraction carried to the next minute; 10% of them join the main game at a uniform position,
//!   the others form new AGs of the `mix` sizes in a region drawn by the
//!   hot-spot weights (`1 ± spread`, re-drawn every 20 minutes).
//! - **Movement.** Main-game players step up to 10 units per minute in x
//!   and y; one crossing into another region moves to that region's
//!   server. AG members stay with their AG.
//! - **AGs end** after a uniform 10–60 minutes: members on a server stay
//!   in its main game; members in P2P return to the cluster (main game of
//!   their AG's region) with probability `return_rate`, else disconnect.
//! - **Balancing.** Whenever a server is over `max_load`, the cluster's
//!   players form a snapshot [`AgInstance`]; the engine's solution, checked
//!   by the evaluator, is applied (P2P AGs leave the cluster).
//!
//! The engine changes the run only through what it sends to P2P (P2P
//! players who do not return disconnect, so the connections follow).
//! Invariants checked every minute: players = previous + connections −
//! disconnections, cluster loads plus P2P players = players, and after
//! balancing the loads equal the evaluator's `loads_after`.

use crate::app::ag::repro::{balance, cell, AgReproConfig, Csv};
use crate::error::Result;
use crate::problems::ag::gamma::sample_gamma;
use crate::problems::ag::gen::pick;
use crate::problems::ag::model::{AgInstance, Dest, GameMap, Overhead, GAMMA_K, GAMMA_THETA};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The engines simulated.
pub const SIM_ENGINES: [&str; 3] = ["classic", "hybrid", "exact"];

#[derive(Debug, Clone)]
struct Player {
    x: f64,
    y: f64,
    net: [f64; 2],
    ag: Option<usize>,
    /// `None`: in the P2P area.
    server: Option<usize>,
    uptime: Vec<f64>,
    ends: usize,
    alive: bool,
}

#[derive(Debug, Clone)]
struct Ag {
    members: Vec<usize>,
    ends: usize,
    p2p: bool,
    x: f64,
    y: f64,
}

/// One minute of the simulation.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StepRecord {
    /// Minute.
    pub step: usize,
    /// Players connected after the minute.
    pub players: u64,
    /// Players on the cluster's servers.
    pub cluster: u64,
    /// Players in the P2P area.
    pub p2p: u64,
    /// Connections this minute.
    pub connects: u64,
    /// Disconnections this minute (sessions ended, P2P players not returning).
    pub disconnects: u64,
    /// Servers over `max_load` before balancing.
    pub overloaded_before: usize,
    /// Servers over `max_load` after balancing.
    pub overloaded_after: usize,
    /// Players moved by this minute's balancing round (0 without one).
    pub moved: u64,
    /// Its messages (Tables 1–2).
    pub messages: f64,
    /// The largest server load after the minute.
    pub max_load: u64,
    /// Whether every invariant held this minute.
    pub invariants: bool,
}

/// The simulation's state.
#[derive(Debug, Clone)]
pub struct World {
    map: GameMap,
    max_load: Vec<u64>,
    overhead: Overhead,
    spread: f64,
    mix: Vec<(usize, f64)>,
    weights: Vec<f64>,
    players: Vec<Player>,
    ags: Vec<Ag>,
    rng: ChaCha8Rng,
    step: usize,
    carry: f64,
}

fn minutes<R: Rng>(rng: &mut R) -> usize {
    (sample_gamma(rng, GAMMA_K, GAMMA_THETA) * 60.0)
        .ceil()
        .max(1.0) as usize
}

/// The equilibrium residual session of a player already present, minutes.
fn residual_minutes<R: Rng>(rng: &mut R) -> usize {
    let u: f64 = rng.random();
    (u * sample_gamma(rng, GAMMA_K + 1.0, GAMMA_THETA) * 60.0)
        .ceil()
        .max(1.0) as usize
}

impl World {
    /// The starting world of scenario `s`.
    pub fn new(cfg: &AgReproConfig, s: char) -> Result<World> {
        let mut g = cfg.gen(s);
        g.load = Some(1.0);
        let spread = if s == 'a' { 0.5 } else { 0.2 };
        let inst = crate::problems::ag::gen::generate_ag(&g)?;
        let mut rng = ChaCha8Rng::seed_from_u64(cfg.seed ^ 0x5157_0004);
        let players = (0..inst.players())
            .map(|p| Player {
                x: inst.x[p],
                y: inst.y[p],
                net: inst.net[p],
                ag: inst.ag[p],
                server: Some(inst.server[p]),
                uptime: inst.uptime[p].clone(),
                ends: residual_minutes(&mut rng),
                alive: true,
            })
            .collect();
        let ags = inst
            .members
            .iter()
            .map(|m| {
                let p = m.first().copied().unwrap_or(0);
                Ag {
                    members: m.clone(),
                    ends: rng.random_range(10..=60),
                    p2p: false,
                    x: inst.x[p],
                    y: inst.y[p],
                }
            })
            .collect();
        let weights = (0..inst.servers())
            .map(|_| 1.0 + spread * (2.0 * rng.random::<f64>() - 1.0))
            .collect();
        Ok(World {
            map: inst.map,
            max_load: inst.max_load.clone(),
            overhead: inst.overhead,
            spread,
            mix: g.mix,
            weights,
            players,
            ags,
            rng,
            step: 0,
            carry: 0.0,
        })
    }

    /// Players connected.
    pub fn players(&self) -> u64 {
        self.players.iter().filter(|p| p.alive).count() as u64
    }

    /// Loads per server and the P2P players.
    pub fn loads(&self) -> (Vec<u64>, u64) {
        let mut l = vec![0u64; self.max_load.len()];
        let mut p2p = 0;
        for p in self.players.iter().filter(|p| p.alive) {
            match p.server {
                Some(s) => l[s] += 1,
                None => p2p += 1,
            }
        }
        (l, p2p)
    }

    fn disconnect(&mut self, p: usize) {
        self.players[p].alive = false;
        if let Some(a) = self.players[p].ag {
            self.ags[a].members.retain(|&q| q != p);
        }
    }

    /// Sessions that end this minute; returns the disconnections.
    fn sessions(&mut self) -> u64 {
        let now = self.step;
        let ending: Vec<usize> = (0..self.players.len())
            .filter(|&p| self.players[p].alive && self.players[p].ends <= now)
            .collect();
        for &p in &ending {
            self.disconnect(p);
        }
        ending.len() as u64
    }

    /// AGs that end this minute; returns the P2P players not returning.
    fn ag_ends(&mut self) -> u64 {
        let now = self.step;
        let mut gone = 0;
        for a in 0..self.ags.len() {
            if self.ags[a].ends != now || self.ags[a].members.is_empty() {
                continue;
            }
            let members = std::mem::take(&mut self.ags[a].members);
            let home = self.map.region(self.ags[a].x, self.ags[a].y);
            for p in members {
                let back = self.rng.random::<f64>() < self.overhead.return_rate;
                self.players[p].ag = None;
                if self.ags[a].p2p {
                    if back {
                        self.players[p].server = Some(home);
                    } else {
                        self.players[p].alive = false;
                        gone += 1;
                    }
                }
            }
        }
        gone
    }
}

impl World {
    fn spawn(&mut self, (x, y): (f64, f64), ag: Option<usize>, server: usize) -> usize {
        let rng = &mut self.rng;
        let net = [
            2000.0 * rng.random::<f64>() - 1000.0,
            2000.0 * rng.random::<f64>() - 1000.0,
        ];
        let uptime = (0..10)
            .map(|_| sample_gamma(rng, GAMMA_K, GAMMA_THETA))
            .collect();
        let ends = self.step + minutes(rng);
        self.players.push(Player {
            x,
            y,
            net,
            ag,
            server: Some(server),
            uptime,
            ends,
            alive: true,
        });
        self.players.len() - 1
    }

    fn new_ag(&mut self, size: usize) {
        let s = pick(&mut self.rng, &self.weights);
        let m = self.map;
        let (w, h) = (m.width / m.cols as f64, m.height / m.rows as f64);
        let cx = ((s % m.cols) as f64 + self.rng.random::<f64>()) * w;
        let cy = ((s / m.cols) as f64 + self.rng.random::<f64>()) * h;
        let a = self.ags.len();
        let ends = self.step + self.rng.random_range(10..=60);
        self.ags.push(Ag {
            members: Vec::new(),
            ends,
            p2p: false,
            x: cx,
            y: cy,
        });
        for _ in 0..size {
            let x = (cx + 5.0 * (2.0 * self.rng.random::<f64>() - 1.0)).clamp(0.0, m.width);
            let y = (cy + 5.0 * (2.0 * self.rng.random::<f64>() - 1.0)).clamp(0.0, m.height);
            let p = self.spawn((x, y), Some(a), s);
            self.ags[a].members.push(p);
        }
    }

    /// `n` connections: 10% main game, the rest in new AGs of the mix.
    fn connect(&mut self, n: u64) {
        let main = (0.1 * n as f64).round() as u64;
        let mut left = n - main;
        let shares: Vec<f64> = self.mix.iter().map(|m| m.1).collect();
        while left > 0 {
            let mut z = self.mix[pick(&mut self.rng, &shares)].0 as u64;
            if z > left {
                match self
                    .mix
                    .iter()
                    .map(|m| m.0 as u64)
                    .filter(|&s| s <= left)
                    .max()
                {
                    Some(s) => z = s,
                    None => break,
                }
            }
            self.new_ag(z as usize);
            left -= z;
        }
        for _ in 0..(main + left) {
            let (x, y) = (
                self.rng.random::<f64>() * self.map.width,
                self.rng.random::<f64>() * self.map.height,
            );
            let s = self.map.region(x, y);
            self.spawn((x, y), None, s);
        }
    }

    /// Main-game players step up to 10 units; a region crossing changes
    /// the server.
    fn movement(&mut self) {
        let m = self.map;
        for p in 0..self.players.len() {
            let (dx, dy) = (self.rng.random::<f64>(), self.rng.random::<f64>());
            let pl = &mut self.players[p];
            if !pl.alive || pl.ag.is_some() || pl.server.is_none() {
                continue;
            }
            let before = m.region(pl.x, pl.y);
            pl.x = (pl.x + 20.0 * dx - 10.0).clamp(0.0, m.width);
            pl.y = (pl.y + 20.0 * dy - 10.0).clamp(0.0, m.height);
            let after = m.region(pl.x, pl.y);
            if after != before {
                pl.server = Some(after);
            }
        }
    }
}

impl World {
    /// The cluster as an AG instance: its players (snapshot index → world
    /// index) and AGs with a member on a server.
    pub fn snapshot(&self) -> (AgInstance, Vec<usize>) {
        let on: Vec<usize> = (0..self.players.len())
            .filter(|&p| self.players[p].alive && self.players[p].server.is_some())
            .collect();
        let mut ag_of = vec![usize::MAX; self.ags.len()];
        let mut members: Vec<Vec<usize>> = Vec::new();
        let mut ag = Vec::with_capacity(on.len());
        for (i, &p) in on.iter().enumerate() {
            ag.push(self.players[p].ag.map(|a| {
                if ag_of[a] == usize::MAX {
                    ag_of[a] = members.len();
                    members.push(Vec::new());
                }
                members[ag_of[a]].push(i);
                ag_of[a]
            }));
        }
        let pl = |f: &dyn Fn(&Player) -> f64| {
            on.iter()
                .map(|&p| f(&self.players[p]))
                .collect::<Vec<f64>>()
        };
        let inst = AgInstance {
            name: format!("sim-minute-{}", self.step),
            server_names: None,
            max_load: self.max_load.clone(),
            margin: 0.1,
            map: self.map,
            x: pl(&|p| p.x),
            y: pl(&|p| p.y),
            net: on.iter().map(|&p| self.players[p].net).collect(),
            ag,
            server: on
                .iter()
                .map(|&p| self.players[p].server.unwrap_or(0))
                .collect(),
            uptime: on.iter().map(|&p| self.players[p].uptime.clone()).collect(),
            cluster_net: [0.0, 0.0],
            overhead: self.overhead,
            members,
            source: None,
        };
        (inst, on)
    }

    /// A balancing round by `engine`; `(moved, messages, loads consistent)`.
    fn balance(&mut self, engine: &str, cfg: &AgReproConfig) -> (u64, f64, bool) {
        let (inst, on) = self.snapshot();
        let Some(r) = balance(engine, &inst, &cfg.opts()) else {
            return (0, 0.0, true);
        };
        for (i, d) in r.sol.assign.iter().enumerate() {
            let p = on[i];
            self.players[p].server = match d {
                Some(Dest::Server(s)) => Some(*s),
                _ => None,
            };
            if let (None, Some(a)) = (self.players[p].server, self.players[p].ag) {
                self.ags[a].p2p = true;
            }
        }
        let ok = self.loads().0 == r.m.loads_after;
        (r.m.players_moved, r.m.overhead_total, ok)
    }

    /// One minute: AG ends, sessions, connections, movement, balancing.
    pub fn minute(&mut self, engine: &str, cfg: &AgReproConfig, ratio: f64) -> StepRecord {
        self.step += 1;
        if self.step % 20 == 0 {
            let sp = self.spread;
            self.weights = (0..self.weights.len())
                .map(|_| 1.0 + sp * (2.0 * self.rng.random::<f64>() - 1.0))
                .collect();
        }
        let before = self.players();
        let disconnects = self.ag_ends() + self.sessions();
        self.carry += ratio * disconnects as f64;
        let connects = self.carry.floor();
        self.carry -= connects;
        let connects = connects as u64;
        self.connect(connects);
        self.movement();
        let over = |w: &World| {
            let l = w.loads().0;
            l.iter().zip(&w.max_load).filter(|(l, m)| l > m).count()
        };
        let overloaded_before = over(self);
        let (moved, messages, loads_ok) = if overloaded_before > 0 {
            self.balance(engine, cfg)
        } else {
            (0, 0.0, true)
        };
        let (loads, p2p) = self.loads();
        let players = self.players();
        let cluster: u64 = loads.iter().sum();
        StepRecord {
            step: self.step,
            players,
            cluster,
            p2p,
            connects,
            disconnects,
            overloaded_before,
            overloaded_after: over(self),
            moved,
            messages,
            max_load: loads.iter().copied().max().unwrap_or(0),
            invariants: loads_ok
                && players == before + connects - disconnects
                && cluster + p2p == players,
        }
    }
}

/// Minutes simulated: 60 (`--quick`: 20).
pub fn minutes_of(cfg: &AgReproConfig) -> usize {
    if cfg.quick {
        20
    } else {
        60
    }
}

/// Connections per disconnection: scenario A 1 / 1.1, B 1.2.
pub fn connection_ratio(s: char) -> f64 {
    if s == 'a' {
        1.0 / 1.1
    } else {
        1.2
    }
}

/// Simulates scenario `s` under `engine`: one record per minute.
pub fn simulate(cfg: &AgReproConfig, s: char, engine: &str) -> Result<Vec<StepRecord>> {
    let mut w = World::new(cfg, s)?;
    Ok((0..minutes_of(cfg))
        .map(|_| w.minute(engine, cfg, connection_ratio(s)))
        .collect())
}

/// The per-minute table of one run.
pub fn steps_csv(recs: &[StepRecord]) -> Csv {
    let mut t = Csv::new(&[
        "minute",
        "players",
        "cluster",
        "p2p",
        "connects",
        "disconnects",
        "overloaded_before",
        "overloaded_after",
        "moved",
        "messages",
        "max_load",
        "invariants",
    ]);
    for r in recs {
        t.push(vec![
            r.step.to_string(),
            r.players.to_string(),
            r.cluster.to_string(),
            r.p2p.to_string(),
            r.connects.to_string(),
            r.disconnects.to_string(),
            r.overloaded_before.to_string(),
            r.overloaded_after.to_string(),
            r.moved.to_string(),
            cell(r.messages),
            r.max_load.to_string(),
            u8::from(r.invariants).to_string(),
        ]);
    }
    t
}

/// Every simulation: `sim-<scenario>-<engine>` per-minute tables and the
/// `sim` summary (one row per run).
pub fn simulations(cfg: &AgReproConfig) -> Result<Vec<(String, Csv)>> {
    let mut out = Vec::new();
    let mut sum = Csv::new(&[
        "run",
        "scenario",
        "engine",
        "rounds",
        "moved",
        "messages",
        "max_overloaded_after",
        "peak_load",
        "final_players",
        "final_p2p",
        "invariants",
    ]);
    for s in ['a', 'b'] {
        for e in SIM_ENGINES {
            let recs = simulate(cfg, s, e)?;
            let last = recs.last().cloned().unwrap_or_default();
            sum.push(vec![
                format!("{s}/{e}"),
                s.to_string(),
                e.to_string(),
                recs.iter()
                    .filter(|r| r.overloaded_before > 0)
                    .count()
                    .to_string(),
                recs.iter().map(|r| r.moved).sum::<u64>().to_string(),
                cell(recs.iter().map(|r| r.messages).sum()),
                recs.iter()
                    .map(|r| r.overloaded_after)
                    .max()
                    .unwrap_or(0)
                    .to_string(),
                recs.iter()
                    .map(|r| r.max_load)
                    .max()
                    .unwrap_or(0)
                    .to_string(),
                last.players.to_string(),
                last.p2p.to_string(),
                u8::from(recs.iter().all(|r| r.invariants)).to_string(),
            ]);
            out.push((format!("sim-{s}-{e}"), steps_csv(&recs)));
        }
    }
    out.push(("sim".into(), sum));
    Ok(out)
}
