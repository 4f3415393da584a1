//! Files: instance formats, solution files, generators.

pub mod brite;
pub mod cma_events;
pub mod cma_file;
pub mod fields;
pub mod gen_cma;
pub mod gen_spd;
pub mod json_strict;
pub mod matrix;
pub mod solution_file;
pub mod spd_file;

use crate::error::{Error, Result};
use crate::model::cma::CmaInstance;
use crate::model::spd::SpdInstance;
use std::path::{Path, PathBuf};

/// An instance of any supported problem, as read from a file.
#[derive(Debug, Clone)]
pub enum Instance {
    /// SPD or SPDVR.
    Spd(Box<SpdInstance>),
    /// CMA (static or dynamic).
    Cma(Box<CmaInstance>),
}

impl Instance {
    /// The instance's name.
    pub fn name(&self) -> &str {
        match self {
            Instance::Spd(i) => &i.name,
            Instance::Cma(i) => &i.name,
        }
    }
}

/// Reads any instance file, dispatching on its `"problem"` field.
pub fn read_instance(path: &Path) -> Result<Instance> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
    let file = spd_file::display_name(path);
    let value = json_strict::parse_value(&text, &file)?;
    match value.get("problem").and_then(|p| p.as_str()) {
        Some("spd") | Some("spdvr") => Ok(Instance::Spd(Box::new(spd_file::read_spd(path)?))),
        Some("cma") => Ok(Instance::Cma(Box::new(cma_file::read_cma(path)?))),
        Some(other) => Err(Error::input(
            &file,
            "problem",
            format!("'{other}' is not a problem serverpick reads (spd, spdvr, cma)"),
        )),
        None => Err(Error::input(
            &file,
            "problem",
            "missing: every instance names its problem",
        )),
    }
}

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
