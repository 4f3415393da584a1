#!/usr/bin/env python3
"""Solve a static CMA instance with OR-Tools' SimpleMinCostFlow and time it.

The reference for serverpick's `exact-flow` (issue 4): reads the same
instance file (inline `delay` or `{"csv": path}`), builds the transportation
network source -> client (cap 1) -> mirror (cost d, cap 1) -> sink (cap C_j)
and solves it. OR-Tools needs integer costs: delays are scaled by --scale
(default 1000, i.e. microseconds) and rounded; the optimum of the rounded
costs is reported in ms, and the true total delay of OR-Tools' assignment is
recomputed from the float delays.

usage: python3 scripts/ortools_mcf.py INSTANCE.json [--scale 1000] [--repeat 3]
requires: pip install ortools numpy
"""
import argparse
import json
import os
import sys
import time

import numpy as np
from ortools.graph.python import min_cost_flow


def load(path):
    with open(path) as f:
        inst = json.load(f)
    if inst.get("problem") != "cma":
        sys.exit(f"{path}: not a CMA instance")
    delay = inst["delay"]
    if isinstance(delay, dict):
        csv = os.path.join(os.path.dirname(path), delay["csv"])
        d = np.loadtxt(csv, delimiter=",", dtype=np.float64, ndmin=2)
    else:
        d = np.asarray(delay, dtype=np.float64)
    if "capacity" not in inst:
        sys.exit("resources-based capacities are not supported here; give capacity")
    return inst.get("name", path), d, np.asarray(inst["capacity"], dtype=np.int64)


def build(d, cap, scale):
    n, k = d.shape
    src, sink = n + k, n + k + 1
    clients = np.arange(n, dtype=np.int64)
    mirrors = n + np.arange(k, dtype=np.int64)
    tails = np.concatenate([np.full(n, src), np.repeat(clients, k), mirrors])
    heads = np.concatenate([clients, np.tile(mirrors, n), np.full(k, sink)])
    caps = np.concatenate([np.ones(n, np.int64), np.ones(n * k, np.int64), cap])
    costs = np.concatenate([np.zeros(n, np.int64),
                            np.rint(d.reshape(-1) * scale).astype(np.int64),
                            np.zeros(k, np.int64)])
    smcf = min_cost_flow.SimpleMinCostFlow()
    arcs = smcf.add_arcs_with_capacity_and_unit_cost(tails, heads, caps, costs)
    supplies = np.zeros(n + k + 2, np.int64)
    supplies[src], supplies[sink] = n, -n
    smcf.set_nodes_supplies(np.arange(n + k + 2), supplies)
    return smcf, arcs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("instance")
    ap.add_argument("--scale", type=float, default=1000.0)
    ap.add_argument("--repeat", type=int, default=1)
    a = ap.parse_args()
    name, d, cap = load(a.instance)
    n, k = d.shape
    if n > cap.sum():
        print(f"{name}: infeasible ({n} clients > capacity {cap.sum()})")
        return
    best_build, best_solve, best_cpu = float("inf"), float("inf"), float("inf")
    for _ in range(max(1, a.repeat)):
        t0 = time.perf_counter()
        smcf, arcs = build(d, cap, a.scale)
        t1, c1 = time.perf_counter(), time.thread_time()
        status = smcf.solve()
        t2, c2 = time.perf_counter(), time.thread_time()
        best_build, best_solve = min(best_build, t1 - t0), min(best_solve, t2 - t1)
        best_cpu = min(best_cpu, c2 - c1)
    if status != smcf.OPTIMAL:
        sys.exit(f"OR-Tools status {status}")
    flows = smcf.flows(arcs[n:n + n * k]).reshape(n, k)
    assign = flows.argmax(axis=1)
    total = float(d[np.arange(n), assign].sum())
    print(json.dumps({
        "instance": name, "clients": n, "mirrors": k, "solver": "ortools SimpleMinCostFlow",
        "build_ms": round(best_build * 1e3, 1), "solve_ms": round(best_solve * 1e3, 1),
        "solve_cpu_ms": round(best_cpu * 1e3, 1),
        "repeat": a.repeat, "scaled_optimum_ms": smcf.optimal_cost() / a.scale,
        "total_delay_ms": total,
    }))


if __name__ == "__main__":
    main()
