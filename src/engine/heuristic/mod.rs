//! The papers' heuristics, one file per algorithm family.

pub mod cma_join;
pub mod cma_leave;
pub mod k_best;
pub mod matching;
pub mod spdcs_h;
pub mod zizo;
