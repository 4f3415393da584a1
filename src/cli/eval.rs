//! `serverpick eval INSTANCE SOLUTION`: the evaluator's metrics and verdict.

use crate::error::Result;
use crate::io::solution_file::read_spd_solution;
use crate::io::{read_instance, Instance};
use crate::model::spd_eval::evaluate_spd;
use std::path::PathBuf;

/// Arguments of `serverpick eval`.
#[derive(Debug, clap::Args)]
pub struct EvalArgs {
    /// The instance file.
    pub instance: PathBuf,
    /// A solution file written by `solve`, or a bare `{"root": .., "assign": [..]}`.
    pub solution: PathBuf,
}

/// Runs `eval`; exit code 0 when the solution is feasible, 1 when not.
pub fn run_eval(args: &EvalArgs) -> Result<i32> {
    let inst = read_instance(&args.instance)?;
    match inst {
        Instance::Spd(inst) => {
            let sol = read_spd_solution(&args.solution)?;
            let ev = evaluate_spd(&inst, &sol);
            println!(
                "instance   {} ({}, μ = {:.3} ms, Γ = {:.3} ms)",
                inst.name, inst.model, inst.bound, inst.gamma
            );
            if let Some(m) = &ev.metrics {
                if let Some(r) = m.root {
                    println!("root       {r}");
                }
                println!("hosts      {} {:?}", m.hosts, m.host_list);
                println!("delay      {:.3} ms", m.delay);
                println!("variation  {:.3} ms", m.variation);
                println!("relays     {} {:?}", m.relays, m.relay_list);
            }
            Ok(print_verdict(ev.is_feasible(), &ev.violations))
        }
        Instance::Cma(inst) => crate::cli::cma::eval_cma(&inst, &args.solution),
    }
}

/// Prints the evaluator's verdict; returns the exit code (0 feasible, 1 not).
pub fn print_verdict(feasible: bool, violations: &[String]) -> i32 {
    if feasible {
        println!("verdict    feasible");
        return 0;
    }
    println!("verdict    infeasible");
    for v in violations {
        println!("  - {v}");
    }
    1
}
