"""Operating points of the paper's balloon (examples/balloon.toml): the hanging equilibrium.

Trims the balloon with its flight chain and double pendulum hanging below it, times the
trim, checks that the total centre of mass lies on the vertical through the buoyancy point,
shows how the neutral directions (horizontal position, altitude, heading) are detected and
pinned, and follows the equilibrium over the slider stiffness k by continuation.

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

    ks = np.linspace(25.0, 100.0, 31)
    sweep = tl.trim_sweep(model, {"k": ks}, free=FREE, fixed=FIXED, guess=HANGING,
                          progress=True)
    print()
    print(sweep.report())
    print(f"max |slider_q| over the sweep: {np.nanmax(np.abs(sweep.values('slider_q'))):.1e} m "
          "(the slider axis is horizontal: its spring carries no weight)")
    print(f"max |residual| over the sweep: {np.max(sweep.residual_norms()):.1e}")


if __name__ == "__main__":
    main()
