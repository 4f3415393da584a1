//! `exact` for P2P with one or two hosts, by enumeration (exact, and far
//! faster than the MILP on the paper's instances, where `k* <= 2` is common).
//!
//! * One host `s`: every client on `s`; its distinct pairs are checked through
//!   the two largest and two smallest access latencies. `O(n · m log m)`.
//! * Two hosts `{s, t}`: each client picks `s` (true) or `t` (false); every
//!   pair of choices of two clients that breaks the limits is a 2-clause, so
//!   the test is 2-SAT (implication graph, strongly connected components,
//!   `O(m²)` per host pair, `O(n² · m²)` in all).

use crate::problems::spd::exact::p2p::{pair_q, Limits};
use crate::problems::spd::exact::{score, Deadline, Probe};
use crate::problems::spd::model::{SpdInstance, SpdSolution};

/// A solution with one host whose pairs fit `lim`, if any.
pub(crate) fn single_host(inst: &SpdInstance, lim: &Limits) -> Probe {
    let m = inst.clients();
    if m < 2 {
        return Probe::Unknown("a single client has no pair".into());
    }
    for s in 0..inst.servers() {
        let mut acc: Vec<f64> = (0..m).map(|c| inst.access(c, s)).collect();
        if acc.iter().any(|a| !a.is_finite()) {
            continue;
        }
        acc.sort_unstable_by(f64::total_cmp);
        if lim.fits(acc[m - 1] + acc[m - 2]) && lim.fits(acc[0] + acc[1]) {
            let sol = SpdSolution {
                root: None,
                assign: vec![s; m],
            };
            if let Some(sc) = score(inst, sol) {
                return Probe::Feasible(sc);
            }
        }
    }
    Probe::Infeasible
}

/// A solution with at most two hosts whose pairs fit `lim`, if any.
pub(crate) fn at_most_two_hosts(inst: &SpdInstance, lim: &Limits, dl: &Deadline) -> Probe {
    match single_host(inst, lim) {
        Probe::Infeasible => {}
        other => return other,
    }
    let n = inst.servers();
    for s in 0..n {
        for t in s + 1..n {
            if dl.expired() {
                return Probe::Unknown("the deadline was hit".into());
            }
            if let Some(assign) = two_hosts(inst, lim, s, t) {
                if let Some(sc) = score(inst, SpdSolution { root: None, assign }) {
                    return Probe::Feasible(sc);
                }
            }
        }
    }
    Probe::Infeasible
}

/// 2-SAT on hosts `s < t`: literal `2c` = "client `c` on `s`", `2c + 1` =
/// "client `c` on `t`". Returns an assignment using only `s` and `t`.
fn two_hosts(inst: &SpdInstance, lim: &Limits, s: usize, t: usize) -> Option<Vec<usize>> {
    let m = inst.clients();
    let hosts = [s, t];
    let acc: Vec<[f64; 2]> = (0..m)
        .map(|c| [inst.access(c, s), inst.access(c, t)])
        .collect();
    if acc.iter().any(|a| !a[0].is_finite() && !a[1].is_finite()) {
        return None;
    }
    let mut graph = vec![Vec::new(); 2 * m];
    // forbid "c on side x" outright: x → ¬x
    for (c, a) in acc.iter().enumerate() {
        for x in 0..2 {
            if !a[x].is_finite() {
                graph[2 * c + x].push(2 * c + (1 - x));
            }
        }
    }
    for i in 0..m {
        for j in i + 1..m {
            for x in 0..2 {
                for y in 0..2 {
                    let (ai, aj) = (acc[i][x], acc[j][y]);
                    if !ai.is_finite() || !aj.is_finite() {
                        continue;
                    }
                    if !lim.fits(pair_q(inst, hosts[x], ai, hosts[y], aj)) {
                        // ¬(i on x ∧ j on y): (i on x) → (j on ¬y), (j on y) → (i on ¬x)
                        graph[2 * i + x].push(2 * j + (1 - y));
                        graph[2 * j + y].push(2 * i + (1 - x));
                    }
                }
            }
        }
    }
    let comp = tarjan_scc(&graph);
    let mut assign = Vec::with_capacity(m);
    for c in 0..m {
        let (on_s, on_t) = (comp[2 * c], comp[2 * c + 1]);
        if on_s == on_t {
            return None;
        }
        // Tarjan numbers components in reverse topological order: take the
        // literal whose component comes later in topological order.
        assign.push(if on_s < on_t { s } else { t });
    }
    Some(assign)
}

/// Strongly connected components (iterative Tarjan); `comp[v]` numbers the
/// components in reverse topological order of the condensation.
fn tarjan_scc(graph: &[Vec<usize>]) -> Vec<usize> {
    let n = graph.len();
    let (mut index, mut low) = (vec![usize::MAX; n], vec![0; n]);
    let (mut on_stack, mut stack) = (vec![false; n], Vec::new());
    let mut comp = vec![usize::MAX; n];
    let (mut next, mut comps) = (0, 0);
    for root in 0..n {
        if index[root] != usize::MAX {
            continue;
        }
        let mut call: Vec<(usize, usize)> = vec![(root, 0)];
        while let Some(&mut (v, ref mut pos)) = call.last_mut() {
            if *pos == 0 {
                index[v] = next;
                low[v] = next;
                next += 1;
                stack.push(v);
                on_stack[v] = true;
            }
            if let Some(&w) = graph[v].get(*pos) {
                *pos += 1;
                if index[w] == usize::MAX {
                    call.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            call.pop();
            if let Some(&(u, _)) = call.last() {
                low[u] = low[u].min(low[v]);
            }
            if low[v] == index[v] {
                while let Some(w) = stack.pop() {
                    on_stack[w] = false;
                    comp[w] = comps;
                    if w == v {
                        break;
                    }
                }
                comps += 1;
            }
        }
    }
    comp
}

#[cfg(test)]
mod tests {
    use super::tarjan_scc;

    #[test]
    fn scc_of_a_cycle_and_a_tail() {
        // 0 → 1 → 2 → 0, 2 → 3
        let g = vec![vec![1], vec![2], vec![0, 3], vec![]];
        let c = tarjan_scc(&g);
        assert_eq!(c[0], c[1]);
        assert_eq!(c[1], c[2]);
        assert_ne!(c[2], c[3]);
        // the sink {3} is found first
        assert!(c[3] < c[0]);
    }
}
