//! A ping list plus its optional sites CSV, ready for a generator: the
//! complete RTT matrix ([`crate::net::pings`]), the candidate sites (servers
//! or mirrors) and the client sites with their player counts.
//!
//! - Candidates: `--candidates a,b,c` (site ids), or `--candidates-column`
//!   of the sites CSV, else every site.
//! - Clients: every site, or with `--population-column` the sites whose
//!   population is above 0, each with its count.

use crate::error::{Error, Result};
use crate::net::pings::{read_pings, PingMatrix, PingOptions};
use crate::net::sites_csv::{read_sites, SiteOptions, Sites};
use std::path::PathBuf;

/// What to import.
#[derive(Debug, Clone, Default)]
pub struct PingImportConfig {
    /// The ping list (`--from-pings`).
    pub pings: PathBuf,
    /// The sites CSV (`--sites-csv`).
    pub sites: Option<PathBuf>,
    /// How the list is read.
    pub ping: PingOptions,
    /// Which sites CSV columns to read.
    pub site: SiteOptions,
    /// `--candidates`: site ids.
    pub candidates: Option<Vec<String>>,
}

/// An imported ping list.
#[derive(Debug, Clone)]
pub struct PingImport {
    /// The complete RTT matrix over every site.
    pub matrix: PingMatrix,
    /// The sites CSV, when given.
    pub sites: Option<Sites>,
    /// Candidate sites (indices into the matrix), in site order.
    pub candidates: Vec<usize>,
    /// Client sites (indices into the matrix), in site order.
    pub clients: Vec<usize>,
    /// Players per client site (with `--population-column`).
    pub players: Option<Vec<u64>>,
    /// The flags that rebuild the import (`--from-pings … --rtt-column …`).
    pub flags: String,
    /// What the import found and did ([`crate::net::pings::PingReport::summary`]).
    pub summary: String,
}

/// Reads and selects (see the module doc).
pub fn import_pings(cfg: &PingImportConfig) -> Result<PingImport> {
    if cfg.sites.is_none()
        && (cfg.site.population_column.is_some() || cfg.site.candidates_column.is_some())
    {
        return Err(Error::Usage(
            "--population-column and --candidates-column read the sites file: give --sites-csv FILE".into(),
        ));
    }
    let sites = match &cfg.sites {
        Some(p) => Some(read_sites(p, &cfg.site)?),
        None => None,
    };
    let matrix = read_pings(&cfg.pings, sites.as_ref(), &cfg.ping)?;
    let candidates = candidates(&matrix, sites.as_ref(), cfg.candidates.as_deref())?;
    let (clients, players) = match sites.as_ref().and_then(|s| s.population.as_ref()) {
        Some(pop) => {
            let clients: Vec<usize> = (0..matrix.len()).filter(|&i| pop[i] > 0).collect();
            let players = clients.iter().map(|&i| pop[i]).collect();
            (clients, Some(players))
        }
        None => ((0..matrix.len()).collect(), None),
    };
    if clients.is_empty() {
        return Err(Error::Usage(
            "no site has players (every population is 0)".into(),
        ));
    }
    let flags = flags(cfg);
    let summary = matrix.report.summary(matrix.len(), &cfg.ping);
    Ok(PingImport {
        matrix,
        sites,
        candidates,
        clients,
        players,
        flags,
        summary,
    })
}

/// The candidate sites: the list, the column, or every site.
fn candidates(
    m: &PingMatrix,
    sites: Option<&Sites>,
    list: Option<&[String]>,
) -> Result<Vec<usize>> {
    let chosen: Vec<usize> = match (list, sites.and_then(|s| s.candidate.as_ref())) {
        (Some(_), Some(_)) => {
            return Err(Error::Usage(
                "give --candidates or --candidates-column, not both".into(),
            ))
        }
        (Some(ids), None) => {
            let mut flags = vec![false; m.len()];
            for id in ids {
                let Some(i) = m.ids.iter().position(|s| s == id.trim()) else {
                    return Err(Error::BadFlag {
                        flag: "--candidates".into(),
                        value: id.clone(),
                        expected: "site ids of the ping list or the sites file".into(),
                    });
                };
                flags[i] = true;
            }
            (0..m.len()).filter(|&i| flags[i]).collect()
        }
        (None, Some(flags)) => (0..m.len()).filter(|&i| flags[i]).collect(),
        (None, None) => (0..m.len()).collect(),
    };
    if chosen.is_empty() {
        return Err(Error::Usage(
            "no candidate site (the candidate column is all no)".into(),
        ));
    }
    Ok(chosen)
}

/// The flags that rebuild the import.
fn flags(cfg: &PingImportConfig) -> String {
    let mut s = format!(
        "--from-pings {} --rtt-column {} --combine {}",
        cfg.pings.display(),
        cfg.ping.rtt_column,
        cfg.ping.combine.name()
    );
    if let Some(p) = &cfg.sites {
        s.push_str(&format!(" --sites-csv {}", p.display()));
    }
    if let Some(c) = &cfg.site.population_column {
        s.push_str(&format!(" --population-column {c}"));
    }
    if let Some(c) = &cfg.site.candidates_column {
        s.push_str(&format!(" --candidates-column {c}"));
    }
    if let Some(c) = &cfg.candidates {
        s.push_str(&format!(" --candidates {}", c.join(",")));
    }
    s
}
