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
//! - [`summary`]: `summary.md` and `summary.json` (counts, gaps, times,
//!   shifted geometric means).
//! - [`plot`]: SVG plots.
//! - [`profile`]: Dolan–Moré time and gap profiles.
//! - [`progress`]: progress lines when stderr is not a terminal.
//! - `report`: `report.html`, the page a person opens (private; the
//!   runner writes it with the other outputs).
//!
//! A result set is a folder: `results.jsonl` (source of truth, appended as
//! rows complete), `results.csv`, `summary.md`, `summary.json`, `*.svg` and
//! `report.html`, all regenerated
//! from the rows at the end of a run and by `bench-merge`.

pub mod dispatch;
pub mod export;
pub mod foreign;
pub mod import;
pub mod merge;
pub mod plot;
pub mod profile;
pub mod progress;
mod report;
pub mod row;
pub mod runner;
pub mod shard;
pub mod summary;

pub use dispatch::{Dispatch, Registry};
pub use merge::merge;
pub use row::{annotate, BenchRow};
pub use runner::{run_bench, BenchConfig, BenchOutcome};
pub use shard::Shard;
