//! Client bitsets and bit-sliced per-client counters for [`super`].

/// Client bitsets.
pub(super) type Bits = Vec<u64>;

#[inline]
pub(super) fn set(b: &mut [u64], i: usize) {
    b[i / 64] |= 1 << (i % 64);
}

#[inline]
pub(super) fn clear(b: &mut [u64], i: usize) {
    b[i / 64] &= !(1 << (i % 64));
}

#[inline]
pub(super) fn has(b: &[u64], i: usize) -> bool {
    b[i / 64] >> (i % 64) & 1 == 1
}

pub(super) use crate::problems::spd::exact::cover::ones;

/// Adds the clients `x` to the running `any` (held by some set so far)
/// and `more` (held by two or more): the clients only one set holds are
/// then `any & !more`.
#[inline]
pub(super) fn count_twice(any: &mut [u64], more: &mut [u64], x: &[u64]) {
    for ((a, m), x) in any.iter_mut().zip(more.iter_mut()).zip(x) {
        *m |= *a & x;
        *a |= x;
    }
}

/// Readers compare counts capped at `2^CAP_SLICES`, then by their low
/// `CAP_SLICES` bits: the order of the saturating counters these replaced
/// (the search's branching, and so its node counts, stay the same).
const CAP_SLICES: usize = 7;

/// Per-client counters as bit slices (`1, 2, 4, …`) in one buffer, slice
/// `k` at words `k·w..(k+1)·w`: adding or subtracting a bitset costs a few
/// word operations per word. The slices hold counts up to the number of
/// servers exactly (so a count can go down again, [`Counts::sub`]);
/// readers see them capped at `2^CAP_SLICES`.
#[derive(PartialEq)]
pub(super) struct Counts {
    w: usize,
    slices: usize,
    b: Bits,
}

impl Clone for Counts {
    fn clone(&self) -> Self {
        Counts {
            w: self.w,
            slices: self.slices,
            b: self.b.clone(),
        }
    }

    /// Copies `src` into this one's buffer (no allocation at equal sizes).
    fn clone_from(&mut self, src: &Self) {
        self.w = src.w;
        self.slices = src.slices;
        self.b.clone_from(&src.b);
    }
}

impl Counts {
    /// Counters for `w` words of clients, each counting to at most `most`.
    pub(super) fn new(w: usize, most: usize) -> Self {
        let slices = (usize::BITS - most.leading_zeros()) as usize;
        let slices = slices.max(CAP_SLICES + 1);
        Counts {
            w,
            slices,
            b: vec![0; slices * w],
        }
    }

    /// Sets every count to zero.
    pub(super) fn clear(&mut self) {
        self.b.iter_mut().for_each(|x| *x = 0);
    }

    /// Word `i` of "count at least `2^CAP_SLICES`".
    fn capped(&self, i: usize) -> u64 {
        (CAP_SLICES..self.slices).fold(0, |acc, k| acc | self.b[k * self.w + i])
    }

    /// Adds one to every client in `x`. Inlined into the search's node
    /// loop (a separate call cost about 20% of `host-search`'s time).
    #[inline]
    pub(super) fn add(&mut self, x: &[u64]) {
        self.ripple::<false>(x);
    }

    /// Subtracts one from every client in `x` (each counted before).
    #[inline]
    pub(super) fn sub(&mut self, x: &[u64]) {
        self.ripple::<true>(x);
    }

    /// Adds one to (`SUB`: subtracts one from) every client in `x`: a
    /// ripple of carries (borrows) up the slices.
    #[inline]
    fn ripple<const SUB: bool>(&mut self, x: &[u64]) {
        let w = self.w;
        for (i, &v) in x.iter().enumerate() {
            let mut carry = v;
            for k in 0..self.slices {
                let word = &mut self.b[k * w + i];
                // a borrow passes where the bit was 0, a carry where it was 1
                let next = if SUB { !*word } else { *word } & carry;
                *word ^= carry;
                carry = next;
            }
            debug_assert_eq!(carry, 0, "a count left its range");
        }
    }

    /// The clients of `pool` with the least capped count (all of them,
    /// ties included), found slice by slice from the top; among capped
    /// counts the low bits decide.
    pub(super) fn least(&self, pool: &[u64]) -> Bits {
        self.least_by(pool, true)
    }

    /// [`Counts::least`], where capped counts all tie (the packing's
    /// order: fewest options, then the least client).
    pub(super) fn least_capped(&self, pool: &[u64]) -> Bits {
        self.least_by(pool, false)
    }

    fn least_by(&self, pool: &[u64], refine_capped: bool) -> Bits {
        let mut cand = pool.to_vec();
        let mut without = vec![0u64; self.w];
        for k in (0..=CAP_SLICES).rev() {
            let mut any = 0;
            for (i, (o, c)) in without.iter_mut().zip(&cand).enumerate() {
                let bit = if k == CAP_SLICES {
                    self.capped(i)
                } else {
                    self.b[k * self.w + i]
                };
                *o = c & !bit;
                any |= *o;
            }
            if any != 0 {
                std::mem::swap(&mut cand, &mut without);
            } else if k == CAP_SLICES && !refine_capped {
                break;
            }
        }
        cand
    }

    /// Whether some client of `pool` has none.
    pub(super) fn misses(&self, pool: &[u64]) -> bool {
        pool.iter().enumerate().any(|(i, &p)| {
            let any = (0..self.slices).fold(0, |acc, k| acc | self.b[k * self.w + i]);
            p & !any != 0
        })
    }

    /// The clients of `pool` with exactly one.
    pub(super) fn single_in(&self, pool: &[u64]) -> Bits {
        pool.iter()
            .enumerate()
            .map(|(i, &p)| {
                let rest = (1..self.slices).fold(0, |acc, k| acc | self.b[k * self.w + i]);
                p & self.b[i] & !rest
            })
            .collect()
    }
}

/// The lookup tables a search builds once from its allowed lists
/// (`lists[s]`: `(client, access)` by access ascending; `m` clients, `w`
/// words a bitset). O(Σ|lists[s]| · w + m · n) time and memory.
pub(super) struct ListIndex {
    /// `prefix[s][i·w..(i+1)·w]`: the first `i` clients of `lists[s]`.
    pub(super) prefix: Vec<Vec<u64>>,
    /// `at[c·n + s]`: position of client `c` in `lists[s]` (`u32::MAX`:
    /// none), client-major.
    pub(super) at: Vec<u32>,
    /// `servers_of[c]`: the servers whose list holds client `c`, ascending.
    pub(super) servers_of: Vec<Vec<u32>>,
    /// The accesses of `lists[s]`, contiguous.
    pub(super) vals: Vec<Vec<f64>>,
}

impl ListIndex {
    pub(super) fn new(lists: &[Vec<(usize, f64)>], m: usize, w: usize) -> Self {
        let prefix = lists
            .iter()
            .map(|l| {
                let mut p = vec![0u64; (l.len() + 1) * w];
                for (i, &(c, _)) in l.iter().enumerate() {
                    let (done, rest) = p.split_at_mut((i + 1) * w);
                    rest[..w].copy_from_slice(&done[i * w..]);
                    set(&mut rest[..w], c);
                }
                p
            })
            .collect();
        let n = lists.len();
        let mut at = vec![u32::MAX; m.saturating_mul(n)];
        for (s, l) in lists.iter().enumerate() {
            for (i, &(c, _)) in l.iter().enumerate() {
                at[c * n + s] = i as u32;
            }
        }
        let servers_of = (0..m)
            .map(|c| {
                let row = &at[c * n..(c + 1) * n];
                (0..n as u32)
                    .filter(|&s| row[s as usize] != u32::MAX)
                    .collect()
            })
            .collect();
        let vals = lists
            .iter()
            .map(|l| l.iter().map(|&(_, x)| x).collect())
            .collect();
        ListIndex {
            prefix,
            at,
            servers_of,
            vals,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{has, set, Counts, CAP_SLICES};
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// Adding and subtracting random bitsets keeps every count exact (a
    /// counter reaching 300 and falling back), and the readers see the
    /// counts capped at `2^CAP_SLICES`, as a plain count says.
    #[test]
    fn sliced_counts_equal_plain_counts() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let (m, most) = (150usize, 300usize);
        let w = m.div_ceil(64);
        let mut c = Counts::new(w, most);
        let mut plain = vec![0usize; m];
        let mut added: Vec<Vec<u64>> = Vec::new();
        let cap = 1usize << CAP_SLICES;
        for step in 0..2_000 {
            if added.len() < most && (added.is_empty() || step < 1_000 || rng.random_bool(0.4)) {
                let mut x = vec![0u64; w];
                // dense sets early, so counts pass the cap
                let p = if step < 400 { 0.9 } else { 0.1 };
                (0..m)
                    .filter(|_| rng.random_bool(p))
                    .for_each(|i| set(&mut x, i));
                (0..m).filter(|&i| has(&x, i)).for_each(|i| plain[i] += 1);
                c.add(&x);
                added.push(x);
            } else {
                let x = added.swap_remove(rng.random_range(0..added.len()));
                (0..m).filter(|&i| has(&x, i)).for_each(|i| plain[i] -= 1);
                c.sub(&x);
            }
            let mut pool = vec![0u64; w];
            (0..m)
                .filter(|_| rng.random_bool(0.3))
                .for_each(|i| set(&mut pool, i));
            let in_pool: Vec<usize> = (0..m).filter(|&i| has(&pool, i)).collect();
            // the capped count's least, ties by the count's low bits, as
            // the search always read them
            let key = |i: usize| (plain[i].min(cap), plain[i] % cap);
            let least = in_pool.iter().map(|&i| key(i)).min();
            let got = c.least(&pool);
            let capped = c.least_capped(&pool);
            let least_capped = in_pool.iter().map(|&i| plain[i].min(cap)).min();
            for &i in &in_pool {
                assert_eq!(has(&got, i), Some(key(i)) == least, "least, step {step}");
                let is = Some(plain[i].min(cap)) == least_capped;
                assert_eq!(has(&capped, i), is, "least capped, step {step}");
                assert_eq!(has(&c.single_in(&pool), i), plain[i] == 1, "single");
            }
            let misses = in_pool.iter().any(|&i| plain[i] == 0);
            assert_eq!(c.misses(&pool), misses, "misses, step {step}");
        }
    }
}
