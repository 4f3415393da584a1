//! `host-ls` (beyond the paper): a P2P host-elimination local search. It
//! starts from each feasible solution of the paper's P2P heuristics
//! (`alg-m`, `spdp2p-h`, `zizo`; the best result wins) and repeatedly tries
//! to close a host, moving each of
//! its clients to another open host while the session delay stays within μ;
//! a closure that strands a client is undone. Hosts are tried fewest clients
//! first, passes repeat until no host closes. Then swaps: open a closed
//! server, close an open host, eliminate again; a swap is kept when the host
//! count drops, and swaps repeat until none does. `exact` starts from its
//! result.
//!
//! The check is incremental: in the P2P model the session delay is the
//! largest of `A_s + D(s,t) + A_t` over open hosts `s != t` (`A_s` = the
//! largest access on `s`) and of the two largest accesses on one host, so a
//! move is tested against the per-host top two accesses in `O(k)` for `k`
//! open hosts. One elimination pass costs `O(m · k²)`; at most `k` passes
//! close a host, so `O(m · k³)`. A swap pass tries `O(k · n)` swaps, each an
//! elimination, and each kept swap closes a host: `O(k² · n · m · k³)` in the
//! worst case, far less in practice. Every result is re-checked by the
//! evaluator.
//!
//! ```
//! use serverpick::problems::spd::host_ls::host_ls;
//! use serverpick::problems::spd::model::{seed001_fig1, CommModel};
//! let inst = seed001_fig1(CommModel::P2p, 110.0)?;
//! let sol = host_ls(&inst).expect("the figure's instance is feasible");
//! assert_eq!(sol.assign.len(), inst.clients());
//! # Ok::<(), serverpick::Error>(())
//! ```

use crate::core::engine::{Ctx, Engine};
use crate::core::{within_bound, SolveOptions};
use crate::problems::spd::algorithm_matching::AlgorithmMatching;
use crate::problems::spd::engines::{for_models, SpdOutcome};
use crate::problems::spd::eval::{evaluate_spd, SpdMetrics};
use crate::problems::spd::exact::p2p::pair_q;
use crate::problems::spd::model::{CommModel, SpdInstance, SpdSolution};
use crate::problems::spd::spdp2p_h::Spdp2pH;
use crate::problems::spd::zizo::Zizo;

/// `host-ls`.
pub struct HostLs;

/// Per open host: its clients' two largest accesses.
#[derive(Debug, Clone, Copy)]
struct Top2 {
    first: f64,
    second: f64,
}

impl Top2 {
    const EMPTY: Top2 = Top2 {
        first: f64::NEG_INFINITY,
        second: f64::NEG_INFINITY,
    };

    fn with(self, a: f64) -> Top2 {
        if a > self.first {
            Top2 {
                first: a,
                second: self.first,
            }
        } else if a > self.second {
            Top2 {
                first: self.first,
                second: a,
            }
        } else {
            self
        }
    }
}

/// The search state: the assignment and each host's top two accesses.
struct State<'a> {
    inst: &'a SpdInstance,
    assign: Vec<usize>,
    top: Vec<Top2>,
    open: Vec<bool>,
}

impl<'a> State<'a> {
    fn new(inst: &'a SpdInstance, assign: Vec<usize>) -> Self {
        let n = inst.servers();
        let mut st = State {
            inst,
            assign,
            top: vec![Top2::EMPTY; n],
            open: vec![false; n],
        };
        st.rebuild();
        st
    }

    fn rebuild(&mut self) {
        self.top.fill(Top2::EMPTY);
        self.open.fill(false);
        for (c, &s) in self.assign.iter().enumerate() {
            self.top[s] = self.top[s].with(self.inst.access(c, s));
            self.open[s] = true;
        }
    }

    /// Does host `t` with top accesses `tt` fit the bound against itself and
    /// every other open host except `skip`?
    fn fits(&self, t: usize, tt: Top2, skip: usize) -> bool {
        let mu = self.inst.bound;
        if tt.second.is_finite() && !within_bound(pair_q(self.inst, t, tt.first, t, tt.second), mu)
        {
            return false;
        }
        (0..self.open.len())
            .filter(|&s| self.open[s] && s != t && s != skip)
            .all(|s| within_bound(pair_q(self.inst, s, self.top[s].first, t, tt.first), mu))
    }

    /// Tries to close host `h`; on failure the state is unchanged.
    fn close(&mut self, h: usize) -> bool {
        let clients: Vec<usize> = (0..self.assign.len())
            .filter(|&c| self.assign[c] == h)
            .collect();
        let saved = (self.assign.clone(), self.top.clone());
        self.open[h] = false;
        for &c in &clients {
            let best = (0..self.open.len())
                .filter(|&t| self.open[t] && self.inst.access(c, t).is_finite())
                .filter_map(|t| {
                    let tt = self.top[t].with(self.inst.access(c, t));
                    self.fits(t, tt, h).then_some((tt.first, t))
                })
                .min_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
            match best {
                Some((_, t)) => {
                    self.top[t] = self.top[t].with(self.inst.access(c, t));
                    self.assign[c] = t;
                }
                None => {
                    (self.assign, self.top) = saved;
                    self.open[h] = true;
                    return false;
                }
            }
        }
        self.top[h] = Top2::EMPTY;
        true
    }
}

/// Closes hosts (fewest clients first) until none closes.
fn eliminate(st: &mut State) {
    loop {
        let mut hosts: Vec<(usize, usize)> = (0..st.open.len())
            .filter(|&s| st.open[s])
            .map(|s| (st.assign.iter().filter(|&&x| x == s).count(), s))
            .collect();
        if hosts.len() <= 1 {
            return;
        }
        hosts.sort_unstable();
        if !hosts.iter().any(|&(_, h)| st.close(h)) {
            return;
        }
    }
}

/// Open hosts (servers with clients).
fn host_count(st: &State) -> usize {
    let mut used = vec![false; st.open.len()];
    for &s in &st.assign {
        used[s] = true;
    }
    used.into_iter().filter(|&u| u).count()
}

/// One swap pass: for an open host `h` and a closed server `s`, open `s`,
/// close `h` and run the elimination again; the first swap that lowers the
/// host count is kept (true), every other is undone.
fn swap_pass(st: &mut State) -> bool {
    let before = host_count(st);
    let n = st.open.len();
    let open: Vec<usize> = (0..n).filter(|&h| st.open[h]).collect();
    let closed: Vec<usize> = (0..n).filter(|&s| !st.open[s]).collect();
    for &h in &open {
        for &s in &closed {
            let saved = (st.assign.clone(), st.top.clone(), st.open.clone());
            st.open[s] = true;
            st.top[s] = Top2::EMPTY;
            if st.close(h) {
                st.rebuild();
                eliminate(st);
                if host_count(st) < before {
                    return true;
                }
            }
            (st.assign, st.top, st.open) = saved;
        }
    }
    false
}

/// Elimination, then swaps while a swap lowers the host count.
fn improve(st: &mut State) {
    eliminate(st);
    while swap_pass(st) {}
}

/// The paper's P2P heuristics whose solutions `host-ls` starts from, in
/// the order it takes them.
pub(crate) const START_ENGINES: [&dyn Engine<SpdInstance>; 3] =
    [&AlgorithmMatching, &Spdp2pH, &Zizo];

/// The solutions of the paper's P2P heuristics ([`START_ENGINES`]).
fn starts(inst: &SpdInstance) -> Vec<SpdSolution> {
    let opts = SolveOptions::new(None, 0);
    let ctx = Ctx::new(&opts);
    START_ENGINES
        .iter()
        .filter_map(|e| e.solve(inst, &ctx).solution)
        .collect()
}

/// `host-ls` on a P2P instance: host elimination from each start, the
/// best result by the evaluator (fewest hosts, then delay, then
/// variation); `None` when no start heuristic finds a feasible solution.
pub fn host_ls(inst: &SpdInstance) -> Option<SpdSolution> {
    host_ls_from(inst, starts(inst))
}

/// [`host_ls`] from given starts (the solutions of [`START_ENGINES`], in
/// that order; the infeasible ones are skipped), for callers that ran
/// those heuristics already.
pub(crate) fn host_ls_from(inst: &SpdInstance, starts: Vec<SpdSolution>) -> Option<SpdSolution> {
    let mut best: Option<(SpdMetrics, SpdSolution)> = None;
    let feasible = starts
        .into_iter()
        .filter(|sol| evaluate_spd(inst, sol).is_feasible());
    for first in feasible {
        let mut st = State::new(inst, first.assign.clone());
        improve(&mut st);
        let sol = SpdSolution {
            root: None,
            assign: st.assign,
        };
        // the evaluator has the last word; every start is feasible
        for cand in [sol, first] {
            let ev = evaluate_spd(inst, &cand);
            if let (true, Some(m)) = (ev.is_feasible(), ev.metrics) {
                if best.as_ref().is_none_or(|b| m.better_than(&b.0)) {
                    best = Some((m, cand));
                }
            }
        }
    }
    best.map(|(_, sol)| sol)
}

impl Engine<SpdInstance> for HostLs {
    fn name(&self) -> &str {
        "host-ls"
    }
    fn applies(&self, inst: &SpdInstance) -> Result<(), String> {
        for_models(self.name(), &[CommModel::P2p], inst)
    }

    fn solve(&self, inst: &SpdInstance, _ctx: &Ctx) -> SpdOutcome {
        match host_ls(inst) {
            Some(sol) => SpdOutcome::found(sol),
            None => SpdOutcome::no_solution(
                "no start: alg-m, spdp2p-h and zizo all fail within the bound",
            ),
        }
    }
}
