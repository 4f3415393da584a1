//! The SPD family's commands: `gen spd` (instance generator) and `repro spd`
//! (seed 001 §IV).

use crate::app::cli::bench::{config, report, with_params, RunArgs};
use crate::app::cli::split_list;
use crate::app::cli::usage;
use crate::app::cli::{CliHook, HookPlace};
use crate::app::spd::repro::{self, SpdGrid};
use crate::core::Family;
use crate::error::{Error, Result};
use crate::problems::spd::file::{to_file, write_spd_file};
use crate::problems::spd::gen::{
    generate_from_matrix, generate_paper_spd, MatrixSpdParams, PaperSpdParams,
};
use crate::problems::spd::model::{CommModel, SpdInstance};
use clap::{Args, FromArgMatches};
use std::path::{Path, PathBuf};

/// The commands the SPD family adds.
pub fn hooks() -> Vec<CliHook> {
    vec![
        CliHook {
            place: HookPlace::Gen,
            command: GenSpdArgs::augment_args(clap::Command::new("spd").about(
                "SPD instances: seed 001 §IV's random networks, or nodes picked from a \
                 measured latency matrix (--from-matrix)",
            )),
            run: |m| run_gen_spd(&GenSpdArgs::from_arg_matches(m).map_err(usage)?).map(|_| 0),
        },
        CliHook {
            place: HookPlace::Repro,
            command: with_params(
                ReproSpdArgs::augment_args(
                    clap::Command::new("spd")
                        .about("Seed 001 §IV (SPD): Tables VI/VII engines plus exact"),
                ),
                &crate::problems::spd::FAMILY.params(),
            ),
            run: |m| {
                let a = ReproSpdArgs::from_arg_matches(m).map_err(usage)?;
                run_repro_spd(&a, m).map(|_| 0)
            },
        },
        crate::app::spd::plan_cli::hook(),
    ]
}

/// Arguments of `serverpick gen spd`.
#[derive(Debug, clap::Args)]
pub struct GenSpdArgs {
    /// Server counts, comma-separated (paper: 20,25,30; 1 to 1,000).
    #[arg(long, default_value = "25", conflicts_with = "from_pings")]
    pub servers: Vec<String>,
    /// Client counts, comma-separated (paper: 30,50,80,100,120; 1 to 100,000).
    #[arg(long, default_value = "120", conflicts_with = "from_pings")]
    pub clients: Vec<String>,
    /// Models, comma-separated: cs, p2p.
    #[arg(long, default_value = "cs")]
    pub model: Vec<String>,
    /// Bound factors f (μ = f·Γ), comma-separated (paper: 1.0 … 1.5).
    #[arg(long, default_value = "1.3")]
    pub factor: Vec<String>,
    /// Instances per (servers, clients, model, factor) cell.
    #[arg(long, default_value_t = 1, conflicts_with = "from_pings")]
    pub count: u64,
    /// First seed; the i-th instance of a cell uses seed + i.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Pick server and client nodes from this measured RTT matrix
    /// (e.g. data/latency/planetlab490-sample/PlanetLabData_1_100).
    #[arg(long, conflicts_with = "from_pings")]
    pub from_matrix: Option<PathBuf>,
    /// Servers = candidate sites, clients = sites (with players) of a ping
    /// list (--from-pings and its flags).
    #[command(flatten)]
    pub pings: crate::app::cli::pings::PingArgs,
    /// Multiply matrix values by this (e.g. 1000 for a matrix in seconds).
    #[arg(long, default_value_t = 1.0)]
    pub unit_scale: f64,
    /// Provenance/attribution text stored in each file's `source` field.
    #[arg(long)]
    pub source: Option<String>,
    /// Write `access` and `server_latency` (the links as an n × n matrix)
    /// to numpy's binary format next to each file (`<name>.access.npy`,
    /// `<name>.server_latency.npy`: float64, C order, `NaN` = missing).
    #[arg(long)]
    pub npy: bool,
    /// Output folder.
    #[arg(long, short)]
    pub out: PathBuf,
}

fn parse_list<T: std::str::FromStr>(raw: &[String], flag: &str) -> Result<Vec<T>> {
    split_list(raw)
        .iter()
        .map(|s| {
            s.parse::<T>()
                .map_err(|_| Error::Usage(format!("--{flag}: '{s}' is not valid")))
        })
        .collect()
}

fn parse_models(raw: &[String]) -> Result<Vec<CommModel>> {
    split_list(raw)
        .iter()
        .map(|s| match s.as_str() {
            "cs" => Ok(CommModel::Cs),
            "p2p" => Ok(CommModel::P2p),
            other => Err(Error::Usage(format!("--model: '{other}' is not cs or p2p"))),
        })
        .collect()
}

/// Writes the grid of instances; returns the files written.
pub fn run_gen_spd(args: &GenSpdArgs) -> Result<Vec<PathBuf>> {
    let servers: Vec<usize> = parse_list(&args.servers, "servers")?;
    let clients: Vec<usize> = parse_list(&args.clients, "clients")?;
    let factors: Vec<f64> = parse_list(&args.factor, "factor")?;
    let models = parse_models(&args.model)?;
    if let Some(imp) = args.pings.import()? {
        return run_gen_pings(args, &imp, &models, &factors);
    }
    check_gen_grid(&servers, &clients, &factors)?;
    let matrix = match &args.from_matrix {
        Some(p) => Some(crate::net::matrix::read_measured_matrix(p)?),
        None => None,
    };
    std::fs::create_dir_all(&args.out).map_err(|e| Error::io(&args.out, e))?;
    let mut written = Vec::new();
    for &n in &servers {
        for &m in &clients {
            for &model in &models {
                for &f in &factors {
                    for i in 0..args.count {
                        let seed = args.seed + i;
                        let inst = generate_gen_instance(args, &matrix, n, m, model, f, seed)?;
                        written.push(write_gen_file(args, &inst, gen_source(args, seed))?);
                    }
                }
            }
        }
    }
    report_written(&written, &args.out);
    Ok(written)
}

/// Writes one generated instance into `--out` (its matrices as `.npy` side
/// files with `--npy`); returns its path.
fn write_gen_file(args: &GenSpdArgs, inst: &SpdInstance, source: String) -> Result<PathBuf> {
    let mut file = to_file(inst);
    file.source = Some(source);
    let path = args.out.join(format!("{}.json", inst.name));
    if args.npy {
        write_npy_sides(inst, &mut file, &args.out)?;
    }
    write_spd_file(&path, &file)?;
    Ok(path)
}

fn report_written(written: &[PathBuf], out: &Path) {
    eprintln!(
        "wrote {} instance file(s) to {}",
        written.len(),
        out.display()
    );
}

/// `gen spd --from-pings`: one instance per (model, factor).
fn run_gen_pings(
    args: &GenSpdArgs,
    imp: &crate::net::ping_import::PingImport,
    models: &[CommModel],
    factors: &[f64],
) -> Result<Vec<PathBuf>> {
    use crate::problems::spd::pings::{spd_from_pings, PingSpdParams};
    if imp.players.is_some() {
        eprintln!(
            "gen spd: one client per site with players (population > 0); SPD has no weights, \
             so the counts themselves are not used"
        );
    }
    let label = args
        .pings
        .from_pings
        .as_ref()
        .and_then(|p| p.file_stem())
        .map_or_else(|| "pings".into(), |s| s.to_string_lossy().to_lowercase());
    crate::io::create_out_dir(&args.out)?;
    let mut written = Vec::new();
    for &model in models {
        for &f in factors {
            let p = PingSpdParams {
                model,
                bound_factor: f,
                link_scale: 0.7,
                unit_scale: args.unit_scale,
            };
            let inst = spd_from_pings(imp, &p, &label)?;
            let source = args.source.clone().unwrap_or_else(|| {
                format!(
                    "serverpick gen spd {} --unit-scale {}: {}",
                    imp.flags, args.unit_scale, imp.summary
                )
            });
            written.push(write_gen_file(args, &inst, source)?);
        }
    }
    report_written(&written, &args.out);
    Ok(written)
}

/// Writes `inst`'s `access` and server matrix as `.npy` files in `dir` and
/// points `file` at them (`server_latency` replaces `links`).
fn write_npy_sides(
    inst: &SpdInstance,
    file: &mut crate::problems::spd::file::SpdFile,
    dir: &Path,
) -> Result<()> {
    use crate::net::npy::write_npy;
    let (n, m) = (inst.servers(), inst.clients());
    let access = format!("{}.access.npy", inst.name);
    let cells = (0..m).flat_map(|c| inst.access_row(c).iter().copied());
    let missing_as_nan = |v: f64| if v.is_finite() { v } else { f64::NAN };
    write_npy(&dir.join(&access), (m, n), cells.map(missing_as_nan))?;
    // Direct links; the shortest of parallel links; diagonal 0.
    let mut servers = vec![f64::NAN; n * n];
    for u in 0..n {
        servers[u * n + u] = 0.0;
    }
    for (u, v, w) in inst.network.links() {
        let cell = servers[u * n + v];
        let w = if cell.is_nan() { w } else { cell.min(w) };
        servers[u * n + v] = w;
        servers[v * n + u] = w;
    }
    let latency = format!("{}.server_latency.npy", inst.name);
    write_npy(&dir.join(&latency), (n, n), servers.into_iter())?;
    file.access = serde_json::json!({ "npy": access });
    file.server_latency = Some(serde_json::json!({ "npy": latency }));
    file.links = None;
    Ok(())
}

/// Every cell of the grid is checked before anything is written.
fn check_gen_grid(servers: &[usize], clients: &[usize], factors: &[f64]) -> Result<()> {
    for &n in servers {
        for &m in clients {
            for &f in factors {
                crate::problems::spd::gen::check_gen_spd_params(n, m, f)?;
            }
        }
    }
    Ok(())
}

/// One instance of the grid: from the measured matrix when one was given,
/// otherwise from the paper's generator.
fn generate_gen_instance(
    args: &GenSpdArgs,
    matrix: &Option<Vec<Vec<f64>>>,
    n: usize,
    m: usize,
    model: CommModel,
    f: f64,
    seed: u64,
) -> Result<SpdInstance> {
    match (matrix, &args.from_matrix) {
        (Some(mx), Some(path)) => {
            let p = MatrixSpdParams {
                servers: n,
                clients: m,
                model,
                bound_factor: f,
                link_scale: 0.7,
                unit_scale: args.unit_scale,
            };
            let label = path
                .file_name()
                .map(|s| s.to_string_lossy().to_lowercase())
                .unwrap_or_else(|| "matrix".into());
            generate_from_matrix(mx, &p, seed, &label)
        }
        _ => {
            let p = PaperSpdParams {
                servers: n,
                clients: m,
                model,
                bound_factor: f,
                ..Default::default()
            };
            generate_paper_spd(&p, seed)
        }
    }
}

/// The `source` field of a generated file: `--source` if given, otherwise
/// the command that regenerates it.
fn gen_source(args: &GenSpdArgs, seed: u64) -> String {
    args.source
        .clone()
        .unwrap_or_else(|| match &args.from_matrix {
            Some(p) => format!(
                "serverpick gen spd --from-matrix {} --seed {seed}",
                p.display()
            ),
            None => format!("serverpick gen spd (seed 001 §IV generator) --seed {seed}"),
        })
}

/// `serverpick repro spd`.
#[derive(Debug, Clone, Args)]
pub struct ReproSpdArgs {
    /// Server counts.
    #[arg(long, value_delimiter = ',', default_value = "20,25,30")]
    pub servers: Vec<usize>,
    /// Client counts.
    #[arg(long, value_delimiter = ',', default_value = "30,50,80,100,120")]
    pub clients: Vec<usize>,
    /// Bound factors f (μ = f·Γ).
    #[arg(long, value_delimiter = ',', default_value = "1.0,1.1,1.2,1.3,1.4,1.5")]
    pub factors: Vec<f64>,
    /// Communication models (cs, p2p).
    #[arg(long, value_delimiter = ',', default_value = "cs,p2p")]
    pub models: Vec<String>,
    /// Random networks per (servers, clients) cell (paper: 30).
    #[arg(long, default_value_t = 30)]
    pub instances_per_cell: usize,
    /// Generator seed.
    #[arg(long, default_value_t = 1)]
    pub gen_seed: u64,
    /// Output folder (instances/, results, summary, figures).
    #[arg(long, default_value = "repro-spd")]
    pub out: PathBuf,
    /// Only redraw the figures from OUT/results.jsonl (e.g. after bench-merge).
    #[arg(long)]
    pub figures_only: bool,
    /// Shared run options (`--engine all` = the tables' engines plus exact).
    #[command(flatten)]
    pub run: RunArgs,
}

/// Runs `serverpick repro spd` (`m`: its parsed flags, for engine parameters).
pub fn run_repro_spd(a: &ReproSpdArgs, m: &clap::ArgMatches) -> Result<()> {
    if a.figures_only {
        let figs = repro::spd_figures_from(&a.out)?;
        eprintln!("repro spd: {} figures → {}", figs.len(), a.out.display());
        return Ok(());
    }
    let grid = SpdGrid {
        servers: a.servers.clone(),
        clients: a.clients.clone(),
        factors: a.factors.clone(),
        models: parse_models(&a.models)?,
        instances_per_cell: a.instances_per_cell,
        seed: a.gen_seed,
    };
    let cfg = config(
        Vec::new(),
        &a.out,
        &a.run,
        &crate::problems::spd::FAMILY.params(),
        m,
    )?;
    let outcome = repro::repro_spd(&grid, &cfg, &crate::problems::registry())?;
    report("repro spd", &a.out, &outcome)
}
