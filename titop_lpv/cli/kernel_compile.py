"""``titop-lpv compile``: fill numba's disk cache with the dynamics kernel, ahead of time.

The compiled kernel (:mod:`titop_lpv.multibody.kernel`) has two specialisations: real
states (simulation, trim) and complex states (the complex-step Jacobians of ``linearize``),
a one-state entry with packed arguments (:mod:`titop_lpv.multibody.kernel_pack`) and the
complex-step rows of ``linearize`` in one call (:mod:`titop_lpv.multibody.kernel_rows`);
the sensor outputs (:mod:`titop_lpv.multibody.sensor_kernel`) two more, and the analytic
Jacobians of fixed-base revolute and prismatic trees
(:mod:`titop_lpv.multibody.derivatives_kernel`) one. Each takes numba 20–60 s to
compile once per installation; a session that finds neither
serves small models by the numpy recursion and starts this command in the background
(:mod:`titop_lpv.multibody.kernel_ready`). Run it after installation, or when building a
container image, so that no session has to.

Examples
--------
::

    titop-lpv compile
    python -m titop_lpv compile
"""

from __future__ import annotations

import argparse
import contextlib
import os
import time
from collections.abc import Iterator
from importlib.resources import as_file, files
from typing import Any

import numpy as np

from ..analysis import linearize_fast
from ..model import load_model
from ..multibody import derivatives_kernel, kernel, kernel_pack, sensor_kernel
from ..multibody.dynamics import forward_dynamics
from ..multibody.kernel_ready import LOCK_STALE_S, POLICY_ENV, lock_path

__all__ = ["COMMAND", "OPTIONS", "cmd_compile", "compile_kernel", "compile_lock"]

DTYPES = {"real": np.float64, "complex": np.complex128}


def compile_kernel() -> list[tuple[str, str, float]]:
    """Compile (or load from the disk cache) both specialisations of the kernel, its one-state
    call with packed arguments, both specialisations of the sensor kernel, and the analytic
    Jacobians of fixed-base trees.

    Returns
    -------
    list of (str, str, float)
        ``(what, how, seconds)`` for the kernel's ``"real"`` and ``"complex"`` states, its
        ``"one state (packed arguments)"`` (:mod:`titop_lpv.multibody.kernel_pack`), the
        sensors' (``"sensors (real states)"``, ``"sensors (complex states)"``),
        ``"linearisation rows (one compiled call)"``
        (:func:`titop_lpv.analysis.linearize_fast.compile_fused`) and
        ``"Jacobian (analytic derivatives)"``, ``how`` being ``"loaded from the cache"`` or
        ``"compiled"``.
    """
    previous = os.environ.get(POLICY_ENV)
    os.environ[POLICY_ENV] = "wait"  # the model check below must not start another compiler
    try:
        with as_file(files("titop_lpv") / "data" / "balloon.toml") as path:
            model = load_model(path)
    finally:
        if previous is None:
            del os.environ[POLICY_ENV]
        else:
            os.environ[POLICY_ENV] = previous
    args = kernel.kernel_data(model, model.physics()).args
    timings = []
    for kind, dtype in DTYPES.items():
        start = time.perf_counter()
        how = "loaded from the cache" if kernel.load_cached(dtype, args) else "compiled"
        x = model.default_state().astype(dtype)[None]
        for _ in range(2):  # the first run compiles the allocating entry, the second the
            # entry with kept work arrays (large models)
            forward_dynamics(model, x, np.zeros((1, model.n_inputs), dtype), backend="compiled")
        timings.append((kind, how, time.perf_counter() - start))
    start = time.perf_counter()  # the one-state call with packed arguments (model.dynamics)
    how = "loaded from the cache" if kernel_pack.load_cached(False) else "compiled"
    kernel_pack.load_cached(True)
    timings.append(("one state (packed arguments)", how, time.perf_counter() - start))
    for kind, dtype in DTYPES.items():  # the sensor outputs (model.outputs, C and D)
        start = time.perf_counter()
        how = "loaded from the cache" if sensor_kernel.load_cached(dtype) else "compiled"
        x = model.default_state().astype(dtype)[None]
        sensor_kernel.evaluate(sensor_kernel.sensor_data(model, model.physics()), x, x,
                               model.n_outputs)
        timings.append((f"sensors ({kind} states)", how, time.perf_counter() - start))
    start = time.perf_counter()  # linearize's complex-step rows in one call (kernel_rows)
    found = linearize_fast.compile_fused(model)
    timings.append(("linearisation rows (one compiled call)",
                    "loaded from the cache" if found else "compiled",
                    time.perf_counter() - start))
    start = time.perf_counter()  # the analytic Jacobians of fixed-base revolute trees
    how = "loaded from the cache" if derivatives_kernel.load_cached() else "compiled"
    chain = load_model({"name": "link", "bodies": [
        {"name": "link", "joint": {"type": "revolute", "axis": [0.0, 0.0, 1.0]}, "mass": 1.0,
         "inertia": [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]}]})
    derivatives_kernel.tangent_sweep(chain, chain.physics(), np.zeros(2), np.zeros(1))
    timings.append(("Jacobian (analytic derivatives)", how, time.perf_counter() - start))
    return timings


@contextlib.contextmanager
def compile_lock() -> Iterator[bool]:
    """Hold the lock file of the background compiler (:func:`.kernel_ready.lock_path`).

    Yields
    ------
    bool
        True while this process holds the lock (removed on exit); False when another
        process holds a lock younger than :data:`~titop_lpv.multibody.kernel_ready.LOCK_STALE_S`
        (an older one is taken over).
    """
    path = lock_path()
    try:
        fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
    except FileExistsError:
        try:
            stale = time.time() - path.stat().st_mtime >= LOCK_STALE_S
        except OSError:
            stale = True  # removed meanwhile: its compiler has finished
        if not stale:
            yield False
            return
        path.unlink(missing_ok=True)
        fd = os.open(path, os.O_CREAT | os.O_WRONLY | os.O_TRUNC, 0o644)
    try:
        os.write(fd, str(os.getpid()).encode())
        os.close(fd)
        yield True
    finally:
        path.unlink(missing_ok=True)


def cmd_compile(args: argparse.Namespace) -> int:
    """Compile the kernel into the cache; print the time of each specialisation.

    Parameters
    ----------
    args : argparse.Namespace
        ``background`` (bool): quiet, and nothing done when another compiler runs.

    Returns
    -------
    int
        0 on success (errors are raised and reported by the command line).
    """
    if args.background:
        with compile_lock() as mine:
            if mine:
                compile_kernel()
        return 0
    for kind, how, seconds in compile_kernel():
        what = f"kernel for {kind} states" if kind in DTYPES else kind
        print(f"{what}: {how} in {seconds:.1f} s")
    print("cached on disk: later sessions load it")
    return 0


OPTIONS: dict[str, list[tuple[str, dict[str, Any]]]] = {"compile": [
    ("--background", {"action": "store_true",
                      "help": "quiet; do nothing when another compiler is running (what a "
                      "session starts by itself)"}),
]}
COMMAND = ("compile", cmd_compile, "compile the dynamics kernel into numba's cache (once after "
           "installation)", "", ())
