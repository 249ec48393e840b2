"""The common call of :func:`titop_lpv.analysis.linearize.jacobians`, at the cost of the
compiled kernel: ``[A B]`` and ``ẋ`` of an :func:`~.derivatives_kernel.eligible` model.

On a chain of 10 links the kernel (:mod:`~titop_lpv.multibody.derivatives_sweep`) took less
than half of the general route's 33 µs: the rest went to converting and checking the
arguments, looking the parameters up in the model's physics cache, numba's type dispatch
and assembling the result. :class:`JacobianCall` serves the common call directly, about
4 µs above the kernel's own 12 µs (``benchmarks/bench_jacobians.py``):

1. it accepts only what needs no conversion: ``x`` a C-contiguous, aligned, writable
   ``float64`` ndarray of shape ``(n_states,)``; ``u`` None or the same of shape
   ``(n_inputs,)``; ``params`` None, an empty dict, a ``float64`` vector of shape
   ``(n_params,)`` or a dict of floats. Anything else returns None, and the caller takes the
   general route (which converts, checks and raises the typed errors);
2. the kernel's model arguments of each distinct parameter vector are built once, by the
   general route's own code (:meth:`Tree.physics`, which checks the values, and the memo of
   :mod:`~.derivatives_kernel`), and kept in a small cache keyed by the vector's bytes; a
   vector the checks refuse returns None (the general route raises its error, after its
   checks of ``x`` and ``u``), and is never cached;
3. the kernel runs through its compiled entry point (no type dispatch) and checks that
   ``x``, ``u``, ``J`` and ``ẋ`` are finite: any other status returns None, and the general
   route evaluates again and raises its error, naming the state, input or column at fault.

The result is the same compiled call on the same arguments: bit-identical to the general
route's ``A``, ``B`` and ``ẋ``.
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np

from ..exceptions import TitopError
from . import derivatives_kernel
from .tree import Tree

__all__ = ["CACHE_SIZE", "JacobianCall"]

CACHE_SIZE = 8  # distinct parameter vectors whose kernel arguments are kept
_F64 = np.dtype(np.float64)


class JacobianCall:
    """The fast route of ``jacobians(model, x, u, params, outputs=False)`` (module doc).

    One per model (kept by the model's memo); thread-safe: its cache is a dict guarded by a
    lock, and the kernel reads its model arguments only. The call itself is :attr:`route`, a
    closure (its constants are cell variables, cheaper to reach than attributes).

    Parameters
    ----------
    model : Tree
        The compiled model it serves (not kept: every call passes it).

    Attributes
    ----------
    route : callable
        ``route(model, x, u, params) -> (J, ẋ) or None``: ``J = [A B]`` (n_states,
        n_states + n_inputs) and ``ẋ`` (n_states,), fresh arrays, or None when the general
        route must serve the call (see the module doc).
    entries : dict
        The cache: bytes of a parameter vector -> (entry point, kernel arguments).
    empty : tuple of ndarray
        ``C`` (0, n_states), ``D`` (0, n_inputs) and ``y0`` (0,) of a result without
        outputs: read-only, shared by every result (an empty array holds nothing to write).
    """

    __slots__ = ("_defaults", "_eligible", "_lock", "_pindex", "empty", "entries", "route")

    def __init__(self, model: Tree):
        self._pindex = {name: k for k, name in enumerate(model.param_names)}
        self._defaults = np.array(model.param_defaults, dtype=float)
        self._lock = threading.Lock()
        self._eligible = derivatives_kernel.eligible(model)
        self.entries: dict[bytes, tuple[Any, tuple[Any, ...]]] = {}
        entries = self.entries
        n_x, n_u = model.n_states, model.n_inputs
        self.empty = (np.zeros((0, n_x)), np.zeros((0, n_u)), np.zeros(0))
        for a in self.empty:
            a.flags.writeable = False
        shape_x, shape_u, shape_p = (n_x,), (n_u,), (len(model.param_names),)
        shape_j = (n_x, n_x + n_u)
        zero_u = np.zeros(n_u)  # u = None; the kernel reads inputs only
        no_dtau = np.zeros((4, 1, 1))
        default: list[Any] = [None]
        ndarray, f64, zeros = np.ndarray, _F64, np.zeros

        def route(model: Tree, x: Any, u: Any, params: Any
                  ) -> tuple[np.ndarray, np.ndarray] | None:
            if type(x) is not ndarray or x.dtype is not f64 or x.shape != shape_x \
                    or not x.flags.carray:
                return None
            if u is None:
                u = zero_u
            elif (type(u) is not ndarray or u.dtype is not f64 or u.shape != shape_u
                  or not u.flags.carray):
                return None
            if params is None or (type(params) is dict and not params):
                entry = default[0]
                if entry is None:
                    entry = default[0] = self._build(model, None)
            else:
                if type(params) is dict:
                    params = self._vector(params)
                if type(params) is not ndarray or params.dtype is not f64 \
                        or params.shape != shape_p:
                    return None
                key = params.tobytes()
                entry = entries.get(key)
                if entry is None:
                    entry = self._build(model, params)
                    if entry is not None:
                        self._store(key, entry)
            if entry is None:
                return None
            J, xdot = zeros(shape_j), zeros(shape_x)
            if entry[0](*entry[1], x, u, xdot, J, xdot, no_dtau, 0) != 0:
                return None  # the general route evaluates again and raises the error
            return J, xdot

        self.route = route

    def _vector(self, params: dict[str, Any]) -> np.ndarray | None:
        """A dict of parameter values as a vector when every key is a parameter and every
        value a float, else None (the general route reads it and raises its errors)."""
        pv = self._defaults.copy()
        pindex = self._pindex
        for name, value in params.items():
            k = pindex.get(name)
            if k is None or (type(value) is not float and type(value) is not np.float64):
                return None
            pv[k] = value
        return pv

    def _build(self, model: Tree, params: np.ndarray | None
               ) -> tuple[Any, tuple[Any, ...]] | None:
        """Entry point and model arguments for ``params``, or None: a model that is not
        :func:`~.derivatives_kernel.eligible`, a kernel not ready yet, or parameter values
        that :meth:`Tree.physics` refuses (the general route raises that error)."""
        if not self._eligible:
            return None
        try:
            return derivatives_kernel.entry_point(model, model.physics(params))
        except TitopError:
            return None

    def _store(self, key: bytes, entry: tuple[Any, tuple[Any, ...]]) -> None:
        with self._lock:
            if len(self.entries) >= CACHE_SIZE:
                self.entries.pop(next(iter(self.entries)))
            self.entries[key] = entry
