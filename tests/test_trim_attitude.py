"""Trim with spherical-joint attitudes far from the start: the attitude error is re-centred.

``trim`` solves for a spherical joint's attitude through the error ``δr`` of ``q = q_start ⊗
exp(δr)``; that chart folds at ``|δr| = π`` and is singular at ``2π``, so the solvers move
its origin to every accepted point (``q ← q ⊗ exp(δr)``, ``δr ← 0``). Checked: the
re-centring leaves the model's point unchanged; spherical pendulums (one and two bodies,
springs stiff enough for a unique equilibrium) trimmed from starts 2.5 to 3.1 rad away land
on the equilibrium, verified by its closed form (``k θ = c × m gᵇ``) and by the dynamics;
``attitude_errors`` is the whole rotation from the start.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

import titop_lpv as tl
from titop_lpv.analysis import trim_solver as ts
from titop_lpv.spatial import quaternion as quat

COM = np.array([0.1, 0.05, -0.6])
INERTIA = [[0.09, 0.01, 0.0], [0.01, 0.08, 0.0], [0.0, 0.0, 0.03]]


def pendulum(k: float, chain: int = 1) -> tl.Model:
    bodies = []
    for n in range(chain):
        bodies.append({"name": f"p{n}", "joint": {"type": "spherical", "stiffness": k},
                       "mass": 2.0, "com": COM.tolist(), "inertia": INERTIA,
                       "ports": {"tip": [0.0, 0.0, -1.0]},
                       **({"parent": f"p{n - 1}.tip"} if n else {})})
    return tl.load_model({"gravity": [0, 0, -9.81], "bodies": bodies})


def far_start(model: tl.Model, rng: np.random.Generator) -> tuple[np.ndarray, list[float]]:
    x0 = model.default_state()
    angles = []
    for i in range(len(model.body_names)):
        axis = rng.standard_normal(3)
        angle = rng.uniform(2.5, 3.1)
        qi = model.q_index[i]
        x0[qi:qi + 4] = quat.exp(angle * axis / np.linalg.norm(axis))
        angles.append(angle)
    return x0, angles


def test_recentre_keeps_the_point():
    model = pendulum(5.0, chain=2)
    rng = np.random.default_rng(0)
    x0, _ = far_start(model, rng)
    free = ["p0_rx", "p0_ry", "p0_rz", "p1_rx", "p1_ry", "p1_rz"]
    where = [("r", 3 * int(model.q_index[i]) + c) for i in (0, 1) for c in range(3)]
    prob = ts.Problem(model, x0, np.zeros(0), np.zeros(0), free, where,
                      np.array(model.velocity_indices()))
    z, other = rng.uniform(-3, 3, 6), rng.uniform(-3, 3, 6)
    X_z, X_o = prob.assemble(z)[0], prob.assemble(other)[0]
    z_new, other_new = prob.recentre(z, other)
    np.testing.assert_array_equal(z_new, 0.0)
    assert np.all(np.abs(np.linalg.norm(other_new.reshape(2, 3), axis=1)) <= np.pi + 1e-12)
    for before, after in ((X_z, prob.assemble(z_new)[0]), (X_o, prob.assemble(other_new)[0])):
        for qi in model.q_index:  # the same rotations (q and −q alike)
            a, b = before[qi:qi + 4], after[qi:qi + 4]
            assert min(np.max(np.abs(a - b)), np.max(np.abs(a + b))) <= 1e-14
        np.testing.assert_allclose(model.dynamics(0, after), model.dynamics(0, before),
                                   rtol=0, atol=1e-12)


@pytest.mark.parametrize("seed", range(6))
def test_spherical_pendulum_from_far_starts(seed):
    """A stiff spring (k > m g |c|): one equilibrium, ``k θ = c × (m Rᵀ g)``, found from
    2.5–3.1 rad away."""
    model = pendulum(30.0)
    rng = np.random.default_rng(seed)
    x0, angles = far_start(model, rng)
    op = tl.trim(model, free=["p0_rx", "p0_ry", "p0_rz"], x0=x0)
    q = op.x[:4] / np.linalg.norm(op.x[:4])
    theta = quat.log(q)
    R = Rotation.from_quat([*q[1:], q[0]]).as_matrix()
    np.testing.assert_allclose(30.0 * theta, np.cross(COM, 2.0 * R.T @ [0, 0, -9.81]),
                               rtol=0, atol=1e-9)
    # attitude_errors: the whole rotation from the start, q = q_start ⊗ exp(δr)
    dr = np.array([op.attitude_errors[f"p0_r{c}"] for c in "xyz"])
    back = quat.multiply(x0[:4], quat.exp(dr))
    assert min(np.max(np.abs(back - q)), np.max(np.abs(back + q))) <= 1e-12
    assert np.linalg.norm(dr) >= 2.0  # it did travel far
    print(f"\nseed {seed}: start {angles[0]:.2f} rad away, {op.nfev} evaluations")


@pytest.mark.parametrize("seed", range(4))
def test_double_spherical_pendulum_from_far_starts(seed):
    model = pendulum(80.0, chain=2)
    rng = np.random.default_rng(100 + seed)
    x0, angles = far_start(model, rng)
    free = [f"p{n}_r{c}" for n in (0, 1) for c in "xyz"]
    op = tl.trim(model, free=free, x0=x0)
    assert op.success
    np.testing.assert_allclose(model.dynamics(0, op.x), 0.0, atol=1e-10)
    print(f"\nseed {seed}: starts {np.round(angles, 2)} rad away, {op.nfev} evaluations")
    assert op.nfev <= 100


def test_gravity_pendulum_without_spring_from_far_starts():
    """No spring: hanging (or inverted) is found from starts 2.5–3.1 rad away; the rotation
    about the vertical is neutral."""
    model = pendulum(0.0)
    rng = np.random.default_rng(7)
    for _ in range(4):
        x0, _ = far_start(model, rng)
        op = tl.trim(model, free=["p0_rx", "p0_ry", "p0_rz"], x0=x0)
        q = op.x[:4] / np.linalg.norm(op.x[:4])
        R = Rotation.from_quat([*q[1:], q[0]]).as_matrix()
        c = R @ COM  # the centre of mass on the vertical through the joint
        np.testing.assert_allclose(c[:2], 0.0, atol=1e-10)
        assert op.success and op.rank_deficiency == 1
