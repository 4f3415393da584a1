//! The ONE place that maps an [`Instance`] to the engines that apply to it and
//! runs one of them.
//!
//! Adding a problem to the benchmark runner means: a variant in
//! [`crate::io::Instance`], then one arm in each `match` below
//! ([`Registry::applicable_engines`], [`Registry::run_engine`],
//! [`Registry::features`]) and its engine names in [`Registry::known_engines`].
//! Nothing else in `bench` knows a problem by name.
//!
//! The runner talks to a [`Dispatch`] trait object so tests can wrap the real
//! [`Registry`] with mock engines (e.g. one that panics).

use crate::engine::{self, SolveOptions};
use crate::io::Instance;
use crate::model::spd::SpdProblem;
use crate::model::SolveRecord;
use serde_json::{json, Map, Value};

/// Largest CMA instance (clients × mirrors) on which "all engines" includes
/// the HiGHS LP `exact`.
pub const LP_MAX_CELLS: usize = 200_000;

/// Instance attributes the runner copies into every row: a size for
/// "runtime vs size" plots and a few scalar features (e.g. servers, clients,
/// bound factor) so results can be grouped without reopening the instance.
#[derive(Debug, Clone, Default)]
pub struct InstanceFeatures {
    /// One number that grows with the instance's difficulty (SPD:
    /// `servers × clients`, the size of the access matrix).
    pub size: f64,
    /// Scalar features, in column order.
    pub features: Map<String, Value>,
}

/// Maps instances to engines and runs them.
pub trait Dispatch: Sync {
    /// Every engine name this dispatch knows, any problem, in table order.
    fn known_engines(&self) -> Vec<String>;
    /// The engines that apply to `inst`, in table order.
    fn applicable_engines(&self, inst: &Instance) -> Vec<String>;
    /// Runs `engine` on `inst`. Never panics on purpose; the runner still
    /// catches panics and turns them into error rows.
    fn run_engine(&self, inst: &Instance, engine: &str, opts: &SolveOptions) -> SolveRecord;
    /// Size and features of `inst`.
    fn features(&self, inst: &Instance) -> InstanceFeatures;
}

/// The real dispatch: every engine of the crate.
#[derive(Debug, Clone, Copy, Default)]
pub struct Registry;

impl Dispatch for Registry {
    fn known_engines(&self) -> Vec<String> {
        let mut names: Vec<String> = Vec::new();
        for n in engine::spd_engine_names()
            .into_iter()
            .chain(engine::spdvr::spdvr_engine_names())
            .chain(engine::cma::cma_engine_names().iter().copied())
        {
            if !names.iter().any(|m| m == n) {
                names.push(n.to_string());
            }
        }
        names
    }

    fn applicable_engines(&self, inst: &Instance) -> Vec<String> {
        match inst {
            Instance::Spd(i) => match i.problem {
                SpdProblem::Spd => engine::spd_engines()
                    .iter()
                    .filter(|e| e.supports(i.model))
                    .map(|e| e.name().to_string())
                    .collect(),
                SpdProblem::Spdvr => engine::spdvr::spdvr_engines()
                    .iter()
                    .filter(|e| e.supports(i.model))
                    .map(|e| e.name().to_string())
                    .collect(),
            },
            // A dynamic instance (events) is replayed by `simulate`, not
            // solved statically; the HiGHS LP is left out of "all" above
            // LP_MAX_CELLS delay entries (it needs minutes where exact-flow
            // needs milliseconds) but still runs when named.
            Instance::Cma(i) if i.events.is_some() => Vec::new(),
            Instance::Cma(i) => engine::cma::cma_engine_names()
                .iter()
                .filter(|&&e| e != "exact" || i.clients() * i.mirrors() <= LP_MAX_CELLS)
                .map(|e| e.to_string())
                .collect(),
        }
    }

    fn run_engine(&self, inst: &Instance, engine: &str, opts: &SolveOptions) -> SolveRecord {
        match inst {
            Instance::Spd(i) if i.problem == SpdProblem::Spdvr => {
                // The start is the file's (`solve --start` puts a computed
                // one there before dispatching).
                let run = engine::spdvr::start_for(i, None, opts)
                    .and_then(|start| engine::spdvr::run_spdvr(engine, i, &start, opts));
                run.unwrap_or_else(|err| error_record(inst, "spdvr", engine, err.to_string()))
            }
            Instance::Spd(i) => match engine::spd_engine(engine) {
                Ok(e) => engine::run_spd(e.as_ref(), i, opts),
                Err(err) => error_record(inst, "spd", engine, err.to_string()),
            },
            Instance::Cma(i) => engine::cma::run_cma(engine, i, opts),
        }
    }

    fn features(&self, inst: &Instance) -> InstanceFeatures {
        match inst {
            Instance::Spd(i) => {
                let mut f = Map::new();
                f.insert("model".into(), json!(i.model.to_string()));
                f.insert("servers".into(), json!(i.servers()));
                f.insert("clients".into(), json!(i.clients()));
                f.insert("mu".into(), json!(i.bound));
                f.insert("bound_factor".into(), json!(i.bound_factor));
                InstanceFeatures {
                    size: (i.servers() * i.clients()) as f64,
                    features: f,
                }
            }
            Instance::Cma(i) => {
                let mut f = Map::new();
                f.insert("mirrors".into(), json!(i.mirrors()));
                f.insert("clients".into(), json!(i.clients()));
                f.insert("total_capacity".into(), json!(i.total_capacity()));
                f.insert("events".into(), json!(i.events.as_ref().map(Vec::len)));
                InstanceFeatures {
                    size: (i.mirrors() * i.clients()) as f64,
                    features: f,
                }
            }
        }
    }
}

/// An `error` record for `engine` on `inst` (unknown engine, panic, …).
pub fn error_record(inst: &Instance, problem: &str, engine: &str, message: String) -> SolveRecord {
    SolveRecord {
        message: Some(message),
        ..SolveRecord::unsolved(inst.name(), problem, engine)
    }
}

/// The problem name of an instance as rows spell it.
pub fn problem_name(inst: &Instance) -> &'static str {
    match inst {
        Instance::Spd(i) => match i.problem {
            SpdProblem::Spd => "spd",
            SpdProblem::Spdvr => "spdvr",
        },
        Instance::Cma(_) => "cma",
    }
}

/// The engines that apply to `inst` (see [`Registry`]).
pub fn applicable_engines(inst: &Instance) -> Vec<String> {
    Registry.applicable_engines(inst)
}

/// Runs `engine` on `inst` (see [`Registry`]).
pub fn run_engine(inst: &Instance, engine: &str, opts: &SolveOptions) -> SolveRecord {
    Registry.run_engine(inst, engine, opts)
}
