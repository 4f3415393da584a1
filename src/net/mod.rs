//! Networks and latencies shared by the families: the server network with
//! canonical shortest paths, measured latency matrices, BRITE topologies.

pub mod brite;
pub mod csv_fast;
pub mod matrix;
pub mod network;
pub mod npy;
pub mod ping_import;
pub mod pings;
pub mod sites_csv;
