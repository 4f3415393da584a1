//! The snapshot experiments of `repro ag`: generated scenario A and B
//! instances, each balanced once per engine and evaluated (Figs. 9–12,
//! the moved-players contrast, Tables 4–5).

use crate::app::ag::repro::{balance, cell, AgReproConfig, Balanced, Csv};
use crate::error::Result;
use crate::problems::ag::eval::P2pAgMetrics;
use crate::problems::ag::gamma::probability_of_disconnection;
use crate::problems::ag::gen::generate_ag;
use crate::problems::ag::model::{AgInstance, Dest};

/// The engines of Fig. 9 and the moved-players contrast.
pub const FIG9_ENGINES: [&str; 3] = ["classic", "hybrid", "exact"];

/// Every snapshot table, by file stem.
pub fn snapshots(cfg: &AgReproConfig) -> Result<Vec<(String, Csv)>> {
    let a = cfg.instance('a')?;
    let b = cfg.instance('b')?;
    let runs_a: Vec<Option<Balanced>> = FIG9_ENGINES
        .iter()
        .map(|e| balance(e, &a, &cfg.opts()))
        .collect();
    let mut out = vec![
        ("fig9".to_string(), fig9(&a, &runs_a)),
        ("moved".to_string(), moved(&runs_a)),
        ("fig10".to_string(), fig10(cfg)?),
    ];
    let hybrid_b = balance("hybrid", &b, &cfg.opts());
    let exact_b = balance("exact", &b, &cfg.opts());
    out.push(("fig11".into(), fig11(&b, &[&hybrid_b, &exact_b])));
    out.push(("fig12".into(), fig12(cfg, &b)));
    out.push((
        "table4".into(),
        qos(cfg, &b, &["hybrid", "exact-ll"], false),
    ));
    out.push((
        "table5".into(),
        qos(cfg, &b, &["hybrid-pd", "exact-pd"], true),
    ));
    Ok(out)
}

fn loads_cell(r: &Option<Balanced>, s: usize) -> String {
    r.as_ref()
        .map_or_else(String::new, |r| r.m.loads_after[s].to_string())
}

/// Fig. 9: load per server before and after each engine (scenario A).
pub fn fig9(a: &AgInstance, runs: &[Option<Balanced>]) -> Csv {
    let mut t = Csv::new(&[
        "server", "before", "classic", "hybrid", "exact", "max_load", "target",
    ]);
    let before = a.loads_before();
    for (s, b) in before.iter().enumerate() {
        let mut row = vec![(s + 1).to_string(), b.to_string()];
        row.extend(runs.iter().map(|r| loads_cell(r, s)));
        row.push(a.max_load[s].to_string());
        row.push(a.target(s).to_string());
        t.push(row);
    }
    t
}

/// The moved-players contrast (paper: 1,337 classic vs 4,100 hybrid).
pub fn moved(runs: &[Option<Balanced>]) -> Csv {
    let mut t = Csv::new(&[
        "engine",
        "players_moved",
        "ags_moved",
        "ags_split",
        "main_moved",
        "overhead",
        "max_load",
        "overloaded_after",
        "over_target_after",
        "excess",
    ]);
    for r in runs.iter().flatten() {
        let m = &r.m;
        t.push(vec![
            r.engine.clone(),
            m.players_moved.to_string(),
            m.ags_moved.to_string(),
            m.ags_split.to_string(),
            m.main_moved.to_string(),
            cell(m.overhead_total),
            m.max_load.to_string(),
            m.overloaded_after.to_string(),
            m.over_target_after.to_string(),
            m.excess.to_string(),
        ]);
    }
    t
}

/// Scenario A's hot-spot with `extra` players over `max_load` on server 0:
/// the even scenario A instance at 70% load with whole AGs (then main-game
/// players) of the other servers moved into region 0 until server 0 holds
/// `max_load + extra`.
pub fn hotspot(cfg: &AgReproConfig, extra: u64) -> Result<AgInstance> {
    let mut g = cfg.gen('a');
    g.load = Some(0.7);
    g.spread = Some(0.0);
    let mut inst = generate_ag(&g)?;
    inst.name = format!("ag-hotspot-{extra}-s{}", cfg.seed);
    let want = inst.max_load[0] + extra;
    let mut load = inst.loads_before()[0];
    let (w, h) = (
        inst.map.width / inst.map.cols as f64,
        inst.map.height / inst.map.rows as f64,
    );
    for a in 0..inst.ags() {
        let size = inst.members[a].len() as u64;
        if inst.ag_server(a) == 0 || load + size > want {
            continue;
        }
        for &p in &inst.members[a] {
            inst.server[p] = 0;
            inst.x[p] = inst.x[p].rem_euclid(w);
            inst.y[p] = inst.y[p].rem_euclid(h);
        }
        load += size;
    }
    for p in 0..inst.players() {
        if load >= want {
            break;
        }
        if inst.ag[p].is_none() && inst.server[p] != 0 {
            inst.server[p] = 0;
            inst.x[p] = inst.x[p].rem_euclid(w);
            inst.y[p] = inst.y[p].rem_euclid(h);
            load += 1;
        }
    }
    Ok(inst)
}

/// The extra players of Fig. 10 (paper: 100 to 1,000), scaled.
pub fn extras(cfg: &AgReproConfig) -> Vec<u64> {
    (1..=10).map(|i| cfg.scaled(100 * i).max(1)).collect()
}

fn total(engine: &str, inst: &AgInstance, cfg: &AgReproConfig) -> String {
    balance(engine, inst, &cfg.opts()).map_or_else(String::new, |r| cell(r.m.overhead_total))
}

/// Fig. 10: messages (Table 1) vs extra players, I = 10%, F = 20 and 25.
pub fn fig10(cfg: &AgReproConfig) -> Result<Csv> {
    let mut t = Csv::new(&[
        "extra",
        "classic_f20",
        "classic_f25",
        "hybrid",
        "exact",
        "hybrid_moved",
        "classic_moved",
    ]);
    for e in extras(cfg) {
        let mut inst = hotspot(cfg, e)?;
        let mut row = vec![e.to_string()];
        for f in [20.0, 25.0] {
            inst.overhead.rate = f;
            row.push(total("classic", &inst, cfg));
        }
        inst.overhead.rate = 20.0;
        row.push(total("hybrid", &inst, cfg));
        row.push(total("exact", &inst, cfg));
        for engine in ["hybrid", "classic"] {
            let m = balance(engine, &inst, &cfg.opts());
            row.push(m.map_or_else(String::new, |r| r.m.players_moved.to_string()));
        }
        t.push(row);
    }
    Ok(t)
}

/// Players of server `s` (before) the solution sends to P2P.
fn sent(b: &AgInstance, r: &Balanced, s: usize) -> u64 {
    (0..b.players())
        .filter(|&p| b.server[p] == s && !matches!(r.sol.assign[p], Some(Dest::Server(_))))
        .count() as u64
}

/// Fig. 11: per server, players kept vs sent to P2P (scenario B).
pub fn fig11(b: &AgInstance, runs: &[&Option<Balanced>]) -> Csv {
    let mut t = Csv::new(&[
        "server",
        "before",
        "hybrid_kept",
        "hybrid_p2p",
        "exact_kept",
        "exact_p2p",
        "target",
    ]);
    let before = b.loads_before();
    for (s, l) in before.iter().enumerate() {
        let mut row = vec![(s + 1).to_string(), l.to_string()];
        for r in runs {
            match r {
                Some(r) => {
                    row.push(r.m.loads_after[s].to_string());
                    row.push(sent(b, r, s).to_string());
                }
                None => row.extend([String::new(), String::new()]),
            }
        }
        row.push(b.target(s).to_string());
        t.push(row);
    }
    t
}

/// The paper's message size, bytes (seed 004 §5.2).
pub const MESSAGE_BYTES: f64 = 141.0;

/// Fig. 12: Table 2's overhead vs the return rate (scenario B), with the
/// bandwidth per overloaded server at 141-byte messages.
pub fn fig12(cfg: &AgReproConfig, b: &AgInstance) -> Csv {
    let mut t = Csv::new(&["return_rate", "hybrid", "exact", "hybrid_kb_per_server"]);
    let over = b
        .loads_before()
        .iter()
        .zip(&b.max_load)
        .filter(|(l, m)| l > m)
        .count()
        .max(1);
    for i in 0..=4 {
        let rr = i as f64 * 0.25;
        let mut inst = b.clone();
        inst.overhead.return_rate = rr;
        let h = balance("hybrid", &inst, &cfg.opts());
        let kb = h.as_ref().map_or_else(String::new, |h| {
            cell(h.m.overhead_total * MESSAGE_BYTES / 1000.0 / over as f64)
        });
        let hm = h.map_or_else(String::new, |h| cell(h.m.overhead_total));
        t.push(vec![cell(rr), hm, total("exact", &inst, cfg), kb]);
    }
    t
}

fn mean(v: &[f64]) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    v.iter().sum::<f64>() / v.len() as f64
}

/// Table 4's columns after the row label, engine, size and AG count.
const TABLE4: [&str; 4] = ["p2p_latency", "p2p_sd", "cs_latency", "cs_over_p2p_pct"];
/// Table 5's.
const TABLE5: [&str; 4] = ["pd_s", "pd_rs", "failure_mean", "failure_max"];

/// One row's measures over `ags` (Table 5 when `pd`, else Table 4).
fn qos_cells(ags: &[&P2pAgMetrics], pd: bool) -> Vec<f64> {
    let col = |f: &dyn Fn(&P2pAgMetrics) -> f64| ags.iter().map(|a| f(a)).collect::<Vec<f64>>();
    if pd {
        let fail = col(&|a| a.failure);
        vec![
            mean(&col(&|a| probability_of_disconnection(a.s_uptime_min))),
            mean(&col(&|a| probability_of_disconnection(a.rs_uptime_min))),
            mean(&fail),
            fail.iter().copied().fold(f64::NAN, f64::max),
        ]
    } else {
        let (p, c) = (
            mean(&col(&|a| a.latency_mean)),
            mean(&col(&|a| a.cs_latency_mean)),
        );
        vec![p, mean(&col(&|a| a.latency_sd)), c, 100.0 * (c / p - 1.0)]
    }
}

/// Table 4 (`pd = false`: latency of S vs the cluster) or Table 5 (`pd =
/// true`: failure likelihood of S, RS and the AG) per engine and AG size
/// (5, 10 and all) on scenario B's P2P AGs.
pub fn qos(cfg: &AgReproConfig, b: &AgInstance, engines: &[&str], pd: bool) -> Csv {
    let mut head = vec!["row", "engine", "size", "ags"];
    head.extend(if pd { TABLE5 } else { TABLE4 });
    let mut t = Csv::new(&head);
    for e in engines {
        let Some(r) = balance(e, b, &cfg.opts()) else {
            continue;
        };
        for size in [Some(5usize), Some(10), None] {
            let ags: Vec<&P2pAgMetrics> =
                r.m.p2p_ags
                    .iter()
                    .filter(|a| size.is_none_or(|z| a.size == z))
                    .collect();
            let label = size.map_or("all".to_string(), |z| z.to_string());
            let mut row = vec![
                format!("{e}/{label}"),
                e.to_string(),
                label,
                ags.len().to_string(),
            ];
            row.extend(qos_cells(&ags, pd).into_iter().map(cell));
            t.push(row);
        }
    }
    t
}
