"""Reduction of the δ channels of an LFT (:func:`reduce_abcd`): the kernel of
:func:`titop_lpv.robust.lft.reduce`, also applied to the uncertain transfer functions of
:class:`~titop_lpv.robust.uss.UncertainTF`."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .abcd import ABCD

__all__ = ["reduce_abcd"]


def _orth(X: np.ndarray, tol: float) -> np.ndarray:
    if X.shape[1] == 0:
        return X
    U, s, _ = np.linalg.svd(X, full_matrices=False)
    return U[:, : int(np.sum(s > tol))]


def _reachable(Ab: np.ndarray, Bb: np.ndarray, tol: float) -> np.ndarray:
    """Orthonormal basis of the smallest ``Ab``-invariant subspace containing ``range(Bb)``."""
    Q = _orth(Bb, tol)
    while True:
        Q2 = _orth(np.hstack([Q, Ab @ Q]), tol)
        if Q2.shape[1] == Q.shape[1]:
            return Q
        Q = Q2


def reduce_abcd(S: ABCD, blocks: Sequence[tuple[str, int, int]], tol: float = 1e-10
                ) -> tuple[ABCD, list[int]]:
    """Remove uncontrollable and unobservable δ channels, one scalar block at a time.

    Parameters
    ----------
    S : ABCD
        LFT matrix, inputs ``[w; u]``, outputs ``[z; y]``.
    blocks : sequence of (kind, nw, nz)
        Block kinds ("real", "complex", "full") and channel counts, in order.
    tol : float, optional
        Relative rank tolerance (times ``max(1, ‖[[A, B], [C, D]]‖₂)``).

    Returns
    -------
    (ABCD, list of int)
        The reduced matrices and the new channel count of each block (full blocks unchanged).
    """
    n = S.n
    N = np.block([[S.A, S.B], [S.C, S.D]])
    tol_abs = tol * max(1.0, np.linalg.norm(N, 2)) if N.size else tol
    sizes = [b[1] for b in blocks]
    scalar = [b[0] in ("real", "complex") for b in blocks]
    nz = [b[2] for b in blocks]
    changed = True
    while changed:
        changed = False
        for i, ok in enumerate(scalar):
            r = sizes[i]
            if not ok or r == 0:
                continue
            lo_r = n + sum(nz[:i])  # z rows of block i in N
            lo_c = n + sum(sizes[:i])  # w columns of block i in N
            for dual in (False, True):
                zr, wc = np.arange(lo_r, lo_r + r), np.arange(lo_c, lo_c + r)
                Ab = N[np.ix_(zr, wc)]
                if dual:
                    others = np.setdiff1d(np.arange(N.shape[0]), zr)
                    V = _reachable(Ab.T, N[np.ix_(others, wc)].T, tol_abs)
                else:
                    others = np.setdiff1d(np.arange(N.shape[1]), wc)
                    V = _reachable(Ab, N[np.ix_(zr, others)], tol_abs)
                k = V.shape[1]
                if k < r:  # z̃ = Vᵀ z, w = V w̃: δ I commutes with the change of basis
                    N = np.vstack([N[:lo_r], V.T @ N[lo_r : lo_r + r], N[lo_r + r :]])
                    N = np.hstack([N[:, :lo_c], N[:, lo_c : lo_c + r] @ V, N[:, lo_c + r :]])
                    r = sizes[i] = nz[i] = k
                    changed = True
    return ABCD(N[:n, :n], N[:n, n:], N[n:, :n], N[n:, n:]), sizes
