"""``linearize_uncertain`` with the linear model's own state names: the attitude error
``b_rx b_ry b_rz`` of a spherical joint asked for as an output, and the integrators of a
quaternion floating base (position and attitude error) dropped like an Euler base's.

Reference: the exact linearisation of the nonlinear model (``tl.linearize``, which names
the attitude error the same way) at the nominal equilibrium, to 1e-9 relative
(``test_linear._assert_same``: matrices, frequency response, poles).
"""

from __future__ import annotations

import control
import numpy as np
import pytest
from test_blocks_multidof import (
    BALL_FREE,
    QBALLOON_FREE,
    QBALLOON_GUESS,
    _load,
    quaternion_balloon,
    spherical_held,
    spherical_pendulum,
)
from test_linear import _assert_same

import titop_lpv as tl
import titop_lpv.linear.assemble_joints as joints


def test_spherical_attitude_error_as_output() -> None:
    """``rod_rx``, ``bob_rz`` (and a rate ``rod_wy``) as outputs: rows of the identity on the linear
    states, equal to ``tl.linearize``'s A, B with those rows as C."""
    model = _load(spherical_pendulum(params=True))
    outs = ["rod_rx", "bob_rz", "rod_wy"]  # (bob_wz would be the sensor)
    G = tl.linearize_uncertain(model, BALL_FREE, uncertain=["d"], outputs=outs)
    assert G.output_labels == outs
    op = tl.trim(model, BALL_FREE)
    ref = tl.linearize(model, op, inputs=[], outputs=[])
    names = list(ref.state_labels)
    assert list(G.state_labels) == names
    C = np.zeros((len(outs), len(names)))
    for r, o in enumerate(outs):
        C[r, names.index(o)] = 1.0
    nom = G.nominal()
    # no inputs on either side: compare A and C (B, D are empty)
    scale = max(1.0, float(np.max(np.abs(ref.A))))
    assert np.max(np.abs(np.asarray(nom.A) - ref.A)) <= 1e-9 * scale
    assert np.array_equal(np.asarray(nom.C), C)
    # and at another damping, against the re-linearised model (d moves no equilibrium)
    d = 0.35
    op_d = tl.trim(model, BALL_FREE, params={"d": d})
    ref_d = tl.linearize(model, op_d, inputs=[], outputs=[])
    scale = max(1.0, float(np.max(np.abs(ref_d.A))))
    assert np.max(np.abs(np.asarray(G.at({"d": d}).A) - ref_d.A)) <= 1e-9 * scale


def test_quaternion_component_as_output_is_refused_with_a_hint() -> None:
    model = _load(spherical_pendulum(params=True))
    with pytest.raises(tl.BlockRouteError, match="rod_rx"):
        tl.linearize_uncertain(model, BALL_FREE, uncertain=["d"], outputs=["rod_qx"])
    with pytest.raises(tl.UnknownNameError, match="rod_zz"):
        tl.linearize_uncertain(model, BALL_FREE, uncertain=["d"], outputs=["rod_zz"])


def test_quaternion_base_integrators_dropped() -> None:
    """A quaternion balloon: position and attitude-error integrators drop as from
    ``tl.linearize(..., drop_integrators=True)``; nominal equal to 1e-9."""
    model = _load(quaternion_balloon())
    unc = {"k": (25.0, 100.0), "dp1": (0.2, 1.0)}
    G = tl.linearize_uncertain(model, QBALLOON_FREE, guess=QBALLOON_GUESS, uncertain=unc,
                               inputs=["slider_tau"], drop_integrators=True)
    op = G.operating_point
    ref = tl.linearize(model, op, inputs=["slider_tau"], drop_integrators=True)
    dropped = [s for s in tl.linearize(model, op, inputs=["slider_tau"]).state_labels
               if s not in ref.state_labels]
    assert "balloon_ry" in dropped and "balloon_x" in dropped  # heading (gravity −y), position
    assert set(G.dropped_states) == set(dropped)
    assert list(G.state_labels) == list(ref.state_labels)
    assert list(G.output_labels) == list(ref.output_labels)
    assert set(G.dropped_outputs) == set(ref.dropped_outputs)
    _assert_same(G.nominal(), ref, "quaternion balloon, integrators dropped")
    # and at a vertex, against the re-trimmed, re-linearised model (k and dp1 are exact)
    values = {"k": 100.0, "dp1": 0.2}
    op_v = tl.trim(model, QBALLOON_FREE, params=values, x0=op.x)
    ref_v = tl.linearize(model, op_v, inputs=["slider_tau"], drop_integrators=True)
    assert list(ref_v.state_labels) == list(ref.state_labels)
    _assert_same(G.at(values), ref_v, "quaternion balloon at a vertex")


def test_euler_and_quaternion_bases_drop_the_same_number_of_states() -> None:
    desc = quaternion_balloon()
    desc["bodies"][0]["joint"]["attitude"] = "euler"
    euler = _load(desc)
    free = ["balloon.phi", "balloon.theta", "slider.q", "pendulum1.q", "pendulum2.q"]
    G_e = tl.linearize_uncertain(euler, free, guess=QBALLOON_GUESS, uncertain=["k"],
                                 inputs=["slider_tau"], outputs=["slider_q"],
                                 drop_integrators=True)
    G_q = tl.linearize_uncertain(_load(quaternion_balloon()), QBALLOON_FREE,
                                 guess=QBALLOON_GUESS, uncertain=["k"], inputs=["slider_tau"],
                                 outputs=["slider_q"], drop_integrators=True)
    assert len(G_e.dropped_states) == len(G_q.dropped_states) == 4
    assert G_e.nstates == G_q.nstates
    # same plant (attitude coordinates differ, the transfer from slider_tau to slider_q not)
    w = 1j * np.logspace(-1, 1, 20)
    for k in (25.0, 60.0, 100.0):
        a, b = G_e.at({"k": k})(w), G_q.at({"k": k})(w)
        assert np.max(np.abs(a - b)) <= 1e-8 * np.max(np.abs(a))
    assert isinstance(G_q.nominal(), control.StateSpace)


def test_moving_spherical_attitude_refused_from_the_survey_trims(monkeypatch) -> None:
    """The check that refuses a spherical attitude moving with a parameter reuses the
    survey's trims at the parameter's ends (no second trim there), and still refuses."""
    def no_trim(*args, **kwargs):
        raise AssertionError("refuse_moving_positions trimmed again")

    monkeypatch.setattr(joints, "trim", no_trim)
    model = _load(spherical_held())
    with pytest.raises(tl.BlockRouteError, match=r"body 'rod'.*parameter 'k'"):
        tl.linearize_uncertain(model, ["rod_rx", "rod_ry", "rod_rz"], uncertain=["k"])
