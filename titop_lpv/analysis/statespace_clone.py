"""Named ``control.StateSpace`` objects at a fraction of the constructor's cost.

python-control's ``StateSpace(A, B, C, D, name=..., states=..., inputs=..., outputs=...)``
spends about 35 µs (python-control 0.10.2) on argument processing: matrix conversion, the
keyword and signal-name parsing of its ``InputOutputSystem`` bases, the time base. A
linearisation (or a sweep of them) builds many systems with the same signal names, so
:func:`clone_statespace` builds the first one of each set of names with the constructor (the
*template*) and every later one as a copy of it: a new object of the same class whose
attribute dictionary is the template's, with

- its own copies of the matrices (``float`` arrays, as the constructor's ``_ssmatrix``
  makes them) and of the mutable attributes (the signal-index dictionaries and the
  parameter dictionaries);
- its own update and output functions: the constructor's two closures rebuilt, with the same
  code, around the new object (they read ``self.A`` ... of the system they belong to).

The result equals what the constructor returns attribute for attribute
(``tests/test_statespace_clone.py`` compares them). A template is used only when the
constructor left exactly the attributes listed in :data:`ATTRIBUTES` (the python-control
0.10 layout) and the matrices unchanged in shape (no state removed, no empty-matrix
reshaping): otherwise, and for a ``python-control`` configuration other than the
template's (``control.default_dt``, ``statesp.remove_useless_states``), the constructor
serves every call.
"""

from __future__ import annotations

import threading
import types
from collections.abc import Sequence
from operator import itemgetter
from typing import Any

import control
import numpy as np

__all__ = ["ATTRIBUTES", "TEMPLATES", "clone_statespace"]

# the attributes a StateSpace built by the constructor has (python-control 0.10)
ATTRIBUTES = frozenset({"A", "B", "C", "D", "name", "ninputs", "input_index", "noutputs",
                        "output_index", "nstates", "state_index", "dt", "_repr_format",
                        "params", "updfcn", "outfcn", "_current_params"})
_DICTS = ("input_index", "output_index", "state_index", "params", "_current_params")
_CONFIG_KEYS = ("control.default_dt", "statesp.remove_useless_states")
_GET = itemgetter(*_CONFIG_KEYS)
_FUNCTION = types.FunctionType
TEMPLATES = 64  # sets of signal names whose template is kept
_LOCK = threading.Lock()
_CACHE: dict[tuple[Any, ...], tuple[Any, dict[str, Any]] | None] = {}


def _config() -> tuple[Any, ...]:
    """The python-control settings that the constructor reads (0.10.2)."""
    defaults = control.config.defaults
    try:  # its plain dict when it has one (a UserDict's item access is Python code)
        return _GET(getattr(defaults, "data", defaults))
    except KeyError:
        return ()


def _closure_code(fn: Any, owner: Any) -> Any:
    """The code of a constructor closure over ``self`` only (that cell holding ``owner``),
    or None."""
    code = getattr(fn, "__code__", None)
    cells = getattr(fn, "__closure__", None)
    if code is None or code.co_freevars != ("self",) or not cells or len(cells) != 1:
        return None
    return code if cells[0].cell_contents is owner else None


def _template(A: np.ndarray, B: np.ndarray, C: np.ndarray, D: np.ndarray, names: dict[str, Any],
              name: str) -> tuple[Any, dict[str, Any]] | None:
    """A system built by the constructor and its attributes, or None when it cannot serve as
    a template (see the module doc)."""
    sys = control.StateSpace(A, B, C, D, name=name, **names)
    if control.config.defaults.get("statesp.remove_useless_states", True):
        return None  # the states kept would depend on the matrices: the constructor decides
    attrs = dict(vars(sys))
    if set(attrs) != ATTRIBUTES or type(sys) is not control.StateSpace:
        return None
    if any(attrs[k].shape != M.shape for k, M in zip("ABCD", (A, B, C, D))):
        return None  # the constructor reshaped or removed something: not a plain copy
    if _closure_code(attrs["updfcn"], sys) is None or _closure_code(attrs["outfcn"], sys) is None:
        return None
    if not all(type(attrs[k]) is dict for k in _DICTS):
        return None
    return sys, attrs


def clone_statespace(A: np.ndarray, B: np.ndarray, C: np.ndarray, D: np.ndarray, *,
                     states: Sequence[str], inputs: Sequence[str], outputs: Sequence[str],
                     name: str, copy: bool = True) -> Any:
    """``control.StateSpace(A, B, C, D, name=name, states=..., inputs=..., outputs=...)``,
    built as a copy of a cached template of the same names (module doc).

    Parameters
    ----------
    A, B, C, D : ndarray of float
        ``(n_x, n_x)``, ``(n_x, n_u)``, ``(n_y, n_x)``, ``(n_y, n_u)`` with ``n_x``,
        ``n_u``, ``n_y >= 1`` (the caller checks the shapes against the names).
    states, inputs, outputs : sequence of str
        Signal names.
    name : str
        System name.
    copy : bool, default True
        Copy the matrices, as the constructor does; False: the system keeps the arrays
        given (the caller hands them over: no one else may write to them).

    Returns
    -------
    control.StateSpace or None
        None when no template serves these names (the caller calls the constructor).
    """
    key = (name, tuple(states), tuple(inputs), tuple(outputs), _config())
    hit = _CACHE.get(key)
    if hit is None:
        if key in _CACHE:  # known: no template for these names
            return None
        hit = _template(A, B, C, D, {"states": list(states), "inputs": list(inputs),
                                     "outputs": list(outputs)}, name)
        with _LOCK:
            if len(_CACHE) >= TEMPLATES:
                _CACHE.pop(next(iter(_CACHE)))
            _CACHE[key] = hit
        if hit is None:
            return None
    template, attrs = hit
    cls = type(template)
    sys = cls.__new__(cls)
    if copy:
        A, B = np.array(A, dtype=float), np.array(B, dtype=float)
        C, D = np.array(C, dtype=float), np.array(D, dtype=float)
    cell = (types.CellType(sys),)
    upd, out = attrs["updfcn"], attrs["outfcn"]
    sys.__dict__.update(
        attrs, A=A, B=B, C=C, D=D, input_index=attrs["input_index"].copy(),
        output_index=attrs["output_index"].copy(), state_index=attrs["state_index"].copy(),
        params=attrs["params"].copy(), _current_params=attrs["_current_params"].copy(),
        updfcn=_FUNCTION(upd.__code__, upd.__globals__, upd.__name__, upd.__defaults__, cell),
        outfcn=_FUNCTION(out.__code__, out.__globals__, out.__name__, out.__defaults__, cell))
    return sys
