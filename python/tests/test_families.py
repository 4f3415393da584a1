"""Every family read, solved and evaluated; Python answers equal the CLI's."""

import json
import subprocess

import pytest

import serverpick as sp

STATIC = [
    "spd-fig1-cs.json",
    "spd-fig1-p2p.json",
    "spd-fig5-zizo-fails.json",
    "planetlabdata_1-cs-20s-60c-f1-s11.json",
    "planetlabdata_1-p2p-20s-60c-f1.1-s11.json",
    "cma-small.json",
    "ag-small.json",
    "ranges-tiny.json",
    "rank-browser-tiny.json",
]


def test_version_and_families():
    assert sp.__version__ == "0.1.0"
    assert set(sp.families()) >= {"spd", "spdvr", "cma", "ag", "rank", "ranges"}
    assert "exact" in sp.engines("cma")
    assert any(p["name"] == "kbest_max_subsets" for p in sp.params())


@pytest.mark.parametrize("name", STATIC)
def test_each_bundled_instance_is_read_solved_and_evaluated(instances_dir, name):
    inst = sp.read(instances_dir / name)
    assert inst.family in sp.families()
    engines = inst.engines()
    assert engines, name
    for engine in engines:
        r = sp.solve(inst, engine, time_limit=20)
        assert r.engine == engine
        assert r.status in ("optimal", "feasible", "time_limit", "infeasible", "error"), r
        if r.solution is not None and r.status in ("optimal", "feasible"):
            ev = sp.evaluate(inst, r.solution)
            assert ev.feasible, (engine, ev.reasons)
            assert ev.objective == pytest.approx(r.objective)
            # the whole record is a valid solution too (a `solve --out` file)
            assert sp.evaluate(inst, r.record).objective == pytest.approx(r.objective)


def test_spdvr_reads_an_spd_file_with_its_start(instances_dir, tmp_path):
    inst = sp.read(instances_dir / "spd-fig1-p2p.json")
    start = sp.solve(inst, "spdp2p-h")
    d = inst.to_dict()
    d["problem"] = "spdvr"
    d["start"] = start.solution
    vr = sp.from_json(d)
    assert vr.problem == "spdvr"
    r = sp.solve(vr, vr.engines()[0])
    assert r.status in ("optimal", "feasible")


def cli_json(cli_bin, path, engine):
    out = subprocess.run(
        [str(cli_bin), "solve", str(path), "--engine", engine, "--json", "--seed", "1",
         "--time-limit", "60"],
        check=True, capture_output=True, text=True,
    ).stdout
    return json.loads(out.splitlines()[0])


@pytest.mark.parametrize("name", STATIC)
def test_python_and_cli_answers_are_equal(instances_dir, cli_bin, name):
    path = instances_dir / name
    inst = sp.read(path)
    for engine in inst.engines():
        mine = sp.solve(inst, engine, time_limit=60, seed=1)
        theirs = cli_json(cli_bin, path, engine)
        assert mine.status == theirs["status"], engine
        assert mine.objective == theirs.get("objective"), engine
        assert mine.bound == theirs.get("bound"), engine
        assert mine.solution == theirs.get("solution"), engine
        assert mine.metrics == theirs["metrics"], engine


def test_gen_every_family():
    spd = sp.gen("spd", seed=2, servers=8, clients=12, model="p2p")
    assert spd.problem == "spd" and spd.access.shape == (12, 8)
    assert spd.model == "p2p"
    several = sp.gen("spd", seed=2, servers=[6, 7], clients=10)
    assert [i.server_latency.shape for i in several] == [(6, 6), (7, 7)]
    cma = sp.gen("cma", seed=4, scenario="static", mirrors=3, clients=30)
    assert cma.delay.shape == (30, 3)
    assert sp.gen("cma", seed=4, scenario="static", mirrors=3, clients=30).to_json() == cma.to_json()
    for family in ("ranges", "ag"):
        inst = sp.gen(family, seed=3)
        assert inst.family == family
        assert sp.solve(inst, inst.engines()[0]).status in ("optimal", "feasible")


def test_plan_cma(instances_dir):
    plan = sp.plan("cma", instances_dir / "cma-small.json", time_limit=30)
    assert isinstance(plan, dict) and plan


def test_a_dynamic_cma_instance_has_no_engine_for_all(instances_dir):
    inst = sp.read(instances_dir / "cma-paper-fig3.json")
    assert inst.engines() == []


def test_the_package_docstring_examples_run():
    import doctest

    failed, tried = doctest.testmod(sp, verbose=False)
    assert tried > 0 and failed == 0


def test_models_out_log_and_threads(instances_dir, tmp_path):
    inst = sp.read(instances_dir / "cma-small.json")
    r = sp.solve(inst, "exact", threads=1, write_model=tmp_path / "models", solver_log=tmp_path / "highs.log")
    assert r.status == "optimal"
    written = sorted(p.name for p in (tmp_path / "models").iterdir())
    assert any(n.endswith(".mps") for n in written) and any(n.endswith(".json") for n in written)
    assert (tmp_path / "highs.log").read_text()
    with pytest.raises(sp.UsageError, match="threads"):
        sp.solve(inst, "exact", threads=0)
    with pytest.raises(sp.UsageError):
        sp.solve(inst, "exact", write_model=tmp_path / "m2", model_format="xls")
    rows = sp.bench(instances_dir / "cma-small.json", engines=["exact"], write_model=tmp_path / "b",
                    model_format="lp")
    assert rows[0]["status"] == "optimal"
    assert any(p.suffix == ".lp" for p in (tmp_path / "b").iterdir())
