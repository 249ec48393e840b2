"""Linearisation timings and accuracy of ``titop_lpv``, side by side with python-control.

Measured on the balloon of ``examples/balloon.toml`` with its slider joint actuated (input
``slider_tau``), at the hanging equilibrium found by ``tl.trim`` (k = 50 N/m):

(a) ``tl.linearize(model, op)``: all 18 states, the input, the 9 default outputs (complex-step
    Jacobians, one batched evaluation); time per call;
(b) ``control.linearize(nlsys, op.x, op.u)`` with ``nlsys = model.to_nlsys()`` built once
    outside the timed loop (python-control's one-sided finite difference, step 1e-6, one
    model evaluation per direction); time per call;

    both compared with an independent reference Jacobian [A B; C D]: central differences
    at the steps h/2, h/4, h/8 (h = 1e-2), Richardson-extrapolated twice (truncation error
    O(h⁶)); the same from h, h/2, h/4 gives a second estimate, and the gap between the two
    estimates the reference's own error (printed with it). The difference
    tl − python-control is printed too;
(a') where the time of (a) goes: the rows of ``analysis.linearize_fast`` (what
    ``tl.linearize`` runs: the batch, both compiled kernels and ``[A B; C D]`` in one compiled
    call, ``multibody.kernel_rows``; and the same with numpy between the kernels' entry
    points); ``jacobians`` (the general route) without and with the outputs;
    ``linear_matrices`` (no ``StateSpace``); both compiled kernels on the 20 complex-step
    rows with the Python around them (``analysis.complex_step.evaluate``); the compiled
    dynamics kernel alone (its entry point, no Python: the floor; the 17 rows it evaluates,
    the 3 base-position directions being exactly the unperturbed row) and the sensor kernel
    alone; the same rows through the general routes ``forward_dynamics`` and
    ``evaluate_outputs``; the ``StateSpace`` as ``named_statespace`` builds it (a copy of a
    cached template) and by python-control's constructor; the outputs by the numpy
    recursion and ``tl.linearize`` on that route ("before the sensor kernel");
(c) ``tl.linearize_sweep`` over k ∈ [25, 100] (1 000 points; 100 with ``--quick``): trim by
    continuation and linearise every point (input ``slider_tau``, output ``pendulum2_q``,
    pure integrators dropped), serially and with a ``ProcessPoolExecutor(2)`` (pool start-up
    included); total and per-point wall time, and the largest difference between the two.
    "before": the two stages of the previous implementation in the same run (``trim_sweep``,
    then ``linearize`` of every point, each point's parameters resolved again), serially.

Timings: ``time.perf_counter``; (a) and (b) repeat the call until one run lasts at least
0.2 s and report the best of 3 runs, with this thread's CPU time in the same runs
(``time.thread_time``: without the time other processes had the core, so on a shared,
loaded machine the closer to an idle machine's wall time); (c) is one run of each.

Usage::

    python benchmarks/bench_linearize.py [--quick] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import sys
import time
import warnings
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import control
import numpy as np

import titop_lpv as tl
from titop_lpv.model import read_description

ROOT = Path(__file__).resolve().parent.parent
BALLOON_FILE = ROOT / "examples" / "balloon.toml"

MIN_RUN_TIME = 0.2  # s, minimum duration of one timed run
RUNS = 3  # best of
FREE = ["balloon.phi", "balloon.theta", "slider.q", "pendulum1.q", "pendulum2.q"]
FIXED = {"balloon.x": 0.0, "balloon.z": 0.0, "balloon.psi": 0.0}
HANGING = {"pendulum1.q": 0.2, "pendulum2.q": -0.2}
SWEEP_OPTS = {"inputs": ["slider_tau"], "outputs": ["pendulum2_q"], "drop_integrators": True}
REF_STEP = 1e-2  # largest central-difference step of the reference Jacobian

# targets (issue 16)
TARGET_LINEARIZE_S = 0.2e-3  # per balloon linearisation
TARGET_SWEEP_S = 0.5  # 1 000 trim + linearise points on 2 processes, start-up included


# --------------------------------------------------------------------------------------------
# timing
# --------------------------------------------------------------------------------------------
def _run(fn: Callable[[], Any], number: int, cpu: list[float] | None = None) -> float:
    """Wall time of ``number`` calls; their CPU time (this thread's) appended to ``cpu``."""
    start, start_cpu = time.perf_counter(), time.thread_time()
    for _ in range(number):
        fn()
    if cpu is not None:
        cpu.append(time.thread_time() - start_cpu)
    return time.perf_counter() - start


def measure(fn: Callable[[], Any]) -> dict[str, float]:
    """Best time per call of ``fn`` over ``RUNS`` runs of at least ``MIN_RUN_TIME`` each:
    wall time (``best``) and this thread's CPU time (``best_cpu``: the time the call ran,
    without the time other processes had the core; on a loaded machine the closer to an
    idle machine's wall time)."""
    estimate = _run(fn, 1)
    number = max(1, math.ceil(MIN_RUN_TIME / max(estimate, 1e-9)))
    while True:
        cpu: list[float] = []
        elapsed = _run(fn, number, cpu)
        if elapsed >= MIN_RUN_TIME:
            break
        number = max(number * 2, math.ceil(1.2 * number * MIN_RUN_TIME / max(elapsed, 1e-9)))
    times = [elapsed / number] + [_run(fn, number, cpu) / number for _ in range(RUNS - 1)]
    return {"best": min(times), "best_cpu": min(cpu) / number, "number": number,
            "runs": len(times)}


def fmt_time(seconds: float | None) -> str:
    """Human-readable duration (``-`` for None)."""
    if seconds is None or not math.isfinite(seconds):
        return "-"
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6)):
        if seconds >= scale:
            return f"{seconds / scale:.3g} {unit}"
    return f"{seconds / 1e-9:.3g} ns"


# --------------------------------------------------------------------------------------------
# model and reference Jacobian
# --------------------------------------------------------------------------------------------
def balloon_actuated() -> tl.Model:
    """The balloon with an actuated slider (input ``slider_tau``)."""
    d = read_description(BALLOON_FILE)
    d["bodies"][1]["joint"]["actuated"] = True
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tl.TitopWarning)  # the paper's inertia: expected
        return tl.load_model(d)


def _stacked(model: tl.Model, z: np.ndarray, params: np.ndarray) -> np.ndarray:
    """``[f; h]`` at the points ``z = [x, u]`` (batched, real)."""
    n_x = model.n_states
    x, u = z[..., :n_x], z[..., n_x:]
    return np.concatenate([model.dynamics(0.0, x, u, params),
                           model.outputs(0.0, x, u, params)], axis=-1)


def reference_jacobian(model: tl.Model, x: np.ndarray, u: np.ndarray,
                       params: np.ndarray) -> tuple[np.ndarray, float]:
    """``[A B; C D]`` by Richardson-extrapolated central differences.

    Central differences ``D(h)`` at h = ``REF_STEP`` / 2ᵏ, k = 0..3; two Richardson steps
    (``(4 D(h/2) − D(h)) / 3``, then ``(16 R(h/2) − R(h)) / 15``) remove the h² and h⁴
    terms. The result uses the three smallest steps; the same extrapolation from the three
    largest steps gives a second estimate, and their largest difference is returned as an
    estimate of the reference's error.
    """
    z0 = np.concatenate([x, u])
    n = z0.size
    levels = []
    for k in range(4):
        h = REF_STEP / 2**k
        E = h * np.eye(n)
        fp = _stacked(model, z0 + E, params)  # row j: z0 + h e_j
        fm = _stacked(model, z0 - E, params)
        levels.append(((fp - fm) / (2 * h)).T)

    def extrapolate(d: list[np.ndarray]) -> np.ndarray:
        r = [(4 * d[k + 1] - d[k]) / 3 for k in range(2)]
        return (16 * r[1] - r[0]) / 15

    fine, coarse = extrapolate(levels[1:]), extrapolate(levels[:3])
    return fine, float(np.max(np.abs(fine - coarse)))


def _block(sys: control.StateSpace) -> np.ndarray:
    return np.block([[sys.A, sys.B], [sys.C, sys.D]])


def _grid_diff(g1: tl.LPVGrid, g2: tl.LPVGrid) -> float:
    worst = 0.0
    for s1, s2 in zip(g1.systems.flat, g2.systems.flat):
        if (s1 is None) != (s2 is None):
            return math.inf
        if s1 is not None:
            worst = max(worst, float(np.max(np.abs(_block(s1) - _block(s2)))))
    return worst


def _breakdown(model: tl.Model, op: tl.OperatingPoint) -> dict[str, tuple[float, float]]:
    """Best (wall, CPU) times per call of the parts of ``tl.linearize`` (see (a') in the
    module doc)."""
    from titop_lpv.analysis import complex_step, linearize_fast
    from titop_lpv.analysis.linearize import jacobians, linear_matrices, named_statespace
    from titop_lpv.multibody import kernel, sensor_kernel
    from titop_lpv.multibody.dynamics import evaluate_outputs, forward_dynamics

    p = op.param_vector
    ph = model.physics(p)
    X, U = complex_step.perturbed(op.x, op.u)
    F = forward_dynamics(model, X, U, p)
    rows = complex_step.translation_rows(model)
    Xk, Uk = (X, U) if rows is None else (X[rows[0]], U[rows[0]])
    data = kernel.kernel_data(model, ph)
    work = (Xk, Uk, *data.args, np.zeros(Xk.shape, dtype=complex),
            *kernel.workspace(len(model.body_names), complex))
    kernel.run(data, Xk, Uk)
    entry = kernel.work_entry_point(work)
    sdata = sensor_kernel.sensor_data(model, ph)
    sargs = (X, F, np.zeros((len(X), model.n_outputs), dtype=complex), np.complex128(1j),
             *sdata.args)
    lin = linear_matrices(model, op)
    names = {"states": list(lin.state_names), "inputs": list(lin.input_names),
             "outputs": list(lin.output_names)}
    plan = linearize_fast.plan(model, ph, op.x, op.u)
    glue = plan._replace(fused=None) if plan is not None else None
    real_plan = linearize_fast.plan

    def numpy_glue() -> Any:  # linearize_fast.rows without its fused compiled call
        linearize_fast.plan = lambda *args: glue
        try:
            return linearize_fast.rows(model, ph, op.x, op.u)
        finally:
            linearize_fast.plan = real_plan

    timed = {
        "linearize_fast.rows: one compiled call (batch, both kernels, matrices)": measure(
            lambda: linearize_fast.rows(model, ph, op.x, op.u))
        if plan is not None and plan.fused is not None else {},
        "linearize_fast.rows: the kernels' entry points, numpy between them": measure(
            numpy_glue) if glue is not None else {},
        "jacobians, no outputs": measure(lambda: jacobians(model, op.x, op.u, p,
                                                           outputs=False)),
        "jacobians": measure(lambda: jacobians(model, op.x, op.u, p)),
        "linear_matrices (jacobians + selection, no StateSpace)": measure(
            lambda: linear_matrices(model, op)),
        f"both kernels on the {len(X)} complex-step rows, with their Python": measure(
            lambda: complex_step.evaluate(model, ph, X, U, True)),
        f"compiled dynamics kernel alone, {len(Xk)} rows (base position's skipped)": measure(
            lambda: entry(*work)) if entry is not None else {},
        f"compiled sensor kernel alone, {len(X)} rows": measure(
            lambda: sensor_kernel._compiled()(*sargs)),
        f"forward dynamics, {len(X)} complex states, general route": measure(
            lambda: forward_dynamics(model, X, U, p)),
        f"outputs, {len(X)} complex states, general route": measure(
            lambda: evaluate_outputs(model, X, U, p, xdot=F)),
        "named_statespace (copy of a cached template)": measure(
            lambda: named_statespace(lin.A, lin.B, lin.C, lin.D, name="s", **names)),
        "control.StateSpace constructor alone": measure(
            lambda: control.StateSpace(lin.A, lin.B, lin.C, lin.D, name="s", **names)),
    }
    out = {label: (t.get("best", math.nan), t.get("best_cpu", math.nan))
           for label, t in timed.items()}
    ready, fast = sensor_kernel.ready, (linearize_fast.default_system, linearize_fast.matrices)
    sensor_kernel.ready = lambda n_bodies, dtype: False  # the numpy route of the outputs
    linearize_fast.default_system = linearize_fast.matrices = lambda *args: None  # jacobians
    try:
        for label, fn in ((f"outputs, {len(X)} complex states, numpy (before the sensor "
                           "kernel)", lambda: evaluate_outputs(model, X, U, p, xdot=F)),
                          ("tl.linearize, numpy outputs (before the sensor kernel)",
                           lambda: tl.linearize(model, op))):
            t = measure(fn)
            out[label] = (t["best"], t["best_cpu"])
    finally:
        sensor_kernel.ready = ready
        linearize_fast.default_system, linearize_fast.matrices = fast
    return out


def _two_stage_sweep(model: tl.Model, ks: dict[str, np.ndarray]) -> tl.LPVGrid:
    """The previous ``linearize_sweep``: ``trim_sweep``, then ``linearize`` at every point."""
    sweep = tl.trim_sweep(model, ks, FREE, FIXED, guess=HANGING, progress=False)
    good = [idx for idx in np.ndindex(*sweep.shape) if sweep[idx].success]
    first = tl.linearize(model, sweep[good[0]], **SWEEP_OPTS)
    names = (first.state_labels, first.input_labels, first.output_labels)
    systems = np.empty(sweep.shape, dtype=object)
    for idx in good:
        systems[idx] = tl.linearize(model, sweep[idx], names[1], names[2], states=names[0])
    return tl.LPVGrid(sweep, systems, *map(tuple, names))


# --------------------------------------------------------------------------------------------
# main
# --------------------------------------------------------------------------------------------
def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="100-point sweep (not 1 000)")
    parser.add_argument("--json", metavar="FILE", help="save the numbers as JSON")
    args = parser.parse_args(argv)
    n_sweep = 100 if args.quick else 1000

    model = balloon_actuated()
    op = tl.trim(model, free=FREE, fixed=FIXED, guess=HANGING)
    p = op.param_vector
    ref, ref_err = reference_jacobian(model, op.x, op.u, p)
    scale = float(np.max(np.abs(ref)))

    # (a) titop_lpv
    tl_sys = tl.linearize(model, op)
    tl_time = measure(lambda: tl.linearize(model, op))
    tl_err = float(np.max(np.abs(_block(tl_sys) - ref)))
    print("  measured tl.linearize", file=sys.stderr, flush=True)

    # (a') breakdown, and the numpy output route (before the sensor kernel)
    breakdown = _breakdown(model, op)
    print("  measured the breakdown", file=sys.stderr, flush=True)

    # (b) python-control
    nlsys = model.to_nlsys()
    pc_sys = control.linearize(nlsys, op.x, op.u)
    pc_time = measure(lambda: control.linearize(nlsys, op.x, op.u))
    pc_err = float(np.max(np.abs(_block(pc_sys) - ref)))
    tl_pc = float(np.max(np.abs(_block(tl_sys) - _block(pc_sys))))
    print("  measured control.linearize", file=sys.stderr, flush=True)

    # (c) sweeps
    ks = {"k": np.linspace(25.0, 100.0, n_sweep)}
    start = time.perf_counter()
    serial = tl.linearize_sweep(model, ks, FREE, FIXED, guess=HANGING, progress=False,
                                **SWEEP_OPTS)
    serial_s = time.perf_counter() - start
    print("  measured serial sweep", file=sys.stderr, flush=True)
    start = time.perf_counter()
    with ProcessPoolExecutor(2) as ex:
        par = tl.linearize_sweep(model, ks, FREE, FIXED, guess=HANGING, progress=False,
                                 executor=ex, **SWEEP_OPTS)
    par_s = time.perf_counter() - start
    print("  measured parallel sweep", file=sys.stderr, flush=True)
    start = time.perf_counter()
    before = _two_stage_sweep(model, ks)
    before_s = time.perf_counter() - start
    before_diff = _grid_diff(serial, before)
    print("  measured the two-stage sweep (before)", file=sys.stderr, flush=True)
    n_ok = int(np.sum(serial.sweep.success)), int(np.sum(par.sweep.success))
    par_diff = _grid_diff(serial, par)
    sweep_1000 = par_s * 1000 / n_sweep  # estimate for 1 000 points (exact when not quick)

    # ---------------------------------------------------------------- table
    shape = f"{tl_sys.A.shape[0]} states, {tl_sys.B.shape[1]} input, {tl_sys.C.shape[0]} outputs"
    print()
    print(f"titop_lpv {tl.__version__} linearisation, python-control {control.__version__}, "
          f"Python {platform.python_version()}, numpy {np.__version__}, {platform.machine()}, "
          f"{os.cpu_count()} CPUs")
    print(f"balloon (actuated slider) at the hanging trim point, k = {op['k']:g} N/m: {shape}")
    print(f"reference [A B; C D]: Richardson central differences, max |entry| = {scale:.3g}, "
          f"estimated error {ref_err:.1e}")
    rows = [
        ("tl.linearize (complex step)", fmt_time(tl_time["best"]),
         fmt_time(tl_time["best_cpu"]), f"{tl_err:.1e}",
         f"<= 0.2 ms: {'yes' if tl_time['best'] <= TARGET_LINEARIZE_S else 'NO'} (CPU: "
         f"{'yes' if tl_time['best_cpu'] <= TARGET_LINEARIZE_S else 'NO'})"),
        ("control.linearize (FD, 1e-6)", fmt_time(pc_time["best"]),
         fmt_time(pc_time["best_cpu"]), f"{pc_err:.1e}",
         f"tl faster: {'yes' if tl_time['best'] <= pc_time['best'] else 'NO'} "
         f"(x{pc_time['best'] / tl_time['best']:.3g})"),
        ("tl - python-control", "-", "-", f"{tl_pc:.1e}", "tl exact: "
         + ("yes" if tl_err <= max(2 * ref_err, 1e-12 * scale) else "NO")),
    ]
    rows += [(f"  {label}", fmt_time(t[0]), fmt_time(t[1]), "-", "")
             for label, t in breakdown.items()]
    header = ("case", "time/call", "CPU/call", "max|Δ| vs ref", "target")
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(header)]

    def line(cells: tuple[str, ...]) -> str:
        return "  ".join([cells[0].ljust(widths[0]),
                          *(c.rjust(w) for c, w in zip(cells[1:-1], widths[1:-1])),
                          cells[-1].ljust(widths[-1])])

    print(line(header))
    print("  ".join("-" * w for w in widths))
    for r in rows:
        print(line(r))
    print()
    sweep_rows = [
        ("two stages as before (trim_sweep, then linearize)", before_s, n_ok[0],
         f"max |Δ| vs serial {before_diff:.1e}"),
        ("serial", serial_s, n_ok[0], "-"),
        ("ProcessPoolExecutor(2)", par_s, n_ok[1],
         f"<= 0.5 s per 1 000: {'yes' if sweep_1000 <= TARGET_SWEEP_S else 'NO'}"
         + (f" (est. {sweep_1000:.3g} s)" if args.quick else "")),
    ]
    print(f"linearize_sweep over k in [25, 100], {n_sweep} points (trim + linearise)")
    sh = ("run", "total", "per point", "equilibria", "target")
    cells = [(r[0], fmt_time(r[1]), fmt_time(r[1] / n_sweep), f"{r[2]}/{n_sweep}", r[3])
             for r in sweep_rows]
    sw = [max(len(h), *(len(c[i]) for c in cells)) for i, h in enumerate(sh)]
    print("  ".join([sh[0].ljust(sw[0]), *(h.rjust(w) for h, w in zip(sh[1:-1], sw[1:-1])),
                     sh[-1]]))
    print("  ".join("-" * w for w in sw))
    for c in cells:
        print("  ".join([c[0].ljust(sw[0]), *(x.rjust(w) for x, w in zip(c[1:-1], sw[1:-1])),
                         c[-1]]))
    print(f"max |Δ[A B; C D]| parallel vs serial: {par_diff:.1e}")
    print("(time/call: best of 3 runs of >= 0.2 s, wall clock; CPU/call: this thread's CPU "
          "time in the same runs, without the time other processes had the core; sweeps: one "
          "run each, pool start-up included)")

    if args.json:
        out = {
            "meta": {
                "titop_lpv": tl.__version__,
                "python_control": control.__version__,
                "python": platform.python_version(),
                "numpy": np.__version__,
                "machine": platform.machine(),
                "cpu_count": os.cpu_count(),
                "quick": args.quick,
                "min_run_time_s": MIN_RUN_TIME,
                "runs": RUNS,
                "reference_step": REF_STEP,
            },
            "linearize": {
                "n_states": int(tl_sys.A.shape[0]),
                "reference_max_entry": scale,
                "reference_error_estimate": ref_err,
                "titop_s": tl_time["best"],
                "titop_cpu_s": tl_time["best_cpu"],
                "titop_timing": tl_time,
                "titop_max_error": tl_err,
                "control_s": pc_time["best"],
                "control_timing": pc_time,
                "control_max_error": pc_err,
                "titop_minus_control": tl_pc,
                "breakdown_s": {k: v[0] for k, v in breakdown.items()},
                "breakdown_cpu_s": {k: v[1] for k, v in breakdown.items()},
            },
            "sweep": {
                "points": n_sweep,
                "serial_s": serial_s,
                "serial_per_point_s": serial_s / n_sweep,
                "serial_equilibria": n_ok[0],
                "pool2_s": par_s,
                "pool2_per_point_s": par_s / n_sweep,
                "pool2_equilibria": n_ok[1],
                "pool2_vs_serial_max_diff": par_diff,
                "before_two_stage_serial_s": before_s,
                "before_vs_serial_max_diff": before_diff,
            },
            "targets": {
                "linearize_s": TARGET_LINEARIZE_S,
                "sweep_1000_pool2_s": TARGET_SWEEP_S,
                "linearize_met": tl_time["best"] <= TARGET_LINEARIZE_S,
                "faster_than_control": tl_time["best"] <= pc_time["best"],
                "sweep_met": sweep_1000 <= TARGET_SWEEP_S,
            },
        }
        Path(args.json).write_text(json.dumps(out, indent=2) + "\n")
        print(f"saved {args.json}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
