"""Building blocks of the description records: frozen dataclasses whose array-like fields
are stored as nested tuples, their conversion back to plain schema data, and the reading
of schema data (nulls, bulk freezing) for :meth:`~titop_lpv.model.builder.System.from_dict`.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import MISSING, fields
from itertools import chain, islice
from typing import Any, Union

import numpy as np

__all__ = ["Matrix", "Number", "Record", "Vector", "freeze", "freeze_column", "gc_paused",
           "has_null", "make", "plain", "record_defaults", "record_dict",
           "without_nulls"]

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
        Tuples for sequences and arrays (recursively), dicts with frozen values. A tuple of
        leaves is returned as it is (the same object).
    """
    kind = type(value)
    if kind in _LEAVES:
        return value
    if kind is list or kind is tuple:
        if _LEAVES.issuperset(map(type, value)):  # a vector of leaves: the common case
            return value if kind is tuple else tuple(value)
        out = []
        for v in value:
            sub = type(v)
            if sub in _LEAVES:
                out.append(v)
            elif (sub is list or sub is tuple) and _LEAVES.issuperset(map(type, v)):
                out.append(v if sub is tuple else tuple(v))  # a row of a matrix
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
_DEFAULTS: dict[type, tuple[dict[str, Any], tuple[tuple[str, Any], ...]]] = {}


class Record:
    """Frozen dataclass mixin: array-like fields are stored as nested tuples."""

    def __post_init__(self) -> None:
        names = _FIELD_NAMES.get(type(self))
        if names is None:
            names = _FIELD_NAMES[type(self)] = tuple(f.name for f in fields(self))  # type: ignore[arg-type]
        for name in names:
            value = getattr(self, name)
            if type(value) not in _LEAVES:
                frozen = freeze(value)
                if frozen is not value:
                    object.__setattr__(self, name, frozen)


def _known(record_class: type) -> tuple[dict[str, Any], tuple[tuple[str, Any], ...]]:
    """The constant defaults and the default factories of a record class (cached)."""
    known = _DEFAULTS.get(record_class)
    if known is None:
        const, factories = {}, []
        for f in fields(record_class):
            if f.default is not MISSING:
                const[f.name] = f.default
            elif f.default_factory is not MISSING:
                factories.append((f.name, f.default_factory))
        known = _DEFAULTS[record_class] = (const, tuple(factories))
    return known


def record_defaults(record_class: type) -> tuple[type, dict[str, Any]]:
    """The class and its fields' constant defaults, for building many records as
    :func:`make` does (a class whose fields have default factories is refused).

    Parameters
    ----------
    record_class : type
        A record class (a frozen dataclass deriving from :class:`Record`).

    Returns
    -------
    tuple
        ``(record_class, {field: default})``: a record is ``object.__new__(record_class)``
        with ``__dict__`` set to ``{**defaults, **frozen_values}``.

    Raises
    ------
    TypeError
        A field has a default factory.
    """
    const, factories = _known(record_class)
    if factories:
        raise TypeError(f"{record_class.__name__} has fields with default factories")
    return record_class, const


def make(record_class: type, values: dict[str, Any], frozen: bool = False) -> Any:
    """A record of class ``record_class`` from keyword values, as ``record_class(**values)``
    builds it (the same fields, frozen the same way), without the dataclass ``__init__``:
    the fast path of a large model file.

    Parameters
    ----------
    record_class : type
        A record class (a frozen dataclass deriving from :class:`Record`).
    values : dict
        Field values; every field without a default must be present and no other key
        (the caller filtered them).
    frozen : bool, default False
        The values are frozen already (by :func:`freeze_column`).

    Returns
    -------
    Record
        Equal to ``record_class(**values)``.
    """
    const, factories = _DEFAULTS.get(record_class) or _known(record_class)
    if frozen and not factories:  # the common case of a large model: one dict
        obj = object.__new__(record_class)
        object.__setattr__(obj, "__dict__", {**const, **values})
        return obj
    state = dict(const)
    for name, factory in factories:
        if name not in values:
            state[name] = factory()
    if frozen:
        state.update(values)
    else:
        leaves = _LEAVES
        for name, value in values.items():
            state[name] = value if type(value) in leaves else freeze(value)
    obj = object.__new__(record_class)
    object.__setattr__(obj, "__dict__", state)
    return obj


_PLAIN = frozenset((float, int, str, bool))  # leaves other than None
_SEQUENCES = frozenset((list, tuple))


_FLOAT = {float}


def _shared(items: list[tuple[Any, ...]], first: dict[tuple[Any, ...], tuple[Any, ...]]
            ) -> list[tuple[Any, ...]]:
    """``items`` with equal tuples replaced by one of them (one object per distinct vector
    or matrix of floats: a large model's identical coms, inertias and ports cost one tuple,
    and later steps find the identical ones by identity). Only for tuples of floats, whose
    equality is that of their values (0.0 and -0.0 count as equal, as in the compiled
    model's slot vector). ``first`` maps each distinct tuple to its kept copy (updated)."""
    return list(map(first.setdefault, items, items))


def freeze_column(values: list[Any], shared: dict[Any, Any] | None = None
                  ) -> list[Any] | None:
    """:func:`freeze` of every item of a list, in bulk; None when a null (None) is found.

    The items of one field of many records (the com of every body, say): numbers or
    names, vectors of them, or matrices (rows of them), each kind checked and converted
    over the whole list at once.

    Parameters
    ----------
    values : list
        The items.
    shared : dict, optional
        The kept copy of each distinct vector and matrix of floats, updated: pass the same
        dict to the calls that read one column in parts, so that equal values are one
        object across the parts (default: a new dict).

    Returns
    -------
    list or None
        ``[freeze(v) for v in values]`` (equal vectors and matrices of floats as one tuple),
        or None when a None is anywhere in ``values`` (the caller then reads the data item
        by item, naming each null).
    """
    first = {} if shared is None else shared
    kinds = set(map(type, values))
    if kinds <= _PLAIN:
        return values
    if kinds <= _SEQUENCES:
        inner = set(map(type, chain.from_iterable(values)))
        if inner <= _PLAIN:
            frozen = list(map(tuple, values))
            return _shared(frozen, first) if inner == _FLOAT else frozen
        if inner <= _SEQUENCES:
            rows = list(chain.from_iterable(values))
            leaves = set(map(type, chain.from_iterable(rows)))
            if leaves == _FLOAT:  # rows, then matrices, shared
                shared_rows = _shared(list(map(tuple, rows)), first)
                if set(map(len, values)) == {3}:  # 3×3 (or 3×k) matrices: the common case
                    return _shared(list(zip(shared_rows[0::3], shared_rows[1::3],
                                                shared_rows[2::3])), first)
                flat = iter(shared_rows)
                return _shared([tuple(islice(flat, len(v))) for v in values], first)
            if leaves <= _PLAIN:
                return [tuple(map(tuple, v)) for v in values]
    stack = list(values)  # anything else: look for a null, then item by item
    while stack:
        item = stack.pop()
        if item is None:
            return None
        if type(item) is dict:
            stack.extend(item.values())
        elif type(item) is list or type(item) is tuple:
            stack.extend(item)
    return [freeze(v) for v in values]


@contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while a large model is read or compiled.

    Reading a model allocates some ten objects per body, none of them garbage; every
    700 allocations the collector would scan the young ones again (and, more and more
    often as the model grows, all of them). Reference counting still frees what is left;
    the collector is re-enabled (if it was) on exit.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


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


def without_nulls(node: Any, where: Any, problems: list[str]) -> Any:
    """``node`` without the keys whose value is null (JSON ``null``, YAML ``~``), each one
    recorded as a problem; a null inside an array stays (validation names it again).
    ``where`` is the path of ``node``: a string, or a callable giving it (built only when a
    problem is recorded, so that a large model without nulls costs no strings).

    Parameters
    ----------
    node : object
        Schema data: dicts, lists and leaves.
    where : str or callable
        The path of ``node`` in the model (``""`` at the top).
    problems : list of str
        Where the problem lines are appended.

    Returns
    -------
    object
        ``node`` without its null-valued keys.
    """
    if isinstance(node, dict):
        out = {}
        for key, value in node.items():
            if value is None:
                base = where() if callable(where) else where
                problems.append(f"{f'{base}.{key}' if base else str(key)}: null is not a value "
                                "(omit the key for its default)")
            elif isinstance(value, (dict, list)):
                out[key] = without_nulls(value, _path_key(where, key), problems)
            else:
                out[key] = value
        return out
    if isinstance(node, list):
        items = []
        for i, value in enumerate(node):
            if value is None:
                problems.append(f"{_path_item(where, i, value)()}: null is not a value")
                items.append(None)
            elif isinstance(value, (dict, list)):
                items.append(without_nulls(value, _path_item(where, i, value), problems))
            else:
                items.append(value)
        return items
    return node


def has_null(node: Any) -> bool:
    """Whether a null (None) is anywhere in ``node`` (dicts and lists, recursively).

    Parameters
    ----------
    node : dict or list
        Schema data.

    Returns
    -------
    bool
    """
    stack = [node]
    none, containers = type(None), (dict, list)
    while stack:
        item = stack.pop()
        values = item.values() if type(item) is dict else item
        kinds = set(map(type, values))
        if none in kinds:
            return True
        if dict in kinds or list in kinds:
            stack.extend(v for v in values if type(v) in containers)
    return False


def _path_key(where: Any, key: Any) -> Any:
    """The path of ``key`` in the mapping at ``where``, built when called."""
    def path() -> str:
        base = where() if callable(where) else where
        return f"{base}.{key}" if base else str(key)
    return path


def _path_item(where: Any, i: int, value: Any) -> Any:
    """The path of item ``i`` of the list at ``where``, built when called."""
    def path() -> str:
        base = where() if callable(where) else where
        here = f"{base}[{i}]"
        if isinstance(value, dict) and isinstance(value.get("name"), str):
            here += f" ({value['name']!r})"
        return here
    return path
