"""Block data that may be uncertain: numbers, arrays, or uncertain matrices (``USS``).

A linear TITOP block is a static matrix (or a certain integrator) whose entries are
functions of physical parameters. A parameter kept uncertain is a ``ureal``; the block
matrices are then built with the LFT-preserving operations of :mod:`titop_lpv.robust`
(sums and products of uncertain matrices), and stay plain ``ndarray`` when nothing in
them is uncertain. The helpers here let the block equations be written once for both.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Union

import numpy as np

from ..robust.atoms import UReal
from ..robust.uss import USS

__all__ = [
    "Value",
    "add",
    "is_certain",
    "matmul",
    "rotation",
    "scalar_times",
    "scale",
    "skew_of",
    "stack",
    "value_matrix",
]

Value = Union[np.ndarray, USS]  # noqa: UP007  a certain array or an uncertain static matrix


def is_certain(v: Any) -> bool:
    """True when ``v`` holds no uncertain parameter.

    Parameters
    ----------
    v : ndarray, number, UReal or USS
        A block entry.

    Returns
    -------
    bool
    """
    return not isinstance(v, (USS, UReal))


def _as_uss(v: Any) -> USS:
    if isinstance(v, USS):
        return v
    if isinstance(v, UReal):
        return v * np.ones((1, 1))
    return v


def value_matrix(leaves: Sequence[Sequence[Any]]) -> Value:
    """A matrix from leaves that are numbers or ``ureal`` parameters.

    Parameters
    ----------
    leaves : sequence of sequences
        Rows of numbers and :class:`~titop_lpv.robust.atoms.UReal` parameters.

    Returns
    -------
    ndarray or USS
        ``const + Σ p_k E_k`` (each parameter enters with the 0/1 pattern ``E_k`` of its
        places, so it is repeated rank(E_k) times).
    """
    rows = [list(r) for r in leaves]
    shape = (len(rows), len(rows[0]) if rows else 0)
    const = np.zeros(shape)
    patterns: dict[str, tuple[UReal, np.ndarray]] = {}
    for i, row in enumerate(rows):
        for j, leaf in enumerate(row):
            if isinstance(leaf, UReal):
                p = patterns.setdefault(leaf.name, (leaf, np.zeros(shape)))
                p[1][i, j] += 1.0
            else:
                const[i, j] = float(leaf)
    out: Value = const
    for p, E in patterns.values():
        out = add(out, p * E)
    return out


def add(*terms: Any) -> Value:
    """Sum of arrays and uncertain matrices (``None`` terms are zero).

    Parameters
    ----------
    *terms : ndarray, USS or None
        Terms of equal shape.

    Returns
    -------
    ndarray or USS
    """
    live = [t for t in terms if t is not None]
    certain = [np.asarray(t, dtype=float) for t in live if is_certain(t)]
    uncertain = [_as_uss(t) for t in live if not is_certain(t)]
    total: Any = sum(certain[1:], certain[0]) if certain else None
    for t in uncertain:
        total = t if total is None else t + total
    return total


def matmul(a: Any, b: Any) -> Value:
    """``a @ b`` for arrays and uncertain matrices.

    Parameters
    ----------
    a, b : ndarray or USS
        Factors.

    Returns
    -------
    ndarray or USS
    """
    if is_certain(a) and is_certain(b):
        return np.asarray(a, dtype=float) @ np.asarray(b, dtype=float)
    if is_certain(a):
        return _as_uss(b).__rmatmul__(np.asarray(a, dtype=float))
    return _as_uss(a) @ (b if is_certain(b) else _as_uss(b))


def scale(c: Any, a: Any) -> Value:
    """``c · a`` for a scalar ``c`` (number or ``ureal``) and an array or uncertain matrix.

    Parameters
    ----------
    c : float or UReal
        The scalar.
    a : ndarray or USS
        The matrix.

    Returns
    -------
    ndarray or USS
    """
    if is_certain(c):
        return float(c) * a if is_certain(a) else _as_uss(a) * float(c)
    if is_certain(a):
        return c * np.asarray(a, dtype=float)
    return matmul(c * np.eye(_rows(a)), a)


def _rows(a: Any) -> int:
    return int(a.noutputs) if isinstance(a, USS) else int(np.shape(a)[0])


def skew_of(v: Any) -> Value:
    """``(*v)``: the cross-product matrix of a 3-vector of numbers or an uncertain 3×1 matrix.

    Parameters
    ----------
    v : ndarray (3,) or (3, 1), or USS (3×1)
        The vector.

    Returns
    -------
    ndarray or USS, 3×3
    """
    if is_certain(v):
        x, y, z = np.asarray(v, dtype=float).ravel()
        return np.array([[0.0, -z, y], [z, 0.0, -x], [-y, x, 0.0]])
    # column j of (*v) is v × e_j = −(*e_j) v
    out: Any = None
    for j in range(3):
        e = np.zeros((1, 3))
        e[0, j] = 1.0
        out = add(out, matmul(matmul(-_SKEW_E[j], _as_uss(v)), e))
    return out


_SKEW_E = [np.array([[0.0, -e[2], e[1]], [e[2], 0.0, -e[0]], [-e[1], e[0], 0.0]])
           for e in np.eye(3)]


def stack(rows: Sequence[Sequence[Any]], row_sizes: Sequence[int], col_sizes: Sequence[int]
          ) -> Value:
    """Block matrix from blocks that are arrays, uncertain matrices or ``None`` (zero).

    Parameters
    ----------
    rows : sequence of sequences
        ``rows[i][j]`` is the block (row_sizes[i] × col_sizes[j]).
    row_sizes, col_sizes : sequence of int
        Block sizes.

    Returns
    -------
    ndarray or USS
    """
    n, m = sum(row_sizes), sum(col_sizes)
    const = np.zeros((n, m))
    out: Any = None
    r0 = 0
    for i, row in enumerate(rows):
        c0 = 0
        for j, blk in enumerate(row):
            if blk is not None:
                if is_certain(blk):
                    const[r0:r0 + row_sizes[i], c0:c0 + col_sizes[j]] = np.reshape(
                        np.asarray(blk, dtype=float), (row_sizes[i], col_sizes[j]))
                else:
                    left = np.zeros((n, row_sizes[i]))
                    left[r0:r0 + row_sizes[i]] = np.eye(row_sizes[i])
                    right = np.zeros((col_sizes[j], m))
                    right[:, c0:c0 + col_sizes[j]] = np.eye(col_sizes[j])
                    out = add(out, matmul(matmul(left, blk), right))
            c0 += col_sizes[j]
        r0 += row_sizes[i]
    return add(out, const)


def scalar_times(f: Any, K: np.ndarray) -> Value:
    """``f · K`` for a 1×1 uncertain (or certain) scalar ``f`` and a constant matrix ``K``.

    ``K = Σ_k σ_k u_k v_kᵀ`` (its singular value decomposition): ``f`` enters once per rank.

    Parameters
    ----------
    f : float, ndarray (1, 1) or USS (1×1)
        The scalar.
    K : ndarray
        The matrix.

    Returns
    -------
    ndarray or USS
    """
    K = np.asarray(K, dtype=float)
    if is_certain(f):
        return float(np.asarray(f, dtype=float).reshape(())) * K
    U, sv, Vt = np.linalg.svd(K)
    out: Any = None
    for k in np.flatnonzero(sv > 1e-14 * max(1.0, float(sv.max(initial=0.0)))):
        out = add(out, matmul(matmul(sv[k] * U[:, k:k + 1], f), Vt[k:k + 1]))
    return out if out is not None else np.zeros_like(K)


def rotation(axis: np.ndarray, angle: Any, nominal: float) -> tuple[Value, Value]:
    """``exp(θ (*r))`` and its transpose, for an angle that may be uncertain.

    An uncertain angle is the ``ureal`` ``ψ = θ₀ + 2 tan((θ − θ₀)/2)`` (``θ₀ = nominal``), so
    that with ``t = (ψ − θ₀)/2`` the rotation is the rational function
    ``1 + (2t (*r) + 2t² (*r)²) / (1 + t²)`` of it: an exact LFT.

    Parameters
    ----------
    axis : ndarray (3,)
        Unit axis.
    angle : float or UReal
        The angle [rad], or its ``ureal`` ψ.
    nominal : float
        ``θ₀`` [rad].

    Returns
    -------
    (ndarray or USS, ndarray or USS)
        The rotation and its transpose.
    """
    r = np.asarray(axis, dtype=float)
    K = np.array([[0.0, -r[2], r[1]], [r[2], 0.0, -r[0]], [-r[1], r[0], 0.0]])
    K2 = K @ K
    if is_certain(angle):
        th = float(angle)
        R = np.eye(3) + np.sin(th) * K + (1.0 - np.cos(th)) * K2
        return R, R.T
    t = scale(0.5, add(value_matrix([[angle]]), np.array([[-nominal]])))
    tt = matmul(t, t)
    d = add(np.eye(1), tt).inv()
    f = scale(2.0, matmul(t, d))  # sin(θ − θ₀)
    g = scale(2.0, matmul(tt, d))  # 1 − cos(θ − θ₀)
    c = np.cos(nominal), np.sin(nominal)
    R0 = np.eye(3) + c[1] * K + (1.0 - c[0]) * K2
    R = matmul(R0, add(np.eye(3), scalar_times(f, K), scalar_times(g, K2)))
    RT = matmul(add(np.eye(3), scalar_times(f, -K), scalar_times(g, K2)), R0.T)
    return R, RT
