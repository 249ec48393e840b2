"""The one-state call of :meth:`titop_lpv.Model.dynamics`, at the cost of the compiled kernel.

An ODE solver, a trim loop or a user's own integrator calls ``model.dynamics(t, x, u,
params)`` with one state at a time, most often with the same parameters. The general route
(:func:`titop_lpv.multibody.dynamics.forward_dynamics`) converts and checks every argument,
looks the parameters up in the model's physics cache, and dispatches the numba kernel on the
types of its forty-odd arguments: on the balloon of the paper, about 15 µs per call.
:class:`SingleCall` serves that common call directly, in about 5.9 µs (1.7× Pinocchio's
``aba`` called from Python; ``benchmarks/bench_dynamics.py``):

1. it accepts only what needs no conversion: ``x`` a C-contiguous, aligned, writable
   ``float64`` ndarray of shape ``(n_states,)``; ``u`` None or the same of shape
   ``(n_inputs,)``; ``params`` None, an empty dict, a ``float64`` vector of shape
   ``(n_params,)`` or a dict of floats. Anything else returns None, and the caller takes the
   general route (which converts, checks and raises the typed errors);
2. the kernel arguments of each distinct parameter vector are built once, by the general
   route's own code (:meth:`Tree.physics`, which checks the values, and the model's
   kernel-argument memo), and kept with the kernel's compiled entry point in a small cache
   keyed by the vector's bytes; a vector the checks refuse raises there, and is never
   cached;
3. the kernel runs through a compiled entry point, without numba's type dispatch. For a
   model of fewer than :data:`WORK_ARRAYS_BODIES` bodies, the model's 41 arguments travel
   packed in one numba structure and the work arrays are the calling thread's own
   (:mod:`titop_lpv.multibody.kernel_pack`): numba unboxes 5 objects instead of 44 arrays
   (about 1.7 µs less on the balloon) and allocates nothing (0.8 µs less). For a larger
   model, the variant of the kernel that takes its per-body work arrays from the caller,
   with the calling thread's kept arrays (:func:`titop_lpv.multibody.kernel.workspace`: no
   fresh memory to fault in on every call, which doubled the cost of a call above 10⁴
   bodies). Where neither is compiled or cached yet, the variant that allocates them. A
   status other than success (a NaN or infinite derivative, a joint with zero apparent
   inertia) returns None, and the general route evaluates again and raises its error,
   naming the state or body at fault.

The result is the same compiled recursion on the same arguments: bit-identical to the
general route.
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np

from ..multibody import kernel, kernel_pack, kernel_ready
from ..multibody.tree import Tree

__all__ = ["CACHE_SIZE", "WORK_ARRAYS_BODIES", "SingleCall", "kernel_entry_point"]

CACHE_SIZE = 8  # distinct parameter vectors whose kernel arguments are kept
WORK_ARRAYS_BODIES = 1000  # from this size on, the kernel runs on the thread's kept arrays
_F64 = np.dtype(np.float64)
_OK = -1  # status of a kernel run that succeeded
_PACKED = -1  # third item of an entry: the packed route (kernel_pack)


def kernel_entry_point(args: tuple[Any, ...]) -> Any:
    """The compiled entry point of the forward-dynamics kernel for these argument types.

    Parameters
    ----------
    args : tuple
        Every positional argument of the kernel (states, inputs, the model's kernel data,
        the output array), as a call would pass them.

    Returns
    -------
    callable or None
        The entry point of the specialisation compiled for the types of ``args`` (numba's
        ``CompileResult.entry_point``: it unboxes the arguments and runs the machine code,
        without type dispatch); None while the kernel or that specialisation is not compiled
        yet, or when numba does not expose it.
    """
    dispatcher = getattr(kernel, "_forward_kernel", None)  # a numba dispatcher once compiled
    overloads = getattr(dispatcher, "overloads", None)
    typeof = getattr(dispatcher, "typeof_pyval", None)
    if overloads is None or typeof is None:
        return None
    key = _type_key(args)
    if key is not None and (id(dispatcher), key) in _ENTRY_POINTS:
        return _ENTRY_POINTS[id(dispatcher), key]
    try:  # numba's typeof costs ~70 µs per array: 3 ms for the 43 arguments
        result = overloads.get(tuple(typeof(a) for a in args))
    except Exception:  # numba internals changed: the general route serves every call
        return None
    entry_point = getattr(result, "entry_point", None)
    if entry_point is not None and key is not None:
        _ENTRY_POINTS[id(dispatcher), key] = entry_point
    return entry_point


_ENTRY_POINTS: dict[tuple[int, tuple[Any, ...]], Any] = {}  # (dispatcher, type key) -> entry
_SCALARS = (bool, int, float, np.float64, np.int64, np.bool_)


def _type_key(args: tuple[Any, ...]) -> tuple[Any, ...] | None:
    """What numba's type of each argument depends on, cheaply: for an array its dtype,
    dimensions, layout (C, F or any), and read-only and aligned flags; for a scalar its
    Python type (an ``int`` within int64). None for anything else (then numba types it)."""
    key: list[Any] = []
    for a in args:
        t = type(a)
        if t is np.ndarray:
            f = a.flags
            key.append((a.dtype.str, a.ndim, f.c_contiguous, f.f_contiguous, f.writeable,
                        f.aligned))
        elif t in _SCALARS and (t is not int or -(2**63) <= a < 2**63):
            key.append(t)
        else:
            return None
    return tuple(key)


class SingleCall:
    """The fast route of a one-state :meth:`~titop_lpv.Model.dynamics` call (module doc).

    One per model, built with the model's caches (not pickled); thread-safe: its cache is a
    dict guarded by a lock, the kernel reads its arguments only, and each thread runs the
    packed route on work arrays of its own (a ``threading.local``). The call itself is
    :attr:`route`, a closure (its constants are cell variables, cheaper to reach than
    attributes).

    Parameters
    ----------
    model : Tree
        The compiled model it serves (not kept: every call passes it).

    Attributes
    ----------
    route : callable
        ``route(model, x, u, params) -> ndarray (n_states,) or None``: ``ẋ`` for one state,
        or None when the general route must serve the call (see the module doc). Raises
        ``ParameterError``, ``UnknownNameError`` or ``ShapeError`` for parameter values or
        names that the model's checks refuse (by :meth:`Tree.physics`, the first time a
        parameter vector is seen).
    by_items : dict
        The dicts of parameters seen: their ``tuple(params.items())`` -> (the types of their
        values, their entry in :attr:`entries`); at most :data:`CACHE_SIZE`.
    entries : dict
        The cache: bytes of a parameter vector -> (entry point, kernel arguments, number of
        bodies of the work arrays the entry point takes, or 0 when it allocates them), or
        (entry point of :func:`~titop_lpv.multibody.kernel_pack.forward_one`, the packed
        arguments, ``-1``). :data:`WORK_ARRAYS_BODIES` is read when the model is built.
    """

    __slots__ = ("_defaults", "_local", "_lock", "_n_bodies", "_pindex", "_work_bodies",
                 "by_items", "entries", "route")

    def __init__(self, model: Tree):
        self._pindex = {name: k for k, name in enumerate(model.param_names)}
        self._defaults = np.array(model.param_defaults, dtype=float)
        self._lock = threading.Lock()
        self.entries: dict[bytes, tuple[Any, Any, int]] = {}
        self.by_items: dict[tuple[Any, ...], tuple[tuple[type, ...], Any]] = {}
        entries, by_items = self.entries, self.by_items
        shape_x, shape_u = (model.n_states,), (model.n_inputs,)
        shape_p = (len(model.param_names),)
        out_shape = (1, model.n_states)
        zero_u = np.zeros(model.n_inputs)  # u = None; the kernel reads inputs only
        default: list[Any] = [None]
        local = self._local = threading.local()
        ndarray, f64, zeros, workspace = np.ndarray, _F64, np.zeros, kernel.workspace
        self._n_bodies = len(model.body_names)
        self._work_bodies = self._n_bodies if self._n_bodies >= WORK_ARRAYS_BODIES else 0

        def route(model: Tree, x: Any, u: Any, params: Any) -> np.ndarray | None:
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
                    entry = default[0] = self._build(model, None, x, u)
            else:
                if type(params) is dict:  # python-control passes the same dict every call
                    items = tuple(params.items())
                    try:
                        found = by_items.get(items)
                    except TypeError:  # an unhashable value: the general route's checks
                        found = None
                    if found is not None and found[0] == tuple(map(type, params.values())):
                        entry = found[1]
                    else:
                        entry = self._from_dict(model, params, items, x, u)
                else:
                    if type(params) is not ndarray or params.dtype is not f64 \
                            or params.shape != shape_p:
                        return None
                    key = params.tobytes()
                    entry = entries.get(key)
                    if entry is None:
                        entry = self._build(model, params, x, u)
                        if entry is not None:
                            self._store(key, entry)
            if entry is None:
                return None
            if entry[2] < 0:  # packed arguments, this thread's work arrays (kernel_pack)
                work = getattr(local, "work", None)
                if work is None:
                    work = local.work = self._new_work()
                xdot = zeros(shape_x)
                if entry[0](x, u, entry[1], work, xdot) != _OK:
                    return None  # the general route evaluates again and raises the error
                return xdot
            xdot = zeros(out_shape)
            if entry[2]:  # the kernel on this thread's kept work arrays
                status = entry[0](x[None], u[None], *entry[1], xdot,
                                  *workspace(entry[2], f64))
            else:
                status = entry[0](x[None], u[None], *entry[1], xdot)
            if status != _OK:
                return None
            return xdot[0]

        self.route = route

    def _from_dict(self, model: Tree, params: dict[str, Any], items: tuple[Any, ...],
                   x: np.ndarray, u: np.ndarray) -> tuple[Any, Any, int] | None:
        """The entry of a parameter dict seen for the first time (or evicted): by its vector
        (:meth:`_vector`, which checks names and values), kept under the dict's items and
        the types of its values (a later dict of equal items and types is the same vector)."""
        vector = self._vector(model, params)
        if type(vector) is not np.ndarray or vector.dtype is not _F64 \
                or vector.shape != self._defaults.shape:
            return None  # complex or batched values: the general route
        key = vector.tobytes()
        entry = self.entries.get(key)
        if entry is None:
            entry = self._build(model, vector, x, u)
            if entry is None:
                return None
            self._store(key, entry)
        try:
            hash(items)
        except TypeError:
            return entry
        with self._lock:
            if len(self.by_items) >= CACHE_SIZE:
                self.by_items.pop(next(iter(self.by_items)))
            self.by_items[items] = (tuple(map(type, params.values())), entry)
        return entry

    def _vector(self, model: Tree, params: dict[str, Any]) -> np.ndarray:
        """A dict of parameter values as a vector: by name when every key is a parameter and
        every value a float (what python-control passes), else by :meth:`Tree.param_vector`
        (which checks names and values and raises the typed errors)."""
        pv = self._defaults.copy()
        pindex = self._pindex
        for name, value in params.items():
            k = pindex.get(name)
            if k is None or (type(value) is not float and type(value) is not np.float64):
                return model.param_vector(params)
            pv[k] = value
        return pv

    def _build(self, model: Tree, params: Any, x: np.ndarray, u: np.ndarray
               ) -> tuple[Any, Any, int] | None:
        """Entry point and kernel arguments for ``params`` (checked by :meth:`Tree.physics`),
        or None while the kernel is not compiled for them: for a model of fewer than
        :data:`WORK_ARRAYS_BODIES` bodies, the arguments packed in one structure
        (:mod:`titop_lpv.multibody.kernel_pack`, when compiled or in numba's disk cache,
        or compiled now under the policy ``"wait"``); for a large model, the variant on kept
        work arrays when it is compiled or cached; else the allocating variant."""
        ph = model.physics(params)
        data = model.memo("kernel", ph, lambda: kernel.kernel_data(model, ph))
        args = tuple(data.args)
        if not kernel_ready.use_kernel(self._n_bodies, _F64, lambda: args):
            return None  # the numpy route serves while the kernel compiles (kernel_ready)
        X, U = x.reshape(1, -1), u.reshape(1, -1)
        entry_point = kernel_entry_point((X, U, *args, np.zeros(X.shape)))
        if entry_point is None:
            return None
        n = self._work_bodies
        if n:
            work = kernel.work_entry_point((X, U, *args, np.zeros(X.shape),
                                            *kernel.workspace(n, _F64)))
            if work is not None:
                return work, args, n
            return entry_point, args, 0
        if kernel_pack.matches(args, data.signature) and kernel_pack.load_cached(
                kernel_ready.policy() == "wait"):
            packed = kernel_pack.pack(args)
            if packed is not None:
                return packed[1], packed[0], _PACKED
        return entry_point, args, 0

    def _new_work(self) -> Any:
        """This thread's work arrays of the packed route (kept in :attr:`_local`)."""
        return kernel_pack.work(self._n_bodies)

    def _store(self, key: bytes, entry: tuple[Any, Any, int]) -> None:
        with self._lock:
            if len(self.entries) >= CACHE_SIZE:
                self.entries.pop(next(iter(self.entries)))
            self.entries[key] = entry
