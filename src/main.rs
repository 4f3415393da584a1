//! The `serverpick` command: parsing and exit codes only; the work is in the
//! library (`serverpick::cli`).

fn main() {
    std::process::exit(serverpick::cli::run_args(std::env::args_os()));
}
