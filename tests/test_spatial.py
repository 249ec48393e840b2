"""Tests of :mod:`titop_lpv.spatial.algebra`, the dual-vector algebra of the nonlinear TITOP model.

What is checked against what
----------------------------
* ``skew``/``cross`` against ``numpy.cross`` (and antisymmetry of ``skew``).
* ``tau`` against rigid-body kinematics written from point positions (the velocity field
  ``v_X = v_Y + ω × YX`` and the torque transport ``T_Y = T_X + YX × F``), the power
  invariance ``W_Xᵀ x'_X = W_Yᵀ x'_Y``, the group law ``τ(a) τ(b) = τ(a + b)``, and
  ``transport_twist``/``transport_wrench`` against the matrices.
* ``dynamic_model`` against ``τ_BPᵀ diag(m 1₃, I_B) τ_BP`` (eq. 4), against the expanded
  form of eq. (2), and against the kinetic energy of a rigid body written at its centre of
  mass (König's theorem).
* ``coriolis`` against ``−twist_cross(x')ᵀ``, the motion cross product formula, and the
  fact that velocity-product terms do no work (``x'ᵀ C(x') D x' = 0``).
* Newton–Euler at the body origin (eq. 7) against the classic Newton–Euler equations at the
  centre of mass (``m a_B = F + m g``, ``I_B ω̇ + ω × I_B ω = T_B``) moved to ``P``.
* ``revolute_dcm`` against ``scipy.spatial.transform.Rotation.from_rotvec`` composed with
  ``P0``, and its complex-step derivative against ``P0 exp(q K) K``.
* ``transport_motion`` (Definition 1, eq. 14) on a hand-computed example and against the
  motion of a rigid body.
* Batch shapes (leading axes, broadcasting) and complex safety of every function.
"""

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from titop_lpv.spatial.algebra import (
    coriolis,
    cross,
    dynamic_model,
    revolute_dcm,
    rot6,
    skew,
    tau,
    transport_motion,
    transport_twist,
    transport_wrench,
    twist_cross,
    unit,
)

H_CS = 1e-30  # complex-step size


def _mv(A, v):
    return np.einsum("...ij,...j->...i", A, v)


def _spd_inertia(rng, shape=()):
    """Random symmetric positive definite inertia tensors, shape (*shape, 3, 3)."""
    a = rng.normal(size=(*shape, 3, 3))
    return a @ np.swapaxes(a, -1, -2) + 0.5 * np.eye(3)


# ----------------------------------------------------------------------------- skew / cross
def test_skew_is_the_cross_product_matrix():
    rng = np.random.default_rng(0)
    v = rng.normal(size=(4, 5, 3))
    u = rng.normal(size=(4, 5, 3))
    S = skew(v)
    assert S.shape == (4, 5, 3, 3)
    np.testing.assert_allclose(_mv(S, u), np.cross(v, u), rtol=0, atol=1e-14)
    np.testing.assert_allclose(cross(v, u), np.cross(v, u), rtol=0, atol=1e-14)
    np.testing.assert_array_equal(S, -np.swapaxes(S, -1, -2))
    # broadcasting of cross: one vector against a stack
    np.testing.assert_allclose(cross(v[0, 0], u), np.cross(v[0, 0], u), rtol=0, atol=1e-14)


def test_unit_normalises_over_last_axis():
    rng = np.random.default_rng(1)
    v = rng.normal(size=(6, 3)) * rng.uniform(0.1, 10.0, (6, 1))
    np.testing.assert_allclose(unit(v), v / np.linalg.norm(v, axis=-1, keepdims=True),
                               rtol=1e-15, atol=1e-15)


# ----------------------------------------------------------------------------- tau
def test_tau_moves_twists_like_a_rigid_velocity_field():
    """x'_X = τ_XY x'_Y with r = XY: v_X = v_Y + ω × YX (points given by their positions)."""
    rng = np.random.default_rng(2)
    X, Y = rng.normal(size=(2, 10, 3))
    v_Y, w = rng.normal(size=(2, 10, 3))
    twist_Y = np.concatenate((v_Y, w), axis=-1)
    r = Y - X  # the vector XY
    expected = np.concatenate((v_Y + np.cross(w, X - Y), w), axis=-1)
    T = tau(r)
    assert T.shape == (10, 6, 6)
    np.testing.assert_allclose(_mv(T, twist_Y), expected, rtol=0, atol=1e-13)
    np.testing.assert_allclose(transport_twist(twist_Y, r), expected, rtol=0, atol=1e-13)


def test_tau_transpose_moves_wrenches_and_preserves_power():
    """W_Y = τ_XYᵀ W_X: same force, T_Y = T_X + YX × F; and W_Xᵀ x'_X = W_Yᵀ x'_Y."""
    rng = np.random.default_rng(3)
    X, Y = rng.normal(size=(2, 10, 3))
    F, T_X = rng.normal(size=(2, 10, 3))
    W_X = np.concatenate((F, T_X), axis=-1)
    r = Y - X
    W_Y_expected = np.concatenate((F, T_X + np.cross(X - Y, F)), axis=-1)
    W_Y = _mv(np.swapaxes(tau(r), -1, -2), W_X)
    np.testing.assert_allclose(W_Y, W_Y_expected, rtol=0, atol=1e-13)
    np.testing.assert_allclose(transport_wrench(W_X, r), W_Y_expected, rtol=0, atol=1e-13)

    twist_Y = rng.normal(size=(10, 6))
    twist_X = transport_twist(twist_Y, r)
    power_X = np.sum(W_X * twist_X, axis=-1)
    power_Y = np.sum(W_Y * twist_Y, axis=-1)
    np.testing.assert_allclose(power_X, power_Y, rtol=0, atol=1e-13)


def test_tau_group_law_and_inverse():
    rng = np.random.default_rng(4)
    a, b = rng.normal(size=(2, 7, 3))
    np.testing.assert_allclose(tau(a) @ tau(b), tau(a + b), rtol=0, atol=1e-14)
    np.testing.assert_allclose(tau(a) @ tau(-a), np.broadcast_to(np.eye(6), (7, 6, 6)),
                               rtol=0, atol=1e-14)


def test_rot6_changes_coordinates_of_both_halves():
    rng = np.random.default_rng(5)
    P = Rotation.random(8, random_state=rng).as_matrix()
    dual = rng.normal(size=(8, 6))
    out = _mv(rot6(P), dual)
    np.testing.assert_allclose(out[:, :3], _mv(P, dual[:, :3]), rtol=0, atol=1e-15)
    np.testing.assert_allclose(out[:, 3:], _mv(P, dual[:, 3:]), rtol=0, atol=1e-15)
    # moving a twist commutes with rotating it: diag(P,P) τ(r) = τ(P r) diag(P,P)
    r = rng.normal(size=(8, 3))
    np.testing.assert_allclose(rot6(P) @ tau(r), tau(_mv(P, r)) @ rot6(P), rtol=0, atol=1e-14)


# ----------------------------------------------------------------------------- dynamic model
def test_dynamic_model_equals_eq4_and_eq2():
    rng = np.random.default_rng(6)
    shape = (3, 4)
    m = rng.uniform(0.5, 5.0, shape)
    I_B = _spd_inertia(rng, shape)
    PB = rng.normal(size=(*shape, 3))
    D = dynamic_model(m, I_B, PB)
    assert D.shape == (*shape, 6, 6)

    # eq. (4): D_P = τ_BPᵀ diag(m 1₃, I_B) τ_BP, with BP = −PB
    D_B = np.zeros((*shape, 6, 6))
    D_B[..., :3, :3] = m[..., None, None] * np.eye(3)
    D_B[..., 3:, 3:] = I_B
    t_BP = tau(-PB)
    np.testing.assert_allclose(D, np.swapaxes(t_BP, -1, -2) @ D_B @ t_BP, rtol=0, atol=1e-12)

    # eq. (2) expanded: [[m 1, −m (*PB)], [m (*PB), I_B − m (*PB)²]]
    S = skew(PB)
    mm = m[..., None, None]
    expanded = np.block([[mm * np.eye(3) + 0 * S, -mm * S], [mm * S, I_B - mm * S @ S]])
    np.testing.assert_allclose(D, expanded, rtol=0, atol=1e-12)
    np.testing.assert_allclose(D, np.swapaxes(D, -1, -2), rtol=0, atol=1e-13)


def test_dynamic_model_moves_between_points():
    """Eq. (13): D_X = τ_PXᵀ D_P τ_PX, and it is the body's model written at X (XB = PB − PX)."""
    rng = np.random.default_rng(17)
    m = rng.uniform(0.5, 5.0, 8)
    I_B = _spd_inertia(rng, (8,))
    PB, PX = rng.normal(size=(2, 8, 3))
    D_P = dynamic_model(m, I_B, PB)
    t_PX = tau(PX)
    np.testing.assert_allclose(np.swapaxes(t_PX, -1, -2) @ D_P @ t_PX,
                               dynamic_model(m, I_B, PB - PX), rtol=0, atol=1e-12)


def test_dynamic_model_gives_the_koenig_kinetic_energy():
    """½ x'ᵀ D_P x' = ½ m |v_B|² + ½ ωᵀ I_B ω with v_B = v_P + ω × PB."""
    rng = np.random.default_rng(7)
    m = rng.uniform(0.5, 5.0, 20)
    I_B = _spd_inertia(rng, (20,))
    PB = rng.normal(size=(20, 3))
    twist = rng.normal(size=(20, 6))
    v_P, w = twist[:, :3], twist[:, 3:]
    D = dynamic_model(m, I_B, PB)
    ke = 0.5 * np.sum(twist * _mv(D, twist), axis=-1)
    v_B = v_P + np.cross(w, PB)
    ke_ref = 0.5 * m * np.sum(v_B**2, axis=-1) + 0.5 * np.sum(w * _mv(I_B, w), axis=-1)
    np.testing.assert_allclose(ke, ke_ref, rtol=1e-13, atol=0)


# ----------------------------------------------------------------------------- coriolis
def test_coriolis_is_minus_transposed_motion_cross():
    rng = np.random.default_rng(8)
    twist = rng.normal(size=(5, 2, 6))
    C = coriolis(twist)
    X = twist_cross(twist)
    assert C.shape == X.shape == (5, 2, 6, 6)
    np.testing.assert_array_equal(C, -np.swapaxes(X, -1, -2))
    # motion cross product: [v1; w1] × [v2; w2] = [w1 × v2 + v1 × w2; w1 × w2]
    other = rng.normal(size=(5, 2, 6))
    v1, w1, v2, w2 = twist[..., :3], twist[..., 3:], other[..., :3], other[..., 3:]
    expected = np.concatenate((np.cross(w1, v2) + np.cross(v1, w2), np.cross(w1, w2)), -1)
    np.testing.assert_allclose(_mv(X, other), expected, rtol=0, atol=1e-14)
    # antisymmetry of the Lie bracket, and x' × x' = 0
    np.testing.assert_allclose(_mv(X, other), -_mv(twist_cross(other), twist), rtol=0,
                               atol=1e-14)
    np.testing.assert_allclose(_mv(X, twist), 0.0, rtol=0, atol=1e-14)


def test_velocity_product_terms_do_no_work():
    """x'ᵀ C(x') D_P x' = 0: the gyroscopic/Coriolis wrench is powerless."""
    rng = np.random.default_rng(9)
    D = dynamic_model(rng.uniform(0.5, 5.0, 30), _spd_inertia(rng, (30,)),
                      rng.normal(size=(30, 3)))
    twist = rng.normal(size=(30, 6))
    power = np.sum(twist * _mv(coriolis(twist) @ D, twist), axis=-1)
    np.testing.assert_allclose(power, 0.0, rtol=0, atol=1e-12)


def test_newton_euler_at_origin_matches_classic_newton_euler_at_com():
    """Eq. (7): W_P = D_P (ẋ' − [g; 0]) + C(x') D_P x' equals the com equations moved to P.

    ``ẋ' = [v̇_P; ω̇]`` is the derivative of the body-frame components, so the inertial
    acceleration of the centre of mass is ``a_B = v̇_P + ω × v_P + ω̇ × PB + ω × (ω × PB)``.
    """
    rng = np.random.default_rng(10)
    n = 25
    m = rng.uniform(0.5, 5.0, n)
    I_B = _spd_inertia(rng, (n,))
    PB = rng.normal(size=(n, 3))
    v_P, w, vd_P, wd, g = rng.normal(size=(5, n, 3))
    a_B = vd_P + np.cross(w, v_P) + np.cross(wd, PB) + np.cross(w, np.cross(w, PB))
    F = m[:, None] * (a_B - g)  # the external force besides gravity
    T_B = _mv(I_B, wd) + np.cross(w, _mv(I_B, w))
    W_B = np.concatenate((F, T_B), axis=-1)
    W_P_classic = transport_wrench(W_B, -PB)  # τ_BPᵀ W_B, r = BP
    np.testing.assert_allclose(W_P_classic[:, 3:], T_B + np.cross(PB, F), rtol=0, atol=1e-12)

    D = dynamic_model(m, I_B, PB)
    twist = np.concatenate((v_P, w), axis=-1)
    acc = np.concatenate((vd_P - g, wd), axis=-1)
    W_P = _mv(D, acc) + _mv(coriolis(twist) @ D, twist)
    np.testing.assert_allclose(W_P, W_P_classic, rtol=0, atol=1e-12)


# ----------------------------------------------------------------------------- revolute DCM
def test_revolute_dcm_matches_scipy_rotvec():
    rng = np.random.default_rng(11)
    n = 12
    P0 = Rotation.random(n, random_state=rng).as_matrix()
    axis = unit(rng.normal(size=(n, 3)))
    q = rng.uniform(-2 * np.pi, 2 * np.pi, n)
    expected = P0 @ Rotation.from_rotvec(q[:, None] * axis).as_matrix()
    P = revolute_dcm(P0, axis, q)
    assert P.shape == (n, 3, 3)
    np.testing.assert_allclose(P, expected, rtol=0, atol=1e-14)
    # a proper rotation: PᵀP = 1, det = +1
    np.testing.assert_allclose(np.swapaxes(P, -1, -2) @ P, np.broadcast_to(np.eye(3), P.shape),
                               rtol=0, atol=1e-14)
    np.testing.assert_allclose(np.linalg.det(P), 1.0, rtol=0, atol=1e-14)
    # the axis is invariant: P0ᵀ P r̃ = r̃
    np.testing.assert_allclose(_mv(np.swapaxes(P0, -1, -2) @ P, axis), axis, rtol=0, atol=1e-14)


def test_revolute_dcm_broadcasts_one_joint_over_many_angles():
    rng = np.random.default_rng(12)
    P0 = Rotation.random(random_state=rng).as_matrix()
    axis = unit(rng.normal(size=3))
    q = rng.uniform(-np.pi, np.pi, (4, 3))
    P = revolute_dcm(P0, axis, q)
    assert P.shape == (4, 3, 3, 3)
    for idx in np.ndindex(q.shape):
        ref = P0 @ Rotation.from_rotvec(q[idx] * axis).as_matrix()
        np.testing.assert_allclose(P[idx], ref, rtol=0, atol=1e-14)


def test_revolute_dcm_complex_step_derivative():
    """Im(P(q + ih))/h = P0 exp(q K) K = P(q) K (complex-step safe, exact to rounding)."""
    rng = np.random.default_rng(13)
    n = 10
    P0 = Rotation.random(n, random_state=rng).as_matrix()
    axis = unit(rng.normal(size=(n, 3)))
    q = rng.uniform(-np.pi, np.pi, n)
    Pc = revolute_dcm(P0, axis, q + 1j * H_CS)
    assert np.iscomplexobj(Pc)
    dP = Pc.imag / H_CS
    expected = P0 @ Rotation.from_rotvec(q[:, None] * axis).as_matrix() @ skew(axis)
    np.testing.assert_allclose(dP, expected, rtol=0, atol=1e-14)
    np.testing.assert_allclose(Pc.real, revolute_dcm(P0, axis, q), rtol=0, atol=0)


# ----------------------------------------------------------------------------- motion vectors
def test_transport_motion_hand_example():
    """A body spinning about its z axis at ω = 2 rad/s with ω̇ = 3 rad/s², origin P at rest
    at IP = (1, 2, 3), yawed by 90° about z; the port C is at PC = (1, 0, 0)."""
    P_bi = np.array([[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])
    theta = np.array([0.0, 0.0, np.pi / 2])
    m_P = np.concatenate(([0.0, 0.0, 0.0, 0.0, 0.0, 3.0],  # ẋ'_P = [v̇_P; ω̇]
                          [0.0, 0.0, 0.0, 0.0, 0.0, 2.0],  # x'_P = [v_P; ω]
                          [1.0, 2.0, 3.0], theta))
    m_C = transport_motion(m_P, np.array([1.0, 0.0, 0.0]), P_bi)
    expected = np.concatenate(([0.0, 3.0, 0.0, 0.0, 0.0, 3.0],  # ω̇ × PC = (0, 3, 0)
                               [0.0, 2.0, 0.0, 0.0, 0.0, 2.0],  # ω × PC = (0, 2, 0)
                               [1.0, 3.0, 3.0], theta))  # IP + P (1, 0, 0) = IP + (0, 1, 0)
    np.testing.assert_allclose(m_C, expected, rtol=0, atol=1e-15)


def test_transport_motion_matches_rigid_body_motion():
    """Random batch: twist/acceleration of C from the velocity field, position from P_{b/i}.

    The velocity of the point C in body components is ``v_C = v_P + ω × PC``; as ``PC`` is
    constant in the body frame, its body-frame derivative is ``v̇_P + ω̇ × PC``.
    """
    rng = np.random.default_rng(14)
    n = 9
    P_bi = Rotation.random(n, random_state=rng).as_matrix()
    m_P = rng.normal(size=(n, 18))
    PC = rng.normal(size=(n, 3))
    m_C = transport_motion(m_P, PC, P_bi)
    assert m_C.shape == (n, 18)
    vd, wd, v, w, IP, th = (m_P[:, k:k + 3] for k in range(0, 18, 3))
    np.testing.assert_allclose(m_C[:, 0:3], vd + np.cross(wd, PC), rtol=0, atol=1e-14)
    np.testing.assert_allclose(m_C[:, 3:6], wd, rtol=0, atol=0)
    np.testing.assert_allclose(m_C[:, 6:9], v + np.cross(w, PC), rtol=0, atol=1e-14)
    np.testing.assert_allclose(m_C[:, 9:12], w, rtol=0, atol=0)
    np.testing.assert_allclose(m_C[:, 12:15], IP + _mv(P_bi, PC), rtol=0, atol=1e-14)
    np.testing.assert_allclose(m_C[:, 15:18], th, rtol=0, atol=0)
    # transporting back with −PC from C gives m_P again (positions: C + P(−PC) = P)
    back = transport_motion(m_C, -PC, P_bi)
    np.testing.assert_allclose(back, m_P, rtol=0, atol=1e-13)


# ----------------------------------------------------------------------------- batches / complex
def test_every_function_keeps_batch_shapes():
    rng = np.random.default_rng(15)
    shape = (2, 3)
    v3 = rng.normal(size=(*shape, 3))
    v6 = rng.normal(size=(*shape, 6))
    R = Rotation.random(6, random_state=rng).as_matrix().reshape(*shape, 3, 3)
    m18 = rng.normal(size=(*shape, 18))
    assert skew(v3).shape == (*shape, 3, 3)
    assert cross(v3, v3).shape == (*shape, 3)
    assert unit(v3).shape == (*shape, 3)
    assert tau(v3).shape == (*shape, 6, 6)
    assert rot6(R).shape == (*shape, 6, 6)
    assert dynamic_model(rng.uniform(1, 2, shape), _spd_inertia(rng, shape), v3).shape == (
        *shape, 6, 6)
    assert coriolis(v6).shape == (*shape, 6, 6)
    assert twist_cross(v6).shape == (*shape, 6, 6)
    assert transport_twist(v6, v3).shape == (*shape, 6)
    assert transport_wrench(v6, v3).shape == (*shape, 6)
    assert transport_motion(m18, v3, R).shape == (*shape, 18)
    assert revolute_dcm(R, unit(v3), rng.normal(size=shape)).shape == (*shape, 3, 3)
    # broadcasting a single point against a stack of twists / wrenches
    r = v3[0, 0]
    np.testing.assert_allclose(transport_twist(v6, r), _mv(tau(r), v6), rtol=0, atol=1e-14)
    np.testing.assert_allclose(transport_wrench(v6, r), _mv(tau(r).T, v6), rtol=0, atol=1e-14)
    # a batch gives the same numbers as a loop over single items
    for idx in np.ndindex(shape):
        np.testing.assert_array_equal(tau(v3)[idx], tau(v3[idx]))
        np.testing.assert_array_equal(coriolis(v6)[idx], coriolis(v6[idx]))
        np.testing.assert_array_equal(transport_motion(m18, v3, R)[idx],
                                      transport_motion(m18[idx], v3[idx], R[idx]))


def test_complex_step_through_every_function():
    """Complex inputs give complex outputs whose imaginary part is the exact derivative."""
    rng = np.random.default_rng(16)
    n = 6
    m = rng.uniform(0.5, 5.0, n)
    I_B = _spd_inertia(rng, (n,))
    PB = rng.normal(size=(n, 3))
    twist = rng.normal(size=(n, 6))
    dPB = rng.normal(size=(n, 3))
    # dynamic_model is quadratic in PB: d/dε D(PB + ε dPB) has the closed form below
    Dc = dynamic_model(m, I_B, PB + 1j * H_CS * dPB)
    assert np.iscomplexobj(Dc)
    S, dS = skew(PB), skew(dPB)
    mm = m[:, None, None]
    dD = np.block([[0 * S, -mm * dS], [mm * dS, -mm * (dS @ S + S @ dS)]])
    np.testing.assert_allclose(Dc.imag / H_CS, dD, rtol=0, atol=1e-13)
    np.testing.assert_allclose(Dc.real, dynamic_model(m, I_B, PB), rtol=0, atol=0)
    # d/dm D = D(1, 0, PB) (mass-only part)
    Dm = dynamic_model(m + 1j * H_CS, I_B, PB)
    np.testing.assert_allclose(Dm.imag / H_CS, dynamic_model(np.ones(n), 0 * I_B, PB),
                               rtol=0, atol=1e-13)
    # tau, coriolis, twist_cross are linear: the imaginary part is the map of the direction
    np.testing.assert_allclose(tau(PB + 1j * H_CS * dPB).imag / H_CS, tau(dPB) - np.eye(6),
                               rtol=0, atol=1e-14)
    dtw = rng.normal(size=(n, 6))
    np.testing.assert_allclose(coriolis(twist + 1j * H_CS * dtw).imag / H_CS, coriolis(dtw),
                               rtol=0, atol=1e-14)
    np.testing.assert_allclose(twist_cross(twist + 1j * H_CS * dtw).imag / H_CS,
                               twist_cross(dtw), rtol=0, atol=1e-14)
    np.testing.assert_allclose(transport_twist(twist, PB + 1j * H_CS * dPB).imag / H_CS,
                               np.concatenate((np.cross(dPB, twist[:, 3:]), 0 * dPB), -1),
                               rtol=0, atol=1e-14)
    np.testing.assert_allclose(transport_wrench(twist, PB + 1j * H_CS * dPB).imag / H_CS,
                               np.concatenate((0 * dPB, -np.cross(dPB, twist[:, :3])), -1),
                               rtol=0, atol=1e-14)
    # unit: d/dε (v + ε d)/|v + ε d| = (d − u (u·d)) / |v|
    u0 = unit(PB)
    norm = np.linalg.norm(PB, axis=-1, keepdims=True)
    du = (dPB - u0 * np.sum(u0 * dPB, -1, keepdims=True)) / norm
    np.testing.assert_allclose(unit(PB + 1j * H_CS * dPB).imag / H_CS, du, rtol=0, atol=1e-14)
    # rot6 of a complex DCM stays complex
    Rc = revolute_dcm(np.eye(3), u0, rng.normal(size=n) + 1j * H_CS)
    assert np.iscomplexobj(rot6(Rc))
    np.testing.assert_array_equal(rot6(Rc)[:, 3:, 3:], Rc)
    # transport_motion with a complex attitude and offset
    m18 = rng.normal(size=(n, 18))
    out = transport_motion(m18, PB + 1j * H_CS * dPB, Rc.real)
    np.testing.assert_allclose(out.imag[:, 12:15] / H_CS, _mv(Rc.real, dPB), rtol=0, atol=1e-14)


@pytest.mark.parametrize("dtype", [np.float64, np.complex128])
def test_tau_dtype(dtype):
    r = np.array([1.0, -2.0, 0.5], dtype=dtype)
    assert tau(r).dtype == dtype
    assert skew(r).dtype == dtype
