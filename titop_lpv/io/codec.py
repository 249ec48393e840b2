"""How records of arrays, strings, name lists and sub-records are written to the three file
formats and read back: JSON (arrays as ``{"__ndarray__", "shape"}``, NaN as null), MATLAB
(name lists as cell arrays, sub-records as structs) and the values of dataclass fields
(encoded for a file, decoded by their annotated type)."""

from __future__ import annotations

import types
import typing
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["decode", "encode", "from_matlab", "jsonable", "matlab", "plain", "strings",
           "unjson"]


def encode(value: Any, where: str) -> Any:
    """A field value in a form that ``.mat``, ``.npz`` and JSON all store.

    Parameters
    ----------
    value : object
        A bool, number, string, array, tuple or list (of strings or numbers) or dict of them.
    where : str
        The field's name, for the error message.

    Returns
    -------
    object
        Python scalars, float arrays, lists of str, dicts of them.

    Raises
    ------
    TypeError
        A value of another type.
    """
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
        return {str(k): encode(v, f"{where}.{k}") for k, v in value.items()}
    raise TypeError(f"operating point field {where!r}: cannot store a "
                    f"{type(value).__name__}")


def decode(value: Any, hint: Any, where: str) -> Any:
    """``value`` read from a file, converted to the annotated type ``hint``.

    Parameters
    ----------
    value : object
        As read from the file.
    hint : type
        The field's annotation (``tuple[str, ...]``, ``np.ndarray``, ``float``, ``dict`` ...;
        ``X | None`` reads as ``X``).
    where : str
        The field's name, for the error message.

    Returns
    -------
    object

    Raises
    ------
    TypeError
        A record expected and not found, or an annotation this reader does not know.
    """
    args = [a for a in typing.get_args(hint) if a is not type(None)]
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        hint = args[0] if len(args) == 1 else Any
        args = list(typing.get_args(hint))
    origin = typing.get_origin(hint) or hint
    if origin is tuple:
        if args and args[0] is str:
            return tuple(strings(value))
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
        return {k: plain(v) for k, v in value.items()}
    raise TypeError(f"operating point field {where!r}: cannot read a {hint!r}")


def plain(value: Any) -> Any:
    """A value inside a dict field as Python/numpy: scalars unwrapped, vectors as arrays.

    Parameters
    ----------
    value : object
        As read from the file.

    Returns
    -------
    object
    """
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, str):
        return value
    arr = np.asarray(value)
    if arr.dtype.kind in "USO":
        return str(arr.item()) if arr.ndim == 0 else strings(arr)
    if arr.ndim == 0:
        return arr.item()
    return arr.astype(float).reshape(-1) if arr.dtype.kind in "biuf" else arr


def strings(value: Any) -> list[str]:
    """Names back from a list, a numpy array of str or a MATLAB cell array.

    Parameters
    ----------
    value : object
        As read from the file (None: no names).

    Returns
    -------
    list of str
    """
    if value is None:
        return []
    arr = np.asarray(value, dtype=object).ravel()
    out = []
    for v in arr:
        while isinstance(v, np.ndarray):  # MATLAB cells come back as nested arrays
            v = v.ravel()[0] if v.size else ""
        out.append(str(v))
    return [s for s in out if s != ""] if len(out) == 1 and out[0] == "" else out


def jsonable(value: Any) -> Any:
    """A record as JSON-ready data: arrays as ``{"__ndarray__": [...], "shape": [...]}``
    (non-finite entries as null), numpy scalars as Python ones.

    Parameters
    ----------
    value : object
        A record (dicts, lists, arrays, scalars, strings).

    Returns
    -------
    object
    """
    if isinstance(value, dict):
        return {k: jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, np.ndarray):
        return {"__ndarray__": [None if not np.isfinite(v) else float(v) for v in value.ravel()]
                if value.dtype.kind == "f" else value.ravel().tolist(),
                "shape": list(value.shape)}
    if isinstance(value, (np.floating, np.integer, np.bool_)):
        return value.item()
    return value


def unjson(value: Any) -> Any:
    """The record back from :func:`jsonable`'s form (null entries of arrays as NaN).

    Parameters
    ----------
    value : object
        As ``json.loads`` returns it.

    Returns
    -------
    object
    """
    if isinstance(value, dict):
        if "__ndarray__" in value:
            data = [np.nan if v is None else v for v in value["__ndarray__"]]
            return np.asarray(data, dtype=float).reshape(value["shape"])
        return {k: unjson(v) for k, v in value.items()}
    if isinstance(value, list):
        return [unjson(v) for v in value]
    return value


def _cell(items: list[Any]) -> np.ndarray:
    cell = np.empty((len(items), 1), dtype=object)
    for i, item in enumerate(items):
        cell[i, 0] = item
    return cell


def matlab(rec: dict[str, Any]) -> dict[str, Any]:
    """A record as ``scipy.io.savemat`` writes it for MATLAB: every list a column cell array
    (names: cell arrays of char, as MATLAB's ``ss`` takes them), ``points`` a struct array,
    every dict a struct.

    Parameters
    ----------
    rec : dict
        The record.

    Returns
    -------
    dict
    """
    out: dict[str, Any] = {}
    for k, v in rec.items():
        if k == "points":
            out[k] = np.array([matlab(p) for p in v], dtype=object)
        elif isinstance(v, dict):
            out[k] = matlab(v)
        elif isinstance(v, list):
            out[k] = _cell(v) if v else np.empty((0, 1), dtype=object)
        else:
            out[k] = v
    return out


def from_matlab(path: Path) -> dict[str, Any]:
    """The record of a ``.mat`` file (``scipy.io.loadmat``, cells simplified).

    Parameters
    ----------
    path : Path
        The file.

    Returns
    -------
    dict
    """
    from scipy.io import loadmat

    raw = loadmat(path, squeeze_me=False, simplify_cells=True)
    return {k: v for k, v in raw.items() if not k.startswith("__")}
