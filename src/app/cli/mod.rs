//! The command-line interface: raw flags are turned into checked options
//! here, `main` stays thin. Nothing here names a problem family: `solve`,
//! `eval` and `bench` go through the registry, and the families' own commands
//! (`gen NAME`, `repro NAME`, `simulate`) are [`CliHook`]s they contribute.

pub mod bench;
pub mod eval;
pub mod hook;
pub mod model;
pub mod out;
pub mod pings;
pub mod solve;

use crate::core::registry::Registry;
use crate::core::Family;
use crate::error::{Error, Result};
use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};
pub use hook::{CliHook, HookPlace};
use std::ffi::OsString;

/// serverpick — which game servers a session uses and which server each player
/// connects to: the published heuristics and exact optima.
#[derive(Debug, Parser)]
#[command(name = "serverpick", version, about, long_about = None)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The generic subcommands (the families add `gen`, `repro` and their own).
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Solve instance files (or folders of them) with one or more engines and
    /// print a comparison table.
    Solve(solve::SolveArgs),
    /// Check a solution against its instance with the evaluator.
    Eval(eval::EvalArgs),
    /// Benchmark engines over instance folders: optimality gaps, runtimes,
    /// CSV/JSONL, summary and plots; parallel, resumable, shardable.
    Bench(bench::BenchArgs),
    /// Combine the output folders of sharded `bench` runs into one.
    BenchMerge(bench::BenchMergeArgs),
    /// Write the MILP/LP models an engine builds (MPS or LP, with JSON
    /// sidecars) and list them; nothing else is printed.
    Model(model::ModelArgs),
}

/// A family's commands, as a function that builds them.
pub type Commands = fn() -> Vec<CliHook>;

/// What the command line runs with: the registry of families, handed down
/// to every command, and the families' own commands. [`App::builtin`] is the
/// crate's; a program with a family of its own adds it with
/// [`App::with_family`] and runs [`run_args_with`].
#[derive(Debug, Clone)]
pub struct App {
    /// The families (instances, engines, parameters, tables).
    pub registry: Registry,
    commands: Vec<Commands>,
}

impl App {
    /// The crate's families and commands.
    pub fn builtin() -> Self {
        App {
            registry: crate::problems::registry(),
            commands: crate::app::commands(),
        }
    }

    /// The same with `family` and its commands (`gen NAME`, …; none: `Vec::new`).
    pub fn with_family(mut self, family: &'static dyn Family, commands: Commands) -> Self {
        self.registry = self.registry.with(family);
        self.commands.push(commands);
        self
    }

    fn hooks(&self) -> Vec<CliHook> {
        self.commands.iter().flat_map(|h| h()).collect()
    }
}

/// The whole command tree: the generic commands with every family's engine
/// parameters, plus the families' `gen`, `repro` and top-level commands.
pub fn command(app: &App) -> clap::Command {
    let all = |c| bench::with_all_params(c, &app.registry);
    let mut cmd = Cli::command()
        .mut_subcommand("solve", all)
        .mut_subcommand("bench", all)
        .mut_subcommand("model", all);
    let mut gen = clap::Command::new("gen")
        .about("Generate instances")
        .subcommand_required(true)
        .arg_required_else_help(true);
    let mut repro = clap::Command::new("repro")
        .about("Reproduce a paper's experiment")
        .subcommand_required(true)
        .arg_required_else_help(true);
    let mut plan = clap::Command::new("plan")
        .about("Capacity planning: exact trade-off curves")
        .subcommand_required(true)
        .arg_required_else_help(true);
    for h in app.hooks() {
        match h.place {
            HookPlace::Gen => gen = gen.subcommand(h.command),
            HookPlace::Repro => repro = repro.subcommand(h.command),
            HookPlace::Plan => plan = plan.subcommand(h.command),
            HookPlace::TopLevel => cmd = cmd.subcommand(h.command),
        }
    }
    cmd = cmd.subcommand(gen).subcommand(repro);
    if plan.get_subcommands().next().is_some() {
        cmd = cmd.subcommand(plan);
    }
    cmd
}

/// Parses `args` (the program name first) and runs the command; returns
/// the process exit code.
///
/// 0: success; 1: a check failed (an infeasible solution in `eval`, a claimed
/// optimum beaten by another engine in `solve` or `bench`); 2: bad input or
/// usage.
pub fn run_args<I, T>(args: I) -> i32
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    run_args_with(&App::builtin(), args)
}

/// [`run_args`] with `app`'s families and commands.
pub fn run_args_with<I, T>(app: &App, args: I) -> i32
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let matches = match command(app).try_get_matches_from(args) {
        Ok(m) => m,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() { 2 } else { 0 };
        }
    };
    match dispatch(app, &matches) {
        Ok(code) => code,
        Err(e) if e.is_broken_pipe() => 0,
        Err(e) => {
            eprintln!("serverpick: {e}");
            exit_code(&e)
        }
    }
}

/// Parses `args` (the program name first) and runs the command, returning
/// its exit code or its error (nothing is printed for an error, unlike
/// [`run_args`]; `--help` and `--version` print and give `Ok(0)`).
pub fn try_run_args<I, T>(args: I) -> Result<i32>
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    try_run_args_with(&App::builtin(), args)
}

/// [`try_run_args`] with `app`'s families and commands.
pub fn try_run_args_with<I, T>(app: &App, args: I) -> Result<i32>
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let matches = match command(app).try_get_matches_from(args) {
        Ok(m) => m,
        Err(e) if e.use_stderr() => return Err(Error::Usage(e.render().to_string())),
        Err(e) => {
            let _ = e.print();
            return Ok(0);
        }
    };
    dispatch(app, &matches)
}

fn dispatch(app: &App, m: &clap::ArgMatches) -> Result<i32> {
    let hooks = app.hooks();
    let reg = &app.registry;
    let (name, sub) = m
        .subcommand()
        .ok_or_else(|| Error::Usage("a command is required (see --help)".into()))?;
    let (place, name, sub) = match name {
        "gen" | "repro" | "plan" => {
            let place = match name {
                "gen" => HookPlace::Gen,
                "repro" => HookPlace::Repro,
                _ => HookPlace::Plan,
            };
            let (inner, inner_m) = sub
                .subcommand()
                .ok_or_else(|| Error::Usage(format!("{name}: a problem is required")))?;
            (place, inner, inner_m)
        }
        other => (HookPlace::TopLevel, other, sub),
    };
    if let Some(h) = hooks
        .iter()
        .find(|h| h.place == place && h.command.get_name() == name)
    {
        return (h.run)(sub);
    }
    let cli = Cli::from_arg_matches(m).map_err(|e| Error::Usage(e.to_string()))?;
    match cli.command {
        Command::Solve(args) => solve::run_solve(reg, &args, sub),
        Command::Eval(args) => eval::run_eval(reg, &args),
        Command::Bench(args) => bench::run_bench(reg, &args, sub).map(|_| 0),
        Command::BenchMerge(args) => bench::run_bench_merge(reg, &args).map(|_| 0),
        Command::Model(args) => model::run_model(reg, &args, sub),
    }
}

/// Exit code for an error.
pub fn exit_code(e: &Error) -> i32 {
    e.exit_code()
}

/// A clap error as a usage error (the families' own commands parse their
/// flags with clap and report through this).
pub fn usage(e: clap::Error) -> Error {
    Error::Usage(e.to_string())
}

/// Splits `a,b,c` lists given once or repeatedly.
pub fn split_list(items: &[String]) -> Vec<String> {
    items
        .iter()
        .flat_map(|s| s.split(','))
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .collect()
}

/// Parses a positive time limit in seconds (`0` or `none` = no limit).
pub fn parse_time_limit(raw: &str) -> Result<Option<f64>> {
    if raw.eq_ignore_ascii_case("none") {
        return Ok(None);
    }
    let bad = || Error::BadFlag {
        flag: "--time-limit".into(),
        value: raw.into(),
        expected: "seconds > 0, or 0 or 'none' for no limit".into(),
    };
    let t: f64 = raw.parse().map_err(|_| bad())?;
    if t == 0.0 {
        Ok(None)
    } else if t.is_finite() && t > 0.0 {
        Ok(Some(t))
    } else {
        Err(bad())
    }
}
