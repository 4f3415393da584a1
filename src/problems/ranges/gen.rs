//! Colyseus' maps and workload (seed 003 §6.3).
