//! The variation stage split by its *critical pair* ([`super`]).
//!
//! The variation stage runs at the least delay `D*`, once the delay stage
//! has proven that no assignment with `k` hosts keeps every pair below
//! `D*`. So every assignment the stage searches has a pair of exactly
//! `D*`, and its largest pair is one of its hosts' extremes: the tops of
//! two hosts `s != t` (`hi_s + D(s,t) + hi_t = D*`), or the two largest
//! accesses of one host. Naming that pair by its list positions, with the
//! last position among equal accesses as the top, gives a *configuration*
//! `(s, p, t, q)`: client `p` of `s` and client `q` of `t` placed, and
//! `s`'s and `t`'s windows ending at `p` and `q` (for one host, `q < p`
//! and its window ends at `p`). Every assignment of the stage fits one
//! configuration, so the stage is refuted when each configuration is; and
//! a configuration's root is narrow: two hosts open with their tops fixed,
//! every other server's window cut against both.
//!
//! The configurations are pieces of one split search ([`super::split`]),
//! after each other (a configuration's own tree is split as any piece's).
//! The descent ([`super::descent`]) runs across them: a solution in one
//! raises the lower limit for all that follow.
//!
//! More than [`MAX_CRITICAL`] configurations (latencies on a coarse grid
//! tie often) and the stage's search runs whole instead, as before this
//! split.
//!
//! Measured (160 × 800 P2P, f = 1.2, two threads): the variation stage
//! 33.1 s → 1.2 s at seed 1 (383–769 pairs, 13,000–20,000 nodes), more
//! than 68 s → 2.1 s at seed 3 (`docs/spd-scale.md`, seventeenth round).
//!
//! Complexity: the configurations are found with two pointers per server
//! pair, `O(n² · m)` pair sums for `n` servers and `m` clients (fewer:
//! only the allowed lists); then the search's nodes over all of them.

use super::{Search, State};
use crate::problems::spd::exact::p2p::pair_q;

/// Most configurations the split takes (a piece and its key take a few
/// hundred bytes until it is searched: about 30 MB at this many).
pub(super) const MAX_CRITICAL: usize = 100_000;

/// A critical pair: client `p` of server `s` and client `q` of server `t`
/// (list positions), their pair the largest; for `s == t`, `q < p`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Critical {
    pub s: u32,
    pub p: u32,
    pub t: u32,
    pub q: u32,
}

impl Search<'_> {
    /// Every configuration whose pair sums to exactly `d` (with the
    /// evaluator's arithmetic) over the allowed lists, by server pair;
    /// `None` when there are more than `most` (then the stage's search
    /// runs whole), or when the deadline has passed.
    pub(super) fn critical_pairs(&self, d: f64, most: usize) -> Option<Vec<Critical>> {
        let n = self.lists.len();
        let mut out = Vec::new();
        for s in 0..n {
            if self.deadline.expired() {
                return None;
            }
            for t in s..n {
                self.critical_between(s, t, d, &mut out);
                if out.len() > most {
                    return None;
                }
            }
        }
        Some(out)
    }

    /// [`Search::critical_pairs`] of servers `s <= t`: the pair ascends
    /// with either access, so as `s`'s access grows the run of `t`'s
    /// positions summing to `d` moves down its list (two pointers, `O(|s| +
    /// |t|)` pair sums).
    fn critical_between(&self, s: usize, t: usize, d: f64, out: &mut Vec<Critical>) {
        let vals = &self.vals[t];
        // `t`'s positions `[from, to)` sum to exactly `d` with `x`
        let (mut from, mut to) = (vals.len(), vals.len());
        for (p, &(c, x)) in self.lists[s].iter().enumerate() {
            let q_of = |i: usize| pair_q(self.inst, s, x, t, vals[i]);
            while to > 0 && q_of(to - 1) > d {
                to -= 1;
            }
            from = from.min(to);
            while from > 0 && q_of(from - 1) >= d {
                from -= 1;
            }
            // one host: its second lies below its top
            let end = if s == t { to.min(p) } else { to };
            for q in from..end {
                if s != t && self.lists[t][q].0 == c {
                    continue;
                }
                out.push(Critical {
                    s: s as u32,
                    p: p as u32,
                    t: t as u32,
                    q: q as u32,
                });
            }
        }
    }

    /// The root of configuration `cfg`: both clients placed, the two tops
    /// fixed; `None` when a client of the pair lies outside its server's
    /// window (narrowed under the limits, and by the first client placed),
    /// so that no solution has this configuration.
    pub(super) fn critical_root(&self, cfg: Critical) -> Option<State> {
        let (s, p, t, q) = (
            cfg.s as usize,
            cfg.p as usize,
            cfg.t as usize,
            cfg.q as usize,
        );
        let mut st = self.root_state();
        let hosts = if s == t { 1 } else { 2 };
        let inside = |st: &State, u: usize, i: usize| (st.win[u].0..st.win[u].1).contains(&i);
        if self.k < hosts || !inside(&st, s, p) {
            return None;
        }
        self.place(&mut st, s, p);
        // (no free client is placed yet: `q`'s client is still open)
        if !inside(&st, t, q) {
            return None;
        }
        self.place(&mut st, t, q);
        // (a placed client may leave its own window: a host's window holds
        // the clients that may join it)
        let tops: &[(usize, usize)] = if s == t { &[(s, p)] } else { &[(s, p), (t, q)] };
        for &(u, top) in tops {
            let (a, b) = st.win[u];
            st.win[u] = (a, b.min(top + 1).max(a));
        }
        for &(u, _) in tops {
            self.free_on(&mut st, u);
        }
        Some(st)
    }
}
