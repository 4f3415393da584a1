//! THE deadline of a run: one wall-clock end plus an interrupt flag.
//!
//! A command builds one [`Deadline`] from `--time-limit` when it starts and
//! hands it down to every stage (warm starts, heuristic stages, each HiGHS
//! call, each `plan` point). An engine asks [`Deadline::stop`] at its
//! checkpoints: `Some(StopReason::TimeLimit)` once the time is up,
//! `Some(StopReason::Interrupted)` once the interrupt flag is raised (Ctrl-C
//! through [`crate::core::interrupt`], or a caller's flag such as the Python
//! binding's). HiGHS gets [`Deadline::remaining_secs`], never the full limit.
//!
//! ```
//! use serverpick::core::{Deadline, StopReason};
//! let d = Deadline::after(Some(0.0));
//! assert_eq!(d.stop(), Some(StopReason::TimeLimit));
//! assert_eq!(Deadline::none().stop(), None);
//! ```

use crate::core::status::StopReason;
use crate::lp::model_out::SolverIo;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The longest limit kept as a real end (about 31 years); a longer one is
/// no limit at all.
const MAX_SECS: f64 = 1e9;

/// A wall-clock end (optional) and an interrupt flag (optional).
#[derive(Debug, Clone, Default)]
pub struct Deadline {
    end: Option<Instant>,
    flag: Option<Arc<AtomicBool>>,
    /// A stage's own stop flag (a parallel stage cancelling work whose
    /// answer it no longer needs), watched beside the interrupt flag.
    cancel: Option<Arc<AtomicBool>>,
    /// The run's HiGHS settings (models out, log, threads), handed to
    /// every HiGHS call with the deadline ([`crate::lp::model_out`]).
    io: Option<Arc<SolverIo>>,
}

impl PartialEq for Deadline {
    fn eq(&self, other: &Self) -> bool {
        let same = |x: &Option<Arc<AtomicBool>>, y: &Option<Arc<AtomicBool>>| match (x, y) {
            (None, None) => true,
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            _ => false,
        };
        self.end == other.end && same(&self.flag, &other.flag) && same(&self.cancel, &other.cancel)
    }
}

impl Deadline {
    /// No limit and no interrupt flag.
    pub fn none() -> Self {
        Deadline::default()
    }

    /// A deadline `limit` seconds from now (`None` or a limit beyond
    /// `MAX_SECS` = no limit; a negative or NaN limit counts as 0). The
    /// process-wide Ctrl-C flag ([`crate::core::interrupt::flag`]) is attached.
    pub fn after(limit: Option<f64>) -> Self {
        let end = limit.and_then(|t| {
            let secs = if t.is_nan() { 0.0 } else { t.max(0.0) };
            (secs <= MAX_SECS).then(|| Instant::now() + Duration::from_secs_f64(secs))
        });
        Deadline {
            end,
            flag: Some(crate::core::interrupt::flag()),
            cancel: None,
            io: None,
        }
    }

    /// The same end, watching `flag` instead (a caller's stop button).
    pub fn with_flag(mut self, flag: Arc<AtomicBool>) -> Self {
        self.flag = Some(flag);
        self
    }

    /// The earlier of this deadline and `limit` seconds from now (a stage's
    /// own budget inside the run's), keeping the interrupt flag.
    pub fn capped(&self, limit: Option<f64>) -> Self {
        let other = Deadline::after(limit).end;
        let end = match (self.end, other) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        Deadline {
            end,
            flag: self.flag.clone(),
            cancel: self.cancel.clone(),
            io: self.io.clone(),
        }
    }

    /// The same deadline, also stopping once `cancel` is raised: a stage
    /// that runs work in parallel stops the part it no longer needs. A
    /// cancelled deadline reports [`StopReason::Interrupted`]; the stage
    /// that raised the flag knows to ignore that answer.
    ///
    /// ```
    /// use serverpick::core::{Deadline, StopReason};
    /// use std::sync::{atomic::{AtomicBool, Ordering}, Arc};
    /// let flag = Arc::new(AtomicBool::new(false));
    /// let d = Deadline::none().with_cancel(flag.clone());
    /// assert_eq!(d.stop(), None);
    /// flag.store(true, Ordering::Relaxed);
    /// assert_eq!(d.stop(), Some(StopReason::Interrupted));
    /// ```
    pub fn with_cancel(&self, cancel: Arc<AtomicBool>) -> Self {
        Deadline {
            cancel: Some(cancel),
            ..self.clone()
        }
    }

    /// The same deadline carrying the run's HiGHS settings.
    pub fn with_io(mut self, io: SolverIo) -> Self {
        self.io = Some(Arc::new(io));
        self
    }

    /// The run's HiGHS settings, if any were attached.
    pub fn io(&self) -> Option<&Arc<SolverIo>> {
        self.io.as_ref()
    }

    /// When the run must end (`None` = no limit).
    pub fn end(&self) -> Option<Instant> {
        self.end
    }

    /// True once the interrupt flag (or the stage's cancel flag) is raised.
    pub fn interrupted(&self) -> bool {
        let up =
            |f: &Option<Arc<AtomicBool>>| f.as_ref().is_some_and(|f| f.load(Ordering::Relaxed));
        up(&self.flag) || up(&self.cancel)
    }

    /// Why the run must stop now, if it must: an interrupt first, then the
    /// time.
    pub fn stop(&self) -> Option<StopReason> {
        if self.interrupted() {
            Some(StopReason::Interrupted)
        } else if self.end.is_some_and(|e| Instant::now() >= e) {
            Some(StopReason::TimeLimit)
        } else {
            None
        }
    }

    /// True once the run must stop (time up or interrupted).
    pub fn expired(&self) -> bool {
        self.stop().is_some()
    }

    /// Time left (`None` = no limit; zero once passed).
    pub fn remaining(&self) -> Option<Duration> {
        self.end
            .map(|e| e.saturating_duration_since(Instant::now()))
    }

    /// Seconds left for a solver that takes seconds (`None` = no limit). At
    /// least a millisecond, so HiGHS gets a positive limit and returns at
    /// once; zero after an interrupt is also a millisecond.
    pub fn remaining_secs(&self) -> Option<f64> {
        if self.interrupted() {
            return Some(1e-3);
        }
        self.remaining().map(|r| r.as_secs_f64().max(1e-3))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_interrupts_and_caps() {
        let d = Deadline::after(Some(100.0)).with_flag(Arc::new(AtomicBool::new(false)));
        assert_eq!(d.stop(), None);
        assert!(d.remaining_secs().is_some_and(|s| s > 99.0));
        let flag = Arc::new(AtomicBool::new(false));
        let d = d.with_flag(flag.clone());
        flag.store(true, Ordering::Relaxed);
        assert_eq!(d.stop(), Some(StopReason::Interrupted));
        assert_eq!(d.remaining_secs(), Some(1e-3));
        let quiet = Arc::new(AtomicBool::new(false));
        let capped = Deadline::none().with_flag(quiet).capped(Some(0.0));
        assert_eq!(capped.stop(), Some(StopReason::TimeLimit));
        assert!(Deadline::after(Some(f64::NAN)).end.is_some());
        assert_eq!(Deadline::after(Some(1e12)).end, None);
        assert_eq!(Deadline::after(None).remaining(), None);
    }
}
