"""The fields that make an exported linear model complete: units, operating values, the
parameters with their ranges, the states left out (and why), the grid's shape and axes.

Each function returns the fields to add to a record (see ``docs/export.md`` for the list,
field by field); :mod:`titop_lpv.io.export` writes them next to the matrices and reads them
back. Units come from :func:`titop_lpv.analysis.units.units` when the model is given, else
from the grid (``LPVGrid.units``); an unknown unit is ``""``, an undeclared parameter bound
NaN.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import control
import numpy as np

from ..analysis.lpv import LPVGrid
from ..analysis.operating_point import OperatingPoint
from ..analysis.units import param_ranges, units
from ..exceptions import ArgumentError
from ..model.compiled import Model
from .codec import strings

__all__ = ["dropped_fields", "grid_fields", "linear_fields", "operating_fields",
           "parameter_fields", "read_dropped", "read_units", "unit_fields"]

DRIFT = "drift"  # the extra input of linearize(..., drift=True), driven by 1


def unit_fields(states: Sequence[str], inputs: Sequence[str], outputs: Sequence[str],
                table: Mapping[str, str]) -> dict[str, list[str]]:
    """``StateUnit``, ``InputUnit``, ``OutputUnit``: the unit of each signal, in order.

    Parameters
    ----------
    states, inputs, outputs : sequence of str
        The signal names of the linear model.
    table : mapping of str to str
        ``name -> unit`` (a name it lacks gets ``""``).

    Returns
    -------
    dict
        Three lists of str, named as MATLAB's ``ss`` properties.
    """
    return {key: [str(table.get(n, "") or "") for n in names] for key, names in
            (("StateUnit", states), ("InputUnit", inputs), ("OutputUnit", outputs))}


def dropped_fields(sys: Any) -> dict[str, list[str]]:
    """The model states that are not states of ``sys``, why, and the outputs left out.

    Parameters
    ----------
    sys : control.StateSpace
        A system from :func:`titop_lpv.linearize` (its ``dropped_states`` and
        ``dropped_outputs``; none for another system).

    Returns
    -------
    dict
        ``dropped_states`` and ``dropped_reasons`` (``cyclic``, ``integrator``, ``drop``,
        ``not selected``), two lists in the model's state order; ``dropped_outputs``.
    """
    dropped = dict(getattr(sys, "dropped_states", None) or {})
    return {"dropped_states": list(dropped), "dropped_reasons": list(dropped.values()),
            "dropped_outputs": list(getattr(sys, "dropped_outputs", None) or ())}


def read_dropped(rec: Mapping[str, Any]) -> tuple[dict[str, str], tuple[str, ...]]:
    """``dropped_states`` (name -> reason) and ``dropped_outputs`` back from a record.

    Parameters
    ----------
    rec : mapping
        A record read from a file (a file without the fields gives empty ones).

    Returns
    -------
    (dict of str to str, tuple of str)
    """
    names, reasons = strings(rec.get("dropped_states")), strings(rec.get("dropped_reasons"))
    return dict(zip(names, reasons)), tuple(strings(rec.get("dropped_outputs")))


def read_units(rec: Mapping[str, Any]) -> dict[str, str]:
    """``name -> unit`` of every signal, parameter and grid axis with a known unit.

    Parameters
    ----------
    rec : mapping
        A record read from a file.

    Returns
    -------
    dict of str to str
    """
    out: dict[str, str] = {}
    for names, unit_key in (("StateName", "StateUnit"), ("InputName", "InputUnit"),
                            ("OutputName", "OutputUnit"), ("param_names", "param_units"),
                            ("axis_names", "axis_units")):
        if unit_key in rec:
            found = strings(rec[unit_key])
            pairs = zip(strings(rec[names]), found) if len(found) else ()
            out.update((n, u) for n, u in pairs if u)
    return out


def parameter_fields(names: Sequence[str], values: np.ndarray, model: Model | None
                     ) -> dict[str, Any]:
    """The parameters: names, values, declared units and ranges.

    Parameters
    ----------
    names : sequence of str
        Parameter names.
    values : ndarray (..., n_params)
        Their values (a leading grid shape is kept).
    model : Model or None
        For the units and the ranges (without it: ``""`` and NaN).

    Returns
    -------
    dict
        ``param_names``, ``param_values``, ``param_units``, ``param_min``, ``param_max``.
    """
    table = units(model) if model is not None else {}
    ranges = param_ranges(model) if model is not None else {}
    nan = (float("nan"), float("nan"))
    return {"param_names": list(names), "param_values": np.asarray(values, dtype=float),
            "param_units": [table.get(n, "") for n in names],
            "param_min": np.array([ranges.get(n, nan)[0] for n in names], dtype=float),
            "param_max": np.array([ranges.get(n, nan)[1] for n in names], dtype=float)}


def _check_model(model: Model, op: OperatingPoint | None, names: dict[str, Sequence[str]]
                 ) -> None:
    if op is not None and tuple(op.state_names) != tuple(model.state_names):
        raise ArgumentError(f"model: the operating point belongs to model {op.model_name!r}, "
                            f"not to {model.name!r}")
    pools = {"state": model.state_names, "input": (*model.input_names, DRIFT),
             "output": model.output_names}
    for what, signals in names.items():
        bad = [n for n in signals if n not in pools[what]]
        if bad:
            raise ArgumentError(f"model: {what} {bad[0]!r} of the linear model is not a "
                                f"{what} of model {model.name!r}")


def _matches(op: OperatingPoint, states: Sequence[str], inputs: Sequence[str]) -> bool:
    return (all(n in op.state_names for n in states)
            and all(n in op.input_names or n == DRIFT for n in inputs))


def operating_fields(op: OperatingPoint, states: Sequence[str], inputs: Sequence[str],
                     outputs: Sequence[str], model: Model | None) -> dict[str, Any]:
    """The values the deviations are taken from: ``x0``, ``u0``, ``y0`` and the full state.

    Parameters
    ----------
    op : OperatingPoint
        The operating point.
    states, inputs, outputs : sequence of str
        The signals of the linear model (``drift``, the input of a drift model, is 1).
    model : Model or None
        To evaluate the outputs at the operating point (``y0`` is written only with it).

    Returns
    -------
    dict
        ``x0`` (kept states, in ``StateName`` order), ``u0``, ``y0`` (with the model),
        ``x0_full`` and ``FullStateName`` (every state of the model, kept or dropped).

    Raises
    ------
    ArgumentError
        A signal of the linear model that is not one of the operating point's model.
    """
    missing = [n for n in states if n not in op.state_names] + [
        n for n in inputs if n not in op.input_names and n != DRIFT]
    if missing:
        raise ArgumentError(f"op: {missing[0]!r}, a signal of the linear model, is not a "
                            f"state or input of the operating point of {op.model_name!r}")
    x = np.asarray(op.x, dtype=float)
    u_full = np.asarray(op.u, dtype=float)
    out = {"x0": np.array([x[op.state_names.index(n)] for n in states]),
           "u0": np.array([1.0 if n == DRIFT else u_full[op.input_names.index(n)]
                           for n in inputs])}
    if model is not None:
        y = np.asarray(model.outputs(0.0, x, u_full, op.params), dtype=float)
        out["y0"] = np.array([y[model.output_names.index(n)] for n in outputs])
    out["x0_full"] = x.copy()
    out["FullStateName"] = list(op.state_names)
    return out


def linear_fields(sys: control.StateSpace, op: OperatingPoint | None, model: Model | None
                  ) -> dict[str, Any]:
    """Every field a state-space record adds to its matrices and names.

    Parameters
    ----------
    sys : control.StateSpace
        The linear model.
    op : OperatingPoint or None
        Its operating point.
    model : Model or None
        The model it was linearised from (units, ranges, output values).

    Returns
    -------
    dict
        Units, dropped states, and with ``op`` or ``model`` the parameters (values of
        ``op``, else the model's defaults) and with ``op`` the operating values (when the
        system's states and inputs are those of ``op``'s model; a point of another model is
        kept in the struct ``op`` only).

    Raises
    ------
    ArgumentError
        ``model`` that is not the model of ``op`` or of the system's signals.
    """
    states, inputs = list(sys.state_labels), list(sys.input_labels)
    outputs = list(sys.output_labels)
    if model is not None:
        _check_model(model, op, {"state": states, "input": inputs, "output": outputs})
    rec: dict[str, Any] = {"model_name": op.model_name if op is not None else
                           model.name if model is not None else ""}
    rec.update(unit_fields(states, inputs, outputs, units(model) if model is not None else {}))
    rec.update(dropped_fields(sys))
    if op is not None:
        if _matches(op, states, inputs):  # else a point of another model: op struct only
            rec.update(operating_fields(op, states, inputs, outputs, model))
        rec.update(parameter_fields(op.param_names, op.param_vector, model))
    elif model is not None:
        rec.update(parameter_fields(model.param_names, model.param_defaults, model))
    return rec


def grid_fields(grid: LPVGrid, model: Model | None) -> dict[str, Any]:
    """Every field an LPV-grid record adds to its stacked matrices: the grid's shape and
    axes with units, success, the operating values and parameters at every point.

    Parameters
    ----------
    grid : LPVGrid
        The grid.
    model : Model or None
        The model (units, ranges, output values ``y0``); without it the grid's own
        ``units``.

    Returns
    -------
    dict
        ``grid_shape``, ``axis_units``, ``success`` (grid shape, 1/0), ``StateUnit`` ...,
        ``dropped_*``, ``x0``, ``u0`` (grid shape + signals, NaN at failed points), ``y0``
        (with the model), ``x0_full``, ``FullStateName``, ``param_*`` (values: grid shape +
        parameters).

    Raises
    ------
    ArgumentError
        ``model`` that is not the grid's model.
    """
    shape = grid.shape
    states, inputs = list(grid.state_names), list(grid.input_names)
    outputs = list(grid.output_names)
    first_op = grid.sweep.points.flat[0]
    if model is not None:
        _check_model(model, first_op, {"state": states, "input": inputs, "output": outputs})
    table = units(model) if model is not None else dict(grid.units)
    first = next(s for s in grid.systems.flat if s is not None)
    success = np.zeros(shape)
    full = len(first_op.state_names)
    stacks = {"x0": (len(states),), "u0": (len(inputs),), "x0_full": (full,),
              "param_values": (len(first_op.param_names),)}
    if model is not None:
        stacks["y0"] = (len(outputs),)
    values = {k: np.full((*shape, *n), np.nan) for k, n in stacks.items()}
    for idx in np.ndindex(*shape):
        op = grid.sweep[idx]
        values["param_values"][idx] = op.param_vector
        if grid.systems[idx] is None:
            continue
        success[idx] = 1.0
        point = operating_fields(op, states, inputs, outputs, model)
        for k in stacks:
            if k != "param_values":
                values[k][idx] = point[k]
    rec: dict[str, Any] = {
        "model_name": first_op.model_name, "grid_shape": np.array(shape, dtype=float),
        "axis_units": [table.get(a, "") for a in grid.axes], "success": success}
    rec.update(unit_fields(states, inputs, outputs, table))
    rec.update(dropped_fields(first))
    rec.update({k: v for k, v in values.items() if k != "param_values"})
    rec["FullStateName"] = list(first_op.state_names)
    params = parameter_fields(first_op.param_names, values["param_values"], model)
    if model is None:
        params["param_units"] = [table.get(n, "") for n in first_op.param_names]
    rec.update(params)
    return rec
