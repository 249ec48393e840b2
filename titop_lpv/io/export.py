"""Saving and loading linear models: ``.mat`` (MATLAB), ``.npz`` and ``.json``.

A ``control.StateSpace`` is written with its matrices ``A, B, C, D``, its name, its
state / input / output names and units (MATLAB cell arrays in ``.mat``: ``StateName``,
``StateUnit``, ``InputName`` ..., as in MATLAB's ``ss``), the states it left out and why
(``dropped_states``, ``dropped_reasons``), and with its operating point the values the
deviations are taken from (``x0`` of the kept states, ``u0``, ``y0``; the full state
``x0_full``), the parameters with their units and declared ranges, and every field of
:class:`OperatingPoint` (found with ``dataclasses.fields``, so a field added later is
stored too) in the struct ``op``: under its own name, except the state ``x0``, the inputs
``u0`` and the parameters ``param_values`` (in ``param_names`` order); dict fields such as
``spin`` are MATLAB structs, fields that are None are listed in ``none_fields``. An
:class:`LPVGrid` is written as stacked matrices over the grid (``A`` of shape
``grid + (n, n)``, NaN where a point is not an equilibrium), the grid's shape and axes
(names, values, units), the names, the operating values at every point and every operating
point. An uncertain system (:class:`~titop_lpv.robust.uss.USS`) is written as its LFT: the
matrices of ``M``, the Δ structure and every parameter's specification (see
:func:`save_linear`). :func:`load_linear` reads any of them back: matrices exactly (binary
formats; JSON keeps 17 significant digits, which round-trips doubles), names unchanged.
The fields are listed one by one in ``docs/export.md``; the encoding of each format is in
:mod:`~titop_lpv.io.codec`, the added fields in :mod:`~titop_lpv.io.fields`, uncertain
systems in :mod:`~titop_lpv.io.uss_file`.
"""

from __future__ import annotations

import dataclasses
import json
import typing
import zipfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import control
import numpy as np

from ..analysis.linearize import named_statespace
from ..analysis.lpv import LPVGrid
from ..analysis.operating_point import OperatingPoint
from ..analysis.sweep import TrimSweep
from ..exceptions import ArgumentTypeError, ModelFileError, TitopError
from ..model.compiled import Model
from ..robust.uss import USS
from .codec import decode, encode, from_matlab, jsonable, matlab, strings, unjson
from .fields import grid_fields, linear_fields, read_dropped, read_units
from .uss_file import uss_from_record, uss_record

__all__ = ["load_linear", "save_linear"]

_FORMATS = (".mat", ".npz", ".json")


def _ss_record(sys: control.StateSpace, op: OperatingPoint | None, model: Model | None
               ) -> dict[str, Any]:
    rec = {
        "kind": "statespace",
        "name": sys.name,
        "A": np.asarray(sys.A, float), "B": np.asarray(sys.B, float),
        "C": np.asarray(sys.C, float), "D": np.asarray(sys.D, float),
        "StateName": list(sys.state_labels), "InputName": list(sys.input_labels),
        "OutputName": list(sys.output_labels),
        **linear_fields(sys, op, model),
    }
    if op is not None:
        rec["op"] = _op_record(op)
    return rec


# Operating-point fields stored under another name (MATLAB users read ``op.x0``, ``op.u0``)
# or in another form (``params`` as ``param_values`` in ``param_names`` order); every other
# field of OperatingPoint is stored under its own name, so fields added later round-trip too.
_OP_RENAMED = {"x": "x0", "u": "u0"}
_OP_NONE = "none_fields"  # fields whose value is None (a .mat file cannot hold None)


def _op_record(op: OperatingPoint) -> dict[str, Any]:
    """Every field of ``op`` as a record of arrays, strings, name lists and sub-records."""
    rec: dict[str, Any] = {}
    none: list[str] = []
    for field in dataclasses.fields(op):
        value = getattr(op, field.name)
        if value is None:
            none.append(field.name)
        elif field.name == "params":
            rec["param_values"] = np.array([float(value[n]) for n in op.param_names])
        else:
            rec[_OP_RENAMED.get(field.name, field.name)] = encode(value, field.name)
    rec[_OP_NONE] = none
    return rec


def _op_from(rec: dict[str, Any]) -> OperatingPoint:
    """The OperatingPoint back, each field decoded by its annotated type; fields absent from
    the record (a file written before the field existed) take their default."""
    hints = typing.get_type_hints(OperatingPoint)
    none = set(strings(rec.get(_OP_NONE)))
    values: dict[str, Any] = {}
    for field in dataclasses.fields(OperatingPoint):
        name, key = field.name, _OP_RENAMED.get(field.name, field.name)
        if name in none:
            values[name] = None
        elif name == "params":
            names = strings(rec["param_names"])
            vec = np.atleast_1d(np.asarray(rec["param_values"], float)).reshape(-1)
            values[name] = dict(zip(names, vec.tolist()))
        elif key in rec:
            values[name] = decode(rec[key], hints[name], name)
        elif (field.default is dataclasses.MISSING
              and field.default_factory is dataclasses.MISSING):
            raise KeyError(f"operating point field {key!r} is missing")
    return OperatingPoint(**values)


def _grid_record(grid: LPVGrid, model: Model | None) -> dict[str, Any]:
    shape = grid.shape
    n, m, p = len(grid.state_names), len(grid.input_names), len(grid.output_names)
    mats = {k: np.full((*shape, *s), np.nan) for k, s in
            (("A", (n, n)), ("B", (n, m)), ("C", (p, n)), ("D", (p, m)))}
    for idx in np.ndindex(*shape):
        sys = grid.systems[idx]
        if sys is not None:
            for k in mats:
                mats[k][idx] = getattr(sys, k)
    ops = [_op_record(grid.sweep[idx]) for idx in np.ndindex(*shape)]
    return {
        "kind": "lpvgrid", "name": next(s.name for s in grid.systems.flat if s is not None),
        **mats, "StateName": list(grid.state_names), "InputName": list(grid.input_names),
        "OutputName": list(grid.output_names), "axis_names": list(grid.axes),
        "axis_values": [np.asarray(v, float) for v in grid.axes.values()],
        "branch_tol": grid.branch_tol, **grid_fields(grid, model), "points": ops,
    }


def save_linear(obj: control.StateSpace | LPVGrid | USS, path: str | Path,
                op: OperatingPoint | None = None, *, model: Model | None = None) -> Path:
    """Write a linear model, an LPV grid or an uncertain system to ``.mat``, ``.npz`` or
    ``.json``.

    An uncertain system (:class:`~titop_lpv.robust.uss.USS`) is stored as its LFT, as
    MATLAB's ``lftdata`` splits a ``uss``: the matrices of ``M`` (``A, B, C, D``, Δ
    channels first), the Δ structure (``block_names``, ``block_kinds``, ``block_sizes`` =
    rows, cols, repeats) and every parameter (``param_types``: ``ureal`` / ``ucomplex`` /
    ``ultidyn``; ``param_values``: nominal, lo, hi / nominal, radius, 0 / ny, nu, bound),
    the performance signal names and the timebase; :func:`load_linear` rebuilds the same
    USS (same matrices bit for bit in ``.mat`` and ``.npz``, 17 significant digits in
    JSON, which round-trips doubles).

    Parameters
    ----------
    obj : control.StateSpace or LPVGrid or USS
        The model.
    path : str or Path
        The extension chooses the format.
    op : OperatingPoint, optional
        The operating point of a single ``StateSpace``: the values of its states, inputs
        (``x0``, ``u0``) and parameters, the full state, and every field of the point
        (struct ``op``).

    Other Parameters
    ----------------
    model : Model, optional
        The model the system or grid was linearised from: writes the units of every
        signal and parameter (``StateUnit`` ..., ``param_units``), the parameters' declared
        ranges (``param_min``, ``param_max``) and the outputs at the operating point
        (``y0``). Without it a grid's units come from the grid (``LPVGrid.units``), a
        system's are empty and ``y0`` is not written.

    Returns
    -------
    Path

    Raises
    ------
    TitopError
        An unknown extension.
    ArgumentTypeError
        ``obj`` of another type, ``path`` not a path, ``op`` with a USS or not an
        OperatingPoint, ``model`` not a Model or given with a USS.
    ArgumentError
        ``model`` that is not the model of ``op`` or of the system's signals (named).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from scipy.io import loadmat
    >>> import titop_lpv as tl
    >>> s = tl.System("msd", gravity=[0.0, 0.0, 0.0])
    >>> _ = s.parameter("k", 40.0, min=10.0, max=80.0, unit="N/m")
    >>> _ = s.body("cart", tl.Prismatic(axis=[1, 0, 0], stiffness="k", actuated=True),
    ...            mass=2.0)
    >>> model = s.compile()
    >>> op = tl.trim(model, free=["cart_q"])
    >>> sys = tl.linearize(model, op)
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     raw = loadmat(save_linear(sys, pathlib.Path(tmp) / "msd.mat", op, model=model),
    ...                   simplify_cells=True)
    >>> list(raw["StateName"]), list(raw["StateUnit"]), raw["InputUnit"], raw["param_units"]
    (['cart_q', 'cart_qd'], ['m', 'm/s'], 'N', 'N/m')
    >>> raw["param_min"], raw["param_max"], raw["y0"]
    (10.0, 80.0, 0.0)
    """
    if not isinstance(path, (str, Path)):
        raise ArgumentTypeError(f"path must be a str or a pathlib.Path, got "
                                f"{type(path).__name__}")
    if op is not None and not isinstance(op, OperatingPoint):
        raise ArgumentTypeError(f"op must be an OperatingPoint, got {type(op).__name__}")
    if model is not None and not isinstance(model, Model):
        raise ArgumentTypeError(f"model must be a titop_lpv.Model, got {type(model).__name__}")
    path = Path(path)
    fmt = path.suffix.lower()
    if fmt not in _FORMATS:
        raise TitopError(f"{path.name}: unknown format {fmt!r}; use one of {_FORMATS}")
    if isinstance(obj, USS):
        if op is not None or model is not None:
            raise ArgumentTypeError(f"{'op' if op is not None else 'model'}: an uncertain "
                                    "system carries no operating point and no model")
        rec = uss_record(obj)
    elif isinstance(obj, LPVGrid):
        rec = _grid_record(obj, model)
    elif isinstance(obj, control.StateSpace):
        rec = _ss_record(obj, op, model)
    else:
        raise ArgumentTypeError(f"obj: save_linear takes a control.StateSpace, an LPVGrid or "
                                f"a USS, got {type(obj).__name__}")
    if fmt == ".json":
        path.write_text(json.dumps(jsonable(rec), indent=1))
    elif fmt == ".npz":
        np.savez(path, record=np.array(json.dumps(jsonable(rec))), **{k: rec[k] for k in "ABCD"})
    else:
        from scipy.io import savemat

        savemat(path, matlab(rec), do_compression=True, long_field_names=True,
                oned_as="column")  # vectors as columns: x0 + dx, table(names, values)
    return path


def load_linear(path: str | Path) -> control.StateSpace | LPVGrid | USS:
    """Read what :func:`save_linear` wrote.

    Parameters
    ----------
    path : str or Path
        The file :func:`save_linear` wrote (``.mat``, ``.npz`` or ``.json``).

    Returns
    -------
    control.StateSpace or LPVGrid or USS
        A state-space model carries its operating point, when saved, as the attribute
        ``op`` (an :class:`OperatingPoint`), the states and outputs that were left out as
        ``dropped_states`` (name -> reason) and ``dropped_outputs`` (as
        :func:`titop_lpv.linearize` sets them) and the known units as ``units``
        (name -> unit); a grid's units are ``grid.units``.

    Raises
    ------
    ModelFileError
        A file that does not exist, has an unknown extension, was not written by
        :func:`save_linear` or was altered since (truncated, a field missing or of the wrong
        type, NaN or infinite matrices), named.
    ArgumentTypeError
        ``path`` not a path.
    """
    if not isinstance(path, (str, Path)):
        raise ArgumentTypeError(f"path must be a str or a pathlib.Path, got "
                                f"{type(path).__name__}")
    path = Path(path)
    if not path.is_file():
        raise ModelFileError(f"linear model file {str(path)!r} does not exist")
    fmt = path.suffix.lower()
    try:
        if fmt == ".json":
            rec = unjson(json.loads(path.read_text()))
        elif fmt == ".npz":
            with np.load(path, allow_pickle=False) as data:
                rec = unjson(json.loads(str(data["record"])))
                for k in ("A", "B", "C", "D"):
                    rec[k] = data[k]
        elif fmt == ".mat":
            rec = from_matlab(path)
        else:
            raise ModelFileError(f"{path.name}: unknown format {fmt!r}; use one of {_FORMATS}")
        return _build(rec)
    except ModelFileError:
        raise
    except (ValueError, KeyError, TypeError, IndexError, OSError, AttributeError, EOFError,
            zipfile.BadZipFile) as err:  # a truncated .npz, a list where a record was, ...
        raise ModelFileError(f"{path.name}: not a titop_lpv linear model ({err!r})") from None


def _finite(rec: dict[str, Any], mats: dict[str, np.ndarray]) -> None:
    """Refuse a record whose matrices hold NaN or inf (a silently non-finite model)."""
    for key, M in mats.items():
        if not np.all(np.isfinite(M)):
            raise ModelFileError(f"the matrix {key} of {str(rec.get('name'))!r} holds NaN or "
                                 "infinite entries")


def _build(rec: dict[str, Any]) -> control.StateSpace | LPVGrid | USS:
    if not isinstance(rec, dict):
        raise ModelFileError(f"the record is a {type(rec).__name__}, not a table")
    kind = str(rec.get("kind"))
    if kind == "uss":
        return uss_from_record(rec, strings)
    states = strings(rec["StateName"])
    inputs = strings(rec["InputName"])
    outputs = strings(rec["OutputName"])
    n, m, p = len(states), len(inputs), len(outputs)

    def mat(key: str, shape: tuple[int, ...]) -> np.ndarray:
        return np.asarray(rec[key], dtype=float).reshape(shape)

    if kind == "statespace":
        mats = {"A": mat("A", (n, n)), "B": mat("B", (n, m)), "C": mat("C", (p, n)),
                "D": mat("D", (p, m))}
        _finite(rec, mats)
        sys = named_statespace(*mats.values(), states=states, inputs=inputs,
                               outputs=outputs, name=str(rec["name"]))
        if "op" in rec:
            sys.op = _op_from(rec["op"])
        sys.dropped_states, sys.dropped_outputs = read_dropped(rec)
        sys.units = read_units(rec)
        return sys
    if kind != "lpvgrid":
        raise ModelFileError(f"unknown record kind {kind!r}")
    names = strings(rec["axis_names"])
    values = rec["axis_values"]
    if len(names) == 1 and not isinstance(values, list):
        values = [values]
    axes = {k: np.atleast_1d(np.asarray(v, float)) for k, v in zip(names, values)}
    shape = tuple(a.size for a in axes.values())
    A, B = mat("A", (*shape, n, n)), mat("B", (*shape, n, m))
    C, D = mat("C", (*shape, p, n)), mat("D", (*shape, p, m))
    points = rec["points"]
    points = points if isinstance(points, list) else list(np.asarray(points).ravel())
    ops = np.empty(shape, dtype=object)
    systems = np.empty(shape, dtype=object)
    dropped, dropped_outputs = read_dropped(rec)
    for k, idx in enumerate(np.ndindex(*shape)):
        ops[idx] = _op_from(points[k])
        if not np.isnan(A[idx]).any():  # a NaN A: a point where the trim failed
            _finite(rec, {"A": A[idx], "B": B[idx], "C": C[idx], "D": D[idx]})
            systems[idx] = named_statespace(A[idx], B[idx], C[idx], D[idx], states=states,
                                            inputs=inputs, outputs=outputs,
                                            name=str(rec["name"]))
            systems[idx].dropped_states = dict(dropped)
            systems[idx].dropped_outputs = dropped_outputs
    tol = rec["branch_tol"]
    tol = ({str(k): float(np.asarray(v).item()) for k, v in tol.items()}
           if isinstance(tol, Mapping) else float(np.asarray(tol).item()))
    return LPVGrid(TrimSweep(axes, ops, read_units(rec)), systems, tuple(states),
                   tuple(inputs), tuple(outputs), branch_tol=tol)
