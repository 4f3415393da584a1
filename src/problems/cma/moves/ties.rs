//! Splitting tied clients between their tied mirrors by a maximum flow.
//!
//! After the start pass ([`super::MoveGraph::place_at_prices`]) a client
//! within `tie` of several mirrors' least `d + p` may go to any of them: the
//! placement stays optimal for its loads. Which one decides how much is left
//! to route. The tied clients come in few groups (one per set of tied
//! mirrors: 15–40 groups at 100,000–1,000,000 clients of `gen cma
//! --scenario static`), so the split is a small bipartite flow: group `g`
//! supplies its client count, mirror `j` takes its room `C_j − L_j` (the
//! loads `L` of the untied clients). Augmenting paths first fill the
//! mirrors with a price (a priced mirror must end full: each unit it lacks
//! is routed in later), then every other mirror's room. A client the flow
//! leaves over goes where it adds least excess afterwards.
//!
//! Time `O(A · G k)` for `G` groups, `k` mirrors and `A` augmenting paths
//! (each breadth-first search is `O(G k)`), on top of `O(T log T)` to group
//! the `T` tied clients; no delay row is read.

/// Most groups split by the flow; beyond, every tied client goes to its
/// roomiest tied mirror in row order.
pub(super) const MAX_GROUPS: usize = 1_024;

/// Per group (tied mirrors as a bit set, ascending), the clients it sends
/// to each of its mirrors: `(mirror, count)` lists. `count[g]` is group
/// `g`'s size, `room[j]` mirror `j`'s spare capacity (negative = over),
/// `priced[j]` whether `j` must end full.
pub(super) fn split_groups(
    groups: &[u64],
    count: &[usize],
    room: &[i64],
    priced: &[bool],
) -> Vec<Vec<(usize, usize)>> {
    let mut f = Flow::new(groups, count, room);
    f.saturate(priced);
    f.saturate(&vec![true; room.len()]);
    f.split()
}

/// The bipartite flow: source → group (its count) → its mirrors
/// (unbounded) → sink (the mirror's room).
struct Flow<'a> {
    groups: &'a [u64],
    /// Units still unsent per group.
    left: Vec<usize>,
    /// Room still free per mirror.
    free: Vec<usize>,
    /// Flow group → mirror, `g * k + j`.
    flow: Vec<usize>,
    k: usize,
}

/// A node of the residual search: a group or a mirror.
#[derive(Clone, Copy)]
enum Node {
    Group(usize),
    Mirror(usize),
}

impl<'a> Flow<'a> {
    fn new(groups: &'a [u64], count: &[usize], room: &[i64]) -> Self {
        let k = room.len();
        Flow {
            groups,
            left: count.to_vec(),
            free: room.iter().map(|&r| r.max(0) as usize).collect(),
            flow: vec![0; groups.len() * k],
            k,
        }
    }

    /// Augments until no path reaches a mirror of `open` with free room.
    fn saturate(&mut self, open: &[bool]) {
        while let Some((path, end)) = self.search(open) {
            self.augment(&path, end);
        }
    }

    /// Breadth-first search from every group with units left to a mirror
    /// of `open` with free room: the predecessor of each mirror (the group
    /// it was reached from) and of each group (the mirror it was reached
    /// from, `None` for a start), and the mirror found.
    fn search(&self, open: &[bool]) -> Option<(Vec<Option<usize>>, usize)> {
        let (g_n, k) = (self.groups.len(), self.k);
        // pred[g] for groups, pred[g_n + j] for mirrors.
        let mut pred: Vec<Option<usize>> = vec![None; g_n + k];
        let mut seen = vec![false; g_n + k];
        let mut queue: std::collections::VecDeque<Node> = std::collections::VecDeque::new();
        for g in (0..g_n).filter(|&g| self.left[g] > 0) {
            seen[g] = true;
            queue.push_back(Node::Group(g));
        }
        while let Some(node) = queue.pop_front() {
            match node {
                Node::Group(g) => {
                    for j in bits(self.groups[g]).filter(|&j| j < k) {
                        if seen[g_n + j] {
                            continue;
                        }
                        seen[g_n + j] = true;
                        pred[g_n + j] = Some(g);
                        if open[j] && self.free[j] > 0 {
                            return Some((pred, j));
                        }
                        queue.push_back(Node::Mirror(j));
                    }
                }
                Node::Mirror(j) => {
                    for g in (0..g_n).filter(|&g| self.flow[g * k + j] > 0) {
                        if seen[g] {
                            continue;
                        }
                        seen[g] = true;
                        pred[g] = Some(j);
                        queue.push_back(Node::Group(g));
                    }
                }
            }
        }
        None
    }

    /// Sends the bottleneck amount along the path ending at mirror `end`.
    fn augment(&mut self, pred: &[Option<usize>], end: usize) {
        let (g_n, k) = (self.groups.len(), self.k);
        // Walk back: mirror j reached from group g; group g reached from
        // mirror j' (taking back flow g → j') or a start.
        let mut steps = Vec::new();
        let mut j = end;
        let start = loop {
            let Some(g) = pred[g_n + j] else { return };
            steps.push((g, j));
            match pred[g] {
                Some(prev) => j = prev,
                None => break g,
            }
        };
        let mut amount = self.left[start].min(self.free[end]);
        for w in steps.windows(2) {
            // w[1] = (g', j'): group w[0].0 was reached from mirror w[1].1
            // by taking back flow w[0].0 → w[1].1.
            amount = amount.min(self.flow[w[0].0 * k + w[1].1]);
        }
        for w in steps.windows(2) {
            self.flow[w[0].0 * k + w[1].1] -= amount;
        }
        for &(g, j) in &steps {
            self.flow[g * k + j] += amount;
        }
        self.left[start] -= amount;
        self.free[end] -= amount;
    }

    fn split(&self) -> Vec<Vec<(usize, usize)>> {
        let k = self.k;
        (0..self.groups.len())
            .map(|g| {
                (0..k)
                    .filter(|&j| self.flow[g * k + j] > 0)
                    .map(|j| (j, self.flow[g * k + j]))
                    .collect()
            })
            .collect()
    }
}

/// The members of a bit set, ascending.
fn bits(mut b: u64) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (b != 0).then(|| {
            let j = b.trailing_zeros() as usize;
            b &= b - 1;
            j
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The flow fills priced mirrors first, then the rest, and never sends
    /// a group outside its set or beyond its count.
    #[test]
    fn split_fills_priced_rooms_first() {
        // Group 0 = {0, 1}, group 1 = {1, 2}; mirror 1 priced with room 5,
        // mirror 0 room 3, mirror 2 room 4 (unpriced).
        let groups = [0b011, 0b110];
        let split = split_groups(&groups, &[4, 6], &[3, 5, 4], &[false, true, false]);
        let to = |g: usize, j: usize| {
            split[g]
                .iter()
                .find(|(m, _)| *m == j)
                .map_or(0, |&(_, c)| c)
        };
        assert_eq!(to(0, 1) + to(1, 1), 5, "priced mirror 1 is filled");
        assert_eq!(to(0, 0) + to(0, 1), 4);
        assert_eq!(to(1, 1) + to(1, 2), 6);
        assert_eq!(to(0, 2) + to(1, 0), 0);
        assert!(to(0, 0) <= 3 && to(1, 2) <= 4);
    }

    /// Against brute force on small random cases: the flow sends as much as
    /// any split can into priced rooms, and then as much as any split with
    /// that priced fill can in all.
    #[test]
    fn split_is_lexicographically_maximal_on_small_cases() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
        for _ in 0..300 {
            let k = rng.random_range(1..4usize);
            let g_n = rng.random_range(1..3usize);
            let groups: Vec<u64> = (0..g_n).map(|_| rng.random_range(1..(1u64 << k))).collect();
            let count: Vec<usize> = (0..g_n).map(|_| rng.random_range(0..4)).collect();
            let room: Vec<i64> = (0..k).map(|_| rng.random_range(-2..4)).collect();
            let priced: Vec<bool> = (0..k).map(|_| rng.random_bool(0.5)).collect();
            let split = split_groups(&groups, &count, &room, &priced);
            let score = |sent: &[Vec<usize>]| {
                let into = |j: usize| sent.iter().map(|s| s[j]).sum::<usize>();
                let capped = |j: usize| into(j).min(room[j].max(0) as usize);
                let p: usize = (0..k).filter(|&j| priced[j]).map(capped).sum();
                (p, (0..k).map(capped).sum::<usize>())
            };
            let mut got = vec![vec![0; k]; g_n];
            for (g, s) in split.iter().enumerate() {
                for &(j, c) in s {
                    assert!(groups[g] >> j & 1 == 1, "group {g} sent outside its set");
                    got[g][j] += c;
                }
                assert!(got[g].iter().sum::<usize>() <= count[g]);
            }
            for j in 0..k {
                assert!(got.iter().map(|s| s[j]).sum::<usize>() as i64 <= room[j].max(0));
            }
            let best = brute(&groups, &count, k, &score);
            assert_eq!(
                score(&got),
                best,
                "{groups:?} {count:?} {room:?} {priced:?}"
            );
        }
    }

    /// A split's score: (units into priced rooms, units into all rooms).
    type Score<'a> = &'a dyn Fn(&[Vec<usize>]) -> (usize, usize);

    /// The best score over every way to send each group's units (each unit
    /// to one of its mirrors or kept back).
    fn brute(groups: &[u64], count: &[usize], k: usize, score: Score) -> (usize, usize) {
        // Per group, every composition of at most its count over its mirrors.
        let options: Vec<Vec<Vec<usize>>> = groups
            .iter()
            .zip(count)
            .map(|(&b, &c)| {
                let mut rows = vec![vec![0; k]];
                for j in bits(b) {
                    rows = rows
                        .into_iter()
                        .flat_map(|r| {
                            let used: usize = r.iter().sum();
                            (0..=c - used).map(move |x| {
                                let mut r = r.clone();
                                r[j] = x;
                                r
                            })
                        })
                        .collect();
                }
                rows
            })
            .collect();
        let mut best = (0, 0);
        let mut pick = vec![0usize; groups.len()];
        loop {
            let cur: Vec<Vec<usize>> = pick
                .iter()
                .enumerate()
                .map(|(g, &o)| options[g][o].clone())
                .collect();
            best = best.max(score(&cur));
            // Next combination (odometer).
            let mut g = 0;
            while g < pick.len() {
                pick[g] += 1;
                if pick[g] < options[g].len() {
                    break;
                }
                pick[g] = 0;
                g += 1;
            }
            if g == pick.len() {
                return best;
            }
        }
    }
}
