"""Steady spins of a spacecraft with two pre-coned solar panels (examples/spinning_spacecraft.toml).

For each spin rate Ω of the hub about its z axis, trims the relative equilibrium (the panel
hinge angles where the springs balance the centrifugal moments), compares the angles with the
closed-form moment balance, checks the relative equilibrium by simulation (the non-cyclic
states must not drift) and plots the coning angle against Ω.

Run from the repository root::

    python examples/spinning_spacecraft.py [--out spinning_spacecraft.png]
"""

from __future__ import annotations

import argparse
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
from scipy.optimize import brentq

import titop_lpv as tl

HERE = Path(__file__).resolve().parent
PANELS = ["panel1.q", "panel2.q"]
RATES = [0.0, 0.5, 1.0, 1.5, 2.0, 3.0]  # rad/s


def spin_trim(model: tl.Model, rate: float, guess: dict[str, float] | None) -> tl.OperatingPoint:
    """The steady spin of the hub about its z axis at ``rate`` [rad/s]."""
    return tl.trim(model, kind="spin", spin={"body": "hub", "axis": [0, 0, 1], "rate": rate},
                   free=PANELS, guess=guess)


def closed_form(model: tl.Model, rate: float) -> float:
    """Hinge angle where the spring, the centrifugal force on the panel's mass and the spin of
    its inertia balance (moments about the hinge, an independent check of the trim):
    −k (q − rest) − m Ω² ℓ sin q (R + ℓ cos q) − Ω² (I_zz − I_xx) sin q cos q = 0."""
    hub, panel = model.to_dict()["bodies"][:2]
    k, rest = model.default_params()["k_hinge"], panel["joint"]["rest"]
    m, ell, radius = panel["mass"], panel["com"][0], hub["ports"]["p1"][0]
    d_inertia = panel["inertia"][2][2] - panel["inertia"][0][0]

    def moment(q: float) -> float:
        return (-k * (q - rest) - m * rate**2 * ell * np.sin(q) * (radius + ell * np.cos(q))
                - rate**2 * d_inertia * np.sin(q) * np.cos(q))

    return brentq(moment, -0.1, rest + 0.1, xtol=1e-15, rtol=1e-15)


def main() -> None:
    """Trim over the spin rates, check by simulation, plot."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="spinning_spacecraft.png", help="figure file to write")
    args = parser.parse_args()

    model = tl.load_model(HERE / "spinning_spacecraft.toml")
    k = model.default_params()["k_hinge"]
    print(model)
    print(f"{'Ω [rad/s]':>9}  {'panel1 [deg]':>13}  {'panel2 [deg]':>13}  {'closed form':>12}  "
          f"{'max |residual|':>14}  {'drift in 5 s':>12}")
    guess = None
    for rate in RATES:
        op = spin_trim(model, rate, guess)  # continuation: start from the previous solution
        guess = {name: op[name] for name in PANELS}
        # a relative equilibrium: everything but the hub's position and attitude stays put
        traj = tl.simulate(model, (0.0, 5.0), x0=op.x, t_eval=[0.0, 5.0], rtol=1e-11,
                           atol=1e-12)
        keep = [i for i, n in enumerate(model.state_names) if n not in op.cyclic]
        drift = np.max(np.abs(traj.x[-1, keep] - op.x[keep]))
        print(f"{rate:9.2f}  {np.degrees(op['panel1.q']):13.6f}  "
              f"{np.degrees(op['panel2.q']):13.6f}  {np.degrees(closed_form(model, rate)):12.6f}  "
              f"{op.residual_norm:14.2e}  {drift:12.2e}")
    print(f"cyclic states (not part of the equilibrium): {', '.join(op.cyclic)}")

    rates = np.linspace(0.0, 3.0, 61)
    angles, guess = [], None
    for rate in rates:
        op = spin_trim(model, rate, guess)
        guess = {name: op[name] for name in PANELS}
        angles.append(np.degrees(op["panel1.q"]))
    fig, ax = plt.subplots(figsize=(6, 3.6), layout="constrained")
    ax.plot(rates, angles, color="k", label="trim (both panels)")
    ax.plot(RATES, [np.degrees(closed_form(model, r)) for r in RATES], "o", mfc="none",
            label="closed form")
    ax.set_xlabel("spin rate Ω [rad/s]")
    ax.set_ylabel("coning angle [deg]")
    ax.set_title(f"Spinning spacecraft, k_hinge = {k:g} N m/rad")
    ax.grid(True, alpha=0.3)
    ax.legend()
    fig.savefig(args.out, dpi=120)
    print(f"figure written to {args.out}")


if __name__ == "__main__":
    main()
