"""How many mirrors to open? The exact trade-off curve of `plan cma`
(capacitated p-median, proven per K), plotted with matplotlib if it is
installed, printed otherwise.

    python python/examples/plan_cma_curve.py [PNG]
"""

import sys
from pathlib import Path

import serverpick as sp

repo = Path(__file__).resolve().parents[2]
plan = sp.plan("cma", repo / "instances" / "cma-plan-planetlab-12m.json", time_limit=60)
points = [p for p in plan["points"] if p["avg_delay"] is not None]
for p in plan["points"]:
    avg = "—" if p["avg_delay"] is None else f"{p['avg_delay']:.2f} ms"
    print(f"K = {p['k']:2}  {p['status']:10}  average delay {avg}")

try:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:
    print("(pip install matplotlib to plot the curve)")
    sys.exit(0)

fig, ax = plt.subplots(figsize=(6, 4))
ax.plot([p["k"] for p in points], [p["avg_delay"] for p in points], marker="o")
ax.set_xlabel("mirrors opened (K)")
ax.set_ylabel("average player delay (ms), proven optimal")
ax.set_title(f"plan cma: {plan['instance']}")
ax.grid(alpha=0.3)
png = sys.argv[1] if len(sys.argv) > 1 else "plan-cma.png"
fig.savefig(png, dpi=120, bbox_inches="tight")
print(f"plot: {png}")
