"""Exact Jacobians of serial chains: ``tl.jacobians`` against Pinocchio's
``computeABADerivatives``, with the growth exponent of each series.

The chains are those of ``bench_dynamics.py`` (fixed root, revolute joints about z and x
alternately, unit masses, gravity), N = 10, 100, 500 and 1 000 links, at one seeded random
state (angles in [−π, π], rates in [−1, 1]). Rows:

* ``tl.jacobians(model, x, outputs=False)``: ``A = ∂ẋ/∂x`` (and ``B``) by the analytic
  route of ``titop_lpv/multibody/derivatives_kernel.py`` (one compiled call: derivatives of
  the Newton–Euler recursion in the world frame, ``M⁻¹`` by the articulated-body recursion;
  O(N²), no dense solve);
  the common call (a float64 state, default parameters) takes the fast route of
  ``titop_lpv/analysis/jacobians_fast.py``: the compiled entry point directly, the kernel's
  model arguments kept per parameter vector;
* ``sweep``: the compiled kernel alone (its numba entry point called on kept arrays: the
  unboxing of its 13 arguments included), what the fast route adds to it is the rest;
* ``kernel``: the general route's call (``derivatives_kernel.jacobian_matrix``: ``[A B]``
  and ``ẋ`` after a look-up of the parameters, through numba's type dispatch);
* ``tl.jacobians(model, x)``: the same plus the outputs' ``C`` and ``D`` (the chain's
  default sensors, by the complex step);
* ``pin.computeABADerivatives(model, data, q, v, tau)``: ``∂q̈/∂q``, ``∂q̈/∂v`` and ``M⁻¹``
  (analytic derivatives of the recursive Newton–Euler algorithm), skipped where
  ``pinocchio.Data`` would exceed ``--pin-max-gb`` (it allocates ~64 nv³ bytes with pin 4.1:
  64 GB at N = 1 000);
* the largest difference between the two, relative to the largest entry, on the rows of
  ``q̈`` (a check that the same problem is timed).

The compiled routes are timed, not a first session's fallback: ``TITOP_LPV_COMPILE`` defaults
to ``wait`` here (a kernel missing from the disk cache is compiled before the timings).
Each time is the best of up to 3 runs of at least 0.2 s (``bench_dynamics.measure``). The
growth exponent between consecutive sizes is ``log(t₂/t₁) / log(N₂/N₁)`` (2 for an O(N²)
method, as ours is; Pinocchio's ends with dense products by ``M⁻¹``, O(N³)). Neither route
uses BLAS threads (``OPENBLAS_NUM_THREADS`` changes nothing measurable).

Usage::

    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_jacobians.py [--sizes 10 100 500 1000]
        [--no-peer] [--pin-max-gb 4] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import sys
from pathlib import Path
from typing import Any

import numpy as np

import titop_lpv as tl
from titop_lpv.multibody import derivatives_kernel

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_dynamics import (  # the sibling script's models and timer
    PIN_DATA_BYTES_PER_NV3,
    PIN_DATA_MAX_GB,
    SEED,
    chain_description,
    fmt_time,
    load_peer,
    measure,
    random_states,
)

SIZES = (10, 100, 500, 1000)


def pinocchio_row(pin: Any, peer_mod: Any, desc: dict, model: tl.Model, x: np.ndarray,
                  jac: Any) -> tuple[float, float]:
    """(best time of ``computeABADerivatives``, largest relative difference from ``jac``)."""
    peer = peer_mod.build(desc)
    config = {name: float(value) for name, value in zip(model.state_names, x)}
    q, v = peer.to_pinocchio(config)
    tau = peer.joint_forces(config)
    timing = measure(lambda: pin.computeABADerivatives(peer.model, peer.data, q, v, tau))
    ddq_dq, ddq_dv, _ = (np.array(a) for a in
                         pin.computeABADerivatives(peer.model, peer.data, q, v, tau))
    # our rows q̈_i (state link_i_qd's derivative), columns link_j_q / link_j_qd
    rows = [model.state_index(f"{d.body}_qd") for d in peer.dofs]
    cols_q = [model.state_index(f"{d.body}_q") for d in peer.dofs]
    idx_v = [d.idx_v for d in peer.dofs]
    ours_q = jac.A[np.ix_(rows, cols_q)]
    ours_v = jac.A[np.ix_(rows, rows)]
    theirs_q = ddq_dq[np.ix_(idx_v, idx_v)]
    theirs_v = ddq_dv[np.ix_(idx_v, idx_v)]
    scale = max(1.0, float(np.max(np.abs(theirs_q))), float(np.max(np.abs(theirs_v))))
    diff = max(float(np.max(np.abs(ours_q - theirs_q))), float(np.max(np.abs(ours_v - theirs_v))))
    return timing["best"], diff / scale


def exponents(sizes: list[int], times: list[float | None]) -> list[str]:
    """Growth exponent between consecutive measured sizes (``-`` where one is missing)."""
    out = ["-"]
    for (n1, t1), (n2, t2) in zip(zip(sizes, times), zip(sizes[1:], times[1:])):
        ok = t1 is not None and t2 is not None and t1 > 0 and t2 > 0
        out.append(f"{math.log(t2 / t1) / math.log(n2 / n1):.2f}" if ok else "-")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=list(SIZES))
    parser.add_argument("--no-peer", action="store_true", help="skip Pinocchio")
    parser.add_argument("--pin-max-gb", type=float, default=PIN_DATA_MAX_GB,
                        help="skip Pinocchio where pinocchio.Data would exceed this many GB")
    parser.add_argument("--json", metavar="FILE", help="save the numbers as JSON")
    args = parser.parse_args(argv)
    os.environ.setdefault("TITOP_LPV_COMPILE", "wait")  # time the compiled routes
    if any(n < 1 for n in args.sizes):
        parser.error("--sizes: every size must be at least 1")
    pin, peer_mod, reason = load_peer(args.no_peer)
    if pin is None and not args.no_peer:
        print(f"note: Pinocchio skipped: {reason}", file=sys.stderr)

    rows: list[dict[str, Any]] = []
    for n in args.sizes:
        desc = chain_description(n)
        model = tl.load_model(desc)
        x = random_states(model, np.random.default_rng(SEED), ())
        jac = tl.jacobians(model, x, outputs=False)
        t_dyn = measure(lambda m=model, s=x: tl.jacobians(m, s, outputs=False))["best"]
        u, p = np.zeros(model.n_inputs), np.asarray(model.param_vector(None), dtype=float)
        if derivatives_kernel.jacobian_matrix(model, x, u, p) is not None:
            t_kernel = measure(lambda m=model, s=x, u=u, p=p:
                               derivatives_kernel.jacobian_matrix(m, s, u, p))["best"]
        else:  # not eligible, or not compiled yet (complex-step route)
            t_kernel = None
        found = derivatives_kernel.entry_point(model, model.physics(p))
        t_sweep = None
        if found is not None:
            entry, const = found
            J, xd = np.zeros((x.size, x.size + u.size)), np.zeros(x.size)
            no_dtau = np.zeros((4, 1, 1))
            t_sweep = measure(lambda e=entry, c=const, s=x, u=u, J=J, xd=xd, d=no_dtau:
                              e(*c, s, u, xd, J, xd, d, 0))["best"]
        t_all = measure(lambda m=model, s=x: tl.jacobians(m, s))["best"]
        row: dict[str, Any] = {"N": n, "jacobians_dynamics_s": t_dyn, "kernel_s": t_kernel,
                               "sweep_s": t_sweep,
                               "jacobians_with_outputs_s": t_all, "pin_s": None,
                               "pin_rel_diff": None, "n_outputs": model.n_outputs}
        gb = PIN_DATA_BYTES_PER_NV3 * n**3 / 1e9
        if pin is not None and gb <= args.pin_max_gb:
            row["pin_s"], row["pin_rel_diff"] = pinocchio_row(pin, peer_mod, desc, model, x,
                                                              jac)
        elif pin is not None:
            row["pin_skipped"] = f"pinocchio.Data ~{gb:.0f} GB > --pin-max-gb {args.pin_max_gb:g}"
        rows.append(row)
        print(f"  measured N = {n}", file=sys.stderr, flush=True)

    sizes = [r["N"] for r in rows]
    e_dyn = exponents(sizes, [r["jacobians_dynamics_s"] for r in rows])
    e_pin = exponents(sizes, [r["pin_s"] for r in rows])
    print(f"titop_lpv {tl.__version__}, Python {platform.python_version()}, "
          f"numpy {np.__version__}, {platform.machine()}")
    header = ("N", "jacobians (A, B)", "exp", "sweep", "kernel", "with C, D",
              "pin ABA derivatives", "exp", "ratio", "sweep ratio", "|Δ| rel")
    print(" | ".join(header))
    for r, ed, ep in zip(rows, e_dyn, e_pin):
        ratio = (f"{r['jacobians_dynamics_s'] / r['pin_s']:.1f}x" if r["pin_s"] else "-")
        k_ratio = (f"{r['sweep_s'] / r['pin_s']:.1f}x" if r["pin_s"] and r["sweep_s"]
                   else "-")
        diff = f"{r['pin_rel_diff']:.1e}" if r["pin_rel_diff"] is not None else (
            r.get("pin_skipped", "-"))
        print(" | ".join((str(r["N"]), fmt_time(r["jacobians_dynamics_s"]), ed,
                          fmt_time(r["sweep_s"]), fmt_time(r["kernel_s"]),
                          fmt_time(r["jacobians_with_outputs_s"]),
                          fmt_time(r["pin_s"]), ep, ratio, k_ratio, diff)))
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
