//! `gen cma --from-pings`: a static CMA instance from a ping list
//! ([`crate::net::ping_import`]). The candidate sites are the mirrors, the
//! client sites the delay rows (named by site id), `d(i, j)` the RTT between
//! client site `i` and candidate `j` (0 when they are the same site). With a
//! population column each row is a region with its player count
//! (`players`, [`CmaInstance::new_weighted`]), and the default capacity is
//! every player.

use crate::error::{Error, Result};
use crate::net::ping_import::PingImport;
use crate::problems::cma::model::{CmaInstance, MAX_PLAYERS};

/// Capacities: `None` = every mirror can take every player (never binding);
/// one value = the same for every mirror; else one per candidate.
fn capacities(given: Option<&[usize]>, k: usize, players: usize) -> Result<Vec<usize>> {
    match given {
        None => Ok(vec![players; k]),
        Some([c]) => Ok(vec![*c; k]),
        Some(c) if c.len() == k => Ok(c.to_vec()),
        Some(c) => Err(Error::Usage(format!(
            "--capacity: {} values for {k} candidate mirrors (give one, or one per candidate)",
            c.len()
        ))),
    }
}

/// Populations as row player counts (a count above `usize` is refused).
fn player_counts(p: &[u64]) -> Result<Vec<usize>> {
    p.iter()
        .map(|&v| {
            usize::try_from(v)
                .map_err(|_| Error::Usage(format!("a population of {v} players is too large")))
        })
        .collect()
}

/// The populations' running total against [`MAX_PLAYERS`]: the error names
/// the sites file and the site at which the total passes the limit (fuzz4
/// M5: the instance's own check could only name `players[0]` of a file
/// that does not exist yet).
fn check_total(players: &[u64], imp: &PingImport, file: &str) -> Result<()> {
    let mut total: u64 = 0;
    for (i, &p) in players.iter().enumerate() {
        total = total.saturating_add(p);
        if total > MAX_PLAYERS as u64 {
            let site = &imp.matrix.ids[imp.clients[i]];
            return Err(Error::input(
                file,
                format!("population of site '{site}'"),
                format!("the players add up to {total} here, more than the limit of {MAX_PLAYERS}"),
            ));
        }
    }
    Ok(())
}

/// The instance (see the module doc); `name` is its name.
pub fn cma_from_pings(
    imp: &PingImport,
    capacity: Option<&[usize]>,
    name: &str,
) -> Result<CmaInstance> {
    let m = &imp.matrix;
    let k = imp.candidates.len();
    let rows = imp.clients.len();
    if let (Some(p), Some(sites)) = (&imp.players, &imp.sites) {
        check_total(p, imp, &sites.file)?;
    }
    let players: usize = match &imp.players {
        Some(p) => usize::try_from(p.iter().sum::<u64>()).unwrap_or(usize::MAX),
        None => rows,
    };
    crate::problems::cma::gen::check_gen_cma_params(k, rows, 0.0)?;
    let delay: Vec<f64> = imp
        .clients
        .iter()
        .flat_map(|&c| imp.candidates.iter().map(move |&j| m.rtt(c, j)))
        .collect();
    let capacity = capacities(capacity, k, players)?;
    let mut inst = match &imp.players {
        Some(p) => CmaInstance::new_weighted(name, capacity, delay, player_counts(p)?)?,
        None => CmaInstance::new(name, capacity, delay)?,
    };
    inst.mirror_names = Some(imp.candidates.iter().map(|&j| m.ids[j].clone()).collect());
    inst.client_names = Some(imp.clients.iter().map(|&i| m.ids[i].clone()).collect());
    inst.source = Some(format!("serverpick gen cma {}: {}", imp.flags, imp.summary));
    Ok(inst)
}
