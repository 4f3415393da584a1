//! CMA instance generator (filled in below).
