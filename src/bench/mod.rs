//! The benchmark runner (`serverpick bench`, `bench-merge`, `repro`).
//!
//! - [`dispatch`]: the one place mapping an instance to its engines.
//! - [`runner`]: parallel runs, error rows for failing or panicking engines,
//!   row-by-row `results.jsonl`, `--resume`, `bench-merge`.
//! - [`row`]: the flat result row; best known, gap and conflict detection.
//! - [`shard`]: `--shard K/N` for cluster job arrays.
//! - [`export`]: CSV and JSON Lines exporters.
//! - [`summary`]: writes `summary.md`.
//! - [`plot`]: SVG plots.
//! - [`repro`]: the papers' experiments (seed 001 §IV); [`repro_cma`] with
//!   [`repro_cma_figures`] and [`repro_cma_findings`]: seed 002 §4.
//!
//! A result set is a folder: `results.jsonl` (source of truth, appended as
//! rows complete), `results.csv`, `summary.md` and `*.svg`, all regenerated
//! from the rows at the end of a run and by `bench-merge`.

pub mod dispatch;
pub mod export;
pub mod plot;
pub mod repro;
pub mod repro_cma;
pub mod repro_cma_figures;
pub mod repro_cma_findings;
pub mod row;
pub mod runner;
pub mod shard;
pub mod summary;

pub use dispatch::{applicable_engines, run_engine, Dispatch, Registry};
pub use row::{annotate, BenchRow};
pub use runner::{merge, run_bench, BenchConfig, BenchOutcome};
pub use shard::Shard;
