//! How the runner reaches instances and engines: a [`Dispatch`]. The
//! registry of families ([`Registry`]) is the real one (every family's
//! files and engines); tests wrap it with mock engines (e.g. one that
//! panics).

use crate::core::registry::Registry;
use crate::core::{FailureReason, ProblemInstance, SolveOptions, SolveRecord};
use crate::error::Result;
use std::path::Path;

pub use crate::core::InstanceFeatures;

/// Maps instances to engines and runs them.
pub trait Dispatch: Sync {
    /// Reads an instance file.
    fn read(&self, path: &Path) -> Result<Box<dyn ProblemInstance>>;
    /// Every engine name this dispatch knows, any problem, in table order.
    fn known_engines(&self) -> Vec<String>;
    /// The engines that apply to `inst`, in table order.
    fn applicable_engines(&self, inst: &dyn ProblemInstance) -> Vec<String>;
    /// Runs `engine` on `inst`. Never panics on purpose; the runner still
    /// catches panics and turns them into error rows.
    fn run_engine(
        &self,
        inst: &dyn ProblemInstance,
        engine: &str,
        opts: &SolveOptions,
    ) -> SolveRecord;
    /// Size and features of `inst`.
    fn features(&self, inst: &dyn ProblemInstance) -> InstanceFeatures;
}

/// The real dispatch: every file and engine of the registry's families.
impl Dispatch for Registry {
    fn read(&self, path: &Path) -> Result<Box<dyn ProblemInstance>> {
        self.read_instance(path)
    }

    fn known_engines(&self) -> Vec<String> {
        Registry::known_engines(self)
    }

    fn applicable_engines(&self, inst: &dyn ProblemInstance) -> Vec<String> {
        inst.applicable_engines()
    }

    fn run_engine(
        &self,
        inst: &dyn ProblemInstance,
        engine: &str,
        opts: &SolveOptions,
    ) -> SolveRecord {
        inst.run_engine(engine, opts)
    }

    fn features(&self, inst: &dyn ProblemInstance) -> InstanceFeatures {
        inst.features()
    }
}

/// An `error` record for `engine` on `inst` (a panic, …).
pub fn error_record(
    inst: &dyn ProblemInstance,
    engine: &str,
    reason: FailureReason,
    message: String,
) -> SolveRecord {
    SolveRecord::failed(inst.name(), inst.problem(), engine, reason, message)
}
