//! The CMA family's commands: `simulate` (replay joins and leaves under a
//! policy), `gen cma` and `repro cma` (seed 002 §4). Everything they do is a
//! library call.

use crate::app::cli::bench::{config, report, with_params, RunArgs};
use crate::app::cli::usage;
use crate::app::cli::{CliHook, HookPlace};
use crate::app::cma::events::{summary_md, write_simulation};
use crate::app::cma::repro::{self, CmaGrid};
use crate::core::Family;
use crate::error::{Error, Result};
use crate::problems::cma::file::{write_cma_with, SideFile};
use crate::problems::cma::gen::{generate_cma, paper_set_config, EdgeConn, GenCmaConfig, Scenario};
use crate::problems::cma::model::CmaInstance;
use crate::problems::cma::pings::cma_from_pings;
use crate::problems::cma::sim::{simulate, SimOptions, POLICY_NAMES};
use crate::problems::cma::sites::{generate_sites, SitesConfig};
use crate::problems::read_instance;
use clap::{Args, FromArgMatches};
use std::path::PathBuf;

/// `simulate FILE --policy P [--out DIR]`: replay a dynamic CMA instance.
#[derive(clap::Args, Debug, Clone)]
pub struct SimulateArgs {
    /// A CMA instance file with `events`.
    pub file: PathBuf,
    /// Policy: j-sa/l-sa, j-sa-rebuild/l-sa-rebuild, j-greedy/l-greedy,
    /// j-greedy/l-ignore, bf, j-playnow/l-ignore or j-playnow/l-greedy.
    #[arg(long, default_value = "j-sa/l-sa")]
    pub policy: String,
    /// Write events.csv, events.jsonl and summary.md here (else the summary
    /// goes to stdout).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Delay requirement for the "players under threshold" count (ms).
    #[arg(long, default_value_t = 100.0)]
    pub threshold: f64,
    /// Also compute the static optimum after every event (optimal_total).
    #[arg(long)]
    pub verify: bool,
}

/// Runs `simulate`.
pub fn run_simulate(args: &SimulateArgs) -> Result<()> {
    let loaded = read_instance(&args.file)?;
    let Some(crate::problems::cma::Instance(inst)) = loaded
        .as_any()
        .downcast_ref::<crate::problems::cma::Instance>()
    else {
        return Err(Error::Usage(format!(
            "{}: simulate needs a CMA instance (\"problem\": \"cma\")",
            args.file.display()
        )));
    };
    if !(args.threshold.is_finite() && args.threshold >= 0.0) {
        return Err(Error::Usage(format!(
            "--threshold {} is not a delay >= 0",
            args.threshold
        )));
    }
    let opts = SimOptions {
        threshold: args.threshold,
        verify: args.verify,
    };
    let sim = simulate(inst, &args.policy, &opts)?;
    match &args.out {
        Some(dir) => {
            write_simulation(dir, inst, &sim)?;
            eprintln!(
                "{} events under {} → {}/events.csv, events.jsonl, summary.md",
                sim.records.len(),
                sim.policy,
                dir.display()
            );
        }
        None => crate::app::cli::out::print(&summary_md(inst, &sim))?,
    }
    Ok(())
}

/// `gen cma`: generate CMA instances (seed 002 §4 scenarios, static, or from
/// a measured matrix).
#[derive(clap::Args, Debug, Clone)]
pub struct GenCmaArgs {
    /// join, leave, dynamic, static, or sites (every site a player and a
    /// candidate mirror: `--sites N`, see `--open-cost`).
    #[arg(long, default_value = "join", conflicts_with = "from_pings")]
    pub scenario: String,
    /// The sites scenario: number of sites (players = candidate mirrors, 1
    /// to 10,000).
    #[arg(long, conflicts_with = "from_pings")]
    pub sites: Option<usize>,
    /// The sites scenario: integer opening costs uniform in 0..=MAX (default:
    /// none).
    #[arg(long)]
    pub open_cost: Option<u32>,
    /// Number of mirrors (1 to 10,000).
    #[arg(long, default_value_t = 5, conflicts_with = "from_pings")]
    pub mirrors: usize,
    /// Number of client rows (default 1000; 1300 for dynamic; 1 to 2,000,000,
    /// and at most 100,000,000 clients × mirrors).
    #[arg(long, conflicts_with = "from_pings")]
    pub clients: Option<usize>,
    /// Capacities, comma separated (default: the scenario's; with
    /// --from-pings one value for every candidate or one per candidate,
    /// default: every player).
    #[arg(long, value_delimiter = ',')]
    pub capacity: Option<Vec<usize>>,
    /// Static instances: total capacity = ceil(clients · (1 + slack)); 0 to 1000.
    #[arg(long, default_value_t = 0.0, conflicts_with = "from_pings")]
    pub slack: f64,
    /// Static and sites scenarios: every row is a region of LO..HI players
    /// (uniform, seeded; written as `players`). Capacities are scaled by
    /// players per row unless `--capacity` gives them.
    #[arg(long, value_name = "LO..HI", conflicts_with = "from_pings")]
    pub players: Option<String>,
    /// Draw mirrors and clients from this measured square matrix (ms,
    /// whitespace separated), e.g. the PlanetLab data.
    #[arg(long, conflicts_with = "from_pings")]
    pub from_matrix: Option<PathBuf>,
    /// Seed.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// BRITE's inter-AS edge connection: smallest (edgeConn=2, one border
    /// router per AS; the default, see the generator's doc), random
    /// (edgeConn=1, BRITE's sample config) or smallest-nonleaf (edgeConn=3).
    #[arg(long, default_value = "smallest")]
    pub edge_conn: String,
    /// Write the delay matrix to a side CSV (`<stem>.delay.csv`).
    #[arg(long, conflicts_with = "npy")]
    pub csv: bool,
    /// Write the delay matrix to numpy's binary format next to the file
    /// (`<stem>.delay.npy`: float64, C order; `numpy.load` reads it).
    #[arg(long)]
    pub npy: bool,
    /// Write the paper's nine scenario files (join/leave/dynamic × 5/10/20
    /// mirrors) into the folder `--out`.
    #[arg(long, conflicts_with = "from_pings")]
    pub paper_set: bool,
    /// A static instance from a ping list (--from-pings and its flags).
    #[command(flatten)]
    pub pings: crate::app::cli::pings::PingArgs,
    /// Output file (folder with --paper-set).
    #[arg(long, short)]
    pub out: PathBuf,
}

/// Parses `--edge-conn`.
pub fn parse_edge_conn(s: &str) -> Result<EdgeConn> {
    EdgeConn::parse(s).ok_or_else(|| {
        Error::Usage(format!(
            "--edge-conn {s}: random, smallest or smallest-nonleaf"
        ))
    })
}

/// Where `gen cma` puts the delay matrix (`--csv`, `--npy`).
fn side(args: &GenCmaArgs) -> SideFile {
    match (args.csv, args.npy) {
        (true, _) => SideFile::Csv,
        (_, true) => SideFile::Npy,
        _ => SideFile::Inline,
    }
}

/// Runs `gen cma`.
pub fn run_gen_cma(args: &GenCmaArgs) -> Result<()> {
    let edge_conn = parse_edge_conn(&args.edge_conn)?;
    if args.paper_set {
        std::fs::create_dir_all(&args.out).map_err(|e| Error::io(&args.out, e))?;
        for scenario in [Scenario::Join, Scenario::Leave, Scenario::Dynamic] {
            for k in [5usize, 10, 20] {
                let mut cfg = paper_set_config(args.seed, scenario, k);
                cfg.from_matrix = args.from_matrix.clone();
                cfg.brite.edge_conn = edge_conn;
                let inst = generate_cma(&cfg)?;
                let path = args.out.join(format!("cma-{}-{k}m.json", scenario.name()));
                write_cma_with(&path, &inst, side(args))?;
                eprintln!("wrote {}", path.display());
            }
        }
        return Ok(());
    }
    if args.scenario == "sites" {
        return run_gen_sites(args);
    }
    if let Some(imp) = args.pings.import()? {
        return run_gen_pings(args, &imp);
    }
    if args.sites.is_some() || args.open_cost.is_some() {
        return Err(Error::Usage(
            "--sites and --open-cost belong to --scenario sites".into(),
        ));
    }
    let mut cfg = GenCmaConfig {
        scenario: Scenario::parse(&args.scenario)?,
        mirrors: args.mirrors,
        clients: args.clients,
        capacity: args.capacity.clone(),
        slack: args.slack,
        from_matrix: args.from_matrix.clone(),
        seed: args.seed,
        ..GenCmaConfig::default()
    };
    cfg.brite.edge_conn = edge_conn;
    let inst = with_players_arg(generate_cma(&cfg)?, args)?;
    write_cma_with(&args.out, &inst, side(args))?;
    eprintln!(
        "wrote {} ({} clients{}, {} mirrors, capacities {:?}{})",
        args.out.display(),
        inst.clients(),
        players_note(&inst),
        inst.mirrors(),
        inst.capacity,
        inst.events
            .as_ref()
            .map(|e| format!(", {} events", e.len()))
            .unwrap_or_default()
    );
    Ok(())
}

/// `gen cma --scenario sites --sites N`: every site a player and a candidate.
fn run_gen_sites(args: &GenCmaArgs) -> Result<()> {
    let Some(sites) = args.sites else {
        return Err(Error::Usage(
            "--scenario sites needs --sites N (players = candidate mirrors)".into(),
        ));
    };
    if args.paper_set || args.from_matrix.is_some() || args.clients.is_some() {
        return Err(Error::Usage(
            "--scenario sites takes --sites N (not --clients, --from-matrix or --paper-set)".into(),
        ));
    }
    let cfg = SitesConfig {
        sites,
        capacity: args.capacity.clone(),
        max_open_cost: args.open_cost,
        seed: args.seed,
        ..SitesConfig::default()
    };
    let inst = with_players_arg(generate_sites(&cfg)?, args)?;
    write_cma_with(&args.out, &inst, side(args))?;
    eprintln!(
        "wrote {} ({sites} sites: client rows = candidate mirrors{}{})",
        args.out.display(),
        players_note(&inst),
        if inst.open_cost.is_some() {
            ", with opening costs"
        } else {
            ""
        }
    );
    Ok(())
}

/// `gen cma --from-pings`: a static instance from a ping list.
fn run_gen_pings(args: &GenCmaArgs, imp: &crate::net::ping_import::PingImport) -> Result<()> {
    let stem = args
        .out
        .file_stem()
        .map_or_else(|| "pings".into(), |s| s.to_string_lossy().into_owned());
    let inst = cma_from_pings(imp, args.capacity.as_deref(), &stem)?;
    if let Some(asked) = &args.capacity {
        // The model keeps a capacity at most the players (a mirror never takes
        // more than every player); say so rather than change it silently.
        let most = inst.total_players().max(inst.clients());
        if asked.iter().any(|&c| c > most) {
            eprintln!(
                "serverpick: gen cma: --capacity above the {most} players is written as {most} \
                 (no mirror can take more than every player)"
            );
        }
    }
    write_cma_with(&args.out, &inst, side(args))?;
    eprintln!(
        "wrote {} ({} client rows{}, {} candidate mirrors, capacities {})",
        args.out.display(),
        inst.clients(),
        players_note(&inst),
        inst.mirrors(),
        match inst.capacity.iter().min() {
            Some(lo) if inst.capacity.iter().all(|c| c == lo) => format!("{lo} each"),
            _ => "as given".into(),
        }
    );
    Ok(())
}

/// Applies `--players LO..HI` (seeded by `--seed`).
fn with_players_arg(inst: CmaInstance, args: &GenCmaArgs) -> Result<CmaInstance> {
    match &args.players {
        Some(range) => {
            let range = crate::problems::cma::weighted::parse_player_range(range)?;
            crate::problems::cma::weighted::with_random_players(
                inst,
                range,
                args.seed,
                args.capacity.is_some(),
            )
        }
        None => Ok(inst),
    }
}

fn players_note(inst: &CmaInstance) -> String {
    match inst.players() {
        Some(_) => format!(" of {} players", inst.total_players()),
        None => String::new(),
    }
}

/// The policies `simulate` accepts (for help texts).
pub fn policy_names() -> &'static [&'static str] {
    &POLICY_NAMES
}

/// The commands the CMA family adds.
pub fn hooks() -> Vec<CliHook> {
    vec![
        CliHook {
            place: HookPlace::TopLevel,
            command: SimulateArgs::augment_args(clap::Command::new("simulate").about(
                "Replay a dynamic CMA instance (joins and leaves) under a join/leave policy, \
                 writing per-event records and a summary",
            )),
            run: |m| run_simulate(&SimulateArgs::from_arg_matches(m).map_err(usage)?).map(|_| 0),
        },
        CliHook {
            place: HookPlace::Gen,
            command: GenCmaArgs::augment_args(clap::Command::new("cma").about(
                "CMA instances: seed 002 §4's BRITE topology and join, leave and dynamic \
                 scenarios, static instances of any size, --from-matrix or --from-pings",
            )),
            run: |m| run_gen_cma(&GenCmaArgs::from_arg_matches(m).map_err(usage)?).map(|_| 0),
        },
        CliHook {
            place: HookPlace::Repro,
            command: with_params(
                ReproCmaArgs::augment_args(clap::Command::new("cma").about(
                    "Seed 002 §4 Figs. 4-8 (CMA): join, leave and dynamic scenarios under the \
                     paper's policies, plus the static instances through the engines",
                )),
                &crate::problems::cma::FAMILY.params(),
            ),
            run: |m| {
                let a = ReproCmaArgs::from_arg_matches(m).map_err(usage)?;
                run_repro_cma(&a, m).map(|_| 0)
            },
        },
        crate::app::cma::plan_cli::hook(),
        crate::app::cma::playnow::cli::hook(),
    ]
}

/// `serverpick repro cma`.
#[derive(Debug, Clone, Args)]
pub struct ReproCmaArgs {
    /// Scenarios (join, leave, dynamic).
    #[arg(long, value_delimiter = ',', default_value = "join,leave,dynamic")]
    pub scenarios: Vec<String>,
    /// Mirror counts.
    #[arg(long, value_delimiter = ',', default_value = "5,10,20")]
    pub mirrors: Vec<usize>,
    /// Client-count factor: round(1000·scale) clients (dynamic: 1300·scale),
    /// capacities scaled with them (1 = the paper).
    #[arg(long, default_value_t = 1.0)]
    pub scale: f64,
    /// Dynamic policies (simulate's names), comma-separated.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "j-greedy/l-ignore,j-greedy/l-greedy,j-sa/l-sa,j-sa-rebuild/l-sa-rebuild,bf"
    )]
    pub policies: Vec<String>,
    /// Runs per (instance, policy); each event's time is the median over them.
    #[arg(long, default_value_t = 3)]
    pub timing_runs: usize,
    /// Delay requirement for "players under threshold" (ms).
    #[arg(long, default_value_t = 100.0)]
    pub threshold: f64,
    /// Generator seed (the same instances as `gen cma --paper-set --seed`).
    #[arg(long, default_value_t = 1)]
    pub gen_seed: u64,
    /// BRITE's inter-AS edge connection (as `gen cma --edge-conn`).
    #[arg(long, default_value = "smallest")]
    pub edge_conn: String,
    /// Output folder (instances/, sim/, results, summary, figures/, figures.md).
    #[arg(long, default_value = "repro-cma")]
    pub out: PathBuf,
    /// Shared run options for the static instances (`--engine all` =
    /// exact-flow, exact, j-greedy, j-sa).
    #[command(flatten)]
    pub run: RunArgs,
}

/// Runs `serverpick repro cma` (`m`: its parsed flags).
pub fn run_repro_cma(a: &ReproCmaArgs, m: &clap::ArgMatches) -> Result<()> {
    let scenarios = a
        .scenarios
        .iter()
        .map(|s| Scenario::parse(s.trim()))
        .collect::<Result<Vec<_>>>()?;
    let grid = CmaGrid {
        scenarios,
        mirrors: a.mirrors.clone(),
        scale: a.scale,
        policies: a.policies.iter().map(|p| p.trim().to_string()).collect(),
        threshold: a.threshold,
        seed: a.gen_seed,
        timing_runs: a.timing_runs.max(1),
        edge_conn: parse_edge_conn(&a.edge_conn)?,
    };
    let cfg = config(
        Vec::new(),
        &a.out,
        &a.run,
        &crate::problems::cma::FAMILY.params(),
        m,
    )?;
    let outcome = repro::repro_cma(&grid, &cfg, &crate::problems::registry())?;
    eprintln!(
        "repro cma: {} scenario runs × {} policies → {}/sim, {} figures → {}/figures",
        outcome.runs.len(),
        grid.policies.len(),
        a.out.display(),
        outcome.figures.len(),
        a.out.display()
    );
    report("repro cma", &a.out, &outcome.bench)
}
