"""Euler angles, direction cosine matrices and angular-rate kinematics.

Convention (docs/design.md): the DCM ``P_{b/i}`` maps body-frame coordinates to inertial ones,
``[v]_Ri = P_{b/i} [v]_Rb``. A sequence ``"ijk"`` (1=x, 2=y, 3=z) lists the axes of the three
rotations in the order they are applied from the inertial frame to the body frame:
``P_{b/i} = R_i(ψ) R_j(θ) R_k(φ)`` with ``R_a`` the elementary *active* rotations, so that
``"321"`` is the aerospace yaw-pitch-roll ``Rz(ψ) Ry(θ) Rx(φ)``. The angle vector is always
ordered ``Θ = (φ, θ, ψ)`` (third, second, first rotation), the project's state order
``b_phi b_theta b_psi``. ``ω`` is the angular velocity of the body w.r.t. the inertial frame in
body components (``Ṗ_{b/i} = P_{b/i} (ω×)``); ``ω = B(Θ) Θ̇`` and ``Θ̇ = Γ(Θ) ω``, Γ = B⁻¹.

Every function is vectorised over leading axes and complex-step safe (analytic operations only,
no ``abs``/``norm``/value branching): complex inputs give complex outputs.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = [
    "SEQUENCES",
    "angular_velocity_matrix",
    "atan2",
    "check_sequence",
    "dcm_to_euler",
    "elementary_rotation",
    "euler_rates_matrix",
    "euler_to_dcm",
    "inv3",
]

SEQUENCES: tuple[str, ...] = (
    "123", "132", "213", "231", "312", "321",
    "121", "131", "212", "232", "313", "323",
)  # fmt: skip


def check_sequence(seq: str) -> tuple[int, int, int]:
    """Validate an Euler sequence and return its 0-based axes.

    Parameters
    ----------
    seq : str
        One of :data:`SEQUENCES` (e.g. ``"321"``); 1=x, 2=y, 3=z, in application order.

    Returns
    -------
    tuple of int
        ``(i, j, k)`` axes (0=x, 1=y, 2=z) of the first, second and third rotation.

    Raises
    ------
    ValueError
        If ``seq`` is not one of the 12 valid sequences.
    """
    if not isinstance(seq, str) or seq not in SEQUENCES:
        raise ValueError(
            f"invalid Euler sequence {seq!r}; valid sequences are: {', '.join(SEQUENCES)}"
        )
    i, j, k = (int(c) - 1 for c in seq)
    return i, j, k


def _parity(a: int, b: int, c: int) -> int:
    """+1 if (a, b, c) is a cyclic permutation of (0, 1, 2), -1 otherwise (distinct axes)."""
    return 1 if (b - a) % 3 == 1 else -1


def _as_float(x: ArrayLike) -> NDArray:
    """Array view of ``x`` with an inexact dtype (ints are promoted to float64)."""
    x = np.asarray(x)
    if not np.issubdtype(x.dtype, np.inexact):
        x = x.astype(np.float64)
    return x


def _as_angles(theta: ArrayLike) -> NDArray:
    theta = _as_float(theta)
    if theta.ndim < 1 or theta.shape[-1] != 3:
        raise ValueError(f"Euler angles must have shape (..., 3), got {theta.shape}")
    return theta


def atan2(y: ArrayLike, x: ArrayLike) -> NDArray:
    """Complex-step-safe four-quadrant arctangent.

    Parameters
    ----------
    y, x : array_like
        Ordinates and abscissae (broadcastable).

    Returns
    -------
    ndarray
        ``np.arctan2(y, x)`` in rad, in (-π, π], for real inputs. For complex inputs,
        ``arctan2(y.real, x.real) + 1j (x.real y.imag - y.real x.imag) / (x.real² + y.real²)``,
        i.e. the first-order Taylor expansion, exact for the complex step.
    """
    y = _as_float(y)
    x = _as_float(x)
    if not (np.iscomplexobj(y) or np.iscomplexobj(x)):
        return np.arctan2(y, x)
    yr, yi, xr, xi = y.real, y.imag, x.real, x.imag
    return np.arctan2(yr, xr) + 1j * ((xr * yi - yr * xi) / (xr * xr + yr * yr))


def inv3(A: ArrayLike) -> NDArray:
    """Closed-form inverse of 3×3 matrices (adjugate / determinant), complex-safe.

    Parameters
    ----------
    A : array_like, shape (..., 3, 3)
        Matrices to invert (no check of singularity: a zero determinant gives inf/nan).

    Returns
    -------
    ndarray, shape (..., 3, 3)
        ``A⁻¹``, same (inexact) dtype as ``A``.
    """
    A = _as_float(A)
    if A.shape[-2:] != (3, 3):
        raise ValueError(f"inv3 expects shape (..., 3, 3), got {A.shape}")
    r0, r1, r2 = A[..., 0, :], A[..., 1, :], A[..., 2, :]
    c0, c1, c2 = _cross(r1, r2), _cross(r2, r0), _cross(r0, r1)
    det = np.sum(r0 * c0, axis=-1)
    return np.stack((c0, c1, c2), axis=-1) / det[..., None, None]


def _cross(a: NDArray, b: NDArray) -> NDArray:
    """Cross product of (..., 3) arrays, written out (analytic, complex-safe)."""
    return np.stack(
        (
            a[..., 1] * b[..., 2] - a[..., 2] * b[..., 1],
            a[..., 2] * b[..., 0] - a[..., 0] * b[..., 2],
            a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0],
        ),
        axis=-1,
    )


def elementary_rotation(axis: int, angle: ArrayLike) -> NDArray:
    """Elementary active rotation matrix about a coordinate axis.

    Parameters
    ----------
    axis : int
        0 (x), 1 (y) or 2 (z).
    angle : array_like, shape (...)
        Rotation angle in rad (right-hand rule).

    Returns
    -------
    ndarray, shape (..., 3, 3)
        ``R_axis(angle)``, e.g. ``R_z(a) = [[c, -s, 0], [s, c, 0], [0, 0, 1]]``.
    """
    if axis not in (0, 1, 2):
        raise ValueError(f"axis must be 0, 1 or 2, got {axis!r}")
    angle = _as_float(angle)
    c, s = np.cos(angle), np.sin(angle)
    R = np.zeros((*angle.shape, 3, 3), dtype=c.dtype)
    a, b = (axis + 1) % 3, (axis + 2) % 3
    R[..., axis, axis] = 1.0
    R[..., a, a] = c
    R[..., a, b] = -s
    R[..., b, a] = s
    R[..., b, b] = c
    return R


def euler_to_dcm(theta: ArrayLike, seq: str) -> NDArray:
    """Direction cosine matrix ``P_{b/i}`` from Euler angles.

    Parameters
    ----------
    theta : array_like, shape (..., 3)
        Angles ``Θ = (φ, θ, ψ)`` in rad (φ: third rotation, ψ: first rotation).
    seq : str
        Euler sequence ``"ijk"`` (see :data:`SEQUENCES`).

    Returns
    -------
    ndarray, shape (..., 3, 3)
        ``P_{b/i} = R_i(ψ) R_j(θ) R_k(φ)``, mapping body (Rb) to inertial (Ri) coordinates.

    Examples
    --------
    A heading ψ = 90° about z (sequence ``"321"``: yaw, pitch, roll) maps the body x axis
    onto the inertial y axis:

    >>> P = euler_to_dcm([0.0, 0.0, np.pi / 2], "321")
    >>> (np.round(P, 6) + 0.0).tolist()
    [[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]]
    >>> euler_to_dcm(np.zeros((5, 3)), "213").shape  # a batch of angles
    (5, 3, 3)
    """
    i, j, k = check_sequence(seq)
    theta = _as_angles(theta)
    return (
        elementary_rotation(i, theta[..., 2])
        @ elementary_rotation(j, theta[..., 1])
        @ elementary_rotation(k, theta[..., 0])
    )


def dcm_to_euler(P: ArrayLike, seq: str) -> NDArray:
    """Euler angles of a direction cosine matrix (inverse of :func:`euler_to_dcm`).

    Parameters
    ----------
    P : array_like, shape (..., 3, 3)
        Rotation matrices ``P_{b/i}`` (body to inertial coordinates).
    seq : str
        Euler sequence ``"ijk"`` (see :data:`SEQUENCES`).

    Returns
    -------
    ndarray, shape (..., 3)
        ``Θ = (φ, θ, ψ)`` in rad with φ, ψ in (-π, π]; θ in [-π/2, π/2] for Tait–Bryan
        sequences (i, j, k distinct) and θ in [0, π] for proper Euler sequences (i == k).

    Notes
    -----
    At gimbal lock (cos θ = 0 for Tait–Bryan, sin θ = 0 for proper Euler) only φ ± ψ is
    defined; the split returned is then arbitrary and the complex-step derivative is
    singular. The middle angle uses an atan2 form that stays accurate near the singularity.

    Examples
    --------
    >>> P = euler_to_dcm([0.1, -0.2, 0.3], "213")
    >>> [round(angle, 6) for angle in dcm_to_euler(P, "213").tolist()]
    [0.1, -0.2, 0.3]
    """
    i, j, k = check_sequence(seq)
    P = _as_float(P)
    if P.shape[-2:] != (3, 3):
        raise ValueError(f"dcm_to_euler expects shape (..., 3, 3), got {P.shape}")
    if i != k:  # Tait–Bryan: row i = [cθcφ, -ε cθ sφ, ε sθ] in (i, j, k) columns
        e = _parity(i, j, k)
        the = atan2(e * P[..., i, k], np.sqrt(P[..., i, i] ** 2 + P[..., i, j] ** 2))
        phi = atan2(-e * P[..., i, j], P[..., i, i])
        psi = atan2(-e * P[..., j, k], P[..., k, k])
    else:  # proper Euler "iji", l = remaining axis, ε = parity(i, j, l)
        l = 3 - i - j  # noqa: E741
        e = _parity(i, j, l)
        the = atan2(np.sqrt(P[..., i, j] ** 2 + P[..., i, l] ** 2), P[..., i, i])
        phi = atan2(P[..., i, j], e * P[..., i, l])
        psi = atan2(P[..., j, i], -e * P[..., l, i])
    return np.stack((phi, the, psi), axis=-1)


def _rate_matrices(theta: ArrayLike, seq: str, inverse: bool) -> NDArray:
    """Closed form of B (``inverse=False``) or Γ = B⁻¹ (``inverse=True``)."""
    i, j, k = check_sequence(seq)
    theta = _as_angles(theta)
    phi, the = theta[..., 0], theta[..., 1]
    cf, sf, ct, st = np.cos(phi), np.sin(phi), np.cos(the), np.sin(the)
    M = np.zeros((*theta.shape, 3), dtype=cf.dtype)
    F, T, S = 0, 1, 2  # rows/cols of (φ, θ, ψ)
    if i != k:
        # ω_i = cθcφ ψ̇ + ε sφ θ̇ ;  ω_j = -ε cθ sφ ψ̇ + cφ θ̇ ;  ω_k = ε sθ ψ̇ + φ̇
        e = _parity(i, j, k)
        if not inverse:
            M[..., i, S], M[..., i, T] = ct * cf, e * sf
            M[..., j, S], M[..., j, T] = -e * ct * sf, cf
            M[..., k, S], M[..., k, F] = e * st, 1.0
        else:
            tt = st / ct
            M[..., S, i], M[..., S, j] = cf / ct, -e * sf / ct
            M[..., T, i], M[..., T, j] = e * sf, cf
            M[..., F, i], M[..., F, j], M[..., F, k] = -e * tt * cf, tt * sf, 1.0
    else:
        # ω_i = cθ ψ̇ + φ̇ ;  ω_j = sθ sφ ψ̇ + cφ θ̇ ;  ω_l = ε sθ cφ ψ̇ - ε sφ θ̇
        l = 3 - i - j  # noqa: E741
        e = _parity(i, j, l)
        if not inverse:
            M[..., i, S], M[..., i, F] = ct, 1.0
            M[..., j, S], M[..., j, T] = st * sf, cf
            M[..., l, S], M[..., l, T] = e * st * cf, -e * sf
        else:
            M[..., S, j], M[..., S, l] = sf / st, e * cf / st
            M[..., T, j], M[..., T, l] = cf, -e * sf
            ctt = ct / st
            M[..., F, i], M[..., F, j], M[..., F, l] = 1.0, -ctt * sf, -e * ctt * cf
    return M


def angular_velocity_matrix(theta: ArrayLike, seq: str) -> NDArray:
    """Matrix ``B(Θ)`` such that ``ω = B(Θ) Θ̇``.

    Parameters
    ----------
    theta : array_like, shape (..., 3)
        Angles ``Θ = (φ, θ, ψ)`` in rad.
    seq : str
        Euler sequence ``"ijk"`` (see :data:`SEQUENCES`).

    Returns
    -------
    ndarray, shape (..., 3, 3)
        ``B``; rows are body axes (x, y, z) of ω (rad/s, body frame w.r.t. inertial frame,
        body components), columns are ``(φ̇, θ̇, ψ̇)``. For ``"ijk"``,
        ``ω = ψ̇ R_k(φ)ᵀ R_j(θ)ᵀ e_i + θ̇ R_k(φ)ᵀ e_j + φ̇ e_k``. Defined everywhere.
    """
    return _rate_matrices(theta, seq, inverse=False)


def euler_rates_matrix(theta: ArrayLike, seq: str) -> NDArray:
    """Matrix ``Γ(Θ)`` such that ``Θ̇ = Γ(Θ) ω`` (closed form of ``B(Θ)⁻¹``).

    Parameters
    ----------
    theta : array_like, shape (..., 3)
        Angles ``Θ = (φ, θ, ψ)`` in rad.
    seq : str
        Euler sequence ``"ijk"`` (see :data:`SEQUENCES`).

    Returns
    -------
    ndarray, shape (..., 3, 3)
        ``Γ``; rows ``(φ̇, θ̇, ψ̇)``, columns the body components (x, y, z) of ω, the angular
        velocity of the body w.r.t. the inertial frame (rad/s).

    Notes
    -----
    ``det B = ±cos θ`` (Tait–Bryan) or ``±sin θ`` (proper Euler): Γ is singular (inf/nan
    entries) at gimbal lock, cos θ = 0 resp. sin θ = 0.
    """
    return _rate_matrices(theta, seq, inverse=True)
