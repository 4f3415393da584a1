//! Rank benchmark (fixed seed): ranking 100,000 servers for one player —
//! every score with its factors and the sort (`rank`, what `serverpick rank`
//! prints) under each preset, the order alone (`order_scores`, what the
//! `rank-<preset>` engines return) and the play-now pick (`play_now`, one
//! pass); and one stretch of the `repro playnow` population simulation.
//! Run:
//! `cargo bench --bench rank`.

use criterion::{criterion_group, criterion_main, Criterion};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serverpick::app::cma::playnow::pool::{
    build_workload, simulate_pool, PingSource, PoolConfig, PoolPolicy,
};
use serverpick::problems::rank::model::{Player, RankInstance, Server};
use serverpick::problems::rank::ranking::{order_scores, play_now, rank};
use serverpick::problems::rank::score::Preset;
use std::time::Duration;

/// `n` servers: 8–64 slots, any occupancy up to full (a few over), ping
/// 5–400 ms, perf −20..20, skill 0–3000, 5% not joinable, 1% favourites.
fn browser(n: usize, seed: u64) -> RankInstance {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let servers: Vec<Server> = (0..n)
        .map(|i| {
            let max = rng.random_range(8u32..=64);
            Server {
                name: format!("s{i}"),
                players: rng.random_range(0..=max + 1),
                max_players: max,
                ping: Some(rng.random_range(5.0..400.0)),
                perf_score: Some(rng.random_range(-20.0..20.0)),
                skill: Some(rng.random_range(0.0..3000.0)),
                joinable: Some(rng.random_bool(0.95)),
                favorite: false,
            }
        })
        .collect();
    let favorites = (0..n / 100).map(|i| format!("s{}", i * 100)).collect();
    let player = Player {
        skill: Some(1500.0),
        favorites,
    };
    RankInstance::new("bench", Preset::Seed000, player, servers)
}

fn rank_100k(c: &mut Criterion) {
    let inst = browser(100_000, 7);
    let mut g = c.benchmark_group("rank_100000_servers");
    g.sample_size(20).measurement_time(Duration::from_secs(4));
    for preset in Preset::ALL {
        g.bench_function(format!("rank/{}", preset.name()), |b| {
            b.iter(|| rank(&inst, preset))
        });
    }
    g.bench_function("order/seed000", |b| {
        b.iter(|| order_scores(&inst, Preset::Seed000))
    });
    g.bench_function("play_now/seed000", |b| {
        b.iter(|| play_now(&inst, Preset::Seed000))
    });
    g.finish();
}

/// One step of the `repro playnow` population study: 24 servers (4 × 64,
/// 10 × 24, 10 × 16), load 0.3, 60 simulated minutes (about 400 arrivals,
/// each one a play-now pick over 24 servers) under `seed000` and the CMA
/// optimum (one exact re-solve per 5-minute sample).
fn playnow_pool(c: &mut Criterion) {
    let cfg = PoolConfig {
        sizes: vec![(64, 4), (24, 10), (16, 10)],
        load: 0.3,
        session_min: 30.0,
        duration_min: 60.0,
        sample_min: 5.0,
        seed: 1,
    };
    let w = build_workload(&cfg, &PingSource::Synthetic { nodes: 200 }).expect("workload");
    let mut g = c.benchmark_group("playnow_pool_60min");
    g.sample_size(20).measurement_time(Duration::from_secs(3));
    for p in [PoolPolicy::Preset(Preset::Seed000), PoolPolicy::CmaOptimum] {
        g.bench_function(p.name(), |b| b.iter(|| simulate_pool(&w, p)));
    }
    g.finish();
}

criterion_group!(benches, rank_100k, playnow_pool);
criterion_main!(benches);
