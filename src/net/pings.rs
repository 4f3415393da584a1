//! Ping lists (`--from-pings`): measured round-trip times as a list of site
//! pairs with gaps, turned into a complete symmetric latency matrix.
//!
//! The CSV has a header row; columns are found by name (case-insensitive,
//! any order, extra columns ignored): `source`, `destination` and the RTT
//! column chosen by `--rtt-column` (default `avg`). Each line is one
//! directed measurement `source → destination` in ms.
//!
//! - **Directions.** `a → b` and `b → a` are combined into one value for the
//!   pair, by their mean (`--combine mean`, the default) or the smaller
//!   (`--combine min`); a pair measured in one direction only takes that
//!   value.
//! - **Duplicates.** A directed pair may appear on one line only: a second
//!   line for `a → b` is an error naming both lines (aggregate repeated pings
//!   into one line first; which aggregate is wanted is the user's choice).
//! - **Empty cells.** An empty RTT cell means "not measured" (e.g. every
//!   ping lost) and counts as a gap; the line still claims its pair.
//! - **Self pairs** (`a → a`) are ignored and counted; the diagonal is 0.
//! - **Values** must be finite, `>= 0` and at most
//!   [`MAX_LATENCY_MS`](crate::net::matrix::MAX_LATENCY_MS).
//! - **Gaps.** A pair without a measurement in either direction is completed
//!   by the shortest path over measured pairs (`--missing complete`, the
//!   default; measured values are kept as measured even when a path is
//!   shorter; a completed value is rounded to 1e-6 ms) or refused
//!   (`--missing error`, listing the first missing pairs). Completion runs
//!   Dijkstra from every site with a gap: `O(g · (E + n) log n)` for `g`
//!   such sites, `E` measured pairs and `n` sites. A pair no path joins is
//!   an error.
//! - **Sites.** Without a sites CSV the sites are the ids of the list in the
//!   order they first appear; with one ([`crate::net::sites_csv`]) they are
//!   its ids in its order, and a pair naming another id is an error.
//!
//! At most [`PINGS_MAX_SITES`] sites. Errors name the file, the line and the
//! column.

use crate::error::{Error, Result};
use crate::net::matrix::check_latency;
use crate::net::sites_csv::{
    cell, cell_at, csv_error, csv_reader, read_header, record_line, require_column, Sites,
    PINGS_MAX_SITES,
};
use rayon::prelude::*;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::path::Path;

/// How many missing or completed pairs messages and reports show.
pub const SHOWN_PAIRS: usize = 10;

/// How the two directions of a pair combine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Combine {
    /// The mean of both directions.
    Mean,
    /// The smaller of both directions.
    Min,
}

/// What to do with pairs measured in neither direction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Missing {
    /// Complete them by shortest paths over measured pairs.
    Complete,
    /// Refuse the list.
    Error,
}

impl Combine {
    /// Parses `--combine` (`mean` or `min`).
    pub fn parse(s: &str) -> Result<Self> {
        match s {
            "mean" => Ok(Combine::Mean),
            "min" => Ok(Combine::Min),
            _ => Err(Error::BadFlag {
                flag: "--combine".into(),
                value: s.into(),
                expected: "mean or min".into(),
            }),
        }
    }

    /// The flag value.
    pub fn name(self) -> &'static str {
        match self {
            Combine::Mean => "mean",
            Combine::Min => "min",
        }
    }
}

impl Missing {
    /// Parses `--missing` (`complete` or `error`).
    pub fn parse(s: &str) -> Result<Self> {
        match s {
            "complete" => Ok(Missing::Complete),
            "error" => Ok(Missing::Error),
            _ => Err(Error::BadFlag {
                flag: "--missing".into(),
                value: s.into(),
                expected: "complete or error".into(),
            }),
        }
    }
}

/// How a ping list is read.
#[derive(Debug, Clone)]
pub struct PingOptions {
    /// The RTT column (`--rtt-column`).
    pub rtt_column: String,
    /// How directions combine.
    pub combine: Combine,
    /// What gaps do.
    pub missing: Missing,
}

impl Default for PingOptions {
    fn default() -> Self {
        PingOptions {
            rtt_column: "avg".into(),
            combine: Combine::Mean,
            missing: Missing::Complete,
        }
    }
}

/// What the import found and did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PingReport {
    /// Data lines read.
    pub lines: usize,
    /// Lines whose RTT cell was empty (not measured).
    pub empty_cells: usize,
    /// Lines naming the same site twice (ignored).
    pub self_pairs: usize,
    /// Site pairs with a measurement in at least one direction.
    pub measured: usize,
    /// Of those, pairs measured in both directions (combined).
    pub both_directions: usize,
    /// Pairs completed by shortest paths.
    pub completed: usize,
    /// The first completed pairs and their values.
    pub examples: Vec<(String, String, f64)>,
}

impl PingReport {
    /// One line for stderr and the instance's `source`.
    pub fn summary(&self, sites: usize, opts: &PingOptions) -> String {
        let pairs = sites * sites.saturating_sub(1) / 2;
        let mut s = format!(
            "{sites} sites, {} of {pairs} pairs measured (column {}; {} in both directions, \
             combined by {}), {} completed by shortest paths over measured pairs",
            self.measured,
            opts.rtt_column,
            self.both_directions,
            opts.combine.name(),
            self.completed
        );
        if !self.examples.is_empty() {
            let shown: Vec<String> = self
                .examples
                .iter()
                .map(|(a, b, v)| format!("{a}-{b} {v}"))
                .collect();
            s.push_str(&format!(
                " ({}{})",
                shown.join(", "),
                if self.completed > shown.len() {
                    ", …"
                } else {
                    ""
                }
            ));
        }
        if self.empty_cells > 0 || self.self_pairs > 0 {
            s.push_str(&format!(
                "; {} lines with an empty value, {} self pairs ignored",
                self.empty_cells, self.self_pairs
            ));
        }
        s
    }
}

/// A complete symmetric RTT matrix over named sites.
#[derive(Debug, Clone)]
pub struct PingMatrix {
    /// Site ids, in the order of the rows.
    pub ids: Vec<String>,
    /// Row-major `n × n` RTTs in ms (diagonal 0).
    rtt: Vec<f64>,
    /// What the import found and did.
    pub report: PingReport,
}

impl PingMatrix {
    /// Number of sites.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// True without sites (never, once read).
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// The RTT between sites `i` and `j` (ms).
    pub fn rtt(&self, i: usize, j: usize) -> f64 {
        self.rtt[i * self.ids.len() + j]
    }

    /// The row of site `i`.
    pub fn row(&self, i: usize) -> &[f64] {
        let n = self.ids.len();
        &self.rtt[i * n..(i + 1) * n]
    }
}

/// The columns of a ping list: source, destination, RTT (0-based).
#[derive(Debug, Clone)]
struct Columns {
    src: usize,
    dst: usize,
    rtt: usize,
    /// The RTT column's name as the header spells it.
    rtt_name: String,
}

/// Reads a ping list (see the module doc); `sites`, when given, fixes the
/// site ids.
pub fn read_pings(path: &Path, sites: Option<&Sites>, opts: &PingOptions) -> Result<PingMatrix> {
    let file = path.display().to_string();
    let text = crate::io::read_text(path)?;
    let mut reader = csv_reader(&text);
    let header = read_header(&mut reader, &file, "source,destination,<rtt columns>")?;
    let cols = Columns {
        src: require_column(&header, "source", &file, "")?,
        dst: require_column(&header, "destination", &file, "")?,
        rtt: require_column(&header, &opts.rtt_column, &file, " (--rtt-column)")?,
        rtt_name: String::new(),
    };
    let cols = Columns {
        rtt_name: header[cols.rtt].clone(),
        ..cols
    };
    let ids = match sites {
        Some(s) => s.ids.clone(),
        None => collect_ids(&text, &file, &cols)?,
    };
    if ids.is_empty() {
        return Err(Error::input(&file, "", "no pairs (only a header)"));
    }
    let index: HashMap<&str, usize> = ids
        .iter()
        .enumerate()
        .map(|(i, s)| (s.as_str(), i))
        .collect();
    let n = ids.len();
    let mut report = PingReport::default();
    let directed = read_directed(&text, &file, &cols, &index, sites, &mut report)?;
    let mut rtt = combine(directed, n, opts.combine, &mut report);
    let gaps = missing_pairs(&rtt, n);
    if !gaps.is_empty() {
        if opts.missing == Missing::Error {
            return Err(refusal(&file, &ids, &gaps));
        }
        complete(&mut rtt, n, &ids, &file, &mut report)?;
    }
    Ok(PingMatrix { ids, rtt, report })
}

/// The site ids of a list without a sites CSV, in order of appearance.
fn collect_ids(text: &str, file: &str, cols: &Columns) -> Result<Vec<String>> {
    let mut ids = Vec::new();
    let mut seen: HashMap<String, usize> = HashMap::new();
    for rec in csv_reader(text).records() {
        let rec = rec.map_err(|e| csv_error(file, &e))?;
        for (col, name) in [(cols.src, "source"), (cols.dst, "destination")] {
            let id = site_cell(&rec, col, name, file)?;
            if !seen.contains_key(id) {
                if ids.len() == PINGS_MAX_SITES {
                    return Err(Error::input(
                        file,
                        cell_at(record_line(&rec), col, name),
                        format!("site '{id}' is one more than the {PINGS_MAX_SITES} sites allowed"),
                    ));
                }
                seen.insert(id.to_string(), ids.len());
                ids.push(id.to_string());
            }
        }
    }
    Ok(ids)
}

/// A site id cell (not empty).
fn site_cell<'r>(
    rec: &'r csv::StringRecord,
    col: usize,
    name: &str,
    file: &str,
) -> Result<&'r str> {
    let id = cell(rec, col, name, file)?;
    if id.is_empty() {
        return Err(Error::input(
            file,
            cell_at(record_line(rec), col, name),
            "empty site id",
        ));
    }
    Ok(id)
}

/// Directed measurements: value per `(a, b)` (NaN = none) and the line
/// that gave it (0 = none), row-major `n × n` (12 bytes a cell: 300 MB at
/// [`PINGS_MAX_SITES`]).
struct Directed {
    value: Vec<f64>,
    line: Vec<u32>,
}

/// Reads every line's directed measurement into an `n × n` table.
fn read_directed(
    text: &str,
    file: &str,
    cols: &Columns,
    index: &HashMap<&str, usize>,
    sites: Option<&Sites>,
    report: &mut PingReport,
) -> Result<Directed> {
    let n = index.len();
    let mut d = Directed {
        value: vec![f64::NAN; n * n],
        line: vec![0; n * n],
    };
    let rtt_name = cols.rtt_name.as_str();
    for rec in csv_reader(text).records() {
        let rec = rec.map_err(|e| csv_error(file, &e))?;
        let line = record_line(&rec);
        report.lines += 1;
        let a = site_index(&rec, cols.src, "source", index, sites, file)?;
        let b = site_index(&rec, cols.dst, "destination", index, sites, file)?;
        let raw = cell(&rec, cols.rtt, rtt_name, file)?;
        if a == b {
            report.self_pairs += 1;
            continue;
        }
        let k = a * n + b;
        if d.line[k] != 0 {
            return Err(Error::input(
                file,
                format!("line {line}"),
                format!(
                    "the pair {} → {} is already on line {} (one line per direction; \
                     aggregate repeated pings first)",
                    rec.get(cols.src).unwrap_or_default(),
                    rec.get(cols.dst).unwrap_or_default(),
                    d.line[k]
                ),
            ));
        }
        d.line[k] = u32::try_from(line.max(1)).unwrap_or(u32::MAX);
        if raw.is_empty() {
            report.empty_cells += 1;
            continue;
        }
        d.value[k] = rtt_value(raw, &cell_at(line, cols.rtt, rtt_name), file)?;
    }
    Ok(d)
}

/// An RTT cell: a latency in ms.
fn rtt_value(raw: &str, at: &str, file: &str) -> Result<f64> {
    let v: f64 = raw.parse().map_err(|_| {
        Error::input(
            file,
            at,
            format!(
                "'{raw}' is not a number (leave the cell empty for a pair without a measurement)"
            ),
        )
    })?;
    check_latency(v, at, file)
}

/// The index of the site named in cell `col`.
fn site_index(
    rec: &csv::StringRecord,
    col: usize,
    name: &str,
    index: &HashMap<&str, usize>,
    sites: Option<&Sites>,
    file: &str,
) -> Result<usize> {
    let id = site_cell(rec, col, name, file)?;
    index.get(id).copied().ok_or_else(|| {
        let whose = sites.map_or_else(
            || "the list".to_string(),
            |s| format!("the sites file {}", s.file),
        );
        Error::input(
            file,
            cell_at(record_line(rec), col, name),
            format!("site '{id}' is not in {whose}"),
        )
    })
}

/// Symmetric RTTs (NaN = gap, diagonal 0) from the directed table.
fn combine(mut d: Directed, n: usize, how: Combine, report: &mut PingReport) -> Vec<f64> {
    let m = &mut d.value;
    for i in 0..n {
        m[i * n + i] = 0.0;
        for j in i + 1..n {
            let (x, y) = (m[i * n + j], m[j * n + i]);
            let v = match (x.is_nan(), y.is_nan()) {
                (false, false) => {
                    report.both_directions += 1;
                    match how {
                        Combine::Mean => (x + y) / 2.0,
                        Combine::Min => x.min(y),
                    }
                }
                (false, true) => x,
                (true, false) => y,
                (true, true) => f64::NAN,
            };
            if !v.is_nan() {
                report.measured += 1;
            }
            m[i * n + j] = v;
            m[j * n + i] = v;
        }
    }
    d.value
}

/// The pairs `(i, j)`, `i < j`, without a value.
fn missing_pairs(m: &[f64], n: usize) -> Vec<(usize, usize)> {
    (0..n)
        .flat_map(|i| (i + 1..n).map(move |j| (i, j)))
        .filter(|&(i, j)| m[i * n + j].is_nan())
        .collect()
}

/// `--missing error`: the count and the first missing pairs.
fn refusal(file: &str, ids: &[String], gaps: &[(usize, usize)]) -> Error {
    let shown: Vec<String> = gaps
        .iter()
        .take(SHOWN_PAIRS)
        .map(|&(i, j)| format!("{}-{}", ids[i], ids[j]))
        .collect();
    Error::input(
        file,
        "",
        format!(
            "{} site pairs have no measurement in either direction (--missing error): {}{}",
            gaps.len(),
            shown.join(", "),
            if gaps.len() > shown.len() {
                ", …"
            } else {
                ""
            }
        ),
    )
}

/// Fills every gap with the shortest path over measured pairs (Dijkstra from
/// every site with a gap); an error when no path joins a pair.
fn complete(
    m: &mut [f64],
    n: usize,
    ids: &[String],
    file: &str,
    report: &mut PingReport,
) -> Result<()> {
    let adj = measured_adjacency(m, n);
    let sources: Vec<usize> = (0..n)
        .filter(|&i| (i + 1..n).any(|j| m[i * n + j].is_nan()))
        .collect();
    let fills: Vec<(usize, usize, f64)> = sources
        .par_iter()
        .flat_map_iter(|&s| {
            let dist = dijkstra(&adj, s);
            let row = &m[s * n..(s + 1) * n];
            (s + 1..n)
                .filter(|&t| row[t].is_nan())
                .map(|t| (s, t, (dist[t] * 1e6).round() / 1e6))
                .collect::<Vec<_>>()
        })
        .collect();
    let unreachable: Vec<(usize, usize)> = fills
        .iter()
        .filter(|f| !f.2.is_finite())
        .map(|f| (f.0, f.1))
        .collect();
    if !unreachable.is_empty() {
        let shown: Vec<String> = unreachable
            .iter()
            .take(SHOWN_PAIRS)
            .map(|&(i, j)| format!("{}-{}", ids[i], ids[j]))
            .collect();
        return Err(Error::input(
            file,
            "",
            format!(
                "{} site pairs cannot be completed: no path of measured pairs joins them: {}{}",
                unreachable.len(),
                shown.join(", "),
                if unreachable.len() > shown.len() {
                    ", …"
                } else {
                    ""
                }
            ),
        ));
    }
    // A completed path is a sum of measured RTTs, each within the limit, so
    // it may exceed it: refuse it here, naming the pair, rather than write an
    // instance that every reader refuses.
    if let Some(&(i, j, v)) = fills.iter().find(|f| !crate::net::matrix::is_latency(f.2)) {
        return Err(Error::input(
            file,
            "",
            format!(
                "the completed path {}-{} is {v:e} ms, above the delay limit of {:e} ms; \
                 measure that pair or drop the sites it joins",
                ids[i],
                ids[j],
                crate::net::matrix::MAX_LATENCY_MS
            ),
        ));
    }
    for &(i, j, v) in &fills {
        m[i * n + j] = v;
        m[j * n + i] = v;
    }
    report.completed = fills.len();
    report.examples = fills
        .iter()
        .take(SHOWN_PAIRS)
        .map(|&(i, j, v)| (ids[i].clone(), ids[j].clone(), v))
        .collect();
    Ok(())
}

/// The measured pairs as adjacency lists (both directions).
fn measured_adjacency(m: &[f64], n: usize) -> Vec<Vec<(usize, f64)>> {
    let mut adj: Vec<Vec<(usize, f64)>> = vec![Vec::new(); n];
    for i in 0..n {
        for j in i + 1..n {
            let v = m[i * n + j];
            if !v.is_nan() {
                adj[i].push((j, v));
                adj[j].push((i, v));
            }
        }
    }
    adj
}

/// Shortest-path RTTs from `s` over the measured pairs (infinite when none).
fn dijkstra(adj: &[Vec<(usize, f64)>], s: usize) -> Vec<f64> {
    let mut dist = vec![f64::INFINITY; adj.len()];
    let mut heap = BinaryHeap::new();
    dist[s] = 0.0;
    heap.push(Reverse((Ord64(0.0), s)));
    while let Some(Reverse((Ord64(d), u))) = heap.pop() {
        if d > dist[u] {
            continue;
        }
        for &(v, w) in &adj[u] {
            let nd = d + w;
            if nd < dist[v] {
                dist[v] = nd;
                heap.push(Reverse((Ord64(nd), v)));
            }
        }
    }
    dist
}

/// A finite `f64` ordered by `total_cmp`, for the heap.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Ord64(f64);

impl Eq for Ord64 {}

impl PartialOrd for Ord64 {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Ord64 {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&other.0)
    }
}
