//! The LP/MILP backend shared by every family's exact engines: good_lp models
//! handed to HiGHS, with status, dual bound and gap read from HiGHS itself.

pub mod highs;
pub mod model_out;
pub mod read;
pub mod write;
