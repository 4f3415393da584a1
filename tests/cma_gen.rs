//! The CMA generator: seeded, the seed 002 §4 scenario shapes, measured
//! matrices, and round trips through the file format.

use serverpick::problems::cma::file::{read_cma, write_cma};
use serverpick::problems::cma::gen::{
    brite_like, brite_top_down, generate_cma, paper_set_config, paper_set_seed, BriteConfig,
    EdgeConn, GenCmaConfig, Scenario, Topology,
};
use serverpick::problems::cma::model::CmaEvent;
use std::path::Path;

fn cfg(scenario: Scenario, mirrors: usize, clients: usize) -> GenCmaConfig {
    GenCmaConfig {
        scenario,
        mirrors,
        clients: Some(clients),
        brite: BriteConfig {
            ases: 6,
            ..BriteConfig::seed_002()
        },
        seed: 11,
        ..GenCmaConfig::default()
    }
}

/// Inter-AS links of each AS: (AS, router) endpoints.
fn border_routers(topo: &Topology, per_as: usize) -> Vec<Vec<usize>> {
    let ases = topo.nodes() / per_as;
    let mut out = vec![Vec::new(); ases];
    for u in 0..topo.nodes() {
        for (v, _) in topo.neighbours(u) {
            if v / per_as != u / per_as {
                out[u / per_as].push(u);
            }
        }
    }
    out
}

#[test]
fn brite_like_topology_is_connected_with_brites_link_counts() {
    use rand::SeedableRng;
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
    let topo = brite_like(6, 40, &mut rng);
    assert_eq!(topo.nodes(), 240);
    assert!(topo.is_connected());
    let d = topo.distances_from(0);
    assert!(d.iter().all(|x| x.is_finite()), "connected");
    // BRITE: incremental Waxman adds m·N links per AS (m = 2, N = 40); the
    // BA AS graph is a clique on m + 1 ASes plus m links per further AS.
    assert_eq!(topo.links(), 6 * 2 * 40 + (3 + 2 * 3));
    for u in 0..topo.nodes() {
        let intra = topo
            .neighbours(u)
            .filter(|&(v, _)| v / 40 == u / 40)
            .count();
        assert!(intra >= 2, "router {u} has {intra} links in its AS");
        assert!(topo
            .neighbours(u)
            .all(|(v, w)| v != u && (0.0..=25.0).contains(&w)));
        let mut nb: Vec<usize> = topo.neighbours(u).map(|(v, _)| v).collect();
        nb.sort_unstable();
        nb.dedup();
        assert_eq!(nb.len(), topo.degree(u), "router {u} has a repeated link");
    }
    let borders = border_routers(&topo, 40);
    assert!(
        borders.iter().all(|b| b.len() >= 2),
        "BA: m = 2 links per AS"
    );
    assert_eq!(borders.iter().map(Vec::len).sum::<usize>(), 2 * 9);
}

#[test]
fn degree_based_edge_connection_uses_one_border_router_per_as() {
    use rand::SeedableRng;
    let per_as = 30;
    for (conn, single) in [
        (EdgeConn::Random, false),
        (EdgeConn::Smallest, true),
        (EdgeConn::SmallestNonLeaf, true),
    ] {
        let cfg = BriteConfig {
            edge_conn: conn,
            ..BriteConfig::new(12, per_as)
        };
        let topo = brite_top_down(&cfg, &mut rand_chacha::ChaCha8Rng::seed_from_u64(9));
        assert!(topo.is_connected());
        let borders = border_routers(&topo, per_as);
        let one_each = borders.iter().all(|b| b.windows(2).all(|w| w[0] == w[1]));
        assert_eq!(one_each, single, "{conn:?}");
        if conn == EdgeConn::SmallestNonLeaf {
            let intra = |u: usize| {
                topo.neighbours(u)
                    .filter(|&(v, _)| v / per_as == u / per_as)
                    .count()
            };
            let least = (0..topo.nodes()).map(intra).min().unwrap();
            assert!(borders.iter().flatten().all(|&u| intra(u) > least));
        }
    }
}

#[test]
fn brite_topologies_are_seeded() {
    use rand::SeedableRng;
    let cfg = BriteConfig::new(5, 30);
    let topo = |s| brite_top_down(&cfg, &mut rand_chacha::ChaCha8Rng::seed_from_u64(s));
    let (a, b, c) = (topo(3), topo(3), topo(4));
    assert_eq!(a.distances_from(7), b.distances_from(7));
    assert_ne!(a.distances_from(7), c.distances_from(7));
}

#[test]
fn the_paper_set_shares_the_topology_and_the_join_population() {
    let join = generate_cma(&paper_set_config(3, Scenario::Join, 5)).unwrap();
    let leave = generate_cma(&paper_set_config(3, Scenario::Leave, 5)).unwrap();
    assert_eq!(
        join.delay_matrix(),
        leave.delay_matrix(),
        "§4.2 replays §4.1"
    );
    assert_eq!(join.capacity, leave.capacity);
    assert_eq!(leave.events.as_ref().unwrap().len(), 2000);
    let mut seeds = std::collections::HashSet::new();
    for s in [Scenario::Join, Scenario::Dynamic, Scenario::Static] {
        for k in [5, 10, 20] {
            assert!(seeds.insert(paper_set_seed(3, s, k)), "{s:?} {k}");
        }
    }
    let cfg = paper_set_config(3, Scenario::Join, 10);
    assert_eq!(cfg.topology_seed, Some(3));
    assert_eq!(cfg.brite.edge_conn, EdgeConn::Smallest);
    assert!(join.source.unwrap().contains("topology seed 3"));
}

#[test]
fn scenarios_have_the_paper_shapes() {
    let join = generate_cma(&cfg(Scenario::Join, 5, 1000)).unwrap();
    assert_eq!(join.capacity, vec![100, 150, 200, 250, 300]);
    let ev = join.events.as_ref().unwrap();
    assert_eq!(ev.len(), 1000);
    assert!(ev.iter().enumerate().all(|(i, e)| *e == CmaEvent::Join(i)));

    let leave = generate_cma(&cfg(Scenario::Leave, 20, 1000)).unwrap();
    assert_eq!(leave.capacity, vec![50; 20]);
    let ev = leave.events.as_ref().unwrap();
    assert_eq!(ev.len(), 2000);
    assert_eq!(ev[1000], CmaEvent::Leave(0), "FIFO leaves");

    let dynamic = generate_cma(&cfg(Scenario::Dynamic, 5, 1300)).unwrap();
    assert_eq!(dynamic.capacity, vec![50, 75, 100, 125, 150]);
    let ev = dynamic.events.as_ref().unwrap();
    assert_eq!(ev.len(), 2200);
    let joins = ev.iter().filter(|e| matches!(e, CmaEvent::Join(_))).count();
    assert_eq!(joins, 1300);
    let first: Vec<bool> = ev[..6]
        .iter()
        .map(|e| matches!(e, CmaEvent::Join(_)))
        .collect();
    assert_eq!(
        first,
        vec![true, true, false, true, true, false],
        "join-join-leave"
    );
    let mut present = 0i64;
    let mut peak = 0;
    for (s, e) in ev.iter().enumerate() {
        present += if matches!(e, CmaEvent::Join(_)) {
            1
        } else {
            -1
        };
        if s == 1199 {
            assert_eq!(present, 400, "filled to 400 after 1200 events");
        }
        peak = peak.max(present);
    }
    assert!(peak <= 500);
}

#[test]
fn generation_is_seeded_and_round_trips() {
    let a = generate_cma(&cfg(Scenario::Static, 4, 300)).unwrap();
    let b = generate_cma(&cfg(Scenario::Static, 4, 300)).unwrap();
    assert_eq!(a.delay_matrix(), b.delay_matrix());
    assert_eq!(a.capacity, b.capacity);
    assert_eq!(a.total_capacity(), 300);
    let mut c = cfg(Scenario::Static, 4, 300);
    c.seed = 12;
    assert_ne!(generate_cma(&c).unwrap().delay_matrix(), a.delay_matrix());
    let dir = tempfile::tempdir().unwrap();
    for csv in [false, true] {
        let path = dir.path().join(format!("s-{csv}.json"));
        write_cma(&path, &a, csv).unwrap();
        let back = read_cma(&path).unwrap();
        assert_eq!(back.capacity, a.capacity);
        for (x, y) in back.delay_matrix().iter().zip(a.delay_matrix()) {
            assert!((x - y).abs() <= 1e-9 * y.max(1.0));
        }
    }
    let d = generate_cma(&cfg(Scenario::Dynamic, 5, 130)).unwrap();
    let path = dir.path().join("d.json");
    write_cma(&path, &d, false).unwrap();
    assert_eq!(read_cma(&path).unwrap().events, d.events);
}

#[test]
fn instances_from_the_planetlab_matrix() {
    // The 100-node sample the repository ships.
    let m = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("data/latency/planetlab490-sample/PlanetLabData_1_100");
    let mut c = cfg(Scenario::Static, 10, 60);
    c.from_matrix = Some(m.to_path_buf());
    let inst = generate_cma(&c).unwrap();
    assert_eq!((inst.clients(), inst.mirrors()), (60, 10));
    let source = inst.source.as_deref().unwrap_or("");
    assert!(source.contains("100 nodes"), "{source}");
    assert!(!source.contains("with replacement"), "{source}");
    c.clients = Some(1000);
    c.scenario = Scenario::Join;
    let inst = generate_cma(&c).unwrap();
    assert!(inst
        .source
        .as_deref()
        .unwrap_or("")
        .contains("with replacement"));
}

#[test]
fn gen_cma_takes_the_edge_connection() {
    let dir = tempfile::tempdir().unwrap();
    let run = |extra: &[&str], out: &str| {
        let path = dir.path().join(out);
        let mut args = vec![
            "gen",
            "cma",
            "--scenario",
            "static",
            "--clients",
            "40",
            "--mirrors",
            "3",
        ];
        args.extend_from_slice(extra);
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_serverpick"))
            .args(&args)
            .arg("--out")
            .arg(&path)
            .output()
            .unwrap();
        (o, path)
    };
    let (o, path) = run(&[], "default.json");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let source = read_cma(&path).unwrap().source.unwrap();
    assert!(source.contains("edgeConn=smallest"), "{source}");
    let (o, path) = run(&["--edge-conn", "random"], "random.json");
    assert!(o.status.success());
    assert!(read_cma(&path)
        .unwrap()
        .source
        .unwrap()
        .contains("edgeConn=random"));
    let (o, _) = run(&["--edge-conn", "nope"], "nope.json");
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--edge-conn nope"));
}

/// fuzz4 (small items): `--slack 0.1` on 200 clients gives a total capacity
/// of 220, not 221 (200 · 1.1 is 220.00000000000003 in floating point).
#[test]
fn static_slack_rounds_up_without_the_floats_last_bits() {
    for (clients, slack, total) in [(200, 0.1, 220), (200, 0.0, 200), (7, 0.5, 11), (3, 0.1, 4)] {
        let c = GenCmaConfig {
            slack,
            ..cfg(Scenario::Static, 3, clients)
        };
        let inst = generate_cma(&c).unwrap();
        let sum: usize = inst.capacity.iter().sum();
        assert_eq!(sum, total, "{clients} clients, slack {slack}");
    }
}
