"""``Model.to_nlsys``: the model as a python-control ``NonlinearIOSystem``.

Checked against our own simulation (same right-hand side, two integrators) and against the
closed-form pendulum equation.
"""

from __future__ import annotations

import control
import numpy as np
import pytest

import titop_lpv as tl


def _pendulum(actuated: bool = True) -> tl.Model:
    s = tl.System("pendulum", gravity=[0.0, -9.81, 0.0])
    s.parameter("L", 1.5, unit="m")
    s.body("arm", tl.Revolute(axis=[0, 0, 1], q0=0.4, damping=0.1, actuated=actuated),
           mass=2.0, com=[0.0, "L", 0.0])
    return s.compile()


def test_nlsys_names_and_params():
    model = _pendulum()
    nl = model.to_nlsys()
    assert isinstance(nl, control.NonlinearIOSystem)
    assert nl.state_labels == list(model.state_names)
    assert nl.input_labels == ["arm_tau"]
    assert nl.output_labels == ["arm_q"]
    assert nl.params == {"L": 1.5}


def test_nlsys_updfcn_is_the_model_and_takes_params():
    model = _pendulum()
    nl = model.to_nlsys()
    x = np.array([0.7, -0.2])
    # com at +L along y (above the pivot, gravity −y): m L² θ̈ = m g L sin θ − d θ̇ + u
    L, m, g, d, u = 2.0, 2.0, 9.81, 0.1, 0.3
    expected = (g / L) * np.sin(x[0]) + (u - d * x[1]) / (m * L * L)
    got = nl.updfcn(0.0, x, [u], {"L": L})
    np.testing.assert_allclose(got, [x[1], expected], rtol=1e-13)


def test_input_output_response_matches_simulate():
    model = _pendulum()
    T = np.linspace(0.0, 2.0, 201)
    resp = control.input_output_response(
        model.to_nlsys(), T, U=0.2, X0=model.default_state(),
        solve_ivp_kwargs={"rtol": 1e-10, "atol": 1e-12},
    )
    traj = tl.simulate(model, (0.0, 2.0), u=[0.2], t_eval=T, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(resp.outputs, traj["arm_q"], atol=1e-8)


def test_unknown_param_through_nlsys_is_named():
    nl = _pendulum().to_nlsys()
    with pytest.raises(tl.UnknownNameError, match="bogus"):
        nl.updfcn(0.0, np.zeros(2), [0.0], {"bogus": 1.0})
