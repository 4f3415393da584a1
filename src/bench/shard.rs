//! `--shard K/N`: a deterministic partition of the (instance file, engine)
//! work units, so a cluster job array can run shard `K` of `N` per task.
//!
//! A unit belongs to shard `fnv1a64(file + "\0" + engine) mod N`. FNV-1a is
//! written out here because its value must never change between Rust
//! versions or runs (std's `DefaultHasher` promises neither). All repetitions
//! of a unit go to the same shard. Every shard must be given the same PATH
//! arguments (the file key is the path as given).

use crate::error::{Error, Result};
use std::fmt;
use std::str::FromStr;

/// Shard `index` of `count` (0-based: `0/4` … `3/4`, matching
/// `SLURM_ARRAY_TASK_ID` with `--array=0-3` and Kubernetes'
/// `JOB_COMPLETION_INDEX`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    /// This shard, `0 <= index < count`.
    pub index: u64,
    /// Number of shards, `>= 1`.
    pub count: u64,
}

impl Shard {
    /// Whether the unit (`file`, `engine`) belongs to this shard.
    pub fn owns(&self, file: &str, engine: &str) -> bool {
        shard_of(file, engine, self.count) == self.index
    }
}

/// The shard (of `count`) that owns the unit (`file`, `engine`).
pub fn shard_of(file: &str, engine: &str, count: u64) -> u64 {
    let mut h = fnv1a64(file.as_bytes(), 0xcbf2_9ce4_8422_2325);
    h = fnv1a64(&[0], h);
    h = fnv1a64(engine.as_bytes(), h);
    h % count.max(1)
}

/// FNV-1a, 64 bits, continuing from `state`.
fn fnv1a64(bytes: &[u8], mut state: u64) -> u64 {
    for &b in bytes {
        state ^= u64::from(b);
        state = state.wrapping_mul(0x0000_0100_0000_01b3);
    }
    state
}

impl FromStr for Shard {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self> {
        let bad = || {
            Error::Usage(format!(
                "--shard '{s}': expected K/N with 0 <= K < N (0-based, e.g. 0/4 … 3/4)"
            ))
        };
        let (k, n) = s.split_once('/').ok_or_else(bad)?;
        let index: u64 = k.trim().parse().map_err(|_| bad())?;
        let count: u64 = n.trim().parse().map_err(|_| bad())?;
        if count == 0 || index >= count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}
