//! The benchmark runner (`serverpick bench`, `bench-merge`, and the
//! families' `repro` commands, which build on it). It knows no family by
//! name: instances come from the registry.
//!
//! - [`dispatch`]: how the runner reaches an instance's engines.
//! - [`runner`]: parallel runs, error rows for failing or panicking engines,
//!   row-by-row `results.jsonl`, `--resume`, `bench-merge`.
//! - [`row`]: the flat result row; best known, gap and conflict detection.
//! - [`shard`]: `--shard K/N` for cluster job arrays.
//! - [`export`]: CSV and JSON Lines exporters.
//! - [`import`]: solution files produced elsewhere as rows (`--solutions`).
//! - [`progress`]: progress lines when stderr is not a terminal.
//! - [`reports`]: what the command layer writes beside the rows (summary,
//!   plots, `report.html`; `app::report`), handed in as a [`Reports`].
//!
//! A result set is a folder: `results.jsonl` (source of truth, appended as
//! rows complete), `results.csv`, and the reports (`summary.md`,
//! `summary.json`, `*.svg`, `report.html` from the command layer), all
//! regenerated from the rows at the end of a run and by `bench-merge`.

pub mod dispatch;
pub mod export;
pub mod foreign;
pub mod import;
pub mod merge;
pub mod progress;
pub mod reports;
pub mod row;
pub mod runner;
pub mod shard;

pub use crate::core::registry::Registry;
pub use dispatch::Dispatch;
pub use merge::merge;
pub use reports::{Reports, ResultSet, RowsOnly};
pub use row::{annotate, BenchRow};
pub use runner::{run_bench, BenchConfig, BenchOutcome};
pub use shard::Shard;
