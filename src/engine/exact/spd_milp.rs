//! Exact SPD (`exact`): proven minimum host count on HiGHS. (Model: see below.)

use crate::engine::{SolveOptions, SpdEngine, SpdOutcome};
use crate::model::spd::{CommModel, SpdInstance};

/// `exact`.
pub struct ExactSpd;

impl SpdEngine for ExactSpd {
    fn name(&self) -> &'static str {
        "exact"
    }

    fn supports(&self, _model: CommModel) -> bool {
        true
    }

    fn solve(&self, _inst: &SpdInstance, _opts: &SolveOptions) -> SpdOutcome {
        SpdOutcome::failed("exact: not implemented yet")
    }
}
