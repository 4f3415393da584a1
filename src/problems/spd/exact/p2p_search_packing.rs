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
//! orphan inside the window one of them leaves it (each new host's window
//! narrowed by the picked orphans on the others, as the search narrows
//! windows). A necessary condition, decided by a small backtracking search
//! of at most [`PACKING_NODES`] nodes (past it the check prunes nothing).
//! The search runs it only with room for three or more new hosts (with
//! one or two, its own checks were as strong: the same node counts).
//!
//! Complexity: the packing `O(r·n·(log m + m/64))` for `r` picks, `n`
//! servers and `m` clients (as the bound alone cost before); a check adds
//! the same again for its candidates and `O(PACKING_NODES·r·(log m +
//! m/64))` for its backtracking.

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
    /// Per candidate, `w` words: the orphans that window holds.
    bits: Vec<u64>,
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
    fn candidates(&self, st: &State, orphans: &[u64], picked: &[usize]) -> Packing {
        let mut pk = Packing {
            picked: picked.to_vec(),
            cands: Vec::new(),
            bits: Vec::new(),
        };
        let mut scratch = vec![0u64; self.w];
        for (pick, &o) in picked.iter().enumerate() {
            self.each_candidate(st, o, &mut scratch, |s, x, win, z| {
                pk.cands.push(Cand { pick, s, x, win });
                pk.bits.extend(z.iter().zip(orphans).map(|(z, o)| z & o));
            });
        }
        pk
    }

    /// With the packing as large as the room left: can each picked orphan
    /// get a server of its own so that the picked orphans' pairs fit and
    /// every orphan lies in some new host's window? `false` only when no
    /// choice works (then the node is refuted); `true` also when
    /// [`PACKING_NODES`] run out. Picked orphans with fewest candidate
    /// servers are placed first; a partial choice stops when the orphans
    /// neither its hosts' windows nor any later candidate's hold are left.
    pub(super) fn packing_fits(&self, st: &State, orphans: &[u64], picked: &[usize]) -> bool {
        let pk = &self.candidates(st, orphans, picked);
        let (r, w) = (pk.picked.len(), self.w);
        // each pick's candidates are one run of `cands` (pushed in order)
        let mut by = vec![(0usize, 0usize); r];
        for (i, c) in pk.cands.iter().enumerate() {
            if by[c.pick].1 == 0 {
                by[c.pick].0 = i;
            }
            by[c.pick].1 = i + 1;
        }
        let mut order: Vec<usize> = (0..r).collect();
        order.sort_unstable_by_key(|&i| (by[i].1 - by[i].0, i));
        // suf[i]: what the picks order[i..] could cover at most
        let mut suf = vec![0u64; (r + 1) * w];
        for i in (0..r).rev() {
            let (head, tail) = suf.split_at_mut((i + 1) * w);
            let row = &mut head[i * w..];
            row.copy_from_slice(&tail[..w]);
            set(row, pk.picked[order[i]]);
            let (from, to) = by[order[i]];
            for ci in from..to {
                for (y, z) in row.iter_mut().zip(&pk.bits[ci * w..(ci + 1) * w]) {
                    *y |= z;
                }
            }
        }
        let mut fit = Fit {
            orphans,
            pk,
            by: &by,
            order: &order,
            suf: &suf,
            chosen: Vec::with_capacity(r),
            budget: PACKING_NODES,
            scratch: vec![0u64; w],
            cov: vec![0u64; w],
        };
        self.fit_from(&mut fit)
    }

    /// One node of [`Search::packing_fits`]'s backtracking.
    fn fit_from(&self, f: &mut Fit) -> bool {
        if f.budget == 0 {
            return true;
        }
        f.budget -= 1;
        let (i, w) = (f.chosen.len(), self.w);
        f.cov.copy_from_slice(&f.suf[i * w..(i + 1) * w]);
        for d in &f.chosen {
            self.window_bits(d.s, d.win, &mut f.scratch);
            for (y, z) in f.cov.iter_mut().zip(&f.scratch) {
                *y |= z;
            }
            set(&mut f.cov, f.pk.picked[d.pick]);
        }
        if f.orphans.iter().zip(&f.cov).any(|(o, c)| o & !c != 0) {
            return false;
        }
        if i == f.order.len() {
            return true;
        }
        let (from, to) = f.by[f.order[i]];
        for j in from..to {
            let c = f.pk.cands[j];
            let clash = f
                .chosen
                .iter()
                .any(|d| d.s == c.s || !self.lim.fits(pair_q(self.inst, c.s, c.x, d.s, d.x)));
            if clash {
                continue;
            }
            let mut nc = c;
            let saved: Vec<(usize, usize)> = f.chosen.iter().map(|d| d.win).collect();
            for d in f.chosen.iter_mut() {
                nc.win = self.narrow(c.s, nc.win, d.s, d.x, d.x);
                d.win = self.narrow(d.s, d.win, c.s, c.x, c.x);
            }
            f.chosen.push(nc);
            let fits = self.fit_from(f);
            f.chosen.pop();
            for (d, win) in f.chosen.iter_mut().zip(saved) {
                d.win = win;
            }
            if fits {
                return true;
            }
        }
        false
    }
}

/// The state of one [`Search::packing_fits`] check.
struct Fit<'p> {
    orphans: &'p [u64],
    pk: &'p Packing,
    /// Per picked orphan, its run of candidates.
    by: &'p [(usize, usize)],
    order: &'p [usize],
    suf: &'p [u64],
    /// The candidates chosen so far, their windows narrowed by each other.
    chosen: Vec<Cand>,
    budget: u32,
    scratch: Vec<u64>,
    cov: Vec<u64>,
}
