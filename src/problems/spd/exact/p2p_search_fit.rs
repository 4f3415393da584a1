//! The check that a tight orphan packing's new hosts fit together
//! ([`super`], step 3; the packing is [`super::packing`]'s).
//!
//! When the packing equals the room left (`k` minus the open hosts), the
//! new hosts are exactly one per picked orphan, and
//! [`Search::packing_fits`] asks whether some choice of a server per
//! picked orphan works: the servers distinct, every pair of picked
//! orphans fitting across its two servers, and every unassigned client
//! inside a window left (each new host's window narrowed by the picked
//! orphans on the others, each open host's window by the new hosts'
//! picked orphans, as the search narrows windows). A necessary condition,
//! decided by a small backtracking search with forward checking and
//! coverage propagation of at most [`PACKING_NODES`] nodes (past it the
//! check prunes nothing). When the packing is one short of the room, the
//! same check runs with one *extra* new host ([`EXTRA_NODES`] nodes): the
//! clients no pick's server can take must fit one other server. The search
//! runs it only with room for three or more new hosts (with one or two,
//! its own checks were as strong: the same node counts). Its buffers are
//! kept from check to check ([`FitBufs`]), its backtracking undoes its
//! choices from a trail.
//!
//! Complexity: per backtracking node `O(a·(r·log m + m/64) + h·(r·log m +
//! m/64))` for the packing's `a` candidates and `r` picks, `h` open hosts
//! and `m` clients, at most [`PACKING_NODES`] nodes.

use super::bits::{clear, count_twice, ones, set};
use super::packing::{Opened, Packing};
use super::{Search, State};
use crate::problems::spd::exact::p2p::pair_q;

/// Most nodes of one [`Search::packing_fits`] check; past them it answers
/// "fits" (prunes nothing).
pub(super) const PACKING_NODES: u32 = 128;

/// The same for a check with one extra new host: such checks refute less
/// often and pass (or run out) more often, so they get fewer nodes
/// (measured at 200 × 1,000: 24, 48 and 128 nodes, 48 best).
pub(super) const EXTRA_NODES: u32 = 48;

/// [`Search::fit_extra`] tests the servers on the list of one client
/// left over: the one on fewest lists among the first this many (at 200 ×
/// 1,000 f = 1.0 seed 3, paired one-thread runs: the first client 102.2 /
/// 102.4 s, the least of 8 99.4 / 100.2 s, of 32 101.2 / 101.3 s).
const EXTRA_FIRST_OF: usize = 8;

/// [`Search::fit_extra`] calls with clients left over that the tests
/// cross-checked ([`Search::fit_extra_by_lookup`]).
#[cfg(test)]
pub(super) static EXTRA_CROSS_CHECKS: std::sync::atomic::AtomicU64 =
    std::sync::atomic::AtomicU64::new(0);

impl Search<'_> {
    /// With the packing as large as the room left: can each picked orphan
    /// get a server of its own so that the picked orphans' pairs fit and
    /// every unassigned client lies in some window left? `false` only when
    /// no choice works (then the node is refuted); `true` also when
    /// [`PACKING_NODES`] run out. A backtracking search with forward
    /// checking: choosing a server for a pick removes the other picks'
    /// candidates that clash with it (the same server, or their pair out
    /// of the limits) and narrows every live candidate's window and every
    /// open host's window by it; the pick with fewest live candidates goes
    /// next.
    ///
    /// With `extra`, one more new host may take clients beside the picks'
    /// (the packing is one short of the room): the clients no pick's
    /// candidate covers must then fit one other non-host server's window
    /// (narrowed by the chosen candidates), and a client such a server
    /// could take restricts no pick.
    ///
    /// The check uses the packing's window bits as its own (`pk.bits`
    /// holds the check's scratch afterwards) and `bufs` as its buffers.
    ///
    /// With `opened`, the check is the one of that branch's child
    /// ([`Search::packing`]): the new host among the hosts, its client
    /// placed, every window narrowed against its envelope.
    pub(super) fn packing_fits(
        &self,
        st: &State,
        pk: &mut Packing,
        (extra, opened): (bool, Opened),
        b: &mut FitBufs,
    ) -> bool {
        std::mem::swap(&mut b.bits, &mut pk.bits);
        let mut open = std::mem::take(&mut b.open);
        open.clone_from(&st.open);
        if let Some((_, _, c)) = opened {
            clear(&mut open, c);
        }
        let fits = self.fit_check(st, pk, (extra, opened), &open, b);
        b.open = open;
        std::mem::swap(&mut b.bits, &mut pk.bits);
        fits
    }

    /// [`Search::packing_fits`] with the packing's bits in `b`, the
    /// unassigned clients `open`.
    fn fit_check(
        &self,
        st: &State,
        pk: &Packing,
        (extra, opened): (bool, Opened),
        open: &[u64],
        b: &mut FitBufs,
    ) -> bool {
        let w = self.w;
        b.hosts.clear();
        let fresh = opened.map(|(s, _, _)| s);
        b.hosts.extend(
            (0..st.env.len())
                .filter(|&h| st.env[h].is_some() || Some(h) == fresh)
                .map(|h| (h, self.window_opened(st, h, opened))),
        );
        let nh = b.hosts.len();
        b.live.clear();
        b.live.extend(pk.cands.iter().map(|c| Some(c.win)));
        b.bits_of.clone_from(&b.live);
        fill(&mut b.host_bits, nh * w, 0);
        fill(&mut b.host_bits_of, nh, None);
        fill(&mut b.chosen, pk.picked.len(), None);
        fill(&mut b.scratch, w, 0);
        fill(&mut b.needy, w, 0);
        b.rounds.resize(pk.picked.len(), w);
        b.trail_live.clear();
        b.trail_hosts.clear();
        if extra {
            self.extra_servers(st, opened, &mut b.extra);
        }
        let mut fit = Fit {
            open,
            pk,
            with_extra: extra,
            b,
            budget: if extra { EXTRA_NODES } else { PACKING_NODES },
        };
        self.fit_from(&mut fit)
    }

    /// One node of [`Search::packing_fits`]'s backtracking.
    fn fit_from(&self, f: &mut Fit) -> bool {
        if f.budget == 0 {
            return true;
        }
        f.budget -= 1;
        let Some(next) = self.fit_cover(f) else {
            return false;
        };
        let Some(pick) = next else {
            return true;
        };
        // the node's windows, saved on the trail for each choice to undo
        let (at_live, at_hosts) = (f.b.trail_live.len(), f.b.trail_hosts.len());
        f.b.trail_live.extend_from_slice(&f.b.live);
        f.b.trail_hosts.extend_from_slice(&f.b.hosts);
        let mut fits = false;
        for j in f.pk.of(pick) {
            if f.b.live[j].is_none() {
                continue;
            }
            self.fit_choose(f, j);
            f.b.chosen[pick] = Some(j);
            fits = self.fit_from(f);
            f.b.chosen[pick] = None;
            f.b.live.copy_from_slice(&f.b.trail_live[at_live..]);
            f.b.hosts.copy_from_slice(&f.b.trail_hosts[at_hosts..]);
            if fits {
                break;
            }
        }
        f.b.trail_live.truncate(at_live);
        f.b.trail_hosts.truncate(at_hosts);
        fits
    }

    /// Chooses candidate `j` for its pick: the other picks' candidates
    /// that clash with it go, every other live window narrows by it.
    fn fit_choose(&self, f: &mut Fit, j: usize) {
        let c = f.pk.cands[j];
        for (k, d) in f.pk.cands.iter().enumerate() {
            let Some(win) = f.b.live[k] else {
                continue;
            };
            if d.pick == c.pick || f.b.chosen[d.pick].is_some_and(|x| x != k) {
                continue;
            }
            let clash = d.s == c.s || !self.lim.fits(pair_q(self.inst, c.s, c.x, d.s, d.x));
            f.b.live[k] = if clash && f.b.chosen[d.pick].is_none() {
                None
            } else {
                Some(self.narrow(d.s, win, c.s, c.x, c.x))
            };
        }
        for (h, win) in f.b.hosts.iter_mut() {
            *win = self.narrow(*h, *win, c.s, c.x, c.x);
        }
    }

    /// The coverage test of a partial choice, with its propagation. Every
    /// unassigned client must lie in a chosen candidate's window, an open
    /// host's window narrowed by the chosen candidates, or the window of a
    /// live candidate of a pick not yet chosen; a client only one such
    /// pick can cover removes that pick's candidates whose window misses
    /// it (repeated until nothing changes). `None`: it fails (a client no
    /// one covers, or a pick without candidates); `Some(None)`: every pick
    /// is chosen; `Some(Some(p))`: the pick to choose next (fewest live
    /// candidates).
    fn fit_cover(&self, f: &mut Fit) -> Option<Option<usize>> {
        let w = self.w;
        let mut open = std::mem::take(&mut f.b.unchosen);
        open.clear();
        open.extend((0..f.pk.picked.len()).filter(|&p| f.b.chosen[p].is_none()));
        // the chosen candidates and the live ones of the picks not chosen,
        // as bits (each recomputed only when its window changed)
        let mut bits = std::mem::take(&mut f.b.bits);
        for (k, d) in f.pk.cands.iter().enumerate() {
            if f.b.chosen[d.pick].is_some_and(|j| j != k) {
                continue;
            }
            if let Some(win) = f.b.live[k] {
                if f.b.bits_of[k] != Some(win) {
                    f.b.bits_of[k] = Some(win);
                    self.window_bits(d.s, win, &mut bits[k * w..(k + 1) * w]);
                }
            }
        }
        let mut needy = std::mem::take(&mut f.b.needy);
        self.fit_needy(f, &bits, &mut needy);
        let out = self.fit_propagate(f, &needy, &open, &bits);
        (f.b.bits, f.b.needy, f.b.unchosen) = (bits, needy, open);
        out
    }

    /// [`Search::fit_cover`]'s propagation over the picks `open` not yet
    /// chosen, their candidates' windows as `bits` (its buffers reused
    /// across rounds and nodes: `f.b.rounds`).
    fn fit_propagate(
        &self,
        f: &mut Fit,
        needy: &[u64],
        open: &[usize],
        bits: &[u64],
    ) -> Option<Option<usize>> {
        let mut r = std::mem::take(&mut f.b.rounds);
        let out = self.fit_rounds(f, &mut r, needy, open, bits);
        f.b.rounds = r;
        out
    }

    /// The rounds of [`Search::fit_propagate`] until nothing changes.
    fn fit_rounds(
        &self,
        f: &mut Fit,
        r: &mut Rounds,
        needy: &[u64],
        open: &[usize],
        bits: &[u64],
    ) -> Option<Option<usize>> {
        let w = self.w;
        loop {
            // per open pick, its live candidates' clients and count
            for (i, &p) in open.iter().enumerate() {
                let u = &mut r.union[i * w..(i + 1) * w];
                u.fill(0);
                r.alive[i] = 0;
                for k in f.pk.of(p) {
                    if f.b.live[k].is_some() {
                        r.alive[i] += 1;
                        or_into(u, &bits[k * w..(k + 1) * w]);
                    }
                }
                if r.alive[i] == 0 {
                    return None;
                }
            }
            // the clients some pick covers, and those two or more cover
            r.any.fill(0);
            r.more.fill(0);
            for u in r.union[..open.len() * w].chunks(w) {
                count_twice(&mut r.any, &mut r.more, u);
            }
            // what the extra new host may take (nothing without one)
            for ((l, n), a) in r.left.iter_mut().zip(needy).zip(&r.any) {
                *l = n & !a;
            }
            if !self.fit_extra(f, &r.left, &mut r.spare) {
                return None;
            }
            let mut changed = false;
            for (i, &p) in open.iter().enumerate() {
                // the needy clients only pick `p` covers
                let u = &r.union[i * w..(i + 1) * w];
                for (x, o) in r.only.iter_mut().enumerate() {
                    *o = needy[x] & u[x] & !r.more[x] & !r.spare[x];
                }
                changed |= self.fit_keep_covering(f, p, &r.only, bits);
            }
            if !changed {
                let next = (0..open.len()).min_by_key(|&i| (r.alive[i], open[i]));
                return Some(next.map(|i| open[i]));
            }
        }
    }

    /// The non-host servers an extra new host may be, with their windows.
    /// Their bits are computed when a client left over needs them
    /// ([`Search::fit_extra`]).
    fn extra_servers(&self, st: &State, opened: Opened, ex: &mut Extra) {
        ex.servers.clear();
        let fresh = opened.map(|(s, _, _)| s);
        ex.servers.extend(
            (0..st.env.len())
                .filter(|&t| st.env[t].is_none() && Some(t) != fresh)
                .map(|t| (t, self.window_opened(st, t, opened)))
                .filter(|&(_, win)| win.0 < win.1),
        );
        fill(&mut ex.index, st.env.len(), u32::MAX);
        for (i, &(t, _)) in ex.servers.iter().enumerate() {
            ex.index[t] = i as u32;
        }
        fill(&mut ex.known, ex.servers.len(), false);
        ex.bits.resize(ex.servers.len() * self.w, 0);
    }

    /// The clients an extra new host may take, into `spare`, given the
    /// clients `left` no pick covers: they must all fit one server no
    /// chosen candidate uses, in its window narrowed by the chosen
    /// candidates (`false`: no server holds them). Without an extra host,
    /// `left` must be empty. With `left` empty, `spare` is every client:
    /// the union of the non-host servers' windows would hold every client
    /// a pick's candidate holds, so none is then "only" one pick's to
    /// cover either way (and the 186 windows' bits a check at 200 servers
    /// computed for that union are spared: 1.5% of a hard refutation).
    /// A server's window bits are computed once per check, when a client
    /// left over first might go to it; only the servers on one client of
    /// `left`'s list are tested (`servers_of`: 40 of 200 at 200 × 1,000;
    /// the client on fewest lists of [`EXTRA_FIRST_OF`]),
    /// first by that client's position, then on `left`'s nonzero words
    /// only: `O(a + a'·z)` for
    /// `a` servers on that client's list, `a'` of them holding it, and `z`
    /// such words, plus `O(h·(r·log m + m/64))` for the `h` servers that
    /// hold `left`.
    fn fit_extra(&self, f: &mut Fit, left: &[u64], spare: &mut [u64]) -> bool {
        let w = self.w;
        let none = left.iter().all(|&x| x == 0);
        if !f.with_extra {
            spare.fill(0);
            return none;
        }
        if none {
            // any client a pick's candidate holds lies in that server's
            // window, which the extra host may be: so nothing is "only"
            // one pick's to cover
            spare.fill(!0);
            return true;
        }
        let ex = &mut f.b.extra;
        let mut nz = std::mem::take(&mut ex.nz);
        nz.clear();
        nz.extend((0..w).filter(|&x| left[x] != 0).map(|x| (x, left[x])));
        let misses = |b: &[u64]| nz.iter().any(|&(x, v)| v & !b[x] != 0);
        // one client of `left` by its positions first (client-major: one
        // contiguous run, where the bits lie a window apart): of the
        // first few, the one on fewest servers' lists, whose list is
        // the loop
        let n = self.inst.servers();
        let pivot = self.extra_pivot(left);
        let at = &self.at[pivot * n..(pivot + 1) * n];
        spare.fill(0);
        let mut held = false;
        for &t in &self.servers_of[pivot] {
            let Some(&i) = ex.index.get(t as usize).filter(|&&i| i != u32::MAX) else {
                continue;
            };
            let i = i as usize;
            let (t, win) = ex.servers[i];
            if !(win.0..win.1).contains(&(at[t] as usize)) {
                continue;
            }
            let b = self.extra_bits(ex, i);
            if misses(b) {
                continue;
            }
            let Some(narrowed) = self.narrowed_by_chosen(f.pk, &f.b.chosen, (t, win)) else {
                continue;
            };
            let b = if narrowed == win {
                b
            } else {
                self.window_bits(t, narrowed, &mut f.b.scratch);
                &f.b.scratch[..]
            };
            if !misses(b) {
                held = true;
                or_into(spare, b);
            }
        }
        ex.nz = nz;
        #[cfg(test)]
        self.fit_extra_by_lookup(f, left, spare, held);
        held
    }

    /// The window bits of `ex`'s `i`-th server, computed on first use.
    fn extra_bits<'e>(&self, ex: &'e mut Extra, i: usize) -> &'e [u64] {
        let w = self.w;
        let (t, win) = ex.servers[i];
        let b = &mut ex.bits[i * w..(i + 1) * w];
        if !ex.known[i] {
            ex.known[i] = true;
            self.window_bits(t, win, b);
        }
        b
    }

    /// Of the first [`EXTRA_FIRST_OF`] clients of `left`, the one on
    /// fewest servers' lists.
    fn extra_pivot(&self, left: &[u64]) -> usize {
        ones(left)
            .take(EXTRA_FIRST_OF)
            .min_by_key(|&c| self.servers_of[c].len())
            .unwrap_or(0)
    }

    /// Server `t`'s window `win` narrowed against every chosen candidate
    /// (`chosen`: indices into `pk`'s candidates); `None` when one of them
    /// is `t` itself (the extra host is another server).
    fn narrowed_by_chosen(
        &self,
        pk: &Packing,
        chosen: &[Option<usize>],
        (t, win): (usize, (usize, usize)),
    ) -> Option<(usize, usize)> {
        let picked = chosen.iter().flatten().map(|&j| pk.cands[j]);
        if picked.clone().any(|d| d.s == t) {
            return None;
        }
        Some(picked.fold(win, |win, d| self.narrow(t, win, d.s, d.x, d.x)))
    }

    /// The unassigned clients neither the picks themselves, nor the chosen
    /// candidates' windows, nor the open hosts' windows narrowed by the
    /// chosen candidates hold, into `needy` (`w` words).
    fn fit_needy(&self, f: &mut Fit, bits: &[u64], needy: &mut [u64]) {
        let w = self.w;
        // first the clients held, then the others
        needy.fill(0);
        f.pk.picked.iter().for_each(|&o| set(needy, o));
        for &j in f.b.chosen.iter().flatten() {
            or_into(needy, &bits[j * w..(j + 1) * w]);
        }
        for (i, &(h, win)) in f.b.hosts.iter().enumerate() {
            let hb = &mut f.b.host_bits[i * w..(i + 1) * w];
            if f.b.host_bits_of[i] != Some(win) {
                f.b.host_bits_of[i] = Some(win);
                self.window_bits(h, win, hb);
            }
            or_into(needy, hb);
        }
        needy.iter_mut().zip(f.open).for_each(|(n, o)| *n = o & !*n);
    }

    /// Removes pick `p`'s live candidates whose window (`bits`) misses a
    /// client of `only`; whether any went.
    fn fit_keep_covering(&self, f: &mut Fit, p: usize, only: &[u64], bits: &[u64]) -> bool {
        if only.iter().all(|&x| x == 0) {
            return false;
        }
        let w = self.w;
        let mut changed = false;
        for k in f.pk.of(p) {
            if f.b.live[k].is_some() && !covers(only, &bits[k * w..(k + 1) * w]) {
                f.b.live[k] = None;
                changed = true;
            }
        }
        changed
    }
}

/// `y |= z`, word by word.
fn or_into(y: &mut [u64], z: &[u64]) {
    y.iter_mut().zip(z).for_each(|(y, z)| *y |= z);
}

/// Whether every client of `open` is in `cov`.
fn covers(open: &[u64], cov: &[u64]) -> bool {
    open.iter().zip(cov).all(|(o, c)| o & !c == 0)
}

#[cfg(test)]
#[path = "p2p_search_fit_lookup.rs"]
mod lookup;

/// The servers an extra new host may be ([`Search::packing_fits`]).
#[derive(Default)]
struct Extra {
    /// Non-host servers and their windows.
    servers: Vec<(usize, (usize, usize))>,
    /// Per server, its place in `servers` (`u32::MAX`: none).
    index: Vec<u32>,
    /// Per server, `w` words of its window's clients, once computed
    /// (`known`: each only when a client left over might go to it).
    bits: Vec<u64>,
    known: Vec<bool>,
    /// [`Search::fit_extra`]'s buffer: the nonzero words of the clients
    /// left.
    nz: Vec<(usize, u64)>,
}

/// One [`Search::packing_fits`] check: its inputs, and its state in
/// buffers reused from check to check.
struct Fit<'p> {
    /// The node's unassigned clients.
    open: &'p [u64],
    pk: &'p Packing,
    /// With one more new host than picks (the servers it may be are in
    /// `b.extra`).
    with_extra: bool,
    b: &'p mut FitBufs,
    budget: u32,
}

/// The state of a [`Search::packing_fits`] check, kept by the search so
/// that a check allocates nothing once its buffers have grown.
#[derive(Default)]
pub(super) struct FitBufs {
    /// The servers an extra new host may be.
    extra: Extra,
    /// The node's hosts and their windows, narrowed by the chosen
    /// candidates.
    hosts: Vec<(usize, (usize, usize))>,
    /// Per candidate, its window narrowed by the chosen candidates
    /// (`None`: it clashes with one).
    live: Vec<Option<(usize, usize)>>,
    /// Per pick, its chosen candidate.
    chosen: Vec<Option<usize>>,
    /// Per candidate, `w` words: its window's clients, for the window
    /// `bits_of` (`None`: not computed yet).
    bits: Vec<u64>,
    bits_of: Vec<Option<(usize, usize)>>,
    /// The same for the open hosts' windows.
    host_bits: Vec<u64>,
    host_bits_of: Vec<Option<(usize, usize)>>,
    scratch: Vec<u64>,
    rounds: Rounds,
    /// The backtracking's trail: the windows `live` and `hosts` of the
    /// nodes on the path, each node's restored after each choice.
    trail_live: Vec<Option<(usize, usize)>>,
    trail_hosts: Vec<(usize, (usize, usize))>,
    /// [`Search::fit_cover`]'s buffers: the picks not chosen, and the
    /// clients none of the chosen and no host holds.
    unchosen: Vec<usize>,
    needy: Vec<u64>,
    /// The check's unassigned clients (the node's, or its branch child's).
    open: Vec<u64>,
}

/// Sets `v` to `len` copies of `x`, in its buffer.
fn fill<T: Clone>(v: &mut Vec<T>, len: usize, x: T) {
    v.clear();
    v.resize(len, x);
}

/// The buffers of [`Search::fit_propagate`]'s rounds, `w` words per
/// bitset.
#[derive(Default)]
struct Rounds {
    /// Per open pick (by its place among them), its live candidates'
    /// clients.
    union: Vec<u64>,
    /// Per open pick, its live candidates.
    alive: Vec<usize>,
    /// Clients some open pick covers; two or more do; no open pick
    /// does; the extra new host may take; only the current pick covers.
    any: Vec<u64>,
    more: Vec<u64>,
    left: Vec<u64>,
    spare: Vec<u64>,
    only: Vec<u64>,
}

impl Rounds {
    /// Sizes the buffers for `picks` picks (their contents are
    /// overwritten before they are read).
    fn resize(&mut self, picks: usize, w: usize) {
        self.union.resize(picks * w, 0);
        self.alive.resize(picks, 0);
        for b in [
            &mut self.any,
            &mut self.more,
            &mut self.left,
            &mut self.spare,
            &mut self.only,
        ] {
            b.resize(w, 0);
        }
    }
}
