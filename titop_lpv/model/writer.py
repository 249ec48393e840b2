"""Writing model files: TOML, JSON and (when PyYAML is installed) YAML.

:func:`save_model` validates what it is given (a :class:`~titop_lpv.model.compiled.Model`,
a :class:`~titop_lpv.model.builder.System` or a schema dict), takes the description the
model was compiled from (``Model.to_dict()``: every key of the schema the user wrote,
defaults omitted) and writes it so that :func:`~titop_lpv.model.files.load_model` reads
back the same model. The writers are generic over the schema's value types (numbers,
strings, booleans, arrays, tables, arrays of tables), so a new schema key passes through
untouched. Floats are written with ``repr``: they round-trip exactly.

The standard library reads TOML (``tomllib``) but does not write it; :func:`to_toml` is a
small emitter for the value types a model holds.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

from ..exceptions import ArgumentTypeError, ModelFileError
from .builder import System
from .compiled import Model

__all__ = ["FORMATS", "save_model", "to_json", "to_toml", "to_yaml"]

FORMATS = {".toml": "TOML", ".json": "JSON", ".yaml": "YAML", ".yml": "YAML"}
_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")
_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f",
            "\r": "\\r"}


def _key(key: Any, where: str) -> str:
    if not isinstance(key, str):
        raise ModelFileError(f"{where}: key {key!r} is not a string")
    return key if _BARE_KEY.fullmatch(key) else _string(key)


def _string(text: str) -> str:
    out = []
    for ch in text:
        if ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\u{ord(ch):04X}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def _float(x: float) -> str:
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return repr(x)  # the shortest text that round-trips: '0.1', '1e-05', '1.5e+300'



def _value(v: Any, where: str) -> str:
    """A TOML value on one line (arrays and inline tables for nested data)."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return _float(v)
    if isinstance(v, str):
        return _string(v)
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_value(x, f"{where}[{i}]") for i, x in enumerate(v)) + "]"
    if isinstance(v, dict):
        items = ", ".join(f"{_key(k, where)} = {_value(x, f'{where}.{k}')}"
                          for k, x in v.items())
        return "{ " + items + " }" if items else "{}"
    if v is None:
        raise ModelFileError(f"{where}: TOML has no null (omit the key for its default)")
    if hasattr(v, "item") and callable(v.item):  # a numpy scalar
        return _value(v.item(), where)
    raise ModelFileError(f"{where}: cannot write a {type(v).__name__} to a model file")


def _is_table_array(v: Any) -> bool:
    return isinstance(v, (list, tuple)) and len(v) > 0 and all(isinstance(x, dict) for x in v)


def _top(lines: list[str], table: dict[str, Any]) -> None:
    """Top-level key/value lines, then the ``[tables]`` and ``[[arrays of tables]]``."""
    nested = []
    for k, v in table.items():
        if isinstance(v, dict) or _is_table_array(v):
            nested.append((k, v))
        else:
            lines.append(f"{_key(k, str(k))} = {_value(v, str(k))}")
    for k, v in nested:
        where = str(k)
        header = _key(k, where)
        if isinstance(v, dict):
            lines += ["", f"[{header}]"]
            _inline_table(lines, v, where)
        else:
            for i, item in enumerate(v):
                lines += ["", f"[[{header}]]"]
                _inline_table(lines, item, f"{where}[{i}]")


def _inline_table(lines: list[str], table: dict[str, Any], where: str) -> None:
    """The entries of a (sub-)table, nested data written inline."""
    for k, v in table.items():
        lines.append(f"{_key(k, where)} = {_value(v, f'{where}.{k}')}")


def to_toml(data: dict[str, Any]) -> str:
    """A schema dict as TOML text that ``tomllib`` reads back to the same dict.

    Top-level tables (``parameters``) become ``[sections]``, top-level lists of tables
    (``bodies``, ``loads`` ...) become ``[[arrays of tables]]``; anything nested below is
    written inline (``joint = { type = "revolute", axis = [0, 0, 1] }``). Floats are written
    with ``repr`` (exact round trip, ``inf`` and ``nan`` included), strings as basic strings
    with their escapes.

    Parameters
    ----------
    data : dict
        Keys are strings; values are numbers, booleans, strings, lists and dicts.

    Returns
    -------
    str

    Raises
    ------
    ModelFileError
        A ``None`` (TOML has no null), a non-string key or a value of another type,
        naming where it is.

    Examples
    --------
    >>> print(to_toml({"name": "arm", "gravity": [0.0, 0.0, -9.81],
    ...                "parameters": {"L": {"value": 0.5, "unit": "m"}},
    ...                "bodies": [{"name": "link", "joint": {"type": "revolute"}}]}))
    name = "arm"
    gravity = [0.0, 0.0, -9.81]
    <BLANKLINE>
    [parameters]
    L = { value = 0.5, unit = "m" }
    <BLANKLINE>
    [[bodies]]
    name = "link"
    joint = { type = "revolute" }
    <BLANKLINE>
    """
    if not isinstance(data, dict):
        raise ModelFileError(f"a model file holds a table, not a {type(data).__name__}")
    lines: list[str] = []
    _top(lines, data)
    return "\n".join(lines) + "\n"


def _check_finite(v: Any, where: str) -> None:
    if isinstance(v, float) and not math.isfinite(v):
        raise ModelFileError(f"{where}: {v!r} cannot be written to JSON (use a .toml file)")
    if isinstance(v, dict):
        for k, x in v.items():
            _check_finite(x, f"{where}.{k}" if where else str(k))
    elif isinstance(v, (list, tuple)):
        for i, x in enumerate(v):
            _check_finite(x, f"{where}[{i}]")


def to_json(data: dict[str, Any]) -> str:
    """A schema dict as standard JSON text (floats with ``repr``: exact round trip).

    Parameters
    ----------
    data : dict
        The schema dict.

    Returns
    -------
    str

    Raises
    ------
    ModelFileError
        An infinite or NaN number (standard JSON has none; TOML does), naming where.
    """
    _check_finite(data, "")
    try:
        return json.dumps(data, indent=2, allow_nan=False) + "\n"
    except TypeError as err:
        raise ModelFileError(f"cannot write the model to JSON: {err}") from None


def to_yaml(data: dict[str, Any]) -> str:
    """A schema dict as YAML text (needs PyYAML).

    Parameters
    ----------
    data : dict
        The schema dict.

    Returns
    -------
    str

    Raises
    ------
    ModelFileError
        PyYAML is not installed.
    """
    try:
        import yaml
    except ImportError:  # pragma: no cover - depends on the environment
        raise ModelFileError("writing YAML needs PyYAML (pip install pyyaml); "
                             "or write a .toml or .json file") from None
    return yaml.safe_dump(data, sort_keys=False, default_flow_style=None, width=100)


def save_model(source: Model | System | dict[str, Any], path: str | Path) -> Path:
    """Write a model to a TOML, JSON or YAML file (by suffix) that loads back to it.

    ``load_model(path)`` then gives a model with the same name, bodies, states, inputs,
    outputs, parameters (values, ranges, units, descriptions) and dynamics, evaluation for
    evaluation (the numbers are written exactly). A URDF-imported model is written as the
    plain model it was translated into (its URDF joint-name aliases are not part of the
    schema).

    Parameters
    ----------
    source : Model, System or dict
        The model; a :class:`~titop_lpv.model.builder.System` or a schema dict is validated
        (compiled) first, so that only a valid model is written.
    path : str or Path
        The file to write: ``.toml``, ``.json``, ``.yaml`` or ``.yml`` (YAML needs PyYAML);
        an existing file is replaced.

    Returns
    -------
    Path
        The file written.

    Raises
    ------
    ModelFileError
        An unknown suffix, a missing directory, a file that cannot be written, a value the
        format cannot hold (an infinite number in JSON), or YAML without PyYAML.
    ModelError
        ``source`` is not a valid model (every problem, naming the body and field).
    ArgumentTypeError
        ``path`` is not a str or a Path.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> import numpy as np
    >>> import titop_lpv as tl
    >>> from titop_lpv.model.writer import save_model
    >>> model = tl.load_model("examples/balloon.toml")
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     back = tl.load_model(save_model(model, pathlib.Path(tmp) / "balloon.toml"))
    >>> back.state_names == model.state_names, back == model
    (True, True)
    """
    if not isinstance(path, (str, Path)):  # Path(None) raised a raw TypeError
        raise ArgumentTypeError(f"path must be a str or a pathlib.Path, got "
                                f"{type(path).__name__}")
    out = Path(path)
    kind = FORMATS.get(out.suffix.lower())
    if kind is None:
        raise ModelFileError(f"{out.name}: unknown model file type {out.suffix or '(none)'!r} "
                             f"(use {', '.join(FORMATS)})")
    if not isinstance(source, Model):
        source = (source if isinstance(source, System) else System.from_dict(source)).compile()
    data = source.to_dict()
    text = {"TOML": to_toml, "JSON": to_json, "YAML": to_yaml}[kind](data)
    if not out.parent.is_dir():
        raise ModelFileError(f"{out}: directory {str(out.parent)!r} does not exist")
    try:
        out.write_text(text, encoding="utf-8")
    except OSError as err:
        raise ModelFileError(f"{out}: cannot be written ({err.strerror or err})") from None
    return out
