"""A UR5 arm from its URDF: trim under gravity with the joint torques free, linearise, Bode.

Loads ``ur5_robot.urdf`` of the ``example-robot-data`` package (``pip install
example-robot-data``): every link is a body, every revolute joint an actuated joint (input
``<link>_tau``), and the URDF joint names designate the link they move. Holds the arm at a
pose by freeing its six joint torques (the holding torques are checked against inverse
dynamics), linearises there and draws the Bode plot from the elbow torque to the elbow
angle. No controller: every joint torque stays at its holding value, so the arm is a
pendulum chain in open loop (the URDF joints have no damping). Its poles come in pairs
±λ: real pairs (the arm falls from this pose along those modes), imaginary pairs (it
swings about the others) and zeros (the shoulder pan and the last wrist joint, whose
vertical or aligned axes gravity does not load). Seen from the elbow torque, gravity gives
a static compliance, then a resonance.

Run from the repository root::

    python examples/ur5_urdf.py [--out ur5_bode.png]
"""

from __future__ import annotations

import argparse
import importlib.metadata
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import control
import matplotlib.pyplot as plt
import numpy as np

import titop_lpv as tl

POSE = {"shoulder_pan_joint": 0.3, "shoulder_lift_joint": -1.0, "elbow_joint": 1.2,
        "wrist_1_joint": -0.5, "wrist_2_joint": 0.8, "wrist_3_joint": 0.0}  # rad


def ur5_urdf() -> Path | None:
    """``ur5_robot.urdf`` of the installed ``example-robot-data`` package, or None."""
    try:
        files = importlib.metadata.files("example-robot-data") or []
    except importlib.metadata.PackageNotFoundError:
        return None
    for f in files:
        if str(f).endswith("ur_description/urdf/ur5_robot.urdf"):
            return Path(f.locate())
    return None


def main() -> int:
    """Load, trim, linearise, plot."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="ur5_bode.png", help="figure file to write")
    args = parser.parse_args()
    path = ur5_urdf()
    if path is None:
        print("example-robot-data is not installed (pip install example-robot-data)")
        return 0
    model = tl.load_model(path)
    print(model)
    print("URDF joints -> bodies:", {j: b for j, b in model.urdf_joints.items()
                                     if f"{b}_q" in model.state_names})

    # the joint angle of each URDF joint: the state <body>_q of the body the joint moves
    fixed = {f"{model.urdf_joints[j]}_q": q for j, q in POSE.items()}
    torques = [n for n in model.input_names if n.endswith("_tau")]
    op = tl.trim(model, free=torques, fixed=fixed)
    print(op.report())

    zeros = np.zeros(len(tl.velocity_names(model)))
    reference = tl.inverse_dynamics(model, op.x, zeros).actuation
    print(f"max |trim torque − inverse dynamics| = {np.max(np.abs(op.u - reference)):.1e} N m")

    elbow = model.urdf_joints["elbow_joint"]
    sys_ = tl.linearize(model, op, inputs=[f"{elbow}_tau"], outputs=[f"{elbow}_q"])
    poles = np.sort_complex(np.linalg.eigvals(sys_.A))
    print(f"linear model: {sys_.nstates} states; poles: "
          + ", ".join(f"{p:.3g}" for p in poles))
    omega = np.logspace(-1, 3, 400)
    resp = control.frequency_response(sys_, omega)
    mag = np.abs(resp.complex).ravel()
    phase = -(-np.degrees(np.angle(resp.complex).ravel()) % 360.0)  # in (-360, 0] deg
    fig, (ax1, ax2) = plt.subplots(2, 1, sharex=True, figsize=(6.4, 4.8), layout="constrained")
    ax1.loglog(omega, mag, color="k")
    ax1.set_ylabel("magnitude [rad/(N m)]")
    ax2.semilogx(omega, phase, color="k")
    ax2.set_ylabel("phase [deg]")
    ax2.set_yticks([-180, -90, 0])
    ax2.set_xlabel("frequency ω [rad/s]")
    ax1.set_title(f"UR5 ({path.name}): {elbow}_tau → {elbow}_q", fontsize=10)
    for ax in (ax1, ax2):
        ax.grid(True, which="both", alpha=0.3)
    fig.savefig(args.out, dpi=120)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
