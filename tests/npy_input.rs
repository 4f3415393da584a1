//! Matrices from numpy's `.npy` files (`{"npy": "delay.npy"}`): the same
//! instance as inline JSON and CSV, `NaN` as a missing value, clear errors
//! for what is not a float matrix in C order, and no allocation beyond what
//! the file holds.

use npyz::WriterBuilder;
use serverpick::core::ProblemInstance;
use serverpick::problems::read_instance;
use std::path::Path;
use std::process::Command;

fn gen(dir: &Path, name: &str, flag: Option<&str>) -> std::path::PathBuf {
    let out = dir.join(name);
    let mut args = vec![
        "gen",
        "cma",
        "--scenario",
        "static",
        "--mirrors",
        "4",
        "--clients",
        "50",
    ];
    args.extend(["--seed", "3", "--out", out.to_str().unwrap()]);
    args.extend(flag);
    let o = Command::new(env!("CARGO_BIN_EXE_serverpick"))
        .args(&args)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    out
}

fn arrays(inst: &dyn ProblemInstance) -> String {
    format!("{:?}", inst.arrays())
}

#[test]
fn gen_npy_reads_like_inline_and_csv() {
    let dir = tempfile::tempdir().unwrap();
    let inline = read_instance(&gen(dir.path(), "a.json", None)).unwrap();
    let csv = read_instance(&gen(dir.path(), "b.json", Some("--csv"))).unwrap();
    let npy_path = gen(dir.path(), "c.json", Some("--npy"));
    assert!(dir.path().join("c.delay.npy").exists());
    let text = std::fs::read_to_string(&npy_path).unwrap();
    assert!(text.contains(r#""npy": "c.delay.npy""#), "{text}");
    let npy = read_instance(&npy_path).unwrap();
    assert_eq!(arrays(npy.as_ref()), arrays(inline.as_ref()));
    assert_eq!(arrays(csv.as_ref()), arrays(inline.as_ref()));
    let exact = |i: &dyn ProblemInstance| {
        i.run_engine("exact", &serverpick::core::SolveOptions::default())
            .objective
    };
    assert_eq!(exact(npy.as_ref()), exact(inline.as_ref()));
}

/// Writes `values` (row-major, `shape`) as a `.npy` of element type `T`.
fn write<T: npyz::AutoSerialize + Copy>(path: &Path, shape: &[u64], values: &[T], fortran: bool) {
    let file = std::fs::File::create(path).unwrap();
    let order = if fortran {
        npyz::Order::Fortran
    } else {
        npyz::Order::C
    };
    let mut w = npyz::WriteOptions::<T>::new()
        .default_dtype()
        .order(order)
        .shape(shape)
        .writer(std::io::BufWriter::new(file))
        .begin_nd()
        .unwrap();
    w.extend(values.iter().copied()).unwrap();
    w.finish().unwrap();
}

/// A CMA instance file whose delay is `{"npy": name}`.
fn cma_file(dir: &Path, name: &str) -> std::path::PathBuf {
    let p = dir.join("inst.json");
    let text = format!(
        r#"{{"problem": "cma", "version": 1, "mirrors": 2, "capacity": [2, 2], "delay": {{"npy": "{name}"}}}}"#
    );
    std::fs::write(&p, text).unwrap();
    p
}

fn error_of(path: &Path) -> String {
    read_instance(path).unwrap_err().to_string()
}

#[test]
fn float32_and_nan_read_as_values_and_missing() {
    let dir = tempfile::tempdir().unwrap();
    write::<f32>(
        &dir.path().join("d.npy"),
        &[2, 2],
        &[1.5, 2.0, 3.0, 4.0],
        false,
    );
    let inst = read_instance(&cma_file(dir.path(), "d.npy")).unwrap();
    assert_eq!(inst.arrays()[0].data, [1.5, 2.0, 3.0, 4.0]);
    // SPD: NaN is an unreachable server, as `null` is in JSON.
    let nan = f64::NAN;
    write::<f64>(
        &dir.path().join("a.npy"),
        &[2, 2],
        &[10.0, nan, 20.0, 30.0],
        false,
    );
    let spd = dir.path().join("spd.json");
    std::fs::write(
        &spd,
        r#"{"problem": "spd", "version": 1, "model": "p2p", "bound": 500, "servers": 2,
            "links": [[0, 1, 5]], "access": {"npy": "a.npy"}}"#,
    )
    .unwrap();
    let inst = read_instance(&spd).unwrap();
    let access = &inst.arrays()[0];
    assert_eq!(access.data[0], 10.0);
    assert!(access.data[1].is_nan());
}

#[test]
fn what_is_not_a_float_matrix_in_c_order_is_refused_clearly() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write::<i64>(&d.join("int.npy"), &[2, 2], &[1, 2, 3, 4], false);
    assert!(error_of(&cma_file(d, "int.npy")).contains("dtype <i8; expected float64 or float32"));
    write::<f64>(&d.join("f.npy"), &[2, 2], &[1.0, 2.0, 3.0, 4.0], true);
    assert!(error_of(&cma_file(d, "f.npy")).contains("Fortran order"));
    write::<f64>(&d.join("3d.npy"), &[1, 2, 2], &[1.0, 2.0, 3.0, 4.0], false);
    assert!(error_of(&cma_file(d, "3d.npy")).contains("has shape [1, 2, 2]"));
    write::<f64>(&d.join("neg.npy"), &[2, 2], &[1.0, -2.0, 3.0, 4.0], false);
    let e = error_of(&cma_file(d, "neg.npy"));
    assert!(e.contains("row 0 column 1"), "{e}");
    std::fs::write(d.join("text.npy"), "1,2\n3,4\n").unwrap();
    assert!(error_of(&cma_file(d, "text.npy")).contains("not a .npy file"));
    let e = error_of(&cma_file(d, "missing.npy"));
    assert!(
        e.contains("inst.json: delay") && e.contains("cannot read"),
        "{e}"
    );
}

#[test]
fn a_truncated_or_lying_file_is_an_error_not_an_allocation() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write::<f64>(&d.join("t.npy"), &[2, 2], &[1.0, 2.0, 3.0, 4.0], false);
    let bytes = std::fs::read(d.join("t.npy")).unwrap();
    std::fs::write(d.join("t.npy"), &bytes[..bytes.len() - 12]).unwrap();
    let e = error_of(&cma_file(d, "t.npy"));
    assert!(
        e.contains("more than its") || e.contains("truncated"),
        "{e}"
    );
    // A header declaring 10^12 values on a file of a few bytes.
    let file = std::fs::File::create(d.join("huge.npy")).unwrap();
    npyz::WriteOptions::<f64>::new()
        .default_dtype()
        .shape(&[1_000_000, 1_000_000])
        .writer(file)
        .write_header_only()
        .unwrap();
    let e = error_of(&cma_file(d, "huge.npy"));
    assert!(e.contains("declares 1000000 × 1000000 values"), "{e}");
}

#[test]
fn npy_paths_follow_the_csv_path_policy() {
    let dir = tempfile::tempdir().unwrap();
    let e = error_of(&cma_file(dir.path(), "../outside.npy"));
    assert!(
        e.contains("npy path '../outside.npy' leaves the instance's folder"),
        "{e}"
    );
    let e = error_of(&cma_file(dir.path(), "/etc/passwd"));
    assert!(e.contains("npy path '/etc/passwd' is absolute"), "{e}");
}

/// `gen spd --npy` (issue 25): `access` and `server_latency` as `.npy` side
/// files read back as the same instance as the inline file (same arrays
/// where the matrix form keeps them, same optimum).
#[test]
fn gen_spd_npy_round_trips() {
    let dir = tempfile::tempdir().unwrap();
    let gen = |sub: &str, npy: bool| {
        let out = dir.path().join(sub);
        let mut args = vec!["gen", "spd", "--servers", "6", "--clients", "15"];
        args.extend(["--seed", "4", "--out", out.to_str().unwrap()]);
        if npy {
            args.push("--npy");
        }
        let o = Command::new(env!("CARGO_BIN_EXE_serverpick"))
            .args(&args)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let json = std::fs::read_dir(&out)
            .unwrap()
            .map(|e| e.unwrap().path())
            .find(|p| p.extension().is_some_and(|x| x == "json"))
            .unwrap();
        (out, json)
    };
    let (_, inline) = gen("inline", false);
    let (out, npy) = gen("npy", true);
    let text = std::fs::read_to_string(&npy).unwrap();
    assert!(
        text.contains(r#""npy":"#) && !text.contains("links"),
        "{text}"
    );
    let sides = std::fs::read_dir(&out).unwrap().count();
    assert_eq!(sides, 3, "the file, access.npy and server_latency.npy");
    let a = read_instance(&inline).unwrap();
    let b = read_instance(&npy).unwrap();
    let access = |i: &dyn ProblemInstance| {
        let arrays = i.arrays();
        format!("{:?}", arrays.iter().find(|x| x.name == "access").unwrap())
    };
    assert_eq!(access(b.as_ref()), access(a.as_ref()));
    let exact = |i: &dyn ProblemInstance| {
        let r = i.run_engine("exact", &serverpick::core::SolveOptions::default());
        (r.status, r.objective)
    };
    assert_eq!(exact(b.as_ref()), exact(a.as_ref()));
}

#[test]
fn gen_spd_from_pings_honours_npy() {
    let dir = tempfile::tempdir().unwrap();
    let pings = dir.path().join("p.csv");
    std::fs::write(
        &pings,
        "source,destination,avg\na,b,10\na,c,20\nb,c,12\nc,d,5\nb,d,9\n",
    )
    .unwrap();
    let gen = |sub: &str, npy: bool| {
        let out = dir.path().join(sub);
        let mut args = vec!["gen", "spd", "--from-pings", pings.to_str().unwrap()];
        args.extend([
            "--model",
            "p2p",
            "--factor",
            "1.2",
            "--out",
            out.to_str().unwrap(),
        ]);
        if npy {
            args.push("--npy");
        }
        let o = Command::new(env!("CARGO_BIN_EXE_serverpick"))
            .args(&args)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let files: Vec<_> = std::fs::read_dir(&out)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        let json = files
            .iter()
            .find(|p| p.extension().is_some_and(|x| x == "json"))
            .cloned();
        (files.len(), json.unwrap())
    };
    let (n_inline, inline) = gen("inline", false);
    let (n_npy, npy) = gen("npy", true);
    assert_eq!(
        (n_inline, n_npy),
        (1, 3),
        "with --npy: the file and two .npy sides"
    );
    let (a, b) = (
        read_instance(&inline).unwrap(),
        read_instance(&npy).unwrap(),
    );
    assert_eq!(format!("{:?}", a.arrays()), format!("{:?}", b.arrays()));
}
