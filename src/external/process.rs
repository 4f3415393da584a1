//! Running one untrusted command under the run's limits: its own process
//! group, the deadline (SIGTERM to the group, SIGKILL after a grace), an
//! optional address-space limit, capped output, and its CPU time and peak
//! memory.
//!
//! No `unsafe`: the process group is `std`'s `process_group(0)`, the memory
//! limit is `ulimit -v` in a `/bin/sh` that `exec`s the command, signals and
//! `waitid`/`getrusage` come from `nix`'s safe wrappers.
//!
//! Peak memory is the largest `VmHWM` among the command and its
//! descendants, sampled from `/proc` while it runs (as `ru_maxrss`, the
//! largest process, not a sum; a command that ends before the first sample,
//! 0.2 ms, has none). The
//! kernel's `ru_maxrss` of children is not used: a child spawned with
//! `vfork` inherits the parent's high-water mark at `exec`.
//!
//! How the child is watched: `waitid(WNOWAIT | WNOHANG)` polls (0.2 ms at
//! first, backing off to 5 ms) without reaping, so while the leader is a
//! zombie its pid (and group id) cannot be reused; then what is left of its
//! group is killed, and the leader is reaped under one process-wide lock with
//! `getrusage(RUSAGE_CHILDREN)` read before and after: the difference is its
//! CPU time (with the descendants it waited for).

use crate::core::{Deadline, StopReason};
use nix::sys::resource::{getrusage, UsageWho};
use nix::sys::signal::{killpg, Signal};
use nix::sys::wait::{waitid, waitpid, Id, WaitPidFlag, WaitStatus};
use nix::unistd::Pid;
use std::io::Read;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How long a command has between SIGTERM and SIGKILL.
pub const GRACE: Duration = Duration::from_secs(1);
/// How much of stdout is kept (a JSON answer may come on stdout).
pub const STDOUT_CAP: usize = 64 << 20;
/// How much of stderr is kept for the log.
pub const STDERR_CAP: usize = 1 << 20;
/// How long to wait for the output pipes to close once the group is gone
/// (a process that left the group may hold them).
const PIPE_WAIT: Duration = Duration::from_millis(500);

/// What to run.
#[derive(Debug, Clone, Default)]
pub struct CommandSpec {
    /// The program and its arguments (placeholders already filled in).
    pub argv: Vec<String>,
    /// Extra environment variables.
    pub env: Vec<(String, String)>,
    /// Working directory (default: the caller's).
    pub cwd: Option<PathBuf>,
    /// Address-space limit, MiB (`ulimit -v`).
    pub mem_limit_mb: Option<u64>,
}

/// How the command ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Exit {
    /// It exited with this code.
    Code(i32),
    /// A signal ended it (its name, e.g. `SIGSEGV`).
    Signal(String),
}

/// One finished command.
#[derive(Debug, Clone)]
pub struct Finished {
    /// How it ended.
    pub exit: Exit,
    /// Set when the runner killed it (deadline or interrupt).
    pub killed: Option<StopReason>,
    /// Wall time from spawn to its exit, ms.
    pub wall_ms: f64,
    /// User + system CPU time of the command and the children it waited
    /// for, ms.
    pub cpu_ms: Option<f64>,
    /// Peak resident set size, MiB, sampled from `/proc` while it ran.
    pub peak_rss_mb: Option<f64>,
    /// Its standard output (the first [`STDOUT_CAP`] bytes).
    pub stdout: Captured,
    /// Its standard error (the first [`STDERR_CAP`] bytes).
    pub stderr: Captured,
}

/// A captured stream.
#[derive(Debug, Clone, Default)]
pub struct Captured {
    /// The bytes kept.
    pub bytes: Vec<u8>,
    /// Bytes read in all (more than kept when it was cut).
    pub total: u64,
}

impl Captured {
    /// True when bytes were dropped.
    pub fn cut(&self) -> bool {
        self.total > self.bytes.len() as u64
    }

    /// The last `n` lines kept, as text.
    pub fn last_lines(&self, n: usize) -> String {
        let text = String::from_utf8_lossy(&self.bytes);
        let lines: Vec<&str> = text.lines().collect();
        lines[lines.len().saturating_sub(n)..].join("\n")
    }
}

/// Runs `spec` until it exits or `deadline` stops it. `Err` only when it
/// could not be started (the message says why).
pub fn run(spec: &CommandSpec, deadline: &Deadline) -> Result<Finished, String> {
    let mut cmd = command(spec)?;
    let program = spec.argv.first().map_or("", String::as_str);
    let started = Instant::now();
    let mut child = cmd
        .spawn()
        .map_err(|e| format!("cannot start '{program}': {e}"))?;
    let pid = Pid::from_raw(child.id() as i32);
    let out = reader(child.stdout.take(), STDOUT_CAP);
    let err = reader(child.stderr.take(), STDERR_CAP);
    let watched = watch(pid, deadline);
    let wall_ms = started.elapsed().as_secs_f64() * 1e3;
    // The leader is a zombie: kill what is left of its group, then reap.
    let _ = killpg(pid, Signal::SIGKILL);
    let (exit, cpu_ms) = reap(pid);
    let peak = watched.peak_kb;
    Ok(Finished {
        exit,
        killed: watched.killed,
        wall_ms,
        cpu_ms,
        peak_rss_mb: (peak > 0).then(|| peak as f64 / 1024.0),
        stdout: collect(out),
        stderr: collect(err),
    })
}

fn command(spec: &CommandSpec) -> Result<Command, String> {
    let Some(program) = spec.argv.first() else {
        return Err("the command is empty".into());
    };
    let mut cmd = match spec.mem_limit_mb {
        Some(mb) => {
            let mut c = Command::new("/bin/sh");
            let kb = mb.saturating_mul(1024).to_string();
            c.args(["-c", "ulimit -v \"$0\" && exec \"$@\"", &kb]);
            c.args(&spec.argv);
            c
        }
        None => {
            let mut c = Command::new(program);
            c.args(&spec.argv[1..]);
            c
        }
    };
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
    cmd.envs(spec.env.iter().map(|(k, v)| (k, v)));
    if let Some(dir) = &spec.cwd {
        cmd.current_dir(dir);
    }
    Ok(cmd)
}

type Shared = Arc<Mutex<Captured>>;

/// A thread draining `stream` into a buffer capped at `cap` bytes: the
/// command never blocks on a full pipe and a flood costs no memory.
fn reader<R: Read + Send + 'static>(stream: Option<R>, cap: usize) -> (Shared, JoinHandle<()>) {
    let shared: Shared = Arc::default();
    let buf = Arc::clone(&shared);
    let handle = std::thread::spawn(move || {
        let Some(mut s) = stream else { return };
        let mut chunk = vec![0u8; 64 << 10];
        while let Ok(n) = s.read(&mut chunk) {
            if n == 0 {
                break;
            }
            let mut g = buf.lock().unwrap_or_else(|e| e.into_inner());
            let room = cap.saturating_sub(g.bytes.len()).min(n);
            g.bytes.extend_from_slice(&chunk[..room]);
            g.total += n as u64;
        }
    });
    (shared, handle)
}

/// What the reader got, once its pipe closed or [`PIPE_WAIT`] passed.
fn collect((shared, handle): (Shared, JoinHandle<()>)) -> Captured {
    let until = Instant::now() + PIPE_WAIT;
    while !handle.is_finished() && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(1));
    }
    if handle.is_finished() {
        let _ = handle.join();
    }
    let g = shared.lock().unwrap_or_else(|e| e.into_inner());
    g.clone()
}

struct Watched {
    killed: Option<StopReason>,
    peak_kb: u64,
}

/// Polls until the leader has exited, killing its group when the deadline
/// stops it: SIGTERM, then SIGKILL after [`GRACE`].
fn watch(pid: Pid, deadline: &Deadline) -> Watched {
    let mut w = Watched {
        killed: None,
        peak_kb: 0,
    };
    let mut nap = Duration::from_micros(200);
    let mut termed: Option<Instant> = None;
    let flags = WaitPidFlag::WEXITED | WaitPidFlag::WNOWAIT | WaitPidFlag::WNOHANG;
    loop {
        match waitid(Id::Pid(pid), flags) {
            Ok(WaitStatus::StillAlive) => {}
            _ => return w, // exited (or not ours to wait for any more)
        }
        w.peak_kb = w.peak_kb.max(tree_peak_kb(pid));
        match termed {
            None => {
                if let Some(reason) = deadline.stop() {
                    w.killed = Some(reason);
                    let _ = killpg(pid, Signal::SIGTERM);
                    termed = Some(Instant::now());
                }
            }
            Some(t) if t.elapsed() >= GRACE => {
                let _ = killpg(pid, Signal::SIGKILL);
            }
            Some(_) => {}
        }
        std::thread::sleep(nap);
        nap = (nap * 2).min(Duration::from_millis(5));
    }
}

/// The largest `VmHWM` in the process tree under `root` (at most 64
/// processes, from `/proc/PID/task/PID/children`), KiB.
fn tree_peak_kb(root: Pid) -> u64 {
    let mut todo = vec![root.as_raw()];
    let mut peak = 0;
    let mut seen = 0;
    while let Some(p) = todo.pop() {
        seen += 1;
        if seen > 64 {
            break;
        }
        peak = peak.max(sampled_peak_kb(Pid::from_raw(p)).unwrap_or(0));
        if let Ok(kids) = std::fs::read_to_string(format!("/proc/{p}/task/{p}/children")) {
            todo.extend(
                kids.split_whitespace()
                    .filter_map(|k| k.parse::<i32>().ok()),
            );
        }
    }
    peak
}

/// `VmHWM` of a running process, KiB; `None` before its `exec` (while it
/// still runs in the parent's memory, as a `vfork` child does: its code
/// starts where ours does).
fn sampled_peak_kb(pid: Pid) -> Option<u64> {
    static OURS: std::sync::OnceLock<Option<u64>> = std::sync::OnceLock::new();
    let ours = OURS.get_or_init(|| start_code("self"));
    let theirs = start_code(&pid.to_string());
    if theirs.is_none() || theirs == *ours {
        return None;
    }
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// `startcode` (field 26) of `/proc/<who>/stat`.
fn start_code(who: &str) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{who}/stat")).ok()?;
    let after_name = &stat[stat.rfind(')')? + 1..];
    after_name.split_whitespace().nth(23)?.parse().ok()
}

/// Serialises reaping so that the change in `RUSAGE_CHILDREN` is one
/// child's.
static REAP: Mutex<()> = Mutex::new(());

/// Reaps the exited leader: its exit and CPU ms.
fn reap(pid: Pid) -> (Exit, Option<f64>) {
    let _g = REAP.lock().unwrap_or_else(|e| e.into_inner());
    let before = getrusage(UsageWho::RUSAGE_CHILDREN).ok();
    let status = waitpid(pid, None);
    let after = getrusage(UsageWho::RUSAGE_CHILDREN).ok();
    let exit = match status {
        Ok(WaitStatus::Exited(_, code)) => Exit::Code(code),
        Ok(WaitStatus::Signaled(_, sig, _)) => Exit::Signal(sig.as_str().to_string()),
        Ok(other) => Exit::Signal(format!("{other:?}")),
        Err(e) => Exit::Signal(format!("wait failed: {e}")),
    };
    let (Some(b), Some(a)) = (before, after) else {
        return (exit, None);
    };
    let ms = |u: &nix::sys::resource::Usage| {
        let t = u.user_time() + u.system_time();
        t.tv_sec() as f64 * 1e3 + t.tv_usec() as f64 / 1e3
    };
    let cpu = ((ms(&a) - ms(&b)).max(0.0) * 1e3).round() / 1e3;
    (exit, Some(cpu))
}
