//! Files every family shares: finding instance files under folders, solution
//! files, and field readers for the instance formats. Each family's own
//! format lives in its folder (`problems/<family>/file.rs`).

pub mod fields;
pub mod json_matrix;
pub mod json_strict;
pub mod json_text;
pub mod jsonl;
pub mod solution_file;

use crate::error::{Error, Result};
use std::io::Read;
use std::path::{Path, PathBuf};

/// The largest input file read (JSON instances, solutions, measured
/// matrices): 4 GiB. Larger matrices belong in `{"csv": …}` side files.
pub const MAX_INPUT_BYTES: u64 = 4 << 30;

/// Reads a text input file: regular files only (a FIFO or a device would
/// block or never end), at most [`MAX_INPUT_BYTES`].
pub fn read_text(path: &Path) -> Result<String> {
    let meta = std::fs::metadata(path).map_err(|e| Error::io(path, e))?;
    if !meta.is_file() {
        return Err(Error::input(
            path.display().to_string(),
            "",
            "not a regular file",
        ));
    }
    if meta.len() > MAX_INPUT_BYTES {
        return Err(Error::input(
            path.display().to_string(),
            "",
            format!("{} bytes, above the limit of {MAX_INPUT_BYTES}", meta.len()),
        ));
    }
    let file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
    let mut text = String::new();
    file.take(MAX_INPUT_BYTES + 1)
        .read_to_string(&mut text)
        .map_err(|e| Error::io(path, e))?;
    // A UTF-8 byte-order mark (as some editors write) is accepted, as the
    // CSV reader accepts it.
    if let Some(rest) = text.strip_prefix('\u{feff}') {
        text = rest.to_string();
    }
    Ok(text)
}

/// Creates the output folder `out` (and its parents); an existing file there
/// is a clear usage error, not "File exists".
pub fn create_out_dir(out: &Path) -> Result<()> {
    if out.exists() && !out.is_dir() {
        return Err(Error::Usage(format!(
            "--out {}: is a file, not a folder",
            out.display()
        )));
    }
    std::fs::create_dir_all(out).map_err(|e| Error::io(out, e))
}

/// Expands files and folders into the instance files under them: `*.json`
/// files, recursively, sorted, skipping solution files (`*.solution.json`).
pub fn collect_instance_files(paths: &[PathBuf]) -> Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for p in paths {
        if p.is_dir() {
            walk_files(p, &is_instance_name, &mut out)?;
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

/// Walks `dir`, sorted and recursively, collecting the files `keep` accepts:
/// symlinked folders inside it are not followed (a link back up would loop;
/// fuzz3 D11) and are named on stderr; a folder named on the command line
/// is walked even when it is a link.
pub fn walk_files(dir: &Path, keep: &dyn Fn(&Path) -> bool, out: &mut Vec<PathBuf>) -> Result<()> {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| Error::io(dir, e))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    entries.sort();
    for p in entries {
        let linked = std::fs::symlink_metadata(&p).is_ok_and(|m| m.file_type().is_symlink());
        if p.is_dir() && linked {
            eprintln!(
                "serverpick: {}: skipped: a symlinked folder (not followed; name it to use it)",
                p.display()
            );
        } else if p.is_dir() {
            walk_files(&p, keep, out)?;
        } else if keep(&p) {
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

/// `name` with every character other than letters, digits and `-_.`
/// replaced by `_` (file names).
pub fn safe_name(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_alphanumeric() || "-_.".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect()
}
