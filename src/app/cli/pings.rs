//! The flags shared by `gen spd --from-pings` and `gen cma --from-pings`
//! (formats.md "Ping lists").

use crate::error::Result;
use crate::net::ping_import::{import_pings, PingImport, PingImportConfig};
use crate::net::pings::{Combine, Missing, PingOptions};
use crate::net::sites_csv::SiteOptions;
use std::path::PathBuf;

/// Reading a ping list and its sites CSV.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct PingArgs {
    /// Read latencies from this ping list: a CSV with a header
    /// `source,destination,<rtt columns>`, one directed measurement (ms) a
    /// line, gaps allowed (formats.md "Ping lists").
    #[arg(long, value_name = "PINGS.csv")]
    pub from_pings: Option<PathBuf>,
    /// The ping list's RTT column [default: avg].
    #[arg(long, requires = "from_pings")]
    pub rtt_column: Option<String>,
    /// How the two directions of a pair combine: mean or min [default: mean].
    #[arg(long, requires = "from_pings")]
    pub combine: Option<String>,
    /// Pairs measured in neither direction: complete (shortest path over
    /// measured pairs, reported) or error [default: complete].
    #[arg(long, requires = "from_pings")]
    pub missing: Option<String>,
    /// Sites CSV (header `id[,name][,…]`): fixes the site ids and holds the
    /// population and candidate columns.
    #[arg(long, value_name = "SITES.csv", requires = "from_pings")]
    pub sites_csv: Option<PathBuf>,
    /// The sites CSV's column of players per site (integers >= 0).
    #[arg(long, requires = "sites_csv")]
    pub population_column: Option<String>,
    /// Candidate servers/mirrors: site ids, comma-separated [default: every
    /// site].
    #[arg(
        long,
        value_delimiter = ',',
        requires = "from_pings",
        conflicts_with = "candidates_column"
    )]
    pub candidates: Option<Vec<String>>,
    /// The sites CSV's yes/no column of candidate servers/mirrors.
    #[arg(long, requires = "sites_csv")]
    pub candidates_column: Option<String>,
}

impl PingArgs {
    /// The import the flags ask for (`None` without `--from-pings`).
    pub fn config(&self) -> Result<Option<PingImportConfig>> {
        let Some(pings) = &self.from_pings else {
            return Ok(None);
        };
        let ping = PingOptions {
            rtt_column: self.rtt_column.clone().unwrap_or_else(|| "avg".into()),
            combine: Combine::parse(self.combine.as_deref().unwrap_or("mean"))?,
            missing: Missing::parse(self.missing.as_deref().unwrap_or("complete"))?,
        };
        Ok(Some(PingImportConfig {
            pings: pings.clone(),
            sites: self.sites_csv.clone(),
            ping,
            site: SiteOptions {
                population_column: self.population_column.clone(),
                candidates_column: self.candidates_column.clone(),
            },
            candidates: self.candidates.clone(),
        }))
    }

    /// Imports the list and prints the report to stderr (`None` without
    /// `--from-pings`).
    pub fn import(&self) -> Result<Option<PingImport>> {
        let Some(cfg) = self.config()? else {
            return Ok(None);
        };
        let imp = import_pings(&cfg)?;
        eprintln!(
            "{}: {}",
            cfg.pings.display(),
            imp.matrix.report.summary(imp.matrix.len(), &cfg.ping)
        );
        Ok(Some(imp))
    }
}
