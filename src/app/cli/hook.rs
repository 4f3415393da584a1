//! The commands a family adds to the CLI (`gen NAME`, `repro NAME`, `plan
//! NAME`, top-level ones such as `simulate`): clap types stay in `cli`.

use crate::error::Result;

/// Where a family's command goes in the command tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HookPlace {
    /// `serverpick gen NAME …`.
    Gen,
    /// `serverpick repro NAME …`.
    Repro,
    /// `serverpick plan NAME …` (capacity planning).
    Plan,
    /// `serverpick NAME …` (e.g. `simulate`).
    TopLevel,
}

/// A command a family adds to the CLI: its clap definition and its runner
/// (which returns the exit code).
#[derive(Clone)]
pub struct CliHook {
    /// Where it goes.
    pub place: HookPlace,
    /// The command (its name is the subcommand's).
    pub command: clap::Command,
    /// Runs it on the parsed arguments.
    pub run: fn(&clap::ArgMatches) -> Result<i32>,
}

impl std::fmt::Debug for CliHook {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CliHook")
            .field("place", &self.place)
            .field("command", &self.command.get_name())
            .finish()
    }
}
