//! `exact` and `exact-players`: the lexicographic MILP of problems.md §4 on
//! HiGHS, aggregated.
//!
//! Every AG goes whole to a server or to P2P; main-game players stay
//! (`exact`) or may move one by one (`exact-players`). Every server must end
//! at most at its target `⌊(1 − margin)·max_load⌋`. Stages: (1) players
//! sent to P2P, (2) players moved (P2P counts), (3) the largest server load;
//! each stage's optimum is fixed as a constraint of the next.
//!
//! Why it is fast: AGs of one size on one server are interchangeable, so
//! the MILP counts them: `x[z][f][t]` = AGs of size `z` moved from `f` to
//! `t` (`t = f`: stay), `p[z][f]` to P2P, `y[f][t]` main-game players
//! (`exact-players`). With `Z` distinct sizes and `N` servers that is
//! `Z·N·(N+1)` integers (550 at paper size, whatever the player count):
//! loads `M_t + Σ z·x[z][f][t] ≤ target_t`, `Σ_t x[z][f][t] + p[z][f] =
//! c[z][f]`. The concrete AGs are then taken in index order per `(z, f)`:
//! the first stay, the next go to the destinations in server order, the
//! rest to P2P (P2P AGs get `distributes(LL)`). Building and
//! disaggregating cost `O(P + Z·N²)`.

use crate::core::{FailureReason, Outcome, SolveOptions, Status};
use crate::lp::highs::{minimise, Col, MipBuilder, MipResult, MipSettings};
use crate::problems::ag::hybrid::{distributes, Criteria};
use crate::problems::ag::model::{AgInstance, AgSolution, Dest, P2pRoles, P2P};
use good_lp::{constraint, variable, Constraint, Expression};
use std::time::Instant;

/// The aggregated data.
struct Agg {
    sizes: Vec<u64>,
    /// `count[z][f]`.
    count: Vec<Vec<u64>>,
    /// Main-game players per server.
    main: Vec<u64>,
    target: Vec<u64>,
    players_move: bool,
}

/// The model's columns.
struct Cols {
    x: Vec<Vec<Vec<Option<Col>>>>,
    y: Vec<Vec<Option<Col>>>,
}

fn aggregate(inst: &AgInstance, players_move: bool) -> Agg {
    let n = inst.servers();
    let mut sizes: Vec<u64> = inst.members.iter().map(|m| m.len() as u64).collect();
    sizes.sort_unstable();
    sizes.dedup();
    let mut count = vec![vec![0u64; n]; sizes.len()];
    for (a, m) in inst.members.iter().enumerate() {
        let z = sizes.partition_point(|&s| s < m.len() as u64);
        count[z][inst.ag_server(a)] += 1;
    }
    let mut main = vec![0u64; n];
    for (p, &s) in inst.server.iter().enumerate() {
        main[s] += u64::from(inst.ag[p].is_none());
    }
    Agg {
        sizes,
        count,
        main,
        target: (0..n).map(|s| inst.target(s)).collect(),
        players_move,
    }
}

/// The model with stage objective `stage` (1, 2, 3) and the optima of the
/// earlier stages as constraints.
fn build(g: &Agg, stage: usize, fixed: &[f64]) -> (MipBuilder, Cols, Expression, Vec<Constraint>) {
    let n = g.main.len();
    let mut b = MipBuilder::new();
    let int = |b: &mut MipBuilder, hi: u64| b.add(variable().integer().min(0.0).max(hi as f64));
    let mut load: Vec<Expression> = (0..n).map(|_| Expression::from(0.0)).collect();
    let (mut p2p, mut moved) = (Expression::from(0.0), Expression::from(0.0));
    let mut cons = Vec::new();
    let mut x = vec![vec![vec![None; n]; n]; g.sizes.len()];
    for (z, &size) in g.sizes.iter().enumerate() {
        for f in 0..n {
            let c = g.count[z][f];
            if c == 0 {
                continue;
            }
            let pc = int(&mut b, c);
            let mut sum = Expression::from(pc.var);
            p2p += size as f64 * pc.var;
            for t in 0..n {
                let xc = int(&mut b, c);
                sum += xc.var;
                load[t] += size as f64 * xc.var;
                if t != f {
                    moved += size as f64 * xc.var;
                }
                x[z][f][t] = Some(xc);
            }
            cons.push(constraint!(sum == c as f64));
        }
    }
    let y = main_columns(g, &mut b, &mut load, &mut moved, &mut cons);
    moved += p2p.clone();
    let l = int(&mut b, g.target.iter().copied().max().unwrap_or(0));
    for t in 0..n {
        let lt = load[t].clone();
        cons.push(constraint!(lt.clone() <= g.target[t] as f64));
        cons.push(constraint!(lt <= l.var));
    }
    let stages = [p2p, moved, Expression::from(l.var)];
    for (k, v) in fixed.iter().enumerate() {
        let e = stages[k].clone();
        cons.push(constraint!(e <= *v));
    }
    let obj = stages[stage - 1].clone();
    (b, Cols { x, y }, obj, cons)
}

/// Main-game columns: fixed loads (`exact`) or `y[f][t]` (`exact-players`).
fn main_columns(
    g: &Agg,
    b: &mut MipBuilder,
    load: &mut [Expression],
    moved: &mut Expression,
    cons: &mut Vec<Constraint>,
) -> Vec<Vec<Option<Col>>> {
    let n = g.main.len();
    let mut y = vec![vec![None; n]; n];
    for f in 0..n {
        if !g.players_move {
            load[f] += g.main[f] as f64;
            continue;
        }
        if g.main[f] == 0 {
            continue;
        }
        let mut sum = Expression::from(0.0);
        for t in 0..n {
            let c = b.add(variable().integer().min(0.0).max(g.main[f] as f64));
            sum += c.var;
            load[t] += c.var;
            if t != f {
                *moved += c.var;
            }
            y[f][t] = Some(c);
        }
        cons.push(constraint!(sum == g.main[f] as f64));
    }
    y
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

fn run_stages(g: &Agg, opts: &SolveOptions) -> Result<Staged, Outcome<AgSolution>> {
    let began = Instant::now();
    let mut out: Option<Staged> = None;
    let mut optima: Vec<f64> = Vec::new();
    let mut bounds: Vec<f64> = Vec::new();
    for stage in 1..=3 {
        let left = opts.time_limit.map(|t| (t - began.elapsed().as_secs_f64()).max(0.0));
        let settings = MipSettings {
            time_limit: left,
            abs_gap: 0.999,
            seed: opts.seed,
            ..MipSettings::default()
        };
        let (b, cols, obj, cons) = build(g, stage, &optima);
        let res: MipResult = minimise(b, obj, cons, None, &settings);
        let bound = res.bound.map_or(0.0, |v| (v - 1e-6).ceil().max(0.0));
        match (res.status, res.values, res.objective) {
            (Status::Optimal, Some(values), Some(o)) => {
                optima.push(o.round());
                bounds.push(o.round());
                out = Some(Staged { values, cols, optima: optima.clone(), bounds: bounds.clone(), proven: stage, note: None });
            }
            (Status::TimeLimit, values, _) => {
                let note = format!("time limit in stage {stage}; stages 1..{} proven", stage - 1);
                bounds.push(bound);
                return match (values, out) {
                    (Some(values), _) => Ok(Staged { values, cols, optima, bounds, proven: stage - 1, note: Some(note) }),
                    (None, Some(mut s)) => {
                        s.bounds = bounds;
                        s.note = Some(note);
                        Ok(s)
                    }
                    (None, None) => Err(Outcome::without_solution(Status::TimeLimit, note)),
                };
            }
            (status, _, _) => {
                let msg = res.message.unwrap_or_else(|| format!("HiGHS: {status}"));
                return Err(Outcome::failed(FailureReason::SolverError, format!("stage {stage}: {msg}")));
            }
        }
    }
    out.ok_or_else(|| Outcome::no_solution("no stage ran"))
}

/// Concrete destinations from the counts (module docs).
fn disaggregate(inst: &AgInstance, g: &Agg, cols: &Cols, v: &[f64]) -> AgSolution {
    let n = inst.servers();
    let val = |c: &Option<Col>| c.map_or(0, |c| v.get(c.idx).map_or(0, |x| x.round().max(0.0) as u64));
    let mut assign: Vec<Option<Dest>> = inst.server.iter().map(|&s| Some(Dest::Server(s))).collect();
    let mut groups = vec![vec![Vec::new(); n]; g.sizes.len()];
    for (a, m) in inst.members.iter().enumerate() {
        let z = g.sizes.partition_point(|&s| s < m.len() as u64);
        groups[z][inst.ag_server(a)].push(a);
    }
    let mut p2p = Vec::new();
    for (z, row) in groups.iter().enumerate() {
        for (f, ags) in row.iter().enumerate() {
            let order = std::iter::once(f).chain((0..n).filter(|&t| t != f));
            let mut dests: Vec<Dest> = Vec::with_capacity(ags.len());
            for t in order {
                let k = val(&cols.x[z][f][t]) as usize;
                dests.extend(std::iter::repeat_n(Dest::Server(t), k));
            }
            for (i, &a) in ags.iter().enumerate() {
                let d = dests.get(i).copied().unwrap_or(P2P);
                for &p in &inst.members[a] {
                    assign[p] = Some(d);
                }
                if d == P2P {
                    let (s, rs) = distributes(inst, a, Criteria::Ll);
                    p2p.push(P2pRoles { ag: a, s, rs });
                }
            }
        }
    }
    if g.players_move {
        move_main(inst, cols, &val, &mut assign);
    }
    AgSolution { assign, p2p }
}

fn move_main(inst: &AgInstance, cols: &Cols, val: &dyn Fn(&Option<Col>) -> u64, assign: &mut [Option<Dest>]) {
    let n = inst.servers();
    let mut main: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (p, &s) in inst.server.iter().enumerate() {
        if inst.ag[p].is_none() {
            main[s].push(p);
        }
    }
    for (f, players) in main.iter().enumerate() {
        let order = std::iter::once(f).chain((0..n).filter(|&t| t != f));
        let dests: Vec<usize> = order.flat_map(|t| std::iter::repeat_n(t, val(&cols.y[f][t]) as usize)).collect();
        for (i, &p) in players.iter().enumerate() {
            assign[p] = Some(Dest::Server(dests.get(i).copied().unwrap_or(f)));
        }
    }
}

/// `exact` (`players_move = false`) or `exact-players` (`true`).
/// Cost: three MILPs of `Z·N·(N+1)` (+ `N²`) integers; `O(P)` around them.
pub fn exact(inst: &AgInstance, players_move: bool, opts: &SolveOptions) -> Outcome<AgSolution> {
    let g = aggregate(inst, players_move);
    let n = inst.servers();
    if !players_move {
        if let Some(s) = (0..n).find(|&s| g.main[s] > g.target[s]) {
            let msg = format!(
                "server {s}: its {} main-game players alone exceed its target {}",
                g.main[s], g.target[s]
            );
            return Outcome::without_solution(Status::Infeasible, msg);
        }
    } else if g.main.iter().sum::<u64>() > g.target.iter().sum::<u64>() {
        let msg = "the main-game players alone exceed the servers' total target";
        return Outcome::without_solution(Status::Infeasible, msg);
    }
    let st = match run_stages(&g, opts) {
        Ok(s) => s,
        Err(o) => return o,
    };
    let sol = disaggregate(inst, &g, &st.cols, &st.values);
    let w = inst.players() as f64 + 1.0;
    let bound = match st.bounds.as_slice() {
        [b1] => b1 * w,
        [b1, b2, ..] => b1 * w + b2,
        [] => 0.0,
    };
    let status = if st.proven == 3 { Status::Optimal } else if st.note.is_some() { Status::TimeLimit } else { Status::Feasible };
    let msg = match &st.note {
        Some(n) => n.clone(),
        None => format!("every stage proven: p2p {}, moved {}, max load {}", st.optima[0], st.optima[1], st.optima[2]),
    };
    Outcome::claim(status, sol, Some(bound)).with_message(msg)
}
