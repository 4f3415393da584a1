//! Auxiliary-game balancing's commands: `gen ag` and `repro ag`
//! ([`repro`]).

pub mod cli;
pub mod repro;
