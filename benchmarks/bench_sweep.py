"""Timings of the batched trim-and-linearise sweep, against the point-by-point route.

The 1 000-point ``tl.linearize_sweep`` of the balloon (``examples/balloon.toml`` with its
slider joint actuated) over the slider stiffness k ∈ [25, 100] N/m (input ``slider_tau``,
output ``pendulum2_q``, pure integrators dropped), as in ``bench_linearize.py`` (c):

- "batched": the sweep as it runs (blocks of points trimmed and linearised together,
  :mod:`titop_lpv.analysis.sweep_batch` and :mod:`titop_lpv.analysis.sweep_linear`);
- "point by point": the same sweep with the batched route switched off
  (``sweep_batch.BATCH_BODIES = 0``): every point trimmed and linearised on its own, the
  route before;

each serially and on a ``ProcessPoolExecutor(2)`` (pool start-up included), best of
``--runs`` runs (default 3); and the largest difference of ``[A B; C D]`` and of the
trimmed states between the two routes (they must agree to rounding: same equilibria within
the trim's tolerance).

On a shared machine the wall time of the pool depends on what else runs; the CPU times are
printed too: of the main process (the grid set-up, the chunk heads, the state-space
models: serial work) and of the two workers together (``resource.getrusage`` of the
children), and "quiet estimate" = main CPU + workers' CPU / 2: the wall time on two idle
cores with the chunks evenly shared.

Usage::

    python benchmarks/bench_sweep.py [--points N] [--runs R] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

import titop_lpv as tl
from titop_lpv.analysis import sweep_batch

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_linearize import (
    FIXED,
    FREE,
    HANGING,
    SWEEP_OPTS,
    TARGET_SWEEP_S,
    _grid_diff,
    balloon_actuated,
)


def run(model: tl.Model, n: int, processes: int) -> tuple[dict[str, float], tl.LPVGrid]:
    """One ``linearize_sweep`` of ``n`` points (pool start-up included): wall time, CPU time
    of this process and of the pool's workers [s]."""
    ks = {"k": np.linspace(25.0, 100.0, n)}
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    start, cpu = time.perf_counter(), time.process_time()
    if processes:
        with ProcessPoolExecutor(processes) as ex:
            grid = tl.linearize_sweep(model, ks, FREE, FIXED, guess=HANGING, progress=False,
                                      executor=ex, **SWEEP_OPTS)
    else:
        grid = tl.linearize_sweep(model, ks, FREE, FIXED, guess=HANGING, progress=False,
                                  **SWEEP_OPTS)
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    workers = (after.ru_utime + after.ru_stime) - (children.ru_utime + children.ru_stime)
    quiet = cpu + workers / max(processes, 1)
    return {"wall": wall, "main_cpu": cpu, "workers_cpu": workers, "quiet": quiet}, grid


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--points", type=int, default=1000, help="grid points (default 1000)")
    parser.add_argument("--runs", type=int, default=3, help="runs of each case (best kept)")
    parser.add_argument("--json", metavar="FILE", help="save the numbers as JSON")
    args = parser.parse_args(argv)
    model = balloon_actuated()
    run(model, 8, 0)  # compile and warm up
    rows: dict[str, dict[str, float]] = {}
    grids = {}
    batch_bodies = sweep_batch.BATCH_BODIES
    for label, bodies in (("batched", batch_bodies), ("point by point", 0)):
        sweep_batch.BATCH_BODIES = bodies  # 0: the batched route serves no model
        for procs in (0, 2):
            key = f"{label}, {'serial' if not procs else f'{procs} processes'}"
            for _ in range(args.runs):
                t, grids[label, procs] = run(model, args.points, procs)
                if key not in rows or t["wall"] < rows[key]["wall"]:
                    rows[key] = t
    sweep_batch.BATCH_BODIES = batch_bodies
    new, old = grids["batched", 2], grids["point by point", 0]
    diff_abcd = _grid_diff(new, old)
    diff_x = float(np.max(np.abs(np.stack([op.x for op in new.sweep])
                                 - np.stack([op.x for op in old.sweep]))))
    print(f"linearize_sweep of the balloon over k in [25, 100], {args.points} points, "
          f"best of {args.runs} (load average before: {open('/proc/loadavg').read().split()[0]})")
    print(f"  {'case':32s} {'wall':>8s} {'per point':>10s} {'main CPU':>9s} "
          f"{'workers CPU':>11s} {'quiet est.':>10s}")
    for label, t in rows.items():
        print(f"  {label:32s} {t['wall']:7.3f}s {t['wall'] / args.points * 1e3:7.3f} ms "
              f"{t['main_cpu']:8.3f}s {t['workers_cpu']:10.3f}s {t['quiet']:9.3f}s")
    print(f"  max |Δ[A B; C D]| batched (2 processes) vs point by point (serial): {diff_abcd:.1e}")
    print(f"  max |Δx| of the equilibria: {diff_x:.1e}")
    par = rows["batched, 2 processes"]
    est, quiet = par["wall"] * 1000 / args.points, par["quiet"] * 1000 / args.points
    print(f"  target <= {TARGET_SWEEP_S} s per 1 000 points on 2 processes: wall "
          f"{'yes' if est <= TARGET_SWEEP_S else 'NO'} ({est:.3g} s), quiet estimate "
          f"{'yes' if quiet <= TARGET_SWEEP_S else 'NO'} ({quiet:.3g} s)")
    if args.json:
        Path(args.json).write_text(json.dumps({"points": args.points, "runs": rows,
                                               "max_diff_abcd": diff_abcd,
                                               "max_diff_x": diff_x}, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
