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

/// Per-client counters as bit slices (`1, 2, 4, …`, and "saturated"):
/// adding a bitset costs a few word operations per word.
pub(super) struct Counts {
    b: [Bits; SLICES],
    sat: Bits,
}

impl Counts {
    pub(super) fn new(w: usize) -> Self {
        Counts {
            b: std::array::from_fn(|_| vec![0; w]),
            sat: vec![0; w],
        }
    }

    /// Adds one to every client in `x`. Inlined into the search's node
    /// loop (a separate call cost about 20% of `host-search`'s time).
    #[inline]
    pub(super) fn add(&mut self, x: &[u64]) {
        for (i, &v) in x.iter().enumerate() {
            let mut carry = v;
            for slice in &mut self.b {
                let next = slice[i] & carry;
                slice[i] ^= carry;
                carry = next;
            }
            self.sat[i] |= carry;
        }
    }

    /// Client `c`'s count (`2^SLICES` stands for "that many or more").
    pub(super) fn get(&self, c: usize) -> u32 {
        if has(&self.sat, c) {
            return 1 << SLICES;
        }
        (0..SLICES)
            .map(|k| u32::from(has(&self.b[k], c)) << k)
            .sum()
    }

    /// The clients of `pool` with the least count (all of them, ties
    /// included), found slice by slice from the top.
    pub(super) fn least(&self, pool: &[u64]) -> Bits {
        let mut cand = pool.to_vec();
        for slice in std::iter::once(&self.sat).chain(self.b.iter().rev()) {
            let without: Bits = cand.iter().zip(slice).map(|(c, s)| c & !s).collect();
            if without.iter().any(|&x| x != 0) {
                cand = without;
            }
        }
        cand
    }

    /// Clients with at least one.
    pub(super) fn any(&self) -> Bits {
        (0..self.sat.len())
            .map(|i| self.b.iter().fold(self.sat[i], |acc, s| acc | s[i]))
            .collect()
    }

    /// Clients with exactly one.
    pub(super) fn single(&self) -> Bits {
        (0..self.sat.len())
            .map(|i| {
                let rest = self.b[1..].iter().fold(self.sat[i], |acc, s| acc | s[i]);
                self.b[0][i] & !rest
            })
            .collect()
    }
}
