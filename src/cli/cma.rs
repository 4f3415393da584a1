//! CLI front ends for CMA: `simulate` and `gen cma`. The lead wires
//! [`SimulateArgs`]/[`run_simulate`] and [`GenCmaArgs`]/[`run_gen_cma`] into
//! the command tree; everything they do is a library call.

use crate::engine::cma_sim::{simulate, SimOptions, POLICY_NAMES};
use crate::error::{Error, Result};
use crate::io::cma_events::{summary_md, write_simulation};
use crate::io::cma_file::write_cma;
use crate::io::gen_cma::{generate_cma, paper_set_config, EdgeConn, GenCmaConfig, Scenario};
use crate::io::{read_instance, Instance};
use std::path::PathBuf;

/// `simulate FILE --policy P [--out DIR]`: replay a dynamic CMA instance.
#[derive(clap::Args, Debug, Clone)]
pub struct SimulateArgs {
    /// A CMA instance file with `events`.
    pub file: PathBuf,
    /// Policy: j-sa/l-sa, j-sa-rebuild/l-sa-rebuild, j-greedy/l-greedy,
    /// j-greedy/l-ignore or bf.
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
    let inst = match read_instance(&args.file)? {
        Instance::Cma(i) => i,
        _ => {
            return Err(Error::Usage(format!(
                "{}: simulate needs a CMA instance (\"problem\": \"cma\")",
                args.file.display()
            )))
        }
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
    let sim = simulate(&inst, &args.policy, &opts)?;
    match &args.out {
        Some(dir) => {
            write_simulation(dir, &inst, &sim)?;
            eprintln!(
                "{} events under {} → {}/events.csv, events.jsonl, summary.md",
                sim.records.len(),
                sim.policy,
                dir.display()
            );
        }
        None => print!("{}", summary_md(&inst, &sim)),
    }
    Ok(())
}

/// `gen cma`: generate CMA instances (seed 002 §4 scenarios, static, or from
/// a measured matrix).
#[derive(clap::Args, Debug, Clone)]
pub struct GenCmaArgs {
    /// join, leave, dynamic or static.
    #[arg(long, default_value = "join")]
    pub scenario: String,
    /// Number of mirrors (1 to 10,000).
    #[arg(long, default_value_t = 5)]
    pub mirrors: usize,
    /// Number of client rows (default 1000; 1300 for dynamic; 1 to 2,000,000,
    /// and at most 100,000,000 clients × mirrors).
    #[arg(long)]
    pub clients: Option<usize>,
    /// Capacities, comma separated (default: the scenario's).
    #[arg(long, value_delimiter = ',')]
    pub capacity: Option<Vec<usize>>,
    /// Static instances: total capacity = ceil(clients · (1 + slack)); 0 to 1000.
    #[arg(long, default_value_t = 0.0)]
    pub slack: f64,
    /// Draw mirrors and clients from this measured square matrix (ms,
    /// whitespace separated), e.g. the PlanetLab data.
    #[arg(long)]
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
    #[arg(long)]
    pub csv: bool,
    /// Write the paper's nine scenario files (join/leave/dynamic × 5/10/20
    /// mirrors) into the folder `--out`.
    #[arg(long)]
    pub paper_set: bool,
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
                write_cma(&path, &inst, args.csv)?;
                eprintln!("wrote {}", path.display());
            }
        }
        return Ok(());
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
    let inst = generate_cma(&cfg)?;
    write_cma(&args.out, &inst, args.csv)?;
    eprintln!(
        "wrote {} ({} clients, {} mirrors, capacities {:?}{})",
        args.out.display(),
        inst.clients(),
        inst.mirrors(),
        inst.capacity,
        inst.events
            .as_ref()
            .map(|e| format!(", {} events", e.len()))
            .unwrap_or_default()
    );
    Ok(())
}

/// `eval` for a CMA instance: prints the evaluator's metrics of a static
/// solution (a solution file or a bare `{"assign": [..]}`); exit code 0 when
/// feasible, 1 when not.
pub fn eval_cma(inst: &crate::model::cma::CmaInstance, solution: &std::path::Path) -> Result<i32> {
    let assign = crate::io::cma_file::read_cma_assignment(solution)?;
    let ev = crate::model::cma_eval::evaluate_cma_static(
        inst,
        &assign,
        crate::model::cma_eval::DEFAULT_THRESHOLD_MS,
    );
    let m = &ev.metrics;
    println!(
        "instance   {} ({} mirrors, {} clients)",
        inst.name,
        inst.mirrors(),
        inst.clients()
    );
    println!("total      {:.3} ms", m.total_delay);
    println!("average    {:.3} ms", m.avg_delay);
    println!("max        {:.3} ms", m.max_delay);
    println!(
        "<= {} ms  {} of {}",
        m.threshold, m.under_threshold, m.present
    );
    println!("loads      {:?} (capacities {:?})", m.loads, inst.capacity);
    Ok(crate::cli::eval::print_verdict(
        ev.is_feasible(),
        &ev.violations,
    ))
}

/// The policies `simulate` accepts (for help texts).
pub fn policy_names() -> &'static [&'static str] {
    &POLICY_NAMES
}
