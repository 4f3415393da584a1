//! Shift classes: client rows that differ by a constant.
//!
//! Two clients whose rows differ by a constant (`d(a,j) = d(b,j) + s` for
//! every mirror `j`) are interchangeable in the static CMA: exchanging
//! their mirrors leaves the total delay unchanged. The problem over `n`
//! rows is then a transportation problem over the `D` classes, each with
//! as many units as it has rows ([`crate::problems::cma::class_flow`]).
//!
//! Such rows are common. On the generated BRITE instances every autonomous
//! system has one border router, so a client in an AS without a mirror
//! reaches every mirror through it, and its row is the border router's row
//! plus the distance to it. Measured matrices repeat sites. `gen cma
//! --scenario static --seed 1`: 1,000,000 × 50 has 8,296 classes,
//! 200,000 × 50 has 3,335, and 100,000 × 20 has 1,330.
//!
//! [`group_rows`] keys each row by its offsets from its first column,
//! `d(i,j) − d(i,0)`, rounded to a grid of `GRID · max(1, max delay)`, and
//! groups rows with equal fingerprints of their keys (two dot products
//! with fixed random weights, 128 bits) in a hash table. It runs in
//! parallel chunks of rows, merged in row order, so a class's id and its
//! offsets (those of its first row, from its least value) are the same on
//! any number of threads. Floating-point sums make shifted rows differ by
//! about `1e-14` of the delays, far below the grid; a row whose offset
//! falls on a grid boundary only forms a class of its own. Two rows in one
//! class have keys that are equal, or whose fingerprints collide; either
//! way, the caller certifies its result on the real rows.
//!
//! Measured on 1,000,000 × 50 (one thread, the matrix in memory): 40 ms,
//! against 17 ms for a pass that only takes each row's least value. A
//! first version with 64-bit integer hashing and a full key comparison
//! took 87 ms.
//!
//! `O(nk)` time: one read of the matrix. Memory `O(n + Dk)`. It gives up
//! (`None`) once any chunk holds more than `n / share` classes, after at
//! most `n / share` rows per chunk.

use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, Ordering};

/// The offsets' grid, relative to the largest delay (at least 1).
pub const GRID: f64 = 1e-9;
/// Adding and subtracting `1.5 · 2^52` rounds a double below `2^51` to the
/// nearest integer; the sum's bits then hold that integer exactly.
const ROUND: f64 = 6_755_399_441_055_744.0;
/// Fewest rows per parallel chunk.
const MIN_CHUNK: usize = 65_536;
/// Rows between two looks at the shared give-up flag.
const CHECK_EVERY: usize = 4_096;
const NONE: u32 = u32::MAX;

/// The rows' shift classes.
#[derive(Debug, Clone)]
pub struct RowClasses {
    k: usize,
    /// The class of each row.
    pub of_row: Vec<u32>,
    /// Per class, the offsets `d(i,j) − min_j d(i,j)` of its first row `i`
    /// (`k` per class, class-major).
    pub offsets: Vec<f64>,
    /// Per class, its number of rows.
    pub weight: Vec<usize>,
}

impl RowClasses {
    /// Number of classes.
    pub fn len(&self) -> usize {
        self.weight.len()
    }

    /// Whether there is no class (no rows).
    pub fn is_empty(&self) -> bool {
        self.weight.is_empty()
    }

    /// The offsets of class `c`.
    pub fn offsets_of(&self, c: usize) -> &[f64] {
        &self.offsets[c * self.k..(c + 1) * self.k]
    }
}

/// Groups the rows of the row-major `n × k` matrix `delay` (finite, `>= 0`,
/// at most `max`) into shift classes, or `None` when some chunk of rows
/// has more than `n / share` of them (the classes would not pay). See the
/// module doc.
pub fn group_rows(delay: &[f64], k: usize, max: f64, share: usize) -> Option<RowClasses> {
    if k == 0 || delay.len() % k != 0 {
        return None;
    }
    let n = delay.len() / k;
    let limit = n / share.max(1);
    let inv = 1.0 / (GRID * max.max(1.0));
    let weights = column_weights(k);
    let chunk = n
        .div_ceil(rayon::current_num_threads().max(1))
        .max(MIN_CHUNK);
    let gave_up = AtomicBool::new(false);
    let locals: Vec<Option<(Table, Vec<u32>)>> = delay
        .par_chunks(chunk * k)
        .map(|rows| group_chunk(rows, k, (&weights, inv), limit, &gave_up))
        .collect();
    let mut table = Table::default();
    let mut of_row = Vec::with_capacity(n);
    let mut first = 0;
    for local in locals {
        let (part, ids) = local?;
        let global: Vec<u32> = (0..part.len())
            .map(|c| table.merge(&part, c, first))
            .collect();
        if table.len() > limit {
            return None;
        }
        of_row.extend(ids.iter().map(|&c| global[c as usize]));
        first += ids.len();
    }
    let offsets = table
        .first
        .iter()
        .flat_map(|&i| offsets_of_row(&delay[i * k..(i + 1) * k]))
        .collect();
    Some(RowClasses {
        k,
        of_row,
        offsets,
        weight: table.weight,
    })
}

/// The offsets of one row from its least value.
fn offsets_of_row(row: &[f64]) -> impl Iterator<Item = f64> + '_ {
    let least = row.iter().copied().fold(f64::INFINITY, f64::min);
    row.iter().map(move |d| d - least)
}

/// One chunk's classes and each row's local class id, `None` past `limit`
/// classes or when another chunk gave up.
fn group_chunk(
    rows: &[f64],
    k: usize,
    (weights, inv): (&[[f64; 2]], f64),
    limit: usize,
    gave_up: &AtomicBool,
) -> Option<(Table, Vec<u32>)> {
    let mut table = Table::default();
    let mut ids = Vec::with_capacity(rows.len() / k);
    for (r, row) in rows.chunks_exact(k).enumerate() {
        if r % CHECK_EVERY == 0 && gave_up.load(Ordering::Relaxed) {
            return None;
        }
        let c = table.find_or_create(fingerprint(row, weights, inv), r);
        table.weight[c as usize] += 1;
        ids.push(c);
        if table.len() > limit {
            gave_up.store(true, Ordering::Relaxed);
            return None;
        }
    }
    Some((table, ids))
}

/// Two random weights per column, in `[1, 2)` (SplitMix64, fixed seed).
fn column_weights(k: usize) -> Vec<[f64; 2]> {
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = || {
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        1.0 + ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
    };
    (0..k).map(|_| [next(), next()]).collect()
}

/// A row's fingerprint. Its key is its offsets from its first column in
/// grid steps, rounded to integers (`+ ROUND − ROUND`, exact below
/// `2^51`); the fingerprint is two dot products of the key with random
/// weights, each summed in four fixed lanes. Equal keys give equal bits.
/// Unequal keys collide only when both sums round alike; such a collision
/// would merge two classes wrongly, which the caller's certificate on the
/// real rows catches.
fn fingerprint(row: &[f64], weights: &[[f64; 2]], inv: f64) -> [u64; 2] {
    let Some(&base) = row.first() else {
        return [0; 2];
    };
    let step = |d: f64| ((d - base) * inv + ROUND) - ROUND;
    let (mut a, mut b) = ([0.0f64; 4], [0.0f64; 4]);
    let mut quads = row.chunks_exact(4).zip(weights.chunks_exact(4));
    for (q, w) in &mut quads {
        for l in 0..4 {
            let x = step(q[l]);
            a[l] += x * w[l][0];
            b[l] += x * w[l][1];
        }
    }
    let tail = row.len() / 4 * 4;
    for (l, (&d, w)) in row[tail..].iter().zip(&weights[tail..]).enumerate() {
        let x = step(d);
        a[l] += x * w[0];
        b[l] += x * w[1];
    }
    let sum = |v: [f64; 4]| ((v[0] + v[1]) + (v[2] + v[3])).to_bits();
    [sum(a), sum(b)]
}

/// The table slot of a fingerprint: a multiply-xorshift mix.
fn slot_hash(f: &[u64; 2]) -> u64 {
    let h = (f[0] ^ f[1].rotate_left(32)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    h ^ (h >> 31)
}

/// Open-addressing hash table of fingerprints (class ids in first-row
/// order).
#[derive(Debug, Default)]
struct Table {
    prints: Vec<[u64; 2]>,
    slots: Vec<u32>,
    /// Per class: its first row (local to the chunk while grouping).
    first: Vec<usize>,
    weight: Vec<usize>,
}

impl Table {
    fn len(&self) -> usize {
        self.weight.len()
    }

    /// Adds class `c` of the chunk table `part` (whose rows start at row
    /// `first`): its global id.
    fn merge(&mut self, part: &Table, c: usize, first: usize) -> u32 {
        let g = self.find_or_create(part.prints[c], first + part.first[c]);
        self.weight[g as usize] += part.weight[c];
        g
    }

    /// The class of fingerprint `f`, created (no rows yet, first row `row`)
    /// when new.
    fn find_or_create(&mut self, f: [u64; 2], row: usize) -> u32 {
        if 2 * (self.len() + 1) > self.slots.len() {
            self.grow();
        }
        let mask = self.slots.len() - 1;
        let mut s = (slot_hash(&f) as usize) & mask;
        loop {
            let c = self.slots[s];
            if c == NONE {
                break;
            }
            if self.prints[c as usize] == f {
                return c;
            }
            s = (s + 1) & mask;
        }
        let c = self.len() as u32;
        self.slots[s] = c;
        self.prints.push(f);
        self.first.push(row);
        self.weight.push(0);
        c
    }

    /// Doubles the slots (at least 64) and re-inserts every class.
    fn grow(&mut self) {
        let size = (self.slots.len() * 2).max(64);
        self.slots = vec![NONE; size];
        for (c, f) in self.prints.iter().enumerate() {
            let mut s = (slot_hash(f) as usize) & (size - 1);
            while self.slots[s] != NONE {
                s = (s + 1) & (size - 1);
            }
            self.slots[s] = c as u32;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shifted_rows_share_a_class_in_row_order() {
        let rows = [
            [1.0, 2.0, 5.0],
            [11.0, 12.0, 15.0],
            [0.0, 0.0, 0.0],
            [3.0, 4.0, 7.0],
            [2.5, 2.5, 2.5],
        ];
        let delay: Vec<f64> = rows.concat();
        let g = group_rows(&delay, 3, 15.0, 1).unwrap();
        assert_eq!(g.of_row, vec![0, 0, 1, 0, 1]);
        assert_eq!(g.weight, vec![3, 2]);
        assert_eq!(g.offsets_of(0), &[0.0, 1.0, 4.0]);
        assert_eq!(g.offsets_of(1), &[0.0, 0.0, 0.0]);
    }

    #[test]
    fn too_many_classes_give_up() {
        // 20 rows, no two of them shifts of each other.
        let delay: Vec<f64> = (0..20).flat_map(|i| [0.0, f64::from(i)]).collect();
        assert!(group_rows(&delay, 2, 19.0, 2).is_none());
        assert_eq!(group_rows(&delay, 2, 19.0, 1).unwrap().len(), 20);
    }
}
