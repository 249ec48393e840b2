"""Robustness analysis of an uncertain loop ``F_u(M, Δ)``: robust stability margin, worst-case
gain, Monte-Carlo sampling.

The LFT: ``M`` is a ``control.StateSpace`` whose first ``n_w`` inputs ``w`` and first ``n_z``
outputs ``z`` are the Δ channels (``w = Δ z``, ``[z; y] = M [w; u]``); the remaining inputs
``u`` and outputs ``y`` are the performance channels. The block structure is as in
:mod:`titop_lpv.mu` (real δ normalised to [−1, 1], complex blocks to norm ≤ 1); a
``DeltaStructure`` (``.blocks``) is accepted too. With ``M = [[A, B1, B2], [C1, D11, D12],
[C2, D21, D22]]`` and a static Δ, ``L = Δ (I − D11 Δ)⁻¹`` and

    F_u(M, Δ) = (A + B1 L C1, B2 + B1 L D12, C2 + D21 L C1, D22 + D21 L D12).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import control
import numpy as np
from scipy import optimize

from .exceptions import TitopError
from .mu import (
    Block,
    MuResult,
    StructureError,
    _Structure,
    block_values,
    freqresp,
    mu_sweep,
    mu_upper,
)

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["MonteCarloResult", "RobustStabilityResult", "RobustnessError",
           "WorstCaseGainResult", "close_lft", "delta_matrix", "monte_carlo",
           "robust_stability", "worst_case_gain"]

AXIS_TOL = 1e-6  # |Re p| <= AXIS_TOL * max(1, |p|): the pole is on the imaginary axis


class RobustnessError(TitopError, ValueError):
    """A robustness analysis cannot be run: unstable nominal loop, sizes that do not match."""


@dataclass(frozen=True)
class _LFT:
    A: np.ndarray
    B1: np.ndarray
    B2: np.ndarray
    C1: np.ndarray
    C2: np.ndarray
    D11: np.ndarray
    D12: np.ndarray
    D21: np.ndarray
    D22: np.ndarray
    st: _Structure
    sys: Any

    def closed(self, delta: np.ndarray):
        """(A, B, C, D) of F_u(M, Δ), or None when I − D11 Δ is singular (ill-posed)."""
        E = np.eye(self.st.nz) - self.D11 @ delta
        if np.linalg.cond(E) > 1e12:
            return None
        L = delta @ np.linalg.inv(E)
        return (self.A + self.B1 @ L @ self.C1, self.B2 + self.B1 @ L @ self.D12,
                self.C2 + self.D21 @ L @ self.C1, self.D22 + self.D21 @ L @ self.D12)

    def m11(self) -> control.StateSpace:
        return control.ss(self.A, self.B1, self.C1, self.D11)


def _lft(M: Any, blocks: Any, perf: bool = False) -> _LFT:
    try:
        st = _Structure(blocks)
    except StructureError as exc:
        raise RobustnessError(str(exc)) from None
    if not isinstance(M, control.StateSpace):
        raise RobustnessError(f"M must be a control.StateSpace, got {type(M).__name__}")
    if M.dt not in (0, None):
        raise RobustnessError(f"M is discrete-time (dt = {M.dt}); only continuous time is "
                              "handled")
    nx, nu, ny = M.nstates, M.ninputs, M.noutputs
    if nu < st.nw or ny < st.nz or (perf and (nu == st.nw or ny == st.nz)):
        need = "more than" if perf else "at least"
        raise RobustnessError(f"M has {nu} inputs and {ny} outputs; the structure needs "
                              f"{need} n_w = {st.nw} inputs (w) and {need} n_z = {st.nz} "
                              "outputs (z)" + (" (the rest are the performance channels)"
                                               if perf else ""))
    A, B, C, D = (np.asarray(getattr(M, m), float) for m in "ABCD")
    w, z = st.nw, st.nz
    return _LFT(A.reshape(nx, nx), B[:, :w], B[:, w:], C[:z], C[z:], D[:z, :w], D[:z, w:],
                D[z:, :w], D[z:, w:], st, M)


def _check_stable(lft: _LFT) -> np.ndarray:
    poles = np.linalg.eigvals(lft.A) if lft.A.size else np.zeros(0)
    if poles.size and poles.real.max() >= 0:
        bad = poles[poles.real >= 0]
        raise RobustnessError(f"the nominal loop (Δ = 0) is not stable: poles {np.round(bad, 6)} "
                              "in the closed right half-plane")
    return poles


def delta_matrix(blocks: Any, values: Any) -> np.ndarray:
    """Δ (``n_w × n_z``) from the value of each block.

    Parameters
    ----------
    blocks
        Block structure.
    values : sequence or mapping
        One value per block, in order or by name: a number for scalar blocks, a
        ``rows × cols`` array for full blocks (repeated ``repeats`` times).

    Returns
    -------
    ndarray
        Real when every value is real, else complex.
    """
    st = _Structure(blocks)
    if isinstance(values, dict):
        missing = [b.name for b in st.blocks if b.name not in values]
        if missing:
            raise RobustnessError(f"no value for the blocks {missing}")
        values = [values[b.name] for b in st.blocks]
    if len(values) != len(st.blocks):
        raise RobustnessError(f"{len(values)} values for {len(st.blocks)} blocks")
    out = np.zeros((st.nw, st.nz), complex)
    for b, cop, v in zip(st.blocks, st.copies, values):
        v = np.atleast_2d(np.asarray(v, complex)) if b.kind == "full" else complex(v) * np.eye(1)
        if v.shape != (b.rows, b.cols):
            raise RobustnessError(f"block {b.name!r}: value of shape {v.shape}, expected "
                                  f"{(b.rows, b.cols)}")
        for w, c in cop:
            out[np.ix_(w, c)] = v
    return out.real if not np.any(out.imag) else out


def close_lft(M: control.StateSpace, delta: np.ndarray, blocks: Any = None) -> control.StateSpace:
    """Upper LFT ``F_u(M, Δ)`` with a static real Δ, keeping the signal names.

    Parameters
    ----------
    M : control.StateSpace
        The LFT (first inputs/outputs are w/z).
    delta : (n_w, n_z) array_like, real
        The perturbation (see :func:`delta_matrix`).
    blocks
        Optional structure, to check Δ's size against it.

    Returns
    -------
    control.StateSpace
        From the performance inputs ``u`` to the performance outputs ``y``.

    Raises
    ------
    RobustnessError
        Wrong sizes, complex Δ, or an ill-posed loop (I − D11 Δ singular).
    """
    delta = np.atleast_2d(np.asarray(delta))
    if np.iscomplexobj(delta) and np.any(delta.imag):
        raise RobustnessError("close_lft needs a real Δ (a complex Δ gives a complex system)")
    delta = delta.real.astype(float)
    nw, nz = delta.shape
    lft = _lft(M, blocks if blocks is not None else [("full", nw, nz, 1)])
    if delta.shape != (lft.st.nw, lft.st.nz):
        raise RobustnessError(f"Δ is {nw}x{nz}, the structure needs {lft.st.nw}x{lft.st.nz}")
    mats = lft.closed(delta)
    if mats is None:
        raise RobustnessError("ill-posed loop: I − D11 Δ is singular for this Δ")
    return control.ss(*mats, states=list(M.state_labels), inputs=list(M.input_labels[nw:]),
                      outputs=list(M.output_labels[nz:]), name=f"{M.name}_closed")


def _default_omega(lft: _LFT, n: int = 400) -> np.ndarray:
    mags = np.abs(np.linalg.eigvals(lft.A)) if lft.A.size else np.ones(1)
    mags = mags[mags > 0] if np.any(mags > 0) else np.ones(1)
    return np.r_[0.0, np.logspace(np.log10(mags.min()) - 2, np.log10(mags.max()) + 2, n)]


@dataclass(frozen=True)
class RobustStabilityResult:
    """Robust stability margin of F_u(M, Δ) over the block structure.

    Attributes
    ----------
    margin_lower : float
        1/peak μ upper bound: the loop is stable for every Δ with structured norm below it
        (up to the frequency grid).
    margin_upper : float
        1/peak μ lower bound: the structured norm of ``delta``, which destabilises the loop.
    omega_critical : float
        Frequency [rad/s] of the closed-loop pole that ``delta`` puts on the imaginary axis.
    delta : ndarray or None
        The destabilising Δ (``n_w × n_z``; complex if the structure has complex blocks).
    delta_values : dict
        ``delta`` block by block (:func:`titop_lpv.mu.block_values`).
    pole : complex
        The closed-loop pole with Δ = ``delta`` nearest the imaginary axis.
    axis_distance : float
        |Re pole|; ``verified`` when ≤ 1e-6 · max(1, |pole|).
    verified : bool
    method : str
        How ``delta`` was found.
    mu : MuResult
        μ of M11 against frequency.
    nominal_poles : ndarray
    """

    margin_lower: float
    margin_upper: float
    omega_critical: float
    delta: np.ndarray | None
    delta_values: dict
    pole: complex
    axis_distance: float
    verified: bool
    method: str
    mu: MuResult
    nominal_poles: np.ndarray

    def report(self) -> str:
        """Margin bounds, the destabilising Δ and its verification."""
        vals = ", ".join(f"{k} = {np.round(v, 6)}" for k, v in self.delta_values.items())
        if self.delta is None:
            return (f"robustly stable: no destabilising Δ found (μ upper bound peak "
                    f"{self.mu.peak_upper:.6g}, margin >= {self.margin_lower:.6g})")
        return "\n".join([
            f"robust stability margin in [{self.margin_lower:.6g}, {self.margin_upper:.6g}] "
            "(structured norm of Δ; real δ normalised to [-1, 1])",
            f"  stable for every Δ with ‖Δ‖ < {self.margin_lower:.6g} (1/peak μ upper bound; "
            f"μ sweep peak {self.mu.peak_upper:.6g} at ω = {self.mu.omega_upper:.6g} rad/s)",
            f"  destabilising Δ ({self.method}), ‖Δ‖ = {self.margin_upper:.6g}: {vals}",
            f"  closed-loop pole {self.pole:.6g} at ω = {self.omega_critical:.6g} rad/s, "
            f"|Re| = {self.axis_distance:.2e} -> {'verified' if self.verified else 'NOT verified'}"
            f" (tolerance {AXIS_TOL:g}·max(1, |p|))"])

    def plot(self) -> Figure:
        """μ bounds against ω and the poles (nominal and with the destabilising Δ)."""
        import matplotlib.pyplot as plt

        fig, (a1, a2) = plt.subplots(1, 2, figsize=(11, 4), layout="constrained")
        self.mu.plot(ax=a1)
        a1.set_title(f"margin ∈ [{self.margin_lower:.4g}, {self.margin_upper:.4g}]")
        p = self.nominal_poles
        a2.plot(p.real, p.imag, "x", label="nominal")
        a2.plot(self.pole.real, self.pole.imag, "o", mfc="none", ms=10, label="with Δ critical")
        a2.axvline(0.0, color="k", lw=0.6)
        a2.set_xlabel("Re [rad/s]")
        a2.set_ylabel("Im [rad/s]")
        a2.grid(True, alpha=0.3)
        a2.legend()
        return fig


def _abscissa(lft: _LFT, delta: np.ndarray) -> tuple[float, complex]:
    mats = lft.closed(delta)
    if mats is None:
        return np.inf, complex(np.inf)
    p = np.linalg.eigvals(mats[0])
    k = int(np.argmax(p.real))
    return float(p.real[k]), complex(p[k])


def _ray_search(lft: _LFT, t_max: float, seed: int) -> tuple[float, np.ndarray] | None:
    """Real parameters only: smallest t with a closed-loop pole on the imaginary axis along
    rays t·d (‖d‖∞ = 1) through the vertices, the axes, and a local Nelder–Mead search."""
    st, k = lft.st, len(lft.st.blocks)
    rng = np.random.default_rng(seed)

    def dmat(d):
        Q = np.zeros((st.nw, st.nz))
        Q[st.sw, st.sz] = d[st.sblk]
        return Q

    def crossing(d, t_hi):
        d = d / np.max(np.abs(d))
        ts = np.linspace(0.0, t_hi, 41)[1:]
        prev = 0.0
        for t in ts:
            if _abscissa(lft, t * dmat(d))[0] >= 0:
                f = lambda s: _abscissa(lft, s * dmat(d))[0]  # noqa: E731
                if not np.isfinite(f(t)):  # ill-posed at t: bisect on finiteness too
                    f = lambda s: min(_abscissa(lft, s * dmat(d))[0], 1.0)  # noqa: E731
                return optimize.brentq(f, prev, t, xtol=1e-15 * t_hi, rtol=1e-15), d
            prev = t
        return np.inf, d

    dirs = [np.array(v, float) for v in itertools.product((-1, 1), repeat=k)] if k <= 6 else \
        [rng.choice([-1.0, 1.0], k) for _ in range(64)]
    dirs += [s * np.eye(k)[i] for i in range(k) for s in (-1.0, 1.0)]
    best = min((crossing(d, t_max) for d in dirs), key=lambda r: r[0])
    if not np.isfinite(best[0]):
        return None
    if k > 1:  # local refinement of the direction
        r = optimize.minimize(lambda v: crossing(v, 1.5 * best[0])[0] if np.any(v) else np.inf,
                              best[1], method="Nelder-Mead",
                              options={"maxfev": 60 * k, "xatol": 1e-10, "fatol": 1e-13})
        if r.fun < best[0]:
            best = crossing(r.x, 1.5 * best[0])
    return best[0], best[0] * dmat(best[1])


def robust_stability(M: control.StateSpace, blocks: Any,
                     omega: Sequence[float] | np.ndarray | None = None, *,
                     seed: int = 0) -> RobustStabilityResult:
    """Robust stability margin of ``F_u(M, Δ)`` with a destabilising Δ, verified.

    Parameters
    ----------
    M : control.StateSpace
        The LFT; its first ``n_w`` inputs / ``n_z`` outputs are the Δ channels.
    blocks
        Block structure (tuples, :class:`titop_lpv.mu.Block` or a ``DeltaStructure``).
    omega : array_like, optional
        Frequency grid [rad/s]; default 0 and 400 points spanning the nominal poles' moduli
        from /100 to ×100. Keep 0 in the grid for real parameters (poles crossing at s = 0).
    seed : int
        Seed of the μ lower-bound starts.

    Returns
    -------
    RobustStabilityResult
        Margin bounds ``[1/peak μ_upper, 1/peak μ_lower]`` from :func:`titop_lpv.mu.mu_sweep`
        of M11; ``delta`` destabilising at the upper bound, verified by closing the loop: a
        pole on the imaginary axis. With real parameters only, a search along rays of the δ
        box (state-space spectral abscissa, exact crossing by Brent's method) supplements
        the μ lower bound (real μ is discontinuous in ω).

    Raises
    ------
    RobustnessError
        Unstable nominal loop, or sizes of M and of the structure that do not match.
    """
    lft = _lft(M, blocks)
    poles = _check_stable(lft)
    omega = _default_omega(lft) if omega is None else np.asarray(omega, float)
    res = mu_sweep(lft.m11(), lft.st.blocks, omega, lower=False, seed=seed)
    delta, method, peak = res.delta, "μ lower bound", res.peak_upper
    m_up = 1 / res.peak_lower if res.peak_lower > 0 else np.inf
    if lft.st.all_real:
        t_max = m_up if np.isfinite(m_up) else 4 / max(res.peak_upper, 1e-12)
        ray = _ray_search(lft, t_max * (1 + 1e-9), seed)
        if ray is not None and ray[0] < m_up * (1 - 1e-12):
            m_up, delta, method = ray[0], ray[1], "ray search over the δ box"
            wc = abs(_abscissa(lft, delta)[1].imag)  # bound μ where the ray crossed, too
            peak = max(peak, mu_upper(freqresp(lft.m11(), [wc])[0], lft.st.blocks).value)
    vals, pole, dist = {}, complex(np.nan), np.inf
    if delta is not None:
        vals = block_values(delta, lft.st.blocks)
        mats = lft.closed(delta)
        if mats is not None:
            p = np.linalg.eigvals(mats[0])
            pole = complex(p[np.argmin(np.abs(p.real))])
            dist = abs(pole.real)
    return RobustStabilityResult(
        1 / peak if peak > 0 else np.inf, float(m_up), abs(pole.imag),
        delta, vals, pole, dist, bool(dist <= AXIS_TOL * max(1.0, abs(pole))), method, res,
        poles)


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
    omega_peak: float
    upper: float | None
    nominal_gain: float
    omega: np.ndarray
    worst_curve: np.ndarray
    nominal_curve: np.ndarray

    def report(self) -> str:
        """The worst gain, its δ and the bounds."""
        vals = ", ".join(f"{k} = {np.round(v, 6)}" for k, v in self.delta_values.items())
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


def worst_case_gain(M: control.StateSpace, blocks: Any,
                    omega: Sequence[float] | np.ndarray | None = None, *, starts: int = 8,
                    upper: bool = True, seed: int = 0) -> WorstCaseGainResult:
    """Worst-case gain (peak σ̄ over ω) of ``F_u(M, Δ)`` over the parameter box.

    Parameters
    ----------
    M : control.StateSpace
        The LFT; inputs after the first ``n_w`` and outputs after the first ``n_z`` are the
        performance channels.
    blocks
        Block structure.
    omega : array_like, optional
        Frequency grid [rad/s] (default as in :func:`robust_stability`).
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
    return WorstCaseGainResult(g, delta, block_values(delta, st.blocks), w, ub,
                               float(nom_curve.max()), omega, curve, nom_curve)


def _mu_gain_upper(lft: _LFT, omega: np.ndarray, g_nom: float, g_low: float) -> float:
    """Smallest γ with a D-G certificate of μ ≤ 1 for [[M11, M12], [M21/γ, M22/γ]] at every
    grid frequency (bisection; robust performance theorem)."""
    from .mu import _dg_batch

    nu, ny = lft.B2.shape[1], lft.C2.shape[0]
    aug = _Structure([*lft.st.blocks, Block("full", nu, ny, 1, "performance")])
    Mw = freqresp(lft.sys, omega)
    x0: list[Any] = [None]

    def feasible(gam):
        Mg = Mw.copy()
        Mg[:, lft.st.nz:, :] /= gam
        ub, x0[0] = _dg_batch(aug.pad(Mg), aug, x0[0], iters=25)
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


@dataclass(frozen=True)
class MonteCarloResult:
    """Closed loops F_u(M, Δ) for random Δ in the structure.

    Attributes
    ----------
    deltas : ndarray (n, n_w, n_z)
    poles : ndarray (n, n_states), complex
    omega : ndarray
        [rad/s].
    magnitude : ndarray (n, n_omega, n_y, n_u) or None
        |F_u(M, Δ)(jω)| per performance channel (None without performance channels).
    nominal_poles : ndarray
    nominal_magnitude : ndarray or None
    inputs, outputs : tuple of str
        Performance channel names.
    """

    deltas: np.ndarray
    poles: np.ndarray
    omega: np.ndarray
    magnitude: np.ndarray | None
    nominal_poles: np.ndarray
    nominal_magnitude: np.ndarray | None
    inputs: tuple[str, ...]
    outputs: tuple[str, ...]

    @property
    def unstable(self) -> np.ndarray:
        """Mask of the samples with a pole in the closed right half-plane."""
        return self.poles.real.max(axis=1, initial=-np.inf) >= 0

    def report(self) -> str:
        """Sample count, instability and the spread of the poles and gains."""
        lines = [f"Monte-Carlo: {self.deltas.shape[0]} samples, {int(self.unstable.sum())} "
                 f"unstable; largest pole real part {self.poles.real.max(initial=-np.inf):.4g} "
                 f"(nominal {self.nominal_poles.real.max(initial=-np.inf):.4g})"]
        if self.magnitude is not None:
            pk = self.magnitude.max(axis=1)
            for i, j in itertools.product(range(pk.shape[1]), range(pk.shape[2])):
                lines.append(f"  peak |{self.inputs[j]} -> {self.outputs[i]}|: "
                             f"{pk[:, i, j].min():.4g} .. {pk[:, i, j].max():.4g} (nominal "
                             f"{self.nominal_magnitude[:, i, j].max():.4g})")
        return "\n".join(lines)

    def plot(self, output: str | None = None, input: str | None = None) -> Figure:
        """Pole cloud and Bode magnitude envelope of one channel; returns the Figure."""
        import matplotlib.pyplot as plt

        ncol = 2 if self.magnitude is not None else 1
        fig, axes = plt.subplots(1, ncol, figsize=(5.5 * ncol, 4), layout="constrained",
                                 squeeze=False)
        a = axes[0, 0]
        p = self.poles.ravel()
        a.plot(p.real, p.imag, ".", ms=2, alpha=0.4, label="samples")
        a.plot(self.nominal_poles.real, self.nominal_poles.imag, "x", color="k",
               label="nominal")
        a.axvline(0.0, color="k", lw=0.6)
        a.set_xlabel("Re [rad/s]")
        a.set_ylabel("Im [rad/s]")
        a.grid(True, alpha=0.3)
        a.legend()
        if self.magnitude is not None:
            i = self.outputs.index(output) if output else 0
            j = self.inputs.index(input) if input else 0
            a, pos = axes[0, 1], self.omega > 0
            mag = 20 * np.log10(np.maximum(self.magnitude[:, pos, i, j], 1e-300))
            a.fill_between(self.omega[pos], mag.min(0), mag.max(0), alpha=0.3,
                           label="envelope")
            a.semilogx(self.omega[pos],
                       20 * np.log10(np.maximum(self.nominal_magnitude[pos, i, j], 1e-300)),
                       color="k", label="nominal")
            a.set_xlabel("ω [rad/s]")
            a.set_ylabel("magnitude [dB]")
            a.set_title(f"{self.inputs[j]} → {self.outputs[i]}")
            a.grid(True, which="both", alpha=0.3)
            a.legend()
        return fig


def monte_carlo(M: control.StateSpace, blocks: Any, n: int = 200, *, seed: int = 0,
                omega: Sequence[float] | np.ndarray | None = None) -> MonteCarloResult:
    """Poles and Bode magnitudes of F_u(M, Δ) for ``n`` random Δ.

    Parameters
    ----------
    M : control.StateSpace
        The LFT.
    blocks
        Block structure.
    n : int
        Number of samples.
    seed : int
    omega : array_like, optional
        Frequencies [rad/s] of the Bode magnitudes (default as in :func:`robust_stability`).

    Returns
    -------
    MonteCarloResult
        Real δ uniform in [−1, 1]; complex scalar blocks sampled as real values in [−1, 1]
        and full blocks as real matrices with σ̄ uniform in [0, 1] (real static Δ, a subset
        of the structure, so that every closed loop is a real system). Ill-posed samples
        (I − D11 Δ singular) get NaN poles.
    """
    lft = _lft(M, blocks)
    st = lft.st
    omega = _default_omega(lft, 200) if omega is None else np.unique(np.asarray(omega, float))
    rng = np.random.default_rng(seed)
    perf = lft.B2.shape[1] > 0 and lft.C2.shape[0] > 0
    deltas = np.zeros((n, st.nw, st.nz))
    nx = lft.A.shape[0]
    poles = np.full((n, nx), np.nan + 0j)
    mag = np.full((n, omega.size, lft.C2.shape[0], lft.B2.shape[1]), np.nan) if perf else None
    for k in range(n):
        vals = []
        for b in st.blocks:
            if b.kind == "full":
                G = rng.normal(size=(b.rows, b.cols))
                vals.append(G / np.linalg.norm(G, 2) * rng.uniform())
            else:
                vals.append(rng.uniform(-1, 1))
        deltas[k] = delta_matrix(st.blocks, vals).real
        mats = lft.closed(deltas[k])
        if mats is None:
            continue
        poles[k] = np.linalg.eigvals(mats[0]) if nx else poles[k]
        if perf:
            mag[k] = np.abs(freqresp(_SS(*mats), omega))
    nom = lft.closed(np.zeros((st.nw, st.nz)))
    return MonteCarloResult(deltas, poles, omega, mag,
                            np.linalg.eigvals(lft.A) if nx else np.zeros(0, complex),
                            np.abs(freqresp(_SS(*nom), omega)) if perf else None,
                            tuple(M.input_labels[st.nw:]), tuple(M.output_labels[st.nz:]))
