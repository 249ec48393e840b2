"""``tl.motion_vector`` (the 18-component motion vector of Definition 1 / eq. 14).

Checked against a pendulum's closed form and, on the balloon, against the time derivatives
of the point's inertial position and twist taken along the flow (complex step).
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np

import titop_lpv as tl

ROOT = Path(__file__).resolve().parents[1]


def test_pendulum_tip_closed_form():
    L, g = 1.3, 9.81
    s = tl.System("pendulum", gravity=[0.0, -g, 0.0])
    s.body("arm", tl.Revolute(axis=[0, 0, 1]), mass=2.0, com=[0.0, -L, 0.0],
           ports={"tip": [0.0, -L, 0.0]})
    model = s.compile()
    rng = np.random.default_rng(0)
    for theta, rate in rng.uniform(-2.5, 2.5, size=(10, 2)):
        m = tl.motion_vector(model, [theta, rate], "arm", "tip")
        thdd = -(g / L) * np.sin(theta)
        r = np.array([0.0, -L, 0.0])
        w, wd = np.array([0, 0, rate]), np.array([0, 0, thdd])
        np.testing.assert_allclose(m[0:3], np.cross(wd, r), atol=1e-12)  # v̇ (body frame)
        np.testing.assert_allclose(m[3:6], wd, atol=1e-12)
        np.testing.assert_allclose(m[6:9], np.cross(w, r), atol=1e-12)  # v (body frame)
        np.testing.assert_allclose(m[9:12], w, atol=1e-12)
        np.testing.assert_allclose(m[12:15], [L * np.sin(theta), -L * np.cos(theta), 0.0],
                                   atol=1e-12)


def test_balloon_port_motion_vector_is_consistent_with_the_flow():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tl.TitopWarning)
        model = tl.load_model(ROOT / "examples" / "balloon.toml")
    rng = np.random.default_rng(1)
    x = model.default_state() + rng.normal(scale=0.3, size=model.n_states)
    h = 1e-30
    f = model.dynamics(0.0, x)
    for body, point in (("balloon", "C"), ("pendulum1", "tip"), ("slider", "origin")):
        m = tl.motion_vector(model, x, body, point)
        R = model.rotation(x, body)
        # d/dt IC along the flow equals P_{a/i} v_C
        xc = x + 1j * h * f
        dpos = model.position(xc, body, point).imag / h
        np.testing.assert_allclose(dpos, R @ m[6:9], rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(m[12:15], model.position(x, body, point), atol=1e-14)
        # ẋ' is the derivative of the body-frame twist components along the flow
        m_c = tl.motion_vector(model, xc, body, point)
        np.testing.assert_allclose(m_c[6:12].imag / h, m[0:6], rtol=1e-9, atol=1e-10)
    theta = model.state_index("balloon_phi")
    np.testing.assert_allclose(tl.motion_vector(model, x, "balloon")[15:18],
                               x[theta:theta + 3], atol=0)
