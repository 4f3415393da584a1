//! An external command as an engine: one run of an [`ExternalSpec`] on one
//! instance file, through the family's own runner ([`ForeignEngine`]), so
//! its answer is scored by the family's evaluator and its claims are checked
//! like a built-in engine's.

use crate::core::{
    Ctx, FailureReason, ForeignEngine, Outcome, ProblemInstance, SolveOptions, SolveRecord, Status,
    StopReason,
};
use crate::external::answer::{self, Answer};
use crate::external::process::{self, CommandSpec, Exit, Finished};
use crate::external::spec::ExternalSpec;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

/// How many of the log's last lines an `error` row quotes.
const TAIL_LINES: usize = 5;

/// One run of an external engine.
#[derive(Debug)]
pub struct ExternalRun<'a> {
    /// The engine.
    pub spec: &'a ExternalSpec,
    /// The instance file (made absolute for `{instance}`).
    pub instance_file: &'a Path,
    /// Where to write the command's log (stdout and stderr), if anywhere.
    pub log: Option<PathBuf>,
    /// `--engine-mem-limit`, MiB.
    pub mem_limit_mb: Option<u64>,
    /// `{threads}`.
    pub threads: usize,
    /// The instance file's SHA-256, to refuse answers for another instance.
    pub instance_sha256: Option<String>,
    /// What the run measured, for the record (filled by `solve`).
    side: Mutex<Side>,
}

#[derive(Debug, Default, Clone)]
struct Side {
    finished: Option<(f64, Option<f64>, Option<f64>)>,
    objective: Option<f64>,
}

impl<'a> ExternalRun<'a> {
    /// A run of `spec` on `instance_file`.
    pub fn new(spec: &'a ExternalSpec, instance_file: &'a Path) -> Self {
        ExternalRun {
            spec,
            instance_file,
            log: None,
            mem_limit_mb: None,
            threads: 1,
            instance_sha256: None,
            side: Mutex::default(),
        }
    }

    /// Runs it on `inst` (read from `instance_file`) and returns the
    /// evaluated record: time is the process's wall time, with its CPU time
    /// and peak memory; a claimed objective the evaluator disagrees with is
    /// an `error` row.
    pub fn run(&self, inst: &dyn ProblemInstance, opts: &SolveOptions) -> SolveRecord {
        let mut rec = inst.run_foreign(self, opts);
        let side = self.side.lock().unwrap_or_else(|e| e.into_inner()).clone();
        if let Some((wall, cpu, rss)) = side.finished {
            rec.time_ms = wall;
            rec.cpu_ms = cpu;
            rec.peak_rss_mb = rss;
        }
        if let Some(msg) = answer::objective_disagrees(side.objective, rec.objective) {
            rec.status = Status::Error;
            rec.reason = Some(FailureReason::Rejected);
            rec.message = Some(msg);
        }
        rec
    }

    fn placeholders(
        &self,
        inst: &dyn ProblemInstance,
        ctx: &Ctx,
        solution: &Path,
    ) -> Vec<(&'static str, String)> {
        let absolute = std::path::absolute(self.instance_file)
            .unwrap_or_else(|_| self.instance_file.to_path_buf());
        let limit = ctx
            .deadline
            .remaining_secs()
            .map(|s| format!("{s:.3}"))
            .unwrap_or_else(|| "inf".into());
        vec![
            ("instance", absolute.display().to_string()),
            ("solution", solution.display().to_string()),
            ("time_limit", limit),
            ("seed", ctx.opts.seed.to_string()),
            ("threads", self.threads.to_string()),
            ("problem", inst.problem().to_string()),
        ]
    }

    fn record_side(&self, f: &Finished, objective: Option<f64>) {
        let mut g = self.side.lock().unwrap_or_else(|e| e.into_inner());
        g.finished = Some((f.wall_ms, f.cpu_ms, f.peak_rss_mb));
        g.objective = objective;
    }
}

impl ForeignEngine for ExternalRun<'_> {
    fn name(&self) -> &str {
        &self.spec.name
    }

    fn applies(&self, inst: &dyn ProblemInstance) -> Result<(), String> {
        self.spec.applies(inst.family().name(), inst.problem())
    }

    fn solve(&self, inst: &dyn ProblemInstance, ctx: &Ctx) -> Outcome<Value> {
        if let Some(stop) = ctx.deadline.stop() {
            let msg = "not started: the command's deadline had passed";
            return Outcome::without_solution(Status::TimeLimit, msg).with_stop(Some(stop));
        }
        let dir = match scratch_dir() {
            Ok(d) => d,
            Err(e) => return Outcome::failed(FailureReason::CommandFailed, e),
        };
        let solution = dir.path.join("solution.json");
        let cmd = CommandSpec {
            argv: self
                .spec
                .argv_with(&self.placeholders(inst, ctx, &solution)),
            env: self.spec.env.clone(),
            cwd: self.spec.cwd.clone(),
            mem_limit_mb: self.mem_limit_mb,
        };
        let finished = match process::run(&cmd, &ctx.deadline) {
            Ok(f) => f,
            Err(e) => return Outcome::failed(FailureReason::CommandFailed, e),
        };
        let log = self
            .log
            .as_deref()
            .and_then(|p| write_log(p, &cmd, &finished));
        let answer = read_answer(&solution, &finished);
        let objective = answer
            .as_ref()
            .ok()
            .and_then(|a| a.as_ref())
            .and_then(|a| a.objective);
        self.record_side(&finished, objective);
        judge(
            answer,
            &finished,
            log.as_deref(),
            self.instance_sha256.as_deref(),
        )
    }
}

/// The answer: the solution file when the command wrote one, else its
/// stdout when that is not blank; `Ok(None)` when neither.
fn read_answer(solution: &Path, f: &Finished) -> Result<Option<Answer>, String> {
    if let Ok(bytes) = std::fs::read(solution) {
        if !bytes.iter().all(u8::is_ascii_whitespace) {
            return answer::parse(&bytes)
                .map(Some)
                .map_err(|e| format!("{{solution}}: {e}"));
        }
    }
    if f.stdout.bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok(None);
    }
    if f.stdout.cut() {
        return Err(format!(
            "stdout ({} bytes) exceeds {} MiB and was cut",
            f.stdout.total,
            process::STDOUT_CAP >> 20
        ));
    }
    answer::parse(&f.stdout.bytes)
        .map(Some)
        .map_err(|e| format!("stdout: {e}"))
}

/// The outcome of a finished command (see the module docs of
/// [`crate::external`] for the rules).
fn judge(
    answer: Result<Option<Answer>, String>,
    f: &Finished,
    log: Option<&Path>,
    sha: Option<&str>,
) -> Outcome<Value> {
    let tail = || evidence(f, log);
    if let Some(stop) = f.killed {
        let limit = match stop {
            StopReason::Interrupted => "at the interrupt",
            _ => "at the time limit",
        };
        return match answer {
            Ok(Some(a)) if a.outcome.solution.is_some() => {
                let mut o = a.outcome;
                o.status = Status::TimeLimit;
                o.with_stop(Some(stop))
                    .with_message(format!("killed {limit}; its solution file is evaluated"))
            }
            _ => Outcome::without_solution(
                Status::TimeLimit,
                format!("killed {limit} with no readable solution{}", tail()),
            )
            .with_stop(Some(stop)),
        };
    }
    match &f.exit {
        Exit::Code(0) => {}
        Exit::Code(c) => {
            let msg = format!("the command exited with code {c}{}", tail());
            return Outcome::failed(FailureReason::CommandFailed, msg);
        }
        Exit::Signal(s) => {
            let msg = format!("the command was killed by {s}{}", tail());
            return Outcome::failed(FailureReason::CommandFailed, msg);
        }
    }
    match answer {
        Err(e) => Outcome::failed(FailureReason::Rejected, format!("{e}{}", tail())),
        Ok(None) => Outcome::failed(
            FailureReason::NoSolution,
            format!(
                "the command wrote no solution (neither the {{solution}} file nor JSON on \
                 stdout){}",
                tail()
            ),
        ),
        Ok(Some(a)) => match (&a.instance_sha256, sha) {
            (Some(theirs), Some(ours)) if !theirs.eq_ignore_ascii_case(ours) => Outcome::failed(
                FailureReason::Rejected,
                format!("the answer was written for another instance (instance_sha256 {theirs}, this file's is {ours})"),
            ),
            _ => a.outcome,
        },
    }
}

/// `: <last stderr lines> (log: PATH)` for messages.
fn evidence(f: &Finished, log: Option<&Path>) -> String {
    let mut s = String::new();
    let lines = f.stderr.last_lines(TAIL_LINES);
    if !lines.trim().is_empty() {
        s.push_str(&format!("; stderr ends: {}", lines.replace('\n', " ⏎ ")));
    }
    if let Some(p) = log {
        s.push_str(&format!(" (log: {})", p.display()));
    }
    s
}

/// Writes the command's log; the path when it was written.
fn write_log(path: &Path, cmd: &CommandSpec, f: &Finished) -> Option<PathBuf> {
    const SHOWN: usize = 1 << 20;
    let mut text = format!(
        "command: {:?}\nexit: {:?}  killed: {:?}  wall {:.1} ms  cpu {:?} ms  peak rss {:?} MiB\n",
        cmd.argv, f.exit, f.killed, f.wall_ms, f.cpu_ms, f.peak_rss_mb
    );
    for (name, c) in [("stdout", &f.stdout), ("stderr", &f.stderr)] {
        let shown = &c.bytes[..c.bytes.len().min(SHOWN)];
        text.push_str(&format!("--- {name}: {} bytes", c.total));
        if c.total > shown.len() as u64 {
            text.push_str(&format!(", the first {} shown", shown.len()));
        }
        text.push_str(" ---\n");
        text.push_str(&String::from_utf8_lossy(shown));
        if !text.ends_with('\n') {
            text.push('\n');
        }
    }
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).ok()?;
    }
    std::fs::write(path, text).ok()?;
    Some(path.to_path_buf())
}

/// A fresh folder for one run's solution file, removed when dropped.
struct Scratch {
    path: PathBuf,
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

fn scratch_dir() -> Result<Scratch, String> {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let path = std::env::temp_dir().join(format!("serverpick-{}-{n}", std::process::id()));
    std::fs::create_dir_all(&path)
        .map_err(|e| format!("cannot create a scratch folder {}: {e}", path.display()))?;
    Ok(Scratch { path })
}
