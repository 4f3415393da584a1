//! The search's branching ([`super`], steps 4 and 5): which client to
//! branch on, the order of its values, and the cut a refuted branch makes
//! in its siblings' windows.

use super::bits::{clear, ones, Bits, Counts};
use super::bounds::PairBufs;
use super::last::LastBufs;
use super::spare::BoundBufs;
use super::{Search, State};
use crate::problems::spd::eval::Extremes;
use crate::problems::spd::exact::p2p::pair_q;
use rand::Rng;
use std::sync::Arc;

/// How many unassigned clients a preferred new server ([`Search::prefer`]:
/// the incumbent's hosts) counts beyond those its window holds, in the
/// order of branch values. At 200 × 1,000 f = 1.0 seed 2 the host stage
/// then finds 21 hosts (the optimum; the start has 22) at 56 s, where
/// without it 21 was undecided at 60 s; 10 found them at 57 s, 200 and
/// 1,000,000 (preferred servers always first) at 51 and 50 s, but those
/// two left f = 1.1 seed 2's 13 hosts unfound within the minute (found
/// by their decision in 18.5 s at 50; `docs/spd-scale.md`, twenty-ninth
/// round).
pub(crate) const PREFER_REACH: usize = 50;

impl Search<'_> {
    /// After the branch "client at position `p` of `s` on `s`" is refuted,
    /// the later branches of the same node need not let `s` reach that
    /// client's access: a solution there whose host `s` has a top `T >=
    /// a(c,s)` with `a(c,s) + T` within the limit would keep every pair
    /// when `c` moves onto `s` (`s`'s envelope does not grow, `c`'s old
    /// host's only shrinks), so it would be a solution of the refuted
    /// branch. When every top `s`'s window still allows passes that
    /// same-host test, the window is cut below `a(c,s)`. Sound only without
    /// a lower limit (a move may shrink an envelope); every cut is a top
    /// bound, which later moves of the same kind keep.
    pub(super) fn cap_refuted(&mut self, st: &mut State, s: usize, p: usize) {
        let (a, b) = st.win[s];
        if !self.cut || self.lim.lo > f64::NEG_INFINITY || b <= a {
            return;
        }
        let x = self.val(s, p);
        if !self
            .lim
            .hi_ok(pair_q(self.inst, s, x, s, self.val(s, b - 1)))
        {
            return;
        }
        st.win[s].1 = a + self.vals[s][a..b].partition_point(|&v| v < x);
        self.cuts += 1;
    }

    /// Whether the branch "the client at position `p` of `s` on `s`", with
    /// `s` not a host and one host left to open, dies at once: with it `k`
    /// hosts are open, and no other server is an option. The node's
    /// orphans (`orphans`, computed once per node: its unassigned clients no
    /// host's window holds, which stay orphans while the node's branches
    /// run) can then only go to `s`: the branch dies when one is outside
    /// `s`'s window, when their same-host pairs on `s` break the limits, or
    /// when some other unassigned client lies in none of the `k` hosts'
    /// windows narrowed against `s`'s envelope with them (as
    /// [`Search::place`] narrows them). The child would place the orphans
    /// by forced moves and find the same contradiction within its own node;
    /// this costs `O(k · (m/64 + log m) + n·m/64)` where the child costs a
    /// state's copy and every window's narrowing. `need` is scratch of one
    /// bitset.
    pub(super) fn last_host_fails(
        &self,
        st: &State,
        (s, p): (usize, usize),
        orphans: &mut Option<Bits>,
        (need, b): (&mut [u64], &mut LastBufs),
    ) -> bool {
        if !self.last_host || st.env[s].is_some() || st.hosts + 1 != self.k {
            return false;
        }
        let c = self.lists[s][p].0;
        let orphans = orphans.get_or_insert_with(|| self.orphans(st));
        let Some((lo, hi)) = self.with_orphans(st, s, c, orphans) else {
            return self.confirm_dies(st, s, p);
        };
        need.copy_from_slice(&st.open);
        clear(need, c);
        need.iter_mut()
            .zip(orphans.iter())
            .for_each(|(n, o)| *n &= !o);
        let fails = if self.last_forced {
            self.all_hosts_fail(st, (s, lo, hi), need, b)
        } else {
            self.left_in_no_window(st, &[s], &[(s, lo, hi)], need)
        };
        fails && self.confirm_dies(st, s, p)
    }

    /// Whether the branch "the client at position `p` of `s` on `s`", with
    /// `s` not a host and two hosts left to open, dies at once: its node
    /// would have one host left, and the clients in none of the open hosts'
    /// windows narrowed against `s`'s new envelope (the child's orphans, or
    /// some of them: its forced moves only narrow more) must all fit one
    /// other new server. The branch dies when no server's window, narrowed
    /// against `s`, holds them with their same-host pairs fitting (the
    /// child's [`Search::one_server_takes`], or its packing bound, would
    /// refute it in its own node). Only the servers whose window holds the
    /// one of them with fewest options are tried: `O(k · (m/64 + log m) +
    /// n + n' · (m/64 + log m))` for `n'` such servers; `need` and `spare`
    /// are scratch of one bitset each.
    pub(super) fn next_to_last_fails(
        &self,
        st: &State,
        (s, p): (usize, usize),
        (need, spare): (&mut [u64], &mut [u64]),
    ) -> bool {
        if !self.next_to_last || st.env[s].is_some() || st.hosts + 2 != self.k {
            return false;
        }
        let Some((_, x)) = self.left_by_opening(st, (s, p), need) else {
            return false;
        };
        let takes = |u: usize, spare: &mut [u64]| {
            let (a, b) = self.narrow(u, st.win[u], s, x, x);
            spare.copy_from_slice(need);
            if self.clear_window(u, (a, b), spare) {
                return false;
            }
            let mut e = Extremes::EMPTY;
            ones(need).for_each(|o| e.push(self.inst.access(o, u)));
            self.same_host_fits(u, &e)
        };
        // only servers holding one of them (the one with fewest options)
        let least = ones(&st.opt.least(need)).next();
        let Some(o) = least.or_else(|| ones(need).next()) else {
            return false;
        };
        let others = self.holding(st, o).map(|(u, _)| u);
        for u in others.filter(|&u| u != s && st.env[u].is_none()) {
            if takes(u, spare) {
                return false;
            }
        }
        self.confirm_dies(st, s, p)
    }

    /// Whether the branch "the client at position `p` of `s` on `s`", with
    /// `s` not a host and three hosts left to open, dies at once: its node
    /// would have two hosts left, and the clients in none of the open
    /// hosts' windows narrowed against `s`'s new envelope (its orphans, or
    /// some of them) must be covered by two other new servers. The branch
    /// dies when the two-server bound ([`Search::two_servers_take`]) made
    /// with `s` opened refutes that: its node would be built to die by the
    /// same bound or the packing bound (1.12 M of a hard refutation's 1.15 M
    /// nodes with two hosts left did). `need` is scratch of one bitset, `b` the bound's
    /// buffers; the cost is the bound's, where the node's is a state's copy,
    /// every window's narrowing and its option counts.
    pub(super) fn third_to_last_fails(
        &self,
        st: &State,
        (s, p): (usize, usize),
        need: &mut [u64],
        b: &mut PairBufs,
    ) -> bool {
        if !self.third_to_last || st.env[s].is_some() || st.hosts + 3 != self.k {
            return false;
        }
        let Some((c, x)) = self.left_by_opening(st, (s, p), need) else {
            return false;
        };
        let (takes, _) = self.two_servers_take(st, (need, Some((s, x, c))), &st.opt, b);
        !takes
    }

    /// Whether the branch "the client at position `p` of `s` on `s`", with
    /// `s` not a host and four or more hosts left to open, dies at once by
    /// its child's orphan packing: the packing of the clients left in no
    /// window by opening `s` ([`Search::left_by_opening`]), made with `s`
    /// a host, exceeds the room left, or is that room or one short of it
    /// and its check ([`Search::packing_fits`]) fails. The child's own
    /// packing starts from more orphans (its forced moves only narrow
    /// windows) and would refute it too, most often; this spares the
    /// child's state copy, narrowing of every window and option counts
    /// (orders the packing by the node's counts). `need` is scratch of one
    /// bitset, `b` the bounds' buffers.
    pub(super) fn opening_overpacks(
        &self,
        st: &State,
        (s, p): (usize, usize),
        need: &mut [u64],
        b: &mut BoundBufs,
    ) -> bool {
        if st.env[s].is_some() {
            return false;
        }
        let Some((c, x)) = self.left_by_opening(st, (s, p), need) else {
            return false;
        };
        let room = self.k.saturating_sub(st.hosts + 1);
        let opened = Some((s, x, c));
        self.packing(st, (need, &st.opt), opened, &mut b.packing);
        let picked = b.packing.picked.len();
        if picked > room {
            return true;
        }
        self.packing
            && room >= 3
            && picked + 1 >= room
            && !self.packing_fits(st, &mut b.packing, (picked < room, opened), &mut b.fit)
    }

    /// The branch "the client at position `p` of `s` on `s`" (`s` a new
    /// host): into `need`, the unassigned clients but that one which lie
    /// in none of the open hosts' windows and `s`'s own, each narrowed
    /// against `s`'s new envelope. That client and its access on `s` when
    /// some client is left (they need other new hosts), else `None`.
    fn left_by_opening(
        &self,
        st: &State,
        (s, p): (usize, usize),
        need: &mut [u64],
    ) -> Option<(usize, f64)> {
        let c = self.lists[s][p].0;
        let x = self.val(s, p);
        need.copy_from_slice(&st.open);
        clear(need, c);
        self.left_in_no_window(st, &[s], &[(s, x, x)], need)
            .then_some((c, x))
    }

    /// The extremes of the accesses on new host `s` of client `c` and the
    /// orphans (all of which must join it); `None` when one of them is
    /// outside `s`'s window or their same-host pairs break the limits.
    fn with_orphans(&self, st: &State, s: usize, c: usize, orphans: &[u64]) -> Option<(f64, f64)> {
        let mut e = Extremes::EMPTY;
        e.push(self.inst.access(c, s));
        for o in ones(orphans).filter(|&o| o != c) {
            self.pos(st, s, o)?;
            e.push(self.inst.access(o, s));
        }
        self.same_host_fits(s, &e).then_some((e.min1, e.max1))
    }

    /// Clears from `need` every client that a window of the open hosts and
    /// of the new hosts `fresh` holds, each window narrowed against the
    /// envelopes `envs` (server, least and largest access; as
    /// [`Search::place`] narrows them): true when some client is left (it
    /// would have no option with those hosts opened so). Stops early once
    /// `need` is empty.
    pub(super) fn left_in_no_window(
        &self,
        st: &State,
        fresh: &[usize],
        envs: &[(usize, f64, f64)],
        need: &mut [u64],
    ) -> bool {
        if need.iter().all(|&w| w == 0) {
            return false;
        }
        let hosts = (0..st.env.len()).filter(|&h| st.env[h].is_some());
        for h in hosts.chain(fresh.iter().copied()) {
            let (a, b) = envs.iter().fold(st.win[h], |win, &(t, lo, hi)| {
                self.narrow(h, win, t, lo, hi)
            });
            if a < b && !self.clear_window(h, (a, b), need) {
                return false;
            }
        }
        true
    }

    /// True; under test, first checks the claim against the child: it dies
    /// in its own node, after its forced moves without options for some
    /// client, or (with one host left) by its orphans, which no single new
    /// server takes (every search the tests run checks every refutation).
    fn confirm_dies(&self, st: &State, s: usize, p: usize) -> bool {
        #[cfg(test)]
        {
            let mut child = st.clone();
            self.put(&mut child, s, p);
            let mut scratch = vec![0u64; self.w];
            let dies = !self.propagate(&mut child, &mut scratch) || {
                let orphans = self.orphans(&child);
                child.hosts + 1 == self.k && !self.one_server_takes(&child, &orphans, &mut scratch)
            };
            assert!(
                dies,
                "a new host's branch was refuted that its node would not refute at once"
            );
        }
        #[cfg(not(test))]
        let _ = (st, s, p);
        true
    }

    /// The client to branch on: the orphan with fewest options, else the
    /// unassigned client with fewest options.
    pub(super) fn pick(&mut self, st: &State, orphans: &[u64], opt: &Counts) -> usize {
        let pool = if orphans.iter().any(|&x| x != 0) {
            orphans
        } else {
            &st.open[..]
        };
        let least = opt.least(pool);
        let mut tie = |c: usize| self.rng.as_mut().map_or(c as u64, |r| r.random::<u64>());
        ones(&least).map(|c| (tie(c), c)).min().map_or(0, |t| t.1)
    }

    /// Branch values for client `c`: hosts by least growth, then new servers
    /// by how many unassigned clients their window holds (plus
    /// [`PREFER_REACH`] on a preferred server).
    pub(super) fn values(
        &mut self,
        st: &State,
        c: usize,
        scratch: &mut [u64],
    ) -> Vec<(usize, usize)> {
        let mut hosts = Vec::new();
        let mut fresh = Vec::new();
        // (the list shared, as the loop draws from `self.rng`)
        let servers_of = Arc::clone(&self.servers_of);
        for &s in &servers_of[c] {
            let s = s as usize;
            let Some(p) = self.pos(st, s, c) else {
                continue;
            };
            match st.env[s] {
                Some((lo, hi)) => {
                    let x = self.val(s, p);
                    let below = if self.lim.lo > f64::NEG_INFINITY {
                        self.val(s, lo) - x
                    } else {
                        0.0
                    };
                    let grow = (x - self.val(s, hi)).max(below).max(0.0);
                    hosts.push((grow, s, p));
                }
                None if st.hosts < self.k => {
                    self.window_bits(s, st.win[s], scratch);
                    let reach = scratch
                        .iter()
                        .zip(&st.open)
                        .map(|(a, b)| (a & b).count_ones() as usize)
                        .sum::<usize>();
                    // restarts: reach counts up to 2x, a random reordering
                    let noise = self.rng.as_mut().map_or(1.0, |r| r.random_range(0.5..1.0));
                    let bonus = match &self.preferred {
                        Some(on) if on.get(s).copied().unwrap_or(false) => PREFER_REACH,
                        _ => 0,
                    };
                    fresh.push(((reach as f64 * noise) as usize + bonus, s, p));
                }
                None => {}
            }
        }
        // (the server breaks every tie: unstable sorts give the one order)
        hosts.sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        fresh.sort_unstable_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        hosts
            .into_iter()
            .map(|(_, s, p)| (s, p))
            .chain(fresh.into_iter().map(|(_, s, p)| (s, p)))
            .collect()
    }
}
