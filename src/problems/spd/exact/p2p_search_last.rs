//! The forced moves of a branch that opens the last host, run on the `k`
//! hosts' windows alone, before the branch's node is built
//! ([`Search::all_hosts_fail`], for [`Search::last_host_fails`]).
//!
//! With all `k` hosts open no other server is an option, so the node of
//! such a branch only places its forced clients (those one host's window
//! holds) and narrows every window as their envelopes grow, until some
//! client is left in no window (most such nodes die so: on a hard
//! refutation, 6.7 million of 6.8 million) or none is forced. The same
//! moves on `k` windows spare the node's state copy, its narrowing of
//! every server's window and its option counts over them.

use super::bits::{clear, count_twice, ones};
use super::{Search, State};

/// [`Search::all_hosts_fail`]'s buffers, reused from branch to branch.
#[derive(Default)]
pub(super) struct LastBufs {
    /// Per host: the server, its window, and its envelope's least and
    /// largest access.
    hosts: Vec<(usize, (usize, usize), f64, f64)>,
    /// Per host, its window's clients (`w` words each).
    bits: Vec<u64>,
    /// The clients some window holds, two or more hold, only one holds.
    any: Vec<u64>,
    more: Vec<u64>,
    single: Vec<u64>,
}

impl Search<'_> {
    /// With new host `s` (envelope `lo..=hi`, its client and the orphans
    /// on it) the last one: do the forced moves over the `k` hosts'
    /// windows leave some client of `need` (the unassigned ones but those
    /// on `s`) in no window? Each host's window is first narrowed against
    /// `s`'s envelope; then, round by round, every client one window holds
    /// joins that host, and when its envelope grows every window narrows
    /// against it (as [`Search::place`] narrows them). A necessary
    /// condition: `true` only when the branch has no solution. `O(r·k·(m/64
    /// + log m) + f·k·log m)` for `r` rounds and `f` forced clients that
    /// grow an envelope. `need` is consumed.
    pub(super) fn all_hosts_fail(
        &self,
        st: &State,
        (s, lo, hi): (usize, f64, f64),
        need: &mut [u64],
        b: &mut LastBufs,
    ) -> bool {
        self.last_hosts(st, (s, lo, hi), &mut b.hosts);
        // the first round's misses first, stopping once every client is
        // held (most branches die or live there; then the rounds)
        b.single.clear();
        b.single.extend_from_slice(need);
        let held = b
            .hosts
            .iter()
            .any(|&(h, win, _, _)| !self.clear_window(h, win, &mut b.single));
        if !held {
            return true;
        }
        let (k, w) = (b.hosts.len(), self.w);
        for v in [&mut b.bits, &mut b.any, &mut b.more, &mut b.single] {
            v.clear();
        }
        b.bits.resize(k * w, 0);
        for v in [&mut b.any, &mut b.more, &mut b.single] {
            v.resize(w, 0);
        }
        for round in 0.. {
            if need.iter().all(|&x| x == 0) {
                return false;
            }
            if let Some(fails) = self.forced_round(round, need, b) {
                return fails;
            }
        }
        false
    }

    /// The `k` hosts with `s` opened (envelope `lo..=hi`): each server,
    /// its window narrowed against `s`'s envelope, and its envelope.
    fn last_hosts(
        &self,
        st: &State,
        (s, lo, hi): (usize, f64, f64),
        hosts: &mut Vec<(usize, (usize, usize), f64, f64)>,
    ) {
        hosts.clear();
        for h in (0..st.env.len()).filter(|&h| st.env[h].is_some() || h == s) {
            let (l, u) = match st.env[h] {
                Some((a, z)) if h != s => (self.val(h, a), self.val(h, z)),
                _ => (lo, hi),
            };
            hosts.push((h, self.narrow(h, st.win[h], s, lo, hi), l, u));
        }
    }

    /// One round of [`Search::all_hosts_fail`]: every client of `need` only
    /// one window holds joins that host. `Some(true)`: some client is left
    /// in no window (refuted); `Some(false)`: none is forced (the rounds
    /// end); `None`: clients moved (`need` loses them), go on.
    fn forced_round(&self, round: usize, need: &mut [u64], b: &mut LastBufs) -> Option<bool> {
        let w = self.w;
        b.any.fill(0);
        b.more.fill(0);
        for (j, &(h, win, _, _)) in b.hosts.iter().enumerate() {
            let bits = &mut b.bits[j * w..(j + 1) * w];
            self.window_bits(h, win, bits);
            count_twice(&mut b.any, &mut b.more, bits);
        }
        let mut forced = false;
        for (((o, n), a), m) in b
            .single
            .iter_mut()
            .zip(need.iter())
            .zip(&b.any)
            .zip(&b.more)
        {
            if n & !a != 0 {
                self.count_forced_refuted(round);
                return Some(true);
            }
            *o = n & !m;
            forced |= *o != 0;
        }
        if !forced {
            return Some(false);
        }
        for c in ones(&b.single) {
            if !self.force_onto(c, &mut b.hosts) {
                self.count_forced_refuted(1);
                return Some(true);
            }
            clear(need, c);
        }
        None
    }

    /// Counts a refutation past the first round (the tests' measure).
    fn count_forced_refuted(&self, round: usize) {
        #[cfg(test)]
        if round > 0 {
            let c = &self.last_forced_refuted;
            c.set(c.get() + 1);
        }
        #[cfg(not(test))]
        let _ = round;
    }

    /// Places forced client `c` on the host whose window holds it (false:
    /// none does any more, an earlier move narrowed it away); when that
    /// host's envelope grows, every window narrows against it.
    fn force_onto(&self, c: usize, hosts: &mut [(usize, (usize, usize), f64, f64)]) -> bool {
        let n = self.inst.servers();
        let at = &self.at[c * n..(c + 1) * n];
        let Some(j) = hosts.iter().position(|&(h, (a, b), _, _)| {
            let p = at[h] as usize;
            a <= p && p < b
        }) else {
            return false;
        };
        let (h, _, l, u) = hosts[j];
        let x = self.val(h, at[h] as usize);
        if x >= l && x <= u {
            return true;
        }
        let (l, u) = (l.min(x), u.max(x));
        hosts[j].2 = l;
        hosts[j].3 = u;
        for e in hosts.iter_mut() {
            e.1 = self.narrow(e.0, e.1, h, l, u);
        }
        true
    }
}
