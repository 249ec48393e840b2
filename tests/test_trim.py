"""Operating points (``tl.trim``, ``tl.trim_sweep``) against closed forms and inverse dynamics.

* balloon: centre of mass on the vertical through the buoyancy point, pendulums vertical,
  slider spring balancing the weight component along its axis; neutral directions pinned;
* pendulum on an inclined prismatic spring, torsional-spring pendulum: closed forms;
* a hinged panel on a torsional spring on a spinning hub: balance of the centrifugal and
  spring moments (closed form, solved by brentq); Ω = 0 gives the rest angle;
* a robot arm held by free joint torques: inverse dynamics at zero velocity/acceleration;
* a steady spin that is not a relative equilibrium (gravity across the spin axis) is
  refused; legitimate spins (no gravity, gravity along the axis, buoyancy = weight) hold
  still under simulation;
* dependent free variables (coaxial hinges: only the sum matters) are found by rank and pinned;
* continuation over 31 points; a point without equilibrium is reported;
* failures are loud (over-determined without solution, evaluation budget) and
  specification errors name the variable.
"""

from __future__ import annotations

import warnings
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest
from scipy.optimize import brentq

import titop_lpv as tl

ROOT = Path(__file__).resolve().parents[1]
G = 9.81
BALLOON_FREE = ["balloon.phi", "balloon.theta", "slider.q", "pendulum1.q", "pendulum2.q"]
HANGING = {"pendulum1.q": 0.2, "pendulum2.q": -0.2}


@pytest.fixture(scope="module")
def balloon() -> tl.Model:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tl.TitopWarning)
        return tl.load_model(ROOT / "examples" / "balloon.toml")


def _tilted_balloon(balloon_model: tl.Model) -> tl.Model:
    """The balloon with its flight chain port moved sideways: the trim tilts the balloon."""
    d = balloon_model.to_dict()
    d["bodies"][0]["ports"]["C"] = [0.4, -2.0, 0.0]  # tilts about z_b, keeps z_b level
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tl.TitopWarning)
        return tl.load_model(d)


@pytest.mark.parametrize("tilted", [False, True])
def test_balloon_equilibrium(balloon, tilted):
    model = _tilted_balloon(balloon) if tilted else balloon
    op = tl.trim(model, free=BALLOON_FREE, fixed={"balloon.x": 0, "balloon.z": 0,
                                                  "balloon.psi": 0}, guess=HANGING)
    assert op.success and op.residual_norm <= 1e-10
    x = op.x
    # total centre of mass on the vertical (y) through the buoyancy point B
    com = tl.center_of_mass(model, x)
    B = model.position(x, "balloon", "com")
    np.testing.assert_allclose(com[[0, 2]], B[[0, 2]], atol=1e-10)
    # each pendulum hangs as low as its hinge allows: the arm joint → com is along the
    # gravity direction projected on the plane normal to the hinge axis (vertical when the
    # axis is level, as in the paper's configuration)
    g = np.array([0.0, -G, 0.0])
    for body in ("pendulum1", "pendulum2"):
        joint = model.position(x, body)
        arm = model.position(x, body, "com") - joint
        a = model.rotation(x, body) @ np.array([0.0, 0.0, 1.0])
        g_plane = g - (g @ a) * a
        np.testing.assert_allclose(np.cross(arm, g_plane), 0.0, atol=1e-10)
        assert arm @ g_plane > 0
        if not tilted:
            np.testing.assert_allclose(arm[[0, 2]], 0.0, atol=1e-10)
    # the slider spring balances the weight component of what it carries along its axis
    t_inertial = model.rotation(x, "slider") @ (np.array([1.0, 0, -1.0]) / np.sqrt(2))
    carried = 1.0 + 2.0 + 3.0
    weight_along = carried * np.array([0.0, -G, 0.0]) @ t_inertial
    np.testing.assert_allclose(op.params["k"] * op["slider_q"], weight_along, atol=1e-10)
    if tilted:  # the tilted case is not trivial: the slider is deflected
        assert abs(op["slider_q"]) > 1e-3


def test_balloon_neutral_directions_are_pinned(balloon):
    op = tl.trim(balloon, free=["balloon.x", "balloon.y", "balloon.z", "balloon.psi",
                                *BALLOON_FREE], guess=HANGING)
    assert op.success
    assert set(op.pinned) == {"balloon_x", "balloon_y", "balloon_z", "balloon_psi"}
    assert op.rank_deficiency == 0
    assert "pinned" in op.report()
    x0 = balloon.default_state()
    for name in op.pinned:
        assert op[name] == x0[balloon.state_index(name)]


def test_inclined_spring_pendulum_closed_form():
    k, M, m, L, alpha = 80.0, 1.5, 2.0, 0.7, 0.4
    s = tl.System("incline", gravity=[0.0, -G, 0.0])
    s.parameter("k", k)
    axis = [np.cos(alpha), -np.sin(alpha), 0.0]  # down the slope
    s.body("cart", tl.Prismatic(axis=axis, stiffness="k"), mass=M)
    s.body("bob", tl.Revolute(axis=[0, 0, 1], q0=0.5), parent="cart", mass=m,
           com=[0.0, -L, 0.0])
    model = s.compile()
    op = tl.trim(model, free=["cart_q", "bob_q"])
    assert op.success
    np.testing.assert_allclose(op["cart_q"], (M + m) * G * np.sin(alpha) / k, rtol=1e-12)
    np.testing.assert_allclose(op["bob_q"], 0.0, atol=1e-12)


def test_torsional_spring_pendulum_closed_form():
    k, m, L, rest = 30.0, 2.0, 0.8, 1.0
    s = tl.System("torsion", gravity=[0.0, -G, 0.0])
    s.body("arm", tl.Revolute(axis=[0, 0, 1], stiffness=k, rest=rest, q0=rest), mass=m,
           com=[0.0, -L, 0.0])
    op = tl.trim(s.compile(), free=["arm_q"])
    # k (θ − rest) = −m g L sin θ
    exact = brentq(lambda th: k * (th - rest) + m * G * L * np.sin(th), 0.0, rest)
    np.testing.assert_allclose(op["arm_q"], exact, rtol=1e-12)


def _spinning_hub(k=40.0, rest=0.4, m=3.0, ell=1.2, radius=0.8):
    s = tl.System("hub", gravity=[0.0, 0.0, 0.0])
    s.body("hub", tl.Free(), mass=50.0, inertia=np.diag([20.0, 20.0, 30.0]),
           ports={"p1": [radius, 0, 0], "p2": [-radius, 0, 0]})
    for name, port, rot in (("panel1", "p1", np.eye(3)),
                            ("panel2", "p2", np.diag([-1.0, -1.0, 1.0]))):
        s.body(name, tl.Revolute(axis=[0, 1, 0], stiffness=k, rest=rest, q0=rest,
                                 rotation=rot), parent=f"hub.{port}", mass=m,
               com=[ell, 0.0, 0.0])
    return s.compile()


@pytest.mark.parametrize("omega", [0.0, 0.5, 2.0, 5.0])
def test_spin_panel_balance_closed_form(omega):
    k, rest, m, ell, radius = 40.0, 0.4, 3.0, 1.2, 0.8
    model = _spinning_hub(k, rest, m, ell, radius)
    op = tl.trim(model, kind="spin", free=["panel1.q", "panel2.q"],
                 spin={"body": "hub", "axis": [0, 0, 1], "rate": omega})
    assert op.success and op.kind == "spin"
    assert set(op.cyclic) == {f"hub_{n}" for n in ("x", "y", "z", "phi", "theta", "psi")}

    # spring moment + centrifugal moment about the hinge: −k(q − rest) − m Ω² ℓ sin q (R + ℓ cos q)
    def moment(q):
        return -k * (q - rest) - m * omega**2 * ell * np.sin(q) * (radius + ell * np.cos(q))

    exact = brentq(moment, -0.1, rest + 0.1) if omega else rest
    np.testing.assert_allclose([op["panel1_q"], op["panel2_q"]], exact, rtol=1e-11, atol=1e-13)
    np.testing.assert_allclose(op.x[model.state_index("hub_wz")], omega, rtol=0, atol=0)
    # a relative equilibrium: the twist and joint states stay constant under simulation
    traj = tl.simulate(model, (0.0, 2.0), x0=op.x, t_eval=[0.0, 2.0], rtol=1e-11, atol=1e-12)
    keep = [i for i, n in enumerate(model.state_names) if n not in op.cyclic]
    np.testing.assert_allclose(traj.x[-1, keep], op.x[keep], atol=1e-8)


def test_spin_about_a_revolute_joint():
    """A turntable on a revolute joint to the world, a pendulum flung out by the spin."""
    s = tl.System("turntable", gravity=[0.0, 0.0, -G])
    s.body("table", tl.Revolute(axis=[0, 0, 1]), mass=5.0, inertia=np.eye(3),
           ports={"rim": [0.5, 0.0, 0.0]})
    s.body("bob", tl.Revolute(axis=[0, 1, 0]), parent="table.rim", mass=1.0,
           com=[0.0, 0.0, -0.6])
    model = s.compile()
    omega, r, ell = 3.0, 0.5, 0.6
    op = tl.trim(model, kind="spin", free=["bob.q"], guess={"bob.q": -0.3},
                 spin={"body": "table", "axis": [0, 0, 1], "rate": omega})
    assert op.cyclic == ("table_q",)
    # conical pendulum: tan φ = Ω² (r + ℓ sin φ) / g, φ the outward swing (q = −φ about y)
    phi = brentq(lambda f: np.tan(f) - omega**2 * (r + ell * np.sin(f)) / G, 0.0, 1.5)
    np.testing.assert_allclose(-op["bob_q"], phi, rtol=1e-11)


def test_robot_arm_torques_equal_inverse_dynamics():
    model = tl.load_model(ROOT / "examples" / "robot_arm.toml")
    q = {"shoulder_yaw.q": 0.3, "shoulder.q": 0.7, "elbow.q": -1.1, "wrist.q": 0.4}
    torques = [n for n in model.input_names if n.endswith("_tau")]
    op = tl.trim(model, free=torques, fixed=q)
    assert op.success
    nv = len(tl.velocity_names(model))
    ref = tl.inverse_dynamics(model, op.x, np.zeros(nv)).actuation
    np.testing.assert_allclose(op.u, ref, rtol=1e-10, atol=1e-10)
    assert abs(op["shoulder_tau"]) > 1.0  # gravity is really held


def test_sweep_smooth_branch_and_failure_reported():
    s = tl.System("pushed", gravity=[0.0, -G, 0.0])
    m, L = 2.0, 0.5
    s.parameter("T", 0.0, unit="N m")
    s.body("arm", tl.Revolute(axis=[0, 0, 1], damping=1.0), mass=m, com=[0.0, -L, 0.0])
    s.torque("arm", [0.0, 0.0, "T"], frame="body")
    model = s.compile()
    limit = m * G * L  # beyond it no static equilibrium exists
    Ts = np.linspace(0.0, 1.2 * limit, 37)
    calls = []
    sweep = tl.trim_sweep(model, {"T": Ts}, free=["arm_q"],
                          progress=lambda done, total: calls.append((done, total)))
    assert calls[-1] == (37, 37)
    ok = sweep.success
    exists = Ts <= limit
    np.testing.assert_array_equal(ok[~exists], False)
    assert ok[exists].sum() >= exists.sum() - 1  # the fold point itself may be missed
    good = ok & (Ts < limit * (1 - 1e-9))
    # the branch is the stable one, θ = asin(T / mgL), continued from T = 0; at the fold
    # T = mgL the root is double, so a 1e-10 residual only fixes θ to ~1e-5
    np.testing.assert_allclose(sweep.values("arm_q")[good], np.arcsin(Ts[good] / limit),
                               rtol=1e-9, atol=1e-12)
    fold = np.isclose(Ts, limit, rtol=1e-12) & ok
    np.testing.assert_allclose(sweep.values("arm_q")[fold], np.pi / 2, atol=1e-4)
    assert np.all(np.isnan(sweep.values("arm_q")[~ok]))
    assert "no equilibrium at T=" in sweep.report()
    # the same on an executor
    with ThreadPoolExecutor(2) as ex:
        par = tl.trim_sweep(model, {"T": Ts}, free=["arm_q"], executor=ex, progress=False)
    np.testing.assert_array_equal(par.success, sweep.success)
    np.testing.assert_allclose(par.values("arm_q")[good], sweep.values("arm_q")[good],
                               atol=1e-12)


def test_two_parameter_grid_is_indexable(balloon):
    sweep = tl.trim_sweep(balloon, {"k": [30.0, 60.0, 90.0], "ds": [1.0, 5.0]},
                          free=BALLOON_FREE, guess=HANGING, progress=False)
    assert sweep.shape == (3, 2) and len(sweep) == 6
    assert sweep[2, 1].params["k"] == 90.0 and sweep[2, 1].params["ds"] == 5.0
    assert sweep.success.all()


def test_failure_is_loud():
    s = tl.System("arm", gravity=[0.0, -G, 0.0])
    s.body("arm", tl.Revolute(axis=[0, 0, 1], q0=0.5), mass=1.0, com=[0.0, -1.0, 0.0])
    model = s.compile()
    # no free variable and not an equilibrium: over-determined without a solution
    with pytest.raises(tl.TrimError, match="arm_qd") as err:
        tl.trim(model)
    assert not err.value.op.success and err.value.op.residual_norm > 1.0
    op = tl.trim(model, strict=False)
    assert not op.success and "FAILED" in op.report()


def test_specification_errors_name_the_variable(balloon):
    with pytest.raises(tl.UnknownNameError, match=r"balloon\.bogus"):
        tl.trim(balloon, free=["balloon.bogus"])
    with pytest.raises(tl.TrimSpecError, match="slider_q"):
        tl.trim(balloon, free=["slider.q"], fixed={"slider_q": 0.1})
    with pytest.raises(tl.TrimSpecError, match="balloon_vx"):
        tl.trim(balloon, free=["balloon.vx"])
    with pytest.raises(tl.TrimSpecError, match="slider_qd"):
        tl.trim(balloon, fixed={"slider.qd": 1.0})
    with pytest.raises(tl.TrimSpecError, match="twice"):
        tl.trim(balloon, free=["slider.q", "slider_q"])
    with pytest.raises(tl.UnknownNameError, match="nope"):
        tl.trim_sweep(balloon, {"nope": [1.0]}, free=["slider.q"])
    with pytest.raises(tl.TrimSpecError, match="balloon_psi"):
        tl.trim(balloon, kind="spin", free=["balloon.psi"],
                spin={"body": "balloon", "axis": [0, 1, 0], "rate": 1.0})
    # non-finite values: a NaN on a neutral coordinate would otherwise "succeed"
    with pytest.raises(tl.TrimSpecError, match=r"fixed: 'balloon_x'.*finite"):
        tl.trim(balloon, free=BALLOON_FREE, fixed={"balloon.x": float("nan")})
    with pytest.raises(tl.TrimSpecError, match=r"guess: 'slider_q'.*number"):
        tl.trim(balloon, free=BALLOON_FREE, guess={"slider.q": "abc"})
    x0 = balloon.default_state()
    x0[balloon.state_index("balloon_y")] = np.inf
    with pytest.raises(tl.TrimSpecError, match="balloon_y"):
        tl.trim(balloon, free=BALLOON_FREE, x0=x0)


def test_operating_point_accessors(balloon):
    op = tl.trim(balloon, free=BALLOON_FREE, guess=HANGING)
    assert op["slider.q"] == op["slider_q"] == op.x[balloon.state_index("slider_q")]
    assert op["k"] == 50.0
    d = op.as_dict()
    assert d["pendulum1_q"] == op["pendulum1_q"]
    assert "d/dt pendulum2_qd" in op.report()
    assert op._repr_html_().startswith("<pre>")


def _reduced_drift(model: tl.Model, op: tl.OperatingPoint, duration: float = 2.0) -> float:
    """Largest change of the non-cyclic states simulated from ``op`` (independent check)."""
    traj = tl.simulate(model, (0.0, duration), x0=op.x, t_eval=[0.0, duration], rtol=1e-11,
                       atol=1e-12)
    keep = [i for i, n in enumerate(model.state_names) if n not in op.cyclic]
    return float(np.max(np.abs(traj.x[-1, keep] - op.x[keep])))


def _hub(gravity, buoyancy=False, panels=True, k=40.0, rest=0.4, m=3.0, ell=1.2, radius=0.8):
    """The spinning hub of _spinning_hub with gravity, optional buoyancy and panels."""
    s = tl.System("hub", gravity=gravity)
    s.body("hub", tl.Free(), mass=50.0, inertia=np.diag([20.0, 20.0, 30.0]),
           ports={"p1": [radius, 0, 0], "p2": [-radius, 0, 0]})
    if panels:
        for name, port, rot in (("panel1", "p1", np.eye(3)),
                                ("panel2", "p2", np.diag([-1.0, -1.0, 1.0]))):
            s.body(name, tl.Revolute(axis=[0, 1, 0], stiffness=k, rest=rest, q0=rest,
                                     rotation=rot), parent=f"hub.{port}", mass=m,
                   com=[ell, 0.0, 0.0])
    if buoyancy:
        s.buoyancy("hub", "com")  # the whole weight, at the hub's centre of mass
    return s.compile()


def test_spin_across_gravity_is_not_a_relative_equilibrium():
    """A free hub under gravity −y spun about its z axis: the origin velocity that cancels
    gravity at the solved attitude does not at the next; refused, and the simulation
    confirms that the reduced state runs away."""
    model = _hub([0.0, -G, 0.0], panels=False)
    spin = {"body": "hub", "axis": [0, 0, 1], "rate": 2.0}
    with pytest.raises(tl.TrimError, match="NOT a relative equilibrium") as err:
        tl.trim(model, kind="spin", spin=spin)
    assert "gravity" in str(err.value) and "d/dt hub_v" in str(err.value)
    op = tl.trim(model, kind="spin", spin=spin, strict=False)
    assert not op.success and op.residual_norm <= op.tolerance  # stationary at one attitude
    assert _reduced_drift(model, op) > 1.0  # m/s: the audit measured 23 m/s in 2 s
    # with hinged panels too, and for a turntable whose axis is not vertical
    with pytest.raises(tl.TrimError, match="NOT a relative equilibrium"):
        tl.trim(_hub([0.0, -G, 0.0]), kind="spin", spin=spin, free=["panel1.q", "panel2.q"])
    s = tl.System("tilted_turntable", gravity=[0.0, -G, 0.0])
    s.body("table", tl.Revolute(axis=[0, 0, 1]), mass=5.0, inertia=np.eye(3),
           ports={"rim": [0.5, 0.0, 0.0]})
    s.body("bob", tl.Revolute(axis=[0, 1, 0]), parent="table.rim", mass=1.0,
           com=[0.0, 0.0, -0.6])
    with pytest.raises(tl.TrimError, match="NOT a relative equilibrium"):
        tl.trim(s.compile(), kind="spin", free=["bob.q"], guess={"bob.q": -0.3},
                spin={"body": "table", "axis": [0, 0, 1], "rate": 3.0})


def test_spin_along_gravity_with_buoyancy_closed_form():
    """Gravity along the spin axis, weight carried by buoyancy at the hub: the panels balance
    spring, centrifugal and gravity moments; the point holds still under simulation."""
    k, rest, m, ell, radius, omega = 40.0, 0.4, 3.0, 1.2, 0.8, 2.0
    model = _hub([0.0, 0.0, -G], buoyancy=True)
    op = tl.trim(model, kind="spin", free=["panel1.q", "panel2.q"],
                 spin={"body": "hub", "axis": [0, 0, 1], "rate": omega})
    assert op.success and op.residual_norm <= 1e-10

    # com at ℓ (cos q, 0, −sin q) in the hub frame: weight −m g z gives +m g ℓ cos q about y
    def moment(q):
        return (-k * (q - rest) - m * omega**2 * ell * np.sin(q) * (radius + ell * np.cos(q))
                + m * G * ell * np.cos(q))

    exact = brentq(moment, -1.0, 1.5, xtol=1e-15, rtol=1e-15)
    np.testing.assert_allclose([op["panel1_q"], op["panel2_q"]], exact, rtol=1e-11)
    assert _reduced_drift(model, op) <= 1e-8


def test_spin_across_gravity_balanced_by_buoyancy():
    """Buoyancy equal to the weight at the centre of mass: no net load at any attitude, so a
    spin about an axis across gravity is a relative equilibrium with zero origin velocity."""
    model = _hub([0.0, -G, 0.0], buoyancy=True, panels=False)
    op = tl.trim(model, kind="spin", spin={"body": "hub", "axis": [0, 0, 1], "rate": 2.0})
    assert op.success and op.pinned == ("hub_vz",)  # the velocity along the axis is neutral
    np.testing.assert_allclose([op["hub_vx"], op["hub_vy"]], 0.0, atol=1e-12)
    assert _reduced_drift(model, op) <= 1e-8


def _coaxial(T=3.0, m=2.0, L=0.5):
    """Two hinges on one axis (z): a hub with its mass on the axis, then an arm with a
    constant body torque T. Only q_a + q_b matters: T = m g L sin(q_a + q_b)."""
    s = tl.System("coaxial", gravity=[0.0, -G, 0.0])
    s.parameter("T", T)
    s.body("a", tl.Revolute(axis=[0, 0, 1]), mass=1.0, inertia=0.1 * np.eye(3))
    s.body("b", tl.Revolute(axis=[0, 0, 1], q0=0.3), parent="a", mass=m, com=[0.0, -L, 0.0])
    s.torque("b", [0.0, 0.0, "T"], frame="body")
    return s.compile()


def test_coaxial_hinges_dependent_variable_is_pinned():
    T, m, L = 3.0, 2.0, 0.5
    model = _coaxial(T, m, L)
    op = tl.trim(model, free=["a.q", "b.q"])
    assert op.success and op.rank_deficiency == 0
    assert len(op.pinned) == 1 and set(op.pinned) | set(op.free) == {"a_q", "b_q"}
    (pinned,) = op.pinned
    assert op[pinned] == model.default_state()[model.state_index(pinned)]  # initial value
    np.testing.assert_allclose(op["a_q"] + op["b_q"], np.arcsin(T / (m * G * L)), rtol=1e-12)
    assert "pinned" in op.report() and pinned in op.report()
    # without pinning the solver still finds a point of the manifold, which is not isolated
    loose = tl.trim(model, free=["a.q", "b.q"], pin_neutral=False)
    assert loose.success and loose.pinned == () and loose.rank_deficiency == 1
    np.testing.assert_allclose(loose["a_q"] + loose["b_q"], np.arcsin(T / (m * G * L)),
                               rtol=1e-12)


def test_overdetermined_spec_without_solution_is_loud(balloon):
    """Tilted balloon, pendulums held off the vertical, only the slider free: 9 equations,
    1 unknown, no solution."""
    model = _tilted_balloon(balloon)
    with pytest.raises(tl.TrimError) as err:
        tl.trim(model, free=["slider.q"], fixed=HANGING)
    text = str(err.value)
    assert err.value.op.residual_norm > 1.0
    assert f"max |residual| = {err.value.op.residual_norm:.3e}" in text
    assert "rank 1 for 9 equations and 1 free" in text
    assert "more equations than unknowns and no solution" in text


def test_evaluation_budget_is_a_cap_and_named(balloon):
    for budget in (1, 3):
        op = tl.trim(balloon, free=BALLOON_FREE, guess=HANGING, max_nfev=budget, strict=False)
        assert not op.success and op.nfev == budget
        assert f"evaluation budget max_nfev = {budget} was used up" in op.message
        assert "more equations than unknowns" not in op.message  # well posed, just stopped
    with pytest.raises(tl.TrimError, match="evaluation budget"):
        tl.trim(balloon, free=BALLOON_FREE, guess=HANGING, max_nfev=2)
    op = tl.trim(balloon, free=BALLOON_FREE, guess=HANGING)
    assert op.success and op.nfev <= 200
    for bad in (0, 2.5, True):
        with pytest.raises(tl.TrimSpecError, match="max_nfev"):
            tl.trim(balloon, free=BALLOON_FREE, max_nfev=bad)
    with pytest.raises(tl.TrimSpecError, match="tol"):
        tl.trim(balloon, free=BALLOON_FREE, tol=-1.0)


def test_sweep_refuses_a_grid_parameter_that_is_free(balloon):
    with pytest.raises(tl.TrimSpecError, match="'k' is both a grid parameter and free"):
        tl.trim_sweep(balloon, {"k": [30.0, 40.0]}, free=["k", *BALLOON_FREE], progress=False)
    with pytest.raises(tl.TrimSpecError, match="'k' is both a grid parameter and fixed"):
        tl.trim_sweep(balloon, {"k": [30.0, 40.0]}, free=BALLOON_FREE, fixed={"k": 1.0},
                      progress=False)


def test_sweep_strict_raises_on_the_first_failed_point():
    s = tl.System("pushed", gravity=[0.0, -G, 0.0])
    s.parameter("T", 0.0)
    s.body("arm", tl.Revolute(axis=[0, 0, 1]), mass=2.0, com=[0.0, -0.5, 0.0])
    s.torque("arm", [0.0, 0.0, "T"], frame="body")
    model = s.compile()
    limit = 2.0 * G * 0.5
    with pytest.raises(tl.TrimError, match=r"grid point \(2,\) \(T=12\)") as err:
        tl.trim_sweep(model, {"T": [0.0, 0.5 * limit, 12.0, 13.0]}, free=["arm_q"],
                      progress=False, strict=True)
    assert err.value.sweep.success.tolist() == [True, True, False, False]
    sweep = tl.trim_sweep(model, {"T": [0.0, 0.5 * limit]}, free=["arm_q"], progress=False,
                          strict=True)
    np.testing.assert_allclose(sweep.values("arm_q"), [0.0, np.arcsin(0.5)], atol=1e-12)


def test_free_parameter_solved_within_its_declared_range(balloon):
    """Tilted balloon, slider deflection fixed, stiffness k free: k·q = weight along the axis."""
    model = _tilted_balloon(balloon)
    free = ["balloon.phi", "balloon.theta", "k", "pendulum1.q", "pendulum2.q"]
    op = tl.trim(model, free=free, fixed={"slider.q": 0.2}, guess=HANGING)
    assert op.success and op.residual_norm <= 1e-10
    t_body = np.array([1.0, 0.0, -1.0]) / np.sqrt(2.0)
    carried = 1.0 + 2.0 + 3.0  # slider and both pendulums [kg]
    along = carried * np.array([0.0, -G, 0.0]) @ (model.rotation(op.x, "slider", op.params)
                                                   @ t_body)
    assert 25.0 <= op["k"] <= 100.0
    assert op["k"] * 0.2 == pytest.approx(along, rel=1e-10)


def test_free_parameter_needing_a_value_outside_its_range_is_refused(balloon):
    """The same with q = 0.05 m needs k ≈ 4 × 62 N/m, above the declared max of 100 N/m:
    the solver stays in [25, 100] and the failure names the parameter and its bound."""
    model = _tilted_balloon(balloon)
    free = ["balloon.phi", "balloon.theta", "k", "pendulum1.q", "pendulum2.q"]
    with pytest.raises(tl.TrimError, match=r"'k' = 100 \(declared range \[25, 100\]\)"):
        tl.trim(model, free=free, fixed={"slider.q": 0.05}, guess=HANGING)
    op = tl.trim(model, free=free, fixed={"slider.q": 0.05}, guess=HANGING, strict=False)
    assert not op.success and op["k"] == pytest.approx(100.0)
    with pytest.raises(tl.ParameterError, match="'k'"):  # the user's own start out of range
        tl.trim(model, free=free, fixed={"slider.q": 0.05}, params={"k": 150.0})


@pytest.mark.parametrize("workers", [0, 2])
def test_sweep_keeps_the_same_pinned_variable_along_the_branch(workers):
    """Coaxial hinges swept over T: the first point's choice of held hinge is kept at every
    point (a per-point choice flipped at T = 8 and the branch jumped); the sum follows the
    closed form q_a + q_b = asin(T / (m g L)) everywhere."""
    model = _coaxial()
    Ts = np.linspace(0.0, 9.0, 10)
    if workers:
        with ThreadPoolExecutor(workers) as ex:
            sweep = tl.trim_sweep(model, {"T": Ts}, free=["a.q", "b.q"], progress=False,
                                  executor=ex, chunks=3)
    else:
        sweep = tl.trim_sweep(model, {"T": Ts}, free=["a.q", "b.q"], progress=False)
    assert sweep.success.all()
    assert {op.pinned for op in sweep} == {sweep[0].pinned} and len(sweep[0].pinned) == 1
    (held,) = sweep[0].pinned
    np.testing.assert_allclose(sweep.values(held), 0.0 if held == "a_q" else 0.3, atol=0)
    np.testing.assert_allclose(sweep.values("a_q") + sweep.values("b_q"),
                               np.arcsin(Ts / (2.0 * G * 0.5)), rtol=1e-12, atol=1e-14)
    grid = tl.linearize_sweep(model, {"T": Ts}, free=["a.q", "b.q"], progress=False)
    grid.at(T=8.5)  # no branch jump between the grid points


def test_pin_neutral_list_pins_exactly_those():
    model = _coaxial()
    op = tl.trim(model, free=["a.q", "b.q"], pin_neutral=["a.q"])
    assert op.pinned == ("a_q",) and op["a_q"] == 0.0
    np.testing.assert_allclose(op["b_q"], np.arcsin(3.0 / (2.0 * G * 0.5)), rtol=1e-12)
    with pytest.raises(tl.TrimSpecError, match="'T'"):
        tl.trim(model, free=["a.q", "b.q"], pin_neutral=["T"])


def test_more_free_variables_than_three_stacked_jacobians_are_not_pinned():
    """One equation, four free variables (angle, torque, mass, arm length): three stacked
    Jacobians (3 rows) would show a spurious null direction and pin the angle, on which
    the equation depends directly. The stack is taller than wide: nothing is pinned."""
    s = tl.System("arm", gravity=[0.0, -G, 0.0])
    s.parameter("T", 1.0)
    s.parameter("mm", 2.0, min=0.5, max=10.0)
    s.parameter("L", -0.5, min=-2.0, max=-0.1)
    s.body("arm", tl.Revolute(axis=[0, 0, 1], q0=0.3), mass="mm", com=[0.0, "L", 0.0])
    s.torque("arm", [0.0, 0.0, "T"], frame="body")
    model = s.compile()
    op = tl.trim(model, free=["arm_q", "T", "mm", "L"])
    assert op.success and op.pinned == () and op.rank_deficiency == 3
    # the equilibrium itself: T = m g |L| sin q
    np.testing.assert_allclose(op["T"], op["mm"] * G * -op["L"] * np.sin(op["arm_q"]),
                               rtol=1e-10)


def test_sweep_grid_outside_a_declared_range_is_refused_before_any_trim(balloon):
    calls = []
    with pytest.raises(tl.ParameterError, match=r"'k'.*120.*\[25, 100\]"):
        tl.trim_sweep(balloon, {"k": [50.0, 60.0, 120.0]}, free=BALLOON_FREE,
                      progress=lambda done, total: calls.append(done))
    assert calls == []


def test_bounded_free_parameter_from_a_degenerate_start():
    """Arm horizontal (q0 = π/2, where ∂r/∂q = 0) and the torque T bounded to [0, 0.05]:
    the equilibrium T = m g L sin q exists inside the range; the Newton step to
    T = m g L is projected onto the bound and the trust region finishes."""
    s = tl.System("pushed", gravity=[0.0, -G, 0.0])
    s.parameter("T", 0.0, min=0.0, max=0.05)
    s.body("arm", tl.Revolute(axis=[0, 0, 1], q0=np.pi / 2), mass=2.0, com=[0.0, -0.5, 0.0])
    s.torque("arm", [0.0, 0.0, "T"], frame="body")
    model = s.compile()
    op = tl.trim(model, free=["arm_q", "T"])
    assert op.success and 0.0 <= op["T"] <= 0.05
    np.testing.assert_allclose(op["T"], 2.0 * G * 0.5 * np.sin(op["arm_q"]), atol=1e-10)
