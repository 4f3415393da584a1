//! # serverpick
//!
//! Decides which game servers a session uses and which server each player
//! connects to, under latency, fairness and capacity constraints: the published
//! heuristics, faithfully, and exact optima to judge them.
//!
//! Layers, each using only those before it: [`io`] and [`net`] (files,
//! networks and latency matrices), [`lp`] (HiGHS), [`core`] (the family
//! interface, the registry value, the one runner and its budget, records,
//! status, options, the one record filler and cross-check), [`external`]
//! (engines from outside: commands, functions), [`problems`] (one folder per
//! problem family: models, evaluators, files, generators, engines) and
//! [`bench`](mod@bench) (the batch runner). Above them, behind the default
//! feature `cli`, the command layer `app` (the command line, reports and
//! plots, the families' commands); no library module imports it, and with
//! `default-features = false` the library builds without clap or plotters.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

#[cfg(feature = "cli")]
pub mod app;
pub mod bench;
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
