//! Range partitioning's commands: `gen ranges`, `simulate-ranges` (its
//! files in [`sim_report`]) and `repro ranges` ([`repro`], its files in
//! [`repro_report`]).

pub mod cli;
pub mod repro;
pub mod repro_report;
pub mod sim_report;
