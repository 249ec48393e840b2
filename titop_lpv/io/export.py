"""Saving and loading linear models: ``.mat`` (MATLAB), ``.npz`` and ``.json``.

A ``control.StateSpace`` is written with its matrices ``A, B, C, D``, its name and its
state / input / output names (MATLAB cell arrays in ``.mat``: ``StateName``,
``InputName``, ``OutputName``, as in MATLAB's ``ss``), and optionally the operating point
it was linearised at: every field of :class:`OperatingPoint` (found with
``dataclasses.fields``, so a field added later is stored too) under its own name, except
the state ``x0``, the inputs ``u0`` and the parameters ``param_values`` (in ``param_names``
order); dict fields such as ``spin`` are MATLAB structs, fields that are None are listed in
``none_fields``. An :class:`LPVGrid`
is written as stacked matrices over the grid (``A`` of shape ``grid + (n, n)``, NaN where
a point is not an equilibrium), the grid axes, the names and every operating point. An
uncertain system (:class:`~titop_lpv.robust.uss.USS`) is written as its LFT: the matrices
of ``M``, the Δ structure and every parameter's specification (see :func:`save_linear`).
:func:`load_linear` reads any of them back: matrices exactly (binary formats; JSON keeps
17 significant digits, which round-trips doubles), names unchanged.
"""

from __future__ import annotations

import dataclasses
import json
import types
import typing
from pathlib import Path
from typing import Any

import control
import numpy as np

from ..analysis.linearize import named_statespace
from ..analysis.lpv import LPVGrid
from ..analysis.operating_point import OperatingPoint
from ..analysis.sweep import TrimSweep
from ..exceptions import ArgumentTypeError, ModelFileError, TitopError
from ..robust.abcd import ABCD
from ..robust.atoms import UComplex, ULTIDyn, UReal
from ..robust.blocks import Block, DeltaStructure
from ..robust.uss import USS

__all__ = ["load_linear", "save_linear"]

_FORMATS = (".mat", ".npz", ".json")


def _ss_record(sys: control.StateSpace) -> dict[str, Any]:
    return {
        "kind": "statespace",
        "name": sys.name,
        "A": np.asarray(sys.A, float), "B": np.asarray(sys.B, float),
        "C": np.asarray(sys.C, float), "D": np.asarray(sys.D, float),
        "StateName": list(sys.state_labels), "InputName": list(sys.input_labels),
        "OutputName": list(sys.output_labels),
    }


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
            rec[_OP_RENAMED.get(field.name, field.name)] = _encode(value, field.name)
    rec[_OP_NONE] = none
    return rec


def _encode(value: Any, where: str) -> Any:
    """A field value in a form that .mat, .npz/JSON and JSON all store."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, float, str, np.integer, np.floating)):
        return value.item() if isinstance(value, np.generic) else value
    if isinstance(value, np.ndarray):
        return np.asarray(value, dtype=float)
    if isinstance(value, (tuple, list)):
        if all(isinstance(v, str) for v in value):
            return list(value)
        return np.asarray(value, dtype=float)
    if isinstance(value, dict):
        return {str(k): _encode(v, f"{where}.{k}") for k, v in value.items()}
    raise TypeError(f"operating point field {where!r}: cannot store a "
                    f"{type(value).__name__}")


def _op_from(rec: dict[str, Any]) -> OperatingPoint:
    """The OperatingPoint back, each field decoded by its annotated type; fields absent from
    the record (a file written before the field existed) take their default."""
    hints = typing.get_type_hints(OperatingPoint)
    none = set(_strings(rec.get(_OP_NONE)))
    values: dict[str, Any] = {}
    for field in dataclasses.fields(OperatingPoint):
        name, key = field.name, _OP_RENAMED.get(field.name, field.name)
        if name in none:
            values[name] = None
        elif name == "params":
            names = _strings(rec["param_names"])
            vec = np.atleast_1d(np.asarray(rec["param_values"], float)).reshape(-1)
            values[name] = dict(zip(names, vec.tolist()))
        elif key in rec:
            values[name] = _decode(rec[key], hints[name], name)
        elif (field.default is dataclasses.MISSING
              and field.default_factory is dataclasses.MISSING):
            raise KeyError(f"operating point field {key!r} is missing")
    return OperatingPoint(**values)


def _decode(value: Any, hint: Any, where: str) -> Any:
    """``value`` read from a file, converted to the annotated type ``hint``."""
    args = [a for a in typing.get_args(hint) if a is not type(None)]
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        hint = args[0] if len(args) == 1 else Any
        args = list(typing.get_args(hint))
    origin = typing.get_origin(hint) or hint
    if origin is tuple:
        if args and args[0] is str:
            return tuple(_strings(value))
        return tuple(np.atleast_1d(np.asarray(value, float)).reshape(-1).tolist())
    if origin is np.ndarray:
        return np.atleast_1d(np.asarray(value, float)).reshape(-1)
    if origin is str:
        flat = np.asarray(value).ravel()
        return value if isinstance(value, str) else str(flat[0]) if flat.size else ""
    if origin in (bool, int, float):
        return origin(np.asarray(value).ravel()[0].item())
    if origin is dict or hint is Any:
        if not isinstance(value, dict):
            raise TypeError(f"operating point field {where!r}: expected a record")
        return {k: _plain(v) for k, v in value.items()}
    raise TypeError(f"operating point field {where!r}: cannot read a {hint!r}")


def _plain(value: Any) -> Any:
    """A value inside a dict field as Python/numpy: scalars unwrapped, vectors as arrays."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, str):
        return value
    arr = np.asarray(value)
    if arr.dtype.kind in "USO":
        return str(arr.item()) if arr.ndim == 0 else _strings(arr)
    if arr.ndim == 0:
        return arr.item()
    return arr.astype(float).reshape(-1) if arr.dtype.kind in "biuf" else arr


def _strings(value: Any) -> list[str]:
    """Names back from a list, a numpy array of str or a MATLAB cell array."""
    if value is None:
        return []
    arr = np.asarray(value, dtype=object).ravel()
    out = []
    for v in arr:
        while isinstance(v, np.ndarray):  # MATLAB cells come back as nested arrays
            v = v.ravel()[0] if v.size else ""
        out.append(str(v))
    return [s for s in out if s != ""] if len(out) == 1 and out[0] == "" else out


def _grid_record(grid: LPVGrid) -> dict[str, Any]:
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
        "branch_tol": grid.branch_tol, "points": ops,
    }


def save_linear(obj: control.StateSpace | LPVGrid | USS, path: str | Path,
                op: OperatingPoint | None = None) -> Path:
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
        The operating point of a single ``StateSpace`` (stored as ``x0``, ``u0``, ...).

    Returns
    -------
    Path

    Raises
    ------
    TitopError
        An unknown extension.
    ArgumentTypeError
        ``obj`` of another type, ``path`` not a path, ``op`` with a USS or not an
        OperatingPoint.
    """
    if not isinstance(path, (str, Path)):
        raise ArgumentTypeError(f"path must be a str or a pathlib.Path, got "
                                f"{type(path).__name__}")
    if op is not None and not isinstance(op, OperatingPoint):
        raise ArgumentTypeError(f"op must be an OperatingPoint, got {type(op).__name__}")
    path = Path(path)
    fmt = path.suffix.lower()
    if fmt not in _FORMATS:
        raise TitopError(f"{path.name}: unknown format {fmt!r}; use one of {_FORMATS}")
    if isinstance(obj, USS):
        if op is not None:
            raise ArgumentTypeError("op: an uncertain system carries no operating point")
        rec = _uss_record(obj)
    elif isinstance(obj, LPVGrid):
        rec = _grid_record(obj)
    elif isinstance(obj, control.StateSpace):
        rec = _ss_record(obj)
        if op is not None:
            rec["op"] = _op_record(op)
    else:
        raise ArgumentTypeError(f"obj: save_linear takes a control.StateSpace, an LPVGrid or "
                                f"a USS, got {type(obj).__name__}")
    if fmt == ".json":
        path.write_text(json.dumps(_jsonable(rec), indent=1))
    elif fmt == ".npz":
        np.savez(path, record=np.array(json.dumps(_jsonable(rec))), **_arrays(rec))
    else:
        from scipy.io import savemat

        savemat(path, _matlab(rec), do_compression=True, long_field_names=True)
    return path


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, np.ndarray):
        return {"__ndarray__": [None if not np.isfinite(v) else float(v) for v in value.ravel()]
                if value.dtype.kind == "f" else value.ravel().tolist(),
                "shape": list(value.shape)}
    if isinstance(value, (np.floating, np.integer, np.bool_)):
        return value.item()
    return value


def _unjson(value: Any) -> Any:
    if isinstance(value, dict):
        if "__ndarray__" in value:
            data = [np.nan if v is None else v for v in value["__ndarray__"]]
            return np.asarray(data, dtype=float).reshape(value["shape"])
        return {k: _unjson(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_unjson(v) for v in value]
    return value


def _arrays(rec: dict[str, Any]) -> dict[str, np.ndarray]:
    """The matrices as npz members too (bit-exact, readable without json)."""
    return {k: rec[k] for k in ("A", "B", "C", "D")}


def _matlab(rec: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in rec.items():
        if k in ("StateName", "InputName", "OutputName", "axis_names", "block_names",
                 "block_kinds", "param_types"):
            cell = np.empty((len(v), 1), dtype=object)
            cell[:, 0] = v
            out[k] = cell
        elif k == "points":
            out[k] = np.array([_matlab(p) for p in v], dtype=object)
        elif k == "op":
            out[k] = _matlab(v)
        elif isinstance(v, list) and v and isinstance(v[0], str):
            cell = np.empty((len(v), 1), dtype=object)
            cell[:, 0] = v
            out[k] = cell
        elif isinstance(v, list) and not v:
            out[k] = np.empty((0, 1), dtype=object)
        elif isinstance(v, list):
            cell = np.empty((len(v), 1), dtype=object)
            for i, item in enumerate(v):
                cell[i, 0] = item
            out[k] = cell
        else:
            out[k] = v
    return out


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
        ``op`` (an :class:`OperatingPoint`).
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
            rec = _unjson(json.loads(path.read_text()))
        elif fmt == ".npz":
            with np.load(path, allow_pickle=False) as data:
                rec = _unjson(json.loads(str(data["record"])))
                for k in ("A", "B", "C", "D"):
                    rec[k] = data[k]
        elif fmt == ".mat":
            rec = _from_matlab(path)
        else:
            raise ModelFileError(f"{path.name}: unknown format {fmt!r}; use one of {_FORMATS}")
        return _build(rec)
    except ModelFileError:
        raise
    except (ValueError, KeyError, TypeError, IndexError, OSError) as err:
        raise ModelFileError(f"{path.name}: not a titop_lpv linear model ({err!r})") from None


def _from_matlab(path: Path) -> dict[str, Any]:
    from scipy.io import loadmat

    raw = loadmat(path, squeeze_me=False, simplify_cells=True)
    return {k: v for k, v in raw.items() if not k.startswith("__")}


def _build(rec: dict[str, Any]) -> control.StateSpace | LPVGrid | USS:
    kind = str(rec.get("kind"))
    if kind == "uss":
        return _uss_from_record(rec, _strings)
    states = _strings(rec["StateName"])
    inputs = _strings(rec["InputName"])
    outputs = _strings(rec["OutputName"])
    n, m, p = len(states), len(inputs), len(outputs)

    def mat(key: str, shape: tuple[int, ...]) -> np.ndarray:
        return np.asarray(rec[key], dtype=float).reshape(shape)

    if kind == "statespace":
        sys = named_statespace(mat("A", (n, n)), mat("B", (n, m)), mat("C", (p, n)),
                               mat("D", (p, m)), states=states, inputs=inputs,
                               outputs=outputs, name=str(rec["name"]))
        if "op" in rec:
            sys.op = _op_from(rec["op"])
        return sys
    if kind != "lpvgrid":
        raise ModelFileError(f"unknown record kind {kind!r}")
    names = _strings(rec["axis_names"])
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
    for k, idx in enumerate(np.ndindex(*shape)):
        ops[idx] = _op_from(points[k])
        systems[idx] = (None if np.isnan(A[idx]).any() else
                        named_statespace(A[idx], B[idx], C[idx], D[idx], states=states,
                                         inputs=inputs, outputs=outputs,
                                         name=str(rec["name"])))
    return LPVGrid(TrimSweep(axes, ops), systems, tuple(states), tuple(inputs), tuple(outputs),
                   branch_tol=float(np.asarray(rec["branch_tol"]).item()))


# ---------------------------------------------------------------- uncertain systems
# The LFT matrices M (Δ channels first), the Δ structure (name, kind, rows, cols, repeats
# per block), every parameter (ureal: nominal, lo, hi; ucomplex: nominal, radius;
# ultidyn: ny, nu, bound), the signal names and the timebase. Data only: the USS is rebuilt
# by its checked constructor, so an inconsistent file is refused.


def _dt_record(dt: Any) -> tuple[str, float]:
    if dt is None:
        return "static", 0.0
    if dt is True:
        return "discrete", 0.0
    return ("continuous", 0.0) if dt == 0 else ("sampled", float(dt))


def _uss_record(G: USS) -> dict[str, Any]:
    """The record of an uncertain system (arrays, strings, lists of strings).

    Parameters
    ----------
    G : USS
        The uncertain system.

    Returns
    -------
    dict
        Keys ``kind = "uss"``, ``name``, ``A, B, C, D`` (of ``M``), ``StateName``,
        ``InputName``, ``OutputName`` (performance signals), ``dt_kind``, ``dt``,
        ``block_names``, ``block_kinds``, ``block_sizes`` (rows, cols, repeats per block),
        ``param_types`` and ``param_values`` (nominal, lo, hi / nominal, radius, 0 /
        ny, nu, bound per parameter, in block order).
    """
    S = G.abcd
    types, values = [], []
    for b in G.delta:
        a = G.params[b.name]
        if isinstance(a, UReal):
            types.append("ureal")
            values.append([a.nominal, a.lo, a.hi])
        elif isinstance(a, UComplex):
            types.append("ucomplex")
            values.append([a.nominal, a.radius, 0.0])
        else:
            types.append("ultidyn")
            values.append([float(a.shape[0]), float(a.shape[1]), a.bound])
    dt_kind, dt = _dt_record(G.dt)
    nb = len(G.delta)
    return {
        "kind": "uss", "name": G.name or "",
        "A": np.asarray(S.A, float), "B": np.asarray(S.B, float),
        "C": np.asarray(S.C, float), "D": np.asarray(S.D, float),
        "StateName": list(G.state_labels), "InputName": list(G.input_labels),
        "OutputName": list(G.output_labels), "dt_kind": dt_kind, "dt": dt,
        "block_names": [b.name for b in G.delta], "block_kinds": [b.kind for b in G.delta],
        "block_sizes": np.array([[b.rows, b.cols, b.repeats] for b in G.delta],
                                dtype=float).reshape(nb, 3),
        "param_types": types,
        "param_values": np.array(values, dtype=float).reshape(nb, 3),
    }


def _uss_from_record(rec: dict[str, Any], strings: Any) -> USS:
    """The uncertain system of a record written by :func:`_uss_record`.

    Parameters
    ----------
    rec : dict
        The record, as read from the file.
    strings : callable
        Reads a list of names back (from a list, an array or a MATLAB cell array).

    Returns
    -------
    USS

    Raises
    ------
    ModelFileError
        An inconsistent record (unknown block kind or parameter type, sizes that do not
        match ``M``).
    """
    names, kinds = strings(rec["block_names"]), strings(rec["block_kinds"])
    types = strings(rec["param_types"])
    nb = len(names)
    if len(kinds) != nb or len(types) != nb:
        raise ModelFileError(f"uss record: {nb} block names, {len(kinds)} kinds and "
                             f"{len(types)} parameter types")
    sizes = np.asarray(rec["block_sizes"], float).reshape(nb, 3)
    values = np.asarray(rec["param_values"], float).reshape(nb, 3)
    blocks, params = [], []
    for name, kind, size, typ, v in zip(names, kinds, sizes, types, values):
        blocks.append(Block(name, kind, *(int(x) for x in size)))
        if typ == "ureal":
            params.append(UReal(name, v[0], v[1], v[2]))
        elif typ == "ucomplex":
            params.append(UComplex(name, v[0], v[1]))
        elif typ == "ultidyn":
            params.append(ULTIDyn(name, (int(v[0]), int(v[1])), v[2]))
        else:
            raise ModelFileError(f"uss record: unknown parameter type {typ!r}")
    delta = DeltaStructure(tuple(blocks))
    states, inputs = strings(rec["StateName"]), strings(rec["InputName"])
    outputs = strings(rec["OutputName"])
    n, m, p = len(states), len(inputs) + delta.nw, len(outputs) + delta.nz

    def mat(key: str, shape: tuple[int, int]) -> np.ndarray:
        return np.asarray(rec[key], dtype=float).reshape(shape)

    S = ABCD(mat("A", (n, n)), mat("B", (n, m)), mat("C", (p, n)), mat("D", (p, m)))
    dt_kind = str(np.asarray(rec["dt_kind"]).ravel()[0]) if not isinstance(
        rec["dt_kind"], str) else rec["dt_kind"]
    dt_value = float(np.asarray(rec["dt"], float).ravel()[0])
    dt = {"static": None, "discrete": True, "continuous": 0}.get(dt_kind, dt_value)
    if dt_kind not in ("static", "discrete", "continuous", "sampled"):
        raise ModelFileError(f"uss record: unknown timebase kind {dt_kind!r}")
    label = strings(rec.get("name"))
    M = S.D if n == 0 and dt is None else control.ss(*S, dt)
    G = USS(M, delta, params, inputs=inputs, outputs=outputs, states=states)
    # the name as saved (None stays None, not python-control's default "sys[k]")
    return USS._new(G.abcd, G.dt, G.delta, list(G.params.values()), G.input_labels,
                    G.output_labels, G.state_labels, label[0] if label else None)

