"""Spatial algebra of the nonlinear TITOP model (Alazard, Sanfedino, Kassarian).

Dual vectors are ordered ``[linear; angular]``: a twist ``x' = [v_P; ω]``, a
spatial acceleration w.r.t. the body frame ``ẋ' = [v̇_P; ω̇]``, a wrench
``W = [F; T_P]``. All functions act on the last axes and broadcast over any
leading axes; they use only analytic operations, so complex-step perturbations
pass through them unchanged (no ``abs``, no branching on values).

Notation (paper, nomenclature and eqs. 2–14):

* ``skew(v)`` is ``(*v)``: ``skew(v) @ u == cross(v, u)``.
* ``tau(r)`` with ``r = XY`` is the kinematic model ``τ_XY``: it moves a twist from
  ``Y`` to ``X`` (``x'_X = τ_XY x'_Y``) and its transpose moves a wrench from ``X``
  to ``Y`` (``W_Y = τ_XYᵀ W_X``).
* ``dynamic_model(m, I_B, com)`` is ``D_P`` of eq. (4) at the body origin ``P`` with
  ``com = PB``.
* ``coriolis(x')`` is ``C(x')`` of eq. (7); ``twist_cross(x') = −C(x')ᵀ`` is the
  motion cross product used for velocity-product terms.
"""

from __future__ import annotations

import numpy as np

from .euler import (
    SEQUENCES,
    angular_velocity_matrix,
    atan2,
    dcm_to_euler,
    euler_rates_matrix,
    euler_to_dcm,
    inv3,
)

__all__ = [
    "SEQUENCES",
    "angular_velocity_matrix",
    "atan2",
    "coriolis",
    "cross",
    "dcm_to_euler",
    "dot",
    "dynamic_model",
    "euler_rates_matrix",
    "euler_to_dcm",
    "inv3",
    "matvec",
    "revolute_dcm",
    "rot6",
    "skew",
    "tau",
    "transport_motion",
    "transport_twist",
    "transport_wrench",
    "transpose",
    "twist_cross",
    "unit",
]


def cross(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Cross product ``a × b`` over the last axis (complex-safe, broadcasting).

    ``np.cross`` is avoided because it is slow on small stacked arrays.

    Parameters
    ----------
    a, b : array_like, shape (..., 3)
        3-vectors in the same frame; the leading axes broadcast.

    Returns
    -------
    ndarray, shape (..., 3)

    Examples
    --------
    >>> cross([1.0, 0.0, 0.0], [0.0, 1.0, 0.0]).tolist()
    [0.0, 0.0, 1.0]
    >>> cross([[1.0, 2.0, 3.0]], [4.0, 5.0, 6.0]).tolist()  # broadcasting
    [[-3.0, 6.0, -3.0]]
    """
    a = np.asarray(a)
    b = np.asarray(b)
    out = np.empty(np.broadcast_shapes(a.shape, b.shape), dtype=np.result_type(a, b))
    a0, a1, a2 = a[..., 0], a[..., 1], a[..., 2]
    b0, b1, b2 = b[..., 0], b[..., 1], b[..., 2]
    out[..., 0] = a1 * b2 - a2 * b1
    out[..., 1] = a2 * b0 - a0 * b2
    out[..., 2] = a0 * b1 - a1 * b0
    return out


def skew(v: np.ndarray) -> np.ndarray:
    """Skew-symmetric matrix ``(*v)`` of a 3-vector: ``skew(v) @ u = v × u``.

    Parameters
    ----------
    v : array_like, shape (..., 3)
        3-vector(s); an integer input gives a float matrix.

    Returns
    -------
    ndarray, shape (..., 3, 3)

    Examples
    --------
    >>> skew([1.0, 2.0, 3.0]).tolist()
    [[0.0, -3.0, 2.0], [3.0, 0.0, -1.0], [-2.0, 1.0, 0.0]]
    >>> u = [0.5, -1.0, 2.0]
    >>> bool(np.allclose(skew([1.0, 2.0, 3.0]) @ u, cross([1.0, 2.0, 3.0], u)))
    True
    """
    v = np.asarray(v)
    out = np.zeros((*v.shape[:-1], 3, 3), dtype=v.dtype if v.dtype.kind in "fc" else float)
    x, y, w = v[..., 0], v[..., 1], v[..., 2]
    out[..., 0, 1] = -w
    out[..., 0, 2] = y
    out[..., 1, 0] = w
    out[..., 1, 2] = -x
    out[..., 2, 0] = -y
    out[..., 2, 1] = x
    return out


def unit(v: np.ndarray) -> np.ndarray:
    """``v / |v|`` over the last axis without ``abs`` (complex-step safe).

    Parameters
    ----------
    v : array_like, shape (..., n)
        Non-zero vector(s).

    Returns
    -------
    ndarray, shape (..., n)

    Examples
    --------
    >>> unit([3.0, 0.0, 4.0]).tolist()
    [0.6, 0.0, 0.8]
    """
    v = np.asarray(v)
    return v / np.sqrt(np.sum(v * v, axis=-1, keepdims=True))


def tau(r: np.ndarray) -> np.ndarray:
    """Kinematic model ``τ_XY = [[1, (*XY)], [0, 1]]`` for ``r = XY`` (shape (..., 3)).

    ``x'_X = τ_XY x'_Y`` transports a twist from ``Y`` to ``X``;
    ``W_Y = τ_XYᵀ W_X`` transports a wrench from ``X`` to ``Y``.

    Parameters
    ----------
    r : array_like, shape (..., 3)
        The vector ``XY`` from ``X`` to ``Y`` [m], in the frame of the dual vectors it
        transports.

    Returns
    -------
    ndarray, shape (..., 6, 6)
    """
    r = np.asarray(r)
    out = np.zeros((*r.shape[:-1], 6, 6), dtype=r.dtype if r.dtype.kind == "c" else float)
    eye = np.eye(3)
    out[..., :3, :3] = eye
    out[..., 3:, 3:] = eye
    out[..., :3, 3:] = skew(r)
    return out


def rot6(P: np.ndarray) -> np.ndarray:
    """Augmented DCM ``P^{×2} = diag(P, P)`` acting on dual vectors, shape (..., 6, 6).

    Parameters
    ----------
    P : array_like, shape (..., 3, 3)
        Direction cosine matrix; ``rot6(P) @ [v; ω]`` changes the coordinates of both halves
        of a dual vector as ``P @ v`` and ``P @ ω`` do.

    Returns
    -------
    ndarray, shape (..., 6, 6)
    """
    P = np.asarray(P)
    out = np.zeros((*P.shape[:-2], 6, 6), dtype=P.dtype)
    out[..., :3, :3] = P
    out[..., 3:, 3:] = P
    return out


def dynamic_model(mass: np.ndarray, inertia: np.ndarray, com: np.ndarray) -> np.ndarray:
    """Direct dynamic model ``D_P`` of a rigid body at its origin ``P`` (eq. 2 and 4).

    Parameters
    ----------
    mass : array_like, shape (...)
        Mass ``m`` [kg].
    inertia : array_like, shape (..., 3, 3)
        Inertia tensor ``I_B`` at the centre of mass ``B`` [kg m²], body frame.
    com : array_like, shape (..., 3)
        Vector ``PB`` from the origin to the centre of mass [m], body frame.

    Returns
    -------
    ndarray, shape (..., 6, 6)
        ``D_P = τ_BPᵀ diag(m 1₃, I_B) τ_BP``
        ``= [[m 1₃, −m (*PB)], [m (*PB), I_B − m (*PB)²]]``.
    """
    mass = np.asarray(mass)
    inertia = np.asarray(inertia)
    c = skew(com)
    m = mass[..., None, None]
    top = np.concatenate((m * np.eye(3) + 0 * c, -m * c), axis=-1)
    bottom = np.concatenate((m * c, inertia - m * (c @ c)), axis=-1)
    return np.concatenate((top, bottom), axis=-2)


def coriolis(twist: np.ndarray) -> np.ndarray:
    """``C(x') = [[(*ω), 0], [(*v), (*ω)]]`` of eq. (7), shape (..., 6, 6).

    Newton–Euler at the body origin reads ``W_ext = D_P (ẋ' − [g; 0]) + C(x') D_P x'``.

    Parameters
    ----------
    twist : array_like, shape (..., 6)
        Twist ``x' = [v_P; ω]`` (velocity of the point ``P`` [m/s], angular velocity
        [rad/s]), body frame.

    Returns
    -------
    ndarray, shape (..., 6, 6)
    """
    twist = np.asarray(twist)
    sv = skew(twist[..., :3])
    sw = skew(twist[..., 3:])
    top = np.concatenate((sw, np.zeros_like(sw)), axis=-1)
    bottom = np.concatenate((sv, sw), axis=-1)
    return np.concatenate((top, bottom), axis=-2)


def twist_cross(twist: np.ndarray) -> np.ndarray:
    """Motion cross product ``x'× = −C(x')ᵀ = [[(*ω), (*v)], [0, (*ω)]]``, shape (..., 6, 6).

    ``twist_cross(x'_A) @ S q̇`` is the velocity-product term of a joint with motion
    subspace ``S`` (the ``−θ̇ (*r̃) v``, ``−θ̇ (*r̃) ω`` terms of eq. 17 and the
    ``−ẋ (*t̃) ω`` term of eq. 24).

    Parameters
    ----------
    twist : array_like, shape (..., 6)
        Twist ``x' = [v; ω]`` ([m/s]; [rad/s]).

    Returns
    -------
    ndarray, shape (..., 6, 6)
    """
    twist = np.asarray(twist)
    sv = skew(twist[..., :3])
    sw = skew(twist[..., 3:])
    top = np.concatenate((sw, sv), axis=-1)
    bottom = np.concatenate((np.zeros_like(sw), sw), axis=-1)
    return np.concatenate((top, bottom), axis=-2)


def transport_twist(twist: np.ndarray, r: np.ndarray) -> np.ndarray:
    """Twist (or spatial acceleration) at ``X`` from the one at ``Y``: ``τ_XY x'_Y``, ``r = XY``.

    Parameters
    ----------
    twist : array_like, shape (..., 6)
        ``x'_Y = [v_Y; ω]`` ([m/s]; [rad/s]), or a spatial acceleration.
    r : array_like, shape (..., 3)
        The vector ``XY`` [m], in the same frame as ``twist``.

    Returns
    -------
    ndarray, shape (..., 6)
        ``[v_Y + XY × ω; ω]``.
    """
    twist = np.asarray(twist)
    v = twist[..., :3] + cross(r, twist[..., 3:])
    return np.concatenate((v, np.broadcast_to(twist[..., 3:], v.shape)), axis=-1)


def transport_wrench(wrench: np.ndarray, r: np.ndarray) -> np.ndarray:
    """Wrench at ``Y`` from the one at ``X``: ``τ_XYᵀ W_X`` with ``r = XY``.

    The force is unchanged and the torque becomes ``T_Y = T_X + YX × F``.

    Parameters
    ----------
    wrench : array_like, shape (..., 6)
        ``W_X = [F; T_X]`` ([N]; [N m]).
    r : array_like, shape (..., 3)
        The vector ``XY`` [m], in the same frame as ``wrench``.

    Returns
    -------
    ndarray, shape (..., 6)
    """
    wrench = np.asarray(wrench)
    f = wrench[..., :3]
    t = wrench[..., 3:] - cross(r, f)
    return np.concatenate((np.broadcast_to(f, t.shape), t), axis=-1)


def transport_motion(
    motion: np.ndarray, r: np.ndarray, P_bi: np.ndarray
) -> np.ndarray:
    """Motion vector transport ``v_CP`` of Definition 1 (eq. 14).

    Parameters
    ----------
    motion : array_like, shape (..., 18)
        ``m_P = [ẋ'_P; x'_P; IP; Θ]``: spatial acceleration and twist in the body
        frame, position ``IP`` in the inertial frame, Euler angles Θ.
    r : array_like, shape (..., 3)
        ``PC``: from the point ``P`` to the point ``C`` [m], body frame.
    P_bi : array_like, shape (..., 3, 3)
        Attitude ``P_{b/i}`` of the body (body → inertial coordinates).

    Returns
    -------
    ndarray, shape (..., 18)
        ``m_C = [τ_CP ẋ'_P; τ_CP x'_P; IP + P_{b/i} PC; Θ]``.
    """
    motion = np.asarray(motion)
    r = np.asarray(r)
    cp = -r
    acc = transport_twist(motion[..., 0:6], cp)
    vel = transport_twist(motion[..., 6:12], cp)
    pos = motion[..., 12:15] + np.einsum("...ij,...j->...i", P_bi, r)
    theta = np.broadcast_to(motion[..., 15:18], pos.shape)
    return np.concatenate((acc, vel, pos, theta), axis=-1)


def revolute_dcm(P0: np.ndarray, axis: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Revolute-joint DCM ``P_{aθ/b} = P_{a0/b} exp(θ (*r̃))`` of eq. (16).

    Parameters
    ----------
    P0 : array_like, shape (..., 3, 3)
        ``P_{a0/b}``: child → parent coordinates at θ = 0.
    axis : array_like, shape (..., 3)
        Unit axis ``r̃`` in the child frame.
    q : array_like, shape (...)
        Joint angle θ [rad].

    Returns
    -------
    ndarray, shape (..., 3, 3)
        Rodrigues' formula ``P0 (1 + sin θ K + (1 − cos θ) K²)``, ``K = (*r̃)``.
    """
    q = np.asarray(q)[..., None, None]
    K = skew(axis)
    E = np.eye(3) + np.sin(q) * K + (1.0 - np.cos(q)) * (K @ K)
    return np.asarray(P0) @ E


def matvec(A: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Matrix-vector product over the last axes, with broadcasting: ``A @ v``.

    When the matrices carry fewer batch axes than the vectors (model constants applied to a
    batch of states), the product is routed to one BLAS matrix product per matrix, an order
    of magnitude faster than a broadcasting ``einsum``.

    Parameters
    ----------
    A : ndarray, shape (..., m, n)
        Matrices.
    v : ndarray, shape (..., n)
        Vectors; the leading axes broadcast with those of ``A``.

    Returns
    -------
    ndarray, shape (..., m)

    Examples
    --------
    >>> import numpy as np
    >>> matvec(np.eye(3)[None] * [[[2.0]], [[3.0]]], np.ones((2, 3))).tolist()
    [[2.0, 2.0, 2.0], [3.0, 3.0, 3.0]]
    """
    if A.ndim == 2:
        return v @ A.T
    if A.ndim == 3 and v.ndim > 2 and v.shape[-2] == A.shape[0]:
        vv = np.moveaxis(v, -2, 0)
        out = vv.reshape(A.shape[0], -1, v.shape[-1]) @ np.swapaxes(A, -1, -2)
        return np.moveaxis(out.reshape(*vv.shape[:-1], A.shape[-2]), 0, -2)
    if v.ndim == 1:
        return A @ v
    return np.einsum("...ij,...j->...i", A, v)


def dot(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Scalar product over the last axis, with broadcasting.

    Parameters
    ----------
    a, b : ndarray, shape (..., n)
        Vectors.

    Returns
    -------
    ndarray, shape (...)
    """
    return np.sum(a * b, axis=-1)


def transpose(A: np.ndarray) -> np.ndarray:
    """Transpose of the last two axes (no copy).

    Parameters
    ----------
    A : ndarray, shape (..., m, n)
        Matrices.

    Returns
    -------
    ndarray, shape (..., n, m)
    """
    return np.swapaxes(A, -1, -2)
