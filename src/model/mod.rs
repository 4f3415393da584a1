//! Pure problem types, validation and the evaluators (one per problem).

pub mod cma;
pub mod cma_eval;
pub mod network;
pub mod report;
pub mod spd;
pub mod spd_eval;
pub mod spdvr_eval;
pub mod status;

pub use report::SolveRecord;
pub use status::{relative_gap, within_bound, Status};
