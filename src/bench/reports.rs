//! What a result set's readers get besides its rows: the summary, the plots,
//! a page to open. The runner writes the rows (`results.jsonl`,
//! `results.csv`); the reports are the command layer's (`app::report`),
//! handed to the runner as a [`Reports`], so the library needs no plotting
//! or page code.

use crate::bench::row::BenchRow;
use crate::error::Result;
use std::path::Path;

/// One annotated result set, as the reports see it.
#[derive(Debug, Clone, Copy)]
pub struct ResultSet<'a> {
    /// Every row, annotated (best known, gap, check), in file/engine order.
    pub rows: &'a [BenchRow],
    /// The contradictions found among them.
    pub conflicts: &'a [String],
    /// A note under the title (a shard, a merge, a snapshot).
    pub note: Option<&'a str>,
    /// Engines in table order.
    pub engine_order: &'a [String],
}

/// Writes a result set's reports into its folder.
pub trait Reports: Send + Sync {
    /// (Re)writes the reports of `set` into `out`. `in_progress` is true for
    /// the snapshots a running bench takes every few seconds (cheap reports
    /// only: no plots).
    fn write(&self, out: &Path, set: &ResultSet<'_>, in_progress: bool) -> Result<()>;
}

/// No reports: the rows alone.
#[derive(Debug, Clone, Copy, Default)]
pub struct RowsOnly;

impl Reports for RowsOnly {
    fn write(&self, _out: &Path, _set: &ResultSet<'_>, _in_progress: bool) -> Result<()> {
        Ok(())
    }
}
