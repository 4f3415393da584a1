"""Compare your own Python heuristic with `exact` (and the papers'
heuristics) in a benchmark: the same rows, gaps and summary as
`serverpick bench`.

    python python/examples/bench_my_heuristic.py [OUT]
"""

import sys
from pathlib import Path

import numpy as np

import serverpick as sp


def regret_greedy(inst):
    """CMA: place the player who would lose most by waiting first, on its
    best mirror with room left. O(n^2 m)."""
    delay, room = inst.delay, inst.capacity.astype(int).copy()
    assign = np.full(len(delay), -1)
    left = set(range(len(delay)))
    while left:
        best = None
        for i in left:
            open_ = np.flatnonzero(room > 0)
            row = np.sort(delay[i, open_])
            regret = row[1] - row[0] if len(row) > 1 else np.inf
            if best is None or regret > best[0]:
                best = (regret, i, open_[delay[i, open_].argmin()])
        _, i, j = best
        assign[i], room[j] = j, room[j] - 1
        left.remove(i)
    return assign


repo = Path(__file__).resolve().parents[2]
out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path("bench-python")
instances = [repo / "instances" / "cma-small.json"] + [
    sp.gen("cma", seed=s, scenario="static", mirrors=5, clients=60, slack=0.1) for s in (1, 2, 3)
]
rows = sp.bench(
    instances,
    engines=["exact", "j-greedy"],
    python_engines={"regret": regret_greedy},
    time_limit=30,
    out=out,
)
for r in rows:
    gap = "" if r.get("gap") is None else f"gap {r['gap']:.2%}"
    print(f"{r['instance']:24} {r['engine']:9} {r['status']:9} {r.get('objective')!s:>10} {gap}")
print(f"\nsummary: {out / 'summary.md'}")
