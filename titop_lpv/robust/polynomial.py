"""Polynomial arithmetic with uncertain coefficients, for
:class:`~titop_lpv.robust.uss.UncertainTF`: a coefficient is a float or a static 1×1
uncertain system (``ureal``, ``ucomplex`` and their products), a polynomial a list of
coefficients, highest power first. Certain coefficients stay floats (exact zeros and ones
are skipped), so that certain arithmetic is ordinary float arithmetic."""

from __future__ import annotations

import numbers
from typing import Any

import control
import numpy as np

from .algebra import add, mul
from .checks import ArgumentError, ArgumentTypeError
from .system import Uncertain

__all__ = ["cadd", "cmul", "coefficient", "is_proper", "is_uncertain_scalar", "padd", "pmul",
           "trim"]


def is_uncertain_scalar(x: Any) -> bool:
    """True for a static 1×1 uncertain system or parameter (``ureal``, ``ucomplex`` or a
    ``USS`` with no state, one input and one output, and no ``ultidyn`` block, which is
    dynamic): what can be a coefficient of an :class:`~titop_lpv.robust.uss.UncertainTF`.

    Parameters
    ----------
    x : Any
        The candidate.
    """
    if not isinstance(x, Uncertain):
        return False
    G = x._as_uss()
    return (G.nstates == 0 and G.shape == (1, 1)
            and all(b.kind != "full" for b in G.delta))


def is_proper(T: control.TransferFunction) -> bool:
    """True unless ``T`` is a SISO transfer function with ``deg num > deg den`` (MIMO ones
    are left to the LFT algebra, which reports them).

    Parameters
    ----------
    T : control.TransferFunction
        The transfer function.
    """
    if T.ninputs != 1 or T.noutputs != 1:
        return True  # MIMO: left to the LFT algebra (which reports it)
    num, den = np.trim_zeros(T.num[0][0], "f"), np.trim_zeros(T.den[0][0], "f")
    return len(num) <= len(den)


def coefficient(c: Any, where: str) -> Any:
    """A coefficient, checked: a float, or a static 1×1 uncertain system.

    Parameters
    ----------
    c : Any
        The candidate (number or uncertain scalar).
    where : str
        ``"num"`` or ``"den"``, for the messages.

    Raises
    ------
    ArgumentTypeError
        Neither a real number nor a static 1×1 uncertain system.
    ArgumentError
        A non-finite number.
    """
    if isinstance(c, Uncertain):
        if not is_uncertain_scalar(c):
            raise ArgumentTypeError(f"{where}: an uncertain coefficient must be a static 1×1 "
                                    f"uncertain scalar (ureal, ucomplex, or products of "
                                    f"them; not ultidyn), got {c!r:.60}")
        return c._as_uss()
    if isinstance(c, (bool, np.bool_)) or not isinstance(c, numbers.Real):
        raise ArgumentTypeError(f"{where}: a coefficient must be a real number or an "
                                f"uncertain scalar, got {type(c).__name__} {c!r:.40}")
    v = float(c)
    if not np.isfinite(v):
        raise ArgumentError(f"{where}: coefficient {c!r} is not finite")
    return v


def cadd(a: Any, b: Any) -> Any:
    """Sum of two coefficients.

    Parameters
    ----------
    a, b : float or LFTSystem
        The coefficients.
    """
    if isinstance(a, float) and isinstance(b, float):
        return a + b
    if isinstance(a, float) and a == 0.0:
        return b
    if isinstance(b, float) and b == 0.0:
        return a
    return add(a, b)


def cmul(a: Any, b: Any) -> Any:
    """Product of two coefficients.

    Parameters
    ----------
    a, b : float or LFTSystem
        The coefficients.
    """
    if isinstance(a, float) and isinstance(b, float):
        return a * b
    if (isinstance(a, float) and a == 0.0) or (isinstance(b, float) and b == 0.0):
        return 0.0
    if isinstance(a, float) and a == 1.0:
        return b
    if isinstance(b, float) and b == 1.0:
        return a
    return mul(a, b)


def padd(p: list[Any], q: list[Any]) -> list[Any]:
    """Sum of two polynomials.

    Parameters
    ----------
    p, q : list
        Coefficient lists, highest power first.
    """
    n = max(len(p), len(q))
    p, q = [0.0] * (n - len(p)) + p, [0.0] * (n - len(q)) + q
    return [cadd(a, b) for a, b in zip(p, q)]


def pmul(p: list[Any], q: list[Any]) -> list[Any]:
    """Product of two polynomials.

    Parameters
    ----------
    p, q : list
        Coefficient lists, highest power first.
    """
    out: list[Any] = [0.0] * (len(p) + len(q) - 1)
    for i, a in enumerate(p):
        for j, b in enumerate(q):
            out[i + j] = cadd(out[i + j], cmul(a, b))
    return out


def trim(p: list[Any]) -> list[Any]:
    """``p`` without its leading certain zeros (an uncertain leading coefficient is kept:
    it is non-zero at some parameter value).

    Parameters
    ----------
    p : list
        Coefficients, highest power first.
    """
    k = 0
    while k < len(p) - 1 and isinstance(p[k], float) and p[k] == 0.0:
        k += 1
    return p[k:]
