//! Seed 004 §5's set-up as AG instances, at any size (docs/ag.md).
//!
//! - **World.** A `width × height` map (1000 × 1000) split into `rows × cols`
//!   regions, one server each (10 servers: 2 × 5), capacity `max_load`
//!   (5,500), margin 10%.
//! - **Players.** `load · servers · max_load` players: scenario A (the
//!   moment hot-spots appear, seed 004 §5 "A": the cluster at its capacity,
//!   `load = 1.0`, region weights spread `±0.5` so some servers are over and
//!   others under), scenario B (connections 20% above disconnections,
//!   `load = 1.2`, spread `±0.2`: most servers over). A share `main_share`
//!   (10%) plays the main game, uniform over the map; the rest play in AGs of
//!   the sizes and shares of `mix` (default 5:30, 10:30, 20:20, 25:10, 40:10
//!   percent of the AGs; seed 004's Table 3 is not in its text), each placed
//!   in a region drawn by weight, its players within 5 units of its centre.
//! - **Network.** Network coordinates uniform in `[−1000, 1000]²` (the
//!   paper's triangulated space), the cluster at the origin.
//! - **Uptime.** `history` past sessions per player from gamma(k =
//!   1.157143, θ = 2.419754) hours, rounded to 0.01 h.
//!
//! One seeded ChaCha8 stream; the same settings and seed give the same file.
//! Cost `O(P · history)`.

use crate::error::{Error, Result};
use crate::problems::ag::gamma::sample_gamma;
use crate::problems::ag::model::{AgInstance, GameMap, Overhead, GAMMA_K, GAMMA_THETA};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Generator settings.
#[derive(Debug, Clone, PartialEq)]
pub struct GenAgConfig {
    /// `'a'` or `'b'` (sets the defaults of `load` and `spread`).
    pub scenario: char,
    /// Servers.
    pub servers: usize,
    /// Region rows (0 = the most square grid).
    pub rows: usize,
    /// Capacity per server.
    pub max_load: u64,
    /// Players as a multiple of the cluster's capacity (`None` = scenario's).
    pub load: Option<f64>,
    /// Region weights are `1 ± spread` (`None` = scenario's).
    pub spread: Option<f64>,
    /// Share of main-game players.
    pub main_share: f64,
    /// AG sizes and their shares of the AGs, percent.
    pub mix: Vec<(usize, f64)>,
    /// Past sessions per player.
    pub history: usize,
    /// Seed.
    pub seed: u64,
}

impl Default for GenAgConfig {
    fn default() -> Self {
        GenAgConfig {
            scenario: 'a',
            servers: 10,
            rows: 0,
            max_load: 5500,
            load: None,
            spread: None,
            main_share: 0.1,
            mix: vec![(5, 30.0), (10, 30.0), (20, 20.0), (25, 10.0), (40, 10.0)],
            history: 10,
            seed: 1,
        }
    }
}

/// The most square `rows × cols = n` with `rows <= cols`.
pub fn grid(n: usize) -> (usize, usize) {
    let mut r = (n as f64).sqrt().floor() as usize;
    while r > 1 && n % r != 0 {
        r -= 1;
    }
    let r = r.max(1);
    (r, n / r)
}

fn check(cfg: &GenAgConfig) -> Result<()> {
    let bad = |m: String| Err(Error::Usage(m));
    if cfg.servers == 0 || cfg.max_load == 0 {
        return bad("--servers and --max-load must be >= 1".into());
    }
    if cfg.rows != 0 && cfg.servers % cfg.rows != 0 {
        return bad(format!(
            "--rows {} does not divide --servers {}",
            cfg.rows, cfg.servers
        ));
    }
    if !(0.0..=1.0).contains(&cfg.main_share) {
        return bad("--main-share must be in [0, 1]".into());
    }
    if cfg.mix.is_empty()
        || cfg
            .mix
            .iter()
            .any(|&(z, w)| z == 0 || !(w.is_finite() && w > 0.0))
    {
        return bad("--mix needs SIZE:PERCENT pairs with sizes >= 1 and percents > 0".into());
    }
    if cfg.load.is_some_and(|l| !(l.is_finite() && l >= 0.0)) {
        return bad("--load must be a finite number >= 0".into());
    }
    if cfg.spread.is_some_and(|w| !(0.0..1.0).contains(&w)) {
        return bad("--spread must be in [0, 1)".into());
    }
    if cfg.history > 50 {
        return bad("--history is at most 50".into());
    }
    Ok(())
}

/// One weighted draw (index by weight; the last on rounding).
pub fn pick<R: Rng>(rng: &mut R, weights: &[f64]) -> usize {
    let total: f64 = weights.iter().sum();
    let mut u = rng.random::<f64>() * total;
    for (i, w) in weights.iter().enumerate() {
        u -= w;
        if u < 0.0 {
            return i;
        }
    }
    weights.len() - 1
}

/// Generates an instance.
pub fn generate_ag(cfg: &GenAgConfig) -> Result<AgInstance> {
    check(cfg)?;
    let (load, spread) = match cfg.scenario {
        'a' => (cfg.load.unwrap_or(0.85), cfg.spread.unwrap_or(0.5)),
        'b' => (cfg.load.unwrap_or(1.2), cfg.spread.unwrap_or(0.2)),
        s => return Err(Error::Usage(format!("--scenario {s}: a or b"))),
    };
    let n = cfg.servers;
    let (rows, cols) = if cfg.rows == 0 {
        grid(n)
    } else {
        (cfg.rows, n / cfg.rows)
    };
    let map = GameMap {
        width: 1000.0,
        height: 1000.0,
        rows,
        cols,
    };
    let mut rng = ChaCha8Rng::seed_from_u64(cfg.seed);
    let total = (load.max(0.0) * (n as u64 * cfg.max_load) as f64).round() as usize;
    let weights: Vec<f64> = (0..n)
        .map(|_| 1.0 + spread * (2.0 * rng.random::<f64>() - 1.0))
        .collect();
    let mut inst = empty(cfg, map, n);
    let mut left = total - (cfg.main_share * total as f64).round() as usize;
    let sizes: Vec<f64> = cfg.mix.iter().map(|m| m.1).collect();
    while left > 0 {
        let mut z = cfg.mix[pick(&mut rng, &sizes)].0;
        if z > left {
            match cfg.mix.iter().map(|m| m.0).filter(|&s| s <= left).max() {
                Some(s) => z = s,
                None => break,
            }
        }
        add_ag(&mut inst, &mut rng, &weights, z, cfg.history);
        left -= z;
    }
    while inst.players() < total {
        let (x, y) = (rng.random::<f64>() * 1000.0, rng.random::<f64>() * 1000.0);
        let s = map.region(x, y);
        push_player(&mut inst, &mut rng, cfg.history, (x, y), None, s);
    }
    Ok(inst)
}

fn empty(cfg: &GenAgConfig, map: GameMap, n: usize) -> AgInstance {
    AgInstance {
        name: format!("ag-{}-{}s-s{}", cfg.scenario, n, cfg.seed),
        server_names: None,
        max_load: vec![cfg.max_load; n],
        margin: 0.1,
        map,
        x: Vec::new(),
        y: Vec::new(),
        net: Vec::new(),
        ag: Vec::new(),
        server: Vec::new(),
        uptime: Vec::new(),
        cluster_net: [0.0, 0.0],
        overhead: Overhead::default(),
        members: Vec::new(),
        source: Some(format!("serverpick gen ag {cfg:?}")),
    }
}

fn round(v: f64, step: f64) -> f64 {
    (v / step).round() * step
}

fn add_ag<R: Rng>(
    inst: &mut AgInstance,
    rng: &mut R,
    weights: &[f64],
    size: usize,
    history: usize,
) {
    let m = inst.map;
    let s = pick(rng, weights);
    let (w, h) = (m.width / m.cols as f64, m.height / m.rows as f64);
    let cx = ((s % m.cols) as f64 + rng.random::<f64>()) * w;
    let cy = ((s / m.cols) as f64 + rng.random::<f64>()) * h;
    let a = inst.members.len();
    inst.members.push(Vec::new());
    for _ in 0..size {
        let x = (cx + 5.0 * (2.0 * rng.random::<f64>() - 1.0)).clamp(0.0, m.width);
        let y = (cy + 5.0 * (2.0 * rng.random::<f64>() - 1.0)).clamp(0.0, m.height);
        let p = inst.players();
        inst.members[a].push(p);
        push_player(inst, rng, history, (x, y), Some(a), s);
    }
}

fn push_player<R: Rng>(
    inst: &mut AgInstance,
    rng: &mut R,
    history: usize,
    (x, y): (f64, f64),
    ag: Option<usize>,
    server: usize,
) {
    inst.x.push(round(x, 0.1));
    inst.y.push(round(y, 0.1));
    let nx = round(2000.0 * rng.random::<f64>() - 1000.0, 0.1);
    let ny = round(2000.0 * rng.random::<f64>() - 1000.0, 0.1);
    let net = [nx, ny];
    inst.net.push(net);
    inst.ag.push(ag);
    inst.server.push(server);
    let h = (0..history)
        .map(|_| round(sample_gamma(rng, GAMMA_K, GAMMA_THETA), 0.01))
        .collect();
    inst.uptime.push(h);
}
