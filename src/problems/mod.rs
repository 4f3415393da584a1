//! The problem families, one folder each (model, evaluator, file format,
//! generator, the papers' algorithms named as the papers name them, exact
//! engines, reproductions), each behind [`crate::core::Family`].
//!
//! The registry: a new family is its `pub mod` line and one entry in
//! [`builtin`]. The modules are plain declarations so that `cargo fmt`
//! reaches every family folder.

use crate::cli::CliHook;
use crate::core::Family;

/// A family as the crate registers it: the family, and the commands it adds
/// to the CLI.
#[derive(Clone, Copy)]
pub struct Registered {
    /// The family.
    pub family: &'static dyn Family,
    /// Its own commands (`gen NAME`, `repro NAME`, `plan NAME`, …).
    pub commands: fn() -> Vec<CliHook>,
}

pub mod ag;
pub mod cma;
pub mod ranges;
pub mod rank;
pub mod spd;
pub mod spdvr;

/// The crate's families, in table order, with their commands.
pub fn builtin() -> Vec<Registered> {
    let r = |family: &'static dyn Family, commands| Registered { family, commands };
    vec![
        r(&spd::FAMILY, spd::cli::hooks),
        r(&spdvr::FAMILY, Vec::new),
        r(&cma::FAMILY, cma::cli::hooks),
        r(&rank::FAMILY, rank::cli::hooks),
        r(&ranges::FAMILY, ranges::cli::hooks),
        r(&ag::FAMILY, ag::cli::hooks),
    ]
}
