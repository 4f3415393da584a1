//! The servers' well-provisioned network (problems.md §1 "Network model").
//!
//! Links live in a petgraph [`UnGraph`]; [`ServerNetwork::new`] runs one
//! deterministic Dijkstra per server — `O(n · (n + e) log n)` in all — and keeps
//! the distance matrix `D` and each source's shortest-path tree. Ties are broken
//! by the lower index (a node is settled before a higher-indexed one at equal
//! distance, and among equal-length paths the predecessor with the lower index
//! wins), which defines the *canonical* paths used to report relays.
//! Disconnected servers are at distance `f64::INFINITY`; nothing panics.

use petgraph::graph::{NodeIndex, UnGraph};
use petgraph::visit::EdgeRef;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// The most servers a network may have: it keeps `n × n` distance and
/// predecessor tables (24 bytes a pair, 2.4 GB at this limit) and runs one
/// Dijkstra per server. Readers and generators refuse larger counts.
pub const MAX_SERVERS: usize = 10_000;

/// An undirected server network with all-pairs shortest paths.
#[derive(Debug, Clone)]
pub struct ServerNetwork {
    graph: UnGraph<(), f64>,
    n: usize,
    /// `dist[s * n + t]`: shortest-path latency from `s` to `t`.
    dist: Vec<f64>,
    /// `pred[s * n + t]`: predecessor of `t` on the canonical path from `s`.
    pred: Vec<Option<usize>>,
    /// Direct neighbours of each server, ascending.
    neighbours: Vec<Vec<usize>>,
}

#[derive(Copy, Clone, PartialEq)]
struct HeapItem {
    dist: f64,
    node: usize,
}

impl Eq for HeapItem {}

impl Ord for HeapItem {
    fn cmp(&self, other: &Self) -> Ordering {
        // BinaryHeap is a max-heap: reverse so the least (dist, node) pops first.
        other
            .dist
            .total_cmp(&self.dist)
            .then_with(|| other.node.cmp(&self.node))
    }
}

impl PartialOrd for HeapItem {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl ServerNetwork {
    /// Builds the network of `n` servers from undirected links `(u, v, latency)`.
    ///
    /// Links must already be validated (indices `< n`, latencies finite and
    /// `>= 0`); parallel links keep the smaller latency. Self-loops are ignored.
    /// `n` should be at most [`MAX_SERVERS`] (callers check it against their
    /// data first: the tables take `n²` entries).
    pub fn new(n: usize, links: &[(usize, usize, f64)]) -> Self {
        let mut graph = UnGraph::<(), f64>::with_capacity(n, links.len());
        for _ in 0..n {
            graph.add_node(());
        }
        let mut neighbours = vec![Vec::new(); n];
        for &(u, v, w) in links {
            if u == v || u >= n || v >= n {
                continue;
            }
            match graph.find_edge(NodeIndex::new(u), NodeIndex::new(v)) {
                Some(e) => {
                    if let Some(old) = graph.edge_weight_mut(e) {
                        *old = old.min(w);
                    }
                }
                None => {
                    graph.add_edge(NodeIndex::new(u), NodeIndex::new(v), w);
                    neighbours[u].push(v);
                    neighbours[v].push(u);
                }
            }
        }
        for list in &mut neighbours {
            list.sort_unstable();
        }
        let mut net = ServerNetwork {
            graph,
            n,
            dist: vec![f64::INFINITY; n * n],
            pred: vec![None; n * n],
            neighbours,
        };
        for s in 0..n {
            net.dijkstra_from(s);
        }
        net
    }

    /// Builds the network from an `n × n` latency matrix (`None` = no link);
    /// the matrix is treated as a complete overlay whose distances are its
    /// shortest-path closure. Only the upper triangle is read: callers validate
    /// symmetry first.
    pub fn from_matrix(matrix: &[Vec<Option<f64>>]) -> Self {
        let n = matrix.len();
        let mut links = Vec::new();
        for (u, row) in matrix.iter().enumerate() {
            for (v, cell) in row.iter().enumerate().skip(u + 1) {
                if let Some(w) = cell {
                    links.push((u, v, *w));
                }
            }
        }
        Self::new(n, &links)
    }

    fn dijkstra_from(&mut self, source: usize) {
        let n = self.n;
        let base = source * n;
        let mut done = vec![false; n];
        let mut heap = BinaryHeap::new();
        self.dist[base + source] = 0.0;
        heap.push(HeapItem {
            dist: 0.0,
            node: source,
        });
        while let Some(HeapItem { dist, node }) = heap.pop() {
            if done[node] {
                continue;
            }
            done[node] = true;
            for edge in self.graph.edges(NodeIndex::new(node)) {
                let next = if edge.source().index() == node {
                    edge.target().index()
                } else {
                    edge.source().index()
                };
                if done[next] {
                    continue;
                }
                let candidate = dist + *edge.weight();
                let current = self.dist[base + next];
                let better = candidate < current
                    || (candidate == current && self.pred[base + next].is_some_and(|p| node < p));
                if better {
                    self.dist[base + next] = candidate;
                    self.pred[base + next] = Some(node);
                    heap.push(HeapItem {
                        dist: candidate,
                        node: next,
                    });
                }
            }
        }
    }

    /// Number of servers.
    pub fn len(&self) -> usize {
        self.n
    }

    /// True when there are no servers.
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// Shortest-path latency `D(s, t)`; infinite when disconnected.
    #[inline]
    pub fn dist(&self, s: usize, t: usize) -> f64 {
        self.dist[s * self.n + t]
    }

    /// Direct neighbours (a link) of `s`, ascending.
    pub fn neighbours(&self, s: usize) -> &[usize] {
        &self.neighbours[s]
    }

    /// Number of links.
    pub fn link_count(&self) -> usize {
        self.graph.edge_count()
    }

    /// The links as `(u, v, latency)` with `u < v`, in insertion order.
    pub fn links(&self) -> Vec<(usize, usize, f64)> {
        self.graph
            .edge_references()
            .map(|e| {
                let (a, b) = (e.source().index(), e.target().index());
                (a.min(b), a.max(b), *e.weight())
            })
            .collect()
    }

    /// The canonical shortest path from `s` to `t`, both ends included; `None`
    /// when `t` is unreachable from `s`.
    pub fn path(&self, s: usize, t: usize) -> Option<Vec<usize>> {
        if !self.dist(s, t).is_finite() {
            return None;
        }
        let mut path = vec![t];
        let mut at = t;
        while at != s {
            at = self.pred[s * self.n + at]?;
            path.push(at);
        }
        path.reverse();
        Some(path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shortest_paths_and_disconnection() {
        // 0 -1- 1 -1- 2, plus a long direct 0-2 of 5, and an isolated 3.
        let net = ServerNetwork::new(4, &[(0, 1, 1.0), (1, 2, 1.0), (0, 2, 5.0)]);
        assert_eq!(net.dist(0, 2), 2.0);
        assert_eq!(net.path(0, 2), Some(vec![0, 1, 2]));
        assert_eq!(net.path(2, 0), Some(vec![2, 1, 0]));
        assert!(net.dist(0, 3).is_infinite());
        assert_eq!(net.path(0, 3), None);
        assert_eq!(net.path(3, 3), Some(vec![3]));
    }

    #[test]
    fn ties_prefer_lower_index() {
        // Two equal paths 0-1-3 and 0-2-3: the canonical one goes through 1.
        let net = ServerNetwork::new(4, &[(0, 2, 1.0), (2, 3, 1.0), (0, 1, 1.0), (1, 3, 1.0)]);
        assert_eq!(net.path(0, 3), Some(vec![0, 1, 3]));
        assert_eq!(net.path(3, 0), Some(vec![3, 1, 0]));
    }

    #[test]
    fn matrix_closure_routes_around_triangle_violations() {
        let m = vec![
            vec![Some(0.0), Some(10.0), Some(1.0)],
            vec![Some(10.0), Some(0.0), Some(1.0)],
            vec![Some(1.0), Some(1.0), Some(0.0)],
        ];
        let net = ServerNetwork::from_matrix(&m);
        assert_eq!(net.dist(0, 1), 2.0);
        assert_eq!(net.path(0, 1), Some(vec![0, 2, 1]));
    }
}
