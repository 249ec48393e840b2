"""Operating points of the paper's balloon (examples/balloon.toml): the hanging equilibrium.

Trims the balloon with its flight chain and double pendulum hanging below it, times the
trim, checks that the total centre of mass lies on the vertical through the buoyancy point,
shows how the neutral directions (horizontal position, altitude, heading) are detected and
pinned, and follows the equilibrium over the slider stiffness k by continuation. In the
paper's configuration the slider axis is horizontal at equilibrium (its spring carries no
weight, slider_q = 0 for every k), so the sweep uses a variant with the flight chain
attached 0.4 m off-centre: the balloon tilts, the slider carries part of the weight and
its deflection k·slider_q = (weight component along the axis) moves with k — checked
against that closed form at every grid point.

Run from the repository root::

    python examples/balloon_trim.py
"""

from __future__ import annotations

import time
import warnings
from pathlib import Path

import numpy as np

import titop_lpv as tl

HERE = Path(__file__).resolve().parent
FREE = ["balloon.phi", "balloon.theta", "slider.q", "pendulum1.q", "pendulum2.q"]
FIXED = {"balloon.x": 0, "balloon.z": 0, "balloon.psi": 0}
# The model's default state is the initial condition of Fig. 17 (θ1,0 = 170°, θ2,0 = −170°),
# next to the inverted equilibrium (θ1 = π, θ2 = −π); trim converges to the equilibrium
# nearest its initial guess, so without a guess it would return that unstable one. The
# guess puts both pendulums near the bottom: the hanging equilibrium.
HANGING = {"pendulum1.q": 0.2, "pendulum2.q": -0.2}


def main() -> None:
    """Trim, time, check, pin, sweep."""
    with warnings.catch_warnings():  # the paper's inertia violates the triangle inequality
        warnings.simplefilter("ignore", tl.TitopWarning)
        model = tl.load_model(HERE / "balloon.toml")

    op = tl.trim(model, free=FREE, fixed=FIXED, guess=HANGING)
    print(op.report())

    repeats = 20  # the first trim above compiled and warmed everything up
    start = time.perf_counter()
    for _ in range(repeats):
        tl.trim(model, free=FREE, fixed=FIXED, guess=HANGING)
    per_trim = (time.perf_counter() - start) / repeats
    print(f"\ntime per trim: {1e3 * per_trim:.2f} ms (mean of {repeats})")

    com = tl.center_of_mass(model, op.x, op.params)
    buoyancy = model.position(op.x, "balloon", "com", op.params)  # the buoyancy acts at B
    print(f"total centre of mass: {np.array2string(com, precision=6)} m")
    print(f"buoyancy point B:     {np.array2string(buoyancy, precision=6)} m")
    print(f"horizontal offset (x, z): {np.max(np.abs((com - buoyancy)[[0, 2]])):.1e} m "
          "(the centre of mass hangs right below B)")

    # Neutral directions: buoyancy balances the weight whatever the position and heading, so
    # the equations do not depend on balloon x, y, z and psi. Freed, they are detected from
    # the Jacobian, held at their initial values and reported as pinned.
    free_all = ["balloon.x", "balloon.y", "balloon.z", "balloon.psi", *FREE]
    neutral = tl.trim(model, free=free_all, guess=HANGING)
    print(f"\nfreeing balloon x, y, z, psi too: success = {neutral.success}, "
          f"pinned = {neutral.pinned}, rank deficiency = {neutral.rank_deficiency}")

    print(f"slider_q at the paper's equilibrium: {op['slider_q']:.1e} m (the slider axis is "
          "horizontal: its spring carries no weight, whatever k)")

    # Continuation over k on the off-centre variant, where the equilibrium moves with k.
    description = model.to_dict()
    description["bodies"][0]["ports"]["C"] = [0.4, -2.0, 0.0]  # 0.4 m off-centre
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tl.TitopWarning)
        offset = tl.load_model(description)
    ks = np.linspace(25.0, 100.0, 31)
    sweep = tl.trim_sweep(offset, {"k": ks}, free=FREE, fixed=FIXED, guess=HANGING,
                          progress=True)
    print()
    print(sweep.report())
    slider_q = sweep.values("slider_q")
    # closed form: the spring balances the weight of what the slider carries (slider and
    # both pendulums, 6 kg) along its axis t = (1, 0, -1)/√2, turned into the inertial frame
    carried = sum(b["mass"] for b in description["bodies"][1:])
    gravity = np.asarray(description["gravity"], dtype=float)
    t_body = np.array([1.0, 0.0, -1.0]) / np.sqrt(2.0)
    expected = np.array([carried * gravity @ (offset.rotation(p.x, "slider", p.params) @ t_body)
                         / p.params["k"] for p in sweep])
    print(f"off-centre attachment: slider_q from {slider_q[0]:.4f} m (k = {ks[0]:g} N/m) to "
          f"{slider_q[-1]:.4f} m (k = {ks[-1]:g} N/m), balloon phi from "
          f"{np.degrees(sweep[0]['balloon_phi']):.3f} to "
          f"{np.degrees(sweep[-1]['balloon_phi']):.3f} deg")
    error = np.max(np.abs(slider_q - expected))
    print(f"max |slider_q - closed form| over the sweep: {error:.1e} m")
    print(f"max |residual| over the sweep: {np.max(sweep.residual_norms()):.1e}")


if __name__ == "__main__":
    main()
