//! # serverpick
//!
//! Decides which game servers a session uses and which server each player
//! connects to, under latency, fairness and capacity constraints: the published
//! heuristics, faithfully, and exact optima to judge them.
//!
//! Layout: [`core`] (the family interface, its registry, records, status,
//! options, the one record filler and cross-check), [`lp`] (HiGHS), [`net`]
//! (networks and latency matrices), [`io`] (instance discovery, solution
//! files), [`problems`] (one folder per problem family), [`bench`](mod@bench) (the
//! benchmark runner) and [`cli`] — the last two know no family by name.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod bench;
pub mod cli;
pub mod core;
pub mod error;
pub mod external;
pub mod io;
pub mod lp;
pub mod net;
pub mod problems;

pub use error::{Error, InputError, Result};

/// The README's Rust examples, compiled and run as doctests so they stay true.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
