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
//! | `k-best`    | k-best (brute force over k-subsets) | CS, P2P | [`k_best`](super::k_best::k_best) |
//! | `exact`     | CS: set-cover MILPs on HiGHS; P2P: constraint search (MILP fallback) | CS, P2P | [`exact`](super::exact) |

use crate::core::{fill_record, FailureReason, Outcome, ParamKind, ParamSpec, SolveOptions};
use crate::core::{SolveRecord, Status};
use crate::error::{Error, Result};
use crate::problems::spd::model::{CommModel, SpdInstance, SpdSolution};
use crate::problems::spd::{
    algorithm_matching, exact, host_ls, host_search, k_best, spdcs_h, spdp2p_h, zizo,
};
use serde_json::json;
use std::time::Instant;

/// What an SPD (or SPDVR) engine returns: a solution and its claim.
pub type SpdOutcome = Outcome<SpdSolution>;

/// `k-best` refuses to enumerate more (subset, root) pairs than this.
pub const KBEST_MAX_SUBSETS: ParamSpec = ParamSpec {
    name: "kbest-max-subsets",
    kind: ParamKind::Count,
    default: "2000000",
    help: "k-best refuses to enumerate more (subset, root) pairs than this",
};

/// Exact SPD: after the proven minimum host count, also minimise delay, then
/// variation, at that count (`false`: stop at the host count).
pub const LEXICOGRAPHIC: ParamSpec = ParamSpec {
    name: "lexicographic",
    kind: ParamKind::Flag,
    default: "true",
    help: "exact SPD: after the host count, also minimise delay then variation",
};

/// An SPD engine.
pub trait SpdEngine: Sync {
    /// CLI name.
    fn name(&self) -> &'static str;
    /// Whether it applies to this communication model.
    fn supports(&self, model: CommModel) -> bool;
    /// Runs the engine.
    fn solve(&self, inst: &SpdInstance, opts: &SolveOptions) -> SpdOutcome;
}

/// Every SPD engine, in the order tables list them.
pub fn spd_engines() -> Vec<Box<dyn SpdEngine>> {
    vec![
        Box::new(algorithm_matching::AlgorithmMatching),
        Box::new(spdcs_h::SpdcsH),
        Box::new(spdp2p_h::Spdp2pH),
        Box::new(zizo::Zizo),
        Box::new(host_ls::HostLs),
        Box::new(host_search::HostSearch),
        Box::new(k_best::KBest),
        Box::new(exact::ExactSpd),
    ]
}

/// Names of every SPD engine.
pub fn spd_engine_names() -> Vec<&'static str> {
    spd_engines().iter().map(|e| e.name()).collect()
}

/// Looks up an SPD engine by CLI name.
pub fn spd_engine(name: &str) -> Result<Box<dyn SpdEngine>> {
    spd_engines()
        .into_iter()
        .find(|e| e.name() == name)
        .ok_or_else(|| {
            Error::Usage(format!(
                "unknown SPD engine '{name}' (known: {})",
                spd_engine_names().join(", ")
            ))
        })
}

/// Runs `engine` on `inst`, evaluates its solution and builds the record
/// (objective = the evaluated host count; see [`fill_record`] for what the
/// evaluator enforces).
pub fn run_spd(engine: &dyn SpdEngine, inst: &SpdInstance, opts: &SolveOptions) -> SolveRecord {
    if !engine.supports(inst.model) {
        return SolveRecord::failed(
            &inst.name,
            "spd",
            engine.name(),
            FailureReason::NotApplicable,
            format!(
                "{} does not apply to the {} model",
                engine.name(),
                inst.model
            ),
        );
    }
    let mut record = SolveRecord::unsolved(&inst.name, "spd", engine.name());
    let started = Instant::now();
    let outcome = engine.solve(inst, opts);
    record.time_ms = started.elapsed().as_secs_f64() * 1e3;
    let infeasible_cs = outcome.status == Status::Infeasible && inst.model == CommModel::Cs;
    fill_record(&mut record, outcome, |sol| {
        crate::problems::spd::eval::evaluate_spd(inst, sol).verdict()
    });
    if infeasible_cs {
        record.metrics.insert("gamma".into(), json!(inst.gamma));
    }
    record
}
