"""Units of a model's signals and parameters, gathered in one place for figures and files.

A signal's unit follows from its kind (:meth:`Model.units`: positions m, angles rad, rates
m/s or rad/s, joint forces N or torques N m, wrench components N and N m, sensor outputs by
their type); a parameter's unit is the one its declaration gives (``unit = "N/m"`` in a
model file, ``System.parameter(..., unit=...)``), empty when none is declared. Figures label
their axes and colour bars with these strings and exports write them next to the names.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ..model.compiled import Model

__all__ = ["param_ranges", "param_units", "units"]


def _declared(model: Model) -> dict[str, Any]:
    """The parameter declarations of the model's description (``name -> number | dict``)."""
    params = model.description.get("parameters") or {}
    return params if isinstance(params, Mapping) else {}


def param_units(model: Model) -> dict[str, str]:
    """The declared unit of every parameter (``""`` when none is declared).

    Parameters
    ----------
    model : Model
        The compiled model.

    Returns
    -------
    dict of str to str
        ``parameter -> unit``, in ``model.param_names`` order.

    Examples
    --------
    >>> import titop_lpv as tl
    >>> s = tl.System("msd", gravity=[0.0, 0.0, 0.0])
    >>> _ = s.parameter("k", 40.0, unit="N/m")
    >>> _ = s.parameter("m", 2.0)
    >>> _ = s.body("cart", tl.Prismatic(axis=[1, 0, 0], stiffness="k"), mass="m")
    >>> param_units(s.compile())
    {'k': 'N/m', 'm': ''}
    """
    declared = _declared(model)
    out = {}
    for name in model.param_names:
        spec = declared.get(name)
        out[name] = str(spec.get("unit") or "") if isinstance(spec, Mapping) else ""
    return out


def param_ranges(model: Model) -> dict[str, tuple[float, float]]:
    """The declared ``(min, max)`` of every parameter, NaN where a bound is not declared.

    Parameters
    ----------
    model : Model
        The compiled model.

    Returns
    -------
    dict of str to (float, float)
        ``parameter -> (min, max)`` in the parameter's unit, in ``model.param_names`` order.
    """
    bounds = np.asarray(model.param_bounds, dtype=float).reshape(-1, 2)
    return {name: tuple(float(b) if np.isfinite(b) else float("nan") for b in row)
            for name, row in zip(model.param_names, bounds)}


def units(model: Model) -> dict[str, str]:
    """The unit of every state, input, output and parameter of ``model``, by name.

    Parameters
    ----------
    model : Model
        The compiled model.

    Returns
    -------
    dict of str to str
        Signals from :meth:`Model.units` (SI, angles in rad), then the parameters' declared
        units (``""`` when none is declared); a parameter never shadows a signal's unit.

    Examples
    --------
    >>> import titop_lpv as tl
    >>> s = tl.System("msd", gravity=[0.0, 0.0, 0.0])
    >>> _ = s.parameter("k", 40.0, unit="N/m")
    >>> _ = s.body("cart", tl.Prismatic(axis=[1, 0, 0], stiffness="k", actuated=True),
    ...            mass=2.0)
    >>> u = units(s.compile())
    >>> u["cart_q"], u["cart_qd"], u["cart_tau"], u["k"]
    ('m', 'm/s', 'N', 'N/m')
    """
    out = model.units()
    for name, unit in param_units(model).items():
        out.setdefault(name, unit)
    return out
