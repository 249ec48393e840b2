"""Checks of the runtime arguments of the analysis functions (simulate, linearize, sweeps, ...).

Each check returns the argument converted (a float, an int, a bool, a list of names, a
finite vector) or raises a ``titop_lpv`` error that names the argument:
:class:`ArgumentError` (also a ``ValueError``) for a value outside its domain (NaN, a
negative tolerance, an unknown option), :class:`ArgumentTypeError` (also a ``TypeError``)
for an argument of the wrong kind (a string where a number is expected, ...), and
:class:`~titop_lpv.exceptions.ShapeError` for an array of the wrong shape.
"""

from __future__ import annotations

import inspect
import math
import numbers
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from ..exceptions import ArgumentError, ArgumentTypeError, ShapeError
from ..multibody.tree import numeric_array

__all__ = [
    "ArgumentError",
    "ArgumentTypeError",
    "check_branch_tol",
    "finite_vector",
    "flag",
    "input_function",
    "integer",
    "mapping_or_none",
    "name_list",
    "progress_option",
    "real",
]


def real(value: Any, what: str, *, low: float | None = None, high: float | None = None,
         strict: bool = False, allow_inf: bool = False) -> float:
    """A real number argument, checked.

    Parameters
    ----------
    value : object
        The argument.
    what : str
        Its name, for the message.
    low, high : float, optional
        Bounds (inclusive unless ``strict``).
    strict : bool
        The lower bound is exclusive (``value > low``).
    allow_inf : bool
        Accept ±inf (inside the bounds); NaN is never accepted.

    Returns
    -------
    float

    Raises
    ------
    ArgumentTypeError
        Not a real number (a bool, a string, a complex, an array, ...).
    ArgumentError
        NaN, infinite (unless ``allow_inf``) or outside the bounds.
    """
    if isinstance(value, np.ndarray) and value.ndim == 0 and value.dtype.kind in "iuf":
        value = value.item()
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise ArgumentTypeError(f"{what} must be a real number, got {value!r:.60}")
    try:
        v = float(value)
    except OverflowError:
        raise ArgumentError(f"{what} = {value!r:.40} is too large for a float") from None
    if math.isnan(v) or (math.isinf(v) and not allow_inf):
        raise ArgumentError(f"{what} must be a finite number, got {v}")
    if low is not None and (v <= low if strict else v < low):
        raise ArgumentError(f"{what} must be {'>' if strict else '>='} {low:g}, got {v:g}")
    if high is not None and v > high:
        raise ArgumentError(f"{what} must be <= {high:g}, got {v:g}")
    return v


def integer(value: Any, what: str, *, low: int | None = None, high: int | None = None) -> int:
    """An integer argument, checked.

    Parameters
    ----------
    value : object
        The argument.
    what : str
        Its name, for the message.
    low, high : int, optional
        Inclusive bounds.

    Returns
    -------
    int

    Raises
    ------
    ArgumentTypeError
        Not an integer (a bool, a float, a string, ...).
    ArgumentError
        Outside the bounds.
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise ArgumentTypeError(f"{what} must be an integer, got {value!r:.60}")
    v = int(value)
    if (low is not None and v < low) or (high is not None and v > high):
        raise ArgumentError(f"{what} must lie in [{low}, {high}], got {v}")
    return v


def flag(value: Any, what: str) -> bool:
    """A boolean argument (``True``/``False``, numpy bools included), checked.

    Parameters
    ----------
    value : object
        The argument.
    what : str
        Its name, for the message.

    Returns
    -------
    bool

    Raises
    ------
    ArgumentTypeError
        Not a bool (``"yes"``, ``1``, ``None``, ...).
    """
    if not isinstance(value, (bool, np.bool_)):
        raise ArgumentTypeError(f"{what} must be True or False, got {value!r:.60}")
    return bool(value)


def name_list(value: Any, what: str) -> list[str] | None:
    """A list of signal or variable names (None passes through), checked.

    Parameters
    ----------
    value : None or iterable of str
        The argument.
    what : str
        Its name, for the message.

    Returns
    -------
    list of str or None

    Raises
    ------
    ArgumentTypeError
        A single string (give a list of one name), something that is not iterable, or an
        entry that is not a string.
    """
    if value is None:
        return None
    if isinstance(value, (str, bytes)):
        raise ArgumentTypeError(f"{what} must be a list of names, not the single string "
                                f"{value!r:.60}: write [{value!r:.60}]")
    if not isinstance(value, Iterable) or isinstance(value, dict) or (
            isinstance(value, np.ndarray) and value.ndim == 0):  # Iterable, not iterable
        raise ArgumentTypeError(f"{what} must be a list of names, got {value!r:.60}")
    names = list(value)
    for entry in names:
        if not isinstance(entry, str):
            raise ArgumentTypeError(f"{what}: every name must be a string, got {entry!r:.60}")
    return names


def mapping_or_none(value: Any, what: str) -> Mapping[Any, Any] | None:
    """A dict argument (``params``, ``fixed``, ``guess``, ...) or None, checked for its type.

    Parameters
    ----------
    value : None or Mapping
        The argument.
    what : str
        Its name, for the message.

    Returns
    -------
    Mapping or None

    Raises
    ------
    ArgumentTypeError
        Anything else (a string, a list, a number).
    """
    if value is None or isinstance(value, Mapping):
        return value
    raise ArgumentTypeError(f"{what} must be a dict name -> value, got {value!r:.60}")


def progress_option(value: Any, what: str = "progress") -> bool | Callable[..., Any]:
    """A progress argument: a bool, or a callable to call as the work advances.

    Parameters
    ----------
    value : object
        The argument.
    what : str
        Its name, for the message.

    Returns
    -------
    bool or callable

    Raises
    ------
    ArgumentTypeError
        Neither a bool nor a callable (``"yes"``, ``3``, ...).
    """
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if callable(value):
        return value
    raise ArgumentTypeError(f"{what} must be True, False or a callable, got {value!r:.60}")


def input_function(value: Callable[..., Any], what: str = "u"
                   ) -> Callable[[float, np.ndarray], Any]:
    """A callable input as ``u(t, x)``: ``u(t, x)`` as given, ``u(t)`` (python-control's
    convention) wrapped, its signature checked before any call.

    Parameters
    ----------
    value : callable
        ``u(t, x)`` (state feedback) or ``u(t)`` (a function of time alone).
    what : str, optional
        Its name in the messages (default ``"u"``).

    Returns
    -------
    callable
        ``f(t, x)``.

    Raises
    ------
    ArgumentTypeError
        ``value`` cannot be called with one or two positional arguments (``u()``,
        ``u(t, x, y)``, ...). A callable without an inspectable signature (some builtins) is
        called as ``u(t, x)``.

    Examples
    --------
    >>> f = input_function(lambda t: [2.0 * t])
    >>> f(0.5, None)
    [1.0]
    """
    try:
        sig = inspect.signature(value)
    except (TypeError, ValueError):  # no signature to read: the documented u(t, x)
        return value
    for count in (2, 1):
        try:
            sig.bind(*range(count))
        except TypeError:
            continue
        return value if count == 2 else (lambda t, x: value(t))
    label = getattr(value, "__name__", type(value).__name__)
    raise ArgumentTypeError(f"{what} must be callable as {what}(t) or {what}(t, x); "
                            f"{label}{sig} is not")


def finite_vector(value: Any, what: str, names: Sequence[str], kind: str) -> np.ndarray:
    """A real vector with one finite entry per name, checked.

    Parameters
    ----------
    value : array_like
        The argument.
    what : str
        Its name, for the message (``"x0"``, ``"u"``).
    names : sequence of str
        Name of each entry (its length is the expected shape).
    kind : str
        What the entries are (``"state"``, ``"input"``), for the message.

    Returns
    -------
    ndarray of float, shape (len(names),)

    Raises
    ------
    ShapeError
        Not an array of real numbers of shape ``(len(names),)``.
    ArgumentError
        An entry that is NaN or infinite (named).
    """
    arr = numeric_array(value)
    n = len(names)
    if arr is None or np.iscomplexobj(arr) or arr.shape != (n,):
        got = f"{value!r:.60}" if arr is None else f"shape {arr.shape} ({arr.dtype})"
        raise ShapeError(f"{what} must be real numbers of shape ({n},), the {kind}s "
                         f"{list(names)}; got {got}")
    arr = arr.astype(float)
    bad = np.flatnonzero(~np.isfinite(arr))
    if bad.size:
        raise ArgumentError(f"{what}: {kind} {names[int(bad[0])]!r} = {arr[bad[0]]} is not "
                            "finite")
    return arr


def check_branch_tol(branch_tol: Any) -> None:
    """Check an LPV grid's ``branch_tol``: a finite number > 0, or a dict name -> such numbers.

    Parameters
    ----------
    branch_tol : object
        The argument (see :class:`titop_lpv.LPVGrid`).

    Raises
    ------
    ArgumentError
        NaN, infinite, zero or negative (a NaN would switch the branch check off).
    ArgumentTypeError
        A value that is not a number, or a dict key that is not a string.
    """
    tols = branch_tol.items() if isinstance(branch_tol, Mapping) else [(None, branch_tol)]
    for key, tol in tols:
        if key is not None and not isinstance(key, str):
            raise ArgumentTypeError(f"branch_tol: the keys name trim variables (strings), "
                                    f"got {key!r:.60}")
        real(tol, "branch_tol" if key is None else f"branch_tol[{key!r}]", low=0.0,
             strict=True)
