//! The orphan packing bound ([`super`], step 3).
//!
//! Orphans (unassigned clients no host's window holds) need new hosts. A
//! greedy *packing* picks orphans no non-host server can take two of (in
//! its window, their same-host pair fitting): each needs a new host of its
//! own, so the packing's size is a lower bound on the new hosts. When it
//! equals the room left (`k` minus the open hosts), or is one short of
//! it, the check that its new hosts fit together runs ([`super::fit`]).
//!
//! Complexity: `O(r·n'·(log m + m/64))` for `r` picks, at most `n'`
//! servers on a pick's list (of `n`; [`Search::holding`]) and `m`
//! clients, keeping its `a` candidates' windows (`a·⌈m/64⌉` words) for
//! the check.

use super::bits::{clear, ones, Counts};
use super::{Search, State};

/// A packing's picked orphans and their candidates (its buffers are
/// reused from node to node: [`Search::packing`]).
#[derive(Default)]
pub(super) struct Packing {
    pub(super) picked: Vec<usize>,
    /// Per candidate: the picked orphan's index, the server, the orphan's
    /// access on it, and the server's window left by that orphan's
    /// same-host pairs. By pick: pick `p`'s are `cands[of[p]..of[p+1]]`.
    pub(super) cands: Vec<Cand>,
    of: Vec<usize>,
    /// Per candidate, `w` words: its window's clients (the packing
    /// computed them; the check starts from them).
    pub(super) bits: Vec<u64>,
    /// The packing's buffers: the orphans left, and one window's bits.
    left: Vec<u64>,
    scratch: Vec<u64>,
}

impl Packing {
    /// The indices of pick `p`'s candidates.
    pub(super) fn of(&self, p: usize) -> std::ops::Range<usize> {
        self.of[p]..self.of[p + 1]
    }
}

/// A branch's new host before its node is built: the server, its
/// client's access on it, and that client (`None`: the node's own state).
pub(super) type Opened = Option<(usize, f64, usize)>;

#[derive(Clone, Copy)]
pub(super) struct Cand {
    pub(super) pick: usize,
    pub(super) s: usize,
    pub(super) x: f64,
    pub(super) win: (usize, usize),
}

impl Search<'_> {
    /// Server `t`'s window, narrowed against `opened`'s envelope (its
    /// client's access on the new host) when there is one.
    pub(super) fn window_opened(&self, st: &State, t: usize, opened: Opened) -> (usize, usize) {
        match opened {
            Some((s, x, _)) => self.narrow(t, st.win[t], s, x, x),
            None => st.win[t],
        }
    }

    /// The greedy packing: orphans by fewest options; each pick removes
    /// the orphans some non-host server could take with it. Stops one past
    /// the room left (then the node is refuted). Keeps each pick's
    /// candidates (those servers) for [`Search::packing_fits`].
    /// Into `pk`, its contents replaced (its buffers reused).
    ///
    /// With `opened` (a server `s` not a host, a client's access `x` on it,
    /// and that client), the packing is the one of the child where that
    /// client opens `s`: `s` is a host (not a candidate, one less room) and
    /// every candidate's window is narrowed against its envelope.
    pub(super) fn packing(
        &self,
        st: &State,
        (orphans, opt): (&[u64], &Counts),
        opened: Opened,
        pk: &mut Packing,
    ) {
        let left = &mut pk.left;
        left.clear();
        left.extend_from_slice(orphans);
        let room = self
            .k
            .saturating_sub(st.hosts + usize::from(opened.is_some()));
        pk.picked.clear();
        pk.cands.clear();
        pk.of.clear();
        pk.of.push(0);
        pk.bits.clear();
        let scratch = &mut pk.scratch;
        scratch.clear();
        scratch.resize(self.w, 0);
        // the least (options, client) still left, from the bit-sliced
        // counts: `O(m/64)` words a pick, where sorting every orphan cost
        // a fifth of the search's time at 200 servers
        while let Some(o) = ones(&opt.least_capped(left)).next() {
            let pick = pk.picked.len();
            pk.picked.push(o);
            if pk.picked.len() > room {
                // (no candidates listed: the node is refuted)
                pk.of.push(pk.cands.len());
                break;
            }
            clear(left, o);
            self.each_candidate(st, (o, opened), scratch, |s, x, win, z| {
                for (y, z) in left.iter_mut().zip(z) {
                    *y &= !z;
                }
                pk.cands.push(Cand { pick, s, x, win });
                pk.bits.extend_from_slice(z);
            });
            pk.of.push(pk.cands.len());
        }
    }

    /// Calls `f(s, x, window, bits)` for every non-host server `s` whose
    /// window holds orphan `o` (at access `x`): the window left by `o`'s
    /// same-host pairs (and `opened`'s envelope), and its clients as bits.
    fn each_candidate(
        &self,
        st: &State,
        (o, opened): (usize, Opened),
        scratch: &mut [u64],
        mut f: impl FnMut(usize, f64, (usize, usize), &[u64]),
    ) {
        for (s, p) in self.holding(st, o) {
            if st.env[s].is_some() || opened.is_some_and(|(t, _, _)| t == s) {
                continue;
            }
            // `o` itself must pair with the new host's client
            let win = self.window_opened(st, s, opened);
            if p < win.0 || p >= win.1 {
                continue;
            }
            let x = self.val(s, p);
            let win = self.narrow(s, win, s, x, x);
            self.window_bits(s, win, scratch);
            f(s, x, win, scratch);
        }
    }
}
