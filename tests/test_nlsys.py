"""``Model.to_nlsys``: the model as a python-control ``NonlinearIOSystem``.

Checked against our own simulation (same right-hand side, two integrators), against the
closed-form pendulum equation, and python-control's ``find_operating_point`` and
``linearize`` on it against ``tl.trim`` and ``tl.linearize`` (balloon, neutral states held).
"""

from __future__ import annotations

import warnings
from pathlib import Path

import control
import numpy as np
import pytest

import titop_lpv as tl

ROOT = Path(__file__).resolve().parents[1]


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


def test_find_operating_point_agrees_with_trim():
    """python-control's ``find_operating_point`` on ``to_nlsys()`` finds ``tl.trim``'s point.

    The balloon pushed by a slider force (``slider_tau`` = 2 N, k = 80 N/m: the slider
    deflects and the balloon tilts). Its position and heading are neutral (buoyancy equals
    weight), so they must be held: with them free python-control's solver lets the heading
    wander (hundreds of radians). The problem is over-determined (18 derivatives, 14 free
    states): Levenberg-Marquardt least squares, which python-control warns about.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tl.TitopWarning)  # the balloon's inertia (expected)
        model = tl.load_model(ROOT / "examples" / "balloon.toml")
    params = {"k": 80.0}
    op = tl.trim(model, free=["balloon.phi", "balloon.theta", "slider.q", "pendulum1.q",
                              "pendulum2.q"],
                 fixed={"balloon.x": 0.0, "balloon.z": 0.0, "balloon.psi": 0.0,
                        "slider_tau": 2.0},
                 guess={"pendulum1.q": 0.2, "pendulum2.q": -0.2}, params=params)
    assert op.success and abs(op["slider_q"]) > 1e-2 and abs(op["balloon_phi"]) > 1e-3
    x0 = np.zeros(model.n_states)
    x0[[model.state_index("pendulum1_q"), model.state_index("pendulum2_q")]] = [0.2, -0.2]
    neutral = [model.state_index(f"balloon_{c}") for c in ("x", "y", "z", "psi")]
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="number of constraints")
        found = control.find_operating_point(model.to_nlsys(), x0, [2.0], ix=neutral, iu=[0],
                                             params=params, root_method="lm",
                                             return_result=True)
    assert found.result.success
    np.testing.assert_allclose(found.states, op.x, atol=1e-9)
    np.testing.assert_allclose(found.inputs, op.u, atol=0)
    np.testing.assert_allclose(found.outputs, model.outputs(0.0, op.x, op.u, params),
                               atol=1e-9)
    # python-control's linearisation at its point agrees with ours to its FD accuracy
    ours = tl.linearize(model, op)
    theirs = control.linearize(model.to_nlsys(), found.states, found.inputs, params=params)
    for m in "ABC":
        ref = getattr(ours, m)
        assert np.linalg.norm(getattr(theirs, m) - ref) <= 1e-4 * np.linalg.norm(ref), m
