"""Transfer functions, certain or with uncertain coefficients: :func:`tf` (MATLAB's ``tf``
with ``ureal`` coefficients)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import control
import numpy as np

from .checks import ArgumentError, ArgumentTypeError, check_real
from .system import Uncertain
from .uss import USS, UncertainTF

__all__ = ["tf"]


def _coefficients(x: Any, what: str) -> list[Any]:
    if isinstance(x, Uncertain) or np.isscalar(x):
        return [x]
    if isinstance(x, np.ndarray) and x.ndim == 1 and x.dtype != object:
        return list(x)
    if isinstance(x, (list, tuple)) and all(not isinstance(c, (list, tuple, np.ndarray))
                                            for c in x):
        return list(x)
    raise ArgumentTypeError(f"{what} must be a flat list of coefficients (highest power "
                            f"first) when a coefficient is uncertain; got {x!r:.60}")


def _holds_uncertain(x: Any) -> bool:
    if isinstance(x, Uncertain):
        return True
    if isinstance(x, (list, tuple)) or (isinstance(x, np.ndarray) and x.dtype == object):
        return any(_holds_uncertain(c) for c in x)
    return False


def tf(*args: Any, **kwargs: Any) -> control.TransferFunction | USS | UncertainTF:
    """A transfer function; uncertain when a coefficient is (MATLAB's ``tf`` with ``ureal``
    coefficients, which gives a ``uss``).

    ``tf("s")``, ``tf("z", dt)`` (MATLAB's ``tf('z', Ts)``) and ``tf(num, den[, dt])`` with
    numbers give a plain
    ``control.TransferFunction`` (python-control's ``tf``, any of its forms, with the same
    keywords). Arithmetic of such a transfer function with ``ureal`` coefficients is exact:
    ``k / (m * s**2 + c * s + k)`` with ``ureal`` ``m``, ``c``, ``k`` is a
    :class:`~titop_lpv.robust.uss.USS` whose value at every parameter value is the transfer
    function of the evaluated coefficients (intermediate improper terms such as
    ``m * s**2`` are :class:`~titop_lpv.robust.uss.UncertainTF`). ``tf(num, den)`` where
    ``num`` or ``den`` holds an uncertain scalar is the same USS directly (SISO).

    python-control's ``TransferFunction.__truediv__`` raises instead of deferring: write
    ``s * (1 / (m * s + 1))`` rather than ``s / (m * s + 1)``.

    Parameters
    ----------
    *args
        ``"s"`` or ``"z"`` (with ``dt``), a system, or ``num, den[, dt]``: coefficient lists,
        highest power first; with an uncertain coefficient, flat lists of numbers and
        uncertain scalars (``ureal``, ``ucomplex``, static 1×1 products of them).
    **kwargs
        python-control's keywords (``inputs``, ``outputs``, ``name``, ``dt`` …); with
        uncertain coefficients only ``dt``, ``inputs``, ``outputs`` and ``name``.

    Returns
    -------
    control.TransferFunction or USS or UncertainTF
        Plain python-control transfer function when certain, USS when uncertain and
        proper, UncertainTF when uncertain and improper.

    Raises
    ------
    ArgumentTypeError
        A coefficient that is neither a number nor an uncertain scalar, nested (MIMO)
        coefficient lists with an uncertain entry, an unknown keyword.
    ArgumentError
        A non-finite coefficient, a zero denominator, a bad ``dt``; what python-control's
        ``tf`` refuses (its ``TypeError`` becomes an ``ArgumentTypeError``).

    Examples
    --------
    >>> from titop_lpv.robust.atoms import ureal
    >>> m = ureal("m", 1.0, range=(0.5, 2.0))
    >>> G = tf([1.0], [m, 0.4, 1.0])
    >>> G.delta.names, round(abs(complex(G.at(m=2.0)(1j))), 12)  # 1/|-2 + 0.4j + 1|
    (('m',), 0.928476690885)
    """
    uncertain = len(args) >= 2 and any(_holds_uncertain(a) for a in args[:2])
    if not uncertain:
        if len(args) == 2 and args[0] == "z":  # MATLAB's tf('z', Ts)
            args = ([1.0, 0.0], [1.0], check_real(args[1], "dt", minimum=0.0))
        try:
            return control.tf(*args, **kwargs)
        except TypeError as exc:
            raise ArgumentTypeError(f"tf: {exc}") from None
        except ValueError as exc:
            raise ArgumentError(f"tf: {exc}") from None
    if len(args) > 3:
        raise ArgumentTypeError(f"tf takes num, den and dt with uncertain coefficients, got "
                                f"{len(args)} arguments")
    unknown = sorted(set(kwargs) - {"dt", "inputs", "outputs", "name"})
    if unknown:
        raise ArgumentTypeError(f"tf: unknown keyword(s) {unknown} with uncertain "
                                "coefficients")
    dt = args[2] if len(args) == 3 else kwargs.get("dt", 0)
    if dt is not None and dt is not True:
        dt = check_real(dt, "dt", minimum=0.0)
    T = UncertainTF(_coefficients(args[0], "num"), _coefficients(args[1], "den"), dt)
    out = T.simplify()
    if isinstance(out, USS):
        names: dict[str, Sequence[str] | str | None] = {
            "inputs": kwargs.get("inputs"), "outputs": kwargs.get("outputs")}
        out = out.rename(**names, name=kwargs.get("name"))
    return out
