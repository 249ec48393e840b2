"""Worst-case gain of an uncertain loop ``F_u(M, Δ)`` over the parameter box.

Two numbers bracket the worst case ``max_Δ max_ω σ̄(F_u(M, Δ)(jω))``:

* a lower bound **attained** by a Δ: bounded multistart optimisation over real static Δ of
  the structure, every candidate scored by its peak gain refined in ω between the grid
  points (local maximisation around each local maximum of the sampled σ̄ and around each
  lightly damped pole), so that the score does not depend on where the grid points fall;
* an upper bound **certified on a frequency grid** (the given grid plus the refined peak
  frequencies of the candidates): robust performance theorem, skewed μ with a full complex
  performance block; at each frequency D-G scalings give the largest γ they certify in
  closed form (a generalised eigenvalue), and a bisection on γ re-optimises the scalings
  only where the bound is still above γ. Between grid points nothing is certified.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
from scipy import optimize

from ..plots import plot_worst_case_gain
from .abcd import ABCD
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
from .checks import check_count, check_seed
from .frequency import check_omega, default_omega
from .loop import (
    LoopLFT,
    RobustnessError,
    check_stable,
    delta_matrix,
    nominal_values,
    physical_values,
    split_lft,
)
from .mu import freqresp
from .mu_upper import (
    dg_batch,
    dg_common,
    dg_init,
    full_scalings,
    scaled_matrices,
    upper_bound,
)
from .structure import MuStructure, block_values

CERT_RTOL = 2e-8  # the certified γ is the grid's times 1 + CERT_RTOL (more where needed)

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["WorstCaseGainResult", "worst_case_gain"]

UPPER_RTOL = 1e-6  # bisection on γ stops when the certified bound is within this of the lower


@dataclass(frozen=True)
class WorstCaseGainResult:
    """Worst-case gain of F_u(M, Δ) from the performance inputs to the performance outputs.

    Attributes
    ----------
    gain : float
        Peak σ̄ of F_u(M, Δ)(jω) over the band ``[omega.min(), omega.max()]`` with Δ =
        ``delta`` (refined between grid points), reached at ``omega_peak``: an **attained
        lower bound** on the worst case (``inf`` if ``delta`` destabilises the loop).
    delta : ndarray
        The worst Δ found (real static: complex scalars on their real axis, full blocks as
        real matrices).
    delta_values : dict
        ``delta`` block by block, normalised.
    parameter_values : dict
        The same in physical units when the system was given as a USS; else empty.
    omega_peak : float
        [rad/s].
    upper : float or None
        μ-based upper bound (skewed μ with a full complex performance block) on the worst
        case over every Δ of the structure (dynamic complex blocks too), **certified at the
        frequencies** ``upper_omega`` only; None if not computed, ``inf`` if no bound was
        certified (e.g. μ(M11) ≥ 1 somewhere).
    upper_omega : ndarray
        Frequencies [rad/s] where ``upper`` is certified: ``omega`` and the refined peak
        frequencies of the scored candidates (vertices, starts, optimised points).
    nominal_gain : float
        Peak σ̄ at the nominal parameters (each ``ureal`` at its nominal value, ``ucomplex``
        and unmodelled dynamics at 0; Δ = 0 when the loop was given as ``(M, blocks)``),
        refined like ``gain``.
    nominal_delta_values : dict
        The normalised δ of the nominal parameters, block by block.
    omega : ndarray
        The frequency grid [rad/s].
    worst_curve, nominal_curve : ndarray
        σ̄ against ``omega`` with ``delta`` and at the nominal parameters.
    certified : str
        ``"intervals"``: ``upper`` bounds the worst case at every frequency of [0, ∞]
        (constant D-G scalings on each of ``intervals``,
        :mod:`titop_lpv.robust.certify`); ``"grid"``: at ``upper_omega`` only.
    intervals : ndarray (K, 2)
        The certified open intervals [rad/s] (``-1``: from ω = 0 included; ``inf``: up to
        ω = ∞ included).
    """

    gain: float
    delta: np.ndarray
    delta_values: dict
    parameter_values: dict
    omega_peak: float
    upper: float | None
    upper_omega: np.ndarray
    nominal_gain: float
    nominal_delta_values: dict
    omega: np.ndarray
    worst_curve: np.ndarray
    nominal_curve: np.ndarray
    certified: str = "grid"
    intervals: np.ndarray = field(default_factory=lambda: np.zeros((0, 2)))

    def report(self) -> str:
        """The worst gain, its δ, and what each bound guarantees."""
        vals = ", ".join(f"δ_{k} = {np.round(v, 6)}" for k, v in self.delta_values.items())
        if self.parameter_values:
            vals += " (" + ", ".join(f"{k} = {np.round(v, 6)}"
                                     for k, v in self.parameter_values.items()) + ")"
        if not np.isfinite(self.gain):
            return f"not robustly stable: {vals} puts a pole on or beyond the imaginary axis"
        band = f"ω ∈ [{self.omega.min():.4g}, {self.omega.max():.4g}] rad/s"
        lines = [
            f"worst-case gain {self.gain:.6g} at ω = {self.omega_peak:.6g} rad/s over {band} "
            f"(nominal parameters: {self.nominal_gain:.6g}; "
            f"{self.gain / self.nominal_gain:.3g}x)" if self.nominal_gain > 0 else
            f"worst-case gain {self.gain:.6g} at ω = {self.omega_peak:.6g} rad/s over {band} "
            "(nominal parameters: 0)",
            f"  attained with {vals}: a lower bound on the worst case"]
        if self.upper is None:
            lines.append("  upper bound: not computed")
        elif not np.isfinite(self.upper):
            lines.append("  upper bound: none certified (μ of the Δ loop reaches 1, or the "
                         "scalings failed)")
        elif self.upper >= self.gain * (1 - 1e-9) and self.certified == "intervals":
            lines.append(f"  {self.gain:.6g} <= worst case <= {self.upper:.6g} (μ upper bound "
                         f"certified at every frequency on {len(self.intervals)} intervals, "
                         f"gap {self.upper / self.gain - 1:.2%})")
        elif self.upper >= self.gain * (1 - 1e-9):
            lines.append(f"  {self.gain:.6g} <= worst case at the {self.upper_omega.size} "
                         f"certified frequencies <= {self.upper:.6g} (μ upper bound, "
                         f"gap {self.upper / self.gain - 1:.2%}); between grid points the "
                         "upper bound is not certified")
        else:  # cannot happen when upper_omega contains omega_peak; said, not hidden
            lines.append(f"  μ upper bound {self.upper:.6g} at the {self.upper_omega.size} "
                         f"certified frequencies is BELOW the attained gain {self.gain:.6g}: "
                         "the certificate is inconsistent, do not use it")
        return "\n".join(lines)

    def plot(self, *, ax: Any = None) -> Figure:
        """σ̄ against ω with the worst Δ and at the nominal parameters; returns the Figure
        (:func:`titop_lpv.plots.plot_worst_case_gain`).

        Parameters
        ----------
        ax : matplotlib.axes.Axes, optional
            Draw into these axes (default: a new figure).
        """
        return plot_worst_case_gain(self.omega, self.nominal_curve, self.worst_curve,
                                    (self.omega_peak, self.gain), self.upper, ax=ax)


def _sigma(mats, omega) -> np.ndarray:
    H = freqresp(ABCD(*mats), omega)
    return np.linalg.norm(H, 2, axis=(1, 2))


def _band_peak(mats, omega: np.ndarray, poles: np.ndarray | None = None,
               s: np.ndarray | None = None) -> tuple[float, float]:
    """Peak of σ̄ over ``[omega[0], omega[-1]]`` (sorted grid): bounded scalar maximisation
    between the neighbours of each of the 4 largest local maxima of the sampled σ̄, and
    around each pole with damping ratio < 0.3 whose modulus is in the band (a narrow
    resonance can fall between grid points without making a local maximum)."""
    s = _sigma(mats, omega) if s is None else s
    F = omega.size
    k = int(np.argmax(s))
    best = (float(s[k]), float(omega[k]))
    if F == 1:
        return best
    up = np.r_[True, s[1:] >= s[:-1]] & np.r_[s[:-1] >= s[1:], True]
    loc = np.flatnonzero(up)
    loc = loc[np.argsort(-s[loc])][:4]
    brackets = {(max(j - 1, 0), min(j + 1, F - 1)) for j in loc}
    if poles is None:
        poles = np.linalg.eigvals(mats[0]) if mats[0].size else np.zeros(0)
    wp = np.abs(poles)
    res = (poles.imag > 0) & (-poles.real < 0.3 * wp) & (wp >= omega[0]) & (wp <= omega[-1])
    for w in wp[res]:
        j = int(np.searchsorted(omega, w))
        brackets.add((max(j - 2, 0), min(j + 1, F - 1)))
    for a, b in sorted(brackets):
        lo, hi = omega[a], omega[b]
        if hi <= lo:
            continue
        r = optimize.minimize_scalar(lambda w: -_sigma(mats, [w])[0], bounds=(lo, hi),
                                     method="bounded", options={"xatol": 1e-10 * hi})
        if -r.fun > best[0]:
            best = (float(-r.fun), float(r.x))
    return best


def _nominal_params(lft: LoopLFT, sizes: list[int]) -> np.ndarray:
    """The optimisation vector at the nominal parameters
    (:func:`~titop_lpv.robust.loop.nominal_values`)."""
    v = np.zeros(sum(sizes))
    for (b, val), a in zip(zip(lft.st.blocks, nominal_values(lft).values()),
                           np.cumsum([0, *sizes])):
        if b.kind != "full":
            v[a] = float(np.real(val))
    return v


def worst_case_gain(M: Any, blocks: Any = None,
                    omega: Sequence[float] | np.ndarray | None = None, *, starts: int = 8,
                    upper: bool = True, seed: int = 0,
                    certify: bool = True) -> WorstCaseGainResult:
    """Worst-case gain (peak σ̄ over ω) of ``F_u(M, Δ)`` over the parameter box.

    Parameters
    ----------
    M : USS or control.StateSpace
        The uncertain system (a :class:`~titop_lpv.robust.uss.USS`: its inputs and outputs
        are the performance channels), or its LFT as a StateSpace whose inputs after the
        first ``n_w`` and outputs after the first ``n_z`` are the performance channels.
    blocks : optional
        Block structure, with a StateSpace only.
    omega : array_like, optional
        Frequency grid [rad/s] (default as in :func:`titop_lpv.robust.stability.robust_stability`).
        The attained gain is the peak over the band ``[min, max]`` (refined between the
        grid points); the upper bound is certified at the grid frequencies (plus the
        refined peak frequencies).
    starts : int
        Random starts of the optimisation, besides the box vertices (all of them up to 6
        scalar blocks, else 64 random ones), the centre and the nominal parameters.
    upper : bool
        Also compute the μ upper bound (see the module docstring).
    seed : int
        Seed of the random starts.
    certify : bool
        Prove the upper bound at every frequency of [0, ∞] (default True; see
        :attr:`WorstCaseGainResult.certified`); False: at ``upper_omega`` only.

    Returns
    -------
    WorstCaseGainResult
        ``gain`` is attained (evaluated by closing the loop with ``delta``): a lower bound
        found by bounded optimisation (L-BFGS-B from the three best scored candidates) over
        real static Δ of the structure (complex scalars on their real axis, full blocks as
        real matrices with σ̄ ≤ 1), each candidate scored by its refined band peak.
        ``upper`` bounds every Δ of the structure (dynamic complex blocks too) at the
        frequencies ``upper_omega``: ``gain ≤ worst case ≤ upper`` holds for the worst case
        over those frequencies; over the whole band only if σ̄ has no higher peak between
        them.

    Raises
    ------
    RobustnessError
        Unstable loop at Δ = 0, no performance channel, sizes that do not match, a bad
        ``omega``, or ``starts`` not an integer in [0, 10000].
    ArgumentTypeError, ArgumentError
        ``seed`` is not an integer >= 0, or ``starts`` is not a number.
    """
    starts = check_count(starts, "starts", maximum=10_000, error=RobustnessError)
    seed = check_seed(seed, "seed", allow_none=False)
    lft = split_lft(M, blocks, perf=True)
    check_stable(lft)
    st = lft.st
    omega = default_omega(lft.poles()) if omega is None else check_omega(omega, RobustnessError)
    sizes = [1 if b.kind != "full" else b.rows * b.cols for b in st.blocks]
    cuts = np.cumsum([0, *sizes])
    rng = np.random.default_rng(seed)

    def dmat(v):  # scalars: v itself; full blocks: real Δ₀ scaled to σ̄ <= 1
        vals: list[Any] = []
        for b, a, e in zip(st.blocks, cuts, cuts[1:]):
            V = v[a:e].reshape(b.rows, b.cols) if b.kind == "full" else None
            vals.append(float(v[a]) if V is None else V / max(1.0, np.linalg.norm(V, 2)))
        return delta_matrix(st.delta, vals).real

    peaks: dict[bytes, tuple[float, float]] = {}

    def peak(v) -> tuple[float, float]:
        key = np.asarray(v, float).tobytes()
        if key not in peaks:
            mats = lft.closed(dmat(v))
            p = np.linalg.eigvals(mats[0]) if mats is not None and mats[0].size \
                else np.zeros(0)
            if mats is None or p.real.max(initial=-np.inf) >= -1e-10 * max(1, np.abs(p).max(
                    initial=0.0)):
                peaks[key] = (np.inf, np.nan)  # ill-posed, unstable, or a pole on the axis
            else:
                peaks[key] = _band_peak(mats, omega, p)
        return peaks[key]

    k, scal = int(cuts[-1]), [a for b, a in zip(st.blocks, cuts) if b.kind != "full"]
    corners = itertools.product((-1.0, 1.0), repeat=len(scal)) if len(scal) <= 6 else \
        (rng.choice([-1.0, 1.0], len(scal)) for _ in range(64))
    pts = []
    for c in corners:
        pts.append(np.zeros(k))
        pts[-1][scal] = c
    v_nom = _nominal_params(lft, sizes)
    pts += [np.zeros(k), v_nom] + [rng.uniform(-1, 1, k) for _ in range(starts)]
    vals = [peak(p)[0] for p in pts]
    order = np.argsort(vals, kind="stable")[::-1]
    best_v, best = vals[order[0]], pts[order[0]]
    if np.isfinite(best_v) and k:
        for j in order[:3]:
            r = optimize.minimize(lambda v: -np.log(peak(np.clip(v, -1, 1))[0]), pts[j],
                                  method="L-BFGS-B", bounds=[(-1, 1)] * k,
                                  options={"maxiter": 100})
            x = np.clip(r.x, -1, 1)
            if peak(x)[0] > best_v:
                best_v, best = peak(x)[0], x
    delta = dmat(best)
    g, w = peak(best)
    nominal = lft.closed(dmat(v_nom))
    nom_curve = _sigma(nominal, omega)
    g_nom = _band_peak(nominal, omega, s=nom_curve)[0]
    curve = _sigma(lft.closed(delta), omega) if np.isfinite(g) else np.full(omega.size, np.inf)
    extra = np.array([pw for pg, pw in peaks.values() if np.isfinite(pg)])
    w_cert = np.unique(np.r_[omega, extra])
    ub, how, ivs = None, "grid", np.zeros((0, 2))
    if upper and not np.isfinite(g):
        ub = np.inf
    elif upper:
        # both bounds are valid: an upper bound below the attained gain is raised to it
        ub, cert = _mu_gain_upper(lft, w_cert, g, g_nom, certify)
        ub = max(ub, g)
        if cert is not None and cert.complete:
            how, ivs = "intervals", cert.intervals
    dvals = block_values(delta, st.delta)
    return WorstCaseGainResult(g, delta, dvals, physical_values(lft, dvals), w, ub, w_cert, g_nom,
                               block_values(dmat(v_nom), st.delta), omega, curve, nom_curve,
                               how, ivs)


def _gain_certified(Nd: np.ndarray, Np: np.ndarray, Gs: np.ndarray,
                    full: bool) -> np.ndarray:
    """Per frequency, the smallest γ certified by scaled matrices for Zd + Zp/γ.

    ``Nd = T Zd T⁻¹``, ``Np = T Zp T⁻¹`` and G̃ (``Gs``: (F, N, N) if ``full``, else the
    (F, N) diagonal) as from :func:`titop_lpv.robust.mu_upper.scaled_matrices`. The certificate of
    μ ≤ 1 is ``P0 + P1/γ² ≤ 0`` with ``P0 = Ndᴴ Nd + j(G̃ Nd − Ndᴴ G̃) − I`` and
    ``P1 = Npᴴ Np`` (the cross terms vanish: D and G̃ are block diagonal and G̃ is zero on
    the complex performance block). So γ = sqrt(λ_max(P1, −P0)) when −P0 > 0, else no γ
    (inf). Each value is checked by evaluating the certificate at γ (1 + 1e-9)."""
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


def _mu_gain_upper(lft: LoopLFT, omega: np.ndarray, g_low: float, g_nom: float,
                   certify: bool = True) -> tuple[float, Certificate | None]:
    """Smallest γ (within ``UPPER_RTOL``) with, at every frequency, D-G scalings that
    certify μ ≤ 1 for [[M11, M12], [M21/γ, M22/γ]] (robust performance theorem).

    Every frequency keeps the smallest γ certified so far (a certificate at γ is one at
    every larger γ); the bisection re-optimises only the frequencies still above the trial
    γ: warm-started L-BFGS, then a cold start with more iterations, full-block scalings if
    blocks repeat, then SLICOT AB13MD on the (at most 4) worst, before declaring the trial
    γ infeasible. With ``certify``, the bound is then proved on frequency intervals
    (:func:`_certify_gain`)."""
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
        g = _gain_certified(Nd, scaled_matrices(x, Zp[idx], aug, full)[0], Gs, full)
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
        g = _gain_certified((T @ Zd[i] @ Ti)[None], (T @ Zp[i] @ Ti)[None], Gt[None], True)[0]
        if g < best[i]:
            best[i], scal[int(i)] = g, Scaling(T, Ti, Gt)

    def feasible(gam):
        idx = np.flatnonzero(best > gam)
        steps = [lambda i: attempt(i, gam, xs[i], 30),
                 lambda i: attempt(i, gam, None, 100)]
        if aug.repeated:
            steps.append(lambda i: attempt(i, gam, full_scalings(xs[i], aug), 60, full=True))
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
    if not certify:
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
        return float(_gain_certified((sc.T @ Zd[0] @ sc.Ti)[None], (sc.T @ Zp[0] @ sc.Ti)[None],
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

