//! Engines handed to the runner by a library caller (the Python package's
//! functions): run on every instance they apply to, like external commands,
//! through [`ProblemInstance::run_foreign`](crate::core::ProblemInstance::run_foreign).

use crate::core::ForeignEngine;
use crate::error::{Error, Result};
use std::sync::Arc;

/// Engines from a library caller, by name ([`BenchConfig::foreign`](crate::bench::BenchConfig::foreign)).
#[derive(Clone, Default)]
pub struct ForeignEngines(pub Vec<Arc<dyn ForeignEngine>>);

impl ForeignEngines {
    /// Their names, in order.
    pub fn names(&self) -> Vec<String> {
        self.0.iter().map(|e| e.name().to_string()).collect()
    }

    /// The one named `name`.
    pub fn get(&self, name: &str) -> Option<&dyn ForeignEngine> {
        self.0.iter().find(|e| e.name() == name).map(|e| e.as_ref())
    }

    /// A usage error when a name is taken already (by `known` or another).
    pub(crate) fn check_names(&self, known: &[String]) -> Result<()> {
        for (i, name) in self.names().iter().enumerate() {
            if known.contains(name) || self.0[..i].iter().any(|e| e.name() == name) {
                return Err(Error::Usage(format!(
                    "engine name '{name}' is taken (by a built-in, external or another \
                     engine); choose another"
                )));
            }
        }
        Ok(())
    }
}

impl std::fmt::Debug for ForeignEngines {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.names()).finish()
    }
}
