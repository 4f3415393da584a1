//! An append-and-flush JSON-lines log: each record written and synced as
//! soon as it exists, so Ctrl-C or a crash keeps every record before it
//! (`plan cma` and `plan spd`'s `points.jsonl`).

use crate::error::{Error, Result};
use serde::Serialize;
use std::io::Write;
use std::path::{Path, PathBuf};

/// A JSON-lines file open for appending records.
#[derive(Debug)]
pub struct JsonlLog {
    file: std::fs::File,
    path: PathBuf,
}

impl JsonlLog {
    /// Opens `path`: appending to it when `resume`, else replacing it.
    pub fn open(path: &Path, resume: bool) -> Result<Self> {
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(resume)
            .write(true)
            .truncate(!resume)
            .open(path)
            .map_err(|e| Error::io(path, e))?;
        Ok(JsonlLog {
            file,
            path: path.to_path_buf(),
        })
    }

    /// Writes `record` as one line and syncs it to disk.
    pub fn append(&mut self, record: &impl Serialize) -> Result<()> {
        let text = serde_json::to_string(record).map_err(|e| Error::Internal(e.to_string()))?;
        writeln!(self.file, "{text}")
            .and_then(|_| self.file.sync_data())
            .map_err(|e| Error::io(&self.path, e))
    }
}
