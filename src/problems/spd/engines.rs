//! The SPD engines by CLI name (problems.md §1), their parameters, and
//! [`run_spd`]: run one, have the evaluator score it, fill the record.
//!
//! | name        | paper name                 | models  | function |
//! |-------------|----------------------------|---------|----------|
//! | `alg-m`     | Algorithm Matching         | CS, P2P | [`algorithm_matching`](super::algorithm_matching::algorithm_matching) |
//! | `spdcs-h`   | SPDCS-H                    | CS      | [`spdcs_h`](super::spdcs_h::spdcs_h) |
//! | `spdp2p-h`  | SPDP2P-H                   | P2P     | [`spdp2p_h`](super::spdp2p_h::spdp2p_h) |
//! | `zizo`      | Zoom-In Zoom-Out (Lee et al.) | P2P  | [`zizo`](super::zizo::zizo) |
//! | `host-ls`   | beyond the paper: P2P host-elimination local search | P2P | [`host_ls`](super::host_ls::host_ls) |
//! | `host-search` | beyond the paper: restarted constraint search for fewer P2P hosts | P2P | [`host_search`](super::host_search::host_search) |
//! | `host-lns`  | beyond the paper: large-neighbourhood dives of the constraint search for fewer P2P hosts | P2P | [`HostLns`](super::host_lns::HostLns) |
//! | `k-best`    | k-best (brute force over k-subsets) | CS, P2P | [`k_best`](super::k_best::k_best) |
//! | `exact`     | CS: set-cover MILPs on HiGHS; P2P: constraint search (MILP fallback) | CS, P2P | [`exact`] |

use crate::core::engine::{self, Ctx, Engine, Engines, Problem};
use crate::core::{Outcome, ParamSpec, SolveOptions, SolveRecord, Status, Verdict};
use crate::error::Result;
use crate::problems::spd::model::{CommModel, SpdInstance, SpdSolution};
use crate::problems::spd::{
    algorithm_matching, exact, host_lns, host_ls, host_search, k_best, spdcs_h, spdp2p_h, zizo,
};
use serde_json::json;

/// What an SPD (or SPDVR) engine returns: a solution and its claim.
pub type SpdOutcome = Outcome<SpdSolution>;

/// `k-best` refuses to enumerate more (subset, root) pairs than this.
pub const KBEST_MAX_SUBSETS: ParamSpec = ParamSpec::count(
    "kbest-max-subsets",
    2_000_000,
    1,
    u64::MAX,
    "k-best refuses to enumerate more (subset, root) pairs than this",
);

/// Exact SPD: after the proven minimum host count, also minimise delay, then
/// variation, at that count (`false`: stop at the host count).
pub const LEXICOGRAPHIC: ParamSpec = ParamSpec::flag(
    "lexicographic",
    true,
    "exact SPD: after the host count, also minimise delay then variation",
);

/// THE list of SPD engines, in table order: a new engine is one line here.
pub static ENGINES: &Engines<'static, SpdInstance> = &[
    &algorithm_matching::AlgorithmMatching,
    &spdcs_h::SpdcsH,
    &spdp2p_h::Spdp2pH,
    &zizo::Zizo,
    &host_ls::HostLs,
    &host_search::HostSearch,
    &host_lns::HostLns,
    &k_best::KBest,
    &exact::ExactSpd,
];

/// Looks up an SPD engine by CLI name.
pub fn spd_engine(name: &str) -> Result<&'static dyn Engine<SpdInstance>> {
    engine::find(ENGINES, "SPD", name)
}

/// `Ok` when `model` is one of `models`, else why `name` does not apply.
pub fn for_models(
    name: &str,
    models: &[CommModel],
    inst: &SpdInstance,
) -> std::result::Result<(), String> {
    if models.contains(&inst.model) {
        Ok(())
    } else {
        Err(format!("{name} does not apply to the {} model", inst.model))
    }
}

impl Problem for SpdInstance {
    type Solution = SpdSolution;

    fn instance_name(&self) -> &str {
        &self.name
    }

    fn problem(&self) -> &'static str {
        "spd"
    }

    fn evaluate(&self, solution: &SpdSolution) -> Verdict {
        crate::problems::spd::eval::evaluate_spd(self, solution).verdict()
    }

    /// A proven-infeasible CS run carries Γ, the least CS delay, beside it.
    fn annotate(&self, record: &mut SolveRecord) {
        if record.status == Status::Infeasible && self.model == CommModel::Cs {
            record.metrics.insert("gamma".into(), json!(self.gamma));
        }
    }
}

/// Runs `engine` on `inst` through the one runner (objective = the
/// evaluated host count).
pub fn run_spd(
    engine: &dyn Engine<SpdInstance>,
    inst: &SpdInstance,
    opts: &SolveOptions,
) -> SolveRecord {
    engine::run(engine, inst, opts)
}

/// Runs `engine` with `ctx` directly (no evaluation): for engines that
/// start from another engine's solution.
pub fn solve_with(engine: &dyn Engine<SpdInstance>, inst: &SpdInstance, ctx: &Ctx) -> SpdOutcome {
    engine.solve(inst, ctx)
}
