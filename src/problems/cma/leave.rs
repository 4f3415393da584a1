//! CMA-L, the leave algorithms of Webb & Soh (seed 002 §3.2, Fig. 2).
//!
//! - [`l_ignore`] — L-ignore (the status quo of the paper's refs \[4,12\]):
//!   remove the leaver, nobody moves. `O(1)`.
//! - [`l_greedy`] — L-greedy: after a leave from a full mirror `j`, move in
//!   the client with the largest delay reduction, then fill the hole it left,
//!   until no client gains or the vacated mirror was not full. `O(nk)` worst
//!   case (one `O(n)` scan per step). The paper's `b = d(m,k) − d(m,j)` with
//!   "stop if `b >= 0`" has its sign inverted; problems.md's reading is used:
//!   stop when the best change `d(m,j) − d(m,k)` is `>= 0`.
//! - [`l_sa`] — L-SA, incremental: after a leave from a full mirror, the most
//!   negative chain of moves into the freed slot by Dijkstra with potentials
//!   on [`MoveGraph`]; applied when negative. `O(k² + s·m·k + L·k)` as for
//!   J-SA; skipped
//!   in `O(1)` when `j`'s price `π_t − π_j` is 0 (no chain can gain).
//! - [`l_sa_rebuild`] — L-SA as published: rebuild `MC`/`MP` (`O(nk)`), then
//!   the label-correcting loop over every mirror (labels `(0,−)` for mirrors
//!   with room, `(∞,−)` for full ones); follow `Label`/`MP` from the least
//!   label when it is negative. (Fig. 2's loop `t = Label[f]` is read as
//!   "follow `Label[f].mirror` until a label with no next mirror".)

use crate::error::{Error, Result};
use crate::problems::cma::join::{correct_labels, generate_mc_mp, Label};
use crate::problems::cma::model::{CmaInstance, CmaState};
use crate::problems::cma::moves::MoveGraph;

fn absent(i: usize) -> Error {
    Error::Usage(format!("client {i} leaves but is not present"))
}

/// L-ignore. Returns the number of transfers (0).
pub fn l_ignore(state: &mut CmaState, i: usize) -> Result<usize> {
    state.leave(i).ok_or_else(|| absent(i))?;
    Ok(0)
}

/// L-greedy. Returns the number of transfers.
pub fn l_greedy(inst: &CmaInstance, state: &mut CmaState, i: usize) -> Result<usize> {
    let j0 = state.mirror_of(i).ok_or_else(|| absent(i))?;
    let was_full = state.loads()[j0] >= inst.capacity[j0];
    state.leave(i);
    if !was_full {
        return Ok(0);
    }
    let mut j = j0;
    let mut moves = 0;
    loop {
        let mut best: Option<(f64, usize)> = None;
        for &m in state.present() {
            let Some(u) = state.mirror_of(m) else {
                continue;
            };
            if u == j {
                continue;
            }
            let change = inst.delay(m, j) - inst.delay(m, u);
            let better = match best {
                None => true,
                Some((b, bm)) => change < b || (change == b && m < bm),
            };
            if better {
                best = Some((change, m));
            }
        }
        let Some((change, m)) = best else { break };
        if change >= 0.0 {
            break;
        }
        let Some(k) = state.mirror_of(m) else { break };
        let k_was_full = state.loads()[k] >= inst.capacity[k];
        state.move_to(m, j);
        moves += 1;
        if !k_was_full || moves > state.present().len() {
            break;
        }
        j = k;
    }
    Ok(moves)
}

/// L-SA, incremental. Returns the number of transfers.
pub fn l_sa(g: &mut MoveGraph<'_>, i: usize) -> Result<usize> {
    let j = g.mirror_of(i).ok_or_else(|| absent(i))?;
    let was_full = !g.has_room(j);
    g.remove(i);
    if !was_full {
        g.normalise();
        return Ok(0);
    }
    let inst = g.instance();
    let k = inst.mirrors();
    // A chain into j gains at most p_j = π_t − π_j (reduced costs >= 0).
    if g.potentials()[k] - g.potentials()[j] <= inst.tolerance() {
        g.normalise();
        return Ok(0);
    }
    let mut s = g.take_search();
    s.dist[k] = 0.0;
    let (pot_t, pot_j) = (g.potentials()[k], g.potentials()[j]);
    g.search(&mut s, j, true);
    let gain = if s.reached {
        s.dist[j] - pot_t + pot_j
    } else {
        f64::INFINITY
    };
    g.update_potentials(&s, j);
    let mut moves = 0;
    if gain < -inst.tolerance() {
        let path = g.path(&s, j);
        g.restore(s);
        moves = g.apply_chain(&path)?;
    } else {
        g.restore(s);
    }
    g.normalise();
    Ok(moves)
}

/// L-SA as published, rebuilding `MC`/`MP` per leave. Returns the number of
/// transfers.
pub fn l_sa_rebuild(inst: &CmaInstance, state: &mut CmaState, i: usize) -> Result<usize> {
    let k = inst.mirrors();
    let j = state.mirror_of(i).ok_or_else(|| absent(i))?;
    let was_full = state.loads()[j] >= inst.capacity[j];
    state.leave(i);
    if !was_full {
        return Ok(0);
    }
    let tables = generate_mc_mp(inst, state);
    let full = |m: usize| state.loads()[m] >= inst.capacity[m];
    let mut labels: Vec<Label> = (0..k)
        .map(|m| Label {
            delay: if full(m) { f64::INFINITY } else { 0.0 },
            mirror: None,
        })
        .collect();
    correct_labels(k, inst.tolerance(), &tables, &mut labels, |m| {
        inst.capacity[m] > 0
    })?;
    let mut f = 0;
    for m in 1..k {
        if labels[m].delay < labels[f].delay {
            f = m;
        }
    }
    if labels[f].delay >= -inst.tolerance() {
        return Ok(0);
    }
    let mut moves = 0;
    while let Some(t) = labels[f].mirror {
        if moves > k {
            return Err(Error::Solver("L-SA chain does not end".into()));
        }
        state.move_to(tables.mp[f * k + t], t);
        moves += 1;
        f = t;
    }
    Ok(moves)
}
