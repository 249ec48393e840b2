"""Per-joint assembly of spherical, universal and driven joints, and the checks of what
the block route can build (:mod:`titop_lpv.linear.assemble`).

The block equations are in :mod:`titop_lpv.linear.blocks_multidof`; here the model's data at
the equilibrium (attitudes, the static wrenches ``W₀``, the mass matrix, the numeric leaves
or their ``ureal``) are turned into those blocks, with the joint's linear state names: a
spherical joint's attitude error ``b_rx b_ry b_rz`` and rate ``b_wx b_wy b_wz``, a universal
joint's ``b_q1 b_q2 b_qd1 b_qd2``. A universal joint's angles may be configuration
parameters (:func:`multi_dof_geometry`); a spherical joint's or quaternion attitude that
moves with an uncertain parameter is refused (:func:`refuse_moving_positions`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from ..analysis.attitude_error import reduced_state_names
from ..analysis.operating_point import OperatingPoint
from ..analysis.trim import trim
from ..model.compiled import Model
from ..multibody.joints import (
    FREE,
    KIND_NAMES,
    MULTI_DOF,
    PRISMATIC,
    REVOLUTE,
    SPHERICAL,
    UNIVERSAL,
    WELD,
)
from ..spatial.quaternion import conjugate, log, multiply, normalize, to_dcm
from .blocks import joint_integrator, zero_source
from .blocks_multidof import (
    driven_joint,
    inverse_right_jacobian,
    multi_integrator,
    multi_joint,
    multi_joint_kinematics,
)
from .errors import BlockRouteError
from .values import (
    Value,
    add,
    matmul,
    rotation,
    scalar_times,
    scale,
    skew_of,
    stack,
    value_matrix,
)

__all__ = [
    "check_inputs",
    "check_model",
    "driven_blocks",
    "linear_state_names",
    "multi_dof_blocks",
    "multi_dof_geometry",
    "multi_dof_kinematics",
    "multi_dof_signals",
    "refuse_moving_positions",
]

_TORQUES = {SPHERICAL: ("tau_x", "tau_y", "tau_z"), UNIVERSAL: ("tau1", "tau2")}
_BLOCK_KINDS = (FREE, WELD, REVOLUTE, PRISMATIC, SPHERICAL, UNIVERSAL)


def multi_dof_signals(model: Model, i: int) -> tuple[list[str], list[str]]:
    """The linear position and rate state names of the multi-d.o.f. joint of body ``i``.

    Parameters
    ----------
    model : Model
        The compiled model.
    i : int
        Body index (a spherical or universal joint).

    Returns
    -------
    (list of str, list of str)
        ``[b_rx, b_ry, b_rz], [b_wx, b_wy, b_wz]`` or ``[b_q1, b_q2], [b_qd1, b_qd2]``.
    """
    b = model.body_names[i]
    if model.kind[i] == SPHERICAL:
        return [f"{b}_r{c}" for c in "xyz"], [f"{b}_w{c}" for c in "xyz"]
    return [f"{b}_q1", f"{b}_q2"], [f"{b}_qd1", f"{b}_qd2"]


def linear_state_names(model: Model) -> list[str]:
    """The model's state names with each quaternion ``b_qw … b_qz`` (spherical joints, a
    quaternion floating base) replaced by the attitude error ``b_rx b_ry b_rz``, as
    :func:`titop_lpv.linearize` names them.

    Parameters
    ----------
    model : Model
        The compiled model.

    Returns
    -------
    list of str
    """
    return list(reduced_state_names(model))


def _geometry_slots(model: Model, i: int) -> np.ndarray:
    """Slots of body ``i``'s joint geometry: its rotation and axis, a spherical joint's rest
    quaternion, a universal joint's first axis."""
    slots = [np.ravel(model.slots.rot[i]), np.ravel(model.slots.axis[i])]
    if model.kind[i] == SPHERICAL:
        slots.append(np.ravel(model.slots.extra[i])[0:4])
    elif model.kind[i] in MULTI_DOF:
        slots.append(np.ravel(model.slots.extra[i])[0:3])
    return np.concatenate(slots).astype(int)


def check_inputs(model: Model) -> list[str]:
    """Model inputs the block route does not recognise, one problem line each.

    It knows a one-d.o.f. joint's ``b_tau``, a driven joint's ``b_qdd``, the torques of an
    actuated spherical (``b_tau_x b_tau_y b_tau_z``) or universal (``b_tau1 b_tau2``) joint
    and the six components of each declared wrench input.

    Parameters
    ----------
    model : Model
        The compiled model.

    Returns
    -------
    list of str
    """
    known: set[int] = set()
    for i, b in enumerate(model.body_names):
        col, drv, kind = int(model.tau_column[i]), int(model.qdd_column[i]), int(model.kind[i])
        if drv >= 0 and model.input_names[drv] == f"{b}_qdd":
            known.add(drv)
        if col < 0:
            continue
        names = ([f"{b}_{s}" for s in _TORQUES[kind]] if kind in MULTI_DOF
                 else [f"{b}_tau"] if kind in (REVOLUTE, PRISMATIC) else [])
        if names and tuple(model.input_names[col:col + len(names)]) == tuple(names):
            known.update(range(col, col + len(names)))
    wi = model.wrench_inputs
    for k in range(wi.body.size):
        known.update(range(int(wi.col[k]), int(wi.col[k]) + 6))
    return [f"input {n!r}: not an input the block route knows (use linearize)"
            for c, n in enumerate(model.input_names) if c not in known]


def check_model(model: Model, uncertain: Sequence[str]) -> None:
    """Refuse what the block route cannot express, naming it.

    Parameters
    ----------
    model : Model
        The compiled model.
    uncertain : sequence of str
        The parameters to be kept uncertain.

    Raises
    ------
    BlockRouteError
        A loop-closure attachment point, a joint rotation or axis (a spherical joint's rest
        attitude, a universal joint's first axis) that depends on an uncertain parameter; a
        joint kind without a linear block; an input it does not know; naming the body, the
        joint type or the input.
    """
    problems = []
    index = {model.param_names.index(n) for n in uncertain}
    lp = model.loops
    used = sorted({model.param_names[int(p)] for p in model.slot_param[
        np.r_[np.ravel(lp.point_a), np.ravel(lp.point_b)].astype(int)] if int(p) in index})
    if used:
        problems.append(f"loop-closure attachment points depend on the uncertain "
                        f"parameter(s) {used} (they must be certain)")
    for i, b in enumerate(model.body_names):
        used = sorted({model.param_names[int(p)] for p in
                       model.slot_param[_geometry_slots(model, i)] if int(p) in index})
        if used:
            problems.append(f"body {b!r}: the joint rotation or axis (a spherical joint's "
                            "rest attitude, a universal joint's first axis) depends on the "
                            f"uncertain parameter(s) {used} (the joint geometry must be "
                            "certain)")
        if int(model.kind[i]) not in _BLOCK_KINDS:
            problems.append(f"body {b!r}: its {KIND_NAMES.get(int(model.kind[i]), '?')!r} "
                            "joint has no linear TITOP block (use linearize)")
    problems += check_inputs(model)
    if problems:
        raise BlockRouteError("the block route cannot build this model: " + "; ".join(problems))


MOVE_RTOL = 1e-8  # relative move of a position that the block route cannot follow


def refuse_moving_positions(model: Model, op: OperatingPoint, uncertain: Mapping[str, Any],
                            handled: Sequence[str] = (),
                            ends: Mapping[tuple[str, float], np.ndarray] | None = None
                            ) -> None:
    """Refuse an equilibrium whose spherical or universal joint positions or quaternion
    attitude move with an uncertain parameter: their blocks are built at the nominal
    position, unless it is a configuration parameter (``handled``: a universal joint's
    angles, ``<state>_eq``).

    Only the positions the trim solved for (``op.free``) can move; each is re-trimmed, with
    the same free variables and fixed values, at both ends of each uncertain parameter.

    Parameters
    ----------
    model : Model
        The compiled model.
    op : OperatingPoint
        The nominal static equilibrium.
    uncertain : mapping of str to UReal
        The uncertain parameters (their ``lo``, ``hi``).
    handled : sequence of str, optional
        Positions that are configuration parameters of the blocks (a universal joint's
        ``b_q1``, ``b_q2``): not checked.
    ends : mapping of (str, float) to ndarray, optional
        Equilibria already trimmed at a parameter's end, the others nominal (the survey's,
        :attr:`~titop_lpv.linear.kinds.Survey.ends`): ``(name, value) -> x``; the ends not
        in it are trimmed here.

    Raises
    ------
    BlockRouteError
        Naming the body and the parameter that moves it.
    """
    watch: dict[str, tuple[str, int, int]] = {}  # linear name -> (body, first state, size)
    for i, b in enumerate(model.body_names):
        if model.kind[i] in MULTI_DOF:
            pos, _rates = multi_dof_signals(model, i)
            qi = int(model.q_index[i])
            watch.update({p: (b, qi, 4) if model.kind[i] == SPHERICAL else (b, qi + j, 1)
                          for j, p in enumerate(pos)})
        elif model.kind[i] == FREE and model.attitude == "quaternion":
            watch.update({f"{b}_r{c}": (b, int(model.base_index) + 9, 4) for c in "xyz"})
    moving = {watch[n] for n in op.free if n in watch and n not in handled}
    if not moving or not uncertain:
        return
    if op.kind != "static":  # (no spin with these joints: check_spin refuses it)
        return
    fixed = {n: float(op.u[k]) for k, n in enumerate(model.input_names) if n in op.fixed}
    known = dict(ends or {})
    for name, p in uncertain.items():
        for value in (p.lo, p.hi):
            x_end = known.get((name, float(value)))
            if x_end is None:
                values = {**op.params, name: float(value)}
                if np.max(np.abs(model.dynamics(0.0, op.x, op.u, values)), initial=0.0
                          ) <= op.tolerance:
                    continue  # still an equilibrium (a damper, a spring at rest)
                other = trim(model, free=list(op.free), fixed=fixed, x0=op.x,
                             params=values, tol=op.tolerance)
                if not other.success:
                    continue  # the survey of the box names a failed trim
                x_end = other.x
            for body, start, size in sorted(moving):
                a, b0 = x_end[start:start + size], op.x[start:start + size]
                gap = float(np.max(np.abs(  # the rotation between them [rad], or Δq
                    log(multiply(conjugate(normalize(b0)), normalize(a))) if size == 4
                    else a - b0)))
                if gap > MOVE_RTOL:
                    raise BlockRouteError(
                        f"body {body!r}: its equilibrium attitude moves with the uncertain "
                        f"parameter {name!r} (at {name} = {value:.6g}); the block route has "
                        "no equilibrium parameter for a spherical joint's or a quaternion "
                        "attitude, nor for a universal joint's angles the survey did not "
                        "make parameters (hold the pose with inputs freed in the trim, or "
                        "use the grid route)")


def _dX_W0(Pab: Value, W0: Value, S_w: Value, n: int) -> Value:
    """``∂Xᵀ/∂p W₀ = −[P (*F₀) S_ω; P (*T₀) S_ω]`` (6×n_d)."""
    F0 = matmul(np.hstack([np.eye(3), np.zeros((3, 3))]), W0)
    T0 = matmul(np.hstack([np.zeros((3, 3)), np.eye(3)]), W0)
    top = matmul(matmul(Pab, skew_of(F0)), S_w)
    bottom = matmul(matmul(Pab, skew_of(T0)), S_w)
    return scale(-1.0, stack([[top], [bottom]], [3, 3], [n]))


def multi_dof_geometry(model: Model, i: int, *, x: np.ndarray, params: Mapping[str, float],
                       config: Mapping[str, Any]) -> tuple[Value, Value, Value, Value]:
    """``P_{c/p}``, its transpose, ``S_ω`` and ``S_ωᵀ`` of the multi-d.o.f. joint of body
    ``i`` at the equilibrium ``x``.

    A universal joint's angles may be configuration parameters (``b_q1``, ``b_q2`` in
    ``config``, each the ``ureal`` ``ψ`` of :func:`~titop_lpv.linear.values.rotation`):
    ``P = R(a₁, q₁) R₀ R(a₂, q₂)`` and ``s₁ = R(a₂, q₂)ᵀ R₀ᵀ a₁`` are then uncertain.

    Parameters
    ----------
    model : Model
        The compiled model.
    i : int
        Body index.
    x : ndarray (n_states,)
        The equilibrium state.
    params : mapping of str to float
        Parameter values.
    config : mapping of str to UReal
        Configuration parameters (state names).

    Returns
    -------
    (ndarray or USS, ...)
        ``P``, ``Pᵀ`` (3×3), ``S_ω`` (3×n_d), ``S_ωᵀ``.
    """
    ph = model.physics(dict(params))
    R0 = np.asarray(ph.rot, dtype=float)[i]
    qi = int(model.q_index[i])
    if model.kind[i] == SPHERICAL:
        P = R0 @ to_dcm(normalize(np.asarray(x[qi:qi + 4], dtype=float)))
        return P, P.T, np.eye(3), np.eye(3)
    a1 = np.asarray(ph.extra, dtype=float)[i, 0:3]
    a1 = a1 / np.linalg.norm(a1)
    a2 = np.asarray(ph.axis, dtype=float)[i]
    pos, _rates = multi_dof_signals(model, i)
    q1, q2 = float(x[qi]), float(x[qi + 1])
    R1, R1T = rotation(a1, config.get(pos[0], q1), q1)
    R2, R2T = rotation(a2, config.get(pos[1], q2), q2)
    a1c = (R0.T @ a1)[:, None]
    s1, s1T = matmul(R2T, a1c), matmul(a1c.T, R2)
    return (matmul(matmul(R1, R0), R2), matmul(matmul(R2T, R0.T), R1T),
            stack([[s1, a2[:, None]]], [3], [1, 1]), stack([[s1T], [a2[None, :]]], [1, 1], [3]))


def multi_dof_blocks(model: Model, i: int, *, x: np.ndarray, params: Mapping[str, float],
                     geometry: tuple[Value, Value, Value, Value], X: Value, XT: Value,
                     W0: Value, leaf: Callable[[int], Any], M: np.ndarray,
                     inputs: Sequence[str]) -> tuple[list[Any], dict[str, str]]:
    """The joint block, integrator (and zero torques) of the spherical or universal joint of
    body ``i`` at the static equilibrium ``x``.

    Parameters
    ----------
    model : Model
        The compiled model.
    i : int
        Body index.
    x : ndarray (n_states,)
        The equilibrium state.
    params : mapping of str to float
        Parameter values at the equilibrium.
    geometry : tuple
        ``(P, Pᵀ, S_ω, S_ωᵀ)`` from :func:`multi_dof_geometry`.
    X, XT : ndarray or USS, 6×6
        The joint's acceleration map and its transpose.
    W0 : ndarray or USS, 6×1
        The static wrench the child's subtree applies to the parent at ``P``, child frame.
    leaf : callable
        Slot → number or ``ureal``.
    M : ndarray
        The mass matrix at ``x``.
    inputs : sequence of str
        The model inputs kept.

    Returns
    -------
    blocks : list
    aliases : dict
        ``c_qdd_fb* → c_qdd*``.
    """
    b = model.body_names[i]
    par = int(model.parent[i])
    pos, rates = multi_dof_signals(model, i)
    n = len(pos)
    Pab, PabT, S_w, S_wT = geometry
    k, d = leaf(int(model.slots.k[i])), leaf(int(model.slots.d[i]))
    extra = np.ravel(model.slots.extra[i])
    if model.kind[i] == SPHERICAL:
        qi = int(model.q_index[i])
        rest = np.asarray(model.physics(dict(params)).extra, dtype=float)[i, 0:4]
        theta0 = log(multiply(conjugate(normalize(rest)), np.asarray(x[qi:qi + 4], float)))
        K = scalar_times(value_matrix([[k]]), inverse_right_jacobian(theta0))
        D = scalar_times(value_matrix([[d]]), np.eye(3))
    else:
        k2, d2 = leaf(int(extra[3])), leaf(int(extra[4]))
        # s₁ turns with q₂: ∂(Sᵀ W)/∂q₂ = ((s₁ × a₂) · T₀) = s₁ᵀ (*a₂) T₀ on the first axis
        a2 = np.asarray(model.physics(dict(params)).axis, dtype=float)[i]
        s1T = matmul(np.array([[1.0, 0.0]]), S_wT)
        geo = matmul(s1T, matmul(skew_of(a2), matmul(
            np.hstack([np.zeros((3, 3)), np.eye(3)]), W0)))
        K = add(value_matrix([[k, 0.0], [0.0, k2]]),
                scale(-1.0, stack([[None, geo], [None, None]], [1, 1], [1, 1])))
        D = value_matrix([[d, 0.0], [0.0, d2]])
    vnames = list(model.velocity_names())
    idx = [vnames.index(r) for r in rates]
    col = int(model.tau_column[i])
    names = list(model.input_names[col:col + n]) if col >= 0 else []
    torques = names if any(t in inputs for t in names) else []
    blocks: list[Any] = [
        multi_joint(b, parent=par >= 0, X=X, XT=XT, RT=PabT, S_w=S_w, S_wT=S_wT,
                    dX_W0=_dX_W0(Pab, W0, S_w, n), K=K, D=D, J_ref=M[np.ix_(idx, idx)],
                    positions=pos, rates=rates, torques=torques),
        multi_integrator(b, pos, rates)]
    idle = [t for t in torques if t not in inputs]
    if idle:
        blocks.append(zero_source(idle, f"{b}_zero_tau"))
    return blocks, {f"{b}_qdd_fb{j}": f"{b}_qdd{j}" for j in range(n)}


def driven_blocks(model: Model, i: int, *, Pab: Value, PabT: Value, X: Value, XT: Value,
                  dX_W0: Value, axis: np.ndarray, inputs: Sequence[str]) -> list[Any]:
    """The joint block and integrator of the driven revolute or prismatic joint of body
    ``i`` (its acceleration held at zero when ``b_qdd`` is not among ``inputs``).

    Parameters
    ----------
    model : Model
        The compiled model.
    i : int
        Body index.
    Pab, PabT : ndarray or USS, 3×3
        ``P_{c/p}`` at the equilibrium and its transpose.
    X, XT : ndarray or USS, 6×6
        The joint's acceleration map and its transpose.
    dX_W0 : ndarray or USS, 6×1
        ``∂Xᵀ/∂q W₀``.
    axis : ndarray (3,)
        Unit axis, child frame.
    inputs : sequence of str
        The model inputs kept.

    Returns
    -------
    list
    """
    b = model.body_names[i]
    kind = "revolute" if model.kind[i] == REVOLUTE else "prismatic"
    blocks: list[Any] = [driven_joint(b, kind, parent=model.parent[i] >= 0, X=X, XT=XT,
                                      RT=PabT, dX_W0=dX_W0, axis=axis),
                         joint_integrator(b)]
    if f"{b}_qdd" not in inputs:
        blocks.append(zero_source([f"{b}_qdd"], f"{b}_zero_qdd"))
    return blocks


def multi_dof_kinematics(model: Model, i: int, *, X: Value, S_w: Value, port: Value,
                         P_parent: Value) -> Any:
    """The twist and position block of the multi-d.o.f. joint of body ``i`` (sensors,
    damping loads).

    Parameters
    ----------
    model : Model
        The compiled model.
    i : int
        Body index.
    X : ndarray or USS, 6×6
        The joint's map of the parent port's twist to the child's origin.
    S_w : ndarray or USS, 3×n_d
        Angular part of the motion subspace, child frame.
    port : ndarray or USS, 3×1
        The parent port [m], parent frame.
    P_parent : ndarray or USS, 3×3
        The parent's attitude.

    Returns
    -------
    USS
    """
    par = int(model.parent[i])
    _pos, rates = multi_dof_signals(model, i)
    return multi_joint_kinematics(
        model.body_names[i], model.body_names[par] if par >= 0 else None,
        X=X, port=port, P_parent=P_parent, S_w=S_w, rates=rates)
