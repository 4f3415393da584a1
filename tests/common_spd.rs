//! Seeded random SPD instances shared by the integration tests: every
//! generator they use lives here (sparse, complete, tiny with gaps).
#![allow(dead_code)]

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serverpick::net::network::ServerNetwork;
use serverpick::problems::spd::model::{BoundSpec, CommModel, SpdInstance};

/// A random instance: `n` servers on a random connected graph, `m` clients,
/// integer latencies (so ties happen), bound `f·Γ`.
pub fn random_spd(n: usize, m: usize, model: CommModel, f: f64, seed: u64) -> SpdInstance {
    random_spd_in(n, m, model, f, seed, 20, 60)
}

/// As [`random_spd`], with link latencies in `1..max_link` and access
/// latencies in `1..max_access` (small ranges give many ties).
pub fn random_spd_in(
    n: usize,
    m: usize,
    model: CommModel,
    f: f64,
    seed: u64,
    max_link: i32,
    max_access: i32,
) -> SpdInstance {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut links = Vec::new();
    for v in 1..n {
        let u = rng.random_range(0..v);
        links.push((u, v, f64::from(rng.random_range(1..max_link))));
    }
    for u in 0..n {
        for v in u + 1..n {
            if rng.random::<f64>() < 0.3 {
                links.push((u, v, f64::from(rng.random_range(1..max_link))));
            }
        }
    }
    let access: Vec<Vec<Option<f64>>> = (0..m)
        .map(|_| {
            (0..n)
                .map(|_| Some(f64::from(rng.random_range(1..max_access))))
                .collect()
        })
        .collect();
    let net = ServerNetwork::new(n, &links);
    SpdInstance::new(
        format!("rand-{n}s-{m}c-{seed}"),
        model,
        net,
        &access,
        BoundSpec::Factor(f),
    )
    .expect("valid random instance")
}

/// A seeded random SPD instance: complete symmetric server latencies
/// uniform in [5, 60) (× 0.7, the well-provisioned network), access uniform
/// in [10, 150), bound `f · Γ`.
#[allow(clippy::needless_range_loop)]
pub fn random_spd_complete(seed: u64, n: usize, m: usize, model: CommModel, f: f64) -> SpdInstance {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut mat = vec![vec![None; n]; n];
    for i in 0..n {
        mat[i][i] = Some(0.0);
        for j in i + 1..n {
            let d = 0.7 * rng.random_range(5.0..60.0);
            mat[i][j] = Some(d);
            mat[j][i] = Some(d);
        }
    }
    let access: Vec<Vec<Option<f64>>> = (0..m)
        .map(|_| {
            (0..n)
                .map(|_| Some(rng.random_range(10.0..150.0)))
                .collect()
        })
        .collect();
    let net = ServerNetwork::from_matrix(&mat);
    SpdInstance::new(
        format!("rand-{seed}"),
        model,
        net,
        &access,
        BoundSpec::Factor(f),
    )
    .unwrap()
}

/// A random tiny instance: integer latencies (many ties), some missing
/// access, links drawn with probability `p_link` (may be disconnected).
pub fn random_spd_tiny(
    model: CommModel,
    n: usize,
    m: usize,
    p_link: f64,
    f: f64,
    seed: u64,
) -> SpdInstance {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut links = Vec::new();
    for u in 0..n {
        for v in u + 1..n {
            if rng.random::<f64>() < p_link {
                links.push((u, v, f64::from(rng.random_range(1..=10u32))));
            }
        }
    }
    let access: Vec<Vec<Option<f64>>> = (0..m)
        .map(|_| {
            (0..n)
                .map(|_| {
                    (rng.random::<f64>() < 0.85).then(|| f64::from(rng.random_range(1..=20u32)))
                })
                .collect()
        })
        .collect();
    let net = ServerNetwork::new(n, &links);
    SpdInstance::new("tiny", model, net, &access, BoundSpec::Factor(f)).expect("valid instance")
}

/// The lexicographic SPD key: hosts, delay, variation.
pub type Key = (usize, f64, f64);

/// The least key over every assignment in which client `c` takes a server of
/// `options[c]` (and every root of `roots`), scored by the evaluator;
/// `None` when none is feasible or some client has no option.
pub fn best_over_assignments(
    inst: &SpdInstance,
    options: &[Vec<usize>],
    roots: &[Option<usize>],
) -> Option<Key> {
    use serverpick::problems::spd::eval::{evaluate_spd, lex_less};
    use serverpick::problems::spd::model::SpdSolution;
    let m = options.len();
    if options.iter().any(Vec::is_empty) {
        return None;
    }
    let mut best: Option<Key> = None;
    let mut idx = vec![0usize; m];
    loop {
        let assign: Vec<usize> = (0..m).map(|c| options[c][idx[c]]).collect();
        for &root in roots {
            let sol = SpdSolution {
                root,
                assign: assign.clone(),
            };
            let ev = evaluate_spd(inst, &sol);
            if let (true, Some(mt)) = (ev.is_feasible(), ev.metrics) {
                if best.is_none_or(|b| lex_less(mt.key(), b)) {
                    best = Some(mt.key());
                }
            }
        }
        let mut c = 0;
        while c < m {
            idx[c] += 1;
            if idx[c] < options[c].len() {
                break;
            }
            idx[c] = 0;
            c += 1;
        }
        if c == m {
            return best;
        }
    }
}

/// The papers' generator (`gen spd`) at `n` servers × `m` clients, bound
/// factor `f`, generator seed `seed`.
pub fn paper_spd(n: usize, m: usize, model: CommModel, f: f64, seed: u64) -> SpdInstance {
    use serverpick::problems::spd::gen::{generate_paper_spd, PaperSpdParams};
    let p = PaperSpdParams {
        servers: n,
        clients: m,
        model,
        bound_factor: f,
        ..PaperSpdParams::default()
    };
    generate_paper_spd(&p, seed).expect("the paper generator")
}
