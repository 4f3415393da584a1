//! BRITE top-down topologies (Medina, Lakhina, Matta, Byers, "BRITE: an
//! approach to universal topology generation", MASCOTS 2001; BRITE 2.x
//! sources), the topology seed 002 §4 generated: an AS-level graph by
//! Barabási-Albert, one router-level graph per AS by Waxman, and one
//! router-router link per AS-level link.
//!
//! [`brite_top_down`] follows BRITE's code step by step, with the defaults of
//! BRITE's own sample `conf/TD_ASBarabasi_RTWaxman.conf` (and its GUI):
//!
//! - AS level, `ASBarabasiAlbert` (`m = 2`): a clique on the first `m + 1`
//!   ASes, then each further AS links to `m` distinct earlier ASes chosen
//!   with probability proportional to their current degree (BRITE counts an
//!   edge in the target's degree as soon as it is added).
//! - Router level, `RouterWaxman` (`N = 100`, `HS = 1000`, random node
//!   placement on distinct integer points of the `HS × HS` plane,
//!   `GrowthType = 1` incremental, `m = 2`, `alpha = 0.15`, `beta = 0.2`):
//!   router `i ≥ m` links to `m` distinct routers among `0..i`, each accepted
//!   with probability `alpha·exp(−d/(beta·L))`, `d` the Euclidean distance,
//!   `L = √2·HS`; then each of the first `m` routers links to `m` more routers
//!   among `m..N` the same way. BRITE draws a uniform candidate and flips
//!   the coin until `m` are accepted; we draw from the accepted candidate's
//!   distribution directly (probability `∝ exp(−d/(beta·L))` over the routers
//!   not yet linked), which is the same distribution without the retries
//!   (and shows that `alpha` does not change the graph). `m·N` links per AS.
//! - Inter-AS links, `edgeConn = 1` (random): for each AS-level link, a
//!   uniformly random router of each of the two ASes. [`EdgeConn`] also has
//!   BRITE's smallest-degree (`2`) and smallest-degree-non-leaf (`3`)
//!   methods, as BRITE's C++ code implements them. The CMA generator draws
//!   seed 002's topology with `edgeConn = 2` ([`BriteConfig::seed_002`] says
//!   why).
//! - Link delays: BRITE's own delays are Euclidean lengths; seed 002 §4
//!   replaces them, "every link is uniformly distributed in the delay range
//!   [0ms, 25ms]", so every link (intra- and inter-AS) gets a delay uniform
//!   in `link_delay`.

use rand::Rng;
use rand_chacha::ChaCha8Rng;
use std::cmp::Ordering;
use std::collections::{BinaryHeap, HashSet, VecDeque};

/// How each AS-level link is mapped to a router-router link (BRITE's
/// `edgeConn`). The degree-based methods follow BRITE's C++ code
/// (`TopDownHierModel::InterConnectBorders`), where a router's degree is its
/// degree in its own AS's router graph: the inter-AS links being added are
/// not counted (`Graph::AddEdge` does not update degrees), so every AS-level
/// link of an AS lands on the same router, a single border router per AS.
/// (BRITE's Java code counts them and so spreads the links; not modelled.)
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EdgeConn {
    /// `edgeConn = 1`, BRITE's sample `TD_ASBarabasi_RTWaxman.conf` and GUI
    /// default: a uniformly random router of each AS.
    Random,
    /// `edgeConn = 2`: the router of smallest degree (lowest index on ties).
    Smallest,
    /// `edgeConn = 3`: the router of smallest degree among those whose degree
    /// exceeds the smallest degree of the whole topology.
    SmallestNonLeaf,
}

impl EdgeConn {
    /// Parses `random`, `smallest` or `smallest-nonleaf`.
    pub fn parse(s: &str) -> Option<EdgeConn> {
        match s {
            "random" => Some(EdgeConn::Random),
            "smallest" => Some(EdgeConn::Smallest),
            "smallest-nonleaf" => Some(EdgeConn::SmallestNonLeaf),
            _ => None,
        }
    }

    /// The name [`EdgeConn::parse`] reads.
    pub fn name(self) -> &'static str {
        match self {
            EdgeConn::Random => "random",
            EdgeConn::Smallest => "smallest",
            EdgeConn::SmallestNonLeaf => "smallest-nonleaf",
        }
    }
}

/// Parameters of a BRITE top-down topology.
#[derive(Debug, Clone, PartialEq)]
pub struct BriteConfig {
    /// Number of ASes (AS-level `N`).
    pub ases: usize,
    /// Links per new AS (AS-level Barabási-Albert `m`).
    pub as_m: usize,
    /// Routers per AS (router-level `N`).
    pub routers_per_as: usize,
    /// Links per new router (router-level Waxman `m`).
    pub router_m: usize,
    /// Waxman `alpha`.
    pub alpha: f64,
    /// Waxman `beta`.
    pub beta: f64,
    /// Side of the placement plane (`HS`).
    pub hs: u32,
    /// Inter-AS router choice.
    pub edge_conn: EdgeConn,
    /// Link delays are uniform in `[lo, hi]` ms.
    pub link_delay: (f64, f64),
}

impl BriteConfig {
    /// BRITE's sample `conf/TD_ASBarabasi_RTWaxman.conf` with `ases` ASes of
    /// `routers_per_as` routers (the sample has 1000 × 100): AS `m = 2`,
    /// router `m = 2`, `alpha = 0.15`, `beta = 0.2`, `HS = 1000`,
    /// `edgeConn = 1` (random); link delays `U[0, 25]` ms (seed 002).
    pub fn new(ases: usize, routers_per_as: usize) -> BriteConfig {
        BriteConfig {
            ases,
            as_m: 2,
            routers_per_as,
            router_m: 2,
            alpha: 0.15,
            beta: 0.2,
            hs: 1000,
            edge_conn: EdgeConn::Random,
            link_delay: (0.0, 25.0),
        }
    }

    /// Seed 002 §4's topology as the generator draws it: 50 ASes of 100
    /// routers, BRITE's sample parameters ([`BriteConfig::new`]) except
    /// `edgeConn = 2` ([`EdgeConn::Smallest`], one border router per AS).
    ///
    /// The paper does not give `edgeConn`. With the sample's `edgeConn = 1`
    /// its reported outcomes are out of reach: after the 1000 joins (5
    /// mirrors) it has 949 (J-SA) and 869 (J-greedy) of 1000 players within
    /// 100 ms and J-greedy optimal below ~175 joins, where 40 generated
    /// instances with `edgeConn = 1` give at most 682 and 618 (medians 506
    /// and 424) and fill the first mirror at join 345 (median). BRITE's C++
    /// degree-based methods make them typical (`edgeConn = 2`: 950 and 924 at
    /// most, medians 832, 790 and join 236; `edgeConn = 3`: medians 908, 870,
    /// join 234). Between the two the paper's numbers do not decide (`3` fits
    /// the two counts better, the fill points are alike); `2` is the one a
    /// shipped configuration sets (ns-3's copy of
    /// `TD_ASBarabasi_RTWaxman.conf`), and the one a reader of BRITE's
    /// sample comment types for "Smallest Nonleaf" (the comment's label for
    /// `2`; BRITE's C++ code runs smallest degree for it).
    /// `cargo run --release --example cma_topology -- 40 default
    /// random:conn=random nonleaf:conn=smallest-nonleaf` prints these
    /// numbers (generator seeds 100, 200, .., 4000).
    pub fn seed_002() -> BriteConfig {
        BriteConfig {
            edge_conn: EdgeConn::Smallest,
            ..BriteConfig::new(50, 100)
        }
    }
}

/// An undirected weighted graph (adjacency lists).
#[derive(Debug, Clone)]
pub struct Topology {
    adj: Vec<Vec<(u32, f64)>>,
}

impl Topology {
    /// `n` nodes, no links.
    pub fn empty(n: usize) -> Topology {
        Topology {
            adj: vec![Vec::new(); n],
        }
    }

    /// Number of nodes.
    pub fn nodes(&self) -> usize {
        self.adj.len()
    }

    /// Number of undirected links.
    pub fn links(&self) -> usize {
        self.adj.iter().map(Vec::len).sum::<usize>() / 2
    }

    /// Number of links at `u`.
    pub fn degree(&self, u: usize) -> usize {
        self.adj[u].len()
    }

    /// The links at `u`: (neighbour, delay).
    pub fn neighbours(&self, u: usize) -> impl Iterator<Item = (usize, f64)> + '_ {
        self.adj[u].iter().map(|&(v, w)| (v as usize, w))
    }

    /// True if `u` and `v` are linked.
    pub fn has_link(&self, u: usize, v: usize) -> bool {
        self.adj[u].iter().any(|&(x, _)| x as usize == v)
    }

    /// Adds the undirected link `u`–`v` with delay `w`.
    pub fn link(&mut self, u: usize, v: usize, w: f64) {
        self.adj[u].push((v as u32, w));
        self.adj[v].push((u as u32, w));
    }

    /// The number of links on a fewest-link path from `src` to every node
    /// (`usize::MAX` when unreachable). BFS, `O(V + L)`.
    pub fn hops_from(&self, src: usize) -> Vec<usize> {
        let mut hops = vec![usize::MAX; self.adj.len()];
        let mut queue = VecDeque::from([src]);
        hops[src] = 0;
        while let Some(u) = queue.pop_front() {
            for &(v, _) in &self.adj[u] {
                if hops[v as usize] == usize::MAX {
                    hops[v as usize] = hops[u] + 1;
                    queue.push_back(v as usize);
                }
            }
        }
        hops
    }

    /// True if every node reaches every other.
    pub fn is_connected(&self) -> bool {
        self.adj.is_empty() || self.hops_from(0).iter().all(|&h| h != usize::MAX)
    }

    /// Shortest-path delays from `src` to every node (Dijkstra, binary heap,
    /// `O(L log V)`).
    pub fn distances_from(&self, src: usize) -> Vec<f64> {
        let mut dist = vec![f64::INFINITY; self.adj.len()];
        let mut heap = BinaryHeap::new();
        dist[src] = 0.0;
        heap.push(Item(0.0, src as u32));
        while let Some(Item(d, u)) = heap.pop() {
            if d > dist[u as usize] {
                continue;
            }
            for &(v, w) in &self.adj[u as usize] {
                let nd = d + w;
                if nd < dist[v as usize] {
                    dist[v as usize] = nd;
                    heap.push(Item(nd, v));
                }
            }
        }
        dist
    }
}

#[derive(PartialEq)]
struct Item(f64, u32);
impl Eq for Item {}
impl Ord for Item {
    fn cmp(&self, o: &Self) -> Ordering {
        o.0.total_cmp(&self.0).then(o.1.cmp(&self.1))
    }
}
impl PartialOrd for Item {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}

/// The BRITE top-down topology of `cfg` (module doc): node `a·R + r` is
/// router `r` of AS `a`. Connected by construction (each Waxman graph and
/// the AS graph are). `O(A·R² + A²)` time for `A` ASes of `R` routers.
pub fn brite_top_down(cfg: &BriteConfig, rng: &mut ChaCha8Rng) -> Topology {
    let (ases, per_as) = (cfg.ases.max(1), cfg.routers_per_as.max(1));
    let mut topo = Topology::empty(ases * per_as);
    let as_links = barabasi_albert(ases, cfg.as_m, rng);
    for a in 0..ases {
        for (u, v) in router_waxman(per_as, cfg, rng) {
            topo.link(a * per_as + u, a * per_as + v, 0.0);
        }
    }
    for (a, b) in as_links {
        let u = border_router(&topo, a, per_as, cfg.edge_conn, rng);
        let v = border_router(&topo, b, per_as, cfg.edge_conn, rng);
        topo.link(u, v, 0.0);
    }
    assign_delays(&mut topo, cfg.link_delay, rng);
    topo
}

/// [`brite_top_down`] with BRITE's defaults ([`BriteConfig::new`]).
pub fn brite_like(ases: usize, per_as: usize, rng: &mut ChaCha8Rng) -> Topology {
    brite_top_down(&BriteConfig::new(ases, per_as), rng)
}

/// Every link's delay, uniform in `[lo, hi]`, drawn in link order.
fn assign_delays(topo: &mut Topology, (lo, hi): (f64, f64), rng: &mut ChaCha8Rng) {
    let hi = hi.max(lo);
    for u in 0..topo.adj.len() {
        for j in 0..topo.adj[u].len() {
            let v = topo.adj[u][j].0 as usize;
            if v > u {
                let w = rng.random_range(lo..=hi);
                topo.adj[u][j].1 = w;
                if let Some(back) = topo.adj[v].iter_mut().find(|e| e.0 as usize == u) {
                    back.1 = w;
                }
            }
        }
    }
}

/// BRITE's `ASBarabasiAlbert`: the AS-level links. `O(N²)`.
fn barabasi_albert(n: usize, m: usize, rng: &mut ChaCha8Rng) -> Vec<(usize, usize)> {
    let m = m.clamp(1, n.saturating_sub(1).max(1));
    let seed = (m + 1).min(n);
    let mut links = Vec::new();
    let mut deg = vec![0usize; n];
    for i in 0..seed {
        for j in i + 1..seed {
            links.push((i, j));
            deg[i] += 1;
            deg[j] += 1;
        }
    }
    for i in seed..n {
        let mut linked: Vec<usize> = Vec::with_capacity(m);
        while linked.len() < m {
            let w: Vec<f64> = (0..i)
                .map(|k| {
                    if linked.contains(&k) {
                        0.0
                    } else {
                        deg[k] as f64
                    }
                })
                .collect();
            let k = weighted_pick(&w, rng);
            linked.push(k);
            links.push((i, k));
            deg[k] += 1;
        }
        deg[i] += m;
    }
    links
}

/// BRITE's `RouterWaxman` with incremental growth: the links of one AS's
/// router graph, as pairs of local indices. `O(N²)`.
fn router_waxman(n: usize, cfg: &BriteConfig, rng: &mut ChaCha8Rng) -> Vec<(usize, usize)> {
    let pts = place_nodes(n, cfg.hs.max(1), rng);
    let m = cfg.router_m.clamp(1, n.saturating_sub(1).max(1));
    let scale = cfg.beta * std::f64::consts::SQRT_2 * f64::from(cfg.hs.max(1));
    let prob = |a: usize, b: usize| {
        let (dx, dy) = (pts[a].0 - pts[b].0, pts[a].1 - pts[b].1);
        cfg.alpha * (-(dx * dx + dy * dy).sqrt() / scale).exp()
    };
    let mut linked: Vec<HashSet<usize>> = vec![HashSet::new(); n];
    let mut links = Vec::new();
    let mut add = |src: usize, range: std::ops::Range<usize>, rng: &mut ChaCha8Rng| {
        let mut added = 0;
        while added < m && linked[src].len() < n.saturating_sub(m) {
            let w: Vec<f64> = range
                .clone()
                .map(|j| {
                    if j == src || linked[src].contains(&j) {
                        0.0
                    } else {
                        prob(src, j)
                    }
                })
                .collect();
            if w.iter().all(|&x| x <= 0.0) {
                break;
            }
            let j = range.start + weighted_pick(&w, rng);
            linked[src].insert(j);
            linked[j].insert(src);
            links.push((src, j));
            added += 1;
        }
    };
    for i in m..n {
        add(i, 0..i, rng);
    }
    for i in 0..m.min(n) {
        add(i, m..n, rng);
    }
    links
}

/// BRITE's random node placement: distinct integer points of `[0, hs)²`
/// (a colliding draw is redrawn).
fn place_nodes(n: usize, hs: u32, rng: &mut ChaCha8Rng) -> Vec<(f64, f64)> {
    let mut used = HashSet::new();
    let mut pts = Vec::with_capacity(n);
    let free = u64::from(hs) * u64::from(hs);
    while pts.len() < n {
        let (x, y) = (rng.random_range(0..hs), rng.random_range(0..hs));
        if used.insert((x, y)) || used.len() as u64 >= free {
            pts.push((f64::from(x), f64::from(y)));
        }
    }
    pts
}

/// The router of AS `a` that an AS-level link attaches to. Degrees are
/// router-level degrees within the AS (see [`EdgeConn`]).
fn border_router(
    topo: &Topology,
    a: usize,
    per_as: usize,
    how: EdgeConn,
    rng: &mut ChaCha8Rng,
) -> usize {
    let base = a * per_as;
    let intra = |u: usize| {
        topo.neighbours(u)
            .filter(|&(v, _)| v / per_as == u / per_as)
            .count()
    };
    let smallest_above = |floor: Option<usize>| {
        (base..base + per_as)
            .filter(|&u| floor.is_none_or(|f| intra(u) > f))
            .min_by_key(|&u| (intra(u), u))
            .unwrap_or(base)
    };
    match how {
        EdgeConn::Random => base + rng.random_range(0..per_as),
        EdgeConn::Smallest => smallest_above(None),
        EdgeConn::SmallestNonLeaf => {
            let least = (0..topo.nodes()).map(intra).min();
            smallest_above(least)
        }
    }
}

/// An index drawn with probability proportional to `w` (uniform if all are
/// zero).
fn weighted_pick(w: &[f64], rng: &mut ChaCha8Rng) -> usize {
    let total: f64 = w.iter().sum();
    if total <= 0.0 {
        return rng.random_range(0..w.len().max(1));
    }
    let mut x = rng.random_range(0.0..total);
    for (i, &wi) in w.iter().enumerate() {
        if x < wi {
            return i;
        }
        x -= wi;
    }
    w.iter().rposition(|&wi| wi > 0.0).unwrap_or(0)
}
