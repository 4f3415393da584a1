//! Buffers the search reuses instead of allocating per node: the orphan
//! bounds' (the packing, its check, the two-server bound: [`BoundBufs`]),
//! one-bitset scratch, and the states of refuted nodes (a branch's child
//! copies its parent into one, [`State::clone_from`]). The allocator took
//! about 15% of a hard refutation's time before (160 × 800 f = 1.2 seed
//! 3's delay proof; docs/spd-scale.md, twenty-second round), about 1.5%
//! since. Each worker of a split search keeps its own (a clone of a
//! search starts with none); what is kept is bounded by the largest node
//! seen, plus [`MOST_STATES`] states.

use super::bits::Bits;
use super::bounds::PairBufs;
use super::fit::FitBufs;
use super::last::LastBufs;
use super::packing::Packing;
use super::{Search, State};

/// Most states kept: a refuted subtree gives back one state a level, and
/// the next branch takes one.
const MOST_STATES: usize = 64;

/// Most scratch bitsets kept.
const MOST_WORDS: usize = 16;

/// The kept buffers.
#[derive(Default)]
pub(super) struct Spare {
    states: Vec<State>,
    words: Vec<Bits>,
    /// The orphan bounds' buffers.
    pub(super) bounds: BoundBufs,
    /// The last-host check's ([`Search::all_hosts_fail`]).
    pub(super) last: LastBufs,
    /// Tests: keep nothing (every node allocates afresh, as before).
    #[cfg(test)]
    pub(super) keep_none: bool,
}

/// The buffers of a node's orphan bounds (step 3 of [`super`]).
#[derive(Default)]
pub(super) struct BoundBufs {
    /// The packing's ([`Search::packing`]) and its check's
    /// ([`Search::packing_fits`]).
    pub(super) packing: Packing,
    pub(super) fit: FitBufs,
    /// The two-server bound's ([`Search::two_servers_take`]).
    pub(super) pair: PairBufs,
}

impl Clone for Spare {
    /// None: buffers are per worker.
    fn clone(&self) -> Self {
        Spare::default()
    }
}

impl Search<'_> {
    /// Whether buffers are kept (always but in the tests that compare).
    pub(super) fn keeps(&self) -> bool {
        #[cfg(test)]
        if self.spare.keep_none {
            return false;
        }
        true
    }

    /// Tests: whether the search keeps its buffers.
    #[cfg(test)]
    pub(super) fn set_keep(&mut self, on: bool) {
        self.spare.keep_none = !on;
    }

    /// A copy of `parent` for its child, in a kept state's buffers when
    /// there is one.
    pub(super) fn child_of(&mut self, parent: &State) -> State {
        match self.spare.states.pop() {
            Some(mut st) => {
                st.clone_from(parent);
                st
            }
            None => parent.clone(),
        }
    }

    /// Keeps the state of a node that is done with it.
    pub(super) fn recycle(&mut self, st: State) {
        if self.keeps() && self.spare.states.len() < MOST_STATES {
            self.spare.states.push(st);
        }
    }

    /// A zeroed bitset of the search's width.
    pub(super) fn words(&mut self) -> Bits {
        match self.spare.words.pop() {
            Some(mut b) => {
                b.fill(0);
                b
            }
            None => vec![0; self.w],
        }
    }

    /// Keeps a bitset [`Search::words`] gave.
    pub(super) fn give_words(&mut self, b: Bits) {
        if self.keeps() && self.spare.words.len() < MOST_WORDS && b.len() == self.w {
            self.spare.words.push(b);
        }
    }
}

impl Clone for State {
    fn clone(&self) -> Self {
        State {
            env: self.env.clone(),
            win: self.win.clone(),
            open: self.open.clone(),
            free: self.free.clone(),
            assign: self.assign.clone(),
            hosts: self.hosts,
            lim: self.lim,
            opt: self.opt.clone(),
            counted: self.counted.clone(),
            caps_gen: self.caps_gen,
        }
    }

    /// Copies `src` into this state's buffers (no allocation when the
    /// sizes match, as between two states of one search).
    fn clone_from(&mut self, src: &Self) {
        self.env.clone_from(&src.env);
        self.win.clone_from(&src.win);
        self.open.clone_from(&src.open);
        self.free.clone_from(&src.free);
        self.assign.clone_from(&src.assign);
        self.hosts = src.hosts;
        self.lim = src.lim;
        self.opt.clone_from(&src.opt);
        self.counted.clone_from(&src.counted);
        self.caps_gen = src.caps_gen;
    }
}
