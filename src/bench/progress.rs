//! Progress lines for a run whose stderr is not a terminal (a batch job's
//! log, CI): one line every `--progress-every` seconds with the units done,
//! running and left, the error rows so far and an estimate of the time
//! left. On a terminal the runner draws indicatif's bar instead; `--quiet`
//! silences both.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

/// The counters of a run's units, updated by the workers.
#[derive(Debug)]
pub struct Progress {
    total: usize,
    done: AtomicUsize,
    running: AtomicUsize,
    errors: AtomicUsize,
    started: Instant,
}

impl Progress {
    /// Counters for `total` units, none started.
    pub fn new(total: usize) -> Self {
        Progress {
            total,
            done: AtomicUsize::new(0),
            running: AtomicUsize::new(0),
            errors: AtomicUsize::new(0),
            started: Instant::now(),
        }
    }

    /// A unit starts running.
    pub fn started(&self) {
        self.running.fetch_add(1, Ordering::Relaxed);
    }

    /// A unit stopped: `Some(is_error)` when it produced a row, `None` when
    /// it was cut short (an interrupt) and left no row.
    pub fn ended(&self, row: Option<bool>) {
        self.running.fetch_sub(1, Ordering::Relaxed);
        if let Some(error) = row {
            self.done.fetch_add(1, Ordering::Relaxed);
            if error {
                self.errors.fetch_add(1, Ordering::Relaxed);
            }
        }
    }

    /// The line printed now, e.g. `bench: 12/40 done, 2 running, 26 left,
    /// 1 error; 1m02s elapsed, about 2m15s left`.
    pub fn line(&self) -> String {
        let elapsed = self.started.elapsed();
        let done = self.done.load(Ordering::Relaxed);
        line(
            self.total,
            done,
            self.running.load(Ordering::Relaxed),
            self.errors.load(Ordering::Relaxed),
            elapsed,
        )
    }
}

/// The progress line of `done` of `total` units after `elapsed`. The time
/// left assumes the rate so far: `elapsed × (total − done) / done`.
fn line(total: usize, done: usize, running: usize, errors: usize, elapsed: Duration) -> String {
    let left = total.saturating_sub(done + running);
    let estimate = if done == 0 {
        "time left unknown (no unit finished yet)".to_string()
    } else {
        let rest = elapsed.as_secs_f64() * total.saturating_sub(done) as f64 / done as f64;
        format!("about {} left", clock(rest))
    };
    format!(
        "bench: {done}/{total} done, {running} running, {left} left, {errors} error{}; \
         {} elapsed, {estimate}",
        if errors == 1 { "" } else { "s" },
        clock(elapsed.as_secs_f64())
    )
}

/// `4s`, `3m05s`, `2h07m`.
fn clock(secs: f64) -> String {
    let s = secs.max(0.0).round() as u64;
    match s {
        0..60 => format!("{s}s"),
        60..3600 => format!("{}m{:02}s", s / 60, s % 60),
        _ => format!("{}h{:02}m", s / 3600, (s % 3600) / 60),
    }
}

/// Prints a [`Progress`]'s line to stderr every interval from a thread of
/// its own, until dropped (the first line after one interval; none after
/// the drop).
#[derive(Debug)]
pub struct Lines {
    stop: Option<mpsc::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Lines {
    /// Starts printing `progress` every `every`; `None` prints nothing.
    pub fn start(progress: Arc<Progress>, every: Option<Duration>) -> Self {
        let Some(every) = every else {
            return Lines {
                stop: None,
                thread: None,
            };
        };
        let (stop, stopped) = mpsc::channel::<()>();
        let thread = std::thread::spawn(move || {
            while let Err(mpsc::RecvTimeoutError::Timeout) = stopped.recv_timeout(every) {
                eprintln!("{}", progress.line());
            }
        });
        Lines {
            stop: Some(stop),
            thread: Some(thread),
        }
    }
}

impl Drop for Lines {
    fn drop(&mut self) {
        drop(self.stop.take());
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_counts_units_and_extrapolates_the_rate() {
        let l = line(40, 10, 2, 1, Duration::from_secs(62));
        assert_eq!(
            l,
            "bench: 10/40 done, 2 running, 28 left, 1 error; 1m02s elapsed, about 3m06s left"
        );
        let l = line(3, 0, 2, 0, Duration::from_secs(5));
        assert!(l.contains("0/3 done, 2 running, 1 left, 0 errors"), "{l}");
        assert!(
            l.ends_with("time left unknown (no unit finished yet)"),
            "{l}"
        );
        assert_eq!(clock(7300.0), "2h01m");
    }

    #[test]
    fn counters_follow_the_units() {
        let p = Progress::new(3);
        p.started();
        p.started();
        p.ended(Some(true));
        p.ended(None);
        let l = p.line();
        assert!(
            l.starts_with("bench: 1/3 done, 0 running, 2 left, 1 error;"),
            "{l}"
        );
    }
}
