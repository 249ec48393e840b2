"""Closed-form checks of the nonlinear TITOP dynamics on small systems.

What is checked against what
----------------------------
* Simple pendulum (canonical model and the same model built with :class:`titop_lpv.System`,
  with a parameter): ``θ̈ = −(g/L) sin θ − d θ̇/(m L²)``; the simulated period against
  ``2π √(L/g)`` (small amplitude) and the exact ``4 √(L/g) K(sin(θ0/2))`` (θ0 = 2 rad).
* Pendulum on a prismatic spring carriage (vertical canonical model, horizontal built with
  the builder): the accelerations and the mass matrix against the 2-d.o.f. Lagrange
  equations.
* Free rigid body: Euler's equations ``I ω̇ + ω × I ω = 0``; the torque-free axisymmetric
  body's precession ``ω1 + i ω2 = (A + iB) e^{iΩt}``, ``Ω = (I3 − I1)/I1 ω3``; with the
  centre of mass away from the origin, the centre of mass does not accelerate and moves
  uniformly.
* A free body falling under gravity: ``p(t) = p0 + v0 t + ½ g t²`` for its centre of mass,
  with and without spin.
* Robot-arm-like chains at rest: ``inverse_dynamics`` gives the static gravity torques
  ``Σ_j (r_Bj − o_i) × (−m_j g)`` (2-link planar arm, 3-link yaw/pitch/pitch arm), and
  feeding them back as actuator inputs holds the arm still.
* The balloon (canonical and rebuilt with the builder) with buoyancy equal to the total
  weight at its centre of mass, pendulums hanging straight down: every derivative is 0.
"""

import warnings

import numpy as np
import pytest
from models import balloon, falling_body, free_body, pendulum, spring_pendulum
from scipy.special import ellipk

import titop_lpv as tl


def _load_balloon(desc=None):
    """The balloon's inertia violates the triangle inequality on purpose (TitopWarning)."""
    with pytest.warns(tl.TitopWarning, match="triangle inequality"):
        return tl.load_model(balloon() if desc is None else desc)


def _x(model, **values):
    """A state vector from ``name=value`` pairs (others zero)."""
    x = np.zeros(model.n_states)
    for name, value in values.items():
        x[model.state_index(name)] = value
    return x


# ============================================================================= pendulum
def _pendulum_builder(L, m, g, d):
    s = tl.System("pendulum", gravity=[0.0, "minus_g", 0.0], euler="213")
    s.parameter("minus_g", -g, unit="m/s^2")
    s.parameter("com_y", -L, unit="m")
    s.parameter("d", d, min=0.0, unit="N m s/rad")
    s.body("pendulum", tl.Revolute(axis=[0.0, 0.0, 1.0], damping="d"), mass=m,
           com=[0.0, "com_y", 0.0])
    return s


@pytest.mark.parametrize("damping", [0.0, 0.7])
def test_pendulum_acceleration(damping):
    L, m, g = 1.3, 2.0, 9.81
    model = tl.load_model(pendulum(length=L, mass=m, g=g, damping=damping))
    assert model.state_names == ("pendulum_q", "pendulum_qd")
    rng = np.random.default_rng(0)
    th = np.concatenate(([0.0, 0.5, -1.0, np.pi / 2, 3.0], rng.uniform(-np.pi, np.pi, 20)))
    thd = rng.uniform(-3.0, 3.0, th.shape)
    x = np.stack((th, thd), axis=-1)
    xdot = model.dynamics(0.0, x)
    assert xdot.shape == x.shape
    np.testing.assert_allclose(xdot[:, 0], thd, rtol=0, atol=0)
    expected = -(g / L) * np.sin(th) - damping * thd / (m * L**2)
    np.testing.assert_allclose(xdot[:, 1], expected, rtol=0, atol=1e-12)


def test_pendulum_builder_matches_file_model_and_parameters():
    L, m, g, d = 1.3, 2.0, 9.81, 0.7
    s = _pendulum_builder(L, m, g, d)
    model = s.compile()
    ref = tl.load_model(pendulum(length=L, mass=m, g=g, damping=d))
    assert model.state_names == ref.state_names
    assert model.param_names == ("minus_g", "com_y", "d")
    rng = np.random.default_rng(1)
    x = np.stack((rng.uniform(-np.pi, np.pi, 10), rng.uniform(-3, 3, 10)), axis=-1)
    np.testing.assert_allclose(model.dynamics(0.0, x), ref.dynamics(0.0, x), rtol=0, atol=1e-13)
    # the builder's schema dict round-trips through load_model
    again = tl.load_model(s.to_dict())
    np.testing.assert_allclose(again.dynamics(0.0, x), ref.dynamics(0.0, x), rtol=0, atol=1e-13)
    again2 = tl.System.from_dict(s.to_dict()).compile()
    assert again2 == model
    # a batch of parameter values (lengths and dampings) against the closed form
    lengths = np.array([0.5, 1.0, 2.0, 4.0])
    damps = np.array([0.0, 0.1, 1.0, 3.0])
    xdot = model.dynamics(0.0, x[:4], params={"com_y": -lengths, "d": damps})
    expected = -(g / lengths) * np.sin(x[:4, 0]) - damps * x[:4, 1] / (m * lengths**2)
    np.testing.assert_allclose(xdot[:, 1], expected, rtol=0, atol=1e-12)


def _period_error(model, theta0, T, n_periods, rtol=1e-12, atol=1e-15):
    """Simulated period minus ``T``, from the state at ``k T`` (k = 1..n_periods).

    Near the turning point ``θ̇(t) ≈ θ̈ (t − k T_sim)``, so ``T_sim = T − θ̇(kT) / (k θ̈(kT))``;
    ``θ(kT) − θ0`` is only second order in the timing error and is checked separately.
    """
    x0 = np.array([theta0, 0.0])
    k = np.arange(1, n_periods + 1)
    traj = tl.simulate(model, (0.0, n_periods * T), x0=x0, t_eval=k * T, rtol=rtol, atol=atol)
    thd = traj["pendulum_qd"]
    thdd = model.dynamics(0.0, traj.x)[:, 1]
    return -thd / (k * thdd), traj


def test_pendulum_small_amplitude_period():
    L, g = 0.8, 9.81
    model = tl.load_model(pendulum(length=L, mass=1.5, g=g))
    theta0 = 1e-3
    T0 = 2 * np.pi * np.sqrt(L / g)
    T_exact = 4 * np.sqrt(L / g) * ellipk(np.sin(theta0 / 2) ** 2)
    assert abs(T_exact / T0 - 1) < 1e-7  # θ0²/16 = 6.25e-8: the linear period is the limit
    dT, traj = _period_error(model, theta0, T0, n_periods=3)
    rel = np.max(np.abs(dT)) / T0
    assert rel <= 2e-7, f"small-amplitude period relative error {rel:.3g} vs 2π√(L/g)"
    dT, traj = _period_error(model, theta0, T_exact, n_periods=3)
    rel = np.max(np.abs(dT)) / T_exact
    assert rel <= 1e-8, f"small-amplitude period relative error {rel:.3g} vs elliptic"
    np.testing.assert_allclose(traj["pendulum_q"], theta0, rtol=1e-9, atol=0)


def test_pendulum_large_amplitude_period_elliptic():
    L, g = 1.0, 9.81
    model = tl.load_model(pendulum(length=L, mass=2.0, g=g))
    theta0 = 2.0
    T = 4 * np.sqrt(L / g) * ellipk(np.sin(theta0 / 2) ** 2)
    assert T / (2 * np.pi * np.sqrt(L / g)) > 1.3  # far from the small-amplitude period
    dT, traj = _period_error(model, theta0, T, n_periods=3)
    rel = np.max(np.abs(dT)) / T
    assert rel <= 1e-7, f"large-amplitude period relative error {rel:.3g}"
    np.testing.assert_allclose(traj["pendulum_q"], theta0, rtol=1e-9, atol=0)
    np.testing.assert_allclose(traj["pendulum_qd"], 0.0, rtol=0, atol=1e-6)


def test_pendulum_period_from_zero_crossings():
    """Independent estimate: zero crossings of θ(t) from a dense simulation (θ̈ = 0 there,
    so linear interpolation between samples is accurate to third order)."""
    L, g = 1.0, 9.81
    model = tl.load_model(pendulum(length=L, mass=2.0, g=g))
    theta0 = 2.0
    T = 4 * np.sqrt(L / g) * ellipk(np.sin(theta0 / 2) ** 2)
    traj = tl.simulate(model, (0.0, 3.2 * T), x0=[theta0, 0.0], n_points=20001, rtol=1e-12,
                       atol=1e-14)
    th, t = traj["pendulum_q"], traj.t
    idx = np.flatnonzero(np.sign(th[:-1]) != np.sign(th[1:]))
    t0 = t[idx] - th[idx] * (t[idx + 1] - t[idx]) / (th[idx + 1] - th[idx])
    assert len(t0) == 6
    periods = t0[2:] - t0[:-2]  # every other crossing is one full period
    np.testing.assert_allclose(periods, T, rtol=1e-7)
    np.testing.assert_allclose(t0[0], T / 4, rtol=1e-7)


# ============================================================================= spring pendulum
def _spring_pendulum_closed_form(q, qd, th, thd, *, M_c, m, L, k, d, rest, g, vertical):
    """Accelerations (q̈, θ̈) and mass matrix from the Lagrange equations (see module doc)."""
    M = M_c + m
    s, c = np.sin(th), np.cos(th)
    if vertical:  # carriage along y: mass at (L sinθ, q − L cosθ)
        a = m * L * s
        rhs_q = -k * (q - rest) - d * qd - M * g - m * L * c * thd**2
    else:  # carriage along x: mass at (q + L sinθ, −L cosθ)
        a = m * L * c
        rhs_q = -k * (q - rest) - d * qd + m * L * s * thd**2
    rhs_t = -m * g * L * s
    Mass = np.stack((np.stack((M + 0 * a, a), -1), np.stack((a, m * L**2 + 0 * a), -1)), -2)
    acc = np.linalg.solve(Mass, np.stack((rhs_q, rhs_t), -1)[..., None])[..., 0]
    return acc, Mass


def _horizontal_spring_pendulum(M_c, m, L, k, d, rest, g):
    s = tl.System("horizontal_spring_pendulum", gravity=[0.0, -g, 0.0])
    # a non-unit axis: q is the displacement along the unit axis (normalised by the model)
    s.body("carriage", tl.Prismatic(axis=[2.5, 0.0, 0.0], stiffness=k, damping=d, rest=rest),
           mass=M_c)
    s.body("pendulum", tl.Revolute(axis=[0.0, 0.0, 1.0]), parent="carriage", mass=m,
           com=[0.0, -L, 0.0])
    return s.compile()


@pytest.mark.parametrize("vertical", [True, False])
def test_spring_pendulum_lagrange(vertical):
    p = {"M_c": 1.3, "m": 2.1, "L": 0.9, "k": 40.0, "d": 0.6, "rest": 0.2, "g": 9.81}
    if vertical:
        model = tl.load_model(spring_pendulum(length=p["L"], mass=p["m"], carriage_mass=p["M_c"],
                                              stiffness=p["k"], damping=p["d"], rest=p["rest"],
                                              g=p["g"]))
    else:
        model = _horizontal_spring_pendulum(**p)
    assert model.state_names == ("carriage_q", "carriage_qd", "pendulum_q", "pendulum_qd")
    rng = np.random.default_rng(2)
    n = 30
    q, qd, thd = rng.uniform(-1.0, 1.0, n), rng.uniform(-2, 2, n), rng.uniform(-3, 3, n)
    th = rng.uniform(-np.pi, np.pi, n)
    x = np.stack((q, qd, th, thd), axis=-1)
    acc, Mass = _spring_pendulum_closed_form(q, qd, th, thd, vertical=vertical, **p)
    # one state at a time (the batched evaluation is checked separately below)
    for k in range(n):
        xdot = model.dynamics(0.0, x[k])
        np.testing.assert_allclose(xdot[[0, 2]], x[k, [1, 3]], rtol=0, atol=0)
        np.testing.assert_allclose(xdot[[1, 3]], acc[k], rtol=0, atol=1e-12)
        np.testing.assert_allclose(tl.mass_matrix(model, x[k]), Mass[k], rtol=0, atol=1e-12)
        # inverse dynamics of the closed-form accelerations returns the spring/damper force
        inv = tl.inverse_dynamics(model, x[k], acc[k])
        spring = -p["k"] * (q[k] - p["rest"]) - p["d"] * qd[k]
        np.testing.assert_allclose(inv.generalized_force, [spring, 0.0], rtol=0, atol=1e-11)
        np.testing.assert_allclose(inv.actuation, 0.0, rtol=0, atol=1e-11)


@pytest.mark.parametrize("vertical", [True, False])
def test_spring_pendulum_batched_states(vertical):
    """A batch of states (leading axis) gives the single-state results.

    The root joint is a prismatic joint to the world: its DCM does not depend on the state.
    """
    p = {"M_c": 1.3, "m": 2.1, "L": 0.9, "k": 40.0, "d": 0.6, "rest": 0.2, "g": 9.81}
    model = (tl.load_model(spring_pendulum()) if vertical else
             _horizontal_spring_pendulum(**p))
    rng = np.random.default_rng(3)
    x = rng.uniform(-1.0, 1.0, (5, model.n_states))
    loop = np.array([model.dynamics(0.0, xk) for xk in x])
    np.testing.assert_allclose(model.dynamics(0.0, x), loop, rtol=0, atol=1e-14)
    energy_loop = np.array([tl.energy(model, xk) for xk in x])
    np.testing.assert_allclose(np.stack(tl.energy(model, x), axis=-1), energy_loop, rtol=0,
                               atol=1e-13)


# ============================================================================= free rigid body
def _random_free_state(model, rng, n, w_scale=2.0):
    x = np.zeros((n, model.n_states))
    x[:, 0:3] = rng.uniform(-1, 1, (n, 3))
    x[:, 3:6] = rng.uniform(-w_scale, w_scale, (n, 3))
    x[:, 6:9] = rng.uniform(-2, 2, (n, 3))
    x[:, 9:12] = rng.uniform(-1.2, 1.2, (n, 3))
    return x


def test_free_body_euler_equations():
    inertia = np.array([[2.0, 0.3, -0.1], [0.3, 3.0, 0.2], [-0.1, 0.2, 4.0]])
    model = tl.load_model(free_body(inertia=inertia, mass=1.7))
    rng = np.random.default_rng(3)
    x = _random_free_state(model, rng, 25)
    v, w = x[:, 0:3], x[:, 3:6]
    xdot = model.dynamics(0.0, x)
    wdot = np.linalg.solve(inertia, -np.cross(w, w @ inertia.T).T).T
    np.testing.assert_allclose(xdot[:, 3:6], wdot, rtol=0, atol=1e-12)
    # the centre of mass (= origin) does not accelerate: v̇ + ω × v = 0
    np.testing.assert_allclose(xdot[:, 0:3], -np.cross(w, v), rtol=0, atol=1e-12)
    # the origin moves with the inertial velocity P v
    P = model.rotation(x, "body")
    np.testing.assert_allclose(xdot[:, 6:9], np.einsum("nij,nj->ni", P, v), rtol=0, atol=1e-13)


def test_axisymmetric_body_precession():
    I1, I3, w3 = 2.0, 3.5, 2.0
    A, B = 0.3, -0.1
    model = tl.load_model(free_body(inertia=np.diag([I1, I1, I3]), w0=[A, B, w3]))
    Omega = (I3 - I1) / I1 * w3
    t = np.linspace(0.0, 10.0, 101)
    traj = tl.simulate(model, (0.0, 10.0), t_eval=t, rtol=1e-12, atol=1e-14)
    w1 = A * np.cos(Omega * t) - B * np.sin(Omega * t)
    w2 = A * np.sin(Omega * t) + B * np.cos(Omega * t)
    err = max(np.max(np.abs(traj["body_wx"] - w1)), np.max(np.abs(traj["body_wy"] - w2)),
              np.max(np.abs(traj["body_wz"] - w3)))
    assert err <= 1e-8, f"precession error {err:.3g} rad/s"
    # the body really turned: several precession periods, and the attitude stayed regular
    assert Omega * t[-1] > 4 * np.pi
    assert np.max(np.abs(traj["body_theta"])) < 0.5


def _offset_free_body(com, inertia, v0, w0, euler0, position0, gravity=(0.0, 0.0, 0.0)):
    s = tl.System("offset_body", gravity=list(gravity), euler="321")
    s.body("body", tl.Free(position0=position0, euler0=euler0, v0=v0, w0=w0), mass=2.5,
           inertia=inertia, com=com)
    return s.compile()


OFFSET_INERTIA = [[1.2, 0.1, -0.2], [0.1, 1.6, 0.05], [-0.2, 0.05, 2.0]]


def test_free_body_with_com_offset_com_does_not_accelerate():
    com = np.array([0.4, -0.3, 0.6])
    model = _offset_free_body(com, OFFSET_INERTIA, [0, 0, 0], [0, 0, 0], [0, 0, 0], [0, 0, 0])
    inertia = np.array(OFFSET_INERTIA)
    rng = np.random.default_rng(4)
    x = _random_free_state(model, rng, 25)
    xdot = model.dynamics(0.0, x)
    v, w, vd, wd = x[:, 0:3], x[:, 3:6], xdot[:, 0:3], xdot[:, 3:6]
    # Euler's equations about the centre of mass
    np.testing.assert_allclose(wd @ inertia.T + np.cross(w, w @ inertia.T), 0.0, rtol=0,
                               atol=1e-12)
    # inertial acceleration of the centre of mass (body components)
    a_B = vd + np.cross(w, v) + np.cross(wd, com) + np.cross(w, np.cross(w, com))
    np.testing.assert_allclose(a_B, 0.0, rtol=0, atol=1e-12)


def test_free_body_with_com_offset_moves_uniformly():
    com = np.array([0.4, -0.3, 0.6])
    v0, w0 = np.array([0.3, -0.2, 0.5]), np.array([0.7, -0.4, 0.9])
    euler0, p0 = [0.3, -0.2, 0.5], [1.0, -2.0, 0.5]
    model = _offset_free_body(com, OFFSET_INERTIA, v0, w0, euler0, p0)
    x0 = model.default_state()
    P0 = model.rotation(x0, "body")
    c0 = model.position(x0, "body", "com")
    np.testing.assert_allclose(c0, np.array(p0) + P0 @ com, rtol=0, atol=1e-14)
    vc = P0 @ (v0 + np.cross(w0, com))
    t = np.linspace(0.0, 5.0, 51)
    traj = tl.simulate(model, (0.0, 5.0), t_eval=t, rtol=1e-11, atol=1e-13)
    c = tl.center_of_mass(model, traj.x)
    np.testing.assert_allclose(c, c0 + t[:, None] * vc, rtol=0, atol=1e-9)
    # the origin itself does not move uniformly (it turns about the com)
    origin = traj.x[:, 6:9]
    assert np.max(np.abs(origin - (np.array(p0) + t[:, None] * (P0 @ v0)))) > 0.1
    assert np.max(np.abs(traj["body_theta"])) < 1.3  # away from gimbal lock (θ = ±π/2)


# ============================================================================= falling body
@pytest.mark.parametrize("spin", [False, True])
def test_falling_body_parabola(spin):
    g = 9.81
    w0 = [0.8, -0.5, 1.1] if spin else [0.0, 0.0, 0.0]
    # a physical inertia (principal moments satisfying the triangle inequality)
    desc = falling_body(mass=2.0, inertia=OFFSET_INERTIA, g=g, w0=w0)
    p0, v0 = [0.5, 3.0, -1.0], [1.0, 2.0, -0.5]
    desc["bodies"][0]["joint"].update({"position0": p0, "v0": v0, "euler0": [0.2, -0.3, 0.4]})
    model = tl.load_model(desc)
    x0 = model.default_state()
    np.testing.assert_allclose(x0[model.state_index("body_wx"):][:3], w0, rtol=0, atol=0)
    v0_in = model.rotation(x0, "body") @ np.array(v0)
    t = np.linspace(0.0, 2.0, 41)
    traj = tl.simulate(model, (0.0, 2.0), t_eval=t, rtol=1e-12, atol=1e-14)
    expected = np.array(p0) + t[:, None] * v0_in + 0.5 * t[:, None] ** 2 * np.array([0, -g, 0])
    pos = np.stack([traj["body_x"], traj["body_y"], traj["body_z"]], axis=-1)
    np.testing.assert_allclose(pos, expected, rtol=0, atol=1e-9)


def test_falling_spinning_body_with_com_offset():
    """The centre of mass, not the origin, follows the parabola."""
    g = np.array([0.0, -9.81, 0.0])
    com = np.array([0.4, -0.3, 0.6])
    v0, w0 = np.array([0.3, 1.5, 0.5]), np.array([0.7, -0.4, 0.9])
    model = _offset_free_body(com, OFFSET_INERTIA, v0, w0, [0.1, 0.2, -0.3], [0, 1, 2],
                              gravity=g)
    x0 = model.default_state()
    c0 = model.position(x0, "body", "com")
    vc = model.rotation(x0, "body") @ (v0 + np.cross(w0, com))
    t = np.linspace(0.0, 2.0, 41)
    traj = tl.simulate(model, (0.0, 2.0), t_eval=t, rtol=1e-12, atol=1e-14)
    c = model.position(traj.x, "body", "com")
    np.testing.assert_allclose(c, c0 + t[:, None] * vc + 0.5 * t[:, None] ** 2 * g, rtol=0,
                               atol=1e-9)
    np.testing.assert_allclose(tl.center_of_mass(model, traj.x), c, rtol=0, atol=1e-13)


# ============================================================================= static arm
def _gravity_torques(model, x, chain, g):
    """Σ_j (r_Bj − o_i) × (−m_j g) · a_i: the holding torque of each revolute joint i of a
    serial chain, from the joint points o_i, inertial axes a_i and the com positions."""
    torques = []
    for i, name in enumerate(chain):
        o = model.position(x, name, "origin")
        axis = model.rotation(x, name) @ np.array([0.0, 0.0, 1.0])  # every axis is z here
        total = np.zeros(3)
        for child in chain[i:]:
            m = model.physics().mass[model.body_index(child)]
            total += np.cross(model.position(x, child, "com") - o, -m * g)
        torques.append(total @ axis)
    return np.array(torques)


def test_two_link_arm_static_torques():
    g = 9.81
    m1, m2, l1, a1, a2 = 3.0, 2.0, 1.1, 0.5, 0.4
    s = tl.System("arm2", gravity=[0.0, -g, 0.0])
    s.body("link1", tl.Revolute(axis=[0, 0, 1], actuated=True), mass=m1, com=[a1, 0, 0],
           inertia=np.diag([0.01, 0.3, 0.3]), ports={"tip": [l1, 0, 0]})
    s.body("link2", tl.Revolute(axis=[0, 0, 1], actuated=True, stiffness=5.0, rest=0.3),
           parent="link1.tip", mass=m2, com=[a2, 0, 0], inertia=np.diag([0.01, 0.2, 0.2]))
    model = s.compile()
    assert model.input_names == ("link1_tau", "link2_tau")
    rng = np.random.default_rng(5)
    for _ in range(10):
        q1, q2 = rng.uniform(-np.pi, np.pi, 2)
        x = _x(model, link1_q=q1, link2_q=q2)
        inv = tl.inverse_dynamics(model, x, np.zeros(2))
        tau1 = g * (m1 * a1 * np.cos(q1) + m2 * (l1 * np.cos(q1) + a2 * np.cos(q1 + q2)))
        tau2 = g * m2 * a2 * np.cos(q1 + q2)
        np.testing.assert_allclose(inv.generalized_force, [tau1, tau2], rtol=0, atol=1e-12)
        np.testing.assert_allclose(inv.generalized_force,
                                   _gravity_torques(model, x, ["link1", "link2"],
                                                    np.array([0, -g, 0])), rtol=0, atol=1e-12)
        # the spring of joint 2 helps: the actuator supplies the rest
        np.testing.assert_allclose(inv.actuation, [tau1, tau2 + 5.0 * (q2 - 0.3)], rtol=0,
                                   atol=1e-12)
        np.testing.assert_allclose(inv.base_wrench, 0.0, rtol=0, atol=0)
        # holding torques as inputs: the arm stays at rest
        xdot = model.dynamics(0.0, x, inv.actuation)
        np.testing.assert_allclose(xdot, 0.0, rtol=0, atol=1e-12)


def test_three_link_spatial_arm_static_torques():
    """Yaw joint about the vertical, then shoulder and elbow pitch joints: the yaw joint
    carries no gravity torque and the pitch joints the planar formula in the turned plane."""
    g = 9.81
    m1, m2, m3, h, l2, a2, a3 = 4.0, 3.0, 2.0, 0.6, 1.0, 0.45, 0.35
    s = tl.System("arm3", gravity=[0.0, -g, 0.0], euler="213")
    # link frames: the shoulder joint axis is the link-1 z axis, turned by the yaw q1 about y
    s.body("base", tl.Revolute(axis=[0, 1, 0]), mass=m1, com=[0.05, 0.3, 0.02],
           inertia=np.diag([0.2, 0.1, 0.2]), ports={"shoulder": [0, h, 0]})
    s.body("upper", tl.Revolute(axis=[0, 0, 1]), parent="base.shoulder", mass=m2,
           com=[a2, 0, 0], inertia=np.diag([0.01, 0.25, 0.25]), ports={"elbow": [l2, 0, 0]})
    s.body("fore", tl.Revolute(axis=[0, 0, 1]), parent="upper.elbow", mass=m3,
           com=[a3, 0, 0], inertia=np.diag([0.01, 0.1, 0.1]))
    model = s.compile()
    rng = np.random.default_rng(6)
    for _ in range(10):
        q1, q2, q3 = rng.uniform(-np.pi, np.pi, 3)
        x = _x(model, base_q=q1, upper_q=q2, fore_q=q3)
        inv = tl.inverse_dynamics(model, x, np.zeros(3))
        tau2 = g * (m2 * a2 * np.cos(q2) + m3 * (l2 * np.cos(q2) + a3 * np.cos(q2 + q3)))
        tau3 = g * m3 * a3 * np.cos(q2 + q3)
        np.testing.assert_allclose(inv.generalized_force, [0.0, tau2, tau3], rtol=0, atol=1e-12)


# ============================================================================= static balloon
def _balloon_builder():
    s = tl.System("balloon", gravity=[0.0, -9.81, 0.0], euler="213")
    s.parameter("k", 50.0, min=25.0, max=100.0, unit="N/m")
    s.parameter("ds", 5.0)
    s.parameter("dp1", 0.5)
    s.parameter("dp2", 0.5)
    s.body("balloon", tl.Free(), mass=10.0,
           inertia=[[5.0, 0.0, 0.0], [0.0, 10.0, -7.0], [0.0, -7.0, 10.0]],
           ports={"C": [0.0, -2.0, 0.0]})
    s.body("slider", tl.Prismatic(axis=[1.0, 0.0, -1.0], stiffness="k", damping="ds"),
           parent="balloon.C", mass=1.0)
    s.body("pendulum1", tl.Revolute(axis=[0, 0, 1], damping="dp1", q0=np.deg2rad(170.0)),
           parent="slider", mass=2.0, com=[0.0, -1.2, 0.0], ports={"tip": [0.0, -1.2, 0.0]})
    s.body("pendulum2", tl.Revolute(axis=[0, 0, 1], damping="dp2", q0=-np.deg2rad(170.0)),
           parent="pendulum1.tip", mass=3.0, com=[0.0, -1.6, 0.0])
    s.buoyancy("balloon", point="com")
    return s


def test_static_balloon_is_an_equilibrium():
    """Buoyancy = total weight at the balloon's com, pendulums straight down: all ẋ = 0,
    at any position and any heading ψ (rotation about the vertical y of sequence 213)."""
    model = _load_balloon()
    rng = np.random.default_rng(7)
    n = 10
    x = np.zeros((n, model.n_states))
    for name in ("balloon_x", "balloon_y", "balloon_z"):
        x[:, model.state_index(name)] = rng.uniform(-50, 50, n)
    x[:, model.state_index("balloon_psi")] = rng.uniform(-np.pi, np.pi, n)
    params = {"k": rng.uniform(25, 100, n), "ds": rng.uniform(0, 10, n)}
    xdot = model.dynamics(0.0, x, params=params)
    np.testing.assert_allclose(xdot, 0.0, rtol=0, atol=1e-12)
    # and inverse dynamics needs no effort to hold it
    inv = tl.inverse_dynamics(model, x, np.zeros(len(tl.velocity_names(model))), params=params)
    np.testing.assert_allclose(inv.generalized_force, 0.0, rtol=0, atol=1e-11)
    # sanity: tilting the lower pendulum is not an equilibrium
    x[:, model.state_index("pendulum2_q")] = 0.1
    assert np.all(np.abs(model.dynamics(0.0, x, params=params)[:, model.state_index(
        "pendulum2_qd")]) > 0.1)


def test_balloon_builder_matches_canonical_model():
    s = _balloon_builder()
    with pytest.warns(tl.TitopWarning, match="triangle inequality"):
        built = s.compile()
    ref = _load_balloon()
    assert built.state_names == ref.state_names
    assert built.param_names == ref.param_names
    np.testing.assert_allclose(built.default_state(), ref.default_state(), rtol=0, atol=1e-15)
    rng = np.random.default_rng(8)
    x = rng.uniform(-1.0, 1.0, (20, ref.n_states))
    params = {"k": rng.uniform(25, 100, 20)}
    np.testing.assert_allclose(built.dynamics(0.0, x, params=params),
                               ref.dynamics(0.0, x, params=params), rtol=1e-13, atol=1e-12)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tl.TitopWarning)
        rebuilt = tl.System.from_dict(s.to_dict()).compile()
    np.testing.assert_allclose(rebuilt.dynamics(0.0, x), ref.dynamics(0.0, x), rtol=1e-13,
                               atol=1e-12)
