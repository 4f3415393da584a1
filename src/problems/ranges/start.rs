//! The current split of `solve --start` for ranges: a solution file (a
//! contiguous `starts` split, or an `owner` vector that is one) or the name
//! of a contiguous engine (`uniform`, `exact`, `nbr-adjust`, `leave-join`)
//! whose split is computed. `exact-budget` counts migration from it;
//! `nbr-adjust` and `leave-join` start from it.

use crate::core::SolveOptions;
use crate::error::{Error, Result};
use crate::problems::ranges::engines::solve;
use crate::problems::ranges::file::read_ranges_solution;
use crate::problems::ranges::model::{
    check_starts, owner_to_starts, RangesInstance, RangesSolution,
};
use std::path::Path;

/// Engines whose split can be a start.
pub const START_ENGINES: [&str; 4] = ["uniform", "exact", "nbr-adjust", "leave-join"];

/// The split `start` names, checked against `inst` (errors name the file
/// and field).
pub fn current_split(
    inst: &RangesInstance,
    start: &str,
    opts: &SolveOptions,
) -> Result<Vec<usize>> {
    let (k, n) = (inst.cells(), inst.nodes);
    let (sol, file) = if START_ENGINES.contains(&start) {
        let out = solve(start, inst, opts);
        let sol = out.solution.ok_or_else(|| {
            Error::Usage(format!(
                "--start {start}: {}",
                out.message.unwrap_or_default()
            ))
        })?;
        (sol, format!("--start {start}"))
    } else {
        (read_ranges_solution(Path::new(start))?, start.to_string())
    };
    match sol {
        RangesSolution::Split(s) => {
            check_starts(&s.starts, k, n, &file)?;
            Ok(s.starts)
        }
        RangesSolution::Owners(o) => {
            if o.owner.len() != k {
                let msg = format!("has {} entries, expected {k} (one per cell)", o.owner.len());
                return Err(Error::input(&file, "owner", msg));
            }
            owner_to_starts(&o.owner, n).ok_or_else(|| {
                Error::input(
                    &file,
                    "owner",
                    format!("is not a contiguous split in node order over {n} nodes (a start must be one)"),
                )
            })
        }
    }
}
