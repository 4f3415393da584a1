"""Build a CMA instance from numpy arrays, solve it, and score your own
assignment with the one evaluator.

    python python/examples/cma_from_numpy.py
"""

import numpy as np

import serverpick as sp

rng = np.random.default_rng(7)
# 40 players and 4 mirrors on a 100 x 100 ms plane: delay = distance.
players = rng.uniform(0, 100, size=(40, 2))
mirrors = np.array([[20.0, 20.0], [80.0, 20.0], [20.0, 80.0], [80.0, 80.0]])
delay = np.linalg.norm(players[:, None, :] - mirrors[None, :, :], axis=2).round(1)
capacity = np.array([12, 12, 10, 10])

inst = sp.cma_instance(delay, capacity, name="plane-40x4")
print(inst, "engines:", inst.engines())

exact = sp.solve(inst, "exact", time_limit=10)
greedy = sp.solve(inst, "j-greedy")
print(f"exact    {exact.status:9} total delay {exact.objective:8.1f} ms")
print(f"j-greedy {greedy.status:9} total delay {greedy.objective:8.1f} ms "
      f"(gap {(greedy.objective - exact.objective) / exact.objective:.2%})")

# Your own assignment: every player to its nearest mirror, capacity ignored.
nearest = delay.argmin(axis=1)
ev = sp.evaluate(inst, nearest)
print(f"nearest  feasible={ev.feasible} total delay {ev.objective:8.1f} ms")
for reason in ev.reasons:
    print("  ", reason)

print("mirror loads of the optimum:", np.bincount(exact.assignment, minlength=4).tolist())
