//! Static CMA: exact-flow = LP = brute force, certificates, infeasibility,
//! resources → capacity, and invalid input.

use proptest::prelude::*;
use serverpick::core::SolveOptions;
use serverpick::core::Status;
use serverpick::problems::cma::engines::run_cma;
use serverpick::problems::cma::exact_flow::{residual_negative_cycle, solve_exact_flow};
use serverpick::problems::cma::file::{parse_cma, read_cma};
use serverpick::problems::cma::model::CmaInstance;
use serverpick::Error;
use std::path::Path;

fn brute_force(inst: &CmaInstance) -> Option<f64> {
    let (n, k) = (inst.clients(), inst.mirrors());
    let mut best: Option<f64> = None;
    let mut assign = vec![0usize; n];
    loop {
        let mut load = vec![0usize; k];
        let mut ok = true;
        let mut total = 0.0;
        for (i, &j) in assign.iter().enumerate() {
            load[j] += 1;
            ok &= load[j] <= inst.capacity[j];
            total += inst.delay(i, j);
        }
        if ok && best.is_none_or(|b| total < b) {
            best = Some(total);
        }
        let mut p = 0;
        loop {
            if p == n {
                return best;
            }
            assign[p] += 1;
            if assign[p] < k {
                break;
            }
            assign[p] = 0;
            p += 1;
        }
    }
}

fn some(assign: &[usize]) -> Vec<Option<usize>> {
    assign.iter().map(|&j| Some(j)).collect()
}

fn inst_strategy(max_n: usize, max_k: usize, ints: bool) -> impl Strategy<Value = CmaInstance> {
    (1..=max_n, 1..=max_k).prop_flat_map(move |(n, k)| {
        let cell = if ints {
            (0u32..12).prop_map(f64::from).boxed()
        } else {
            (0.0f64..100.0).boxed()
        };
        (
            prop::collection::vec(0usize..=n, k),
            prop::collection::vec(cell, n * k),
        )
            .prop_map(move |(cap, delay)| CmaInstance::new("p", cap, delay).unwrap())
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn exact_flow_equals_lp_and_brute_force(inst in inst_strategy(6, 3, true)) {
        let opts = SolveOptions::default();
        let flow = run_cma("exact-flow", &inst, &opts);
        let lp = run_cma("exact", &inst, &opts);
        match brute_force(&inst) {
            None => {
                prop_assert_eq!(flow.status, Status::Infeasible);
                prop_assert_eq!(lp.status, Status::Infeasible);
            }
            Some(best) => {
                prop_assert_eq!(flow.status, Status::Optimal, "{:?}", flow.message);
                prop_assert_eq!(lp.status, Status::Optimal, "{:?}", lp.message);
                prop_assert!((flow.objective.unwrap() - best).abs() < 1e-9);
                prop_assert!((lp.objective.unwrap() - best).abs() < 1e-6);
                prop_assert!(flow.bound.unwrap() <= best + 1e-9);
                prop_assert!(flow.gap.unwrap() < 1e-9);
            }
        }
    }

    #[test]
    fn exact_flow_is_certified_on_larger_instances(inst in inst_strategy(60, 6, false)) {
        if let Some((assign, bound)) = solve_exact_flow(&inst).unwrap() {
            prop_assert!(residual_negative_cycle(&inst, &some(&assign)).is_none());
            let total: f64 = assign.iter().enumerate().map(|(i, &j)| inst.delay(i, j)).sum();
            prop_assert!((total - bound).abs() <= 1e-7 * total.max(1.0), "{total} vs {bound}");
            let js = run_cma("j-sa", &inst, &SolveOptions::default());
            prop_assert!((js.objective.unwrap() - total).abs() <= 1e-7 * total.max(1.0));
            // J-SA's optimality claim carries its certificate (issue 16).
            prop_assert_eq!(js.status, Status::Optimal);
            prop_assert!(js.bound.is_some() && js.gap.unwrap() < 1e-6, "{:?}", js.bound);
            let greedy = run_cma("j-greedy", &inst, &SolveOptions::default());
            prop_assert!(greedy.objective.unwrap() >= total - 1e-7 * total.max(1.0));
        } else {
            prop_assert!(inst.clients() > inst.total_capacity());
        }
    }

    #[test]
    fn exact_flow_matches_lp_with_many_ties(inst in inst_strategy(40, 5, true)) {
        let opts = SolveOptions::default();
        let flow = run_cma("exact-flow", &inst, &opts);
        let lp = run_cma("exact", &inst, &opts);
        prop_assert_eq!(flow.status, lp.status);
        if flow.status == Status::Optimal {
            prop_assert!((flow.objective.unwrap() - lp.objective.unwrap()).abs() < 1e-6);
        }
    }
}

#[test]
fn greedy_can_be_suboptimal_and_the_certificate_sees_it() {
    let inst = read_cma(Path::new("instances/cma-small.json")).unwrap();
    let opts = SolveOptions::default();
    let flow = run_cma("exact-flow", &inst, &opts);
    let greedy = run_cma("j-greedy", &inst, &opts);
    assert_eq!(flow.status, Status::Optimal);
    assert_eq!(greedy.status, Status::Feasible);
    assert!(greedy.objective.unwrap() > flow.objective.unwrap());
    let assign: Vec<usize> =
        serde_json::from_value(greedy.solution.unwrap()["assign"].clone()).unwrap();
    assert!(residual_negative_cycle(&inst, &some(&assign)).is_some());
}

#[test]
fn more_clients_than_capacity_is_infeasible_for_every_engine() {
    let inst = CmaInstance::new("x", vec![1, 1], vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]).unwrap();
    for engine in ["exact-flow", "exact", "j-greedy", "j-sa"] {
        let r = run_cma(engine, &inst, &SolveOptions::default());
        assert_eq!(r.status, Status::Infeasible, "{engine}: {:?}", r.message);
        assert!(r.solution.is_none());
    }
}

#[test]
fn unknown_engine_is_an_error_record() {
    let inst = read_cma(Path::new("instances/cma-small.json")).unwrap();
    let r = run_cma("nope", &inst, &SolveOptions::default());
    assert_eq!(r.status, Status::Error);
    assert!(r.message.unwrap().contains("exact-flow"));
}

#[test]
fn capacities_are_derived_from_resources() {
    let text = r#"{"problem": "cma", "version": 1, "mirrors": 3,
        "resources": {"bandwidth": [100, 0.3, 1000], "cpu": [1000, 1000, 40], "b": 0.1, "ls": 10, "lc": 2},
        "delay": [[1,2,3],[1,2,3],[1,2,3],[1,2,3]]}"#;
    let inst = parse_cma(text, "r.json", Path::new(".")).unwrap();
    // n = 4: mirror 0 min(1000, (1000-40)/2 = 480) → capped at 4;
    // mirror 1: min(3, 480) = 3; mirror 2: (40 - 40)/2 = 0.
    assert_eq!(inst.capacity, vec![4, 3, 0]);
    let text = text.replace("\"cpu\": [1000, 1000, 40]", "\"cpu\": [1000, 1000, 10]");
    let inst = parse_cma(&text, "r.json", Path::new(".")).unwrap();
    assert_eq!(inst.capacity[2], 0, "negative capacity → 0");
}

fn input_error(text: &str) -> (String, String) {
    match parse_cma(text, "bad.json", Path::new(".")) {
        Err(Error::Input(e)) => {
            assert_eq!(e.file, "bad.json");
            (e.field, e.message)
        }
        other => panic!("expected an input error, got {other:?}"),
    }
}

#[test]
fn invalid_input_names_file_field_and_index() {
    let base = r#"{"problem": "cma", "version": 1, "mirrors": 2, "capacity": [2, 2],
        "delay": [[1, 2], [3, 4], [5, 6]] EXTRA}"#;
    let with = |extra: &str| base.replace(" EXTRA", extra);
    let base = with("");
    let cases: Vec<(String, &str, &str)> = vec![
        (base.replace("[3, 4]", "[3]"), "delay[1]", "expected 2"),
        (base.replace("[3, 4]", "[3, null]"), "delay[1][1]", "null"),
        (base.replace("[3, 4]", "[3, -1]"), "delay[1][1]", "latency"),
        (base.replace("[2, 2]", "[2, -1]"), "capacity[1]", "integer"),
        (base.replace("[2, 2]", "[2]"), "capacity", "expected 2"),
        (
            with(r#", "events": [{"join": 0}, {"join": 0}]"#),
            "events[1]",
            "already present",
        ),
        (
            with(r#", "events": [{"leave": 1}]"#),
            "events[0]",
            "not present",
        ),
        (
            with(r#", "events": [{"join": 7}]"#),
            "events[0].join",
            "client row",
        ),
        (
            with(r#", "events": [{"jump": 1}]"#),
            "events[0].jump",
            "unknown event",
        ),
        (
            with(r#", "start": {"assign": [0, 5, null]}"#),
            "start.assign[1]",
            "mirror index",
        ),
        (
            with(r#", "start": {"assign": [0, 0]}"#),
            "start.assign",
            "expected 3",
        ),
        (
            with(r#", "start": {"assign": [0, 0, 0]}"#),
            "start.assign[2]",
            "capacity",
        ),
        (
            with(r#", "resources": {"bandwidth": [1,1], "cpu": [1,1], "b": 1, "ls": 0, "lc": 1}"#),
            "capacity",
            "exactly one",
        ),
    ];
    for (text, field, msg) in cases {
        let (f, m) = input_error(&text);
        assert_eq!(f, field, "{text}");
        assert!(m.contains(msg), "{field}: {m}");
    }
    let over = r#"{"problem": "cma", "version": 1, "mirrors": 1, "capacity": [1],
        "delay": [[1], [2]], "events": [{"join": 0}, {"join": 1}]}"#;
    let (f, m) = input_error(over);
    assert_eq!(f, "events[1]");
    assert!(m.contains("total capacity"), "{m}");
    let (f, m) = input_error(&base.replace("\"capacity\"", "\"capcity\": [1, 1], \"capacity\""));
    // serde_path_to_error names the unknown key as the field.
    assert_eq!(f, "capcity");
    assert!(m.contains("unknown field"), "{m}");
    let bad_res = r#"{"problem": "cma", "version": 1, "mirrors": 1,
        "resources": {"bandwidth": [1], "cpu": [1], "b": 0, "ls": 0, "lc": 1}, "delay": [[1]]}"#;
    assert_eq!(input_error(bad_res).0, "resources.b");
}

#[test]
fn fixture_files_read_through_the_dispatcher() {
    for f in ["instances/cma-paper-fig3.json", "instances/cma-small.json"] {
        let inst = serverpick::problems::read_instance(Path::new(f)).unwrap();
        assert_eq!(inst.problem(), "cma", "{f}");
        assert!(
            inst.as_any().is::<serverpick::problems::cma::Instance>(),
            "{f}"
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// The sampled price estimate and the start's parallel chunks (both
    /// forced on small instances here) change only the start, never the
    /// optimum, and leave no negative cycle.
    #[test]
    fn sampled_start_gives_the_same_optimum(inst in inst_strategy(400, 6, true), from in 16usize..120, chunk in 1usize..150) {
        use serverpick::problems::cma::exact_flow::{exact_flow_graph, exact_flow_graph_tuned, FlowTuning};
        let clients: Vec<usize> = (0..inst.clients()).collect();
        let plain = exact_flow_graph(&inst, &clients).unwrap();
        let tuning = FlowTuning { sample_from: from, min_chunk: chunk, ..FlowTuning::default() };
        let sampled = exact_flow_graph_tuned(&inst, &clients, tuning).unwrap();
        match (plain, sampled) {
            (None, None) => {}
            (Some(a), Some(b)) => {
                let total = |g: &serverpick::problems::cma::moves::MoveGraph<'_>| -> f64 {
                    clients.iter().map(|&i| inst.delay(i, g.mirror_of(i).unwrap())).sum()
                };
                let ca = residual_negative_cycle(&inst, &a.assignment());
                let cb = residual_negative_cycle(&inst, &b.assignment());
                prop_assert!((total(&a) - total(&b)).abs() < 1e-7, "plain {} {:?} sampled {} {:?} n {} from {}", total(&a), ca, total(&b), cb, inst.clients(), from);
                let assign = b.assignment();
                prop_assert!(residual_negative_cycle(&inst, &assign).is_none());
                let ev = serverpick::problems::cma::eval::evaluate_cma(&inst, &assign, 100.0);
                prop_assert!(ev.is_feasible(), "{:?}", ev.violations);
            }
            _ => prop_assert!(false, "feasibility differs"),
        }
    }
}

/// Instances whose rows are shifts of a few base rows (integer base
/// delays: many ties; shifts in quarters), one row in five of its own.
fn shifted_strategy(max_n: usize, max_k: usize) -> impl Strategy<Value = CmaInstance> {
    (1..=max_n, 1..=max_k, 1usize..5).prop_flat_map(|(n, k, bases)| {
        (
            prop::collection::vec(0usize..=n, k),
            prop::collection::vec(0u32..12, bases * k),
            prop::collection::vec((0..bases, 0u32..24, 0u32..5), n),
            prop::collection::vec(0.0f64..50.0, n * k),
        )
            .prop_map(move |(cap, base, rows, own)| {
                let mut delay = Vec::with_capacity(n * k);
                for (i, &(b, shift, kind)) in rows.iter().enumerate() {
                    for j in 0..k {
                        delay.push(if kind == 0 {
                            own[i * k + j]
                        } else {
                            f64::from(base[b * k + j]) + f64::from(shift) / 4.0
                        });
                    }
                }
                CmaInstance::new("shifted", cap, delay).unwrap()
            })
    })
}

/// `exact-flow` always through the shift classes (every size, any count).
fn classes_always() -> serverpick::problems::cma::exact_flow::FlowTuning {
    serverpick::problems::cma::exact_flow::FlowTuning {
        classes_from: 0,
        class_share: 1,
        ..Default::default()
    }
}

/// `exact-flow` never through the shift classes.
fn rows_only() -> serverpick::problems::cma::exact_flow::FlowTuning {
    serverpick::problems::cma::exact_flow::FlowTuning {
        classes_from: usize::MAX,
        ..Default::default()
    }
}

fn total_delay(inst: &CmaInstance, assign: &[usize]) -> f64 {
    assign
        .iter()
        .enumerate()
        .map(|(i, &j)| inst.delay(i, j))
        .sum()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    /// Through the classes on tiny instances: brute force's optimum, a
    /// certificate equal to it, and no negative cycle.
    #[test]
    fn classes_equal_brute_force(inst in shifted_strategy(7, 3)) {
        use serverpick::problems::cma::exact_flow::solve_exact_flow_tuned;
        let found = solve_exact_flow_tuned(&inst, classes_always()).unwrap();
        match (brute_force(&inst), found) {
            (None, None) => {}
            (Some(best), Some((assign, bound))) => {
                let total = total_delay(&inst, &assign);
                prop_assert!((total - best).abs() < 1e-9, "{total} vs {best}");
                prop_assert!((bound - best).abs() < 1e-9, "bound {bound} vs {best}");
                prop_assert!(residual_negative_cycle(&inst, &some(&assign)).is_none());
            }
            (best, found) => prop_assert!(false, "brute force {best:?}, classes {found:?}"),
        }
    }

    /// The class path itself (no fallback) on larger instances with many
    /// shifted rows and ties: the row path's and the LP's optimum, loads
    /// within capacity, and the bound of its prices equal to it.
    #[test]
    fn classes_equal_rows_and_lp(inst in shifted_strategy(80, 6)) {
        use serverpick::problems::cma::class_rows::solve_rows_by_classes;
        use serverpick::problems::cma::exact_flow::solve_exact_flow_tuned;
        let rows = solve_exact_flow_tuned(&inst, rows_only()).unwrap();
        let classes = solve_rows_by_classes(&inst, 1).unwrap();
        match (rows, classes) {
            (None, None) => prop_assert!(inst.clients() > inst.total_capacity()),
            (Some((a, _)), Some(c)) => {
                let (b, prices, bound) = (c.solution, c.prices, c.bound);
                let (ta, tb) = (total_delay(&inst, &a), total_delay(&inst, &b));
                prop_assert!((ta - tb).abs() <= 1e-9 * ta.max(1.0), "rows {ta} classes {tb}");
                prop_assert!((bound - tb).abs() <= 1e-9 * tb.max(1.0), "bound {bound} vs {tb}");
                let clients: Vec<usize> = (0..inst.clients()).collect();
                let again = serverpick::problems::cma::exact_flow::dual_bound(&inst, &clients, &prices);
                prop_assert!((again - bound).abs() <= 1e-9 * tb.max(1.0));
                let ev = serverpick::problems::cma::eval::evaluate_cma(&inst, &some(&b), 100.0);
                prop_assert!(ev.is_feasible(), "{:?}", ev.violations);
                let lp = run_cma("exact", &inst, &SolveOptions::default());
                prop_assert!((lp.objective.unwrap() - tb).abs() < 1e-6 * tb.max(1.0));
            }
            (rows, classes) => prop_assert!(false, "rows {:?} classes {:?}", rows.is_some(), classes.is_some()),
        }
    }

    /// The class solver on weighted classes (large enough to start from a
    /// sample; closed mirrors) equals the network simplex, and its prices
    /// certify it.
    #[test]
    fn class_solver_equals_network_simplex(
        (k, offsets, weight, cap) in (1usize..6, 1usize..700).prop_flat_map(|(k, d)| (
            Just(k),
            prop::collection::vec((0u32..40).prop_map(f64::from), d * k),
            prop::collection::vec(1usize..30, d),
            prop::collection::vec(0usize..4000, k),
        ))
    ) {
        use serverpick::problems::cma::class_flow::solve_classes;
        use serverpick::problems::cma::transport::solve_transport;
        let inst = CmaInstance::new_weighted("w", cap.clone(), offsets.clone(), weight.clone()).unwrap();
        let ours = solve_classes(k, &offsets, &weight, &inst.capacity).unwrap();
        let simplex = solve_transport(&inst, &inst.capacity).unwrap();
        match (ours, simplex) {
            (None, None) => {}
            (Some(s), Some((split, _))) => {
                let cost = |c: usize, j: usize| offsets[c * k + j];
                let mut load = vec![0usize; k];
                let mut ours_total = 0.0;
                for (c, parts) in s.parts.iter().enumerate() {
                    prop_assert_eq!(parts.iter().map(|p| p.1).sum::<usize>(), weight[c]);
                    for &(j, u) in parts {
                        load[j] += u;
                        ours_total += u as f64 * cost(c, j);
                    }
                }
                for (l, c) in load.iter().zip(&inst.capacity) {
                    prop_assert!(l <= c);
                }
                let mut theirs = 0.0;
                for (c, ps) in split.iter().enumerate() {
                    for &[j, u] in ps {
                        theirs += u as f64 * cost(c, j);
                    }
                }
                prop_assert!((ours_total - theirs).abs() < 1e-6, "{ours_total} vs {theirs}");
                let rows: Vec<usize> = (0..weight.len()).collect();
                let bound = serverpick::problems::cma::exact_flow::dual_bound(&inst, &rows, &s.prices);
                prop_assert!((bound - ours_total).abs() < 1e-6, "bound {bound} vs {ours_total}");
            }
            (a, b) => prop_assert!(false, "ours {:?} simplex {:?}", a.is_some(), b.is_some()),
        }
    }
}

/// The grouping is the same on one thread and on three, and every row of
/// a class is a shift of the class's offsets.
#[test]
fn row_classes_are_the_same_on_any_number_of_threads() {
    use serverpick::problems::cma::row_classes::group_rows;
    let (n, k) = (300_000, 7);
    let mut delay = Vec::with_capacity(n * k);
    for i in 0..n {
        let base = (i * 7919) % 1_000;
        let shift = ((i * 31) % 97) as f64 * 0.37;
        for j in 0..k {
            delay.push(((base * (j + 3) * 2_654_435_761) % 1_000) as f64 / 7.0 + shift);
        }
    }
    let max = delay.iter().copied().fold(0.0, f64::max);
    let on = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| group_rows(&delay, k, max, 16)).unwrap()
    };
    let (one, three) = (on(1), on(3));
    assert_eq!(one.of_row, three.of_row);
    assert_eq!(one.weight, three.weight);
    assert_eq!(one.offsets, three.offsets);
    assert_eq!(one.len(), 1_000);
    for (i, &c) in one.of_row.iter().enumerate() {
        let row = &delay[i * k..(i + 1) * k];
        let least = row.iter().copied().fold(f64::INFINITY, f64::min);
        for (d, o) in row.iter().zip(one.offsets_of(c as usize)) {
            assert!((d - least - o).abs() < 1e-9 * max, "row {i}");
        }
    }
}
