//! A seeded paper-style SPD instance for measurements (shared by the
//! `spdvr_measure` example and the `chains` bench; the crate's official
//! generator is the lead's `io::gen_spd`).
//!
//! A random connected server network: server `s > 0` links to a random
//! server of lower index (a spanning tree) and to 2 more random servers; link
//! latency uniform in [5, 60) ms × 0.7 (the well-provisioned network, seed 001
//! §IV). Access latencies are independent, uniform in [10, 150) ms. All
//! latencies are then scaled so that Γ = 500 ms (seed 001 §IV-A); μ = f · Γ.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serverpick::model::network::ServerNetwork;
use serverpick::model::spd::{BoundSpec, CommModel, SpdInstance};

fn build(
    n: usize,
    links: &[(usize, usize, f64)],
    access: &[Vec<f64>],
    scale: f64,
    (model, f): (CommModel, f64),
    name: &str,
) -> SpdInstance {
    let links: Vec<(usize, usize, f64)> =
        links.iter().map(|&(u, v, w)| (u, v, w * scale)).collect();
    let net = ServerNetwork::new(n, &links);
    let acc: Vec<Vec<Option<f64>>> = access
        .iter()
        .map(|row| row.iter().map(|&a| Some(a * scale)).collect())
        .collect();
    SpdInstance::new(name, model, net, &acc, BoundSpec::Factor(f)).expect("valid instance")
}

/// The instance for `seed` with `n` servers, `m` clients, bound factor `f`.
pub fn paper_spd(seed: u64, n: usize, m: usize, model: CommModel, f: f64) -> SpdInstance {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut links = Vec::new();
    for s in 1..n {
        let t = rng.random_range(0..s);
        links.push((s, t, 0.7 * rng.random_range(5.0..60.0)));
        for _ in 0..2 {
            let t = rng.random_range(0..n);
            if t != s {
                links.push((s, t, 0.7 * rng.random_range(5.0..60.0)));
            }
        }
    }
    let access: Vec<Vec<f64>> = (0..m)
        .map(|_| (0..n).map(|_| rng.random_range(10.0..150.0)).collect())
        .collect();
    let name = format!("paper-{n}s-{m}c-f{f}-s{seed}");
    let raw = build(n, &links, &access, 1.0, (model, f), &name);
    build(n, &links, &access, 500.0 / raw.gamma, (model, f), &name)
}
