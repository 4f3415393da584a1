//! `report.html` (issue 72): its per-instance tables hold one row per
//! (problem, instance file) and four cells per engine whose numbers are
//! results.jsonl's; its engine tables are summary.json's; its links
//! (instance files, imported solutions, plots) resolve relatively; it
//! fetches nothing from the network.

mod common_cli;

use common_cli::{bundled, text};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;

fn bench(cwd: &Path, args: &[&str]) {
    let o = Command::new(env!("CARGO_BIN_EXE_serverpick"))
        .arg("bench")
        .args(args)
        .arg("-q")
        .current_dir(cwd)
        .output()
        .unwrap();
    assert!(o.status.success(), "bench failed: {}", text(&o.stderr));
}

fn rows(out: &Path) -> Vec<Value> {
    std::fs::read_to_string(out.join("results.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn unescape(s: &str) -> String {
    s.replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&")
}

/// The value of attribute `name` in the tag starting at `tag` (up to its `>`).
fn attr(tag: &str, name: &str) -> Option<String> {
    let head = format!(" {}", &tag[..tag.find('>').unwrap_or(tag.len())]);
    let key = format!(" {name}=\"");
    let at = head.find(&key)? + key.len();
    let end = head[at..].find('"')? + at;
    Some(unescape(&head[at..end]))
}

/// The `<td …>…</td>` cells of a row, as (data-v, inner HTML).
fn cells(row: &str) -> Vec<(Option<String>, String)> {
    row.split("<td")
        .skip(1)
        .map(|c| {
            let inner_at = c.find('>').unwrap() + 1;
            let inner = &c[inner_at..c.find("</td>").unwrap()];
            (attr(c, "data-v"), inner.to_string())
        })
        .collect()
}

/// One problem's section: its engines (instance table header), its instance
/// rows (file → cells) and its engine-summary rows.
struct Section {
    engines: Vec<String>,
    instances: BTreeMap<String, Vec<(Option<String>, String)>>,
    summary: Vec<Vec<(Option<String>, String)>>,
}

fn sections(html: &str) -> BTreeMap<String, Section> {
    let mut out = BTreeMap::new();
    for part in html.split("<section class=\"problem\"").skip(1) {
        let part = &part[..part.find("</section>").unwrap()];
        let problem = attr(part, "data-problem").unwrap();
        let (summary_html, instances_html) = part
            .split_once("table class=\"sortable instances\"")
            .unwrap();
        let summary = summary_html
            .split("<tbody>")
            .nth(1)
            .unwrap()
            .split("<tr>")
            .skip(1)
            .map(cells)
            .collect();
        let (head, body) = instances_html.split_once("<tbody>").unwrap();
        let engines = head
            .split("<th colspan=\"4\"")
            .skip(1)
            .map(|t| attr(t, "data-e").unwrap())
            .collect();
        let mut instances = BTreeMap::new();
        for tr in body.split("<tr ").skip(1) {
            let file = attr(tr, "data-file").unwrap();
            let prev = instances.insert(file.clone(), cells(&tr[..tr.find("</tr>").unwrap()]));
            assert!(prev.is_none(), "{problem}: two rows for {file}");
        }
        out.insert(
            problem,
            Section {
                engines,
                instances,
                summary,
            },
        );
    }
    out
}

fn num(v: &Option<String>) -> Option<f64> {
    v.as_ref().map(|s| s.parse().unwrap())
}

fn median(mut v: Vec<f64>) -> Option<f64> {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    match n {
        0 => None,
        _ if n % 2 == 1 => Some(v[n / 2]),
        _ => Some((v[n / 2 - 1] + v[n / 2]) / 2.0),
    }
}

/// Checks every section's cells against `rows` (medians over repetitions).
fn check_against_rows(html: &str, rows: &[Value]) {
    let secs = sections(html);
    let problems: BTreeSet<&str> = rows
        .iter()
        .map(|r| r["problem"].as_str().unwrap())
        .collect();
    assert_eq!(
        secs.keys().map(String::as_str).collect::<BTreeSet<_>>(),
        problems
    );
    let mut groups = 0;
    for (problem, sec) in &secs {
        let mine: Vec<&Value> = rows
            .iter()
            .filter(|r| r["problem"] == problem.as_str())
            .collect();
        let files: BTreeSet<&str> = mine.iter().map(|r| r["file"].as_str().unwrap()).collect();
        assert_eq!(
            sec.instances
                .keys()
                .map(String::as_str)
                .collect::<BTreeSet<_>>(),
            files,
            "{problem}: one table row per instance file"
        );
        for (file, cs) in &sec.instances {
            assert_eq!(cs.len(), 5 + 4 * sec.engines.len(), "{problem} {file}");
            let first = mine.iter().find(|r| r["file"] == file.as_str()).unwrap();
            assert_eq!(num(&cs[1].0), first["size"].as_f64(), "size");
            assert_eq!(num(&cs[2].0), first["best_known"].as_f64(), "best known");
            let proven = first["best_known_is_optimal"]
                .as_bool()
                .map(|p| if p { "yes" } else { "no" });
            assert_eq!(cs[3].0.as_deref(), proven, "proven");
            for (k, engine) in sec.engines.iter().enumerate() {
                let c = &cs[5 + 4 * k..9 + 4 * k];
                let runs: Vec<&&Value> = mine
                    .iter()
                    .filter(|r| r["file"] == file.as_str() && r["engine"] == engine.as_str())
                    .collect();
                if runs.is_empty() {
                    assert!(
                        c.iter().all(|(v, _)| v.is_none()),
                        "{file} {engine}: not run, empty"
                    );
                    continue;
                }
                groups += 1;
                let m = |key: &str| median(runs.iter().filter_map(|r| r[key].as_f64()).collect());
                let at = format!("{problem} {file} {engine}");
                assert_eq!(num(&c[0].0), m("objective"), "{at}: objective");
                assert_eq!(num(&c[1].0), m("gap"), "{at}: gap");
                assert_eq!(num(&c[2].0), m("time_ms"), "{at}: time");
                let statuses: BTreeSet<&str> =
                    runs.iter().map(|r| r["status"].as_str().unwrap()).collect();
                let status = if statuses.len() == 1 {
                    statuses.first().copied()
                } else {
                    Some("mixed")
                };
                assert_eq!(c[3].0.as_deref(), status, "{at}: status");
                if runs.len() > 1 {
                    assert!(
                        c[3].1.contains(&format!("n={}", runs.len())),
                        "{at}: {}",
                        c[3].1
                    );
                }
            }
        }
    }
    let pairs: BTreeSet<(&str, &str, &str)> = rows
        .iter()
        .map(|r| {
            (
                r["problem"].as_str().unwrap(),
                r["file"].as_str().unwrap(),
                r["engine"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(groups, pairs.len(), "one cell group per (instance, engine)");
}

/// The engine tables hold summary.json's numbers, entry by entry.
fn check_against_summary(html: &str, out: &Path) {
    let summary: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    let keys = [
        "engine",
        "instances",
        "runs",
        "solved",
        "at_best",
        "errors",
        "infeasible",
        "time_limits",
        "mean_gap",
        "median_gap",
        "max_gap",
        "median_ms",
        "p95_ms",
        "sgm_ms_10s",
        "sgm_ms_1ms",
        "sgm_gap",
    ];
    let secs = sections(html);
    let mut seen = 0;
    for (problem, sec) in &secs {
        let entries: Vec<&Value> = summary["engines"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["problem"] == problem.as_str())
            .collect();
        assert_eq!(sec.summary.len(), entries.len(), "{problem}");
        for (row, e) in sec.summary.iter().zip(entries) {
            assert_eq!(row[0].0.as_deref(), e["engine"].as_str());
            for (k, key) in keys.iter().enumerate().skip(1) {
                assert_eq!(
                    num(&row[k].0),
                    e[key].as_f64(),
                    "{problem} {}: {key}",
                    e["engine"]
                );
            }
            seen += 1;
        }
    }
    assert_eq!(seen, summary["engines"].as_array().unwrap().len());
}

#[test]
fn the_report_holds_every_row_and_the_summary_numbers() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let (cs, p2p, cma) = (
        bundled("spd-fig1-cs.json"),
        bundled("spd-fig1-p2p.json"),
        bundled("cma-small.json"),
    );
    bench(
        dir.path(),
        &[
            &cs,
            &p2p,
            &cma,
            &bundled("spd-fig5-zizo-fails.json"),
            "--out",
            out.to_str().unwrap(),
        ],
    );
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    let rows = rows(&out);
    check_against_rows(&html, &rows);
    check_against_summary(&html, &out);
    // ZIZO's failure on Fig. 5 is shown as an error cell.
    assert!(html.contains("class=\"t s-error\" data-v=\"error\""));
    // Offline: nothing is fetched (no URL, no external script or style).
    for bad in ["http://", "https://", "<link", "<script src", "@import"] {
        assert!(!html.contains(bad), "the page contains {bad}");
    }
    // Every plot written is shown and offered for download, by relative link.
    for p in [
        "gap-vs-time-spd.svg",
        "perf-profile-spd.svg",
        "gap-profile-cma.svg",
        "time-vs-size-cma.svg",
    ] {
        assert!(out.join(p).is_file());
        assert!(html.contains(&format!("<img src=\"{p}\"")), "{p}");
        assert!(html.contains(&format!("<a href=\"{p}\" download>")), "{p}");
    }
}

#[test]
fn repetitions_show_medians_and_links_resolve_relatively() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir(d.join("inst")).unwrap();
    std::fs::copy(bundled("spd-fig1-cs.json"), d.join("inst/fig 1#cs.json")).unwrap();
    // A solution made elsewhere, imported as the rows of engine "mine".
    let o = Command::new(env!("CARGO_BIN_EXE_serverpick"))
        .args([
            "solve",
            "inst/fig 1#cs.json",
            "-e",
            "spdcs-h",
            "--out",
            "sols",
        ])
        .current_dir(d)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o.stderr));
    bench(
        d,
        &[
            "inst",
            "-e",
            "alg-m,k-best",
            "--repeat",
            "2",
            "--solutions",
            "sols",
            "--solutions-engine",
            "mine",
            "--engine-cmd",
            "echoer=sh -c \"echo {}\"",
            "--out",
            "results/run",
        ],
    );
    let out = d.join("results/run");
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    check_against_rows(&html, &rows(&out));
    // The instance file, by a relative, percent-encoded link.
    let href = "../../inst/fig%201%23cs.json";
    assert!(
        html.contains(&format!("<a href=\"{href}\"")),
        "no link {href}"
    );
    // The imported row links its solution file, which resolves from `out`.
    let at = html.find(">solution</a>").expect("a solution link");
    let start = html[..at].rfind("href=\"").unwrap() + 6;
    let link = &html[start..start + html[start..].find('"').unwrap()];
    let target = out.join(link.replace("%20", " ").replace("%23", "#"));
    assert!(target.is_file(), "{link} → {}", target.display());
    assert!(link.starts_with("../../sols/"), "{link}");
    // The external engine's runs link their logs in `out/logs`.
    for rep in ["r0", "r1"] {
        let at = html.find(&format!(">log {rep}</a>")).expect("a log link");
        let start = html[..at].rfind("href=\"").unwrap() + 6;
        let link = &html[start..start + html[start..].find('"').unwrap()];
        assert!(link.starts_with("logs/"), "{link}");
        // Log names are safe_name'd: letters, digits, `-_.` (no encoding).
        assert!(out.join(link).is_file(), "{link}");
    }
}
