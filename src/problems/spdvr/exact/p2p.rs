//! The P2P SPDVR MILP (model in [`super`]'s docs).

use crate::core::Ctx;
use crate::core::Status;
use crate::lp::highs::{minimise, Col, MipBuilder};
use crate::lp::model_out::Stage;
use crate::problems::spd::engines::SpdOutcome;
use crate::problems::spd::eval::evaluate_spd;
use crate::problems::spd::model::{SpdInstance, SpdSolution};
use crate::problems::spdvr::exact::{outcome, settings, start_values, Assign};
use crate::problems::spdvr::p2p_vr_ls::{p2p_vr_ls, ROUNDS};
use crate::problems::spdvr::spdvrp2p_h::host_list;
use good_lp::{constraint, variable, Constraint, Expression};

/// Host-level columns: used flag, largest and least access.
struct HostCols {
    y: Col,
    big: Col,
    small: Col,
}

/// Big-M constants: `Ā` (largest access), `max D`, μ.
struct Consts {
    amax: f64,
    dmax: f64,
    mu: f64,
}

/// One prefix chain on a host: `(client, x column, access, prefix column)`.
type Chain = Vec<(usize, Col, f64, Col)>;

/// The columns a start needs besides `x`: hosts, chains, `(U, L)`.
type Parts<'a> = (&'a [HostCols], &'a [(Chain, Chain)], (Col, Col));

/// Adds the within-host prefix rows for slot `h`; returns (desc, asc) chains.
fn host_rows(
    model: &mut MipBuilder,
    rows: &mut Vec<Constraint>,
    x: &Assign,
    h: usize,
    (u, l): (Col, Col),
    k: &Consts,
) -> (Chain, Chain) {
    let mut members: Vec<(usize, Col, f64)> = Vec::new();
    for (c, vars) in x.x.iter().enumerate() {
        members.extend(vars.iter().filter(|v| v.0 == h).map(|v| (c, v.1, v.2)));
    }
    members.sort_by(|a, b| b.2.total_cmp(&a.2).then(a.0.cmp(&b.0)));
    let top = k.amax + k.dmax;
    let mut desc: Chain = Vec::new();
    for (p, &(c, xc, a)) in members.iter().enumerate() {
        if let Some(prev) = desc.last() {
            rows.push(constraint!(
                u.var >= a + prev.3.var - 2.0 * k.amax + 2.0 * k.amax * xc.var
            ));
        }
        if p + 1 < members.len() {
            let w = model.add_as(variable().min(0.0).max(k.amax), || {
                format!("w[host slot {h}, chain {p}]")
            });
            rows.push(constraint!(w.var >= a * xc.var));
            if let Some(prev) = desc.last() {
                rows.push(constraint!(w.var >= prev.3.var));
            }
            desc.push((c, xc, a, w));
        }
    }
    let mut asc: Chain = Vec::new();
    for (p, &(c, xc, a)) in members.iter().rev().enumerate() {
        if let Some(prev) = asc.last() {
            rows.push(constraint!(l.var <= a + prev.3.var + k.mu - k.mu * xc.var));
        }
        if p + 1 < members.len() {
            let q = model.add_as(variable().min(0.0).max(top), || {
                format!("q[host slot {h}, chain {p}]")
            });
            rows.push(constraint!(q.var <= a + top - top * xc.var));
            if let Some(prev) = asc.last() {
                rows.push(constraint!(q.var <= prev.3.var));
            }
            asc.push((c, xc, a, q));
        }
    }
    (desc, asc)
}

/// Host columns and the between-hosts rows.
fn cross_rows(
    model: &mut MipBuilder,
    rows: &mut Vec<Constraint>,
    inst: &SpdInstance,
    x: &Assign,
    (u, l): (Col, Col),
    k: &Consts,
) -> Vec<HostCols> {
    let hosts: Vec<HostCols> = (0..x.hosts.len())
        .map(|h| HostCols {
            y: model.add_as(variable().binary(), || format!("y[host slot {h}]")),
            big: model.add_as(variable().min(0.0).max(k.amax), || {
                format!("big[host slot {h}]")
            }),
            small: model.add_as(variable().min(0.0).max(k.amax), || {
                format!("small[host slot {h}]")
            }),
        })
        .collect();
    for vars in &x.x {
        for &(h, xc, a) in vars {
            let hc = &hosts[h];
            rows.push(constraint!(hc.y.var >= xc.var));
            rows.push(constraint!(hc.big.var >= a * xc.var));
            rows.push(constraint!(hc.small.var <= a + k.amax - k.amax * xc.var));
        }
    }
    let b = 2.0 * k.amax + k.dmax;
    for (h, hc) in hosts.iter().enumerate() {
        for (g, gc) in hosts.iter().enumerate().skip(h + 1) {
            let d = inst.network.dist(x.hosts[h], x.hosts[g]);
            let both: Expression = 2.0 - hc.y.var - gc.y.var;
            rows.push(constraint!(
                u.var >= hc.big.var + d + gc.big.var - b * both.clone()
            ));
            rows.push(constraint!(
                l.var <= hc.small.var + d + gc.small.var + k.mu * both
            ));
        }
    }
    hosts
}

/// The model's column values for the solution `sol` (HiGHS start).
fn start_for(
    len: usize,
    inst: &SpdInstance,
    x: &Assign,
    sol: &SpdSolution,
    parts: Parts<'_>,
    k: &Consts,
) -> Vec<f64> {
    let (hosts, chains, (u, l)) = parts;
    start_values(len, |v| {
        let top = k.amax + k.dmax;
        let on = |c: usize, h: usize| x.hosts[h] == sol.assign[c];
        for (h, hc) in hosts.iter().enumerate() {
            v[hc.small.idx] = k.amax;
            let mut w = 0.0f64;
            for &(c, _, a, col) in &chains[h].0 {
                if on(c, h) {
                    w = w.max(a);
                }
                v[col.idx] = w;
            }
            let mut q = top;
            for &(c, _, a, col) in &chains[h].1 {
                if on(c, h) {
                    q = q.min(a);
                }
                v[col.idx] = q;
            }
        }
        for (c, vars) in x.x.iter().enumerate() {
            for &(h, xc, a) in vars {
                if on(c, h) {
                    v[xc.idx] = 1.0;
                    let hc = &hosts[h];
                    v[hc.y.idx] = 1.0;
                    v[hc.big.idx] = v[hc.big.idx].max(a);
                    v[hc.small.idx] = v[hc.small.idx].min(a);
                }
            }
        }
        if let Some(m) = evaluate_spd(inst, sol).metrics {
            v[u.idx] = m.delay;
            v[l.idx] = m.delay - m.variation;
        }
    })
}

/// Exact P2P SPDVR.
pub(crate) fn solve_p2p(inst: &SpdInstance, start: &SpdSolution, ctx: &Ctx) -> SpdOutcome {
    let heur = p2p_vr_ls(inst, start, ctx.opts.seed, ROUNDS).unwrap_or_else(|| start.clone());
    if inst.clients() < 2 {
        return SpdOutcome::claim(Status::Optimal, heur, Some(0.0))
            .with_message("fewer than two clients: no pair, variation 0");
    }
    let mut model = MipBuilder::for_run(&ctx.deadline);
    let mut rows = Vec::new();
    let access = |c: usize, s: usize| Some(inst.access(c, s)).filter(|a| a.is_finite());
    let x = Assign::new(&mut model, &mut rows, inst, host_list(inst, start), access);
    let mut k = Consts {
        amax: 0.0,
        dmax: 0.0,
        mu: inst.bound,
    };
    for vars in &x.x {
        k.amax = vars.iter().fold(k.amax, |acc, v| acc.max(v.2));
    }
    for &s in &x.hosts {
        for &t in &x.hosts {
            k.dmax = k.dmax.max(inst.network.dist(s, t));
        }
    }
    // μ serves as a big-M: no pair delay exceeds 2·amax + dmax, so a larger
    // μ (up to 1e308 in a file) is clamped to what the data need (fuzz3 D7:
    // HiGHS refused a model with μ = 1e15).
    k.mu = k.mu.min(2.0 * k.amax + k.dmax);
    let u = model.add_as(variable().min(0.0).max(k.mu), || {
        "u[largest pair delay]".into()
    });
    let l = model.add_as(variable().min(0.0).max(k.mu), || {
        "l[least pair delay]".into()
    });
    rows.push(constraint!(l.var <= u.var));
    let hosts = cross_rows(&mut model, &mut rows, inst, &x, (u, l), &k);
    let chains: Vec<(Chain, Chain)> = (0..x.hosts.len())
        .map(|h| host_rows(&mut model, &mut rows, &x, h, (u, l), &k))
        .collect();
    let values = start_for(model.len(), inst, &x, &heur, (&hosts, &chains, (u, l)), &k);
    let stage = Stage::new("variation", "delay variation u - l at the start's hosts");
    let res = minimise(
        model,
        u.var - l.var,
        rows,
        Some(&values),
        &settings(ctx).stage(stage),
    );
    let decoded = res.values.as_ref().and_then(|_| x.decode(&res, None));
    outcome(res, decoded, heur)
}
