"""Checks of the arguments of :func:`titop_lpv.analysis.trim` (types, finiteness, shapes).

Each check names the argument (and the item) at fault and raises :class:`TrimSpecError`,
so that no argument reaches the solver as a raw ``TypeError``/``ValueError`` or as a
non-finite number.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

from ..exceptions import ParameterError, TitopError

__all__ = ["TrimSpecError", "check_options", "finite", "mapping", "name_list", "state"]


class TrimSpecError(TitopError, ValueError):
    """A trim specification is inconsistent (unknown name, a variable both free and fixed,
    a velocity freed in a static trim, an argument of the wrong type, ...). The message
    names the variable or the argument."""


def finite(value: Any, where: str) -> float:
    """A finite real number, or :class:`TrimSpecError` naming ``where``.

    Parameters
    ----------
    value : Any
        A real number (int, float, numpy scalar or 0-d array; not a bool, a string or a
        complex number).
    where : str
        What the value is, quoted in the message (``"fixed: 'arm_q'"``).

    Returns
    -------
    float
    """
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value.item()
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer,
                                                                      np.floating)):
        raise TrimSpecError(f"{where}: expected a real number, got {value!r}")
    try:
        number = float(value)
    except OverflowError:
        raise TrimSpecError(f"{where}: {value!r} is too large for a float") from None
    if not np.isfinite(number):
        raise TrimSpecError(f"{where}: must be finite, got {number}")
    return number


def name_list(value: Any, what: str) -> list[str]:
    """The names of an iterable of names (``free``, ``pin_neutral``), each a string.

    Parameters
    ----------
    value : Any
        The argument: a list, tuple or other iterable of strings (not a string itself, not
        a dict).
    what : str
        The argument's name, quoted in the message.

    Returns
    -------
    list of str
    """
    if isinstance(value, (str, bytes, Mapping)) or not isinstance(value, Iterable):
        raise TrimSpecError(f"{what} must be a list of variable names, got {value!r}")
    names = list(value)
    for k, name in enumerate(names):
        if not isinstance(name, str):
            raise TrimSpecError(f"{what}[{k}] must be a variable name (a string), got {name!r}")
    return names


def mapping(value: Any, what: str) -> dict[str, Any]:
    """A dict ``name -> value`` (``fixed``, ``params``, ``guess``) with string keys.

    Parameters
    ----------
    value : Any
        None (an empty dict) or a mapping whose keys are strings.
    what : str
        The argument's name, quoted in the message.

    Returns
    -------
    dict
    """
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise TrimSpecError(f"{what} must be a dict name -> value, got {value!r}")
    for key in value:
        if not isinstance(key, str):
            raise TrimSpecError(f"{what}: key {key!r} is not a variable name (a string)")
    return dict(value)


def check_params(values: Mapping[str, Any]) -> dict[str, float]:
    """Parameter values ``name -> value``, each a finite real number.

    Parameters
    ----------
    values : mapping
        ``name -> value`` (the ``params`` argument, keys already checked).

    Returns
    -------
    dict
        The values as floats.

    Raises
    ------
    ParameterError
        A value that is not a finite real number, naming the parameter.
    """
    out = {}
    for name, value in values.items():
        try:
            out[name] = finite(value, f"params: {name!r}")
        except TrimSpecError as err:
            raise ParameterError(str(err)) from None
    return out


def state(x0: Any, n_states: int, names: tuple[str, ...]) -> np.ndarray:
    """The baseline state ``x0`` as a finite float vector of length ``n_states``.

    Parameters
    ----------
    x0 : array_like
        The state, in ``names`` order.
    n_states : int
        Its length.
    names : tuple of str
        The state names, quoted for a non-finite entry.

    Returns
    -------
    ndarray (n_states,)
    """
    try:
        x = np.array(x0, dtype=float)
    except (TypeError, ValueError, OverflowError):
        raise TrimSpecError(f"x0 must be an array of {n_states} real numbers, got "
                            f"{x0!r}") from None
    if np.iscomplexobj(np.asarray(x0)) or np.asarray(x0).dtype.kind in "SUbO":
        raise TrimSpecError(f"x0 must be an array of {n_states} real numbers, got {x0!r}")
    if x.shape != (n_states,):
        raise TrimSpecError(f"x0 must have shape ({n_states},), got {x.shape}")
    if not np.all(np.isfinite(x)):
        bad = [names[i] for i in np.flatnonzero(~np.isfinite(x))]
        raise TrimSpecError(f"x0: not finite for {bad}")
    return x


def check_options(kind: Any, tol: Any, max_nfev: Any, strict: Any, pin_neutral: Any) -> None:
    """Types and ranges of the scalar options of :func:`trim`.

    Parameters
    ----------
    kind : Any
        Must be ``"static"`` or ``"spin"``.
    tol : Any
        Must be a positive finite real number (not a bool).
    max_nfev : Any
        Must be a positive integer (not a bool).
    strict : Any
        Must be a bool.
    pin_neutral : Any
        Must be a bool or an iterable of names (checked by :func:`name_list` later).
    """
    if not isinstance(kind, str) or kind not in ("static", "spin"):
        raise TrimSpecError(f"kind must be 'static' or 'spin', got {kind!r}")
    if isinstance(tol, (bool, np.bool_)) or not isinstance(tol, (int, float, np.integer,
                                                                 np.floating)) \
            or not np.isfinite(float(tol)) or tol <= 0:
        raise TrimSpecError(f"tol must be a positive finite number, got {tol!r}")
    if isinstance(max_nfev, (bool, np.bool_)) or not isinstance(max_nfev, (int, np.integer)) \
            or max_nfev < 1:
        raise TrimSpecError(f"max_nfev must be a positive integer, got {max_nfev!r}")
    if not isinstance(strict, (bool, np.bool_)):
        raise TrimSpecError(f"strict must be True or False, got {strict!r}")
    if not isinstance(pin_neutral, (bool, np.bool_)):
        name_list(pin_neutral, "pin_neutral")
