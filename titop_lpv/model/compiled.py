"""The compiled, immutable :class:`Model` (the public contract of DESIGN.md §4).

Like Pinocchio's ``Model``, a compiled model holds only index arrays and constants: every
evaluation takes ``(t, x, u, params)`` explicitly and keeps no state, so one model can be
shared by threads, processes and Dask workers.

Every numeric leaf of the description (masses, inertias, vectors, axes, rotations,
stiffnesses, initial conditions, gravity, loads) lives in one flat *slot* vector; a slot
holds a constant or the value of a parameter. Evaluating with other parameter values is
one gather, and parameters may carry leading batch axes or complex perturbations.
"""

from __future__ import annotations

import copy
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

import numpy as np

from ..exceptions import ModelError, ShapeError, UnknownNameError
from ..multibody.param_checks import check_parameter_values
from ..spatial.algebra import dynamic_model, unit
from .description import Buoyancy, Force, Free, Prismatic, Revolute, Weld
from .signals import BASE_STATES, signal_names
from .validate import check

if TYPE_CHECKING:
    import control

    from .builder import System

__all__ = ["FREE", "PRISMATIC", "REVOLUTE", "WELD", "Model", "compile_system"]

FREE, WELD, REVOLUTE, PRISMATIC = 0, 1, 2, 3
_KIND = {Free: FREE, Weld: WELD, Revolute: REVOLUTE, Prismatic: PRISMATIC}
_IDENTITY = ((1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0))


class _Slots:
    """Flat vector of numeric leaves: constants or parameter references."""

    def __init__(self, param_names: tuple[str, ...]):
        self.pindex = {n: i for i, n in enumerate(param_names)}
        self.const: list[float] = []
        self.param: list[int] = []

    def add(self, leaf: Any) -> int:
        if isinstance(leaf, str):
            self.const.append(0.0)
            self.param.append(self.pindex[leaf])
        else:
            self.const.append(float(leaf))
            self.param.append(-1)
        return len(self.const) - 1

    def vec(self, values: Any) -> list[int]:
        return [self.add(v) for v in values]

    def mat(self, rows: Any) -> list[list[int]]:
        return [self.vec(r) for r in rows]


def _readonly(a: Any, dtype: Any = None) -> np.ndarray:
    arr = np.array(a, dtype=dtype)
    arr.setflags(write=False)
    return arr


class Model:
    """A compiled multibody model: names, index maps and constants; immutable.

    Build it with :func:`titop_lpv.load_model` or :meth:`titop_lpv.System.compile`.

    Attributes
    ----------
    name : str
    state_names, input_names, output_names, param_names : tuple of str
        Signal names (DESIGN.md §4): ``b_vx … b_wz, b_x b_y b_z, b_phi b_theta b_psi`` for a
        floating base ``b`` (body-frame twist of its origin, inertial position, Euler angles),
        ``b_q, b_qd`` for a one-d.o.f. joint; ``b_tau`` and ``b_<point>_Fx … _Tz`` inputs.
    body_names : tuple of str
        Bodies, parents before children (the state order).
    euler : str
        Euler sequence of the floating base.
    """

    def __init__(self, system: System, plan: Any):
        s = system
        bodies = [s.bodies[i] for i in plan.order]
        names = tuple(b.name for b in bodies)
        bindex = {n: i for i, n in enumerate(names)}
        self.name: str = s.name
        self.euler: str = s.euler
        self.body_names = names
        self.param_names = tuple(s.parameters)
        slots = _Slots(self.param_names)

        parent = [bindex[plan.parent[b.name]] if plan.parent[b.name] else -1 for b in bodies]
        kind = [_KIND[type(b.joint)] for b in bodies]
        states, inputs, named_outputs = signal_names(bodies, list(s.inputs), list(s.outputs))
        sindex = {nm: k for k, nm in enumerate(states)}
        iindex = {nm: k for k, nm in enumerate(inputs)}
        q_idx = [sindex.get(f"{b.name}_q", -1) if kind[i] >= REVOLUTE else -1
                 for i, b in enumerate(bodies)]
        qd_idx = [q + 1 if q >= 0 else -1 for q in q_idx]
        tau_col = [iindex.get(f"{b.name}_tau", -1) if kind[i] >= REVOLUTE else -1
                   for i, b in enumerate(bodies)]
        base = sindex[f"{bodies[0].name}_vx"] if kind and kind[0] == FREE else -1
        base0: list[int] = []
        zero3 = slots.vec((0.0, 0.0, 0.0))
        i_mass, i_inertia, i_com, i_off, i_rot, i_axis = [], [], [], [], [], []
        i_scalar: dict[str, list[int]] = {k: [] for k in ("k", "d", "rest", "q0", "qd0")}
        points: dict[tuple[str, str], list[int]] = {}
        for i, b in enumerate(bodies):
            j = b.joint
            i_mass.append(slots.add(b.mass))
            i_inertia.append(slots.mat(b.inertia) if b.inertia is not None
                             else [zero3, zero3, zero3])
            i_com.append(slots.vec(b.com))
            points[(b.name, "origin")] = zero3
            points[(b.name, "com")] = i_com[-1]
            for port, vec in b.ports.items():
                points[(b.name, port)] = slots.vec(vec)
            pp = plan.parent_port[b.name]
            i_off.append(points[(plan.parent[b.name], pp)] if parent[i] >= 0 else zero3)
            rot = getattr(j, "rotation", None)
            i_rot.append(slots.mat(rot if rot is not None else _IDENTITY))
            i_axis.append(slots.vec(j.axis) if kind[i] in (REVOLUTE, PRISMATIC)
                          else slots.vec((0.0, 0.0, 1.0)))
            for key, attr in (("k", "stiffness"), ("d", "damping"), ("rest", "rest"),
                              ("q0", "q0"), ("qd0", "qd0")):
                i_scalar[key].append(slots.add(getattr(j, attr, 0.0)))
            if kind[i] == FREE:  # initial conditions in state order: v0, w0, position0, (φ, θ, ψ)
                e = j.euler0
                base0 = slots.vec((*j.v0, *j.w0, *j.position0, e[2], e[1], e[0]))
        self._base = base

        n_taus = sum(t >= 0 for t in tau_col)
        w_body = [bindex[item.body] for item in s.inputs]
        w_point = [points[(item.body, item.point)] for item in s.inputs]
        w_frame = [item.frame == "body" for item in s.inputs]
        w_col = [n_taus + 6 * k for k in range(len(s.inputs))]

        l_kind, l_body, l_point, l_vec, l_frame, l_frac = [], [], [], [], [], []
        for load in s.loads:
            l_body.append(bindex[load.body])
            if isinstance(load, Buoyancy):
                l_kind.append(0)
                l_point.append(points[(load.body, load.point)])
                l_vec.append(zero3)
                l_frame.append(False)
                l_frac.append(slots.add(load.fraction))
            else:
                is_force = isinstance(load, Force)
                l_kind.append(1 if is_force else 2)
                l_point.append(points[(load.body, load.point)] if is_force else zero3)
                l_vec.append(slots.vec(load.force if is_force else load.torque))
                l_frame.append(load.frame == "body")
                l_frac.append(slots.add(0.0))

        lp_a, lp_b, lp_pa, lp_pb, lp_k, lp_d = [], [], [], [], [], []
        for loop in s.loops:
            for end, bl, pl in ((loop.a, lp_a, lp_pa), (loop.b, lp_b, lp_pb)):
                body, _, point = end.partition(".")
                bl.append(bindex[body])
                pl.append(points[(body, point or "origin")])
            lp_k.append(slots.vec(loop.stiffness))
            lp_d.append(slots.vec(loop.damping))

        outputs: list[str] = []
        out_spec: list[tuple[str, int, list[int], bool, slice]] = []
        for out, onames in named_outputs:
            start = len(outputs)
            outputs += onames
            out_spec.append((out.type, bindex[out.body], points[(out.body, out.point)],
                             out.frame == "body", slice(start, len(outputs))))

        units: dict[str, str] = {}
        for i, b in enumerate(bodies):
            lin = kind[i] == PRISMATIC
            if kind[i] == FREE:
                units.update({f"{b.name}_{q}": u for q, u in zip(
                    BASE_STATES, ["m/s"] * 3 + ["rad/s"] * 3 + ["m"] * 3 + ["rad"] * 3)})
            elif kind[i] != WELD:
                units.update({f"{b.name}_q": "m" if lin else "rad",
                              f"{b.name}_qd": "m/s" if lin else "rad/s",
                              f"{b.name}_tau": "N" if lin else "N m"})
        units.update({nm: ("N" if nm[-2] == "F" else "N m") for nm in inputs if nm[-2:-1] in "FT"
                      and nm[-1] in "xyz"})
        for typ, b_i, _p, _f, sl in out_spec:
            lin = kind[b_i] == PRISMATIC
            unit = {"q": "m" if lin else "rad", "qd": "m/s" if lin else "rad/s",
                    "qdd": "m/s^2" if lin else "rad/s^2", "position": "m", "attitude": "rad",
                    "velocity": "m/s", "angular_velocity": "rad/s",
                    "acceleration": "m/s^2"}[typ]
            units.update({nm: unit for nm in outputs[sl]})
        self._units = units
        self.state_names = tuple(states)
        self.input_names = tuple(inputs)
        self.output_names = tuple(outputs)
        self.parent = _readonly(parent, int)
        self.kind = _readonly(kind, int)
        self.q_index = _readonly(q_idx, int)
        self.qd_index = _readonly(qd_idx, int)
        self.tau_column = _readonly(tau_col, int)
        self._i = SimpleNamespace(
            mass=_readonly(i_mass, int),
            inertia=_readonly(i_inertia, int),
            com=_readonly(i_com, int),
            offset=_readonly(i_off, int),
            rot=_readonly(i_rot, int),
            axis=_readonly(i_axis, int),
            gravity=_readonly(slots.vec(s.gravity), int),
            base0=_readonly(base0, int),
            **{k: _readonly(v, int) for k, v in i_scalar.items()},
        )
        self._loads = SimpleNamespace(
            kind=_readonly(l_kind, int), body=_readonly(l_body, int),
            point=_readonly(l_point, int).reshape(-1, 3), vec=_readonly(l_vec, int).reshape(-1, 3),
            body_frame=_readonly(l_frame, bool), fraction=_readonly(l_frac, int),
        )
        self._loops = SimpleNamespace(
            a=_readonly(lp_a, int), b=_readonly(lp_b, int),
            point_a=_readonly(lp_pa, int).reshape(-1, 3),
            point_b=_readonly(lp_pb, int).reshape(-1, 3),
            k=_readonly(lp_k, int).reshape(-1, 6), d=_readonly(lp_d, int).reshape(-1, 6),
            names=tuple(loop.label for loop in s.loops),
        )
        self._winputs = SimpleNamespace(
            body=_readonly(w_body, int), point=_readonly(w_point, int).reshape(-1, 3),
            body_frame=_readonly(w_frame, bool), col=_readonly(w_col, int),
        )
        self._outputs = tuple(out_spec)
        self._points = {k: _readonly(v, int) for k, v in points.items()}
        self._slot_const = _readonly(slots.const, float)
        self._slot_param = _readonly(slots.param, int)
        self._param_slots = _readonly(np.flatnonzero(self._slot_param >= 0), int)
        self._param_defaults = _readonly([float(p.value) for p in s.parameters.values()], float)
        self._param_bounds = _readonly(
            [[-np.inf if p.min is None else float(p.min), np.inf if p.max is None else float(p.max)]
             for p in s.parameters.values()], float).reshape(-1, 2)
        self._description = copy.deepcopy(s.to_dict())
        default = self._physics(self._values(None))
        for value in vars(default).values():
            value.setflags(write=False)  # shared by every evaluation: never modified
        self._default_physics = default
        self._kernel_cache: dict[str, Any] = {}  # compiled-kernel arguments (content only)
        self._physics_cache: dict[tuple[str, bytes], SimpleNamespace] = {}
        self._frozen = True

    # ------------------------------------------------------------------ immutability
    def __setattr__(self, key: str, value: Any) -> None:
        if getattr(self, "_frozen", False):
            raise AttributeError(f"Model is immutable: cannot set {key!r}")
        object.__setattr__(self, key, value)

    def __delattr__(self, key: str) -> None:
        if getattr(self, "_frozen", False):
            raise AttributeError(f"Model is immutable: cannot delete {key!r}")
        object.__delattr__(self, key)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Model) and self._description == other._description

    def __hash__(self) -> int:
        return hash((self.name, self.state_names, self.input_names, self.output_names))

    def __repr__(self) -> str:
        return (f"<titop_lpv.Model {self.name!r}: {len(self.body_names)} bodies, "
                f"{len(self.state_names)} states, {len(self.input_names)} inputs, "
                f"{len(self.output_names)} outputs, {len(self.param_names)} parameters>")

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
        return self._base >= 0

    def to_dict(self) -> dict[str, Any]:
        """The description this model was compiled from, as a schema dict."""
        return copy.deepcopy(self._description)

    def units(self) -> dict[str, str]:
        """Unit of every state, input and output name (SI; angles in rad)."""
        return dict(self._units)

    def state_index(self, name: str) -> int:
        """Index of a state by name (``"slider_q"``; ``"slider.q"`` is accepted too)."""
        return _lookup(self.state_names, name, "state")

    def input_index(self, name: str) -> int:
        """Index of an input by name."""
        return _lookup(self.input_names, name, "input")

    def output_index(self, name: str) -> int:
        """Index of an output by name."""
        return _lookup(self.output_names, name, "output")

    def body_index(self, body: str) -> int:
        """Index of a body in :attr:`body_names`."""
        return _lookup(self.body_names, body, "body")

    # ------------------------------------------------------------------ defaults
    def default_params(self) -> dict[str, float]:
        """Default parameter values, ``name -> value``."""
        return dict(zip(self.param_names, self._param_defaults.tolist()))

    def default_state(self, params: Any = None) -> np.ndarray:
        """Initial state of the description (``q0``, ``qd0``, ``position0``, ``euler0``, ...).

        Parameters
        ----------
        params : dict or array_like, optional
            Parameter values (initial conditions may name parameters).

        Returns
        -------
        ndarray, shape (n_states,)
        """
        vals = self._values(params)
        x = np.zeros((*vals.shape[:-1], self.n_states), dtype=vals.dtype)
        one = self.kind >= REVOLUTE
        x[..., self.q_index[one]] = vals[..., self._i.q0[one]]
        x[..., self.qd_index[one]] = vals[..., self._i.qd0[one]]
        if self._base >= 0:
            x[..., self._base:self._base + 12] = vals[..., self._i.base0]
        return x

    # ------------------------------------------------------------------ argument handling
    def _values(self, params: Any) -> np.ndarray:
        """Slot vector (..., n_slots) for the given parameters."""
        pv = self.param_vector(params)
        vals = np.broadcast_to(self._slot_const, (*pv.shape[:-1], self._slot_const.size))
        vals = vals.astype(np.result_type(vals, pv))
        vals[..., self._param_slots] = pv[..., self._slot_param[self._param_slots]]
        return vals

    def param_vector(self, params: Any = None) -> np.ndarray:
        """Parameter values as an array (..., n_params) in :attr:`param_names` order.

        ``params`` may be ``None`` (defaults), a dict ``name -> value`` (missing names take
        their default; values may be arrays with leading batch axes) or an array.
        """
        if params is None or (isinstance(params, dict) and not params):
            return self._param_defaults
        if isinstance(params, dict):
            unknown = [k for k in params if k not in self.param_names]
            if unknown:
                raise UnknownNameError(
                    f"unknown parameter(s) {unknown} for model {self.name!r}; "
                    f"parameters are: {list(self.param_names)}"
                )
            cols = [np.asarray(params.get(n, d)) for n, d in
                    zip(self.param_names, self._param_defaults)]
            cols = np.broadcast_arrays(*cols) if cols else []
            return np.stack(cols, axis=-1) if cols else self._param_defaults
        pv = np.asarray(params)
        if pv.ndim == 0 or pv.shape[-1] != len(self.param_names):
            raise ShapeError(f"params must be a dict or have shape (..., {len(self.param_names)})"
                             f" in the order {list(self.param_names)}; got shape {pv.shape}")
        return pv

    def _state(self, x: Any) -> np.ndarray:
        x = np.asarray(x)
        if x.ndim == 0 or x.shape[-1] != self.n_states:
            raise ShapeError(f"x must have shape (..., {self.n_states}) with states "
                             f"{list(self.state_names)}; got shape {x.shape}")
        return x

    def _input(self, u: Any, batch: tuple[int, ...]) -> np.ndarray:
        if u is None:
            return np.zeros((*batch, self.n_inputs))
        u = np.asarray(u)
        if u.ndim == 0 or u.shape[-1] != self.n_inputs:
            if self.n_inputs == 0 and u.size == 0:
                return np.zeros((*batch, 0))
            raise ShapeError(f"u must have shape (..., {self.n_inputs}) with inputs "
                             f"{list(self.input_names)}; got shape {u.shape}")
        return u

    def physics(self, params: Any = None) -> SimpleNamespace:
        """Resolved physical data for ``params``.

        The defaults are computed once; the last few other unbatched parameter vectors are
        kept in a small cache (keyed by their values), so that an ODE solver or a trim loop
        calling :meth:`dynamics` with the same ``params`` pays the resolution once.
        """
        if params is None or (isinstance(params, dict) and not params):
            return self._default_physics
        pv = self.param_vector(params)
        if pv.ndim != 1:
            self.check_params(pv)
            return self._physics(self._values(pv))
        key = (pv.dtype.str, pv.tobytes())
        cache = self._physics_cache
        ph = cache.get(key)
        if ph is None:
            self.check_params(pv)
            ph = self._physics(self._values(pv))
            for value in vars(ph).values():
                value.setflags(write=False)
            if len(cache) >= 8:
                cache.pop(next(iter(cache)))
            cache[key] = ph
        return ph

    def check_params(self, params: Any) -> None:
        """Check parameter values as the model file's validation checks the defaults.

        Every evaluation with non-default parameters calls it: once per distinct unbatched
        parameter vector (the result is cached with the resolved physics), at every call
        for a batch of parameter vectors (not cached). For a complex
        parameter vector (complex-step derivatives) the real part is checked.

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

    def _physics(self, vals: np.ndarray) -> SimpleNamespace:
        i = self._i
        mass = vals[..., i.mass]
        com = vals[..., i.com]
        is_rev = (self.kind == REVOLUTE)[:, None]
        is_pri = (self.kind == PRISMATIC)[:, None]
        axis = unit(vals[..., i.axis])
        zero = np.zeros_like(axis)
        S = np.concatenate((np.where(is_pri, axis, zero), np.where(is_rev, axis, zero)), -1)
        lds = self._loads
        return SimpleNamespace(
            mass=mass,
            com=com,
            D=dynamic_model(mass, vals[..., i.inertia], com),
            offset=vals[..., i.offset],
            rot=vals[..., i.rot],
            axis=axis,
            S=S,
            k=vals[..., i.k],
            d=vals[..., i.d],
            rest=vals[..., i.rest],
            gravity=vals[..., i.gravity],
            total_mass=np.sum(mass, axis=-1),
            load_point=vals[..., lds.point],
            load_vec=vals[..., lds.vec],
            load_fraction=vals[..., lds.fraction],
            input_point=vals[..., self._winputs.point],
            loop_point_a=vals[..., self._loops.point_a],
            loop_point_b=vals[..., self._loops.point_b],
            loop_k=vals[..., self._loops.k],
            loop_d=vals[..., self._loops.d],
            vals=vals,
        )

    # ------------------------------------------------------------------ evaluation
    def dynamics(self, t: float, x: Any, u: Any = None, params: Any = None) -> np.ndarray:
        """State derivative ``ẋ = f(t, x, u, params)`` (python-control ``updfcn`` order).

        Forward dynamics by the O(n) two-sweep TITOP recursion
        (:func:`titop_lpv.multibody.dynamics.forward_dynamics`).

        Parameters
        ----------
        t : float
            Time [s] (the model is time-invariant; accepted for python-control).
        x : array_like, shape (..., n_states)
        u : array_like, shape (..., n_inputs), optional
            Inputs; zero when omitted.
        params : dict or array_like, optional
            Parameter values; defaults when omitted.

        Returns
        -------
        ndarray, shape (..., n_states)
        """
        from ..multibody.dynamics import forward_dynamics

        return forward_dynamics(self, x, u, params)

    def outputs(self, t: float, x: Any, u: Any = None, params: Any = None) -> np.ndarray:
        """Outputs ``y = h(t, x, u, params)`` in :attr:`output_names` order, shape (..., n_y)."""
        from ..multibody.dynamics import evaluate_outputs

        return evaluate_outputs(self, x, u, params)

    def rotation(self, x: Any, body: str, params: Any = None) -> np.ndarray:
        """Attitude ``P_{b/i}`` of ``body`` (body → inertial coordinates), shape (..., 3, 3)."""
        from ..multibody.dynamics import kinematics

        k = kinematics(self, x, params, upto=self.body_index(body))
        return k.P[self.body_index(body)]

    def position(self, x: Any, body: str, point: str = "origin", params: Any = None
                 ) -> np.ndarray:
        """Inertial position [m] of ``point`` (``origin``, ``com`` or a port) of ``body``."""
        from ..multibody.dynamics import kinematics

        b = self.body_index(body)
        idx = self.point_slots(body, point)
        k = kinematics(self, x, params, upto=b)
        r = k.phys.vals[..., idx]
        return k.r[b] + np.einsum("...ij,...j->...i", k.P[b], r)

    def point_slots(self, body: str, point: str) -> np.ndarray:
        """Slot indices of a point's vector (internal)."""
        self.body_index(body)
        try:
            return self._points[(body, point)]
        except KeyError:
            pts = [p for (b, p) in self._points if b == body]
            raise UnknownNameError(f"body {body!r} has no point {point!r}; points: {pts}"
                                   ) from None

    def to_nlsys(self, **kwargs: Any) -> control.NonlinearIOSystem:
        """The model as a python-control ``NonlinearIOSystem`` with named signals.

        ``params`` passed to python-control functions reach :meth:`dynamics` as a dict.
        """
        import control

        return control.nlsys(
            lambda t, x, u, params: self.dynamics(t, x, u, params),
            lambda t, x, u, params: self.outputs(t, x, u, params),
            states=list(self.state_names),
            inputs=list(self.input_names),
            outputs=list(self.output_names),
            params=self.default_params(),
            name=kwargs.pop("name", self.name),
            **kwargs,
        )


def _lookup(names: tuple[str, ...], name: str, what: str) -> int:
    for candidate in (name, name.replace(".", "_") if isinstance(name, str) else name):
        if candidate in names:
            return names.index(candidate)
    plural = "bodies" if what == "body" else f"{what}s"
    raise UnknownNameError(f"unknown {what} {name!r}; {plural} are: {list(names)}")


def compile_system(system: System) -> Model:
    """Validate ``system`` and compile it (see :meth:`System.compile`)."""
    plan = check(system)
    model = Model(system, plan)
    from ..multibody.dynamics import joint_inertia_problems

    problems = joint_inertia_problems(model)
    if problems:
        raise ModelError(problems, name=system.name)
    return model

