"""First run of ``titop-lpv demo``: numba compilation, cache hits, import time.

Prints one table:

* ``import titop_lpv`` against ``import control`` (python-control), each in a fresh process
  (median of ``--repeat`` runs), with the bytecode cached as an installed package has it
  (a private ``PYTHONPYCACHEPREFIX``), and without bytecode (``PYTHONDONTWRITEBYTECODE=1``:
  every module compiled from source at every import);
* the first compiled kernel call of each specialisation (real, complex) with an empty numba
  cache, each in a fresh process (``TITOP_LPV_COMPILE=wait``: compiled in the process);
* ``titop-lpv demo`` with an empty numba cache (a fresh install): by default the numpy route
  serves it while a background process compiles the kernel (median of ``--repeat`` runs,
  each on its own empty cache; the compilers of all runs but the last are stopped); the
  time that the last run's compiler needs after the demo has ended; then the demo again
  with the cache it filled; and, for comparison, the demo on an empty cache with
  ``TITOP_LPV_COMPILE=wait`` (the behaviour before the background policy).

An empty cache is a new ``NUMBA_CACHE_DIR`` (numba then ignores the ``__pycache__`` files
next to the sources). Run from the repository root::

    OPENBLAS_NUM_THREADS=1 MPLBACKEND=Agg python benchmarks/bench_first_run.py

Timings are wall-clock and depend on the machine's load (other processes, and the
background compiler on the second core); the ``cpu`` column is the processor time (user +
system) of the timed process itself, which load changes much less: on an idle machine its
wall time is about its cpu time. No result is asserted.
"""

from __future__ import annotations

import argparse
import os
import resource
import signal
import statistics
import subprocess
import sys
import tempfile
import time

Row = tuple[str, float, "float | None"]


def _run(code: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall-clock seconds of one fresh process, and its processor time (user + system)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(code, env=env, check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def _median(runs: list[tuple[float, float]]) -> tuple[float, float]:
    """Median wall time and median processor time of several runs."""
    return statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs)


def _import_time(module: str, env: dict[str, str], repeat: int) -> tuple[float, float]:
    code = [sys.executable, "-c", f"import {module}"]
    _run(code, env)  # warm the file system cache (and the bytecode cache, when written)
    return _median([_run(code, env) for _ in range(repeat)])


def _stop_compiler(lock_dir: str) -> None:
    """Stop the background compiler whose lock file (holding its pid) is in ``lock_dir``:
    a process that a timed demo started, in its own session."""
    for name in os.listdir(lock_dir):
        if not name.startswith("titop_lpv_compile_"):
            continue
        try:
            pid = int(open(os.path.join(lock_dir, name)).read().strip() or 0)
        except (OSError, ValueError):
            continue
        if pid > 0:
            try:
                os.killpg(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                continue
            deadline = time.monotonic() + 10.0
            while os.path.exists(f"/proc/{pid}") and time.monotonic() < deadline:
                time.sleep(0.05)


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


def _fresh_demo(env: dict[str, str], repeat: int) -> tuple[Row, Row, Row]:
    """The demo on an empty numba cache (median of ``repeat`` runs, each on its own cache),
    the time its background compiler still runs after the last run, and the demo again on
    the cache that compiler filled."""
    runs = []
    repeat = max(1, repeat)
    with tempfile.TemporaryDirectory() as out:
        for k in range(repeat):
            with tempfile.TemporaryDirectory() as cache, tempfile.TemporaryDirectory() as locks:
                run_env = dict(env, NUMBA_CACHE_DIR=cache, TMPDIR=locks)  # lock file: TMPDIR
                demo = [sys.executable, "-m", "titop_lpv", "demo", "--out", out]
                runs.append(_run(demo, run_env))
                if k < repeat - 1:
                    _stop_compiler(locks)
                    continue
                still = _wait_for_compiler(locks)
                filled = _run(demo, run_env)
    wall, cpu = _median(runs)
    return ((f"titop-lpv demo, empty numba cache (fresh install), median of {repeat}", wall, cpu),
            ("  background compiler, still running after the demo", still, None),
            ("titop-lpv demo, cache filled by the compiler", *filled))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5,
                        help="import timings and demos on an empty cache (median)")
    parser.add_argument("--no-compile", action="store_true",
                        help="skip the per-specialisation compile timings (~1 min each)")
    args = parser.parse_args()
    base = dict(os.environ, OPENBLAS_NUM_THREADS="1", MPLBACKEND="Agg")
    base.pop("TITOP_LPV_COMPILE", None)
    rows: list[Row] = []
    no_pyc = dict(base, PYTHONDONTWRITEBYTECODE="1")
    with tempfile.TemporaryDirectory() as pyc:
        cached = {k: v for k, v in base.items() if k != "PYTHONDONTWRITEBYTECODE"}
        cached["PYTHONPYCACHEPREFIX"] = pyc
        c_control = _import_time("control", cached, args.repeat)
        c_ours = _import_time("titop_lpv", cached, args.repeat)
        n_control = _import_time("control", no_pyc, args.repeat)
        n_ours = _import_time("titop_lpv", no_pyc, args.repeat)
        rows += [("import control (bytecode cached)", *c_control),
                 ("import titop_lpv (bytecode cached)", *c_ours),
                 ("  difference", c_ours[0] - c_control[0], c_ours[1] - c_control[1]),
                 ("import control (no bytecode)", *n_control),
                 ("import titop_lpv (no bytecode)", *n_ours),
                 ("  difference", n_ours[0] - n_control[0], n_ours[1] - n_control[1])]
        if not args.no_compile:
            wait = dict(base, TITOP_LPV_COMPILE="wait")
            for dtype in ("float64", "complex128"):
                with tempfile.TemporaryDirectory() as cache:
                    env = dict(wait, NUMBA_CACHE_DIR=cache)
                    t_load = _kernel_compile("float64", env)  # fills the real specialisation
                    t_dtype = t_load if dtype == "float64" else _kernel_compile(dtype, env)
                    rows.append((f"model load + first kernel call, {dtype}, empty cache",
                                 t_dtype, None))
        # an installed package has the bytecode of every module: one demo writes it (its
        # compiler stopped), then the timed demos read it
        with tempfile.TemporaryDirectory() as cache, tempfile.TemporaryDirectory() as out, \
                tempfile.TemporaryDirectory() as locks:
            _run([sys.executable, "-m", "titop_lpv", "demo", "--out", out],
                 dict(cached, NUMBA_CACHE_DIR=cache, TMPDIR=locks))
            _stop_compiler(locks)
        rows += _fresh_demo(cached, args.repeat)
    with tempfile.TemporaryDirectory() as cache, tempfile.TemporaryDirectory() as out, \
            tempfile.TemporaryDirectory() as locks:
        env = dict(no_pyc, NUMBA_CACHE_DIR=cache, TMPDIR=locks)
        rows.append(("titop-lpv demo, empty numba cache, no bytecode",
                     *_run([sys.executable, "-m", "titop_lpv", "demo", "--out", out], env)))
        _stop_compiler(locks)
    if not args.no_compile:
        with tempfile.TemporaryDirectory() as cache, tempfile.TemporaryDirectory() as out:
            env = dict(base, TITOP_LPV_COMPILE="wait", NUMBA_CACHE_DIR=cache)
            demo = [sys.executable, "-m", "titop_lpv", "demo", "--out", out]
            rows.append(("titop-lpv demo, empty cache, TITOP_LPV_COMPILE=wait", *_run(demo, env)))
    width = max(len(name) for name, _, _ in rows)
    print(f"{'what':<{width}}  {'wall s':>8}  {'cpu s':>8}")
    print(f"{'-' * width}  {'-' * 8}  {'-' * 8}")
    for name, wall, cpu in rows:
        print(f"{name:<{width}}  {wall:8.2f}  {'' if cpu is None else f'{cpu:8.2f}':>8}")


if __name__ == "__main__":
    main()
