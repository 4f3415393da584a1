//! Capacitated client-to-mirror assignment (CMA), problems.md §3 (seed 002,
//! Webb & Soh 2008).
//!
//! Mirrors `0..k` with integer capacities `C_j`, clients `0..n` (the rows of
//! the delay matrix), delay `d(i,j)`. The static problem assigns every row; the
//! dynamic problem replays `events` (joins and leaves of rows) from an
//! optional `start`.
//!
//! Capacities are given directly or derived from mirror resources (paper §2.1):
//! `C_j = floor(min(α_j / b, (β_j − n·L_s) / L_c))`, negative → 0. Here `n` is
//! the number of client rows of the instance (every player that may be in the
//! game, the paper's `P`), so a dynamic instance has fixed capacities. The
//! floor forgives a relative rounding error of `1e-9` (so `0.3 / 0.1` gives 3).

use crate::error::{Error, Result};

/// The most mirrors an instance may have: the move graph keeps `k × k`
/// tables (800 MB of `f64` at this limit). Readers and generators refuse
/// larger counts.
pub const MAX_MIRRORS: usize = 10_000;

/// The most players a weighted instance may count in all (`Σ players`):
/// sums of delays stay exact enough in `f64`, and loads fit any `usize`.
pub const MAX_PLAYERS: usize = 1 << 40;

/// A join or a leave of one client row.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CmaEvent {
    /// The client (row) joins the game.
    Join(usize),
    /// The client (row) leaves the game.
    Leave(usize),
}

impl CmaEvent {
    /// The client row the event names.
    pub fn client(self) -> usize {
        match self {
            CmaEvent::Join(i) | CmaEvent::Leave(i) => i,
        }
    }

    /// `"join"` or `"leave"`.
    pub fn kind(self) -> &'static str {
        match self {
            CmaEvent::Join(_) => "join",
            CmaEvent::Leave(_) => "leave",
        }
    }
}

/// Mirror resources from which capacities are derived (paper §2.1).
#[derive(Debug, Clone, PartialEq)]
pub struct CmaResources {
    /// `α_j`: bandwidth of each mirror.
    pub bandwidth: Vec<f64>,
    /// `β_j`: processing power of each mirror.
    pub cpu: Vec<f64>,
    /// `b`: bandwidth per player (> 0).
    pub b: f64,
    /// `L_s`: processing per player to simulate the world (>= 0).
    pub ls: f64,
    /// `L_c`: processing per connected player (> 0).
    pub lc: f64,
}

impl CmaResources {
    /// `C_j = floor(min(α_j/b, (β_j − n·L_s)/L_c))`, negative → 0, capped at
    /// `n` (a mirror never needs room for more than every player).
    pub fn capacities(&self, n: usize) -> Vec<usize> {
        self.bandwidth
            .iter()
            .zip(&self.cpu)
            .map(|(&alpha, &beta)| {
                let by_bw = alpha / self.b;
                let by_cpu = (beta - n as f64 * self.ls) / self.lc;
                let c = by_bw.min(by_cpu);
                if c.is_nan() || c <= 0.0 {
                    return 0;
                }
                let c = (c + 1e-9 * c.max(1.0)).floor();
                if c >= n as f64 {
                    n
                } else {
                    c as usize
                }
            })
            .collect()
    }
}

/// A validated CMA instance.
#[derive(Debug, Clone)]
pub struct CmaInstance {
    /// Instance name.
    pub name: String,
    /// Optional mirror names.
    pub mirror_names: Option<Vec<String>>,
    /// Optional client names (one per row).
    pub client_names: Option<Vec<String>>,
    /// `C_j` per mirror (derived from `resources` when those are given).
    pub capacity: Vec<usize>,
    /// The resources the capacities were derived from, if any.
    pub resources: Option<CmaResources>,
    /// The dynamic problem's events; `None` = static problem.
    pub events: Option<Vec<CmaEvent>>,
    /// Initial assignment for the dynamic problem: mirror per row, `None` =
    /// absent.
    pub start: Option<Vec<Option<usize>>>,
    /// Free-form provenance (generator, dataset).
    pub source: Option<String>,
    /// Optional cost of opening each mirror (finite, `>= 0`), used only by
    /// `plan cma` (objective = total delay + Σ open_cost of opened mirrors);
    /// the other engines ignore it.
    pub open_cost: Option<Vec<f64>>,
    /// Players per row (`None` = one player per row); set with
    /// [`CmaInstance::with_players`].
    players: Option<Vec<usize>>,
    k: usize,
    /// Row-major `n × k` delays.
    delay: Vec<f64>,
    max_delay: f64,
}

impl CmaInstance {
    /// Builds an instance from a row-major `n × k` delay vector. Delays must be
    /// finite and `>= 0`; `capacity` has one entry per mirror. A capacity above
    /// the client count `n` is clamped to `n` (no mirror can take more than
    /// every client), so capacity sums never overflow.
    pub fn new(name: impl Into<String>, mut capacity: Vec<usize>, delay: Vec<f64>) -> Result<Self> {
        let k = capacity.len();
        let file = "<memory>";
        if k == 0 {
            return Err(Error::input(
                file,
                "mirrors",
                "at least one mirror is needed",
            ));
        }
        if delay.len() % k != 0 {
            return Err(Error::input(
                file,
                "delay",
                format!("{} values do not form rows of {k}", delay.len()),
            ));
        }
        let mut max_delay: f64 = 0.0;
        for (idx, &d) in delay.iter().enumerate() {
            if !(d.is_finite() && d >= 0.0) {
                return Err(Error::input(
                    file,
                    format!("delay[{}][{}]", idx / k, idx % k),
                    format!("{d} is not a finite latency >= 0"),
                ));
            }
            max_delay = max_delay.max(d);
        }
        let n = delay.len() / k;
        for c in &mut capacity {
            *c = (*c).min(n);
        }
        Ok(CmaInstance {
            name: name.into(),
            mirror_names: None,
            client_names: None,
            capacity,
            resources: None,
            events: None,
            start: None,
            source: None,
            open_cost: None,
            players: None,
            k,
            delay,
            max_delay,
        })
    }

    /// Builds an instance from delay rows (each of length `capacity.len()`).
    pub fn from_rows(
        name: impl Into<String>,
        capacity: Vec<usize>,
        rows: &[Vec<f64>],
    ) -> Result<Self> {
        let k = capacity.len();
        if let Some((i, r)) = rows.iter().enumerate().find(|(_, r)| r.len() != k) {
            return Err(Error::input(
                "<memory>",
                format!("delay[{i}]"),
                format!("has {} values, expected {k} (one per mirror)", r.len()),
            ));
        }
        Self::new(name, capacity, rows.concat())
    }

    /// [`CmaInstance::new`] with a player count per row: capacities are
    /// clamped to the total players (not to the row count).
    pub fn new_weighted(
        name: impl Into<String>,
        capacity: Vec<usize>,
        delay: Vec<f64>,
        players: Vec<usize>,
    ) -> Result<Self> {
        let mut inst = Self::new(name, capacity.clone(), delay)?.with_players(players)?;
        let most = inst.total_players().max(inst.clients());
        inst.capacity = capacity.into_iter().map(|c| c.min(most)).collect();
        Ok(inst)
    }

    /// Gives every row a player count (a region of `players[i]` identical
    /// players; `0` = nobody there). Capacities keep the clamp to the row
    /// count that [`CmaInstance::new`] applied: build with
    /// [`CmaInstance::new_weighted`] for capacities above it. Errors on a
    /// wrong length, or a total above [`MAX_PLAYERS`].
    pub fn with_players(mut self, players: Vec<usize>) -> Result<Self> {
        let n = self.clients();
        if players.len() != n {
            return Err(Error::input(
                "<memory>",
                "players",
                format!(
                    "has {} values, expected {n} (one per delay row)",
                    players.len()
                ),
            ));
        }
        let mut total: usize = 0;
        for (i, &w) in players.iter().enumerate() {
            total = total.saturating_add(w);
            if total > MAX_PLAYERS {
                return Err(Error::input(
                    "<memory>",
                    format!("players[{i}]"),
                    format!("the players add up to more than the limit of {MAX_PLAYERS}"),
                ));
            }
        }
        for c in &mut self.capacity {
            *c = (*c).min(total.max(n));
        }
        self.players = Some(players);
        Ok(self)
    }

    /// Players per row when the instance has counts (`None` = one each).
    pub fn players(&self) -> Option<&[usize]> {
        self.players.as_deref()
    }

    /// True when some row stands for other than exactly one player.
    pub fn is_weighted(&self) -> bool {
        self.players
            .as_ref()
            .is_some_and(|p| p.iter().any(|&w| w != 1))
    }

    /// Players of row `i` (1 without counts).
    #[inline]
    pub fn weight(&self, i: usize) -> usize {
        self.players.as_ref().map_or(1, |p| p[i])
    }

    /// Total players: `Σ` counts, or the row count.
    pub fn total_players(&self) -> usize {
        self.players
            .as_ref()
            .map_or(self.clients(), |p| p.iter().sum())
    }

    /// Number of mirrors `k`.
    pub fn mirrors(&self) -> usize {
        self.k
    }

    /// Number of client rows `n`.
    pub fn clients(&self) -> usize {
        self.delay.len() / self.k
    }

    /// `d(i, j)`.
    #[inline]
    pub fn delay(&self, i: usize, j: usize) -> f64 {
        self.delay[i * self.k + j]
    }

    /// The delays of client `i` to every mirror.
    #[inline]
    pub fn row(&self, i: usize) -> &[f64] {
        &self.delay[i * self.k..(i + 1) * self.k]
    }

    /// The whole row-major delay matrix.
    pub fn delay_matrix(&self) -> &[f64] {
        &self.delay
    }

    /// Largest delay in the matrix (scale for tolerances).
    pub fn max_delay(&self) -> f64 {
        self.max_delay
    }

    /// `Σ C_j`, saturating at `usize::MAX` (the constructor clamps each
    /// `C_j` to the client count, but `capacity` is a public field).
    pub fn total_capacity(&self) -> usize {
        self.capacity
            .iter()
            .fold(0usize, |a, &c| a.saturating_add(c))
    }

    /// The mirror with the least delay to `i` among mirrors with `C_j > 0`
    /// (ties: lower index); `None` when every capacity is 0.
    pub fn nearest(&self, i: usize) -> Option<usize> {
        let mut best: Option<(usize, f64)> = None;
        for (j, &d) in self.row(i).iter().enumerate() {
            if self.capacity[j] > 0 && best.is_none_or(|(_, b)| d < b) {
                best = Some((j, d));
            }
        }
        best.map(|(j, _)| j)
    }

    /// Absolute tolerance for comparing delay sums on this instance:
    /// `1e-9 · max(1, max delay)`.
    pub fn tolerance(&self) -> f64 {
        1e-9 * self.max_delay.max(1.0)
    }

    /// Name of mirror `j` (its index when unnamed).
    pub fn mirror_label(&self, j: usize) -> String {
        self.mirror_names
            .as_ref()
            .and_then(|n| n.get(j).cloned())
            .unwrap_or_else(|| j.to_string())
    }
}

/// A dynamic assignment state: mirror per row (`None` = absent), loads and
/// the list of present clients (`O(1)` join, leave and move).
#[derive(Debug, Clone)]
pub struct CmaState {
    assign: Vec<Option<usize>>,
    load: Vec<usize>,
    present: Vec<usize>,
    pos: Vec<usize>,
}

impl CmaState {
    /// Nobody present.
    pub fn empty(inst: &CmaInstance) -> Self {
        CmaState {
            assign: vec![None; inst.clients()],
            load: vec![0; inst.mirrors()],
            present: Vec::new(),
            pos: vec![usize::MAX; inst.clients()],
        }
    }

    /// A state from an assignment (mirror per row, `None` = absent); indices
    /// must be valid (the reader checks them).
    pub fn from_assignment(inst: &CmaInstance, assign: &[Option<usize>]) -> Self {
        let mut s = Self::empty(inst);
        for (i, a) in assign.iter().enumerate() {
            if let Some(j) = *a {
                s.join(i, j);
            }
        }
        s
    }

    /// Mirror per row.
    pub fn assignment(&self) -> &[Option<usize>] {
        &self.assign
    }

    /// Mirror of client `i`.
    pub fn mirror_of(&self, i: usize) -> Option<usize> {
        self.assign[i]
    }

    /// Clients per mirror.
    pub fn loads(&self) -> &[usize] {
        &self.load
    }

    /// Present clients (unordered).
    pub fn present(&self) -> &[usize] {
        &self.present
    }

    /// Puts absent client `i` on mirror `j`.
    pub fn join(&mut self, i: usize, j: usize) {
        self.assign[i] = Some(j);
        self.load[j] += 1;
        self.pos[i] = self.present.len();
        self.present.push(i);
    }

    /// Removes present client `i`; returns its mirror.
    pub fn leave(&mut self, i: usize) -> Option<usize> {
        let j = self.assign[i].take()?;
        self.load[j] -= 1;
        let p = self.pos[i];
        self.present.swap_remove(p);
        if let Some(&m) = self.present.get(p) {
            self.pos[m] = p;
        }
        self.pos[i] = usize::MAX;
        Some(j)
    }

    /// Moves present client `i` to mirror `j`.
    pub fn move_to(&mut self, i: usize, j: usize) {
        if let Some(u) = self.assign[i] {
            self.load[u] -= 1;
            self.load[j] += 1;
            self.assign[i] = Some(j);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capacity_from_resources_follows_the_paper_formula() {
        let r = CmaResources {
            bandwidth: vec![1000.0, 0.3, 500.0, 50.0],
            cpu: vec![2000.0, 100.0, 50.0, 1e9],
            b: 0.1,
            ls: 1.0,
            lc: 2.0,
        };
        // n = 100: cpu bound (β − 100)/2; bandwidth bound α/0.1.
        let c = r.capacities(100);
        // mirror 0: min(10000, 950) = 950 → capped at n = 100
        assert_eq!(c[0], 100);
        // mirror 1: 0.3/0.1 = 2.9999999999999996 → 3 (rounding forgiven), cpu 0 → 0
        assert_eq!(c[1], 0);
        // mirror 2: cpu (50 − 100)/2 < 0 → 0
        assert_eq!(c[2], 0);
        // mirror 3: bandwidth 500 → capped at 100
        assert_eq!(c[3], 100);
        let c = r.capacities(10);
        assert_eq!(c, vec![10, 3, 10, 10]);
        let c = r.capacities(48);
        // mirror 2: (50 − 48)/2 = 1
        assert_eq!(c[2], 1);
    }

    #[test]
    fn nearest_skips_zero_capacity_mirrors() {
        let inst = CmaInstance::from_rows("t", vec![0, 1, 1], &[vec![1.0, 3.0, 2.0]]).unwrap();
        assert_eq!(inst.nearest(0), Some(2));
    }
}
