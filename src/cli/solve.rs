//! `serverpick solve`: instances × engines → comparison table and solution files.

use crate::bench::dispatch::{Dispatch, Registry};
use crate::cli::table::{fmt_ms, Table};
use crate::cli::{parse_time_limit, split_list};
use crate::engine::spdvr::start_for;
use crate::engine::{spd_engine, SolveOptions};
use crate::error::{Error, Result};
use crate::io::solution_file::write_record;
use crate::io::{collect_instance_files, read_instance, Instance};
use crate::model::spd::SpdProblem;
use crate::model::spdvr_eval::check_start;
use crate::model::{SolveRecord, Status};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};

/// Arguments of `serverpick solve`.
#[derive(Debug, clap::Args)]
pub struct SolveArgs {
    /// Instance files, or folders searched recursively for `*.json`.
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
    /// Engines, comma-separated (e.g. `spdcs-h,exact`), or `all` for every
    /// engine that applies to each instance.
    #[arg(long, short, default_value = "all")]
    pub engine: Vec<String>,
    /// Which problem to solve on each file: `spd`, or `spdvr` (variation
    /// reduction; the default for files marked `"problem": "spdvr"`).
    #[arg(long, value_parser = ["spd", "spdvr"])]
    pub problem: Option<String>,
    /// SPDVR: compute the start with this SPD engine (e.g. `spdcs-h`,
    /// `exact`) instead of the instance's `start`.
    #[arg(long)]
    pub start: Option<String>,
    /// Wall-time limit per exact run, seconds (`none` for no limit).
    #[arg(long, default_value = "60")]
    pub time_limit: String,
    /// Folder to write one solution file per (instance, engine) into.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// k-best refuses to try more (subset, root) pairs than this.
    #[arg(long, default_value_t = 2_000_000)]
    pub kbest_max_subsets: u64,
    /// Seed for randomised engines.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Exact SPD: stop at the proven minimum host count (skip the delay and
    /// variation tie-breaks).
    #[arg(long)]
    pub no_lexicographic: bool,
    /// Print one JSON record per run instead of the table.
    #[arg(long)]
    pub json: bool,
}

impl SolveArgs {
    fn options(&self) -> Result<SolveOptions> {
        Ok(SolveOptions {
            time_limit: parse_time_limit(&self.time_limit)?,
            kbest_max_subsets: self.kbest_max_subsets,
            seed: self.seed,
            lexicographic: !self.no_lexicographic,
        })
    }

    /// The engine names asked for; `None` means all applicable.
    fn engine_names(&self) -> Result<Option<Vec<String>>> {
        let names = split_list(&self.engine);
        if names.iter().any(|n| n == "all") {
            return Ok(None);
        }
        if names.is_empty() {
            return Err(Error::Usage("--engine needs at least one name".into()));
        }
        let known = Registry.known_engines();
        if let Some(n) = names.iter().find(|n| !known.contains(n)) {
            return Err(Error::Usage(format!(
                "unknown engine '{n}' (known: {})",
                known.join(", ")
            )));
        }
        if let Some(start) = &self.start {
            spd_engine(start)?;
        }
        Ok(Some(names))
    }
}

/// Runs `solve`; returns the exit code.
pub fn run_solve(args: &SolveArgs) -> Result<i32> {
    let opts = args.options()?;
    let wanted = args.engine_names()?;
    let files = collect_instance_files(&args.paths)?;
    if files.is_empty() {
        return Err(Error::Usage(
            "no instance files (*.json) under the given paths".into(),
        ));
    }
    if let Some(out) = &args.out {
        std::fs::create_dir_all(out).map_err(|e| Error::io(out, e))?;
    }
    let progress = files.len() > 1 && std::io::stderr().is_terminal();
    let mut records = Vec::new();
    let mut input_errors = 0;
    let mut bugs = Vec::new();
    for (i, file) in files.iter().enumerate() {
        if progress {
            eprintln!("[{}/{}] {}", i + 1, files.len(), file.display());
        }
        let inst = match read_instance(file) {
            Ok(inst) => inst,
            Err(e) => {
                eprintln!("serverpick: {e}");
                input_errors += 1;
                continue;
            }
        };
        let model = model_of(&inst);
        if let Instance::Cma(c) = &inst {
            if c.events.is_some() && wanted.is_none() {
                eprintln!(
                    "serverpick: {}: a dynamic CMA instance (events): replay it with `serverpick simulate {} --policy j-sa/l-sa`",
                    c.name,
                    file.display()
                );
                continue;
            }
        }
        let name = inst.name().to_string();
        let recs = match solve_instance(inst, args, wanted.as_deref(), &opts) {
            Ok(recs) => recs,
            Err(e) => {
                // Errors about the instance (e.g. an infeasible SPDVR start)
                // are built against its name: report its file instead.
                let e = match e {
                    Error::Input(mut ie) if ie.file == name => {
                        ie.file = file.display().to_string();
                        Error::Input(ie)
                    }
                    Error::Usage(m) if m.starts_with(&format!("{name}: ")) => {
                        Error::Usage(format!("{}: {}", file.display(), &m[name.len() + 2..]))
                    }
                    other => other,
                };
                eprintln!("serverpick: {e}");
                input_errors += 1;
                continue;
            }
        };
        bugs.extend(cross_check(&recs));
        if let Some(out) = &args.out {
            for r in &recs {
                write_record(&solution_path(out, r), r)?;
            }
        }
        if args.json {
            for r in &recs {
                println!("{}", serde_json::to_string(r).unwrap_or_default());
            }
        }
        records.extend(recs.into_iter().map(|r| (model.clone(), r)));
    }
    if !args.json {
        let (cma, spd): (Vec<_>, Vec<_>) =
            records.into_iter().partition(|(_, r)| r.problem == "cma");
        if !spd.is_empty() {
            print!("{}", render(&spd));
        }
        if !cma.is_empty() {
            if !spd.is_empty() {
                println!();
            }
            print!("{}", render_cma(&cma));
        }
    }
    for b in &bugs {
        eprintln!("serverpick: BUG: {b}");
    }
    Ok(if input_errors > 0 {
        2
    } else if !bugs.is_empty() {
        1
    } else {
        0
    })
}

fn model_of(inst: &Instance) -> String {
    match inst {
        Instance::Spd(i) => i.model.to_string(),
        Instance::Cma(_) => "cma".to_string(),
    }
}

/// Runs the wanted engines (all applicable when `None`) on one instance,
/// through the one dispatch the benchmark runner uses. `--problem` and
/// `--start` only reshape the instance first. Errors are input errors of this
/// instance (e.g. an infeasible SPDVR start).
pub fn solve_instance(
    inst: Instance,
    args: &SolveArgs,
    wanted: Option<&[String]>,
    opts: &SolveOptions,
) -> Result<Vec<SolveRecord>> {
    let inst = prepare(inst, args, opts)?;
    let engines = match wanted {
        None => Registry.applicable_engines(&inst),
        Some(names) => names.to_vec(),
    };
    Ok(engines
        .iter()
        .map(|e| Registry.run_engine(&inst, e, opts))
        .collect())
}

/// Applies `--problem` and `--start` to an instance.
fn prepare(inst: Instance, args: &SolveArgs, opts: &SolveOptions) -> Result<Instance> {
    match inst {
        Instance::Spd(mut spd) => {
            let vr = match args.problem.as_deref() {
                Some(p) => p == "spdvr",
                None => spd.problem == SpdProblem::Spdvr || args.start.is_some(),
            };
            if vr {
                let start = start_for(&spd, args.start.as_deref(), opts)?;
                check_start(&spd, &start)?;
                spd.start = Some(start);
                spd.problem = SpdProblem::Spdvr;
            } else {
                spd.problem = SpdProblem::Spd;
            }
            Ok(Instance::Spd(spd))
        }
        Instance::Cma(c) => Ok(Instance::Cma(c)),
    }
}

/// A claimed optimum that another engine beats is a bug (problems.md).
pub fn cross_check(records: &[SolveRecord]) -> Vec<String> {
    let mut bugs = Vec::new();
    for opt in records.iter().filter(|r| r.status == Status::Optimal) {
        for r in records {
            let beaten = matches!(
                r.status,
                Status::Feasible | Status::Optimal | Status::TimeLimit
            ) && matches!((r.objective, opt.objective), (Some(a), Some(b)) if a < b - 1e-9);
            if beaten {
                bugs.push(format!(
                    "{}: {} claims the optimum {:?} but {} found {:?}",
                    opt.instance, opt.engine, opt.objective, r.engine, r.objective
                ));
            }
        }
    }
    bugs
}

/// `OUT/<instance>.<engine>.solution.json`.
pub fn solution_path(out: &Path, r: &SolveRecord) -> PathBuf {
    let safe: String = r
        .instance
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || "-_.".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect();
    out.join(format!("{safe}.{}.solution.json", r.engine))
}

fn metric(r: &SolveRecord, key: &str) -> Option<f64> {
    r.metrics.get(key).and_then(|v| v.as_f64())
}

fn render(records: &[(String, SolveRecord)]) -> String {
    let before = records
        .iter()
        .any(|(_, r)| r.metrics.contains_key("variation_before"));
    let mut header = vec![
        "instance", "model", "problem", "engine", "status", "hosts", "bound", "delay",
    ];
    if before {
        header.push("delay before");
    }
    header.push("variation");
    if before {
        header.push("var. before");
    }
    header.extend(["relays", "time ms", "note"]);
    let right: Vec<bool> = header
        .iter()
        .map(|h| {
            !matches!(
                *h,
                "instance" | "model" | "problem" | "engine" | "status" | "note"
            )
        })
        .collect();
    let mut t = Table::new(&header, &right);
    for (model, r) in records {
        let int = |k: &str| {
            metric(r, k)
                .map(|v| format!("{v:.0}"))
                .unwrap_or_else(|| "-".into())
        };
        let note = short_note(r);
        let bound = r.bound.map(|b| {
            if r.problem == "spd" {
                format!("{b:.0}")
            } else {
                format!("{b:.1}")
            }
        });
        let mut row = vec![
            r.instance.clone(),
            model.clone(),
            r.problem.clone(),
            r.engine.clone(),
            r.status.to_string(),
            int("hosts"),
            bound.unwrap_or_else(|| "-".into()),
            fmt_ms(metric(r, "delay")),
        ];
        if before {
            row.push(fmt_ms(metric(r, "delay_before")));
        }
        row.push(fmt_ms(metric(r, "variation")));
        if before {
            row.push(fmt_ms(metric(r, "variation_before")));
        }
        row.extend([int("relays"), format!("{:.1}", r.time_ms), note]);
        t.push(row);
    }
    t.render()
}

fn render_cma(records: &[(String, SolveRecord)]) -> String {
    let header = [
        "instance",
        "engine",
        "status",
        "total delay",
        "bound",
        "avg delay",
        "max delay",
        "under 100 ms",
        "time ms",
        "note",
    ];
    let right: Vec<bool> = header
        .iter()
        .map(|h| !matches!(*h, "instance" | "engine" | "status" | "note"))
        .collect();
    let mut t = Table::new(&header, &right);
    for (_, r) in records {
        let share = metric(r, "share_under_threshold").map(|v| format!("{:.1}%", 100.0 * v));
        t.push(vec![
            r.instance.clone(),
            r.engine.clone(),
            r.status.to_string(),
            fmt_ms(metric(r, "total_delay")),
            fmt_ms(r.bound),
            fmt_ms(metric(r, "avg_delay")),
            fmt_ms(metric(r, "max_delay")),
            share.unwrap_or_else(|| "-".into()),
            format!("{:.1}", r.time_ms),
            short_note(r),
        ]);
    }
    t.render()
}

fn short_note(r: &SolveRecord) -> String {
    let note = r.message.clone().unwrap_or_default();
    if note.chars().count() > 70 {
        note.chars().take(67).collect::<String>() + "..."
    } else {
        note
    }
}
