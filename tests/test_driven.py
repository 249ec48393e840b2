"""Driven joints (``motion = "input"``): the joint acceleration is the input ``b_qdd``, the
force that drives it the output ``b_tau`` (TITOP port inversion).

Checked against Pinocchio with the motion imposed along a simulated trajectory, against the
power balance (the drive's power τ q̇ is the rate of change of the energy), and through trim
and linearisation (central differences of the outputs).
"""

from __future__ import annotations

import copy

import numpy as np
import pytest
from test_spherical_peer import Peer, peer_dynamics

import titop_lpv as tl


def crank(rate: float = 0.5) -> dict:
    """A revolute joint J1 driven at a constant rate carrying a ball-jointed rod (J2)."""
    return {"name": "crank", "gravity": [0.0, -9.81, 0.0], "bodies": [
        {"name": "j1", "joint": {"type": "revolute", "axis": [0.0, 1.0, 0.0], "motion": "input",
                                 "qd0": rate},
         "mass": 1.0, "com": [0.15, 0.0, 0.0],
         "inertia": [[4.167e-4, 0, 0], [0, 4.167e-4, 0], [0, 0, 4.167e-4]],
         "ports": {"end": [0.3, 0.0, 0.0]}},
        {"name": "j2", "parent": "j1.end",
         "joint": {"type": "spherical", "q0": [0.9, 0.1, 0.3, 0.2], "w0": [0.2, 0.0, -0.3]},
         "mass": 1.0, "com": [0.0, -0.15, 0.0],
         "inertia": [[4.167e-4, 0, 0], [0, 4.167e-4, 0], [0, 0, 4.167e-4]]}]}


def test_signals():
    model = tl.load_model(crank())
    assert model.input_names == ("j1_qdd",)
    assert "j1_tau" in model.output_names
    assert model.units()["j1_qdd"] == "rad/s^2" and model.units()["j1_tau"] == "N m"


def test_imposed_motion_against_pinocchio_along_a_trajectory():
    desc = crank()
    model = tl.load_model(copy.deepcopy(desc))
    peer = Peer(copy.deepcopy(desc))
    traj = tl.simulate(model, (0.0, 2.0), x0=model.default_state(), rtol=1e-10, atol=1e-10,
                       n_points=11)
    np.testing.assert_allclose(traj["j1_qd"], 0.5, rtol=1e-12)  # the drive holds the rate
    np.testing.assert_allclose(traj["j1_q"], 0.5 * traj.t, rtol=1e-9, atol=1e-12)
    worst = 0.0
    for x in traj.x:
        u = np.array([0.3])  # an imposed acceleration too
        ours = model.dynamics(0.0, x, u)
        ref, tau = peer_dynamics(peer, model, x, u)
        acc = [model.state_index(n) for n in ("j2_wx", "j2_wy", "j2_wz", "j1_qd")]
        worst = max(worst, np.max(np.abs(ours[acc] - ref[acc])))
        y = model.outputs(0.0, x, u)
        worst = max(worst, abs(y[model.output_index("j1_tau")] - tau["j1"]))
    print(f"\ndriven crank vs Pinocchio along the trajectory: max abs error {worst:.1e}")
    assert worst < 1e-10


def test_power_balance():
    model = tl.load_model(crank())
    x = model.default_state()
    u = np.array([0.7])
    xd = model.dynamics(0.0, x, u)
    h = 1e-6
    dE = (np.sum(tl.energy(model, x + h * xd)) - np.sum(tl.energy(model, x - h * xd))) / (2 * h)
    tau = model.outputs(0.0, x, u)[model.output_index("j1_tau")]
    assert abs(dE - tau * x[model.state_index("j1_qd")]) < 1e-7


def test_trim_holds_the_driven_joint_and_linearize_sees_its_ports():
    model = tl.load_model(crank(rate=0.0))
    op = tl.trim(model, free=["j2_rx", "j2_ry", "j2_rz"], fixed={"j1_q": 0.4})
    assert op.success
    tau = model.outputs(0.0, op.x, op.u)[model.output_index("j1_tau")]
    # static: the drive holds the weight of both bodies about the y axis (gravity along −y:
    # no moment about y) -> zero torque
    assert abs(tau) < 1e-9
    sys = tl.linearize(model, op, inputs=["j1_qdd"], outputs=["j1_tau"])
    h = 1e-6
    x0, u0 = op.x, op.u
    D_fd = (model.outputs(0, x0, u0 + h)[model.output_index("j1_tau")]
            - model.outputs(0, x0, u0 - h)[model.output_index("j1_tau")]) / (2 * h)
    assert abs(sys.D[0, 0] - D_fd) < 1e-7 and abs(D_fd) > 1e-3


def test_driven_and_actuated_is_refused():
    bad = crank()
    bad["bodies"][0]["joint"]["actuated"] = True
    with pytest.raises(tl.ModelError, match="cannot also be actuated"):
        tl.load_model(bad)
    bad["bodies"][0]["joint"].update(actuated=False, motion="imposed")
    with pytest.raises(tl.ModelError, match="motion: must be 'free' or 'input'"):
        tl.load_model(bad)


def test_block_route_builds_a_driven_joint():
    desc = crank()
    desc["parameters"] = {"m": {"value": 1.0, "min": 0.5, "max": 2.0}}
    desc["bodies"][1]["joint"] = {"type": "revolute", "axis": [0, 0, 1]}
    desc["bodies"][1]["mass"] = "m"
    model = tl.load_model(desc)
    G = tl.linearize_uncertain(model, free=["j2_q"], uncertain=["m"], outputs=["j1_tau"])
    assert G.kinds == {"m": "exact"}
