"""Building blocks of the description records: frozen dataclasses whose array-like fields
are stored as nested tuples, and their conversion back to plain schema data.
"""

from __future__ import annotations

from dataclasses import MISSING, fields
from typing import Any, Union

import numpy as np

__all__ = ["Matrix", "Number", "Record", "Vector", "freeze", "plain", "record_dict"]

Number = Union[float, str]  # noqa: UP007  a number or a parameter name
Vector = tuple[Number, ...]
Matrix = tuple[tuple[Number, ...], ...]

_LEAVES = frozenset((float, int, str, bool, type(None)))  # kept as given by freeze


def freeze(value: Any) -> Any:
    """Turn array-likes into nested tuples; keep numbers, strings and other leaves as given.

    Parameters
    ----------
    value : object
        A number, string, array, nested sequence or mapping.

    Returns
    -------
    object
        Tuples for sequences and arrays (recursively), dicts with frozen values.
    """
    kind = type(value)
    if kind in _LEAVES:
        return value
    if kind is list or kind is tuple:
        leaves = _LEAVES
        out = []
        for v in value:
            sub = type(v)
            if sub in leaves:
                out.append(v)
            elif sub is list or sub is tuple:
                out.append(tuple([e if type(e) in leaves else freeze(e) for e in v]))
            else:
                out.append(freeze(v))
        return tuple(out)
    if isinstance(value, np.ndarray):
        value = value.tolist()
    if isinstance(value, (list, tuple)):
        return tuple(freeze(v) for v in value)
    if isinstance(value, dict):
        return {k: freeze(v) for k, v in value.items()}
    if isinstance(value, np.generic):
        return value.item()
    return value


_FIELD_NAMES: dict[type, tuple[str, ...]] = {}  # dataclass fields of each record class


class Record:
    """Frozen dataclass mixin: array-like fields are stored as nested tuples."""

    def __post_init__(self) -> None:
        names = _FIELD_NAMES.get(type(self))
        if names is None:
            names = _FIELD_NAMES[type(self)] = tuple(f.name for f in fields(self))  # type: ignore[arg-type]
        for name in names:
            value = getattr(self, name)
            if type(value) not in _LEAVES:
                object.__setattr__(self, name, freeze(value))


def record_dict(obj: Any, skip: tuple[str, ...] = ()) -> dict[str, Any]:
    """Fields of a record that differ from their defaults, as plain Python data.

    Parameters
    ----------
    obj : Record
        A description record (a frozen dataclass).
    skip : tuple of str
        Fields left out.

    Returns
    -------
    dict
        ``field -> value`` (lists for tuples), without ``None`` and default values.
    """
    out: dict[str, Any] = {}
    for f in fields(obj):
        if f.name in skip:
            continue
        value = getattr(obj, f.name)
        if value is None or (f.default is not MISSING and value == f.default):
            continue
        out[f.name] = plain(value)
    return out


def plain(value: Any) -> Any:
    """Nested tuples back to lists (schema data).

    Parameters
    ----------
    value : object
        A frozen leaf, tuple or dict.

    Returns
    -------
    object
        The same data with lists in place of tuples.
    """
    if isinstance(value, tuple):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    return value
