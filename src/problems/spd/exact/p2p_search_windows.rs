//! The search's windows and placements ([`super`], steps 1 and 2): a
//! window as a bitset, narrowing it against a host's envelope, putting a
//! client on a server (then every window narrows and the free clients
//! join), the unassigned clients' options, and the forced moves.

#[cfg(test)]
use super::bits::Counts;
use super::bits::{clear, has, ones};
use super::{Search, State};
use crate::problems::spd::exact::p2p::pair_q_over;

impl Search<'_> {
    /// Access of the client at position `i` of server `s`.
    pub(super) fn val(&self, s: usize, i: usize) -> f64 {
        self.vals[s][i]
    }

    /// Window of server `s` as a bitset.
    pub(super) fn window_bits(&self, s: usize, (a, b): (usize, usize), out: &mut [u64]) {
        let w = self.w;
        let p = &self.prefix[s];
        for (j, o) in out.iter_mut().enumerate() {
            *o = p[b * w + j] & !p[a * w + j];
        }
    }

    /// Clears the clients of window `(a, b)` of server `s` from `from`;
    /// true when any client is left in `from`.
    pub(super) fn clear_window(&self, s: usize, (a, b): (usize, usize), from: &mut [u64]) -> bool {
        let (w, p) = (self.w, &self.prefix[s]);
        let mut left = 0;
        for (j, o) in from.iter_mut().enumerate() {
            *o &= !(p[b * w + j] & !p[a * w + j]);
            left |= *o;
        }
        left != 0
    }

    /// The part of window `(a, b)` of server `s` whose pair with the
    /// extremes `(lo, hi)` of host `t` fits (for `s == t`: same-host pairs).
    /// The window's ends are tested first: most updates change nothing.
    /// Pairs are summed as [`pair_q`](super::super::p2p::pair_q) sums
    /// them, the distance read once.
    pub(super) fn narrow(
        &self,
        s: usize,
        (a, b): (usize, usize),
        t: usize,
        lo: f64,
        hi: f64,
    ) -> (usize, usize) {
        let vals = &self.vals[s];
        let lim = &self.lim;
        let d = if s == t {
            0.0
        } else {
            self.inst.network.dist(s.min(t), s.max(t))
        };
        let q = |x: f64, y: f64| pair_q_over(d, s, x, t, y);
        let hi_ok = |x: f64| lim.hi_ok(q(x, hi));
        let b = if b > a && !hi_ok(vals[b - 1]) {
            gallop_down(&vals[a..b - 1], hi_ok) + a
        } else {
            b
        };
        let a = if lim.lo > f64::NEG_INFINITY && b > a {
            let lo_ok = |x: f64| lim.lo_ok(q(x, lo));
            if lo_ok(vals[a]) {
                a
            } else {
                a + 1 + gallop_up(&vals[a + 1..b], |x| !lo_ok(x))
            }
        } else {
            a
        };
        (a, b.max(a))
    }

    /// Puts client `c` (position `i` of server `s`) on `s`, then narrows
    /// every window and adds the clients it frees.
    pub(super) fn put(&self, st: &mut State, s: usize, i: usize) {
        if self.place(st, s, i) {
            self.free_on(st, s);
        }
    }

    /// [`Search::put`] without the free clients: true when `s`'s envelope
    /// grew (then the windows were narrowed and clients may be free).
    pub(super) fn place(&self, st: &mut State, s: usize, i: usize) -> bool {
        let c = self.lists[s][i].0;
        let (lo, hi) = match st.env[s] {
            None => {
                st.hosts += 1;
                (i, i)
            }
            Some((lo, hi)) => (
                if self.val(s, i) < self.val(s, lo) {
                    i
                } else {
                    lo
                },
                if self.val(s, i) > self.val(s, hi) {
                    i
                } else {
                    hi
                },
            ),
        };
        st.assign[c] = s;
        clear(&mut st.open, c);
        // (a descent's re-narrowing may have placed a branch's client by
        // the free rule: now it is placed by the branch)
        clear(&mut st.free, c);
        if st.env[s] == Some((lo, hi)) {
            return false;
        }
        st.env[s] = Some((lo, hi));
        let (vlo, vhi) = (self.val(s, lo), self.val(s, hi));
        for u in 0..st.win.len() {
            // with k hosts open no other server is an option any more
            if self.eligible(st, u) {
                st.win[u] = self.narrow(u, st.win[u], s, vlo, vhi);
            }
        }
        true
    }

    /// Assigns to host `s` the unassigned clients inside its envelope (by
    /// value) and its window: they change no envelope, so they never hurt.
    /// The envelope's run of the list starts and ends beside its extremes'
    /// positions (equal accesses included), and its clients are one
    /// prefix-bitset difference: `O(m/64 + ties + freed)`.
    pub(super) fn free_on(&self, st: &mut State, s: usize) {
        let Some((lo, hi)) = st.env[s] else {
            return;
        };
        let vals = &self.vals[s];
        let (vlo, vhi) = (vals[lo], vals[hi]);
        // without a lower limit the least access constrains nothing: every
        // client up to the largest is free
        let mut e0 = 0;
        if self.lim.lo > f64::NEG_INFINITY {
            e0 = lo;
            while e0 > 0 && vals[e0 - 1] >= vlo {
                e0 -= 1;
            }
        }
        let mut e1 = hi + 1;
        while e1 < vals.len() && vals[e1] <= vhi {
            e1 += 1;
        }
        let (a, b) = st.win[s];
        let (from, to) = (e0.max(a), e1.min(b));
        if from >= to {
            return;
        }
        let (w, p) = (self.w, &self.prefix[s]);
        for j in 0..w {
            let freed = p[to * w + j] & !p[from * w + j] & st.open[j];
            if freed == 0 {
                continue;
            }
            st.open[j] &= !freed;
            st.free[j] |= freed;
            let mut x = freed;
            while x != 0 {
                st.assign[j * 64 + x.trailing_zeros() as usize] = s;
                x &= x - 1;
            }
        }
    }

    /// Is server `s` an option now (a host, or a new host while fewer
    /// than `k` are open)?
    pub(super) fn eligible(&self, st: &State, s: usize) -> bool {
        st.env[s].is_some() || st.hosts < self.k
    }

    /// Forced moves (one pass per round) until none is left: false when a
    /// client is left without options. Leaves `st`'s option counts current.
    pub(super) fn propagate(&self, st: &mut State, scratch: &mut [u64]) -> bool {
        loop {
            self.count_options(st, scratch);
            if st.opt.misses(&st.open) {
                return false;
            }
            let single = st.opt.single_in(&st.open);
            if single.iter().all(|&x| x == 0) {
                return true;
            }
            for (c, s) in self.forced(st, &single, scratch) {
                if !has(&st.open, c) {
                    continue;
                }
                // its only option may have gone with an earlier move
                let room = self.eligible(st, s);
                match self.pos(st, s, c).filter(|_| room) {
                    Some(p) => self.put(st, s, p),
                    None => return false,
                }
            }
        }
    }

    /// Brings `st.opt` up to date: every client's count of eligible
    /// servers whose window holds it (assigned clients too; readers look
    /// at unassigned ones). Windows only shrink along a branch, so a
    /// server whose window moved since it was counted subtracts the part
    /// it lost: `O(n + n'·m/64)` for the `n'` windows that changed. When
    /// counting the eligible windows afresh is cheaper (once `k` hosts
    /// are open, every other server leaves at once), it does that.
    pub(super) fn count_options(&self, st: &mut State, scratch: &mut [u64]) {
        self.update_counts(st, scratch);
        // every search the tests run checks the counts against a fresh count
        #[cfg(test)]
        {
            let mut fresh = Counts::new(self.w, st.win.len());
            for s in (0..st.win.len()).filter(|&s| self.eligible(st, s)) {
                self.window_bits(s, st.win[s], scratch);
                fresh.add(scratch);
            }
            assert!(fresh == st.opt, "option counts drifted from a fresh count");
        }
    }

    /// [`Search::count_options`]'s update.
    fn update_counts(&self, st: &mut State, scratch: &mut [u64]) {
        let n = st.win.len();
        let target = |st: &State, s: usize| {
            if self.eligible(st, s) && st.win[s].0 < st.win[s].1 {
                st.win[s]
            } else {
                (0, 0)
            }
        };
        let (mut changed, mut live) = (0usize, 0usize);
        for s in 0..n {
            let now = target(st, s);
            changed += usize::from(now != st.counted[s]);
            live += usize::from(now.0 < now.1);
        }
        if changed == 0 {
            return;
        }
        if live < changed {
            st.opt.clear();
            for s in 0..n {
                let now = target(st, s);
                if now.0 < now.1 {
                    self.window_bits(s, now, scratch);
                    st.opt.add(scratch);
                }
                st.counted[s] = now;
            }
            return;
        }
        for s in 0..n {
            let now = target(st, s);
            let was = st.counted[s];
            if now == was {
                continue;
            }
            if now.0 == now.1 || (was.0 <= now.0 && now.1 <= was.1) {
                // lost: [was.0, now.0) and [now.1, was.1) (all of it when
                // nothing is left)
                let (cut_a, cut_b) = if now.0 == now.1 { (was.1, was.1) } else { now };
                for part in [(was.0, cut_a), (cut_b, was.1)] {
                    if part.0 < part.1 {
                        self.window_bits(s, part, scratch);
                        st.opt.sub(scratch);
                    }
                }
            } else {
                if was.0 < was.1 {
                    self.window_bits(s, was, scratch);
                    st.opt.sub(scratch);
                }
                self.window_bits(s, now, scratch);
                st.opt.add(scratch);
            }
            st.counted[s] = now;
        }
    }

    /// Forced moves: each unassigned client with a single option, with it.
    pub(super) fn forced(
        &self,
        st: &State,
        single: &[u64],
        scratch: &mut [u64],
    ) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        for s in 0..st.win.len() {
            if !self.eligible(st, s) || st.win[s].0 == st.win[s].1 {
                continue;
            }
            self.window_bits(s, st.win[s], scratch);
            for (o, x) in scratch.iter_mut().zip(single) {
                *o &= x;
            }
            out.extend(ones(scratch).map(|c| (c, s)));
        }
        out
    }

    /// Position of client `c` in `s`'s list (it is in the window).
    pub(super) fn pos(&self, st: &State, s: usize, c: usize) -> Option<usize> {
        let (a, b) = st.win[s];
        let p = self.at[c * st.win.len() + s] as usize;
        (a <= p && p < b).then_some(p)
    }

    /// The servers whose window holds client `c`, ascending, with its
    /// position on each ([`Search::pos`] over `c`'s servers only).
    pub(super) fn holding<'s>(
        &'s self,
        st: &'s State,
        c: usize,
    ) -> impl Iterator<Item = (usize, usize)> + 's {
        self.servers_of[c].iter().filter_map(move |&s| {
            let s = s as usize;
            self.pos(st, s, c).map(|p| (s, p))
        })
    }
}

/// The number of leading values of `v` that satisfy `ok` (true, then
/// false along `v`), searched from the end: steps of 1, 2, 4, … back, then
/// a binary search in the last step. `O(log d)` tests for the `d` values
/// past the answer: a narrowing usually cuts a few off a window's top.
fn gallop_down(v: &[f64], ok: impl Fn(f64) -> bool) -> usize {
    // every value from `end` on fails
    let mut end = v.len();
    let mut step = 1;
    while end > 0 {
        let probe = end.saturating_sub(step);
        if ok(v[probe]) {
            return probe + 1 + partition(&v[probe + 1..end], ok);
        }
        end = probe;
        step *= 2;
    }
    0
}

/// The number of leading values of `v` that satisfy `ok` (true, then
/// false along `v`), searched from the start as [`gallop_down`] searches
/// from the end.
fn gallop_up(v: &[f64], ok: impl Fn(f64) -> bool) -> usize {
    // every value before `start` satisfies `ok`
    let mut start = 0;
    let mut step = 1;
    while start < v.len() {
        let probe = (start + step - 1).min(v.len() - 1);
        if !ok(v[probe]) {
            return start + partition(&v[start..probe], ok);
        }
        start = probe + 1;
        step *= 2;
    }
    v.len()
}

/// `v.partition_point(ok)` written out: the gallops' last step, inlined
/// into them (left to the inliner, the standard one was sometimes a call
/// of its own, and narrowing 10% slower).
#[inline(always)]
fn partition(v: &[f64], ok: impl Fn(f64) -> bool) -> usize {
    let (mut lo, mut hi) = (0, v.len());
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if ok(v[mid]) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo
}

#[cfg(test)]
mod tests {
    use super::{gallop_down, gallop_up};
    use crate::core::Deadline;
    use crate::problems::spd::exact::p2p::allowed_pairs;
    use crate::problems::spd::exact::p2p_search::tests::paper_case;
    use crate::problems::spd::exact::p2p_search::Search;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// `holding` (a client's list) gives the servers and positions the
    /// loop over every server with `pos` gives, in the same order, also
    /// with narrowed windows.
    #[test]
    fn holding_equals_every_server_by_position() {
        let mut rng = ChaCha8Rng::seed_from_u64(41);
        let mut checked = 0;
        for seed in 0..60 {
            let (inst, lim) = paper_case(&mut rng, seed);
            let Ok(lists) = allowed_pairs(&inst, &lim) else {
                continue;
            };
            let search = Search::new(&inst, lim, lists, Deadline::none()).expect("small");
            let mut st = search.root_state();
            for win in st.win.iter_mut() {
                if win.1 > win.0 && rng.random::<bool>() {
                    let a = rng.random_range(win.0..win.1);
                    *win = (a, rng.random_range(a..=win.1));
                }
            }
            for c in 0..inst.clients() {
                let all: Vec<(usize, usize)> = (0..st.win.len())
                    .filter_map(|s| search.pos(&st, s, c).map(|p| (s, p)))
                    .collect();
                let listed: Vec<(usize, usize)> = search.holding(&st, c).collect();
                assert_eq!(listed, all, "seed {seed}, client {c}");
                checked += all.len();
            }
        }
        assert!(checked > 1000, "only {checked} positions checked");
    }

    #[test]
    fn gallops_equal_partition_point() {
        for n in 0..70usize {
            let v: Vec<f64> = (0..n).map(|i| i as f64).collect();
            for cut in 0..=n {
                let ok = |x: f64| x < cut as f64;
                assert_eq!(gallop_down(&v, ok), cut, "down n={n} cut={cut}");
                assert_eq!(gallop_up(&v, ok), cut, "up n={n} cut={cut}");
            }
        }
    }
}
