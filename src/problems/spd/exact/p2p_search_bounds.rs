//! The search's pruning bounds on the new hosts orphans need ([`super`],
//! step 3).

use super::bits::{clear, has, ones, Bits, Counts};
use super::{Search, State};
use crate::problems::spd::eval::Extremes;
use crate::problems::spd::exact::p2p::pair_q;

/// A server of a pair and the orphans its window holds.
type Side<'b> = (usize, &'b [u64]);

/// A branch's new host: the server, its client's access and the client,
/// for the two-server bound made before the branch's node
/// ([`Search::third_to_last_fails`]): that server is taken as open with
/// that client, and every other window is narrowed against it.
pub(super) type Opening = Option<(usize, f64, usize)>;

/// Most pairs [`Search::two_servers_take`] refuses by their narrowing
/// ([`Search::pair_leaves_none`]) before it lets the node through: on a
/// hard refutation a node has about one pair that gets that far, but
/// where windows are wide (200 × 1,000 at f = 1.3) most pairs do, and
/// trying every one made `host-search`'s 40,000 nodes half as slow again.
const NARROWED_PAIRS: u32 = 16;

/// [`Search::two_servers_take`]'s buffers, reused from node to node.
#[derive(Default)]
pub(super) struct PairBufs {
    /// The servers holding the first orphan.
    firsts: Vec<usize>,
    /// Per second orphan, its servers as a run of `servers`.
    seconds: Vec<(usize, usize, usize)>,
    servers: Vec<usize>,
    /// Per server, its orphans' index in `parts` (`usize::MAX`: not yet).
    slot: Vec<usize>,
    parts: Vec<u64>,
    /// The orphans `s1` misses, and the words that hold them.
    rest: Vec<u64>,
    nz: Vec<usize>,
    /// Per server, its window narrowed against the opening (computed on
    /// first use).
    wins: Vec<Option<(usize, usize)>>,
}

impl PairBufs {
    /// Empties every buffer for a node with `n` servers and `w` words a
    /// bitset.
    fn reset(&mut self, n: usize, w: usize) {
        self.wins.clear();
        self.wins.resize(n, None);
        self.firsts.clear();
        self.seconds.clear();
        self.servers.clear();
        self.slot.clear();
        self.slot.resize(n, usize::MAX);
        self.parts.clear();
        self.rest.clear();
        self.rest.resize(w, 0);
    }
}

impl Search<'_> {
    /// Unassigned clients no open host's window holds.
    pub(super) fn orphans(&self, st: &State) -> Bits {
        let mut o = st.open.clone();
        for s in 0..st.env.len() {
            if st.env[s].is_some() {
                self.clear_window(s, st.win[s], &mut o);
            }
        }
        o
    }

    /// With room for one more host, every orphan must go to the same new
    /// server: is there one whose window holds them all, with their
    /// same-host pairs (the two largest and two smallest accesses) fitting?
    pub(super) fn one_server_takes(
        &self,
        st: &State,
        orphans: &[u64],
        scratch: &mut [u64],
    ) -> bool {
        let Some(first) = ones(orphans).next() else {
            return true;
        };
        // (only servers holding one of them)
        self.holding(st, first).any(|(s, _)| {
            if st.env[s].is_some() {
                return false;
            }
            self.window_bits(s, st.win[s], scratch);
            if orphans.iter().zip(scratch.iter()).any(|(o, w)| o & !w != 0) {
                return false;
            }
            let mut e = Extremes::EMPTY;
            ones(orphans).for_each(|c| e.push(self.inst.access(c, s)));
            self.same_host_fits(s, &e)
        })
    }

    /// Whether clients with the access extremes `e` on server `s` fit
    /// together there: their same-host pairs (the two largest and the two
    /// smallest accesses) within the limits.
    pub(super) fn same_host_fits(&self, s: usize, e: &Extremes) -> bool {
        e.count < 2
            || (self.lim.hi_ok(pair_q(self.inst, s, e.max1, s, e.max2))
                && self.lim.lo_ok(pair_q(self.inst, s, e.min1, s, e.min2)))
    }

    /// With room for two more hosts, the orphans must be split over two
    /// new servers `s1, s2`: is there a pair whose windows cover them all,
    /// where the orphans only `s1` can take (and only `s2`) fit together,
    /// on each server and across the pair? (Upper limit only: a necessary
    /// condition.) Every covering pair holds the orphan with fewest options
    /// on one side (`s1`) and the first orphan `s1` misses on the other, so
    /// only those pairs are tried: `O(n + n1·n2·m/64)` for `n` servers,
    /// `n1` and `n2` of them holding those two orphans (at most
    /// `O(n²·m/64)`; a pair's coverage test reads only the words holding
    /// the orphans `s1` misses); each server's orphan set is computed
    /// once. A pair that passes must also leave every other unassigned
    /// client a window ([`Search::pair_leaves_none`], for each pair that
    /// gets that far). Also says whether that test refused a pair. With
    /// `opening`, the bound is the one of that branch's node, made before
    /// it ([`Opening`]; the orphans are then the clients in none of its
    /// windows).
    pub(super) fn two_servers_take(
        &self,
        st: &State,
        (orphans, opening): (&[u64], Opening),
        opt: &Counts,
        b: &mut PairBufs,
    ) -> (bool, bool) {
        let w = self.w;
        let Some(o1) = ones(&opt.least(orphans)).next() else {
            return (true, false);
        };
        b.reset(st.env.len(), w);
        self.holders(st, o1, opening, &mut b.wins, &mut b.firsts);
        let mut refused = 0;
        // the client the last refused pair left in no window
        let mut witness = None;
        for f in 0..b.firsts.len() {
            let s1 = b.firsts[f];
            let win = self.pair_win(st, s1, opening, &mut b.wins);
            let i = self.orphan_part((s1, win), orphans, &mut b.slot, &mut b.parts);
            let part = &b.parts[i * w..(i + 1) * w];
            for ((r, o), a) in b.rest.iter_mut().zip(orphans).zip(part) {
                *r = o & !a;
            }
            // the words where `rest` has clients (orphans are few)
            b.nz.clear();
            b.nz.extend((0..w).filter(|&x| b.rest[x] != 0));
            let Some(o2) = ones(&b.rest).next() else {
                return (true, refused > 0);
            };
            let (from, to) = self.second_holders(st, o2, opening, b);
            // (`o2` lies outside `s1`'s window, so `s2 != s1`)
            for at in from..to {
                let s2 = b.servers[at];
                let win = self.pair_win(st, s2, opening, &mut b.wins);
                let j = self.orphan_part((s2, win), orphans, &mut b.slot, &mut b.parts);
                let (w1, w2) = (&b.parts[i * w..(i + 1) * w], &b.parts[j * w..(j + 1) * w]);
                if b.nz.iter().any(|&x| b.rest[x] & !w2[x] != 0) {
                    continue;
                }
                if !self.split_fits(orphans, (s1, w1), (s2, w2)) {
                    continue;
                }
                // (past a few refused pairs the node is let through: where
                // windows are wide, most pairs get this far)
                let pair = ((s1, w1), (s2, w2));
                if refused >= NARROWED_PAIRS
                    || self.pair_leaves_none(st, (orphans, opening), pair, &mut witness)
                {
                    return (true, refused > 0);
                }
                refused += 1;
            }
        }
        (false, refused > 0)
    }

    /// The servers holding the second orphan `o2` (narrowed as
    /// [`Search::holders`] does), as a run `from..to` of `b.servers`: most
    /// first servers miss the same `o2`, so its servers are listed once,
    /// as a `seconds` entry `(o2, from, to)`.
    fn second_holders(
        &self,
        st: &State,
        o2: usize,
        opening: Opening,
        b: &mut PairBufs,
    ) -> (usize, usize) {
        if let Some(&(_, from, to)) = b.seconds.iter().find(|e| e.0 == o2) {
            return (from, to);
        }
        let from = b.servers.len();
        self.holders(st, o2, opening, &mut b.wins, &mut b.servers);
        b.seconds.push((o2, from, b.servers.len()));
        (from, b.servers.len())
    }

    /// The non-host servers but the opening's whose window (narrowed
    /// against the opening) holds client `o`, onto `out`.
    fn holders(
        &self,
        st: &State,
        o: usize,
        opening: Opening,
        wins: &mut [Option<(usize, usize)>],
        out: &mut Vec<usize>,
    ) {
        for (s, p) in self.holding(st, o) {
            if st.env[s].is_some() || opening.is_some_and(|(t, _, _)| t == s) {
                continue;
            }
            if opening.is_some() {
                let (a, b) = self.pair_win(st, s, opening, wins);
                if p < a || p >= b {
                    continue;
                }
            }
            out.push(s);
        }
    }

    /// Server `s`'s window, narrowed against the opening (once: `wins`).
    fn pair_win(
        &self,
        st: &State,
        s: usize,
        opening: Opening,
        wins: &mut [Option<(usize, usize)>],
    ) -> (usize, usize) {
        match opening {
            None => st.win[s],
            Some((t, x, _)) => *wins[s].get_or_insert_with(|| self.narrow(s, st.win[s], t, x, x)),
        }
    }

    /// Index in `parts` (of `w` words each) of the orphans server `s`'s
    /// window `win` holds, computed on first use (`slot[s]`).
    fn orphan_part(
        &self,
        (s, win): (usize, (usize, usize)),
        orphans: &[u64],
        slot: &mut [usize],
        parts: &mut Vec<u64>,
    ) -> usize {
        if slot[s] == usize::MAX {
            let w = self.w;
            slot[s] = parts.len() / w;
            parts.resize(parts.len() + w, 0);
            let part = &mut parts[slot[s] * w..];
            self.window_bits(s, win, part);
            for (x, o) in part.iter_mut().zip(orphans) {
                *x &= o;
            }
        }
        slot[s]
    }

    /// The orphans only `s1` takes and those only `s2` takes: do their
    /// largest accesses fit across the pair and their top two on each?
    pub(super) fn split_fits(
        &self,
        orphans: &[u64],
        (s1, w1): (usize, &[u64]),
        (s2, w2): (usize, &[u64]),
    ) -> bool {
        let (t1, t2) = (
            self.outside_on(orphans, s1, w2),
            self.outside_on(orphans, s2, w1),
        );
        let lim = &self.lim;
        let self_ok = |s: usize, e: &Extremes| {
            e.count < 2 || lim.hi_ok(pair_q(self.inst, s, e.max1, s, e.max2))
        };
        let cross_ok = t1.count == 0
            || t2.count == 0
            || lim.hi_ok(pair_q(self.inst, s1, t1.max1, s2, t2.max1));
        self_ok(s1, &t1) && self_ok(s2, &t2) && cross_ok
    }

    /// The access extremes on server `s` of the orphans outside `other`
    /// (the evaluator's `Extremes`: the top two are what it pairs).
    fn outside_on(&self, orphans: &[u64], s: usize, other: &[u64]) -> Extremes {
        let mut e = Extremes::EMPTY;
        for c in ones(orphans).filter(|&c| !has(other, c)) {
            e.push(self.inst.access(c, s));
        }
        e
    }

    /// With the new hosts exactly `s1` and `s2` (the orphans `s1` misses
    /// go to `s2` and those `s2` misses to `s1`), every other unassigned
    /// client must lie in a window narrowed against those orphans on
    /// `s1` and `s2` (their envelopes only grow from there; windows only
    /// shrink as envelopes grow): the open hosts' windows, and `s1`'s and
    /// `s2`'s own (narrowed against each other and their same-host pairs).
    /// False when some client lies in none; `witness` is then that client,
    /// and the next pair tests it first, by itself (where windows are wide,
    /// most pairs of a node get this far, and one client refuses most).
    /// With an opening, its server is one more new host, its client placed
    /// there. `O((h + 2)·(m/64 + log m) + r)` for `h` open hosts and `r`
    /// orphans; `O(h + r)` when the witness refuses.
    fn pair_leaves_none(
        &self,
        st: &State,
        (orphans, opening): (&[u64], Opening),
        ((s1, w1), (s2, w2)): (Side, Side),
        witness: &mut Option<usize>,
    ) -> bool {
        if !self.pair_narrowing {
            return true;
        }
        let (e1, e2) = (
            self.outside_on(orphans, s1, w2),
            self.outside_on(orphans, s2, w1),
        );
        // the orphans outside either side are placed (on the other)
        let mut need = st.open.clone();
        for (((n, o), a), b) in need.iter_mut().zip(orphans).zip(w1).zip(w2) {
            *n &= !(o & !(a & b));
        }
        let mut envs: Vec<(usize, f64, f64)> = [(s1, &e1), (s2, &e2)]
            .iter()
            .filter(|(_, e)| e.count > 0)
            .map(|&(s, e)| (s, e.min1, e.max1))
            .collect();
        let mut fresh = vec![s1, s2];
        if let Some((s, x, c)) = opening {
            clear(&mut need, c);
            envs.push((s, x, x));
            fresh.push(s);
        }
        if let Some(c) = witness.filter(|&c| has(&need, c)) {
            if !self.held_against(st, c, &fresh, &envs) {
                return false;
            }
        }
        if !self.left_in_no_window(st, &fresh, &envs, &mut need) {
            return true;
        }
        *witness = ones(&need).next();
        false
    }

    /// Whether unassigned client `c` lies in a window of the open hosts or
    /// of the new hosts `fresh`, narrowed against the envelopes `envs`:
    /// [`Search::left_in_no_window`] for one client, each window cut to
    /// `c`'s own position so that [`Search::narrow`] makes its tests on
    /// `c` alone (`O(h)` for `h` open hosts).
    fn held_against(
        &self,
        st: &State,
        c: usize,
        fresh: &[usize],
        envs: &[(usize, f64, f64)],
    ) -> bool {
        let hosts = (0..st.env.len()).filter(|&h| st.env[h].is_some());
        hosts.chain(fresh.iter().copied()).any(|h| {
            self.pos(st, h, c).is_some_and(|p| {
                let (a, b) = envs.iter().fold((p, p + 1), |win, &(t, lo, hi)| {
                    self.narrow(h, win, t, lo, hi)
                });
                a < b
            })
        })
    }
}
