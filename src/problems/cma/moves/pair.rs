//! Heap mode of a mirror pair `(u, v)` whose source mirror holds many
//! clients: a budgeted binary min-heap of candidate moves with lazy
//! deletion.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// A candidate move of `client` (with `stamp`) along a pair, key `d(i,v) − d(i,u)`.
#[derive(Debug, Clone, Copy)]
pub(super) struct Entry {
    pub key: f64,
    pub client: u32,
    pub stamp: u32,
}

impl Entry {
    pub fn order(&self, other: &Self) -> Ordering {
        self.key
            .total_cmp(&other.key)
            .then(self.client.cmp(&other.client))
    }
}

impl PartialEq for Entry {
    fn eq(&self, other: &Self) -> bool {
        self.order(other) == Ordering::Equal
    }
}
impl Eq for Entry {}
impl Ord for Entry {
    /// Reversed: `BinaryHeap<Entry>` pops the least (key, client) first.
    fn cmp(&self, other: &Self) -> Ordering {
        other.order(self)
    }
}
impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// An entry carries the client's move stamp, so a client that left is
/// skipped when it surfaces. The heap need not hold every client of `u`: it
/// holds every client whose move is at most `tau` in the order of
/// [`Entry::order`] (key, then client; `None`: every client), so its valid
/// top is the true minimum whenever the heap [`covers`](Heap::covers) it;
/// otherwise the pair is rescanned with a larger budget. Ordering ties by
/// client keeps the heap at its budget even when many moves cost the same
/// (identical rows).
#[derive(Debug, Clone)]
pub(super) struct Heap {
    pub heap: BinaryHeap<Entry>,
    pub tau: Option<(f64, u32)>,
    pub budget: usize,
}

impl Heap {
    /// The `budget` least of `entries` (all of them when they fit).
    pub fn from_entries(mut entries: Vec<Entry>, budget: usize) -> Heap {
        let tau = if entries.len() <= budget {
            None
        } else {
            entries.select_nth_unstable_by(budget - 1, Entry::order);
            entries.truncate(budget);
            let last = entries[budget - 1];
            Some((last.key, last.client))
        };
        Heap {
            heap: BinaryHeap::from(entries),
            tau,
            budget,
        }
    }

    /// True when every move up to `(key, client)` is in the heap.
    pub fn covers(&self, key: f64, client: u32) -> bool {
        self.tau
            .is_none_or(|(k, c)| key.total_cmp(&k).then(client.cmp(&c)) != Ordering::Greater)
    }
}
