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
//! check prunes nothing). The search runs it only with room for three or
//! more new hosts (with one or two, its own checks were as strong: the same
//! node counts).
//!
//! Complexity: the packing `O(r·n·(log m + m/64))` for `r` picks, `n`
//! servers and `m` clients (as the bound alone cost before); a check adds
//! `O(a·(log m + m/64))` for its `a` candidates, and per backtracking node
//! `O(a·(r·log m + m/64) + h·(r·log m + m/64))` for `h` open hosts, at most
//! [`PACKING_NODES`] nodes.

use super::bits::{clear, ones, set, Counts};
use super::{Search, State};
use crate::problems::spd::exact::p2p::pair_q;

/// Most nodes of one [`Search::packing_fits`] check; past them it answers
/// "fits" (prunes nothing).
pub(super) const PACKING_NODES: u32 = 128;

/// The candidates of a tight packing's picked orphans.
struct Packing {
    picked: Vec<usize>,
    /// Per candidate: the picked orphan's index, the server, the orphan's
    /// access on it, and the server's window left by that orphan's
    /// same-host pairs.
    cands: Vec<Cand>,
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
    /// the room left (then the node is refuted).
    pub(super) fn packing(&self, st: &State, orphans: &[u64], opt: &Counts) -> Vec<usize> {
        let mut left = orphans.to_vec();
        let room = self.k.saturating_sub(st.hosts);
        let mut picked = Vec::new();
        let mut scratch = vec![0u64; self.w];
        // the least (options, client) still left, from the bit-sliced
        // counts: `O(m/64)` words a pick, where sorting every orphan cost
        // a fifth of the search's time at 200 servers
        while let Some(o) = ones(&opt.least_capped(&left)).next() {
            picked.push(o);
            if picked.len() > room {
                break;
            }
            clear(&mut left, o);
            self.each_candidate(st, o, &mut scratch, |_, _, _, z| {
                for (y, z) in left.iter_mut().zip(z) {
                    *y &= !z;
                }
            });
        }
        picked
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

    /// The candidate servers of each picked orphan.
    fn candidates(&self, st: &State, picked: &[usize]) -> Packing {
        let mut pk = Packing {
            picked: picked.to_vec(),
            cands: Vec::new(),
        };
        let mut scratch = vec![0u64; self.w];
        for (pick, &o) in picked.iter().enumerate() {
            self.each_candidate(st, o, &mut scratch, |s, x, win, _| {
                pk.cands.push(Cand { pick, s, x, win });
            });
        }
        pk
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
    pub(super) fn packing_fits(&self, st: &State, picked: &[usize]) -> bool {
        let pk = &self.candidates(st, picked);
        let hosts = (0..st.env.len())
            .filter(|&h| st.env[h].is_some())
            .map(|h| (h, st.win[h]))
            .collect();
        let mut fit = Fit {
            open: &st.open,
            pk,
            hosts,
            live: pk.cands.iter().map(|c| Some(c.win)).collect(),
            chosen: vec![None; pk.picked.len()],
            budget: PACKING_NODES,
            scratch: vec![0u64; self.w],
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
        for j in 0..f.pk.cands.len() {
            if f.pk.cands[j].pick != pick || f.live[j].is_none() {
                continue;
            }
            let saved = f.live.clone();
            self.fit_choose(f, j);
            f.chosen[pick] = Some(j);
            let fits = self.fit_from(f);
            f.chosen[pick] = None;
            f.live = saved;
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
            if d.pick == c.pick {
                continue;
            }
            let clash = d.s == c.s || !self.lim.fits(pair_q(self.inst, c.s, c.x, d.s, d.x));
            f.live[k] = if clash && f.chosen[d.pick].is_none() {
                None
            } else {
                Some(self.narrow(d.s, win, c.s, c.x, c.x))
            };
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
        let needy = self.fit_needy(f);
        let open: Vec<usize> = (0..f.pk.picked.len())
            .filter(|&p| f.chosen[p].is_none())
            .collect();
        // the live candidates of the picks not chosen, as bits
        let mut bits = vec![0u64; f.pk.cands.len() * w];
        for (k, d) in f.pk.cands.iter().enumerate() {
            if let (Some(win), None) = (f.live[k], f.chosen[d.pick]) {
                self.window_bits(d.s, win, &mut bits[k * w..(k + 1) * w]);
            }
        }
        loop {
            let mut union = vec![0u64; open.len() * w];
            let mut alive = vec![0usize; open.len()];
            for (i, &p) in open.iter().enumerate() {
                for (k, d) in f.pk.cands.iter().enumerate() {
                    if d.pick == p && f.live[k].is_some() {
                        alive[i] += 1;
                        or_into(&mut union[i * w..(i + 1) * w], &bits[k * w..(k + 1) * w]);
                    }
                }
            }
            if alive.contains(&0) {
                return None;
            }
            // the clients some pick covers, and those two or more cover
            let (mut any, mut more) = (vec![0u64; w], vec![0u64; w]);
            for u in union.chunks(w) {
                for ((a, b), u) in any.iter_mut().zip(more.iter_mut()).zip(u) {
                    *b |= *a & u;
                    *a |= u;
                }
            }
            if !covers(&needy, &any) {
                return None;
            }
            let mut changed = false;
            for (i, &p) in open.iter().enumerate() {
                // the needy clients only pick `p` covers
                let only: Vec<u64> = (0..w)
                    .map(|x| needy[x] & union[i * w + x] & !more[x])
                    .collect();
                changed |= self.fit_keep_covering(f, p, &only, &bits);
            }
            if !changed {
                let next = (0..open.len()).min_by_key(|&i| (alive[i], open[i]));
                return Some(next.map(|i| open[i]));
            }
        }
    }

    /// The unassigned clients neither the picks themselves, nor the chosen
    /// candidates' windows, nor the open hosts' windows narrowed by the
    /// chosen candidates hold.
    fn fit_needy(&self, f: &mut Fit) -> Vec<u64> {
        let mut base = vec![0u64; self.w];
        f.pk.picked.iter().for_each(|&o| set(&mut base, o));
        for &j in f.chosen.iter().flatten() {
            let d = f.pk.cands[j];
            self.window_bits(d.s, f.live[j].unwrap_or(d.win), &mut f.scratch);
            or_into(&mut base, &f.scratch);
        }
        for &(h, win) in &f.hosts {
            let win = f.chosen.iter().flatten().fold(win, |win, &j| {
                let d = f.pk.cands[j];
                self.narrow(h, win, d.s, d.x, d.x)
            });
            self.window_bits(h, win, &mut f.scratch);
            or_into(&mut base, &f.scratch);
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
        for (k, d) in f.pk.cands.iter().enumerate() {
            if d.pick == p && f.live[k].is_some() && !covers(only, &bits[k * w..(k + 1) * w]) {
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

/// The state of one [`Search::packing_fits`] check.
struct Fit<'p> {
    /// The node's unassigned clients.
    open: &'p [u64],
    pk: &'p Packing,
    /// The node's hosts and their windows.
    hosts: Vec<(usize, (usize, usize))>,
    /// Per candidate, its window narrowed by the chosen candidates
    /// (`None`: it clashes with one).
    live: Vec<Option<(usize, usize)>>,
    /// Per pick, its chosen candidate.
    chosen: Vec<Option<usize>>,
    budget: u32,
    scratch: Vec<u64>,
}
