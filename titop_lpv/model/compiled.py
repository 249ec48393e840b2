"""The compiled, immutable :class:`Model` (the public contract, docs/design.md §4).

Compiling a validated description (:class:`~titop_lpv.model.builder.System`) lays its
numeric leaves out in the slot vector of a :class:`~titop_lpv.multibody.tree.Tree` and
builds the tree's index maps; :class:`Model` is that tree with the evaluation methods of
the public contract (``dynamics``, ``outputs``, ``rotation``, ``position``, ``to_nlsys``),
each a call of a multibody algorithm. Like Pinocchio's ``Model``, it holds only index
arrays and constants: every evaluation takes ``(t, x, u, params)`` explicitly and keeps no
state, so one model can be shared by threads, processes and Dask workers.
"""

from __future__ import annotations

import copy
from typing import Any

import control
import numpy as np

from ..exceptions import DynamicsError, ModelError
from ..multibody.dynamics import (
    evaluate_outputs,
    forward_dynamics,
    joint_inertia_problems,
    kinematics,
    non_finite_error,
)
from ..multibody.joints import FREE, PRISMATIC, REVOLUTE, SPHERICAL, UNIVERSAL, WELD
from ..multibody.tables import (
    LoadTable,
    LoopTable,
    OutputSpec,
    PointTable,
    SlotIndex,
    WrenchInputTable,
    readonly,
)
from ..multibody.tree import Tree
from ..spatial.algebra import matvec
from .call_path import SingleCall
from .description import (
    Buoyancy,
    Damping,
    Description,
    Force,
    Free,
    Prismatic,
    Revolute,
    Spherical,
    Universal,
    Weld,
)
from .joint_leaves import EXTRA_SLOTS
from .layout import Slots, body_columns, j_attitude, signal_units
from .records import gc_paused
from .signals import signal_names
from .validate import Plan, check

__all__ = ["NUMPY_CHECK_BODIES", "Model", "compile_system", "reference_check"]

NUMPY_CHECK_BODIES = 300  # models up to this size are also checked by the numpy recursion

_KIND = {Free: FREE, Weld: WELD, Revolute: REVOLUTE, Prismatic: PRISMATIC,
         Spherical: SPHERICAL, Universal: UNIVERSAL}
# states per joint, and the offset of the first velocity state from the first state
_N_STATES = {REVOLUTE: 2, PRISMATIC: 2, SPHERICAL: 7, UNIVERSAL: 4, WELD: 0}
_QD_OFFSET = {REVOLUTE: 1, PRISMATIC: 1, SPHERICAL: 4, UNIVERSAL: 2}


_SPEC_FIELDS = ("kind", "body", "point", "body_frame", "columns")


def _output_spec(spec: tuple[Any, ...]) -> OutputSpec:
    """``OutputSpec(*spec)`` without the frozen dataclass ``__init__`` (one per sensor: the
    default outputs of 10⁵ bodies are 10⁵ sensors)."""
    obj = object.__new__(OutputSpec)
    object.__setattr__(obj, "__dict__", dict(zip(_SPEC_FIELDS, spec)))
    return obj


def _state_layout(bodies: list[Any], kind: list[int]) -> tuple[list[int], list[int], int]:
    """State index of each joint's first position and rate (-1 without), and the number of
    states, from the states per joint kind (a floating base: 12, or 13 with a quaternion)."""
    per = [_N_STATES.get(k_i, 0) for k_i in kind]
    if kind and kind[0] == FREE:
        per[0] = 13 if j_attitude(bodies[0]) == "quaternion" else 12
    first = np.concatenate(([0], np.cumsum(per, dtype=np.int64)))
    k = np.asarray(kind, dtype=np.int64)
    moving = (k != FREE) & (k != WELD)
    qd_off = np.array([_QD_OFFSET.get(k_i, 0) for k_i in range(max(_KIND.values()) + 1)])
    q_idx = np.where(moving, first[:-1], -1)
    qd_idx = np.where(moving, first[:-1] + qd_off[k], -1)
    return q_idx.tolist(), qd_idx.tolist(), int(first[-1])


class Model(Tree):
    """A compiled multibody model: names, index maps and constants; immutable.

    Build it with :func:`titop_lpv.load_model` or :meth:`titop_lpv.System.compile`. Its
    index arrays and parameter handling are those of :class:`~titop_lpv.multibody.tree.Tree`.

    Parameters
    ----------
    system : System
        The description (validated by :func:`~titop_lpv.model.validate.check`).
    plan : Plan
        What validation returned: body order, parent links and ports.

    Attributes
    ----------
    name : str
    state_names, input_names, output_names, param_names : tuple of str
        Signal names (docs/design.md §4): ``b_vx … b_wz, b_x b_y b_z, b_phi b_theta b_psi``
        for a floating base ``b`` (body-frame twist of its origin, inertial position, Euler
        angles), ``b_q, b_qd`` for a one-d.o.f. joint; ``b_tau`` and ``b_<point>_Fx … _Tz``
        inputs.
    body_names : tuple of str
        Bodies, parents before children (the state order).
    euler : str
        Euler sequence of the floating base.
    """

    def __init__(self, system: Description, plan: Plan):
        s = system
        bodies = [s.bodies[i] for i in plan.order]
        names = tuple(b.name for b in bodies)
        bindex = dict(zip(names, range(len(names))))
        param_names = tuple(s.parameters)
        slots = Slots(param_names)

        parent_names = list(map(plan.parent.__getitem__, names))
        parent = [-1 if p is None else bindex[p] for p in parent_names]
        kind = [_KIND[type(b.joint)] for b in bodies]
        states, inputs, named_outputs = (plan.signals if plan.signals is not None else
                                         signal_names(bodies, list(s.inputs), list(s.outputs)))
        iindex = {nm: k for k, nm in enumerate(inputs)}
        base = states.index(f"{bodies[0].name}_vx") if kind and kind[0] == FREE else -1
        q_idx, qd_idx, n_laid = _state_layout(bodies, kind)
        if n_laid != len(states):  # the state layout of signal_names, checked
            raise ModelError(f"internal: {n_laid} states laid out, {len(states)} named",
                             name=s.name)
        tau_col, qdd_col = [-1] * len(bodies), [-1] * len(bodies)
        if iindex:
            for i, k_i in enumerate(kind):
                if k_i == REVOLUTE or k_i == PRISMATIC:
                    tau_col[i] = iindex.get(f"{names[i]}_tau", -1)
                    qdd_col[i] = iindex.get(f"{names[i]}_qdd", -1)
        col = body_columns(slots, bodies, kind,
                           [None if p is None else bodies[bindex[p]] for p in parent_names],
                           list(map(plan.parent_port.__getitem__, names)))
        points = PointTable(names, col["origin"], col["com"], col["port_names"],
                            col["port_slots"])
        zero3 = col["origin"]
        base0: list[int] = []
        if kind and kind[0] == FREE:  # initial conditions in state order: v0, w0, position0,
            j = bodies[0].joint  # (φ, θ, ψ) or the quaternion
            e = j.euler0
            attitude = (j.q0 if j.attitude == "quaternion" else (e[2], e[1], e[0]))
            base0 = slots.vec((*j.v0, *j.w0, *j.position0, *attitude))

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
            elif isinstance(load, Damping):  # vec holds (c_v, c_ω, 0)
                l_kind.append(3)
                l_point.append(points[(load.body, load.point)])
                l_vec.append(slots.vec((load.linear, load.angular, 0.0)))
                l_frame.append(False)
                l_frac.append(slots.add(0.0))
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
            point = zero3 if out.point == "origin" else points[(out.body, out.point)]
            out_spec.append((out.type, bindex[out.body], point, out.frame == "body",
                             slice(start, len(outputs))))

        param_defs = list(s.parameters.values())
        source = copy.copy(s)  # a snapshot (its records are frozen): later edits of the
        for key in ("bodies", "loads", "loops", "inputs", "outputs"):  # System do not leak
            setattr(source, key, list(getattr(s, key)))
        source.parameters = dict(s.parameters)
        self._source = source
        self._description = None
        super().__init__(
            name=s.name,
            euler=s.euler,
            body_names=names,
            param_names=param_names,
            state_names=tuple(states),
            input_names=tuple(inputs),
            output_names=tuple(outputs),
            parent=parent,
            kind=kind,
            q_index=q_idx,
            qd_index=qd_idx,
            tau_column=tau_col,
            qdd_column=qdd_col,
            attitude=j_attitude(bodies[0]) if kind and kind[0] == FREE else "euler",
            base_index=base,
            slots=SlotIndex(
                mass=readonly(col["mass"], int),
                inertia=readonly(col["inertia"], int),
                com=readonly(col["com"], int),
                offset=readonly(col["offset"], int),
                rot=readonly(col["rot"], int),
                axis=readonly(col["axis"], int),
                gravity=readonly(slots.vec(s.gravity), int),
                base0=readonly(base0, int),
                extra=readonly(col["extra"], int).reshape(-1, EXTRA_SLOTS),
                **{k: readonly(col[k], int) for k in ("k", "d", "rest", "q0", "qd0")},
            ),
            loads=LoadTable(
                kind=readonly(l_kind, int), body=readonly(l_body, int),
                point=readonly(l_point, int).reshape(-1, 3),
                vec=readonly(l_vec, int).reshape(-1, 3),
                body_frame=readonly(l_frame, bool), fraction=readonly(l_frac, int),
            ),
            loops=LoopTable(
                a=readonly(lp_a, int), b=readonly(lp_b, int),
                point_a=readonly(lp_pa, int).reshape(-1, 3),
                point_b=readonly(lp_pb, int).reshape(-1, 3),
                k=readonly(lp_k, int).reshape(-1, 6), d=readonly(lp_d, int).reshape(-1, 6),
                names=tuple(loop.label for loop in s.loops),
            ),
            wrench_inputs=WrenchInputTable(
                body=readonly(w_body, int), point=readonly(w_point, int).reshape(-1, 3),
                body_frame=readonly(w_frame, bool), col=readonly(w_col, int),
            ),
            output_specs=tuple(map(_output_spec, out_spec)),
            points=points,
            slot_const=slots.const,
            slot_param=slots.param,
            param_defaults=[float(p.value) for p in param_defs],
            param_bounds=[[-np.inf if p.min is None else float(p.min),
                           np.inf if p.max is None else float(p.max)] for p in param_defs],
            units=signal_units,  # built on first use, from the tree
        )

    def _init_caches(self) -> None:
        super()._init_caches()
        object.__setattr__(self, "_single_call", SingleCall(self))

    def __getstate__(self) -> dict[str, Any]:
        """Pickled without its caches (the one-state call route is rebuilt on unpickling)."""
        state = super().__getstate__()
        state.pop("_single_call", None)
        return state

    @property
    def description(self) -> dict[str, Any]:
        """The description this model was compiled from, as a schema dict (built on first
        access; do not modify it: :meth:`to_dict` returns a copy)."""
        desc = self.__dict__.get("_description")
        if desc is None:
            desc = self._source.to_dict()
            object.__setattr__(self, "_description", desc)
        return desc

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Model) and self.description == other.description

    def __hash__(self) -> int:
        return hash((self.name, self.state_names, self.input_names, self.output_names))

    def __repr__(self) -> str:
        return (f"<titop_lpv.Model {self.name!r}: {len(self.body_names)} bodies, "
                f"{len(self.state_names)} states, {len(self.input_names)} inputs, "
                f"{len(self.output_names)} outputs, {len(self.param_names)} parameters>")

    def to_dict(self) -> dict[str, Any]:
        """The description this model was compiled from, as a schema dict."""
        return copy.deepcopy(self.description)

    # ------------------------------------------------------------------ evaluation
    def dynamics(self, t: float, x: Any, u: Any = None, params: Any = None) -> np.ndarray:
        """State derivative ``ẋ = f(t, x, u, params)`` (python-control ``updfcn`` order).

        Forward dynamics by the O(n) two-sweep TITOP recursion
        (:func:`titop_lpv.multibody.dynamics.forward_dynamics`). One ``float64`` state at a
        time, as ODE solvers pass it, takes the route of :mod:`titop_lpv.model.call_path`:
        the same compiled kernel without argument conversion and type dispatch.

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

        Raises
        ------
        ShapeError
            ``x`` or ``u`` not an array of numbers with the right last axis.
        ParameterError, UnknownNameError
            Invalid parameter values or names.
        DynamicsError
            A NaN or infinite state or input (named), a derivative that is NaN or infinite
            although every argument is finite (overflow: the message names the largest state
            and physical datum), or a joint with zero apparent inertia.

        Examples
        --------
        >>> import numpy as np
        >>> import titop_lpv as tl
        >>> model = tl.load_model("examples/balloon.toml")
        >>> x0 = model.default_state()
        >>> model.dynamics(0.0, x0).shape
        (18,)
        >>> xs = np.tile(x0, (4, 1))  # a batch of 4 states, evaluated in one call
        >>> bool(np.allclose(model.dynamics(0.0, xs), model.dynamics(0.0, x0)))
        True
        """
        xdot = self._single_call.route(self, x, u, params)  # one state: model/call_path.py
        return forward_dynamics(self, x, u, params) if xdot is None else xdot

    def outputs(self, t: float, x: Any, u: Any = None, params: Any = None) -> np.ndarray:
        """Outputs ``y = h(t, x, u, params)`` in :attr:`output_names` order, shape (..., n_y).

        Parameters
        ----------
        t : float
            Time [s] (the model is time-invariant; accepted for python-control).
        x : array_like, shape (..., n_states)
            State(s), in :attr:`state_names` order; leading axes are a batch.
        u : array_like, shape (..., n_inputs), optional
            Inputs; zero when omitted.
        params : dict or array_like, optional
            Parameter values, as :meth:`param_vector` reads them; defaults when omitted.

        Returns
        -------
        ndarray, shape (..., n_outputs)

        Raises
        ------
        ShapeError, ParameterError, UnknownNameError, DynamicsError
            As :meth:`dynamics`; a NaN or infinite output is a ``DynamicsError``.
        """
        return evaluate_outputs(self, x, u, params)

    def rotation(self, x: Any, body: str, params: Any = None) -> np.ndarray:
        """Attitude ``P_{b/i}`` of ``body`` (body → inertial coordinates), shape (..., 3, 3).

        Parameters
        ----------
        x : array_like, shape (..., n_states)
            State(s), in :attr:`state_names` order.
        body : str
            Body name.
        params : dict or array_like, optional
            Parameter values, as :meth:`param_vector` reads them; defaults when omitted.

        Returns
        -------
        ndarray, shape (..., 3, 3)
        """
        k = kinematics(self, x, params, upto=self.body_index(body))
        P = k.P[self.body_index(body)]
        if not np.isfinite(P).all():
            raise non_finite_error(self, x, None, k.phys, P.reshape(*P.shape[:-2], 9),
                                   "rotation", (body,) * 9)
        return P

    def position(self, x: Any, body: str, point: str = "origin", params: Any = None
                 ) -> np.ndarray:
        """Inertial position [m] of ``point`` (``origin``, ``com`` or a port) of ``body``.

        Parameters
        ----------
        x : array_like, shape (..., n_states)
            State(s), in :attr:`state_names` order.
        body : str
            Body name.
        point : str, optional
            ``"origin"`` (default), ``"com"`` or a port of the body.
        params : dict or array_like, optional
            Parameter values, as :meth:`param_vector` reads them; defaults when omitted.

        Returns
        -------
        ndarray, shape (..., 3)
            Components in the inertial frame.
        """
        b = self.body_index(body)
        idx = self.point_slots(body, point)
        k = kinematics(self, x, params, upto=b)
        r = k.phys.vals[..., idx]
        pos = k.r[b] + matvec(k.P[b], r)
        if not np.isfinite(pos).all():
            raise non_finite_error(self, x, None, k.phys, pos, "position of",
                                   (f"{body}.{point}",) * 3)
        return pos

    def to_nlsys(self, **kwargs: Any) -> control.NonlinearIOSystem:
        """The model as a python-control ``NonlinearIOSystem`` with named signals.

        ``params`` passed to python-control functions reach :meth:`dynamics` as a dict.

        Parameters
        ----------
        **kwargs
            Passed on to ``control.nlsys`` (e.g. ``dt``); ``name`` defaults to the model's
            name.

        Returns
        -------
        control.NonlinearIOSystem
            With the model's state, input and output names and its default parameters.
        """
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


def compile_system(system: Description) -> Model:
    """Validate a description and compile it (see :meth:`System.compile`).

    Parameters
    ----------
    system : System
        The description.

    Returns
    -------
    Model

    Raises
    ------
    ModelError
        Every problem of the description, joints whose apparent inertia vanishes, or
        dynamics that cannot be evaluated or are not finite at the default state.
    """
    with gc_paused():  # some ten objects per body, none of them garbage
        plan = check(system)
        model = Model(system, plan)
    reference_check(model)
    return model


def reference_check(model: Model) -> None:
    """The reference evaluation: refuse a model whose joints have no apparent inertia or
    whose ``ẋ`` at the default state and parameters is not finite.

    The compiled kernel evaluates ``ẋ`` once (fast at any size); when it reports a problem,
    or for models of at most :data:`NUMPY_CHECK_BODIES` bodies, the numpy recursion also
    runs, which names every joint whose apparent inertia ``J_r`` is at most 1e-12 times the
    largest datum of the bodies' dynamic models
    (:func:`~titop_lpv.multibody.dynamics.joint_inertia_problems`; the kernel itself refuses
    ``J_r <= 0``).

    Parameters
    ----------
    model : Model

    Raises
    ------
    ModelError
        Naming the joints or the state derivatives at fault.
    """
    with np.errstate(all="ignore"):  # a non-finite result is reported below, not warned
        x0 = model.default_state()
        try:
            xdot = forward_dynamics(model, x0, backend="auto")
            failed = False
        except DynamicsError:
            failed = True
        if failed or len(model.body_names) <= NUMPY_CHECK_BODIES:
            problems = joint_inertia_problems(model)
            if problems:
                raise ModelError(problems, name=model.name)
            try:
                xdot = forward_dynamics(model, x0, backend="numpy")
            except DynamicsError as err:
                raise ModelError(f"the dynamics cannot be evaluated at the default state: "
                                 f"{err}", name=model.name) from None
    bad = [model.state_names[k] for k in np.flatnonzero(~np.isfinite(xdot))]
    if bad:
        raise ModelError(f"the dynamics at the default state are not finite (d/dt of "
                         f"{', '.join(bad)}): numbers too large for double precision",
                         name=model.name)
