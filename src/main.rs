//! The `serverpick` command: parsing and exit codes only; the work is in the
//! library (`serverpick::cli`).

use clap::Parser;

fn main() {
    let cli = serverpick::cli::Cli::parse();
    std::process::exit(serverpick::cli::run(cli));
}
