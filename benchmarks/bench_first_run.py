"""First run of ``titop-lpv demo``: numba compilation, cache hits, import time.

Prints one table:

* ``import titop_lpv`` against ``import control`` (python-control), each in a fresh process
  (median of ``--repeat`` runs), with the bytecode cached as an installed package has it
  (a private ``PYTHONPYCACHEPREFIX``), and without bytecode (``PYTHONDONTWRITEBYTECODE=1``:
  every module compiled from source at every import);
* the first compiled kernel call of each specialisation (real, complex) with an empty numba
  cache, each in a fresh process (``TITOP_LPV_COMPILE=wait``: compiled in the process);
* ``titop-lpv demo`` with an empty numba cache (a fresh install): by default the numpy route
  serves it while a background process compiles the kernel; the time that compiler needs
  after the demo has ended; then the demo again with the cache it filled; and, for
  comparison, the demo on an empty cache with ``TITOP_LPV_COMPILE=wait`` (the behaviour
  before the background policy).

An empty cache is a new ``NUMBA_CACHE_DIR`` (numba then ignores the ``__pycache__`` files
next to the sources). Run from the repository root::

    OPENBLAS_NUM_THREADS=1 MPLBACKEND=Agg python benchmarks/bench_first_run.py

Timings are wall-clock and depend on the machine's load; no result is asserted.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time


def _run(code: list[str], env: dict[str, str]) -> float:
    """Wall-clock seconds of one fresh process."""
    start = time.perf_counter()
    subprocess.run(code, env=env, check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def _import_time(module: str, env: dict[str, str], repeat: int) -> float:
    code = [sys.executable, "-c", f"import {module}"]
    _run(code, env)  # warm the file system cache (and the bytecode cache, when written)
    return statistics.median(_run(code, env) for _ in range(repeat))


def _wait_for_compiler(lock_dir: str, limit: float = 900.0) -> float:
    """Seconds until no background compiler holds a lock file in ``lock_dir``."""
    start = time.perf_counter()
    while time.perf_counter() - start < limit:
        if not [name for name in os.listdir(lock_dir) if name.startswith("titop_lpv_compile_")]:
            break
        time.sleep(0.5)
    return time.perf_counter() - start


def _kernel_compile(dtype: str, env: dict[str, str]) -> float:
    """Seconds of the first compiled call (``dtype`` states) in a fresh process, empty cache."""
    # a model load may itself evaluate the kernel (its dynamics check): time the load and
    # the first call together, with the other specialisation absent from the cache
    run = f"""
import time, numpy as np
start = time.perf_counter()
from titop_lpv.cli.main import _load, BUILTIN
from titop_lpv.multibody.dynamics import forward_dynamics
model = _load(BUILTIN)
x = model.default_state().astype({dtype!r})
forward_dynamics(model, x[None], np.zeros((1, model.n_inputs), {dtype!r}), backend="compiled")
print(time.perf_counter() - start)
"""
    out = subprocess.run([sys.executable, "-c", run], env=env, check=True,
                         capture_output=True, text=True)
    return float(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="import timings (median)")
    parser.add_argument("--no-compile", action="store_true",
                        help="skip the per-specialisation compile timings (~1 min each)")
    args = parser.parse_args()
    base = dict(os.environ, OPENBLAS_NUM_THREADS="1", MPLBACKEND="Agg")
    base.pop("TITOP_LPV_COMPILE", None)
    rows: list[tuple[str, float]] = []
    with tempfile.TemporaryDirectory() as pyc:
        cached = {k: v for k, v in base.items() if k != "PYTHONDONTWRITEBYTECODE"}
        cached["PYTHONPYCACHEPREFIX"] = pyc
        t_control = _import_time("control", cached, args.repeat)
        t_ours = _import_time("titop_lpv", cached, args.repeat)
    rows += [("import control (bytecode cached)", t_control),
             ("import titop_lpv (bytecode cached)", t_ours), ("  difference", t_ours - t_control)]
    no_pyc = dict(base, PYTHONDONTWRITEBYTECODE="1")
    t_control = _import_time("control", no_pyc, args.repeat)
    t_ours = _import_time("titop_lpv", no_pyc, args.repeat)
    rows += [("import control (no bytecode)", t_control),
             ("import titop_lpv (no bytecode)", t_ours), ("  difference", t_ours - t_control)]
    wait = dict(base, TITOP_LPV_COMPILE="wait")
    if not args.no_compile:
        for dtype in ("float64", "complex128"):
            with tempfile.TemporaryDirectory() as cache:
                env = dict(wait, NUMBA_CACHE_DIR=cache)
                t_load = _kernel_compile("float64", env)  # fills the real specialisation
                t_dtype = t_load if dtype == "float64" else _kernel_compile(dtype, env)
                rows.append((f"model load + first kernel call, {dtype}, empty cache", t_dtype))
    with tempfile.TemporaryDirectory() as cache, tempfile.TemporaryDirectory() as out, \
            tempfile.TemporaryDirectory() as locks:
        env = dict(base, NUMBA_CACHE_DIR=cache, TMPDIR=locks)  # the lock file lives in TMPDIR
        demo = [sys.executable, "-m", "titop_lpv", "demo", "--out", out]
        rows.append(("titop-lpv demo, empty numba cache (fresh install)", _run(demo, env)))
        rows.append(("  background compiler, still running after the demo",
                     _wait_for_compiler(locks)))
        rows.append(("titop-lpv demo, cache filled by the compiler", _run(demo, env)))
    if not args.no_compile:
        with tempfile.TemporaryDirectory() as cache, tempfile.TemporaryDirectory() as out:
            env = dict(wait, NUMBA_CACHE_DIR=cache)
            demo = [sys.executable, "-m", "titop_lpv", "demo", "--out", out]
            rows.append(("titop-lpv demo, empty cache, TITOP_LPV_COMPILE=wait", _run(demo, env)))
    width = max(len(name) for name, _ in rows)
    print(f"{'what':<{width}}  {'seconds':>8}")
    print(f"{'-' * width}  {'-' * 8}")
    for name, value in rows:
        print(f"{name:<{width}}  {value:8.2f}")


if __name__ == "__main__":
    main()
