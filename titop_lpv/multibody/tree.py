"""The compiled kinematic tree: index arrays, constants and parameter resolution.

A :class:`Tree` is what every multibody algorithm reads (docs/design.md §2): parent
indices, joint kinds, state/input index maps, and one flat *slot* vector holding every
numeric leaf of the description (masses, inertias, vectors, axes, rotations, stiffnesses,
initial conditions, gravity, loads), each slot a constant or the value of a parameter.
Evaluating with other parameter values is one gather (:meth:`Tree.slot_values`), and
parameters may carry leading batch axes or complex perturbations. :meth:`Tree.physics`
resolves the slots into the physical data of one evaluation (:class:`Physics`).

Like Pinocchio's ``Model``, a tree is immutable and keeps no evaluation state, so one tree
is shared by threads, processes and Dask workers. Its only mutable parts are two caches
(resolved physics per parameter vector, compiled-kernel arguments), guarded by a lock so
that concurrent evaluations are safe (docs/design.md §1).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

import numpy as np

from ..exceptions import ShapeError, UnknownNameError
from ..names import index as name_index
from ..spatial.quaternion import normalize
from .joints import NV, SPHERICAL, UNIVERSAL, is_one_dof
from .param_checks import check_parameter_values
from .params import numeric_array, parameter_vector, resolve_physics
from .tables import (
    LoadTable,
    LoopTable,
    OutputSpec,
    Physics,
    PointTable,
    SlotIndex,
    WrenchInputTable,
    joint_input_columns,
    readonly,
)

__all__ = ["Tree", "numeric_array"]

T = TypeVar("T")
PHYSICS_CACHE_SIZE = 8  # unbatched parameter vectors whose resolved physics are kept


class Tree:
    """Compiled kinematic tree: names, index maps and constants; immutable, thread-safe.

    Built by the model compiler (:class:`titop_lpv.Model` is a tree with evaluation methods).

    Parameters
    ----------
    name : str
        Model name.
    euler : str
        Euler sequence of the floating base (e.g. ``"321"``).
    body_names : tuple of str
        Bodies, parents before children.
    param_names : tuple of str
        Parameters, in parameter-vector order.
    state_names, input_names, output_names : tuple of str
        Signal names (docs/design.md §4).
    parent : sequence of int
        Parent body index, ``-1`` for a body attached to the world.
    kind : sequence of int
        Joint kind per body (:mod:`titop_lpv.multibody.joints`).
    q_index, qd_index : sequence of int
        State index of each joint's position and rate (``-1`` without a d.o.f.).
    tau_column : sequence of int
        Input column of each actuated one-d.o.f. joint's force/torque (``-1`` if not
        actuated); the columns of multi-d.o.f. joint torques (``<body>_tau_x`` …,
        ``<body>_tau1`` …) are found from :attr:`input_names` and the wrench inputs' columns
        recomputed (:func:`~titop_lpv.multibody.tables.joint_input_columns`).
    qdd_column : sequence of int, optional
        Input column of each driven joint's acceleration ``b_qdd`` (``-1`` if not driven).
    attitude : {"euler", "quaternion"}
        Attitude states of the floating base: Euler angles (12 base states) or a unit
        quaternion ``b_qw … b_qz`` (13).
    base_index : int
        State index of the floating base's first state ``vx`` (``-1`` for a fixed base).
    slots : SlotIndex
        Slot indices of the bodies' and joints' data.
    loads : LoadTable
        Constant loads.
    loops : LoopTable
        Loop-closure spring-dampers.
    wrench_inputs : WrenchInputTable
        Declared wrench inputs.
    output_specs : tuple of OutputSpec
        Declared sensors.
    points : dict or PointTable
        ``(body, point) -> slot indices (3,)`` of every named point (``origin``, ``com``,
        ports), body frame.
    slot_const : array_like (n_slots,)
        Constant slot values (0 where a slot holds a parameter).
    slot_param : array_like (n_slots,)
        Parameter index of each slot, ``-1`` for a constant.
    param_defaults : array_like (n_params,)
        Default parameter values.
    param_bounds : array_like (n_params, 2)
        Declared ``[min, max]`` of each parameter (``±inf`` when not declared).
    units : dict or callable
        Unit of every state, input and output name, or a function of the tree returning
        them (called on the first use of :attr:`unit_table`).
    """

    def __init__(self, *, name: str, euler: str, body_names: tuple[str, ...],
                 param_names: tuple[str, ...], state_names: tuple[str, ...],
                 input_names: tuple[str, ...], output_names: tuple[str, ...],
                 parent: Any, kind: Any, q_index: Any, qd_index: Any, tau_column: Any,
                 base_index: int, slots: SlotIndex, loads: LoadTable, loops: LoopTable,
                 wrench_inputs: WrenchInputTable, output_specs: tuple[OutputSpec, ...],
                 points: dict[tuple[str, str], Any], slot_const: Any, slot_param: Any,
                 param_defaults: Any, param_bounds: Any, units: dict[str, str],
                 qdd_column: Any = None, attitude: str = "euler"):
        self.name = name
        self.euler = euler
        self.body_names = tuple(body_names)
        self.param_names = tuple(param_names)
        self.state_names = tuple(state_names)
        self.input_names = tuple(input_names)
        self.output_names = tuple(output_names)
        self.parent = readonly(parent, int)
        self.kind = readonly(kind, int)
        self.q_index = readonly(q_index, int)
        self.qd_index = readonly(qd_index, int)
        tau_column, wrench_inputs, torque_units = joint_input_columns(
            kind, self.body_names, self.input_names, tau_column, wrench_inputs)
        self.tau_column = readonly(tau_column, int)
        self.qdd_column = readonly(np.full(len(self.kind), -1) if qdd_column is None
                                   else qdd_column, int)
        nv_of = np.zeros(max(NV) + 1, dtype=int)
        nv_of[list(NV)] = list(NV.values())
        self.nv = readonly(nv_of[self.kind], int)
        self.attitude = attitude
        self.base_index = int(base_index)
        self.slots = slots
        self.loads = loads
        self.loops = loops
        self.wrench_inputs = wrench_inputs
        self.output_specs = tuple(output_specs)
        if isinstance(points, PointTable):  # arrays already (a compiled model)
            self.points: Mapping[tuple[str, str], np.ndarray] = points
        else:
            shared: dict[int, np.ndarray] = {}  # one array per distinct slot list (id: alive)
            self.points = {k: shared[id(v)] if id(v) in shared else
                           shared.setdefault(id(v), readonly(v, int))
                           for k, v in points.items()}
        self.slot_const = readonly(slot_const, float)
        self.slot_param = readonly(slot_param, int)
        self.param_slots = readonly(np.flatnonzero(self.slot_param >= 0), int)
        self.param_defaults = readonly(param_defaults, float)
        self.param_bounds = readonly(param_bounds, float).reshape(-1, 2)
        self._torque_units = torque_units
        self._units = units  # a dict, or a function of the tree (built on first use)
        self._init_caches()
        self._frozen = True

    def _init_caches(self) -> None:
        object.__setattr__(self, "_lock", threading.Lock())
        object.__setattr__(self, "_memo", {})
        object.__setattr__(self, "_physics_cache", {})
        object.__setattr__(self, "_default_physics",
                           self.resolve_physics(self.slot_values(None)).freeze())

    # ------------------------------------------------------------------ immutability
    def __setattr__(self, key: str, value: Any) -> None:
        if getattr(self, "_frozen", False):
            raise AttributeError(f"{type(self).__name__} is immutable: cannot set {key!r}")
        object.__setattr__(self, key, value)

    def __delattr__(self, key: str) -> None:
        if getattr(self, "_frozen", False):
            raise AttributeError(f"{type(self).__name__} is immutable: cannot delete {key!r}")
        object.__delattr__(self, key)

    def __getstate__(self) -> dict[str, Any]:
        """Pickled without its lock and caches (process pools, Dask workers)."""
        skip = {"_lock", "_memo", "_physics_cache", "_default_physics"}
        state = {k: v for k, v in self.__dict__.items() if k not in skip}
        state["_units"] = self.unit_table  # built, not the callable that builds it
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        """Restore a pickled tree and rebuild its lock and caches."""
        self.__dict__.update(state)
        self._init_caches()

    # ------------------------------------------------------------------ sizes and names
    @property
    def n_states(self) -> int:
        """Number of states."""
        return len(self.state_names)

    @property
    def n_inputs(self) -> int:
        """Number of inputs."""
        return len(self.input_names)

    @property
    def n_outputs(self) -> int:
        """Number of outputs."""
        return len(self.output_names)

    @property
    def floating_base(self) -> bool:
        """True when the root body has a free joint."""
        return self.base_index >= 0

    @property
    def unit_table(self) -> dict[str, str]:
        """Unit of every state, input and output name (built on first use; do not modify
        it: :meth:`units` returns a copy)."""
        table = self.__dict__.get("_unit_table")
        if table is None:
            units = self._units(self) if callable(self._units) else self._units
            table = {**self._torque_units, **units}
            for spec in self.output_specs:  # a spherical joint's q sensor: a unit quaternion
                if spec.kind == "q" and self.kind[spec.body] == SPHERICAL:
                    table.update(dict.fromkeys(self.output_names[spec.columns], ""))
            object.__setattr__(self, "_unit_table", table)
            object.__setattr__(self, "_units", table)  # what built it is no longer kept
        return table

    def units(self) -> dict[str, str]:
        """Unit of every state, input and output name (SI; angles in rad)."""
        return dict(self.unit_table)

    def state_index(self, name: str) -> int:
        """Index of a state by name.

        Parameters
        ----------
        name : str
            ``"slider_q"``; the dotted ``"slider.q"`` is accepted too.

        Returns
        -------
        int
        """
        return name_index(name, self.state_names, "state")

    def input_index(self, name: str) -> int:
        """Index of an input by name.

        Parameters
        ----------
        name : str
            Input name (dotted or underscored).

        Returns
        -------
        int
        """
        return name_index(name, self.input_names, "input")

    def output_index(self, name: str) -> int:
        """Index of an output by name.

        Parameters
        ----------
        name : str
            Output name (dotted or underscored).

        Returns
        -------
        int
        """
        return name_index(name, self.output_names, "output")

    def body_index(self, body: str) -> int:
        """Index of a body in :attr:`body_names`.

        Parameters
        ----------
        body : str
            Body name.

        Returns
        -------
        int
        """
        return name_index(body, self.body_names, "body")

    def point_slots(self, body: str, point: str) -> np.ndarray:
        """Slot indices of a named point's vector (body frame).

        Parameters
        ----------
        body : str
            Body name.
        point : str
            ``"origin"``, ``"com"`` or a port of the body.

        Returns
        -------
        ndarray, shape (3,)
        """
        self.body_index(body)
        if isinstance(point, str) and (body, point) in self.points:
            return self.points[(body, point)]
        pts = [p for (b, p) in self.points if b == body]  # a point as an array reached here
        raise UnknownNameError(f"body {body!r} has no point {point!r}; points: {pts}")

    def velocity_indices(self) -> tuple[int, ...]:
        """State indices of the generalized velocities ν: base twist (if floating), joint rates.

        Returns
        -------
        tuple of int
        """
        idx = list(range(self.base_index, self.base_index + 6)) if self.floating_base else []
        for i in range(len(self.body_names)):
            if self.kind[i] != 0 and self.nv[i]:  # joint rates (the base's twist is above)
                idx += range(int(self.qd_index[i]), int(self.qd_index[i]) + int(self.nv[i]))
        return tuple(idx)

    def velocity_names(self) -> tuple[str, ...]:
        """Names of the generalized velocities ν, in :meth:`velocity_indices` order.

        Returns
        -------
        tuple of str
        """
        return tuple(self.state_names[i] for i in self.velocity_indices())

    # ------------------------------------------------------------------ defaults
    def default_params(self) -> dict[str, float]:
        """Default parameter values, ``name -> value``."""
        return dict(zip(self.param_names, self.param_defaults.tolist()))

    def default_state(self, params: Any = None) -> np.ndarray:
        """Initial state of the description (``q0``, ``qd0``, ``position0``, ``euler0``, ...).

        Parameters
        ----------
        params : dict or array_like, optional
            Parameter values (initial conditions may name parameters).

        Returns
        -------
        ndarray, shape (n_states,)

        Raises
        ------
        ParameterError
            Parameter values that :meth:`check_params` refuses.
        """
        if not (params is None or (isinstance(params, dict) and not params)):
            pv = self.param_vector(params)
            if pv.ndim == 1:  # checked once per distinct vector, cached with its physics
                self.physics(pv)  # (a trim calls this, then the dynamics, with each vector)
            else:
                self.check_params(pv)
        vals = self.slot_values(params)
        x = np.zeros((*vals.shape[:-1], self.n_states), dtype=vals.dtype)
        one = is_one_dof(self.kind)
        x[..., self.q_index[one]] = vals[..., self.slots.q0[one]]
        x[..., self.qd_index[one]] = vals[..., self.slots.qd0[one]]
        if self.floating_base:
            b = self.base_index
            x[..., b:b + self.slots.base0.size] = vals[..., self.slots.base0]
            if self.attitude == "quaternion":
                x[..., b + 9:b + 13] = normalize(x[..., b + 9:b + 13])
        sph = np.flatnonzero(self.kind == SPHERICAL)  # q0 (normalised), w0: all at once
        if sph.size:
            q, w, ex = self.q_index[sph], self.qd_index[sph], self.slots.extra[sph]
            x[..., q[:, None] + np.arange(4)] = normalize(vals[..., ex[:, 4:8]])
            x[..., w[:, None] + np.arange(3)] = vals[..., ex[:, 8:11]]
        uni = np.flatnonzero(self.kind == UNIVERSAL)
        if uni.size:
            q, w, ex = self.q_index[uni], self.qd_index[uni], self.slots.extra[uni]
            x[..., q] = vals[..., self.slots.q0[uni]]
            x[..., q + 1] = vals[..., ex[:, 6]]
            x[..., w] = vals[..., self.slots.qd0[uni]]
            x[..., w + 1] = vals[..., ex[:, 7]]
        return x

    # ------------------------------------------------------------------ argument handling
    def param_vector(self, params: Any = None) -> np.ndarray:
        """Parameter values as an array (..., n_params) in :attr:`param_names` order.

        Parameters
        ----------
        params : None, dict or array_like
            ``None`` (defaults), a dict ``name -> value`` (missing names take their default;
            values may be arrays with leading batch axes) or an array (..., n_params).

        Returns
        -------
        ndarray, shape (..., n_params)

        Raises
        ------
        UnknownNameError
            A dict key that is not a parameter name.
        ParameterError
            A value that is not a number or array of numbers, or dict values whose batch
            shapes do not broadcast.
        ShapeError
            An array whose last axis is not ``n_params`` long.
        """
        return parameter_vector(self, params)

    def slot_values(self, params: Any) -> np.ndarray:
        """Every slot's value (..., n_slots) for the given parameters.

        Parameters
        ----------
        params : None, dict or array_like
            As :meth:`param_vector`.

        Returns
        -------
        ndarray, shape (..., n_slots)
        """
        pv = self.param_vector(params)
        vals = np.broadcast_to(self.slot_const, (*pv.shape[:-1], self.slot_const.size))
        vals = vals.astype(np.result_type(vals, pv))
        vals[..., self.param_slots] = pv[..., self.slot_param[self.param_slots]]
        return vals

    def check_state(self, x: Any) -> np.ndarray:
        """A state argument as an array, its last axis checked.

        Parameters
        ----------
        x : array_like, shape (..., n_states)
            States in :attr:`state_names` order.

        Returns
        -------
        ndarray, shape (..., n_states)

        Raises
        ------
        ShapeError
            Not an array of numbers, or a last axis that is not ``n_states`` long.
        """
        arr = numeric_array(x)
        if arr is None or arr.ndim == 0 or arr.shape[-1] != self.n_states:
            got = f"{x!r:.60}" if arr is None else f"shape {arr.shape}"
            raise ShapeError(f"x must be an array of numbers of shape (..., {self.n_states}) "
                             f"with states {list(self.state_names)}; got {got}")
        return arr

    def check_input(self, u: Any, batch: tuple[int, ...]) -> np.ndarray:
        """An input argument as an array (zeros when omitted), its last axis checked.

        Parameters
        ----------
        u : array_like, shape (..., n_inputs), or None
            Inputs in :attr:`input_names` order.
        batch : tuple of int
            Batch shape of the zeros returned for ``u=None``.

        Returns
        -------
        ndarray, shape (..., n_inputs)

        Raises
        ------
        ShapeError
            Not an array of numbers, or a last axis that is not ``n_inputs`` long.
        """
        if u is None:
            return np.zeros((*batch, self.n_inputs))
        arr = numeric_array(u)
        if arr is None:
            raise ShapeError(f"u must be an array of numbers of shape (..., {self.n_inputs}) "
                             f"with inputs {list(self.input_names)}; got {u!r:.60}")
        u = arr
        if u.ndim == 0 or u.shape[-1] != self.n_inputs:
            if self.n_inputs == 0 and u.size == 0:
                return np.zeros((*batch, 0))
            raise ShapeError(f"u must have shape (..., {self.n_inputs}) with inputs "
                             f"{list(self.input_names)}; got shape {u.shape}")
        return u

    # ------------------------------------------------------------------ physics
    def physics(self, params: Any = None) -> Physics:
        """Resolved physical data for ``params``.

        The defaults are resolved once; the last few other unbatched parameter vectors are
        kept in a small cache keyed by their values, so that an ODE solver or a trim loop
        calling the dynamics with the same ``params`` pays the resolution and the checks
        once. The cache is guarded by a lock: concurrent calls from threads are safe.

        Parameters
        ----------
        params : None, dict or array_like
            As :meth:`param_vector`; checked by :meth:`check_params`.

        Returns
        -------
        Physics
        """
        if params is None or (isinstance(params, dict) and not params):
            return self._default_physics
        pv = self.param_vector(params)
        if pv.ndim != 1:
            self.check_params(pv)
            return self.resolve_physics(self.slot_values(pv))
        key = (pv.dtype.str, pv.tobytes())
        with self._lock:
            ph = self._physics_cache.get(key)
        if ph is None:
            self.check_params(pv)
            ph = self.resolve_physics(self.slot_values(pv)).freeze()
            with self._lock:
                cache = self._physics_cache
                if len(cache) >= PHYSICS_CACHE_SIZE:
                    cache.pop(next(iter(cache)))
                cache[key] = ph
        return ph

    def check_params(self, params: Any) -> None:
        """Check parameter values as the model file's validation checks the defaults.

        Every evaluation with non-default parameters calls it: once per distinct unbatched
        parameter vector (cached with the resolved physics), at every call for a batch of
        vectors (not cached); a complex vector (complex-step derivatives) on its real part.

        Parameters
        ----------
        params : dict or array_like, shape (..., n_params)
            Parameter values (a batch is checked element-wise).

        Raises
        ------
        ParameterError
            A value is not finite or lies outside its declared ``[min, max]``; or the values
            make a body's mass negative, its inertia non-symmetric or indefinite, a joint's
            ``rotation`` not a proper rotation or a joint axis of zero length. Every problem
            is listed, naming the parameter or the body and field.
        """
        check_parameter_values(self, self.param_vector(params))

    def resolve_physics(self, vals: np.ndarray) -> Physics:
        """Physical data from slot values (no check, no cache; see :meth:`physics`).

        Parameters
        ----------
        vals : ndarray, shape (..., n_slots)
            Slot values, as :meth:`slot_values`.

        Returns
        -------
        Physics
        """
        return resolve_physics(self, vals)

    def memo(self, key: str, token: object, build: Callable[[], T]) -> T:
        """A value derived from ``token`` (e.g. compiled-kernel arguments of a
        :class:`Physics`), rebuilt when the token changes; thread-safe.

        Parameters
        ----------
        key : str
            What is cached.
        token : object
            The object the value was built from (compared by identity).
        build : callable
            Builds the value, without arguments.

        Returns
        -------
        object
            The cached or newly built value.
        """
        with self._lock:
            hit = self._memo.get(key)
        if hit is not None and hit[0] is token:
            return hit[1]
        value = build()
        with self._lock:
            self._memo[key] = (token, value)
        return value
