//! Ranges engines (problems.md §6) and [`run_ranges`].
//!
//! | name         | what | cost |
//! |--------------|------|------|
//! | `exact`      | min–max contiguous split: parametric search + greedy probe ([`exact_split`]), proven optimal | `O(K + I + L log K + probes · N log² K)` |
//! | `uniform`    | equal cell counts ([`uniform`]) | `O(N)` |
//! | `hash`       | plain DHT: regions hashed onto a ring ([`dht_hash`]) | `O(K + NV log NV)` |
//! | `nbr-adjust` | neighbours move shared boundaries to the load median ([`nbr_adjust`](super::nbr_adjust::nbr_adjust)) | `O(rounds · N log² K)` |
//! | `leave-join` | Mercury's leave-join balancing ([`leave_join`](super::leave_join::leave_join)) | `O(moves · N log K)` |
//! | `exact-budget` | least max load moving at most `--budget` cells from the current split (`uniform`: the format has none) ([`exact_budget`]), proven optimal | `O(probes · (N·K + K log K))` |
//!
//! Every engine returns a solution only; [`run_ranges`] times it and has THE
//! evaluator ([`super::eval`]) score it through the shared record filler.
//! Only `exact` is contiguous-optimal; `hash` is not contiguous at all (its
//! optimum is not what `exact` minimises, but its objective is the same max
//! load, so `exact` bounds it from below only among contiguous splits).

use crate::core::engine::{self, Ctx, Engine, Engines, Problem};
use crate::core::{FailureReason, Outcome, ParamSpec, SolveOptions, SolveRecord, Status, Verdict};
use crate::problems::ranges::eval::evaluate;
use crate::problems::ranges::exact::exact_split;
use crate::problems::ranges::exact_budget::exact_budget;
use crate::problems::ranges::hash::dht_hash;
use crate::problems::ranges::leave_join::leave_join_from;
use crate::problems::ranges::model::{Owners, RangesInstance, RangesSolution, Starts};
use crate::problems::ranges::nbr_adjust::{nbr_adjust_from, uniform};
use crate::problems::ranges::oracle::LoadOracle;

/// `--leave-join-delta`: the heaviness threshold of `leave-join`.
pub const DELTA: ParamSpec = ParamSpec::real(
    "leave-join-delta",
    std::f64::consts::SQRT_2,
    1e-9,
    1e9,
    "leave-join: a node is heavy when load/mean >= this (√2)",
);

/// `--hash-vnodes`: ring identifiers per node of `hash`.
pub const VNODES: ParamSpec = ParamSpec::count(
    "hash-vnodes",
    1,
    0,
    1 << 20,
    "hash: virtual nodes (ring identifiers) per node; 0 = regions modulo N",
);

/// `--hash-regions`: regions of `hash`.
pub const REGIONS: ParamSpec = ParamSpec::count(
    "hash-regions",
    0,
    0,
    1 << 32,
    "hash: regions the linear map is bucketed into; 0 = one per node",
);

/// `--budget`: cells `exact-budget` may migrate.
pub const BUDGET: ParamSpec = ParamSpec::count(
    "budget",
    u64::MAX,
    0,
    u64::MAX,
    "exact-budget: cells that may change owner from the current split (default: unlimited)",
);

/// Rounds cap of `nbr-adjust`.
pub const NBR_MAX_ROUNDS: usize = 1000;

/// A ranges run's problem: the instance and the current split (`solve
/// --start`; `None` = `uniform`).
#[derive(Debug, Clone, Copy)]
pub struct RangesRun<'a> {
    /// The instance.
    pub inst: &'a RangesInstance,
    /// The current split, checked.
    pub current: Option<&'a [usize]>,
}

impl RangesRun<'_> {
    /// The current split and where it comes from.
    fn start(&self) -> (Vec<usize>, &'static str) {
        match self.current {
            Some(c) => (c.to_vec(), "the start"),
            None => (
                uniform(self.inst.cells(), self.inst.nodes),
                "uniform (no start given)",
            ),
        }
    }
}

/// `exact`: the min–max contiguous split.
pub struct Exact;
/// `uniform`: equal cell counts.
pub struct Uniform;
/// `hash`: the plain DHT.
pub struct Hash;
/// `nbr-adjust`: neighbours move shared boundaries to the load median.
pub struct NbrAdjust;
/// `leave-join`: Mercury's balancing.
pub struct LeaveJoin;
/// `exact-budget`: least max load within a migration budget.
pub struct ExactBudget;

/// THE list of ranges engines, in table order: a new engine is one line
/// here.
pub fn engines<'a>() -> &'a Engines<'a, RangesRun<'a>> {
    &[
        &Exact,
        &Uniform,
        &Hash,
        &NbrAdjust,
        &LeaveJoin,
        &ExactBudget,
    ]
}

/// The engine names, in table order.
pub fn engine_names() -> Vec<String> {
    engine::names(engines())
}

fn split(starts: Vec<usize>) -> RangesSolution {
    RangesSolution::Split(Starts { starts })
}

impl Problem for RangesRun<'_> {
    type Solution = RangesSolution;

    fn instance_name(&self) -> &str {
        &self.inst.name
    }

    fn problem(&self) -> &'static str {
        "ranges"
    }

    fn evaluate(&self, sol: &RangesSolution) -> Verdict {
        evaluate(self.inst, sol).verdict()
    }
}

impl<'a> Engine<RangesRun<'a>> for Exact {
    fn name(&self) -> &str {
        "exact"
    }
    fn solve(&self, run: &RangesRun<'a>, _ctx: &Ctx) -> Outcome<RangesSolution> {
        let e = exact_split(&LoadOracle::new(run.inst), run.inst.nodes);
        Outcome::claim(Status::Optimal, split(e.starts), Some(e.bound))
            .with_message(format!("{} probes", e.probes))
    }
}

impl<'a> Engine<RangesRun<'a>> for Uniform {
    fn name(&self) -> &str {
        "uniform"
    }
    fn solve(&self, run: &RangesRun<'a>, _ctx: &Ctx) -> Outcome<RangesSolution> {
        Outcome::found(split(uniform(run.inst.cells(), run.inst.nodes)))
    }
}

impl<'a> Engine<RangesRun<'a>> for Hash {
    fn name(&self) -> &str {
        "hash"
    }
    /// Any cell → node ownership, not a contiguous split: a different
    /// (relaxed) problem, which `exact`'s optimum does not bound.
    fn problem(&self, _run: &RangesRun<'a>, _ctx: &Ctx) -> &'static str {
        ANY_OWNERSHIP
    }
    fn solve(&self, run: &RangesRun<'a>, ctx: &Ctx) -> Outcome<RangesSolution> {
        let (r, v) = (ctx.opts.count(&REGIONS), ctx.opts.count(&VNODES));
        let (k, n) = (run.inst.cells(), run.inst.nodes);
        let owner = dht_hash(k, n, r as usize, v as usize, ctx.opts.seed);
        Outcome::found(RangesSolution::Owners(Owners { owner }))
    }
}

impl<'a> Engine<RangesRun<'a>> for NbrAdjust {
    fn name(&self) -> &str {
        "nbr-adjust"
    }
    fn solve(&self, run: &RangesRun<'a>, _ctx: &Ctx) -> Outcome<RangesSolution> {
        let oracle = LoadOracle::new(run.inst);
        let (starts, rounds) = nbr_adjust_from(&oracle, run.start().0, NBR_MAX_ROUNDS);
        Outcome::found(split(starts)).with_message(format!("{rounds} rounds"))
    }
}

impl<'a> Engine<RangesRun<'a>> for LeaveJoin {
    fn name(&self) -> &str {
        "leave-join"
    }
    fn solve(&self, run: &RangesRun<'a>, ctx: &Ctx) -> Outcome<RangesSolution> {
        let delta = ctx.opts.real(&DELTA);
        let n = run.inst.nodes;
        let lj = leave_join_from(
            &LoadOracle::new(run.inst),
            &run.start().0,
            delta,
            4 * n.max(1),
        );
        Outcome::found(split(lj.starts))
            .with_message(format!("{} moves, stop: {}", lj.moves, lj.stop))
    }
}

impl<'a> Engine<RangesRun<'a>> for ExactBudget {
    fn name(&self) -> &str {
        "exact-budget"
    }
    /// Optimal within the budget only when it may bind (`B < K`): other
    /// engines may move more cells and beat it, so its claims are checked
    /// apart.
    fn problem(&self, run: &RangesRun<'a>, ctx: &Ctx) -> &'static str {
        if ctx.opts.count(&BUDGET) < run.inst.cells() as u64 {
            WITHIN_BUDGET
        } else {
            "ranges"
        }
    }
    fn solve(&self, run: &RangesRun<'a>, ctx: &Ctx) -> Outcome<RangesSolution> {
        let (start, from) = run.start();
        let oracle = LoadOracle::new(run.inst);
        match exact_budget(&oracle, &start, ctx.opts.count(&BUDGET)) {
            Ok(b) => Outcome::claim(Status::Optimal, split(b.starts), Some(b.bound)).with_message(
                format!(
                    "{} cells migrated from {from}, {} probes",
                    b.migrated, b.probes
                ),
            ),
            Err(why) => Outcome::failed(FailureReason::Refused, why),
        }
    }
}

/// Runs the engine called `name` (no evaluation; the oracle's build is part
/// of the engines that use it).
pub fn solve(name: &str, inst: &RangesInstance, opts: &SolveOptions) -> Outcome<RangesSolution> {
    solve_from(name, inst, None, opts)
}

/// Runs `name` from the current split `current` (checked; `None` =
/// `uniform`): `exact-budget` counts migration from it, `nbr-adjust` and
/// `leave-join` start from it; the other engines ignore it.
pub fn solve_from(
    name: &str,
    inst: &RangesInstance,
    current: Option<&[usize]>,
    opts: &SolveOptions,
) -> Outcome<RangesSolution> {
    match engine::find(engines(), "ranges", name) {
        Ok(e) => e.solve(&RangesRun { inst, current }, &Ctx::new(opts)),
        Err(err) => Outcome::failed(FailureReason::BadInput, err.to_string()),
    }
}

/// Runs `name` on `inst` through the one runner.
pub fn run_ranges(name: &str, inst: &RangesInstance, opts: &SolveOptions) -> SolveRecord {
    run_ranges_from(name, inst, None, opts)
}

/// [`run_ranges`] from a current split (see [`solve_from`]).
pub fn run_ranges_from(
    name: &str,
    inst: &RangesInstance,
    current: Option<&[usize]>,
    opts: &SolveOptions,
) -> SolveRecord {
    engine::run_named(
        engines(),
        "ranges",
        &RangesRun { inst, current },
        name,
        opts,
    )
}

/// The problem `exact-budget` rows report when the budget may bind (`B <
/// K`): the best split moving at most `B` cells from the current one.
pub const WITHIN_BUDGET: &str = "ranges-budget";

/// The problem `hash` rows report: any cell → node ownership.
pub const ANY_OWNERSHIP: &str = "ranges-any";
