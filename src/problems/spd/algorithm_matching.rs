//! Algorithm Matching (`alg-m`, seed 001 §III-A).
//!
//! For each root `r`, every client takes the server minimising
//! `a(c,s) + D(s,r)`; the root with the least CS delay wins (ties: fewer
//! hosts, then lower variation, then the lower root). Exact for the minimum CS
//! delay — its delay is Γ — and blind to the number of hosts.
//! Complexity `O(n² · m)` after the all-pairs shortest paths.
//!
//! For P2P (the paper's `alg-mp`), the CS solution is evaluated as P2P, which
//! is valid because `D_p2p <= D_cs` (seed 001 §III-A). For CS, a delay above μ
//! proves the instance infeasible (Γ > μ): the engine reports `infeasible`.
//!
//! ```
//! use serverpick::core::{Ctx, Engine, SolveOptions};
//! use serverpick::net::network::ServerNetwork;
//! use serverpick::problems::spd::algorithm_matching::AlgorithmMatching;
//! use serverpick::problems::spd::model::*;
//! let net = ServerNetwork::new(2, &[(0, 1, 10.0)]);
//! let access = vec![vec![Some(5.0), Some(30.0)], vec![Some(40.0), Some(2.0)]];
//! let inst = SpdInstance::new("doc", CommModel::Cs, net, &access, BoundSpec::Factor(1.0)).unwrap();
//! let out = AlgorithmMatching.solve(&inst, &Ctx::new(&SolveOptions::default()));
//! // root 0: paths 5 and 2+10 = 12 → delay 24 = Γ
//! assert_eq!(inst.gamma, 24.0);
//! assert_eq!(out.solution.unwrap().assign, vec![0, 1]);
//! ```

use crate::core::engine::{Ctx, Engine};
use crate::core::{within_bound, Status};
use crate::problems::spd::engines::SpdOutcome;
use crate::problems::spd::eval::{approx_eq, evaluate_spd};
use crate::problems::spd::model::{CommModel, SpdInstance, SpdSolution};

/// `alg-m`.
pub struct AlgorithmMatching;

/// Algorithm Matching: the best root's assignment (CS form, with its root).
pub fn algorithm_matching(inst: &SpdInstance) -> SpdSolution {
    let mut best: Option<((f64, usize, f64), SpdSolution)> = None;
    let cs_view = cs_view(inst);
    for r in 0..inst.servers() {
        let (assign, _) = inst.matching_for_root(r, None);
        let sol = SpdSolution {
            root: Some(r),
            assign,
        };
        let key = match evaluate_spd(&cs_view, &sol).metrics {
            Some(m) => (m.delay, m.hosts, m.variation),
            None => continue,
        };
        let better = match &best {
            None => true,
            Some((k, _)) => {
                if !approx_eq(key.0, k.0) {
                    key.0 < k.0
                } else if key.1 != k.1 {
                    key.1 < k.1
                } else {
                    !approx_eq(key.2, k.2) && key.2 < k.2
                }
            }
        };
        if better {
            best = Some((key, sol));
        }
    }
    best.map(|(_, s)| s).unwrap_or(SpdSolution {
        root: Some(0),
        assign: vec![0; inst.clients()],
    })
}

/// The instance seen in the CS model (used to score CS trees of a P2P instance).
pub(crate) fn cs_view(inst: &SpdInstance) -> std::borrow::Cow<'_, SpdInstance> {
    if inst.model == CommModel::Cs {
        std::borrow::Cow::Borrowed(inst)
    } else {
        let mut v = inst.clone();
        v.model = CommModel::Cs;
        std::borrow::Cow::Owned(v)
    }
}

impl Engine<SpdInstance> for AlgorithmMatching {
    fn name(&self) -> &str {
        "alg-m"
    }

    fn solve(&self, inst: &SpdInstance, _ctx: &Ctx) -> SpdOutcome {
        let mut sol = algorithm_matching(inst);
        match inst.model {
            CommModel::Cs => {
                if !within_bound(inst.gamma, inst.bound) {
                    return SpdOutcome::without_solution(
                        Status::Infeasible,
                        format!(
                            "Γ = {:.6} > μ = {:.6}: no CS solution meets the bound",
                            inst.gamma, inst.bound
                        ),
                    );
                }
                SpdOutcome::found(sol)
            }
            CommModel::P2p => {
                sol.root = None;
                if !evaluate_spd(inst, &sol).is_feasible() {
                    return SpdOutcome::no_solution(
                        "the matching tree's P2P delay exceeds the bound",
                    );
                }
                SpdOutcome::found(sol)
            }
        }
    }
}
