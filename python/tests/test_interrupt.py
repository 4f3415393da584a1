"""Ctrl-C (SIGINT, sent from a thread) during long runs: KeyboardInterrupt,
finished work kept, nothing left in a bad state. No wall-time assertions."""

import json
import os
import signal
import subprocess
import sys
import threading
import time

import pytest

import serverpick as sp


def sigint_after(seconds):
    timer = threading.Timer(seconds, lambda: os.kill(os.getpid(), signal.SIGINT))
    timer.start()
    return timer


@pytest.fixture(scope="module")
def big_p2p():
    # The exact P2P search takes well over a minute on this instance.
    return sp.gen("spd", seed=5, servers=150, clients=800, model="p2p")


def test_keyboard_interrupt_stops_a_long_exact_solve(big_p2p):
    timer = sigint_after(1.0)
    with pytest.raises(KeyboardInterrupt):
        sp.solve(big_p2p, "exact", time_limit=600)
    timer.join()
    # the next call runs normally: no flag left raised, the handler is Python's
    r = sp.solve(big_p2p, "spdp2p-h", time_limit=60)
    assert r.status == "feasible"
    small = sp.cma_instance([[1.0, 2.0], [2.0, 1.0]], [1, 1])
    assert sp.solve(small, "exact").status == "optimal"


def test_keyboard_interrupt_in_bench_keeps_finished_rows(instances_dir, tmp_path):
    def slow(inst):
        time.sleep(0.4)
        raise ValueError("slow and wrong")

    files = [instances_dir / n for n in ("cma-small.json", "spd-fig1-cs.json", "spd-fig1-p2p.json",
                                          "rank-browser-tiny.json", "ranges-tiny.json", "ag-small.json")]
    out = tmp_path / "b"
    timer = sigint_after(1.0)
    with pytest.raises(KeyboardInterrupt):
        sp.bench(files, engines=[], python_engines={"slow": slow}, out=out)
    timer.join()
    done = [json.loads(x) for x in (out / "results.jsonl").read_text().splitlines()]
    assert 1 <= len(done) < len(files)
    assert all(r["engine"] == "slow" and r["reason"] == "raised" for r in done)
    rows = sp.bench(files, engines=[], python_engines={"slow": lambda inst: {}}, out=out, resume=True)
    assert len(rows) == len(files)


# A child that runs a busy Python engine, catches Ctrl-C, writes a buffered
# file and ends normally: it must exit 0 with the file written (it used to
# abort at exit, SIGABRT, the file lost: the engine's thread was a Rust
# thread that Python stopped inside Rust code while finalising).
CHILD = r"""
import signal, sys, time
signal.signal(signal.SIGINT, signal.default_int_handler)
import serverpick as sp
inst = sp.read(sys.argv[1])
def busy(i):
    print("engine started", flush=True)
    t = time.time()
    while time.time() - t < float(sys.argv[3]):
        pass
    return [0, 0, 2, 1, 1, 1, 2, 0]
log = open(sys.argv[2], "w")
try:
    sp.solve(inst, busy, time_limit=60)
    print("returned", flush=True)
except KeyboardInterrupt:
    print("KeyboardInterrupt caught", flush=True)
    log.write("partial results the user wanted to keep\n")  # buffered, closed at exit
print("script ends normally", flush=True)
"""


def test_ctrl_c_during_a_busy_python_engine_exits_normally(instances_dir, tmp_path):
    script = tmp_path / "child.py"
    script.write_text(CHILD)
    results = tmp_path / "results.txt"
    child = subprocess.Popen(
        [sys.executable, str(script), str(instances_dir / "cma-small.json"), str(results), "4"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline().strip() == "engine started"
        time.sleep(0.3)  # inside the busy loop
        child.send_signal(signal.SIGINT)
        out, err = child.communicate(timeout=60)
    finally:
        if child.poll() is None:
            child.kill()
    assert child.returncode == 0, (child.returncode, out, err)
    assert "KeyboardInterrupt caught" in out and "script ends normally" in out, out
    assert results.read_text() == "partial results the user wanted to keep\n", err
