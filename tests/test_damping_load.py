"""Damping load against the inertial frame (``type = "damping"``): −c_v v_C, −c_ω ω.

Checked against an independent route (the same model without the load, driven by a wrench
input equal to the damping wrench computed by hand from the twist), the compiled kernel
against the numpy recursion, the power balance dE/dt = −c_v |v_C|² − c_ω |ω|², monotone
energy decay in simulation, exact Jacobians against central differences, inverse dynamics,
and the refusals (validation, linear block route).
"""

from __future__ import annotations

import copy

import models
import numpy as np
import pytest

import titop_lpv as tl
from titop_lpv.linear.errors import BlockRouteError
from titop_lpv.multibody.dynamics import forward_dynamics
from titop_lpv.multibody.energy import energy
from titop_lpv.multibody.inverse_dynamics import inverse_dynamics, velocity_names

C_V, C_W = 3.0, 1.5


def _desc(with_damping: bool = True, as_input: bool = False) -> dict:
    d = models.balloon()
    d["parameters"]["cv"] = C_V
    d["bodies"][0]["inertia"] = [[9.0, 0.0, 0.0], [0.0, 10.0, -3.0], [0.0, -3.0, 10.0]]
    d["bodies"][3]["ports"] = {"tip": [0.1, -1.6, 0.2]}
    if with_damping:
        d["loads"] += [{"type": "damping", "body": "balloon", "linear": "cv", "angular": C_W,
                        "point": "C"},
                       {"type": "damping", "body": "pendulum2", "linear": 0.7, "point": "tip"}]
    if as_input:
        d["inputs"] = [{"body": "balloon", "point": "C", "frame": "body"},
                       {"body": "pendulum2", "point": "tip", "frame": "body"}]
    return d


@pytest.fixture(scope="module")
def damped():
    return tl.load_model(_desc())


def _state(model, seed=7):
    rng = np.random.default_rng(seed)
    return model.default_state() + 0.4 * rng.standard_normal(model.n_states)


def test_damping_wrench_equals_hand_computed_wrench_input(damped):
    driven = tl.load_model(_desc(with_damping=False, as_input=True))
    for seed in range(3):
        x = _state(damped, seed)
        C = np.array([0.0, -2.0, 0.0])
        tip = np.array([0.1, -1.6, 0.2])
        u = []
        for body, pt, cv, cw in (("balloon", C, C_V, C_W), ("pendulum2", tip, 0.7, 0.0)):
            tw = tl.motion_vector(damped, x, body, "origin")[6:12]
            v_c = tw[:3] + np.cross(tw[3:], pt)
            u += [*(-cv * v_c), *(-cw * tw[3:])]
        xd_ref = driven.dynamics(0.0, x, np.array(u))
        for backend in ("numpy", "compiled"):
            xd = forward_dynamics(damped, x, backend=backend)
            np.testing.assert_allclose(xd, xd_ref, rtol=1e-11, atol=1e-11)


def test_power_balance(damped):
    """d(T+V)/dt along the flow = joint damper power − c_v |v_C|² − c_ω |ω|²."""
    p = {"ds": 0.0, "dp1": 0.0, "dp2": 0.0}
    x = _state(damped, 3)
    xd = damped.dynamics(0.0, x, None, p)
    h = 1e-6
    E = [sum(energy(damped, x + s * h * xd, p)) for s in (1, -1)]
    dEdt = (E[0] - E[1]) / (2 * h)
    power = 0.0
    for body, pt, cv, cw in (("balloon", [0.0, -2.0, 0.0], C_V, C_W),
                             ("pendulum2", [0.1, -1.6, 0.2], 0.7, 0.0)):
        tw = tl.motion_vector(damped, x, body, "origin", params=p)[6:12]
        v_c = tw[:3] + np.cross(tw[3:], pt)
        power -= cv * v_c @ v_c + cw * tw[3:] @ tw[3:]
    assert power < -1.0
    assert abs(dEdt - power) <= 1e-7 * abs(power)


def test_energy_decays_monotonically(damped):
    p = {"ds": 0.0, "dp1": 0.0, "dp2": 0.0}
    x0 = _state(damped, 5)
    traj = tl.simulate(damped, (0.0, 3.0), x0=x0, params=p, rtol=1e-10, atol=1e-10)
    E = np.sum(energy(damped, traj.x, p), axis=0)
    assert np.all(np.diff(E) < 1e-9)
    assert E[-1] < E[0] - 1.0
    undamped = tl.load_model(_desc(with_damping=False))
    traj2 = tl.simulate(undamped, (0.0, 3.0), x0=x0, params=p, rtol=1e-10, atol=1e-10)
    E2 = np.sum(energy(undamped, traj2.x, p), axis=0)
    assert np.ptp(E2) < 1e-5 * abs(E2[0]) + 1e-6  # the same model without it conserves


def test_jacobians_vs_central_differences(damped):
    x = _state(damped, 11)
    J = tl.jacobians(damped, x, parameters=True)
    h = 1e-6
    A_fd = np.column_stack([(damped.dynamics(0.0, x + h * e) - damped.dynamics(0.0, x - h * e))
                            / (2 * h) for e in np.eye(damped.n_states)])
    np.testing.assert_allclose(J.A, A_fd, rtol=1e-6, atol=2e-7)
    Jp = J.Fp[:, damped.param_names.index("cv")]
    p0 = damped.default_params()
    fd = (damped.dynamics(0.0, x, None, {**p0, "cv": C_V + h})
          - damped.dynamics(0.0, x, None, {**p0, "cv": C_V - h})) / (2 * h)
    assert np.max(np.abs(fd)) > 1e-2
    np.testing.assert_allclose(Jp, fd, rtol=1e-6, atol=2e-7)


def test_inverse_dynamics_returns_the_joint_forces(damped):
    x = _state(damped, 13)
    xd = damped.dynamics(0.0, x)
    nu = velocity_names(damped)
    acc = np.array([xd[damped.state_index(n)] for n in nu])
    res = inverse_dynamics(damped, x, acc)
    np.testing.assert_allclose(res.base_wrench, 0.0, atol=1e-10)
    np.testing.assert_allclose(res.actuation, 0.0, atol=1e-10)


def test_validation_and_block_route_refusal(damped):
    bad = _desc()
    bad["loads"][1]["linear"] = -1.0
    bad["loads"][2]["point"] = "nowhere"
    with pytest.raises(tl.ModelError, match=r"linear must be >= 0") as err:
        tl.load_model(bad)
    assert "nowhere" in str(err.value)
    rt = tl.load_model(copy.deepcopy(damped.description))
    assert rt.description["loads"][1] == {"type": "damping", "body": "balloon",
                                          "linear": "cv", "angular": C_W, "point": "C"}
    with pytest.raises(BlockRouteError,
                       match=r"'balloon': a damping load \(of a spinning floating base\)"):
        tl.linearize_uncertain(damped, free=[], uncertain=["k"], kind="spin",
                               spin={"body": "balloon", "axis": [0, 1, 0], "rate": 0.5})
