//! `serverpick solve`: instances × engines → comparison tables (one per
//! family) and solution files.

use crate::app::cli::bench::{params_into, ExternalArgs};
use crate::app::cli::out;
use crate::app::cli::{parse_time_limit, split_list};
use crate::core::check::{cross_check, Claim};
use crate::core::registry::Registry;
use crate::core::{interrupt, Deadline};
use crate::core::{InstanceFeatures, ProblemInstance, SolveOptions, SolveRecord, SolveRow, Timing};
use crate::error::{Error, Result};
use crate::external::{ExternalEngines, ExternalSpec};
use crate::io::collect_instance_files;
use crate::io::solution_file::write_record;
use std::path::{Path, PathBuf};

/// Arguments of `serverpick solve`.
#[derive(Debug, clap::Args)]
pub struct SolveArgs {
    /// Instance files, or folders searched recursively for `*.json`.
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
    /// Engines, comma-separated (e.g. `spdcs-h,exact`), or `all` for every
    /// engine that applies to each instance. `--engines` is accepted too.
    #[arg(long, short, visible_alias = "engines", default_value = "all")]
    pub engine: Vec<String>,
    /// Solve each file as this problem instead of the file's own (e.g.
    /// `spdvr` on an SPD file: variation reduction from a start).
    #[arg(long)]
    pub problem: Option<String>,
    /// Start solution for problems that take one (SPDVR): a solution file
    /// (e.g. written by `solve --out`) or an SPD engine's name (e.g.
    /// `spdcs-h`, `exact`) to compute one.
    #[arg(long)]
    pub start: Option<String>,
    /// Wall-time limit, seconds: one deadline for the whole command — every
    /// run, stage and HiGHS call ends by it, each exact run returning its
    /// incumbent and bound (`none` or 0: no limit).
    #[arg(long, default_value = "60", allow_hyphen_values = true)]
    pub time_limit: String,
    /// Folder to write one solution file per (instance, engine) into.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Seed for randomised engines.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Print one JSON record per run instead of the tables.
    #[arg(long)]
    pub json: bool,
    /// Print notes in full instead of cutting them to fit the table.
    #[arg(long)]
    pub wide: bool,
    /// External engines.
    #[command(flatten)]
    pub external: ExternalArgs,
    /// Models out, HiGHS log, threads.
    #[command(flatten)]
    pub solver: crate::app::cli::model::SolverArgs,
}

impl SolveArgs {
    fn options(&self, reg: &Registry, m: &clap::ArgMatches) -> Result<SolveOptions> {
        let limit = parse_time_limit(&self.time_limit)?;
        let mut opts = SolveOptions::new(limit, self.seed)
            .with_deadline(Deadline::after(limit))
            .with_io(self.solver.io()?);
        params_into(&mut opts, &reg.params(), m)?;
        Ok(opts)
    }

    /// The built-in engine names asked for; `None` means all applicable.
    /// External engines' names may be listed too (they always run).
    fn engine_names(
        &self,
        reg: &Registry,
        external: &ExternalEngines,
    ) -> Result<Option<Vec<String>>> {
        let names = split_list(&self.engine);
        if names.iter().any(|n| n == "all") {
            return Ok(None);
        }
        if names.is_empty() {
            return Err(Error::Usage("--engine needs at least one name".into()));
        }
        let mut known = reg.known_engines();
        known.extend(external.names());
        if let Some(n) = names.iter().find(|n| !known.contains(n)) {
            return Err(Error::UnknownEngine {
                family: String::new(),
                name: n.clone(),
                known,
            });
        }
        let builtin = names.into_iter().filter(|n| external.get(n).is_none());
        Ok(Some(builtin.collect()))
    }
}

/// The instance files under the paths (at least one), with `--out` made.
fn input_files(args: &SolveArgs) -> Result<Vec<PathBuf>> {
    let files = collect_instance_files(&args.paths)?;
    if files.is_empty() {
        let msg = "no instance files (*.json) under the given paths";
        return Err(Error::Usage(msg.into()));
    }
    if let Some(out) = &args.out {
        crate::io::create_out_dir(out)?;
    }
    Ok(files)
}

/// What `solve` did, for the exit code.
#[derive(Debug, Default)]
struct Tally {
    input_errors: usize,
    conflicts: Vec<String>,
}

/// Runs `solve` (`m`: its parsed flags, for engine parameters); returns the
/// exit code.
pub fn run_solve(reg: &Registry, args: &SolveArgs, m: &clap::ArgMatches) -> Result<i32> {
    interrupt::install();
    let opts = args.options(reg, m)?;
    let logs = args.out.as_ref().map(|o| o.join("logs"));
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let threads = args.solver.threads.map_or(cores, |t| t as usize);
    let external = args.external.engines(&reg.known_engines(), logs, threads)?;
    let wanted = args.engine_names(reg, &external)?;
    let files = input_files(args)?;
    // Progress goes to stderr, one line per file, even when piped: a long
    // batch is never silent.
    let progress = files.len() > 1;
    let mut rows: Vec<(&'static str, SolveRow)> = Vec::new();
    let mut tally = Tally::default();
    let mut names: OutputNames = OutputNames::default();
    for (i, file) in files.iter().enumerate() {
        if interrupt::interrupted() {
            let left = files.len() - i;
            eprintln!(
                "serverpick: interrupted: {left} of {} files not started",
                files.len()
            );
            break;
        }
        if progress {
            eprintln!("[{}/{}] {}", i + 1, files.len(), file.display());
        }
        match solve_file(reg, args, file, wanted.as_deref(), &external, &opts) {
            Ok(Some((family, mut recs, features))) => {
                if let Some(r) = recs.first() {
                    let key = names.key(&r.instance, file);
                    emit(args, &mut recs, &key)?;
                }
                tally.conflicts.extend(conflicts(file, &recs));
                rows.extend(recs.into_iter().map(|record| {
                    let features = features.clone();
                    (family, SolveRow { record, features })
                }));
            }
            Ok(None) => {}
            Err(e) => {
                eprintln!("serverpick: {e}");
                tally.input_errors += 1;
            }
        }
    }
    if !args.json {
        if args.wide {
            crate::core::table::set_note_width(usize::MAX);
        }
        print_tables(reg, &rows)?;
    }
    if interrupt::interrupted() {
        return Ok(interrupt::EXIT_INTERRUPTED);
    }
    tally.exit_code(rows.is_empty())
}

impl Tally {
    /// Reports the conflicts; 2 after input errors, 1 after a conflict.
    fn exit_code(&self, nothing_solved: bool) -> Result<i32> {
        for c in &self.conflicts {
            eprintln!("serverpick: BUG: {c}");
        }
        if nothing_solved && self.input_errors == 0 {
            return Err(Error::Usage(
                "nothing was solved: every file was skipped (see the messages above)".into(),
            ));
        }
        Ok(if self.input_errors > 0 {
            2
        } else if !self.conflicts.is_empty() {
            1
        } else {
            0
        })
    }
}

/// Reads one file and runs the wanted engines on it (all applicable when
/// `None`). `None` when the file is skipped (nothing applies to it).
fn solve_file(
    reg: &Registry,
    args: &SolveArgs,
    file: &Path,
    wanted: Option<&[String]>,
    external: &ExternalEngines,
    opts: &SolveOptions,
) -> Result<Option<(&'static str, Vec<SolveRecord>, InstanceFeatures)>> {
    let (inst, read_ms) = crate::core::timed(|| {
        reg.read_instance_as(file, args.problem.as_deref(), args.start.as_deref(), opts)
    });
    let inst = inst?;
    let mut theirs: Vec<&ExternalSpec> = external
        .specs
        .iter()
        .filter(|s| s.applies(inst.family().name(), inst.problem()).is_ok())
        .collect();
    if args.start.is_some() && !theirs.is_empty() {
        // An external command reads the file, which does not hold this start.
        eprintln!(
            "serverpick: {}: external engines skipped: they read the instance file, and \
             --start is not in it (put the start in the file's `start` field)",
            file.display()
        );
        theirs.clear();
    }
    let Some(engines) = engines_for(file, inst.as_ref(), wanted, !theirs.is_empty()) else {
        return Ok(None);
    };
    let mut recs: Vec<SolveRecord> = engines
        .iter()
        .map(|e| {
            let run = opts.for_run(inst.name(), e);
            let rec = inst.run_engine(e, &run);
            if run.io().model_out.is_some() {
                crate::app::cli::model::note_if_none(file, e, &run.io().written());
            }
            rec
        })
        .collect();
    for spec in theirs {
        let key = format!("{}.{}", inst.name(), spec.name);
        recs.push(external.run(spec, inst.as_ref(), file, &key, opts));
    }
    let sha = crate::external::file_sha256(file).ok();
    for r in &mut recs {
        r.instance_sha256.clone_from(&sha);
        r.timing.get_or_insert_with(Timing::default).read_ms = Some(read_ms);
    }
    Ok(Some((inst.family().name(), recs, inst.features())))
}

/// The built-in engines `solve` runs on `inst`: the wanted ones of its
/// family, or all that apply; `None` (with a note) when the file is skipped.
fn engines_for(
    file: &Path,
    inst: &dyn ProblemInstance,
    wanted: Option<&[String]>,
    has_external: bool,
) -> Option<Vec<String>> {
    match wanted {
        Some([]) if has_external => Some(Vec::new()),
        Some(names) => {
            let own = inst.family().engines();
            let mine: Vec<String> = names.iter().filter(|n| own.contains(n)).cloned().collect();
            if mine.is_empty() && !has_external {
                eprintln!(
                    "serverpick: {}: skipped: no engine of --engine {} solves a '{}' instance \
                     (its engines: {})",
                    file.display(),
                    names.join(","),
                    inst.problem(),
                    own.join(", ")
                );
                return None;
            }
            Some(mine)
        }
        None => {
            if let Some(why) = inst.unsolvable() {
                eprintln!("serverpick: {}: skipped: {why}", file.display());
                return None;
            }
            Some(inst.applicable_engines())
        }
    }
}

/// Writes solution files and JSON lines for one instance's runs (a JSON
/// line's `timing.write_ms` is the time its solution file took).
fn emit(args: &SolveArgs, recs: &mut [SolveRecord], key: &str) -> Result<()> {
    if let Some(out) = &args.out {
        for r in recs.iter_mut() {
            let (written, ms) =
                crate::core::timed(|| write_record(&solution_path(out, key, &r.engine), r));
            written?;
            r.timing.get_or_insert_with(Timing::default).write_ms = Some(ms);
        }
    }
    if args.json {
        for r in recs {
            out::println(&serde_json::to_string(r).unwrap_or_default())?;
        }
    }
    Ok(())
}

/// One table per family, in registry order.
fn print_tables(reg: &Registry, rows: &[(&'static str, SolveRow)]) -> Result<()> {
    let mut first = true;
    for family in reg.families() {
        let mine: Vec<SolveRow> = rows
            .iter()
            .filter(|(f, _)| *f == family.name())
            .map(|(_, r)| r.clone())
            .collect();
        if mine.is_empty() {
            continue;
        }
        if !first {
            out::println("")?;
        }
        first = false;
        out::print(&family.render_table(&mine))?;
    }
    Ok(())
}

/// The contradictions among one instance's runs (the one cross-check the
/// benchmark runner uses too).
/// Claims are compared within one problem (an engine may solve a relaxation
/// reported as a problem of its own).
pub fn conflicts(file: &Path, records: &[SolveRecord]) -> Vec<String> {
    let mut problems: Vec<&str> = records.iter().map(|r| r.problem.as_str()).collect();
    problems.sort_unstable();
    problems.dedup();
    let mut out = Vec::new();
    for p in problems {
        let claims: Vec<Claim> = records
            .iter()
            .filter(|r| r.problem == p)
            .map(|r| Claim {
                engine: &r.engine,
                status: r.status,
                objective: r.objective,
                bound: r.bound,
            })
            .collect();
        let check = cross_check(&file.display().to_string(), &claims);
        out.extend(check.conflicts.into_iter().map(|c| c.message));
    }
    out
}

/// Output file keys: the instance's name, unless another input file of this
/// run already used it; then the input file's path (so no solution file
/// silently overwrites another).
#[derive(Debug, Default)]
struct OutputNames {
    used: std::collections::HashMap<String, PathBuf>,
}

impl OutputNames {
    fn key(&mut self, name: &str, file: &Path) -> String {
        match self.used.get(name) {
            Some(owner) if owner != file => {
                let key = file.with_extension("").display().to_string();
                eprintln!(
                    "serverpick: {}: instance name '{name}' is also {}'s; its solution files \
                     are named after the file",
                    file.display(),
                    owner.display()
                );
                self.used.insert(key.clone(), file.to_path_buf());
                key
            }
            _ => {
                self.used.insert(name.to_string(), file.to_path_buf());
                name.to_string()
            }
        }
    }
}

/// `OUT/<key>.<engine>.solution.json` (`key`: the instance name, characters
/// other than letters, digits, `-_.` replaced by `_`).
pub fn solution_path(out: &Path, name: &str, engine: &str) -> PathBuf {
    let safe = crate::io::safe_name(name);
    out.join(format!("{safe}.{engine}.solution.json"))
}
