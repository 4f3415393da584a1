//! Colyseus' maps and workload (seed 003 §6.3), as ranges instances.
//!
//! - **Sizing.** A 16-player Quake III map is 20 units across (seed 003
//!   §2.3), so a player needs `400 / 16 = 25` square units at full-game
//!   density and the map area grows linearly with the players: a `sqr` map
//!   is `⌈√(25 P)⌉` units square, a `rect` map is 20 units high (one
//!   16-player map's diameter) and `⌈25 P / 20⌉` wide. `resolution` cells
//!   per unit along each axis.
//! - **Workload.** `waypoints` random points with Zipf popularity (exponent
//!   `zipf`, seed 003 Fig. 2(a)); every object (default: one per player)
//!   sits within 2 units of a waypoint drawn by popularity, publishes at rate
//!   1 in its cell and subscribes (rate 1) to the square area of interest of
//!   half-width `aoi` units around it, clipped to the map.
//! - **Order.** Cells are linearised by `curve` (Hilbert, Z-order, row, or
//!   the x key Colyseus' rangedht uses); a subscription's cells become their
//!   merged intervals in that order.
//!
//! Everything is drawn from one seeded ChaCha8 stream. `O(K log K + Σ AoI)`.

use crate::error::{Error, Result};
use crate::problems::ranges::curves::ranks;
use crate::problems::ranges::model::{normalise, Curve, MapSpec, RangesInstance, Subscription};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Map shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MapShape {
    /// Both sides grow with the players.
    Sqr,
    /// 20 units high, the width grows with the players.
    Rect,
}

/// Generator settings.
#[derive(Debug, Clone, PartialEq)]
pub struct GenRangesConfig {
    /// Map shape.
    pub shape: MapShape,
    /// Players (sizes the map).
    pub players: usize,
    /// Nodes (0 = one per player).
    pub nodes: usize,
    /// Publishing and subscribing objects (0 = one per player).
    pub objects: usize,
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
    /// Seed.
    pub seed: u64,
}

impl Default for GenRangesConfig {
    fn default() -> Self {
        GenRangesConfig {
            shape: MapShape::Rect,
            players: 96,
            nodes: 0,
            objects: 0,
            curve: Curve::Hilbert,
            resolution: 1,
            waypoints: 0,
            zipf: 1.0,
            aoi: 3.0,
            seed: 1,
        }
    }
}

/// The map size in units `(width, height)` for `players` players.
pub fn map_units(shape: MapShape, players: usize) -> (usize, usize) {
    let area = 25.0 * players.max(1) as f64;
    match shape {
        MapShape::Sqr => {
            let side = area.sqrt().ceil() as usize;
            (side, side)
        }
        MapShape::Rect => ((area / 20.0).ceil() as usize, 20),
    }
}

/// The map being filled: its size in units and cells, the curve ranks and
/// the waypoints with their Zipf popularity weights.
pub(crate) struct Map {
    pub(crate) units: (f64, f64),
    pub(crate) cells: (usize, usize),
    res: f64,
    pub(crate) rank: Vec<usize>,
    pub(crate) points: Vec<(f64, f64)>,
    pub(crate) weights: Vec<f64>,
}

/// What a map is drawn from (shared by `gen ranges` and the workload of
/// `simulate-ranges`).
pub(crate) struct MapDraw {
    pub(crate) shape: MapShape,
    pub(crate) players: usize,
    pub(crate) resolution: usize,
    /// 0 = one per 4 players, at least 2.
    pub(crate) waypoints: usize,
    pub(crate) zipf: f64,
    pub(crate) curve: Curve,
}

impl MapDraw {
    /// The map: its size from the shape and players, uniform waypoints (the
    /// first random draws of `rng`) with weights `rank^-zipf`.
    pub(crate) fn draw(&self, rng: &mut ChaCha8Rng) -> Map {
        let (wu, hu) = map_units(self.shape, self.players);
        let (w, h) = (wu * self.resolution, hu * self.resolution);
        let nw = if self.waypoints == 0 {
            (self.players / 4).max(2)
        } else {
            self.waypoints
        };
        let points: Vec<(f64, f64)> = (0..nw)
            .map(|_| {
                (
                    rng.random_range(0.0..wu as f64),
                    rng.random_range(0.0..hu as f64),
                )
            })
            .collect();
        Map {
            units: (wu as f64, hu as f64),
            cells: (w, h),
            res: self.resolution as f64,
            rank: ranks(w, h, self.curve),
            points,
            weights: (1..=nw).map(|r| (r as f64).powf(-self.zipf)).collect(),
        }
    }
}

impl Map {
    fn cell(&self, u: f64, max: usize) -> usize {
        ((u * self.res).floor().max(0.0) as usize).min(max - 1)
    }

    /// Places one object: its cell's rank and its AoI subscription.
    fn object(&self, rng: &mut ChaCha8Rng, aoi: f64) -> (usize, Subscription) {
        let total: f64 = self.weights.iter().sum();
        let mut pick = rng.random_range(0.0..total);
        let wp = self.weights.iter().position(|&x| {
            pick -= x;
            pick < 0.0
        });
        let (px, py) = self.points[wp.unwrap_or(self.points.len() - 1)];
        let ((wu, hu), (w, h)) = (self.units, self.cells);
        let x = (px + rng.random_range(-2.0..2.0)).clamp(0.0, wu);
        let y = (py + rng.random_range(-2.0..2.0)).clamp(0.0, hu);
        let at = self.rank[self.cell(y, h) * w + self.cell(x, w)];
        let (x0, x1) = (self.cell(x - aoi, w), self.cell(x + aoi, w));
        let (y0, y1) = (self.cell(y - aoi, h), self.cell(y + aoi, h));
        let cells: Vec<[usize; 2]> = (y0..=y1)
            .flat_map(|yy| (x0..=x1).map(move |xx| (xx, yy)))
            .map(|(xx, yy)| [self.rank[yy * w + xx]; 2])
            .collect();
        let sub = Subscription {
            ranges: normalise(&cells),
            rate: 1.0,
        };
        (at, sub)
    }
}

/// Generates an instance.
pub fn generate_ranges(cfg: &GenRangesConfig) -> Result<RangesInstance> {
    let bad_real = |x: f64| x.is_nan() || x < 0.0;
    if cfg.players == 0 || cfg.resolution == 0 || bad_real(cfg.aoi) || bad_real(cfg.zipf) {
        return Err(Error::Usage(
            "gen ranges: players and resolution must be >= 1, aoi and zipf >= 0".into(),
        ));
    }
    let mut rng = ChaCha8Rng::seed_from_u64(cfg.seed);
    let spec = MapDraw {
        shape: cfg.shape,
        players: cfg.players,
        resolution: cfg.resolution,
        waypoints: cfg.waypoints,
        zipf: cfg.zipf,
        curve: cfg.curve,
    };
    let map = spec.draw(&mut rng);
    let (w, h) = map.cells;
    let objects = if cfg.objects == 0 {
        cfg.players
    } else {
        cfg.objects
    };
    let mut publish = vec![0.0; w * h];
    let mut subscriptions = Vec::with_capacity(objects);
    for _ in 0..objects {
        let (at, sub) = map.object(&mut rng, cfg.aoi);
        publish[at] += 1.0;
        subscriptions.push(sub);
    }
    let shape = match cfg.shape {
        MapShape::Sqr => "sqr",
        MapShape::Rect => "rect",
    };
    Ok(RangesInstance {
        name: format!(
            "ranges-{shape}-{}p-{}-s{}",
            cfg.players,
            cfg.curve.name(),
            cfg.seed
        ),
        nodes: if cfg.nodes == 0 {
            cfg.players
        } else {
            cfg.nodes
        },
        publish,
        subscriptions,
        map: Some(MapSpec {
            width: w,
            height: h,
            curve: cfg.curve,
        }),
        source: Some(format!("serverpick gen ranges: {cfg:?}")),
    })
}
