#!/usr/bin/env python3
"""An SPD heuristic for `serverpick bench --engine-cmd` (stdlib only).

CS model, greedy set cover per root: with root r, server s can serve client c
when a(c,s) + D(s,r) <= mu/2; starting from {r}, repeatedly open the server
that covers the most clients still uncovered, then give each client its
lowest-delay open server. The root with the fewest hosts (then the lowest
delay) wins. O(n^3 + n^2 m) for n servers and m clients.

P2P model: every client on the one server s minimising the sum of the two
largest access latencies, when that meets mu (one host is optimal);
otherwise every client on its closest server.

    serverpick bench instances/spd-fig1-cs.json \
        --engine-cmd 'cover=python3 examples/external/spd_set_cover.py {instance} {solution}'

Protocol (docs/formats.md "Solution protocol"): write
{"solution": {"root": r or null, "assign": [server per client]}}.
"""
import json
import sys

INF = float("inf")


def shortest_paths(inst, n):
    d = [[0.0 if s == t else INF for t in range(n)] for s in range(n)]
    if "links" in inst:
        for u, v, lat in inst["links"]:
            d[u][v] = d[v][u] = min(d[u][v], lat)
    else:
        for s, row in enumerate(inst["server_latency"]):
            for t, lat in enumerate(row):
                if lat is not None and s != t:
                    d[s][t] = min(d[s][t], lat)
    for k in range(n):
        for i in range(n):
            for j in range(n):
                if d[i][k] + d[k][j] < d[i][j]:
                    d[i][j] = d[i][k] + d[k][j]
    return d


def access(inst):
    return [[INF if a is None else a for a in row] for row in inst["access"]]


def gamma(a, d, n):
    """The least CS delay over every root (Algorithm Matching's value)."""
    return min(
        2 * max(min(row[s] + d[s][r] for s in range(n)) for row in a)
        for r in range(n)
    )


def cs_cover(a, d, n, mu):
    best = None
    for r in range(n):
        can = [{c for c, row in enumerate(a) if row[s] + d[s][r] <= mu / 2} for s in range(n)]
        hosts, covered = [r], set(can[r])
        while len(covered) < len(a):
            s = max(range(n), key=lambda s: len(can[s] - covered))
            if not can[s] - covered:
                break
            hosts.append(s)
            covered |= can[s]
        if len(covered) < len(a):
            continue
        assign = [min(hosts, key=lambda s: row[s] + d[s][r]) for row in a]
        delay = 2 * max(row[assign[c]] + d[assign[c]][r] for c, row in enumerate(a))
        key = (len(set(assign) | {r}), delay)
        if best is None or key < best[0]:
            best = (key, r, assign)
    return best


def p2p(a, n, mu):
    def two_largest(s):
        col = sorted((row[s] for row in a), reverse=True)
        return col[0] + col[1] if len(col) > 1 else col[0]

    s = min(range(n), key=two_largest)
    if two_largest(s) <= mu:
        return [s] * len(a)
    return [min(range(n), key=lambda t: row[t]) for row in a]


def main():
    instance_path, solution_path = sys.argv[1], sys.argv[2]
    with open(instance_path, encoding="utf-8-sig") as f:
        inst = json.load(f)
    servers = inst["servers"]
    n = servers if isinstance(servers, int) else len(servers)
    if isinstance(inst["access"], str) or isinstance(inst.get("server_latency"), str):
        sys.exit("this example reads inline matrices only, not CSV files")
    d, a = shortest_paths(inst, n), access(inst)
    mu = inst.get("bound") or inst["bound_factor"] * gamma(a, d, n)
    if inst["model"] == "cs":
        best = cs_cover(a, d, n, mu)
        if best is None:
            answer = {"status": "error", "message": "no root covers every client"}
        else:
            answer = {"solution": {"root": best[1], "assign": best[2]}}
    else:
        answer = {"solution": {"root": None, "assign": p2p(a, n, mu)}}
    with open(solution_path, "w") as f:
        json.dump(answer, f)


if __name__ == "__main__":
    main()
