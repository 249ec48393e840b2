"""Worst-case gain of an uncertain loop ``F_u(M, Δ)`` over the parameter box.

A lower bound attained by a Δ (bounded multistart optimisation over real static Δ of the
structure) and a μ upper bound (robust performance theorem: skewed μ with a full complex
performance block, certified by D-G scalings on the frequency grid).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from scipy import optimize

from .mu import freqresp
from .mu_structure import _Structure, block_values
from .mu_upper_bound import dg_batch
from .robust import _LFT, _check_stable, _default_omega, _lft, _physical, delta_matrix
from .uncertain import Block

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["WorstCaseGainResult", "worst_case_gain"]


@dataclass(frozen=True)
class WorstCaseGainResult:
    """Worst-case gain of F_u(M, Δ) from the performance inputs to the performance outputs.

    Attributes
    ----------
    gain : float
        Largest σ̄ of F_u(M, Δ)(jω) found, attained by ``delta`` at ``omega_peak`` (a lower
        bound on the worst case; ``inf`` if ``delta`` destabilises the loop).
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
        μ-based upper bound (skewed μ with a full complex performance block), certified on
        the frequency grid; None if not computed, ``inf`` if μ(M11) ≥ 1 somewhere.
    nominal_gain : float
    omega : ndarray
    worst_curve, nominal_curve : ndarray
        σ̄ against ``omega`` with ``delta`` and with Δ = 0.
    """

    gain: float
    delta: np.ndarray
    delta_values: dict
    parameter_values: dict
    omega_peak: float
    upper: float | None
    nominal_gain: float
    omega: np.ndarray
    worst_curve: np.ndarray
    nominal_curve: np.ndarray

    def report(self) -> str:
        """The worst gain, its δ and the bounds."""
        vals = ", ".join(f"δ_{k} = {np.round(v, 6)}" for k, v in self.delta_values.items())
        if self.parameter_values:
            vals += " (" + ", ".join(f"{k} = {np.round(v, 6)}"
                                     for k, v in self.parameter_values.items()) + ")"
        if not np.isfinite(self.gain):
            return f"not robustly stable: {vals} puts a pole on or beyond the imaginary axis"
        up = "not computed" if self.upper is None else f"{self.upper:.6g} (μ, on the grid)"
        return "\n".join([
            f"worst-case gain {self.gain:.6g} at ω = {self.omega_peak:.6g} rad/s "
            f"(nominal {self.nominal_gain:.6g}; {self.gain / self.nominal_gain:.3g}x)",
            f"  attained with {vals}",
            f"  bounds: {self.gain:.6g} <= worst case <= {up}"])

    def plot(self, *, ax: Any = None) -> Figure:
        """σ̄ against ω with the worst Δ and with Δ = 0; returns the Figure."""
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(6.5, 4), layout="constrained") if ax is None \
            else (ax.figure, ax)
        pos = self.omega > 0
        ax.loglog(self.omega[pos], self.nominal_curve[pos], label="nominal")
        ax.loglog(self.omega[pos], self.worst_curve[pos], label="worst Δ")
        if self.upper is not None and np.isfinite(self.upper):
            ax.axhline(self.upper, color="k", ls=":", label="μ upper bound")
        ax.plot(self.omega_peak, self.gain, "o", color="C1")
        ax.set_xlabel("ω [rad/s]")
        ax.set_ylabel("σ̄ (gain)")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend()
        return fig


def _sigma(mats, omega) -> np.ndarray:
    H = freqresp(_SS(*mats), omega)
    return np.linalg.norm(H, 2, axis=(1, 2))


@dataclass(frozen=True)
class _SS:
    A: np.ndarray
    B: np.ndarray
    C: np.ndarray
    D: np.ndarray


def _peak(mats, omega) -> tuple[float, float]:
    """Peak of σ̄ over the grid, refined between the neighbours of the grid maximum."""
    s = _sigma(mats, omega)
    k = int(np.argmax(s))
    lo, hi = omega[max(k - 1, 0)], omega[min(k + 1, omega.size - 1)]
    if hi > lo:
        r = optimize.minimize_scalar(lambda w: -_sigma(mats, [w])[0], bounds=(lo, hi),
                                     method="bounded", options={"xatol": 1e-10 * hi})
        if -r.fun > s[k]:
            return float(-r.fun), float(r.x)
    return float(s[k]), float(omega[k])


def worst_case_gain(M: Any, blocks: Any = None,
                    omega: Sequence[float] | np.ndarray | None = None, *, starts: int = 8,
                    upper: bool = True, seed: int = 0) -> WorstCaseGainResult:
    """Worst-case gain (peak σ̄ over ω) of ``F_u(M, Δ)`` over the parameter box.

    Parameters
    ----------
    M : USS or control.StateSpace
        The uncertain system (a :class:`~titop_lpv.uncertain.USS`: its inputs and outputs
        are the performance channels), or its LFT as a StateSpace whose inputs after the
        first ``n_w`` and outputs after the first ``n_z`` are the performance channels.
    blocks : optional
        Block structure, with a StateSpace only.
    omega : array_like, optional
        Frequency grid [rad/s] (default as in :func:`titop_lpv.robust.robust_stability`).
    starts : int
        Random starts of the optimisation, besides the box vertices (all of them up to 6
        scalar blocks) and the centre.
    upper : bool
        Also compute the μ upper bound (bisection on γ, the grid-wise D-G certificate of
        μ([Δ, Δ_perf]) ≤ 1 for ``[[M11, M12], [M21/γ, M22/γ]]``).
    seed : int

    Returns
    -------
    WorstCaseGainResult
        ``gain`` is attained (evaluated by closing the loop with ``delta``): a lower bound
        found by bounded optimisation (L-BFGS-B, multistart from the vertices of the box of
        the scalars) over real static Δ of the structure (complex scalars on their real axis,
        full blocks as real matrices with σ̄ ≤ 1); ``upper`` bounds every Δ of the structure
        (dynamic complex blocks too).

    Raises
    ------
    RobustnessError
        Unstable nominal loop, no performance channel, or sizes that do not match.
    """
    lft = _lft(M, blocks, perf=True)
    _check_stable(lft)
    st = lft.st
    omega = _default_omega(lft) if omega is None else np.unique(np.asarray(omega, float))
    sizes = [1 if b.kind != "full" else b.rows * b.cols for b in st.blocks]
    cuts = np.cumsum([0, *sizes])
    rng = np.random.default_rng(seed)

    def dmat(v):  # scalars: v itself; full blocks: real Δ₀ scaled to σ̄ <= 1
        vals: list[Any] = []
        for b, a, e in zip(st.blocks, cuts, cuts[1:]):
            V = v[a:e].reshape(b.rows, b.cols) if b.kind == "full" else None
            vals.append(float(v[a]) if V is None else V / max(1.0, np.linalg.norm(V, 2)))
        return delta_matrix(st.blocks, vals).real

    def gain(v):
        mats = lft.closed(dmat(v))
        p = np.linalg.eigvals(mats[0]) if mats is not None else np.zeros(1)
        if mats is None or p.real.max(initial=-np.inf) >= -1e-10 * max(1, np.abs(p).max()):
            return np.inf  # unstable, or a pole on the axis
        return float(_sigma(mats, omega).max())

    k, scal = int(cuts[-1]), [a for b, a in zip(st.blocks, cuts) if b.kind != "full"]
    corners = itertools.product((-1.0, 1.0), repeat=len(scal)) if len(scal) <= 6 else \
        (rng.choice([-1.0, 1.0], len(scal)) for _ in range(64))
    pts = []
    for c in corners:
        pts.append(np.zeros(k))
        pts[-1][scal] = c
    pts += [np.zeros(k)] + [rng.uniform(-1, 1, k) for _ in range(starts)]
    vals = [gain(p) for p in pts]
    order = np.argsort(vals)[::-1]
    best_v, best = vals[order[0]], pts[order[0]]
    if np.isfinite(best_v) and k:
        for j in order[:3]:
            r = optimize.minimize(lambda v: -np.log(gain(v)), pts[j], method="L-BFGS-B",
                                  bounds=[(-1, 1)] * k, options={"maxiter": 100})
            g = gain(r.x)
            if g > best_v:
                best_v, best = g, np.clip(r.x, -1, 1)
    delta = dmat(best)
    nominal = lft.closed(np.zeros((st.nw, st.nz)))
    nom_curve = _sigma(nominal, omega)
    mats = lft.closed(delta)
    if np.isfinite(best_v):
        g, w = _peak(mats, omega)
        curve = _sigma(mats, omega)
    else:
        g, w, curve = np.inf, np.nan, np.full(omega.size, np.inf)
    ub = _mu_gain_upper(lft, omega, float(nom_curve.max()), g) if upper else None
    dvals = block_values(delta, st.blocks)
    return WorstCaseGainResult(g, delta, dvals, _physical(lft, dvals), w, ub,
                               float(nom_curve.max()), omega, curve, nom_curve)


def _mu_gain_upper(lft: _LFT, omega: np.ndarray, g_nom: float, g_low: float) -> float:
    """Smallest γ with a D-G certificate of μ ≤ 1 for [[M11, M12], [M21/γ, M22/γ]] at every
    grid frequency (bisection; robust performance theorem)."""
    nu, ny = lft.B2.shape[1], lft.C2.shape[0]
    aug = _Structure([*lft.st.blocks, Block("performance", "full", nu, ny, 1)])
    Mw = freqresp(lft.sys, omega)
    x0: list[Any] = [None]

    def feasible(gam):
        Mg = Mw.copy()
        Mg[:, lft.st.nz:, :] /= gam
        ub, x0[0] = dg_batch(aug.pad(Mg), aug, x0[0], iters=25)
        return bool(ub.max() <= 1.0)

    lo = max(g_low if np.isfinite(g_low) else g_nom, 1e-300)
    hi = lo * (1 + 1e-3)
    while not feasible(hi):
        lo, hi = hi, 2 * hi
        if hi > 1e6 * max(g_nom, 1e-300):
            return np.inf
    for _ in range(40):
        if hi - lo <= 1e-7 * hi:
            break
        mid = 0.5 * (lo + hi)
        lo, hi = (lo, mid) if feasible(mid) else (mid, hi)
    return float(hi)
