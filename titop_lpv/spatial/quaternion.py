"""Unit quaternions ``q = (w, x, y, z)`` (scalar first): attitudes without singularity.

A quaternion ``q`` stands for the rotation ``R(q)`` that maps child-frame coordinates to
parent-frame coordinates (``[v]_parent = R(q) [v]_child``, the convention of ``P_{a/b}``,
docs/design.md §2). Composition: ``R(p ⊗ q) = R(p) R(q)``. Kinematics with the angular
velocity ``ω`` of the child relative to the parent, in child coordinates:
``q̇ = ½ q ⊗ (0, ω)``. Rotation vectors ``θ`` (axis × angle, ``|θ| ≤ π``) are the
3-parameter attitude errors of linear models: ``q = q_eq ⊗ exp(θ)``.

Pure functions of arrays, vectorised over leading axes, complex-step safe (no ``abs``, no
branch on a perturbed value: the small-angle branches use series in ``|v|²``).
"""

from __future__ import annotations

import numpy as np

__all__ = ["conjugate", "exp", "log", "multiply", "normalize", "rate_matrix", "to_dcm"]


def normalize(q: np.ndarray) -> np.ndarray:
    """``q / |q|`` (complex-step safe: ``|q|² = Σ q_k²`` without conjugation).

    Parameters
    ----------
    q : ndarray (..., 4)
        Quaternions ``(w, x, y, z)``, not zero.

    Returns
    -------
    ndarray (..., 4)
    """
    q = np.asarray(q)
    return q / np.sqrt(np.sum(q * q, axis=-1))[..., None]


def conjugate(q: np.ndarray) -> np.ndarray:
    """``(w, −x, −y, −z)``: the inverse of a unit quaternion.

    Parameters
    ----------
    q : ndarray (..., 4)

    Returns
    -------
    ndarray (..., 4)
    """
    q = np.asarray(q)
    return np.concatenate((q[..., :1], -q[..., 1:]), axis=-1)


def multiply(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Hamilton product ``p ⊗ q`` (``R(p ⊗ q) = R(p) R(q)``).

    Parameters
    ----------
    p, q : ndarray (..., 4)

    Returns
    -------
    ndarray (..., 4)

    Examples
    --------
    >>> import numpy as np
    >>> q = exp(np.array([0.0, 0.0, np.pi / 2]))
    >>> np.round(multiply(q, q), 12).tolist()  # two quarter turns about z: a half turn
    [0.0, 0.0, 0.0, 1.0]
    """
    p, q = np.asarray(p), np.asarray(q)
    pw, pv = p[..., :1], p[..., 1:]
    qw, qv = q[..., :1], q[..., 1:]
    w = pw * qw - np.sum(pv * qv, axis=-1, keepdims=True)
    cr = np.stack((pv[..., 1] * qv[..., 2] - pv[..., 2] * qv[..., 1],
                   pv[..., 2] * qv[..., 0] - pv[..., 0] * qv[..., 2],
                   pv[..., 0] * qv[..., 1] - pv[..., 1] * qv[..., 0]), axis=-1)
    return np.concatenate((w, pw * qv + qw * pv + cr), axis=-1)


def to_dcm(q: np.ndarray) -> np.ndarray:
    """Rotation matrix ``R(q)`` (child → parent coordinates) of a quaternion, normalised first.

    Parameters
    ----------
    q : ndarray (..., 4)
        Quaternions ``(w, x, y, z)`` (any non-zero norm).

    Returns
    -------
    ndarray (..., 3, 3)

    Examples
    --------
    >>> import numpy as np
    >>> R = to_dcm(np.array([np.cos(0.25), 0.0, 0.0, np.sin(0.25)]))  # 0.5 rad about z
    >>> bool(np.allclose(R[:2, :2], [[np.cos(0.5), -np.sin(0.5)], [np.sin(0.5), np.cos(0.5)]]))
    True
    """
    q = normalize(q)
    w, x, y, z = q[..., 0], q[..., 1], q[..., 2], q[..., 3]
    rows = [[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
            [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
            [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]]
    return np.stack([np.stack(r, axis=-1) for r in rows], axis=-2)


def rate_matrix(q: np.ndarray) -> np.ndarray:
    """``G(q)`` (..., 4, 3) with ``q̇ = G(q) ω = ½ q ⊗ (0, ω)``, ``ω`` in child coordinates.

    Parameters
    ----------
    q : ndarray (..., 4)

    Returns
    -------
    ndarray (..., 4, 3)
    """
    q = np.asarray(q)
    w, x, y, z = q[..., 0], q[..., 1], q[..., 2], q[..., 3]
    rows = [[-x, -y, -z], [w, -z, y], [z, w, -x], [-y, x, w]]
    return 0.5 * np.stack([np.stack(r, axis=-1) for r in rows], axis=-2)


def _atan_ratio(s2: np.ndarray, w: np.ndarray) -> np.ndarray:
    """``atan(s / w) / s`` with ``s = √s2`` (``w > 0``), analytic in ``s2`` (series near 0)."""
    t = s2 / (w * w)
    small = np.real(t) < 1e-4
    series = (1.0 - t / 3.0 + t * t / 5.0 - t ** 3 / 7.0) / w
    s = np.sqrt(np.where(small, 1.0, s2))
    return np.where(small, series, np.arctan(s / w) / s)


def log(q: np.ndarray) -> np.ndarray:
    """Rotation vector ``θ`` (axis × angle, ``|θ| ≤ π``) of a quaternion: ``q = ±exp(θ)``.

    Parameters
    ----------
    q : ndarray (..., 4)
        Quaternions (normalised first); ``q`` and ``−q`` give the same ``θ``.

    Returns
    -------
    ndarray (..., 3)

    Examples
    --------
    >>> import numpy as np
    >>> np.round(log(exp(np.array([0.1, -0.2, 0.3]))), 12).tolist()
    [0.1, -0.2, 0.3]
    """
    q = normalize(q)
    sign = np.where(np.real(q[..., :1]) < 0, -1.0, 1.0)
    q = q * sign
    v = q[..., 1:]
    s2 = np.sum(v * v, axis=-1)
    w = q[..., 0]
    w_safe = np.where(np.real(w) > 1e-8, w, 1.0)
    near_pi = np.real(w) <= 1e-8  # half turn: θ = π v / |v|
    s = np.sqrt(np.where(near_pi, s2, 1.0))
    ratio = np.where(near_pi, 0.5 * np.pi / s, _atan_ratio(np.where(near_pi, 0.0, s2), w_safe))
    return 2.0 * ratio[..., None] * v


def exp(theta: np.ndarray) -> np.ndarray:
    """Unit quaternion ``(cos(|θ|/2), sin(|θ|/2) θ/|θ|)`` of a rotation vector ``θ``.

    Parameters
    ----------
    theta : ndarray (..., 3)
        Rotation vector [rad].

    Returns
    -------
    ndarray (..., 4)
    """
    theta = np.asarray(theta)
    a2 = np.sum(theta * theta, axis=-1) / 4.0  # (|θ|/2)²
    small = np.real(a2) < 1e-6
    a = np.sqrt(np.where(small, 1.0, a2))
    cos = np.where(small, 1.0 - a2 / 2.0 + a2 * a2 / 24.0, np.cos(a))
    sinc = np.where(small, 1.0 - a2 / 6.0 + a2 * a2 / 120.0, np.sin(a) / a)
    return np.concatenate((cos[..., None], 0.5 * sinc[..., None] * theta), axis=-1)
