"""Holding torques of a four-joint arm (examples/robot_arm.toml) by trim and by inverse dynamics.

Fixes the joint angles, frees the four joint torques and trims: the torques that hold the arm
still against gravity and the payload. Compares them with recursive Newton–Euler inverse
dynamics at zero velocity and acceleration, then sweeps the payload weight from 0 to −50 N
by continuation and checks the slope of each torque against the payload's lever arm.

Run from the repository root::

    python examples/robot_arm_trim.py
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

import titop_lpv as tl

HERE = Path(__file__).resolve().parent
POSE = {"shoulder_yaw.q": 0.3, "shoulder.q": 0.7, "elbow.q": -1.1, "wrist.q": 0.4}  # rad


def main() -> None:
    """Trim, compare with inverse dynamics, sweep the payload."""
    model = tl.load_model(HERE / "robot_arm.toml")
    torques = [name for name in model.input_names if name.endswith("_tau")]
    op = tl.trim(model, free=torques, fixed=POSE)
    print(op.report())

    zeros = np.zeros(len(tl.velocity_names(model)))  # no velocity, no acceleration
    reference = tl.inverse_dynamics(model, op.x, zeros).actuation
    print(f"\n  {'torque [N m]':<17} {'trim':>9}  {'inverse dynamics':>16}")
    for name, tau, ref in zip(torques, op.u, reference):
        print(f"  {name:<17} {tau:9.4f}  {ref:16.4f}")
    print(f"max |trim − inverse dynamics| = {np.max(np.abs(op.u - reference)):.1e} N m")

    weights = np.linspace(0.0, -50.0, 11)
    sweep = tl.trim_sweep(model, {"payload_weight": weights}, free=torques, fixed=POSE,
                          progress=False)
    print()
    print(sweep.report())
    shoulder, elbow = sweep.values("shoulder_tau"), sweep.values("elbow_tau")
    print("  payload [N]   shoulder_tau [N m]   elbow_tau [N m]")
    for w, ts, te in zip(weights, shoulder, elbow):
        print(f"  {w:11.1f}   {ts:18.4f}   {te:15.4f}")

    # The torques are affine in the payload weight W: dτ/dW = −((tool − joint) × z)·axis,
    # the (signed) horizontal lever arm of the payload about each joint axis.
    tool = model.position(op.x, "wrist", "tool")
    print("slope dτ/dW [m]: sweep vs lever arm")
    for body, tau in (("shoulder", shoulder), ("elbow", elbow)):
        axis = model.rotation(op.x, body) @ np.array([0.0, 1.0, 0.0])
        arm = -np.cross(tool - model.position(op.x, body), [0.0, 0.0, 1.0]) @ axis
        slope = np.polyfit(weights, tau, 1)[0]
        print(f"  {body:<9} {slope:.12f}  {arm:.12f}")


if __name__ == "__main__":
    main()
