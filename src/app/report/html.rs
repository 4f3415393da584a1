//! `report.html`: the page a person opens to see, per instance and per
//! engine, who won and by how much. One self-contained file (inline CSS
//! and script, no network fetch) rendered from the annotated rows into the
//! template `report.html` beside this file. Per problem:
//!
//! - the engine summary: the numbers of `summary.json`
//!   ([`summary::summary_json`]), not recomputed;
//! - the per-instance table: instance, size, best known and whether it is
//!   proven, the engine fastest to the best known, then each engine's
//!   objective, gap, time and status. It is rendered here, so it reads
//!   without script; the template's script sorts it (click a header) and
//!   filters it by problem and by name;
//! - the plots, linked relatively, each with a download link.
//!
//! Instance files, imported solution files and external engines' logs are
//! linked relative to the output folder. Only [`write_report`] is visible
//! outside this module.

use crate::app::report::profile::{self, MIN_TIME_MS, SOLVED_GAP};
use crate::app::report::summary::{self, median};
use crate::app::report::{SUMMARY_JSON, SUMMARY_MD};
use crate::bench::export;
use crate::bench::row::{BenchRow, CONFLICT};
use crate::bench::runner::{log_key, RESULTS_CSV, RESULTS_JSONL};
use crate::error::Result;
use serde_json::Value;
use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::{Component, Path, PathBuf};

/// The page's file name in the output folder.
pub const REPORT_HTML: &str = "report.html";

/// The page around the content: CSS, the error box, the script.
const TEMPLATE: &str = include_str!("report.html");

/// Where the content goes in [`TEMPLATE`].
const CONTENT: &str = "<!--CONTENT-->";

/// A message is cut to this many characters in a cell's tooltip (the whole
/// message is in `results.jsonl`).
const MESSAGE_CHARS: usize = 240;

/// Repetitions listed one by one in a cell's tooltip.
const TOOLTIP_RUNS: usize = 5;

/// Writes `out/report.html` from the annotated `rows` (`conflicts` from
/// [`crate::bench::row::annotate`], `note` under the title, engines in
/// `engine_order`, `plots` the SVG file names written into `out`).
pub fn write_report(
    out: &Path,
    rows: &[BenchRow],
    conflicts: &[String],
    note: Option<&str>,
    engine_order: &[String],
    plots: &[String],
) -> Result<()> {
    let page = Page {
        rows,
        conflicts,
        note,
        plots,
        summary: summary::summary_json(rows, conflicts, engine_order),
        links: Links::new(out),
        logs: out.join("logs"),
    };
    let html = TEMPLATE.replacen(CONTENT, &page.content(), 1);
    export::write_atomic(&out.join(REPORT_HTML), html.as_bytes())
}

struct Page<'a> {
    rows: &'a [BenchRow],
    conflicts: &'a [String],
    note: Option<&'a str>,
    plots: &'a [String],
    summary: Value,
    links: Links,
    logs: PathBuf,
}

/// The plots of a problem, by file stem, with their captions.
const PLOTS: [(&str, &str); 4] = [
    ("gap-vs-time", "gap to the best known vs runtime, every row"),
    ("time-vs-size", "runtime vs instance size (median per size)"),
    ("perf-profile", "time profile (Dolan–Moré)"),
    ("gap-profile", "gap profile"),
];

impl Page<'_> {
    fn content(&self) -> String {
        let mut s = String::with_capacity(64 * 1024);
        s.push_str("<h1>Benchmark report</h1>\n");
        if let Some(n) = self.note {
            let _ = writeln!(s, "<p class=\"note\">{}</p>", esc(n));
        }
        self.write_provenance(&mut s);
        self.write_conflicts(&mut s);
        let problems = self.problems();
        self.write_controls(&mut s, &problems);
        for (problem, rows) in &problems {
            self.write_problem(&mut s, problem, rows);
        }
        write_definitions(&mut s);
        s
    }

    /// Rows per problem, problems by name (as in `summary.json`).
    fn problems(&self) -> BTreeMap<&str, Vec<&BenchRow>> {
        let mut m: BTreeMap<&str, Vec<&BenchRow>> = BTreeMap::new();
        for r in self.rows {
            m.entry(r.problem.as_str()).or_default().push(r);
        }
        m
    }

    fn write_provenance(&self, s: &mut String) {
        let n = |k: &str| self.summary[k].as_u64().unwrap_or(0);
        let files = [RESULTS_JSONL, RESULTS_CSV, SUMMARY_MD, SUMMARY_JSON]
            .iter()
            .map(|f| format!("<a href=\"{f}\">{f}</a>"))
            .collect::<Vec<_>>()
            .join(" · ");
        let _ = writeln!(
            s,
            "<p>{} rows over {} instance files. The rows: {files}.</p>",
            n("rows"),
            n("instances")
        );
    }

    fn write_conflicts(&self, s: &mut String) {
        if self.conflicts.is_empty() {
            return;
        }
        let _ = writeln!(
            s,
            "<div class=\"conflicts\"><h2>⚠ {} conflict(s): a claimed optimum, bound or \
             infeasibility is beaten</h2><p>These are bugs; the cells involved are marked \
             {CONFLICT}.</p><ul>",
            self.conflicts.len()
        );
        for c in self.conflicts {
            let _ = writeln!(s, "<li>{}</li>", esc(c));
        }
        s.push_str("</ul></div>\n");
    }

    fn write_controls(&self, s: &mut String, problems: &BTreeMap<&str, Vec<&BenchRow>>) {
        s.push_str(
            "<nav class=\"controls\"><label>Problem <select id=\"problem\">\
             <option value=\"\">all problems</option>",
        );
        for (p, rows) in problems {
            let files = rows
                .iter()
                .map(|r| r.file.as_str())
                .collect::<std::collections::BTreeSet<_>>();
            let _ = write!(
                s,
                "<option value=\"{0}\">{0} ({1} instances)</option>",
                esc(p),
                files.len()
            );
        }
        s.push_str(
            "</select></label><label>Instance <input id=\"find\" type=\"search\" \
             placeholder=\"name or file contains…\"></label><span id=\"shown\" \
             class=\"muted\"></span></nav>\n",
        );
    }

    fn write_problem(&self, s: &mut String, problem: &str, rows: &[&BenchRow]) {
        let engines: Vec<&Value> = self.summary["engines"]
            .as_array()
            .map(|v| v.iter().filter(|e| e["problem"] == problem).collect())
            .unwrap_or_default();
        let _ = writeln!(
            s,
            "<section class=\"problem\" data-problem=\"{0}\" id=\"problem-{1}\">\n<h2>{0}</h2>",
            esc(problem),
            crate::io::safe_name(problem)
        );
        s.push_str("<h3>Engines</h3>\n");
        write_summary_table(s, &engines);
        let names: Vec<&str> = engines
            .iter()
            .filter_map(|e| e["engine"].as_str())
            .collect();
        s.push_str("<h3>Instances</h3>\n");
        self.write_instance_table(s, rows, &names);
        self.write_plots(s, problem);
        s.push_str("</section>\n");
    }

    fn write_plots(&self, s: &mut String, problem: &str) {
        let figs: Vec<(String, &str)> = PLOTS
            .iter()
            .map(|(stem, what)| (format!("{stem}-{problem}.svg"), *what))
            .filter(|(f, _)| self.plots.contains(f))
            .collect();
        if figs.is_empty() {
            return;
        }
        s.push_str("<h3>Plots</h3>\n<div class=\"figs\">\n");
        for (file, what) in figs {
            let href = encode(Path::new(&file));
            let _ = writeln!(
                s,
                "<figure><img src=\"{href}\" alt=\"{problem}: {what}\" loading=\"lazy\" \
                 width=\"1260\" height=\"600\"><figcaption>{what} · <a href=\"{href}\" \
                 download>download {f}</a></figcaption></figure>",
                problem = esc(problem),
                f = esc(&file)
            );
        }
        s.push_str("</div>\n");
    }

    /// One row per instance file: its fixed cells, then four per engine.
    fn write_instance_table(&self, s: &mut String, rows: &[&BenchRow], engines: &[&str]) {
        let mut files: BTreeMap<&str, BTreeMap<&str, Vec<&BenchRow>>> = BTreeMap::new();
        for r in rows {
            files
                .entry(r.file.as_str())
                .or_default()
                .entry(r.engine.as_str())
                .or_default()
                .push(r);
        }
        s.push_str(
            "<div class=\"scroll\"><table class=\"sortable instances\"><thead><tr>\
             <th rowspan=\"2\" class=\"t\" data-c=\"0\">instance</th>\
             <th rowspan=\"2\" data-c=\"1\">size</th>\
             <th rowspan=\"2\" data-c=\"2\">best known</th>\
             <th rowspan=\"2\" data-c=\"3\">proven</th>\
             <th rowspan=\"2\" class=\"t\" data-c=\"4\">fastest to best known</th>",
        );
        for e in engines {
            let _ = write!(
                s,
                "<th colspan=\"4\" class=\"eng\" data-e=\"{0}\">{0}</th>",
                esc(e)
            );
        }
        s.push_str("</tr>\n<tr>");
        for k in 0..engines.len() {
            let c = FIXED_CELLS + CELLS_PER_ENGINE * k;
            let _ = write!(
                s,
                "<th class=\"e0\" data-c=\"{c}\">objective</th><th data-c=\"{}\">gap</th>\
                 <th data-c=\"{}\">ms</th><th class=\"t\" data-c=\"{}\">status</th>",
                c + 1,
                c + 2,
                c + 3
            );
        }
        s.push_str("</tr></thead>\n<tbody>\n");
        let mut files: Vec<_> = files.into_iter().collect();
        files.sort_by(|a, b| natural_cmp(a.0, b.0));
        for (file, per_engine) in &files {
            self.write_instance_row(s, file, per_engine, engines);
        }
        s.push_str("</tbody></table></div>\n");
    }

    fn write_instance_row(
        &self,
        s: &mut String,
        file: &str,
        per_engine: &BTreeMap<&str, Vec<&BenchRow>>,
        engines: &[&str],
    ) {
        let Some(first) = per_engine.values().flatten().next() else {
            return;
        };
        let name = &first.instance;
        let search = format!("{} {}", name, file).to_lowercase();
        let _ = write!(
            s,
            "<tr data-file=\"{}\" data-n=\"{}\">",
            esc(file),
            esc(&search)
        );
        let (href, exists) = self.links.href(file);
        let _ = write!(
            s,
            "<td class=\"t{}\" data-v=\"{}\"><a href=\"{href}\" title=\"{}{}\">{}</a></td>",
            if exists { "" } else { " missing" },
            esc(name),
            esc(file),
            if exists {
                ""
            } else {
                " (not found when the report was written)"
            },
            esc(name)
        );
        num_cell(s, "", first.size, &num);
        num_cell(s, "", first.best_known, &num);
        let proven = first
            .best_known_is_optimal
            .map(|p| if p { "yes" } else { "no" });
        text_cell(s, "", proven.unwrap_or(""), proven.unwrap_or("–"), "");
        let winner = fastest(per_engine);
        match &winner {
            Some((e, t)) => {
                let shown = format!("{} ({} ms)", esc(e), ms(*t));
                text_cell(s, "t", e, &shown, "");
            }
            None => text_cell(s, "t", "", "–", "no engine reached the best known"),
        }
        for e in engines {
            match per_engine.get(e) {
                Some(rs) => {
                    let won = winner.as_ref().is_some_and(|(w, _)| w == e);
                    self.write_engine_cells(s, rs, won);
                }
                None => s.push_str("<td class=\"e0\"></td><td></td><td></td><td></td>"),
            }
        }
        s.push_str("</tr>\n");
    }

    /// The four cells of one (instance, engine): the median objective, gap
    /// and time over its repetitions, and its status (`mixed` when they
    /// differ).
    fn write_engine_cells(&self, s: &mut String, rs: &[&BenchRow], won: bool) {
        let values = |f: &dyn Fn(&BenchRow) -> Option<f64>| -> Vec<f64> {
            rs.iter().filter_map(|r| f(r)).collect()
        };
        let objective = median(&values(&|r| r.objective));
        let gap = median(&values(&|r| r.gap));
        let time = median(&values(&|r| Some(r.time_ms)));
        let conflict = rs.iter().any(|r| r.check.as_deref() == Some(CONFLICT));
        num_cell(s, "e0", objective, &num);
        let at_best = gap.is_some_and(|g| g.abs() <= SOLVED_GAP);
        num_cell(s, if at_best { "b" } else { "" }, gap, &pct);
        num_cell(s, if won { "w" } else { "" }, time, &ms);
        let first = rs[0].status;
        let status = if rs.iter().all(|r| r.status == first) {
            first.as_str()
        } else {
            "mixed"
        };
        let mut shown = esc(status);
        if conflict {
            shown = format!("⚠ {CONFLICT} {shown}");
        }
        if rs.len() > 1 {
            let _ = write!(shown, "<span class=\"x\">n={}</span>", rs.len());
        }
        for (label, href) in self.run_links(rs) {
            let _ = write!(shown, "<a class=\"x\" href=\"{href}\">{label}</a>");
        }
        let class = if conflict {
            "t conflict".to_string()
        } else {
            format!("t s-{status}")
        };
        text_cell(s, &class, status, &shown, &tooltip(rs));
    }

    /// Links of a cell's runs: the imported solution file, the external
    /// engine's log (`OUT/logs`), when there is one.
    fn run_links(&self, rs: &[&BenchRow]) -> Vec<(String, String)> {
        let mut out = Vec::new();
        let tag = |what: &str, r: &BenchRow| match rs.len() {
            1 => what.to_string(),
            _ => format!("{what} r{}", r.repetition),
        };
        for r in rs {
            if let Some(path) = r.message.as_deref().and_then(imported_from) {
                out.push((tag("solution", r), self.links.href(path).0));
            }
            let key = log_key(&r.file, &r.engine, r.repetition);
            let log = format!("{}.log", crate::io::safe_name(&key));
            if self.logs.join(&log).is_file() {
                out.push((tag("log", r), format!("logs/{}", encode(Path::new(&log)))));
            }
        }
        out
    }
}

/// Fixed cells of an instance row before the engines' cells.
const FIXED_CELLS: usize = 5;
/// Cells per engine: objective, gap, time, status.
const CELLS_PER_ENGINE: usize = 4;

/// The engine that reached the best known fastest on one instance, as the
/// time profile counts it (τ = 1): among the engines with a solving row
/// ([`profile::solves`]), the least median time over those rows.
fn fastest<'a>(per_engine: &BTreeMap<&'a str, Vec<&BenchRow>>) -> Option<(&'a str, f64)> {
    let mut best: Option<(&str, f64)> = None;
    for (e, rs) in per_engine {
        let times: Vec<f64> = rs
            .iter()
            .filter(|r| profile::solves(r))
            .map(|r| r.time_ms.max(MIN_TIME_MS))
            .collect();
        if let Some(t) = median(&times) {
            if best.is_none_or(|(_, b)| t < b) {
                best = Some((e, t));
            }
        }
    }
    best
}

/// Compares names with their digit runs as numbers (`s2` before `s10`).
fn natural_cmp(a: &str, b: &str) -> std::cmp::Ordering {
    fn runs(s: &str) -> Vec<(bool, &str)> {
        let mut out = Vec::new();
        let mut start = 0;
        let digit = |c: char| c.is_ascii_digit();
        for (i, c) in s.char_indices() {
            if i > start && digit(c) != s[start..].starts_with(digit) {
                out.push((s[start..].starts_with(digit), &s[start..i]));
                start = i;
            }
        }
        if start < s.len() {
            out.push((s[start..].starts_with(digit), &s[start..]));
        }
        out
    }
    let (x, y) = (runs(a), runs(b));
    for (p, q) in x.iter().zip(&y) {
        let o = match (p, q) {
            ((true, m), (true, n)) => {
                let (m, n) = (m.trim_start_matches('0'), n.trim_start_matches('0'));
                m.len().cmp(&n.len()).then_with(|| m.cmp(n))
            }
            ((_, m), (_, n)) => m.cmp(n),
        };
        if o.is_ne() {
            return o;
        }
    }
    x.len().cmp(&y.len()).then_with(|| a.cmp(b))
}

/// The source of an imported row: its message ends with `imported from
/// PATH` (see [`crate::bench::import`]), alone or in parentheses after the
/// file's own message.
fn imported_from(message: &str) -> Option<&str> {
    const TAG: &str = "imported from ";
    let at = message.rfind(TAG)?;
    let path = &message[at + TAG.len()..];
    if message[..at].ends_with('(') {
        path.strip_suffix(')')
    } else if at == 0 {
        Some(path)
    } else {
        None
    }
}

/// A cell's tooltip: each run's repetition, status and message (the first
/// [`TOOLTIP_RUNS`]).
fn tooltip(rs: &[&BenchRow]) -> String {
    let mut lines: Vec<String> = rs
        .iter()
        .take(TOOLTIP_RUNS)
        .map(|r| {
            let mut l = format!("r{} {}", r.repetition, r.status.as_str());
            if let Some(o) = r.objective {
                let _ = write!(l, ", objective {}", num(o));
            }
            if let Some(m) = &r.message {
                let cut: String = m.chars().take(MESSAGE_CHARS).collect();
                let more = if cut.len() < m.len() { "…" } else { "" };
                let _ = write!(l, ": {cut}{more}");
            }
            l
        })
        .collect();
    if rs.len() > TOOLTIP_RUNS {
        lines.push(format!(
            "… {} more runs in results.jsonl",
            rs.len() - TOOLTIP_RUNS
        ));
    }
    lines.join("\n")
}

/// A numeric cell: the exact value in `data-v` (what sorting and tests
/// read), `shown` formatted; `–` when there is none.
fn num_cell(s: &mut String, class: &str, v: Option<f64>, shown: &dyn Fn(f64) -> String) {
    let class = if class.is_empty() {
        String::new()
    } else {
        format!(" class=\"{class}\"")
    };
    match v {
        Some(x) => {
            let _ = write!(s, "<td{class} data-v=\"{x:?}\">{}</td>", shown(x));
        }
        None => {
            let _ = write!(s, "<td{class}>–</td>");
        }
    }
}

/// A text cell: `value` (escaped here) in `data-v`, `shown` as given
/// (already HTML), `title` (escaped here) as its tooltip.
fn text_cell(s: &mut String, class: &str, value: &str, shown: &str, title: &str) {
    let _ = write!(s, "<td");
    if !class.is_empty() {
        let _ = write!(s, " class=\"{class}\"");
    }
    if !value.is_empty() {
        let _ = write!(s, " data-v=\"{}\"", esc(value));
    }
    if !title.is_empty() {
        let _ = write!(s, " title=\"{}\"", esc(title));
    }
    let _ = write!(s, ">{shown}</td>");
}

/// The summary columns: `summary.json` key, header, format.
const SUMMARY_COLUMNS: [(&str, &str, Fmt); 16] = [
    ("engine", "engine", Fmt::Text),
    ("instances", "instances", Fmt::Count),
    ("runs", "runs", Fmt::Count),
    ("solved", "proven optimal", Fmt::Count),
    ("at_best", "at best known", Fmt::Count),
    ("errors", "errors", Fmt::Count),
    ("infeasible", "infeasible", Fmt::Count),
    ("time_limits", "time limit", Fmt::Count),
    ("mean_gap", "mean gap", Fmt::Gap),
    ("median_gap", "median gap", Fmt::Gap),
    ("max_gap", "max gap", Fmt::Gap),
    ("median_ms", "median ms", Fmt::Ms),
    ("p95_ms", "p95 ms", Fmt::Ms),
    ("sgm_ms_10s", "sgm ms (10 s)", Fmt::Ms),
    ("sgm_ms_1ms", "sgm ms (1 ms)", Fmt::Ms),
    ("sgm_gap", "sgm gap", Fmt::Gap),
];

#[derive(Clone, Copy)]
enum Fmt {
    Text,
    Count,
    Gap,
    Ms,
}

/// The engine summary of one problem, from `summary.json`'s entries.
fn write_summary_table(s: &mut String, engines: &[&Value]) {
    s.push_str("<div class=\"scroll\"><table class=\"sortable summary\"><thead><tr>");
    for (c, (_, head, f)) in SUMMARY_COLUMNS.iter().enumerate() {
        let class = if matches!(f, Fmt::Text) {
            " class=\"t\""
        } else {
            ""
        };
        let _ = write!(s, "<th{class} data-c=\"{c}\">{head}</th>");
    }
    s.push_str("</tr></thead>\n<tbody>\n");
    for e in engines {
        let _ = write!(s, "<tr>");
        for (key, _, f) in SUMMARY_COLUMNS {
            let v = &e[key];
            match f {
                Fmt::Text => {
                    let t = v.as_str().unwrap_or("");
                    text_cell(s, "t", t, &esc(t), "");
                }
                Fmt::Count => num_cell(s, "", v.as_f64(), &|x| format!("{x}")),
                Fmt::Gap => num_cell(s, "", v.as_f64(), &pct),
                Fmt::Ms => num_cell(s, "", v.as_f64(), &ms),
            }
        }
        s.push_str("</tr>\n");
    }
    s.push_str("</tbody></table></div>\n");
}

fn write_definitions(s: &mut String) {
    s.push_str(
        "<details><summary>How to read this page</summary><ul>\n\
         <li><b>best known</b>: the least objective any row found on the instance; \
         <b>proven</b> = yes when a proof reaches it (an <code>optimal</code> row, or an exact \
         engine's dual bound).</li>\n\
         <li><b>gap</b> = (objective − best known) / best known, for rows with a solution; \
         green = at the best known.</li>\n\
         <li><b>fastest to best known</b>: among the engines with a row that is \
         <code>optimal</code>, or <code>feasible</code> at the best known, the least median \
         time over those rows (τ = 1 in the time profile); its time is in bold.</li>\n\
         <li>With repetitions (<code>n=</code>), a cell shows the median objective, gap and \
         time over the engine's runs on the instance, and <code>mixed</code> when their \
         statuses differ; hover a status for each run.</li>\n\
         <li>The engine tables are <code>summary.json</code>'s numbers (see \
         <code>summary.md</code> for the definitions of solved, time-outs and the shifted \
         geometric means). Times are engine wall times in ms.</li>\n\
         <li>Plots: a gap or size axis is logarithmic when its positive values span more than \
         two decades (a log gap axis plots gap + ε, its label gives ε); time axes are \
         logarithmic.</li>\n\
         </ul></details>\n",
    );
}

/// Six significant digits, trailing zeros dropped; an exponent outside
/// [1e-3, 1e9).
fn num(v: f64) -> String {
    let a = v.abs();
    if a == 0.0 {
        return "0".into();
    }
    if !(1e-3..1e9).contains(&a) {
        return format!("{v:.4e}");
    }
    let decimals = (5 - a.log10().floor() as i32).max(0) as usize;
    let s = format!("{v:.decimals$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

/// A gap (a fraction) in %, as `summary.md` shows it; a positive gap
/// below 0.005 % is `<0.01%`, not `0.00%`.
fn pct(g: f64) -> String {
    let p = 100.0 * g;
    if p > 0.0 && p < 0.005 {
        "&lt;0.01%".into()
    } else {
        format!("{p:.2}%")
    }
}

/// Milliseconds, as `summary.md` shows them.
fn ms(v: f64) -> String {
    if v >= 100.0 {
        format!("{v:.0}")
    } else {
        format!("{v:.3}")
    }
}

/// HTML-escapes text for element content and quoted attributes.
fn esc(t: &str) -> String {
    let mut out = String::with_capacity(t.len());
    for c in t.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

/// Paths as the rows give them (relative to the run's working folder, or
/// absolute), linked from the output folder.
struct Links {
    out: Option<PathBuf>,
    cwd: Option<PathBuf>,
}

impl Links {
    fn new(out: &Path) -> Self {
        Links {
            out: std::fs::canonicalize(out).ok(),
            cwd: std::env::current_dir().ok(),
        }
    }

    /// The relative link to `path` from the output folder (the path itself
    /// when either folder is unknown), and whether the file exists now.
    fn href(&self, path: &str) -> (String, bool) {
        let p = Path::new(path);
        let abs = match (&self.cwd, p.is_absolute()) {
            (_, true) => p.to_path_buf(),
            (Some(cwd), false) => cwd.join(p),
            (None, false) => return (encode(p), p.exists()),
        };
        let exists = abs.exists();
        let abs = std::fs::canonicalize(&abs).unwrap_or_else(|_| lexical(&abs));
        match &self.out {
            Some(out) => (encode(&relative(out, &abs)), exists),
            None => (encode(&abs), exists),
        }
    }
}

/// `to` relative to the folder `from` (both absolute, normalised).
fn relative(from: &Path, to: &Path) -> PathBuf {
    let a: Vec<Component> = from.components().collect();
    let b: Vec<Component> = to.components().collect();
    let common = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let mut out = PathBuf::new();
    for _ in common..a.len() {
        out.push("..");
    }
    for c in &b[common..] {
        out.push(c);
    }
    out
}

/// `p` with `.` and `..` resolved without the file system.
fn lexical(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// A path as a URL path: `/`-separated, every byte outside the unreserved
/// set percent-encoded.
fn encode(p: &Path) -> String {
    let mut out = String::new();
    let absolute = p.is_absolute();
    for (i, c) in p.components().enumerate() {
        let part = match c {
            Component::RootDir => continue,
            Component::ParentDir => "..".to_string(),
            Component::CurDir => ".".to_string(),
            Component::Normal(s) => s.to_string_lossy().into_owned(),
            Component::Prefix(s) => s.as_os_str().to_string_lossy().into_owned(),
        };
        if i > 0 || absolute {
            out.push('/');
        }
        for b in part.bytes() {
            if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
                out.push(b as char);
            } else {
                let _ = write!(out, "%{b:02X}");
            }
        }
    }
    if absolute {
        format!("file://{out}")
    } else {
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_template_has_one_content_slot() {
        assert_eq!(TEMPLATE.matches(CONTENT).count(), 1);
        assert!(!TEMPLATE.contains("http://") && !TEMPLATE.contains("https://"));
    }

    #[test]
    fn paths_link_relatively_and_encoded() {
        let r = relative(Path::new("/a/b/out"), Path::new("/a/inst/x y.json"));
        assert_eq!(encode(&r), "../../inst/x%20y.json");
        assert_eq!(encode(Path::new("logs/a#b.log")), "logs/a%23b.log");
        assert_eq!(lexical(Path::new("/a/./b/../c")), PathBuf::from("/a/c"));
        assert_eq!(encode(Path::new("/x/y")), "file:///x/y");
    }

    #[test]
    fn names_sort_with_their_numbers() {
        let mut v = vec!["s10", "s2", "s1", "a", "s02b", "s2a"];
        v.sort_by(|a, b| natural_cmp(a, b));
        assert_eq!(v, ["a", "s1", "s2", "s2a", "s02b", "s10"]);
    }

    #[test]
    fn imported_rows_name_their_file() {
        assert_eq!(imported_from("imported from s/a.json"), Some("s/a.json"));
        assert_eq!(
            imported_from("greedy (imported from s/a (1).json)"),
            Some("s/a (1).json")
        );
        assert_eq!(imported_from("an engine said imported from x"), None);
    }

    #[test]
    fn numbers_keep_six_digits_and_text_is_escaped() {
        assert_eq!(num(2770.8700000000003), "2770.87");
        assert_eq!(num(13.0), "13");
        assert_eq!(num(0.000012345), "1.2345e-5");
        assert_eq!(pct(0.0), "0.00%");
        assert_eq!(pct(1e-7), "&lt;0.01%");
        assert_eq!(
            esc("<a href='x'>&\""),
            "&lt;a href=&#39;x&#39;&gt;&amp;&quot;"
        );
    }
}
