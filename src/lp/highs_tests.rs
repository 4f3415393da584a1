//! Tests of [`super`]: settings checks, a knapsack, infeasibility.

use super::*;
use good_lp::{constraint, variable};

#[test]
fn settings_are_checked_before_highs_sees_them() {
    assert!(MipSettings::default().validate().is_ok());
    let bad = [
        MipSettings {
            time_limit: Some(f64::NAN),
            ..MipSettings::default()
        },
        MipSettings {
            rel_gap: -1.0,
            ..MipSettings::default()
        },
        MipSettings {
            threads: 0,
            ..MipSettings::default()
        },
    ];
    for s in bad {
        let mut b = MipBuilder::new();
        let x = b.add(variable().min(0.0).max(1.0));
        let r = minimise(b, x.var.into(), vec![], None, &s);
        assert_eq!(r.status, Status::Error, "{s:?}");
        assert!(r.message.unwrap().contains("HiGHS settings"));
    }
}

#[test]
fn knapsack_is_solved_to_proven_optimality() {
    let mut vars = MipBuilder::new();
    let x: Vec<Variable> = (0..4).map(|_| vars.add(variable().binary()).var).collect();
    let w = [3.0, 4.0, 5.0, 6.0];
    let v = [4.0, 5.0, 7.0, 8.0];
    let obj: Expression = x.iter().zip(v).map(|(&xi, vi)| -vi * xi).sum();
    let cap: Expression = x.iter().zip(w).map(|(&xi, wi)| wi * xi).sum();
    let r = minimise(
        vars,
        obj,
        vec![constraint!(cap <= 10.0)],
        None,
        &MipSettings::default(),
    );
    assert_eq!(r.status, Status::Optimal);
    // best: items 0 and 2 (w 8, v 11) or 1 and 3 (w 10, v 13) → 13
    assert!((r.objective.unwrap() + 13.0).abs() < 1e-6);
    assert!((r.bound.unwrap() + 13.0).abs() < 1e-6);
}

#[test]
fn infeasibility_is_reported_as_such() {
    let mut vars = MipBuilder::new();
    let x = vars.add(variable().binary()).var;
    let r = minimise(
        vars,
        Expression::from(x),
        vec![constraint!(x >= 2.0)],
        None,
        &MipSettings::default(),
    );
    assert_eq!(r.status, Status::Infeasible);
    assert!(r.values.is_none());
}
