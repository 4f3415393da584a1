//! Dynamic CMA: the seed 002 Fig. 1/Fig. 3 fixture, J-SA/L-SA = optimum
//! after every event, greedy policies within capacity, refusals.

use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serverpick::app::cma::events::write_simulation;
use serverpick::problems::cma::file::read_cma;
use serverpick::problems::cma::model::{CmaEvent, CmaInstance};
use serverpick::problems::cma::sim::{simulate, Policy, SimOptions};
use serverpick::Error;
use std::path::Path;

fn fig3() -> CmaInstance {
    read_cma(Path::new("instances/cma-paper-fig3.json")).unwrap()
}

#[test]
fn paper_fig1_join_and_fig3_leave() {
    let inst = fig3();
    for policy in ["j-sa/l-sa", "j-sa-rebuild/l-sa-rebuild", "bf"] {
        let sim = simulate(&inst, policy, &SimOptions::default()).unwrap();
        let r = &sim.records;
        // Fig. 1(d): f joins H, b moves H → I; total 30.
        assert_eq!(r[0].total_delay, 30.0, "{policy}");
        assert_eq!(r[0].mirror, Some(1), "{policy}");
        assert_eq!(r[0].transfers, 1, "{policy}");
        // Fig. 3: c leaves; L-SA moves a → H and e → G; total 22.
        assert_eq!(r[1].total_delay, 22.0, "{policy}");
        assert_eq!(r[1].transfers, 2, "{policy}");
        if policy != "bf" {
            let want = vec![Some(1), Some(2), None, Some(0), Some(0), Some(1)];
            assert_eq!(sim.final_assign, want, "{policy}");
        }
    }
    // The non-optimal algorithms keep a worse state.
    let sim = simulate(&inst, "j-greedy/l-ignore", &SimOptions::default()).unwrap();
    assert!(sim.records[1].total_delay > 22.0);
}

#[test]
fn sa_needs_an_optimal_partner_and_start() {
    for bad in [
        "j-sa/l-greedy",
        "j-greedy/l-sa",
        "j-sa/l-ignore",
        "j-sa/l-sa-rebuild",
    ] {
        match Policy::parse(bad) {
            Err(Error::Usage(m)) => assert!(m.contains("refused") || m.contains("mixes"), "{m}"),
            other => panic!("{bad}: {other:?}"),
        }
    }
    assert!(matches!(Policy::parse("j-best/l-sa"), Err(Error::Usage(_))));
    let mut inst = fig3();
    // a non-optimal start: a and b on I, e and f absent, c, d on G: move a to H lowers it.
    inst.start = Some(vec![Some(2), Some(2), Some(0), Some(0), None, None]);
    inst.events = Some(vec![CmaEvent::Join(4)]);
    for policy in ["j-sa/l-sa", "j-sa-rebuild/l-sa-rebuild"] {
        match simulate(&inst, policy, &SimOptions::default()) {
            Err(Error::Usage(m)) => assert!(m.contains("not optimal"), "{m}"),
            other => panic!("{policy}: {other:?}"),
        }
    }
    assert!(simulate(&inst, "j-greedy/l-greedy", &SimOptions::default()).is_ok());
    assert!(simulate(&inst, "bf", &SimOptions::default()).is_ok());
}

/// A random dynamic instance: `n` rows, `k` mirrors, events keeping the
/// present count within the total capacity.
fn random_dynamic(seed: u64, n: usize, k: usize, ties: bool) -> CmaInstance {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let delay: Vec<f64> = (0..n * k)
        .map(|_| {
            if ties {
                f64::from(rng.random_range(0u32..8))
            } else {
                rng.random_range(0.0..200.0)
            }
        })
        .collect();
    let cap: Vec<usize> = (0..k).map(|_| rng.random_range(0..=n / 2)).collect();
    let total: usize = cap.iter().sum();
    let mut inst = CmaInstance::new(format!("rand-{seed}"), cap, delay).unwrap();
    let mut present: Vec<usize> = Vec::new();
    let mut absent: Vec<usize> = (0..n).collect();
    absent.shuffle(&mut rng);
    let mut events = Vec::new();
    for _ in 0..4 * n {
        let join = !absent.is_empty()
            && present.len() < total
            && (present.is_empty() || rng.random_bool(0.6));
        if join {
            let i = absent.pop().unwrap();
            present.push(i);
            events.push(CmaEvent::Join(i));
        } else if !present.is_empty() {
            let p = rng.random_range(0..present.len());
            let i = present.swap_remove(p);
            absent.insert(rng.random_range(0..=absent.len()), i);
            events.push(CmaEvent::Leave(i));
        }
    }
    inst.events = Some(events);
    inst
}

#[test]
fn sa_policies_stay_optimal_after_every_event() {
    let opts = SimOptions {
        verify: true,
        ..SimOptions::default()
    };
    for seed in 0..40u64 {
        let (n, k) = (10 + (seed as usize % 5) * 8, 2 + seed as usize % 5);
        let inst = random_dynamic(seed, n, k, seed % 2 == 0);
        for policy in ["j-sa/l-sa", "j-sa-rebuild/l-sa-rebuild", "bf"] {
            let sim = simulate(&inst, policy, &opts).unwrap();
            for r in &sim.records {
                let opt = r.optimal_total.unwrap();
                assert!(
                    (r.total_delay - opt).abs() <= 1e-7 * opt.max(1.0),
                    "seed {seed} {policy} step {}: {} vs optimum {opt}",
                    r.step,
                    r.total_delay
                );
            }
        }
    }
}

#[test]
fn greedy_policies_respect_capacity_and_are_never_below_the_optimum() {
    let opts = SimOptions {
        verify: true,
        ..SimOptions::default()
    };
    for seed in 100..120u64 {
        let inst = random_dynamic(seed, 30, 4, seed % 2 == 0);
        for policy in ["j-greedy/l-greedy", "j-greedy/l-ignore"] {
            // simulate() errors if the evaluator finds a capacity violation.
            let sim = simulate(&inst, policy, &opts).unwrap();
            for r in &sim.records {
                assert!(r.total_delay >= r.optimal_total.unwrap() - 1e-7);
            }
        }
    }
}

#[test]
fn simulation_outputs_are_written() {
    let dir = tempfile::tempdir().unwrap();
    let inst = fig3();
    let sim = simulate(&inst, "j-sa/l-sa", &SimOptions::default()).unwrap();
    write_simulation(dir.path(), &inst, &sim).unwrap();
    let csv = std::fs::read_to_string(dir.path().join("events.csv")).unwrap();
    let header = csv.lines().next().unwrap();
    for col in [
        "step",
        "kind",
        "client",
        "present",
        "total_delay",
        "avg_delay",
        "max_delay",
        "transfers",
        "time_us",
    ] {
        assert!(header.split(',').any(|c| c == col), "{col}");
    }
    assert_eq!(csv.lines().count(), 3);
    let jsonl = std::fs::read_to_string(dir.path().join("events.jsonl")).unwrap();
    let last: serde_json::Value = serde_json::from_str(jsonl.lines().last().unwrap()).unwrap();
    assert_eq!(last["kind"], "leave");
    assert_eq!(last["total_delay"], 22.0);
    let md = std::fs::read_to_string(dir.path().join("summary.md")).unwrap();
    assert!(md.contains("j-sa/l-sa"));
}

#[test]
fn a_static_instance_cannot_be_simulated() {
    let inst = read_cma(Path::new("instances/cma-small.json")).unwrap();
    assert!(matches!(
        simulate(&inst, "bf", &SimOptions::default()),
        Err(Error::Usage(_))
    ));
}

#[test]
fn the_small_dynamic_example_runs_under_every_policy() {
    let inst = read_cma(Path::new("instances/cma-dynamic-small.json")).unwrap();
    let opts = SimOptions {
        verify: true,
        ..SimOptions::default()
    };
    let mut finals = Vec::new();
    for policy in serverpick::problems::cma::sim::POLICY_NAMES {
        let sim = simulate(&inst, policy, &opts).unwrap();
        assert_eq!(sim.records.len(), 220, "{policy}");
        let last = sim.records.last().unwrap();
        if policy.contains("sa") || policy == "bf" {
            for r in &sim.records {
                let opt = r.optimal_total.unwrap();
                assert!(
                    (r.total_delay - opt).abs() <= 1e-7 * opt.max(1.0),
                    "{policy} step {}",
                    r.step
                );
            }
        }
        finals.push((policy, last.total_delay));
    }
    // the status quo is never better than the optimal policies at the end
    let opt = finals[0].1;
    assert!(finals.iter().all(|(_, t)| *t >= opt - 1e-7), "{finals:?}");
}

#[test]
fn incremental_sa_stays_optimal_when_mirrors_hold_many_clients() {
    // Up to ~150 clients per mirror: the move graph switches between its
    // small mode (<= 48 clients on a mirror) and its heap mode.
    let opts = SimOptions {
        verify: true,
        ..SimOptions::default()
    };
    for seed in 200..204u64 {
        let inst = random_dynamic(seed, 300, 3, seed % 2 == 0);
        let sim = simulate(&inst, "j-sa/l-sa", &opts).unwrap();
        for r in &sim.records {
            let opt = r.optimal_total.unwrap();
            assert!(
                (r.total_delay - opt).abs() <= 1e-7 * opt.max(1.0),
                "seed {seed} step {}: {} vs {opt}",
                r.step,
                r.total_delay
            );
        }
    }
}
