//! Running the built `serverpick` binary from the integration tests.
#![allow(dead_code)]

use std::process::{Command, Output};

/// Runs the binary with `args` and returns what it printed and its status.
pub fn serverpick(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_serverpick"))
        .args(args)
        .output()
        .expect("the binary runs")
}

/// Bytes printed, as text.
pub fn text(o: &[u8]) -> String {
    String::from_utf8_lossy(o).into_owned()
}

/// A file of the fuzz3 reproducers copied into `tests/data/fuzz3/`.
pub fn fuzz3(rel: &str) -> String {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/fuzz3")
        .join(rel)
        .display()
        .to_string()
}

/// A bundled instance (`instances/NAME`), as a path string.
pub fn bundled(name: &str) -> String {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("instances")
        .join(name)
        .display()
        .to_string()
}
