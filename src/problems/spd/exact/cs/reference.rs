//! The reference formulation of CS stage 1 (written, not solved, when a
//! run writes its models): one MILP over every root at once.
//!
//! ```text
//! min Σ_s y_s  s.t.  Σ_r z_r = 1,  z_r <= y_r,
//!                    Σ_{s covers c for root r} y_s >= z_r   ∀ r, c
//! ```
//!
//! `z_r`: `r` is the root; `y_s`: `s` hosts. Its optimum is the least host
//! count `k*` the engine proves root by root (per-root set covers capped
//! below the incumbent, which are mostly infeasible by design and so say
//! little on their own).

use super::Cs;
use crate::core::Deadline;
use crate::lp::highs::{minimise, MipBuilder, MipSettings};
use crate::lp::model_out::Stage;
use crate::problems::spd::model::SpdInstance;
use good_lp::{constraint, variable, Constraint, Expression};

/// Writes the reference MILP when `dl`'s run writes its models.
pub(crate) fn write_reference(inst: &SpdInstance, dl: &Deadline) {
    let Some(io) = dl.io().filter(|io| io.model_out.is_some()) else {
        return;
    };
    let mut io = (**io).clone();
    if let Some(m) = &mut io.model_out {
        m.write_only = true;
    }
    let dl = dl.clone().with_io(io);
    let cs = Cs::new(inst);
    let mut b = MipBuilder::for_run(&dl);
    let y: Vec<_> = (0..cs.n)
        .map(|s| b.add_as(variable().binary(), || format!("y[server {s}]")))
        .collect();
    let z: Vec<_> = (0..cs.n)
        .map(|r| b.add_as(variable().binary(), || format!("z[root {r}]")))
        .collect();
    let roots: Expression = z.iter().map(|c| c.var).sum();
    let mut cons: Vec<Constraint> = vec![constraint!(roots == 1.0).set_name("one_root".into())];
    for r in 0..cs.n {
        cons.push(constraint!(z[r].var <= y[r].var).set_name(format!("root_hosts_{r}")));
        for c in 0..cs.m {
            let cover: Expression = (0..cs.n)
                .filter(|&s| cs.fits(c, s, r))
                .map(|s| y[s].var)
                .sum();
            cons.push(constraint!(cover >= z[r].var).set_name(format!("cover_r{r}_c{c}")));
        }
    }
    let hosts: Expression = y.iter().map(|c| c.var).sum();
    let stage = Stage::new("reference-cs-hosts", "host count at the instance's bound").reference(
        "the engine proves the CS host count root by root (capped set covers, greedy \
         short-cuts); this single MILP over every root has the same optimum",
    );
    let _ = minimise(
        b,
        hosts,
        cons,
        None,
        &MipSettings::within(&dl, 0.999).stage(stage),
    );
}
