//! How the runner reaches engines: a [`Dispatch`] over instances read through
//! the family registry. [`Registry`] is the real one (every family's engines);
//! tests wrap it with mock engines (e.g. one that panics).

use crate::core::{FailureReason, ProblemInstance, SolveOptions, SolveRecord};

pub use crate::core::InstanceFeatures;

/// Maps instances to engines and runs them.
pub trait Dispatch: Sync {
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

/// The real dispatch: every engine of every registered family.
#[derive(Debug, Clone, Copy, Default)]
pub struct Registry;

impl Dispatch for Registry {
    fn known_engines(&self) -> Vec<String> {
        crate::core::registry::known_engines()
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
