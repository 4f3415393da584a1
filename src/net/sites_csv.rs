//! The optional sites CSV of a ping list (`--sites-csv`): one line per site,
//! a header row naming the columns (case-insensitive, any order, extra
//! columns ignored, so `id,name,lat,lon,population,…` is read as is).
//!
//! - `id` (required): the site's id as the ping list spells it; unique.
//! - `name` (optional): a display name.
//! - the population column (`--population-column NAME`): players in the
//!   region, a non-negative integer in every line.
//! - the candidate column (`--candidates-column NAME`): whether the site may
//!   host a server or mirror: `1`, `true`, `yes`, `y`, `x` or `0`, `false`,
//!   `no`, `n`, empty (case-insensitive).
//!
//! Errors name the file, the line and the column.

use crate::error::{Error, Result};
use std::collections::HashMap;
use std::path::Path;

/// Most sites a sites CSV or a ping list may hold: the ping matrix is
/// `n × n` (5,000 sites: 200 MB of `f64`).
pub const PINGS_MAX_SITES: usize = 5_000;

/// Which columns of the sites CSV to read besides `id` and `name`.
#[derive(Debug, Clone, Default)]
pub struct SiteOptions {
    /// The column of player counts (`--population-column`).
    pub population_column: Option<String>,
    /// The column saying which sites are candidates (`--candidates-column`).
    pub candidates_column: Option<String>,
}

/// The sites of a sites CSV, in file order.
#[derive(Debug, Clone, PartialEq)]
pub struct Sites {
    /// The file, as shown in errors.
    pub file: String,
    /// Site ids (unique).
    pub ids: Vec<String>,
    /// Display names, when the file has a `name` column.
    pub names: Option<Vec<String>>,
    /// Players per site (`--population-column`).
    pub population: Option<Vec<u64>>,
    /// Candidate flags (`--candidates-column`).
    pub candidate: Option<Vec<bool>>,
}

/// The 0-based index of the column `name` in `header` (case-insensitive).
pub fn column_index(header: &csv::StringRecord, name: &str) -> Option<usize> {
    header
        .iter()
        .position(|h| h.trim().eq_ignore_ascii_case(name.trim()))
}

/// `line N column C (NAME)`, the place of a cell in errors (1-based).
pub fn cell_at(line: u64, col: usize, name: &str) -> String {
    format!("line {line} column {} ({name})", col + 1)
}

/// The line a record starts on (1-based; 0 when unknown).
pub fn record_line(rec: &csv::StringRecord) -> u64 {
    rec.position().map_or(0, csv::Position::line)
}

/// A CSV reading error, with its line when the reader knows it.
pub fn csv_error(file: &str, e: &csv::Error) -> Error {
    let at = e
        .position()
        .map_or_else(String::new, |p| format!("line {}", p.line()));
    Error::input(file, at, e.to_string())
}

/// A CSV reader over `text` (header row, cells trimmed, rows may differ in
/// length: a short row is reported where a missing cell is needed).
pub fn csv_reader(text: &str) -> csv::Reader<&[u8]> {
    csv::ReaderBuilder::new()
        .has_headers(true)
        .flexible(true)
        .trim(csv::Trim::All)
        .from_reader(text.as_bytes())
}

/// The header of a CSV; an empty file is an error.
pub fn read_header(reader: &mut csv::Reader<&[u8]>, file: &str, want: &str) -> Result<Vec<String>> {
    let header = reader.headers().map_err(|e| csv_error(file, &e))?;
    if header.iter().all(|h| h.trim().is_empty()) {
        return Err(Error::input(
            file,
            "line 1",
            format!("empty file: expected a header line {want}"),
        ));
    }
    Ok(header.iter().map(|h| h.trim().to_string()).collect())
}

/// A required column's index, else an error listing the header.
pub fn require_column(header: &[String], name: &str, file: &str, flag: &str) -> Result<usize> {
    header
        .iter()
        .position(|h| h.eq_ignore_ascii_case(name.trim()))
        .ok_or_else(|| {
            Error::input(
                file,
                "line 1",
                format!(
                    "the header has no column '{name}'{flag} (columns: {})",
                    header.join(",")
                ),
            )
        })
}

/// The cell `col` of `rec`, or an error naming the line when the row is short.
pub fn cell<'r>(rec: &'r csv::StringRecord, col: usize, name: &str, file: &str) -> Result<&'r str> {
    rec.get(col).ok_or_else(|| {
        Error::input(
            file,
            cell_at(record_line(rec), col, name),
            format!("missing: the line has {} columns", rec.len()),
        )
    })
}

/// Reads a sites CSV (see the module doc).
pub fn read_sites(path: &Path, opts: &SiteOptions) -> Result<Sites> {
    let file = path.display().to_string();
    let text = crate::io::read_text(path)?;
    let mut reader = csv_reader(&text);
    let header = read_header(&mut reader, &file, "id,name,…")?;
    let optional = |name: &Option<String>, flag: &str| match name {
        Some(c) => require_column(&header, c, &file, flag).map(Some),
        None => Ok(None),
    };
    let cols = SiteColumns {
        id: require_column(&header, "id", &file, "")?,
        name: header.iter().position(|h| h.eq_ignore_ascii_case("name")),
        population: optional(&opts.population_column, " (--population-column)")?,
        candidate: optional(&opts.candidates_column, " (--candidates-column)")?,
    };
    let mut sites = Sites {
        file: file.clone(),
        ids: Vec::new(),
        names: cols.name.map(|_| Vec::new()),
        population: cols.population.map(|_| Vec::new()),
        candidate: cols.candidate.map(|_| Vec::new()),
    };
    let mut seen: HashMap<String, u64> = HashMap::new();
    for rec in reader.records() {
        let rec = rec.map_err(|e| csv_error(&file, &e))?;
        push_site(&mut sites, &rec, &cols, &header, &mut seen)?;
    }
    if sites.ids.is_empty() {
        return Err(Error::input(&file, "", "no sites (only a header)"));
    }
    Ok(sites)
}

/// The columns of a sites CSV read (0-based).
struct SiteColumns {
    id: usize,
    name: Option<usize>,
    population: Option<usize>,
    candidate: Option<usize>,
}

/// Reads one line of a sites CSV into `sites`; `seen` maps ids to lines.
fn push_site(
    sites: &mut Sites,
    rec: &csv::StringRecord,
    cols: &SiteColumns,
    header: &[String],
    seen: &mut HashMap<String, u64>,
) -> Result<()> {
    let file = sites.file.as_str();
    let line = record_line(rec);
    let id = cell(rec, cols.id, "id", file)?;
    let at = cell_at(line, cols.id, "id");
    if id.is_empty() {
        return Err(Error::input(file, at, "empty site id"));
    }
    if let Some(first) = seen.insert(id.to_string(), line) {
        let msg = format!("site '{id}' is already on line {first}");
        return Err(Error::input(file, at, msg));
    }
    if seen.len() > PINGS_MAX_SITES {
        let msg = format!("more than {PINGS_MAX_SITES} sites");
        return Err(Error::input(file, format!("line {line}"), msg));
    }
    let value = |c: usize| cell(rec, c, &header[c], file);
    let names = cols
        .name
        .map(|c| value(c).map(str::to_string))
        .transpose()?;
    let population = cols
        .population
        .map(|c| population(value(c)?, line, c, &header[c], file))
        .transpose()?;
    let candidate = cols
        .candidate
        .map(|c| truthy(value(c)?, line, c, &header[c], file))
        .transpose()?;
    sites.ids.push(id.to_string());
    if let (Some(v), Some(x)) = (sites.names.as_mut(), names) {
        v.push(x);
    }
    if let (Some(v), Some(x)) = (sites.population.as_mut(), population) {
        v.push(x);
    }
    if let (Some(v), Some(x)) = (sites.candidate.as_mut(), candidate) {
        v.push(x);
    }
    Ok(())
}

/// A population cell: a non-negative integer.
fn population(s: &str, line: u64, col: usize, name: &str, file: &str) -> Result<u64> {
    s.parse::<u64>().map_err(|_| {
        Error::input(
            file,
            cell_at(line, col, name),
            format!(
                "'{s}' is not a player count (an integer >= 0; write 0 for a site without players)"
            ),
        )
    })
}

/// A candidate cell: yes/no in one of the spellings of the module doc.
fn truthy(s: &str, line: u64, col: usize, name: &str, file: &str) -> Result<bool> {
    match s.to_ascii_lowercase().as_str() {
        "1" | "true" | "yes" | "y" | "x" => Ok(true),
        "0" | "false" | "no" | "n" | "" => Ok(false),
        _ => Err(Error::input(
            file,
            cell_at(line, col, name),
            format!("'{s}' is not yes or no (1/0, true/false, yes/no, y/n, x/empty)"),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sites_read_populations_and_candidates() {
        let dir = tempfile::tempdir().expect("tempdir");
        let p = dir.path().join("s.csv");
        std::fs::write(
            &p,
            "ID,name,lat,Pop,mirror\na,Alpha,1,10,yes\nb,Beta,2,0,\n",
        )
        .expect("w");
        let opts = SiteOptions {
            population_column: Some("pop".into()),
            candidates_column: Some("mirror".into()),
        };
        let s = read_sites(&p, &opts).expect("reads");
        assert_eq!(s.ids, ["a", "b"]);
        assert_eq!(s.names, Some(vec!["Alpha".into(), "Beta".into()]));
        assert_eq!(s.population, Some(vec![10, 0]));
        assert_eq!(s.candidate, Some(vec![true, false]));
        std::fs::write(&p, "id,Pop,mirror\na,10,1\nb,-3,0\n").expect("w");
        let e = read_sites(&p, &opts).unwrap_err().to_string();
        assert!(
            e.contains("line 3 column 2 (Pop)") && e.contains("'-3'"),
            "{e}"
        );
        std::fs::write(&p, "id,Pop,mirror\na,10,1\na,3,0\n").expect("w");
        let e = read_sites(&p, &opts).unwrap_err().to_string();
        assert!(e.contains("already on line 2"), "{e}");
    }
}
