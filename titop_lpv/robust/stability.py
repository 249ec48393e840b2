"""Robust stability of an uncertain loop ``F_u(M, Δ)``, and the LFT plumbing shared by the
robustness analyses (:mod:`titop_lpv.robust.worst_case`, :mod:`titop_lpv.robust.monte_carlo`).

The loop is given either as an uncertain system (:class:`titop_lpv.robust.uss.USS`, whose
``lftdata()`` gives M and Δ's structure, and whose parameters turn normalised δ back into
physical values) or as ``(M, blocks)``: ``M`` a ``control.StateSpace`` whose first ``n_w``
inputs ``w`` and first ``n_z`` outputs ``z`` are the Δ channels (``w = Δ z``,
``[z; y] = M [w; u]``); the remaining inputs ``u`` and outputs ``y`` are the performance
channels. The block structure is as in :mod:`titop_lpv.robust.structure` (real δ normalised to
[−1, 1], complex blocks to norm ≤ 1). With ``M = [[A, B1, B2], [C1, D11, D12],
[C2, D21, D22]]`` and a static Δ, ``L = Δ (I − D11 Δ)⁻¹`` and

    F_u(M, Δ) = (A + B1 L C1, B2 + B1 L D12, C2 + D21 L C1, D22 + D21 L D12).
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import control
import numpy as np
from scipy import optimize

from ..exceptions import TitopError
from .mu import MuResult, freqresp, mu_sweep
from .mu_upper import mu_upper
from .structure import StructureError, _Structure, block_values, check_omega

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["RobustStabilityResult", "RobustnessError", "close_lft", "delta_matrix",
           "robust_stability"]

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
    uss: Any = None

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
    """The LFT of ``M`` (a USS, or a StateSpace with ``blocks``), sizes checked."""
    uss = None
    if hasattr(M, "lftdata") and hasattr(M, "params"):
        if blocks is not None:
            raise RobustnessError(f"{type(M).__name__} {M.name or ''!s} carries its own Δ "
                                  "structure: pass it without blocks")
        uss, (M, blocks) = M, M.lftdata()
    elif blocks is None:
        raise RobustnessError(f"blocks are needed with a {type(M).__name__}: pass an "
                              "uncertain system (USS) or (M, blocks)")
    try:
        st = _Structure(blocks)
    except StructureError as exc:
        raise RobustnessError(str(exc)) from None
    if not isinstance(M, control.StateSpace):
        raise RobustnessError(f"M must be a control.StateSpace or a USS, got "
                              f"{type(M).__name__}")
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
                D[z:, :w], D[z:, w:], st, M, uss)


def _physical(lft: _LFT, values: dict[str, Any]) -> dict[str, Any]:
    """Physical values of normalised block values (empty without an uncertain system):
    ureal/ucomplex through their ``from_delta``; unmodelled dynamics Δ₀ scaled by its
    bound."""
    if lft.uss is None:
        return {}
    out: dict[str, Any] = {}
    for name, v in values.items():
        a = lft.uss.params.get(name)
        if a is None:
            continue
        out[name] = a.from_delta(v) if hasattr(a, "from_delta") else a.bound * np.asarray(v)
    return out


def _nominal_values(lft: _LFT) -> dict[str, Any]:
    """Normalised block values at the nominal parameters: each ``ureal`` at the δ of its
    nominal value (not the centre of its range), ``ucomplex`` and unmodelled dynamics at 0;
    every block at 0 without an uncertain system."""
    out: dict[str, Any] = {}
    for b in lft.st.blocks:
        p = lft.uss.params.get(b.name) if lft.uss is not None else None
        out[b.name] = (float(getattr(p, "delta_nominal", 0.0)) if b.kind == "real" and p
                       is not None else 0.0 if b.kind != "full" else np.zeros((b.rows, b.cols)))
    return out


def _check_stable(lft: _LFT) -> np.ndarray:
    poles = np.linalg.eigvals(lft.A) if lft.A.size else np.zeros(0)
    if poles.size and poles.real.max() >= 0:
        bad = poles[poles.real >= 0]
        raise RobustnessError(f"the loop at the centre of the box (Δ = 0) is not stable: "
                              f"poles {np.round(bad, 6)} in the closed right half-plane")
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
    try:
        st = _Structure(blocks)
    except StructureError as exc:
        raise RobustnessError(str(exc)) from None
    if isinstance(values, Mapping):
        names = [b.name for b in st.blocks]
        missing = [n for n in names if n not in values]
        unknown = [k for k in values if k not in names]
        if missing or unknown:
            raise RobustnessError(f"no value for the blocks {missing}" if missing else
                                  f"unknown blocks {unknown}: the structure has {names}")
        values = [values[n] for n in names]
    if len(values) != len(st.blocks):
        raise RobustnessError(f"{len(values)} values for {len(st.blocks)} blocks")
    out = np.zeros((st.nw, st.nz), complex)
    for b, cop, v in zip(st.blocks, st.copies, values):
        try:
            v = np.atleast_2d(np.asarray(v, complex))
        except (TypeError, ValueError):
            raise RobustnessError(f"block {b.name!r}: value {v!r} is not a number or an "
                                  "array") from None
        if v.shape != (b.rows, b.cols):
            raise RobustnessError(f"block {b.name!r}: value of shape {v.shape}, expected "
                                  f"{(b.rows, b.cols)}")
        if b.kind == "real" and v[0, 0].imag != 0:
            raise RobustnessError(f"block {b.name!r} is real, got the value {v[0, 0]}")
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
        ``delta`` block by block, normalised (:func:`titop_lpv.robust.structure.block_values`).
    parameter_values : dict
        The same in physical units when the loop was given as a USS (``ureal`` values,
        ``ucomplex`` values, unmodelled dynamics scaled by their bound); else empty.
    pole : complex
        The closed-loop pole with Δ = ``delta`` nearest the imaginary axis.
    axis_distance : float
        ``|Re pole|``; ``verified`` when ≤ 1e-6 · max(1, ``|pole|``).
    verified : bool
    method : str
        How ``delta`` was found.
    mu : MuResult
        μ of M11 against frequency.
    nominal_poles : ndarray
        Closed-loop poles at the nominal parameters (each ``ureal`` at its nominal value;
        Δ = 0 when the loop was given as ``(M, blocks)``).
    """

    margin_lower: float
    margin_upper: float
    omega_critical: float
    delta: np.ndarray | None
    delta_values: dict
    parameter_values: dict
    pole: complex
    axis_distance: float
    verified: bool
    method: str
    mu: MuResult
    nominal_poles: np.ndarray

    def report(self) -> str:
        """Margin bounds, the destabilising Δ and its verification."""
        vals = ", ".join(f"δ_{k} = {np.round(v, 6)}" for k, v in self.delta_values.items())
        if self.parameter_values:
            vals += " (" + ", ".join(f"{k} = {np.round(v, 6)}"
                                     for k, v in self.parameter_values.items()) + ")"
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


def robust_stability(M: Any, blocks: Any = None,
                     omega: Sequence[float] | np.ndarray | None = None, *,
                     seed: int = 0) -> RobustStabilityResult:
    """Robust stability margin of ``F_u(M, Δ)`` with a destabilising Δ, verified.

    Parameters
    ----------
    M : USS or control.StateSpace
        The uncertain closed loop: a :class:`~titop_lpv.robust.uss.USS` (its ``lftdata()``
        is used, and physical parameter values are reported), or the LFT as a StateSpace
        whose first ``n_w`` inputs / ``n_z`` outputs are the Δ channels.
    blocks : optional
        Block structure, with a StateSpace only (a ``DeltaStructure``, blocks or tuples;
        see :func:`titop_lpv.robust.structure.as_blocks`).
    omega : array_like, optional
        Frequency grid [rad/s]; default 0 and 400 points spanning the nominal poles' moduli
        from /100 to ×100. Keep 0 in the grid for real parameters (poles crossing at s = 0).
    seed : int
        Seed of the μ lower-bound starts.

    Returns
    -------
    RobustStabilityResult
        Margin bounds ``[1/peak μ_upper, 1/peak μ_lower]`` from :func:`titop_lpv.robust.mu.mu_sweep`
        of M11; ``delta`` destabilising at the upper bound, verified by closing the loop: a
        pole on the imaginary axis. With real parameters only, a search along rays of the δ
        box (state-space spectral abscissa, exact crossing by Brent's method) supplements
        the μ lower bound (real μ is discontinuous in ω).

    Raises
    ------
    RobustnessError
        Unstable loop at Δ = 0 (the centre of the box), or sizes of M and of the structure
        that do not match.

    Notes
    -----
    The margin is the largest ``t`` such that the loop is stable for every Δ of
    structured norm < t (MATLAB's ``robstab`` "stability margin"): ``t ≥ 1`` means robustly
    stable over the whole box. Real parameters are normalised around the centre of their
    range, so a ``ureal`` whose nominal is not the centre is at δ ≠ 0 nominally.
    """
    lft = _lft(M, blocks)
    _check_stable(lft)
    omega = _default_omega(lft) if omega is None else check_omega(omega, RobustnessError)
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
        delta, vals, _physical(lft, vals), pole, dist,
        bool(dist <= AXIS_TOL * max(1.0, abs(pole))), method, res, _nominal_poles(lft))


def _nominal_poles(lft: _LFT) -> np.ndarray:
    """Closed-loop poles at the nominal parameters (see :func:`_nominal_values`)."""
    mats = lft.closed(delta_matrix(lft.st.blocks, list(_nominal_values(lft).values())).real)
    return np.linalg.eigvals(mats[0]) if mats is not None and mats[0].size else \
        np.zeros(0, complex)
