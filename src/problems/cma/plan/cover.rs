//! The capacity cover inside the Lagrangian subproblem: choose `r` mirrors
//! of least total `v_j` whose capacities hold every player. Every feasible
//! mirror set satisfies `Σ C_j >= n`, hence (rounding capacities up to
//! units of `u`) `Σ ⌈C_j/u⌉ >= ⌈n/u⌉`; keeping that in the subproblem makes
//! the bound stronger than the LP bound near the capacity threshold, where
//! the LP opens high-capacity mirrors fractionally. Dynamic programme over
//! (mirrors taken, units covered, capped at the need): `O(F · r · T)` for
//! `F` free mirrors and `T <= 256` units.

/// Units of capacity the cover is counted in (at most 256 per `n`).
pub fn unit(n: usize) -> usize {
    n.div_ceil(256).max(1)
}

/// Reusable tables of the cover programme.
#[derive(Debug, Default)]
pub struct Cover {
    dp: Vec<f64>,
    prev: Vec<u32>,
}

const NONE: u32 = u32::MAX;

impl Cover {
    /// The least-`v` choice of `r` mirrors of `free` with at least `need`
    /// units (`weight[j] = ⌈C_j/u⌉`); `None` when no choice covers.
    pub fn choose(
        &mut self,
        free: &[usize],
        v: &[f64],
        weight: &[usize],
        r: usize,
        need: usize,
    ) -> Option<Vec<usize>> {
        let (f, t_max) = (free.len(), need);
        let width = t_max + 1;
        let layer = (r + 1) * width;
        self.dp.clear();
        self.dp.resize(layer, f64::INFINITY);
        self.prev.clear();
        self.prev.resize(f * layer, NONE);
        self.dp[0] = 0.0;
        for (idx, &j) in free.iter().enumerate() {
            let w = weight[j];
            for c in (1..=r.min(idx + 1)).rev() {
                for t in 0..width {
                    let base = self.dp[(c - 1) * width + t];
                    if !base.is_finite() {
                        continue;
                    }
                    let nt = (t + w).min(t_max);
                    let cand = base + v[j];
                    if cand < self.dp[c * width + nt] {
                        self.dp[c * width + nt] = cand;
                        self.prev[idx * layer + c * width + nt] = t as u32;
                    }
                }
            }
        }
        if !self.dp[r * width + t_max].is_finite() {
            return None;
        }
        let (mut c, mut t) = (r, t_max);
        let mut out = Vec::with_capacity(r);
        for idx in (0..f).rev() {
            if c == 0 {
                break;
            }
            let p = self.prev[idx * layer + c * width + t];
            if p != NONE {
                out.push(free[idx]);
                c -= 1;
                t = p as usize;
            }
        }
        (c == 0).then_some(out)
    }
}
