"""Tests of titop_lpv.spatial.euler: DCMs, inverse Euler angles, rate kinematics, complex safety."""

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from titop_lpv.spatial.euler import (
    SEQUENCES,
    angular_velocity_matrix,
    atan2,
    check_sequence,
    dcm_to_euler,
    elementary_rotation,
    euler_rates_matrix,
    euler_to_dcm,
    inv3,
)

AXES = "XYZ"
H_CS = 1e-30


def _random_angles(rng, seq, shape, margin=0.05):
    """Random Θ = (φ, θ, ψ) inside the principal ranges, away from gimbal lock by `margin`."""
    phi = rng.uniform(-np.pi, np.pi, shape)
    psi = rng.uniform(-np.pi, np.pi, shape)
    if seq[0] != seq[2]:
        the = rng.uniform(-np.pi / 2 + margin, np.pi / 2 - margin, shape)
    else:
        the = rng.uniform(margin, np.pi - margin, shape)
    return np.stack((phi, the, psi), axis=-1)


def _skew(w):
    z = np.zeros_like(w[..., 0])
    return np.stack(
        (
            np.stack((z, -w[..., 2], w[..., 1]), -1),
            np.stack((w[..., 2], z, -w[..., 0]), -1),
            np.stack((-w[..., 1], w[..., 0], z), -1),
        ),
        -2,
    )


def test_sequences_and_check():
    assert len(SEQUENCES) == 12 and len(set(SEQUENCES)) == 12
    assert check_sequence("321") == (2, 1, 0)
    assert check_sequence("313") == (2, 0, 2)
    with pytest.raises(ValueError, match="322"):
        check_sequence("322")
    with pytest.raises(ValueError, match="123"):  # lists the valid ones
        check_sequence("xyz")


def test_elementary_rotations():
    a = 0.3
    c, s = np.cos(a), np.sin(a)
    Rx = np.array([[1, 0, 0], [0, c, -s], [0, s, c]])
    Ry = np.array([[c, 0, s], [0, 1, 0], [-s, 0, c]])
    Rz = np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])
    for axis, R in enumerate((Rx, Ry, Rz)):
        np.testing.assert_allclose(elementary_rotation(axis, a), R, atol=1e-15)
    assert elementary_rotation(2, np.zeros((4, 2))).shape == (4, 2, 3, 3)


def test_321_by_hand():
    phi, the, psi = 0.4, -0.7, 2.1
    P = euler_to_dcm([phi, the, psi], "321")
    ref = elementary_rotation(2, psi) @ elementary_rotation(1, the) @ elementary_rotation(0, phi)
    np.testing.assert_allclose(P, ref, atol=1e-15)
    # explicit aerospace matrix, first column and last row
    cf, sf, ct, st, cp, sp = (
        np.cos(phi),
        np.sin(phi),
        np.cos(the),
        np.sin(the),
        np.cos(psi),
        np.sin(psi),
    )
    np.testing.assert_allclose(P[:, 0], [cp * ct, sp * ct, -st], atol=1e-15)
    np.testing.assert_allclose(P[2, :], [-st, ct * sf, ct * cf], atol=1e-15)


@pytest.mark.parametrize("seq", SEQUENCES)
def test_dcm_orthonormal_and_scipy(seq):
    rng = np.random.default_rng(1)
    th = _random_angles(rng, seq, (7, 5), margin=0.0)
    P = euler_to_dcm(th, seq)
    assert P.shape == (7, 5, 3, 3)
    np.testing.assert_allclose(
        P @ np.swapaxes(P, -1, -2), np.broadcast_to(np.eye(3), P.shape), atol=1e-14
    )
    np.testing.assert_allclose(np.linalg.det(P), 1.0, atol=1e-14)
    # independent reference: scipy intrinsic rotations (upper case), angles (ψ, θ, φ)
    upper = "".join(AXES[int(c) - 1] for c in seq)
    ref = Rotation.from_euler(upper, th.reshape(-1, 3)[:, ::-1]).as_matrix()
    np.testing.assert_allclose(P.reshape(-1, 3, 3), ref, atol=1e-14)


@pytest.mark.parametrize("seq", SEQUENCES)
def test_round_trips(seq):
    rng = np.random.default_rng(2)
    th = _random_angles(rng, seq, (7, 5))
    back = dcm_to_euler(euler_to_dcm(th, seq), seq)
    assert back.shape == (7, 5, 3)
    np.testing.assert_allclose(back, th, rtol=0, atol=1e-12)

    P = Rotation.random(50, random_state=3).as_matrix()
    th2 = dcm_to_euler(P, seq)
    np.testing.assert_allclose(euler_to_dcm(th2, seq), P, rtol=0, atol=1e-13)
    # ranges
    assert np.all(np.abs(th2[:, [0, 2]]) <= np.pi)
    if seq[0] != seq[2]:
        assert np.all(np.abs(th2[:, 1]) <= np.pi / 2)
    else:
        assert np.all((th2[:, 1] >= 0) & (th2[:, 1] <= np.pi))


def test_middle_angle_accurate_near_gimbal_lock():
    th = np.array([0.3, np.pi / 2 - 1e-7, -0.2])
    back = dcm_to_euler(euler_to_dcm(th, "321"), "321")
    assert abs(back[1] - th[1]) < 1e-14


@pytest.mark.parametrize("seq", SEQUENCES)
def test_rates_matrix(seq):
    rng = np.random.default_rng(4)
    th = _random_angles(rng, seq, (6,), margin=0.2)
    w = rng.standard_normal((6, 3))
    G = euler_rates_matrix(th, seq)
    B = angular_velocity_matrix(th, seq)
    np.testing.assert_allclose(B @ G, np.broadcast_to(np.eye(3), G.shape), atol=1e-12)
    np.testing.assert_allclose(G @ B, np.broadcast_to(np.eye(3), G.shape), atol=1e-12)
    np.testing.assert_allclose(G, inv3(B), atol=1e-12)
    # d/dt P(Θ(t)) with Θ̇ = Γ ω must equal P (ω×)
    h = 1e-6
    thd = np.einsum("...ij,...j->...i", G, w)
    dP = (euler_to_dcm(th + h * thd, seq) - euler_to_dcm(th - h * thd, seq)) / (2 * h)
    np.testing.assert_allclose(dP, euler_to_dcm(th, seq) @ _skew(w), atol=1e-8)


@pytest.mark.parametrize("seq", SEQUENCES)
def test_complex_step_round_trip(seq):
    rng = np.random.default_rng(5)
    th = _random_angles(rng, seq, (4,), margin=0.1)
    for k in range(3):
        thc = th + 1j * H_CS * np.eye(3)[k]
        out = dcm_to_euler(euler_to_dcm(thc, seq), seq)
        assert np.iscomplexobj(out)
        np.testing.assert_allclose(out.real, th, atol=1e-12)
        np.testing.assert_allclose(
            out.imag / H_CS, np.broadcast_to(np.eye(3)[k], th.shape), atol=1e-12
        )


@pytest.mark.parametrize("seq", ["321", "313"])
def test_complex_dtypes_and_rates_derivative(seq):
    rng = np.random.default_rng(6)
    th = _random_angles(rng, seq, (3,), margin=0.2)
    thc = th.astype(complex)
    for f in (euler_to_dcm, euler_rates_matrix, angular_velocity_matrix):
        assert np.iscomplexobj(f(thc, seq))
        assert f(th, seq).dtype == np.float64
    assert euler_to_dcm(np.zeros(3, dtype=int), seq).dtype == np.float64
    assert np.iscomplexobj(inv3(np.eye(3, dtype=complex)))
    # complex-step derivative of Γ vs central differences
    for k in range(3):
        e = np.eye(3)[k]
        dG_cs = euler_rates_matrix(th + 1j * H_CS * e, seq).imag / H_CS
        h = 1e-6
        Gp, Gm = euler_rates_matrix(th + h * e, seq), euler_rates_matrix(th - h * e, seq)
        dG_fd = (Gp - Gm) / (2 * h)
        np.testing.assert_allclose(dG_cs, dG_fd, atol=1e-7)


def test_atan2():
    rng = np.random.default_rng(7)
    y, x = rng.standard_normal((2, 100))
    np.testing.assert_array_equal(atan2(y, x), np.arctan2(y, x))
    assert atan2(y, x).dtype == np.float64
    dy, dx = rng.standard_normal((2, 100))
    out = atan2(y + 1j * H_CS * dy, x + 1j * H_CS * dx)
    np.testing.assert_array_equal(out.real, np.arctan2(y, x))
    np.testing.assert_allclose(out.imag / H_CS, (x * dy - y * dx) / (x**2 + y**2), rtol=1e-14)
    # mixed real / complex inputs
    assert np.iscomplexobj(atan2(y, x + 0j))


def test_inv3():
    rng = np.random.default_rng(8)
    A = rng.standard_normal((4, 6, 3, 3)) + 3 * np.eye(3)
    np.testing.assert_allclose(inv3(A), np.linalg.inv(A), rtol=1e-12, atol=1e-12)
    Ac = A + 1j * rng.standard_normal(A.shape)
    Ainv = inv3(Ac)
    assert np.iscomplexobj(Ainv)
    np.testing.assert_allclose(Ainv, np.linalg.inv(Ac), rtol=1e-12, atol=1e-12)
    with pytest.raises(ValueError):
        inv3(np.eye(2))
