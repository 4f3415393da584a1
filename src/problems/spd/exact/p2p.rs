//! `exact` for the P2P model: the level-indicator MILP (model and stages in
//! [`super`]'s docs). The searches of the lexicographic stages are
//! in [`super::p2p_lex`].

use crate::core::{within_bound, Status};
use crate::lp::highs::MipSettings;
use crate::lp::highs::{minimise, Col, MipBuilder};
use crate::lp::model_out::Stage;
use crate::problems::spd::eval::p2p_pair_range;
use crate::problems::spd::exact::{p2p_support, Deadline};
use crate::problems::spd::model::{SpdInstance, SpdSolution};
use good_lp::{constraint, variable, Constraint, Expression};

/// Which pair delays a model allows: `q` meets μ, `q <= hi` and `q >= lo`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Limits {
    /// μ (with the evaluator's tolerance).
    pub mu: f64,
    /// Upper threshold (`INFINITY`: none).
    pub hi: f64,
    /// Lower threshold (`NEG_INFINITY`: none).
    pub lo: f64,
}

impl Limits {
    /// Only μ.
    pub(crate) fn bound(mu: f64) -> Self {
        Limits {
            mu,
            hi: f64::INFINITY,
            lo: f64::NEG_INFINITY,
        }
    }

    pub(crate) fn hi_ok(&self, q: f64) -> bool {
        within_bound(q, self.mu) && q <= self.hi
    }

    pub(crate) fn lo_ok(&self, q: f64) -> bool {
        q >= self.lo
    }

    pub(crate) fn fits(&self, q: f64) -> bool {
        self.hi_ok(q) && self.lo_ok(q)
    }

    /// Does `q` break this side's threshold (`+1`: upper, `-1`: lower)?
    fn conflict(&self, sign: f64, q: f64) -> bool {
        if sign > 0.0 {
            !self.hi_ok(q)
        } else {
            !self.lo_ok(q)
        }
    }
}

/// Pair delay of a client with access `x` on `s` and one with access `y` on
/// `t`, summed in the evaluator's order (lower-indexed host first).
#[inline]
pub(crate) fn pair_q(inst: &SpdInstance, s: usize, x: f64, t: usize, y: f64) -> f64 {
    let d = if s == t {
        0.0
    } else {
        inst.network.dist(s.min(t), s.max(t))
    };
    pair_q_over(d, s, x, t, y)
}

/// [`pair_q`] with the distance `d = D(min(s,t), max(s,t))` already read
/// (unused when `s == t`): the one place the evaluator's order is written.
#[inline]
pub(crate) fn pair_q_over(d: f64, s: usize, x: f64, t: usize, y: f64) -> f64 {
    match s.cmp(&t) {
        std::cmp::Ordering::Equal => x + y,
        std::cmp::Ordering::Less => x + d + y,
        std::cmp::Ordering::Greater => y + d + x,
    }
}

/// Smallest pair delay of a P2P solution, the evaluator's own
/// ([`p2p_pair_range`]; `+∞` for a single client).
pub(crate) fn min_pair(inst: &SpdInstance, sol: &SpdSolution) -> f64 {
    p2p_pair_range(inst, sol).0
}

/// For every server, its allowed clients: `allowed[s]` = `(client, access)`
/// sorted by access. A client may use `s` when, for every other client, some
/// server gives a pair that fits. `Err` names a client with no server.
pub(crate) fn allowed_pairs(
    inst: &SpdInstance,
    lim: &Limits,
) -> Result<Vec<Vec<(usize, f64)>>, usize> {
    let mut allowed = if lim.lo == f64::NEG_INFINITY {
        allowed_by_threshold(inst, lim)?
    } else {
        allowed_directly(inst, lim)?
    };
    for list in &mut allowed {
        list.sort_by(|x, y| x.1.total_cmp(&y.1).then(x.0.cmp(&y.0)));
    }
    Ok(allowed)
}

/// Can a client with access `a` on `s` pair with client `j` on some server?
fn reaches(inst: &SpdInstance, lim: &Limits, s: usize, a: f64, j: usize) -> bool {
    std::iter::once(s).chain(0..inst.servers()).any(|t| {
        let b = inst.access(j, t);
        b.is_finite() && lim.fits(pair_q(inst, s, a, t, b))
    })
}

/// [`allowed_pairs`] by its definition: every (client, server) pair against
/// every other client. `O(m² n²)`; used when a lower limit makes the test
/// non-monotone in the access.
fn allowed_directly(inst: &SpdInstance, lim: &Limits) -> Result<Vec<Vec<(usize, f64)>>, usize> {
    let (n, m) = (inst.servers(), inst.clients());
    let mut allowed = vec![Vec::new(); n];
    for c in 0..m {
        let mut any = false;
        for (s, list) in allowed.iter_mut().enumerate() {
            let a = inst.access(c, s);
            if !a.is_finite() {
                continue;
            }
            if (0..m)
                .filter(|&j| j != c)
                .all(|j| reaches(inst, lim, s, a, j))
            {
                list.push((c, a));
                any = true;
            }
        }
        if !any {
            return Err(c);
        }
    }
    Ok(allowed)
}

/// [`allowed_pairs`] without a lower limit: pair delays grow with the access
/// (IEEE addition is monotone), so for each server `s` and client `j` the
/// accesses that reach `j` are a prefix of `s`'s clients sorted by access,
/// and a client is allowed when its place is inside every other client's
/// prefix: one round of [`p2p_support::round`] from every reachable pair
/// (the servers `t` of `j` with nearly the least `D(s,t) + a(j,t)` give the
/// prefix, found by binary search). Same answer as [`allowed_directly`] in
/// `O(n² · m + n · m · log m)` instead of `O(m² n²)`.
pub(crate) fn allowed_by_threshold(
    inst: &SpdInstance,
    lim: &Limits,
) -> Result<Vec<Vec<(usize, f64)>>, usize> {
    let (n, m) = (inst.servers(), inst.clients());
    let mut all: Vec<Vec<(usize, f64)>> = (0..n)
        .map(|s| {
            let mut order: Vec<(usize, f64)> = (0..m)
                .map(|c| (c, inst.access(c, s)))
                .filter(|p| p.1.is_finite())
                .collect();
            order.sort_by(|x, y| x.1.total_cmp(&y.1).then(x.0.cmp(&y.0)));
            order
        })
        .collect();
    p2p_support::round(inst, lim, &mut all)?;
    Ok(all)
}

/// A column's meaning, to build start vectors.
#[derive(Clone, Copy)]
enum Kind {
    X(usize, usize),
    /// side, server, level: some client at key level `>= k` uses the server.
    Z(usize, usize, usize),
    /// side, server, level: some non-big client at key level `>= k`.
    W(usize, usize, usize),
}

/// One side's levels on one server: access values in key order.
struct Levels {
    /// Access latency per level (key = sign · value ascending).
    vals: Vec<f64>,
    /// Level of each allowed client, parallel to `allowed[s]`.
    lev: Vec<usize>,
    /// First big level (`vals.len()` when none).
    big_from: usize,
    z: Vec<Col>,
    w: Vec<Col>,
}

/// When the run writes its models: the level-indicator MILP minimising
/// the host count at the instance's bound, written and not solved, as the
/// reference formulation of stage 1 (the engine decides host counts by the
/// constraint search, or by this MILP only on instances the search
/// declines).
pub(crate) fn write_reference(inst: &SpdInstance, dl: &Deadline) {
    let Some(io) = dl.io().filter(|io| io.model_out.is_some()) else {
        return;
    };
    let mut io = (**io).clone();
    if let Some(m) = &mut io.model_out {
        m.write_only = true;
    }
    let dl = dl.clone().with_io(io);
    let Ok(model) = P2pModel::new(inst, Limits::bound(inst.bound), &dl) else {
        return;
    };
    let stage = Stage::new("reference-p2p-hosts", "host count at the instance's bound").reference(
        "the engine decides P2P host counts by a constraint search (this MILP only on \
         instances the search declines); this MILP has the same optimum",
    );
    let hosts = model.hosts_expr();
    let _ = minimise(
        model.b,
        hosts,
        model.cons,
        None,
        &MipSettings::within(&dl, 0.999).stage(stage),
    );
}

/// A P2P MILP under construction.
pub(crate) struct P2pModel<'a> {
    inst: &'a SpdInstance,
    lim: Limits,
    allowed: Vec<Vec<(usize, f64)>>,
    b: MipBuilder,
    cons: Vec<Constraint>,
    kinds: Vec<Kind>,
    /// `x[s][i]`: column of `allowed[s][i]`.
    x: Vec<Vec<Col>>,
    /// Per side, per server.
    sides: Vec<(f64, Vec<Levels>)>,
}

impl<'a> P2pModel<'a> {
    /// The model for `lim`, with the upper side and (when `lim.lo` is set)
    /// the lower side. `Err(c)`: client `c` can use no server.
    /// (`dl`: the run, whose settings say whether columns are named.)
    pub(crate) fn new(inst: &'a SpdInstance, lim: Limits, dl: &Deadline) -> Result<Self, usize> {
        let allowed = allowed_pairs(inst, &lim)?;
        let mut model = P2pModel {
            inst,
            lim,
            allowed,
            b: MipBuilder::for_run(dl),
            cons: Vec::new(),
            kinds: Vec::new(),
            x: Vec::new(),
            sides: Vec::new(),
        };
        model.add_assignment();
        model.add_side(1.0);
        if lim.lo.is_finite() {
            model.add_side(-1.0);
            for s in 0..model.allowed.len() {
                if let (Some(a), Some(b)) =
                    (model.sides[0].1[s].z.first(), model.sides[1].1[s].z.first())
                {
                    let (a, b) = (a.var, b.var);
                    model.cons.push(constraint!(a == b));
                }
            }
        }
        Ok(model)
    }

    fn col(&mut self, kind: Kind) -> Col {
        self.kinds.push(kind);
        self.b.add_as(variable().binary(), || match kind {
            Kind::X(c, s) => format!("x[client {c}, server {s}]"),
            Kind::Z(d, s, k) => format!("z[side {d}, server {s}, level {k}]"),
            Kind::W(d, s, k) => format!("w[side {d}, server {s}, level {k}]"),
        })
    }

    fn add_assignment(&mut self) {
        let m = self.inst.clients();
        let mut per_client: Vec<Vec<good_lp::Variable>> = vec![Vec::new(); m];
        for s in 0..self.allowed.len() {
            let mut cols = Vec::with_capacity(self.allowed[s].len());
            for i in 0..self.allowed[s].len() {
                let c = self.allowed[s][i].0;
                let col = self.col(Kind::X(c, s));
                per_client[c].push(col.var);
                cols.push(col);
            }
            self.x.push(cols);
        }
        for (c, vars) in per_client.into_iter().enumerate() {
            let e: Expression = vars.into_iter().sum();
            let row = self
                .b
                .row(constraint!(e == 1.0), || format!("assign_client_{c}"));
            self.cons.push(row);
        }
    }

    /// Level indicators, cross-host staircases and same-host rules of one side.
    fn add_side(&mut self, sign: f64) {
        let side = self.sides.len();
        let mut per_server = Vec::with_capacity(self.allowed.len());
        for s in 0..self.allowed.len() {
            per_server.push(self.levels(side, sign, s));
        }
        self.sides.push((sign, per_server));
        let n = self.allowed.len();
        for s in 0..n {
            for t in s + 1..n {
                self.cross(side, s, t);
            }
        }
    }

    /// Levels of server `s` on one side, with their z/w columns and the
    /// links `x <= z`, `x <= w`, monotonicity and the same-host rules.
    fn levels(&mut self, side: usize, sign: f64, s: usize) -> Levels {
        let list = self.allowed[s].clone();
        let mut order: Vec<usize> = (0..list.len()).collect();
        order.sort_by(|&i, &j| (sign * list[i].1).total_cmp(&(sign * list[j].1)));
        let mut vals: Vec<f64> = Vec::new();
        let mut lev = vec![0; list.len()];
        for &i in &order {
            if vals.last() != Some(&list[i].1) {
                vals.push(list[i].1);
            }
            lev[i] = vals.len() - 1;
        }
        let lim = self.lim;
        let big_from = vals
            .iter()
            .position(|&v| lim.conflict(sign, v + v))
            .unwrap_or(vals.len());
        let z: Vec<Col> = (0..vals.len())
            .map(|k| self.col(Kind::Z(side, s, k)))
            .collect();
        self.chain(&z);
        for (i, &l) in lev.iter().enumerate() {
            let (x, zl) = (self.x[s][i].var, z[l].var);
            self.cons.push(constraint!(x <= zl));
        }
        if let Some(z0) = z.first() {
            let used: Expression = self.x[s].iter().map(|c| c.var).sum();
            let z0 = z0.var;
            self.cons.push(constraint!(z0 <= used));
        }
        let mut levels = Levels {
            vals,
            lev,
            big_from,
            z,
            w: Vec::new(),
        };
        self.same_host(side, sign, s, &mut levels);
        levels
    }

    /// `z_{k+1} <= z_k`.
    fn chain(&mut self, cols: &[Col]) {
        for pair in cols.windows(2) {
            let (a, b) = (pair[0].var, pair[1].var);
            self.cons.push(constraint!(b <= a));
        }
    }

    /// At most one client at a big level; a big level excludes the non-big
    /// levels it cannot pair with (through `w`).
    fn same_host(&mut self, side: usize, sign: f64, s: usize, lv: &mut Levels) {
        let bigs: Vec<good_lp::Variable> = (0..lv.lev.len())
            .filter(|&i| lv.lev[i] >= lv.big_from)
            .map(|i| self.x[s][i].var)
            .collect();
        if bigs.len() >= 2 {
            let e: Expression = bigs.into_iter().sum();
            self.cons.push(constraint!(e <= 1.0));
        }
        let lim = self.lim;
        let mut stairs = Vec::new(); // (big level, first conflicting non-big level)
        let mut l = lv.big_from;
        for k in lv.big_from..lv.vals.len() {
            while l > 0 && lim.conflict(sign, lv.vals[k] + lv.vals[l - 1]) {
                l -= 1;
            }
            if l < lv.big_from && stairs.last().is_none_or(|&(_, p)| l < p) {
                stairs.push((k, l));
            }
        }
        if stairs.is_empty() {
            return;
        }
        lv.w = (0..lv.big_from)
            .map(|k| self.col(Kind::W(side, s, k)))
            .collect();
        let w = lv.w.clone();
        self.chain(&w);
        for i in 0..lv.lev.len() {
            if lv.lev[i] < lv.big_from {
                let (x, wl) = (self.x[s][i].var, w[lv.lev[i]].var);
                self.cons.push(constraint!(x <= wl));
            }
        }
        for (k, l) in stairs {
            let (zk, wl) = (lv.z[k].var, w[l].var);
            self.cons.push(constraint!(zk + wl <= 1.0));
        }
    }

    /// Staircase of minimal conflicting level pairs between `s < t`.
    fn cross(&mut self, side: usize, s: usize, t: usize) {
        let (sign, levels) = &self.sides[side];
        let (ls, lt) = (&levels[s], &levels[t]);
        let mut stairs = Vec::new();
        let mut l = lt.vals.len();
        let mut prev = lt.vals.len();
        for k in 0..ls.vals.len() {
            while l > 0
                && self
                    .lim
                    .conflict(*sign, pair_q(self.inst, s, ls.vals[k], t, lt.vals[l - 1]))
            {
                l -= 1;
            }
            if l < prev {
                stairs.push((ls.z[k].var, lt.z[l].var));
                prev = l;
            }
        }
        for (a, b) in stairs {
            self.cons.push(constraint!(a + b <= 1.0));
        }
    }

    /// The host indicators `z_s0` (upper side).
    fn hosts_expr(&self) -> Expression {
        self.sides[0]
            .1
            .iter()
            .filter_map(|l| l.z.first().map(|c| c.var))
            .sum()
    }

    /// The column vector of an assignment (`None` when it uses a pair the
    /// model excludes).
    fn start(&self, sol: &SpdSolution) -> Option<Vec<f64>> {
        let mut pos = vec![None; sol.assign.len()];
        for (s, list) in self.allowed.iter().enumerate() {
            for (i, &(c, _)) in list.iter().enumerate() {
                if sol.assign.get(c) == Some(&s) {
                    pos[c] = Some(i);
                }
            }
        }
        let pos: Vec<usize> = pos.into_iter().collect::<Option<_>>()?;
        // highest level and highest non-big level per side and server
        let top = |side: usize, s: usize, non_big: bool| -> Option<usize> {
            let lv = &self.sides[side].1[s];
            (0..sol.assign.len())
                .filter(|&c| sol.assign[c] == s)
                .map(|c| lv.lev[pos[c]])
                .filter(|&l| !non_big || l < lv.big_from)
                .max()
        };
        let v = self.kinds.iter().map(|k| match *k {
            Kind::X(c, s) => f64::from(u8::from(sol.assign[c] == s)),
            Kind::Z(side, s, k) => f64::from(u8::from(top(side, s, false).is_some_and(|t| k <= t))),
            Kind::W(side, s, k) => f64::from(u8::from(top(side, s, true).is_some_and(|t| k <= t))),
        });
        Some(v.collect())
    }

    /// The model's label: the host count, or a test at `cap` hosts of the
    /// limits (`mu`, `hi`, `lo`).
    fn stage(&self, cap: Option<usize>) -> Stage {
        let l = &self.lim;
        let limits = format!("pair delays within mu {}, hi {}, lo {}", l.mu, l.hi, l.lo);
        match cap {
            None => Stage::new("p2p-hosts", format!("host count, {limits}")),
            Some(k) => Stage::new(
                format!("p2p-test-k{k}"),
                format!("host count (a test at {k} hosts), {limits}"),
            ),
        }
    }

    /// Solves: minimise the host count (`abs_gap` 0.999, proving it) or, with
    /// `first_feasible`, stop at the first solution within `cap`.
    pub(crate) fn solve(
        mut self,
        cap: Option<usize>,
        first_feasible: bool,
        start: Option<&SpdSolution>,
        dl: &Deadline,
    ) -> ModelAnswer {
        let hosts = self.hosts_expr();
        if let Some(k) = cap {
            self.cons.push(constraint!(hosts.clone() <= k as f64));
        }
        let start = start.and_then(|s| self.start(s));
        let gap = if first_feasible { 1e9 } else { 0.999 };
        let settings = MipSettings::within(dl, gap).stage(self.stage(cap));
        let res = minimise(self.b, hosts, self.cons, start.as_deref(), &settings);
        let m = self.inst.clients();
        let sol = res
            .values
            .as_ref()
            .and_then(|v| extract(m, &self.allowed, &self.x, v));
        ModelAnswer {
            status: res.status,
            solution: sol,
            bound: res.bound,
            message: res.message,
        }
    }
}

/// What one P2P MILP said.
pub(crate) struct ModelAnswer {
    /// HiGHS's status, honestly mapped.
    pub status: Status,
    /// The incumbent's assignment, if any.
    pub solution: Option<SpdSolution>,
    /// Proven lower bound on the host count (meaningful when minimising).
    pub bound: Option<f64>,
    /// HiGHS's message.
    pub message: Option<String>,
}

fn extract(
    m: usize,
    allowed: &[Vec<(usize, f64)>],
    x: &[Vec<Col>],
    v: &[f64],
) -> Option<SpdSolution> {
    let mut assign = vec![None; m];
    for (s, list) in allowed.iter().enumerate() {
        for (i, &(c, _)) in list.iter().enumerate() {
            if v.get(x[s][i].idx).is_some_and(|&val| val > 0.5) {
                assign[c] = Some(s);
            }
        }
    }
    Some(SpdSolution {
        root: None,
        assign: assign.into_iter().collect::<Option<_>>()?,
    })
}

#[cfg(test)]
#[path = "p2p_tests.rs"]
pub(crate) mod tests;
