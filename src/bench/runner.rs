//! The benchmark runner: every applicable engine on every instance file,
//! in parallel, each completed row appended and flushed to `results.jsonl`
//! (so Ctrl-C keeps it), then the result set annotated (best known, gap,
//! conflicts) and `results.csv`, `summary.md` and the plots regenerated from
//! the rows.

use crate::bench::dispatch::{error_record, Dispatch, InstanceFeatures};
use crate::bench::export::{self, CsvExporter, JsonlAppender, JsonlExporter};
pub use crate::bench::foreign::ForeignEngines;
use crate::bench::import::{self, Candidate, Import};
use crate::bench::progress::{self, Progress};
use crate::bench::reports::{Reports, ResultSet, RowsOnly};
use crate::bench::row::{annotate, BenchRow};
use crate::bench::shard::Shard;
use crate::core::{interrupt, FailureReason, ProblemInstance, SolveOptions, Status, StopReason};
use crate::error::{Error, Result};
use crate::external::ExternalEngines;
use crate::io::collect_instance_files;
use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;
use std::collections::HashSet;
use std::io::IsTerminal;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// Results file names inside the output folder.
pub const RESULTS_JSONL: &str = "results.jsonl";
/// CSV twin of [`RESULTS_JSONL`].
pub const RESULTS_CSV: &str = "results.csv";
/// What a sharded run's folder holds (`{"shard": "K/N"}`).
pub const RUN_JSON: &str = "run.json";
/// How often a run off a terminal prints a progress line by default.
pub const DEFAULT_PROGRESS_EVERY: std::time::Duration = std::time::Duration::from_secs(30);
/// How often a running bench refreshes `results.csv` and `summary.md`.
const SNAPSHOT_EVERY: std::time::Duration = std::time::Duration::from_secs(5);

/// What to run.
#[derive(Clone)]
pub struct BenchConfig {
    /// Instance files and folders.
    pub paths: Vec<PathBuf>,
    /// Engine names to run where applicable (`None` = all).
    pub engines: Option<Vec<String>>,
    /// Options passed to every engine; repetition `k` runs with `seed + k`.
    pub options: SolveOptions,
    /// Repetitions per (instance, engine), `>= 1`.
    pub repeat: u32,
    /// Worker threads (`0` = one per core).
    pub jobs: usize,
    /// Run only this shard of the (instance, engine) units.
    pub shard: Option<Shard>,
    /// Keep the rows already in `out/results.jsonl` and skip their units.
    pub resume: bool,
    /// Output folder.
    pub out: PathBuf,
    /// Show progress: a bar when stderr is a terminal, else a line every
    /// [`BenchConfig::progress_every`].
    pub progress: bool,
    /// How often a run whose stderr is not a terminal prints a progress
    /// line (`--progress-every`; `None` = never).
    pub progress_every: Option<std::time::Duration>,
    /// External engines (`--engine-cmd`, `--engines-file`): run on every
    /// instance they apply to, beside the engines selected.
    pub external: ExternalEngines,
    /// Folders of solution files to import as rows (`--solutions`).
    pub solutions: Vec<PathBuf>,
    /// The engine name of every imported row (`--solutions-engine`).
    pub solutions_engine: Option<String>,
    /// Engines handed in by a library caller (the Python package's
    /// functions): run on every instance they apply to, like external ones.
    pub foreign: ForeignEngines,
    /// What is written beside the rows (summary, plots: the command layer's
    /// `app::report`); [`RowsOnly`] by default.
    pub reports: std::sync::Arc<dyn Reports>,
}

impl BenchConfig {
    /// A configuration with the defaults of the CLI for `paths` → `out`.
    pub fn new(paths: Vec<PathBuf>, out: PathBuf) -> Self {
        BenchConfig {
            paths,
            engines: None,
            options: SolveOptions::default(),
            repeat: 1,
            jobs: 0,
            shard: None,
            resume: false,
            out,
            progress: true,
            progress_every: Some(DEFAULT_PROGRESS_EVERY),
            external: ExternalEngines::default(),
            solutions: Vec::new(),
            solutions_engine: None,
            foreign: ForeignEngines::default(),
            reports: std::sync::Arc::new(RowsOnly),
        }
    }
}

/// What a run (or a merge) produced.
#[derive(Debug, Clone, Default)]
pub struct BenchOutcome {
    /// Every row of the result set, annotated, in file/engine/repetition order.
    pub rows: Vec<BenchRow>,
    /// Rows run by this invocation.
    pub ran: usize,
    /// Units skipped because `--resume` found their rows.
    pub skipped: usize,
    /// Contradictions found by [`annotate`] (bugs; the CLI exits non-zero).
    pub conflicts: Vec<String>,
}

struct Loaded {
    file: String,
    inst: Box<dyn ProblemInstance>,
    features: InstanceFeatures,
}

struct Unit<'a> {
    loaded: &'a Loaded,
    engine: String,
    repetition: u32,
    import: Option<&'a Import>,
}

/// Runs the benchmark described by `config` through `dispatch`. Ctrl-C or
/// SIGTERM (see [`crate::core::interrupt`]) stops it: running engines and
/// external commands are stopped, every output is written from the rows
/// finished, and the result is [`Error::Interrupted`] (exit code 130).
pub fn run_bench(config: &BenchConfig, dispatch: &dyn Dispatch) -> Result<BenchOutcome> {
    if config.repeat == 0 {
        return Err(Error::Usage("--repeat must be at least 1".into()));
    }
    let mut known = dispatch.known_engines();
    crate::external::spec::check_names(&config.external.specs, &known)?;
    known.extend(config.external.names());
    config.foreign.check_names(&known)?;
    known.extend(config.foreign.names());
    check_engines(config.engines.as_deref(), &known)?;
    interrupt::install();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(config.jobs)
        .build()
        .map_err(|e| Error::Usage(format!("cannot start {} worker threads: {e}", config.jobs)))?;
    let loaded = load_all(&pool, &config.paths, dispatch)?;
    crate::io::create_out_dir(&config.out)?;
    let jsonl = config.out.join(RESULTS_JSONL);
    let previous = previous_rows(&jsonl, config.resume)?;
    let mut loaded = loaded;
    same_spelling(&mut loaded, &previous);
    if let Some(s) = config.shard {
        write_run_info(&config.out, s)?;
    }
    let done: HashSet<(String, String, u32)> = previous.iter().map(BenchRow::key).collect();
    for l in &loaded {
        if let Some(why) = l.inst.unsolvable() {
            eprintln!("bench: {}: skipped: {why}", l.file);
        }
    }
    let imports = imports(config, &loaded)?;
    let mut all_units = units(&loaded, config, dispatch);
    add_imports(&mut all_units, &imports, &loaded, config.shard, &mut known)?;
    let total = all_units.len();
    let todo: Vec<Unit> = all_units
        .into_iter()
        .filter(|u| !done.contains(&(u.loaded.file.clone(), u.engine.clone(), u.repetition)))
        .collect();
    let skipped = total - todo.len();
    let new_rows = execute(&pool, &todo, config, dispatch, &previous, &known)?;
    let ran = new_rows.len();
    let mut rows = previous;
    rows.extend(new_rows);
    sort_rows(&mut rows, &known);
    let note = config.shard.map(shard_note);
    let conflicts = finish(
        &config.out,
        &mut rows,
        note.as_deref(),
        &known,
        config.reports.as_ref(),
    )?;
    if interrupt::interrupted() {
        // Ctrl-C or SIGTERM: the rows finished are written; the units cut
        // short or not started have no row, so `--resume` runs them.
        let (out, left) = (config.out.display(), todo.len() - ran);
        let msg = format!("{ran} rows run now are in {out}; `--resume` runs the other {left}");
        return Err(Error::Interrupted(msg));
    }
    Ok(BenchOutcome {
        rows,
        ran,
        skipped,
        conflicts,
    })
}

/// The note under a sharded run's summary title.
fn shard_note(s: Shard) -> String {
    format!(
        "Shard {s} of the (instance, engine) units: best known and gaps use this shard's \
         rows only; combine the shards with `serverpick bench-merge`."
    )
}

/// Reads every instance file under `paths`, in parallel.
fn load_all(
    pool: &rayon::ThreadPool,
    paths: &[PathBuf],
    dispatch: &dyn Dispatch,
) -> Result<Vec<Loaded>> {
    let files = collect_instance_files(paths)?;
    pool.install(|| {
        files
            .par_iter()
            .map(|p| load(p, dispatch))
            .collect::<Result<_>>()
    })
}

/// A path's key for `--resume`: canonical when the file exists, so `./inst`
/// and `inst` are one file.
fn canonical(file: &str) -> String {
    std::fs::canonicalize(file)
        .map(|p| p.display().to_string())
        .unwrap_or_else(|_| file.to_string())
}

/// Gives each loaded file the spelling its rows already have in `previous`
/// (a resumed run may name the folder differently: `./inst`, an absolute
/// path), so its finished units are recognised and its rows stay one group.
fn same_spelling(loaded: &mut [Loaded], previous: &[BenchRow]) {
    let spelled: std::collections::HashMap<String, String> = previous
        .iter()
        .map(|r| (canonical(&r.file), r.file.clone()))
        .collect();
    for l in loaded {
        if let Some(f) = spelled.get(&canonical(&l.file)) {
            l.file = f.clone();
        }
    }
}

/// `RUN_JSON` records which shard a folder holds, for `bench-merge`.
fn write_run_info(out: &Path, shard: Shard) -> Result<()> {
    let info = serde_json::json!({ "shard": shard.to_string() });
    export::write_atomic(&out.join(RUN_JSON), format!("{info}\n").as_bytes())
}

fn check_engines(wanted: Option<&[String]>, known: &[String]) -> Result<()> {
    for e in wanted.unwrap_or_default() {
        if !known.contains(e) {
            return Err(Error::Usage(format!(
                "unknown engine '{e}' (known: {})",
                known.join(", ")
            )));
        }
    }
    Ok(())
}

fn load(path: &Path, dispatch: &dyn Dispatch) -> Result<Loaded> {
    let inst = dispatch.read(path)?;
    let features = dispatch.features(inst.as_ref());
    Ok(Loaded {
        file: path.display().to_string(),
        inst,
        features,
    })
}

/// The rows already in `jsonl`: kept with `resume` (the file is rewritten
/// without a partial last line), refused without it.
fn previous_rows(jsonl: &Path, resume: bool) -> Result<Vec<BenchRow>> {
    let read = export::read_jsonl(jsonl)?;
    if !resume {
        if !read.rows.is_empty() || read.dropped_partial_line {
            return Err(Error::ResultsExist {
                path: jsonl.to_path_buf(),
                hint: "already holds results: pass --resume to continue that run, or choose \
                       another --out"
                    .into(),
            });
        }
        return Ok(Vec::new());
    }
    if read.dropped_partial_line {
        eprintln!(
            "{}: dropped an incomplete last line (an interrupted write)",
            jsonl.display()
        );
    }
    export::export(&JsonlExporter, &read.rows, jsonl)?;
    Ok(read.rows)
}

fn units<'a>(loaded: &'a [Loaded], config: &BenchConfig, dispatch: &dyn Dispatch) -> Vec<Unit<'a>> {
    let mut out = Vec::new();
    for l in loaded {
        let inst = l.inst.as_ref();
        let external = config.external.specs.iter().filter(|s| {
            inst.unsolvable().is_none() && s.applies(inst.family().name(), inst.problem()).is_ok()
        });
        let foreign = config
            .foreign
            .0
            .iter()
            .filter(|f| inst.unsolvable().is_none() && f.applies(inst).is_ok());
        let mut engines = dispatch.applicable_engines(inst);
        engines.extend(external.map(|s| s.name.clone()));
        engines.extend(foreign.map(|f| f.name().to_string()));
        for engine in engines {
            let wanted = config.external.get(&engine).is_some()
                || config.foreign.get(&engine).is_some()
                || config.engines.as_ref().is_none_or(|w| w.contains(&engine));
            let mine = config.shard.is_none_or(|s| s.owns(&l.file, &engine));
            if wanted && mine {
                for repetition in 0..config.repeat {
                    out.push(Unit {
                        loaded: l,
                        engine: engine.clone(),
                        repetition,
                        import: None,
                    });
                }
            }
        }
    }
    out
}

/// The solution files of `--solutions`, matched to the loaded instances.
fn imports(config: &BenchConfig, loaded: &[Loaded]) -> Result<Vec<Import>> {
    if config.solutions.is_empty() {
        return Ok(Vec::new());
    }
    let candidates: Vec<Candidate> = loaded
        .iter()
        .map(|l| Candidate {
            name: l.inst.name(),
            sha256: crate::external::file_sha256(Path::new(&l.file)).ok(),
        })
        .collect();
    import::read(
        &config.solutions,
        config.solutions_engine.as_deref(),
        &candidates,
    )
}

/// Adds a unit per imported solution (repetition 0, within the shard);
/// its (file, engine) must be new to the run.
fn add_imports<'a>(
    units: &mut Vec<Unit<'a>>,
    imports: &'a [Import],
    loaded: &'a [Loaded],
    shard: Option<Shard>,
    known: &mut Vec<String>,
) -> Result<()> {
    for i in imports {
        let l = &loaded[i.instance];
        if units
            .iter()
            .any(|u| u.loaded.file == l.file && u.engine == i.engine)
        {
            return Err(Error::Usage(format!(
                "--solutions {}: engine '{}' already has a row for {} in this run; name the \
                 imported rows with --solutions-engine NAME",
                i.source.display(),
                i.engine,
                l.file
            )));
        }
        if !known.contains(&i.engine) {
            known.push(i.engine.clone());
        }
        if shard.is_none_or(|s| s.owns(&l.file, &i.engine)) {
            units.push(Unit {
                loaded: l,
                engine: i.engine.clone(),
                repetition: 0,
                import: Some(i),
            });
        }
    }
    Ok(())
}

fn progress_bar(len: usize, wanted: bool) -> ProgressBar {
    if !wanted || !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let pb = ProgressBar::new(len as u64);
    if let Ok(style) = ProgressStyle::with_template(
        "{elapsed_precise} [{bar:40}] {pos}/{len} rows, ETA {eta} {msg}",
    ) {
        pb.set_style(style.progress_chars("=> "));
    }
    pb
}

fn execute(
    pool: &rayon::ThreadPool,
    todo: &[Unit],
    config: &BenchConfig,
    dispatch: &dyn Dispatch,
    previous: &[BenchRow],
    known: &[String],
) -> Result<Vec<BenchRow>> {
    let pb = progress_bar(todo.len(), config.progress);
    let counts = Arc::new(Progress::new(todo.len()));
    let every = config.progress_every;
    let off_terminal = config.progress && !std::io::stderr().is_terminal();
    let lines = progress::Lines::start(counts.clone(), every.filter(|_| off_terminal));
    let jsonl = config.out.join(RESULTS_JSONL);
    let sink = Mutex::new(Sink {
        appender: JsonlAppender::open(&jsonl)?,
        rows: Vec::new(),
        error: None,
        last_snapshot: Instant::now(),
    });
    pool.install(|| {
        todo.par_iter().for_each(|u| {
            if interrupt::interrupted() {
                return; // not started: `--resume` runs it
            }
            counts.started();
            let row = run_unit(u, config, dispatch);
            if row.stop == Some(StopReason::Interrupted) {
                counts.ended(None);
                return; // cut short: `--resume` re-runs it
            }
            counts.ended(Some(row.status == Status::Error));
            let mut g = sink.lock().unwrap_or_else(|e| e.into_inner());
            if let Err(e) = g.appender.append(&row) {
                g.error.get_or_insert(e);
            }
            pb.set_message(format!("{} {}", row.engine, row.instance));
            g.rows.push(row);
            pb.inc(1);
            if g.last_snapshot.elapsed() >= SNAPSHOT_EVERY {
                g.last_snapshot = Instant::now();
                let reports = config.reports.as_ref();
                if let Err(e) = snapshot(&config.out, previous, &g.rows, known, reports) {
                    g.error.get_or_insert(e);
                }
            }
        })
    });
    drop(lines);
    pb.finish_and_clear();
    let g = sink.into_inner().unwrap_or_else(|e| e.into_inner());
    match g.error {
        Some(e) => Err(e),
        None => Ok(g.rows),
    }
}

struct Sink {
    appender: JsonlAppender,
    rows: Vec<BenchRow>,
    error: Option<Error>,
    last_snapshot: Instant,
}

/// `results.csv` and the cheap reports for the rows so far, so an
/// interrupted run leaves them (the plots are drawn at the end).
fn snapshot(
    out: &Path,
    previous: &[BenchRow],
    new: &[BenchRow],
    known: &[String],
    reports: &dyn Reports,
) -> Result<()> {
    let mut rows: Vec<BenchRow> = previous.iter().chain(new).cloned().collect();
    sort_rows(&mut rows, known);
    let conflicts = annotate(&mut rows);
    export::export(&CsvExporter, &rows, &out.join(RESULTS_CSV))?;
    let set = ResultSet {
        rows: &rows,
        conflicts: &conflicts,
        note: Some("A snapshot of a run in progress."),
        engine_order: known,
    };
    reports.write(out, &set, true)
}

/// Runs one unit (a built-in engine through `dispatch`, or an external
/// one); a panic becomes an `error` row.
fn run_unit(u: &Unit, config: &BenchConfig, dispatch: &dyn Dispatch) -> BenchRow {
    let base = &config.options;
    let inst = u.loaded.inst.as_ref();
    let run = match u.repetition {
        0 => u.engine.clone(),
        r => format!("{}.r{r}", u.engine),
    };
    let mut opts = base.for_run(inst.name(), &run);
    opts.seed = base.seed.wrapping_add(u64::from(u.repetition));
    let started = Instant::now();
    let rec = catch_unwind(AssertUnwindSafe(|| {
        if let Some(i) = u.import {
            let mut rec = inst.run_foreign(i, &opts);
            rec.time_ms = i.time_ms();
            return rec;
        }
        if let Some(f) = config.foreign.get(&u.engine) {
            return inst.run_foreign(f, &opts);
        }
        match config.external.get(&u.engine) {
            Some(spec) => {
                let file = Path::new(&u.loaded.file);
                let key = log_key(&u.loaded.file, &u.engine, u.repetition);
                config.external.run(spec, inst, file, &key, &opts)
            }
            None => dispatch.run_engine(inst, &u.engine, &opts),
        }
    }))
    .unwrap_or_else(|payload| {
        let what = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown payload".into());
        let mut rec = error_record(
            inst,
            &u.engine,
            FailureReason::Panicked,
            format!("engine panicked: {what}"),
        );
        rec.time_ms = started.elapsed().as_secs_f64() * 1e3;
        rec
    });
    let f = &u.loaded.features;
    BenchRow::from_record(
        rec,
        &u.loaded.file,
        u.repetition,
        f.size,
        &f.features,
        base.time_limit(),
    )
}

/// The name an external engine's per-run log gets in `OUT/logs` (before
/// [`crate::io::safe_name`]): `<file>.<engine>.r<repetition>`.
pub(crate) fn log_key(file: &str, engine: &str, repetition: u32) -> String {
    format!("{file}.{engine}.r{repetition}")
}

/// Orders rows by file, engine (in `known` order, unknown names last) and
/// repetition.
pub fn sort_rows(rows: &mut [BenchRow], known: &[String]) {
    let rank = |e: &str| known.iter().position(|k| k == e).unwrap_or(known.len());
    rows.sort_by(|a, b| {
        (
            a.file.as_str(),
            rank(&a.engine),
            a.engine.as_str(),
            a.repetition,
        )
            .cmp(&(
                b.file.as_str(),
                rank(&b.engine),
                b.engine.as_str(),
                b.repetition,
            ))
    });
}

/// Annotates `rows` and (re)writes every output in `out`: `results.jsonl`,
/// `results.csv` and the `reports` (engines in `engine_order`). Returns the
/// conflicts.
pub fn finish(
    out: &Path,
    rows: &mut [BenchRow],
    note: Option<&str>,
    engine_order: &[String],
    reports: &dyn Reports,
) -> Result<Vec<String>> {
    let conflicts = annotate(rows);
    export::export(&JsonlExporter, rows, &out.join(RESULTS_JSONL))?;
    export::export(&CsvExporter, rows, &out.join(RESULTS_CSV))?;
    let set = ResultSet {
        rows,
        conflicts: &conflicts,
        note,
        engine_order,
    };
    reports.write(out, &set, false)?;
    Ok(conflicts)
}
