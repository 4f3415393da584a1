//! Exact engines: MILP/LP models on HiGHS (through good_lp) and combinatorial
//! exact solvers. Every result they claim is re-checked by the evaluator.

pub mod cma_flow;
pub mod cma_lp;
pub mod highs_mip;
pub mod spd_milp;
pub mod spd_milp_cs;
pub mod spd_milp_p2p;
pub mod spd_milp_p2p_few;
pub mod spd_milp_p2p_lex;
pub mod spdvr_milp;
pub(crate) mod spdvr_milp_p2p;
