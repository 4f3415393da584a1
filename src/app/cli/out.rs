//! Standard output for every command: writes that fail are errors, never
//! panics. A closed pipe (`serverpick solve … | head`) ends the command
//! quietly with exit 0; any other failure (a full disk) exits 1 with a
//! message.

use crate::error::{Error, Result};
use std::io::Write;

/// Writes `text` to standard output.
pub fn print(text: &str) -> Result<()> {
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())
        .and_then(|_| out.flush())
        .map_err(Error::Output)
}

/// Writes `text` and a newline to standard output.
pub fn println(text: &str) -> Result<()> {
    print(&format!("{text}\n"))
}
