"""Frequency grids [rad/s] of the analyses: the check of a given grid (:func:`check_omega`)
and the default grid around the poles of a system (:func:`default_omega`)."""

from __future__ import annotations

from typing import Any

import numpy as np

from .blocks import StructureError

__all__ = ["MAX_FREQUENCY", "check_omega", "default_omega"]

MAX_FREQUENCY = 1e15
"""Largest frequency [rad/s] an analysis accepts (optical frequencies are about 1e15).

Far above a system's poles its response falls like a power of 1/ω; at 1e300 rad/s the
responses, the scalings and the certificate's levels leave the range of a double (a raw
``OverflowError`` before this check)."""


def check_omega(omega: Any, error: type[Exception] = StructureError) -> np.ndarray:
    """Frequencies [rad/s] for an analysis: sorted, unique, finite and ``>= 0``.

    Parameters
    ----------
    omega : array_like
        The frequencies.
    error : type of Exception, optional
        Raised, naming the problem, when ``omega`` is not such a set (default
        :class:`~titop_lpv.robust.blocks.StructureError`).

    Returns
    -------
    ndarray
        The sorted unique frequencies.

    Raises
    ------
    Exception
        ``error``: not an array of numbers, empty, NaN, infinite, negative, or above
        :data:`MAX_FREQUENCY`.

    Examples
    --------
    >>> check_omega([10.0, 0.0, 1.0, 10.0])
    array([ 0.,  1., 10.])
    """
    try:
        w = np.unique(np.asarray(omega, float).ravel())
    except (TypeError, ValueError):
        raise error(f"omega must be an array of frequencies [rad/s], got {omega!r}") from None
    if w.size == 0 or not np.all(np.isfinite(w)) or w[0] < 0:
        raise error("omega must be a non-empty set of finite frequencies >= 0 [rad/s]")
    if w[-1] > MAX_FREQUENCY:
        raise error(f"omega holds {w[-1]:.6g} rad/s: frequencies above {MAX_FREQUENCY:g} "
                    "rad/s are refused (the responses there leave the range of a double)")
    return w


def default_omega(poles: Any, n: int = 400, *, decades: float = 2.0,
                  include_zero: bool = True, whole_decades: bool = False,
                  min_modulus: float = 0.0) -> np.ndarray:
    """Log-spaced frequencies [rad/s] spanning the moduli of ``poles``, widened by
    ``decades`` on each side.

    Parameters
    ----------
    poles : array_like
        Poles (eigenvalues of A); their moduli above ``min_modulus`` set the span (none: the
        span is centred on 1 rad/s).
    n : int, optional
        Number of log-spaced points (default 400).
    decades : float, optional
        Decades added below the smallest modulus and above the largest (default 2).
    include_zero : bool, optional
        Put ω = 0 first (default True: real parameters may move a pole through s = 0).
    whole_decades : bool, optional
        Round the ends outwards to whole decades (default False).
    min_modulus : float, optional
        Moduli at or below this are ignored (default 0: only exact zeros).

    Returns
    -------
    ndarray
        ``n`` points (``n + 1`` with ω = 0), increasing.

    Examples
    --------
    >>> default_omega([-1.0, -10.0], n=6)
    array([0.e+00, 1.e-02, 1.e-01, 1.e+00, 1.e+01, 1.e+02, 1.e+03])
    >>> default_omega([0.0], n=3, decades=1.5, include_zero=False, whole_decades=True)
    array([1.e-02, 1.e+00, 1.e+02])
    """
    mags = np.abs(np.asarray(poles, complex).ravel())
    mags = mags[mags > min_modulus]
    if mags.size == 0:
        mags = np.ones(1)
    lo, hi = np.log10(mags.min()) - decades, np.log10(mags.max()) + decades
    if whole_decades:
        lo, hi = np.floor(lo), np.ceil(hi)
    w = np.logspace(lo, hi, n)
    return np.r_[0.0, w] if include_zero else w
