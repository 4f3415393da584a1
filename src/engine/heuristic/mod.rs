//! The papers' heuristics, one file per algorithm family.

pub mod chains;
pub mod cma_join;
pub mod cma_leave;
pub mod k_best;
pub mod matching;
pub(crate) mod p2p_moves;
pub mod p2p_vr_ls;
pub mod spdcs_h;
pub mod spdvrp2p_h;
pub mod zizo;
