//! One large-neighbourhood dive of the search, for
//! [`host-lns`](crate::problems::spd::host_lns): a solution's hosts but a
//! few keep their clients, and the search places the rest with fewer
//! hosts in all.

use super::{Search, Stop};
use crate::problems::spd::exact::Probe;

/// A client's position in a server's list, and the client.
type Spot = (usize, usize);

impl Search<'_> {
    /// From the solution `assign`, with the hosts `closed[s]` closed: every
    /// other host keeps its clients (placed first, so its envelope starts
    /// as the solution's), and the search places the closed hosts' clients
    /// with at most `k` hosts in all, within `budget` nodes and the
    /// deadline. `Feasible`: the solution found (evaluator-checked);
    /// `Infeasible`: no such completion (of this neighbourhood only: it
    /// proves nothing about `k`); `Unknown`: out of nodes or time, or a
    /// kept client outside its host's window (the search's lists then lack
    /// a pair of `assign`).
    ///
    /// Complexity: placing the kept clients `O(m·n·log m)`, then at most
    /// `budget` search nodes.
    pub(crate) fn dive(
        &mut self,
        assign: &[usize],
        closed: &[bool],
        k: usize,
        budget: u64,
    ) -> Probe {
        self.k = k;
        let mut st = self.root_state();
        let n = self.inst.servers();
        let pos = |c: usize, s: usize| self.at.get(c * n + s).map_or(usize::MAX, |&p| p as usize);
        let kept: Vec<(usize, usize, usize)> = (assign.iter().enumerate())
            .filter(|&(_, &s)| !closed.get(s).copied().unwrap_or(true))
            .map(|(c, &s)| (c, s, pos(c, s)))
            .collect();
        // each kept host's extreme clients (least and largest position)
        // first: the others then leave its envelope, and so every window,
        // as it is
        let mut ends: Vec<Option<(Spot, Spot)>> = vec![None; n];
        for &(c, s, p) in &kept {
            let e = ends[s].get_or_insert(((p, c), (p, c)));
            e.0 = e.0.min((p, c));
            e.1 = e.1.max((p, c));
        }
        let firsts = ends
            .iter()
            .enumerate()
            .filter_map(|(s, e)| e.map(|e| (s, e)));
        let firsts = firsts.flat_map(|(s, ((lo, a), (hi, b)))| [(b, s, hi), (a, s, lo)]);
        for (c, s, p) in firsts.chain(kept.iter().copied()) {
            if st.assign.get(c) == Some(&s) {
                continue; // placed already (an extreme)
            }
            let (a, b) = st.win[s];
            if p < a || p >= b {
                return Probe::Unknown("a kept client is outside its window".into());
            }
            self.put(&mut st, s, p);
        }
        if st.hosts > k {
            return Probe::Infeasible;
        }
        self.budget = self.nodes.saturating_add(budget);
        match self.deep(|s| s.node(st, &mut Vec::new())) {
            Ok(Ok(Some(st))) => self.found(st),
            Ok(Ok(None)) => Probe::Infeasible,
            Ok(Err(Stop::Budget)) => Probe::Unknown(format!("dive budget of {budget} nodes")),
            Ok(Err(Stop::Deadline | Stop::Beaten)) => Probe::Unknown("the deadline was hit".into()),
            Err(why) => Probe::Unknown(why),
        }
    }
}
