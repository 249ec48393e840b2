"""Worst-case gain of an uncertain loop ``F_u(M, Δ)`` over the parameter box.

Two numbers bracket the worst case ``max_Δ max_ω σ̄(F_u(M, Δ)(jω))``:

* a lower bound **attained** by a Δ: bounded multistart optimisation over real static Δ of
  the structure, every candidate scored by its peak gain refined in ω between the grid
  points (local maximisation around each local maximum of the sampled σ̄ and around each
  lightly damped pole), so that the score does not depend on where the grid points fall;
  with ``ultidyn`` / ``ucomplex`` blocks, then a complex Δ at a critical frequency turned
  into a stable LTI Δ(s) (:mod:`titop_lpv.robust.worst_dynamic`), kept when the loop it
  closes has a larger peak;
* an upper bound **certified on a frequency grid** (the given grid plus the refined peak
  frequencies of the candidates): robust performance theorem, skewed μ with a full complex
  performance block; at each frequency D-G scalings give the largest γ they certify in
  closed form (a generalised eigenvalue), and a bisection on γ re-optimises the scalings
  only where the bound is still above γ; then proved on frequency intervals covering
  [0, ∞] (:mod:`titop_lpv.robust.gain_upper`).
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
from .checks import check_count, check_seed
from .frequency import check_omega, default_omega
from .gain_upper import gain_certified as _gain_certified  # noqa: F401  (tests use it)
from .gain_upper import mu_gain_upper
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
from .structure import block_values
from .worst_dynamic import dynamic_worst_case

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["WorstCaseGainResult", "worst_case_gain"]


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
        The worst Δ found: real static (complex scalars on their real axis, full blocks as
        real matrices), or, with ``delta_system``, its complex value at
        ``omega_critical``.
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
        :mod:`titop_lpv.robust.certify`); ``"exact"``: the gain is 0 for every Δ (no
        path from the performance inputs to the outputs), ``upper`` is 0; ``"grid"``: at
        ``upper_omega`` only.
    intervals : ndarray (K, 2)
        The certified open intervals [rad/s] (``-1``: from ω = 0 included; ``inf``: up to
        ω = ∞ included).
    delta_system : control.StateSpace or None
        With ``ultidyn`` / ``ucomplex`` blocks, when a dynamic Δ beats the real static
        ones: a stable real LTI Δ(s) of the structure, ``Δ(j omega_critical) = delta``,
        of structured norm ≤ 1 at every frequency (first-order all-passes,
        :mod:`titop_lpv.robust.worst_dynamic`); ``gain`` is then the peak σ̄ of the loop
        closed by it (checked stable, and equal at ``omega_critical`` to the optimised gain
        within 1e-9). None otherwise (``delta`` real static).
    omega_critical : float or None
        The frequency [rad/s] at which ``delta_system`` takes the value ``delta``.
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
    delta_system: Any = None
    omega_critical: float | None = None

    def report(self) -> str:
        """The worst gain, its δ, and what each bound guarantees."""
        vals = ", ".join(f"δ_{k} = {np.round(v, 6)}" for k, v in self.delta_values.items())
        if self.parameter_values:
            vals += " (" + ", ".join(f"{k} = {np.round(v, 6)}"
                                     for k, v in self.parameter_values.items()) + ")"
        if not np.isfinite(self.gain):
            return f"not robustly stable: {vals} puts a pole on or beyond the imaginary axis"
        if self.certified == "exact":
            return ("worst-case gain 0: no path from the performance inputs to the outputs "
                    "for any Δ (M22 and M21 or M12 are zero)")
        band = f"ω ∈ [{self.omega.min():.4g}, {self.omega.max():.4g}] rad/s"
        lines = [
            f"worst-case gain {self.gain:.6g} at ω = {self.omega_peak:.6g} rad/s over {band} "
            f"(nominal parameters: {self.nominal_gain:.6g}; "
            f"{self.gain / self.nominal_gain:.3g}x)" if self.nominal_gain > 0 else
            f"worst-case gain {self.gain:.6g} at ω = {self.omega_peak:.6g} rad/s over {band} "
            "(nominal parameters: 0)",
            f"  attained with {vals}: a lower bound on the worst case" if
            self.delta_system is None else
            f"  attained by a stable LTI Δ(s) of order {self.delta_system.nstates} (all-passes)"
            f" with Δ(jω) = {vals} at ω = {self.omega_critical:.6g} rad/s: a lower bound on "
            "the worst case"]
        if self.upper is None:
            lines.append("  upper bound: not computed")
        elif not np.isfinite(self.upper):
            lines.append("  upper bound: none certified (μ of the Δ loop reaches 1, or the "
                         "scalings failed)")
        elif self.upper >= self.gain * (1 - 1e-9) and self.certified == "intervals":
            lines.append(f"  {self.gain:.6g} <= worst case <= {self.upper:.6g} (μ upper bound "
                         f"certified at every frequency on {len(self.intervals)} intervals, "
                         f"gap {self._gap()})")
        elif self.upper >= self.gain * (1 - 1e-9):
            lines.append(f"  {self.gain:.6g} <= worst case at the {self.upper_omega.size} "
                         f"certified frequencies <= {self.upper:.6g} (μ upper bound, "
                         f"gap {self._gap()}); between grid points the "
                         "upper bound is not certified")
        else:  # cannot happen when upper_omega contains omega_peak; said, not hidden
            lines.append(f"  μ upper bound {self.upper:.6g} at the {self.upper_omega.size} "
                         f"certified frequencies is BELOW the attained gain {self.gain:.6g}: "
                         "the certificate is inconsistent, do not use it")
        return "\n".join(lines)

    def _gap(self) -> str:
        return f"{self.upper / self.gain - 1:.2%}" if self.gain > 0 else "infinite"

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


def _no_path(lft: LoopLFT, omega: np.ndarray) -> bool:
    """True when ``F_u(M, Δ) = M22 + M21 Δ (I − M11 Δ)⁻¹ M12`` is zero for every Δ: M22
    and M21 or M12 vanish (to 1e-14 relative) at the grid frequencies and at ω = ∞. Each
    entry is a polynomial of degree ≤ n over det(sI − A), so zero at n + 1 frequencies means
    zero (the check needs at least n + 1 grid points)."""
    n = lft.A.shape[0]
    if omega.size < n + 1:
        return False
    Mw = np.concatenate([freqresp(lft.sys, omega), lft.sys.D[None].astype(complex)])
    nz, nw = lft.st.nz, lft.st.nw
    tiny = 1e-14 * max(1.0, float(np.abs(Mw).max()))

    def zero(X):
        return X.size == 0 or float(np.abs(X).max()) <= tiny
    return zero(Mw[:, nz:, nw:]) and (zero(Mw[:, nz:, :nw]) or zero(Mw[:, :nz, nw:]))


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
            # log: the peak spans decades; 1e-300: a zero gain (no performance path) is flat
            r = optimize.minimize(lambda v: -np.log(peak(np.clip(v, -1, 1))[0] + 1e-300), pts[j],
                                  method="L-BFGS-B", bounds=[(-1, 1)] * k,
                                  options={"maxiter": 100})
            x = np.clip(r.x, -1, 1)
            if peak(x)[0] > best_v:
                best_v, best = peak(x)[0], x
    delta = dmat(best)
    g, w = peak(best)
    nominal = lft.closed(dmat(v_nom))
    nom_curve = _sigma(nominal, omega)
    g_nom, w_nom = _band_peak(nominal, omega, s=nom_curve)
    curve = _sigma(lft.closed(delta), omega) if np.isfinite(g) else np.full(omega.size, np.inf)
    extra = np.array([pw for pg, pw in peaks.values() if np.isfinite(pg)])
    dyn = None
    if np.isfinite(g) and not st.all_real and g > 0:  # complex blocks: a dynamic Δ(s)
        tops = np.argsort(-curve)[:2]
        dyn = dynamic_worst_case(lft, omega, delta, np.r_[w, omega[tops], w_nom],
                                 _band_peak, seed)
        if dyn is not None and dyn.verified and dyn.gain > g:
            g, w, delta = dyn.gain, dyn.omega_peak, dyn.delta
            curve = _sigma(dyn.closed, omega)
            extra = np.r_[extra, w, dyn.omega_c]
        else:
            dyn = None
    w_cert = np.unique(np.r_[omega, extra])
    ub, how, ivs = None, "grid", np.zeros((0, 2))
    if upper and not np.isfinite(g):
        ub = np.inf
    elif upper and _no_path(lft, omega):
        ub, how = 0.0, "exact"
    elif upper:
        # both bounds are valid: an upper bound below the attained gain is raised to it
        ub, cert = mu_gain_upper(lft, w_cert, g, g_nom, certify)
        ub = max(ub, g)
        if cert is not None and cert.complete:
            how, ivs = "intervals", cert.intervals
    dvals = block_values(delta, st.delta)
    return WorstCaseGainResult(g, delta, dvals, physical_values(lft, dvals), w, ub, w_cert, g_nom,
                               block_values(dmat(v_nom), st.delta), omega, curve, nom_curve,
                               how, ivs, None if dyn is None else dyn.system,
                               None if dyn is None else dyn.omega_c)
