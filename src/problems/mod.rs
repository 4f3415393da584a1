//! The problem families, one folder each (model, evaluator, file format,
//! generator, the papers' algorithms named as the papers name them, exact
//! engines, reproductions), each behind [`crate::core::Family`].
//!
//! The registry: a new family is its `pub mod` line and one entry in
//! [`builtin`]. The modules are plain declarations so that `cargo fmt`
//! reaches every family folder.

use crate::core::Family;

pub mod ag;
pub mod cma;
pub mod ranges;
pub mod rank;
pub mod spd;
pub mod spdvr;

/// The crate's families, in table order.
pub fn builtin() -> Vec<&'static dyn Family> {
    vec![
        &spd::FAMILY,
        &spdvr::FAMILY,
        &cma::FAMILY,
        &rank::FAMILY,
        &ranges::FAMILY,
        &ag::FAMILY,
    ]
}
