"""Timings of the uncertain linear models of ``tl.linearize_uncertain`` (the block route),
side by side with the grid route (``tl.linearize_sweep(...).to_uss(degree)``).

(1) balloon of ``examples/balloon.toml`` (hanging equilibrium, free = the balloon's roll and
    pitch, the slider and both pendulum angles), uncertain k ∈ [25, 100], ds ∈ [2, 8],
    dp1, dp2 ∈ [0.2, 1], input ``slider_tau``, output ``pendulum2_q``: total time of
    ``tl.linearize_uncertain`` and its split on the same operating point: the nominal trim,
    the equilibrium check (re-trims over the box, ``linear.kinds.survey``), the assembly
    (``titop_lpv.linear.assemble.assemble``) and the reduction (``tl.reduce_lft``); Δ size
    and repetitions;
(2) a hanging chain of 30 revolute links (built here: 0.3 m, 1 kg, centre of mass at the
    middle, thin-rod inertia, axis z, gravity −y, straight down at q = 0), every joint with a
    stiffness k_i ∈ [2, 8] (nominal 5) and damping 0.1, joint 0 actuated; 30 uncertain
    stiffnesses, free = the 30 joint angles, input ``link0_tau``, output ``link29_q``: total
    time and the same split;
(3) ``tl.robust_stability`` of closed loops:
    (a) the balloon (4 uncertain parameters, output ``slider_q``) closed by the PD
        K(s) = kp + kd s / (τ s + 1) on ``slider_q -> slider_tau`` with ``tl.feedback``. The
        floating balloon keeps 8 poles at s = 0 whatever the slider does (position and
        heading integrators, conserved momenta): they are uncontrollable from [w; u] and
        unobservable from [z; y] of the LFT matrix M, so they are removed from M exactly
        (``control.minreal``; checked: 8 states removed, same frequency response at sampled
        Δ) and the remaining loop is analysed;
    (b) the robot arm of ``examples/robot_arm.toml`` with its link masses as parameters
        (torques free, pose held), uncertain m_shoulder, m_elbow, m_wrist, payload_weight,
        closed by a joint-space PD (4 decoupled loops);
    (c) the balloon-borne telescope of ``examples/telescope.toml`` (elevation held at 0.5 rad
        by its motor, the gondola tilts with its mass), uncertain k ∈ [1400, 2600] and
        m_g ∈ [450, 550], outputs telescope_q and the line of sight balloon_theta + ladder_q
        + telescope_q, closed by the PD 3000 + 600 s/(0.02 s + 1) on telescope_q; the
        balloon's position and heading dropped by ``linearize_uncertain(...,
        drop_integrators=True)``, its conserved momenta removed from M as in (a);
(4) Δ sizes and times, block route against grid route (``to_uss(1)``, ``to_uss(2)`` with
    their largest fit error on the grid), for the balloon over k, then over (k, ds);
(5) the same for two multi-d.o.f. models built here: two rods on spherical joints (rest
    off the vertical, ``rod_tau_x`` -> ``bob_tip_x``; I_zz ∈ [0.02, 0.05], damping d ∈
    [0.1, 0.4]: exact) and a chain with a driven revolute joint (``arm_qdd`` -> ``bob_q``;
    slider stiffness k ∈ [30, 60], bob mass m ∈ [0.5, 1.2]: covered, with ``<state>_eq``
    blocks), grids of 5 × 5 (3 × 3 with ``--quick``).

Timings: ``time.perf_counter``; one warm-up call (excluded), then the median of the
number of runs printed in the table (``--quick``: fewer runs and grid points).

Usage::

    python benchmarks/bench_uncertain.py [--quick] [--json out.json]
    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_uncertain.py   # on a shared machine

The chain's assembly is dominated by dense LAPACK calls on matrices of about 2 000 rows (the
condition number of the connection loop): with OpenBLAS threads on a loaded machine its time
varies tenfold from run to run; the machine line prints the BLAS thread setting and the load.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import control
import numpy as np

import titop_lpv as tl
from titop_lpv.linear.assemble import assemble
from titop_lpv.linear.kinds import survey
from titop_lpv.model import read_description

ROOT = Path(__file__).resolve().parent.parent
BALLOON_FILE = ROOT / "examples" / "balloon.toml"
ARM_FILE = ROOT / "examples" / "robot_arm.toml"

FREE = ["balloon.phi", "balloon.theta", "slider.q", "pendulum1.q", "pendulum2.q"]
HANGING = {"pendulum1.q": 0.2, "pendulum2.q": -0.2}
UNCERTAIN = {"k": (25.0, 100.0), "ds": (2.0, 8.0), "dp1": (0.2, 1.0), "dp2": (0.2, 1.0)}
IO = {"inputs": ["slider_tau"], "outputs": ["pendulum2_q"]}

N_CHAIN, LINK, LINK_MASS = 30, 0.3, 1.0
ARM_POSE = {"shoulder_yaw_q": 0.3, "shoulder_q": -0.4, "elbow_q": 0.9, "wrist_q": -0.2}
ARM_UNCERTAIN = ["m_shoulder", "m_elbow", "m_wrist", "payload_weight"]

BALLOON_PD = (40.0, 10.0, 0.01)  # kp [N/m], kd [N s/m], τ [s] on slider_q -> slider_tau
ARM_PD = {"shoulder_yaw": (60.0, 12.0), "shoulder": (60.0, 12.0), "elbow": (30.0, 6.0),
          "wrist": (5.0, 0.5)}  # kp [N m/rad], kd [N m s/rad]; τ = 0.01 s
ARM_TAU = 0.01

TELESCOPE_FILE = ROOT / "examples" / "telescope.toml"
TELESCOPE_FREE = ["balloon.phi", "balloon.theta", "swivel.q", "ladder.q", "telescope_tau"]
TELESCOPE_FIXED = {"telescope.q": 0.5}
TELESCOPE_UNCERTAIN = {"k": (1400.0, 2600.0), "m_g": (450.0, 550.0)}
TELESCOPE_PD = (3000.0, 600.0, 0.02)  # kp [N m/rad], kd [N m s/rad], τ [s] on telescope_q

# targets
TARGET_BALLOON_S = 0.05
TARGET_CHAIN_S = 1.0
TARGET_RS_S = 5.0


# --------------------------------------------------------------------------------------------
# timing
# --------------------------------------------------------------------------------------------
def timed(fn: Callable[[], Any], runs: int) -> tuple[dict[str, Any], Any]:
    """Median, min and max wall time of ``fn`` over ``runs`` runs after one warm-up call."""
    out = fn()  # warm-up, excluded
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - start)
    return {"median_s": float(np.median(times)), "min_s": float(min(times)),
            "max_s": float(max(times)), "runs": runs}, out


def fmt_time(seconds: float | None) -> str:
    """Human-readable duration (``-`` for None)."""
    if seconds is None or not np.isfinite(seconds):
        return "-"
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6)):
        if seconds >= scale:
            return f"{seconds / scale:.3g} {unit}"
    return f"{seconds / 1e-9:.3g} ns"


def table(header: tuple[str, ...], rows: list[tuple[str, ...]], right: set[int]) -> None:
    """Print a plain-text table (columns in ``right`` right-aligned)."""
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(header)]

    def line(cells: tuple[str, ...]) -> str:
        return "  ".join(c.rjust(w) if i in right else c.ljust(w)
                         for i, (c, w) in enumerate(zip(cells, widths))).rstrip()

    print(line(header))
    print("  ".join("-" * w for w in widths))
    for r in rows:
        print(line(r))


def source_version() -> str:
    """The git commit of the package, ``+`` when ``titop_lpv/`` differs from it (read-only
    git commands; ``?`` without git)."""
    import subprocess

    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, text=True,
                              capture_output=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "diff", "--quiet", "HEAD", "--", "titop_lpv"],
                               cwd=ROOT, capture_output=True).returncode != 0
    except (OSError, subprocess.CalledProcessError):
        return "?"
    return head + ("+" if dirty else "")


# --------------------------------------------------------------------------------------------
# models
# --------------------------------------------------------------------------------------------
def _load(source: Any) -> tl.Model:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tl.TitopWarning)  # the balloon's inertia: expected
        return tl.load_model(source)


def chain_description(n: int = N_CHAIN) -> dict[str, Any]:
    """A chain of ``n`` revolute links hanging along −y at q = 0 (module docstring)."""
    inertia = LINK_MASS * LINK**2 / 12  # thin rod about its middle, across its length
    desc: dict[str, Any] = {"name": f"chain{n}", "gravity": [0.0, -9.81, 0.0],
                            "parameters": {}, "bodies": []}
    for i in range(n):
        desc["parameters"][f"k{i}"] = {"value": 5.0, "min": 2.0, "max": 8.0,
                                       "unit": "N m/rad"}
        joint = {"type": "revolute", "axis": [0, 0, 1], "stiffness": f"k{i}", "damping": 0.1}
        if i == 0:
            joint["actuated"] = True
        body = {"name": f"link{i}", "joint": joint, "mass": LINK_MASS,
                "inertia": [[inertia, 0, 0], [0, 0, 0], [0, 0, inertia]],
                "com": [0.0, -LINK / 2, 0.0], "ports": {"end": [0.0, -LINK, 0.0]}}
        if i:
            body["parent"] = f"link{i - 1}.end"
        desc["bodies"].append(body)
    return desc


def arm_with_masses() -> tl.Model:
    """The robot arm with each link mass a parameter in [mass / 2, 2 mass]."""
    desc = read_description(ARM_FILE)
    for body in desc["bodies"]:
        name = f"m_{body['name']}"
        desc["parameters"][name] = {"value": body["mass"], "min": 0.5 * body["mass"],
                                    "max": 2.0 * body["mass"], "unit": "kg"}
        body["mass"] = name
    return _load(desc)


def pd(kp: float, kd: float, tau: float) -> control.TransferFunction:
    """kp + kd s / (τ s + 1)."""
    s = control.tf("s")
    return kp + kd * s / (tau * s + 1)


def minimal_lft(T: tl.USS, seed: int = 0) -> tuple[tl.USS, int, np.ndarray, float]:
    """``T`` without the states of its LFT matrix that are uncontrollable from [w; u] or
    unobservable from [z; y] (exact for every Δ): the reduced system, the number of
    removed states, their eigenvalues and the largest relative difference of the frequency
    responses at 5 sampled Δ (20 frequencies)."""
    M, delta = T.lftdata()
    Mr = control.minreal(M, tol=1e-9, verbose=False)
    Tr = tl.USS(Mr, delta, list(T.params.values()), inputs=T.input_labels,
                outputs=T.output_labels, name=T.name)
    # the removed eigenvalues: those of A not matched by the reduced A
    full = list(np.linalg.eigvals(np.asarray(M.A)))
    for p in np.linalg.eigvals(np.asarray(Mr.A)):
        full.pop(int(np.argmin(np.abs(np.asarray(full) - p))))
    w = 1j * np.logspace(-2, 2, 20)
    diff = 0.0
    for d in T.sample_delta(5, seed=seed):
        a, b = T.at_delta(d)(w), Tr.at_delta(d)(w)
        diff = max(diff, float(np.max(np.abs(a - b)) / np.max(np.abs(a))))
    return Tr, M.nstates - Mr.nstates, np.asarray(full), diff


_INERTIA = [[0.09, 0.01, 0.0], [0.01, 0.08, 0.0], [0.0, 0.0, 0.03]]


def spherical_description() -> dict[str, Any]:
    """Two rods on sprung, damped spherical joints whose rests are off the vertical."""
    rod_inertia = [[*row[:2], "I_zz"] if k == 2 else row for k, row in enumerate(_INERTIA)]
    return {"name": "ball_pendulum", "gravity": [0.0, 0.0, -9.81],
            "parameters": {"I_zz": {"value": 0.03, "min": 0.02, "max": 0.05},
                           "d": {"value": 0.2, "min": 0.1, "max": 0.4}},
            "bodies": [
                {"name": "rod", "mass": 1.3, "com": [0.1, 0.05, -0.5], "inertia": rod_inertia,
                 "joint": {"type": "spherical", "stiffness": 3.0, "damping": "d",
                           "actuated": True, "rest": [0.9, 0.3, -0.2, 0.1],
                           "rotation": [[1, 0, 0], [0, 0.8, -0.6], [0, 0.6, 0.8]]},
                 "ports": {"tip": [0.05, 0.0, -1.0]}},
                {"name": "bob", "parent": "rod.tip", "mass": 0.7, "com": [0.0, 0.1, -0.4],
                 "inertia": [[0.05, 0.0, 0.0], [0.0, 0.04, 0.0], [0.0, 0.0, 0.02]],
                 "joint": {"type": "spherical", "stiffness": 2.0, "damping": 0.1,
                           "rest": [0.95, -0.1, 0.2, 0.0]},
                 "ports": {"tip": [0.0, 0.1, -0.8]}}],
            "outputs": [{"type": "position", "body": "bob", "point": "tip"}]}


def driven_description() -> dict[str, Any]:
    """A sprung shoulder, a driven revolute arm, a sprung slider and a pendulum bob."""
    def body(name: str, joint: dict[str, Any], mass: Any, com: list[float],
             **more: Any) -> dict[str, Any]:
        return {"name": name, "joint": joint, "mass": mass, "com": com,
                "inertia": more.pop("inertia", _INERTIA), **more}
    return {"name": "driven_chain", "gravity": [0.0, -9.81, 0.0],
            "parameters": {"k": {"value": 40.0, "min": 30.0, "max": 60.0},
                           "m": {"value": 0.8, "min": 0.5, "max": 1.2}},
            "bodies": [
                body("shoulder", {"type": "revolute", "axis": [0, 0, 1], "stiffness": 60.0,
                                  "damping": 0.4, "rest": 0.3}, 1.5, [0.2, 0.0, 0.0],
                     ports={"end": [0.4, 0.0, 0.05]}),
                body("arm", {"type": "revolute", "axis": [0.0, 0.6, 0.8], "motion": "input",
                             "q0": 0.5}, 1.0, [0.15, 0.02, 0.0], parent="shoulder.end",
                     ports={"end": [0.3, 0.0, 0.0]}),
                body("slider", {"type": "prismatic", "axis": [1.0, -1.0, 0.0],
                                "stiffness": "k", "damping": 2.0}, 0.6, [0.0, -0.05, 0.0],
                     parent="arm.end"),
                body("bob", {"type": "revolute", "axis": [0, 0, 1], "damping": 0.05}, "m",
                     [0.0, -0.3, 0.0], parent="slider",
                     inertia=[[0.01, 0, 0], [0, 0.01, 0], [0, 0, 0.01]])],
            "outputs": [{"type": "q", "body": "bob"}]}


# (title, description, free, uncertain, inputs, outputs) of the models of (5)
MULTI_DOF_CASES = (
    ("spherical pendulum", spherical_description,
     ["rod_rx", "rod_ry", "rod_rz", "bob_rx", "bob_ry", "bob_rz"],
     {"I_zz": (0.02, 0.05), "d": (0.1, 0.4)}, ["rod_tau_x"], ["bob_tip_x"]),
    ("driven chain", driven_description, ["shoulder_q", "slider_q", "bob_q"],
     {"k": (30.0, 60.0), "m": (0.5, 1.2)}, ["arm_qdd"], ["bob_q"]),
)


# --------------------------------------------------------------------------------------------
# measurements
# --------------------------------------------------------------------------------------------
def split(model: tl.Model, G: Any, trim_kwargs: dict[str, Any], runs: int
          ) -> dict[str, dict[str, Any]]:
    """Times of the stages of ``linearize_uncertain`` on ``G``'s operating point."""
    op, ureals = G.operating_point, dict(G.params)
    inputs, outputs = list(G.input_labels), list(G.output_labels)
    out = {}
    out["nominal trim"], _ = timed(lambda: tl.trim(model, params=dict(op.params),
                                                   **trim_kwargs), runs)
    kw = {"fixed": {}, **trim_kwargs}
    out[f"equilibrium check ({G.checked} trims)"], _ = timed(
        lambda: survey(model, op, ureals, {}, kw), runs)
    out["assemble"], A = timed(lambda: assemble(model, op, ureals, inputs=inputs,
                                                outputs=outputs), runs)
    out["reduce_lft"], _ = timed(lambda: tl.reduce_lft(A), runs)
    out["_assembled_delta"] = {"nw": int(A.delta.nw)}
    return out


def robust(T: tl.USS, runs: int) -> tuple[dict[str, Any], Any]:
    return timed(lambda: tl.robust_stability(T), runs)


def routes(model: tl.Model, grid: dict[str, np.ndarray], runs: int) -> list[dict[str, Any]]:
    """Block route against the grid route (degrees 1, 2) over the parameters of ``grid``."""
    unc = {k: UNCERTAIN[k] for k in grid}
    where = ", ".join(f"{k} ({v.size})" for k, v in grid.items())
    t_block, G = timed(lambda: tl.linearize_uncertain(model, FREE, guess=HANGING,
                                                      uncertain=unc, **IO), runs)
    t_sweep, L = timed(lambda: tl.linearize_sweep(model, grid, FREE, guess=HANGING,
                                                  progress=False, **IO), runs)
    rows = [{"params": list(grid), "route": "block (linearize_uncertain)",
             "delta": int(G.delta.nw), "repeats": {b.name: b.repeats for b in G.delta},
             "time": t_block, "total_s": t_block["median_s"], "fit_error": None}]
    # an off-grid point: where the fit is not anchored
    probe = {k: float(lo + 0.37 * (hi - lo)) for k, (lo, hi) in unc.items()}
    w = 1j * np.logspace(-2, 2, 20)
    ref = G.at(probe)(w)
    for degree in (1, 2):
        t_fit, fit = timed(lambda d=degree: L.to_uss(d), runs)
        rel = max(fit.max_relative_error.values())
        gap = float(np.max(np.abs(fit.uss.at(probe)(w) - ref)) / np.max(np.abs(ref)))
        rows.append({"params": list(grid), "route": f"grid {where}, to_uss({degree})",
                     "delta": int(fit.uss.delta.nw), "repeats": dict(fit.repetitions),
                     "time": t_fit, "sweep_time": t_sweep,
                     "total_s": t_sweep["median_s"] + t_fit["median_s"],
                     "fit_error": {"max_abs": dict(fit.max_error),
                                   "max_relative": float(rel)},
                     "vs_block_off_grid": gap, "probe": probe})
    return rows


def multi_dof_routes(n: int) -> list[tuple[str, ...]]:
    """Rows of (5): Δ size and repetitions of the block route and of ``to_uss(1, 2)`` on an
    ``n`` × ``n`` grid, with the fit error, for :data:`MULTI_DOF_CASES` (one run each)."""
    rows = []
    for title, describe, free, unc, ins, outs in MULTI_DOF_CASES:
        model = _load(describe())
        start = time.perf_counter()
        G = tl.linearize_uncertain(model, free, uncertain=unc, inputs=ins, outputs=outs)
        t_block = time.perf_counter() - start
        kinds, least = sorted(set(G.kinds.values())), G.repeat_bounds
        rows.append((title, "block", str(G.delta.nw), ", ".join(
            f"{k}:{b} (>={least.get(k, 0)})" for k, (_a, b) in G.repeats.items() if b),
            fmt_time(t_block),
            "exact (" + "/".join(kinds) + ")"))
        grid = {k: np.linspace(lo, hi, n) for k, (lo, hi) in unc.items()}
        start = time.perf_counter()
        L = tl.linearize_sweep(model, grid, free, progress=False, inputs=ins, outputs=outs)
        t_sweep = time.perf_counter() - start
        for degree in (1, 2):
            fit = L.to_uss(degree)
            rows.append((title, f"grid {n}x{n}, to_uss({degree})", str(fit.uss.delta.nw),
                         ", ".join(f"{k}:{v}" for k, v in fit.repetitions.items()),
                         fmt_time(t_sweep), f"{max(fit.max_relative_error.values()):.1e}"))
    return rows


# --------------------------------------------------------------------------------------------
# main
# --------------------------------------------------------------------------------------------
def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true",
                        help="fewer runs and grid points (a smoke run, not a timing)")
    parser.add_argument("--json", metavar="FILE", help="save the numbers as JSON")
    args = parser.parse_args(argv)
    quick = args.quick
    runs_fast = 5 if quick else 20  # calls below ~0.1 s
    runs_slow = 1 if quick else 3  # the chain, robust_stability
    grid_k = np.linspace(25.0, 100.0, 7 if quick else 21)
    grid_kds = {"k": np.linspace(25.0, 100.0, 5 if quick else 11),
                "ds": np.linspace(2.0, 8.0, 4 if quick else 7)}

    def note(msg: str) -> None:
        print(f"  {msg}", file=sys.stderr, flush=True)

    results: dict[str, Any] = {}

    # (1) balloon, 4 parameters ------------------------------------------------------------
    balloon = _load(BALLOON_FILE)
    t_bal, G = timed(lambda: tl.linearize_uncertain(balloon, FREE, guess=HANGING,
                                                    uncertain=UNCERTAIN, **IO), runs_fast)
    sp_bal = split(balloon, G, {"free": FREE, "guess": HANGING}, runs_fast)
    results["balloon"] = {"time": t_bal, "delta": int(G.delta.nw), "repeats": G.repeats,
                          "states": G.nstates, "checked": G.checked, "split": sp_bal}
    note("measured the balloon")

    # (2) chain of 30 links ----------------------------------------------------------------
    chain = _load(chain_description())
    chain_free = [f"link{i}.q" for i in range(N_CHAIN)]
    chain_io = {"inputs": ["link0_tau"], "outputs": [f"link{N_CHAIN - 1}_q"]}
    chain_unc = {f"k{i}": (2.0, 8.0) for i in range(N_CHAIN)}
    t_chain, H = timed(lambda: tl.linearize_uncertain(chain, chain_free, uncertain=chain_unc,
                                                      **chain_io), runs_slow)
    sp_chain = split(chain, H, {"free": chain_free}, runs_slow)
    results["chain"] = {"bodies": N_CHAIN, "time": t_chain, "delta": int(H.delta.nw),
                        "states": H.nstates, "checked": H.checked, "split": sp_chain}
    note("measured the chain")

    # (3a) balloon with a PD on the slider -------------------------------------------------
    kp, kd, tau = BALLOON_PD
    Gs = tl.linearize_uncertain(balloon, FREE, guess=HANGING, uncertain=UNCERTAIN,
                                inputs=["slider_tau"], outputs=["slider_q"])
    T = tl.feedback(Gs, pd(kp, kd, tau))
    poles_full = np.linalg.eigvals(np.asarray(T.nominal().A))
    Tr, removed, removed_eigs, red_gap = minimal_lft(T)
    poles = np.linalg.eigvals(np.asarray(Tr.nominal().A))
    t_rs_b, rs_b = robust(Tr, runs_slow)
    results["rs_balloon"] = {
        "time": t_rs_b, "margin_lower": rs_b.margin_lower, "margin_upper": rs_b.margin_upper,
        "omega_critical": rs_b.omega_critical, "method": rs_b.method,
        "verified": bool(rs_b.verified), "destabilising": rs_b.parameter_values,
        "delta": int(Tr.delta.nw), "states_closed_loop": T.nstates, "states_analysed": Tr.nstates,
        "removed_states": removed, "removed_max_abs_eig": float(np.max(np.abs(removed_eigs))),
        "reduced_vs_full_max_rel": red_gap,
        "nominal_max_real_full": float(poles_full.real.max()),
        "nominal_max_real": float(poles.real.max()), "pd": {"kp": kp, "kd": kd, "tau": tau}}
    note("measured robust_stability (balloon)")

    # (3b) robot arm with a joint-space PD -------------------------------------------------
    arm = arm_with_masses()
    taus = [f"{b}_tau" for b in arm.body_names]
    qs = [f"{b}_q" for b in arm.body_names]
    start = time.perf_counter()
    Ga = tl.linearize_uncertain(arm, free=taus, fixed=ARM_POSE, uncertain=ARM_UNCERTAIN,
                                inputs=taus, outputs=qs)
    t_arm_lin = time.perf_counter() - start
    Ka = control.append(*[control.ss(pd(*ARM_PD[b], ARM_TAU)) for b in arm.body_names])
    Ta = tl.feedback(Ga, Ka)
    poles_a = np.linalg.eigvals(np.asarray(Ta.nominal().A))
    t_rs_a, rs_a = robust(Ta, runs_slow)
    results["rs_arm"] = {
        "time": t_rs_a, "margin_lower": rs_a.margin_lower, "margin_upper": rs_a.margin_upper,
        "omega_critical": rs_a.omega_critical, "method": rs_a.method,
        "verified": bool(rs_a.verified), "destabilising": rs_a.parameter_values,
        "delta": int(Ta.delta.nw), "repeats": Ga.repeats, "least": Ga.repeat_bounds,
        "states": Ta.nstates,
        "nominal_max_real": float(poles_a.real.max()), "linearize_uncertain_s": t_arm_lin,
        "pd": {b: {"kp": v[0], "kd": v[1], "tau": ARM_TAU} for b, v in ARM_PD.items()}}
    note("measured robust_stability (arm)")

    # (3c) balloon-borne telescope with a PD on the elevation --------------------------------
    scope = _load(TELESCOPE_FILE)
    start = time.perf_counter()
    Gt = tl.linearize_uncertain(scope, TELESCOPE_FREE, TELESCOPE_FIXED,
                                uncertain=TELESCOPE_UNCERTAIN, inputs=["telescope_tau"],
                                outputs=["telescope_q", "ladder_q", "balloon_theta"],
                                drop_integrators=True)
    t_tel_lin = time.perf_counter() - start
    kp_t, kd_t, tau_t = TELESCOPE_PD
    plant = tl.uss(np.array([[1.0, 0.0, 0.0], [1.0, 1.0, 1.0]]) @ Gt,
                   inputs="telescope_tau", outputs=["telescope_q", "los"])
    Kt = control.ss(pd(kp_t, kd_t, tau_t))
    Kt = control.ss(Kt.A, Kt.B @ [[1.0, 0.0]], Kt.C, Kt.D @ [[1.0, 0.0]])  # on telescope_q
    Tt = tl.feedback(plant, Kt)
    Ttr, removed_t, removed_eigs_t, red_gap_t = minimal_lft(Tt)
    poles_t = np.linalg.eigvals(np.asarray(Ttr.nominal().A))
    t_rs_t, rs_t = robust(Ttr, runs_slow)
    results["rs_telescope"] = {
        "time": t_rs_t, "margin_lower": rs_t.margin_lower, "margin_upper": rs_t.margin_upper,
        "omega_critical": rs_t.omega_critical, "method": rs_t.method,
        "verified": bool(rs_t.verified), "destabilising": rs_t.parameter_values,
        "delta": int(Ttr.delta.nw), "repeats": Gt.repeats, "least": Gt.repeat_bounds,
        "states_closed_loop": Tt.nstates,
        "states_analysed": Ttr.nstates, "removed_states": removed_t,
        "removed_max_abs_eig": float(np.max(np.abs(removed_eigs_t))),
        "reduced_vs_full_max_rel": red_gap_t, "nominal_max_real": float(poles_t.real.max()),
        "linearize_uncertain_s": t_tel_lin,
        "pd": {"kp": kp_t, "kd": kd_t, "tau": tau_t}}
    note("measured robust_stability (telescope)")

    # (4) block route against grid route ---------------------------------------------------
    route_rows = routes(balloon, {"k": grid_k}, runs_fast) + routes(balloon, grid_kds,
                                                                     runs_fast)
    results["routes"] = route_rows
    multi_rows = multi_dof_routes(3 if quick else 5)
    results["multi_dof_routes"] = multi_rows
    note("measured the routes")

    # ---------------------------------------------------------------- tables
    blas = os.environ.get("OPENBLAS_NUM_THREADS") or os.environ.get("OMP_NUM_THREADS")
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print()
    print(f"titop_lpv {tl.__version__} ({source_version()}) uncertain models, "
          f"python-control {control.__version__}, "
          f"Python {platform.python_version()}, numpy {np.__version__}, {platform.machine()}, "
          f"{os.cpu_count()} CPUs, BLAS threads {blas or 'default'}, load {load:.2f}"
          f"{' (--quick: not a timing)' if quick else ''}")
    print(f"median of N runs after one warm-up run (time.perf_counter); N = {runs_fast} "
          f"(balloon, routes) and {runs_slow} (chain, robust_stability)")
    print()

    def verdict(t: float, target: float) -> str:
        return f"<= {fmt_time(target)}: {'yes' if t <= target else 'NO'}"

    rb, rc = results["balloon"], results["chain"]
    rsb, rsa, rst = results["rs_balloon"], results["rs_arm"], results["rs_telescope"]
    main_rows = [
        ("(1) balloon, linearize_uncertain", f"{rb['delta']}x{rb['delta']}",
         str(t_bal["runs"]), fmt_time(t_bal["median_s"]),
         f"{fmt_time(t_bal['min_s'])} - {fmt_time(t_bal['max_s'])}",
         verdict(t_bal["median_s"], TARGET_BALLOON_S),
         f"{rb['states']} states; repeats " + ", ".join(
             f"{k} {a}->{b}" for k, (a, b) in rb["repeats"].items())),
        (f"(2) chain of {N_CHAIN}, linearize_uncertain", f"{rc['delta']}x{rc['delta']}",
         str(t_chain["runs"]), fmt_time(t_chain["median_s"]),
         f"{fmt_time(t_chain['min_s'])} - {fmt_time(t_chain['max_s'])}",
         verdict(t_chain["median_s"], TARGET_CHAIN_S),
         f"{rc['states']} states; every k_i once"),
        ("(3a) balloon + slider PD, robust_stability", f"{rsb['delta']}x{rsb['delta']}",
         str(t_rs_b["runs"]), fmt_time(t_rs_b["median_s"]),
         f"{fmt_time(t_rs_b['min_s'])} - {fmt_time(t_rs_b['max_s'])}",
         verdict(t_rs_b["median_s"], TARGET_RS_S),
         f"margin in [{rsb['margin_lower']:.4g}, {rsb['margin_upper']:.4g}]"),
        ("(3b) arm + joint PD, robust_stability", f"{rsa['delta']}x{rsa['delta']}",
         str(t_rs_a["runs"]), fmt_time(t_rs_a["median_s"]),
         f"{fmt_time(t_rs_a['min_s'])} - {fmt_time(t_rs_a['max_s'])}",
         verdict(t_rs_a["median_s"], TARGET_RS_S),
         f"margin in [{rsa['margin_lower']:.4g}, {rsa['margin_upper']:.4g}]"),
        ("(3c) telescope + elevation PD, robust_stability", f"{rst['delta']}x{rst['delta']}",
         str(t_rs_t["runs"]), fmt_time(t_rs_t["median_s"]),
         f"{fmt_time(t_rs_t['min_s'])} - {fmt_time(t_rs_t['max_s'])}",
         verdict(t_rs_t["median_s"], TARGET_RS_S),
         f"margin in [{rst['margin_lower']:.4g}, {rst['margin_upper']:.4g}]"),
    ]
    table(("case", "Δ", "runs", "median", "min - max", "target", "note"), main_rows,
          {2, 3, 4})
    print()

    for title, total, sp in (("(1) balloon", t_bal, sp_bal),
                             (f"(2) chain of {N_CHAIN}", t_chain, sp_chain)):
        stages = {k: v for k, v in sp.items() if not k.startswith("_")}
        s_sum = sum(v["median_s"] for v in stages.values())
        rows = [(k, fmt_time(v["median_s"]), f"{100 * v['median_s'] / total['median_s']:.0f} %")
                for k, v in stages.items()]
        rows.append(("rest (labels, wrapping; total - stages)",
                     fmt_time(max(total["median_s"] - s_sum, 0.0)),
                     f"{100 * max(total['median_s'] - s_sum, 0.0) / total['median_s']:.0f} %"))
        print(f"{title}: where the time of linearize_uncertain goes (same operating point; "
              f"Δ {sp['_assembled_delta']['nw']} channels as assembled)")
        table(("stage", "median", "of total"), rows, {1, 2})
        print()

    print(f"(3a) balloon, output slider_q, closed by K(s) = {kp:g} + {kd:g} s/({tau:g} s + 1): "
          f"{rsb['states_closed_loop']} states; {rsb['removed_states']} removed from the LFT "
          f"(max |eig| {rsb['removed_max_abs_eig']:.1e}; response vs full loop "
          f"{rsb['reduced_vs_full_max_rel']:.1e}), {rsb['states_analysed']} analysed; nominal "
          f"max Re p {rsb['nominal_max_real']:.3g} (full loop {rsb['nominal_max_real_full']:.1e})")
    print(f"     {rsb['method']}, critical ω {rsb['omega_critical']:.4g} rad/s, verified "
          f"{rsb['verified']}, destabilising " + ", ".join(
              f"{k} = {v:.4g}" for k, v in rsb["destabilising"].items()))
    print("(3b) robot arm, masses + payload uncertain (Δ repeats assembled->reduced (least) "
          + ", ".join(f"{k} {a}->{b} ({rsa['least'].get(k, 0)})"
                      for k, (a, b) in rsa["repeats"].items())
        + f"; linearize_uncertain {fmt_time(t_arm_lin)}), joint PD: {rsa['states']} states, "
        f"nominal max Re p {rsa['nominal_max_real']:.3g}")
    print(f"     {rsa['method']}, critical ω {rsa['omega_critical']:.4g} rad/s, verified "
          f"{rsa['verified']}, destabilising " + ", ".join(
              f"{k} = {v:.4g}" for k, v in rsa["destabilising"].items()))
    print("(3c) telescope, k and m_g uncertain (Δ repeats assembled->reduced (least) "
          + ", ".join(f"{k} {a}->{b} ({rst['least'].get(k, 0)})"
                      for k, (a, b) in rst["repeats"].items())
        + f"; linearize_uncertain {fmt_time(t_tel_lin)}), PD on telescope_q: "
        f"{rst['states_closed_loop']} states, {rst['removed_states']} removed (max |eig| "
        f"{rst['removed_max_abs_eig']:.1e}; response vs full loop "
        f"{rst['reduced_vs_full_max_rel']:.1e}), nominal max Re p {rst['nominal_max_real']:.3g}")
    print(f"     {rst['method']}, critical ω {rst['omega_critical']:.4g} rad/s, verified "
          f"{rst['verified']}, destabilising " + ", ".join(
              f"{k} = {v:.4g}" for k, v in rst["destabilising"].items()))
    print()

    print("(4) balloon, input slider_tau, output pendulum2_q: block route vs grid route "
          "(grid: linearize_sweep + to_uss)")
    rows = []
    for r in route_rows:
        fe = r["fit_error"]
        rows.append((", ".join(r["params"]), r["route"], str(r["delta"]),
                     ", ".join(f"{k}:{v}" for k, v in r["repeats"].items()),
                     fmt_time(r["total_s"]),
                     "-" if fe is None else (f"{fmt_time(r['sweep_time']['median_s'])} + "
                                             f"{fmt_time(r['time']['median_s'])}"),
                     "exact" if fe is None else f"{fe['max_relative']:.1e}",
                     "-" if fe is None else f"{r['vs_block_off_grid']:.1e}"))
    table(("params", "route", "Δ", "repeats", "time", "sweep + fit", "fit err (rel)",
           "vs block off-grid"), rows, {2, 4, 5, 6, 7})
    print("(fit err: largest relative error of A, B, C, D at the grid points; vs block: "
          "largest relative difference of the frequency responses, 20 frequencies, at a point "
          "off the grid)")
    print()
    print("(5) multi-d.o.f. models: block route vs grid route (time: linearize_uncertain, or "
          "the sweep; one run)")
    table(("model", "route", "Δ", "repeats", "time", "fit err (rel)"), multi_rows, {2, 4})

    if args.json:
        out = {
            "meta": {"titop_lpv": tl.__version__, "source": source_version(),
                     "python_control": control.__version__,
                     "python": platform.python_version(), "numpy": np.__version__,
                     "machine": platform.machine(), "cpu_count": os.cpu_count(),
                     "blas_threads": blas, "load_1min": load, "quick": quick,
                     "runs_fast": runs_fast, "runs_slow": runs_slow},
            "targets": {"balloon_s": TARGET_BALLOON_S, "chain_s": TARGET_CHAIN_S,
                        "robust_stability_s": TARGET_RS_S,
                        "balloon_met": t_bal["median_s"] <= TARGET_BALLOON_S,
                        "chain_met": t_chain["median_s"] <= TARGET_CHAIN_S,
                        "rs_balloon_met": t_rs_b["median_s"] <= TARGET_RS_S,
                        "rs_arm_met": t_rs_a["median_s"] <= TARGET_RS_S,
                        "rs_telescope_met": t_rs_t["median_s"] <= TARGET_RS_S},
            **results,
        }
        Path(args.json).write_text(json.dumps(out, indent=2, default=_jsonable) + "\n")
        print(f"saved {args.json}", file=sys.stderr)
    return 0


def _jsonable(obj: Any) -> Any:
    if isinstance(obj, (np.integer,)):
        return int(obj)
    if isinstance(obj, (np.floating,)):
        return float(obj)
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    if isinstance(obj, tuple):
        return list(obj)
    return str(obj)


if __name__ == "__main__":
    sys.exit(main())
