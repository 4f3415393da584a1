//! `serverpick repro ag` (seed 004 §5): the CLI study, determinism per
//! seed, and the simulation's invariants.

#[path = "common_cli.rs"]
mod common_cli;

use common_cli::{serverpick, text};
use serverpick::app::ag::repro::sim::{connection_ratio, simulate, World};
use serverpick::app::ag::repro::snap::{extras, hotspot};
use serverpick::app::ag::repro::{repro_ag, AgReproConfig};
use serverpick::problems::ag::eval::evaluate;
use serverpick::problems::ag::model::{AgSolution, Dest};
use std::path::Path;

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn csvs(dir: &Path) -> Vec<(String, String)> {
    let mut v: Vec<(String, String)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "csv"))
        .map(|p| {
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                read(&p),
            )
        })
        .collect();
    v.sort();
    v
}

#[test]
fn quick_study_writes_findings_figures_and_is_deterministic() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("ag");
    let o = serverpick(&[
        "repro",
        "ag",
        "--quick",
        "--seed",
        "3",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let md = read(&out.join("findings.md"));
    for claim in [
        "Fig. 9",
        "§5.1",
        "Fig. 10",
        "Fig. 11",
        "Fig. 12",
        "Table 4",
        "Table 5",
        "§5 A (simulation)",
        "§5 B (simulation)",
    ] {
        assert!(
            md.contains(&format!("| {claim}")),
            "{claim} missing from findings.md"
        );
    }
    assert!(md.contains("| invariants | Player counts conserved; loads equal the evaluator's | — | all minutes of all runs: true | yes |"));
    let svgs: Vec<String> = std::fs::read_dir(out.join("figures"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "svg") && read(p).contains("<svg"))
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(svgs.len(), 10, "{svgs:?}");
    for f in [
        "fig9-loads.svg",
        "fig10-messages.svg",
        "fig11-p2p.svg",
        "fig12-return.svg",
    ] {
        assert!(svgs.iter().any(|s| s == f), "{f}");
    }
    let fig9 = read(&out.join("fig9.csv"));
    assert!(fig9.starts_with("server,before,classic,hybrid,exact,max_load,target\n"));
    assert_eq!(fig9.lines().count(), 11);
    // The same seed again, in-process: identical tables.
    let again = dir.path().join("again");
    repro_ag(&AgReproConfig::new(3, true), &again).unwrap();
    let (a, b) = (csvs(&out), csvs(&again));
    assert_eq!(a.len(), 14);
    assert_eq!(a, b, "same seed, different CSV");
}

#[test]
fn bad_flags_are_usage_errors() {
    let o = serverpick(&[
        "repro",
        "ag",
        "--quick",
        "--mix",
        "5:x",
        "--out",
        "/nonexistent/x",
    ]);
    assert!(!o.status.success());
    assert!(text(&o.stderr).contains("--mix"), "{}", text(&o.stderr));
}

#[test]
fn simulation_conserves_players_and_matches_the_evaluator() {
    let cfg = AgReproConfig::new(5, true);
    for s in ['a', 'b'] {
        let mut w = World::new(&cfg, s).unwrap();
        let mut players = w.players();
        for _ in 0..15 {
            let r = w.minute("hybrid", &cfg, connection_ratio(s));
            assert!(r.invariants, "{s} minute {}", r.step);
            assert_eq!(r.players, players + r.connects - r.disconnects);
            players = r.players;
            let (loads, p2p) = w.loads();
            assert_eq!(loads.iter().sum::<u64>() + p2p, players);
            assert_eq!(r.overloaded_after, 0, "{s} minute {}", r.step);
            // The snapshot, everyone staying, has the world's loads.
            let (inst, on) = w.snapshot();
            assert_eq!(on.len() as u64, players - p2p);
            let stay = AgSolution {
                assign: inst.server.iter().map(|&s| Some(Dest::Server(s))).collect(),
                p2p: Vec::new(),
            };
            let ev = evaluate(&inst, &stay);
            assert!(ev.violations.is_empty(), "{:?}", ev.violations);
            assert_eq!(ev.metrics.unwrap().loads_after, loads);
        }
    }
    // Scenario A declines, B grows (connections vs disconnections).
    let a = simulate(&cfg, 'a', "hybrid").unwrap();
    let b = simulate(&cfg, 'b', "hybrid").unwrap();
    let total = |r: &[serverpick::app::ag::repro::sim::StepRecord]| {
        r.iter()
            .map(|x| (x.connects, x.disconnects))
            .fold((0, 0), |s, x| (s.0 + x.0, s.1 + x.1))
    };
    let (ca, da) = total(&a);
    let (cb, db) = total(&b);
    assert!(da > ca && cb > db, "A {ca}/{da}, B {cb}/{db}");
}

#[test]
fn hotspots_put_exactly_the_extra_players_on_server_one() {
    let cfg = AgReproConfig::new(2, true);
    for e in extras(&cfg) {
        let inst = hotspot(&cfg, e).unwrap();
        assert_eq!(inst.loads_before()[0], inst.max_load[0] + e, "extra {e}");
        assert_eq!(
            inst.players(),
            cfg.instance('a').map(|_| inst.players()).unwrap()
        );
    }
}
