"""The public algebra of uncertain systems: :func:`uss` (build one), conversion, ``+ − * / @``,
inverse, concatenation, ``feedback``, ``series``, ``parallel`` and ``append``.

Each function is the one of :mod:`titop_lpv.robust.algebra` (same arguments, same
documentation) returning a :class:`~titop_lpv.robust.uss.USS`; operands may be uncertain
systems, parameters (``ureal`` … as static systems), python-control ``StateSpace`` or
``TransferFunction`` objects, arrays and numbers. Signal names follow python-control's
``iosys`` conventions (see :mod:`titop_lpv.robust.algebra`).

python-control's ``TransferFunction.__truediv__`` raises instead of deferring, so write
``tf * G.inv()`` or ``uss(tf) / G`` rather than ``tf / G``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import control

from . import algebra
from .system import Uncertain
from .uss import USS

__all__ = [
    "add",
    "append",
    "as_uss",
    "feedback",
    "hstack",
    "inv",
    "matmul",
    "mul",
    "neg",
    "parallel",
    "power",
    "series",
    "sub",
    "truediv",
    "uss",
    "vstack",
]


def _returning_uss(f: Callable[..., Any]) -> Callable[..., USS]:
    """``f`` of :mod:`~titop_lpv.robust.algebra`, its result as a :class:`USS` (same
    signature and docstring)."""

    @functools.wraps(f)
    def wrapper(*args: Any, **kwargs: Any) -> USS:
        return USS.adopt(f(*args, **kwargs))

    return wrapper


def as_uss(obj: Any) -> USS:
    """Convert an operand to an uncertain system.

    Parameters
    ----------
    obj : USS, UReal, UComplex, ULTIDyn, control.StateSpace, control.TransferFunction, \
array_like or number
        The operand (real; names of python-control systems are kept).

    Returns
    -------
    USS

    Raises
    ------
    TypeError
        If ``obj`` cannot be converted (nonlinear system, non-numeric or complex data).
    """
    return USS.adopt(algebra.as_system(obj))


add = _returning_uss(algebra.add)
sub = _returning_uss(algebra.sub)
mul = _returning_uss(algebra.mul)
matmul = _returning_uss(algebra.matmul)
truediv = _returning_uss(algebra.truediv)
power = _returning_uss(algebra.power)
neg = _returning_uss(algebra.neg)
inv = _returning_uss(algebra.inv)
append = _returning_uss(algebra.append)
hstack = _returning_uss(algebra.hstack)
vstack = _returning_uss(algebra.vstack)
feedback = _returning_uss(algebra.feedback)
series = _returning_uss(algebra.series)
parallel = _returning_uss(algebra.parallel)


def uss(obj: Any, *, inputs: Sequence[str] | str | None = None,
        outputs: Sequence[str] | str | None = None, states: Sequence[str] | None = None,
        name: str | None = None) -> USS:
    """Build an uncertain system.

    Parameters
    ----------
    obj : USS, parameter, control.StateSpace/TransferFunction, array_like, number, or \
nested list
        A nested list (rows of entries) may mix numbers, parameters and systems:
        ``uss([[k, 1.0], [0.0, m]])`` is an uncertain 2×2 matrix.
    inputs : sequence of str or str, optional
        Input names (default: the operand's).
    outputs : sequence of str or str, optional
        Output names (default: the operand's).
    states : sequence of str, optional
        State names (default: the operand's).
    name : str, optional
        System name.

    Returns
    -------
    USS

    Raises
    ------
    ArgumentTypeError
        ``name`` is neither a string nor None.

    Examples
    --------
    >>> from titop_lpv.robust.atoms import ureal
    >>> k = ureal("k", 2.0, range=(1.0, 4.0))
    >>> G = uss([[k, 1.0], [0.0, k]], inputs=["a", "b"], outputs=["x", "y"])
    >>> G.shape, G.delta.names, G.delta[0].repeats
    ((2, 2), ('k',), 2)
    """
    if isinstance(obj, (list, tuple)) and any(
            isinstance(x, (Uncertain, control.LTI)) for row in obj
            for x in (row if isinstance(row, (list, tuple)) else [row])):
        rows = obj if all(isinstance(r, (list, tuple)) for r in obj) else [obj]
        G = algebra.vstack(*(algebra.hstack(*row) for row in rows))
    else:
        G = algebra.as_system(obj)
    return USS.adopt(G).rename(inputs=inputs, outputs=outputs, states=states, name=name)
