//! The command layer: the command line ([`cli`]), the benchmark's reports
//! and plots ([`report`]), and each family's own commands — `gen`, `repro`,
//! `plan` and `simulate` front ends, paper reproductions and their figures
//! (`spd`, `cma`, `rank`, `ranges`, `ag`).
//!
//! It sits above the library: it builds the registry of families and hands
//! it down; no library module imports it (a test checks), and the library
//! builds without it (`--no-default-features`: no clap, no plotters).

pub mod ag;
pub mod cli;
pub mod cma;
pub mod ranges;
pub mod rank;
pub mod report;
pub mod spd;

/// The crate's families' own commands, in table order.
pub fn commands() -> Vec<cli::Commands> {
    vec![
        spd::cli::hooks,
        cma::cli::hooks,
        rank::hooks,
        ranges::cli::hooks,
        ag::cli::hooks,
    ]
}
