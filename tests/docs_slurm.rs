//! docs/bench.md's Slurm section is the scripts CI runs (issue 72):
//! `tests/slurm.sh` runs `scripts/slurm-submit.sh`, which submits
//! `scripts/slurm-bench.sbatch` and `scripts/slurm-merge.sbatch`; the page
//! holds each of them verbatim, in a ```bash block.

use std::path::Path;

#[test]
fn the_docs_hold_the_slurm_scripts_ci_runs_verbatim() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let docs = std::fs::read_to_string(root.join("docs/bench.md")).unwrap();
    for f in [
        "scripts/slurm-bench.sbatch",
        "scripts/slurm-merge.sbatch",
        "scripts/slurm-submit.sh",
    ] {
        let script = std::fs::read_to_string(root.join(f)).unwrap();
        assert!(
            docs.contains(&format!("```bash\n{script}```\n")),
            "docs/bench.md does not hold {f} verbatim in a ```bash block"
        );
        assert!(
            docs.contains(&format!("(../{f})")),
            "docs/bench.md does not link {f}"
        );
    }
    let ci = std::fs::read_to_string(root.join("tests/slurm.sh")).unwrap();
    assert!(ci.contains("\"$repo/scripts/slurm-submit.sh\""));
    let run = std::fs::read_to_string(root.join(".ci/run")).unwrap();
    assert!(
        run.contains("tests/slurm.sh"),
        ".ci/run does not run tests/slurm.sh"
    );
}
