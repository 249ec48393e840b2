"""Cost per body of ``tl.load_model`` on the branch systems, from 10³ to 3.4·10⁴ bodies.

Each size runs in a fresh Python process (``subprocess``): the package imported and a
100-body model loaded first (imports, numba's cached kernel), then the model dict of
``branch_system.py`` loaded ``--repeat`` times (a new dict each time, the collector run
before each). The child prints, per body, the best wall time (``time.perf_counter``) and
the best CPU time of the process (``time.process_time``: user + system, all threads) and
its parts (reading the dict, validation, ``Model()``, the reference evaluation, in CPU
time). The last line gives the per-body cost ratio largest / smallest size: flat (≤ 1.3)
means linear loading.

On a shared machine the wall time measures the other jobs as much as the load: a run of
1.5 s is descheduled as often as the load average makes it, while the best of three runs of
50 ms is likely to find a quiet moment. The CPU time does not count the time spent waiting
for a core; the script also prints the load average and, as a control, the wall/CPU ratio
of a pure-Python busy loop of 1 s.

Usage::

    python benchmarks/bench_load.py                      # 1 000, 10 000, 34 000 bodies
    python benchmarks/bench_load.py --bodies 1000 100000 --repeat 2
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

CHILD = r"""
import gc, json, sys, time
sys.path.insert(0, {here!r})
from branch_system import branch_system
import titop_lpv as tl
from titop_lpv.model.compiled import Model, reference_check
from titop_lpv.model.records import gc_paused
from titop_lpv.model.validate import check

tl.load_model(branch_system(100))
n = {bodies}
wall = cpu = float("inf")
parts = [float("inf")] * 4
for _ in range({repeat}):
    data = branch_system(n)
    gc.collect()
    w, c = time.perf_counter(), time.process_time()
    model = tl.load_model(data)
    wall, cpu = min(wall, time.perf_counter() - w), min(cpu, time.process_time() - c)
    del model
    data = branch_system(n)
    gc.collect()
    t0 = time.process_time()
    system = tl.System.from_dict(data)  # as load_model does, step by step
    t1 = time.process_time()
    with gc_paused():
        plan = check(system)
        t2 = time.process_time()
        model = Model(system, plan)
        t3 = time.process_time()
    reference_check(model)
    t4 = time.process_time()
    parts = [min(a, b) for a, b in zip(parts, (t1 - t0, t2 - t1, t3 - t2, t4 - t3))]
    del model, system, plan
print(json.dumps({{"wall": wall / n, "cpu": cpu / n, "parts": [p / n for p in parts]}}))
"""


def busy_ratio(seconds: float = 1.0) -> float:
    """Wall time / CPU time of a pure-Python loop running ``seconds`` of CPU."""
    c0, w0, x = time.process_time(), time.perf_counter(), 0
    while time.process_time() - c0 < seconds:
        for i in range(10000):
            x += i
    return (time.perf_counter() - w0) / (time.process_time() - c0)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bodies", type=int, nargs="+", default=[1000, 10000, 34000])
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    here = str(Path(__file__).resolve().parent)
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs; busy-loop "
          f"wall/CPU {busy_ratio():.2f}")
    print(f"{'bodies':>8} {'wall [us/body]':>15} {'CPU [us/body]':>14}   CPU parts [us/body]: "
          "read, validate, Model(), reference")
    rows = []
    for n in args.bodies:
        out = subprocess.run([sys.executable, "-c", CHILD.format(here=here, bodies=n,
                                                                 repeat=args.repeat)],
                             check=True, capture_output=True, text=True).stdout
        r = json.loads(out.strip().splitlines()[-1])
        rows.append(r)
        parts = ", ".join(f"{1e6 * p:.1f}" for p in r["parts"])
        print(f"{n:8d} {1e6 * r['wall']:15.1f} {1e6 * r['cpu']:14.1f}   {parts}", flush=True)
    print(f"per-body ratio {args.bodies[-1]} / {args.bodies[0]} bodies: wall "
          f"{rows[-1]['wall'] / rows[0]['wall']:.2f}, CPU {rows[-1]['cpu'] / rows[0]['cpu']:.2f} "
          f"(load average now {os.getloadavg()[0]:.1f})")


if __name__ == "__main__":
    main()
