//! External engine declarations: `--engine-cmd NAME='CMD …'` and the
//! `--engines-file engines.toml` entries, checked once into
//! [`ExternalSpec`]s.
//!
//! ```toml
//! # engines.toml
//! [[engine]]
//! name = "greedy-py"
//! command = ["python3", "spd_greedy.py", "{instance}", "{solution}"]
//! families = ["spd"]            # optional: the families it solves
//! problems = ["spd"]            # optional: the problems it solves
//! env = { PYTHONHASHSEED = "0" } # optional
//! cwd = "."                     # optional, relative to this file's folder
//! ```

use crate::error::{Error, Result};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The placeholders a command may use, and what each becomes.
pub const PLACEHOLDERS: &[(&str, &str)] = &[
    ("instance", "the instance file's absolute path"),
    ("solution", "where the command writes its solution file"),
    (
        "time_limit",
        "seconds left for this run (`inf` without a limit)",
    ),
    ("seed", "the run's seed (base seed + repetition)"),
    ("threads", "how many threads the run may use"),
    ("problem", "the problem solved (`spd`, `cma`, …)"),
];

/// One external engine.
#[derive(Debug, Clone, PartialEq)]
pub struct ExternalSpec {
    /// Its name in rows and tables.
    pub name: String,
    /// Program and arguments, with `{placeholders}`.
    pub argv: Vec<String>,
    /// Families it applies to (empty: every family; a problem's name, e.g.
    /// `spdvr`, also matches).
    pub families: Vec<String>,
    /// Problems it applies to (empty: every problem).
    pub problems: Vec<String>,
    /// Extra environment variables.
    pub env: Vec<(String, String)>,
    /// Working directory (default: the caller's).
    pub cwd: Option<PathBuf>,
}

impl ExternalSpec {
    /// Parses `NAME=COMMAND` or `NAME@FAMILY,…=COMMAND` (`--engine-cmd`;
    /// `@spd,cma` restricts it to those families or problems); the command
    /// is split like a shell would split it (quotes, backslashes) but no
    /// shell runs it.
    pub fn from_flag(text: &str) -> Result<Self> {
        let bad = |why: &str| Error::Usage(format!("--engine-cmd '{text}': {why}"));
        let (head, command) = text
            .split_once('=')
            .ok_or_else(|| bad("expected NAME='COMMAND {instance} {solution}'"))?;
        let argv = shlex::split(command).ok_or_else(|| bad("unbalanced quotes"))?;
        let (name, families) = match head.split_once('@') {
            Some((n, list)) => (n, list.split(',').map(|f| f.trim().to_string()).collect()),
            None => (head, Vec::new()),
        };
        let spec = ExternalSpec {
            name: name.trim().to_string(),
            argv,
            families,
            problems: Vec::new(),
            env: Vec::new(),
            cwd: None,
        };
        spec.check().map_err(|e| bad(&e))?;
        Ok(spec)
    }

    /// Whether it solves instances of `family` read as `problem`.
    pub fn applies(&self, family: &str, problem: &str) -> std::result::Result<(), String> {
        if !self.families.is_empty() && !self.families.iter().any(|f| f == family || f == problem) {
            return Err(format!(
                "declared for families {} only",
                self.families.join(", ")
            ));
        }
        if !self.problems.is_empty() && !self.problems.iter().any(|p| p == problem) {
            return Err(format!(
                "declared for problems {} only",
                self.problems.join(", ")
            ));
        }
        Ok(())
    }

    /// Checks the name and the placeholders.
    fn check(&self) -> std::result::Result<(), String> {
        let ok = |c: char| c.is_ascii_alphanumeric() || "-_.+".contains(c);
        if self.name.is_empty() || !self.name.chars().all(ok) {
            return Err(format!(
                "engine name '{}' must be letters, digits and -_.+",
                self.name
            ));
        }
        if self.argv.is_empty() {
            return Err("the command is empty".into());
        }
        for arg in &self.argv {
            for p in placeholders_in(arg) {
                if !PLACEHOLDERS.iter().any(|(k, _)| *k == p) {
                    let known: Vec<&str> = PLACEHOLDERS.iter().map(|(k, _)| *k).collect();
                    return Err(format!(
                        "unknown placeholder {{{p}}} (known: {})",
                        known.join(", ")
                    ));
                }
            }
        }
        Ok(())
    }

    /// The command with its placeholders replaced by `values`.
    pub fn argv_with(&self, values: &[(&str, String)]) -> Vec<String> {
        self.argv
            .iter()
            .map(|a| {
                let mut s = a.clone();
                for (k, v) in values {
                    s = s.replace(&format!("{{{k}}}"), v);
                }
                s
            })
            .collect()
    }
}

/// The `{word}` placeholders in `arg` (word: letters, digits, `_`).
fn placeholders_in(arg: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = arg;
    while let Some(open) = rest.find('{') {
        let after = &rest[open + 1..];
        match after.find('}') {
            Some(close) => {
                let word = &after[..close];
                if !word.is_empty() && word.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                    out.push(word);
                }
                rest = &after[close + 1..];
            }
            None => break,
        }
    }
    out
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct EnginesFile {
    #[serde(default)]
    engine: Vec<FileEntry>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct FileEntry {
    name: String,
    command: Command,
    #[serde(default)]
    families: Vec<String>,
    #[serde(default)]
    problems: Vec<String>,
    #[serde(default)]
    env: BTreeMap<String, String>,
    cwd: Option<PathBuf>,
}

#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum Command {
    Argv(Vec<String>),
    Line(String),
}

/// Reads an engines file (TOML, `[[engine]]` tables). Relative `cwd`s are
/// resolved against the file's folder, which is also the default `cwd`.
pub fn read_engines_file(path: &Path) -> Result<Vec<ExternalSpec>> {
    let file = path.display().to_string();
    let text = crate::io::read_text(path)?;
    let parsed: EnginesFile = toml::from_str(&text).map_err(|e| {
        let msg = e.message().to_string();
        let at = e
            .span()
            .and_then(|s| text.get(..s.start))
            .map(|before| format!(" (line {})", before.lines().count().max(1)))
            .unwrap_or_default();
        Error::input(&file, "engine", format!("{msg}{at}"))
    })?;
    let dir = path.parent().unwrap_or(Path::new(".")).to_path_buf();
    let mut out = Vec::new();
    for (i, e) in parsed.engine.into_iter().enumerate() {
        let field = format!("engine[{i}]");
        let argv = match e.command {
            Command::Argv(v) => v,
            Command::Line(l) => shlex::split(&l).ok_or_else(|| {
                Error::input(&file, format!("{field}.command"), "unbalanced quotes")
            })?,
        };
        let spec = ExternalSpec {
            name: e.name,
            argv,
            families: e.families,
            problems: e.problems,
            env: e.env.into_iter().collect(),
            cwd: Some(match e.cwd {
                Some(c) if c.is_absolute() => c,
                Some(c) => dir.join(c),
                None => dir.clone(),
            }),
        };
        spec.check()
            .map_err(|why| Error::input(&file, &field, why))?;
        out.push(spec);
    }
    if out.is_empty() {
        return Err(Error::input(&file, "engine", "declares no [[engine]]"));
    }
    Ok(out)
}

/// Checks a run's external engines: unique names, none a built-in's.
pub fn check_names(specs: &[ExternalSpec], builtin: &[String]) -> Result<()> {
    for (i, s) in specs.iter().enumerate() {
        if builtin.contains(&s.name) {
            return Err(Error::Usage(format!(
                "external engine '{}' has a built-in engine's name; choose another",
                s.name
            )));
        }
        if specs[..i].iter().any(|t| t.name == s.name) {
            return Err(Error::Usage(format!(
                "two external engines are named '{}'",
                s.name
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_flag_is_split_like_a_shell_without_one() {
        let s = ExternalSpec::from_flag("mine=python3 'my heur.py' {instance} {solution}").unwrap();
        assert_eq!(s.name, "mine");
        assert_eq!(
            s.argv,
            ["python3", "my heur.py", "{instance}", "{solution}"]
        );
        let argv = s.argv_with(&[("instance", "/a b.json".into()), ("solution", "/s".into())]);
        assert_eq!(argv, ["python3", "my heur.py", "/a b.json", "/s"]);
    }

    #[test]
    fn bad_flags_say_what_is_wrong() {
        for (flag, says) in [
            ("no-equals", "NAME="),
            ("=cmd", "engine name"),
            ("a b=cmd", "engine name"),
            ("x=", "empty"),
            ("x=run {instnace}", "unknown placeholder {instnace}"),
            ("x=run 'open", "unbalanced"),
        ] {
            let e = ExternalSpec::from_flag(flag).unwrap_err().to_string();
            assert!(e.contains(says), "{flag}: {e}");
        }
        // JSON braces in an argument are not placeholders.
        assert!(ExternalSpec::from_flag("x=echo {\"a\": 1}").is_ok());
    }

    #[test]
    fn names_must_be_new() {
        let a = ExternalSpec::from_flag("exact=true").unwrap();
        assert!(check_names(&[a], &["exact".into()]).is_err());
        let b = ExternalSpec::from_flag("m=true").unwrap();
        assert!(check_names(&[b.clone(), b], &[]).is_err());
    }

    #[test]
    fn families_and_problems_restrict() {
        let mut s = ExternalSpec::from_flag("m=true").unwrap();
        assert!(s.applies("cma", "cma").is_ok());
        let t = ExternalSpec::from_flag("m@spd,cma=true").unwrap();
        assert_eq!((t.name.as_str(), t.families.len()), ("m", 2));
        assert!(t.applies("ag", "ag").is_err());
        s.families = vec!["spd".into()];
        assert!(s.applies("cma", "cma").is_err());
        assert!(s.applies("spd", "spdvr").is_ok());
        s.problems = vec!["spd".into()];
        assert!(s.applies("spd", "spdvr").is_err());
    }
}
