//! Incremental P2P evaluation of single-client moves within a fixed host set,
//! shared by `spdvrp2p-h` and `p2p-vr-ls`.
//!
//! Moving client `c` changes only the pairs that involve `c`. For the others,
//! each host's two smallest and two largest access latencies without `c` give
//! the extremes of the pair delays that do not involve `c` in `O(m + k²)`
//! (`P2pMoves::without`); each candidate host then costs `O(k)`
//! (`P2pMoves::with_client`), against the paper's `O(m² log m)` rebuild of
//! the sorted pair list per candidate. `k` = number of allowed hosts.

use crate::problems::spd::model::{SpdInstance, SpdSolution};

/// Access extremes of one host's clients (two smallest, two largest).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Ext {
    pub count: usize,
    pub min1: f64,
    pub min2: f64,
    pub max1: f64,
    pub max2: f64,
}

impl Ext {
    const EMPTY: Ext = Ext {
        count: 0,
        min1: f64::INFINITY,
        min2: f64::INFINITY,
        max1: f64::NEG_INFINITY,
        max2: f64::NEG_INFINITY,
    };

    fn push(&mut self, a: f64) {
        self.count += 1;
        if a < self.min1 {
            self.min2 = self.min1;
            self.min1 = a;
        } else if a < self.min2 {
            self.min2 = a;
        }
        if a > self.max1 {
            self.max2 = self.max1;
            self.max1 = a;
        } else if a > self.max2 {
            self.max2 = a;
        }
    }
}

/// Pair-delay extremes of everyone but one client, per-host access extremes.
pub(crate) struct Without {
    /// Least pair delay not involving the client (`+inf` if none).
    pub lo: f64,
    /// Largest pair delay not involving the client (`-inf` if none).
    pub hi: f64,
    ext: Vec<Ext>,
}

/// A P2P assignment over a fixed list of allowed hosts ("slots").
#[derive(Clone)]
pub(crate) struct P2pMoves {
    /// Allowed hosts (server indices), ascending.
    pub hosts: Vec<usize>,
    k: usize,
    /// `dist[h * k + g]`: server distance between slots.
    dist: Vec<f64>,
    /// `acc[c * k + h]`: access of client `c` to slot `h` (`INFINITY` = none).
    acc: Vec<f64>,
    /// Slot of each client.
    pub slot: Vec<usize>,
}

/// `(variation, delay)` from pair extremes; `(0, 0)` without any pair.
pub(crate) fn vd(lo: f64, hi: f64) -> (f64, f64) {
    if hi == f64::NEG_INFINITY {
        (0.0, 0.0)
    } else {
        (hi - lo, hi)
    }
}

impl P2pMoves {
    /// The state of `sol` with allowed hosts `hosts` (every `sol.assign[c]`
    /// must be among them; `None` otherwise).
    pub fn new(inst: &SpdInstance, hosts: Vec<usize>, sol: &SpdSolution) -> Option<Self> {
        let k = hosts.len();
        let m = inst.clients();
        let mut dist = vec![0.0; k * k];
        for (h, &s) in hosts.iter().enumerate() {
            for (g, &t) in hosts.iter().enumerate() {
                dist[h * k + g] = inst.network.dist(s, t);
            }
        }
        let mut acc = Vec::with_capacity(m * k);
        for c in 0..m {
            acc.extend(hosts.iter().map(|&s| inst.access(c, s)));
        }
        let slot = sol
            .assign
            .iter()
            .map(|s| hosts.iter().position(|h| h == s))
            .collect::<Option<Vec<usize>>>()?;
        (slot.len() == m).then_some(P2pMoves {
            hosts,
            k,
            dist,
            acc,
            slot,
        })
    }

    /// Number of slots.
    pub fn slots(&self) -> usize {
        self.k
    }

    /// Number of clients.
    pub fn clients(&self) -> usize {
        self.slot.len()
    }

    /// Access of client `c` to slot `h`.
    #[inline]
    pub fn acc(&self, c: usize, h: usize) -> f64 {
        self.acc[c * self.k + h]
    }

    /// Distance between slots.
    #[inline]
    pub fn dist(&self, h: usize, g: usize) -> f64 {
        self.dist[h * self.k + g]
    }

    /// Pair delay of clients `i != j` in the current state.
    #[inline]
    pub fn pair(&self, i: usize, j: usize) -> f64 {
        let (hi, hj) = (self.slot[i], self.slot[j]);
        self.acc(i, hi) + self.dist(hi, hj) + self.acc(j, hj)
    }

    /// The current solution (P2P: no root).
    pub fn solution(&self) -> SpdSolution {
        SpdSolution {
            root: None,
            assign: self.slot.iter().map(|&h| self.hosts[h]).collect(),
        }
    }

    /// Extremes of pair delays not involving `skip` (`usize::MAX`: all
    /// pairs). `O(m + k²)`.
    pub fn without(&self, skip: usize) -> Without {
        let mut ext = vec![Ext::EMPTY; self.k];
        for (c, &h) in self.slot.iter().enumerate() {
            if c != skip {
                ext[h].push(self.acc(c, h));
            }
        }
        let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
        for h in 0..self.k {
            let e = ext[h];
            if e.count == 0 {
                continue;
            }
            if e.count >= 2 {
                lo = lo.min(e.min1 + e.min2);
                hi = hi.max(e.max1 + e.max2);
            }
            for (g, f) in ext.iter().enumerate().skip(h + 1) {
                if f.count > 0 {
                    let d = self.dist(h, g);
                    lo = lo.min(e.min1 + d + f.min1);
                    hi = hi.max(e.max1 + d + f.max1);
                }
            }
        }
        Without { lo, hi, ext }
    }

    /// Pair extremes `(lo, hi)` with client `c` on slot `h` and everyone
    /// else as in `w` (from `without(c)`). `O(k)`.
    pub fn with_client(&self, w: &Without, c: usize, h: usize) -> (f64, f64) {
        let a = self.acc(c, h);
        let (mut lo, mut hi) = (w.lo, w.hi);
        for (g, e) in w.ext.iter().enumerate() {
            if e.count > 0 {
                let d = self.dist(h, g);
                lo = lo.min(a + d + e.min1);
                hi = hi.max(a + d + e.max1);
            }
        }
        (lo, hi)
    }

    /// `(variation, delay)` of the current state. `O(m + k²)`.
    pub fn value(&self) -> (f64, f64) {
        let w = self.without(usize::MAX);
        vd(w.lo, w.hi)
    }
}
