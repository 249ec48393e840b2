"""Linearisation (``tl.jacobians``, ``tl.linearize``) and modal analysis (``tl.modes``).

What is checked against what:

* closed forms, ``A`` and ``B`` to ``1e-10``: the damped simple pendulum at the hanging
  equilibrium (``tl.linearize``, one output and no input: the shape python-control 0.10.2
  refuses, its issue #1176, built anyway and simulated) and (``tl.jacobians``) at arbitrary
  non-equilibrium states, ``A = [[0, 1], [-(g/L) cos θ, -d/(mL²)]]``; the actuated
  pendulum ``B = [0, 1/(mL²)]``; a pendulum on a carriage held by a horizontal spring
  (Lagrange equations linearised at rest); the hanging double pendulum of two point masses
  (``A`` from the classic ``M⁻¹K`` in absolute angles, mapped to the model's relative joint
  angles);
* the balloon (``examples/balloon.toml`` with an actuated slider and a wrench input at the
  balloon's centre of mass) at its trim point and at a seeded random state: ``A`` and ``B``
  against central finite differences of ``model.dynamics`` (relative ``<= 1e-6``) and the
  velocity-state rows against Pinocchio's analytical ABA derivatives
  (``pinocchio.computeABADerivatives``, ``<= 1e-8``), with the tangent-space map of the
  free flyer, the spring-damper joint forces and the attitude dependence of the (inertially
  fixed) buoyancy added by hand;
* the balloon with sensors (position, body-frame velocity, acceleration, angular velocity,
  slider ``qdd``: ``D ≠ 0``): ``C``, ``D`` and the parameter sensitivities ``∂f/∂p``,
  ``∂h/∂p`` against central finite differences (relative ``<= 1e-6``); the double pendulum's
  ``B`` (two actuated joints) in closed form ``(Tᵀ M T)⁻¹``; a turntable spin point in
  closed form (Lagrange), with the cyclic table angle dropped and reported; state subsets;
* the balloon's modes at the hanging equilibrium: 8 zero eigenvalues but nullity 4 (numpy's
  eigenvalues and rank), reported as 4 rigid-body d.o.f. x, y, z, ψ each with its velocity
  partner vx, vy, vz, wy (checked on the columns of A) and 5 damped oscillatory modes;
  ``drop_integrators=True`` removes the four pure integrators and the outputs that read
  them, leaving four single zero modes (vx, vy, vz, wy) and the other modes unchanged; a
  double integrator beside a closed-form oscillator; the HTML table;
* ``model.to_nlsys()`` + ``control.linearize`` (one-sided differences) agrees with ours to
  ``1e-4`` relative, and ours is closer to a fourth-order central-difference reference;
* a small perturbation of the trim point simulated by the nonlinear model and by the linear
  model: the difference scales as ``ε²`` (ratio 4 ± 10 % when ε doubles);
* the nutation frequency ``|I3 − I1| / I1 · Ω`` of a free symmetric body spinning about its
  symmetry axis (prolate and oblate; the axis tilted in the body frame), to ``1e-10``
  relative, after ``tl.trim(kind="spin")`` and the dropping of the cyclic states;
* errors: non-equilibrium, ``drift=True``, illegal drops, unknown names; named signals.
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import control
import numpy as np
import pinocchio as pin
import pytest
import scipy.linalg
from scipy.spatial.transform import Rotation

import titop_lpv as tl
from titop_lpv.model.files import read_description
from titop_lpv.spatial.euler import angular_velocity_matrix

if str(Path(__file__).resolve().parent) not in sys.path:
    sys.path.insert(0, str(Path(__file__).resolve().parent))

import models
import peer_pinocchio

ROOT = Path(__file__).resolve().parents[1]
G = 9.81
BALLOON_FREE = ["balloon.phi", "balloon.theta", "slider.q", "pendulum1.q", "pendulum2.q"]
BALLOON_FIXED = {"balloon.x": 0.0, "balloon.z": 0.0, "balloon.psi": 0.0}
HANGING = {"pendulum1.q": 0.2, "pendulum2.q": -0.2}


def _load(source) -> tl.Model:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tl.TitopWarning)  # the balloon's inertia (expected)
        return tl.load_model(source)


def _balloon_desc(actuated: bool) -> dict:
    desc = read_description(ROOT / "examples" / "balloon.toml")
    if actuated:
        desc["bodies"][1]["joint"]["actuated"] = True  # the slider: input slider_tau
        desc["inputs"] = [{"body": "balloon", "point": "com"}]  # body-frame wrench at B
    return desc


def _trim(model: tl.Model) -> tl.OperatingPoint:
    op = tl.trim(model, free=BALLOON_FREE, fixed=BALLOON_FIXED, guess=HANGING)
    assert op.success and op.residual_norm <= 1e-10
    return op


@pytest.fixture(scope="module")
def balloon() -> tl.Model:
    return _load(ROOT / "examples" / "balloon.toml")


@pytest.fixture(scope="module")
def balloon_op(balloon) -> tl.OperatingPoint:
    return _trim(balloon)


@pytest.fixture(scope="module")
def actuated_desc() -> dict:
    return _balloon_desc(actuated=True)


@pytest.fixture(scope="module")
def actuated(actuated_desc) -> tl.Model:
    return _load(actuated_desc)


@pytest.fixture(scope="module")
def actuated_op(actuated) -> tl.OperatingPoint:
    return _trim(actuated)


def _rel(X: np.ndarray, Y: np.ndarray) -> float:
    """Relative Frobenius error of X w.r.t. the reference Y."""
    return float(np.linalg.norm(X - Y) / np.linalg.norm(Y))


# --------------------------------------------------------------------------------------------
# 1. closed forms
# --------------------------------------------------------------------------------------------
def _pendulum_A(theta: float, L: float, m: float, d: float) -> np.ndarray:
    return np.array([[0.0, 1.0], [-(G / L) * np.cos(theta), -d / (m * L * L)]])


def test_pendulum_closed_form_anywhere():
    L, m, d = 1.3, 2.5, 0.4
    model = _load(models.pendulum(length=L, mass=m, g=G, damping=d))
    assert model.state_names == ("pendulum_q", "pendulum_qd")
    # hanging equilibrium, then non-equilibrium states: the Jacobian is exact everywhere
    for theta, rate in ((0.0, 0.0), (0.7, 0.3), (2.4, -1.1), (-1.9, 2.0)):
        J = tl.jacobians(model, [theta, rate])
        np.testing.assert_allclose(J.A, _pendulum_A(theta, L, m, d), rtol=1e-10, atol=1e-10)
        f_exact = [rate, -(G / L) * np.sin(theta) - d * rate / (m * L * L)]
        np.testing.assert_allclose(J.f0, f_exact, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(J.C, [[1.0, 0.0]], rtol=0, atol=0)  # output: the angle


def test_linearize_pendulum_hanging():
    """The hanging pendulum through ``tl.linearize``, with its default single output (the
    angle) and no input: python-control 0.10.2 collapses the 1×0 ``D`` to 0×0 and refuses
    the system (its issue #1176); ``tl.linearize`` must still return the right system with
    true empty ``B`` (2×0) and ``D`` (1×0), usable by python-control's responses."""
    L, m, d = 1.3, 2.5, 0.4
    desc = models.pendulum(length=L, mass=m, g=G, damping=d)
    model = _load(desc)
    assert (model.n_inputs, model.n_outputs) == (0, 1)
    A_exact = _pendulum_A(0.0, L, m, d)
    sys_ = tl.linearize(model, x=[0.0, 0.0])
    np.testing.assert_allclose(sys_.A, A_exact, rtol=1e-10, atol=1e-10)
    np.testing.assert_array_equal(sys_.C, [[1.0, 0.0]])
    assert sys_.B.shape == (2, 0) and sys_.D.shape == (1, 0) and sys_.shape == (1, 0)
    assert sys_.output_labels == ["pendulum_q"] and sys_.input_labels == []
    assert sys_.state_labels == ["pendulum_q", "pendulum_qd"] and sys_.dropped_states == {}
    # the system works in python-control: free response = the closed-form damped oscillation
    T = np.linspace(0.0, 3.0, 301)
    resp = control.initial_response(sys_, T, X0=[1e-2, 0.0])
    expected = [scipy.linalg.expm(A_exact * t)[0, 0] * 1e-2 for t in T]
    np.testing.assert_allclose(np.ravel(resp.outputs), expected, rtol=1e-6, atol=1e-12)
    np.testing.assert_allclose(np.sort_complex(sys_.poles()),
                               np.sort_complex(np.linalg.eigvals(A_exact)), rtol=1e-12)
    desc["outputs"] = [{"type": "q", "body": "pendulum"}, {"type": "qd", "body": "pendulum"}]
    model = _load(desc)
    sys_ = tl.linearize(model, x=[0.0, 0.0])
    np.testing.assert_allclose(sys_.A, A_exact, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(sys_.C, np.eye(2), rtol=0, atol=1e-14)
    assert sys_.output_labels == list(model.output_names) and len(sys_.output_labels) == 2
    assert sys_.B.shape == (2, 0) and sys_.D.shape == (2, 0)


def test_one_state_no_input_system():
    """``B`` is 1×0, the other shape python-control 0.10.2 collapses: a damped cart on a
    frictionless rail (no spring) with its position dropped keeps one state, the rate,
    with ``A = [[-c/m]]``; the position output reads the dropped state and is left out."""
    m, c = 1.7, 0.6
    s = tl.System("cart", gravity=[0.0, -G, 0.0])
    s.body("cart", tl.Prismatic(axis=[1, 0, 0], damping=c), mass=m)
    model = s.compile()
    sys_ = tl.linearize(model, x=[0.0, 0.0], drop=["cart.q"])
    np.testing.assert_allclose(sys_.A, [[-c / m]], rtol=1e-12)
    assert (sys_.A.shape, sys_.B.shape, sys_.C.shape, sys_.D.shape) == ((1, 1), (1, 0), (0, 1),
                                                                        (0, 0))
    assert sys_.state_labels == ["cart_qd"] and sys_.output_labels == []
    assert sys_.dropped_states == {"cart_q": "drop"} and sys_.dropped_outputs == ("cart_q",)
    # the rate alone drives the position: keeping only the position is refused, naming both
    with pytest.raises(tl.LinearizationError, match=r"'cart_qd'.*'cart_q'"):
        tl.linearize(model, x=[0.0, 0.0], states=["cart_q"])


def test_named_statespace_shapes_python_control_refuses():
    from titop_lpv.analysis.linearize import named_statespace

    A, C = np.array([[-2.0]]), np.array([[3.0]])
    one = named_statespace(A, np.zeros((1, 0)), C, np.zeros((1, 0)), states=["s"], inputs=[],
                           outputs=["y"], name="one")
    assert (one.A.shape, one.B.shape, one.C.shape, one.D.shape) == ((1, 1), (1, 0), (1, 1),
                                                                    (1, 0))
    assert (one.state_labels, one.input_labels, one.output_labels) == (["s"], [], ["y"])
    T = np.linspace(0.0, 1.0, 11)
    resp = control.initial_response(one, T, X0=[1.0])
    np.testing.assert_allclose(np.ravel(resp.outputs), 3.0 * np.exp(-2.0 * T), rtol=1e-6)
    with pytest.raises(tl.LinearizationError, match="no state, no input and one output"):
        named_statespace(np.zeros((0, 0)), np.zeros((0, 0)), np.zeros((1, 0)),
                         np.zeros((1, 0)), states=[], inputs=[], outputs=["y"], name="bad")
    with pytest.raises(tl.LinearizationError, match="do not match"):
        named_statespace(A, np.zeros((1, 1)), C, np.zeros((1, 0)), states=["s"], inputs=[],
                         outputs=["y"], name="bad")


def test_actuated_pendulum_input_matrix():
    L, m = 0.8, 1.7
    desc = models.pendulum(length=L, mass=m, g=G, damping=0.2)
    desc["bodies"][0]["joint"]["actuated"] = True
    model = _load(desc)
    sys_ = tl.linearize(model, x=[0.0, 0.0])
    assert sys_.input_labels == ["pendulum_tau"]
    np.testing.assert_allclose(sys_.B, [[0.0], [1.0 / (m * L * L)]], rtol=1e-10, atol=1e-10)
    # B does not depend on the state (the mass matrix of a point pendulum is constant)
    J = tl.jacobians(model, [1.1, 0.5], [0.3])
    np.testing.assert_allclose(J.B, [[0.0], [1.0 / (m * L * L)]], rtol=1e-10, atol=1e-10)


def test_pendulum_on_horizontal_spring_carriage():
    """Carriage M on a horizontal spring k (damper c), pendulum m, L (damper dp).

    Lagrange (x carriage, θ pendulum, θ = 0 hanging):
    (M + m) ẍ + m L (cos θ θ̈ − sin θ θ̇²) = −k x − c ẋ,  m L² θ̈ + m L cos θ ẍ = −m g L sin θ − dp θ̇.
    At rest: Mass = [[M + m, m L], [m L, m L²]], K = diag(k, m g L), D = diag(c, dp).
    """
    M, m, L, k, c, dp = 1.5, 0.7, 0.9, 40.0, 0.3, 0.05
    s = tl.System("carriage_pendulum", gravity=[0.0, -G, 0.0])
    s.body("carriage", tl.Prismatic(axis=[1, 0, 0], stiffness=k, damping=c), mass=M)
    s.body("bob", tl.Revolute(axis=[0, 0, 1], damping=dp, actuated=True), parent="carriage",
           mass=m, com=[0.0, -L, 0.0])
    model = s.compile()
    assert model.state_names == ("carriage_q", "carriage_qd", "bob_q", "bob_qd")
    sys_ = tl.linearize(model, x=np.zeros(4))
    mass = np.array([[M + m, m * L], [m * L, m * L * L]])
    Minv = np.linalg.inv(mass)
    K, D = np.diag([k, m * G * L]), np.diag([c, dp])
    pos, vel = [0, 2], [1, 3]
    A = np.zeros((4, 4))
    A[pos, vel] = 1.0
    A[np.ix_(vel, pos)] = -Minv @ K
    A[np.ix_(vel, vel)] = -Minv @ D
    B = np.zeros((4, 1))
    B[vel, 0] = Minv @ [0.0, 1.0]  # the torque acts on θ
    np.testing.assert_allclose(sys_.A, A, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(sys_.B, B, rtol=1e-10, atol=1e-10)


def test_double_pendulum_hanging():
    """Two point masses; the classic M, K in absolute angles φ = T q (q: relative joints)."""
    m1, m2, L1, L2 = 1.2, 0.8, 1.0, 0.7
    s = tl.System("double", gravity=[0.0, -G, 0.0])
    s.body("link1", tl.Revolute(axis=[0, 0, 1], actuated=True), mass=m1,
           com=[0.0, -L1, 0.0], ports={"tip": [0.0, -L1, 0.0]})
    s.body("link2", tl.Revolute(axis=[0, 0, 1], actuated=True), parent="link1.tip", mass=m2,
           com=[0.0, -L2, 0.0])
    model = s.compile()
    sys_ = tl.linearize(model, x=np.zeros(4))
    assert sys_.input_labels == ["link1_tau", "link2_tau"]
    M = np.array([[(m1 + m2) * L1**2, m2 * L1 * L2], [m2 * L1 * L2, m2 * L2**2]])
    K = G * np.diag([(m1 + m2) * L1, m2 * L2])
    T = np.array([[1.0, 0.0], [1.0, 1.0]])  # φ1 = q1, φ2 = q1 + q2
    stiff = np.linalg.solve(T, np.linalg.solve(M, K) @ T)  # q̈ = −T⁻¹ M⁻¹ K T q
    A = np.zeros((4, 4))
    A[[0, 2], [1, 3]] = 1.0
    A[np.ix_([1, 3], [0, 2])] = -stiff
    np.testing.assert_allclose(sys_.A, A, rtol=1e-10, atol=1e-10)
    # joint torques are the generalised forces of q: Tᵀ M T q̈ = τ (τ2 acts +/− on link 2/1)
    B = np.zeros((4, 2))
    B[[1, 3], :] = np.linalg.inv(T.T @ M @ T)
    np.testing.assert_allclose(sys_.B, B, rtol=1e-10, atol=1e-10)


# --------------------------------------------------------------------------------------------
# 2. the balloon: finite differences and Pinocchio's analytical derivatives
# --------------------------------------------------------------------------------------------
def _random_balloon_point(model: tl.Model) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(20240611)
    x = model.default_state() + 0.3 * rng.standard_normal(model.n_states)
    u = rng.standard_normal(model.n_inputs)
    return x, u


def _point(model, op, which):
    return (op.x, op.u) if which == "trim" else _random_balloon_point(model)


@pytest.mark.parametrize("which", ["trim", "random"])
def test_balloon_jacobians_vs_central_differences(actuated, actuated_op, which):
    model, params = actuated, actuated_op.params
    x, u = _point(model, actuated_op, which)
    J = tl.jacobians(model, x, u, params)

    def f(xx, uu):
        return model.dynamics(0.0, xx, uu, params)

    h = 1e-6
    A_fd = np.column_stack([(f(x + h * e, u) - f(x - h * e, u)) / (2 * h)
                            for e in np.eye(model.n_states)])
    B_fd = np.column_stack([(f(x, u + h * e) - f(x, u - h * e)) / (2 * h)
                            for e in np.eye(model.n_inputs)])
    for name, ours, fd in (("A", J.A, A_fd), ("B", J.B, B_fd)):
        err = _rel(ours, fd)
        big = np.abs(ours) > 1e-3
        elem = float(np.max(np.abs(ours - fd)[big] / np.abs(ours[big])))
        print(f"\n{which}: {name} vs central FD: Frobenius {err:.2e}, elementwise {elem:.2e}")
        assert err <= 1e-6, (name, err)
        assert elem <= 1e-6, (name, elem)
    if which == "trim":
        np.testing.assert_allclose(J.f0, 0.0, atol=1e-10)


SENSORS = [{"type": "position", "body": "pendulum2", "point": "com"},
           {"type": "velocity", "body": "pendulum1", "point": "tip", "frame": "body"},
           {"type": "acceleration", "body": "pendulum2", "point": "com"},
           {"type": "angular_velocity", "body": "balloon"},
           {"type": "qdd", "body": "slider"}]


@pytest.fixture(scope="module")
def sensed(actuated_desc) -> tl.Model:
    """The actuated balloon with sensors whose C and D are not selections (D ≠ 0)."""
    desc = dict(actuated_desc, outputs=SENSORS)
    return _load(desc)


def _central(fun, z0: np.ndarray, h: float = 1e-6) -> np.ndarray:
    return np.column_stack([(fun(z0 + h * e) - fun(z0 - h * e)) / (2 * h)
                            for e in np.eye(z0.size)])


def _check_fd(name: str, ours: np.ndarray, fd: np.ndarray) -> None:
    err = _rel(ours, fd)
    big = np.abs(ours) > 1e-3
    elem = float(np.max(np.abs(ours - fd)[big] / np.abs(ours[big])))
    print(f"\n{name} vs central FD: Frobenius {err:.2e}, elementwise {elem:.2e}")
    assert err <= 1e-6 and elem <= 1e-6, (name, err, elem)
    np.testing.assert_allclose(ours[~big], fd[~big], atol=1e-8)


@pytest.mark.parametrize("which", ["trim", "random"])
def test_balloon_output_jacobians_vs_central_differences(sensed, actuated_op, which):
    model, params = sensed, actuated_op.params
    x, u = _point(model, actuated_op, which)
    J = tl.jacobians(model, x, u, params)
    assert J.C.shape == (model.n_outputs, model.n_states) == (13, 18)
    assert np.max(np.abs(J.D)) > 0.1  # accelerations feel the inputs directly
    _check_fd(f"{which}: C", J.C, _central(lambda z: model.outputs(0.0, z, u, params), x))
    _check_fd(f"{which}: D", J.D, _central(lambda z: model.outputs(0.0, x, z, params), u))
    np.testing.assert_allclose(J.y0, model.outputs(0.0, x, u, params), rtol=1e-14, atol=1e-14)
    # tl.linearize carries the same C, D (at the equilibrium)
    if which == "trim":
        sys_ = tl.linearize(model, actuated_op)
        np.testing.assert_array_equal(sys_.C, J.C)
        np.testing.assert_array_equal(sys_.D, J.D)


@pytest.mark.parametrize("which", ["trim", "random"])
def test_parameter_sensitivities_vs_central_differences(sensed, actuated_op, which):
    model = sensed
    x, u = _point(model, actuated_op, which)
    p0 = np.array([actuated_op.params[n] for n in model.param_names], dtype=float)
    assert model.param_names == ("k", "ds", "dp1", "dp2")
    J = tl.jacobians(model, x, u, dict(zip(model.param_names, p0)), parameters=True)
    assert J.Fp.shape == (18, 4) and J.Hp.shape == (13, 4)

    def f(p):
        return model.dynamics(0.0, x, u, dict(zip(model.param_names, p)))

    def h(p):
        return model.outputs(0.0, x, u, dict(zip(model.param_names, p)))

    Fp_fd, Hp_fd = _central(f, p0, 1e-5), _central(h, p0, 1e-5)
    if which == "trim":  # at rest only the spring (k, through slider_q = 0) could act: none
        np.testing.assert_allclose(J.Fp, Fp_fd, atol=1e-9)
        np.testing.assert_allclose(J.Hp, Hp_fd, atol=1e-9)
    else:
        _check_fd("∂f/∂p", J.Fp, Fp_fd)
        _check_fd("∂h/∂p", J.Hp, Hp_fd)
    # without parameters=True nothing is computed
    assert tl.jacobians(model, x, u).Fp is None


def _pinocchio_derivatives(peer, model, x, u):
    """Our velocity-state rows of [A | B] rebuilt from Pinocchio's ABA derivatives.

    Returns (dq, dv, du) in our coordinates: columns (x, y, z, φ, θ, ψ, joint q's),
    (base twist, joint rates) and the inputs.
    """
    names = model.state_names
    cfg = dict(zip(names, x))
    R = np.asarray(model.rotation(x, "balloon"))  # P_{b/i}
    cfg["balloon_R"] = R
    q, v = peer.to_pinocchio(cfg)
    tau = peer.joint_forces(cfg, {"slider_tau": u[0]})
    pin.forwardKinematics(peer.model, peer.data, q)
    fext = peer.external_forces()
    jid = peer.frames["balloon"][0]
    fext[jid] = fext[jid] + pin.Force(u[1:4], u[4:7])  # body-frame wrench at B = origin
    ddq_dq, ddq_dv, Minv = (np.array(a) for a in
                            pin.computeABADerivatives(peer.model, peer.data, q, v, tau, fext))
    Minv = np.triu(Minv) + np.triu(Minv, 1).T
    nv = peer.nv
    # joint spring-dampers τ = −k q − d q̇ (+ u): held fixed by Pinocchio, added via ∂q̈/∂τ
    dtau_dq, dtau_dv = np.zeros((nv, nv)), np.zeros((nv, nv))
    for dof in peer.dofs:
        if dof.kind != "free":
            dtau_dq[dof.idx_v, dof.idx_v] = -dof.stiffness
            dtau_dv[dof.idx_v, dof.idx_v] = -dof.damping
    dq = ddq_dq + Minv @ dtau_dq
    dv = ddq_dv + Minv @ dtau_dv
    # Buoyancy F (inertial, constant) at the balloon point p: fext holds f = Rᵀ F, n = p × f
    # in the joint frame, and Pinocchio keeps them fixed. Derived by hand: with the tangent
    # perturbation R → R exp([δω]×), f → exp(−[δω]×) f ≈ f + [f]× δω, so ∂f/∂δω = [f]× and
    # ∂n/∂δω = [p]× [f]×; their effect on q̈ goes through Minv's free-flyer columns.
    F = -peer.total_mass * peer.gravity
    f_loc = R.T @ F
    p = np.asarray(peer.bodies["balloon"].get("com", np.zeros(3)), dtype=float)
    dwrench = np.vstack([pin.skew(f_loc), pin.skew(p) @ pin.skew(f_loc)])
    buoyancy_term = Minv[:, 0:6] @ dwrench
    assert np.linalg.norm(buoyancy_term) > 1.0  # the term matters: the test would see it
    dq[:, 3:6] += buoyancy_term
    # tangent space → our coordinates: δq_pin = [Rᵀ δp ; B(Θ) δΘ ; δq_joints]
    base = model.state_index("balloon_phi")
    Bm = angular_velocity_matrix(x[base:base + 3], model.euler)
    Tmap = np.eye(nv)
    Tmap[0:3, 0:3] = R.T
    Tmap[3:6, 3:6] = Bm
    dq = dq @ Tmap
    # inputs: slider_tau → its joint column, the body wrench → the free-flyer columns
    slider_v = next(d.idx_v for d in peer.dofs if d.body == "slider")
    du = np.column_stack([Minv[:, slider_v], Minv[:, 0:6]])
    # Pinocchio's v order (base twist, slider, pendulum1, pendulum2) is our ν order
    return dq, dv, du


@pytest.mark.parametrize("which", ["trim", "random"])
def test_balloon_jacobians_vs_pinocchio_derivatives(actuated, actuated_desc, actuated_op,
                                                    which):
    model = actuated
    x, u = _point(model, actuated_op, which)
    assert model.input_names == ("slider_tau", "balloon_com_Fx", "balloon_com_Fy",
                                 "balloon_com_Fz", "balloon_com_Tx", "balloon_com_Ty",
                                 "balloon_com_Tz")
    peer = peer_pinocchio.build(actuated_desc)
    assert [d.body for d in peer.dofs] == ["balloon", "slider", "pendulum1", "pendulum2"]
    J = tl.jacobians(model, x, u)
    sn = model.state_names
    vel_rows = [i for i, n in enumerate(sn)
                if n.endswith(("_vx", "_vy", "_vz", "_wx", "_wy", "_wz", "_qd"))]
    q_cols = ([model.state_index(f"balloon_{c}") for c in ("x", "y", "z", "phi", "theta", "psi")]
              + [model.state_index(f"{b}_q") for b in ("slider", "pendulum1", "pendulum2")])
    assert len(vel_rows) == 9
    dq, dv, du = _pinocchio_derivatives(peer, model, x, u)
    errors = {
        "∂a/∂q": float(np.max(np.abs(J.A[np.ix_(vel_rows, q_cols)] - dq))),
        "∂a/∂v": float(np.max(np.abs(J.A[np.ix_(vel_rows, vel_rows)] - dv))),
        "∂a/∂u": float(np.max(np.abs(J.B[vel_rows] - du))),
    }
    print(f"\n{which}: max |ours − Pinocchio| {errors} (max |A| = {np.max(np.abs(J.A)):.3g})")
    for key, err in errors.items():
        assert err <= 1e-8, (key, err)


# --------------------------------------------------------------------------------------------
# 3. modes of the balloon
# --------------------------------------------------------------------------------------------
def test_balloon_modes_at_the_hanging_equilibrium(balloon, balloon_op):
    assert balloon_op.params == {"k": 50.0, "ds": 5.0, "dp1": 0.5, "dp2": 0.5}
    sys_ = tl.linearize(balloon, balloon_op)
    table = tl.modes(sys_)
    print("\n" + str(table))
    print(table.to_markdown())
    # independent count: 8 zero eigenvalues, but A has nullity 4 (four Jordan chains)
    lam = np.linalg.eigvals(sys_.A)
    assert int(np.sum(np.abs(lam) <= 1e-6)) == 8
    assert sys_.A.shape[0] - np.linalg.matrix_rank(sys_.A) == 4
    assert len(table.rigid) == 8 and len(table.rigid_dofs) == 4
    # each rigid-body d.o.f.: a displacement and its velocity partner, labelled by name
    chains = {dof[0].dominant[0][0]: dof[1].dominant[0][0] for dof in table.rigid_dofs}
    assert chains == {"balloon_x": "balloon_vx", "balloon_y": "balloon_vy",
                      "balloon_z": "balloon_vz", "balloon_psi": "balloon_wy"}
    for dof in table.rigid_dofs:
        assert [m.level for m in dof] == [0, 1]
        assert [m.kind for m in dof] == [f"rigid-body {dof[0].dof + 1}",
                                         f"rigid-body {dof[0].dof + 1} (rate)"]
        assert all(m.dominant[0][1] >= 1 - 1e-12 for m in dof)  # pure state directions
        # the chain, checked on A itself: A e_pos = 0 and A e_rate = e_pos (hanging level:
        # body and inertial axes coincide, so each rate feeds its displacement with 1)
        pos, rate = (sys_.state_labels.index(m.dominant[0][0]) for m in dof)
        e_pos = np.eye(18)[pos]
        np.testing.assert_allclose(sys_.A[:, pos], 0.0, atol=1e-12)
        np.testing.assert_allclose(sys_.A[:, rate], e_pos, atol=1e-12)
    for m in table.rigid:
        assert m.wn <= 1e-9
    flexible = table.flexible
    assert len(flexible) == 5
    for m in flexible:
        assert m.kind == "oscillatory"
        assert m.eigenvalue.real < 0 and 0.0 < m.zeta < 1.0
    assert "8 rigid-body, 5 other (4 rigid-body degrees of freedom)" in str(table)
    assert len(table.to_markdown().splitlines()) == 2 + 13
    assert "| rigid-body 4 (rate) | 0 |" in table.to_markdown()
    # every eigenvalue of A is accounted for (complex pairs once)
    assert sum(1 if m.eigenvalue.imag == 0 else 2 for m in table.modes) == lam.size == 18

    reduced = tl.linearize(balloon, balloon_op, drop_integrators=True)
    gone = {"balloon_x", "balloon_y", "balloon_z", "balloon_psi"}
    assert set(reduced.state_labels) == set(sys_.state_labels) - gone
    assert set(reduced.output_labels) == set(sys_.output_labels) - gone
    keep = [sys_.state_labels.index(n) for n in reduced.state_labels]
    np.testing.assert_array_equal(reduced.A, sys_.A[np.ix_(keep, keep)])
    small = tl.modes(reduced)
    assert len(small.rigid) == 4 and len(small.flexible) == 5
    # the remaining zero modes: uniform translation and yaw rate, each its own null vector
    assert reduced.A.shape[0] - np.linalg.matrix_rank(reduced.A) == 4
    assert [[m.dominant[0][0] for m in dof] for dof in small.rigid_dofs] == [
        ["balloon_vx"], ["balloon_vy"], ["balloon_vz"], ["balloon_wy"]]
    np.testing.assert_allclose([m.eigenvalue for m in small.flexible],
                               [m.eigenvalue for m in flexible], rtol=1e-10)


def test_modes_jordan_block_and_html():
    """A double integrator with a damped oscillator beside it: the Jordan chain is one
    rigid-body d.o.f. (position then rate), the oscillator keeps its closed-form ω_n, ζ;
    the HTML table has one row per mode and escapes the names."""
    wn, zeta = 2.0, 0.1
    A = np.zeros((4, 4))
    A[0, 1] = 1.0
    A[2:, 2:] = [[0.0, 1.0], [-wn**2, -2 * zeta * wn]]
    sys_ = control.ss(A, np.zeros((4, 1)), np.eye(4)[:1], 0.0,
                      states=["p", "v", "a<b", "a_rate"], inputs=["u"], outputs=["y"])
    table = tl.modes(sys_)
    assert [(m.kind, m.dominant[0][0]) for m in table.rigid] == [
        ("rigid-body 1", "p"), ("rigid-body 1 (rate)", "v")]
    (osc,) = table.flexible
    assert osc.kind == "oscillatory"
    np.testing.assert_allclose([osc.wn, osc.zeta], [wn, zeta], rtol=1e-12)
    html = table._repr_html_()
    assert html.startswith("<table>") and html.endswith("</table>")
    assert html.count("<tr>") == 1 + 3 and html.count("<th>") == 7
    assert "a&lt;b" in html and "a<b" not in html
    assert "rigid-body 1 (rate)" in html
    with pytest.raises(tl.ShapeError, match="square"):
        tl.modes(np.zeros((2, 3)))


# --------------------------------------------------------------------------------------------
# 4. python-control's numerical linearisation
# --------------------------------------------------------------------------------------------
def test_python_control_linearize_agrees_and_is_less_accurate(actuated, actuated_op):
    model, op = actuated, actuated_op
    ours = tl.linearize(model, op)
    theirs = control.linearize(model.to_nlsys(), op.x, op.u)
    for name in "ABC":
        ref = getattr(ours, name)
        assert _rel(getattr(theirs, name), ref) <= 1e-4, name
    np.testing.assert_allclose(theirs.D, ours.D, atol=1e-12)

    # an independent reference: fourth-order central differences, h = 3e-4
    def jac(fun, z0, h=3e-4):
        return np.column_stack([(-fun(z0 + 2 * h * e) + 8 * fun(z0 + h * e)
                                 - 8 * fun(z0 - h * e) + fun(z0 - 2 * h * e)) / (12 * h)
                                for e in np.eye(z0.size)])

    A_ref = jac(lambda z: model.dynamics(0.0, z, op.u, op.params), op.x)
    B_ref = jac(lambda z: model.dynamics(0.0, op.x, z, op.params), op.u)
    err_ours = max(_rel(ours.A, A_ref), _rel(ours.B, B_ref))
    err_theirs = max(_rel(theirs.A, A_ref), _rel(theirs.B, B_ref))
    print(f"\nrelative error vs 4th-order central FD: ours {err_ours:.2e}, "
          f"python-control {err_theirs:.2e}")
    assert err_ours <= 1e-10
    assert 100 * err_ours < err_theirs


# --------------------------------------------------------------------------------------------
# 5. second-order agreement with the nonlinear model
# --------------------------------------------------------------------------------------------
def test_small_perturbation_agrees_to_second_order(balloon, balloon_op):
    op = balloon_op
    sys_ = tl.linearize(balloon, op)
    rng = np.random.default_rng(7)
    delta = rng.standard_normal(balloon.n_states)
    delta /= np.linalg.norm(delta)
    T = np.linspace(0.0, 5.0, 501)
    y0 = balloon.outputs(0.0, op.x, op.u, op.params)
    errors = []
    for eps in (1e-3, 2e-3):
        traj = tl.simulate(balloon, (0.0, 5.0), x0=op.x + eps * delta, params=op.params,
                           t_eval=T, rtol=1e-12, atol=1e-14)
        lin = control.initial_response(sys_, T, X0=eps * delta)
        y_lin = np.asarray(lin.outputs).T
        assert traj.y.shape == y_lin.shape == (T.size, balloon.n_outputs)
        err = float(np.max(np.linalg.norm(traj.y - y0 - y_lin, axis=1)))
        size = float(np.max(np.linalg.norm(y_lin, axis=1)))
        print(f"\nε = {eps:g}: max ‖y_nl − y0 − y_lin‖ = {err:.3e} (response {size:.3e})")
        assert err <= 1e-3 * size  # small against the first-order response itself
        errors.append(err)
    ratio = errors[1] / errors[0]
    print(f"error ratio when ε doubles: {ratio:.4f}")
    assert abs(ratio - 4.0) <= 0.4


# --------------------------------------------------------------------------------------------
# 6. steady spin of a symmetric body
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("I1", "I3"), [(3.0, 1.0), (1.0, 1.7)], ids=["prolate", "oblate"])
def test_spin_nutation_frequency(I1, I3):
    rot = Rotation.random(random_state=np.random.default_rng(11)).as_matrix()
    axis = rot[:, 2]  # the symmetry axis, in a body frame not aligned with it
    s = tl.System("top", gravity=[0.0, 0.0, 0.0], euler="321")
    s.body("body", tl.Free(euler0=[0.3, -0.4, 1.2]), mass=2.0,
           inertia=rot @ np.diag([I1, I1, I3]) @ rot.T)
    model = s.compile()
    omega = 2.5
    op = tl.trim(model, kind="spin", spin={"body": "body", "axis": axis.tolist(), "rate": omega})
    assert op.success
    sys_ = tl.linearize(model, op)
    assert sys_.state_labels == [f"body_{c}" for c in ("vx", "vy", "vz", "wx", "wy", "wz")]
    cyclic = [f"body_{c}" for c in ("x", "y", "z", "phi", "theta", "psi")]
    assert sys_.dropped_states == dict.fromkeys(cyclic, "cyclic")
    lam = np.linalg.eigvals(sys_.A)
    nutation = abs(I3 - I1) / I1 * omega
    for target in (1j * nutation, -1j * nutation):
        k = int(np.argmin(np.abs(lam - target)))
        err = abs(lam[k] - target) / nutation
        print(f"\nnutation eigenvalue {lam[k]:.12g}, closed form {target:.12g}, rel. {err:.1e}")
        assert err <= 1e-10
    # the other eigenvalues: the origin's velocity turning at ±iΩ, and two zeros
    others = np.delete(lam, [np.argmin(np.abs(lam - 1j * nutation)),
                             np.argmin(np.abs(lam + 1j * nutation))])
    others = others[np.argsort(others.imag)]
    np.testing.assert_allclose(others, [-1j * omega, 0.0, 0.0, 1j * omega], atol=1e-10)


def test_turntable_spin_point_closed_form(caplog):
    """A free turntable (inertia J about the vertical z) carrying a conical pendulum (point
    mass m, arm ℓ, hinge at radius r), spinning at Ω. Lagrange, ρ = r − ℓ sin q:
    q̈ = −(Ω² ρ cos q)/ℓ − (g/ℓ) sin q and (J + m ρ²) ψ̇ conserved, so at (Ω, q₀, 0)
    ∂ψ̈/∂q̇ = 2 m ρ ℓ cos q₀ Ω / (J + m ρ²), ∂q̈/∂ψ̇ = −2 ρ cos q₀ Ω / ℓ,
    ∂q̈/∂q = (Ω²/ℓ)(ℓ cos² q₀ + ρ sin q₀) − (g/ℓ) cos q₀.
    The cyclic table angle is dropped and reported; its output too; what is left has one
    output and no input (python-control 0.10.2 issue #1176)."""
    J, m, r, ell, omega = 1.0, 1.0, 0.5, 0.6, 3.0
    s = tl.System("turntable", gravity=[0.0, 0.0, -G])
    s.body("table", tl.Revolute(axis=[0, 0, 1]), mass=5.0, inertia=J * np.eye(3),
           ports={"rim": [r, 0.0, 0.0]})
    s.body("bob", tl.Revolute(axis=[0, 1, 0]), parent="table.rim", mass=m,
           com=[0.0, 0.0, -ell])
    model = s.compile()
    op = tl.trim(model, kind="spin", free=["bob.q"], guess={"bob.q": -0.3},
                 spin={"body": "table", "axis": [0, 0, 1], "rate": omega})
    assert op.success and op.cyclic == ("table_q",)
    with caplog.at_level("INFO", logger="titop_lpv.analysis.linearize"):
        sys_ = tl.linearize(model, op)
    assert "table_q (cyclic)" in caplog.text
    assert sys_.dropped_states == {"table_q": "cyclic"}
    assert sys_.dropped_outputs == ("table_q",)
    assert sys_.state_labels == ["table_qd", "bob_q", "bob_qd"]
    assert sys_.output_labels == ["bob_q"] and sys_.input_labels == []
    assert sys_.B.shape == (3, 0) and sys_.D.shape == (1, 0)
    q0 = op["bob_q"]
    rho = r - ell * np.sin(q0)
    A = np.zeros((3, 3))
    A[1, 2] = 1.0
    A[0, 2] = 2 * m * rho * ell * np.cos(q0) * omega / (J + m * rho**2)
    A[2, 0] = -2 * rho * np.cos(q0) * omega / ell
    A[2, 1] = (omega**2 / ell) * (ell * np.cos(q0) ** 2 + rho * np.sin(q0)) - G / ell * np.cos(q0)
    np.testing.assert_allclose(sys_.A, A, rtol=1e-10, atol=1e-10)
    np.testing.assert_array_equal(sys_.C, [[0.0, 1.0, 0.0]])


def test_state_subsets_and_dropped_states(balloon, balloon_op):
    """``states=`` keeps the user's order and is the sub-block of the full model; every
    state left out is reported with its reason."""
    full = tl.linearize(balloon, balloon_op)
    assert full.dropped_states == {} and full.dropped_outputs == ()
    subset = ["pendulum2.q", "pendulum2_qd", "slider_q", "slider_qd", "pendulum1_q",
              "pendulum1_qd", "balloon_vx", "balloon_vy", "balloon_vz", "balloon_wx",
              "balloon_wy", "balloon_wz", "balloon_phi", "balloon_theta"]
    sub = tl.linearize(balloon, balloon_op, states=subset, outputs=["slider_q", "pendulum2_q"])
    names = [n.replace(".", "_") for n in subset]
    assert sub.state_labels == names
    idx = [full.state_labels.index(n) for n in names]
    np.testing.assert_array_equal(sub.A, full.A[np.ix_(idx, idx)])
    rows = [full.output_labels.index(n) for n in sub.output_labels]
    np.testing.assert_array_equal(sub.C, full.C[np.ix_(rows, idx)])
    assert sub.dropped_states == dict.fromkeys(
        ["balloon_x", "balloon_y", "balloon_z", "balloon_psi"], "not selected")
    assert sub.dropped_outputs == ()  # outputs were named explicitly
    # the same reduction by drop_integrators and by drop=, with their reasons
    auto = tl.linearize(balloon, balloon_op, drop=["balloon.y"], drop_integrators=True)
    assert auto.dropped_states == {"balloon_x": "integrator", "balloon_y": "drop",
                                   "balloon_z": "integrator", "balloon_psi": "integrator"}
    assert set(auto.dropped_outputs) == {"balloon_x", "balloon_y", "balloon_z", "balloon_psi"}
    # a subset that leaves out a state a kept one depends on is refused, naming both
    with pytest.raises(tl.LinearizationError, match=r"'slider_qd'.*'slider_q'"):
        tl.linearize(balloon, balloon_op, states=["slider_q"])
    with pytest.raises(tl.UnknownNameError, match="balloon_nope"):
        tl.linearize(balloon, balloon_op, states=["balloon_nope"])


# --------------------------------------------------------------------------------------------
# 7. errors and names
# --------------------------------------------------------------------------------------------
def test_non_equilibrium_is_refused_naming_the_worst_state(balloon):
    x0 = balloon.default_state()  # the pendulums at ±170°: far from equilibrium
    f0 = balloon.dynamics(0.0, x0)
    worst = balloon.state_names[int(np.argmax(np.abs(f0)))]
    with pytest.raises(tl.LinearizationError, match=f"d/dt {worst} ") as err:
        tl.linearize(balloon, x=x0)
    assert "drift=True" in str(err.value)


def test_drift_input_is_the_state_derivative():
    desc = models.pendulum(length=1.1, mass=0.9, g=G, damping=0.3)
    desc["bodies"][0]["joint"]["actuated"] = True
    model = _load(desc)
    x0, u0 = np.array([0.5, -0.2]), np.array([0.4])
    f0 = model.dynamics(0.0, x0, u0)
    assert np.max(np.abs(f0)) > 1.0
    sys_ = tl.linearize(model, x=x0, u=u0, drift=True)
    assert sys_.input_labels == ["pendulum_tau", "drift"]
    np.testing.assert_allclose(sys_.B[:, 1], f0, rtol=1e-14, atol=0)
    J = tl.jacobians(model, x0, u0)
    np.testing.assert_allclose(sys_.A, J.A, rtol=0, atol=0)
    np.testing.assert_allclose(sys_.B[:, :1], J.B, rtol=0, atol=0)
    np.testing.assert_allclose(sys_.D, 0.0, atol=0)


def test_illegal_drops_name_both_states(balloon, balloon_op):
    J = tl.jacobians(balloon, balloon_op.x, balloon_op.u, balloon_op.params)
    phi = balloon.state_index("balloon_phi")
    keep = [i for i in range(balloon.n_states) if i != phi]
    dependent = balloon.state_names[keep[int(np.argmax(np.abs(J.A[keep, phi])))]]
    with pytest.raises(tl.LinearizationError, match=f"'balloon_phi'.*'{dependent}'"):
        tl.linearize(balloon, balloon_op, drop=["balloon_phi"])
    # a legal drop (a pure integrator), but an output still reads it
    with pytest.raises(tl.LinearizationError, match="balloon_x"):
        tl.linearize(balloon, balloon_op, drop=["balloon_x"], outputs=["balloon_x"])
    ok = tl.linearize(balloon, balloon_op, drop=["balloon.x"])
    assert "balloon_x" not in ok.state_labels and "balloon_x" not in ok.output_labels


def test_unknown_names(actuated, actuated_op):
    with pytest.raises(tl.UnknownNameError, match="nope"):
        tl.linearize(actuated, actuated_op, inputs=["nope"])
    with pytest.raises(tl.UnknownNameError, match="bogus"):
        tl.linearize(actuated, actuated_op, outputs=["bogus"])
    with pytest.raises(tl.UnknownNameError, match="nothing"):
        tl.linearize(actuated, actuated_op, drop=["nothing"])


def test_named_signals_and_selection(actuated, actuated_op):
    model = actuated
    full = tl.linearize(model, actuated_op)
    assert full.state_labels == list(model.state_names)
    assert full.input_labels == list(model.input_names)
    assert full.output_labels == list(model.output_names)
    assert full.name == "balloon_lin"
    part = tl.linearize(model, actuated_op, inputs=["slider.tau", "balloon_com_Fy"],
                        outputs=["slider_q", "pendulum2_q"], name="sub")
    assert part.input_labels == ["slider_tau", "balloon_com_Fy"]
    assert part.output_labels == ["slider_q", "pendulum2_q"]
    assert part.name == "sub"
    cols = [model.input_names.index(n) for n in part.input_labels]
    np.testing.assert_array_equal(part.B, full.B[:, cols])
    rows = [model.output_names.index(n) for n in part.output_labels]
    np.testing.assert_array_equal(part.C, full.C[rows])


# ---------------------------------------------------------------------------- matrices, sweeps
def _balloon_hanging() -> tuple[tl.Model, tl.OperatingPoint]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tl.TitopWarning)
        model = tl.load_model(Path(__file__).resolve().parent.parent / "examples" / "balloon.toml")
    free = ["balloon.phi", "balloon.theta", "slider.q", "pendulum1.q", "pendulum2.q"]
    op = tl.trim(model, free, guess={"pendulum1.q": 0.2, "pendulum2.q": -0.2})
    return model, op


def test_linear_matrices_are_the_statespace_of_linearize():
    from titop_lpv.analysis.linearize import linear_matrices

    model, op = _balloon_hanging()
    for opts in ({}, {"drop_integrators": True, "outputs": ["pendulum2_q"]},
                 {"drop": ["balloon_x", "balloon_psi"], "drift": True}):
        sys = tl.linearize(model, op, **opts)
        lin = linear_matrices(model, op, **opts)
        for M, name in ((lin.A, "A"), (lin.B, "B"), (lin.C, "C"), (lin.D, "D")):
            np.testing.assert_array_equal(M, getattr(sys, name))
        assert list(lin.state_names) == sys.state_labels
        assert list(lin.input_names) == sys.input_labels
        assert list(lin.output_names) == sys.output_labels
        assert lin.dropped_states == sys.dropped_states
        assert lin.dropped_outputs == sys.dropped_outputs


def test_sweep_linearises_every_point_as_linearize_does():
    """The sweep linearises each point right after its trim (2-D grid: a snake walk); every
    system equals ``linearize`` at the same operating point onto the grid's state set."""
    model, _ = _balloon_hanging()
    free = ["balloon.phi", "balloon.theta", "slider.q", "pendulum1.q", "pendulum2.q"]
    grid = tl.linearize_sweep(model, {"k": [30.0, 60.0, 90.0], "ds": [2.0, 5.0]}, free,
                              guess={"pendulum1.q": 0.2, "pendulum2.q": -0.2},
                              inputs=["slider_tau"], drop_integrators=True, progress=False)
    first = tl.linearize(model, grid.sweep[0, 0], ["slider_tau"], drop_integrators=True)
    assert grid.state_names == tuple(first.state_labels)
    for idx in np.ndindex(*grid.shape):
        ref = tl.linearize(model, grid.sweep[idx], list(grid.input_names),
                           list(grid.output_names), states=list(grid.state_names))
        sys = grid[idx]
        for name in "ABCD":
            want = getattr(ref, name)  # blocks of points: the same equations in another order
            np.testing.assert_allclose(getattr(sys, name), want, rtol=0,
                                       atol=1e-12 * max(1.0, float(np.max(np.abs(want)))))
        assert sys.dropped_states == first.dropped_states
    assert grid[2, 1].A[grid.state_names.index("slider_qd"),
                        grid.state_names.index("slider_q")] != grid[0, 0].A[
        grid.state_names.index("slider_qd"), grid.state_names.index("slider_q")]
