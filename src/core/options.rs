//! Options shared by every engine: a time limit, a seed, and engine
//! parameters by name.
//!
//! A family declares its engines' parameters as [`ParamSpec`]s (name, kind,
//! default, help); the CLI turns each into a `--NAME VALUE` flag of `solve`
//! and `bench`, checks the value once ([`SolveOptions::set`]) and engines read
//! it typed ([`SolveOptions::count`], [`SolveOptions::flag`]).

use crate::error::{Error, Result};
use std::collections::BTreeMap;

/// The type of an engine parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParamKind {
    /// A whole number >= 0.
    Count,
    /// `true` or `false`.
    Flag,
    /// A finite real number.
    Real,
}

/// An engine parameter a family declares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ParamSpec {
    /// Name, as the CLI flag spells it (`kbest-max-subsets`).
    pub name: &'static str,
    /// Its type.
    pub kind: ParamKind,
    /// Default value, as text.
    pub default: &'static str,
    /// One line for `--help`.
    pub help: &'static str,
}

impl ParamSpec {
    /// Checks a value of this parameter.
    pub fn check(&self, value: &str) -> Result<()> {
        let ok = match self.kind {
            ParamKind::Count => value.parse::<u64>().is_ok(),
            ParamKind::Flag => value.parse::<bool>().is_ok(),
            ParamKind::Real => value.parse::<f64>().is_ok_and(f64::is_finite),
        };
        if ok {
            Ok(())
        } else {
            let what = match self.kind {
                ParamKind::Count => "a whole number >= 0",
                ParamKind::Flag => "true or false",
                ParamKind::Real => "a finite number",
            };
            Err(Error::Usage(format!(
                "--{} {value}: expected {what}",
                self.name
            )))
        }
    }
}

/// Options passed to every engine.
#[derive(Debug, Clone, PartialEq)]
pub struct SolveOptions {
    /// Wall-time limit for exact engines, seconds (`None` = no limit).
    pub time_limit: Option<f64>,
    /// Seed for randomised engines.
    pub seed: u64,
    /// Engine parameters set away from their defaults, checked.
    params: BTreeMap<&'static str, String>,
}

impl Default for SolveOptions {
    fn default() -> Self {
        SolveOptions {
            time_limit: Some(60.0),
            seed: 0,
            params: BTreeMap::new(),
        }
    }
}

impl SolveOptions {
    /// Options with this time limit and seed, every parameter at its default.
    pub fn new(time_limit: Option<f64>, seed: u64) -> Self {
        SolveOptions {
            time_limit,
            seed,
            params: BTreeMap::new(),
        }
    }

    /// Sets parameter `spec` to `value` after checking it.
    pub fn set(&mut self, spec: &ParamSpec, value: &str) -> Result<()> {
        spec.check(value)?;
        self.params.insert(spec.name, value.to_string());
        Ok(())
    }

    /// `self` with parameter `spec` set (for library callers; panics never:
    /// an unusable value is an error).
    pub fn with(mut self, spec: &ParamSpec, value: impl ToString) -> Result<Self> {
        self.set(spec, &value.to_string())?;
        Ok(self)
    }

    fn raw(&self, spec: &ParamSpec) -> &str {
        self.params
            .get(spec.name)
            .map(String::as_str)
            .unwrap_or(spec.default)
    }

    /// A [`ParamKind::Count`] parameter (its default when unset).
    pub fn count(&self, spec: &ParamSpec) -> u64 {
        self.raw(spec)
            .parse()
            .or_else(|_| spec.default.parse())
            .unwrap_or(0)
    }

    /// A [`ParamKind::Real`] parameter (its default when unset).
    pub fn real(&self, spec: &ParamSpec) -> f64 {
        self.raw(spec)
            .parse()
            .or_else(|_| spec.default.parse())
            .unwrap_or(0.0)
    }

    /// A [`ParamKind::Flag`] parameter (its default when unset).
    pub fn flag(&self, spec: &ParamSpec) -> bool {
        self.raw(spec)
            .parse()
            .or_else(|_| spec.default.parse())
            .unwrap_or(false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CAP: ParamSpec = ParamSpec {
        name: "cap",
        kind: ParamKind::Count,
        default: "7",
        help: "a cap",
    };

    #[test]
    fn params_are_checked_and_typed() {
        let mut o = SolveOptions::default();
        assert_eq!(o.count(&CAP), 7);
        o.set(&CAP, "12").unwrap();
        assert_eq!(o.count(&CAP), 12);
        assert!(o.set(&CAP, "-1").is_err());
        assert_eq!(o.count(&CAP), 12);
    }
}
