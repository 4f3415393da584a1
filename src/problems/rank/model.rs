//! The rank input as the library sees it: one player, many servers.

/// One server of the browser list.
#[derive(Debug, Clone, PartialEq)]
pub struct Server {
    /// Its name (unique in the file).
    pub name: String,
    /// Players on it now.
    pub players: u32,
    /// Its player slots.
    pub max_players: u32,
    /// The player's round-trip time to it, ms (`None`: unknown, factor 1).
    pub ping: Option<f64>,
    /// NS2's performance score (`None`: unknown, factor 1).
    pub perf_score: Option<f64>,
    /// Mean skill of its players (`None`: unknown, factor 1).
    pub skill: Option<f64>,
    /// The browser's own joinable flag (a password, a ban…); `None` = true.
    pub joinable: Option<bool>,
    /// Whether the player lists it in `favorites`.
    pub favorite: bool,
}

impl Server {
    /// True when a player can join it: a free slot (`players <
    /// max_players`) and the browser does not say otherwise.
    pub fn is_joinable(&self) -> bool {
        self.players < self.max_players && self.joinable.unwrap_or(true)
    }
}

/// The player asking for a ranking.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Player {
    /// The player's skill (`None`: unknown, skill factor 1).
    pub skill: Option<f64>,
    /// Favourite server names (names that match no server are kept: a
    /// favourite may be offline).
    pub favorites: Vec<String>,
}

/// A rank input (formats.md "Rank input").
#[derive(Debug, Clone, PartialEq)]
pub struct RankInstance {
    /// Instance name.
    pub name: String,
    /// The preset the file asks for (`seed000` when absent).
    pub preset: super::score::Preset,
    /// The player.
    pub player: Player,
    /// The servers, in file order.
    pub servers: Vec<Server>,
}

impl RankInstance {
    /// An instance from parts; `favorite` of each server is set from the
    /// player's favourites.
    pub fn new(
        name: impl Into<String>,
        preset: super::score::Preset,
        player: Player,
        mut servers: Vec<Server>,
    ) -> Self {
        let favs: std::collections::HashSet<&str> =
            player.favorites.iter().map(String::as_str).collect();
        for s in &mut servers {
            s.favorite = favs.contains(s.name.as_str());
        }
        RankInstance {
            name: name.into(),
            preset,
            player,
            servers,
        }
    }
}
