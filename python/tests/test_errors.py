"""Every exception, with its fields."""

import pytest

import serverpick as sp


def test_hierarchy():
    for cls in (sp.InputError, sp.UsageError, sp.SolverError):
        assert issubclass(cls, sp.Error)
    assert issubclass(sp.Error, Exception)


def test_input_error_names_the_file_and_field(instances_dir, tmp_path):
    with pytest.raises(sp.InputError) as e:
        sp.read(tmp_path / "missing.json")
    assert e.value.file == str(tmp_path / "missing.json")
    assert e.value.field is None
    bad = tmp_path / "bad.json"
    bad.write_text('{"problem": "cma", "version": 1, "mirrors": 2, "capacity": [1, "x"], "delay": [[1, 2]]}')
    with pytest.raises(sp.InputError) as e:
        sp.read(bad)
    assert e.value.file == str(bad)
    assert e.value.field.startswith("capacity")
    assert str(e.value).startswith(str(bad))  # the CLI's message


def test_usage_errors(instances_dir):
    inst = sp.read(instances_dir / "cma-small.json")
    with pytest.raises(sp.UsageError, match="unknown cma engine 'nope'"):
        sp.solve(inst, "nope")
    # a P2P engine on a CS instance: a row that says it does not apply
    r = sp.solve(sp.read(instances_dir / "spd-fig1-cs.json"), "spdp2p-h")
    assert (r.status, r.reason) == ("error", "not_applicable")
    with pytest.raises(sp.UsageError, match="unknown parameter 'colour'"):
        sp.solve(inst, "exact", colour=3)
    with pytest.raises(sp.UsageError, match="kbest-max-subsets"):
        sp.solve(inst, "exact", kbest_max_subsets=-1)
    with pytest.raises(sp.UsageError, match="time_limit"):
        sp.solve(inst, "exact", time_limit=-1)
    with pytest.raises(sp.UsageError):
        sp.engines("chess")
    with pytest.raises(sp.UsageError):
        sp.cli(["solve", "--no-such-flag"])
    with pytest.raises(sp.UsageError, match="not callable"):
        sp.bench(inst, python_engines={"x": 3})
    with pytest.raises(sp.UsageError, match="taken"):
        sp.bench(inst, python_engines={"exact": lambda i: [0]})


def test_a_conflict_is_exit_1_in_cli_and_solver_error_in_bench(instances_dir, tmp_path):
    # An engine that claims a worse assignment optimal: `exact` beats it, a
    # conflict (a bug in one of them).
    worse = {"solution": {"assign": [1, 0, 2, 0, 1, 1, 2, 0]}, "status": "optimal"}
    liar = tmp_path / "liar.py"
    liar.write_text(f"import json\nprint(json.dumps({worse!r}))\n")
    path = str(instances_dir / "cma-small.json")
    code = sp.cli(["solve", path, "--engine", "exact", "--engine-cmd", f"liar=python3 {liar}", "--json"])
    assert code == 1
    with pytest.raises(sp.SolverError, match="conflict") as e:
        sp.bench(path, engines=["exact"], python_engines={"liar": lambda inst: worse})
    assert len(e.value.conflicts) == 1
    assert {r["engine"] for r in e.value.rows} == {"exact", "liar"}
    with pytest.warns(RuntimeWarning, match="conflict"):
        rows = sp.bench(path, engines=["exact"], python_engines={"liar": lambda inst: worse}, check=False)
    assert len(rows) == 2


def test_array_messages_name_what_is_wrong():
    d = [[1.0, 10.0], [8.0, 2.0]]
    cases = [
        (lambda: sp.cma_instance([[float("inf"), 10.0], [8.0, 2.0]], [3, 5]), "delay[0][0]", "inf"),
        (lambda: sp.cma_instance(d, [3]), "capacity", "has 1 values, expected 2"),
        (lambda: sp.cma_instance(d, [3, 5], players=[10**18, 2]), "players", "limit of 1099511627776"),
        (lambda: sp.spd_instance(d, [[0.0, 1.0], [1.0, 0.0]], mu=float("nan")), "mu", "NaN"),
    ]
    for build, field, words in cases:
        with pytest.raises(sp.InputError) as e:
            build()
        assert e.value.field.startswith(field), str(e.value)
        assert words in str(e.value), str(e.value)


def test_evaluate_refuses_another_instances_record(instances_dir):
    cma = sp.read(instances_dir / "cma-small.json")
    spd = sp.read(instances_dir / "spd-fig1-cs.json")
    record = sp.solve(spd, "exact").record
    with pytest.raises(sp.UsageError, match="written for instance 'spd-fig1-cs', not 'small-static'"):
        sp.evaluate(cma, record)
    # Another problem under the same name, as `serverpick eval` refuses it.
    mine = sp.solve(cma, "exact").record
    with pytest.raises(sp.UsageError, match="written for problem 'spd'"):
        sp.evaluate(cma, dict(mine, problem="spd"))
    # Its own record and a bare solution are evaluated.
    assert sp.evaluate(cma, mine).objective == mine["objective"]
    assert sp.evaluate(cma, mine["solution"]).objective == mine["objective"]
