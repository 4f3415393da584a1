//! The search's switches for tests: each check of [`super`] can be
//! turned off, so that a test compares the search with and without it.

use super::{Search, EARLY_PACKING};

impl Search<'_> {
    /// Whether a tight orphan packing's new hosts are checked (on by
    /// default; [`packing`](super::packing)).
    pub(crate) fn set_packing(&mut self, on: bool) {
        self.packing = on;
    }

    /// Whether branches opening the last host are checked before their
    /// node (on by default; [`Search::last_host_fails`]).
    pub(crate) fn set_last_host(&mut self, on: bool) {
        self.last_host = on;
    }

    /// Whether the last-host check runs the forced moves (on by default;
    /// [`Search::all_hosts_fail`]).
    pub(crate) fn set_last_forced(&mut self, on: bool) {
        self.last_forced = on;
    }

    /// Whether branches opening the next-to-last host are checked before
    /// their node (on by default; [`Search::next_to_last_fails`]).
    pub(crate) fn set_next_to_last(&mut self, on: bool) {
        self.next_to_last = on;
    }

    /// Whether branches opening the third host from last are checked
    /// before their node (on by default; [`Search::third_to_last_fails`]).
    pub(crate) fn set_third_to_last(&mut self, on: bool) {
        self.third_to_last = on;
    }

    /// Whether branches opening a host with four or five hosts left are
    /// checked by their child's packing before their node (on by default;
    /// [`Search::opening_overpacks`]).
    pub(crate) fn set_early_packing(&mut self, on: bool) {
        self.early_packing = if on { EARLY_PACKING } else { 0 };
    }

    /// Whether every branch that check refutes is searched to the end
    /// without it (a solution there panics).
    pub(crate) fn set_early_packing_verify(&mut self, on: bool) {
        self.early_packing_verify = on;
    }

    /// Whether the two-server bound narrows the other windows against
    /// each pair (on by default; [`Search::pair_leaves_none`]).
    pub(crate) fn set_pair_narrowing(&mut self, on: bool) {
        self.pair_narrowing = on;
    }
}
