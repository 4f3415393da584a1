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

/// Bits of a [`Counts`] counter (counts saturate at `2^SLICES`).
const SLICES: usize = 7;

/// Per-client counters as bit slices (`1, 2, 4, …`, and "saturated") in
/// one buffer, slice `k` at words `k·w..(k+1)·w` and "saturated" last:
/// adding a bitset costs a few word operations per word.
pub(super) struct Counts {
    w: usize,
    b: Bits,
}

impl Counts {
    pub(super) fn new(w: usize) -> Self {
        Counts {
            w,
            b: vec![0; (SLICES + 1) * w],
        }
    }

    fn slice(&self, k: usize) -> &[u64] {
        &self.b[k * self.w..(k + 1) * self.w]
    }

    fn sat(&self) -> &[u64] {
        self.slice(SLICES)
    }

    /// Adds one to every client in `x`. Inlined into the search's node
    /// loop (a separate call cost about 20% of `host-search`'s time).
    #[inline]
    pub(super) fn add(&mut self, x: &[u64]) {
        let w = self.w;
        for (i, &v) in x.iter().enumerate() {
            let mut carry = v;
            for k in 0..SLICES {
                let word = &mut self.b[k * w + i];
                let next = *word & carry;
                *word ^= carry;
                carry = next;
            }
            self.b[SLICES * w + i] |= carry;
        }
    }

    /// Client `c`'s count (`2^SLICES` stands for "that many or more").
    pub(super) fn get(&self, c: usize) -> u32 {
        if has(self.sat(), c) {
            return 1 << SLICES;
        }
        (0..SLICES)
            .map(|k| u32::from(has(self.slice(k), c)) << k)
            .sum()
    }

    /// The clients of `pool` with the least count (all of them, ties
    /// included), found slice by slice from the top.
    pub(super) fn least(&self, pool: &[u64]) -> Bits {
        let mut cand = pool.to_vec();
        let mut without = vec![0u64; self.w];
        for k in (0..=SLICES).rev() {
            let slice = self.slice(k);
            let mut any = 0;
            for ((o, c), s) in without.iter_mut().zip(&cand).zip(slice) {
                *o = c & !s;
                any |= *o;
            }
            if any != 0 {
                std::mem::swap(&mut cand, &mut without);
            }
        }
        cand
    }

    /// Whether some client of `pool` has none.
    pub(super) fn misses(&self, pool: &[u64]) -> bool {
        pool.iter().enumerate().any(|(i, &p)| {
            let any = (0..=SLICES).fold(0, |acc, k| acc | self.b[k * self.w + i]);
            p & !any != 0
        })
    }

    /// The clients of `pool` with exactly one.
    pub(super) fn single_in(&self, pool: &[u64]) -> Bits {
        pool.iter()
            .enumerate()
            .map(|(i, &p)| {
                let rest = (1..=SLICES).fold(0, |acc, k| acc | self.b[k * self.w + i]);
                p & self.b[i] & !rest
            })
            .collect()
    }
}
