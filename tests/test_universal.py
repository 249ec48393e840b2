"""Universal joints: names, per-axis springs, conservation, trim and linearisation.

(Forward dynamics against Pinocchio on random mixed trees: ``tests/test_spherical_peer.py``.)
"""

from __future__ import annotations

import numpy as np
import pytest

import titop_lpv as tl


def cardan(k=(4.0, 2.0), d=(0.0, 0.0), rest=(0.3, -0.2)) -> dict:
    """A rod hanging from a Cardan joint, a second rod on a revolute joint below it."""
    return {"name": "cardan", "gravity": [0.0, 0.0, -9.81], "bodies": [
        {"name": "arm", "joint": {"type": "universal", "axis1": [1.0, 0.0, 0.0],
                                  "axis2": [0.0, 1.0, 0.0], "stiffness": list(k),
                                  "damping": list(d), "rest": list(rest), "q0": [0.4, -0.6],
                                  "qd0": [1.0, -0.5],
                                  "rotation": [[1, 0, 0], [0, 0, -1], [0, 1, 0]]},
         "mass": 1.5, "com": [0.1, 0.0, -0.5],
         "inertia": [[0.12, 0.0, 0.0], [0.0, 0.1, 0.01], [0.0, 0.01, 0.03]],
         "ports": {"tip": [0.0, 0.1, -1.0]}},
        {"name": "link", "parent": "arm.tip", "joint": {"type": "revolute", "axis": [1, 1, 0],
                                                        "q0": 0.3, "qd0": 0.4},
         "mass": 0.7, "com": [0.0, 0.0, -0.4],
         "inertia": [[0.03, 0.0, 0.0], [0.0, 0.03, 0.0], [0.0, 0.0, 0.01]]}]}


def test_names_units_and_defaults():
    model = tl.load_model(cardan())
    assert model.state_names[:4] == ("arm_q1", "arm_q2", "arm_qd1", "arm_qd2")
    np.testing.assert_allclose(model.default_state()[:4], [0.4, -0.6, 1.0, -0.5])
    assert model.units()["arm_q1"] == "rad" and model.units()["arm_qd2"] == "rad/s"


def test_attitude_is_the_cardan_product():
    """P = R(axis1, q1) P0 R(axis2, q2): axis1 fixed in the parent, axis2 in the child."""
    model = tl.load_model(cardan())
    x = model.default_state()
    P0 = np.array([[1, 0, 0], [0, 0, -1], [0, 1, 0]], dtype=float)

    def rot(axis, angle):
        axis = np.asarray(axis, float) / np.linalg.norm(axis)
        K = np.array([[0, -axis[2], axis[1]], [axis[2], 0, -axis[0]], [-axis[1], axis[0], 0]])
        return np.eye(3) + np.sin(angle) * K + (1 - np.cos(angle)) * K @ K

    expect = rot([1, 0, 0], 0.4) @ P0 @ rot([0, 1, 0], -0.6)
    np.testing.assert_allclose(model.rotation(x, "arm"), expect, atol=1e-15)


def test_energy_conserved():
    model = tl.load_model(cardan())
    x0 = model.default_state()
    traj = tl.simulate(model, (0.0, 3.0), x0=x0, rtol=1e-11, atol=1e-11)
    E = np.sum(tl.energy(model, traj.x), axis=0)
    drift = np.max(np.abs(E - E[0])) / np.max(np.abs(tl.energy(model, x0)))
    print(f"\nuniversal + revolute, 3 s: relative energy drift {drift:.1e}")
    assert drift < 1e-8


def test_per_axis_damping_power():
    model = tl.load_model(cardan(d=(0.8, 0.3)))
    x = model.default_state()
    xd = model.dynamics(0.0, x)
    h = 1e-6
    dE = (np.sum(tl.energy(model, x + h * xd)) - np.sum(tl.energy(model, x - h * xd))) / (2 * h)
    assert abs(dE - (-0.8 * 1.0 ** 2 - 0.3 * 0.5 ** 2)) < 1e-7


def test_trim_and_linearize():
    model = tl.load_model(cardan())
    op = tl.trim(model, free=["arm_q1", "arm_q2", "link_q"])
    assert op.success
    sys = tl.linearize(model, op)
    h = 1e-6
    A_fd = np.column_stack([(model.dynamics(0, op.x + h * e) - model.dynamics(0, op.x - h * e))
                            / (2 * h) for e in np.eye(model.n_states)])
    np.testing.assert_allclose(sys.A, A_fd, rtol=1e-6, atol=1e-7)


def test_bad_universal_joint_is_refused():
    bad = cardan()
    bad["bodies"][0]["joint"]["axis1"] = [0.0, 0.0, 0.0]
    bad["bodies"][0]["joint"]["stiffness"] = [1.0, 2.0, 3.0]
    with pytest.raises(tl.ModelError, match=r"axis1: zero-length axis") as err:
        tl.load_model(bad)
    assert "stiffness: must be a vector of 2 numbers" in str(err.value)
