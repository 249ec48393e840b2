"""Block data that may be uncertain: numbers, arrays, or uncertain matrices (``USS``).

A linear TITOP block is a static matrix (or a certain integrator) whose entries are
functions of physical parameters. A parameter kept uncertain is a ``ureal``; the block
matrices are then built with LFT-preserving operations (sums and products of uncertain
matrices), and stay plain ``ndarray`` when nothing in them is uncertain. The helpers here
let the block equations be written once for both.

Sums, products and block placements of *static* uncertain matrices are formed here directly
on their LFT matrices ``[[M11, M12], [M21, M22]]`` (the Δ channels of the operands side by
side, blocks of equal name merged by :func:`titop_lpv.robust.algebra.merge_blocks`): the
same LFT as :mod:`titop_lpv.robust`'s general interconnection, which closes a loop for
every operation, at a fraction of its cost.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Union

import numpy as np

from ..exceptions import ShapeError
from ..robust.abcd import static_abcd
from ..robust.algebra import merge_blocks
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


def _parts(G: USS) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(M11, M12, M21, M22)`` of a static uncertain matrix (``z = M11 w + M12 u``,
    ``y = M21 w + M22 u``)."""
    D = np.asarray(G.abcd.D)
    nw, nz = G.delta.nw, G.delta.nz
    return D[:nz, :nw], D[:nz, nw:], D[nz:, :nw], D[nz:, nw:]


def _lft(parts: Sequence[USS], M11: np.ndarray, M12: np.ndarray, M21: np.ndarray,
         M22: np.ndarray) -> USS:
    """The static uncertain matrix of LFT matrix ``[[M11, M12], [M21, M22]]`` whose Δ
    channels are those of ``parts`` concatenated (blocks of equal name merged)."""
    wperm, zperm, delta, params = merge_blocks([G.delta for G in parts],
                                               [G.params for G in parts])
    M = np.block([[M11[np.ix_(zperm, wperm)], M12[zperm]], [M21[:, wperm], M22]])
    # as USS(M, delta, params) (a static matrix, generic signal names), without its checks:
    # merge_blocks matched the blocks and parameters
    n_u, n_y = M.shape[1] - delta.nw, M.shape[0] - delta.nz
    return USS._new(static_abcd(M), None, delta, params, [f"u[{i}]" for i in range(n_u)],
                    [f"y[{i}]" for i in range(n_y)], [], None)


def _sum(terms: Sequence[USS], const: np.ndarray | None) -> USS:
    """``Σ terms + const`` for static uncertain matrices of equal shape."""
    P = [_parts(G) for G in terms]
    M22 = sum((p[3] for p in P[1:]), P[0][3].copy())
    if const is not None:
        M22 = M22 + const
    M11 = _blkdiag([p[0] for p in P])
    return _lft(terms, M11, np.vstack([p[1] for p in P]), np.hstack([p[2] for p in P]), M22)


def _blkdiag(mats: Sequence[np.ndarray]) -> np.ndarray:
    rows = sum(m.shape[0] for m in mats)
    cols = sum(m.shape[1] for m in mats)
    out = np.zeros((rows, cols))
    r = c = 0
    for m in mats:
        out[r:r + m.shape[0], c:c + m.shape[1]] = m
        r, c = r + m.shape[0], c + m.shape[1]
    return out


def _product(a: Any, b: Any) -> Any:
    """``a @ b`` of arrays and static uncertain matrices (shapes checked by the caller)."""
    if is_certain(a):
        K = np.asarray(a, dtype=float)
        M11, M12, M21, M22 = _parts(b)
        return _lft([b], M11, M12, K @ M21, K @ M22)
    if is_certain(b):
        K = np.asarray(b, dtype=float)
        M11, M12, M21, M22 = _parts(a)
        return _lft([a], M11, M12 @ K, M21, M22 @ K)
    A11, A12, A21, A22 = _parts(a)
    B11, B12, B21, B22 = _parts(b)
    # w = [w_a; w_b]: z_a = A11 w_a + A12 (B21 w_b + B22 u), z_b = B11 w_b + B12 u
    M11 = np.block([[A11, A12 @ B21], [np.zeros((B11.shape[0], A11.shape[1])), B11]])
    return _lft([a, b], M11, np.vstack([A12 @ B22, B12]), np.hstack([A21, A22 @ B21]),
                A22 @ B22)


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
    if not patterns:
        return const
    return _sum([_times_pattern(p, E) for p, E in patterns.values()], const)


def _times_pattern(p: UReal, E: np.ndarray) -> USS:
    """``p · E``: with ``E = U S Vᵀ`` (rank r), ``U S (p I_r) Vᵀ`` — ``p`` repeated r times."""
    P1 = _SCALARS.get(p)
    if P1 is None:
        P1 = _SCALARS.setdefault(p, p * np.ones((1, 1)))
    m11, m12, m21, m22 = (float(np.asarray(M).reshape(())) for M in _parts(P1))
    U, sv, Vt = np.linalg.svd(E)
    r = int(np.count_nonzero(sv > 1e-14 * max(1.0, float(sv.max(initial=0.0)))))
    US = U[:, :r] * sv[:r]
    return _lft([P1] * r, m11 * np.eye(r), m12 * Vt[:r], m21 * US, m22 * E)


_SCALARS: dict[UReal, USS] = {}  # each parameter as a 1×1 uncertain matrix (immutable)


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
    if not uncertain:
        return total
    if len(uncertain) == 1 and total is None:
        return uncertain[0]
    shape = (uncertain[0].noutputs, uncertain[0].ninputs)
    if any((t.noutputs, t.ninputs) != shape for t in uncertain) or (
            total is not None and np.shape(total) != shape):
        raise ShapeError(f"add: terms of different shapes (first {shape})")
    return _sum(uncertain, total)


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
    a = a if is_certain(a) else _as_uss(a)
    b = b if is_certain(b) else _as_uss(b)
    inner = (a.ninputs if isinstance(a, USS) else np.shape(a)[-1],
             b.noutputs if isinstance(b, USS) else np.shape(b)[0])
    if inner[0] != inner[1]:
        raise ShapeError(f"matmul: {inner[0]} columns against {inner[1]} rows")
    return _product(a, b)


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
        return float(c) * a if is_certain(a) else _product(_as_uss(a), float(c) * np.eye(
            _as_uss(a).ninputs))
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
    placed: list[tuple[USS, int, int]] = []
    r0 = 0
    for i, row in enumerate(rows):
        c0 = 0
        for j, blk in enumerate(row):
            if blk is not None:
                if is_certain(blk):
                    const[r0:r0 + row_sizes[i], c0:c0 + col_sizes[j]] = np.reshape(
                        np.asarray(blk, dtype=float), (row_sizes[i], col_sizes[j]))
                else:
                    G = _as_uss(blk)
                    if (G.noutputs, G.ninputs) != (row_sizes[i], col_sizes[j]):
                        raise ShapeError(f"stack: block ({i}, {j}) is {G.noutputs}×"
                                         f"{G.ninputs}, not {row_sizes[i]}×{col_sizes[j]}")
                    placed.append((G, r0, c0))
            c0 += col_sizes[j]
        r0 += row_sizes[i]
    if not placed:
        return const
    # each block: z_k = M11 w_k + M12 u[cols_k], y[rows_k] += M21 w_k + M22 u[cols_k]
    P = [_parts(G) for G, _, _ in placed]
    M12 = np.zeros((sum(p[0].shape[0] for p in P), m))
    M21 = np.zeros((n, sum(p[0].shape[1] for p in P)))
    M22 = const
    z = w = 0
    for (G, r, c), (_, B12, B21, B22) in zip(placed, P):
        nz, nw = B12.shape[0], B21.shape[1]
        M12[z:z + nz, c:c + G.ninputs] = B12
        M21[r:r + G.noutputs, w:w + nw] = B21
        M22[r:r + G.noutputs, c:c + G.ninputs] += B22
        z, w = z + nz, w + nw
    return _lft([G for G, _, _ in placed], _blkdiag([p[0] for p in P]), M12, M21, M22)


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
    that with ``t = (ψ − θ₀)/2`` the rotation is ``R₀ C(t)`` with the Cayley transform
    ``C(t) = (1 − t (*r))⁻¹ (1 + t (*r)) = 1 + 2 (1 − t (*r))⁻¹ t (*r)``: an exact LFT in which
    ``t`` is repeated ``rank((*r)) = 2`` times (``1 − t (*r)`` is invertible for every real
    ``t``: the eigenvalues of ``(*r)`` are 0, ±i).

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
    c = np.cos(nominal), np.sin(nominal)
    R0 = np.eye(3) + c[1] * K + (1.0 - c[0]) * K2
    return (_product(R0, _cayley(angle, nominal, K)),
            _product(_cayley(angle, nominal, -K), R0.T))


def _cayley(angle: UReal, nominal: float, K: np.ndarray) -> USS:
    """``C(t) = (1 − t K)⁻¹ (1 + t K)`` for ``t = (ψ − θ₀)/2`` and a skew ``K`` of rank 2.

    With ``K = U Vᵀ`` and ``t = a + b_out δ b_in`` (the ``ureal``'s own LFT, affine in its
    normalised ``δ``), the loop ``w = t z``, ``z = Vᵀ (u + U w)``, ``y = u + 2 U w`` closed on
    its certain part ``a`` (``L = (1 − a Vᵀ U)⁻¹``) leaves ``δ`` repeated twice."""
    P1 = _SCALARS.get(angle)
    if P1 is None:
        P1 = _SCALARS.setdefault(angle, angle * np.ones((1, 1)))
    m11, m12, m21, m22 = (float(np.asarray(M).reshape(())) for M in _parts(P1))
    if m11 != 0.0:
        raise ValueError("a ureal's LFT is affine in δ")  # internal invariant
    a, b_out, b_in = 0.5 * (m22 - nominal), 0.5 * m21, m12
    Uk, sv, Vt = np.linalg.svd(K)
    U, Vt = Uk[:, :2] * sv[:2], Vt[:2]
    N = Vt @ U
    L = np.linalg.inv(np.eye(2) - a * N)
    M11 = b_in * b_out * (L @ N)
    M12 = b_in * (L @ Vt)
    M21 = 2.0 * b_out * (U @ (a * (L @ N) + np.eye(2)))
    M22 = np.eye(3) + 2.0 * a * (U @ L @ Vt)
    return _lft([P1, P1], M11, M12, M21, M22)
