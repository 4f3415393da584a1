//! The rank family ("play now", seed 000): every factor against hand-computed
//! values, the 24-player PlayersScore curve, ties and edge cases, the shipped
//! TF2 curves with their discontinuities, properties, input errors, the CLI.
//!
//! Tolerances: factors computed from closed forms are compared with
//! `approx` at a relative 1e-12 (they are the same floating-point
//! expressions); the note's rounded constants (`201.714`, `403.429`) are
//! compared with the exact derivative at a relative 1e-5.

use approx::assert_relative_eq;
use proptest::prelude::*;
use serverpick::problems::rank::eval::evaluate_order;
use serverpick::problems::rank::file::parse_rank;
use serverpick::problems::rank::model::{Player, RankInstance, Server};
use serverpick::problems::rank::ranking::{order, play_now, rank};
use serverpick::problems::rank::score::{self, *};
use serverpick::Error;
use std::path::Path;
use std::process::{Command, Output};

const TIGHT: f64 = 1e-12;

fn server(name: &str, players: u32, max: u32) -> Server {
    Server {
        name: name.into(),
        players,
        max_players: max,
        ping: None,
        perf_score: None,
        skill: None,
        joinable: None,
        favorite: false,
    }
}

fn nobody() -> Player {
    Player::default()
}

#[test]
fn viability_and_its_derivative() {
    assert_relative_eq!(viability(12.0), 0.5, max_relative = TIGHT);
    // 1 / (1 + e^-1)
    assert_relative_eq!(
        viability(14.0),
        0.731_058_578_630_004_9,
        max_relative = TIGHT
    );
    // 1 / (1 + e^6)
    assert_relative_eq!(
        viability(0.0),
        0.002_472_623_156_634_774_3,
        max_relative = TIGHT
    );
    // the exact derivative at 12 is 0.5 · 0.25 = 0.125
    assert_relative_eq!(d_viability(12.0), 0.125, max_relative = 1e-5);
    // against a central finite difference of viability, 0..40 players
    let h = 1e-4;
    for p in 0..=40 {
        let p = f64::from(p);
        let fd = (viability(p + h) - viability(p - h)) / (2.0 * h);
        assert_relative_eq!(d_viability(p), fd, max_relative = 1e-5);
    }
    // no overflow far out
    assert!(d_viability(1e6).is_finite() && d_viability(1e6) >= 0.0);
}

#[test]
fn the_24_player_players_score_curve() {
    // 2/3 V(p) + 1/3 dV(p) max(0, 24 − p − 1), computed by hand from the note
    let want = [
        (0, 0.011_103_339_468_976_105),
        (1, 0.017_576_476_970_368_15),
        (6, 0.159_617_408_101_845_74),
        (10, 0.605_285_646_239_485_1),
        (12, 0.791_665_530_572_470_7),
        (14, 0.782_289_624_349_790_8),
        (16, 0.709_690_312_413_888_7),
        (20, 0.663_507_195_599_161_6),
        (23, 0.663_953_241_522_735_9),
        (24, 0.665_018_251_228_910_2),
    ];
    for (p, v) in want {
        assert_relative_eq!(
            players_score(f64::from(p), 24.0, 2.0 / 3.0, 1.0 / 3.0),
            v,
            max_relative = 1e-9
        );
    }
    // the seeding bump: 12 players beat 16 and 20 (servers about to be viable first)
    let at = |p: f64| players_score(p, 24.0, 2.0 / 3.0, 1.0 / 3.0);
    assert!(at(12.0) > at(16.0) && at(16.0) > at(20.0));
}

#[test]
fn ping_performance_skill_joinable_favorite() {
    assert_relative_eq!(ping_logistic(100.0, 100.0), 0.5, max_relative = TIGHT);
    assert_relative_eq!(
        ping_logistic(140.0, 100.0),
        0.268_941_421_369_995_1,
        max_relative = TIGHT
    );
    assert_relative_eq!(
        ping_logistic(60.0, 100.0),
        0.731_058_578_630_004_9,
        max_relative = TIGHT
    );
    assert_relative_eq!(performance(0.0, 0.2), 0.5, max_relative = TIGHT);
    assert_relative_eq!(
        performance(10.0, 0.2),
        0.880_797_077_977_882_3,
        max_relative = TIGHT
    );
    assert_relative_eq!(
        performance(-10.0, 0.2),
        0.119_202_922_022_117_55,
        max_relative = TIGHT
    );
    // 13 players, skill gap 100: exp(−0.1 · 100 · √12 / (100 √12)) = e^−0.1
    let d = skill_denominator();
    assert_relative_eq!(
        skill_factor(1600.0, 1500.0, 13.0, d),
        (-0.1f64).exp(),
        max_relative = TIGHT
    );
    assert_eq!(skill_factor(9000.0, 0.0, 1.0, d), 1.0);
    assert_eq!(skill_factor(9000.0, 0.0, 0.0, d), 1.0);

    let factor = |b: &Breakdown, n: &str| b.factors.iter().find(|f| f.name == n).unwrap().value;
    let mut s = server("a", 10, 24);
    assert_eq!(factor(&seed000(&nobody(), &s), "joinable"), 1.0);
    s.players = 24; // full
    assert_eq!(factor(&seed000(&nobody(), &s), "joinable"), 0.05);
    s.players = 30; // max_players <= players
    assert_eq!(factor(&seed000(&nobody(), &s), "joinable"), 0.05);
    let mut s = server("a", 10, 24);
    s.joinable = Some(false);
    assert_eq!(factor(&seed000(&nobody(), &s), "joinable"), 0.05);
    s.favorite = true;
    assert_eq!(factor(&seed000(&nobody(), &s), "favorite"), 2.0);
}

#[test]
fn missing_factors_count_as_one() {
    let b = seed000(&nobody(), &server("a", 14, 24));
    for n in ["ping", "performance", "skill"] {
        let f = b.factors.iter().find(|f| f.name == n).unwrap();
        assert!(f.missing && f.value == 1.0, "{n}");
    }
    assert_relative_eq!(b.score, 0.782_289_624_349_790_8, max_relative = 1e-9);
    // a server skill without a player skill is still missing
    let mut s = server("a", 14, 24);
    s.skill = Some(1000.0);
    let b = seed000(&nobody(), &s);
    assert!(b.factors.iter().any(|f| f.name == "skill" && f.missing));
}

fn tiny() -> RankInstance {
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("instances/rank-browser-tiny.json"),
    )
    .unwrap();
    parse_rank(&text, "rank-browser-tiny.json", "x").unwrap()
}

#[test]
fn the_formats_example_by_hand() {
    let inst = tiny();
    let r = rank(&inst, Preset::Seed000);
    // eu-1: PS(14, 24) · ping(48) · perf(6) · skill(|1400−1500|, 14 players)
    assert_eq!(r[0].index, 0);
    assert_relative_eq!(
        r[0].breakdown.score,
        0.425_749_359_208_059_8,
        max_relative = 1e-9
    );
    // eu-2, a favourite: PS(3, 16) · ping(95) · perf(−2) · skill(300, 3) · 2
    assert_relative_eq!(
        r[1].breakdown.score,
        0.010_960_727_086_778_236,
        max_relative = 1e-9
    );
    assert_eq!(play_now(&inst, Preset::Seed000).unwrap().index, 0);
}

#[test]
fn ties_keep_file_order_and_edge_cases() {
    let servers = vec![
        server("twin-a", 5, 24),
        server("empty", 0, 24),
        server("twin-b", 5, 24),
        server("full", 24, 24),
        server("over", 30, 24),
        server("one", 1, 1),
    ];
    let inst = RankInstance::new("t", Preset::Seed000, nobody(), servers);
    let ord = order(&inst, Preset::Seed000);
    let pos = |i: usize| ord.iter().position(|&k| k == i).unwrap();
    assert!(pos(0) < pos(2), "ties keep file order: {ord:?}");
    // play now skips full servers (24/24, 30/24, 1/1) and picks the first twin
    let best = play_now(&inst, Preset::Seed000).unwrap();
    assert_eq!(best.index, 0);
    for preset in Preset::ALL {
        for r in rank(&inst, preset) {
            assert!(r.breakdown.score.is_finite(), "{preset:?} {r:?}");
        }
    }
    // nobody can join: no play-now pick
    let inst = RankInstance::new("f", Preset::Seed000, nobody(), vec![server("full", 8, 8)]);
    assert!(play_now(&inst, Preset::Seed000).is_none());
}

#[test]
fn tf2_curves_as_shipped() {
    for (ping, want) in [
        (0.0, 1.0),
        (25.0, 0.95),
        (50.0, 0.9),
        (100.0, -0.05),
        (150.0, 0.0),
        (225.0, -0.5),
        (300.0, -1.0),
        (450.0, -2.0),
    ] {
        assert_relative_eq!(tf2_ping_score(ping), want, epsilon = 1e-12);
    }
    // the shipped discontinuity: just below 150 ms is near −1, at 150 ms it is 0
    assert!(tf2_ping_score(149.9) < -0.99 && tf2_ping_score(150.0) == 0.0);
    // player count, 24 slots: (0,0) → (8, 0.2) → (20, 1.5) → (24, 0.2); humans + 1
    for (humans, want) in [
        (0, 0.025),
        (7, 0.2),
        (13, 0.85),
        (19, 1.5),
        (21, 0.85),
        (22, 0.525),
    ] {
        assert_relative_eq!(tf2_player_count_score(humans, 24), want, epsilon = 1e-12);
    }
    assert_eq!(tf2_player_count_score(23, 24), -100.0); // no headroom left
    assert_eq!(tf2_player_count_score(3, 16), -100.0); // below 18 slots
    assert_eq!(tf2_player_count_score(0, 40), tf2_player_count_score(0, 33));
    let mut s = server("a", 13, 24);
    s.ping = Some(50.0);
    assert_relative_eq!(
        tf2_quickplay(&nobody(), &s).score,
        0.85 + 6.0 + 0.9,
        epsilon = 1e-12
    );
    s.players = 24;
    assert_eq!(tf2_quickplay(&nobody(), &s).score, -2048.0);
}

#[test]
fn ns2_presets_as_shipped() {
    let mut s = server("a", 0, 32);
    s.ping = Some(150.0);
    let b = ns2_v2(&nobody(), &s);
    let factor = |n: &str| b.factors.iter().find(|f| f.name == n).unwrap().value;
    assert_eq!(factor("ping"), 0.5); // midpoint 150 ms
    assert_eq!(factor("empty"), 0.5);
    // open slots counted up to 24, weights 0.5/0.5
    assert_relative_eq!(
        factor("players"),
        0.5 * viability(0.0) + 0.5 * d_viability(0.0) * 23.0,
        max_relative = TIGHT
    );
    s.players = 32;
    assert_eq!(score::ns2_v2(&nobody(), &s).factors[4].value, 0.5); // full
    s.favorite = true;
    assert_eq!(score::ns2_v2(&nobody(), &s).factors[4].value, 1.0); // favourites are never "full"
    let s = server("b", 12, 24);
    assert_relative_eq!(
        ns2_v1(&nobody(), &s).score,
        0.66 * 0.5 + 0.33 * d_viability(12.0) * 11.0,
        max_relative = TIGHT
    );
}

#[test]
fn the_evaluator_checks_the_order() {
    let inst = tiny();
    let (rep, v) = evaluate_order(&inst, &[1, 0]);
    assert!(v.is_feasible());
    assert_eq!(rep.unwrap().top, "eu-2");
    assert_relative_eq!(
        v.objective.unwrap(),
        -0.010_960_727_086_778_236,
        max_relative = 1e-9
    );
    for bad in [&[0usize][..], &[0, 0], &[0, 7]] {
        let (_, v) = evaluate_order(&inst, bad);
        assert!(!v.is_feasible(), "{bad:?}");
    }
}

fn input_error(text: &str) -> (String, String) {
    match parse_rank(text, "bad.json", "bad") {
        Err(Error::Input(e)) => {
            assert_eq!(e.file, "bad.json");
            (e.field, e.message)
        }
        other => panic!("expected an input error, got {other:?}"),
    }
}

#[test]
fn invalid_input_names_file_field_and_index() {
    let ok_server = r#"{"name": "a", "players": 1, "max_players": 8}"#;
    let wrap = |servers: &str| {
        format!(r#"{{"problem": "rank", "version": 1, "servers": [{ok_server}, {servers}]}}"#)
    };
    let (f, m) = input_error(&wrap(
        r#"{"name": "b", "players": 1, "max_players": 8, "ping": -4}"#,
    ));
    assert_eq!(f, "servers[1].ping");
    assert!(m.contains("-4"), "{m}");
    let (f, m) = input_error(&wrap(
        r#"{"name": "b", "players": 1, "max_players": 8, "colour": 1}"#,
    ));
    assert_eq!(f, "servers[1]");
    assert!(m.contains("colour"), "{m}");
    let (f, _) = input_error(&wrap(r#"{"name": "b", "players": -1, "max_players": 8}"#));
    assert_eq!(f, "servers[1]");
    let (f, m) = input_error(&wrap(r#"{"name": "a", "players": 1, "max_players": 8}"#));
    assert_eq!(f, "servers[1].name");
    assert!(m.contains("servers[0]"), "{m}");
    let (f, m) = input_error(
        r#"{"problem": "rank", "version": 1, "preset": "quake", "servers": [{"name": "a", "players": 1, "max_players": 8}]}"#,
    );
    assert_eq!(f, "preset");
    assert!(m.contains("seed000"), "{m}");
    let (f, _) = input_error(r#"{"problem": "rank", "version": 1, "servers": []}"#);
    assert_eq!(f, "servers");
    let (_, m) = input_error(r#"{"problem": "rank", "version": 1, "servers": [], "extra": 1}"#);
    assert!(m.contains("extra"), "{m}");
}

fn arb_server() -> impl Strategy<Value = Server> {
    (
        0u32..40,
        0u32..40,
        0.0..1000.0f64,
        -20.0..20.0f64,
        0.0..3000.0f64,
        any::<bool>(),
    )
        .prop_map(|(players, max, ping, perf, skill, joinable)| Server {
            name: "s".into(),
            players,
            max_players: max,
            ping: Some(ping),
            perf_score: Some(perf),
            skill: Some(skill),
            joinable: Some(joinable),
            favorite: false,
        })
}

proptest! {
    #[test]
    fn lower_ping_never_scores_lower(s in arb_server(), a in 0.0..1000.0f64, b in 0.0..1000.0f64) {
        let (lo, hi) = if a <= b { (a, b) } else { (b, a) };
        let player = Player { skill: Some(1500.0), favorites: vec![] };
        for preset in [Preset::Seed000, Preset::Ns2V1, Preset::Ns2V2] {
            let mid = if preset == Preset::Ns2V2 { 150.0 } else { 100.0 };
            prop_assert!(ping_logistic(lo, mid) >= ping_logistic(hi, mid));
            let (mut x, mut y) = (s.clone(), s.clone());
            x.ping = Some(lo);
            y.ping = Some(hi);
            prop_assert!(score::score(preset, &player, &x).score >= score::score(preset, &player, &y).score);
        }
    }

    #[test]
    fn a_favorite_doubles_the_score(s in arb_server()) {
        let player = Player { skill: Some(1500.0), favorites: vec![] };
        for preset in [Preset::Seed000, Preset::Ns2V1] {
            let plain = score::score(preset, &player, &s).score;
            let mut fav = s.clone();
            fav.favorite = true;
            let doubled = score::score(preset, &player, &fav).score;
            prop_assert!((doubled - 2.0 * plain).abs() <= 1e-12 * doubled.abs().max(1e-300));
        }
    }
}

fn serverpick(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_serverpick"))
        .args(args)
        .output()
        .expect("the binary runs")
}

#[test]
fn the_rank_command() {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("instances/rank-browser-tiny.json");
    let f = file.to_str().unwrap();
    let o = serverpick(&["rank", f]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = String::from_utf8_lossy(&o.stdout);
    let (a, b) = (out.find("eu-1").unwrap(), out.find("eu-2").unwrap());
    assert!(a < b, "{out}");
    for col in [
        "players",
        "ping",
        "performance",
        "skill",
        "joinable",
        "favorite",
    ] {
        assert!(out.contains(col), "{col} missing from\n{out}");
    }
    let o = serverpick(&[
        "rank",
        f,
        "--play-now",
        "--json",
        "--preset",
        "tf2-quickplay",
    ]);
    assert!(o.status.success());
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["servers"].as_array().unwrap().len(), 1);
    assert_eq!(v["servers"][0]["name"], "eu-1");
    assert_eq!(v["preset"], "tf2-quickplay");
    let o = serverpick(&["rank", f, "--preset", "quake"]);
    assert_eq!(o.status.code(), Some(2));
    let dir = tempfile::tempdir().unwrap();
    let full = dir.path().join("full.json");
    std::fs::write(
        &full,
        r#"{"problem": "rank", "version": 1, "servers": [{"name": "a", "players": 8, "max_players": 8}]}"#,
    )
    .unwrap();
    let o = serverpick(&["rank", full.to_str().unwrap(), "--play-now"]);
    assert_eq!(o.status.code(), Some(1));
    let bad = dir.path().join("bad.json");
    std::fs::write(
        &bad,
        r#"{"problem": "rank", "version": 1, "servers": [{"name": "a", "players": 8, "max_players": 8, "ping": -1}]}"#,
    )
    .unwrap();
    let o = serverpick(&["rank", bad.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("bad.json") && err.contains("servers[0].ping"),
        "{err}"
    );
}

#[test]
fn solve_and_eval_through_the_family() {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("instances/rank-browser-tiny.json");
    let dir = tempfile::tempdir().unwrap();
    let o = serverpick(&[
        "solve",
        file.to_str().unwrap(),
        "--engine",
        "all",
        "--out",
        dir.path().to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("rank-seed000") && out.contains("optimal"),
        "{out}"
    );
    let mut evaluated = 0;
    for entry in std::fs::read_dir(dir.path()).unwrap() {
        let path = entry.unwrap().path();
        let e = serverpick(&["eval", file.to_str().unwrap(), path.to_str().unwrap()]);
        assert!(e.status.success(), "{}", String::from_utf8_lossy(&e.stdout));
        evaluated += 1;
    }
    assert_eq!(evaluated, 4);
    let sol = dir.path().join("bad-order.json");
    std::fs::write(&sol, r#"{"order": [0, 0]}"#).unwrap();
    let e = serverpick(&["eval", file.to_str().unwrap(), sol.to_str().unwrap()]);
    assert_eq!(e.status.code(), Some(1));
}

#[test]
fn j_playnow_takes_the_best_ranked_mirror() {
    use serverpick::problems::cma::join::{j_greedy, j_playnow};
    use serverpick::problems::cma::model::{CmaInstance, CmaState};
    // mirror 0: 10 ms, empty, 20 slots; mirror 1: 60 ms, 11 players, 24 slots
    let rows = vec![vec![10.0, 60.0]; 12];
    let inst = CmaInstance::from_rows("pn", vec![20, 24], &rows).unwrap();
    let mut st = CmaState::empty(&inst);
    for i in 0..11 {
        st.join(i, 1);
    }
    // by hand: 0.0095 · ping(10) = 0.0086 against 0.722 · ping(60) = 0.528
    let mut greedy = st.clone();
    assert_eq!(j_greedy(&inst, &mut greedy, 11).unwrap(), 0);
    assert_eq!(j_playnow(&inst, &mut st, 11).unwrap(), 1);
    // a full mirror is skipped
    let inst = CmaInstance::from_rows("full", vec![20, 11], &rows).unwrap();
    let mut st = CmaState::empty(&inst);
    for i in 0..11 {
        st.join(i, 1);
    }
    assert_eq!(j_playnow(&inst, &mut st, 11).unwrap(), 0);
}

#[test]
fn j_playnow_costs_delay_against_j_sa() {
    use serverpick::problems::cma::file::read_cma;
    use serverpick::problems::cma::sim::{simulate, SimOptions};
    let inst =
        read_cma(&Path::new(env!("CARGO_MANIFEST_DIR")).join("instances/cma-dynamic-small.json"))
            .unwrap();
    let last = |p: &str| {
        let sim = simulate(&inst, p, &SimOptions::default()).unwrap();
        sim.records.last().unwrap().total_delay
    };
    let (sa, pn) = (last("j-sa/l-sa"), last("j-playnow/l-ignore"));
    // j-sa/l-sa keeps the optimum; play now's choices cost delay
    assert!(pn > sa, "j-playnow {pn} vs j-sa {sa}");
    assert!(last("j-playnow/l-greedy") >= sa - 1e-7);
    assert!(simulate(&inst, "j-playnow/l-sa", &SimOptions::default()).is_err());
}
