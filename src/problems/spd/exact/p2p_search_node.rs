//! One node of the search ([`super`], steps 1–5): its forced moves and
//! bounds ([`Search::settle`]), then its branches in order
//! ([`Search::branches`]), each child a copy of the node's state with one
//! more client placed.

use super::bits::Bits;
use super::spare::BoundBufs;
use super::{Frame, Search, State, Stop};

/// Which check refuted a branch before its node.
enum Early {
    LastHost,
    NextToLast,
    ThirdToLast,
    Packing,
}

/// What [`Search::settle`] leaves of a node.
enum Settled {
    Dead,
    /// Every client placed.
    Complete,
    /// The branching client's values.
    Branch(Vec<(usize, usize)>),
}

impl Search<'_> {
    /// One node: forced moves, bounds, then its branches (its frame goes
    /// on `stack`, where a split search may donate its untried branches).
    pub(super) fn node(
        &mut self,
        mut st: State,
        stack: &mut Vec<Frame>,
    ) -> Result<Option<State>, Stop> {
        self.tick()?;
        let mut scratch = self.words();
        let settled = self.settle(&mut st, &mut scratch);
        self.give_words(scratch);
        match settled {
            Settled::Dead => {
                self.recycle(st);
                Ok(None)
            }
            Settled::Complete => self.complete(st, stack),
            Settled::Branch(values) => {
                let frame = Frame {
                    st,
                    values,
                    next: 0,
                    first: 0,
                };
                self.branches(frame, stack)
            }
        }
    }

    /// A node's forced moves and bounds, then (when it lives and has
    /// clients left) its branching client's values.
    fn settle(&mut self, st: &mut State, scratch: &mut [u64]) -> Settled {
        if self.stale(st) && !self.renarrow(st) {
            return Settled::Dead;
        }
        if !self.propagate(st, scratch) {
            return Settled::Dead;
        }
        if st.open.iter().all(|&x| x == 0) {
            return Settled::Complete;
        }
        let orphans = self.orphans(st);
        let mut bufs = std::mem::take(&mut self.spare.bounds);
        let refuted = self.orphans_refute(st, &orphans, scratch, &mut bufs);
        if self.keeps() {
            self.spare.bounds = bufs;
        }
        if refuted {
            return Settled::Dead;
        }
        let c = self.pick(st, &orphans, &st.opt);
        Settled::Branch(self.values(st, c, scratch))
    }

    /// Whether the orphan bounds (step 3) refute the node, in the bounds'
    /// buffers `b`.
    fn orphans_refute(
        &mut self,
        st: &State,
        orphans: &[u64],
        scratch: &mut [u64],
        b: &mut BoundBufs,
    ) -> bool {
        let (pk, fit) = (&mut b.packing, &mut b.fit);
        let opt = &st.opt;
        self.packing(st, (orphans, opt), None, pk);
        let picked = pk.picked.len();
        if st.hosts + picked > self.k {
            return true;
        }
        // (with room for one or two, the checks below are as strong)
        if self.packing
            && st.hosts + picked + 1 >= self.k
            && self.k >= st.hosts + 3
            && !self.packing_fits(st, pk, (st.hosts + picked < self.k, None), fit)
        {
            self.packing_refuted += 1;
            return true;
        }
        if st.hosts + 1 == self.k && !self.one_server_takes(st, orphans, scratch) {
            return true;
        }
        if st.hosts + 2 == self.k {
            let (takes, refused) = self.two_servers_take(st, (orphans, None), opt, &mut b.pair);
            if !takes {
                self.pair_narrowing_refuted += u64::from(refused);
                return true;
            }
        }
        false
    }

    /// A node with every client placed: a solution, or under a descent a
    /// bound that moves on (the node goes on under the new limit; its
    /// free clients were placed under the old one).
    fn complete(&mut self, st: State, stack: &mut Vec<Frame>) -> Result<Option<State>, Stop> {
        if self.descent.is_some() {
            let again = st.clone();
            self.improve(st);
            if !self.stale(&again) {
                return Ok(None);
            }
            return self.node(again, stack);
        }
        self.solved();
        Ok(Some(st))
    }

    /// Whether a branch opening one of the last three hosts is refuted
    /// before its node is built, and by which check
    /// ([`Search::last_host_fails`], [`Search::next_to_last_fails`],
    /// [`Search::third_to_last_fails`]). `orphans` is the node's, computed
    /// at its first last-host check; `need` and `spare` are scratch.
    fn refuted_early(
        &mut self,
        st: &State,
        (s, p): (usize, usize),
        orphans: &mut Option<Bits>,
        (need, spare): (&mut [u64], &mut [u64]),
    ) -> Option<Early> {
        if st.env[s].is_some() {
            return None;
        }
        match self.k.checked_sub(st.hosts) {
            Some(1) => {
                let mut last = std::mem::take(&mut self.spare.last);
                let fails = self.last_host_fails(st, (s, p), orphans, (need, &mut last));
                if self.keeps() {
                    self.spare.last = last;
                }
                fails.then_some(Early::LastHost)
            }
            Some(2) => self
                .next_to_last_fails(st, (s, p), (need, spare))
                .then_some(Early::NextToLast),
            Some(3) => {
                let mut pair = std::mem::take(&mut self.spare.bounds.pair);
                let fails = self.third_to_last_fails(st, (s, p), need, &mut pair);
                if self.keeps() {
                    self.spare.bounds.pair = pair;
                }
                fails.then_some(Early::ThirdToLast)
            }
            Some(r) if (4..=self.early_packing).contains(&r) => {
                let mut b = std::mem::take(&mut self.spare.bounds);
                let fails = self.opening_overpacks(st, (s, p), need, &mut b);
                if self.keeps() {
                    self.spare.bounds = b;
                }
                #[cfg(test)]
                if fails && self.early_packing_verify {
                    self.verify_dead(st, (s, p));
                }
                fails.then_some(Early::Packing)
            }
            _ => None,
        }
    }

    /// Tests: searches the branch's child to the end with no early
    /// packing check and no node budget; panics when it has a solution.
    #[cfg(test)]
    fn verify_dead(&self, st: &State, (s, p): (usize, usize)) {
        let mut other = self.clone();
        other.early_packing = 0;
        other.budget = u64::MAX;
        let mut child = st.clone();
        other.put(&mut child, s, p);
        let found = other.node(child, &mut Vec::new());
        assert!(
            !matches!(found, Ok(Some(_))),
            "the early packing check refuted a branch with a solution (s {s}, p {p}, {} hosts of {})",
            st.hosts,
            self.k
        );
    }

    /// Tries the branches of `frame` in order; a refuted branch cuts its
    /// later siblings ([`Search::cap_refuted`]).
    pub(super) fn branches(
        &mut self,
        frame: Frame,
        stack: &mut Vec<Frame>,
    ) -> Result<Option<State>, Stop> {
        let level = stack.len();
        stack.push(frame);
        let mut need = self.words();
        let mut spare = self.words();
        // the node's orphans, computed at its first last-host check
        let mut orphans = None;
        let out = loop {
            self.maybe_donate(stack);
            if self.stale(&stack[level].st) && !self.renarrow(&mut stack[level].st) {
                break Ok(None);
            }
            let f = &mut stack[level];
            let Some(&(s, p)) = f.values.get(f.next) else {
                break Ok(None);
            };
            let index = f.first + f.next as u32;
            f.next += 1;
            // a descent's tighter limit may have narrowed the window
            let (a, b) = f.st.win[s];
            if p < a || p >= b {
                continue;
            }
            let early = self.refuted_early(
                &stack[level].st,
                (s, p),
                &mut orphans,
                (&mut need, &mut spare),
            );
            if let Some(which) = early {
                // counted as the node it spares (budgets, probing passes and
                // donations see the same counts)
                if let Err(stop) = self.tick() {
                    break Err(stop);
                }
                self.count_early(which);
                self.cap_refuted(&mut stack[level].st, s, p);
                continue;
            }
            let mut child = self.child_of(&stack[level].st);
            self.put(&mut child, s, p);
            self.path.push(index);
            let found = self.node(child, stack);
            self.path.pop();
            match found {
                Ok(None) => self.cap_refuted(&mut stack[level].st, s, p),
                done => break done,
            }
        };
        self.unwind(stack, level);
        self.give_words(need);
        self.give_words(spare);
        out
    }

    /// Counts a branch refuted before its node, by the check that did.
    fn count_early(&mut self, which: Early) {
        *match which {
            Early::LastHost => &mut self.last_host_refuted,
            Early::NextToLast => &mut self.next_to_last_refuted,
            Early::ThirdToLast => &mut self.third_to_last_refuted,
            Early::Packing => &mut self.early_packing_refuted,
        } += 1;
    }

    /// Pops the frames from `level` up, their states' buffers kept for
    /// reuse.
    fn unwind(&mut self, stack: &mut Vec<Frame>, level: usize) {
        while stack.len() > level {
            if let Some(f) = stack.pop() {
                self.recycle(f.st);
            }
        }
    }
}
