//! Engines from outside the crate: a researcher's command, in any language,
//! run beside the built-in engines and judged by the same evaluator.
//!
//! - [`spec`]: `--engine-cmd NAME='CMD {instance} {solution}'` and
//!   `--engines-file engines.toml`, checked once into [`ExternalSpec`]s.
//! - [`process`]: one command under the run's limits (process group,
//!   deadline → SIGTERM → SIGKILL, `ulimit -v`, capped output, CPU time and
//!   peak memory).
//! - [`answer`]: the answer protocol (a bare solution or a wrapper with
//!   claims), shared with solution import.
//! - [`engine`]: [`ExternalRun`], one run as a [`crate::core::ForeignEngine`]
//!   through the family's runner.
//!
//! How a run ends (one row each, never a panic):
//!
//! | what happened | status | reason |
//! |---|---|---|
//! | a solution the evaluator accepts | as claimed (`feasible` by default) | – |
//! | killed at the deadline, solution file readable | `time_limit` (evaluated) | – |
//! | killed at the deadline, nothing readable | `time_limit` | – |
//! | exit code ≠ 0, or a signal | `error` | `command_failed` |
//! | no solution file and blank stdout | `error` | `no_solution` |
//! | not JSON, wrong shape, another instance's, a wrong objective | `error` | `rejected` |
//! | an assignment the evaluator rejects, a bound above the objective | `error` | `rejected` |
//!
//! Complexity: one process per run; the runner's own work is reading the
//! answer (linear in its size) and one evaluation.

pub mod answer;
pub mod callback;
pub mod engine;
pub mod process;
pub mod spec;

pub use engine::ExternalRun;
pub use spec::{read_engines_file, ExternalSpec};

use sha2::{Digest, Sha256};
use std::path::Path;

/// The SHA-256 of a file's bytes, lower-case hex (what `instance_sha256` in
/// an answer or a solution file records).
pub fn file_sha256(path: &Path) -> std::io::Result<String> {
    let bytes = std::fs::read(path)?;
    Ok(Sha256::digest(&bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect())
}

/// The external engines of a run and how to run them.
#[derive(Debug, Clone, Default)]
pub struct ExternalEngines {
    /// The engines, in the order given.
    pub specs: Vec<ExternalSpec>,
    /// `--engine-mem-limit`, MiB.
    pub mem_limit_mb: Option<u64>,
    /// Folder for the per-run logs (`OUT/logs`), if any.
    pub log_dir: Option<std::path::PathBuf>,
    /// `{threads}` of each run.
    pub threads: usize,
}

impl ExternalEngines {
    /// True when there are none.
    pub fn is_empty(&self) -> bool {
        self.specs.is_empty()
    }

    /// Their names.
    pub fn names(&self) -> Vec<String> {
        self.specs.iter().map(|s| s.name.clone()).collect()
    }

    /// The one called `name`.
    pub fn get(&self, name: &str) -> Option<&ExternalSpec> {
        self.specs.iter().find(|s| s.name == name)
    }

    /// Runs `spec` on `inst`, read from `file`; `log_key` names its log
    /// (`LOG_DIR/<log_key>.log`).
    pub fn run(
        &self,
        spec: &ExternalSpec,
        inst: &dyn crate::core::ProblemInstance,
        file: &Path,
        log_key: &str,
        opts: &crate::core::SolveOptions,
    ) -> crate::core::SolveRecord {
        let mut run = ExternalRun::new(spec, file);
        run.mem_limit_mb = self.mem_limit_mb;
        run.threads = self.threads.max(1);
        run.instance_sha256 = file_sha256(file).ok();
        run.log = self
            .log_dir
            .as_ref()
            .map(|d| d.join(format!("{}.log", crate::io::safe_name(log_key))));
        run.run(inst, opts)
    }
}
