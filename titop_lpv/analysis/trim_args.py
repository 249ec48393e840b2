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
from ..model.compiled import Model
from ..names import find, resolve

__all__ = ["TrimSpecError", "check_options", "finite", "mapping", "name_list", "rate_param",
           "spin_rate", "state"]


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
    if isinstance(value, (str, bytes, Mapping)) or not isinstance(value, Iterable) or \
            (isinstance(value, np.ndarray) and value.ndim == 0):  # Iterable, not iterable
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


def rate_param(model: Model, table: dict[str, tuple[str, int]], name: str) -> str:
    """The parameter that the spin rate ``name`` designates (dotted or underscored).

    Parameters
    ----------
    model : Model
        The model.
    table : dict
        The trim's variables: ``name -> (vector, index)``.
    name : str
        The rate as given (a parameter name).

    Returns
    -------
    str
        The parameter's name; :class:`TrimSpecError` for a state or input, and
        :class:`~titop_lpv.UnknownNameError` listing the parameters for another name.
    """
    key = find(name, model.param_names)
    if key is not None:
        return key
    other = find(name, table)
    if other is not None:  # a state or an input: a name, but not of a parameter
        kind = "a state" if table[other][0] == "x" else "an input"
        raise TrimSpecError(f"spin: rate {name!r} is {kind}, not a parameter; the rate is a "
                            f"number [rad/s] or the name of a parameter, one of "
                            f"{list(model.param_names)}")
    return resolve(name, model.param_names, "parameter", context="spin: rate")


def spin_rate(model: Model, spin: Mapping[str, Any], p: np.ndarray,
              table: dict[str, tuple[str, int]], free: list[str]) -> tuple[float, str | None]:
    """The spin rate [rad/s] and the parameter it was taken from (None for a number).

    ``spin["rate"]`` is a number or a parameter name; a name takes its value from ``p``
    (the trim's parameter values). ``spin["rate_param"]`` (the record of an earlier trim,
    ``OperatingPoint.spin``, given back) names the parameter too; a number given with it
    must equal the parameter's value.

    Parameters
    ----------
    model : Model
        The model.
    spin : mapping
        The trim's ``spin`` argument (keys already checked).
    p : ndarray (n_params,)
        The trim's parameter values.
    table : dict
        The trim's variables: ``name -> (vector, index)``.
    free : list of str
        The free variables (the rate parameter must not be one).

    Returns
    -------
    rate : float
        [rad/s].
    param : str or None
        The parameter it was taken from.
    """
    rate, named = spin["rate"], spin.get("rate_param")
    if isinstance(rate, np.ndarray) and rate.ndim == 0:  # numpy scalars as 0-d arrays
        rate = rate.item()
    if isinstance(rate, (bool, np.bool_)):
        raise TrimSpecError(f"spin: rate must be a number [rad/s] or a parameter name, got "
                            f"{rate!r}")
    param = None
    if named is not None:
        if not isinstance(named, str):
            raise TrimSpecError(f"spin: rate_param must be a parameter name, got {named!r}")
        param = rate_param(model, table, named)
    if isinstance(rate, str) and find(rate, model.param_names) is None:
        try:  # a number written as text ("2.0") is still a number
            rate = float(rate)
        except ValueError:
            pass
    if isinstance(rate, str):
        key = rate_param(model, table, rate)
        if param is not None and key != param:
            raise TrimSpecError(f"spin: rate {rate!r} and rate_param {named!r} name different "
                                "parameters")
        param = key
    elif not isinstance(rate, (int, float, np.integer, np.floating)):
        raise TrimSpecError(f"spin: rate must be a number [rad/s] or a parameter name, got "
                            f"{rate!r}")
    if param is None:
        return finite(rate, "spin: rate"), None
    if param in free:
        raise TrimSpecError(f"spin: the rate parameter {param!r} is free; the spin rate is "
                            "given, not solved for (remove it from free)")
    value = finite(p[model.param_names.index(param)], f"spin: rate parameter {param!r}")
    if not isinstance(rate, str) and finite(rate, "spin: rate") != value:
        raise TrimSpecError(f"spin: rate {float(rate):g} differs from the value {value:g} of "
                            f"its rate_param {param!r} in this trim; give rate={param!r} to "
                            "take the rate from the parameter")
    return value, param
