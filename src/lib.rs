//! # serverpick
//!
//! Decides which game servers a session uses and which server each player
//! connects to, under latency, fairness and capacity constraints: the published
//! heuristics, faithfully, and exact optima to judge them.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod bench;
pub mod cli;
pub mod engine;
pub mod error;
pub mod io;
pub mod model;

pub use error::{Error, InputError, Result};
