//! The "paper vs here" part of `repro cma`'s `figures.md`: seed 002 §4's
//! qualitative findings checked on the simulations, the headline numbers,
//! and the paper's Fig. 8 running times.

use crate::app::cma::repro::figures::{phase, phase_ms};
use crate::app::cma::repro::{CmaGrid, ScenarioRun};
use crate::problems::cma::gen::Scenario;
use crate::problems::cma::sim::{EventRecord, SimResult};
use std::fmt::Write;

/// Seed 002 Fig. 8 (ms, for 5/10/20 mirrors): scenario, the paper's
/// algorithm, the times (join: all joins; leave: the leaves; dynamic: all).
pub const PAPER_FIG8: [(Scenario, &str, [f64; 3]); 8] = [
    (Scenario::Join, "J-greedy", [12.0, 16.0, 15.0]),
    (Scenario::Join, "J-SA", [688.0, 3438.0, 16519.0]),
    (Scenario::Leave, "L-ignore", [4.0, 3.0, 3.0]),
    (Scenario::Leave, "L-greedy", [43.0, 50.0, 60.0]),
    (Scenario::Leave, "L-SA", [888.0, 4683.0, 20077.0]),
    (Scenario::Dynamic, "J-greedy/L-ignore", [19.0, 21.0, 26.0]),
    (Scenario::Dynamic, "J-greedy/L-greedy", [52.0, 55.0, 60.0]),
    (Scenario::Dynamic, "J-SA/L-SA", [1542.0, 5053.0, 22769.0]),
];

/// The paper's range of transfers per event (seed 002 §2).
pub const PAPER_TRANSFERS: (f64, f64) = (0.6, 2.0);

/// One qualitative claim of the paper, checked here.
#[derive(Debug, Clone)]
pub struct Finding {
    /// The claim.
    pub claim: &'static str,
    /// What the paper reports.
    pub paper: String,
    /// What this run shows.
    pub here: String,
    /// Whether it holds here (`None`: informational or not checkable).
    pub holds: Option<bool>,
}

fn optimal(run: &ScenarioRun) -> Option<&SimResult> {
    run.sim("bf").or_else(|| sa(run))
}

fn sa(run: &ScenarioRun) -> Option<&SimResult> {
    run.sim("j-sa/l-sa")
        .or_else(|| run.sim("j-sa-rebuild/l-sa-rebuild"))
}

fn greedy(run: &ScenarioRun) -> Option<&SimResult> {
    run.sim("j-greedy/l-ignore")
        .or_else(|| run.sim("j-greedy/l-greedy"))
}

/// The absolute tolerance for comparing totals of `present` clients.
fn tol(run: &ScenarioRun, present: usize) -> f64 {
    run.inst.tolerance() * present.max(1) as f64
}

fn mean(v: impl Iterator<Item = f64>) -> f64 {
    let (s, n) = v.fold((0.0, 0usize), |(s, n), x| (s + x, n + 1));
    if n == 0 {
        0.0
    } else {
        s / n as f64
    }
}

fn mean_over_phase(run: &ScenarioRun, sim: &SimResult, f: fn(&EventRecord) -> f64) -> f64 {
    mean(phase(run, sim).0.iter().map(f))
}

fn verdict(all: &[bool]) -> Option<bool> {
    (!all.is_empty()).then(|| all.iter().all(|&b| b))
}

fn greedy_degrades(runs: &[ScenarioRun]) -> Finding {
    let mut here = Vec::new();
    let mut ok = Vec::new();
    for run in runs.iter().filter(|r| r.scenario == Scenario::Join) {
        let (Some(g), Some(o)) = (greedy(run), optimal(run)) else {
            continue;
        };
        let first = g
            .records
            .iter()
            .zip(&o.records)
            .find(|(a, b)| a.total_delay > b.total_delay + tol(run, a.present))
            .map(|(a, _)| a.step);
        let len = g.records.len().min(o.records.len());
        let ratio = |q: f64| {
            let i = ((len as f64 * q).ceil() as usize).clamp(1, len.max(1)) - 1;
            match (g.records.get(i), o.records.get(i)) {
                (Some(a), Some(b)) if b.avg_delay > 0.0 => a.avg_delay / b.avg_delay,
                _ => 1.0,
            }
        };
        let (r50, r80, r100) = (ratio(0.5), ratio(0.8), ratio(1.0));
        ok.push(r100 > r50.max(1.0 + 1e-9));
        here.push(format!(
            "{}: J-greedy optimal through join {}, average delay J-greedy/optimal ×{r50:.3} at \
             50 % load, ×{r80:.3} at 80 %, ×{r100:.3} at 100 %",
            run.label(),
            first.map_or(len, |s| s - 1)
        ));
    }
    Finding {
        claim: "J-greedy is optimal until a mirror fills and degrades towards full capacity",
        paper: "both optimal below ~175 joins (5 mirrors); delays considerably higher for \
                J-greedy above 80 % load (Fig. 4)"
            .into(),
        here: here.join("; "),
        holds: verdict(&ok),
    }
}

fn lsa_equals_bf(runs: &[ScenarioRun]) -> Finding {
    let (mut events, mut off, mut labels) = (0usize, 0usize, Vec::new());
    let mut worst = 0.0f64;
    for run in runs {
        let (Some(a), Some(b)) = (sa(run), run.sim("bf")) else {
            continue;
        };
        labels.push(run.label());
        for (x, y) in a.records.iter().zip(&b.records) {
            events += 1;
            let d = (x.total_delay - y.total_delay).abs();
            worst = worst.max(d);
            if d > tol(run, x.present) {
                off += 1;
            }
        }
    }
    Finding {
        claim: "J-SA/L-SA equals BF (the optimum) after every event",
        paper: "L-SA's delays match BF's after every leave (Fig. 6)".into(),
        here: format!(
            "{off} of {events} events differ from BF by more than 1e-9·(max delay)·(present) \
             (largest difference {worst:.3e} ms) over {}",
            labels.join(", ")
        ),
        holds: (!labels.is_empty()).then_some(off == 0),
    }
}

fn per_event(sim: &SimResult) -> f64 {
    mean(sim.records.iter().map(|r| r.transfers as f64))
}

fn transfers(runs: &[ScenarioRun]) -> Finding {
    let mut parts = Vec::new();
    let mut ok = Vec::new();
    let (lo_p, hi_p) = PAPER_TRANSFERS;
    for policy in ["j-sa/l-sa", "j-greedy/l-greedy", "bf"] {
        let v: Vec<(String, f64)> = runs
            .iter()
            .filter_map(|r| r.sim(policy).map(|s| (r.label(), per_event(s))))
            .collect();
        if v.is_empty() {
            continue;
        }
        let lo = v.iter().map(|x| x.1).fold(f64::INFINITY, f64::min);
        let hi = v.iter().map(|x| x.1).fold(0.0, f64::max);
        let inside = v.iter().filter(|x| x.1 >= lo_p && x.1 <= hi_p).count();
        if policy == "j-sa/l-sa" {
            ok.push(hi <= hi_p);
        }
        let each: Vec<String> = v.iter().map(|(l, x)| format!("{l} {x:.3}")).collect();
        parts.push(format!(
            "{policy} {lo:.3}–{hi:.3}, {inside} of {} runs inside {lo_p}–{hi_p} ({})",
            v.len(),
            each.join(", ")
        ));
    }
    Finding {
        claim: "transfers are few: at most the paper's 2 per event on average (checked on \
                J-SA/L-SA)",
        paper: format!("{lo_p}–{hi_p} transferring clients per join/leave on average (§2)"),
        here: parts.join("; "),
        holds: verdict(&ok),
    }
}

/// The share of players within the threshold after all joins under J-SA.
fn delay_level(runs: &[ScenarioRun], thr: f64) -> Finding {
    let here: Vec<String> = runs
        .iter()
        .filter(|r| r.scenario == Scenario::Join)
        .filter_map(|r| {
            let last = sa(r)?.records.last()?;
            Some(format!(
                "{}: {} of {} ({:.1} %), average {:.3} ms",
                r.label(),
                last.under_threshold,
                last.present,
                100.0 * last.under_threshold as f64 / last.present.max(1) as f64,
                last.avg_delay
            ))
        })
        .collect();
    Finding {
        claim: "delay level of the topology (players within the requirement after all joins, \
                J-SA)",
        paper: "949 of 1000 within 100 ms (5 mirrors, Fig. 5)".into(),
        here: format!(
            "within {thr} ms: {} (depends on the generated topology, not on the algorithms)",
            here.join("; ")
        ),
        holds: None,
    }
}

fn under_threshold(runs: &[ScenarioRun], thr: f64) -> Finding {
    let mut here = Vec::new();
    let mut ok = Vec::new();
    for run in runs.iter().filter(|r| r.scenario == Scenario::Join) {
        let (Some(g), Some(s)) = (greedy(run), sa(run)) else {
            continue;
        };
        let count = |x: &SimResult| {
            x.records
                .last()
                .map_or((0, 0), |r| (r.under_threshold, r.present))
        };
        let ((ug, n), (us, _)) = (count(g), count(s));
        ok.push(us > ug);
        here.push(format!("{}: {us} vs {ug} of {n}", run.label()));
    }
    Finding {
        claim:
            "after all joins, more players meet the delay requirement with J-SA than with J-greedy",
        paper: "949 vs 869 of 1000 players within 100 ms (5 mirrors, Fig. 5)".into(),
        here: format!("J-SA vs J-greedy within {thr} ms: {}", here.join("; ")),
        holds: verdict(&ok),
    }
}

fn leave_order(runs: &[ScenarioRun]) -> Finding {
    let mut here = Vec::new();
    let mut ok = Vec::new();
    for run in runs.iter().filter(|r| r.scenario == Scenario::Leave) {
        let (Some(gi), Some(gg), Some(s)) = (
            run.sim("j-greedy/l-ignore"),
            run.sim("j-greedy/l-greedy"),
            optimal(run),
        ) else {
            continue;
        };
        let m = |x: &SimResult| mean_over_phase(run, x, |r| r.avg_delay);
        let (a, b, c) = (m(gi), m(gg), m(s));
        ok.push(a > b && b >= c - 1e-9);
        here.push(format!(
            "{}: L-ignore {a:.3}, L-greedy {b:.3}, optimal {c:.3}",
            run.label()
        ));
    }
    Finding {
        claim: "leaves: L-ignore worst, L-greedy close to optimal",
        paper: "J-greedy/L-ignore significantly worse; L-greedy close to optimal except near \
                full capacity (Fig. 6)"
            .into(),
        here: format!(
            "mean average delay over the leaves (ms): {}",
            here.join("; ")
        ),
        holds: verdict(&ok),
    }
}

fn dynamic_order(runs: &[ScenarioRun]) -> Finding {
    let mut here = Vec::new();
    let mut ok = Vec::new();
    for run in runs.iter().filter(|r| r.scenario == Scenario::Dynamic) {
        let (Some(gi), Some(gg), Some(s)) = (
            run.sim("j-greedy/l-ignore"),
            run.sim("j-greedy/l-greedy"),
            sa(run),
        ) else {
            continue;
        };
        let avg = |x: &SimResult| mean_over_phase(run, x, |r| r.avg_delay);
        let max = |x: &SimResult| mean_over_phase(run, x, |r| r.max_delay);
        let (ai, ag, asa) = (avg(gi), avg(gg), avg(s));
        let (mi, mg, msa) = (max(gi), max(gg), max(s));
        // §4.3 (Fig. 7) uses 5 mirrors; with 10 and 20 mirrors the paper
        // reports running times only, and J-SA/L-SA minimises the total
        // delay, not the maximum, so the maximum is shown there unchecked.
        let paper_setting = run.mirrors == 5;
        ok.push(ag - asa < ai - asa && (!paper_setting || (msa < mg && msa < mi)));
        here.push(format!(
            "{}: average {ai:.3} / {ag:.3} / {asa:.3}, maximum {mi:.3} / {mg:.3} / {msa:.3}{}",
            run.label(),
            if paper_setting {
                ""
            } else {
                " (maximum not checked)"
            }
        ));
    }
    Finding {
        claim: "dynamic: J-greedy/L-greedy far closer to optimal than J-greedy/L-ignore; \
                J-SA/L-SA has the lowest maximum delay (5 mirrors, the setting of §4.3)",
        paper: "Fig. 7".into(),
        here: format!(
            "mean over events (ms), J-greedy/L-ignore / J-greedy/L-greedy / J-SA/L-SA: {}",
            here.join("; ")
        ),
        holds: verdict(&ok),
    }
}

fn phase_of(runs: &[ScenarioRun], s: Scenario, k: usize, policy: &str) -> Option<f64> {
    runs.iter()
        .find(|r| r.scenario == s && r.mirrors == k)
        .and_then(|r| r.sim(policy).map(|x| phase_ms(r, x)))
}

/// The SA policy Fig. 8 timed: the rebuild variant when it was run.
fn paper_sa(runs: &[ScenarioRun]) -> &'static str {
    if runs
        .iter()
        .any(|r| r.sim("j-sa-rebuild/l-sa-rebuild").is_some())
    {
        "j-sa-rebuild/l-sa-rebuild"
    } else {
        "j-sa/l-sa"
    }
}

fn speed(runs: &[ScenarioRun], mirrors: &[usize]) -> Finding {
    let mut here = Vec::new();
    let mut ok = Vec::new();
    let sa_policy = paper_sa(runs);
    for &k in mirrors {
        let pairs = [
            (Scenario::Join, "J-greedy", "j-greedy/l-ignore", "J-SA"),
            (Scenario::Leave, "L-greedy", "j-greedy/l-greedy", "L-SA"),
        ];
        for (s, fast, fp, slow) in pairs {
            if let (Some(a), Some(b)) = (phase_of(runs, s, k, fp), phase_of(runs, s, k, sa_policy))
            {
                ok.push(a < b);
                here.push(format!("{k} mirrors {fast} {a:.3} vs {slow} {b:.3}"));
            }
        }
    }
    Finding {
        claim: "J-greedy is faster than J-SA and L-greedy faster than L-SA (SA as the paper \
                implemented it)",
        paper: "Fig. 8: J-greedy 12–16 ms vs J-SA 688–16519 ms; L-greedy 43–60 vs L-SA \
                888–20077 ms"
            .into(),
        here: format!("ms, SA = {sa_policy}: {}", here.join("; ")),
        holds: verdict(&ok),
    }
}

fn sa_runtime(runs: &[ScenarioRun], mirrors: &[usize]) -> Finding {
    let mut here = Vec::new();
    for (s, alg) in [(Scenario::Join, "J-SA"), (Scenario::Leave, "L-SA")] {
        for policy in ["j-sa/l-sa", "j-sa-rebuild/l-sa-rebuild"] {
            let t: Vec<String> = mirrors
                .iter()
                .filter_map(|&k| phase_of(runs, s, k, policy).map(|t| format!("{t:.3}")))
                .collect();
            if !t.is_empty() {
                here.push(format!("{alg} ({policy}) {}", t.join(" / ")));
            }
        }
    }
    Finding {
        claim: "J-SA and L-SA running times (Fig. 8(a), (b))",
        paper: "J-SA 688 / 3438 / 16519 ms, L-SA 888 / 4683 / 20077 ms for 5 / 10 / 20 \
                mirrors (1000 joins / leaves, MC and MP rebuilt every event, 2009 hardware)"
            .into(),
        here: format!(
            "ms for {mirrors:?} mirrors: {} (j-sa: MC kept incrementally; j-sa-rebuild: the \
             paper's O(nk) rebuild)",
            here.join("; ")
        ),
        holds: None,
    }
}

fn headline(runs: &[ScenarioRun], md: &mut String) {
    md.push_str(
        "\n## Headline numbers\n\nAt the end of the join and dynamic scenarios; for leave, \
         after half the leaves (the end is empty). Means are over the plotted phase (leave: \
         the leaves).\n\n| run | policy | present | avg delay | max delay | within thr | mean avg \
         delay | peak max | transfers/event | policy ms |\n\
         |---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    for run in runs {
        for sim in &run.sims {
            let (recs, _) = phase(run, sim);
            let at = if run.scenario == Scenario::Leave {
                recs.get((recs.len() / 2).saturating_sub(1))
            } else {
                recs.last()
            };
            let Some(r) = at else { continue };
            let _ = writeln!(
                md,
                "| {} | {} | {} | {:.3} | {:.3} | {} | {:.3} | {:.3} | {:.3} | {:.3} |",
                run.label(),
                sim.policy,
                r.present,
                r.avg_delay,
                r.max_delay,
                r.under_threshold,
                mean(recs.iter().map(|r| r.avg_delay)),
                recs.iter().map(|r| r.max_delay).fold(0.0, f64::max),
                mean(recs.iter().map(|r| r.transfers as f64)),
                phase_ms(run, sim)
            );
        }
    }
}

/// Every checked finding, in order.
pub fn findings(grid: &CmaGrid, runs: &[ScenarioRun]) -> Vec<Finding> {
    vec![
        greedy_degrades(runs),
        lsa_equals_bf(runs),
        transfers(runs),
        under_threshold(runs, grid.threshold),
        delay_level(runs, grid.threshold),
        leave_order(runs),
        dynamic_order(runs),
        speed(runs, &grid.mirrors),
        sa_runtime(runs, &grid.mirrors),
    ]
}

/// The "paper vs here" section and the headline table.
pub fn findings_md(grid: &CmaGrid, runs: &[ScenarioRun]) -> String {
    let all = findings(grid, runs);
    let word = |h: Option<bool>| match h {
        Some(true) => "holds",
        Some(false) => "DOES NOT HOLD",
        None => "not checked",
    };
    let checked: Vec<&Finding> = all.iter().filter(|f| f.holds.is_some()).collect();
    let held = checked.iter().filter(|f| f.holds == Some(true)).count();
    let mut md = format!(
        "\n## Paper vs here\n\n{held} of {} checked qualitative findings of seed 002 §4 hold in \
         this run. ",
        checked.len()
    );
    let sentences: Vec<String> = all
        .iter()
        .map(|f| format!("{}: {}.", f.claim, word(f.holds)))
        .collect();
    md.push_str(&sentences.join(" "));
    md.push_str("\n\n| finding | paper | here | verdict |\n|---|---|---|---|\n");
    for f in &all {
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} |",
            f.claim,
            f.paper,
            f.here,
            word(f.holds)
        );
    }
    headline(runs, &mut md);
    md
}
