//! Options shared by every engine: a time limit, a seed, the command's
//! deadline, and engine parameters by name — each checked once, where it is
//! set (ripgrep's low-level args → high-level args; Clarabel's `validate`).
//!
//! A family declares its engines' parameters as [`ParamSpec`]s: a name, a
//! type with a default of that type and a range, and a doc line. The CLI
//! turns each into a `--NAME VALUE` flag of `solve` and `bench`;
//! [`SolveOptions::set`] parses and range-checks a value (a bad one is
//! [`Error::BadFlag`] naming the flag, never a silent 0) and engines read it
//! typed ([`SolveOptions::count`], [`SolveOptions::real`],
//! [`SolveOptions::flag`]).
//!
//! ```
//! use serverpick::core::{ParamSpec, SolveOptions};
//! const CAP: ParamSpec = ParamSpec::count("cap", 7, 1, 100, "a cap");
//! let mut o = SolveOptions::default();
//! assert_eq!(o.count(&CAP), 7);
//! o.set(&CAP, "12").unwrap();
//! assert_eq!(o.count(&CAP), 12);
//! assert!(o.set(&CAP, "0").is_err()); // below its range
//! ```

use crate::core::Deadline;
use crate::error::{Error, Result};
use crate::lp::model_out::SolverIo;
use std::collections::BTreeMap;

/// The type of an engine parameter, with its default and range (inclusive).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ParamKind {
    /// A whole number in `[min, max]`.
    Count {
        /// The default.
        default: u64,
        /// Least value.
        min: u64,
        /// Largest value.
        max: u64,
    },
    /// `true` or `false`.
    Flag {
        /// The default.
        default: bool,
    },
    /// A finite real number in `[min, max]`.
    Real {
        /// The default.
        default: f64,
        /// Least value.
        min: f64,
        /// Largest value.
        max: f64,
    },
}

/// A parameter value, typed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ParamValue {
    /// A [`ParamKind::Count`] value.
    Count(u64),
    /// A [`ParamKind::Flag`] value.
    Flag(bool),
    /// A [`ParamKind::Real`] value.
    Real(f64),
}

/// An engine parameter a family declares.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ParamSpec {
    /// Name, as the CLI flag spells it (`kbest-max-subsets`).
    pub name: &'static str,
    /// Its type, default and range.
    pub kind: ParamKind,
    /// One line for `--help`.
    pub help: &'static str,
}

impl ParamSpec {
    /// A whole-number parameter.
    pub const fn count(
        name: &'static str,
        default: u64,
        min: u64,
        max: u64,
        help: &'static str,
    ) -> Self {
        ParamSpec {
            name,
            kind: ParamKind::Count { default, min, max },
            help,
        }
    }

    /// A real parameter.
    pub const fn real(
        name: &'static str,
        default: f64,
        min: f64,
        max: f64,
        help: &'static str,
    ) -> Self {
        ParamSpec {
            name,
            kind: ParamKind::Real { default, min, max },
            help,
        }
    }

    /// A `true`/`false` parameter.
    pub const fn flag(name: &'static str, default: bool, help: &'static str) -> Self {
        ParamSpec {
            name,
            kind: ParamKind::Flag { default },
            help,
        }
    }

    /// The default, typed.
    pub fn default_value(&self) -> ParamValue {
        match self.kind {
            ParamKind::Count { default, .. } => ParamValue::Count(default),
            ParamKind::Flag { default } => ParamValue::Flag(default),
            ParamKind::Real { default, .. } => ParamValue::Real(default),
        }
    }

    /// The default as `--help` shows it.
    pub fn default_text(&self) -> String {
        match self.kind {
            ParamKind::Count { default, .. } if default == u64::MAX => "unlimited".into(),
            ParamKind::Count { default, .. } => default.to_string(),
            ParamKind::Flag { default } => default.to_string(),
            ParamKind::Real { default, .. } => short(default),
        }
    }

    /// What a value must be, for messages and `--help`.
    pub fn expected(&self) -> String {
        match self.kind {
            ParamKind::Count { min, max, .. } if max == u64::MAX => {
                format!("a whole number >= {min}")
            }
            ParamKind::Count { min, max, .. } => format!("a whole number from {min} to {max}"),
            ParamKind::Flag { .. } => "true or false".into(),
            ParamKind::Real { min, max, .. } => {
                format!("a finite number from {} to {}", short(min), short(max))
            }
        }
    }

    /// Parses and range-checks a value of this parameter.
    pub fn parse(&self, raw: &str) -> Result<ParamValue> {
        let value = raw.trim();
        let parsed = match self.kind {
            ParamKind::Count { min, max, .. } => value
                .parse::<u64>()
                .ok()
                .filter(|v| (min..=max).contains(v))
                .map(ParamValue::Count),
            ParamKind::Flag { .. } => value.parse::<bool>().ok().map(ParamValue::Flag),
            ParamKind::Real { min, max, .. } => value
                .parse::<f64>()
                .ok()
                .filter(|v| v.is_finite() && *v >= min && *v <= max)
                .map(ParamValue::Real),
        };
        parsed.ok_or_else(|| Error::BadFlag {
            flag: format!("--{}", self.name),
            value: raw.to_string(),
            expected: self.expected(),
        })
    }

    /// Checks a value of this parameter.
    pub fn check(&self, raw: &str) -> Result<()> {
        self.parse(raw).map(|_| ())
    }

    /// Checks that the default lies in the range (a declaration error
    /// otherwise; the families' tests call it on every parameter).
    pub fn validate(&self) -> Result<()> {
        let ok = match self.kind {
            ParamKind::Count { default, min, max } => min <= max && (min..=max).contains(&default),
            ParamKind::Flag { .. } => true,
            ParamKind::Real { default, min, max } => {
                default.is_finite() && min <= max && default >= min && default <= max
            }
        };
        if ok {
            Ok(())
        } else {
            Err(Error::Internal(format!(
                "parameter --{}: its default {} is outside {}",
                self.name,
                self.default_text(),
                self.expected()
            )))
        }
    }
}

/// A real as people read it: plain in `[1e-3, 1e9)`, else `1e-9`, `1e308`.
fn short(x: f64) -> String {
    let a = x.abs();
    if a == 0.0 || (1e-3..1e9).contains(&a) {
        x.to_string()
    } else {
        format!("{x:e}")
    }
}

/// Options passed to every engine.
#[derive(Debug, Clone, PartialEq)]
pub struct SolveOptions {
    time_limit: Option<f64>,
    /// Seed for randomised engines.
    pub seed: u64,
    deadline: Deadline,
    params: BTreeMap<&'static str, ParamValue>,
    io: SolverIo,
}

impl Default for SolveOptions {
    fn default() -> Self {
        SolveOptions::new(Some(60.0), 0)
    }
}

impl SolveOptions {
    /// Options with this per-run time limit (seconds; `None` = no limit; a
    /// zero, negative or NaN limit has passed at once — the CLI's
    /// `--time-limit 0` means no limit and gives `None`) and seed, every
    /// parameter at its default, no command deadline beyond the per-run
    /// limit.
    pub fn new(time_limit: Option<f64>, seed: u64) -> Self {
        SolveOptions {
            time_limit,
            seed,
            deadline: Deadline::none().with_flag(crate::core::interrupt::flag()),
            params: BTreeMap::new(),
            io: SolverIo::default(),
        }
    }

    /// The per-run time limit, seconds (`None` = no limit).
    pub fn time_limit(&self) -> Option<f64> {
        self.time_limit
    }

    /// `self` with another per-run time limit (same rules as [`Self::new`]).
    pub fn with_time_limit(mut self, time_limit: Option<f64>) -> Self {
        self.time_limit = time_limit;
        self
    }

    /// `self` with the command's deadline: every run ends by it (a
    /// command-wide `--time-limit`, a caller's stop flag).
    pub fn with_deadline(mut self, deadline: Deadline) -> Self {
        self.deadline = deadline;
        self
    }

    /// The command's deadline.
    pub fn deadline(&self) -> &Deadline {
        &self.deadline
    }

    /// The deadline of one run starting now: the command's, capped by the
    /// per-run time limit.
    pub fn run_deadline(&self) -> Deadline {
        self.deadline
            .capped(self.time_limit)
            .with_io(self.io.clone())
    }

    /// `self` with HiGHS settings (models out, log, threads), checked by
    /// the caller ([`SolverIo::check`]).
    pub fn with_io(mut self, io: SolverIo) -> Self {
        self.io = io;
        self
    }

    /// The HiGHS settings.
    pub fn io(&self) -> &SolverIo {
        &self.io
    }

    /// `self` for one run of `engine` on `instance` (models written are
    /// named after them).
    pub fn for_run(&self, instance: &str, engine: &str) -> Self {
        let mut o = self.clone();
        o.io = self.io.for_run(instance, engine);
        o
    }

    /// Sets parameter `spec` to `value` after checking it.
    pub fn set(&mut self, spec: &ParamSpec, value: &str) -> Result<()> {
        let v = spec.parse(value)?;
        self.params.insert(spec.name, v);
        Ok(())
    }

    /// `self` with parameter `spec` set (for library callers; an unusable
    /// value is an error).
    pub fn with(mut self, spec: &ParamSpec, value: impl ToString) -> Result<Self> {
        self.set(spec, &value.to_string())?;
        Ok(self)
    }

    fn value(&self, spec: &ParamSpec) -> ParamValue {
        self.params
            .get(spec.name)
            .copied()
            .unwrap_or_else(|| spec.default_value())
    }

    /// A [`ParamKind::Count`] parameter (its default when unset).
    pub fn count(&self, spec: &ParamSpec) -> u64 {
        match (self.value(spec), spec.kind) {
            (ParamValue::Count(v), _) => v,
            (_, ParamKind::Count { default, .. }) => default,
            _ => 0,
        }
    }

    /// A [`ParamKind::Real`] parameter (its default when unset).
    pub fn real(&self, spec: &ParamSpec) -> f64 {
        match (self.value(spec), spec.kind) {
            (ParamValue::Real(v), _) => v,
            (_, ParamKind::Real { default, .. }) => default,
            _ => 0.0,
        }
    }

    /// A [`ParamKind::Flag`] parameter (its default when unset).
    pub fn flag(&self, spec: &ParamSpec) -> bool {
        match (self.value(spec), spec.kind) {
            (ParamValue::Flag(v), _) => v,
            (_, ParamKind::Flag { default }) => default,
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CAP: ParamSpec = ParamSpec::count("cap", 7, 0, u64::MAX, "a cap");
    const RATE: ParamSpec = ParamSpec::real("rate", 1.5, 1e-9, 10.0, "a rate");

    #[test]
    fn params_are_checked_and_typed() {
        let mut o = SolveOptions::default();
        assert_eq!(o.count(&CAP), 7);
        o.set(&CAP, "12").unwrap();
        assert_eq!(o.count(&CAP), 12);
        assert!(o.set(&CAP, "-1").is_err());
        assert_eq!(o.count(&CAP), 12);
        assert_eq!(o.real(&RATE), 1.5);
        let err = o.set(&RATE, "0").unwrap_err().to_string();
        assert!(
            err.contains("--rate") && err.contains("from 1e-9 to 10"),
            "{err}"
        );
        assert!(o.set(&RATE, "nan").is_err());
        assert!(CAP.validate().is_ok() && RATE.validate().is_ok());
        let bad = ParamSpec::count("bad", 0, 1, 5, "");
        assert!(bad.validate().is_err());
    }

    #[test]
    fn a_zero_time_limit_has_passed_at_once() {
        let o = SolveOptions::new(Some(0.0), 0);
        assert!(o.run_deadline().expired());
        assert!(!SolveOptions::new(None, 0).run_deadline().expired());
        assert!(!SolveOptions::new(Some(100.0), 0).run_deadline().expired());
    }
}
