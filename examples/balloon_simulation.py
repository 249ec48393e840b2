"""The nonlinear scenario of Fig. 17 of Alazard, Sanfedino & Kassarian: the 9-d.o.f. balloon.

Simulates examples/balloon.toml for 20 s from θ1,0 = 170°, θ2,0 = −170° (everything else at
rest), prints the final state and the energy balance, compares with the independent peer
trajectory (tests/data/balloon_trajectory.json), and saves the 9-output figure.

Run from the repository root::

    python examples/balloon_simulation.py [--out balloon_fig17.png] [--t-final 20]
"""

from __future__ import annotations

import argparse
import json
import time
import warnings
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import numpy as np

import titop_lpv as tl

HERE = Path(__file__).resolve().parent
REFERENCE = HERE.parent / "tests" / "data" / "balloon_trajectory.json"  # independent peer
SIGNALS = ["balloon_x", "balloon_y", "balloon_z", "balloon_phi", "balloon_theta",
           "balloon_psi", "slider_q", "pendulum1_q", "pendulum2_q"]


def main() -> None:
    """Simulate, report and plot."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="balloon_fig17.png", help="figure file to write")
    parser.add_argument("--t-final", type=float, default=20.0, help="simulated time [s]")
    args = parser.parse_args()

    with warnings.catch_warnings():  # the paper's inertia violates the triangle inequality
        warnings.simplefilter("ignore", tl.TitopWarning)
        model = tl.load_model(HERE / "balloon.toml")
    print(model)
    start = time.perf_counter()
    traj = tl.simulate(model, (0.0, args.t_final), rtol=1e-10, atol=1e-12)
    elapsed = time.perf_counter() - start
    print(f"simulated {args.t_final:g} s in {elapsed:.2f} s ({traj.nfev} evaluations)")
    print("final configuration:")
    for name in SIGNALS:
        print(f"  {name:14s} {traj[name][-1]: .6f} {traj.units.get(name, '')}")

    kinetic, potential = tl.energy(model, traj.x)
    print(f"total energy: {kinetic[0] + potential[0]:.6f} J at t = 0, "
          f"{kinetic[-1] + potential[-1]:.6f} J at t = {args.t_final:g} s (dampers dissipate)")

    if REFERENCE.is_file() and args.t_final >= 20.0:
        ref = json.loads(REFERENCE.read_text())
        times = [s["t"] for s in ref["samples"]]
        check = tl.simulate(model, (0.0, max(times)), t_eval=times, rtol=1e-10, atol=1e-12)
        err = 0.0
        for k, s in enumerate(ref["samples"]):
            pos = [check["balloon_x"][k], check["balloon_y"][k], check["balloon_z"][k]]
            err = max(err, float(np.max(np.abs(np.subtract(pos, s["B_inertial"])))))
            for q in ("slider.q", "pendulum1.q", "pendulum2.q"):
                err = max(err, abs(check[q][k] - s[q]))
        print(f"max deviation from the independent peer trajectory: {err:.2e}")

    fig = traj.plot(SIGNALS, title="Balloon, Fig. 17 scenario (θ1,0 = 170°, θ2,0 = −170°)")
    fig.savefig(args.out, dpi=120)
    print(f"figure written to {args.out}")


if __name__ == "__main__":
    main()
