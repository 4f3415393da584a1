//! AG engines (problems.md §4) and [`run_ag`].
//!
//! | name | what | cost |
//! |---|---|---|
//! | `hybrid` | Algorithm 1, whole AGs, P2P roles by `distributes(LL)` | `O(A · N + Σ_{P2P} size²)` |
//! | `hybrid-pd` | the same, P2P roles by `distributes(PD)` | `O(A · N + Σ_{P2P} size · 50)` |
//! | `exact-ll` | Algorithm 1's placement, `(S, RS)` minimising the P2P links' total latency over all pairs | `O(A · N + Σ_{P2P} size²)` |
//! | `exact-pd` | Algorithm 1's placement, `(S, RS)` minimising `PD(S)·PD(RS)` over all pairs | `O(A · N + Σ_{P2P} size²)` |
//! | `classic` | Bezerra et al.: individual players to the least-loaded neighbouring regions, BFS rings | `O(Σ extra · N + P)` |
//! | `exact` | lexicographic MILP (P2P players, moved, max load), whole AGs, main game stays | 3 MILPs of `Z·N·(N+1)` integers |
//! | `exact-players` | the same, main-game players may move one by one | 3 MILPs of `Z·N·(N+1) + N²` integers |
//!
//! Problems reported (cross-checks compare runs of one problem only): `ag`
//! for whole-AG solutions that leave every server at or below its target
//! (`exact`'s problem), `ag-over` for whole-AG solutions that do not,
//! `ag-players` for `exact-players`, `ag-split` for `classic` (AGs may split).

use crate::core::{fill_record, FailureReason, Outcome, SolveOptions, SolveRecord};
use crate::problems::ag::classic::classic;
use crate::problems::ag::eval::evaluate;
use crate::problems::ag::exact::exact;
use crate::problems::ag::hybrid::{
    algorithm_1_hybrid, placement_solution, placement_with_roles, Criteria,
};
use crate::problems::ag::model::{AgInstance, AgSolution};
use crate::problems::ag::roles::{exact_ll_roles, exact_pd_roles};
use std::time::Instant;

/// The engines, in table order.
pub const ENGINES: [&str; 7] = [
    "exact",
    "exact-players",
    "hybrid",
    "hybrid-pd",
    "exact-ll",
    "exact-pd",
    "classic",
];

/// Runs engine `engine` (no evaluation).
pub fn solve(engine: &str, inst: &AgInstance, opts: &SolveOptions) -> Outcome<AgSolution> {
    match engine {
        "hybrid" => Outcome::found(placement_solution(
            inst,
            &algorithm_1_hybrid(inst),
            Criteria::Ll,
        )),
        "hybrid-pd" => Outcome::found(placement_solution(
            inst,
            &algorithm_1_hybrid(inst),
            Criteria::Pd,
        )),
        "exact-ll" => {
            let place = algorithm_1_hybrid(inst);
            Outcome::found(placement_with_roles(inst, &place, |a| {
                exact_ll_roles(inst, a)
            }))
        }
        "exact-pd" => {
            let place = algorithm_1_hybrid(inst);
            Outcome::found(placement_with_roles(inst, &place, |a| {
                exact_pd_roles(inst, a)
            }))
        }
        "classic" => Outcome::found(classic(inst)),
        "exact" => exact(inst, false, opts),
        "exact-players" => exact(inst, true, opts),
        other => Outcome::failed(
            FailureReason::BadInput,
            format!(
                "unknown ag engine '{other}' (known: {})",
                ENGINES.join(", ")
            ),
        ),
    }
}

/// Runs `engine` on `inst`, evaluates the solution and builds the record.
pub fn run_ag(engine: &str, inst: &AgInstance, opts: &SolveOptions) -> SolveRecord {
    let mut record = SolveRecord::unsolved(&inst.name, "ag", engine);
    let started = Instant::now();
    let outcome = solve(engine, inst, opts);
    record.time_ms = started.elapsed().as_secs_f64() * 1e3;
    let mut over = false;
    fill_record(&mut record, outcome, |sol| {
        let ev = evaluate(inst, sol);
        over = ev.metrics.as_ref().is_some_and(|m| m.excess > 0);
        ev.verdict()
    });
    record.problem = match engine {
        "classic" => "ag-split",
        "exact-players" => "ag-players",
        _ if over => "ag-over",
        _ => "ag",
    }
    .to_string();
    record
}
