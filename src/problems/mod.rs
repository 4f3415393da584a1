//! The problem families, one folder each (model, evaluator, file format,
//! generator, the papers' algorithms named as the papers name them, exact
//! engines, reproductions), each behind [`crate::core::Family`].
//!
//! The registry: a new family is its `pub mod` line and one entry in
//! [`registry`] (its commands, if any, go into `app`). The modules are plain
//! declarations so that `cargo fmt` reaches every family folder.

use crate::core::registry::Registry;

pub mod ag;
pub mod cma;
pub mod ranges;
pub mod rank;
pub mod spd;
pub mod spdvr;

/// The crate's families, in table order: the registry the command layer
/// starts from (a family from outside the crate is added with
/// [`Registry::with`]).
pub fn registry() -> Registry {
    Registry::new(vec![
        &spd::FAMILY,
        &spdvr::FAMILY,
        &cma::FAMILY,
        &rank::FAMILY,
        &ranges::FAMILY,
        &ag::FAMILY,
    ])
}

/// Reads any instance file of the crate's families ([`registry`]).
pub fn read_instance(
    path: &std::path::Path,
) -> crate::error::Result<Box<dyn crate::core::ProblemInstance>> {
    registry().read_instance(path)
}

/// Reads an instance from its text with the crate's families ([`registry`]).
pub fn parse_instance(
    src: &crate::core::Source,
) -> crate::error::Result<Box<dyn crate::core::ProblemInstance>> {
    registry().parse_instance(src)
}
