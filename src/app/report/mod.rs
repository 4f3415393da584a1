//! What people read of a benchmark: `summary.md` and `summary.json`
//! ([`summary`]), the SVG plots ([`plot`]), the Dolan–Moré performance
//! profiles ([`profile`]) and `report.html` (the page a person opens; its
//! exporter is private), written from the rows the runner keeps. The
//! runner reaches them through [`Standard`], its [`Reports`].

mod html;
pub mod plot;
pub mod profile;
pub mod summary;

use crate::bench::export::write_atomic;
use crate::bench::{Reports, ResultSet};
use crate::core::registry::Registry;
use crate::error::{Error, Result};
use std::path::Path;

/// Markdown summary.
pub const SUMMARY_MD: &str = "summary.md";
/// The numbers of [`SUMMARY_MD`] for machines ([`summary::summary_json`]).
pub const SUMMARY_JSON: &str = "summary.json";

/// The reports of every bench folder: `summary.md`, `summary.json`, the
/// plots and `report.html` (the last two only at the end of a run, not in
/// its snapshots). The
/// registry gives each family's plot labels.
#[derive(Debug, Clone)]
pub struct Standard {
    /// The families the rows come from.
    pub registry: Registry,
}

impl Reports for Standard {
    fn write(&self, out: &Path, set: &ResultSet<'_>, in_progress: bool) -> Result<()> {
        let plots: Vec<String> = if in_progress {
            Vec::new()
        } else {
            match plot::write_bench_plots(set.rows, out, set.engine_order, &self.registry) {
                Ok(paths) => paths
                    .iter()
                    .filter_map(|p| p.file_name())
                    .map(|f| f.to_string_lossy().into_owned())
                    .collect(),
                Err(e) => {
                    eprintln!("warning: plots not written: {e}");
                    Vec::new()
                }
            }
        };
        let md = summary::render_markdown_with_plots(
            set.rows,
            set.conflicts,
            set.note,
            set.engine_order,
            &plots,
        );
        write_atomic(&out.join(SUMMARY_MD), md.as_bytes())?;
        let v = summary::summary_json(set.rows, set.conflicts, set.engine_order);
        let mut text = serde_json::to_string_pretty(&v)
            .map_err(|e| Error::Internal(format!("cannot serialise the summary: {e}")))?;
        text.push('\n');
        write_atomic(&out.join(SUMMARY_JSON), text.as_bytes())?;
        if !in_progress {
            html::write_report(
                out,
                set.rows,
                set.conflicts,
                set.note,
                set.engine_order,
                &plots,
            )?;
        }
        Ok(())
    }
}
