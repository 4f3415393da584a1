//! `exact` for P2P: the decision "is there an assignment with at most `k`
//! hosts whose pair delays all fit the limits?" by a depth-first constraint
//! search (beyond the paper; far faster than the MILP at 40–80 servers).
//!
//! # The search
//!
//! Each host `s` keeps its *envelope*: the least and the largest access
//! latency of its clients, `lo_s <= hi_s`. Every pair delay is monotone in
//! both accesses, so all pairs fit iff the extremes do: `hi_s + D(s,t) +
//! hi_t` fits the upper limit (and `lo_s + D(s,t) + lo_t` the lower one) for
//! hosts `s != t`, and a client joining `s` fits with `hi_s` and `lo_s`
//! (distinct pairs on one host). So for every server `s` the access values
//! a client may have on `s` form a *window*, one contiguous run of `s`'s
//! clients sorted by access
//! (`p2p::allowed_pairs`), narrowed by a search from the end it cuts
//! (galloping, then binary; with the evaluator's exact arithmetic,
//! `pair_q`) each time an envelope grows. Clients are bitsets; a window is the difference of two prefix
//! bitsets.
//!
//! A node of the search:
//! 1. *Free clients*: an unassigned client inside a host's envelope and
//!    window joins it (that changes no envelope, so it never hurts; without
//!    a lower limit, any access up to the envelope's top counts as inside).
//! 2. *Options*: per unassigned client, the hosts whose window holds it and,
//!    while fewer than `k` hosts are open, the other servers whose window
//!    holds it. No option: dead end. One option: forced (then repeat).
//! 3. *Orphan bounds*: clients no host can take need new hosts; a greedy set
//!    of orphans no new server can take two of (window and same-host pair)
//!    needs that many new hosts: prune when the open hosts plus it exceed `k`.
//!    When it leaves room for no other new host (and room for three or
//!    more), each picked orphan gets a new server of its own: a small
//!    bounded search (forward checking, and a client only one pick can
//!    cover narrowing that pick's servers) checks that some such choice
//!    fits pairwise and leaves every unassigned client a window, the open
//!    hosts' narrowed by the new ones (`packing`); with room for one more
//!    new host than that, the clients no picked orphan's server can take
//!    must fit one other new server.
//!    With room for one more host, one new server must take every orphan;
//!    with room for two, two new servers must cover them, the orphans only
//!    one of them can take fitting together on it and across the pair,
//!    and every other unassigned client lying in a window narrowed against
//!    those orphans (`Search::pair_leaves_none`; at most 16 pairs a node
//!    are refused so, then the node goes through).
//! 4. *Branch* on the client with fewest options (orphans first): existing
//!    hosts by least envelope growth, then new servers by how many
//!    unassigned clients their window holds (in the host stage one of the
//!    incumbent's hosts counts 50 clients more: `Search::prefer`). A
//!    branch that opens the last host is refuted before its node is built
//!    when the node's orphans (which can only join it) do not fit on it,
//!    or some other unassigned client lies in none of the `k` hosts'
//!    windows narrowed against it with them, or in none after the forced
//!    moves those windows make
//!    (`Search::last_host_fails`, `Search::all_hosts_fail`: its node would
//!    die after its forced moves, and such nodes were three quarters of a
//!    hard refutation's). A branch that opens the next-to-last host is refuted
//!    the same way when the clients left in no window narrowed against it
//!    fit no single other new server (`Search::next_to_last_fails`), and
//!    one that opens the third host from last when the two-server bound,
//!    made with it opened, refutes its node (`Search::third_to_last_fails`:
//!    such nodes were nearly all of a hard refutation's nodes with two
//!    hosts left). One that opens a host with four or five left is
//!    refuted when its child's orphan packing, made with it opened, is
//!    over the room left or fails its check (`Search::opening_overpacks`:
//!    at 200 × 1,000 f = 1.0, 93% of the nodes with three or four
//!    hosts left died by their packing).
//! 5. *Cuts* (upper limit only): once the branch "c on `s`" is refuted,
//!    the later branches cut `s`'s window below `a(c,s)` when every top it
//!    allows would let `c` join (then a solution there with `s`'s top at
//!    least `a(c,s)` would give one with `c` on `s`);
//!    see `Search::cap_refuted`.
//! 6. *Caps* (a descent's delay stage only): probing passes under the
//!    current limit while the search runs cut windows at refuted tails
//!    (`caps`).
//! 7. *Threads*: a decision without a node budget is split over the run's
//!    threads (`split`): workers donate untried branches as pieces and the
//!    leftmost solution wins, so the answer, the solution and (for a
//!    refutation) the node count are those of one thread (in the host
//!    stage the first solution found wins: the same answer and node
//!    count of a refutation, sooner when a solution lies right of open
//!    pieces).
//! 8. *Critical pairs* (the variation stage only): at the proven least
//!    delay every solution has a pair of exactly that delay between its
//!    hosts' tops, so the search runs one root per such pair, the two
//!    clients placed and the two tops fixed (`critical`).
//!
//! Every step is exact (no float slack beyond the evaluator's own
//! [`within_bound`](crate::core::within_bound)); the solution found is
//! re-checked by the evaluator. A node budget and the deadline stop it:
//! then the answer is `Probe::Unknown`.
//!
//! Complexity: exponential in the worst case (the problem is NP-hard); a
//! node costs `O(n·m/64 + n·log m + Σ_s |window_s|)` for `n` servers and
//! `m` clients (its option counts are its parent's, less the windows'
//! lost parts: `O(n + n'·m/64)` for the `n'` windows that changed); the
//! prefix bitsets take `O(Σ_s |allowed_s| · m/64)` words and the
//! client-major positions `n·m`.

use crate::problems::spd::exact::p2p::Limits;
use crate::problems::spd::exact::{score, Deadline, Probe};
use crate::problems::spd::model::{SpdInstance, SpdSolution};
use bits::{set, Bits, Counts, ListIndex};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::sync::Arc;

/// Most prefix-bitset words the search allocates (`Σ_s (|allowed_s|+1) ·
/// ⌈m/64⌉`); above it the search declines (the MILP runs instead).
pub(crate) const MAX_PREFIX_WORDS: usize = 40_000_000;

/// Most clients the search takes (its recursion depth grows with them).
pub(crate) const MAX_CLIENTS: usize = 20_000;

/// Branches opening a host with 4 up to this many hosts left are checked
/// by their child's orphan packing before their node
/// ([`Search::opening_overpacks`]). At 200 × 1,000 f = 1.0 seed 3 (the
/// refutation of 14 hosts, one thread, paired runs) up to 5 left took
/// 122 s, up to 6 128 s, none 135 s: with more hosts left, more of the
/// children live, and for them the check is made twice.
const EARLY_PACKING: usize = 5;

/// Stack bytes reserved per client for the recursion (a frame takes well
/// under this; the reservation is virtual memory).
const STACK_PER_CLIENT: usize = 16 << 10;

/// Stack of a search thread for `clients` clients: one recursion level per
/// branching decision, at most one per client.
fn stack_bytes(clients: usize) -> usize {
    STACK_PER_CLIENT
        .saturating_mul(clients.saturating_add(64))
        .max(8 << 20)
}

/// Why a search stopped without an answer.
enum Stop {
    Budget,
    Deadline,
    /// A split search's piece lies right of a solution already found.
    Beaten,
}

/// The fixed data of one decision (the lists and bitsets are shared by
/// the workers of a split search, [`split`]).
#[derive(Clone)]
pub(crate) struct Search<'a> {
    inst: &'a SpdInstance,
    lim: Limits,
    k: usize,
    /// Allowed `(client, access)` per server, by access ascending.
    lists: Arc<Vec<Vec<(usize, f64)>>>,
    /// The accesses of `lists[s]`, contiguous (the windows' binary
    /// searches read only these).
    vals: Arc<Vec<Vec<f64>>>,
    /// `prefix[s][i·w..(i+1)·w]`: the first `i` clients of `lists[s]`.
    prefix: Arc<Vec<Vec<u64>>>,
    /// `at[c·n + s]`: position of client `c` in `lists[s]` (`u32::MAX`:
    /// none), client-major: the loops over servers for one client read
    /// one contiguous run.
    at: Arc<Vec<u32>>,
    /// `servers_of[c]`: the servers whose list holds client `c`, ascending
    /// (a loop over one client's servers reads these, not every server:
    /// at 200 × 1,000 f = 1.0 a client is on 40 lists of 200).
    servers_of: Arc<Vec<Vec<u32>>>,
    /// Words per bitset.
    w: usize,
    nodes: u64,
    budget: u64,
    deadline: Deadline,
    /// Tie-break noise for restarts (`None`: deterministic order).
    rng: Option<ChaCha8Rng>,
    /// Servers new hosts are preferred on (the incumbent's hosts,
    /// [`Search::prefer`]; `None`: none).
    preferred: Option<Arc<Vec<bool>>>,
    /// Whether the last probe ([`probe`]) refuted its pair.
    refuted: bool,
    /// Windows cut below a refuted branch ([`Search::cap_refuted`]).
    cuts: u64,
    /// Whether refuted branches cut their siblings' windows.
    cut: bool,
    /// Whether a tight packing's new hosts are checked ([`packing`]).
    packing: bool,
    /// Nodes that check refuted.
    packing_refuted: u64,
    /// Whether branches opening the last host are checked before their
    /// node ([`Search::last_host_fails`]).
    last_host: bool,
    /// Branches that check refuted.
    last_host_refuted: u64,
    /// Whether that check runs the forced moves over the `k` hosts'
    /// windows ([`Search::all_hosts_fail`]), not only their first round.
    last_forced: bool,
    /// Branches refuted by those forced moves after the first round passed
    /// (the tests' measure).
    #[cfg(test)]
    last_forced_refuted: std::cell::Cell<u64>,
    /// Whether branches opening the next-to-last host are checked before
    /// their node ([`Search::next_to_last_fails`]).
    next_to_last: bool,
    /// Branches that check refuted.
    next_to_last_refuted: u64,
    /// Whether branches opening the third host from last are checked
    /// before their node ([`Search::third_to_last_fails`]).
    third_to_last: bool,
    /// Branches that check refuted.
    third_to_last_refuted: u64,
    /// Branches opening a host with 4 up to this many hosts left are
    /// checked by their child's packing before their node
    /// ([`Search::opening_overpacks`]; below 4: none).
    early_packing: usize,
    /// Branches that check refuted.
    early_packing_refuted: u64,
    /// Tests: search every branch that check refutes to the end without
    /// it, and panic when it finds a solution.
    #[cfg(test)]
    early_packing_verify: bool,
    /// Whether the two-server bound narrows the other windows against
    /// each pair ([`Search::pair_leaves_none`]).
    pair_narrowing: bool,
    /// Nodes the two-server bound refuted only by that narrowing.
    pair_narrowing_refuted: u64,
    /// Branch indices from the decision's root to the current node.
    path: Vec<u32>,
    /// The split search this worker belongs to, with its piece's state.
    piece: Option<split::PieceRun>,
    /// Nodes of a piece between donations ([`split`]).
    donate_every: u64,
    /// Pieces donated by split searches so far.
    pieces: u64,
    /// Donate whenever due, not only to a waiting worker (tests).
    always_donate: bool,
    /// The branch and bound this search belongs to: solutions tighten its
    /// threshold and the search goes on ([`descent`]).
    descent: Option<Arc<descent::Descent>>,
    /// Probing for another search's limits: a probe's solution answers
    /// nothing (`probe::decide_lower`).
    probes_only: bool,
    /// A descent's shared window caps from probing under its current
    /// limit ([`caps`]).
    caps: Option<Arc<caps::Caps>>,
    /// Whether this search runs the caps' probing passes (its workers do,
    /// a pass's own probes do not).
    caps_pass: bool,
    /// Whether a pass's probes may improve the descent (on; the tests turn
    /// it off so that the caps, not the passes' solutions, must hold the
    /// optimum's pairs).
    caps_pass_improves: bool,
    /// Whether a split search ([`split`]) ends at its first solution, not
    /// the leftmost ([`Search::first_solution_wins`]).
    first_wins: bool,
    /// Buffers kept for reuse ([`spare`]).
    spare: spare::Spare,
}

/// A node whose branches are being tried: its state (cut by its refuted
/// branches), its branch values, the next one to try, and the index of
/// `values[0]` among the node's branches (a donated piece starts later).
struct Frame {
    st: State,
    values: Vec<(usize, usize)>,
    next: usize,
    first: u32,
}

/// One node's state (cloned per branch; small: a branch's child takes a
/// refuted node's buffers, [`spare`]).
struct State {
    /// Envelope per server as list positions `[lo, hi]` of its extreme
    /// clients (`None`: not a host).
    env: Vec<Option<(usize, usize)>>,
    /// Window per server: positions `[a, b)` a client may take.
    win: Vec<(usize, usize)>,
    /// Unassigned clients.
    open: Bits,
    /// Clients placed by the free-client rule (step 1): a descent's
    /// tighter limit takes them back ([`Search::renarrow`]).
    free: Bits,
    /// Host of each assigned client.
    assign: Vec<usize>,
    hosts: usize,
    /// The limits `(hi, lo)` the windows were narrowed under (a descent
    /// tightens them: [`Search::renarrow`]).
    lim: (f64, f64),
    /// Option counts of every client over the windows `counted`
    /// ([`Search::count_options`] brings them up to date).
    opt: Counts,
    /// Per server, the window `opt` counts (empty: none).
    counted: Vec<(usize, usize)>,
    /// The caps generation the windows were cut at ([`caps`]).
    caps_gen: u64,
}

/// Decides whether some assignment with at most `k` hosts has all pairs in
/// `lim`, within `budget` nodes and the deadline. `None` when the search
/// declines (too large for its bitsets). (The engine's stages build the
/// [`Search`] themselves; the tests decide through this.)
#[cfg(test)]
pub(crate) fn decide(
    inst: &SpdInstance,
    lim: Limits,
    k: usize,
    budget: u64,
    dl: &Deadline,
) -> Option<Probe> {
    match crate::problems::spd::exact::p2p::allowed_pairs(inst, &lim) {
        Ok(lists) if budget == u64::MAX => probe::decide_probed(inst, lim, lists, k, dl, None),
        Ok(lists) => Search::new(inst, lim, lists, dl.clone()).map(|mut s| s.decide(k, budget)),
        Err(_) => Some(Probe::Infeasible),
    }
}

impl<'a> Search<'a> {
    /// The search over `lists`
    /// ([`allowed_pairs`](super::p2p::allowed_pairs) at `lim`); `None`
    /// when its prefix bitsets would exceed [`MAX_PREFIX_WORDS`] or the
    /// clients [`MAX_CLIENTS`].
    pub(crate) fn new(
        inst: &'a SpdInstance,
        lim: Limits,
        lists: Vec<Vec<(usize, f64)>>,
        deadline: Deadline,
    ) -> Option<Self> {
        let m = inst.clients();
        let w = m.div_ceil(64).max(1);
        let words: usize = lists.iter().map(|l| (l.len() + 1) * w).sum();
        if words > MAX_PREFIX_WORDS || m > MAX_CLIENTS {
            return None;
        }
        let index = ListIndex::new(&lists, m, w);
        Some(Search {
            inst,
            lim,
            k: 0,
            lists: Arc::new(lists),
            vals: Arc::new(index.vals),
            prefix: Arc::new(index.prefix),
            at: Arc::new(index.at),
            servers_of: Arc::new(index.servers_of),
            w,
            nodes: 0,
            budget: 0,
            deadline,
            rng: None,
            preferred: None,
            refuted: false,
            cuts: 0,
            cut: true,
            packing: true,
            packing_refuted: 0,
            last_host: true,
            last_host_refuted: 0,
            last_forced: true,
            #[cfg(test)]
            last_forced_refuted: std::cell::Cell::new(0),
            next_to_last: true,
            next_to_last_refuted: 0,
            third_to_last: true,
            third_to_last_refuted: 0,
            early_packing: EARLY_PACKING,
            early_packing_refuted: 0,
            #[cfg(test)]
            early_packing_verify: false,
            pair_narrowing: true,
            pair_narrowing_refuted: 0,
            path: Vec::new(),
            piece: None,
            donate_every: split::DONATE_EVERY,
            pieces: 0,
            always_donate: false,
            descent: None,
            probes_only: false,
            caps: None,
            caps_pass: false,
            caps_pass_improves: true,
            first_wins: false,
            spare: spare::Spare::default(),
        })
    }

    /// Makes this search a branch and bound of `d` ([`descent`]): every
    /// solution tightens its threshold and the search goes on.
    pub(crate) fn set_descent(&mut self, d: Option<Arc<descent::Descent>>) {
        self.descent = d;
        self.follow_descent();
    }

    /// A new server flagged in `servers` (the incumbent's hosts) counts
    /// [`PREFER_REACH`](branch::PREFER_REACH) more reachable clients in the
    /// order of branch values: a solution with one host fewer mostly keeps
    /// the incumbent's hosts. `None`: no preference.
    pub(crate) fn prefer(&mut self, servers: Option<Arc<Vec<bool>>>) {
        self.preferred = servers;
    }

    /// With `on`, a split search ([`split`]) of this decision ends at the
    /// first solution any of its threads finds, not the leftmost: the
    /// same answer, sooner, but which solution then depends on timing
    /// (the host stage's decisions, where any solution answers the count).
    pub(crate) fn first_solution_wins(&mut self, on: bool) {
        self.first_wins = on;
    }

    /// Randomises the branching order (ties and near-ties among new
    /// servers) from `seed`, for restarts; `None` restores the default order.
    pub(crate) fn shuffle(&mut self, seed: Option<u64>) {
        self.rng = seed.map(ChaCha8Rng::seed_from_u64);
    }

    /// Whether refuted branches cut their siblings' windows (on by default;
    /// [`Search::cap_refuted`]).
    pub(crate) fn set_cuts(&mut self, on: bool) {
        self.cut = on;
    }

    /// True once the search's deadline has passed.
    pub(crate) fn out_of_time(&self) -> bool {
        self.deadline.expired()
    }

    /// Nodes visited by all decisions so far.
    pub(crate) fn nodes(&self) -> u64 {
        self.nodes
    }

    /// Is there an assignment with at most `k` hosts? At most `budget` more
    /// nodes, and the deadline.
    pub(crate) fn decide(&mut self, k: usize, budget: u64) -> Probe {
        self.k = k;
        self.budget = self.nodes.saturating_add(budget);
        if self.k == 0 {
            return Probe::Infeasible;
        }
        let root = self.root_state();
        let found = match self.deep(|s| s.dfs(root)) {
            Ok(found) => found,
            Err(why) => return Probe::Unknown(why),
        };
        match found {
            Ok(Some(st)) => self.found(st),
            Ok(None) => Probe::Infeasible,
            Err(Stop::Budget) => Probe::Unknown(format!("search budget of {budget} nodes")),
            Err(Stop::Deadline | Stop::Beaten) => Probe::Unknown("the deadline was hit".into()),
        }
    }

    /// The root: no client assigned, every window whole.
    fn root_state(&self) -> State {
        let (n, m) = (self.inst.servers(), self.inst.clients());
        let mut open = vec![0u64; self.w];
        (0..m).for_each(|c| set(&mut open, c));
        let mut st = State {
            env: vec![None; n],
            win: self.lists.iter().map(|l| (0, l.len())).collect(),
            open,
            free: vec![0u64; self.w],
            assign: vec![usize::MAX; m],
            hosts: 0,
            lim: (self.lim.hi, self.lim.lo),
            opt: Counts::new(self.w, n),
            counted: vec![(0, 0); n],
            caps_gen: 0,
        };
        // (no host is open: the caps cut windows only)
        self.apply_caps(&mut st);
        st
    }

    /// Runs `f` on a thread whose stack fits the recursion (one level per
    /// branching decision, at most one per client). `Err`: the thread did
    /// not start or failed.
    fn deep<T: Send>(&mut self, f: impl FnOnce(&mut Self) -> T + Send) -> Result<T, String>
    where
        Self: Send,
    {
        let stack = stack_bytes(self.inst.clients());
        let run = std::thread::scope(|sc| {
            std::thread::Builder::new()
                .stack_size(stack)
                .spawn_scoped(sc, || f(self))
                .map(|h| h.join())
        });
        match run {
            Ok(Ok(t)) => Ok(t),
            Ok(Err(_)) => Err("the search thread failed".into()),
            Err(e) => Err(format!("the search thread did not start: {e}")),
        }
    }

    /// A complete state as the evaluator's answer.
    fn found(&self, st: State) -> Probe {
        let sol = SpdSolution {
            root: None,
            assign: st.assign,
        };
        match score(self.inst, sol) {
            Some(sc) if self.lim.fits(sc.metrics.delay) => Probe::Feasible(sc),
            _ => Probe::Unknown("the search's solution failed the evaluator".into()),
        }
    }

    fn tick(&mut self) -> Result<(), Stop> {
        self.nodes += 1;
        if self.nodes > self.budget {
            return Err(Stop::Budget);
        }
        if self.nodes % 256 == 0 {
            if self.deadline.expired() {
                return Err(Stop::Deadline);
            }
            self.check_beaten()?;
        }
        if caps::look_at(self.nodes) {
            self.maybe_cap()?;
        }
        self.count_piece_node();
        self.follow_descent();
        Ok(())
    }

    /// The depth-first search from `st`.
    fn dfs(&mut self, st: State) -> Result<Option<State>, Stop> {
        self.node(st, &mut Vec::new())
    }
}

#[path = "p2p_search_bits.rs"]
mod bits;
#[path = "p2p_search_bounds.rs"]
mod bounds;
#[path = "p2p_search_branch.rs"]
mod branch;
#[path = "p2p_search_caps.rs"]
mod caps;
/// Caps moved by the descents' probing passes so far (tests).
#[cfg(test)]
pub(crate) fn caps_moved() -> u64 {
    caps::MOVED.load(std::sync::atomic::Ordering::Relaxed)
}
#[path = "p2p_search_critical.rs"]
mod critical;
#[path = "p2p_search_descent.rs"]
pub(crate) mod descent;
#[path = "p2p_search_fit.rs"]
mod fit;
#[path = "p2p_search_last.rs"]
mod last;
#[path = "p2p_search_lns.rs"]
mod lns;
#[path = "p2p_search_node.rs"]
mod node;
#[path = "p2p_search_packing.rs"]
mod packing;
#[path = "p2p_search_pass.rs"]
mod pass;
#[path = "p2p_search_probe.rs"]
pub(crate) mod probe;
#[path = "p2p_search_spare.rs"]
mod spare;
#[path = "p2p_search_split.rs"]
mod split;
#[cfg(test)]
#[path = "p2p_search_switches.rs"]
mod switches;
#[path = "p2p_search_windows.rs"]
mod windows;

#[cfg(test)]
#[path = "p2p_search_critical_tests.rs"]
mod critical_tests;
#[cfg(test)]
#[path = "p2p_search_probe_tests.rs"]
mod probe_tests;
#[cfg(test)]
#[path = "p2p_search_tests.rs"]
mod tests;
