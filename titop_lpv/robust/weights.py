"""Weighting functions for robust-control problems: :func:`makeweight` (MATLAB's
``makeweight``)."""

from __future__ import annotations

import math
import numbers
from typing import Any

import control
import numpy as np

from .checks import ArgumentError, ArgumentTypeError, check_count, check_real

__all__ = ["GAIN_LIMITS", "MAX_WEIGHT_ORDER", "makeweight"]

MAX_WEIGHT_ORDER = 20  # larger orders are refused (ill-conditioned powers)
GAIN_LIMITS = (1e-100, 1e100)  # gains and frequencies outside are refused (overflow)


def _positive(x: Any, what: str) -> float:
    v = check_real(x, what)
    if not GAIN_LIMITS[0] <= v <= GAIN_LIMITS[1]:
        raise ArgumentError(f"{what} must be a positive number in [1e-100, 1e100], got {x!r}")
    return v


def makeweight(dcgain: float, crossover: float | tuple[float, float] | list[float],
               hfgain: float, Ts: float = 0, order: int = 1) -> control.StateSpace:
    """A weight of given gain at DC, at one frequency and at high frequency, as MATLAB's
    ``makeweight(dcgain, [freq, mag], hfgain, Ts, N)``.

    First order (``order = 1``)::

        W(s) = (hf·s + dc·a) / (s + a),   a = ω_c √((hf² − mag²) / (mag² − dc²)),

    so ``|W(0)| = dc``, ``|W(j∞)| = hf`` and ``|W(jω_c)| = mag``; ``|W(jω)|`` is monotonic
    between them. Order ``N`` is ``W_1(s)^N`` where ``W_1`` is the first-order weight of
    gains ``dc^(1/N)``, ``mag^(1/N)``, ``hf^(1/N)`` (MATLAB's ``N``-th order weight): same
    three gains, steeper slope (``N × 20`` dB/decade). With ``Ts > 0`` the continuous weight
    is discretised by the bilinear (Tustin) transform prewarped at ``ω_c`` (which must be
    below the Nyquist frequency ``π/Ts``): the gains at ``z = 1`` (DC), at ``e^{jω_c Ts}``
    and at ``z = −1`` (Nyquist, the discrete "high frequency") are exactly ``dc``, ``mag``
    and ``hf``.

    Parameters
    ----------
    dcgain : float
        ``|W(0)|``, > 0 (MATLAB also takes gains in dB via ``db2mag``: convert first).
    crossover : float or (float, float)
        ``ω_c`` [rad/s], where ``|W| = 1`` (MATLAB's ``freq``), or ``[ω_c, mag]``, where
        ``|W| = mag``. ``mag`` must lie strictly between ``dcgain`` and ``hfgain``.
    hfgain : float
        ``|W(j∞)|``, > 0, different from ``dcgain``.
    Ts : float, optional
        Sample time [s] (default 0: continuous).
    order : int, optional
        Order ``N`` (1 … 20, default 1).

    Returns
    -------
    control.StateSpace
        SISO, ``order`` states, named ``"makeweight"``.

    Raises
    ------
    ArgumentError
        A gain or frequency that is not a number in ``[1e-100, 1e100]``, ``mag`` not strictly
        between ``dcgain`` and ``hfgain``, ``Ts < 0``, ``ω_c ≥ π/Ts``, a bad ``order``.
    ArgumentTypeError
        A non-numeric argument, or ``crossover`` not a number or a pair.

    Examples
    --------
    >>> W = makeweight(0.1, 10.0, 10.0)
    >>> [round(abs(complex(W(x))), 12) for x in (0, 10j, 1e12j)]
    [0.1, 1.0, 10.0]
    """
    dc = _positive(dcgain, "dcgain")
    hf = _positive(hfgain, "hfgain")
    if isinstance(crossover, numbers.Real) and not isinstance(crossover, (bool, np.bool_)):
        wc, mag = _positive(crossover, "crossover (the frequency)"), 1.0
    elif isinstance(crossover, (list, tuple, np.ndarray)) and len(crossover) == 2:
        wc = _positive(crossover[0], "crossover[0] (the frequency)")
        mag = _positive(crossover[1], "crossover[1] (the magnitude)")
    else:
        raise ArgumentTypeError(f"crossover must be a frequency or a pair [frequency, "
                                f"magnitude], got {crossover!r:.60}")
    Ts = check_real(Ts, "Ts", minimum=0.0)
    n = check_count(order, "order", minimum=1, maximum=MAX_WEIGHT_ORDER)
    if not min(dc, hf) < mag < max(dc, hf):
        raise ArgumentError(f"the magnitude at the crossover ({mag:g}) must lie strictly "
                            f"between dcgain ({dc:g}) and hfgain ({hf:g})")
    if Ts > 0 and wc * Ts >= math.pi:
        raise ArgumentError(f"crossover frequency {wc:g} rad/s is not below the Nyquist "
                            f"frequency π/Ts = {math.pi / Ts:g} rad/s")
    d, g, h = dc ** (1 / n), mag ** (1 / n), hf ** (1 / n)
    # continuous prototype evaluated at the prewarped frequency (Tustin maps it onto ω_c)
    w_proto = wc if Ts == 0 else 2 / Ts * math.tan(wc * Ts / 2)
    a = w_proto * math.sqrt((h * h - g * g) / (g * g - d * d))
    W1 = control.tf([h, d * a], [1.0, a])
    if Ts > 0:
        # bilinear s = (2/Ts)(z − 1)/(z + 1): exact algebra on the first-order sections
        k = 2 / Ts
        W1 = control.tf([h * k + d * a, d * a - h * k], [k + a, a - k], Ts)
    W = W1
    for _ in range(n - 1):
        W = W * W1
    return control.ss(W, name="makeweight", inputs=["u"], outputs=["y"])
