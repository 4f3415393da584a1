"""Python functions as engines: judged by the same evaluator, in solve and
bench; what they do wrong becomes an error row, never a crash."""

import json
import threading
import time

import numpy as np
import pytest

import serverpick as sp


@pytest.fixture()
def cma(instances_dir):
    return sp.read(instances_dir / "cma-small.json")


def nearest_with_room(inst):
    """Greedy: each client to its nearest mirror with room left."""
    room = inst.capacity.astype(int).copy()
    assign = []
    for row in inst.delay:
        j = next(j for j in np.argsort(row) if room[j] > 0)
        room[j] -= 1
        assign.append(int(j))
    return np.array(assign)


def test_a_python_engine_in_solve(cma):
    r = sp.solve(cma, nearest_with_room)
    assert r.engine == "nearest_with_room"
    assert r.status == "feasible"  # no proof claimed
    assert r.objective == sp.evaluate(cma, r.assignment).objective
    assert r.objective >= sp.solve(cma, "exact").objective


@pytest.mark.parametrize(
    "fn, reason, message",
    [
        (lambda inst: [0] * len(inst.delay), "rejected", "capacity"),  # infeasible
        (lambda inst: [0, 1], "rejected", "expected 8"),  # wrong length
        (lambda inst: [-1] * 8, "rejected", "not an index"),
        (lambda inst: "garbage", "rejected", "not a JSON object"),
        (lambda inst: None, "rejected", "not a JSON object"),
        (lambda inst: {"assign": "x"}, "rejected", "not a cma solution"),
        (lambda inst: object(), "rejected", "not JSON data"),
        (lambda inst: {"solution": {"assign": [0, 0, 2, 1, 1, 1, 2, 0]}, "bound": 1e9}, "rejected", "bound"),
    ],
)
def test_what_a_python_engine_does_wrong_is_an_error_row(cma, fn, reason, message):
    r = sp.solve(cma, fn)
    assert r.status == "error", r
    assert r.reason == reason, r
    assert message in r.message, r.message


def test_an_exception_gives_its_last_line(cma):
    def broken(inst):
        raise ValueError("no mirror for client 3")

    r = sp.solve(cma, broken)
    assert (r.status, r.reason) == ("error", "raised")
    assert r.message.startswith("ValueError: no mirror for client 3 (raised at ")
    assert "in broken" in r.message


def test_a_claimed_objective_must_be_the_evaluators(cma):
    sol = nearest_with_room(cma).tolist()
    true = sp.evaluate(cma, sol).objective
    ok = sp.solve(cma, lambda inst: {"solution": {"assign": sol}, "objective": true})
    assert ok.status == "feasible"
    bad = sp.solve(cma, lambda inst: {"solution": {"assign": sol}, "objective": true - 1})
    assert (bad.status, bad.reason) == ("error", "rejected")
    assert "claims objective" in bad.message


def test_bench_puts_a_python_engine_beside_exact(instances_dir, tmp_path):
    def crashes_on_spd(inst):
        if inst.family == "spd":
            raise RuntimeError("spd is not my thing")
        return nearest_with_room(inst)

    out = tmp_path / "out"
    files = [instances_dir / "cma-small.json", instances_dir / "spd-fig1-p2p.json"]
    rows = sp.bench(files, engines=["exact"], python_engines={"greedy": crashes_on_spd}, out=out, repeat=2)
    by = {(r["instance"], r["engine"], r["repetition"]): r for r in rows}
    assert len(rows) == 8
    g = by[("small-static", "greedy", 0)]
    assert g["status"] == "feasible" and g["gap"] >= 0
    assert by[("small-static", "exact", 1)]["status"] == "optimal"
    crash = by[("spd-fig1-p2p", "greedy", 0)]
    assert (crash["status"], crash["reason"]) == ("error", "raised")
    assert "RuntimeError: spd is not my thing" in crash["message"]
    summary = (out / "summary.md").read_text()
    assert "greedy" in summary and "exact" in summary
    lines = (out / "results.jsonl").read_text().splitlines()
    assert [json.loads(x)["engine"] for x in lines].count("greedy") == 4
    assert (out / "instances").exists() is False  # paths were given, nothing copied


def test_bench_takes_instances_built_in_python(tmp_path):
    inst = sp.cma_instance([[10.0, 40.0], [35.0, 12.0], [20.0, 25.0]], [2, 1], name="tiny")
    rows = sp.bench([inst], engines=["exact", "j-greedy"], python_engines={"first": lambda i: [0, 1, 0]},
                    out=tmp_path / "b")
    assert {r["engine"]: r["status"] for r in rows} == {"exact": "optimal", "j-greedy": "feasible",
                                                        "first": "feasible"}
    assert (tmp_path / "b" / "instances" / "tiny.json").exists()
    # resume keeps the rows and runs nothing again
    again = sp.bench([tmp_path / "b" / "instances" / "tiny.json"], engines=["exact", "j-greedy"],
                     python_engines={"first": lambda i: [0, 1, 0]}, out=tmp_path / "b", resume=True)
    assert len(again) == 3


def test_python_engines_restricted_by_signature():
    with pytest.raises(sp.UsageError, match="one argument"):
        sp.bench([], python_engines={"two": lambda a, b: None})


def test_a_python_engine_for_some_families_only(instances_dir):
    files = [instances_dir / "cma-small.json", instances_dir / "spd-fig1-p2p.json"]
    rows = sp.bench(files, engines=[], python_engines={"greedy": (nearest_with_room, "cma")})
    assert [(r["instance"], r["engine"]) for r in rows] == [("small-static", "greedy")]


def test_a_python_engine_sees_every_family(instances_dir):
    from test_families import STATIC

    def copy_first_engine(inst):
        # the instance handed in is a full Instance: its engines run too
        return sp.solve(inst, inst.engines()[0], time_limit=20).solution

    rows = sp.bench([instances_dir / n for n in STATIC], engines=[],
                    python_engines={"copy": copy_first_engine}, time_limit=60)
    assert len(rows) == len(STATIC)
    bad = [(r["instance"], r["status"], r.get("message")) for r in rows if r["status"] not in ("feasible", "optimal")]
    assert bad == []


def test_a_python_engine_runs_under_the_time_limit(cma):
    # The function cannot be stopped from outside: the run ends at the
    # limit without it, and `stop_requested()` tells it to return.
    seen = {}
    ended = threading.Event()

    def patient(inst):
        t0 = time.monotonic()
        try:
            while not sp.stop_requested() and time.monotonic() - t0 < 20:
                time.sleep(0.01)
            seen["stop"] = sp.stop_requested()
            return nearest_with_room(inst)
        finally:
            ended.set()

    t0 = time.monotonic()
    r = sp.solve(cma, patient, time_limit=1)
    assert time.monotonic() - t0 < 15  # well before the function's own 20 s
    assert (r.status, r.stop, r.solution, r.reason) == ("time_limit", "time_limit", None, None), r
    assert "at the time limit" in r.message
    assert ended.wait(15) and seen["stop"] is True
    assert sp.stop_requested() is False  # outside an engine


def test_a_python_engine_that_ignores_the_limit_is_dropped_at_it(cma, tmp_path):
    def slow(inst):
        time.sleep(2.5)  # no stop_requested(): it runs to its end
        return nearest_with_room(inst)

    rows = sp.bench(cma, engines=["j-greedy"], python_engines={"slow": slow}, time_limit=0.5,
                    out=tmp_path / "b")
    by = {r["engine"]: r for r in rows}
    assert (by["slow"]["status"], by["slow"]["stop"]) == ("time_limit", "time_limit")
    assert by["slow"].get("objective") is None
    assert by["j-greedy"]["status"] == "feasible"


def test_bench_imports_solution_folders(instances_dir, tmp_path):
    cma = sp.read(instances_dir / "cma-small.json")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    sol = nearest_with_room(cma).tolist()
    (elsewhere / "a.json").write_text(json.dumps(
        {"instance": "small-static", "engine": "theirs", "solution": {"assign": sol}, "time_ms": 12}))
    files = [instances_dir / "cma-small.json", instances_dir / "spd-fig1-cs.json"]
    rows = sp.bench(files, engines=["exact"], solutions=elsewhere, out=tmp_path / "b")
    theirs = [r for r in rows if r["engine"] == "theirs"]
    assert len(theirs) == 1
    assert theirs[0]["instance"] == "small-static" and theirs[0]["status"] == "feasible"
    assert theirs[0]["objective"] == sp.evaluate(cma, sol).objective
    rows = sp.bench(files, engines=["exact"], solutions=[elsewhere], solutions_engine="imported",
                    out=tmp_path / "c")
    assert [r["engine"] for r in rows if r["engine"] not in ("exact",)] == ["imported"]
