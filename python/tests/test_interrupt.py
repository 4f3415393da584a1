"""Ctrl-C (SIGINT, sent from a thread) during long runs: KeyboardInterrupt,
finished work kept, nothing left in a bad state. No wall-time assertions."""

import json
import os
import signal
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
