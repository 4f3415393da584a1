//! Every command the README and the docs show runs from a clone (issue 16):
//! each `serverpick …` / `cargo run --release -- …` line of a ```sh block
//! parses against the real command tree, the repository paths it reads
//! exist, and every example that is not a synopsis (no `[…]`, `...` or
//! UPPER-CASE placeholder) runs to exit 0 with its outputs in a temporary
//! folder. Long reproductions (`repro` at full size, `--paper-set`) are only
//! parsed, and so are commands whose inputs come from an earlier command in
//! their block (shards, merged folders).

use std::path::Path;
use std::process::Command;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The command lines of the ```sh blocks of a Markdown file, continuations
/// joined, comments dropped, `cargo run --release --` turned into
/// `serverpick`.
fn commands(md: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut in_sh = false;
    let mut cur = String::new();
    for line in md.lines() {
        if line.trim_start().starts_with("```") {
            in_sh = !in_sh && line.trim() == "```sh";
            continue;
        }
        if !in_sh {
            continue;
        }
        let code = line.split(" #").next().unwrap_or("").trim_end();
        cur.push_str(code.trim_end_matches('\\'));
        cur.push(' ');
        if code.ends_with('\\') {
            continue;
        }
        let c = cur.trim().replace("cargo run --release -- ", "serverpick ");
        if c.starts_with("serverpick ") {
            out.push(c);
        }
        cur.clear();
    }
    out
}

/// Flags whose value is a path the command writes (put in a temporary
/// folder, never the repository).
const OUTPUT_FLAGS: [&str; 3] = ["--out", "--write-model", "--solver-log"];

fn is_synopsis(c: &str) -> bool {
    c.contains('[')
        || c.contains("...")
        || c.contains('…')
        || c.split_whitespace().any(|w| {
            let w = w.trim_end_matches(',');
            w.len() > 1 && w.chars().all(|ch| ch.is_ascii_uppercase() || ch == '_')
        })
}

/// Arguments that read a file or folder of the repository.
fn inputs(args: &[String]) -> Vec<&String> {
    let mut v = Vec::new();
    for (i, a) in args.iter().enumerate() {
        let after_out = i > 0
            && (OUTPUT_FLAGS.contains(&args[i - 1].as_str()) || args[i - 1] == "--engine-cmd");
        if !after_out && !a.starts_with('-') && (a.contains('/') || a.ends_with(".json")) {
            v.push(a);
        }
    }
    v
}

fn slow(c: &str) -> bool {
    c.contains("--paper-set")
        || (c.starts_with("serverpick repro") && !c.contains("--scale") && !c.contains("--servers"))
        || c.starts_with("serverpick repro spd --servers 20,25")
}

#[test]
fn every_readme_and_docs_command_runs_from_a_clone() {
    let mut files = vec![root().join("README.md"), root().join("instances/README.md")];
    for e in std::fs::read_dir(root().join("docs")).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "md") {
            files.push(p);
        }
    }
    let (mut parsed, mut ran) = (0, 0);
    for f in &files {
        let md = std::fs::read_to_string(f).unwrap();
        let tmp = tempfile::tempdir().unwrap();
        for c in commands(&md) {
            if is_synopsis(&c) {
                continue;
            }
            let mut args: Vec<String> = shlex::split(&c)
                .unwrap_or_else(|| panic!("{}: `{c}`: unbalanced quotes", f.display()));
            for i in 1..args.len() {
                if OUTPUT_FLAGS.contains(&args[i - 1].as_str()) {
                    args[i] = tmp.path().join(&args[i]).display().to_string();
                }
            }
            let parse = serverpick::app::cli::command(&serverpick::app::cli::App::builtin())
                .try_get_matches_from(&args);
            assert!(
                parse.is_ok(),
                "{}: `{c}` does not parse: {:?}",
                f.display(),
                parse.err()
            );
            parsed += 1;
            let missing: Vec<&String> = inputs(&args)
                .into_iter()
                .filter(|p| !root().join(p.as_str()).exists())
                .collect();
            if slow(&c) || !missing.is_empty() {
                // Inputs made by an earlier command of the block (shards)
                // are only parsed; repository paths must exist.
                for p in missing {
                    assert!(
                        !p.starts_with("instances/") && !p.starts_with("data/"),
                        "{}: `{c}` reads {p}, which is not in the repository",
                        f.display()
                    );
                }
                continue;
            }
            let o = Command::new(env!("CARGO_BIN_EXE_serverpick"))
                .args(&args[1..])
                .current_dir(root())
                .output()
                .unwrap();
            assert!(
                o.status.success(),
                "{}: `{c}` failed:\n{}",
                f.display(),
                String::from_utf8_lossy(&o.stderr)
            );
            ran += 1;
        }
    }
    eprintln!("{parsed} documented commands parse, {ran} ran");
    assert!(ran >= 6, "only {ran} commands ran");
}
