//! Issue 14, `plan spd`: the delay-bound / host-count frontier checked
//! against an enumeration over host sets (tiny instances, many ties), against
//! direct `exact` solves at and just below every breakpoint, and through the
//! CLI (files written, every point's solution accepted by `eval`).

mod common_cli;
mod common_spd;

use common_cli::{serverpick, text};
use common_spd::{random_spd, random_spd_in};
use proptest::prelude::*;
use serverpick::core::{within_bound, SolveOptions, Status};
use serverpick::problems::spd::engines::{run_spd, spd_engine};
use serverpick::problems::spd::eval::{approx_eq, evaluate_spd};
use serverpick::problems::spd::model::{CommModel, SpdInstance, SpdSolution};
use serverpick::problems::spd::plan::{frontier, just_below, Frontier, PlanOptions};

fn plan(inst: &SpdInstance) -> Frontier {
    let opts = PlanOptions {
        range: (None, None),
        time_limit: Some(120.0),
        seed: 1,
        io: Default::default(),
    };
    frontier(inst, &opts, |_| {}).expect("frontier")
}

/// Calls `f` on every assignment of `m` clients to servers of `hosts`.
fn for_each_assignment(m: usize, hosts: &[usize], mut f: impl FnMut(&[usize])) {
    let mut idx = vec![0usize; m];
    loop {
        let assign: Vec<usize> = idx.iter().map(|&i| hosts[i]).collect();
        f(&assign);
        let mut c = 0;
        while c < m {
            idx[c] += 1;
            if idx[c] < hosts.len() {
                break;
            }
            idx[c] = 0;
            c += 1;
        }
        if c == m {
            return;
        }
    }
}

/// `δ(k)` for every `k`: the least delay of any solution with at most `k`
/// hosts, by enumerating host sets (CS: the root among them) and
/// assignments, scored by the evaluator under an unlimited bound.
fn least_delay_by_hosts(inst: &SpdInstance) -> Vec<Option<f64>> {
    let (n, m) = (inst.servers(), inst.clients());
    let mut free = inst.clone();
    free.bound = 1e12;
    free.bound_factor = None;
    let mut delta = vec![None::<f64>; n + 1];
    for mask in 1u32..(1 << n) {
        let hosts: Vec<usize> = (0..n).filter(|&s| mask & (1 << s) != 0).collect();
        let roots: Vec<Option<usize>> = match inst.model {
            CommModel::Cs => hosts.iter().copied().map(Some).collect(),
            CommModel::P2p => vec![None],
        };
        for_each_assignment(m, &hosts, |assign| {
            for &root in &roots {
                let sol = SpdSolution {
                    root,
                    assign: assign.to_vec(),
                };
                let ev = evaluate_spd(&free, &sol);
                if let (true, Some(mt)) = (ev.is_feasible(), ev.metrics) {
                    let d = &mut delta[mt.hosts];
                    *d = Some(d.map_or(mt.delay, |x: f64| x.min(mt.delay)));
                }
            }
        });
    }
    // at most k hosts
    for k in 1..=n {
        if let Some(prev) = delta[k - 1] {
            delta[k] = Some(delta[k].map_or(prev, |d| d.min(prev)));
        }
    }
    delta
}

/// The breakpoints `(δ(k), k)` where `δ` drops, by decreasing μ.
fn expected_breakpoints(inst: &SpdInstance) -> Vec<(f64, usize)> {
    let delta = least_delay_by_hosts(inst);
    let mut out: Vec<(f64, usize)> = Vec::new();
    for (k, d) in delta.iter().enumerate().skip(1) {
        let Some(d) = *d else { continue };
        if out
            .last()
            .is_none_or(|&(prev, _)| d < prev && !approx_eq(d, prev))
        {
            out.push((d, k));
        }
    }
    out
}

fn matches_enumeration(inst: &SpdInstance) -> Result<(), TestCaseError> {
    let fr = plan(inst);
    let got: Vec<(f64, usize)> = fr.points.iter().map(|p| (p.mu, p.hosts)).collect();
    let want = expected_breakpoints(inst);
    prop_assert!(
        fr.points.iter().all(|p| p.status == "proven"),
        "{:?}",
        fr.points
    );
    prop_assert_eq!(got.len(), want.len(), "got {:?}, want {:?}", got, want);
    for (g, w) in got.iter().zip(&want) {
        prop_assert_eq!(g.1, w.1, "got {:?}, want {:?}", got, want);
        prop_assert!(approx_eq(g.0, w.0), "got {:?}, want {:?}", got, want);
    }
    Ok(())
}

proptest! {
    // small delays (links 1..4, access 1..12) make many ties
    #![proptest_config(ProptestConfig::with_cases(150))]

    #[test]
    fn cs_frontier_matches_enumeration(
        n in 2usize..=5, m in 2usize..=6, seed in any::<u64>()) {
        matches_enumeration(&random_spd_in(n, m, CommModel::Cs, 1.0, seed, 4, 12))?;
    }

    #[test]
    fn p2p_frontier_matches_enumeration(
        n in 2usize..=5, m in 2usize..=6, seed in any::<u64>()) {
        matches_enumeration(&random_spd_in(n, m, CommModel::P2p, 1.0, seed, 4, 12))?;
    }
}

fn exact_at(inst: &SpdInstance, mu: f64) -> (Status, Option<usize>, Option<f64>) {
    let mut at = inst.clone();
    at.bound = mu;
    at.bound_factor = None;
    let rec = run_spd(
        spd_engine("exact").expect("exact"),
        &at,
        &SolveOptions::new(Some(120.0), 0),
    );
    let get = |k: &str| rec.metrics.get(k).and_then(|v| v.as_f64());
    (rec.status, get("hosts").map(|h| h as usize), get("delay"))
}

/// At every breakpoint `(μ, k)` a direct solve needs exactly `k` hosts and
/// its least delay is `μ`; just below `μ` it needs more (or is infeasible).
fn agrees_with_direct_solves(inst: &SpdInstance) {
    let fr = plan(inst);
    assert!(!fr.points.is_empty(), "{}", fr.end);
    for p in &fr.points {
        assert_eq!(p.status, "proven", "{p:?}");
        let (st, hosts, delay) = exact_at(inst, p.mu);
        assert_eq!(st, Status::Optimal, "at μ = {}", p.mu);
        assert_eq!(hosts, Some(p.hosts), "at μ = {}", p.mu);
        assert!(
            approx_eq(delay.unwrap_or(f64::NAN), p.mu),
            "at μ = {}",
            p.mu
        );
        let (st, hosts, _) = exact_at(inst, just_below(p.mu));
        match st {
            Status::Infeasible => {}
            _ => assert!(hosts.is_some_and(|h| h > p.hosts), "below μ = {}", p.mu),
        }
    }
    // the last point is the least feasible bound
    if inst.model == CommModel::Cs {
        let last = fr.points.last().map(|p| p.mu).unwrap_or(f64::NAN);
        assert!(approx_eq(last, inst.gamma), "{last} vs Γ = {}", inst.gamma);
    }
}

#[test]
fn breakpoints_match_direct_exact_solves() {
    for seed in 0..6 {
        agrees_with_direct_solves(&random_spd(8, 20, CommModel::Cs, 1.0, seed));
        agrees_with_direct_solves(&random_spd(6, 12, CommModel::P2p, 1.0, seed));
    }
}

#[test]
fn factor_range_limits_the_sweep() {
    let inst = random_spd(8, 20, CommModel::Cs, 1.0, 3);
    let full = plan(&inst);
    let (lo, hi) = (1.1 * inst.gamma, 1.3 * inst.gamma);
    let opts = PlanOptions {
        range: (Some(lo), Some(hi)),
        time_limit: Some(120.0),
        seed: 1,
        io: Default::default(),
    };
    let part = frontier(&inst, &opts, |_| {}).expect("frontier");
    // the full frontier's steps that meet [lo, hi]: breakpoints at or below
    // hi, down to the first at or below lo
    let mut want = Vec::new();
    for q in full.points.iter().filter(|q| q.mu <= hi) {
        want.push((q.mu, q.hosts));
        if within_bound(q.mu, lo) {
            break;
        }
    }
    let got: Vec<(f64, usize)> = part.points.iter().map(|p| (p.mu, p.hosts)).collect();
    assert_eq!(got.len(), want.len(), "{got:?} vs {want:?}");
    for (g, w) in got.iter().zip(&want) {
        assert!(g.1 == w.1 && approx_eq(g.0, w.0), "{got:?} vs {want:?}");
    }
}

#[test]
fn cli_writes_the_frontier_and_eval_accepts_every_point() {
    let dir = std::env::temp_dir().join(format!("serverpick-plan-spd-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let out = dir.to_string_lossy().into_owned();
    let o = serverpick(&["plan", "spd", "instances/spd-fig1-cs.json", "--out", &out]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let stdout = text(&o.stdout);
    assert!(stdout.contains("proven"), "{stdout}");
    for f in ["frontier.csv", "frontier.jsonl", "frontier.svg"] {
        assert!(dir.join(f).is_file(), "{f} missing");
    }
    let csv = std::fs::read_to_string(dir.join("frontier.csv")).expect("csv");
    let rows: Vec<&str> = csv.lines().skip(1).collect();
    assert!(!rows.is_empty());
    for row in rows {
        let hosts = row.split(',').nth(2).expect("hosts column");
        let inst = dir.join(format!("points/k{hosts}.instance.json"));
        let sol = dir.join(format!("points/k{hosts}.solution.json"));
        let e = serverpick(&["eval", &inst.to_string_lossy(), &sol.to_string_lossy()]);
        assert_eq!(e.status.code(), Some(0), "{}", text(&e.stdout));
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn cli_rejects_bad_input() {
    let out = std::env::temp_dir().join("serverpick-plan-spd-bad");
    let out = out.to_string_lossy().into_owned();
    for (args, needle) in [
        (
            vec!["instances/spd-fig1-cs.json", "--factors", "1.5"],
            "LO..HI",
        ),
        (
            vec!["instances/spd-fig1-cs.json", "--factors", "1.5..1.0"],
            "above",
        ),
        (
            vec!["instances/spd-fig1-cs.json", "--factors", "x..2"],
            "factor",
        ),
        (
            vec!["instances/spd-fig1-cs.json", "--time-limit=-1"],
            "time-limit",
        ),
        (vec!["no-such-file.json"], "no-such-file.json"),
        (vec!["instances/cma-small.json"], "cma-small.json"),
    ] {
        let mut a = vec!["plan", "spd"];
        a.extend(args.iter().copied());
        a.extend(["--out", &out]);
        let o = serverpick(&a);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", text(&o.stderr));
        assert!(
            text(&o.stderr).contains(needle),
            "{args:?}: {}",
            text(&o.stderr)
        );
    }
}
