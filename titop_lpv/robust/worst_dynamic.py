"""The dynamic worst case of a gain over ``ultidyn`` and ``ucomplex`` blocks: a complex Δ
at a critical frequency, then a stable LTI Δ(s) that takes that value there, verified by
the peak gain of the real closed loop.

At one frequency ω the worst gain over complex blocks is larger than over their real axis
(the real static search of :func:`titop_lpv.robust.worst_case.worst_case_gain`): every
complex value ``δ``, ``|δ| ≤ 1``, is the value at ``jω`` of a stable all-pass times
``|δ|`` (an ``ultidyn`` of norm ≤ 1), and a full block ``a bᴴ`` of rank one is the value
of ``a(s) b(s)ᵀ`` with all-pass entries (:mod:`titop_lpv.robust.dynamic_delta`). So
``max_{ω, Δ} σ̄(F_u(M(jω), Δ))`` over the complex structure (real δ real, complex scalars
``|δ| ≤ 1``, full blocks of rank one with σ̄ ≤ 1) is attained by a real LTI Δ(s) of the
structure: it is maximised locally here (from the static worst case, the frequencies of
the largest peaks and a few phases), Δ(s) is built, the loop is closed with it, and the
peak gain of that closed loop (stable, checked by its poles) is the attained lower bound.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import control
import numpy as np
from scipy import optimize

from .abcd import ABCD, IllPosedError, lft_upper_abcd
from .dynamic_delta import dynamic_delta
from .loop import LOOP_MAX_COND, LoopLFT
from .structure import MuStructure

__all__ = ["DynamicWorstCase", "dynamic_worst_case"]

VERIFY_RTOL = 1e-9  # σ̄ of the closed loop with Δ(s) at ω_c equals the optimised gain


@dataclass(frozen=True)
class DynamicWorstCase:
    """A worst case over complex blocks, attained by a stable LTI Δ(s).

    Attributes
    ----------
    gain : float
        Peak σ̄ over the band of the loop closed by ``system`` (at least ``gain_c``).
    omega_peak : float
        Where that peak is [rad/s].
    delta : ndarray (n_w, n_z), complex
        Δ(j omega_c).
    omega_c : float
        The frequency [rad/s] at which Δ was optimised.
    gain_c : float
        σ̄(F_u(M(j omega_c), delta)).
    system : control.StateSpace
        Δ(s): stable, of the structure, ``Δ(j omega_c) = delta``, structured norm
        ``‖delta‖`` at every frequency.
    closed : ABCD
        The closed loop ``F_u(M, Δ(s))`` (performance inputs to outputs).
    verified : bool
        The closed loop is stable and its σ̄ at ``omega_c`` equals ``gain_c`` within
        ``1e-9`` relative.
    """

    gain: float
    omega_peak: float
    delta: np.ndarray
    omega_c: float
    gain_c: float
    system: control.StateSpace
    closed: ABCD
    verified: bool


class _Params:
    """Δ of the complex structure from a real vector: real δ (clipped to [−1, 1]), complex
    scalars ``(a + jb)/max(1, |a + jb|)``, full blocks ``u vᴴ`` with ``u, v`` scaled to
    norm ≤ 1 (rank one)."""

    def __init__(self, st: MuStructure):
        self.st = st
        self.sizes = [1 if b.kind == "real" else 2 if b.kind == "complex" else
                      2 * (b.rows + b.cols) for b in st.blocks]
        self.cuts = np.cumsum([0, *self.sizes])
        self.n = int(self.cuts[-1])

    def delta(self, v: np.ndarray) -> np.ndarray:
        D = np.zeros((self.st.nw, self.st.nz), complex)
        for b, cop, a in zip(self.st.blocks, self.st.copies, self.cuts):
            if b.kind == "real":
                val: Any = np.clip(v[a], -1.0, 1.0)
            elif b.kind == "complex":
                z = complex(v[a], v[a + 1])
                val = z / max(1.0, abs(z))
            else:
                r, c = b.rows, b.cols
                u = v[a:a + r] + 1j * v[a + r:a + 2 * r]
                w = v[a + 2 * r:a + 2 * r + c] + 1j * v[a + 2 * r + c:a + 2 * (r + c)]
                u = u / max(1.0, np.linalg.norm(u))
                w = w / max(1.0, np.linalg.norm(w))
                val = np.outer(u, w.conj())
            for wi, zi in cop:
                D[np.ix_(wi, zi)] = val if b.kind == "full" else val * np.eye(len(wi))
        return D

    def start(self, static: np.ndarray, phase: float) -> np.ndarray:
        """From a real static Δ: real δ kept, complex scalars rotated by ``phase``, full
        blocks as their top singular pair rotated by ``phase``."""
        v = np.zeros(self.n)
        for b, cop, a in zip(self.st.blocks, self.st.copies, self.cuts):
            D0 = static[np.ix_(*cop[0])]
            if b.kind == "real":
                v[a] = D0[0, 0].real
            elif b.kind == "complex":
                z = complex(D0[0, 0]) if abs(D0[0, 0]) > 0.5 else 1.0
                z = np.exp(1j * phase) * z / abs(z)
                v[a:a + 2] = z.real, z.imag
            else:
                U, _, Vh = np.linalg.svd(D0)
                u = U[:, 0] * np.exp(1j * phase)
                w = Vh[0].conj()
                r, c = b.rows, b.cols
                v[a:a + r], v[a + r:a + 2 * r] = u.real, u.imag
                v[a + 2 * r:a + 2 * r + c], v[a + 2 * r + c:a + 2 * (r + c)] = w.real, w.imag
        return v


def _gain_at(lft: LoopLFT, w: float, D: np.ndarray) -> float:
    """σ̄ of F_u(M(jw), Δ) for a complex static Δ (−1 when I − M11 Δ is ill-posed)."""
    n = lft.A.shape[0]
    X = np.linalg.solve(1j * w * np.eye(n) - lft.A, np.hstack([lft.B1, lft.B2])) if n else \
        np.zeros((0, lft.B1.shape[1] + lft.B2.shape[1]))
    M11 = lft.C1 @ X[:, :lft.B1.shape[1]] + lft.D11
    M12 = lft.C1 @ X[:, lft.B1.shape[1]:] + lft.D12
    M21 = lft.C2 @ X[:, :lft.B1.shape[1]] + lft.D21
    M22 = lft.C2 @ X[:, lft.B1.shape[1]:] + lft.D22
    E = np.eye(M11.shape[0]) - M11 @ D
    if np.linalg.cond(E) > LOOP_MAX_COND:
        return -1.0
    return float(np.linalg.norm(M22 + M21 @ D @ np.linalg.solve(E, M12), 2))


def dynamic_worst_case(lft: LoopLFT, omega: np.ndarray, static: np.ndarray,
                       freqs: np.ndarray,
                       band_peak: Callable[[ABCD, np.ndarray, np.ndarray], tuple[float, float]],
                       seed: int = 0) -> DynamicWorstCase | None:
    """The dynamic worst case of the module docstring, or None (no complex block, or no
    stable verified Δ(s) found).

    Parameters
    ----------
    lft : LoopLFT
        The loop, with performance channels.
    omega : ndarray
        The sorted frequency grid [rad/s] (the band of the peak, and the brackets of the
        local search in ω).
    static : ndarray (n_w, n_z)
        The real static worst Δ (a start).
    freqs : ndarray
        Frequencies [rad/s] to start from (peaks of σ̄ found so far), > 0.
    band_peak : callable
        ``(closed, omega, poles) -> (peak, frequency)``: the refined band peak of σ̄ of a
        closed loop (:func:`titop_lpv.robust.worst_case._band_peak`).
    seed : int, optional
        Seed of the extra phases tried.

    Returns
    -------
    DynamicWorstCase or None
    """
    st = lft.st
    if st.all_real or omega.size < 2:
        return None
    par = _Params(st)
    rng = np.random.default_rng(seed)
    if not omega[-1] > 0:
        return None
    lw_lo, lw_hi = np.log(max(omega[0], 1e-9 * omega[-1])), np.log(omega[-1])
    best: tuple[float, np.ndarray, float] | None = None

    def neg(p):
        w = float(np.exp(np.clip(p[-1], lw_lo, lw_hi)))
        return -_gain_at(lft, w, par.delta(p[:-1]))

    freqs = np.unique(np.clip(np.asarray(freqs, float), omega[0], omega[-1]))
    phases = [0.0, np.pi / 2, np.pi, -np.pi / 2, *rng.uniform(-np.pi, np.pi, 2)]
    for w0 in freqs[freqs > 0]:
        starts = [np.r_[par.start(static, ph), np.log(w0)] for ph in phases]
        scored = sorted(starts, key=neg)[:2]
        for p0 in scored:
            r = optimize.minimize(neg, p0, method="Nelder-Mead",
                                  options={"maxfev": 400 * (par.n + 1), "xatol": 1e-12,
                                           "fatol": 1e-14 * max(1.0, abs(neg(p0)))})
            r = optimize.minimize(neg, r.x, method="BFGS", options={"gtol": 1e-12})
            if best is None or -r.fun > best[0]:
                best = (-r.fun, r.x, float(np.exp(np.clip(r.x[-1], lw_lo, lw_hi))))
    if best is None or best[0] <= 0:
        return None
    g_c, p, w_c = best
    D = par.delta(p[:-1])
    sysd = dynamic_delta(D, st.delta, w_c)
    if sysd is None:
        return None
    dab = ABCD(*(np.atleast_2d(np.asarray(getattr(sysd, m), float)) for m in "ABCD"))
    dab = ABCD(dab.A.reshape(sysd.nstates, sysd.nstates), dab.B.reshape(sysd.nstates, -1),
               dab.C.reshape(-1, sysd.nstates), dab.D)
    try:
        closed = lft_upper_abcd(lft.abcd, dab, max_cond=LOOP_MAX_COND)
    except IllPosedError:
        return None
    poles = np.linalg.eigvals(closed.A) if closed.A.size else np.zeros(0)
    if poles.size and poles.real.max() >= -1e-10 * max(1.0, np.abs(poles).max()):
        return None  # Δ(s) destabilises the loop: robust_stability's business
    n = closed.A.shape[0]
    H = closed.C @ np.linalg.solve(1j * w_c * np.eye(n) - closed.A, closed.B) + closed.D \
        if n else closed.D
    g_check = float(np.linalg.norm(H, 2))
    verified = abs(g_check - g_c) <= VERIFY_RTOL * max(g_c, 1e-300)
    peak, w_peak = band_peak(closed, omega, poles)
    if g_check > peak:
        peak, w_peak = g_check, w_c
    return DynamicWorstCase(float(peak), float(w_peak), D, w_c, g_c, sysd, closed,
                            bool(verified))
