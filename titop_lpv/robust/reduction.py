"""Reduction of the δ channels of an LFT (:func:`reduce_abcd`): the kernel of
:func:`titop_lpv.robust.lft.reduce`, also applied to the uncertain transfer functions of
:class:`~titop_lpv.robust.uss.UncertainTF`.

Two exact stages, both orthogonal changes of basis inside each scalar block (they commute
with ``δ_i I``):

1. **1-D**: each block ``δ_i I`` alone, every other channel (states, other blocks,
   signals) an input or output, reduced to its controllable and observable part;
2. **structured (n-D)**: the controllable subspace of all scalar blocks together,
   ``R = R_1 ⊕ … ⊕ R_k`` with ``R_i`` (in block ``i``'s channels) the smallest subspaces with
   ``range(B_i) ⊆ R_i`` and ``P_i A R ⊆ R_i`` (``B`` the map from the states, the inputs and the
   channels of full blocks into the ``z`` of the scalar blocks, ``A`` the scalar blocks' own
   ``w → z`` map, ``P_i`` the projection on block ``i``): every term ``C Δ (A Δ)ᵏ B`` of the LFT's
   expansion lives in ``R``, so restricting each block to ``R_i`` changes no value of the LFT;
   then the same for observability (``Aᵀ``, ``Cᵀ``). The 1-D stage lets the other blocks'
   channels all count; the structured one only their controllable (observable) part, so it
   removes more: the balloon-borne telescope's covered elevation channels 20 → 14.

Neither stage uses that the parameters commute (δ_i δ_j = δ_j δ_i), so neither is minimal
among LFTs of commuting parameters in general; :func:`lower_bounds` gives, per block, a
repetition no LFT of the same matrices can go below.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .abcd import ABCD

__all__ = ["lower_bounds", "reduce_abcd"]


def _orth(X: np.ndarray, tol: float) -> np.ndarray:
    if X.shape[1] == 0:
        return X
    U, s, _ = np.linalg.svd(X, full_matrices=False)
    return U[:, : int(np.sum(s > tol))]


def _balance(N: np.ndarray, n: int, blocks: Sequence[tuple[str, int, int]], *,
             delta: bool, sweeps: int = 12) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Row and column scalings by powers of 2 (exact in floating point) that even out ``N``.

    The states are scaled by a similarity (``x = s x̃``), input columns and output rows by
    themselves; with ``delta``, every channel of a scalar block too (``w_k = s_k w̃_k``,
    ``z̃_k = z_k / s_k``: it commutes with ``δ I``); the channels of full blocks are left as
    they are. The reduction scales the states and signals only, and undoes that at the end:
    its result keeps the δ channels' own scale (a reduced LFT whose δ channels were evened
    out too is as exact, but the interval certificate of ``worst_case_gain`` failed on the
    telescope's); the lower bounds, which return no LFT, scale the δ channels as well.
    Each sweep sets every similarity channel's off-diagonal row and column norms to their
    geometric mean and the signal rows and columns to unit norm, so that the rank decisions
    of the reduction do not depend on the units of the states and signals.

    Returns
    -------
    (N_scaled, row_factors, column_factors)
        ``N_scaled = diag(row_factors) N diag(column_factors)``.
    """
    p, q = N.shape
    fixed_r, fixed_c = np.zeros(p, dtype=bool), np.zeros(q, dtype=bool)
    sim_r = np.zeros(p, dtype=bool)
    sim_r[:n] = True
    sim_c = np.zeros(q, dtype=bool)
    sim_c[:n] = True
    zr, wc = n, n
    for kind, nw, nz in blocks:
        if kind == "full" or not delta:
            fixed_r[zr:zr + nz], fixed_c[wc:wc + nw] = True, True
        else:  # a scalar block: nz == nw
            sim_r[zr:zr + nz], sim_c[wc:wc + nw] = True, True
        zr, wc = zr + nz, wc + nw
    rows_sim, cols_sim = np.flatnonzero(sim_r), np.flatnonzero(sim_c)
    fr, fc = np.ones(p), np.ones(q)
    M = N.copy()
    for _ in range(sweeps if N.size else 0):
        A2 = np.abs(M) ** 2
        A2[rows_sim, cols_sim] = 0.0  # a channel's own diagonal entry does not scale
        rn, cn = np.sqrt(A2.sum(1)), np.sqrt(A2.sum(0))
        # rounding noise (1e-16 of the largest entries) must not be scaled up into a
        # channel: a similarity channel whose row and column norms have a geometric mean
        # below 1e-8 of the largest norm (noise times a real column at most) stays as it
        # is, and so does a signal row or column below 1e-10 of it
        big = max(rn.max(initial=0.0), cn.max(initial=0.0))
        gr, gc = np.ones(p), np.ones(q)
        both = np.sqrt(rn[rows_sim] * cn[cols_sim]) > 1e-8 * big
        s_k = np.ones(len(rows_sim))
        s_k[both] = np.sqrt(rn[rows_sim][both] / cn[cols_sim][both])
        gr[rows_sim], gc[cols_sim] = 1.0 / s_k, s_k
        sig_r = ~sim_r & ~fixed_r & (rn > 1e-10 * big)
        sig_c = ~sim_c & ~fixed_c & (cn > 1e-10 * big)
        gr[sig_r], gc[sig_c] = 1.0 / rn[sig_r], 1.0 / cn[sig_c]
        gr, gc = np.exp2(np.round(np.log2(gr))), np.exp2(np.round(np.log2(gc)))
        if np.all(gr == 1.0) and np.all(gc == 1.0):
            break
        M = gr[:, None] * M * gc[None, :]
        fr, fc = fr * gr, fc * gc
    return M, fr, fc


def _reachable(Ab: np.ndarray, Bb: np.ndarray, tol: float) -> np.ndarray:
    """Orthonormal basis of the smallest ``Ab``-invariant subspace containing ``range(Bb)``."""
    Q = _orth(Bb, tol)
    while True:
        Q2 = _orth(np.hstack([Q, Ab @ Q]), tol)
        if Q2.shape[1] == Q.shape[1]:
            return Q
        Q = Q2


def reduce_abcd(S: ABCD, blocks: Sequence[tuple[str, int, int]], tol: float = 1e-10, *,
                balance: bool = True) -> tuple[ABCD, list[int]]:
    """Remove uncontrollable and unobservable δ channels, one scalar block at a time.

    Parameters
    ----------
    S : ABCD
        LFT matrix, inputs ``[w; u]``, outputs ``[z; y]``.
    blocks : sequence of (kind, nw, nz)
        Block kinds ("real", "complex", "full") and channel counts, in order.
    tol : float, optional
        Relative rank tolerance (times ``max(1, ‖N‖₂)``, ``N = [[A, B], [C, D]]`` after the
        scaling of :func:`_balance`: powers of 2 that even out its rows and columns).
    balance : bool, optional
        Even out the states' and signals' rows and columns before the rank decisions
        (default). The uncertain transfer functions skip it: their states and signals carry
        no units, and the D-G branch and bound of ``robust_stability`` proved less on the
        realization it gives (a two-mass loop: 1.976 instead of its 1.980 target).

    Returns
    -------
    (ABCD, list of int)
        The reduced matrices and the new channel count of each block (full blocks unchanged).
    """
    n = S.n
    N = np.block([[S.A, S.B], [S.C, S.D]])
    if balance:
        N, fr, fc = _balance(N, n, blocks, delta=False)
    else:
        fr, fc = np.ones(N.shape[0]), np.ones(N.shape[1])
    n_z, n_w = sum(b[2] for b in blocks), sum(b[1] for b in blocks)
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
    changed = True
    while changed:
        N, changed = _structured(N, n, sizes, nz, scalar, tol_abs)
    # undo the scaling of the states and signals (the δ channels keep theirs: it commutes)
    rows = np.concatenate([1.0 / fr[:n], np.ones(sum(nz)), 1.0 / fr[n + n_z:]])
    cols = np.concatenate([1.0 / fc[:n], np.ones(sum(sizes)), 1.0 / fc[n + n_w:]])
    N = rows[:, None] * N * cols[None, :]
    return ABCD(N[:n, :n], N[:n, n:], N[n:, :n], N[n:, n:]), sizes


def _structured_reachable(Aw: np.ndarray, Bw: np.ndarray, offsets: list[int], tol: float
                          ) -> list[np.ndarray]:
    """Orthonormal bases ``Q_i`` of the structured controllable subspace, one per block."""
    k = len(offsets) - 1
    Q = [_orth(Bw[offsets[i]:offsets[i + 1]], tol) for i in range(k)]
    while True:
        R = np.zeros((Aw.shape[0], sum(q.shape[1] for q in Q)))
        col = 0
        for i, q in enumerate(Q):
            R[offsets[i]:offsets[i + 1], col:col + q.shape[1]] = q
            col += q.shape[1]
        AR = Aw @ R
        grown = [_orth(np.hstack([q, AR[offsets[i]:offsets[i + 1]]]), tol)
                 for i, q in enumerate(Q)]
        if all(g.shape[1] == q.shape[1] for g, q in zip(grown, Q)):
            return Q
        Q = grown


def _structured(N: np.ndarray, n: int, sizes: list[int], nz: list[int], scalar: list[bool],
                tol: float) -> tuple[np.ndarray, bool]:
    """Structured controllability, then observability, reduction of ``N``.

    Returns the new ``N`` and whether a block shrank; ``sizes`` and ``nz`` are updated.
    """
    changed = False
    for dual in (False, True):
        blocks = [i for i, ok in enumerate(scalar) if ok and sizes[i]]
        if not blocks:
            return N, changed
        zs = [n + sum(nz[:i]) for i in range(len(sizes))]
        ws = [n + sum(sizes[:i]) for i in range(len(sizes))]
        rows = np.concatenate([np.arange(zs[i], zs[i] + sizes[i]) for i in blocks])
        cols = np.concatenate([np.arange(ws[i], ws[i] + sizes[i]) for i in blocks])
        offsets = list(np.cumsum([0] + [sizes[i] for i in blocks]))
        Aw = N[np.ix_(rows, cols)]
        if dual:
            ext_r = np.setdiff1d(np.arange(N.shape[0]), rows)
            V = _structured_reachable(Aw.T, N[np.ix_(ext_r, cols)].T, offsets, tol)
        else:
            ext_c = np.setdiff1d(np.arange(N.shape[1]), cols)
            V = _structured_reachable(Aw, N[np.ix_(rows, ext_c)], offsets, tol)
        for j in reversed(range(len(blocks))):  # last block first: earlier offsets hold
            i, r, v = blocks[j], sizes[blocks[j]], V[j]
            if v.shape[1] == r:
                continue
            lo_r, lo_c = zs[i], ws[i]  # z̃ = Vᵀ z, w = V w̃: commutes with δ_i I
            N = np.vstack([N[:lo_r], v.T @ N[lo_r:lo_r + r], N[lo_r + r:]])
            N = np.hstack([N[:, :lo_c], N[:, lo_c:lo_c + r] @ v, N[:, lo_c + r:]])
            sizes[i] = nz[i] = v.shape[1]
            changed = True
    return N, changed


def lower_bounds(S: ABCD, blocks: Sequence[tuple[str, int, int]], *, samples: int = 3,
                 seed: int = 0, tol: float = 1e-10) -> list[int]:
    """Repetitions below which no LFT of the same matrices can hold each scalar block.

    With every other block fixed at a value, the LFT is a rational function of ``δ_i`` alone;
    the size of its minimal 1-D realisation (its McMillan degree in ``δ_i``, with ``δ_i``
    playing ``1/s``) is a lower bound on ``δ_i``'s repetitions in *any* LFT with the same
    values (states, inputs and outputs kept): an LFT holding ``δ_i`` ``r`` times gives, with
    the others fixed, a realisation of order ``r``. The bound is taken as the largest over
    ``samples`` seeded random values of the other blocks (normalised: uniform in [−1, 1], full
    blocks random matrices of norm ≤ 0.5).

    Parameters
    ----------
    S : ABCD
        LFT matrix, inputs ``[w; u]``, outputs ``[z; y]`` (``n`` states).
    blocks : sequence of (kind, nw, nz)
        Block kinds ("real", "complex", "full") and channel counts, in order.
    samples : int, optional
        Values of the other blocks tried per block (default 3).
    seed : int, optional
        Seed of those values (default 0).
    tol : float, optional
        Relative rank tolerance (times ``max(1, ‖N‖₂)``, ``N = [[A, B], [C, D]]`` after the
        scaling of :func:`_balance`: powers of 2 that even out its rows and columns).

    Returns
    -------
    list of int
        One bound per block (the block's own size for a full block).
    """
    n = S.n
    N = _balance(np.block([[S.A, S.B], [S.C, S.D]]), n, blocks, delta=True)[0]
    tol_abs = tol * max(1.0, np.linalg.norm(N, 2)) if N.size else tol
    rng = np.random.default_rng(seed)
    zs = np.cumsum([n] + [b[2] for b in blocks])
    ws = np.cumsum([n] + [b[1] for b in blocks])
    bounds = []
    for i, (kind, nw, nz) in enumerate(blocks):
        if kind == "full" or nw == 0:
            bounds.append(nw)
            continue
        zi, wi = np.arange(zs[i], zs[i] + nz), np.arange(ws[i], ws[i] + nw)
        zo = np.setdiff1d(np.arange(zs[0], zs[-1]), zi)
        wo = np.setdiff1d(np.arange(ws[0], ws[-1]), wi)
        keep_r = np.setdiff1d(np.arange(N.shape[0]), zo)
        keep_c = np.setdiff1d(np.arange(N.shape[1]), wo)
        best = 0
        for _ in range(samples):
            D = np.zeros((len(wo), len(zo)))
            r0 = c0 = 0
            for j, (kj, nwj, nzj) in enumerate(blocks):
                if j == i:
                    continue
                if kj == "full":
                    X = rng.standard_normal((nwj, nzj))
                    D[r0:r0 + nwj, c0:c0 + nzj] = 0.5 * X / max(np.linalg.norm(X, 2), 1e-300)
                else:
                    D[r0:r0 + nwj, c0:c0 + nzj] = rng.uniform(-1.0, 1.0) * np.eye(nwj)
                r0, c0 = r0 + nwj, c0 + nzj
            L = np.eye(len(zo)) - N[np.ix_(zo, wo)] @ D
            if L.size and np.linalg.cond(L) > 1e8:  # an ill-posed value: try another
                continue
            closed = N[np.ix_(keep_r, keep_c)] + N[np.ix_(keep_r, wo)] @ D @ np.linalg.solve(
                L, N[np.ix_(zo, keep_c)])
            rz = np.searchsorted(keep_r, zi)  # δ_i's rows and columns inside ``closed``
            cw = np.searchsorted(keep_c, wi)
            A1 = closed[np.ix_(rz, cw)]
            B1 = np.delete(closed[rz], cw, axis=1)
            C1 = np.delete(closed[:, cw], rz, axis=0)
            V = _reachable(A1, B1, tol_abs)
            best = max(best, _reachable((V.T @ A1 @ V).T, (C1 @ V).T, tol_abs).shape[1])
        bounds.append(best)
    return bounds
