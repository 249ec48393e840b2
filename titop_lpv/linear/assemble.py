"""From a compiled model and a static equilibrium to the assembled linear TITOP blocks.

One rigid-body block per body, one joint block per joint (the free joint of a floating
base included), integrators for the joint and base states (:mod:`titop_lpv.linear.blocks`;
spherical, universal and driven joints and damping loads through
:mod:`titop_lpv.linear.assemble_joints`), connected by name
(:func:`~titop_lpv.linear.connect.connect`). The states are the model's, each quaternion
(spherical joint, quaternion floating base) replaced by its attitude error ``b_rx b_ry b_rz``
as :func:`titop_lpv.linearize` does. Every numeric leaf of the
model that names a parameter kept uncertain enters the blocks as that ``ureal``; the
configuration at the equilibrium (attitudes, joint angles) is a constant.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ..analysis.operating_point import OperatingPoint
from ..model.compiled import Model
from ..multibody.inverse_dynamics import mass_matrix
from ..multibody.joints import FREE, MULTI_DOF, PRISMATIC, REVOLUTE, UNIVERSAL, WELD
from ..multibody.kinematics import kinematics
from ..robust.atoms import UReal
from ..robust.uss import USS
from ..spatial.euler import check_sequence, dcm_to_euler, euler_rates_matrix
from .assemble_joints import (
    check_model,
    driven_blocks,
    linear_state_names,
    multi_dof_blocks,
    multi_dof_geometry,
    multi_dof_kinematics,
    refuse_moving_positions,
)
from .blocks import (
    base_integrator,
    base_kinematics,
    dynamic_model_value,
    free_joint,
    joint,
    joint_integrator,
    rigid_body,
    signals,
    zero_source,
)
from .connect import connect, reorder_states
from .errors import BlockRouteError
from .loads import damping_gains, load_terms
from .loops import loop_block, loop_wrench_terms
from .sensors import joint_kinematics, sensor
from .spin import check_spin, dX_twist, velocity_products
from .values import (
    Value,
    add,
    is_certain,
    matmul,
    rotation,
    scalar_times,
    scale,
    skew_of,
    stack,
    value_matrix,
)

__all__ = ["BlockRouteError", "assemble", "check_model", "output_plan"]

_KIND_NAME = {REVOLUTE: "revolute", PRISMATIC: "prismatic", WELD: "weld"}
_EYE3 = np.eye(3)


class _Leaves:
    """Slot values of the model: numbers, or the ``ureal`` of an uncertain parameter."""

    def __init__(self, model: Model, params: Mapping[str, float],
                 uncertain: Mapping[str, UReal]):
        self.model = model
        self.vals = model.slot_values(dict(params))
        self.uncertain = {model.param_names.index(n): u for n, u in uncertain.items()}

    def leaf(self, slot: int) -> Any:
        p = int(self.model.slot_param[slot])
        return self.uncertain.get(p, float(self.vals[slot])) if p >= 0 else float(
            self.vals[slot])

    def column(self, slots: Any) -> Value:
        return value_matrix([[self.leaf(int(s))] for s in np.ravel(slots)])

    def matrix(self, slots: Any) -> Value:
        return value_matrix([[self.leaf(int(s)) for s in row] for row in np.asarray(slots)])



def output_plan(model: Model, outputs: Sequence[str]) -> dict[str, Any]:
    """For each output name: ``None`` when it is a state (or a sensor that copies one), else
    the sensor spec that produces it.

    Parameters
    ----------
    model : Model
        The compiled model.
    outputs : sequence of str
        State names of the linear model (attitude errors ``b_rx …`` in place of
        quaternions) and model output names.

    Returns
    -------
    dict
        ``name -> OutputSpec or None``.

    Raises
    ------
    BlockRouteError
        A name that is neither a state nor an output.
    """
    plan: dict[str, Any] = {}
    linear_state = linear_state_names(model)
    for name in outputs:
        spec = next((sp for sp in model.output_specs
                     if name in model.output_names[sp.columns]), None)
        if spec is None:
            if name not in linear_state:
                hint = (f" (a quaternion component: linear models use the attitude error "
                        f"{name[:-3]}_rx, _ry, _rz)" if name in model.state_names else "")
                raise BlockRouteError(f"output {name!r} is neither a state of the linear "
                                      f"model nor a sensor{hint}")
            plan[name] = None
            continue
        free = model.kind[spec.body] == FREE
        at_origin = bool(np.all(model.slot_const[spec.point] == 0.0)
                         and np.all(model.slot_param[spec.point] < 0))
        copy = (spec.kind in ("q", "qd") or (free and spec.kind == "attitude")
                or (free and at_origin and spec.kind == "position")
                or (free and at_origin and spec.body_frame
                    and spec.kind in ("velocity", "angular_velocity")))
        plan[name] = None if copy and name in model.state_names else spec
    return plan


def assemble(model: Model, op: OperatingPoint, uncertain: Mapping[str, UReal], *,
             inputs: Sequence[str], outputs: Sequence[str],
             configuration: Mapping[str, UReal] | None = None,
             input_eq: Mapping[str, UReal] | None = None,
             ends: Mapping[tuple[str, float], np.ndarray] | None = None) -> USS:
    """The linear TITOP blocks of ``model`` around the static equilibrium ``op``, assembled.

    Parameters
    ----------
    model : Model
        The compiled model.
    op : OperatingPoint
        A static equilibrium of ``model`` (every velocity zero).
    uncertain : mapping of str to UReal
        Model parameters kept uncertain, each as the ``ureal`` that replaces it.
    inputs : sequence of str
        Model inputs to keep (joint ``tau`` and wrench inputs).
    outputs : sequence of str
        Outputs to keep: state names and model outputs (sensors).
    configuration : mapping of str to UReal, optional
        Joint positions (state names ``b_q``) that are parameters of the model too: a
        prismatic joint's displacement itself [m], a revolute joint's angle as
        ``ψ = q₀ + 2 tan((q − q₀)/2)`` (:func:`~titop_lpv.linear.values.rotation`), ``q₀``
        its value in ``op``.
    input_eq : mapping of str to UReal, optional
        Wrench inputs (names ``<body>_Fx`` …) whose equilibrium value [N, N m] is a
        parameter: a free input of the trim that balances loads moving with the parameters.
    ends : mapping of (str, float) to ndarray, optional
        Equilibria already trimmed at each uncertain parameter's ends, the others nominal
        (``(name, value) -> x``, the survey's): the check that no spherical joint's or
        quaternion attitude moves reuses them instead of trimming again.

    Returns
    -------
    USS
        States in model order (quaternions as attitude errors ``b_rx b_ry b_rz``); at the
        nominal parameters, the same system as ``linearize(model, op, inputs, outputs)``.

    Raises
    ------
    BlockRouteError
        Loop closures, an uncertain joint geometry, a moving equilibrium (non-zero
        velocity), an output that is neither a state nor a sensor, a configuration parameter
        that is not a revolute or prismatic joint position or an Euler angle, a spherical
        or universal joint position or quaternion attitude that moves with an uncertain
        parameter, an attitude sensor on a body whose attitude is a parameter.
    """
    params = dict(op.params)
    leaves = _Leaves(model, params, uncertain)
    check_model(model, list(uncertain))
    x = np.asarray(op.x, dtype=float)
    spin = op.kind == "spin"
    vel = list(model.velocity_indices())
    if spin:
        check_spin(model, (op.spin or {}).get("body"), params, list(uncertain))
    elif np.max(np.abs(x[vel]), initial=0.0) > 0.0:
        raise BlockRouteError("the block route linearises around static equilibria and steady "
                              "spins: this operating point has velocities and is neither")
    refuse_moving_positions(model, op, uncertain, handled=list(configuration or {}),
                            ends=ends)
    plan = output_plan(model, outputs)
    if spin:
        bad = [o for o, spec in plan.items() if (spec is not None and spec.kind != "qdd")
               or o in op.cyclic]
        if bad:
            raise BlockRouteError(f"outputs {bad}: around a steady spin the block route gives "
                                  "the reduced states (twist, joint states) and q̈")
    kin = kinematics(model, x, params)
    tw0 = [np.asarray(t, dtype=float) for t in kin.tw]
    P = [np.asarray(p, dtype=float) for p in kin.P]
    q0 = np.asarray(kin.q, dtype=float)
    u0 = np.asarray(op.u, dtype=float)
    M = mass_matrix(model, x, params)
    vnames = list(model.velocity_names())
    n = len(model.body_names)
    children: dict[int, list[int]] = {i: [] for i in range(n)}
    for i in range(n):
        if model.parent[i] >= 0:
            children[int(model.parent[i])].append(i)
    config = dict(configuration or {})
    allowed = {f"{b}_q" for i, b in enumerate(model.body_names)
               if model.kind[i] in (REVOLUTE, PRISMATIC)}
    allowed |= {f"{b}_q{j}" for i, b in enumerate(model.body_names)
                if model.kind[i] == UNIVERSAL for j in (1, 2)}
    if model.floating_base and model.attitude == "euler":
        allowed |= set(model.state_names[model.base_index + 9:model.base_index + 12])
    bad = [c for c in config if c not in allowed]
    if bad:
        raise BlockRouteError(f"configuration parameters must be positions of revolute, "
                              f"prismatic (b_q) or universal (b_q1, b_q2) joints or the "
                              f"floating base's Euler angles: {bad} (a spherical joint's "
                              "attitude or a quaternion attitude that moves with the "
                              "parameters is not built by the block route)")
    axis = np.asarray(model.physics(params).axis, dtype=float)
    # attitudes as (P, Pᵀ) pairs: uncertain where a joint position above is a parameter
    PT: list[Any] = [None] * n
    Pv: list[Any] = [None] * n
    Pab: list[Any] = [None] * n
    PabT: list[Any] = [None] * n
    X: list[Any] = [None] * n
    XT: list[Any] = [None] * n
    qv: list[Any] = [float(q) for q in q0]  # joint positions: numbers or the ureal ψ
    base_rates: dict[int, tuple[Value, Value]] = {}
    geometry: dict[int, tuple[Value, Value, Value, Value]] = {}
    for i in range(n):
        par = int(model.parent[i])
        Pab_num = P[i] if par < 0 else P[par].T @ P[i]
        name = f"{model.body_names[i]}_q"
        if model.kind[i] == FREE and model.attitude == "quaternion":  # θ = δr: Γ = 1
            Pab[i], PabT[i], base_rates[i] = P[i], P[i].T, (_EYE3, _EYE3)
        elif model.kind[i] == FREE:
            Pab[i], PabT[i], base_rates[i] = _base_attitude(model, x, config)
        elif model.kind[i] in MULTI_DOF:
            geometry[i] = multi_dof_geometry(model, i, x=x, params=params, config=config)
            Pab[i], PabT[i] = geometry[i][:2]
        elif name in config and model.kind[i] == REVOLUTE:
            R0 = Pab_num @ rotation(axis[i], -q0[i], 0.0)[0]  # the joint's constant rotation
            Rq, RqT = rotation(axis[i], config[name], float(q0[i]))
            Pab[i], PabT[i] = matmul(R0, Rq), matmul(RqT, R0.T)
        else:
            Pab[i], PabT[i] = Pab_num, Pab_num.T
        if name in config:
            qv[i] = config[name]
        if par < 0:
            Pv[i], PT[i] = Pab[i], PabT[i]
        else:
            Pv[i], PT[i] = matmul(Pv[par], Pab[i]), matmul(PabT[i], PT[par])
        sk = (scalar_times(value_matrix([[qv[i]]]), _skew(axis[i]))
              if model.kind[i] == PRISMATIC else np.zeros((3, 3)))  # (*(q t))
        X[i] = stack([[PabT[i], scale(-1.0, matmul(sk, PabT[i]))], [None, PabT[i]]],
                     [3, 3], [3, 3])
        XT[i] = stack([[Pab[i], None], [matmul(Pab[i], sk), Pab[i]]], [3, 3], [3, 3])
    w_load, th_load, gains = load_terms(model, leaves.leaf, leaves.column, PT, u0, inputs,
                                         input_eq or {})
    loop_blocks = _loop_blocks(model, leaves, kin, params, w_load, gains, spin, config)
    g = leaves.column(model.slots.gravity)
    mass = [leaves.leaf(int(model.slots.mass[i])) for i in range(n)]
    com = [leaves.column(model.slots.com[i]) for i in range(n)]
    port = [leaves.column(model.slots.offset[i]) for i in range(n)]
    g_body = [matmul(PT[i], g) for i in range(n)]

    D_P = [dynamic_model_value(mass[i], leaves.matrix(model.slots.inertia[i]), com[i])
           for i in range(n)]
    damp = damping_gains(model, leaves.leaf, leaves.column)
    # nominal twists (a steady spin: the bodies turn with the base, joint rates zero); they
    # move with the equilibrium where a joint position is a parameter
    twv: list[Any] = [np.asarray(tw0[i], dtype=float)[:, None] for i in range(n)]
    spinner = model.body_index(op.spin["body"]) if spin else -1  # the spinning body
    qdv: list[Any] = [0.0] * n  # joint rates: the spinning joint's, zero elsewhere
    if spin and model.kind[spinner] == REVOLUTE:
        qdv[spinner] = float(x[model.qd_index[spinner]])
    rate_param = (op.spin or {}).get("rate_param") if spin else None
    if rate_param in uncertain:  # the spin rate is a parameter: the twists scale with it
        rate0 = float(op.spin["rate"])
        lin = tw0[spinner][:3] if model.kind[spinner] == FREE else np.zeros(3)
        if rate0 == 0.0 or np.max(np.abs(lin)) > 1e-10 * max(1.0, abs(rate0)):
            raise BlockRouteError(f"spin rate {rate_param!r} as a parameter: the nominal rate "
                                  "must be non-zero and the base origin on the spin axis")
        omega = value_matrix([[uncertain[rate_param]]])
        if model.kind[spinner] == FREE:
            twv[spinner] = scalar_times(omega, np.asarray(tw0[spinner], float)[:, None] / rate0)
        else:
            qdv[spinner] = scale(qdv[spinner] / rate0, omega)
    if spin:
        for i in range(n):
            par = int(model.parent[i])
            if model.kind[i] == FREE:
                continue
            S = np.zeros((6, 1))
            S[3:, 0] = axis[i] if model.kind[i] == REVOLUTE else 0.0
            joint_rate = matmul(S, value_matrix([[qdv[i]]]) if not hasattr(qdv[i], "delta")
                                else qdv[i]) if i == spinner else None
            if par >= 0:
                tau = stack([[_EYE3, scale(-1.0, skew_of(port[i]))], [None, _EYE3]], [3, 3],
                            [3, 3])
                twv[i] = add(matmul(X[i], matmul(tau, twv[par])), joint_rate)
            else:
                twv[i] = add(np.zeros((6, 1)), joint_rate)
    # static pass, tips -> root: the wrench each subtree applies to its parent at equilibrium
    W0: list[Any] = [None] * n
    for i in range(n - 1, -1, -1):
        grav = stack([[scale(mass[i], g_body[i])],
                      [matmul(scale(mass[i], skew_of(com[i])), g_body[i])]], [3, 3], [1])
        total = add(grav, w_load.get(i))
        if spin:  # the velocity products at the spin: C(x') D x' (centrifugal, gyroscopic)
            total = add(total, scale(-1.0, velocity_products(D_P[i], twv[i])[0]))
            if i in damp:  # and the damping loads at the nominal twist, −C_d x'
                total = add(total, scale(-1.0, matmul(damp[i], twv[i])))
        for c in children[i]:
            tau_t = stack([[_EYE3, None], [skew_of(port[c]), _EYE3]], [3, 3], [3, 3])
            total = add(total, matmul(tau_t, matmul(XT[c], W0[c])))
        W0[i] = total

    blocks: list[Any] = []
    aliases: dict[str, str] = {}
    for i, b in enumerate(model.body_names):
        kids = {model.body_names[c]: port[c] for c in children[i]}
        blocks.append(rigid_body(b, mass[i], leaves.matrix(model.slots.inertia[i]), com[i],
                                 children=kids, gravity=g_body[i],
                                 theta_gain=th_load.get(i), input_gains=gains.get(i),
                                 gyro=add(velocity_products(D_P[i], twv[i])[1] if spin
                                          else None, damp.get(i))))
        kind = int(model.kind[i])
        if kind == FREE:
            base = model.base_index
            names = linear_state_names(model)[base:base + 12]
            blocks.append(free_joint(b, M[:6, :6]))
            blocks.append(base_integrator(b, names, spin=spin))
            if spin:  # attitude and position are cyclic: no rotation, no position deviation
                blocks.append(zero_source(signals(f"{b}_th", 3) + signals(f"{b}_r", 3),
                                          f"{b}_zero"))
            else:
                blocks.append(base_kinematics(b, names[9:], Pv[i], *base_rates[i]))
            for j in range(6):
                aliases[f"{b}_qdd_fb{j}"] = f"{b}_qdd{j}"
            continue
        if kind in MULTI_DOF:
            more, also = multi_dof_blocks(model, i, x=x, params=params, geometry=geometry[i],
                                          X=X[i], XT=XT[i], W0=W0[i], leaf=leaves.leaf, M=M,
                                          inputs=inputs)
            blocks += more
            aliases.update(also)
            continue
        dX = None
        if kind == REVOLUTE:
            Pr = matmul(Pab[i], _skew(axis[i]))
            dX = matmul(stack([[Pr, None], [None, Pr]], [3, 3], [3, 3]), W0[i])
        elif kind == PRISMATIC:
            dX = matmul(stack([[None, None], [matmul(Pab[i], _skew(axis[i])), None]], [3, 3],
                              [3, 3]), W0[i])
        if model.qdd_column[i] >= 0:  # driven: q̈ is an input, τ an output
            blocks += driven_blocks(model, i, Pab=Pab[i], PabT=PabT[i], X=X[i], XT=XT[i],
                                    dX_W0=dX, axis=axis[i], inputs=inputs)
            continue
        J_ref = 1.0
        if kind != WELD:
            j = vnames.index(f"{b}_qd")
            J_ref = float(M[j, j])
            aliases[f"{b}_qdd_fb"] = f"{b}_qdd"
            cyclic = i == spinner  # a spinning joint's angle is cyclic: left out
            blocks.append(joint_integrator(b, cyclic=cyclic))
            if cyclic:
                blocks.append(zero_source([f"{b}_q"], f"{b}_zero"))
        c_qd = None
        if spin and kind in (REVOLUTE, PRISMATIC):  # [v × r; ω × r] or [ω × t; 0]
            minus_r = -_skew(axis[i])
            v = matmul(np.hstack([_EYE3, np.zeros((3, 3))]), twv[i])
            w = matmul(np.hstack([np.zeros((3, 3)), _EYE3]), twv[i])
            c_qd = (stack([[matmul(minus_r, v)], [matmul(minus_r, w)]], [3, 3], [1])
                    if kind == REVOLUTE else stack([[matmul(minus_r, w)], [None]], [3, 3], [1]))
        c_twist = None
        if i == spinner and kind == REVOLUTE:  # q̇₀ [δv × r; δω × r]: the child's twist turns
            minus_r = -_skew(axis[i])
            c_twist = scalar_times(value_matrix([[qdv[i]]]) if not hasattr(qdv[i], "delta")
                                   else qdv[i], np.kron(np.eye(2), minus_r))
        blocks.append(joint(b, _KIND_NAME[kind], parent=model.parent[i] >= 0, X=X[i],
                            XT=XT[i], dX_W0=dX, RT=PabT[i], axis=axis[i], c_qd=c_qd,
                            c_twist=c_twist,
                            k=leaves.leaf(int(model.slots.k[i])),
                            d=leaves.leaf(int(model.slots.d[i])), J_ref=J_ref,
                            actuated=model.tau_column[i] >= 0
                            and f"{b}_tau" in inputs))
    blocks += loop_blocks
    sensors = [(name, spec) for name, spec in plan.items() if spec is not None]
    if spin or loop_blocks or damp or any(
            spec.kind in ("position", "velocity", "angular_velocity") for _n, spec in sensors):
        for i, b in enumerate(model.body_names):  # twists and positions along the tree
            if model.kind[i] == FREE:
                continue
            par = int(model.parent[i])
            if model.kind[i] in MULTI_DOF:
                blocks.append(multi_dof_kinematics(
                    model, i, X=X[i], S_w=geometry[i][2], port=port[i],
                    P_parent=Pv[par] if par >= 0 else np.eye(3)))
                continue
            dX_v = None
            if spin and model.kind[i] in (REVOLUTE, PRISMATIC) and par >= 0:
                dX_v = dX_twist(int(model.kind[i]), PabT[i], axis[i], port[i], twv[par])
            blocks.append(joint_kinematics(
                b, model.body_names[par] if par >= 0 else None, X=X[i], port=port[i],
                P_parent=Pv[par] if par >= 0 else np.eye(3), P_child=Pv[i], axis=axis[i],
                kind=_KIND_NAME[int(model.kind[i])], q0=qv[i], dX_v=dX_v))
    done: set[int] = set()
    states = linear_state_names(model)
    renamed: dict[str, str] = {}
    for _name, spec in sensors:
        if id(spec) in done:
            continue
        done.add(id(spec))
        b = int(spec.body)
        names = list(model.output_names[spec.columns])
        if (spec.kind == "qdd" and names == [f"{model.body_names[b]}_qdd"]) or (
                spec.kind == "tau" and names == [f"{model.body_names[b]}_tau"]):
            continue  # the joint block's own output
        if spec.kind == "attitude" and not is_certain(Pv[b]):
            raise BlockRouteError(f"output {names}: the attitude of body "
                                  f"{model.body_names[b]!r} moves with a configuration "
                                  "parameter; Euler angles of it are not built by the block "
                                  "route (measure a point's position or the angular velocity)")
        rates = (euler_rates_matrix(dcm_to_euler(P[b], model.euler), model.euler)
                 if spec.kind == "attitude" else None)
        # a sensor named like a state (the angular velocity of a spherical joint's body,
        # `b_wx`, beside its relative rate) gets an internal name
        inner = [f"{nm}__sensor" if nm in states else nm for nm in names]
        renamed.update((nm, i) for nm, i in zip(names, inner) if nm != i)
        blocks.append(sensor(model.body_names[b], spec.kind, inner,
                             point=leaves.column(spec.point), P=Pv[b],
                             body_frame=bool(spec.body_frame), rates=rates))
    G = connect(blocks, list(inputs), [renamed.get(o, o) for o in outputs], aliases=aliases,
                name=model.name)
    G = reorder_states(G, [s for s in states if not spin or s not in op.cyclic])
    if not renamed:
        return G
    return USS._new(G.abcd, G.dt, G.delta, list(G.params.values()), list(G.input_labels),
                    list(outputs), list(G.state_labels), G.name)


def _base_attitude(model: Model, x: np.ndarray, config: Mapping[str, UReal]
                   ) -> tuple[Value, Value, tuple[Value, Value]]:
    """Attitude of the floating base ``P = R_i(ψ) R_j(θ) R_k(φ)``, its transpose, and
    ``(Γ, Γ⁻¹)`` of its Euler angles, each angle a number or a configuration ``ureal``."""
    base = model.base_index
    names = model.state_names[base + 9:base + 12]  # (φ, θ, ψ): third, second, first rotation
    axes = [np.eye(3)[a] for a in check_sequence(model.euler)]
    R, RT = {}, {}
    for k, (state, axis) in enumerate(zip(names[::-1], axes)):  # ψ about i, θ about j, φ about k
        value = config.get(state, float(x[model.state_index(state)]))
        R[k], RT[k] = rotation(axis, value, float(x[model.state_index(state)]))
    P = matmul(matmul(R[0], R[1]), R[2])
    PT = matmul(matmul(RT[2], RT[1]), RT[0])
    # ω = E Θ̇ with Θ in state order (φ, θ, ψ): E = [e_k, R_kᵀ e_j, R_kᵀ R_jᵀ e_i]
    E = stack([[axes[2][:, None], matmul(RT[2], axes[1][:, None]),
                matmul(matmul(RT[2], RT[1]), axes[0][:, None])]], [3], [1, 1, 1])
    Gamma = np.linalg.inv(E) if is_certain(E) else E.inv()
    return P, PT, (Gamma, E)


def _loop_blocks(model: Model, leaves: _Leaves, kin: Any, params: Mapping[str, float],
                 w_load: dict[int, Value], gains: dict[int, dict[str, Value]], spin: bool,
                 config: Mapping[str, UReal]) -> list[USS]:
    """The loop-closure blocks; their nominal wrenches go into ``w_load`` and their outputs
    into the two bodies' ``gains`` (wrench inputs)."""
    lp = model.loops
    if not lp.a.size:
        return []
    if spin or config:
        raise BlockRouteError("loop-closure spring-dampers with a steady spin or with a "
                              "moving (scheduled or covered) configuration: not built by the "
                              "block route")
    ph = model.physics(dict(params))
    blocks = []
    for k in range(lp.a.size):
        a, b = int(lp.a[k]), int(lp.b[k])
        geometry = (np.asarray(kin.r[a], float), np.asarray(kin.P[a], float),
                    np.asarray(ph.loop_point_a[k], float), np.asarray(kin.r[b], float),
                    np.asarray(kin.P[b], float), np.asarray(ph.loop_point_b[k], float))
        comps = [leaves.leaf(int(s)) for s in np.r_[lp.k[k], lp.d[k]]]
        label = f"loop{k}"
        block, Wa, Wb = loop_block(label, model.body_names[a], model.body_names[b],
                                   loop_wrench_terms(geometry), comps)
        blocks.append(block)
        for body, W, side in ((a, Wa, "Wa"), (b, Wb, "Wb")):
            w_load[body] = add(w_load.get(body), W)
            for j in range(6):
                e = np.zeros((6, 1))
                e[j] = 1.0
                gains.setdefault(body, {})[f"{label}_{side}{j}"] = e
    return blocks


def _skew(v: np.ndarray) -> np.ndarray:
    x, y, z = np.asarray(v, dtype=float)
    return np.array([[0.0, -z, y], [z, 0.0, -x], [-y, x, 0.0]])
