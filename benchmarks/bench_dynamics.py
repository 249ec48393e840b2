"""Forward-dynamics timings of ``titop_lpv``, side by side with Pinocchio's ``aba``.

Measured (``time.perf_counter``; each measurement repeats the call until one run lasts at
least 0.2 s and reports the best of 3 runs, fewer runs when a single call is very slow):

* the balloon of ``examples/balloon.toml``: ``model.dynamics(0, x, None, None)`` for one
  state (the one-state route of ``titop_lpv/model/call_path.py``; also with a parameter
  vector, as ``simulate`` passes it, with python-control's params dict, and by the general
  route ``forward_dynamics`` that every one-state call took before), and for a batch of
  10 000 seeded random states in one call (time per state);
* serial chains of N = 10, 100, 1 000, 10 000 bodies (fixed root, revolute joints about z
  and x alternately, links of mass 1, inertia 0.1 I, centre of mass [0, -0.5, 0], child at
  the tip [0, -1, 0], gravity [0, -9.81, 0]): time per call for one random state, time per
  body, and the compile time of ``tl.load_model``;
* Pinocchio (``pin`` wheel), unless ``--no-peer`` or unavailable: ``pin.aba(model, data, q, v,
  tau[, fext])`` on the same models and states, built by ``tests/peer_pinocchio.py``.  The
  joint forces (spring-dampers) and external forces (the balloon's buoyancy) are computed once
  outside the timed loop; the accelerations of both packages are compared once, as a check
  that the same problem is timed.

Usage::

    python benchmarks/bench_dynamics.py [--quick] [--no-peer] [--json out.json]

``--quick`` limits the chains to N <= 1 000 and the balloon batch to 1 000 states.
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
from pathlib import Path
from typing import Any

import numpy as np

import titop_lpv as tl
from titop_lpv.multibody.dynamics import forward_dynamics

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
BALLOON_FILE = ROOT / "examples" / "balloon.toml"
TESTS_DIR = ROOT / "tests"

MIN_RUN_TIME = 0.2  # s, minimum duration of one timed run
RUNS = 3  # best of
ROUNDS = 3  # interleaved rounds of the one-state calls (best of each over the rounds)
MAX_MEASUREMENT_TIME = 20.0  # s, budget of one measurement (limits the runs of slow calls)
# pinocchio.Data allocates several nv x nv x nv tensors (second-order derivatives, kinematic
# Hessians) whatever the algorithm used (stack-of-tasks/pinocchio#2949): measured ~64 nv^3
# bytes with pin 4.1, i.e. 4 GB at nv = 400 and 64 GB at nv = 1000.
PIN_DATA_BYTES_PER_NV3 = 64.0
PIN_DATA_MAX_GB = 4.0  # default of --pin-max-gb
SEED = 20240601


# --------------------------------------------------------------------------------------------
# timing
# --------------------------------------------------------------------------------------------
def _run(fn: Callable[[], Any], number: int) -> float:
    start = time.perf_counter()
    for _ in range(number):
        fn()
    return time.perf_counter() - start


def measure(fn: Callable[[], Any]) -> dict[str, float]:
    """Best time per call of ``fn`` over up to ``RUNS`` runs of at least ``MIN_RUN_TIME``.

    One untimed warm-up call gives an estimate; the number of calls per run is scaled until a
    run lasts ``MIN_RUN_TIME``; runs whose total would exceed ``MAX_MEASUREMENT_TIME`` are
    dropped (at least one run is always made).

    Returns
    -------
    dict
        ``best`` (s per call), ``number`` (calls per run), ``runs``.
    """
    estimate = _run(fn, 1)
    number = max(1, math.ceil(MIN_RUN_TIME / max(estimate, 1e-9)))
    while True:
        elapsed = _run(fn, number)
        if elapsed >= MIN_RUN_TIME:
            break
        number = max(number * 2, math.ceil(1.2 * number * MIN_RUN_TIME / max(elapsed, 1e-9)))
    times = [elapsed / number]
    runs = max(1, min(RUNS, int(MAX_MEASUREMENT_TIME // max(elapsed, 1e-12))))
    for _ in range(runs - 1):
        times.append(_run(fn, number) / number)
    return {"best": min(times), "number": number, "runs": len(times)}


def fmt_time(seconds: float | None) -> str:
    """Human-readable duration (``-`` for None)."""
    if seconds is None or not math.isfinite(seconds):
        return "-"
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6)):
        if seconds >= scale:
            return f"{seconds / scale:.3g} {unit}"
    return f"{seconds / 1e-9:.3g} ns"


# --------------------------------------------------------------------------------------------
# models and states
# --------------------------------------------------------------------------------------------
def chain_description(n: int) -> dict[str, Any]:
    """Serial chain of ``n`` links hinged to the world, revolute about z then x alternately."""
    bodies = []
    for i in range(n):
        body: dict[str, Any] = {
            "name": f"link{i}",
            "joint": {
                "type": "revolute",
                "axis": [0.0, 0.0, 1.0] if i % 2 == 0 else [1.0, 0.0, 0.0],
            },
            "mass": 1.0,
            "inertia": [[0.1, 0.0, 0.0], [0.0, 0.1, 0.0], [0.0, 0.0, 0.1]],
            "com": [0.0, -0.5, 0.0],
            "ports": {"tip": [0.0, -1.0, 0.0]},
        }
        if i > 0:
            body["parent"] = f"link{i - 1}.tip"
        bodies.append(body)
    return {
        "name": f"chain{n}",
        "gravity": [0.0, -9.81, 0.0],
        "euler": "321",
        "parameters": {},
        "bodies": bodies,
        "loads": [],
    }


def random_states(model: tl.Model, rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    """Seeded random states: angles in [-π, π] (Euler pitch in [-1, 1] rad, away from the
    singularity), positions and velocities in [-1, 1]."""
    x = rng.uniform(-1.0, 1.0, (*shape, model.n_states))
    for i, name in enumerate(model.state_names):
        if name.endswith(("_phi", "_psi")) or (name.endswith("_q") and "slider" not in name):
            x[..., i] = rng.uniform(-np.pi, np.pi, shape)
    return x


def load_peer(no_peer: bool) -> tuple[Any, Any, str]:
    """Return ``(pinocchio, peer_pinocchio module, reason)``; both None when unavailable."""
    if no_peer:
        return None, None, "disabled by --no-peer"
    try:
        import pinocchio as pin
    except ImportError as err:
        return None, None, f"pinocchio not installed ({err})"
    if not (TESTS_DIR / "peer_pinocchio.py").is_file():
        return None, None, f"{TESTS_DIR / 'peer_pinocchio.py'} not found"
    sys.path.insert(0, str(TESTS_DIR))
    try:
        import peer_pinocchio
    except Exception as err:  # any failure of the optional peer disables it
        return None, None, f"tests/peer_pinocchio.py failed to import ({err!r})"
    finally:
        sys.path.remove(str(TESTS_DIR))
    return pin, peer_pinocchio, ""


def peer_setup(pin: Any, peer_mod: Any, desc: dict, model: tl.Model, x: np.ndarray):
    """Pinocchio peer of ``desc`` at the state ``x``: (timed closure, max |Δ acceleration|)."""
    peer = peer_mod.build(desc)
    config = {name: float(value) for name, value in zip(model.state_names, x)}
    q, v = peer.to_pinocchio(config)
    tau = peer.joint_forces(config)
    if peer.loads:
        pin.forwardKinematics(peer.model, peer.data, q)
        fext = peer.external_forces()

        def call() -> Any:
            return pin.aba(peer.model, peer.data, q, v, tau, fext)
    else:

        def call() -> Any:
            return pin.aba(peer.model, peer.data, q, v, tau)

    # same problem? compare the accelerations once (peer.aba maps them to our state names)
    acc = peer.aba(config)
    xdot = np.asarray(model.dynamics(0.0, x, None, None))
    err = max(abs(xdot[model.state_index(name)] - value) for name, value in acc.items())
    scale = max(1.0, max(abs(value) for value in acc.values()))
    return call, err / scale


# --------------------------------------------------------------------------------------------
# main
# --------------------------------------------------------------------------------------------
def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="chains up to N=1000, batch 1000")
    parser.add_argument("--no-peer", action="store_true", help="skip Pinocchio")
    parser.add_argument("--json", metavar="FILE", help="save the numbers as JSON")
    parser.add_argument(
        "--pin-max-gb",
        type=float,
        default=PIN_DATA_MAX_GB,
        help="skip Pinocchio for models whose pinocchio.Data would exceed this many GB "
        f"(~{PIN_DATA_BYTES_PER_NV3:.0f} nv^3 bytes; default {PIN_DATA_MAX_GB:g})",
    )
    args = parser.parse_args(argv)

    sizes = [10, 100, 1000] if args.quick else [10, 100, 1000, 10000]
    batch = 1000 if args.quick else 10000
    pin, peer_mod, reason = load_peer(args.no_peer)
    if pin is None and not args.no_peer:
        print(f"note: Pinocchio comparison skipped: {reason}", file=sys.stderr)

    rows: list[dict[str, Any]] = []

    def report(row: dict[str, Any]) -> None:
        rows.append(row)
        print(f"  measured {row['case']}", file=sys.stderr, flush=True)

    # ---------------------------------------------------------------- balloon
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tl.TitopWarning)  # the paper's inertia: expected
        start = time.perf_counter()
        balloon = tl.load_model(BALLOON_FILE)
        balloon_compile = time.perf_counter() - start
    rng = np.random.default_rng(SEED)
    x1 = random_states(balloon, rng, ())
    xb = random_states(balloon, rng, (batch,))
    n_balloon = len(balloon.body_names)

    # one state per call: the fast route (titop_lpv/model/call_path.py), pin.aba, the general
    # route (argument conversion, physics cache, numba type dispatch: what every one-state
    # call paid before the fast route), and the fast route with a parameter vector (what
    # simulate passes) and with python-control's params dict. Measured in interleaved rounds
    # (best of each over the rounds), so that the load of a shared machine hits all alike.
    pv = balloon.param_vector(None).copy()
    pdict = balloon.default_params()
    calls: dict[str, Callable[[], Any]] = {
        "fast": lambda: balloon.dynamics(0, x1, None, None),
        "general route": lambda: forward_dynamics(balloon, x1, None, None),
        "params vector": lambda: balloon.dynamics(0, x1, None, pv),
        "params dict": lambda: balloon.dynamics(0, x1, None, pdict),
    }
    err = None
    if pin is not None:
        with open(BALLOON_FILE, "rb") as fh:
            balloon_desc = tomllib.load(fh)
        calls["pin"], err = peer_setup(pin, peer_mod, balloon_desc, balloon, x1)
    best: dict[str, dict[str, float]] = {}
    for _ in range(ROUNDS):
        for label, fn in calls.items():
            timing = measure(fn)
            if label not in best or timing["best"] < best[label]["best"]:
                best[label] = timing
    for label in ("fast", "general route", "params vector", "params dict"):
        row = {
            "case": "balloon, 1 state/call" + ("" if label == "fast" else f", {label}"),
            "bodies": n_balloon,
            "titop_call_s": best[label]["best"],
            "titop_unit_s": best[label]["best"],
            "unit": "state",
            "titop_timing": best[label],
        }
        if label == "fast":
            row["compile_s"] = balloon_compile
        if "pin" in best:
            row.update(pin_call_s=best["pin"]["best"], pin_unit_s=best["pin"]["best"],
                       pin_timing=best["pin"])
            if label == "fast":
                row["acc_rel_diff"] = err
        report(row)

    batched = measure(lambda: balloon.dynamics(0, xb, None, None))
    report(
        {
            "case": f"balloon, {batch} states/call",
            "bodies": n_balloon,
            "titop_call_s": batched["best"],
            "titop_unit_s": batched["best"] / batch,
            "unit": "state",
            "titop_timing": batched,
        }
    )

    # the numpy reference recursion (vectorised over states; used for batched parameters)
    for label, xs, count in (("1 state", x1, 1), (f"{batch} states", xb, batch)):
        ref = measure(lambda xs=xs: forward_dynamics(balloon, xs, backend="numpy"))
        report(
            {
                "case": f"balloon numpy ref, {label}",
                "bodies": n_balloon,
                "titop_call_s": ref["best"],
                "titop_unit_s": ref["best"] / count,
                "unit": "state",
                "titop_timing": ref,
            }
        )

    # ---------------------------------------------------------------- chains
    for n in sizes:
        desc = chain_description(n)
        start = time.perf_counter()
        chain = tl.load_model(desc)
        compile_s = time.perf_counter() - start
        x = random_states(chain, np.random.default_rng(SEED + n), ())
        timing = measure(lambda chain=chain, x=x: chain.dynamics(0, x, None, None))
        row = {
            "case": f"chain N={n}",
            "bodies": n,
            "compile_s": compile_s,
            "titop_call_s": timing["best"],
            "titop_unit_s": timing["best"] / n,
            "unit": "body",
            "titop_timing": timing,
        }
        pin_gb = PIN_DATA_BYTES_PER_NV3 * len(tl.velocity_names(chain)) ** 3 / 1e9
        if pin is not None and pin_gb > args.pin_max_gb:
            row["pin_skipped"] = f"pinocchio.Data would need ~{pin_gb:.3g} GB"
        elif pin is not None:
            call, err = peer_setup(pin, peer_mod, desc, chain, x)
            peer = measure(call)
            row.update(pin_call_s=peer["best"], pin_unit_s=peer["best"] / n, pin_timing=peer)
            row["acc_rel_diff"] = err
        report(row)

    # ---------------------------------------------------------------- table
    header = (
        "case",
        "bodies",
        "compile",
        "titop/call",
        "titop/unit",
        "pin/call",
        "pin/unit",
        "titop/pin",
        "max|Δacc|",
    )
    lines = []
    for r in rows:
        pin_call = r.get("pin_call_s")
        ratio = f"{r['titop_call_s'] / pin_call:.3g}" if pin_call else "-"
        diff = f"{r['acc_rel_diff']:.1e}" if "acc_rel_diff" in r else "-"
        lines.append(
            (
                r["case"],
                str(r["bodies"]),
                fmt_time(r.get("compile_s")),
                fmt_time(r["titop_call_s"]),
                f"{fmt_time(r['titop_unit_s'])}/{r['unit']}",
                "skipped*" if "pin_skipped" in r else fmt_time(pin_call),
                f"{fmt_time(r['pin_unit_s'])}/{r['unit']}" if pin_call else "-",
                ratio,
                diff,
            )
        )
    widths = [max(len(h), *(len(line[i]) for line in lines)) for i, h in enumerate(header)]

    def fmt_line(cells: tuple[str, ...]) -> str:
        first = cells[0].ljust(widths[0])
        rest = (c.rjust(w) for c, w in zip(cells[1:], widths[1:]))
        return "  ".join([first, *rest])

    print()
    print(
        f"titop_lpv {tl.__version__} forward dynamics, Python {platform.python_version()}, "
        f"numpy {np.__version__}"
        + (f", pinocchio {pin.__version__}" if pin is not None else ", no Pinocchio")
        + f", {platform.machine()}, {os.cpu_count()} CPUs"
    )
    print(fmt_line(header))
    print("  ".join("-" * w for w in widths))
    for line in lines:
        print(fmt_line(line))
    print(
        "(best of up to 3 runs of >= 0.2 s; pin = pinocchio.aba per call; max|Δacc| = max "
        "|difference| of the accelerations / max(1, max|acc|))"
    )
    for r in rows:
        if "pin_skipped" in r:
            print(
                f"* {r['case']}: Pinocchio skipped, {r['pin_skipped']} (nv^3 tensors, "
                f"stack-of-tasks/pinocchio#2949; limit --pin-max-gb {args.pin_max_gb:g})"
            )

    single = rows[0]
    if "pin_call_s" in single:
        print(
            f"single call (interleaved rounds, best of each): titop "
            f"{fmt_time(single['titop_call_s'])} vs pin.aba {fmt_time(single['pin_call_s'])}: "
            f"ratio {single['titop_call_s'] / single['pin_call_s']:.2f} (target <= 2); "
            f"general route {fmt_time(rows[1]['titop_call_s'])}"
        )

    # ---------------------------------------------------------------- summary
    by_n = {r["bodies"]: r for r in rows if r["case"].startswith("chain")}
    n_big = max(sizes)
    scaling = by_n[n_big]["titop_unit_s"] / by_n[100]["titop_unit_s"]
    throughput = 1.0 / next(r for r in rows if r["case"].startswith(f"balloon, {batch}"))[
        "titop_unit_s"]
    pin_throughput = 1.0 / rows[0]["pin_call_s"] if "pin_call_s" in rows[0] else None
    summary = (
        f"summary: per-body cost N={n_big} / N=100 = {scaling:.2f} (O(n): ~1); balloon batched "
        f"throughput {throughput:,.0f} states/s"
    )
    if pin_throughput is not None:
        summary += (
            f" vs Pinocchio single call {pin_throughput:,.0f} states/s "
            f"(ratio {throughput / pin_throughput:.3g})"
        )
    else:
        summary += " (Pinocchio: n/a)"
    print(summary)

    if args.json:
        out = {
            "meta": {
                "titop_lpv": tl.__version__,
                "python": platform.python_version(),
                "numpy": np.__version__,
                "pinocchio": pin.__version__ if pin is not None else None,
                "peer_skipped": reason or None,
                "machine": platform.machine(),
                "cpu_count": os.cpu_count(),
                "quick": args.quick,
                "batch": batch,
                "seed": SEED,
                "min_run_time_s": MIN_RUN_TIME,
                "runs": RUNS,
            },
            "rows": rows,
            "summary": {
                "per_body_ratio": scaling,
                "per_body_ratio_sizes": [n_big, 100],
                "balloon_batched_states_per_s": throughput,
                "pinocchio_single_states_per_s": pin_throughput,
            },
        }
        Path(args.json).write_text(json.dumps(out, indent=2) + "\n")
        print(f"saved {args.json}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
