//! Files every family shares: finding instance files under folders, solution
//! files, and field readers for the instance formats. Each family's own
//! format lives in its folder (`problems/<family>/file.rs`).

pub mod fields;
pub mod json_strict;
pub mod solution_file;

use crate::error::{Error, Result};
use std::path::{Path, PathBuf};

/// Expands files and folders into the instance files under them: `*.json`
/// files, recursively, sorted, skipping solution files (`*.solution.json`).
pub fn collect_instance_files(paths: &[PathBuf]) -> Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for p in paths {
        if p.is_dir() {
            walk(p, &mut out)?;
        } else if p.exists() {
            out.push(p.clone());
        } else {
            return Err(Error::Usage(format!(
                "{}: no such file or folder",
                p.display()
            )));
        }
    }
    Ok(out)
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> Result<()> {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| Error::io(dir, e))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            walk(&p, out)?;
        } else if is_instance_name(&p) {
            out.push(p);
        }
    }
    Ok(())
}

fn is_instance_name(p: &Path) -> bool {
    let name = p
        .file_name()
        .map(|n| n.to_string_lossy())
        .unwrap_or_default();
    name.ends_with(".json") && !name.ends_with(".solution.json")
}
