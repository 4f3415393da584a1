//! The support test behind [`allowed_pairs`](super::p2p::allowed_pairs)
//! without a lower limit: `(c, s)` stays when every other client `j` has a
//! pair `(j, t)` (among the given ones) whose pair delay with `c` on `s`
//! fits.
//!
//! The accesses on `s` that `j` supports are a prefix of `s`'s sorted list
//! (pair delays grow with the access, IEEE addition is monotone), so per
//! `(s, j)` only the servers `t` of `j` with nearly the least
//! `D(s,t) + a(j,t)` can give the longest prefix; their prefixes are found
//! by binary search with the evaluator's exact sum ([`pair_q`]). A server
//! whose sum exceeds the least by more than a relative [`NEAR`] gives a
//! pair delay above the least one's for every access (float sums differ
//! from the real ones by a few ulps), so its prefix is not longer.
//!
//! Complexity: `O(n · P + n · m · (log m + c))` for `n` servers, `m`
//! clients, `P` given pairs and `c` near-least servers per `(s, j)`
//! (usually 1); the earlier test of every server per binary-search step
//! was `O(n² · m · log m)` (0.7 s → 0.12 s at 200 servers × 1,000 clients).

use super::p2p::{pair_q, Limits};
use crate::problems::spd::model::SpdInstance;

/// Relative margin under which two sums `D(s,t) + a(j,t)` are treated as
/// equal and both checked exactly (float sums differ from the real ones by
/// a few ulps, far below it).
const NEAR: f64 = 1e-9;

/// Keeps the pairs of `allowed` (per server, `(client, access)` sorted by
/// access; upper limits only) supported by every other client's pairs in
/// `allowed`, or `Err(c)` for the first client with no pair left.
pub(crate) fn round(
    inst: &SpdInstance,
    lim: &Limits,
    allowed: &mut [Vec<(usize, f64)>],
) -> Result<(), usize> {
    let hosts_of = hosts_of(inst.clients(), allowed);
    for (s, list) in allowed.iter_mut().enumerate() {
        let cap = caps(inst, lim, s, list, &hosts_of);
        let mut p = 0;
        list.retain(|&(c, _)| {
            let keep = p < cap.limit(c);
            p += 1;
            keep
        });
    }
    match first_unplaced(inst.clients(), allowed) {
        Some(c) => Err(c),
        None => Ok(()),
    }
}

/// Per client, its `(server, access)` pairs in `allowed`.
fn hosts_of(m: usize, allowed: &[Vec<(usize, f64)>]) -> Vec<Vec<(usize, f64)>> {
    let mut hosts: Vec<Vec<(usize, f64)>> = vec![Vec::new(); m];
    for (s, list) in allowed.iter().enumerate() {
        for &(c, a) in list {
            hosts[c].push((s, a));
        }
    }
    hosts
}

/// The first client without a pair in `allowed`.
fn first_unplaced(m: usize, allowed: &[Vec<(usize, f64)>]) -> Option<usize> {
    let mut placed = vec![false; m];
    allowed
        .iter()
        .flatten()
        .for_each(|&(c, _)| placed[c] = true);
    placed.iter().position(|&p| !p)
}

/// The least support prefix over all clients (and who has it) and the
/// second least: client `c` may keep the positions below the least prefix
/// of the *other* clients.
struct Caps {
    least: usize,
    who: usize,
    second: usize,
}

impl Caps {
    fn limit(&self, c: usize) -> usize {
        if c == self.who {
            self.second
        } else {
            self.least
        }
    }
}

/// Support prefixes of every client on `s`'s sorted `list`. `O(P_j + log
/// m)` per client `j` with `P_j` surviving pairs.
fn caps(
    inst: &SpdInstance,
    lim: &Limits,
    s: usize,
    list: &[(usize, f64)],
    hosts_of: &[Vec<(usize, f64)>],
) -> Caps {
    let mut cap = Caps {
        least: usize::MAX,
        who: usize::MAX,
        second: usize::MAX,
    };
    let top = list.last().map_or(0.0, |&(_, x)| x.abs());
    for (j, hosts) in hosts_of.iter().enumerate() {
        let k = support_prefix(inst, lim, s, list, hosts, top);
        if k < cap.least {
            (cap.second, cap.least, cap.who) = (cap.least, k, j);
        } else if k < cap.second {
            cap.second = k;
        }
        if cap.second == 0 {
            break;
        }
    }
    cap
}

/// How many of `list` (accesses on `s`, ascending) fit with some surviving
/// pair `(j, t)` of client `j` (`hosts`: its servers and accesses).
fn support_prefix(
    inst: &SpdInstance,
    lim: &Limits,
    s: usize,
    list: &[(usize, f64)],
    hosts: &[(usize, f64)],
    top: f64,
) -> usize {
    // D in pair_q's order (the lower index first)
    let via = |t: usize, y: f64| match t.cmp(&s) {
        std::cmp::Ordering::Equal => y,
        std::cmp::Ordering::Greater => inst.network.dist(s, t) + y,
        std::cmp::Ordering::Less => inst.network.dist(t, s) + y,
    };
    let least = hosts
        .iter()
        .map(|&(t, y)| via(t, y))
        .fold(f64::INFINITY, f64::min);
    if !least.is_finite() {
        return 0;
    }
    let slack = NEAR * (least.abs() + top + 1.0);
    hosts
        .iter()
        .filter(|&&(t, y)| via(t, y) <= least + slack)
        .map(|&(t, y)| list.partition_point(|&(_, x)| lim.hi_ok(pair_q(inst, s, x, t, y))))
        .max()
        .unwrap_or(0)
}
