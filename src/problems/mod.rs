//! The problem families, one folder each (model, evaluator, file format,
//! generator, the papers' algorithms named as the papers name them, exact
//! engines, reproductions), each behind [`crate::core::Family`].
//!
//! The registry line: a new family is one more name in `families![…]`.

use crate::core::Family;

macro_rules! families {
    ($($family:ident),* $(,)?) => {
        $(pub mod $family;)*

        /// The crate's families, in table order.
        pub fn builtin() -> Vec<&'static dyn Family> {
            vec![$(&$family::FAMILY),*]
        }
    };
}

families![spd, spdvr, cma, rank, ranges, ag];
