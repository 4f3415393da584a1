//! Seed 004 §5 (auxiliary-game balancing), Figs. 9–12 and Tables 4–5:
//! `serverpick repro ag`.
//!
//! 1. **Snapshots** ([`snap`]): scenario A and B instances from
//!    [`generate_ag`] (10 servers of 5,500 players; `--quick`: 550), each
//!    balanced once by `classic`, `hybrid` (Algorithm 1) and `exact` (the
//!    MILP), evaluated by the family's evaluator: Fig. 9 (loads), the
//!    moved-players contrast, Fig. 10 (messages vs extra players, on
//!    hot-spot instances), Fig. 11 (kept vs P2P per server), Fig. 12
//!    (overhead vs return rate), Tables 4–5 (P2P latency, failure
//!    likelihood).
//! 2. **Simulation** ([`sim`]): a time-stepped discrete-event run of
//!    scenarios A and B (connections, gamma session lengths, main-game
//!    movement, AGs ending with a return rate) with a balancing round of
//!    the engine whenever a server is over `max_load`.
//! 3. **Report** ([`report`]): `OUT/*.csv`, `OUT/figures/*.svg`,
//!    `OUT/findings.md` (each claim of the paper: measured, holds yes/no).
//!
//! Deterministic: every instance and the simulation derive from `--seed`.

pub mod findings;
pub mod report;
pub mod sim;
pub mod snap;

use crate::bench::export::write_atomic;
use crate::core::SolveOptions;
use crate::error::{Error, Result};
use crate::problems::ag::engines::solve;
use crate::problems::ag::eval::{evaluate, AgMetrics};
use crate::problems::ag::gen::{generate_ag, GenAgConfig};
use crate::problems::ag::model::{AgInstance, AgSolution};
use std::path::{Path, PathBuf};

/// The paper's server capacity (seed 004 §5).
pub const PAPER_MAX_LOAD: u64 = 5500;

/// Settings of `repro ag`.
#[derive(Debug, Clone, PartialEq)]
pub struct AgReproConfig {
    /// Seed of every instance and of the simulation.
    pub seed: u64,
    /// The small study (tests): capacity 550, a short simulation.
    pub quick: bool,
    /// AG sizes and their percentages of the AGs (gen.rs's `--mix`).
    pub mix: Vec<(usize, f64)>,
    /// Time limit of each `exact` run, seconds.
    pub exact_limit: f64,
}

impl AgReproConfig {
    /// The paper-size study.
    pub fn new(seed: u64, quick: bool) -> Self {
        AgReproConfig {
            seed,
            quick,
            mix: GenAgConfig::default().mix,
            exact_limit: 30.0,
        }
    }

    /// Capacity per server.
    pub fn max_load(&self) -> u64 {
        if self.quick {
            PAPER_MAX_LOAD / 10
        } else {
            PAPER_MAX_LOAD
        }
    }

    /// Scales a paper player count to this study's capacity.
    pub fn scaled(&self, paper: u64) -> u64 {
        paper * self.max_load() / PAPER_MAX_LOAD
    }

    /// The generator settings of scenario `s` (`'a'` or `'b'`).
    pub fn gen(&self, s: char) -> GenAgConfig {
        GenAgConfig {
            scenario: s,
            max_load: self.max_load(),
            mix: self.mix.clone(),
            seed: self.seed,
            ..GenAgConfig::default()
        }
    }

    /// Generates scenario `s`.
    pub fn instance(&self, s: char) -> Result<AgInstance> {
        generate_ag(&self.gen(s))
    }

    /// The options of every engine run.
    pub fn opts(&self) -> SolveOptions {
        SolveOptions::new(Some(self.exact_limit), self.seed)
    }
}

/// One engine's balancing of one instance, evaluated.
#[derive(Debug, Clone)]
pub struct Balanced {
    /// The engine.
    pub engine: String,
    /// Its solution.
    pub sol: AgSolution,
    /// The evaluator's metrics.
    pub m: AgMetrics,
}

/// Runs `engine` on `inst` and evaluates it; `None` when the engine finds
/// no solution or the evaluator rejects it.
pub fn balance(engine: &str, inst: &AgInstance, opts: &SolveOptions) -> Option<Balanced> {
    let sol = solve(engine, inst, opts).solution?;
    let m = evaluate(inst, &sol).metrics?;
    Some(Balanced {
        engine: engine.to_string(),
        sol,
        m,
    })
}

/// A small CSV table (header + text cells).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Csv {
    /// Column names.
    pub header: Vec<String>,
    /// Rows, one cell per column.
    pub rows: Vec<Vec<String>>,
}

impl Csv {
    /// An empty table with these columns.
    pub fn new(header: &[&str]) -> Self {
        Csv {
            header: header.iter().map(|s| s.to_string()).collect(),
            rows: Vec::new(),
        }
    }

    /// Appends a row.
    pub fn push(&mut self, row: Vec<String>) {
        self.rows.push(row);
    }

    /// The column `name` as numbers (unparsable cells are NaN).
    pub fn col(&self, name: &str) -> Vec<f64> {
        let Some(k) = self.header.iter().position(|h| h == name) else {
            return Vec::new();
        };
        self.rows
            .iter()
            .map(|r| r.get(k).and_then(|c| c.parse().ok()).unwrap_or(f64::NAN))
            .collect()
    }

    /// The cell of column `name` in the first row whose first cell is `key`.
    pub fn get(&self, key: &str, name: &str) -> Option<f64> {
        let k = self.header.iter().position(|h| h == name)?;
        let row = self
            .rows
            .iter()
            .find(|r| r.first().is_some_and(|c| c == key))?;
        row.get(k)?.parse().ok()
    }

    /// The CSV text.
    pub fn text(&self) -> String {
        let mut s = self.header.join(",");
        s.push('\n');
        for r in &self.rows {
            s.push_str(&r.join(","));
            s.push('\n');
        }
        s
    }

    /// Writes the table to `path`.
    pub fn write(&self, path: &Path) -> Result<()> {
        write_atomic(path, self.text().as_bytes())
    }
}

/// A number as a CSV cell (integers without decimals).
pub fn cell(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{v:.0}")
    } else {
        format!("{v:.4}")
    }
}

/// What `repro ag` produced.
#[derive(Debug, Clone)]
pub struct AgReproOutcome {
    /// The CSV tables by file stem.
    pub tables: Vec<(String, Csv)>,
    /// The figures written.
    pub figures: Vec<PathBuf>,
    /// `findings.md`'s path.
    pub findings: PathBuf,
}

/// Runs the study into `out`.
pub fn repro_ag(cfg: &AgReproConfig, out: &Path) -> Result<AgReproOutcome> {
    if cfg.mix.is_empty() {
        return Err(Error::Usage("--mix: at least one AG size".into()));
    }
    std::fs::create_dir_all(out).map_err(|e| Error::io(out, e))?;
    let mut tables = snap::snapshots(cfg)?;
    tables.extend(sim::simulations(cfg)?);
    for (stem, t) in &tables {
        t.write(&out.join(format!("{stem}.csv")))?;
    }
    let figures = report::figures(&tables, &out.join("figures"))?;
    let findings = out.join("findings.md");
    write_atomic(&findings, findings::findings_md(cfg, &tables).as_bytes())?;
    Ok(AgReproOutcome {
        tables,
        figures,
        findings,
    })
}
