//! SPD's commands: `gen spd`, `repro spd` ([`repro`]) and `plan spd`
//! ([`plan_cli`], its files in [`plan_out`]).

pub mod cli;
pub mod plan_cli;
pub mod plan_out;
pub mod repro;
