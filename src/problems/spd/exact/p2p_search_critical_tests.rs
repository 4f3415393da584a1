//! The critical pairs ([`super::critical`]) against brute force on tiny
//! instances with ties.

use super::bits::has;
use super::critical::Critical;
use super::*;
use crate::problems::spd::exact::p2p::tests::{exists, random_case};
use crate::problems::spd::exact::p2p::{allowed_pairs, pair_q};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Every assignment with at most `k` hosts within `lim` (brute force),
/// with its largest pair.
fn solutions(inst: &SpdInstance, lim: &Limits, k: usize) -> Vec<(Vec<usize>, f64)> {
    super::tests::all_solutions(inst, lim)
        .into_iter()
        .filter(|(_, hosts)| *hosts <= k)
        .map(|(assign, _)| {
            let sol = SpdSolution { root: None, assign };
            let (_, max) = crate::problems::spd::eval::p2p_pair_range(inst, &sol);
            (sol.assign, max)
        })
        .collect()
}

/// A random tiny case at its least largest pair `d` (with at most `k`
/// hosts, within the case's lower limit): the upper limit is `d`, `sols`
/// are the case's assignments with their largest pairs.
struct Case {
    inst: SpdInstance,
    lim: Limits,
    k: usize,
    sols: Vec<(Vec<usize>, f64)>,
    d: f64,
}

/// [`Case`] from [`random_case`]; `None` when nothing fits it.
fn least_delay_case(rng: &mut ChaCha8Rng, seed: u64) -> Option<Case> {
    let (inst, lim, k) = random_case(rng, seed, 7);
    let sols = solutions(&inst, &lim, k);
    let d = sols.iter().map(|s| s.1).min_by(f64::total_cmp)?;
    let lim = Limits { hi: d, ..lim };
    Some(Case {
        inst,
        lim,
        k,
        sols,
        d,
    })
}

/// The configurations of assignment `a` whose pair is `d`: its hosts'
/// tops (the last list position among its clients) across two hosts, or
/// a host's top and second.
fn configs_of(search: &Search, a: &[usize], d: f64) -> Vec<Critical> {
    let n = search.lists.len();
    let pos = |c: usize, u: usize| search.at[c * n + u];
    let mut by_host: Vec<Vec<u32>> = vec![Vec::new(); n];
    for (c, &u) in a.iter().enumerate() {
        assert_ne!(
            pos(c, u),
            u32::MAX,
            "the pair filter dropped ({c}, {u}) of {a:?}, {:?}, {:?}",
            search.lim,
            search.lists
        );
        by_host[u].push(pos(c, u));
    }
    by_host.iter_mut().for_each(|v| v.sort_unstable());
    let val = |u: usize, p: u32| search.val(u, p as usize);
    let mut out = Vec::new();
    for s in 0..n {
        let Some(&p) = by_host[s].last() else {
            continue;
        };
        if let Some(&q) = by_host[s].iter().rev().nth(1) {
            if pair_q(search.inst, s, val(s, p), s, val(s, q)) == d {
                let (s, t) = (s as u32, s as u32);
                out.push(Critical { s, p, t, q });
            }
        }
        for (t, on_t) in by_host.iter().enumerate().skip(s + 1) {
            let Some(&q) = on_t.last() else {
                continue;
            };
            if pair_q(search.inst, s, val(s, p), t, val(t, q)) == d {
                let (s, t) = (s as u32, t as u32);
                out.push(Critical { s, p, t, q });
            }
        }
    }
    out
}

/// At the least largest pair `d` over the assignments with at most `k`
/// hosts within a lower limit, every such assignment has a configuration
/// among the critical pairs whose root keeps it: each client is where the
/// assignment puts it, or open with that host's window holding it, or
/// placed by the free-client rule (which never hurts). And the split over
/// the critical pairs decides as brute force does, under `d` and under a
/// raised lower limit.
#[test]
fn critical_roots_keep_every_solution() {
    let mut rng = ChaCha8Rng::seed_from_u64(31);
    let (mut kept, mut decided) = (0, 0);
    for seed in 0..800 {
        let Some(Case {
            inst,
            lim,
            k,
            sols,
            d,
        }) = least_delay_case(&mut rng, seed)
        else {
            continue;
        };
        let lists = allowed_pairs(&inst, &lim).expect("a solution fits");
        let mut search = Search::new(&inst, lim, lists, Deadline::none()).expect("small");
        search.k = k;
        let critical = search.critical_pairs(d, usize::MAX).expect("no limit");
        let count = critical.len();
        if count > 0 {
            assert!(search.critical_pairs(d, count - 1).is_none());
        }
        for (a, _) in sols.iter().filter(|s| s.1 <= d) {
            let mine = configs_of(&search, a, d);
            assert!(!mine.is_empty(), "seed {seed}: no pair at the least delay");
            for cfg in mine {
                assert!(critical.contains(&cfg), "seed {seed}: {cfg:?} missing");
                let st = search.critical_root(cfg).expect("the solution fits it");
                for (c, &u) in a.iter().enumerate() {
                    let open = has(&st.open, c);
                    let at = search.at[c * inst.servers() + u] as usize;
                    let inside = (st.win[u].0..st.win[u].1).contains(&at);
                    let free = has(&st.free, c);
                    assert!(
                        st.assign[c] == u || (open && inside) || free,
                        "seed {seed}: {cfg:?} shuts client {c} out of server {u}"
                    );
                }
                kept += 1;
            }
        }
        // (raised only: no solution below `d` may appear)
        for lo in [lim.lo, lim.lo.max(d * rng.random_range(0.0..0.8))] {
            let lim = Limits { lo, ..lim };
            let Ok(lists) = allowed_pairs(&inst, &lim) else {
                continue;
            };
            let mut search = Search::new(&inst, lim, lists, Deadline::none()).expect("small");
            let threads = 1 + seed as usize % 3;
            let got = search.decide_critical(k, d, threads, None);
            let want = exists(&inst, &lim, k);
            match got {
                Probe::Feasible(sc) => {
                    assert!(want, "seed {seed}: found what brute force denies");
                    assert!(sc.metrics.hosts <= k && lim.fits(sc.metrics.delay));
                }
                Probe::Infeasible => assert!(!want, "seed {seed}: missed a solution, {lim:?}"),
                Probe::Unknown(why) => panic!("seed {seed}: {why}"),
            }
            decided += 1;
        }
    }
    assert!(
        kept > 300 && decided > 300,
        "{kept} roots, {decided} decisions"
    );
}

/// A passed deadline stops the critical pairs' enumeration (the split
/// then falls back to the whole tree, which looks at the deadline every
/// 256 nodes: a tiny search may still answer, and must answer right).
#[test]
fn critical_pairs_keep_the_deadline() {
    let mut rng = ChaCha8Rng::seed_from_u64(37);
    let mut tested = 0;
    for seed in 0..200 {
        let Some(Case {
            inst, lim, k, d, ..
        }) = least_delay_case(&mut rng, seed)
        else {
            continue;
        };
        let lists = allowed_pairs(&inst, &lim).expect("a solution fits");
        let dl = Deadline::after(Some(0.0));
        let mut search = Search::new(&inst, lim, lists, dl).expect("small");
        assert!(
            search.critical_pairs(d, usize::MAX).is_none(),
            "seed {seed}"
        );
        let answer = search.decide_critical(k, d, 2, None);
        assert!(
            !matches!(answer, Probe::Infeasible),
            "seed {seed}: refuted a feasible decision"
        );
        tested += 1;
    }
    assert!(tested > 50, "{tested}");
}
