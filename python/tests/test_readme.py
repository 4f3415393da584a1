"""python/README.md's first session runs as printed; the examples run."""

import re
import subprocess
import sys
from pathlib import Path

from conftest import REPO

README = REPO / "python" / "README.md"


def blocks(kind):
    return re.findall(rf"```{kind}\n(.*?)```", README.read_text(), flags=re.S)


def test_the_readme_session_prints_what_the_readme_says(tmp_path):
    code = blocks("python")[0].replace('"instances/', f'"{REPO}/instances/')
    printed = blocks("text")[0]
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout == printed
    summary = (tmp_path / "bench-py" / "summary.md").read_text()
    rows = {line.split(" | ")[0].strip("| "): line for line in summary.splitlines() if line.startswith("| ")}
    assert "exact" in rows and "nearest" in rows
    assert "3.45%" in rows["nearest"]  # its mean gap, beside exact's 0.00%


def run_example(name, *args, cwd):
    path = REPO / "python" / "examples" / name
    out = subprocess.run([sys.executable, str(path), *args], cwd=cwd, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_examples_run(tmp_path):
    assert "exact    optimal" in run_example("cma_from_numpy.py", cwd=tmp_path)
    printed = run_example("bench_my_heuristic.py", str(tmp_path / "b"), cwd=tmp_path)
    assert "regret" in printed and (tmp_path / "b" / "summary.md").exists()
    printed = run_example("plan_cma_curve.py", str(tmp_path / "plan.png"), cwd=tmp_path)
    assert "K = 12  optimal" in printed
