//! Ranges engines (problems.md §6) and [`run_ranges`].
//!
//! | name         | what | cost |
//! |--------------|------|------|
//! | `exact`      | min–max contiguous split: parametric search + greedy probe ([`exact_split`](super::exact::exact_split)), proven optimal | `O(K + I + L log K + probes · N log² K)` |
//! | `uniform`    | equal cell counts ([`uniform`](super::nbr_adjust::uniform)) | `O(N)` |
//! | `hash`       | plain DHT: regions hashed onto a ring ([`dht_hash`](super::hash::dht_hash)) | `O(K + NV log NV)` |
//! | `nbr-adjust` | neighbours move shared boundaries to the load median ([`nbr_adjust`](super::nbr_adjust::nbr_adjust)) | `O(rounds · N log² K)` |
//! | `leave-join` | Mercury's leave-join balancing ([`leave_join`](super::leave_join::leave_join)) | `O(moves · N log K)` |
//! | `exact-budget` | least max load moving at most `--budget` cells from the current split (`uniform`: the format has none) ([`exact_budget`](super::exact_budget::exact_budget)), proven optimal | `O(probes · (N·K + K log K))` |
//!
//! Every engine returns a solution only; [`run_ranges`] times it and has THE
//! evaluator ([`super::eval`]) score it through the shared record filler.
//! Only `exact` is contiguous-optimal; `hash` is not contiguous at all (its
//! optimum is not what `exact` minimises, but its objective is the same max
//! load, so `exact` bounds it from below only among contiguous splits).

use crate::core::{
    fill_record, FailureReason, Outcome, ParamKind, ParamSpec, SolveOptions, SolveRecord, Status,
};
use crate::problems::ranges::eval::evaluate;
use crate::problems::ranges::exact::exact_split;
use crate::problems::ranges::exact_budget::exact_budget;
use crate::problems::ranges::hash::dht_hash;
use crate::problems::ranges::leave_join::leave_join_from;
use crate::problems::ranges::model::{Owners, RangesInstance, RangesSolution, Starts};
use crate::problems::ranges::nbr_adjust::{nbr_adjust_from, uniform};
use crate::problems::ranges::oracle::LoadOracle;
use std::time::Instant;

/// `--leave-join-delta`: the heaviness threshold of `leave-join`.
pub const DELTA: ParamSpec = ParamSpec {
    name: "leave-join-delta",
    kind: ParamKind::Real,
    default: "1.4142135623730951",
    help: "leave-join: a node is heavy when load/mean >= this (√2)",
};

/// `--hash-vnodes`: ring identifiers per node of `hash`.
pub const VNODES: ParamSpec = ParamSpec {
    name: "hash-vnodes",
    kind: ParamKind::Count,
    default: "1",
    help: "hash: virtual nodes (ring identifiers) per node; 0 = regions modulo N",
};

/// `--hash-regions`: regions of `hash`.
pub const REGIONS: ParamSpec = ParamSpec {
    name: "hash-regions",
    kind: ParamKind::Count,
    default: "0",
    help: "hash: regions the linear map is bucketed into; 0 = one per node",
};

/// `--budget`: cells `exact-budget` may migrate.
pub const BUDGET: ParamSpec = ParamSpec {
    name: "budget",
    kind: ParamKind::Count,
    default: "18446744073709551615",
    help: "exact-budget: cells that may change owner from the current split (default: unlimited)",
};

/// Rounds cap of `nbr-adjust`.
pub const NBR_MAX_ROUNDS: usize = 1000;

/// The engines, in table order.
pub const ENGINES: [&str; 6] = [
    "exact",
    "uniform",
    "hash",
    "nbr-adjust",
    "leave-join",
    "exact-budget",
];

fn split(starts: Vec<usize>) -> RangesSolution {
    RangesSolution::Split(Starts { starts })
}

/// Runs engine `engine` (no evaluation; the oracle's build is part of the
/// engines that use it).
pub fn solve(engine: &str, inst: &RangesInstance, opts: &SolveOptions) -> Outcome<RangesSolution> {
    solve_from(engine, inst, None, opts)
}

/// Runs `engine` from the current split `current` (checked; `None` =
/// `uniform`): `exact-budget` counts migration from it, `nbr-adjust` and
/// `leave-join` start from it; the other engines ignore it.
pub fn solve_from(
    engine: &str,
    inst: &RangesInstance,
    current: Option<&[usize]>,
    opts: &SolveOptions,
) -> Outcome<RangesSolution> {
    let (k, n) = (inst.cells(), inst.nodes);
    let (start, from) = match current {
        Some(c) => (c.to_vec(), "the start"),
        None => (uniform(k, n), "uniform (no start given)"),
    };
    match engine {
        "exact" => {
            let e = exact_split(&LoadOracle::new(inst), n);
            Outcome::claim(Status::Optimal, split(e.starts), Some(e.bound))
                .with_message(format!("{} probes", e.probes))
        }
        "uniform" => Outcome::found(split(uniform(k, n))),
        "hash" => {
            let (r, v) = (opts.count(&REGIONS), opts.count(&VNODES));
            let owner = dht_hash(k, n, r as usize, v as usize, opts.seed);
            Outcome::found(RangesSolution::Owners(Owners { owner }))
        }
        "nbr-adjust" => {
            let (starts, rounds) = nbr_adjust_from(&LoadOracle::new(inst), start, NBR_MAX_ROUNDS);
            Outcome::found(split(starts)).with_message(format!("{rounds} rounds"))
        }
        "leave-join" => {
            let delta = opts.real(&DELTA);
            if delta.is_nan() || delta <= 0.0 {
                let msg = format!("--leave-join-delta {delta}: must be > 0");
                return Outcome::failed(FailureReason::BadInput, msg);
            }
            let lj = leave_join_from(&LoadOracle::new(inst), &start, delta, 4 * n.max(1));
            Outcome::found(split(lj.starts))
                .with_message(format!("{} moves, stop: {}", lj.moves, lj.stop))
        }
        "exact-budget" => match exact_budget(&LoadOracle::new(inst), &start, opts.count(&BUDGET)) {
            Ok(b) => Outcome::claim(Status::Optimal, split(b.starts), Some(b.bound)).with_message(
                format!(
                    "{} cells migrated from {from}, {} probes",
                    b.migrated, b.probes
                ),
            ),
            Err(why) => Outcome::failed(FailureReason::Refused, why),
        },
        other => Outcome::failed(
            FailureReason::BadInput,
            format!(
                "unknown ranges engine '{other}' (known: {})",
                ENGINES.join(", ")
            ),
        ),
    }
}

/// Runs `engine` on `inst`, evaluates the solution and builds the record.
pub fn run_ranges(engine: &str, inst: &RangesInstance, opts: &SolveOptions) -> SolveRecord {
    run_ranges_from(engine, inst, None, opts)
}

/// [`run_ranges`] from a current split (see [`solve_from`]).
pub fn run_ranges_from(
    engine: &str,
    inst: &RangesInstance,
    current: Option<&[usize]>,
    opts: &SolveOptions,
) -> SolveRecord {
    let mut record = SolveRecord::unsolved(&inst.name, "ranges", engine);
    let started = Instant::now();
    let outcome = solve_from(engine, inst, current, opts);
    record.time_ms = started.elapsed().as_secs_f64() * 1e3;
    fill_record(&mut record, outcome, |sol| evaluate(inst, sol).verdict());
    if engine == "hash" {
        // Any cell → node ownership, not a contiguous split: a different
        // (relaxed) problem, which `exact`'s optimum does not bound.
        record.problem = ANY_OWNERSHIP.to_string();
    }
    if engine == "exact-budget" && opts.count(&BUDGET) < inst.cells() as u64 {
        // Optimal within the budget only: other engines may move more cells
        // and beat it, so its claims are checked apart.
        record.problem = WITHIN_BUDGET.to_string();
    }
    record
}

/// The problem `exact-budget` rows report when the budget may bind (`B <
/// K`): the best split moving at most `B` cells from the current one.
pub const WITHIN_BUDGET: &str = "ranges-budget";

/// The problem `hash` rows report: any cell → node ownership.
pub const ANY_OWNERSHIP: &str = "ranges-any";
