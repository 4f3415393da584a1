//! CMA's commands: `gen cma`, `simulate` (its files in [`events`]),
//! `plan cma` ([`plan_cli`], its files in [`plan_output`]), `repro cma`
//! ([`repro`]) and `repro playnow` ([`playnow`]).

pub mod cli;
pub mod events;
pub mod plan_cli;
pub mod plan_output;
pub mod playnow;
pub mod repro;
