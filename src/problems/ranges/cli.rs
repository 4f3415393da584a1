//! The ranges family's commands: `gen ranges`.

use crate::core::CliHook;

/// The family's commands.
pub fn hooks() -> Vec<CliHook> {
    Vec::new()
}
