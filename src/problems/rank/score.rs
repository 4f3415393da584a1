//! THE rank score: every factor of every preset, as its source gives it.
//!
//! A [`Preset`] is a set of constants and curves, selected by name:
//!
//! | name | combination | source |
//! |---|---|---|
//! | `seed000` | product of six factors | seed 000 (problems.md §5) |
//! | `ns2-v1` | product | NS2 `lua/ServerBrowser.lua`, `CalculateSeverRanking`, as vendored in `KyleAbent/ns2siege` (commit c4fc6a32) |
//! | `ns2-v2` | product | NS2 `lua/ServerBrowser.lua` (`ENSL-Modding/CompMod`, commit ebc4b002) = `lua/menu2/NavBar/Screens/ServerBrowser/GMSBEntry.lua`, `UpdateServerRanking` (same repository, commit 852f208a) |
//! | `tf2-quickplay` | sum | TF2 Quickplay in `ValveSoftware/source-sdk-2013`: `src/game/shared/tf/tf_matchmaking_scoring.h` (`QuickplayCalculateServerScore`, the ping ConVars) and `src/game/client/tf/tf_quickplay_ui.cpp` (the ping curve, the `+ 6.0` offset, `TotalScore`) |
//!
//! The NS2 Lua is Unknown Worlds' shipped menu code; the stored index holds
//! no Unknown Worlds repository, only these mod repositories that ship the
//! vanilla files (with the vanilla copyright header). Docs: `docs/rank.md`.
//!
//! **Missing factors are 1** in products (an unknown ping, skill or
//! performance score contributes nothing) and **0** in sums (the neutral
//! element). Inputs the sources use but the rank input does not carry
//! (reserved slots, ranked/rookie/blocked/friends/history flags, bots, TF2's
//! Valve/newbie bonuses) take their neutral value and are not listed.
//!
//! **Discontinuities kept on purpose** (they are what ships): joinable and
//! favourite are steps everywhere; `ns2-v2`'s `full` and `empty` are steps;
//! TF2's ping curve jumps from −1.0 up to 0.0 at 150 ms (its middle segment
//! interpolates toward point C's score instead of B's), so it is not
//! monotone; TF2's player-count curve drops to −100 when a server is full
//! with one slot of headroom, and is −100 below 18 max players.
//!
//! Cost: one server's breakdown is `O(1)`; ranking `n` servers is
//! `O(n log n)` (the sort).

use super::model::{Player, Server};
use serde::Serialize;

/// Which constants and curves the score uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(into = "String")]
pub enum Preset {
    /// Seed 000's formulas (problems.md §5).
    Seed000,
    /// NS2's first shipped ranking (`0.66/0.33`, ping midpoint 100 ms).
    Ns2V1,
    /// NS2's later ranking (`0.5/0.5`, 24-slot cap, ping midpoint 150 ms,
    /// full/empty/password factors).
    Ns2V2,
    /// TF2 Quickplay's client-side score (piecewise-linear, additive).
    Tf2Quickplay,
}

impl From<Preset> for String {
    fn from(p: Preset) -> String {
        p.name().to_string()
    }
}

/// How a preset combines its factors.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Combine {
    /// Score = product of the factors.
    Product,
    /// Score = sum of the terms.
    Sum,
}

impl Preset {
    /// Every preset, in table order.
    pub const ALL: [Preset; 4] = [
        Preset::Seed000,
        Preset::Ns2V1,
        Preset::Ns2V2,
        Preset::Tf2Quickplay,
    ];

    /// Its name as files and the CLI spell it.
    pub fn name(self) -> &'static str {
        match self {
            Preset::Seed000 => "seed000",
            Preset::Ns2V1 => "ns2-v1",
            Preset::Ns2V2 => "ns2-v2",
            Preset::Tf2Quickplay => "tf2-quickplay",
        }
    }

    /// The preset named `name`.
    pub fn parse(name: &str) -> Option<Preset> {
        Preset::ALL.into_iter().find(|p| p.name() == name)
    }

    /// Every preset name, comma separated (for messages).
    pub fn names() -> String {
        Preset::ALL.map(Preset::name).join(", ")
    }

    /// How its factors combine.
    pub fn combine(self) -> Combine {
        match self {
            Preset::Tf2Quickplay => Combine::Sum,
            _ => Combine::Product,
        }
    }

    /// Its factor names, in display order.
    pub fn factor_names(self) -> &'static [&'static str] {
        match self {
            Preset::Seed000 | Preset::Ns2V1 => &[
                "players",
                "ping",
                "performance",
                "skill",
                "joinable",
                "favorite",
            ],
            Preset::Ns2V2 => &[
                "players",
                "ping",
                "performance",
                "skill",
                "full",
                "joinable",
                "empty",
                "favorite",
            ],
            Preset::Tf2Quickplay => &["players", "offset", "ping", "filter"],
        }
    }
}

/// One factor (or term) of a score.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Factor {
    /// Its name.
    pub name: &'static str,
    /// Its value.
    pub value: f64,
    /// True when its input is missing (the value is then neutral).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub missing: bool,
}

/// Up to `N` factors, inline (a breakdown allocates nothing).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Factors<const N: usize> {
    items: [Factor; N],
    len: usize,
}

impl<const N: usize> Factors<N> {
    /// The first `N` of `fs`.
    pub fn new(fs: &[Factor]) -> Self {
        let mut items = [f("", 0.0); N];
        let len = fs.len().min(N);
        items[..len].copy_from_slice(&fs[..len]);
        Factors { items, len }
    }
}

impl<const N: usize> std::ops::Deref for Factors<N> {
    type Target = [Factor];
    fn deref(&self) -> &[Factor] {
        &self.items[..self.len]
    }
}

impl<const N: usize> Serialize for Factors<N> {
    fn serialize<S: serde::Serializer>(&self, ser: S) -> Result<S::Ok, S::Error> {
        (**self).serialize(ser)
    }
}

/// A score with every factor that makes it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Breakdown {
    /// The score.
    pub score: f64,
    /// Its factors (products) or terms (sums), in the preset's order.
    pub factors: Factors<8>,
    /// Intermediate values (viability, its derivative, open slots, …).
    pub details: Factors<3>,
}

const fn f(name: &'static str, value: f64) -> Factor {
    Factor {
        name,
        value,
        missing: false,
    }
}

fn opt(name: &'static str, value: Option<f64>, neutral: f64) -> Factor {
    Factor {
        name,
        value: value.unwrap_or(neutral),
        missing: value.is_none(),
    }
}

fn product(factors: &[Factor], details: &[Factor]) -> Breakdown {
    Breakdown {
        score: factors.iter().map(|x| x.value).product(),
        factors: Factors::new(factors),
        details: Factors::new(details),
    }
}

// ---------------------------------------------------------------- NS2 curves

/// Seed 000: `Viability = 1 / (1 + e^(−0.5 (players − 12)))`.
pub fn viability(players: f64) -> f64 {
    1.0 / (1.0 + (-0.5 * (players - 12.0)).exp())
}

/// Seed 000: `dViability/dPlayers = 201.714 e^(0.5 p) / (403.429 + e^(0.5 p))²`
/// with the note's rounded constants (`403.429 ≈ e⁶`, `201.714 ≈ e⁶/2`),
/// evaluated as `201.714 e^(−0.5 p) / (403.429 e^(−0.5 p) + 1)²` (the same
/// value; no overflow for large `p`).
pub fn d_viability(players: f64) -> f64 {
    let u = (-0.5 * players).exp();
    201.714 * u / (403.429 * u + 1.0).powi(2)
}

/// `w_v · Viability + w_d · dViability · max(0, slots − players − 1)`.
pub fn players_score(players: f64, slots: f64, w_v: f64, w_d: f64) -> f64 {
    w_v * viability(players) + w_d * d_viability(players) * (slots - players - 1.0).max(0.0)
}

/// `1 / (1 + e^((ping − mid) / 40))` (seed 000: `mid` = 100 ms).
pub fn ping_logistic(ping_ms: f64, mid_ms: f64) -> f64 {
    1.0 / (1.0 + ((ping_ms - mid_ms) / 40.0).exp())
}

/// `1 / (1 + e^(−rate · perf))` (seed 000: `rate` = 0.2; NS2: `perf / 5`).
pub fn performance(perf_score: f64, rate: f64) -> f64 {
    1.0 / (1.0 + (-rate * perf_score).exp())
}

/// 1 below 2 players, else `exp(−0.1 |server − player| √(players − 1) / denom)`
/// (seed 000: `denom = 100 √12`; NS2 v2 writes `346.41`).
pub fn skill_factor(server_skill: f64, player_skill: f64, players: f64, denom: f64) -> f64 {
    if players < 2.0 {
        return 1.0;
    }
    (-0.1 * (server_skill - player_skill).abs() * (players - 1.0).sqrt() / denom).exp()
}

/// `100 √12`, seed 000's and `ns2-v1`'s skill denominator.
pub fn skill_denominator() -> f64 {
    100.0 * 12f64.sqrt()
}

fn skill(player: &Player, s: &Server, denom: f64) -> Factor {
    match (s.skill, player.skill) {
        (Some(a), Some(b)) => f("skill", skill_factor(a, b, f64::from(s.players), denom)),
        _ => opt("skill", None, 1.0),
    }
}

fn players_details(s: &Server, slots: f64) -> [Factor; 3] {
    let p = f64::from(s.players);
    [
        f("viability", viability(p)),
        f("d_viability", d_viability(p)),
        f("open_slots", (slots - p - 1.0).max(0.0)),
    ]
}

/// Seed 000 (problems.md §5): PlayersScore · Ping · Performance · Skill ·
/// Joinable · Favorite.
pub fn seed000(player: &Player, s: &Server) -> Breakdown {
    let p = f64::from(s.players);
    let slots = f64::from(s.max_players);
    product(
        &[
            f("players", players_score(p, slots, 2.0 / 3.0, 1.0 / 3.0)),
            opt("ping", s.ping.map(|x| ping_logistic(x, 100.0)), 1.0),
            opt(
                "performance",
                s.perf_score.map(|x| performance(x, 0.2)),
                1.0,
            ),
            skill(player, s, skill_denominator()),
            f("joinable", if s.is_joinable() { 1.0 } else { 0.05 }),
            f("favorite", if s.favorite { 2.0 } else { 1.0 }),
        ],
        &players_details(s, slots),
    )
}

/// `ns2-v1`: `CalculateSeverRanking` of NS2's `lua/ServerBrowser.lua`
/// (vendored in `KyleAbent/ns2siege`): weights 0.66/0.33, ping midpoint
/// 100 ms, `perf = 1/(1+exp(−currentScore/5))`, joinable 1 or 0.05, favourite
/// 2 or 1 (ranked ×10 and the rookie factor have no input here: 1).
pub fn ns2_v1(player: &Player, s: &Server) -> Breakdown {
    let p = f64::from(s.players);
    let slots = f64::from(s.max_players);
    product(
        &[
            f("players", players_score(p, slots, 0.66, 0.33)),
            opt("ping", s.ping.map(|x| ping_logistic(x, 100.0)), 1.0),
            opt(
                "performance",
                s.perf_score.map(|x| performance(x, 0.2)),
                1.0,
            ),
            skill(player, s, skill_denominator()),
            f("joinable", if s.is_joinable() { 1.0 } else { 0.05 }),
            f("favorite", if s.favorite { 2.0 } else { 1.0 }),
        ],
        &players_details(s, slots),
    )
}

/// `ns2-v2`: NS2's later `CalculateSeverRanking` / menu2
/// `UpdateServerRanking`: weights 0.5/0.5 with open slots counted up to 24,
/// ping midpoint 150 ms, skill denominator 346.41, `full` 0.5 when
/// `players >= max` and not a favourite, `joinable` (the password factor)
/// 0.02 when the browser says not joinable and not a favourite, `empty` 0.5
/// at 0 players, favourite 2 or 1. Blocked, friends, ranked, rookie,
/// history and arcade factors have no input here: 1.
pub fn ns2_v2(player: &Player, s: &Server) -> Breakdown {
    let p = f64::from(s.players);
    let max = f64::from(s.max_players);
    let slots = max.min(24.0);
    let full = p >= max && !s.favorite;
    let locked = !s.joinable.unwrap_or(true) && !s.favorite;
    product(
        &[
            f("players", players_score(p, slots, 0.5, 0.5)),
            opt("ping", s.ping.map(|x| ping_logistic(x, 150.0)), 1.0),
            opt(
                "performance",
                s.perf_score.map(|x| performance(x, 0.2)),
                1.0,
            ),
            skill(player, s, 346.41),
            f("full", if full { 0.5 } else { 1.0 }),
            f("joinable", if locked { 0.02 } else { 1.0 }),
            f("empty", if s.players > 0 { 1.0 } else { 0.5 }),
            f("favorite", if s.favorite { 2.0 } else { 1.0 }),
        ],
        &players_details(s, slots),
    )
}

// ---------------------------------------------------------------- TF2 curves

/// Valve's `lerp(inA, outA, inB, outB, x)`.
fn lerp(in_a: f64, out_a: f64, in_b: f64, out_b: f64, x: f64) -> f64 {
    out_a + (out_b - out_a) * (x - in_a) / (in_b - in_a)
}

/// `QuickplayCalculateServerScore(humans, bots = 0, max, party = 1)` of
/// `tf_matchmaking_scoring.h`: −100 below 18 max players (max capped at
/// 33); −100 when `humans + 1 + headroom 1 > max`; else piecewise linear
/// in `humans + 1` through (0, 0), (max/3, 0.2), (5·max/6, 1.5), (max, 0.2),
/// integer divisions as in C.
pub fn tf2_player_count_score(humans: u32, max_players: u32) -> f64 {
    if max_players < 18 {
        return -100.0;
    }
    let max = max_players.min(33);
    let new = humans.saturating_add(1);
    if new.saturating_add(1) > max {
        return -100.0;
    }
    let (a, ideal) = (max / 3, max * 5 / 6);
    let x = f64::from(new);
    if new <= a {
        lerp(0.0, 0.0, f64::from(a), 0.2, x)
    } else if new <= ideal {
        lerp(f64::from(a), 0.2, f64::from(ideal), 1.5, x)
    } else {
        lerp(f64::from(ideal), 1.5, f64::from(max), 0.2, x)
    }
}

/// TF2's ping score (`tf_quickplay_ui.cpp`, ConVars A = (50 ms, 0.9),
/// B = (150 ms, 0.0), C = (300 ms, −1.0)): below A from (0, 1.0) to A;
/// from A to B it interpolates toward **C's** score (as shipped), so it
/// reaches −1.0 just below 150 ms and jumps to 0.0 at 150 ms; from B on,
/// B to C, continuing past C.
pub fn tf2_ping_score(ping_ms: f64) -> f64 {
    let (a, a_score, b, b_score, c, c_score) = (50.0, 0.9, 150.0, 0.0, 300.0, -1.0);
    if ping_ms < a {
        lerp(0.0, 1.0, a, a_score, ping_ms)
    } else if ping_ms < b {
        lerp(a, a_score, b, c_score, ping_ms)
    } else {
        lerp(b, b_score, c, c_score, ping_ms)
    }
}

/// `tf2-quickplay`: `TotalScore = serverScore + userScore` with
/// `serverScore = QuickplayCalculateServerScore(..) + 6.0` and
/// `userScore = ping score`; a server that fails the client's filters scores
/// `−failureCodes`: `1<<11` (2048) when full, `1<<15` when the browser says
/// not joinable (`PassesFilter`). Favourites play no part in Quickplay.
pub fn tf2_quickplay(_player: &Player, s: &Server) -> Breakdown {
    let mut codes = 0u32;
    if s.players >= s.max_players {
        codes |= 1 << 11;
    }
    if !s.joinable.unwrap_or(true) {
        codes |= 1 << 15;
    }
    let factors = if codes != 0 {
        [
            f("players", 0.0),
            f("offset", 0.0),
            f("ping", 0.0),
            f("filter", -f64::from(codes)),
        ]
    } else {
        [
            f("players", tf2_player_count_score(s.players, s.max_players)),
            f("offset", 6.0),
            opt("ping", s.ping.map(tf2_ping_score), 0.0),
            f("filter", 0.0),
        ]
    };
    Breakdown {
        score: factors.iter().map(|x| x.value).sum(),
        factors: Factors::new(&factors),
        details: Factors::new(&[]),
    }
}

/// The score of server `s` for `player` under `preset`, with its factors.
pub fn score(preset: Preset, player: &Player, s: &Server) -> Breakdown {
    match preset {
        Preset::Seed000 => seed000(player, s),
        Preset::Ns2V1 => ns2_v1(player, s),
        Preset::Ns2V2 => ns2_v2(player, s),
        Preset::Tf2Quickplay => tf2_quickplay(player, s),
    }
}
