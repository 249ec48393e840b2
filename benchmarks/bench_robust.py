"""Timings and gaps of the certified robustness analyses (issue 13) on a realistic LFT.

The system is the balloon-borne telescope of ``examples/telescope.toml`` built as in
``benchmarks/bench_uncertain.py`` section (3c): ``tl.linearize_uncertain`` with k ∈
[1400, 2600] and m_g ∈ [450, 550], outputs telescope_q and the line of sight, closed by the
PD 3000 + 600 s/(0.02 s + 1) on telescope_q, the conserved momenta removed from M exactly
(``minimal_lft``). On it: ``tl.robust_stability`` (the default, ``refine="auto"``: the
state-space branch and bound of ``titop_lpv.robust.modal_box``; ``refine=False``: the D-G
bound of the whole box, certified on frequency intervals, and grid only) and
``tl.worst_case_gain`` (certified, the default, and ``certify=False``), with their bounds,
gap, how the bound was certified and the number of intervals or sub-boxes.

Usage::

    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_robust.py [--skip-wc] [--profile] [--budget B]

``--profile`` prints the 25 most expensive calls (cProfile, cumulative) of the default
``robust_stability``; ``--budget B`` adds a row ``refine="branch", budget=B``.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import sys
import time
from pathlib import Path

import control
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_uncertain as bu

import titop_lpv as tl

TARGET_RS_S, TARGET_WC_S, TARGET_GAP = 5.0, 20.0, 0.02


def telescope() -> tl.USS:
    """The closed loop of section (3c) of bench_uncertain.py, reduced exactly."""
    scope = bu._load(bu.TELESCOPE_FILE)
    Gt = tl.linearize_uncertain(scope, bu.TELESCOPE_FREE, bu.TELESCOPE_FIXED,
                                uncertain=bu.TELESCOPE_UNCERTAIN, inputs=["telescope_tau"],
                                outputs=["telescope_q", "ladder_q", "balloon_theta"],
                                drop_integrators=True)
    plant = tl.uss(np.array([[1.0, 0.0, 0.0], [1.0, 1.0, 1.0]]) @ Gt,
                   inputs="telescope_tau", outputs=["telescope_q", "los"])
    Kt = control.ss(bu.pd(*bu.TELESCOPE_PD))
    Kt = control.ss(Kt.A, Kt.B @ [[1.0, 0.0]], Kt.C, Kt.D @ [[1.0, 0.0]])
    return bu.minimal_lft(tl.feedback(plant, Kt))[0]


CPU: dict[str, float] = {}


def timed(f):
    """Wall-clock time [s] of ``f()`` and its result; the process time goes to ``CPU["last"]``
    (on a loaded machine the wall time can be several times the CPU time)."""
    t, c = time.perf_counter(), time.process_time()
    out = f()
    CPU["last"] = time.process_time() - c
    return time.perf_counter() - t, out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--skip-wc", action="store_true", help="skip worst_case_gain")
    ap.add_argument("--profile", action="store_true", help="profile robust_stability")
    ap.add_argument("--budget", type=float, default=0.0,
                    help="budget [s] of a refine='branch' row (default 0: no such row)")
    args = ap.parse_args()
    t_build, T = timed(telescope)
    print(f"telescope loop: {T.nstates} states, Δ {T.delta.nw}x{T.delta.nz}, built in "
          f"{t_build:.1f} s")
    rows = []

    def rs_row(mode, **kw):
        t, rs = timed(lambda: tl.robust_stability(T, **kw))
        gap = rs.margin_upper / rs.margin_lower - 1 if rs.margin_lower > 0 else np.inf
        b = rs.branch
        rows.append(("robust_stability", mode, f"{t:.2f} ({CPU['last']:.2f})",
                     f"[{rs.margin_lower:.5g}, {rs.margin_upper:.5g}]", f"{gap:.2%}",
                     rs.certified, str(b.boxes) + " sub-boxes" if b else
                     str(len(rs.mu.intervals)),
                     "yes" if t <= TARGET_RS_S and gap <= TARGET_GAP else "no"))
        if b is not None:
            how = "proved whole" if b.complete else f"proved up to {b.margin_lower:.5g}"
            print(f"{mode}: branch and bound ({b.method}): target box scale {b.target:.5g}, "
                  f"{how}, {b.boxes} sub-boxes, {b.elapsed:.2f} s")

    rs_row("default (refine=auto)")
    rs_row("refine=False (D-G)", refine=False)
    rs_row("refine=False, grid only", refine=False, certify=False)
    if args.budget > 0:
        rs_row(f"refine=branch, {args.budget:g} s", refine="branch", budget=args.budget)
    if args.profile:
        cProfile.runctx("tl.robust_stability(T)", globals(), {"T": T, "tl": tl},
                        "/tmp/bench_robust.prof")
        pstats.Stats("/tmp/bench_robust.prof").sort_stats("cumtime").print_stats(25)
    if not args.skip_wc:
        for certify in (True, False):
            t, wc = timed(lambda c=certify: tl.worst_case_gain(T, certify=c))
            gap = wc.upper / wc.gain - 1 if wc.gain > 0 else np.inf
            rows.append(("worst_case_gain", "certified" if certify else "grid only",
                         f"{t:.2f} ({CPU['last']:.2f})", f"[{wc.gain:.5g}, {wc.upper:.5g}]",
                         f"{gap:.2%}",
                         wc.certified, str(len(wc.intervals)),
                         "yes" if t <= TARGET_WC_S and gap <= TARGET_GAP else "no"))
    head = ("analysis", "mode", "wall (cpu) [s]", "bounds", "gap", "certified", "pieces",
            "target met")
    widths = [max(len(str(r[i])) for r in [head, *rows]) for i in range(len(head))]
    print()
    for r in [head, *rows]:
        print("  ".join(str(v).ljust(w) for v, w in zip(r, widths)))
    print(f"\ntargets: robust_stability <= {TARGET_RS_S:g} s, worst_case_gain <= "
          f"{TARGET_WC_S:g} s, gap <= {TARGET_GAP:.0%}")


if __name__ == "__main__":
    main()
