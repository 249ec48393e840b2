"""Fixed-step RK4 in ``simulate``: order 4, agreement with solve_ivp, the step grid, guards."""

from __future__ import annotations

import numpy as np
import pytest

import titop_lpv as tl
from titop_lpv.exceptions import ArgumentError, SimulationError

PENDULUM = {
    "name": "pendulum", "gravity": [0.0, -9.81, 0.0],
    "bodies": [{"name": "arm", "mass": 1.0, "com": [0.0, -0.5, 0.0],
                "inertia": [[0.01, 0, 0], [0, 0.01, 0], [0, 0, 0.02]],
                "joint": {"type": "revolute", "axis": [0, 0, 1], "q0": 1.2}}],
}


@pytest.fixture(scope="module")
def pendulum():
    return tl.load_model(PENDULUM)


def test_rk4_global_error_is_fourth_order(pendulum):
    ref = tl.simulate(pendulum, (0.0, 2.0), n_points=2, rtol=1e-13, atol=1e-14).x[-1]
    err = []
    for dt in (0.02, 0.01, 0.005):
        traj = tl.simulate(pendulum, (0.0, 2.0), method="RK4", dt=dt, n_points=2)
        assert traj.nfev == 4 * round(2.0 / dt)
        err.append(np.max(np.abs(traj.x[-1] - ref)))
    ratios = [err[0] / err[1], err[1] / err[2]]
    print(f"\nRK4 errors {err}, ratios {ratios}")
    assert all(14.0 < r < 18.0 for r in ratios)


def test_rk4_agrees_with_dop853_and_lands_on_the_grid(pendulum):
    t_eval = np.linspace(0.0, 1.0, 11)
    a = tl.simulate(pendulum, (0.0, 1.0), method="rk4", dt=1e-3, t_eval=t_eval)
    b = tl.simulate(pendulum, (0.0, 1.0), t_eval=t_eval, rtol=1e-12, atol=1e-13)
    np.testing.assert_array_equal(a.t, t_eval)
    np.testing.assert_allclose(a.x, b.x, atol=1e-10)
    np.testing.assert_allclose(a.y, b.y, atol=1e-10)
    # an output every step equals the run stepped to each output time
    short = tl.simulate(pendulum, (0.0, 0.3), method="RK4", dt=1e-3, n_points=2)
    np.testing.assert_array_equal(short.x[-1], [a["arm_q"][3], a["arm_qd"][3]])


def test_rk4_refuses_bad_steps(pendulum):
    with pytest.raises(ArgumentError, match="needs its step dt"):
        tl.simulate(pendulum, (0.0, 1.0), method="RK4")
    with pytest.raises(ArgumentError, match="adaptive methods choose"):
        tl.simulate(pendulum, (0.0, 1.0), dt=1e-3)
    with pytest.raises(ArgumentError, match="whole number of steps"):
        tl.simulate(pendulum, (0.0, 1.0), method="RK4", dt=0.3)
    with pytest.raises(ArgumentError, match="does not interpolate"):
        tl.simulate(pendulum, (0.0, 1.0), method="RK4", dt=0.1, t_eval=[0.0, 0.05])
    with pytest.raises(ArgumentError, match="max_nfev"):
        tl.simulate(pendulum, (0.0, 1.0), method="RK4", dt=1e-3, max_nfev=100)
    with pytest.raises(ArgumentError, match="dt"):
        tl.simulate(pendulum, (0.0, 1.0), method="RK4", dt=-1.0)


def test_rk4_stops_on_a_non_finite_state_naming_time_and_state(pendulum):
    def u(t, x):
        return np.array([1e300 * (t > 0.05)])

    model = tl.load_model({**PENDULUM, "bodies": [
        {**PENDULUM["bodies"][0], "joint": {**PENDULUM["bodies"][0]["joint"],
                                             "actuated": True}}]})
    with pytest.raises(SimulationError, match=r"stopped at t = 0\.0\d+ s: .*arm_q"):
        tl.simulate(model, (0.0, 1.0), u=u, method="RK4", dt=0.01, n_points=2)


def test_rk4_reports_progress(pendulum):
    seen = []
    tl.simulate(pendulum, (0.0, 0.1), method="RK4", dt=0.01, n_points=2,
                progress=lambda t, t1: seen.append((t, t1)))
    assert seen[-1] == (0.1, 0.1) and len(seen) == 41
