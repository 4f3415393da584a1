//! SPDP2P-H (seed 001 §III-A; problems.md §1): SPDCS-H's construction with
//! each root's tree evaluated in the P2P model. The root is not a host unless
//! a client uses it; the servers on canonical paths between hosts are
//! reported as relays by the evaluator (the paper's "intermediate servers").
//! Complexity as SPDCS-H: `O(n² · m)` per root.

use crate::core::engine::{Ctx, Engine};
use crate::problems::spd::engines::{for_models, SpdOutcome};
use crate::problems::spd::model::{CommModel, SpdInstance, SpdSolution};
use crate::problems::spd::spdcs_h::{best_tree, best_tree_outcome};

/// `spdp2p-h`.
pub struct Spdp2pH;

/// SPDP2P-H on a P2P instance: the best root's tree by the P2P metrics
/// (fewest hosts, then delay, then variation); `None` when every root fails.
pub fn spdp2p_h(inst: &SpdInstance) -> Option<SpdSolution> {
    best_tree(inst)
}

impl Engine<SpdInstance> for Spdp2pH {
    fn name(&self) -> &str {
        "spdp2p-h"
    }
    fn applies(&self, inst: &SpdInstance) -> Result<(), String> {
        for_models(self.name(), &[CommModel::P2p], inst)
    }

    fn solve(&self, inst: &SpdInstance, _ctx: &Ctx) -> SpdOutcome {
        best_tree_outcome(inst)
    }
}
