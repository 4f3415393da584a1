//! # serverpick
//!
//! Decides which game servers a session uses and which server each player
//! connects to, under latency, fairness and capacity constraints: the published
//! heuristics, faithfully, and exact optima to judge them.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod bench;
/// Command-line front ends (temporary wiring for `cli::bench`; the lead's
/// `src/cli/mod.rs` replaces this block).
pub mod cli {
    pub mod bench;
}
pub mod engine;
pub mod error;
pub mod io;
pub mod model;

pub use error::{Error, InputError, Result};
