//! The one tolerance policy and the one cross-check of engines' claims, used
//! by the record filler, `solve` and `bench` alike.
//!
//! Every comparison of objectives and bounds is relative:
//! `a` lies below `b` when `a < b − REL_TOL · max(1, |a|, |b|)`. The tolerance
//! is that of the LP/MILP backend's proofs (HiGHS proves bounds to about
//! 1e-7 relative), loose enough for sums of a million floating-point delays
//! and far tighter than any difference a user acts on.

use crate::core::Status;

/// Relative tolerance of every objective/bound comparison.
pub const REL_TOL: f64 = 1e-6;

/// The absolute tolerance when comparing `a` with `b`.
pub fn tolerance(a: f64, b: f64) -> f64 {
    let scale = [1.0, a.abs(), b.abs()]
        .into_iter()
        .filter(|x| x.is_finite())
        .fold(1.0, f64::max);
    REL_TOL * scale
}

/// `a` is below `b` by more than the tolerance.
pub fn below(a: f64, b: f64) -> bool {
    a < b - tolerance(a, b)
}

/// What one run claims about an instance.
#[derive(Debug, Clone, PartialEq)]
pub struct Claim<'a> {
    /// Engine name.
    pub engine: &'a str,
    /// How the run ended.
    pub status: Status,
    /// The evaluator's objective (minimised).
    pub objective: Option<f64>,
    /// The proven lower bound the engine claims.
    pub bound: Option<f64>,
}

impl Claim<'_> {
    /// The objective of a valid solution the evaluator accepted.
    pub fn found(&self) -> Option<f64> {
        match self.status {
            Status::Optimal | Status::Feasible | Status::TimeLimit => self.objective,
            _ => None,
        }
    }

    /// The proven lower bound claimed: the objective when `optimal`, else the
    /// bound.
    pub fn proven_bound(&self) -> Option<f64> {
        match self.status {
            Status::Optimal => self.objective.or(self.bound),
            Status::Feasible | Status::TimeLimit => self.bound,
            _ => None,
        }
    }
}

/// A contradiction between two runs: a bug in one of them.
#[derive(Debug, Clone, PartialEq)]
pub struct Conflict {
    /// What contradicts what.
    pub message: String,
    /// Indices (into the claims) of the two runs involved.
    pub runs: [usize; 2],
}

/// What the claims on one instance establish.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CrossCheck {
    /// The least objective found and the index of a run that found it.
    pub best: Option<(f64, usize)>,
    /// Whether `best` is proven optimal (some proven bound reaches it and
    /// nothing contradicts the proofs).
    pub proven: bool,
    /// Contradictions: a solution below another run's proven bound, or any
    /// solution on an instance a run proved infeasible.
    pub conflicts: Vec<Conflict>,
}

/// Cross-checks the runs on one instance; `label` (a file or instance name)
/// starts each conflict message.
pub fn cross_check(label: &str, claims: &[Claim]) -> CrossCheck {
    let best = claims
        .iter()
        .enumerate()
        .filter_map(|(i, c)| c.found().map(|o| (o, i)))
        .min_by(|a, b| a.0.total_cmp(&b.0));
    let proof = claims
        .iter()
        .enumerate()
        .filter_map(|(i, c)| c.proven_bound().map(|b| (b, i)))
        .max_by(|a, b| a.0.total_cmp(&b.0));
    let mut conflicts = Vec::new();
    if let (Some((b, bi)), Some((o, oi))) = (proof, best) {
        if below(o, b) {
            let (p, q) = (&claims[bi], &claims[oi]);
            conflicts.push(Conflict {
                message: format!(
                    "{label}: {} claims a proven bound {b} ({}) but {} found {o}",
                    p.engine, p.status, q.engine
                ),
                runs: [bi, oi],
            });
        }
    }
    let infeasible = claims.iter().position(|c| c.status == Status::Infeasible);
    if let (Some(ii), Some((o, oi))) = (infeasible, best) {
        conflicts.push(Conflict {
            message: format!(
                "{label}: {} claims infeasible but {} found a solution with objective {o}",
                claims[ii].engine, claims[oi].engine
            ),
            runs: [ii, oi],
        });
    }
    let proven = conflicts.is_empty()
        && matches!((proof, best), (Some((b, _)), Some((o, _))) if !below(b, o));
    CrossCheck {
        best,
        proven,
        conflicts,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn claim(engine: &str, status: Status, objective: f64) -> Claim<'_> {
        Claim {
            engine,
            status,
            objective: Some(objective),
            bound: None,
        }
    }

    #[test]
    fn rounding_noise_on_a_large_total_is_no_conflict() {
        // issue 15: exact-flow 2618204.568301242 vs j-sa 2618204.568301238.
        let c = [
            claim("exact-flow", Status::Optimal, 2_618_204.568_301_242),
            claim("j-sa", Status::Feasible, 2_618_204.568_301_238),
        ];
        let r = cross_check("f", &c);
        assert!(r.conflicts.is_empty());
        assert!(r.proven);
    }

    #[test]
    fn a_beaten_optimum_and_a_beaten_infeasibility_are_conflicts() {
        let c = [
            claim("exact", Status::Optimal, 5.0),
            claim("h", Status::Feasible, 4.0),
        ];
        let r = cross_check("f", &c);
        assert_eq!(r.conflicts.len(), 1);
        assert_eq!(r.conflicts[0].runs, [0, 1]);
        assert!(!r.proven);
        let c = [
            Claim {
                engine: "exact",
                status: Status::Infeasible,
                objective: None,
                bound: None,
            },
            claim("h", Status::Feasible, 4.0),
        ];
        assert_eq!(cross_check("f", &c).conflicts.len(), 1);
    }
}
