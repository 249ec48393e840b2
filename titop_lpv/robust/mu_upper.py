"""Upper bound on the structured singular value: D-G scalings and SLICOT AB13MD.

AB13MD (Fan, Tits & Doyle, IEEE TAC 1991: D and G scalings) accepts 1×1 real blocks and
square full complex blocks only. Repeated blocks are given to it as independent copies (a
larger set of Δ, so a valid but conservative bound: diagonal instead of full D, G);
non-square full blocks are zero-padded (μ unchanged). When blocks are repeated, full-block
scalings (D = Tᴴ T, G̃ Hermitian on each repeated block) are first optimised here and
AB13MD runs on ``S M S⁻¹`` (S = Uᴴ T commutes with Δ, so μ is unchanged), warm-started.
Every bound is certified by the D, G returned: ``Mᴴ D M + j(G M − Mᴴ G) ≤ β² D``. Over
frequency grids the same certificate is minimised by a batched quasi-Newton method
(:func:`dg_batch`; any D > 0, G gives a valid bound).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.linalg as sla
from scipy import optimize

from .checks import ArgumentError
from .structure import MuBound, MuStructure

__all__ = ["AB13MD_MAX_N", "REAL_TOL", "dg_batch", "dg_common", "dg_init", "full_scalings",
           "mu_upper", "pow2_scale", "real_eig_bound", "scaled_matrices", "upper_bound"]

# a 1×1 real block: μ(z) = |z| if z is real, else 0. For an upper bound, z is taken as real
# when |Im z| <= REAL_TOL |z| (a larger bound, so still valid): a frequency that a crossing
# of the real axis is computed at, to rounding, must not read as "μ = 0"
REAL_TOL = 1e-7

# AB13MD sees a repeated block as independent copies: above this padded size, with repeated
# blocks, it costs seconds per call (7.5 s at N = 30, measured) and bounds no lower than the
# full-block D-G scalings optimised here, so it is skipped
AB13MD_MAX_N = 16


def pow2_scale(M: np.ndarray) -> float:
    """The power of two nearest the largest modulus in ``M`` when that is outside
    [2⁻¹⁰⁰, 2¹⁰⁰], else 1: dividing by it is exact and brings the entries near 1, so huge
    or tiny matrices keep their μ (``μ(cM) = |c| μ(M)``); others are bounded as given.

    Parameters
    ----------
    M : ndarray
        The matrix (or matrices).

    Returns
    -------
    float
    """
    m = float(np.abs(M).max()) if M.size else 0.0
    return 1.0 if m == 0.0 or 2.0**-100 <= m <= 2.0**100 else float(2.0 ** np.round(np.log2(m)))


def _scalar_real(z: np.ndarray) -> np.ndarray:
    """Upper bound on μ of 1×1 matrices z with one real block (see :data:`REAL_TOL`)."""
    return np.where(np.abs(z.imag) <= REAL_TOL * np.abs(z), np.abs(z), 0.0)


def _certify(Z: np.ndarray, D: np.ndarray, G: np.ndarray) -> float:
    """Smallest β with Zᴴ D Z + j(G Z − Zᴴ G) ≤ β² D."""
    L = Z.conj().T @ D @ Z + 1j * (G @ Z - Z.conj().T @ G)
    return float(np.sqrt(max(sla.eigh((L + L.conj().T) / 2, D, eigvals_only=True)[-1], 0.0)))


def scaled_matrices(x: np.ndarray, Z: np.ndarray, st: MuStructure, full: bool):
    """The scaled matrices N = T Z T⁻¹ (full: x = T, G̃ entries) or d Z d⁻¹ (diagonal:
    x = log d, asinh g̃), with G̃ (full: (F, N, N); diagonal: the (F, N) diagonal g̃), a mask
    of the usable T and T⁻¹ (None when diagonal). The certificate they define is
    ``Nᴴ N + j(G̃ N − Nᴴ G̃) ≤ β² I``, i.e. D = Tᴴ T, G = Tᴴ G̃ T.

    Parameters
    ----------
    x : ndarray (F, n_params)
        Scaling parameters, one row per matrix.
    Z : ndarray (F, N, N)
        Zero-padded matrices (:meth:`MuStructure.pad`).
    st : MuStructure
        The structure.
    full : bool
        Full-block parametrisation (T, G̃) rather than diagonal (log d, asinh g̃).

    Returns
    -------
    (ndarray, ndarray, ndarray, ndarray or None)
        N, G̃, the mask and T⁻¹.
    """
    F, N = Z.shape[0], st.N
    if full:
        T = (x[:, :st.nT] @ st.AT.T).reshape(F, N, N)
        Gt = (x[:, st.nT:] @ st.AG.T).reshape(F, N, N)
        ok = np.linalg.slogdet(T)[1] > np.log(1e-12) + np.log(np.linalg.norm(T, axis=2)).sum(1)
        T[~ok] = np.eye(N)
        Ti = np.linalg.inv(T)
        return T @ Z @ Ti, Gt, ok, Ti
    d = np.exp(np.clip(x[:, :st.nd] @ st.Pd.T, -60, 60))
    g = np.zeros((F, N))
    g[:, st.realpad] = np.sinh(np.clip(x[:, st.nd:], -200, 200))
    return Z * (d[:, :, None] / d[:, None, :]), g, np.ones(F, bool), None


def _dg_eval(x: np.ndarray, Z: np.ndarray, st: MuStructure, t: np.ndarray, full: bool):
    """Smoothed λ_max of Nᴴ N + j(G̃ N − Nᴴ G̃), N = T Z T⁻¹, and its gradient in x: full
    blocks (x = T, G̃ entries) or diagonal (x = log d, asinh g̃; elementwise, about 4× faster:
    the optimum is often at d, g̃ → ∞, which these coordinates reach in few steps)."""
    F, N = Z.shape[0], st.N
    Nm, Gs, ok, Ti = scaled_matrices(x, Z, st, full)
    if full:
        Gt = Gs
    else:
        g, xi = Gs, np.clip(x[:, st.nd:], -200, 200)
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


def dg_init(Z: np.ndarray, st: MuStructure, iters: int = 20) -> np.ndarray:
    """Osborne balancing: log d per AB13MD block, g̃ = 0 (diagonal parametrisation).

    Parameters
    ----------
    Z : ndarray (F, N, N)
        Zero-padded matrices.
    st : MuStructure
        The structure.
    iters : int, optional
        Balancing sweeps (default 20).

    Returns
    -------
    ndarray (F, nd + nr)
        Diagonal scaling parameters.
    """
    A2 = np.abs(Z) ** 2
    A2[:, np.arange(st.N), np.arange(st.N)] = 0.0
    ld = np.zeros((Z.shape[0], st.nd))
    for _ in range(iters):
        d2 = np.exp(2 * ld @ st.Pd.T)
        r = np.einsum("fkj,fj->fk", A2, 1 / d2) * d2 @ st.Pd
        c = np.einsum("fjk,fj->fk", A2, d2) / d2 @ st.Pd
        ld = np.clip(ld + 0.25 * np.clip(np.log((c + 1e-300) / (r + 1e-300)), -2, 2), -20, 20)
    return np.concatenate([ld - ld[:, :1], np.zeros((Z.shape[0], st.nr))], 1)


def full_scalings(xd: np.ndarray, st: MuStructure) -> np.ndarray:
    """Diagonal scalings (log d, g̃) as full-block parameters (T, G̃).

    Parameters
    ----------
    xd : ndarray (F, nd + nr)
        Diagonal scaling parameters.
    st : MuStructure
        The structure.

    Returns
    -------
    ndarray (F, nT + nG)
    """
    x = np.zeros((xd.shape[0], st.nT + st.nG))
    x[:, st.dparam] = np.exp(xd[:, :st.nd] @ st.Pd.T)
    if st.nG:
        G = np.zeros((xd.shape[0], st.N * st.N))
        G[:, np.flatnonzero(st.realpad) * (st.N + 1)] = np.sinh(xd[:, st.nd:])
        # the columns of AG have disjoint supports: the least-squares fit is a projection
        AG = st.AG[np.flatnonzero(st.realpad) * (st.N + 1)]  # the rows of the diagonal
        x[:, st.nT:] = (G[:, np.flatnonzero(st.realpad) * (st.N + 1)] @ AG.conj()).real / \
            np.maximum((np.abs(st.AG) ** 2).sum(0), 1e-300)
    return x


def dg_batch(Z: np.ndarray, st: MuStructure, x0: np.ndarray | None = None, iters: int = 40,
              full: bool = False, tau: float = 2e-3,
              target: np.ndarray | float | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Batched L-BFGS on the smoothed certificate: the best valid bounds and their scalings
    (overflowing trial steps are rejected by the line search).

    Parameters
    ----------
    Z : ndarray (F, N, N)
        Zero-padded matrices.
    st : MuStructure
        The structure.
    x0 : ndarray, optional
        Starting scalings (default: Osborne balancing, :func:`dg_init`).
    iters : int, optional
        Quasi-Newton iterations (default 40).
    full : bool, optional
        Full-block scalings (default False: diagonal).
    tau : float, optional
        Relative smoothing of λ_max (default 2e-3).
    target : float or ndarray (F,), optional
        Stop each matrix at the first iterate whose bound is at most its target (default:
        none). Where the infimum is approached only as G̃ → ∞ (real blocks), the first
        scalings to reach a level keep G̃ moderate, so their certificate does not hinge on
        rounding (:func:`titop_lpv.robust.certify.fdi_error`).

    Returns
    -------
    (ndarray (F,), ndarray)
        The certified bounds and the scalings attaining them.
    """
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        tg = None if target is None else np.broadcast_to(np.asarray(target, float) ** 2,
                                                          (Z.shape[0],))
        return _dg_lbfgs(Z, st, x0, iters, full, tau, tg)


def _dg_lbfgs(Z, st, x0, iters, full, tau, tg=None):
    F, nv = Z.shape[0], (st.nT + st.nG) if full else (st.nd + st.nr)
    if st.N == 1 and st.all_real:  # exact: |z| if z is real, else 0
        return _scalar_real(Z[:, 0, 0]), np.ones((F, nv))
    x = np.array(x0, float) if x0 is not None else full_scalings(dg_init(Z, st), st) if full \
        else dg_init(Z, st)
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
        if tg is not None:
            stop |= best <= tg
        if stop.all():  # nothing moves any more
            break
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


def dg_common(Z: np.ndarray, st: MuStructure, x0: np.ndarray, iters: int = 60,
              tau: float = 2e-3) -> tuple[float, np.ndarray]:
    """One set of diagonal D-G scalings shared by several matrices (the frequencies of an
    interval): L-BFGS on a smoothed maximum over the matrices of the smoothed certificate.
    Scalings that hold over an interval are milder than the optimum at one frequency (for
    real blocks that optimum is often at G̃ → ∞), so the interval they certify is longer.

    Parameters
    ----------
    Z : ndarray (F, N, N)
        Zero-padded matrices.
    st : MuStructure
        The structure.
    x0 : ndarray (nd + nr,)
        Starting diagonal scalings.
    iters : int, optional
        Iterations at most (default 60).
    tau : float, optional
        Relative smoothing (default 2e-3).

    Returns
    -------
    (float, ndarray)
        The largest certified bound over the matrices, and the scalings.
    """
    F = Z.shape[0]
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        lam0 = _dg_eval(np.tile(x0, (F, 1)), Z, st, np.ones(F), False)[2]
        t = tau * max(float(np.max(lam0[np.isfinite(lam0)], initial=1.0)), 1e-12)

        def f(x):
            v, g, _ = _dg_eval(np.tile(x, (F, 1)), Z, st, np.full(F, t), False)
            if not np.all(np.isfinite(v)):
                return np.inf, np.zeros_like(x)
            m = v.max()
            w = np.exp((v - m) / t)
            S = w.sum()
            return m + t * np.log(S), (w / S) @ g

        r = optimize.minimize(f, np.asarray(x0, float), jac=True, method="L-BFGS-B",
                              options={"maxiter": iters})
        x = r.x if np.isfinite(r.fun) else np.asarray(x0, float)
        lam = _dg_eval(np.tile(x, (F, 1)), Z, st, np.ones(F), False)[2]
    return float(np.sqrt(max(lam.max(), 0.0))), x


def _rounded_bound(x: np.ndarray, Z: np.ndarray, st: MuStructure) -> float:
    """The bound of diagonal scalings ``x`` (1, nd + nr) with the rounding of λ_max added:
    ``λ_max(H) + 4 N ε ‖H‖_F`` (a backward-stable Hermitian eigensolver errs by about
    ``N ε ‖H‖``). With G̃ large, ‖H‖ is much larger than λ_max and the plain value can fall
    below μ (measured: 1.8e-9 relative below an attained lower bound)."""
    Nm, g, _, _ = scaled_matrices(x, Z[None], st, False)
    NH = Nm[0].conj().T
    H = NH @ Nm[0] + 1j * (g[0][:, None] * Nm[0] - NH * g[0][None, :])
    H = (H + H.conj().T) / 2
    lam = float(np.linalg.eigvalsh(H)[-1]) + 4 * st.N * np.finfo(float).eps * \
        float(np.linalg.norm(H))
    return float(np.sqrt(max(lam, 0.0))) if np.isfinite(lam) else np.inf


def _diag_bound(value: float, x: np.ndarray, st: MuStructure) -> MuBound:
    """The bound of diagonal scalings ``x`` (log d, asinh g̃) with its D = d², G = d g̃ d."""
    dv = np.exp(np.clip(x[:st.nd] @ st.Pd.T, -60, 60))
    g = np.zeros(st.N)
    g[st.realpad] = np.sinh(np.clip(x[st.nd:], -200, 200))
    return MuBound(value, "upper", "D-G scalings (diagonal)", np.diag(dv ** 2),
                   np.diag(dv * g * dv))


def upper_bound(Z: np.ndarray, st: MuStructure, xd: np.ndarray | None = None,
                unbounded_g: bool = False) -> MuBound:
    """AB13MD warm-started from diagonal scalings ``xd``, or, when blocks are repeated, after
    a similarity by full-block scalings; the smallest certified bound.

    Parameters
    ----------
    Z : ndarray (N, N)
        One zero-padded matrix.
    st : MuStructure
        The structure.
    xd : ndarray, optional
        Diagonal scalings to warm-start from.
    unbounded_g : bool, optional
        Without repeated blocks, also run 100 diagonal D-G steps, which let G grow without
        bound (default False). Closer to μ where the optimum is at G → ∞ (rank-one real μ:
        AB13MD measured 0.27 % above the closed form) and where AB13MD stops early (complex
        blocks: up to 5.7e-7 above the optimal D scaling, measured), but such scalings
        certify only tiny frequency intervals, so the sweeps do not ask for them.

    Returns
    -------
    MuBound
    """
    import slycot

    if st.N == 1 and st.all_real:  # AB13MD returns 0 for a 1x1 real block, even for real Z
        return MuBound(float(_scalar_real(Z[:1, 0])[0]), "upper", "exact (1x1 real)",
                       np.eye(1), np.zeros((1, 1)))
    cands: list[MuBound] = []
    S, dv, g = np.eye(st.N, dtype=complex), np.ones(st.N), np.zeros(st.N)
    if xd is not None and not st.repeated:  # certificate units, d_1 = 1
        dv = np.exp(np.clip(xd[:st.nd] - xd[0], -9.0, 9.0))[st.dgrp]
        g[st.realpad] = np.sinh(xd[st.nd:]) * dv[st.realpad] ** 2
    if st.repeated:  # S = Uᴴ T makes D = I and G diagonal for AB13MD
        # from Osborne, not from the grid's scalings: AB13MD then improves more (measured)
        ubf, xf = dg_batch(Z[None], st, full_scalings(dg_init(Z[None], st), st), iters=60,
                            full=True)
        T = (xf[0, :st.nT] @ st.AT.T).reshape(st.N, st.N)
        Gt = (xf[0, st.nT:] @ st.AG.T).reshape(st.N, st.N) if st.nG else np.zeros_like(T)
        cands.append(MuBound(float(ubf[0]), "upper", "D-G scalings (full blocks)",
                             T.conj().T @ T, T.conj().T @ Gt @ T))
        U, g, dv = np.eye(st.N, dtype=complex), np.zeros(st.N), np.ones(st.N)
        for P in st.pidx:
            g[P], U[np.ix_(P, P)] = np.linalg.eigh(Gt[np.ix_(P, P)])
        S = U.conj().T @ T
    if unbounded_g and not st.repeated:  # AB13MD keeps G bounded (barrier) and stops
        # early (measured: up to 5.7e-7 above the optimal D scaling, complex blocks)
        _, xdd = dg_batch(Z[None], st, None if xd is None else xd[None], iters=100)
        cands.append(_diag_bound(_rounded_bound(xdd, Z, st), xdd[0], st))
    if st.repeated and st.N > AB13MD_MAX_N:  # AB13MD: seconds per call, no better (measured)
        if xd is not None:
            ubd, xdd = dg_batch(Z[None], st, xd[None], iters=60)
            cands.append(_diag_bound(float(ubd[0]), xdd[0], st))
        return min(cands, key=lambda c: c.value)
    Z2 = S @ Z @ np.linalg.inv(S)
    first = np.r_[0, np.cumsum(st.ab_nblock)[:-1]]
    # AB13MD's barrier keeps its internal G = g/(d² ‖D Z D⁻¹‖) in (−τ, τ), τ <= 100: a warm
    # start outside that box makes it loop (measured), so it is clipped
    with np.errstate(invalid="ignore", divide="ignore"):  # Z = 0: no warm start (below)
        gi = g[st.realpad] / dv[st.realpad] ** 2 / np.linalg.norm(dv[:, None] * Z2 / dv[None],
                                                                  2)
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
            ub, x = dg_batch(Z[None], st, None if xd is None else xd[None], iters=60)
            dv = np.exp(x[0, :st.nd] - x[0, 0])[st.dgrp]
            g[st.realpad] = np.sinh(x[0, st.nd:]) * dv[st.realpad] ** 2
            cands.append(MuBound(float(ub[0]), "upper", "D-G scalings", np.diag(dv**2),
                                 np.diag(g)))
        cands = [MuBound(c.value, "upper", f"{c.method} (AB13MD failed: {exc})", c.D, c.G)
                 for c in cands]
    return min(cands, key=lambda c: c.value)


def real_eig_bound(M: np.ndarray) -> float:
    """Upper bound on the real spectral radius ``ρ_R(M) = max{|λ| : λ real eigenvalue of M}``
    (0 when M has none), from an enclosure of the eigenvalues that holds despite rounding.

    ``ρ_R(M)`` is μ of one repeated real scalar block ``δ I`` (Packard & Doyle 1993,
    §9.1). With the computed eigenvalues ``w`` and unit eigenvectors ``X``, the residual
    ``R = M X − X diag(w)`` gives ``M = X diag(w) X⁻¹ + R X⁻¹`` exactly, so by Bauer–Fike
    every eigenvalue of M lies within ``r = ‖X‖ ‖X⁻¹‖² ‖R‖`` of some ``w_i``. The rounding
    of the computed ``R`` is bounded by ``γ(|M||X| + |X||w|)`` (γ = (n + 4) ε) and that of
    ``σ_min(X)`` by ``2 n ε ‖X‖``; the radius is then doubled for the rounding of these few
    norms. A real eigenvalue lies in a disc that meets the real axis (``|Im w_i| <= r``):
    the bound is the largest ``|w_i| + r`` over those discs, and exactly 0 when none meets
    it. It is of order ``n ε κ(X)² ‖M‖`` where μ = 0 (a singular M: the disc at 0), far
    below the D-G bound there (``√(ε ‖H‖)``, the square root of the rounding of the
    certificate's eigenvalue).

    Parameters
    ----------
    M : ndarray (n, n)
        A square complex matrix.

    Returns
    -------
    float
        The bound; ``inf`` when the eigenvectors are (numerically) dependent (a defective
        M: no enclosure).
    """
    M = np.asarray(M, complex)
    n = M.shape[0]
    eps = np.finfo(float).eps
    w, X = np.linalg.eig(M)
    X = X / np.linalg.norm(X, axis=0)
    R = M @ X - X * w[None, :]
    gam = (n + 4) * eps
    nR = np.linalg.norm(R) + gam * np.linalg.norm(np.abs(M) @ np.abs(X) +
                                                  np.abs(X) * np.abs(w)[None, :])
    sv = np.linalg.svd(X, compute_uv=False)
    nX = np.linalg.norm(X)
    smin = sv[-1] - 2 * n * eps * nX
    if not (np.isfinite(nR) and smin > 0):
        return np.inf
    r = 2.0 * nX * nR / smin ** 2
    near = np.abs(w.imag) <= r
    return float(np.max(np.abs(w[near])) + r) if near.any() else 0.0


def mu_upper(M: np.ndarray, blocks: Any) -> MuBound:
    """Upper bound on μ(M) from SLICOT AB13MD, with its D, G scalings.

    Parameters
    ----------
    M : (n_z, n_w) array_like, complex
        The matrix (``w = Δ z`` closes the loop).
    blocks : DeltaStructure or sequence
        Block structure (see :func:`~titop_lpv.robust.blocks.as_structure`).

    Returns
    -------
    MuBound
        ``value`` is certified by the returned D, G (the smallest β with
        ``Zᴴ D Z + j(G Z − Zᴴ G) ≤ β² D``, Z = M zero-padded). AB13MD sees repeated blocks
        as independent copies; with repeated blocks, full-block scalings are optimised
        first and AB13MD runs on the matrix transformed by them (module docstring); above
        a padded size of 16, AB13MD is skipped for them (seconds per call, no better).
        Without repeated blocks, diagonal D-G steps with unbounded G are tried too (exact
        on rank-one matrices to about 1e-8, where AB13MD stops 0.3 % above; on two complex
        scalars and a full block, within 1e-8 of the optimal D scaling where AB13MD stopped
        up to 5.7e-7 above, measured). M is
        first divided by a power of two near its largest entry (``μ(cM) = |c| μ(M)``), so huge
        and tiny matrices are bounded as accurately as others. For one 1×1 real block,
        ``|M|`` when ``|Im M| <= 1e-7 |M|`` (a crossing of the real axis to rounding),
        else 0. For one repeated real scalar block (``δ I_n``, n > 1), μ(M) is the real
        spectral radius ρ_R(M), bounded by an eigenvalue enclosure
        (:func:`real_eig_bound`) when that is lower than the D-G bound (then ``method``
        says so and D, G are None). Where μ = 0 (no real eigenvalue but 0) the bound is then
        at most the enclosure radius, about ``8 n ε κ(X)² σ̄(M)`` (X: unit eigenvectors),
        whatever the rounding; the D-G certificate alone can only reach the square root of
        its eigenvalue's rounding there (measured: 0 to 1.3e-6 under unitary similarities
        of one 2×2 matrix).

    Raises
    ------
    StructureError
        ``M`` is not one ``n_z × n_w`` matrix of finite numbers, or the structure is
        invalid.
    ArgumentTypeError
        ``M`` is not numeric.
    ArgumentError
        The bound exceeds the largest float.

    Examples
    --------
    One real parameter and a 1×1 matrix: μ is ``|M|`` exactly.

    >>> round(mu_upper([[-0.5]], [("real", 1, 1, 1)]).value, 12)
    0.5
    """
    st = MuStructure(blocks)
    M = st.check(M, stack=False)
    s = pow2_scale(M)
    b = upper_bound(st.pad(M / s), st, unbounded_g=True)
    if len(st.blocks) == 1 and st.blocks[0].kind == "real" and st.N > 1:
        r = real_eig_bound(M / s)  # one repeated real scalar: μ = ρ_R(M)
        if r < b.value:
            return MuBound(r * s, "upper", "real spectral radius (eigenvalue enclosure)")
    if not np.isfinite(b.value * s):
        raise ArgumentError(f"the μ upper bound of M, {b.value:.6g} x {s:.6g}, exceeds the "
                            "largest float: scale M")
    a = 2.0 ** -np.round(np.log2(s) / 2)  # certificate (a D, a s G): both stay finite
    return MuBound(b.value * s, "upper", b.method, a * b.D, a * s * b.G)

