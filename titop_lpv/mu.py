"""Structured singular value μ of complex matrices: bounds, certificates, frequency sweeps.

``M`` is ``n_z × n_w`` and the loop is closed by ``w = Δ z``: μ(M) is the inverse of the
smallest structured norm of a Δ with ``det(I − M Δ) = 0`` (0 if there is none). Δ is block
diagonal in the order of the blocks, each ``(kind, rows, cols, repeats)``:

* ``"real"``: δ I_repeats, δ real (rows = cols = 1); ``"complex"``: δ I_repeats, δ complex;
* ``"full"``: I_repeats ⊗ Δ₀, Δ₀ a complex ``rows × cols`` matrix (w-side rows, z-side cols).

The structured norm is the largest |δ| or σ̄(Δ₀) over the blocks: real δ are normalised to
[−1, 1], complex blocks to norm ≤ 1.

Upper bound (:func:`mu_upper`): SLICOT ``AB13MD`` (Fan, Tits & Doyle, IEEE TAC 1991: D and
G scalings), which accepts 1×1 real blocks and square full complex blocks only. Repeated
blocks are given to it as independent copies (a larger set of Δ, so a valid but conservative
bound: diagonal instead of full D, G); non-square full blocks are zero-padded (μ unchanged).
When blocks are repeated, full-block scalings (D = Tᴴ T, G̃ Hermitian on each repeated
block) are first optimised here and AB13MD runs on ``S M S⁻¹`` (S = Uᴴ T commutes with Δ,
so μ is unchanged), warm-started. Every bound is certified by the D, G returned:
``Mᴴ D M + j(G M − Mᴴ G) ≤ β² D``. Over frequency grids the same certificate is minimised
by a batched quasi-Newton method (any D > 0, G gives a valid bound) and AB13MD runs at the
peak only.

Lower bound (:func:`mu_lower`): power iteration (Packard–Doyle for complex blocks, a
continuous real update in the spirit of Young–Doyle for real ones), a Newton projection
that makes the eigenvalue of M Δ real, then a local optimisation (SLSQP: smallest
structured norm subject to ``det(I − M Δ) = 0``). Every lower bound is attained by the Δ
returned with it, and verified.
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import TYPE_CHECKING, Any

import numpy as np
import scipy.linalg as sla
from scipy import optimize

from .exceptions import TitopError

if TYPE_CHECKING:
    import control
    from matplotlib.figure import Figure

__all__ = ["Block", "MuBound", "MuResult", "StructureError", "as_blocks", "block_values",
           "freqresp", "mu_lower", "mu_sweep", "mu_upper", "structured_norm"]

KINDS = ("real", "complex", "full")
VERIFY_TOL = 1e-8  # σ_min(I − M Δ)/(1 + σ̄(M) σ̄(Δ)) accepted as det(I − M Δ) = 0


class StructureError(TitopError, ValueError):
    """A block structure is invalid or does not match the matrix it is applied to."""


@dataclass(frozen=True)
class Block:
    """One uncertainty block: ``kind`` ∈ {real, complex, full}, ``rows`` (w side) × ``cols``
    (z side) of one copy, ``repeats`` copies, optional ``name``."""

    kind: str
    rows: int = 1
    cols: int = 1
    repeats: int = 1
    name: str = ""

    @property
    def n_w(self) -> int:
        return self.rows * self.repeats

    @property
    def n_z(self) -> int:
        return self.cols * self.repeats


def as_blocks(obj: Any) -> tuple[Block, ...]:
    """Normalise a block structure.

    Parameters
    ----------
    obj
        A sequence of :class:`Block` or of tuples ``(kind, rows, cols, repeats[, name])``,
        or an object with a ``.blocks`` attribute whose items have the attributes ``kind``,
        ``rows``, ``cols``, ``repeats`` (and optionally ``name``), such as
        ``titop_lpv.uncertain.DeltaStructure``.

    Returns
    -------
    tuple of Block
        Names default to ``"<kind><index>"``.

    Raises
    ------
    StructureError
        Listing every invalid block.
    """
    out, problems = [], []
    for i, b in enumerate(getattr(obj, "blocks", obj)):
        if isinstance(b, (tuple, list)):
            if len(b) not in (4, 5):
                problems.append(f"block {i}: expected (kind, rows, cols, repeats[, name]), "
                                f"got {b!r}")
                continue
            b = Block(*b)
        kind, name = str(b.kind).lower(), str(getattr(b, "name", "") or f"{b.kind}{i}")
        try:
            rows, cols, rep = int(b.rows), int(b.cols), int(b.repeats)
        except (TypeError, ValueError):
            problems.append(f"block {name!r}: rows, cols and repeats must be integers")
            continue
        if kind not in KINDS:
            problems.append(f"block {name!r}: kind {b.kind!r} not in {KINDS}")
        elif min(rows, cols, rep) < 1:
            problems.append(f"block {name!r}: rows={rows}, cols={cols}, repeats={rep} must be "
                            ">= 1")
        elif kind != "full" and (rows, cols) != (1, 1):
            problems.append(f"block {name!r}: a {kind} scalar block has rows = cols = 1, got "
                            f"{rows}x{cols}")
        out.append(Block(kind, rows, cols, rep, name))
    if not out and not problems:
        problems.append("the structure has no block")
    if problems:
        raise StructureError("invalid block structure: " + "; ".join(problems))
    return tuple(out)


class _Structure:
    """Index maps of a structure: Δ channels, AB13MD's square padding, scaling parameters."""

    def __init__(self, blocks: Any):
        self.blocks = bl = as_blocks(blocks)
        nb = len(bl)
        self.nz, self.nw = sum(b.n_z for b in bl), sum(b.n_w for b in bl)
        self.N = N = sum(max(b.rows, b.cols) * b.repeats for b in bl)
        self.zidx, self.widx, self.pidx, self.copies = [], [], [], []
        zpos, wpos, ab_nb, ab_it, sz, sw, sblk = [], [], [], [], [], [], []
        colT, colG, self.dparam = [], [], np.zeros(N, int)

        def unit(pairs, c=1.0):
            e = np.zeros((N, N), complex)
            for a, b in pairs:
                e[a, b] = c
            return e

        z0 = w0 = p0 = 0
        for i, b in enumerate(bl):
            zi, wi, s = np.arange(z0, z0 + b.n_z), np.arange(w0, w0 + b.n_w), max(b.rows, b.cols)
            P = [np.arange(p0 + k * s, p0 + (k + 1) * s) for k in range(b.repeats)]
            cop = [(wi[k * b.rows:(k + 1) * b.rows], zi[k * b.cols:(k + 1) * b.cols])
                   for k in range(b.repeats)]
            self.zidx.append(zi), self.widx.append(wi), self.copies.append(cop)
            self.pidx.append(np.concatenate(P))
            for Pk in P:
                zpos += list(Pk[:b.cols])
                wpos += list(Pk[:b.rows])
            ab_nb += [s] * b.repeats
            ab_it += [1 if b.kind == "real" else 2] * b.repeats
            if b.kind != "full":
                sz, sw, sblk = sz + list(zi), sw + list(wi), sblk + [i] * b.repeats
            for k, m in ((k, m) for k in range(b.repeats) for m in range(b.repeats)):
                pairs = list(zip(P[k], P[m]))  # T = T_r ⊗ I_s on the block
                if k == m:
                    self.dparam[P[k]] = len(colT)
                colT.append(unit(pairs))
                if b.repeats > 1:
                    colT.append(unit(pairs, 1j))
                if b.kind == "real" and k <= m:  # G̃ Hermitian on repeated reals
                    back = [(c, r) for r, c in pairs]
                    colG.append(unit(pairs) + unit(back) if k < m else unit(pairs))
                    if k < m:
                        colG.append(unit(pairs, 1j) + unit(back, -1j))
            z0, w0, p0 = z0 + b.n_z, w0 + b.n_w, p0 + s * b.repeats
        self.zpos, self.wpos = np.array(zpos), np.array(wpos)
        self.ab_nblock, self.ab_itype = np.array(ab_nb), np.array(ab_it)
        # diagonal scalings (AB13MD's set): one log d per AB13MD block, one g̃ per real one
        self.dgrp = np.repeat(np.arange(len(ab_nb)), ab_nb)
        self.Pd = np.zeros((N, len(ab_nb)))
        self.Pd[np.arange(N), self.dgrp] = 1.0
        self.realpad = np.repeat(np.array(ab_it) == 1, ab_nb)
        self.nd, self.nr = len(ab_nb), int(self.realpad.sum())
        self.AT = np.array([c.ravel() for c in colT]).T
        self.AG = np.array([c.ravel() for c in colG]).T.reshape(N * N, len(colG))
        self.nT, self.nG = len(colT), len(colG)
        self.isreal = np.array([b.kind == "real" for b in bl])
        self.has_real, self.all_real = bool(self.isreal.any()), bool(self.isreal.all())
        self.repeated = any(b.repeats > 1 for b in bl)
        self.sz, self.sw, self.sblk = np.array(sz, int), np.array(sw, int), np.array(sblk, int)
        self.Ps = np.zeros((len(sz), nb))
        self.Ps[np.arange(len(sz)), self.sblk] = 1.0

    def check(self, M: np.ndarray) -> np.ndarray:
        M = np.asarray(M, dtype=complex)
        if M.shape[-2:] != (self.nz, self.nw):
            desc = ", ".join(f"{b.name} ({b.kind} {b.rows}x{b.cols} x{b.repeats})"
                             for b in self.blocks)
            raise StructureError(f"M is {M.shape[-2]}x{M.shape[-1]} but the structure [{desc}] "
                                 f"needs n_z x n_w = {self.nz}x{self.nw} (M maps w to z)")
        return M

    def pad(self, M: np.ndarray) -> np.ndarray:
        Z = np.zeros((*M.shape[:-2], self.N, self.N), complex)
        Z[..., self.zpos[:, None], self.wpos[None, :]] = M
        return Z

    def norm(self, delta: np.ndarray) -> float:
        """Structured norm of a Δ (n_w × n_z) of this structure."""
        return float(max(np.linalg.norm(delta[np.ix_(*cop[0])], 2) for cop in self.copies))


def structured_norm(delta: np.ndarray, blocks: Any) -> float:
    """Structured norm max(|δ_i|, σ̄(Δ₀_j)) of a block-diagonal Δ (``n_w × n_z``)."""
    return _Structure(blocks).norm(np.asarray(delta, complex))


def block_values(delta: np.ndarray, blocks: Any) -> dict[str, Any]:
    """Each block of Δ by name: float (real), complex, or the ``rows × cols`` matrix Δ₀."""
    st = _Structure(blocks)
    out: dict[str, Any] = {}
    for b, cop in zip(st.blocks, st.copies):
        sub = np.asarray(delta)[np.ix_(*cop[0])]
        out[b.name] = (float(sub[0, 0].real) if b.kind == "real" else
                       complex(sub[0, 0]) if b.kind == "complex" else sub.copy())
    return out


@dataclass(frozen=True)
class MuBound:
    """A bound on μ(M).

    Attributes
    ----------
    value : float
        The bound.
    kind : str
        ``"upper"`` or ``"lower"``.
    method : str
        How it was obtained.
    D, G : ndarray or None
        Upper bound: Hermitian D > 0 and G, block diagonal and commuting with Δ, on the square
        zero-padded matrix Z (= M when every full block is square), with
        ``Zᴴ D Z + j(G Z − Zᴴ G) ≤ value² D`` (Fan–Tits–Doyle certificate).
    delta : ndarray or None
        Lower bound: a Δ (``n_w × n_z``) in the structure with structured norm 1/value and
        ``det(I − M Δ) = 0`` (None when the bound is 0).
    residual : float
        Lower bound: σ_min(I − M Δ)/(1 + σ̄(M) σ̄(Δ)), verified ≤ 1e-8.
    """

    value: float
    kind: str
    method: str
    D: np.ndarray | None = None
    G: np.ndarray | None = None
    delta: np.ndarray | None = None
    residual: float = 0.0


# --------------------------------------------------------------------------- upper bound
def _certify(Z: np.ndarray, D: np.ndarray, G: np.ndarray) -> float:
    """Smallest β with Zᴴ D Z + j(G Z − Zᴴ G) ≤ β² D."""
    L = Z.conj().T @ D @ Z + 1j * (G @ Z - Z.conj().T @ G)
    return float(np.sqrt(max(sla.eigh((L + L.conj().T) / 2, D, eigvals_only=True)[-1], 0.0)))


def _dg_eval(x: np.ndarray, Z: np.ndarray, st: _Structure, t: np.ndarray, full: bool):
    """Smoothed λ_max of Nᴴ N + j(G̃ N − Nᴴ G̃), N = T Z T⁻¹, and its gradient in x: full
    blocks (x = T, G̃ entries) or diagonal (x = log d, asinh g̃; elementwise, about 4× faster:
    the optimum is often at d, g̃ → ∞, which these coordinates reach in few steps)."""
    F, N = Z.shape[0], st.N
    if full:
        T = (x[:, :st.nT] @ st.AT.T).reshape(F, N, N)
        Gt = (x[:, st.nT:] @ st.AG.T).reshape(F, N, N)
        ok = np.linalg.slogdet(T)[1] > np.log(1e-12) + np.log(np.linalg.norm(T, axis=2)).sum(1)
        T[~ok] = np.eye(N)
        Ti = np.linalg.inv(T)
        Nm = T @ Z @ Ti
    else:
        d = np.exp(np.clip(x[:, :st.nd] @ st.Pd.T, -60, 60))
        xi = np.clip(x[:, st.nd:], -200, 200)
        g = np.zeros((F, N))
        g[:, st.realpad] = np.sinh(xi)
        Nm, ok = Z * (d[:, :, None] / d[:, None, :]), np.ones(F, bool)
    NH = Nm.conj().transpose(0, 2, 1)
    H = NH @ Nm
    H += 1j * ((Gt @ Nm - NH @ Gt) if full else (g[:, :, None] * Nm - NH * g[:, None, :]))
    lam, V = np.linalg.eigh(H)
    p = np.exp((lam - lam[:, -1:]) / t[:, None])
    S = p.sum(1)
    p /= S[:, None]
    U = Nm @ V
    W = U - 1j * (Gt @ V if full else g[:, :, None] * V)
    Vp, Up = V * p[:, None, :], U * p[:, None, :]
    if full:
        C = Ti @ (Up @ W.conj().transpose(0, 2, 1) - Vp @ (NH @ W).conj().transpose(0, 2, 1))
        grad = [2 * np.real(C.transpose(0, 2, 1).reshape(F, N * N) @ st.AT)]
        if st.nG:
            CG = 1j * Up @ V.conj().transpose(0, 2, 1)
            grad.append(2 * np.real(CG.transpose(0, 2, 1).reshape(F, N * N) @ st.AG))
    else:
        K = (W.conj() * Up).real.sum(2) - ((NH @ W).conj() * Vp).real.sum(2)
        grad = [2 * K @ st.Pd, -2 * (V.conj() * Up).imag.sum(2)[:, st.realpad] * np.cosh(xi)]
    return lam[:, -1] + t * np.log(S), np.concatenate(grad, 1), np.where(ok, lam[:, -1], np.inf)


def _dg_init(Z: np.ndarray, st: _Structure, iters: int = 20) -> np.ndarray:
    """Osborne balancing: log d per AB13MD block, g̃ = 0 (diagonal parametrisation)."""
    A2 = np.abs(Z) ** 2
    A2[:, np.arange(st.N), np.arange(st.N)] = 0.0
    ld = np.zeros((Z.shape[0], st.nd))
    for _ in range(iters):
        d2 = np.exp(2 * ld @ st.Pd.T)
        r = np.einsum("fkj,fj->fk", A2, 1 / d2) * d2 @ st.Pd
        c = np.einsum("fjk,fj->fk", A2, d2) / d2 @ st.Pd
        ld = np.clip(ld + 0.25 * np.clip(np.log((c + 1e-300) / (r + 1e-300)), -2, 2), -20, 20)
    return np.concatenate([ld - ld[:, :1], np.zeros((Z.shape[0], st.nr))], 1)


def _to_full(xd: np.ndarray, st: _Structure) -> np.ndarray:
    """Diagonal scalings (log d, g̃) as full-block parameters (T, G̃)."""
    x = np.zeros((xd.shape[0], st.nT + st.nG))
    x[:, st.dparam] = np.exp(xd[:, :st.nd] @ st.Pd.T)
    if st.nG:
        G = np.zeros((xd.shape[0], st.N * st.N))
        G[:, np.flatnonzero(st.realpad) * (st.N + 1)] = np.sinh(xd[:, st.nd:])
        x[:, st.nT:] = np.linalg.lstsq(st.AG, G.T.astype(complex), rcond=None)[0].real.T
    return x


def _dg_batch(Z: np.ndarray, st: _Structure, x0: np.ndarray | None = None, iters: int = 40,
              full: bool = False, tau: float = 2e-3) -> tuple[np.ndarray, np.ndarray]:
    """Batched L-BFGS on the smoothed certificate: the best valid bounds and their scalings
    (overflowing trial steps are rejected by the line search)."""
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        return _dg_lbfgs(Z, st, x0, iters, full, tau)


def _dg_lbfgs(Z, st, x0, iters, full, tau):
    F, nv = Z.shape[0], (st.nT + st.nG) if full else (st.nd + st.nr)
    if st.N == 1 and st.all_real:  # exact: |z| if z is real, else 0
        z = Z[:, 0, 0]
        return np.where(z.imag == 0, np.abs(z), 0.0), np.ones((F, nv))
    x = np.array(x0, float) if x0 is not None else _to_full(_dg_init(Z, st), st) if full \
        else _dg_init(Z, st)
    l0 = np.maximum(_dg_eval(x, Z, st, np.ones(F), full)[2], 1e-300)
    t = tau * l0
    f, gr, lm = _dg_eval(x, Z, st, t, full)
    best, xbest = lm.copy(), x.copy()
    mem = 8
    Sm, Ym, Rho = np.zeros((mem, F, nv)), np.zeros((mem, F, nv)), np.zeros((mem, F))
    gamma, a_prev, last, frozen = 1.0 / l0, np.ones(F), best.copy(), np.zeros(F, bool)
    for it in range(iters):
        if it % 10 == 9:  # keep the smoothing relative to the current λ_max; freeze stalls
            frozen |= best >= last * (1 - 1e-9)
            if frozen.all():
                break
            t, last = tau * np.clip(lm, 1e-12 * l0, t / tau), best.copy()
            f, gr, lm = _dg_eval(x, Z, st, t, full)
        q, alpha = gr.copy(), np.zeros((mem, F))
        order = [(it - 1 - j) % mem for j in range(min(it, mem))]
        for j in order:
            alpha[j] = Rho[j] * (Sm[j] * q).sum(1)
            q -= alpha[j][:, None] * Ym[j]
        q *= gamma[:, None]
        for j in reversed(order):
            q += Sm[j] * (alpha[j] - Rho[j] * (Ym[j] * q).sum(1))[:, None]
        p, slope = -q, -(q * gr).sum(1)
        bad = slope >= 0
        p[bad], slope[bad] = -gr[bad] * gamma[bad, None], -(gr[bad] ** 2).sum(1) * gamma[bad]
        stop = frozen | (best <= 1e-12 * l0) | ~np.all(np.isfinite(p), 1) | \
            (np.abs(x).max(1) > 1e8)
        p[stop], slope[stop] = 0.0, 0.0
        a, act = np.minimum(1.0, 3 * a_prev), slope < 0
        xn, fn, gn, lmn = x.copy(), f.copy(), gr.copy(), lm.copy()
        for _ in range(10):  # Armijo backtracking, vectorised
            ii = np.flatnonzero(act)
            if ii.size == 0:
                break
            xt = x[ii] + a[ii, None] * p[ii]
            ft, gt, lt = _dg_eval(xt, Z[ii], st, t[ii], full)
            ok = ft <= f[ii] + 1e-4 * a[ii] * slope[ii]
            j = ii[ok]
            xn[j], fn[j], gn[j], lmn[j] = xt[ok], ft[ok], gt[ok], lt[ok]
            act[j] = False
            a[ii[~ok]] *= 0.3
        a_prev = np.where(act, a_prev, a)
        s, y = xn - x, gn - gr
        sy = (s * y).sum(1)
        upd = sy > 1e-12 * np.sqrt((s * s).sum(1) * (y * y).sum(1)) + 1e-300
        Sm[it % mem], Ym[it % mem] = s, y
        Rho[it % mem] = np.where(upd, 1.0 / np.where(upd, sy, 1.0), 0.0)
        gamma = np.where(upd, sy / np.maximum((y * y).sum(1), 1e-300), gamma)
        x, f, gr, lm = xn, fn, gn, lmn
        better = lm < best
        best[better], xbest[better] = lm[better], x[better]
    return np.sqrt(np.maximum(best, 0.0)), xbest


def _upper_single(Z: np.ndarray, st: _Structure, xd: np.ndarray | None = None) -> MuBound:
    """AB13MD warm-started from diagonal scalings ``xd``, or, when blocks are repeated, after
    a similarity by full-block scalings; the smallest certified bound."""
    import slycot

    if st.N == 1 and st.all_real:  # AB13MD returns 0 for a 1x1 real block, even for real Z
        z = Z[0, 0]
        return MuBound(float(abs(z)) if z.imag == 0 else 0.0, "upper", "exact (1x1 real)",
                       np.eye(1), np.zeros((1, 1)))
    cands: list[MuBound] = []
    S, dv, g = np.eye(st.N, dtype=complex), np.ones(st.N), np.zeros(st.N)
    if xd is not None and not st.repeated:  # certificate units, d_1 = 1
        dv = np.exp(np.clip(xd[:st.nd] - xd[0], -9.0, 9.0))[st.dgrp]
        g[st.realpad] = np.sinh(xd[st.nd:]) * dv[st.realpad] ** 2
    if st.repeated:  # S = Uᴴ T makes D = I and G diagonal for AB13MD
        # from Osborne, not from the grid's scalings: AB13MD then improves more (measured)
        ubf, xf = _dg_batch(Z[None], st, _to_full(_dg_init(Z[None], st), st), iters=60,
                            full=True)
        T = (xf[0, :st.nT] @ st.AT.T).reshape(st.N, st.N)
        Gt = (xf[0, st.nT:] @ st.AG.T).reshape(st.N, st.N) if st.nG else np.zeros_like(T)
        cands.append(MuBound(float(ubf[0]), "upper", "D-G scalings (full blocks)",
                             T.conj().T @ T, T.conj().T @ Gt @ T))
        U, g, dv = np.eye(st.N, dtype=complex), np.zeros(st.N), np.ones(st.N)
        for P in st.pidx:
            g[P], U[np.ix_(P, P)] = np.linalg.eigh(Gt[np.ix_(P, P)])
        S = U.conj().T @ T
    Z2 = S @ Z @ np.linalg.inv(S)
    first = np.r_[0, np.cumsum(st.ab_nblock)[:-1]]
    # AB13MD's barrier keeps its internal G = g/(d² ‖D Z D⁻¹‖) in (−τ, τ), τ <= 100: a warm
    # start outside that box makes it loop (measured), so it is clipped
    gi = g[st.realpad] / dv[st.realpad] ** 2 / np.linalg.norm(dv[:, None] * Z2 / dv[None], 2)
    xab = None if xd is None and not st.repeated else \
        np.r_[dv[first][1:] ** 2, np.clip(gi, -30.0, 30.0) * dv[st.realpad] ** 2]
    if xab is not None and not (np.all(np.isfinite(xab)) and np.all(xab[:len(first) - 1] > 0)):
        xab = None
    try:
        try:
            bound, dd, gg, _ = slycot.ab13md(Z2, st.ab_nblock, st.ab_itype, xab)
        except Exception:
            if xab is None:
                raise
            bound, dd, gg, _ = slycot.ab13md(Z2, st.ab_nblock, st.ab_itype)
        D = S.conj().T @ np.diag(np.asarray(dd, float) ** 2) @ S
        G = S.conj().T @ np.diag(np.asarray(gg, float)) @ S
        cands.append(MuBound(max(_certify(Z, D, G), float(bound)), "upper", "AB13MD", D, G))
    except Exception as exc:  # SlycotArithmeticError, singular D: keep our own certificate
        if not cands:
            ub, x = _dg_batch(Z[None], st, None if xd is None else xd[None], iters=60)
            dv = np.exp(x[0, :st.nd] - x[0, 0])[st.dgrp]
            g[st.realpad] = np.sinh(x[0, st.nd:]) * dv[st.realpad] ** 2
            cands.append(MuBound(float(ub[0]), "upper", "D-G scalings", np.diag(dv**2),
                                 np.diag(g)))
        cands = [MuBound(c.value, "upper", f"{c.method} (AB13MD failed: {exc})", c.D, c.G)
                 for c in cands]
    return min(cands, key=lambda c: c.value)


def mu_upper(M: np.ndarray, blocks: Any) -> MuBound:
    """Upper bound on μ(M) from SLICOT AB13MD, with its D, G scalings.

    Parameters
    ----------
    M : (n_z, n_w) array_like, complex
    blocks
        Block structure (see :func:`as_blocks`).

    Returns
    -------
    MuBound
        ``value`` is certified by the returned D, G (the smallest β with
        ``Zᴴ D Z + j(G Z − Zᴴ G) ≤ β² D``, Z = M zero-padded). AB13MD sees repeated blocks
        as independent copies; with repeated blocks, full-block scalings are optimised
        first and AB13MD runs on the matrix transformed by them (module docstring).
    """
    st = _Structure(blocks)
    return _upper_single(st.pad(st.check(M)), st)


# --------------------------------------------------------------------------- lower bound
def _qmatrix(x: np.ndarray, z: np.ndarray, st: _Structure) -> np.ndarray:
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


def _power(M: np.ndarray, st: _Structure, x: np.ndarray, z: np.ndarray, iters: int = 60):
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


def _realify(M: np.ndarray, Q: np.ndarray, st: _Structure, rank: int = 0,
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
    for _ in range(iters):
        lam, xr, yl = _eig_lr(M @ Q, lam)
        if abs(lam) == 0:
            return None
        if abs(lam.imag) <= 1e-14 * abs(lam):
            break
        G = _dlam(M, xr, yl)
        J = np.array(([np.sum(G * 1j * Q * cmask).imag] if cmask.any() else []) +
                     [np.sum(G[st.sw[m], st.sz[m]]).imag for m in sel])
        if not np.any(J):
            return None
        step = -lam.imag * J / (J @ J)
        if cmask.any():
            Q[cmask] *= np.exp(1j * step[0])
        for m, dl in zip(sel, step[-len(sel):]):
            Q[st.sw[m], st.sz[m]] = np.clip(Q[st.sw[m][0], st.sz[m][0]].real + dl, -1, 1)
    return Q / lam.real if abs(lam.imag) <= 1e-10 * abs(lam) else None


def _finish(M: np.ndarray, delta: np.ndarray | None, st: _Structure, method: str):
    """A verified lower bound from Δ, or None."""
    if delta is None or not np.all(np.isfinite(delta)) or st.norm(delta) == 0:
        return None
    s = np.linalg.svd(np.eye(M.shape[0]) - M @ delta, compute_uv=False)
    res = float(s[-1] / (1 + np.linalg.norm(M, 2) * np.linalg.norm(delta, 2)))
    return MuBound(1.0 / st.norm(delta), "lower", method, delta=delta, residual=res) \
        if res <= VERIFY_TOL else None


def _params(st: _Structure, delta: np.ndarray | None = None, th: np.ndarray | None = None,
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


def _polish(M: np.ndarray, delta: np.ndarray, st: _Structure) -> np.ndarray | None:
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


def _lower_batch(M: np.ndarray, st: _Structure, seed: int = 0, starts: int = 1,
                 ranks: int = 1) -> list[MuBound]:
    """Power iteration on a stack of matrices (from the top singular vectors, plus
    ``starts − 1`` random starts) and projection to a real eigenvalue; verified bounds."""
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
    blocks
        Block structure (see :func:`as_blocks`).
    seed : int
        Seed of the random starts (the result is deterministic for a given seed).
    starts : int
        Number of power-iteration starts (the first from the top singular vectors of M).

    Returns
    -------
    MuBound
        Guaranteed: ``value = 1/‖Δ‖`` for the returned ``delta`` in the structure, and
        ``det(I − M Δ) = 0`` verified (σ_min(I − M Δ) ≤ 1e-8 (1 + σ̄(M) σ̄(Δ)), in
        ``residual``). Not guaranteed: that the bound equals μ (local maxima). Method: power
        iteration from several starts, projection onto a real eigenvalue of M Q (Newton in
        the phase of the complex blocks and in the real δ), then SLSQP minimising the
        structured norm subject to det(I − M Δ) = 0 from the two best candidates and, for
        real-only structures (where power iteration struggles), from six vertices of the δ
        box. Value 0 and ``delta=None`` when no Δ was found (for real-only structures and a
        complex M, μ is often exactly 0).
    """
    st = _Structure(blocks)
    M = st.check(M)
    rng = np.random.default_rng(seed)
    cands = _lower_batch(M[None], st, seed=int(rng.integers(2**31)), starts=starts, ranks=4)
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


# --------------------------------------------------------------------------- sweeps
def freqresp(sys: Any, omega: Sequence[float] | np.ndarray) -> np.ndarray:
    """Frequency response ``C (jω I − A)⁻¹ B + D`` of a state-space system, as an array
    (n_omega, n_out, n_in); ``omega`` in rad/s."""
    A, B, C, D = (np.asarray(getattr(sys, m), float) for m in "ABCD")
    omega = np.asarray(omega, float).ravel()
    out = np.empty((omega.size, D.shape[0], D.shape[1]), complex)
    for k in range(0, omega.size, 64):
        w = omega[k:k + 64]
        X = np.linalg.solve(1j * w[:, None, None] * np.eye(A.shape[0]) - A,
                            np.broadcast_to(B, (w.size, *B.shape))) if A.size else 0.0
        out[k:k + 64] = C @ X + D if A.size else D
    return out


@dataclass(frozen=True)
class MuResult:
    """μ bounds against frequency.

    Attributes
    ----------
    omega : ndarray
        Frequencies [rad/s]: the grid plus the refined peak frequency.
    upper, lower : ndarray
        Valid bounds at each frequency (``lower`` is 0 where none was sought or found).
    peak_upper, omega_upper : float
        Largest upper bound and its frequency [rad/s].
    peak_lower, omega_lower : float
        Largest lower bound and its frequency [rad/s].
    delta : ndarray or None
        Δ attaining ``peak_lower``: det(I − M(j omega_lower) Δ) = 0, ‖Δ‖ = 1/peak_lower.
    blocks : tuple of Block
    ab13md_omega : ndarray
        Frequencies where AB13MD was run (elsewhere the batched D-G certificate bounds μ).
    """

    omega: np.ndarray
    upper: np.ndarray
    lower: np.ndarray
    peak_upper: float
    omega_upper: float
    peak_lower: float
    omega_lower: float
    delta: np.ndarray | None
    blocks: tuple[Block, ...]
    ab13md_omega: np.ndarray

    def report(self) -> str:
        """Peak bounds, where they are, and the gap."""
        gap = self.peak_upper / self.peak_lower - 1 if self.peak_lower > 0 else np.inf
        blocks = ", ".join(f"{b.name}:{b.kind}" + (f"x{b.repeats}" if b.repeats > 1 else "")
                           for b in self.blocks)
        return "\n".join([
            f"μ over {self.omega.size} frequencies in [{self.omega.min():.4g}, "
            f"{self.omega.max():.4g}] rad/s; blocks {blocks}",
            f"  peak upper bound {self.peak_upper:.6g} at ω = {self.omega_upper:.6g} rad/s",
            f"  peak lower bound {self.peak_lower:.6g} at ω = {self.omega_lower:.6g} rad/s "
            "(attained by a verified Δ)",
            f"  gap {gap:.2%}; AB13MD at {self.ab13md_omega.size} frequencies"])

    def plot(self, *, ax: Any = None) -> Figure:
        """Upper and lower bounds against ω (log axis); returns the Figure."""
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(6.5, 4), layout="constrained") if ax is None \
            else (ax.figure, ax)
        pos = self.omega > 0
        ax.semilogx(self.omega[pos], self.upper[pos], label="upper bound")
        ax.semilogx(self.omega[pos], self.lower[pos], "--", label="lower bound")
        for w, v, m in ((self.omega_upper, self.peak_upper, "v"),
                        (self.omega_lower, self.peak_lower, "^")):
            if w > 0:
                ax.plot(w, v, m, color="k")
        ax.set_xlabel("ω [rad/s]")
        ax.set_ylabel("μ")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend()
        return fig


def _upper_grid(Z: np.ndarray, st: _Structure):
    """Certified D-G bounds on a grid, refined lazily: a few quasi-Newton steps of diagonal
    scalings everywhere (warm-started from a coarse subset), then rounds of more steps (and
    full-block scalings if blocks repeat) on every point above the best refined bound."""
    F = Z.shape[0]
    idx = np.unique(np.r_[np.arange(0, F, 10), F - 1])
    ub_c, x_c = _dg_batch(Z[idx], st, iters=25)
    near = idx[np.clip(np.searchsorted(idx, np.arange(F)), 0, idx.size - 1)]
    ub, x = _dg_batch(Z, st, x_c[np.searchsorted(idx, near)], iters=4)
    better = ub_c < ub[idx]
    ub[idx[better]], x[idx[better]] = ub_c[better], x_c[better]
    level, top = np.zeros(F, int), 2 if st.repeated else 1
    level[idx] = 1
    xf: dict[int, np.ndarray] = {}
    for _ in range(12):
        thr = ub[level == top].max() if np.any(level == top) else -np.inf
        cand = np.flatnonzero((ub > thr) & (level < top))
        if cand.size == 0:
            break
        cand = cand[np.argsort(-ub[cand])][:32]
        for lev in range(top):
            c = cand[level[cand] == lev]
            if c.size and lev == 0:
                u, x[c] = _dg_batch(Z[c], st, x[c], iters=30)
            elif c.size:
                u, xfc = _dg_batch(Z[c], st, _to_full(x[c], st), iters=40, full=True)
                xf.update(zip(c.tolist(), xfc))
            if c.size:
                ub[c], level[c] = np.minimum(ub[c], u), lev + 1
    return ub, x, xf


def mu_sweep(sys: control.StateSpace, blocks: Any, omega: Sequence[float] | np.ndarray, *,
             lower: bool = True, refine: bool = True, polish: int = 400,
             seed: int = 0) -> MuResult:
    """μ bounds of a system's frequency response over a grid, with peak refinement.

    Parameters
    ----------
    sys : control.StateSpace
        The Δ-channel part M11 (``n_z`` outputs, ``n_w`` inputs).
    blocks
        Block structure (see :func:`as_blocks`).
    omega : array_like
        Frequencies [rad/s], ≥ 0. Include 0 with real blocks: real μ can be discontinuous
        where M is real.
    lower : bool
        Compute the lower bound at every frequency (batched power iteration); when False, only
        near the peak.
    refine : bool
        Refine the peak between the neighbours of the largest grid bound: bounded scalar
        maximisation of the lower bound (of the D-G bound if the lower bound is 0 there),
        then AB13MD and :func:`mu_lower` at the maximiser.
    polish : int
        Closing the gap once the lower bound is known (0: not at all): D-G quasi-Newton steps
        (this many) on the points whose upper bound exceeds the peak lower bound by more than
        1e-7 and is within 5 % of the largest (at most 6 rounds of 32, largest first); with
        repeated blocks, AB13MD instead on the largest point (at most twice).
    seed : int
        Seed of the lower-bound starts.

    Returns
    -------
    MuResult
        Upper bound: the batched D-G certificate everywhere, AB13MD at the largest grid bounds
        (until the largest is AB13MD's, at most 3), at the refined peak and (``polish``) at
        most twice more. Lower bound: power
        iteration everywhere, :func:`mu_lower` at the largest grid upper bound and at the
        refined peak.
    """
    st = _Structure(blocks)
    omega = np.unique(np.asarray(omega, float).ravel())
    if omega.size == 0 or omega[0] < 0 or not np.all(np.isfinite(omega)):
        raise StructureError("omega must be a non-empty set of finite frequencies >= 0")
    if getattr(sys, "dt", 0) not in (0, None):
        raise StructureError(f"the system is discrete-time (dt = {sys.dt}); only continuous "
                             "time is handled")
    if (sys.noutputs, sys.ninputs) != (st.nz, st.nw):
        raise StructureError(f"the system has {sys.noutputs} outputs and {sys.ninputs} inputs "
                             f"but the structure needs n_z = {st.nz} outputs and n_w = "
                             f"{st.nw} inputs")
    Mw = freqresp(sys, omega)
    Z = st.pad(Mw)
    ub, xs, xf = _upper_grid(Z, st)
    done: dict[int, MuBound] = {}
    heap = [(-u, k) for k, u in enumerate(ub)]
    heapq.heapify(heap)
    while heap and len(done) < 3:  # AB13MD on the largest bounds until the max is AB13MD's
        k = heapq.heappop(heap)[1]
        if k in done:
            break
        done[k] = _upper_single(Z[k], st, xs[k])
        ub[k] = min(ub[k], done[k].value)
        heapq.heappush(heap, (-ub[k], k))
    kmax = int(np.argmax(ub))
    extra_w, extra_u = [], []
    if refine and omega.size > 1:  # maximise the lower bound (else the D-G bound) near kmax
        lo, hi = omega[max(kmax - 1, 0)], omega[min(kmax + 1, omega.size - 1)]
        full = kmax in xf
        x0 = (xf[kmax] if full else xs[kmax])[None]
        use_lower = _lower_batch(Mw[kmax:kmax + 1], st)[0].value > 0

        def neg(w):
            Mk = freqresp(sys, [w])
            if use_lower:
                return -_lower_batch(Mk, st)[0].value
            return -_dg_batch(st.pad(Mk), st, x0, iters=10, full=full)[0][0]

        w_star = float(optimize.minimize_scalar(neg, bounds=(lo, hi), method="bounded",
                                                options={"xatol": 1e-5 * max(hi, 1e-12)}).x)
        if not np.any(np.isclose(omega, w_star, rtol=1e-12, atol=0)):
            b = _upper_single(st.pad(freqresp(sys, [w_star]))[0], st, xs[kmax])
            extra_w, extra_u = [w_star], [b.value]
    order = np.argsort(np.r_[omega, extra_w], kind="stable")
    w_all, u_all = np.r_[omega, extra_w][order], np.r_[ub, extra_u][order]
    M_all = (np.concatenate([Mw, freqresp(sys, extra_w)]) if extra_w else Mw)[order]
    x_all = np.concatenate([xs, xs[[kmax] * len(extra_w)]])[order]
    lbs = _lower_batch(M_all, st, seed=seed) if lower else \
        [MuBound(0.0, "lower", "none") for _ in w_all]
    for k in np.unique(np.r_[np.argmax(u_all), np.flatnonzero(np.isin(w_all, extra_w))]):
        b = mu_lower(M_all[k], st.blocks, seed=seed, starts=2)
        lbs[k] = b if b.value > lbs[k].value else lbs[k]
    l_all = np.array([b.value for b in lbs])
    ab_done = set(np.flatnonzero(np.isin(w_all, np.r_[omega[list(done)], extra_w])).tolist())
    for _ in range(2 if polish and st.repeated else 0):  # AB13MD on the max, if not yet run
        k = int(np.argmax(u_all))
        if k in ab_done or u_all[k] <= (1 + 1e-7) * l_all.max():
            break
        u_all[k] = min(u_all[k], _upper_single(st.pad(M_all[k]), st, x_all[k]).value)
        ab_done.add(k)
    tried = np.zeros(w_all.size, bool)
    for _ in range(6 if polish and not st.repeated else 0):  # more D-G steps above the lower
        pts = np.flatnonzero((u_all > (1 + 1e-7) * l_all.max()) & ~tried &
                             (u_all >= 0.95 * u_all.max()))
        pts = pts[np.argsort(-u_all[pts])][:32]
        if pts.size == 0:
            break
        tried[pts] = True
        top = u_all.max()
        for cold in (False, True):  # warm starts, then cold starts where still above
            Zp = st.pad(M_all[pts])
            u, x1 = _dg_batch(Zp, st, _dg_init(Zp, st) if cold else x_all[pts], iters=polish)
            better = u < u_all[pts]
            u_all[pts[better]], x_all[pts[better]] = u[better], x1[better]
            pts = pts[u_all[pts] > (1 + 1e-7) * l_all.max()]
            if pts.size == 0:
                break
        if u_all.max() <= (1 + 1e-7) * l_all.max() or u_all.max() > top * (1 - 1e-9):
            break
    ku, kl = int(np.argmax(u_all)), int(np.argmax(l_all))
    return MuResult(w_all, u_all, l_all, float(u_all[ku]), float(w_all[ku]), float(l_all[kl]),
                    float(w_all[kl]), lbs[kl].delta, st.blocks, np.sort(w_all[list(ab_done)]))
