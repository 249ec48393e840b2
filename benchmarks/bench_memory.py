"""Peak memory of a long simulation of a large model (issue 25, item 7).

Each case runs in a fresh Python process (``subprocess``), which loads the branch system
of ``branch_system.py`` and simulates it with ``tl.simulate``'s default output grid
(1001 times); the child prints its maximum resident set size (``resource.getrusage``,
``ru_maxrss``) after the load and after the run, the number of evaluations and the bytes
of the stored states. The target: 0.05 s of 34 000 bodies (238 000 states, DOP853, the
default method) within 3 GB.

Usage::

    python benchmarks/bench_memory.py                       # 34 000 bodies, DOP853, 0.05 s
    python benchmarks/bench_memory.py --bodies 2000 --span 0.2
    python benchmarks/bench_memory.py --method RK4 --dt 5e-5  # 1001 points on RK4's grid
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

CHILD = r"""
import resource, sys, time
sys.path.insert(0, {here!r})
from branch_system import branch_system
import titop_lpv as tl

def rss():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6  # kB -> GB (Linux)

model = tl.load_model(branch_system({bodies}))
loaded = rss()
kw = {{"method": {method!r}}}
if {dt!r} is not None:
    kw["dt"] = {dt!r}
t = time.perf_counter()
traj = tl.simulate(model, (0.0, {span!r}), **kw)
run = time.perf_counter() - t
print(f"{{model.n_states}} states, {{len(traj.t)}} output times ({{traj.x.nbytes / 1e9:.2f}} GB "
      f"stored), {{traj.nfev}} evaluations, run {{run:.1f}} s; max RSS after the load "
      f"{{loaded:.2f}} GB, after the run {{rss():.2f}} GB")
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bodies", type=int, default=34000)
    ap.add_argument("--span", type=float, default=0.05, help="simulated time [s]")
    ap.add_argument("--method", default="DOP853")
    ap.add_argument("--dt", type=float, default=None, help="RK4's step [s]")
    args = ap.parse_args()
    code = CHILD.format(here=str(Path(__file__).resolve().parent), bodies=args.bodies,
                        span=args.span, method=args.method, dt=args.dt)
    print(f"branch system of {args.bodies} bodies, {args.span:g} s, {args.method}, "
          f"default output grid:", flush=True)
    subprocess.run([sys.executable, "-c", code], check=True)


if __name__ == "__main__":
    main()
