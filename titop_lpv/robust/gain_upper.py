"""The upper bound of a worst-case gain: the robust performance theorem (skewed μ with a
full complex performance block) on a frequency grid, then proved on frequency intervals
covering [0, ∞] (:mod:`titop_lpv.robust.certify`); used by
:func:`titop_lpv.robust.worst_case.worst_case_gain`.

At each frequency D-G scalings give the largest γ they certify in closed form (a
generalised eigenvalue), and a bisection on γ re-optimises the scalings only where the
bound is still above γ.
"""

from __future__ import annotations

import numpy as np
from scipy import optimize

from .blocks import Block
from .certify import (
    Certificate,
    Scaling,
    budgets,
    complex_scaling,
    cover,
    diag_scaling,
    padded_system,
)
from .loop import LoopLFT
from .mu import freqresp
from .mu_upper import (
    AB13MD_MAX_N,
    dg_batch,
    dg_common,
    dg_init,
    full_scalings,
    scaled_matrices,
    upper_bound,
)
from .structure import MuStructure

__all__ = ["CERT_RTOL", "UPPER_RTOL", "gain_certified", "mu_gain_upper"]

CERT_RTOL = 2e-8  # the certified γ is the grid's times 1 + CERT_RTOL (more where needed)
UPPER_RTOL = 1e-6  # bisection on γ stops when the certified bound is within this of the lower


def gain_certified(Nd: np.ndarray, Np: np.ndarray, Gs: np.ndarray,
                    full: bool) -> np.ndarray:
    """Per frequency, the smallest γ certified by scaled matrices for Zd + Zp/γ.

    ``Nd = T Zd T⁻¹``, ``Np = T Zp T⁻¹`` and G̃ (``Gs``: (F, N, N) if ``full``, else the
    (F, N) diagonal) as from :func:`titop_lpv.robust.mu_upper.scaled_matrices`. The certificate of
    μ ≤ 1 is ``P0 + P1/γ² ≤ 0`` with ``P0 = Ndᴴ Nd + j(G̃ Nd − Ndᴴ G̃) − I`` and
    ``P1 = Npᴴ Np`` (the cross terms vanish: D and G̃ are block diagonal and G̃ is zero on
    the complex performance block). So γ = sqrt(λ_max(P1, −P0)) when −P0 > 0, else no γ
    (inf). Each value is checked by evaluating the certificate at γ (1 + 1e-9).

    Parameters
    ----------
    Nd : ndarray, shape (F, N, N), complex
        The scaled uncertainty part ``T Zd T⁻¹`` at F frequencies (dimensionless).
    Np : ndarray, shape (F, N, N), complex
        The scaled performance part ``T Zp T⁻¹`` (units of the gain), zero where ``Zd`` acts.
    Gs : ndarray, shape (F, N, N) or (F, N)
        The scaled G scalings: full matrices if ``full``, else their diagonals.
    full : bool
        Whether ``Gs`` holds full (block-diagonal) matrices.

    Returns
    -------
    ndarray, shape (F,)
        The certified γ per frequency (units of the gain); ``inf`` where these scalings
        certify no γ.
    """
    NdH = Nd.conj().transpose(0, 2, 1)
    if full:
        GN = Gs @ Nd - NdH @ Gs
    else:
        GN = Gs[:, :, None] * Nd - NdH * Gs[:, None, :]
    P0 = NdH @ Nd + 1j * GN - np.eye(Nd.shape[-1])
    P0 = (P0 + P0.conj().transpose(0, 2, 1)) / 2
    P1 = Np.conj().transpose(0, 2, 1) @ Np
    P1 = (P1 + P1.conj().transpose(0, 2, 1)) / 2
    out = np.full(Nd.shape[0], np.inf)
    with np.errstate(all="ignore"):
        good = np.all(np.isfinite(P0), axis=(1, 2)) & np.all(np.isfinite(P1), axis=(1, 2))
        P0[~good], P1[~good] = -np.eye(Nd.shape[-1]), 0.0
        e0 = np.linalg.eigvalsh(-P0)
        good &= e0[:, 0] > 1e-10 * np.maximum(1.0, np.abs(e0).max(1))
        if not good.any():
            return out
        L = np.linalg.cholesky(-P0[good])
        Li = np.linalg.inv(L)
        lam = np.linalg.eigvalsh(Li @ P1[good] @ Li.conj().transpose(0, 2, 1))[:, -1]
        gam = np.sqrt(np.maximum(lam, 0.0)) * (1 + 1e-9)
        safe = np.where(gam > 0, gam, 1.0)
        chk = np.linalg.eigvalsh(P0[good] + P1[good] / safe[:, None, None] ** 2)[:, -1]
        gam = np.where((gam > 0) & (chk > 0), np.inf, gam)
    out[good] = gam
    return out


def mu_gain_upper(lft: LoopLFT, omega: np.ndarray, g_low: float, g_nom: float,
                   certify: bool = True) -> tuple[float, Certificate | None]:
    """Smallest γ (within ``UPPER_RTOL``) with, at every frequency, D-G scalings that
    certify μ ≤ 1 for [[M11, M12], [M21/γ, M22/γ]] (robust performance theorem).

    Every frequency keeps the smallest γ certified so far (a certificate at γ is one at
    every larger γ); the bisection re-optimises only the frequencies still above the trial
    γ: warm-started L-BFGS, then a cold start with more iterations, full-block scalings if
    blocks repeat, then SLICOT AB13MD on the (at most 4) worst, before declaring the trial
    γ infeasible (above a padded size of 16: cold starts on the 16 worst, full blocks on the
    4 worst, and no AB13MD with repeated blocks; see
    :data:`~titop_lpv.robust.mu_upper.AB13MD_MAX_N`). With ``certify``, the bound is then
    proved on frequency intervals (:func:`_certify_gain`).

    Parameters
    ----------
    lft : LoopLFT
        The uncertain system as an LFT (its nominal system, Δ structure and channels).
    omega : ndarray, shape (F,)
        Frequency grid [rad/s], ascending.
    g_low : float
        A lower bound of the worst-case gain (attained by a Δ): the bisection's floor.
    g_nom : float
        The nominal system's peak gain, used to scale the first trial γ.
    certify : bool, optional
        Prove the bound on frequency intervals covering [0, ∞] (default) rather than at
        the grid frequencies only.

    Returns
    -------
    gamma : float
        The upper bound of the worst-case gain (units of the gain; ``inf`` if none).
    certificate : Certificate or None
        How the bound was proved (intervals, or None when ``certify`` is False or it failed).
    """
    nz = lft.st.nz
    nu, ny = lft.B2.shape[1], lft.C2.shape[0]
    aug = MuStructure([*lft.st.blocks, Block("performance", "full", nu, ny, 1)])
    Mw = freqresp(lft.sys, omega)
    Md, Mp = Mw.copy(), Mw.copy()
    Md[:, nz:, :], Mp[:, :nz, :] = 0.0, 0.0
    Zd, Zp = aug.pad(Md), aug.pad(Mp)
    F = omega.size
    best = np.full(F, np.inf)
    lo = g_low if g_low > 0 else 0.0
    gam0 = 1.05 * lo if lo > 0 else max(g_nom, 1e-12)
    xs = dg_init(Zd + Zp / gam0, aug)

    scal: dict[int, Scaling] = {}  # the scalings certifying best[i], where not xs[i]'s

    def attempt(idx, gam, x0, iters, full=False):
        _, x = dg_batch(Zd[idx] + Zp[idx] / gam, aug, x0, iters=iters, full=full)
        Nd, Gs, ok, Ti = scaled_matrices(x, Zd[idx], aug, full)
        g = gain_certified(Nd, scaled_matrices(x, Zp[idx], aug, full)[0], Gs, full)
        g[~ok] = np.inf
        better = g < best[idx]
        best[idx[better]] = g[better]
        for j in np.flatnonzero(better):
            if full:
                T = (x[j, :aug.nT] @ aug.AT.T).reshape(aug.N, aug.N)
                scal[int(idx[j])] = Scaling(T, Ti[j], Gs[j])
            else:
                xs[idx[j]] = x[j]
                scal.pop(int(idx[j]), None)

    def ab13md(i, gam):
        b = upper_bound(Zd[i] + Zp[i] / gam, aug)
        try:
            T = np.linalg.cholesky(b.D).conj().T  # D = Tᴴ T
        except np.linalg.LinAlgError:
            return
        Ti = np.linalg.inv(T)
        Gt = Ti.conj().T @ b.G @ Ti
        g = gain_certified((T @ Zd[i] @ Ti)[None], (T @ Zp[i] @ Ti)[None], Gt[None], True)[0]
        if g < best[i]:
            best[i], scal[int(i)] = g, Scaling(T, Ti, Gt)

    def feasible(gam):
        idx = np.flatnonzero(best > gam)

        def worst(i, k):  # on a large structure, only the k largest bounds
            return i[np.argsort(-best[i])][:k] if aug.N > AB13MD_MAX_N else i

        def full_step(i):  # full blocks: N² parameters
            i = worst(i, 4)
            attempt(i, gam, full_scalings(xs[i], aug), 60, full=True)

        steps = [lambda i: attempt(i, gam, xs[i], 30),
                 lambda i: attempt(worst(i, 16), gam, None, 100)] + \
            ([full_step] if aug.repeated else [])
        steps.append(lambda i: [ab13md(j, gam) for j in i[np.argsort(-best[i])][:4]])
        for step in steps:
            if idx.size == 0:
                return True
            step(idx)
            idx = idx[best[idx] > gam]
        return idx.size == 0

    attempt(np.arange(F), gam0, xs, 25)
    gam, cap = gam0, 1e6 * max(g_nom, lo, 1e-300)
    while not np.isfinite(best.max()) or best.max() > gam:
        if feasible(gam):
            break
        lo, gam = gam, 2 * gam
        if gam > cap:
            return np.inf, None
    hi = float(best.max())
    for _ in range(60):
        if hi - lo <= UPPER_RTOL * hi:
            break
        mid = 0.5 * (lo + hi)
        if feasible(mid):
            hi = float(best.max())
        else:
            lo = mid
    if not certify or not best.max() > 0:  # a zero bound has no γ to scale by
        return float(best.max()), None
    return _certify_gain(lft, aug, omega, best, lambda k: scal.get(k) or diag_scaling(xs[k], aug))


def _certify_gain(lft: LoopLFT, aug: MuStructure, omega: np.ndarray, best: np.ndarray,
                  grid_scaling) -> tuple[float, Certificate]:
    """The grid's worst-case-gain bound proved on intervals covering [0, ∞]
    (:func:`~titop_lpv.robust.certify.cover`): the level γ is proved by Φ of
    ``[[M11, M12], [M21/γ, M22/γ]]`` at β = 1; where the grid missed a higher peak, the
    certified γ there (maximised locally) raises it."""
    nz = lft.st.nz
    A, B, C, D = (np.asarray(getattr(lft.sys, m), float) for m in "ABCD")
    base = padded_system(A, B, C, D, aug.zpos, aug.wpos, aug.N)
    perf = np.ones(aug.N)
    perf[aug.zpos[nz:]] = 0.0

    def system(gam):
        r = np.where(perf > 0, 1.0, 1.0 / gam)[:, None]
        return (base[0], base[1], r * base[2], r * base[3]), 1.0

    def at(c):
        Mw = freqresp(lft.sys, [c])
        Md, Mp = Mw.copy(), Mw.copy()
        Md[:, nz:, :], Mp[:, :nz, :] = 0.0, 0.0
        return aug.pad(Md), aug.pad(Mp)

    def warm(c):
        return grid_scaling(min(int(np.searchsorted(omega, c)), omega.size - 1))

    def certified(Zd, Zp, sc):
        return float(gain_certified((sc.T @ Zd[0] @ sc.Ti)[None], (sc.T @ Zp[0] @ sc.Ti)[None],
                                     sc.Gt[None], True)[0])

    def fresh(c, gam, hard=False):
        Zd, Zp = at(c)
        k = min(int(np.searchsorted(omega, c)), omega.size - 1)
        cands = [(certified(Zd, Zp, warm(c)), warm(c))]
        for x0, iters in ((None, 60), (None, 200)) if gam > 0 else ((None, 200),):
            _, x = dg_batch(Zd + Zp / min(gam, 1e300), aug, x0, iters=iters)
            sc = diag_scaling(x[0], aug)
            cands.append((certified(Zd, Zp, sc), sc))
            if min(cands, key=lambda t: t[0])[0] * (1 + CERT_RTOL) < gam:
                break
        if min(cands, key=lambda t: t[0])[0] * (1 + CERT_RTOL) >= gam:
            b = upper_bound(Zd[0] + Zp[0] / max(gam, best[k]), aug)
            sc = Scaling.from_dg(b.D, b.G)
            if sc is not None:
                cands.append((certified(Zd, Zp, sc), sc))
        return hard_cands(c, gam) if hard else sorted(cands, key=lambda t: t[0])

    def hard_cands(c, gam):  # D only, then D-G shared over [c, c + h]: milder, longer
        if not (aug.has_real and np.isfinite(gam) and gam > 0):
            return
        Zd, Zp = at(c)
        x0 = complex_scaling(Zd[0] + Zp[0] / gam, aug)[1]
        yield certified(Zd, Zp, x0), x0
        k1 = min(int(np.searchsorted(omega, c, side="right")), omega.size - 1)
        span = omega[k1] - c if omega[k1] > c else max(c, 1e-3)
        xd = np.r_[np.log(np.abs(np.diag(x0.T)))[np.r_[0, np.cumsum(aug.ab_nblock)[:-1]]],
                   np.zeros(aug.nr)]
        for h in span / 8.0 ** np.arange(5):
            Zs = np.concatenate([Zd_ + Zp_ / gam for Zd_, Zp_ in
                                 (at(f) for f in c + h * np.linspace(0, 1, 5))])
            sc = diag_scaling(dg_common(Zs, aug, xd)[1], aug)
            yield certified(Zd, Zp, sc), sc

    def raise_level(c, g):
        k = int(np.searchsorted(omega, c))
        lo, hi = omega[max(k - 1, 0)], omega[k + 1] if k + 1 < omega.size else 2 * c + 1
        sc = warm(c)

        def neg(f):
            Zd, Zp = at(f)
            return -certified(Zd, Zp, sc) if np.isfinite(certified(Zd, Zp, sc)) else -1e300
        ws = float(optimize.minimize_scalar(neg, bounds=(lo, hi), method="bounded",
                                            options={"xatol": 1e-6 * max(hi, 1e-12)}).x)
        return max(g, fresh(ws, g)[0][0]) * (1 + CERT_RTOL)

    cert = cover(system, omega, float(best.max()) * (1 + CERT_RTOL), grid_scaling, fresh,
                 raise_level, rtol=CERT_RTOL, **budgets(aug.N))
    return cert.level, cert

