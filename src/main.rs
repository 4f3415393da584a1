//! The `serverpick` command: parsing and exit codes only; the work is in the
//! library (`serverpick::app::cli`).

fn main() {
    std::process::exit(serverpick::app::cli::run_args(std::env::args_os()));
}
