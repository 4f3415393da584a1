//! A ranges workload over time (beyond seed 003): players walk between
//! waypoints on a Colyseus map (the sizing of [`super::gen`]), so the hot
//! spots move. Every step is one ranges instance: each player publishes at
//! rate 1 in its cell and subscribes (rate 1) to its area of interest.
//!
//! - `waypoints` random points with Zipf popularity (exponent `zipf`); every
//!   `shift_every` steps the popularity ranks rotate by one waypoint, so the
//!   hottest place moves (0 = never).
//! - A player heads for a point within 2 units of a waypoint drawn by
//!   popularity, at `speed` units per step; on arrival it waits 0–4 steps,
//!   then draws its next waypoint.
//!
//! One seeded ChaCha8 stream; a step costs `O(K + P · AoI)`.

use crate::error::{Error, Result};
use crate::problems::ranges::gen::{MapDraw, MapShape};
use crate::problems::ranges::model::{normalise, Curve, MapSpec, RangesInstance, Subscription};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Workload settings.
#[derive(Debug, Clone, PartialEq)]
pub struct WorkloadConfig {
    /// Map shape.
    pub shape: MapShape,
    /// Players (size the map; one object each).
    pub players: usize,
    /// Nodes (0 = one per player).
    pub nodes: usize,
    /// Linear order.
    pub curve: Curve,
    /// Cells per map unit along each axis.
    pub resolution: usize,
    /// Waypoints (0 = one per 4 players, at least 2).
    pub waypoints: usize,
    /// Zipf exponent of waypoint popularity.
    pub zipf: f64,
    /// Half-width of the area of interest, map units.
    pub aoi: f64,
    /// Map units a player walks per step.
    pub speed: f64,
    /// Steps between popularity rotations (0 = never).
    pub shift_every: usize,
    /// Seed.
    pub seed: u64,
}

impl Default for WorkloadConfig {
    fn default() -> Self {
        WorkloadConfig {
            shape: MapShape::Rect,
            players: 96,
            nodes: 0,
            curve: Curve::Hilbert,
            resolution: 1,
            waypoints: 0,
            zipf: 1.0,
            aoi: 3.0,
            speed: 1.0,
            shift_every: 10,
            seed: 1,
        }
    }
}

#[derive(Debug, Clone)]
struct Player {
    at: (f64, f64),
    goal: (f64, f64),
    wait: usize,
}

/// The moving workload.
#[derive(Debug, Clone)]
pub struct Workload {
    cfg: WorkloadConfig,
    units: (f64, f64),
    cells: (usize, usize),
    rank: Vec<usize>,
    points: Vec<(f64, f64)>,
    weights: Vec<f64>,
    players: Vec<Player>,
    step: usize,
    rng: ChaCha8Rng,
}

impl Workload {
    /// The workload at step 0.
    pub fn new(cfg: &WorkloadConfig) -> Result<Self> {
        let bad = |x: f64| x.is_nan() || x < 0.0 || x.is_infinite();
        if cfg.players == 0
            || cfg.resolution == 0
            || bad(cfg.aoi)
            || bad(cfg.zipf)
            || bad(cfg.speed)
        {
            return Err(Error::Usage(
                "ranges workload: players and resolution must be >= 1; aoi, zipf and speed finite and >= 0"
                    .into(),
            ));
        }
        let mut rng = ChaCha8Rng::seed_from_u64(cfg.seed);
        let map = MapDraw {
            shape: cfg.shape,
            players: cfg.players,
            resolution: cfg.resolution,
            waypoints: cfg.waypoints,
            zipf: cfg.zipf,
            curve: cfg.curve,
        }
        .draw(&mut rng);
        let mut wl = Workload {
            cfg: cfg.clone(),
            units: map.units,
            cells: map.cells,
            rank: map.rank,
            points: map.points,
            weights: map.weights,
            players: Vec::with_capacity(cfg.players),
            step: 0,
            rng,
        };
        for _ in 0..cfg.players {
            let at = wl.destination();
            let goal = wl.destination();
            wl.players.push(Player { at, goal, wait: 0 });
        }
        Ok(wl)
    }

    /// A point within 2 units of a waypoint drawn by popularity.
    fn destination(&mut self) -> (f64, f64) {
        let total: f64 = self.weights.iter().sum();
        let mut pick = self.rng.random_range(0.0..total.max(f64::MIN_POSITIVE));
        let wp = self.weights.iter().position(|&x| {
            pick -= x;
            pick < 0.0
        });
        let (px, py) = self.points[wp.unwrap_or(self.points.len() - 1)];
        let x = (px + self.rng.random_range(-2.0..2.0)).clamp(0.0, self.units.0);
        let y = (py + self.rng.random_range(-2.0..2.0)).clamp(0.0, self.units.1);
        (x, y)
    }

    /// Moves every player one step (and rotates the popularity when due).
    pub fn advance(&mut self) {
        self.step += 1;
        if self.cfg.shift_every > 0 && self.step % self.cfg.shift_every == 0 {
            self.weights.rotate_right(1);
        }
        for p in 0..self.players.len() {
            let pl = &mut self.players[p];
            let (dx, dy) = (pl.goal.0 - pl.at.0, pl.goal.1 - pl.at.1);
            let dist = (dx * dx + dy * dy).sqrt();
            if dist > self.cfg.speed {
                let f = self.cfg.speed / dist;
                pl.at = (pl.at.0 + dx * f, pl.at.1 + dy * f);
                continue;
            }
            pl.at = pl.goal;
            if pl.wait > 0 {
                pl.wait -= 1;
                continue;
            }
            let wait = self.rng.random_range(0..5);
            let goal = self.destination();
            let pl = &mut self.players[p];
            (pl.goal, pl.wait) = (goal, wait);
        }
    }

    fn cell(&self, u: f64, max: usize) -> usize {
        ((u * self.cfg.resolution as f64).floor().max(0.0) as usize).min(max - 1)
    }

    /// The current step as a ranges instance.
    pub fn instance(&self) -> RangesInstance {
        let (w, h) = self.cells;
        let aoi = self.cfg.aoi;
        let mut publish = vec![0.0; w * h];
        let mut subscriptions = Vec::with_capacity(self.players.len());
        for p in &self.players {
            let (x, y) = p.at;
            publish[self.rank[self.cell(y, h) * w + self.cell(x, w)]] += 1.0;
            let (x0, x1) = (self.cell(x - aoi, w), self.cell(x + aoi, w));
            let (y0, y1) = (self.cell(y - aoi, h), self.cell(y + aoi, h));
            let cells: Vec<[usize; 2]> = (y0..=y1)
                .flat_map(|yy| (x0..=x1).map(move |xx| yy * w + xx))
                .map(|c| [self.rank[c]; 2])
                .collect();
            subscriptions.push(Subscription {
                ranges: normalise(&cells),
                rate: 1.0,
            });
        }
        let c = &self.cfg;
        RangesInstance {
            name: format!(
                "ranges-walk-{}p-{}-s{}-t{}",
                c.players,
                c.curve.name(),
                c.seed,
                self.step
            ),
            nodes: if c.nodes == 0 { c.players } else { c.nodes },
            publish,
            subscriptions,
            map: Some(MapSpec {
                width: w,
                height: h,
                curve: c.curve,
            }),
            source: Some(format!(
                "serverpick simulate-ranges step {}: {c:?}",
                self.step
            )),
        }
    }
}
