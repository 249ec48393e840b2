"""Checks of the arguments given to the robustness layer, at its entry points: counts,
seeds, numeric arrays (finite, of the expected dimension), and the two error classes they
raise when no more specific class of the layer applies.

Every check names the argument at fault. Wrong types raise :class:`ArgumentTypeError`
(a ``TypeError``), wrong values the error class given by the caller (default
:class:`ArgumentError`, a ``ValueError``), so ``except TypeError`` / ``except ValueError``
keep working and ``except titop_lpv.exceptions.TitopError`` catches both.
"""

from __future__ import annotations

import numbers
from typing import Any

import control
import numpy as np

from ..exceptions import ArgumentError, ArgumentTypeError

__all__ = ["ArgumentError", "ArgumentTypeError", "check_count", "check_finite", "check_real",
           "check_seed", "numeric_array", "tf_to_ss"]


def check_count(value: Any, what: str, *, minimum: int = 0, maximum: int | None = None,
                error: type[Exception] = ArgumentError) -> int:
    """An integer count, checked: an ``int`` (or a float with an integer value), not a bool,
    in ``[minimum, maximum]``.

    Parameters
    ----------
    value : Any
        The candidate.
    what : str
        Its name in the messages.
    minimum : int, optional
        Smallest value accepted (default 0).
    maximum : int, optional
        Largest value accepted (default: no limit).
    error : type of Exception, optional
        Raised for a value out of range or not an integer (default :class:`ArgumentError`).

    Returns
    -------
    int

    Raises
    ------
    ArgumentTypeError
        ``value`` is not a number.

    Examples
    --------
    >>> check_count(3.0, "n")
    3
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise ArgumentTypeError(f"{what} must be an integer, got {value!r}")
    if not np.isfinite(value) or value != int(value):
        raise error(f"{what} must be an integer, got {value!r}")
    n = int(value)
    if n < minimum or (maximum is not None and n > maximum):
        kind = "a positive integer" if minimum == 1 else \
            "a non-negative integer" if minimum == 0 else f"an integer >= {minimum}"
        top = f" (at most {maximum})" if maximum is not None else ""
        raise error(f"{what} must be {kind}{top}, got {n}")
    return n


def check_real(value: Any, what: str, *, minimum: float | None = None,
               error: type[Exception] = ArgumentError) -> float:
    """A finite real number, checked (and ``>= minimum`` if given).

    Parameters
    ----------
    value : Any
        The candidate.
    what : str
        Its name in the messages.
    minimum : float, optional
        Smallest value accepted (default: none).
    error : type of Exception, optional
        Raised for a non-finite or too small value (default :class:`ArgumentError`).

    Returns
    -------
    float

    Raises
    ------
    ArgumentTypeError
        ``value`` is not a real number.
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise ArgumentTypeError(f"{what} must be a real number, got {value!r}")
    v = float(value)
    if not np.isfinite(v) or (minimum is not None and v < minimum):
        raise error(f"{what} must be a finite number" + (f" >= {minimum:g}" if minimum
                                                           is not None else "")
                    + f", got {value!r}")
    return v


def check_seed(seed: Any, what: str = "seed", *, allow_none: bool = True) -> Any:
    """A seed for :func:`numpy.random.default_rng`: None (if allowed), an integer ``>= 0`` or
    a :class:`numpy.random.Generator`.

    Parameters
    ----------
    seed : Any
        The candidate.
    what : str, optional
        Its name in the messages (default ``"seed"``).
    allow_none : bool, optional
        Whether None is accepted (default True).

    Returns
    -------
    None, int or numpy.random.Generator

    Raises
    ------
    ArgumentTypeError
        Another type.
    ArgumentError
        A negative or non-integer number.
    """
    if (seed is None and allow_none) or isinstance(seed, np.random.Generator):
        return seed
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, numbers.Real):
        raise ArgumentTypeError(f"{what} must be an integer >= 0"
                                + (", None" if allow_none else "")
                                + f" or a numpy Generator, got {seed!r}")
    return check_count(seed, what)


def check_finite(x: np.ndarray, what: str, error: type[Exception] = ArgumentError
                 ) -> np.ndarray:
    """``x`` itself, checked to hold only finite numbers.

    Parameters
    ----------
    x : ndarray
        A numeric array.
    what : str
        Its name in the messages.
    error : type of Exception, optional
        Raised when an entry is NaN or infinite (default :class:`ArgumentError`).

    Returns
    -------
    ndarray
    """
    if x.size and not np.all(np.isfinite(x)):
        bad = np.argwhere(~np.isfinite(x))[0]
        at = f" at index {tuple(int(i) for i in bad)}" if x.ndim else ""
        raise error(f"{what} must be finite: it holds {x[tuple(bad)]!r}{at}")
    return x


def numeric_array(x: Any, what: str, *, dtype: type = complex, ndim: int | None = None,
                  error: type[Exception] = ArgumentError) -> np.ndarray:
    """``x`` as a finite numeric array of ``dtype`` (and of ``ndim`` dimensions if given).

    Parameters
    ----------
    x : array_like
        The candidate.
    what : str
        Its name in the messages.
    dtype : type, optional
        ``complex`` (default) or ``float``: the dtype of the result; with ``float``,
        complex entries are refused.
    ndim : int, optional
        Required number of dimensions (default: any).
    error : type of Exception, optional
        Raised for a wrong dimension or a non-finite entry (default :class:`ArgumentError`).

    Returns
    -------
    ndarray

    Raises
    ------
    ArgumentTypeError
        ``x`` is not numeric (None, a string, objects), or complex where ``dtype`` is float.

    Examples
    --------
    >>> numeric_array([[1, 2]], "M", dtype=float, ndim=2)
    array([[1., 2.]])
    """
    try:
        arr = np.asarray(x)
    except (TypeError, ValueError):
        raise ArgumentTypeError(f"{what} must be a numeric array, got {type(x).__name__}"
                                ) from None
    if arr.dtype == object or not (np.issubdtype(arr.dtype, np.number)
                                   or arr.dtype == np.bool_):
        raise ArgumentTypeError(f"{what} must be a numeric array, got "
                                f"{type(x).__name__} {x!r:.60}")
    if dtype is float and np.iscomplexobj(arr):
        if np.any(arr.imag):
            raise ArgumentTypeError(f"{what} must be real, got complex entries")
        arr = arr.real
    arr = arr.astype(dtype)
    if ndim is not None and arr.ndim != ndim:
        raise error(f"{what} must be a {ndim}-D array, got shape {arr.shape}")
    return check_finite(arr, what, error)


def tf_to_ss(tf: control.TransferFunction, what: str) -> control.StateSpace:
    """A transfer function as a state-space system, refusing an improper one by name.

    Parameters
    ----------
    tf : control.TransferFunction
        The transfer function.
    what : str
        Its name in the messages.

    Returns
    -------
    control.StateSpace

    Raises
    ------
    ArgumentTypeError
        An entry has ``deg num > deg den``: no state-space realisation exists
        (python-control's ``ValueError`` "non-proper" before).
    ArgumentError
        A NaN or infinite coefficient.
    """
    for i, (rn, rd) in enumerate(zip(tf.num, tf.den)):
        for j, (n, d) in enumerate(zip(rn, rd)):
            if not (np.all(np.isfinite(n)) and np.all(np.isfinite(d))):
                raise ArgumentError(f"{what}: entry ({i}, {j}) of the transfer function has "
                                    "a NaN or infinite coefficient")
            if np.trim_zeros(np.asarray(n), "f").size > np.trim_zeros(np.asarray(d), "f").size:
                raise ArgumentTypeError(f"{what}: entry ({i}, {j}) of the transfer function is "
                                        "improper (deg num > deg den): it has no state-space "
                                        "realisation")
    return control.ss(tf)
