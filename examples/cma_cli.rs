//! A stand-alone front end for the CMA commands until the main CLI wires
//! them: `cargo run --release --example cma_cli -- simulate FILE --policy P`,
//! `... -- gen-cma --scenario join --out FILE`, `... -- solve FILE --engine E`.

use clap::{Parser, Subcommand};
use serverpick::cli::cma::{run_gen_cma, run_simulate, GenCmaArgs, SimulateArgs};
use serverpick::engine::cma::run_cma;
use serverpick::engine::SolveOptions;
use serverpick::io::cma_file::read_cma;
use std::path::PathBuf;

#[derive(Parser)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Replay a dynamic CMA instance under a policy.
    Simulate(SimulateArgs),
    /// Generate CMA instances.
    GenCma(GenCmaArgs),
    /// Solve a static CMA instance; prints the solution record.
    Solve {
        /// Instance file.
        file: PathBuf,
        /// Engine.
        #[arg(long, default_value = "exact-flow")]
        engine: String,
    },
}

fn main() {
    let cli = Cli::parse();
    let r = match cli.cmd {
        Cmd::Simulate(a) => run_simulate(&a),
        Cmd::GenCma(a) => run_gen_cma(&a),
        Cmd::Solve { file, engine } => read_cma(&file).map(|inst| {
            let mut rec = run_cma(&engine, &inst, &SolveOptions::default());
            rec.solution = None;
            println!("{}", serde_json::to_string_pretty(&rec).unwrap_or_default());
        }),
    };
    if let Err(e) = r {
        eprintln!("error: {e}");
        std::process::exit(2);
    }
}
