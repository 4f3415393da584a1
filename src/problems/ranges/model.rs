//! The range-partitioning model (problems.md §6): `K` cells in linear (curve)
//! order with a publication rate each, subscriptions that are sets of cell
//! intervals with a rate, and `N` nodes; a solution gives every cell an owner
//! node, either as a contiguous split (`starts`) or cell by cell (`owner`).

use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};

/// How the cells of a 2-D map are put in linear order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Curve {
    /// The Hilbert curve (on the enclosing power-of-two square).
    Hilbert,
    /// Z-order (Morton): interleaved bits of x and y.
    Z,
    /// Row by row (`y · width + x`).
    Row,
    /// By the x key, column by column (`x · height + y`): Colyseus'
    /// rangedht key (an extension of formats.md, see docs/ranges.md).
    X,
}

impl Curve {
    /// The curve named `s` (`hilbert`, `z`, `row`, `x`).
    pub fn parse(s: &str) -> Option<Curve> {
        match s {
            "hilbert" => Some(Curve::Hilbert),
            "z" => Some(Curve::Z),
            "row" => Some(Curve::Row),
            "x" => Some(Curve::X),
            _ => None,
        }
    }

    /// Its name in files.
    pub fn name(self) -> &'static str {
        match self {
            Curve::Hilbert => "hilbert",
            Curve::Z => "z",
            Curve::Row => "row",
            Curve::X => "x",
        }
    }
}

/// The 2-D map the cells come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MapSpec {
    /// Squares along x.
    pub width: usize,
    /// Squares along y.
    pub height: usize,
    /// The linear order of the squares.
    pub curve: Curve,
}

/// A subscription: inclusive cell intervals (sorted, disjoint, not adjacent
/// after reading) and a rate.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Subscription {
    /// Inclusive `[first, last]` cell intervals.
    pub ranges: Vec<[usize; 2]>,
    /// Its rate (added once to every node it touches).
    pub rate: f64,
}

/// A range-partitioning instance.
#[derive(Debug, Clone, PartialEq)]
pub struct RangesInstance {
    /// Instance name.
    pub name: String,
    /// `N`, the number of nodes.
    pub nodes: usize,
    /// Publication rate per cell (`K` entries).
    pub publish: Vec<f64>,
    /// The subscriptions, intervals normalised (sorted, merged).
    pub subscriptions: Vec<Subscription>,
    /// The map the cells linearise, when known.
    pub map: Option<MapSpec>,
    /// Free-form provenance.
    pub source: Option<String>,
}

impl RangesInstance {
    /// `K`, the number of cells.
    pub fn cells(&self) -> usize {
        self.publish.len()
    }

    /// Total number of subscription intervals.
    pub fn intervals(&self) -> usize {
        self.subscriptions.iter().map(|s| s.ranges.len()).sum()
    }
}

/// Sorts and merges intervals (overlapping or adjacent ones become one).
pub fn normalise(ranges: &[[usize; 2]]) -> Vec<[usize; 2]> {
    let mut r = ranges.to_vec();
    r.sort_unstable();
    let mut out: Vec<[usize; 2]> = Vec::with_capacity(r.len());
    for [a, b] in r {
        match out.last_mut() {
            Some(last) if a <= last[1].saturating_add(1) => last[1] = last[1].max(b),
            _ => out.push([a, b]),
        }
    }
    out
}

/// A solution as written: a contiguous split or an owner per cell.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum RangesSolution {
    /// `{"starts": [0, s1, …]}`: node `i` owns `starts[i] .. starts[i+1]−1`.
    Split(Starts),
    /// `{"owner": [node per cell]}`.
    Owners(Owners),
}

/// A contiguous split.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Starts {
    /// First cell of every node, ascending, `starts[0] = 0`, one per node.
    pub starts: Vec<usize>,
}

/// An owner per cell.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Owners {
    /// `owner[c]` = the node of cell `c`.
    pub owner: Vec<usize>,
}

/// Checks a split against `k` cells and `n` nodes (the field named
/// `starts`, `file` for messages).
pub fn check_starts(starts: &[usize], k: usize, n: usize, file: &str) -> Result<()> {
    if starts.len() != n {
        return Err(Error::input(
            file,
            "starts",
            format!("has {} entries, expected {n} (one per node)", starts.len()),
        ));
    }
    if starts.first().is_some_and(|&s| s != 0) {
        return Err(Error::input(file, "starts[0]", "must be 0"));
    }
    for (i, w) in starts.windows(2).enumerate() {
        if w[1] < w[0] {
            return Err(Error::input(
                file,
                format!("starts[{}]", i + 1),
                format!("{} is below starts[{i}] = {} (must ascend)", w[1], w[0]),
            ));
        }
    }
    if let Some((i, &s)) = starts.iter().enumerate().find(|(_, &s)| s > k) {
        return Err(Error::input(
            file,
            format!("starts[{i}]"),
            format!("{s} is beyond the {k} cells"),
        ));
    }
    Ok(())
}

/// The owner per cell of a (checked) split of `k` cells. `O(K + N)`.
pub fn starts_to_owner(starts: &[usize], k: usize) -> Vec<usize> {
    let mut owner = vec![0; k];
    for (i, &s) in starts.iter().enumerate() {
        let end = starts.get(i + 1).copied().unwrap_or(k).min(k);
        for o in owner.iter_mut().take(end).skip(s) {
            *o = i;
        }
    }
    owner
}

/// The split of an owner vector, when it is one: nodes own ascending
/// contiguous ranges (a node with no cell gets an empty range where its
/// index falls). `None` when the owners are not contiguous in node order.
pub fn owner_to_starts(owner: &[usize], n: usize) -> Option<Vec<usize>> {
    if owner.windows(2).any(|w| w[1] < w[0]) || owner.iter().any(|&o| o >= n) {
        return None;
    }
    let mut starts = vec![0; n];
    let mut c = 0;
    for (node, s) in starts.iter_mut().enumerate() {
        while c < owner.len() && owner[c] < node {
            c += 1;
        }
        *s = c;
    }
    Some(starts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn starts_and_owner_round_trip() {
        let starts = vec![0, 3, 3, 5];
        let owner = starts_to_owner(&starts, 7);
        assert_eq!(owner, vec![0, 0, 0, 2, 2, 3, 3]);
        assert_eq!(owner_to_starts(&owner, 4), Some(starts));
        assert_eq!(owner_to_starts(&[1, 0], 2), None);
    }

    #[test]
    fn intervals_are_merged() {
        assert_eq!(
            normalise(&[[5, 6], [0, 2], [3, 3], [9, 9], [6, 7]]),
            vec![[0, 3], [5, 7], [9, 9]]
        );
    }
}
