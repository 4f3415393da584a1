//! Linear orders of the squares of a `width × height` map: Hilbert,
//! Z-order (Morton), row by row, and by x key (column by column).
//!
//! Hilbert and Z-order are computed on the enclosing power-of-two square and
//! the map's squares sorted by their index there (so any rectangle works;
//! the order restricted to the map keeps the curve's locality).
//! `O(W·H log(W·H))`.

use crate::problems::ranges::model::Curve;

/// The Hilbert index of `(x, y)` on a `side × side` square (`side` a power
/// of two): the classic `xy2d`.
pub fn hilbert_index(side: u64, x: u64, y: u64) -> u64 {
    let (mut x, mut y, mut d) = (x, y, 0u64);
    let mut s = side / 2;
    while s > 0 {
        let rx = u64::from(x & s > 0);
        let ry = u64::from(y & s > 0);
        d += s * s * ((3 * rx) ^ ry);
        // Rotate the quadrant.
        if ry == 0 {
            if rx == 1 {
                x = side - 1 - x;
                y = side - 1 - y;
            }
            std::mem::swap(&mut x, &mut y);
        }
        s /= 2;
    }
    d
}

/// The Z-order (Morton) index: bits of x and y interleaved, x lowest.
pub fn z_index(x: u64, y: u64) -> u64 {
    let mut d = 0;
    for b in 0..32 {
        d |= ((x >> b) & 1) << (2 * b);
        d |= ((y >> b) & 1) << (2 * b + 1);
    }
    d
}

/// The squares `(x, y)` of a `width × height` map in `curve` order.
pub fn order(width: usize, height: usize, curve: Curve) -> Vec<(usize, usize)> {
    let mut cells: Vec<(usize, usize)> = (0..height)
        .flat_map(|y| (0..width).map(move |x| (x, y)))
        .collect();
    let side = width.max(height).next_power_of_two() as u64;
    match curve {
        Curve::Row => {}
        Curve::X => cells.sort_by_key(|&(x, y)| (x, y)),
        Curve::Z => cells.sort_by_key(|&(x, y)| z_index(x as u64, y as u64)),
        Curve::Hilbert => cells.sort_by_key(|&(x, y)| hilbert_index(side, x as u64, y as u64)),
    }
    cells
}

/// The position of every square in `curve` order: `rank[y · width + x]`.
pub fn ranks(width: usize, height: usize, curve: Curve) -> Vec<usize> {
    let mut rank = vec![0; width * height];
    for (i, (x, y)) in order(width, height, curve).into_iter().enumerate() {
        rank[y * width + x] = i;
    }
    rank
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_small_orders() {
        assert_eq!(
            order(2, 2, Curve::Hilbert),
            vec![(0, 0), (0, 1), (1, 1), (1, 0)]
        );
        // The 4 × 4 Hilbert curve (d2xy of Wikipedia's "Hilbert curve").
        let h4: Vec<(usize, usize)> = vec![
            (0, 0),
            (1, 0),
            (1, 1),
            (0, 1),
            (0, 2),
            (0, 3),
            (1, 3),
            (1, 2),
            (2, 2),
            (2, 3),
            (3, 3),
            (3, 2),
            (3, 1),
            (2, 1),
            (2, 0),
            (3, 0),
        ];
        assert_eq!(order(4, 4, Curve::Hilbert), h4);
        assert_eq!(order(2, 2, Curve::Z), vec![(0, 0), (1, 0), (0, 1), (1, 1)]);
        let z4 = order(4, 4, Curve::Z);
        assert_eq!(&z4[..6], &[(0, 0), (1, 0), (0, 1), (1, 1), (2, 0), (3, 0)]);
        assert_eq!(order(3, 2, Curve::Row)[3], (0, 1));
        assert_eq!(order(3, 2, Curve::X)[1], (0, 1));
        // Every curve is a permutation, consecutive Hilbert squares touch.
        for curve in [Curve::Hilbert, Curve::Z, Curve::Row, Curve::X] {
            let mut r = ranks(5, 3, curve);
            r.sort_unstable();
            assert_eq!(r, (0..15).collect::<Vec<_>>());
        }
        let h = order(8, 8, Curve::Hilbert);
        for w in h.windows(2) {
            assert_eq!(w[0].0.abs_diff(w[1].0) + w[0].1.abs_diff(w[1].1), 1);
        }
    }
}
