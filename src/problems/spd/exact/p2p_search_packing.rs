//! The orphan packing bound ([`super`], step 3) and the check that a
//! tight packing's new hosts fit together.
//!
//! Orphans (unassigned clients no host's window holds) need new hosts. A
//! greedy *packing* picks orphans no non-host server can take two of (in
//! its window, their same-host pair fitting): each needs a new host of its
//! own, so the packing's size is a lower bound on the new hosts. When it
//! equals the room left (`k` minus the open hosts), the new hosts are
//! exactly one per picked orphan, and [`Search::packing_fits`] asks whether
//! some choice of a server per picked orphan works: the servers distinct,
//! every pair of picked orphans fitting across its two servers, and every
//! unassigned client inside a window left (each new host's window narrowed
//! by the picked orphans on the others, each open host's window by the new
//! hosts' picked orphans, as the search narrows windows). A necessary
//! condition, decided by a small backtracking search with forward checking
//! and coverage propagation of at most [`PACKING_NODES`] nodes (past it the
//! check prunes nothing). When the packing is one short of the room, the
//! same check runs with one *extra* new host ([`EXTRA_NODES`] nodes): the
//! clients no pick's server can take must fit one other server. The search
//! runs it only with room for three or more new hosts (with one or two,
//! its own checks were as strong: the same node counts).
//!
//! Complexity: the packing `O(r·n·(log m + m/64))` for `r` picks, `n`
//! servers and `m` clients (as the bound alone cost before), keeping its
//! `a` candidates' windows (`a·⌈m/64⌉` words) for the check, which costs
//! per backtracking node
//! `O(a·(r·log m + m/64) + h·(r·log m + m/64))` for `h` open hosts, at most
//! [`PACKING_NODES`] nodes.

use super::bits::{clear, ones, set, Counts};
use super::{Search, State};
use crate::problems::spd::exact::p2p::pair_q;

/// Most nodes of one [`Search::packing_fits`] check; past them it answers
/// "fits" (prunes nothing).
pub(super) const PACKING_NODES: u32 = 128;

/// The same for a check with one extra new host: such checks refute less
/// often and pass (or run out) more often, so they get fewer nodes
/// (measured at 200 × 1,000: 24, 48 and 128 nodes, 48 best).
pub(super) const EXTRA_NODES: u32 = 48;

/// [`Search::fit_extra`] calls with clients left over that the tests
/// cross-checked ([`Search::fit_extra_by_lookup`]).
#[cfg(test)]
pub(super) static EXTRA_CROSS_CHECKS: std::sync::atomic::AtomicU64 =
    std::sync::atomic::AtomicU64::new(0);

/// A packing's picked orphans and their candidates.
pub(super) struct Packing {
    pub(super) picked: Vec<usize>,
    /// Per candidate: the picked orphan's index, the server, the orphan's
    /// access on it, and the server's window left by that orphan's
    /// same-host pairs. By pick: pick `p`'s are `cands[of[p]..of[p+1]]`.
    cands: Vec<Cand>,
    of: Vec<usize>,
    /// Per candidate, `w` words: its window's clients (the packing
    /// computed them; the check starts from them).
    bits: Vec<u64>,
}

impl Packing {
    /// The indices of pick `p`'s candidates.
    fn of(&self, p: usize) -> std::ops::Range<usize> {
        self.of[p]..self.of[p + 1]
    }
}

#[derive(Clone, Copy)]
struct Cand {
    pick: usize,
    s: usize,
    x: f64,
    win: (usize, usize),
}

impl Search<'_> {
    /// The greedy packing: orphans by fewest options; each pick removes
    /// the orphans some non-host server could take with it. Stops one past
    /// the room left (then the node is refuted). Keeps each pick's
    /// candidates (those servers) for [`Search::packing_fits`].
    pub(super) fn packing(&self, st: &State, orphans: &[u64], opt: &Counts) -> Packing {
        let mut left = orphans.to_vec();
        let room = self.k.saturating_sub(st.hosts);
        let mut pk = Packing {
            picked: Vec::new(),
            cands: Vec::new(),
            of: vec![0],
            bits: Vec::new(),
        };
        let mut scratch = vec![0u64; self.w];
        // the least (options, client) still left, from the bit-sliced
        // counts: `O(m/64)` words a pick, where sorting every orphan cost
        // a fifth of the search's time at 200 servers
        while let Some(o) = ones(&opt.least_capped(&left)).next() {
            let pick = pk.picked.len();
            pk.picked.push(o);
            if pk.picked.len() > room {
                // (no candidates listed: the node is refuted)
                pk.of.push(pk.cands.len());
                break;
            }
            clear(&mut left, o);
            self.each_candidate(st, o, &mut scratch, |s, x, win, z| {
                for (y, z) in left.iter_mut().zip(z) {
                    *y &= !z;
                }
                pk.cands.push(Cand { pick, s, x, win });
                pk.bits.extend_from_slice(z);
            });
            pk.of.push(pk.cands.len());
        }
        pk
    }

    /// Calls `f(s, x, window, bits)` for every non-host server `s` whose
    /// window holds orphan `o` (at access `x`): the window left by `o`'s
    /// same-host pairs, and its clients as bits.
    fn each_candidate(
        &self,
        st: &State,
        o: usize,
        scratch: &mut [u64],
        mut f: impl FnMut(usize, f64, (usize, usize), &[u64]),
    ) {
        for s in 0..st.env.len() {
            if st.env[s].is_some() {
                continue;
            }
            let Some(p) = self.pos(st, s, o) else {
                continue;
            };
            let x = self.val(s, p);
            let win = self.narrow(s, st.win[s], s, x, x);
            self.window_bits(s, win, scratch);
            f(s, x, win, scratch);
        }
    }

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
    pub(super) fn packing_fits(&self, st: &State, pk: &Packing, extra: bool) -> bool {
        let hosts = (0..st.env.len())
            .filter(|&h| st.env[h].is_some())
            .map(|h| (h, st.win[h]))
            .collect::<Vec<_>>();
        let nh = hosts.len();
        let mut fit = Fit {
            open: &st.open,
            pk,
            extra: extra.then(|| self.extra_servers(st)),
            hosts,
            live: pk.cands.iter().map(|c| Some(c.win)).collect(),
            bits: pk.bits.clone(),
            bits_of: pk.cands.iter().map(|c| Some(c.win)).collect(),
            host_bits: vec![0u64; nh * self.w],
            host_bits_of: vec![None; nh],
            chosen: vec![None; pk.picked.len()],
            budget: if extra { EXTRA_NODES } else { PACKING_NODES },
            scratch: vec![0u64; self.w],
            rounds: Rounds::new(pk.picked.len(), self.w),
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
        for j in f.pk.of(pick) {
            if f.live[j].is_none() {
                continue;
            }
            let saved = (f.live.clone(), f.hosts.clone());
            self.fit_choose(f, j);
            f.chosen[pick] = Some(j);
            let fits = self.fit_from(f);
            f.chosen[pick] = None;
            (f.live, f.hosts) = saved;
            if fits {
                return true;
            }
        }
        false
    }

    /// Chooses candidate `j` for its pick: the other picks' candidates
    /// that clash with it go, every other live window narrows by it.
    fn fit_choose(&self, f: &mut Fit, j: usize) {
        let c = f.pk.cands[j];
        for (k, d) in f.pk.cands.iter().enumerate() {
            let Some(win) = f.live[k] else {
                continue;
            };
            if d.pick == c.pick || f.chosen[d.pick].is_some_and(|x| x != k) {
                continue;
            }
            let clash = d.s == c.s || !self.lim.fits(pair_q(self.inst, c.s, c.x, d.s, d.x));
            f.live[k] = if clash && f.chosen[d.pick].is_none() {
                None
            } else {
                Some(self.narrow(d.s, win, c.s, c.x, c.x))
            };
        }
        for (h, win) in f.hosts.iter_mut() {
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
        let open: Vec<usize> = (0..f.pk.picked.len())
            .filter(|&p| f.chosen[p].is_none())
            .collect();
        // the chosen candidates and the live ones of the picks not chosen,
        // as bits (each recomputed only when its window changed)
        let mut bits = std::mem::take(&mut f.bits);
        for (k, d) in f.pk.cands.iter().enumerate() {
            if f.chosen[d.pick].is_some_and(|j| j != k) {
                continue;
            }
            if let Some(win) = f.live[k] {
                if f.bits_of[k] != Some(win) {
                    f.bits_of[k] = Some(win);
                    self.window_bits(d.s, win, &mut bits[k * w..(k + 1) * w]);
                }
            }
        }
        let needy = self.fit_needy(f, &bits);
        let out = self.fit_propagate(f, &needy, &open, &bits);
        f.bits = bits;
        out
    }

    /// [`Search::fit_cover`]'s propagation over the picks `open` not yet
    /// chosen, their candidates' windows as `bits` (its buffers reused
    /// across rounds and nodes: `f.rounds`).
    fn fit_propagate(
        &self,
        f: &mut Fit,
        needy: &[u64],
        open: &[usize],
        bits: &[u64],
    ) -> Option<Option<usize>> {
        let mut r = std::mem::take(&mut f.rounds);
        let out = self.fit_rounds(f, &mut r, needy, open, bits);
        f.rounds = r;
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
                    if f.live[k].is_some() {
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
                for ((a, b), u) in r.any.iter_mut().zip(r.more.iter_mut()).zip(u) {
                    *b |= *a & u;
                    *a |= u;
                }
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
    fn extra_servers(&self, st: &State) -> Extra {
        let servers = (0..st.env.len())
            .filter(|&t| st.env[t].is_none() && st.win[t].0 < st.win[t].1)
            .map(|t| (t, st.win[t]))
            .collect();
        Extra {
            servers,
            bits: Vec::new(),
            union: Vec::new(),
        }
    }

    /// The clients an extra new host may take, into `spare`, given the
    /// clients `left` no pick covers: they must all fit one server no
    /// chosen candidate uses, in its window narrowed by the chosen
    /// candidates (`false`: no server holds them). Without an extra host,
    /// `left` must be empty. With `left` empty, every non-host server's
    /// window counts (their union). The windows' bits are computed once
    /// per check, and a server is tested on `left`'s nonzero words only:
    /// `O(a·z)` for `a` servers and `z` such words, plus `O(h·(r·log m +
    /// m/64))` for the `h` servers that hold `left`.
    fn fit_extra(&self, f: &mut Fit, left: &[u64], spare: &mut [u64]) -> bool {
        let w = self.w;
        let none = left.iter().all(|&x| x == 0);
        let Some(ex) = &mut f.extra else {
            spare.fill(0);
            return none;
        };
        if ex.union.is_empty() {
            self.extra_bits(ex);
        }
        if none {
            spare.copy_from_slice(&ex.union);
            return true;
        }
        let nz: Vec<(usize, u64)> = (0..w)
            .filter(|&x| left[x] != 0)
            .map(|x| (x, left[x]))
            .collect();
        let misses = |b: &[u64]| nz.iter().any(|&(x, v)| v & !b[x] != 0);
        spare.fill(0);
        let mut held = false;
        for (i, &(t, win)) in ex.servers.iter().enumerate() {
            let b = &ex.bits[i * w..(i + 1) * w];
            if misses(b) || f.chosen.iter().flatten().any(|&j| f.pk.cands[j].s == t) {
                continue;
            }
            let narrowed = f.chosen.iter().flatten().fold(win, |win, &j| {
                let d = f.pk.cands[j];
                self.narrow(t, win, d.s, d.x, d.x)
            });
            let b = if narrowed == win {
                b
            } else {
                self.window_bits(t, narrowed, &mut f.scratch);
                &f.scratch[..]
            };
            if !misses(b) {
                held = true;
                or_into(spare, b);
            }
        }
        #[cfg(test)]
        self.fit_extra_by_lookup(f, left, spare, held);
        held
    }

    /// The tests' cross-check of [`Search::fit_extra`]: the same answer
    /// from the clients' positions on each server (the lookups the window
    /// bits replaced), asserted equal.
    #[cfg(test)]
    fn fit_extra_by_lookup(&self, f: &Fit, left: &[u64], spare: &[u64], held: bool) {
        let Some(ex) = &f.extra else {
            return;
        };
        let n = self.inst.servers();
        let holds = |t: usize, (a, b): (usize, usize)| {
            ones(left).all(|c| (a..b).contains(&(self.at[c * n + t] as usize)))
        };
        let mut want = vec![0u64; self.w];
        let mut scratch = vec![0u64; self.w];
        let mut any = false;
        for &(t, win) in &ex.servers {
            if !holds(t, win) || f.chosen.iter().flatten().any(|&j| f.pk.cands[j].s == t) {
                continue;
            }
            let win = f.chosen.iter().flatten().fold(win, |win, &j| {
                let d = f.pk.cands[j];
                self.narrow(t, win, d.s, d.x, d.x)
            });
            if holds(t, win) {
                any = true;
                self.window_bits(t, win, &mut scratch);
                or_into(&mut want, &scratch);
            }
        }
        assert_eq!(held, any, "fit_extra: held");
        if held {
            assert_eq!(spare, &want[..], "fit_extra: spare");
        }
        EXTRA_CROSS_CHECKS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }

    /// Fills the extra servers' window bits and their union.
    fn extra_bits(&self, ex: &mut Extra) {
        let w = self.w;
        ex.bits = vec![0u64; ex.servers.len() * w];
        ex.union = vec![0u64; w];
        for (&(t, win), b) in ex.servers.iter().zip(ex.bits.chunks_mut(w)) {
            self.window_bits(t, win, b);
            or_into(&mut ex.union, b);
        }
    }

    /// The unassigned clients neither the picks themselves, nor the chosen
    /// candidates' windows, nor the open hosts' windows narrowed by the
    /// chosen candidates hold.
    fn fit_needy(&self, f: &mut Fit, bits: &[u64]) -> Vec<u64> {
        let w = self.w;
        let mut base = vec![0u64; w];
        f.pk.picked.iter().for_each(|&o| set(&mut base, o));
        for &j in f.chosen.iter().flatten() {
            or_into(&mut base, &bits[j * w..(j + 1) * w]);
        }
        for (i, &(h, win)) in f.hosts.iter().enumerate() {
            let hb = &mut f.host_bits[i * w..(i + 1) * w];
            if f.host_bits_of[i] != Some(win) {
                f.host_bits_of[i] = Some(win);
                self.window_bits(h, win, hb);
            }
            or_into(&mut base, hb);
        }
        f.open.iter().zip(&base).map(|(o, b)| o & !b).collect()
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
            if f.live[k].is_some() && !covers(only, &bits[k * w..(k + 1) * w]) {
                f.live[k] = None;
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

/// The servers an extra new host may be ([`Search::packing_fits`]).
struct Extra {
    /// Non-host servers and their windows.
    servers: Vec<(usize, (usize, usize))>,
    /// Once computed (empty before): per server, `w` words of its
    /// window's clients, and the union of them all.
    bits: Vec<u64>,
    union: Vec<u64>,
}

/// The state of one [`Search::packing_fits`] check.
struct Fit<'p> {
    /// The node's unassigned clients.
    open: &'p [u64],
    pk: &'p Packing,
    /// With one more new host than picks: the servers it may be.
    extra: Option<Extra>,
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
    budget: u32,
    scratch: Vec<u64>,
    rounds: Rounds,
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
    fn new(picks: usize, w: usize) -> Self {
        Rounds {
            union: vec![0; picks * w],
            alive: vec![0; picks],
            any: vec![0; w],
            more: vec![0; w],
            left: vec![0; w],
            spare: vec![0; w],
            only: vec![0; w],
        }
    }
}
