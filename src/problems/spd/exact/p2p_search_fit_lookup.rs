//! The tests' cross-check of [`Search::fit_extra`]: the same answer from
//! the clients' positions on each server.

use super::super::bits::ones;
use super::super::Search;
use super::{or_into, Fit, EXTRA_CROSS_CHECKS};

impl Search<'_> {
    /// The tests' cross-check of [`Search::fit_extra`]: the same answer
    /// from the clients' positions on each server (the lookups the window
    /// bits replaced), asserted equal.
    pub(super) fn fit_extra_by_lookup(&self, f: &Fit, left: &[u64], spare: &[u64], held: bool) {
        if !f.with_extra {
            return;
        }
        let ex = &f.b.extra;
        let n = self.inst.servers();
        let holds = |t: usize, (a, b): (usize, usize)| {
            ones(left).all(|c| (a..b).contains(&(self.at[c * n + t] as usize)))
        };
        let mut want = vec![0u64; self.w];
        let mut scratch = vec![0u64; self.w];
        let mut any = false;
        for &(t, win) in &ex.servers {
            // written out here, not through `Search::narrowed_by_chosen`,
            // so that a fault there shows as a disagreement
            if !holds(t, win) || f.b.chosen.iter().flatten().any(|&j| f.pk.cands[j].s == t) {
                continue;
            }
            let win = f.b.chosen.iter().flatten().fold(win, |win, &j| {
                let d = f.pk.cands[j];
                self.narrow(t, win, d.s, d.x, d.x)
            });
            if holds(t, win) {
                any = true;
                self.window_bits(t, win, &mut scratch);
                or_into(&mut want, &scratch);
            }
        }
        assert_eq!(held, any, "fit_extra: held");
        if held {
            assert_eq!(spare, &want[..], "fit_extra: spare");
        }
        EXTRA_CROSS_CHECKS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }
}
