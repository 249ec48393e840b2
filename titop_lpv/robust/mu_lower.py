"""Lower bound on the structured singular value, attained by a verified Δ.

Power iteration (Packard–Doyle for complex blocks, a continuous real update in the spirit of
Young–Doyle for real ones), a Newton projection that makes the eigenvalue of M Δ real, then
a local optimisation (SLSQP: smallest structured norm subject to ``det(I − M Δ) = 0``).
Every lower bound is attained by the Δ returned with it, and verified.
"""

from __future__ import annotations

from itertools import pairwise
from typing import Any

import numpy as np
import scipy.linalg as sla
from scipy import optimize

from .checks import check_count, check_seed
from .mu_upper import pow2_scale
from .structure import MuBound, MuStructure

__all__ = ["lower_batch", "mu_lower"]

VERIFY_TOL = 1e-8  # σ_min(I − M Δ)/(1 + σ̄(M) σ̄(Δ)) accepted as det(I − M Δ) = 0 ...
EIG_TOL = 1e-6  # ... if also an eigenvalue of M Δ is within this of 1 ...
MAX_GAIN = 1e8  # ... and σ̄(M) σ̄(Δ) is at most this (lower bounds below σ̄(M)/1e8 are dropped)


def _qmatrix(x: np.ndarray, z: np.ndarray, st: MuStructure) -> np.ndarray:
    """Q in the unit structured ball maximising Re(zᴴ Q x) (real δ: a continuous version)."""
    F = x.shape[0]
    Q = np.zeros((F, st.nw, st.nz), complex)
    s = (np.conj(x[:, st.sz]) * z[:, st.sw]) @ st.Ps
    mag = np.abs(s)
    safe = np.where(mag > 0, mag, 1.0)
    dl = np.where(mag > 0, np.where(st.isreal, s.real, s) / safe, 1.0)
    Q[:, st.sw, st.sz] = dl[:, st.sblk]
    for b, cop in zip(st.blocks, st.copies):
        if b.kind == "full":  # polar factor of Σ_k z_k x_kᴴ
            Mx = sum(z[:, w][:, :, None] * np.conj(x[:, c])[:, None, :] for w, c in cop)
            U, _, Vh = np.linalg.svd(Mx, full_matrices=False)
            for w, c in cop:
                Q[:, w[:, None], c[None, :]] = U @ Vh
    return Q


def _power(M: np.ndarray, st: MuStructure, x: np.ndarray, z: np.ndarray, iters: int = 60):
    MH = M.conj().transpose(0, 2, 1)
    for _ in range(iters):
        x = (M @ (_qmatrix(x, z, st) @ x[:, :, None]))[..., 0]
        x /= np.linalg.norm(x, axis=1, keepdims=True) + 1e-300
        Q = _qmatrix(x, z, st)
        z = (MH @ (Q.conj().transpose(0, 2, 1) @ z[:, :, None]))[..., 0]
        z /= np.linalg.norm(z, axis=1, keepdims=True) + 1e-300
    return _qmatrix(x, z, st)


def _eig_lr(A: np.ndarray, target: complex | None = None):
    """Eigenvalue of A (largest modulus, or nearest ``target``) with right/left vectors."""
    lam, Y, X = sla.eig(A, left=True, right=True)
    k = int(np.argmax(np.abs(lam))) if target is None else int(np.argmin(np.abs(lam - target)))
    return lam[k], X[:, k], Y[:, k]


def _dlam(M, x, y) -> np.ndarray:
    """dλ/dΔ (n_w × n_z) for the eigenvalue of M Δ with right x and left y."""
    return np.outer(M.T @ np.conj(y), x) / (np.conj(y) @ x)


def _realify(M: np.ndarray, Q: np.ndarray, st: MuStructure, rank: int = 0,
             target: complex | None = None, iters: int = 20) -> np.ndarray | None:
    """Move an eigenvalue of M Q (the ``rank``-th largest; rank −1: the largest within 17° of
    the real axis; or the nearest to ``target``) onto the real axis by minimum-norm Newton
    steps in the phase of the complex blocks and the real δ (clipped to [−1, 1]); return
    Δ = Q/λ with det(I − M Δ) = 0, or None."""
    Q = Q.copy()
    lam = _eig_lr(M @ Q, target)[0]
    if rank:
        al = np.linalg.eigvals(M @ Q)
        near = al[np.abs(al.imag) <= 0.3 * np.abs(al)]
        lam = al[np.argsort(-np.abs(al))[min(rank, al.size - 1)]] if rank > 0 else \
            near[np.argmax(np.abs(near))] if near.size else lam
    if not st.has_real:
        return Q / lam if lam != 0 else None
    cmask = np.zeros(Q.shape, bool)
    for i in np.flatnonzero(~st.isreal):
        cmask[np.ix_(st.widx[i], st.zidx[i])] = True
    sel = [st.sblk == i for i in np.flatnonzero(st.isreal)]
    best: tuple[float, np.ndarray, complex] | None = None  # the most nearly real iterate
    for _ in range(iters):
        lam, xr, yl = _eig_lr(M @ Q, lam)
        if abs(lam) == 0:
            break
        if best is None or abs(lam.imag) / abs(lam) < best[0]:
            best = (abs(lam.imag) / abs(lam), Q.copy(), lam)
        if abs(lam.imag) <= 1e-14 * abs(lam):
            break
        G = _dlam(M, xr, yl)
        J = np.array(([np.sum(G * 1j * Q * cmask).imag] if cmask.any() else []) +
                     [np.sum(G[st.sw[m], st.sz[m]]).imag for m in sel])
        if not np.any(J):
            break
        step = -lam.imag * J / (J @ J)
        if cmask.any():
            Q[cmask] *= np.exp(1j * step[0])
        for m, dl in zip(sel, step[-len(sel):]):
            Q[st.sw[m], st.sz[m]] = np.clip(Q[st.sw[m][0], st.sz[m][0]].real + dl, -1, 1)
    else:
        lam = _eig_lr(M @ Q, lam)[0]
        if lam != 0 and (best is None or abs(lam.imag) / abs(lam) < best[0]):
            best = (abs(lam.imag) / abs(lam), Q, lam)
    # a Newton step on a nearly flat phase (|Im dλ| ≈ 0) can throw a nearly real λ away:
    # keep the best iterate
    if best is None or best[0] > 1e-10:
        return None
    return best[1] / best[2].real


def _finish(M: np.ndarray, delta: np.ndarray | None, st: MuStructure, method: str):
    """A verified lower bound from Δ, or None.

    Three checks, so that a huge Δ cannot pass by the scale of the residual alone (for a
    singular M, σ_min(I − M Δ) stays O(1) while σ̄(M) σ̄(Δ) grows): σ̄(M) σ̄(Δ) ≤ ``MAX_GAIN``,
    the relative residual ≤ ``VERIFY_TOL``, and an eigenvalue of M Δ within ``EIG_TOL`` of 1
    (det(I − M Δ) = 0 means exactly that; it is a scale-free test)."""
    if delta is None or not np.all(np.isfinite(delta)) or st.norm(delta) == 0:
        return None
    nm, nd = np.linalg.norm(M, 2), np.linalg.norm(delta, 2)
    if nm * nd > MAX_GAIN:
        return None
    MD = M @ delta
    s = np.linalg.svd(np.eye(M.shape[0]) - MD, compute_uv=False)
    res = float(s[-1] / (1 + nm * nd))
    if res > VERIFY_TOL or np.abs(np.linalg.eigvals(MD) - 1.0).min() > EIG_TOL:
        return None
    return MuBound(1.0 / st.norm(delta), "lower", method, delta=delta, residual=res)


def _params(st: MuStructure, delta: np.ndarray | None = None, th: np.ndarray | None = None,
            G: np.ndarray | None = None):
    """Real parameters θ of a Δ (one copy per block): Δ → θ, θ → Δ, or dλ/dθ from dλ/dΔ."""
    out, k = [], 0
    new = np.zeros((st.nw, st.nz), complex) if th is not None else None
    for b, cop in zip(st.blocks, st.copies):
        n = 1 if b.kind == "real" else b.rows * b.cols
        if delta is not None:
            sub = delta[np.ix_(*cop[0])].ravel()
            out.append(sub.real if b.kind == "real" else np.r_[sub.real, sub.imag])
        if th is not None:
            v = th[k:k + n] + (1j * th[k + n:k + 2 * n] if b.kind != "real" else 0.0)
            for w, c in cop:
                new[np.ix_(w, c)] = v.reshape(len(w), len(c)) if b.kind == "full" else \
                    np.diag(np.full(len(w), v[0]))
        if G is not None:
            gs = sum(G[np.ix_(w, c)] for w, c in cop)
            gs = gs.ravel() if b.kind == "full" else np.array([np.trace(gs)])
            out.append(gs if b.kind == "real" else np.r_[gs, 1j * gs])
        k += n if b.kind == "real" else 2 * n
    return new if th is not None else np.concatenate(out)


def _polish(M: np.ndarray, delta: np.ndarray, st: MuStructure) -> np.ndarray | None:
    """SLSQP: minimise the structured norm t subject to λ(M Δ) = 1 (a local method)."""
    sizes = [1 if b.kind == "real" else 2 * b.rows * b.cols for b in st.blocks]
    edges = list(pairwise(np.cumsum([0, *sizes])))
    cache: dict[bytes, tuple] = {}

    def eig(v):
        key = v[:-1].tobytes()
        if key not in cache:
            cache.clear()
            lam, xr, yl = _eig_lr(M @ _params(st, th=v[:-1]), 1.0)
            cache[key] = (lam, _params(st, G=_dlam(M, xr, yl)))
        return cache[key]

    def ceq_jac(v):
        g = eig(v)[1]
        return np.vstack([np.r_[g.real, 0.0], np.r_[g.imag, 0.0]])

    def cin_jac(v):
        J = np.zeros((len(sizes), v.size))
        for i, (a, b) in enumerate(edges):
            J[i, a:b], J[i, -1] = -2 * v[a:b], 2 * v[-1]
        return J

    cons = [{"type": "eq", "jac": ceq_jac,
             "fun": lambda v: np.array([eig(v)[0].real - 1.0, eig(v)[0].imag])},
            {"type": "ineq", "jac": cin_jac,
             "fun": lambda v: np.array([v[-1] ** 2 - np.sum(v[a:b] ** 2) for a, b in edges])}]
    try:
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            r = optimize.minimize(lambda v: v[-1], np.r_[_params(st, delta),
                                                         1.0001 * st.norm(delta)],
                                  jac=lambda v: np.eye(v.size)[-1], method="SLSQP",
                                  constraints=cons, options={"maxiter": 200, "ftol": 1e-13})
    except (ValueError, np.linalg.LinAlgError):
        return None
    return _params(st, th=r.x[:-1])


def lower_batch(M: np.ndarray, st: MuStructure, seed: int = 0, starts: int = 1,
                 ranks: int = 1) -> list[MuBound]:
    """Power iteration on a stack of matrices (from the top singular vectors, plus
    ``starts − 1`` random starts) and projection to a real eigenvalue; verified bounds.

    Parameters
    ----------
    M : ndarray (F, n_z, n_w)
        The matrices.
    st : MuStructure
        The structure.
    seed : int, optional
        Seed of the random starts.
    starts : int, optional
        Number of starts (default 1: the top singular vectors only).
    ranks : int, optional
        With real blocks, number of eigenvalues of M Q tried for the projection (default 1).

    Returns
    -------
    list of MuBound
        One per matrix (value 0 where none was found).
    """
    F = M.shape[0]
    rng = np.random.default_rng(seed)
    U, _, Vh = np.linalg.svd(M)
    best = [MuBound(0.0, "lower", "none") for _ in range(F)]
    tries = [0, -1, 1, 2][:ranks] if st.has_real else [0]
    for k in range(starts):
        x, z = (U[:, :, 0], np.conj(Vh[:, 0, :])) if k == 0 else \
            (rng.normal(size=(F, st.nz)) + 1j * rng.normal(size=(F, st.nz)),
             rng.normal(size=(F, st.nw)) + 1j * rng.normal(size=(F, st.nw)))
        Q = _power(M, st, x, z)
        for f, r in ((f, r) for f in range(F) for r in tries):
            try:
                c = _finish(M[f], _realify(M[f], Q[f], st, r), st, "power iteration")
            except (np.linalg.LinAlgError, ValueError):
                c = None
            if c is not None and c.value > best[f].value:
                best[f] = c
    return best


def mu_lower(M: np.ndarray, blocks: Any, *, seed: int = 0, starts: int = 4) -> MuBound:
    """Lower bound on μ(M), attained by the Δ returned with it.

    Parameters
    ----------
    M : (n_z, n_w) array_like, complex
        The matrix (``w = Δ z`` closes the loop).
    blocks : DeltaStructure or sequence
        Block structure (see :func:`~titop_lpv.robust.blocks.as_structure`).
    seed : int
        Seed of the random starts (the result is deterministic for a given seed).
    starts : int
        Number of power-iteration starts (the first from the top singular vectors of M).

    Returns
    -------
    MuBound
        Guaranteed: ``value = 1/‖Δ‖`` for the returned ``delta`` in the structure, and
        ``det(I − M Δ) = 0`` verified: σ_min(I − M Δ) ≤ 1e-8 (1 + σ̄(M) σ̄(Δ)) (in
        ``residual``), an eigenvalue of M Δ within 1e-6 of 1, and σ̄(M) σ̄(Δ) ≤ 1e8 (so a
        bound below σ̄(M)/1e8 is reported as 0). Not guaranteed: that the bound equals μ
        (local maxima). Method: power iteration from several starts, projection onto a real
        eigenvalue of M Q (Newton in the phase of the complex blocks and in the real δ), then
        SLSQP minimising the
        structured norm subject to det(I − M Δ) = 0 from the two best candidates and, for
        real-only structures (where power iteration struggles), from six vertices of the δ
        box. Value 0 and ``delta=None`` when no Δ was found (for real-only structures and a
        complex M, μ is often exactly 0). M is first divided by a power of two near its
        largest entry (``μ(cM) = |c| μ(M)``, Δ scaled back), so huge and tiny matrices are
        bounded as accurately as others.

    Raises
    ------
    StructureError
        ``M`` is not one ``n_z × n_w`` matrix of finite numbers, or the structure is
        invalid.
    ArgumentTypeError
        ``M`` is not numeric, or ``seed`` or ``starts`` is not an integer.
    ArgumentError
        ``seed`` < 0, ``starts`` < 1 or above 1000, or either not an integer.
    """
    st = MuStructure(blocks)
    M = st.check(M, stack=False)
    seed = check_seed(seed, "seed", allow_none=False)
    starts = check_count(starts, "starts", minimum=1, maximum=1000)
    s = pow2_scale(M)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        b = _lower(M / s, st, seed, starts)
    if b.delta is None or not np.isfinite(b.value * s):
        return MuBound(0.0, "lower", b.method) if b.delta is not None else b
    return MuBound(b.value * s, "lower", b.method, delta=b.delta / s, residual=b.residual)


def _lower(M: np.ndarray, st: MuStructure, seed: Any, starts: int) -> MuBound:
    """:func:`mu_lower` on a checked, scaled matrix."""
    rng = np.random.default_rng(seed)
    cands = lower_batch(M[None], st, seed=int(rng.integers(2**31)), starts=starts, ranks=4)
    starts0 = [c.delta for c in sorted(cands, key=lambda c: -c.value)[:2] if c.delta is not None]
    for _ in range(min(6, 2 ** len(st.blocks)) if st.all_real else 0):
        Q = np.zeros((st.nw, st.nz), complex)
        Q[st.sw, st.sz] = rng.choice([-1.0, 1.0], len(st.blocks))[st.sblk]
        lam = np.linalg.eigvals(M @ Q)
        lam = lam[np.argmax(np.abs(lam.real))].real
        if abs(lam) > 1e-12 * np.linalg.norm(M, 2):
            starts0.append(Q / lam)
    best = max(cands, key=lambda c: c.value)
    for d0 in starts0:
        try:
            c = _finish(M, _realify(M, _polish(M, d0, st), st, target=1.0), st,
                        "power iteration + SLSQP")
        except (np.linalg.LinAlgError, ValueError, TypeError):
            c = None
        if c is not None and c.value > best.value:
            best = c
    return best
