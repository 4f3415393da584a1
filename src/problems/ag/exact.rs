//! `exact` and `exact-players`: the lexicographic MILP of problems.md §4 on
//! HiGHS, aggregated.
//!
//! Every AG goes whole to a server or to P2P; main-game players stay
//! (`exact`) or may move one by one (`exact-players`). Every server must end
//! at most at its target `⌊(1 − margin)·max_load⌋`. Stages: (1) players
//! sent to P2P, (2) players moved (P2P counts), (3) the largest server load;
//! each stage's optimum is fixed as a constraint of the next (integer
//! objectives, so HiGHS proves each with an absolute gap below 1).
//!
//! Why it is fast: items of one class (AGs of one size; main-game players
//! for `exact-players`) are interchangeable, and where an item comes from
//! matters only through whether it stays. So the MILP counts: `k[q][t]` =
//! items of class `q` ending on server `t`, `s[q][t] ≤ min(c[q][t],
//! k[q][t])` those of them already there (they stay), `p[q]` sent to P2P
//! (AG classes only). Loads `M_t + Σ_q z_q·k[q][t] ≤ target_t`, `Σ_t
//! k[q][t] + p[q] = |q|`; moved `= Σ_q z_q·(|q| − Σ_t s[q][t])`. That is
//! `Q·(2N + 1)` integers whatever the player count (Q ≤ 6 classes: 110 at
//! paper size, 1,100 at 100 servers). Any `k` is reachable from the current
//! placement (items of a class are interchangeable), so the counts are the
//! whole problem. Disaggregation per class: on each server its first
//! `s[q][t]` items (index order) stay; the others form a pool (server, then
//! index order) that fills the `k[q][t] − s[q][t]` free slots in server
//! order; what is left goes to P2P with `distributes(LL)`. Building and
//! disaggregating cost `O(P + Q·N)`.

use crate::core::{Ctx, Deadline, FailureReason, Outcome, Status};
use crate::lp::highs::{minimise, Col, MipBuilder, MipResult, MipSettings};
use crate::lp::model_out::Stage;
use crate::problems::ag::hybrid::{distributes, Criteria};
use crate::problems::ag::model::{AgInstance, AgSolution, Dest, P2pRoles, P2P};
use good_lp::{constraint, variable, Constraint, Expression};

/// One class of interchangeable items.
struct Class {
    /// Players per item.
    size: u64,
    /// Items per current server (AG indices or main-game player indices).
    items: Vec<Vec<usize>>,
    /// Whether the items are AGs (may go to P2P).
    is_ag: bool,
}

/// The aggregated data.
struct Agg {
    classes: Vec<Class>,
    /// Players that cannot move, per server (main game of `exact`).
    fixed: Vec<u64>,
    target: Vec<u64>,
}

/// The model's columns.
struct Cols {
    k: Vec<Vec<Col>>,
    s: Vec<Vec<Option<Col>>>,
    /// Stage 2's constant `Σ_q z_q·|q|`, kept out of the MILP objective
    /// (its optimum and bound are reported with it added back).
    offset: f64,
}

fn aggregate(inst: &AgInstance, players_move: bool) -> Agg {
    let n = inst.servers();
    let mut sizes: Vec<u64> = inst.members.iter().map(|m| m.len() as u64).collect();
    sizes.sort_unstable();
    sizes.dedup();
    let mut classes: Vec<Class> = sizes
        .iter()
        .map(|&size| Class {
            size,
            items: vec![Vec::new(); n],
            is_ag: true,
        })
        .collect();
    for (a, m) in inst.members.iter().enumerate() {
        let z = sizes.partition_point(|&s| s < m.len() as u64);
        classes[z].items[inst.ag_server(a)].push(a);
    }
    let mut main = Class {
        size: 1,
        items: vec![Vec::new(); n],
        is_ag: false,
    };
    for (p, &s) in inst.server.iter().enumerate() {
        if inst.ag[p].is_none() {
            main.items[s].push(p);
        }
    }
    let mut fixed = vec![0u64; n];
    if players_move {
        classes.push(main);
    } else {
        for (f, items) in main.items.iter().enumerate() {
            fixed[f] = items.len() as u64;
        }
    }
    Agg {
        classes,
        fixed,
        target: (0..n).map(|s| inst.target(s)).collect(),
    }
}

/// The stage expressions under construction.
struct Exprs {
    load: Vec<Expression>,
    p2p: Expression,
    moved: Expression,
    offset: f64,
    cons: Vec<Constraint>,
}

fn int(b: &mut MipBuilder, hi: u64, meaning: impl FnOnce() -> String) -> Col {
    b.add_as(variable().integer().min(0.0).max(hi as f64), meaning)
}

/// Class `q`'s columns `k[q][t]`, `s[q][t]` (and `p[q]`) and rows.
fn class_columns(q: &Class, b: &mut MipBuilder, e: &mut Exprs) -> (Vec<Col>, Vec<Option<Col>>) {
    let total: u64 = q.items.iter().map(|v| v.len() as u64).sum();
    let z = q.size as f64;
    let mut sum = Expression::from(0.0);
    if q.is_ag {
        let p = int(b, total, || format!("p[groups of {z}: sent to P2P]"));
        sum += p.var;
        e.p2p += z * p.var;
    }
    e.offset += z * total as f64;
    let (mut ks, mut ss) = (Vec::new(), Vec::new());
    for (t, (load, here)) in e.load.iter_mut().zip(&q.items).enumerate() {
        let k = int(b, total, || format!("k[groups of {z}, server {t}: placed]"));
        sum += k.var;
        *load += z * k.var;
        let s = (!here.is_empty()).then(|| {
            int(b, here.len() as u64, || {
                format!("s[groups of {z}, server {t}: stay]")
            })
        });
        if let Some(s) = s {
            let stay = constraint!(s.var <= k.var);
            e.cons
                .push(b.row(stay, || format!("stay_groups_of_{z}_server_{t}")));
            e.moved -= z * s.var;
        }
        ks.push(k);
        ss.push(s);
    }
    let all = constraint!(sum == total as f64);
    e.cons.push(b.row(all, || format!("place_groups_of_{z}")));
    (ks, ss)
}

/// The model with stage objective `stage` (1, 2, 3) and the optima of the
/// earlier stages as constraints.
fn build(
    g: &Agg,
    (stage, dl): (usize, &Deadline),
    fixed: &[f64],
) -> (MipBuilder, Cols, Expression, Vec<Constraint>) {
    let mut b = MipBuilder::for_run(dl);
    let mut e = Exprs {
        load: g
            .fixed
            .iter()
            .map(|&m| Expression::from(m as f64))
            .collect(),
        p2p: Expression::from(0.0),
        moved: Expression::from(0.0),
        offset: 0.0,
        cons: Vec::new(),
    };
    let (mut kc, mut sc) = (Vec::new(), Vec::new());
    for q in &g.classes {
        let (ks, ss) = class_columns(q, &mut b, &mut e);
        kc.push(ks);
        sc.push(ss);
    }
    let l = int(&mut b, g.target.iter().copied().max().unwrap_or(0), || {
        "l[largest load]".into()
    });
    let mut cons = e.cons;
    for (t, (lt, &target)) in e.load.into_iter().zip(&g.target).enumerate() {
        let under = constraint!(lt.clone() <= target as f64);
        cons.push(b.row(under, || format!("target_server_{t}")));
        cons.push(b.row(constraint!(lt <= l.var), || format!("largest_load_{t}")));
    }
    let stages = [e.p2p, e.moved, Expression::from(l.var)];
    for (k, v) in fixed.iter().enumerate() {
        let ex = stages[k].clone();
        cons.push(b.row(constraint!(ex <= *v), || format!("stage{}_optimum", k + 1)));
    }
    // stage 2's constant (Σ size·count: everyone moved) is dropped by
    // HiGHS; the sidecar keeps it as the offset
    let obj = match stage {
        2 => stages[1].clone() + e.offset,
        _ => stages[stage - 1].clone(),
    };
    let cols = Cols {
        k: kc,
        s: sc,
        offset: e.offset,
    };
    (b, cols, obj, cons)
}

/// Stage `stage`'s label for written models.
fn ag_stage(stage: usize) -> Stage {
    match stage {
        1 => Stage::new("stage1-p2p", "players sent to P2P (Σ size·p)"),
        2 => Stage::new("stage2-moved", "players moved (offset + objective)"),
        _ => Stage::new("stage3-load", "largest server load"),
    }
}

/// What the stages established.
struct Staged {
    values: Vec<f64>,
    cols: Cols,
    /// Proven optimum (or bound) per stage reached.
    optima: Vec<f64>,
    bounds: Vec<f64>,
    proven: usize,
    note: Option<String>,
}

// (the early outcome is returned once per run: boxing it buys nothing)
#[allow(clippy::result_large_err)]
fn run_stages(g: &Agg, ctx: &Ctx) -> Result<Staged, Outcome<AgSolution>> {
    let (mut out, mut optima, mut bounds) = (None::<Staged>, Vec::new(), Vec::new());
    let settings = || MipSettings {
        seed: ctx.opts.seed,
        ..MipSettings::within(&ctx.deadline, 0.999)
    };
    for stage in 1..=3 {
        let (b, cols, obj, cons) = build(g, (stage, &ctx.deadline), &optima);
        let res: MipResult = minimise(b, obj, cons, None, &settings().stage(ag_stage(stage)));
        let floor = if stage == 2 { -cols.offset } else { 0.0 };
        let bound = res.bound.map_or(floor, |v| (v - 1e-6).ceil().max(floor));
        match (res.status, res.values, res.objective) {
            (Status::Optimal, Some(values), Some(o)) => {
                optima.push(o.round());
                bounds.push(o.round());
                let counted = if stage == 2 {
                    stage_3_by_counting(g, &cols, &values)
                } else {
                    None
                };
                let proven = if counted.is_some() { 3 } else { stage };
                if let Some(l) = counted {
                    optima.push(l);
                    bounds.push(l);
                }
                out = Some(Staged {
                    values,
                    cols,
                    optima: optima.clone(),
                    bounds: bounds.clone(),
                    proven,
                    note: None,
                });
                if proven == 3 {
                    break;
                }
            }
            (Status::TimeLimit, values, _) => {
                bounds.push(bound);
                let reached = Staged {
                    values: values.unwrap_or_default(),
                    cols,
                    optima,
                    bounds,
                    proven: stage - 1,
                    note: None,
                };
                return stopped_in(stage, reached, out);
            }
            (status, _, _) => {
                let msg = res.message.unwrap_or_else(|| format!("HiGHS: {status}"));
                return Err(Outcome::failed(
                    FailureReason::SolverError,
                    format!("stage {stage}: {msg}"),
                ));
            }
        }
    }
    out.ok_or_else(|| Outcome::no_solution("no stage ran"))
}

/// What a run stopped by the time limit in `stage` has: the stage's own
/// incumbent (`reached`, when it has values), else the last finished
/// stage's (`done`) with every bound so far.
#[allow(clippy::result_large_err)]
fn stopped_in(
    stage: usize,
    mut reached: Staged,
    done: Option<Staged>,
) -> Result<Staged, Outcome<AgSolution>> {
    let note = format!(
        "time limit in stage {stage}; stages 1..{} proven",
        stage - 1
    );
    if !reached.values.is_empty() {
        reached.note = Some(note);
        return Ok(reached);
    }
    match done {
        Some(mut s) => {
            s.bounds = reached.bounds;
            s.note = Some(note);
            Ok(s)
        }
        None => Err(Outcome::without_solution(Status::TimeLimit, note)),
    }
}

/// Stage 3 without a MILP when stage 2's solution already reaches the
/// counting bound `max(⌈cluster players / N⌉, max_t fixed_t)` on the largest
/// load (the cluster's players are fixed by stage 1).
fn stage_3_by_counting(g: &Agg, cols: &Cols, values: &[f64]) -> Option<f64> {
    let n = g.target.len();
    let val = |c: Col| values.get(c.idx).map_or(0.0, |x| x.round());
    let loads: Vec<f64> = (0..n)
        .map(|t| {
            g.fixed[t] as f64
                + g.classes
                    .iter()
                    .enumerate()
                    .map(|(q, c)| c.size as f64 * val(cols.k[q][t]))
                    .sum::<f64>()
        })
        .collect();
    let total: f64 = loads.iter().sum();
    let lb = (total / n as f64)
        .ceil()
        .max(g.fixed.iter().copied().max().unwrap_or(0) as f64);
    let max = loads.iter().copied().fold(0.0, f64::max);
    (max <= lb).then_some(max)
}

/// Concrete destinations from the counts (module docs).
fn disaggregate(inst: &AgInstance, g: &Agg, cols: &Cols, v: &[f64]) -> AgSolution {
    let n = inst.servers();
    let val = |c: Col| v.get(c.idx).map_or(0, |x| x.round().max(0.0) as usize);
    let mut assign: Vec<Option<Dest>> =
        inst.server.iter().map(|&s| Some(Dest::Server(s))).collect();
    let mut p2p = Vec::new();
    for (qi, q) in g.classes.iter().enumerate() {
        let mut pool = Vec::new();
        let mut slots = Vec::new();
        for t in 0..n {
            let stay = cols.s[qi][t].map_or(0, val).min(q.items[t].len());
            pool.extend_from_slice(&q.items[t][stay..]);
            slots.extend(std::iter::repeat_n(
                t,
                val(cols.k[qi][t]).saturating_sub(stay),
            ));
        }
        for (i, &item) in pool.iter().enumerate() {
            let d = slots.get(i).map_or(P2P, |&t| Dest::Server(t));
            if !q.is_ag {
                assign[item] = Some(if d == P2P {
                    Dest::Server(inst.server[item])
                } else {
                    d
                });
                continue;
            }
            for &p in &inst.members[item] {
                assign[p] = Some(d);
            }
            if d == P2P {
                let (s, rs) = distributes(inst, item, Criteria::Ll);
                p2p.push(P2pRoles { ag: item, s, rs });
            }
        }
    }
    p2p.sort_by_key(|r| r.ag);
    AgSolution { assign, p2p }
}

/// `exact` (`players_move = false`) or `exact-players` (`true`).
/// Cost: three MILPs of `Q·(2N + 1) + 1` integers; `O(P)` around them.
pub fn exact(inst: &AgInstance, players_move: bool, ctx: &Ctx) -> Outcome<AgSolution> {
    let g = aggregate(inst, players_move);
    let n = inst.servers();
    let main: u64 = inst.ag.iter().filter(|a| a.is_none()).count() as u64;
    if !players_move {
        if let Some(s) = (0..n).find(|&s| g.fixed[s] > g.target[s]) {
            let msg = format!(
                "server {s}: its {} main-game players alone exceed its target {}",
                g.fixed[s], g.target[s]
            );
            return Outcome::without_solution(Status::Infeasible, msg);
        }
    } else if main > g.target.iter().sum::<u64>() {
        let msg = "the main-game players alone exceed the servers' total target";
        return Outcome::without_solution(Status::Infeasible, msg);
    }
    let st = match run_stages(&g, ctx) {
        Ok(s) => s,
        Err(o) => return o,
    };
    let sol = disaggregate(inst, &g, &st.cols, &st.values);
    let w = inst.players() as f64 + 1.0;
    let off = st.cols.offset;
    let bound = match st.bounds.as_slice() {
        [b1] => b1 * w,
        [b1, b2, ..] => b1 * w + b2 + off,
        [] => 0.0,
    };
    let status = if st.proven == 3 {
        Status::Optimal
    } else if st.note.is_some() {
        Status::TimeLimit
    } else {
        Status::Feasible
    };
    let msg = match &st.note {
        Some(n) => n.clone(),
        None => format!(
            "every stage proven: p2p {}, moved {}, max load {}",
            st.optima[0],
            st.optima[1] + off,
            st.optima[2]
        ),
    };
    Outcome::claim(status, sol, Some(bound)).with_message(msg)
}
