"""Robust performance margin (MATLAB's ``robgain``): the largest scaling of the uncertainty
for which the peak gain stays below a bound, with its bounds and a violating Δ."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .abcd import ABCD
from .checks import ArgumentError, check_count, check_real
from .loop import RobustnessError
from .monte_carlo import hinf_norm
from .ops import as_uss
from .uss import USS
from .worst_case import worst_case_gain

__all__ = ["RobustPerformanceResult", "robust_performance", "scale_uncertainty"]


def scale_uncertainty(G: Any, alpha: float) -> USS:
    """``F_u(M, αΔ)`` as a USS over the same normalised box: the ``z`` rows of ``M`` times
    ``α`` (every block scaled around its centre, as MATLAB's margins scale the normalised
    uncertainty).

    Parameters
    ----------
    G : USS
        The uncertain system.
    alpha : float
        The scale, ≥ 0.
    """
    G = as_uss(G)
    alpha = check_real(alpha, "alpha", minimum=0.0)
    S, nz = G.abcd, G.delta.nz
    C, D = np.array(S.C), np.array(S.D)
    C[:nz] *= alpha
    D[:nz] *= alpha
    return USS._new(ABCD(S.A, S.B, C, D), G.dt, G.delta, list(G.params.values()),
                    G.input_labels, G.output_labels, G.state_labels, G.name)


@dataclass(frozen=True)
class RobustPerformanceResult:
    """Performance margin of :func:`robust_performance`.

    Attributes
    ----------
    margin_lower : float
        For every Δ in ``margin_lower`` × the uncertainty box, the peak gain is below
        ``gain_bound`` (certified by the upper bound of
        :func:`~titop_lpv.robust.worst_case.worst_case_gain`; ``inf`` if it holds up to
        ``max_scale``).
    margin_upper : float
        A Δ of ``margin_upper`` × the box attains ``gain_bound`` or more (``inf`` if none
        was found up to ``max_scale``).
    gain_bound : float
        The bound.
    delta_values : dict
        The normalised values ``{name: δ}`` (in the given box, so ``|δ| ≤ margin_upper``)
        of the violating Δ found at ``margin_upper``; empty if none.
    gain : float
        Its peak gain (≥ ``gain_bound``), NaN if none.
    nominal_gain : float
        H∞ norm at the centre of the box (δ = 0, the system at scale 0; the nominal when
        the ranges are centred on the nominal values).
    """

    margin_lower: float
    margin_upper: float
    gain_bound: float
    delta_values: dict
    gain: float
    nominal_gain: float


def robust_performance(sys: Any, gain_bound: float, *, tol: float = 1e-3,
                       max_scale: float = 1e3, starts: int = 4,
                       seed: int = 0) -> RobustPerformanceResult:
    """Robust performance margin, as MATLAB's ``robgain(usys, gainbound)``: the largest
    ``α`` such that ``‖F_u(M, Δ)‖∞ < gain_bound`` for every Δ in ``α`` times the normalised
    uncertainty box (``α = 1``: the given ranges; a margin > 1 means the bound holds with
    room to spare).

    The margin is bracketed by bisection on ``α`` with
    :func:`~titop_lpv.robust.worst_case.worst_case_gain` of the scaled system
    (:func:`scale_uncertainty`): ``margin_lower`` is the largest ``α`` tried whose
    certified upper bound stays below the bound (so every Δ of a smaller box does too, the
    boxes being nested), ``margin_upper`` the smallest ``α`` tried with an attained gain at
    or above it (its Δ is returned, MATLAB's ``wcu``). The bisection stops when
    ``margin_upper − margin_lower ≤ tol·margin_upper``; the gap can stay wider when the
    worst-case bounds themselves leave one.

    Parameters
    ----------
    sys : USS
        The uncertain system (its inputs and outputs are the performance channels).
    gain_bound : float
        The bound on the peak gain, > 0.
    tol : float, optional
        Relative width of the bracket (default 1e-3).
    max_scale : float, optional
        Largest scale tried (default 1000).
    starts : int, optional
        Random starts of each worst-case search (default 4).
    seed : int, optional
        Seed of those starts.

    Returns
    -------
    RobustPerformanceResult

    Raises
    ------
    ArgumentError
        ``gain_bound``, ``tol`` or ``max_scale`` not a positive finite number.
    RobustnessError
        What :func:`~titop_lpv.robust.worst_case.worst_case_gain` refuses (unstable nominal
        loop, no performance channel …).
    ArgumentTypeError
        ``sys`` is not an uncertain system or convertible.
    """
    G = as_uss(sys)
    bound = check_real(gain_bound, "gain_bound", minimum=0.0)
    tol = check_real(tol, "tol", minimum=0.0)
    max_scale = check_real(max_scale, "max_scale", minimum=0.0)
    if bound == 0 or tol == 0 or max_scale == 0:
        raise ArgumentError("gain_bound, tol and max_scale must be > 0")
    starts = check_count(starts, "starts", maximum=10000)
    if not len(G.delta):
        raise RobustnessError("sys has no uncertainty: its margin is not defined")

    def probe(alpha: float) -> tuple[float, float, dict]:
        r = worst_case_gain(scale_uncertainty(G, alpha), starts=starts, seed=seed)
        up = r.upper if r.upper is not None else np.inf
        return r.gain, up, {k: alpha * v for k, v in r.delta_values.items()}

    nominal = hinf_norm(as_uss(G.at_delta()).abcd, G.dt or 0)[0]  # α = 0: δ = 0
    if nominal >= bound:
        return RobustPerformanceResult(0.0, 0.0, bound, {}, nominal, nominal)
    lo, hi, found, g_found = 0.0, np.inf, {}, np.nan
    alpha = 1.0
    while alpha <= max_scale:  # bracket
        g, up, d = probe(alpha)
        if g >= bound:
            hi, found, g_found = alpha, d, g
            break
        if up < bound:
            lo = alpha
        alpha *= 2.0
    if not np.isfinite(hi):
        return RobustPerformanceResult(np.inf if lo >= max_scale / 2 else lo, np.inf, bound,
                                       {}, np.nan, nominal)
    a, b = lo, hi  # bisection on [a, b]: a certified (or 0), b violated
    while b - a > tol * b:
        mid = 0.5 * (a + b)
        g, up, d = probe(mid)
        if g >= bound:
            b, found, g_found = mid, d, g
        elif up < bound:
            a = mid
        else:  # inconclusive at mid: shrink from both sides is impossible, stop
            break
        lo, hi = a, b
    return RobustPerformanceResult(lo, hi, bound, found, g_found, nominal)
