//! Capacity planning for SPD (`serverpick plan spd`): the exact trade-off
//! between the delay bound μ and the servers a session needs.
//!
//! # The frontier
//!
//! `h(μ)`, the least host count that meets bound μ, is a non-increasing step
//! function; `δ(k)`, the least delay of any solution with at most `k` hosts,
//! is its inverse: `h(μ) <= k ⇔ μ >= δ(k)`. Every step therefore lies at the
//! delay of some solution, i.e. at a CS path value `2·(a(c,s) + D(s,r))` or a
//! P2P pair value `a(i,s) + D(s,t) + a(j,t)`. A *breakpoint* is a pair
//! `(δ(k), k)` with `δ(k) < δ(k − 1)`: from `μ = δ(k)` up to the next
//! breakpoint, `k` hosts are needed and suffice.
//!
//! # The sweep ([`frontier`])
//!
//! Top-down, one exact solve per breakpoint plus one that proves the end:
//!
//! 1. μ starts at the top of the range: by default a bound every finite
//!    solution meets, so the first step is the fewest hosts at any delay
//!    (one, when some server reaches every client);
//! 2. at μ, `exact`'s first two stages (`hosts_then_delay`) give the proven
//!    least host count `k = h(μ)` and the least delay `δ(k) <= μ` at that
//!    count: the breakpoint `(δ(k), k)`;
//! 3. μ moves to just below `δ(k)` (the largest bound that
//!    [`within_bound`] no longer accepts `δ(k)` under), where more than `k`
//!    hosts are needed; repeat until the bound is infeasible or below the
//!    range. For CS the last breakpoint is at Γ.
//!
//! Each solve starts from the heuristics' incumbent (`alg-m`, `spdcs-h`,
//! `spdp2p-h`, `zizo`) at that bound and is cut by the one before it: the
//! host count below a proven breakpoint is at least `k + 1`, which the
//! point reports as its lower bound when the solve is not proven.
//!
//! Cost: `B + 1` exact solves for `B` breakpoints (at most the number of
//! servers); each is the host MILP(s) plus a bisection over the candidate
//! delays (`O(log V)` feasibility MILPs for `V` candidate values).
//!
//! # Honesty
//!
//! A point is `proven` when both its host count and its delay are; otherwise
//! it carries the proven lower bound on the host count at its μ and says
//! which part is not proven. The time limit ([`PlanOptions::time_limit`])
//! is one deadline for the whole sweep: every solve gets the time left, and
//! once it has passed (or Ctrl-C) the sweep ends with the points it has.

pub mod points;

use crate::core::{within_bound, Deadline, SolveOptions};
use crate::error::{Error, Result};
use crate::problems::spd::exact::{hosts_then_delay, HostStage, Scored};
use crate::problems::spd::model::{CommModel, SpdInstance, SpdSolution};
use serde::Serialize;
use std::time::Instant;

/// What a sweep is asked.
#[derive(Debug, Clone)]
pub struct PlanOptions {
    /// Bounds μ considered, `(lowest, highest)`; `None` = unlimited.
    pub range: (Option<f64>, Option<f64>),
    /// Time limit of the whole sweep, seconds (`None` = no limit): every
    /// solve gets the time left; past it the sweep ends with what it has.
    pub time_limit: Option<f64>,
    /// Seed for the heuristics.
    pub seed: u64,
    /// Models out, HiGHS log, threads (`--write-model`, `--solver-log`,
    /// `--threads`); each μ's models are named `<instance>.exact.mu<μ>.<stage>`.
    pub io: crate::lp::model_out::SolverIo,
}

/// One breakpoint `(μ, hosts)` of the frontier.
#[derive(Debug, Clone, Serialize)]
pub struct Breakpoint {
    /// The least bound at which `hosts` hosts suffice (= this solution's delay).
    pub mu: f64,
    /// `μ / Γ` (null when Γ is infinite).
    pub factor: Option<f64>,
    /// Host count of the solution.
    pub hosts: usize,
    /// Proven lower bound on the host count at this μ.
    pub hosts_lb: usize,
    /// `proven` (hosts and μ both proven) or `bounds`.
    pub status: &'static str,
    /// Whether `mu` is proven the least delay with `hosts` hosts.
    pub delay_proven: bool,
    /// Delay variation of the solution.
    pub variation: f64,
    /// What is not proven, if anything.
    pub note: Option<String>,
    /// Time of this point's solve, ms.
    pub time_ms: f64,
    /// The solution at this breakpoint.
    pub solution: SpdSolution,
}

/// A computed frontier.
#[derive(Debug, Clone, Serialize)]
pub struct Frontier {
    /// Instance name.
    pub instance: String,
    /// `cs` or `p2p`.
    pub model: CommModel,
    /// Γ (the least CS delay).
    pub gamma: f64,
    /// Breakpoints by decreasing μ (increasing host count).
    pub points: Vec<Breakpoint>,
    /// How the sweep ended below the last point.
    pub end: String,
    /// Total time, ms.
    pub time_ms: f64,
}

/// The largest bound under which `d` is no longer within bound.
pub fn just_below(d: f64) -> f64 {
    let mut step = 2e-9 * d.abs().max(1.0);
    let mut mu = d - step;
    while within_bound(d, mu) {
        step *= 2.0;
        mu = d - step;
    }
    mu
}

/// A bound every finite solution meets: twice the longest finite CS path,
/// or the longest finite P2P pair value.
fn top_bound(inst: &SpdInstance) -> f64 {
    let n = inst.servers();
    let fin = |v: f64| if v.is_finite() { v } else { 0.0 };
    let max_a = (0..inst.clients())
        .flat_map(|c| inst.access_row(c).iter().copied().map(fin))
        .fold(0.0, f64::max);
    let max_d = (0..n)
        .flat_map(|s| (0..n).map(move |t| (s, t)))
        .map(|(s, t)| fin(inst.network.dist(s, t)))
        .fold(0.0, f64::max);
    let top = match inst.model {
        CommModel::Cs => 2.0 * (max_a + max_d),
        CommModel::P2p => 2.0 * max_a + max_d,
    };
    top * (1.0 + 1e-6) + 1.0
}

/// Computes the frontier of `inst` (its own bound is ignored); `progress`
/// is told of each point as it is found.
pub fn frontier(
    inst: &SpdInstance,
    opts: &PlanOptions,
    progress: impl FnMut(&Breakpoint),
) -> Result<Frontier> {
    frontier_from(inst, opts, Vec::new(), progress)
}

/// [`frontier`] continued below the breakpoints `done` (a resumed run:
/// they are kept as they are, none is solved again).
pub fn frontier_from(
    inst: &SpdInstance,
    opts: &PlanOptions,
    done: Vec<Breakpoint>,
    mut progress: impl FnMut(&Breakpoint),
) -> Result<Frontier> {
    let started = Instant::now();
    let (lo, hi) = opts.range;
    let mut mu = match done.last() {
        Some(p) => just_below(p.mu),
        None => hi.unwrap_or_else(|| top_bound(inst)),
    };
    let mut points: Vec<Breakpoint> = done;
    // One deadline for the whole sweep: every solve gets the time left.
    let deadline = Deadline::after(opts.time_limit);
    let end = loop {
        let lb_below = points.last().map_or(1, lb_below);
        if let Some(why) = deadline.stop() {
            break format!("{why} before μ = {}", fmt_mu(mu));
        }
        let t0 = Instant::now();
        let step = solve_at(inst, mu, lb_below, opts, &deadline);
        let time_ms = t0.elapsed().as_secs_f64() * 1e3;
        if crate::core::interrupt::interrupted() {
            // Ctrl-C: the solve it stopped is not a breakpoint; the points
            // before it are kept.
            break format!("interrupted at μ = {}", fmt_mu(mu));
        }
        let mut point = match step {
            Step::Point(sc, lb, delay_proven, note) => {
                breakpoint(inst, sc, lb.max(lb_below), delay_proven, note, time_ms)
            }
            Step::End(why) => break why,
        };
        // an unproven delay may leave the same host count below it: keep the
        // lower of the two
        if let Some(prev) = points.last().filter(|p| p.hosts == point.hosts) {
            point.hosts_lb = point.hosts_lb.max(prev.hosts_lb);
            points.pop();
        }
        progress(&point);
        mu = just_below(point.mu);
        let done = lo.filter(|&l| within_bound(point.mu, l));
        points.push(point);
        if let Some(l) = done {
            break format!("the range ends at μ = {}", fmt_mu(l));
        }
    };
    Ok(Frontier {
        instance: inst.name.clone(),
        model: inst.model,
        gamma: inst.gamma,
        points,
        end,
        time_ms: started.elapsed().as_secs_f64() * 1e3,
    })
}

/// The host lower bound below breakpoint `p`: below a breakpoint whose
/// delay is proven, more hosts are needed; h is non-increasing, so its
/// lower bound carries over anyway.
fn lb_below(p: &Breakpoint) -> usize {
    if p.delay_proven {
        p.hosts + 1
    } else {
        p.hosts_lb
    }
}

fn fmt_mu(mu: f64) -> String {
    format!("{mu:.6}")
}

/// What one solve at a bound gave.
enum Step {
    /// A solution, the proven host lower bound, whether the delay is proven,
    /// and what is not proven.
    Point(Scored, usize, bool, Option<String>),
    /// The sweep ends here (infeasible, or nothing found): why.
    End(String),
}

fn solve_at(
    inst: &SpdInstance,
    mu: f64,
    known_lb: usize,
    opts: &PlanOptions,
    deadline: &Deadline,
) -> Step {
    let mut at = inst.clone();
    at.bound = mu;
    at.bound_factor = None;
    let so = SolveOptions::new(None, opts.seed)
        .with_deadline(deadline.clone())
        .with_io(opts.io.for_run(&inst.name, &format!("exact.mu{mu}")));
    let (host, delay) = hosts_then_delay(&at, &so, known_lb);
    match (host, delay) {
        (HostStage::Proven(sc), Some((best, why))) => {
            let k = sc.metrics.hosts;
            let note = why.map(|w| format!("delay not proven: {w}"));
            Step::Point(best, k, note.is_none(), note)
        }
        (HostStage::Proven(sc), None) => {
            let k = sc.metrics.hosts;
            Step::Point(sc, k, false, Some("delay stage not run".into()))
        }
        (HostStage::Unproven(Some(sc), lb), _) => {
            let note = format!("host count not proven (lower bound {lb}); delay not minimised");
            Step::Point(sc, lb, false, Some(note))
        }
        (HostStage::Unproven(None, lb), _) => Step::End(format!(
            "at μ = {} the deadline hit with no solution (hosts >= {lb})",
            fmt_mu(mu)
        )),
        (HostStage::Infeasible(why), _) => {
            Step::End(format!("infeasible below the last point: {why}"))
        }
        (HostStage::Failed(why, _), _) => {
            Step::End(format!("at μ = {}: HiGHS failed: {why}", fmt_mu(mu)))
        }
    }
}

fn breakpoint(
    inst: &SpdInstance,
    sc: Scored,
    lb: usize,
    delay_proven: bool,
    note: Option<String>,
    time_ms: f64,
) -> Breakpoint {
    let hosts = sc.metrics.hosts;
    let lb = lb.min(hosts);
    let proven = delay_proven && lb == hosts;
    Breakpoint {
        mu: sc.metrics.delay,
        factor: inst
            .gamma
            .is_finite()
            .then(|| sc.metrics.delay / inst.gamma)
            .filter(|f| f.is_finite()),
        hosts,
        hosts_lb: lb,
        status: if proven { "proven" } else { "bounds" },
        delay_proven,
        variation: sc.metrics.variation,
        note,
        time_ms,
        solution: sc.sol,
    }
}

/// Parses a `--factors` range `LO..HI` (either side may be empty) into
/// absolute bounds `f · Γ`.
pub fn factor_range(text: &str, gamma: f64) -> Result<(Option<f64>, Option<f64>)> {
    let bad = |why: &str| Error::Usage(format!("--factors {text:?}: {why}"));
    let (a, b) = text
        .split_once("..")
        .ok_or_else(|| bad("expected LO..HI, e.g. 1.0..1.5 (either side may be empty)"))?;
    let parse = |s: &str| -> Result<Option<f64>> {
        let s = s.trim();
        if s.is_empty() {
            return Ok(None);
        }
        match s.parse::<f64>() {
            Ok(f) if f.is_finite() && f >= 0.0 => Ok(Some(f)),
            _ => Err(bad(&format!("{s:?} is not a finite factor >= 0"))),
        }
    };
    let (lo, hi) = (parse(a)?, parse(b)?);
    if let (Some(l), Some(h)) = (lo, hi) {
        if l > h {
            return Err(bad("LO is above HI"));
        }
    }
    if (lo.is_some() || hi.is_some()) && !gamma.is_finite() {
        return Err(bad(
            "Γ is infinite (no root reaches every client), so f·Γ is undefined",
        ));
    }
    Ok((lo.map(|f| f * gamma), hi.map(|f| f * gamma)))
}
