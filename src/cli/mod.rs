//! Command-line front ends (clap argument structs and their run functions).

pub mod cma;
