//! Writes the example ping list and sites file of
//! `data/latency/planetlab490-sample/` from the bundled PlanetLab matrix.
//!
//! `cargo run --release --example pings_example [-- DIR]` (default: that
//! folder). Deterministic (ChaCha8, seed 24):
//!
//! - `pings-example.csv`: `source,destination,avg,min`, one line per node
//!   pair `node<i>,node<j>` with `i < j` (the matrix is symmetric), `avg` the
//!   measured RTT as read by `read_measured_matrix`; `min` is made up
//!   (`0.9 · avg`, rounded to 0.001 ms) so that `--rtt-column` has a second
//!   column to pick. 15 pairs drawn at random are left out.
//! - `sites-example.csv`: `id,population,mirror` for the 100 nodes; the
//!   populations are made up (log-uniform in 1 … 5,000 players, 0 for about
//!   one site in seven) and 25 sites drawn at random are candidate mirrors.

use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serverpick::net::matrix::read_measured_matrix;
use std::collections::HashSet;
use std::fmt::Write as _;
use std::path::PathBuf;

/// Pairs left out of the list.
const REMOVED: usize = 15;
/// Candidate mirrors in the sites file.
const CANDIDATES: usize = 25;

fn main() -> serverpick::Result<()> {
    let dir = std::env::args().nth(1).map_or_else(
        || PathBuf::from("data/latency/planetlab490-sample"),
        PathBuf::from,
    );
    let m = read_measured_matrix(&dir.join("PlanetLabData_1_100"))?;
    let n = m.len();
    let mut rng = ChaCha8Rng::seed_from_u64(24);
    let mut pairs: Vec<(usize, usize)> = (0..n)
        .flat_map(|i| (i + 1..n).map(move |j| (i, j)))
        .collect();
    pairs.shuffle(&mut rng);
    let removed: HashSet<(usize, usize)> = pairs[..REMOVED].iter().copied().collect();
    let mut pings = String::from("source,destination,avg,min\n");
    for (i, row) in m.iter().enumerate() {
        for (j, &avg) in row.iter().enumerate().skip(i + 1) {
            if removed.contains(&(i, j)) {
                continue;
            }
            let min = (avg * 0.9 * 1000.0).round() / 1000.0;
            let _ = writeln!(pings, "node{i},node{j},{avg},{min}");
        }
    }
    let mut order: Vec<usize> = (0..n).collect();
    order.shuffle(&mut rng);
    let candidates: HashSet<usize> = order[..CANDIDATES.min(n)].iter().copied().collect();
    let mut sites = String::from("id,population,mirror\n");
    for i in 0..n {
        let population = if rng.random_range(0..7) == 0 {
            0
        } else {
            (5000f64.ln() * rng.random::<f64>()).exp().round() as u64
        };
        let mirror = if candidates.contains(&i) { "yes" } else { "no" };
        let _ = writeln!(sites, "node{i},{population},{mirror}");
    }
    let write = |name: &str, body: &str| {
        let p = dir.join(name);
        std::fs::write(&p, body).map_err(|e| serverpick::Error::io(&p, e))
    };
    write("pings-example.csv", &pings)?;
    write("sites-example.csv", &sites)?;
    let mut gone: Vec<_> = removed.into_iter().collect();
    gone.sort_unstable();
    eprintln!("left out: {gone:?}");
    Ok(())
}
