//! Exact SPDVR (`exact`): proven minimum delay variation on the start's hosts,
//! as a MILP on HiGHS through [`highs_mip`](crate::lp::highs).
//!
//! Sets: hosts `H = H(A)` of the start, clients `C`; `x[c,h] ∈ {0,1}` for every
//! `h` that `c` can reach (`a(c,h)` finite; for CS also `2p(c,h) <= μ`),
//! `Σ_h x[c,h] = 1`.
//!
//! **CS** (`p(c,h) = a(c,h) + D(h,r)`, root fixed): continuous `U, L`;
//! `U >= Σ_h p(c,h)·x[c,h] >= L` for every client; minimise `2(U − L)`.
//! No big-M: the chosen path is linear in `x`. `chains` is exact for CS, so
//! this model is the cross-check (and is seeded with the chains solution).
//!
//! **P2P** (`q(i,j) = a_i + D(σi,σj) + a_j`, distinct pairs): binary `y_h >=
//! x[c,h]` (host used), continuous `U <= μ`, `L <= U`, and per host `M_h >=
//! a(c,h)·x[c,h]` (largest access there), `N_h <= a(c,h) + Ā(1 − x[c,h])`
//! (least access there), `Ā` = the largest access.
//! - between hosts `h < g`: `U >= M_h + D(h,g) + M_g − B(2 − y_h − y_g)`,
//!   `L <= N_h + D(h,g) + N_g + μ(2 − y_h − y_g)`, `B = 2Ā + max D`;
//! - on one host (distinct clients): order its clients by access, descending;
//!   `W_p` = a prefix maximum (`W_p >= W_{p−1}`, `W_p >= a_p·x_p`) and
//!   `U >= a_{p+1} + W_p − 2Ā(1 − x_{p+1})`; symmetrically, ascending, a
//!   prefix minimum `P_p` (`P_p <= P_{p−1}`, `P_p <= a_p + Ā(1 − x_p)`) and
//!   `L <= a_{p+1} + P_p + μ(1 − x_{p+1})`;
//! - minimise `U − L`.
//!
//! Every feasible assignment extends to a model solution with objective its
//! variation (set `M, N, W, P, y` to the true extremes), and every model
//! solution's assignment has variation `<= U − L` (U is above and L below
//! every pair delay), so the optima coincide. `O(m·k)` variables and
//! constraints plus `O(k²)` host-pair rows (`k = |H(A)|`). The best heuristic
//! (`chains` for CS, `p2p-vr-ls` for P2P) seeds the incumbent; a time limit
//! returns the incumbent with HiGHS's bound and gap. Ties in variation are not
//! broken by delay.

use crate::lp::highs::{minimise, Col, MipBuilder, MipResult, MipSettings};
use crate::lp::model_out::Stage;
pub(crate) mod p2p;

use crate::core::engine::{Ctx, Engine};
use crate::core::FailureReason;
use crate::core::{within_bound, Status};
use crate::problems::spd::engines::SpdOutcome;
use crate::problems::spd::model::{CommModel, SpdInstance, SpdSolution};
use crate::problems::spdvr::chains::chains;
use crate::problems::spdvr::engines::SpdvrRun;
use crate::problems::spdvr::spdvrp2p_h::host_list;
use good_lp::{constraint, variable, Constraint, Expression};

/// `exact` for SPDVR.
pub struct ExactSpdvr;

/// The assignment variables: per client, its (slot, column, coefficient).
pub(crate) struct Assign {
    pub hosts: Vec<usize>,
    pub x: Vec<Vec<(usize, Col, f64)>>,
}

impl Assign {
    /// Adds `x[c,h]` for every slot where `coef(c, h)` is `Some`, and the
    /// one-host-per-client rows.
    pub fn new(
        model: &mut MipBuilder,
        rows: &mut Vec<Constraint>,
        inst: &SpdInstance,
        hosts: Vec<usize>,
        coef: impl Fn(usize, usize) -> Option<f64>,
    ) -> Self {
        let mut x = Vec::with_capacity(inst.clients());
        for c in 0..inst.clients() {
            let vars: Vec<(usize, Col, f64)> = (0..hosts.len())
                .filter_map(|h| {
                    let x = || format!("x[client {c}, server {}]", hosts[h]);
                    coef(c, hosts[h]).map(|a| (h, model.add_as(variable().binary(), x), a))
                })
                .collect();
            let sum: Expression = vars.iter().map(|v| v.1.var).sum();
            rows.push(model.row(constraint!(sum == 1.0), || format!("assign_client_{c}")));
            x.push(vars);
        }
        Assign { hosts, x }
    }

    /// The assignment in `res` (each client on its largest `x`).
    pub fn decode(&self, res: &MipResult, root: Option<usize>) -> Option<SpdSolution> {
        let assign = self
            .x
            .iter()
            .map(|vars| {
                vars.iter()
                    .max_by(|a, b| {
                        let (va, vb) = (res.value(a.1), res.value(b.1));
                        va.unwrap_or(0.0).total_cmp(&vb.unwrap_or(0.0))
                    })
                    .map(|v| self.hosts[v.0])
            })
            .collect::<Option<Vec<usize>>>()?;
        Some(SpdSolution { root, assign })
    }
}

pub(crate) fn settings(ctx: &Ctx) -> MipSettings {
    MipSettings {
        seed: ctx.opts.seed,
        ..MipSettings::within(&ctx.deadline, 1e-6)
    }
}

/// Turns a MIP result into an outcome; `fallback` is the heuristic incumbent.
pub(crate) fn outcome(
    res: MipResult,
    decoded: Option<SpdSolution>,
    fallback: SpdSolution,
) -> SpdOutcome {
    let status = match res.status {
        Status::Optimal if decoded.is_some() => Status::Optimal,
        Status::Optimal | Status::TimeLimit => Status::TimeLimit,
        Status::Infeasible => {
            return SpdOutcome::no_solution(
                "HiGHS reports the SPDVR model infeasible although the start is feasible",
            )
        }
        _ => {
            return SpdOutcome::failed(
                FailureReason::SolverError,
                format!("HiGHS failed: {}", res.message.unwrap_or_default()),
            )
        }
    };
    SpdOutcome {
        status,
        solution: Some(decoded.unwrap_or(fallback)),
        bound: res.bound.map(|b| b.max(0.0)),
        message: res.gap.map(|g| format!("HiGHS gap {g:.3e}")),
        reason: None,
        stop: res.stop,
        solver_status: res.model_status.map(str::to_string),
        stages: Vec::new(),
    }
}

/// Column values of a solution, for HiGHS's start: `set` fills them.
pub(crate) fn start_values(len: usize, set: impl FnOnce(&mut Vec<f64>)) -> Vec<f64> {
    let mut v = vec![0.0; len];
    set(&mut v);
    v
}

fn solve_cs(inst: &SpdInstance, start: &SpdSolution, ctx: &Ctx) -> SpdOutcome {
    let Some(r) = start.root else {
        return SpdOutcome::no_solution("a CS start needs a root");
    };
    let heur = chains(inst, start).unwrap_or_else(|| start.clone());
    let mu = inst.bound;
    let mut model = MipBuilder::for_run(&ctx.deadline);
    let mut rows = Vec::new();
    let path = |c: usize, s: usize| {
        let p = inst.cs_path(c, s, r);
        (p.is_finite() && within_bound(2.0 * p, mu)).then_some(p)
    };
    let x = Assign::new(&mut model, &mut rows, inst, host_list(inst, start), path);
    let u = model.add_as(variable().min(0.0).max(mu / 2.0), || {
        "u[longest path]".into()
    });
    let l = model.add_as(variable().min(0.0).max(mu / 2.0), || {
        "l[shortest path]".into()
    });
    for vars in &x.x {
        let p: Expression = vars.iter().map(|v| v.2 * v.1.var).sum();
        rows.push(constraint!(u.var >= p.clone()));
        rows.push(constraint!(l.var <= p));
    }
    let values = start_values(model.len(), |v| {
        let (mut lo, mut hi) = (f64::INFINITY, 0.0f64);
        for (c, vars) in x.x.iter().enumerate() {
            for &(h, col, p) in vars {
                if x.hosts[h] == heur.assign[c] {
                    v[col.idx] = 1.0;
                    lo = lo.min(p);
                    hi = hi.max(p);
                }
            }
        }
        v[u.idx] = hi;
        v[l.idx] = lo.min(hi);
    });
    let obj = 2.0 * u.var - 2.0 * l.var;
    let stage = Stage::new("variation", "delay variation 2(u - l) at the start's hosts");
    let res = minimise(model, obj, rows, Some(&values), &settings(ctx).stage(stage));
    let decoded = res.values.as_ref().and_then(|_| x.decode(&res, Some(r)));
    outcome(res, decoded, heur)
}

impl<'a> Engine<SpdvrRun<'a>> for ExactSpdvr {
    fn name(&self) -> &str {
        "exact"
    }

    fn solve(&self, run: &SpdvrRun<'a>, ctx: &Ctx) -> SpdOutcome {
        let (inst, start) = (run.inst, run.start);
        match inst.model {
            CommModel::Cs => solve_cs(inst, start, ctx),
            CommModel::P2p => p2p::solve_p2p(inst, start, ctx),
        }
    }
}
