"""Inverse dynamics (recursive Newton–Euler) and the generalized mass matrix.

The inverse-dynamics block diagram of the paper (Fig. 1, eq. 15): motions imposed at every
joint, accelerations propagated root → tips (eqs. 17, 24), Newton–Euler wrenches (eq. 11)
accumulated tips → root (eq. 13). The mass matrix built from it column by column is the
second, independent route against which the forward recursion is tested.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..exceptions import ShapeError
from ..spatial.algebra import dot, matvec, transpose
from .dynamics import bias_wrenches, joint_forces, state_and_input
from .joint_laws import multi_dof_forces
from .joints import FREE, is_one_dof
from .kinematics import Kinematics, kinematics
from .tree import Tree

__all__ = ["InverseDynamics", "inverse_dynamics", "mass_matrix", "velocity_names"]


def velocity_names(model: Tree) -> tuple[str, ...]:
    """Generalized velocities ν: the base twist (if floating) then each joint rate.

    Parameters
    ----------
    model : Model
        The compiled model.

    Returns
    -------
    tuple of str
        State names, as :meth:`Tree.velocity_names <titop_lpv.multibody.tree.Tree.velocity_names>`.
    """
    return model.velocity_names()


@dataclass(frozen=True)
class InverseDynamics:
    """Result of :func:`inverse_dynamics` (``M(q) ν̇ + h(q, ν) = Q``).

    Attributes
    ----------
    names : tuple of str
        Generalized coordinates, as :func:`velocity_names`.
    generalized_force : ndarray, shape (..., n_v)
        ``Q = M ν̇ + h``: base wrench at the base origin (body frame, N and N m) then the
        force/torque each joint must transmit along its axis (N or N m). ``h`` holds the
        Coriolis/centrifugal terms, gravity, the constant loads and the wrench inputs.
    actuation : ndarray, shape (..., n_v − 6 or n_v)
        The joint effort beyond the springs and dampers, per joint rate: what the ``b_tau``
        inputs must be (a driven joint's ``b_tau`` output; a spherical joint: the torque
        [N m] in the child frame, its inputs ``b_tau_x b_tau_y b_tau_z``; a universal
        joint: one torque per axis, its inputs ``b_tau1 b_tau2``).
    base_wrench : ndarray, shape (..., 6)
        ``[F; T]`` to apply at the floating base origin (zeros for a fixed base).
    """

    names: tuple[str, ...]
    generalized_force: np.ndarray
    actuation: np.ndarray
    base_wrench: np.ndarray


def _columns(model: Tree) -> dict[int, slice]:
    """Columns of each moving joint's rates in ν (after the base twist, if floating)."""
    off = 6 if model.floating_base else 0
    cols: dict[int, slice] = {}
    for i in range(len(model.body_names)):
        if model.kind[i] != FREE and model.nv[i]:
            cols[i] = slice(off, off + int(model.nv[i]))
            off += int(model.nv[i])
    return cols


def _rnea(model: Tree, kin: Kinematics, nudot: np.ndarray, u: np.ndarray,
          bias: bool) -> np.ndarray:
    """Recursive Newton–Euler: generalized forces (..., n_v) for accelerations ν̇."""
    n = len(model.body_names)
    ph = kin.phys
    _, p = bias_wrenches(model, kin, u, gravity_and_loads=bias)
    cols = _columns(model)
    batch = np.broadcast_shapes(kin.batch, nudot.shape[:-1])
    zero6 = np.zeros((*batch, 6))
    f: list[Any] = [None] * n
    for i in range(n):
        if model.kind[i] == FREE:
            a = np.broadcast_to(nudot[..., :6], (*batch, 6))
        else:
            par = model.parent[i]
            a = (matvec(kin.X[i], f[par][1]) if par >= 0 else zero6) + kin.c[i]
            if i in kin.S:
                a = a + matvec(kin.S[i], nudot[..., cols[i]])
            elif is_one_dof(model.kind[i]):
                a = a + ph.S[..., i, :] * nudot[..., cols[i].start, None]
        f[i] = [matvec(ph.D[..., i, :, :], a) + p[..., i, :], a]
    n_v = 6 * model.floating_base + sum(c.stop - c.start for c in cols.values())
    out = np.zeros((*batch, n_v), dtype=np.result_type(nudot, p))
    for i in range(n - 1, -1, -1):
        wrench = f[i][0]
        if model.kind[i] == FREE:
            out[..., :6] = wrench
        elif i in kin.S:
            out[..., cols[i]] = matvec(transpose(kin.S[i]), wrench)
        elif is_one_dof(model.kind[i]):
            out[..., cols[i].start] = dot(ph.S[..., i, :], wrench)
        par = model.parent[i]
        if par >= 0:
            f[par][0] = f[par][0] + matvec(transpose(kin.X[i]), wrench)
    return out


def inverse_dynamics(model: Tree, x: Any, acceleration: Any, u: Any = None,
                     params: Any = None) -> InverseDynamics:
    """Joint forces and base wrench that produce given accelerations (recursive Newton–Euler).

    Parameters
    ----------
    model : Tree
        The compiled tree (a :class:`titop_lpv.Model`).
    x : array_like, shape (..., n_states)
        State (configuration and velocities).
    acceleration : array_like, shape (..., n_v)
        Generalized accelerations ν̇ in :func:`velocity_names` order: the base spatial
        acceleration w.r.t. the body frame ``[v̇; ω̇]`` (if floating) then each ``q̈``.
    u : array_like, optional
        Inputs: wrench inputs act as external loads; joint torque inputs (``b_tau``,
        ``b_tau_x …``, ``b_tau1 …``) are ignored (the result *is* the joint effort).
    params : dict or array_like, optional
        Parameter values (a dict ``name -> value`` or an array in ``model.param_names``
        order); defaults when omitted.

    Returns
    -------
    InverseDynamics
    """
    x, u = state_and_input(model, x, u)
    kin = kinematics(model, x, params)
    names = velocity_names(model)
    nudot = np.asarray(acceleration)
    if nudot.ndim == 0 or nudot.shape[-1] != len(names):
        raise ShapeError(f"acceleration must have shape (..., {len(names)}) in the order "
                         f"{list(names)}; got shape {nudot.shape}")
    u_arr = model.check_input(u, kin.batch)
    act = np.flatnonzero(model.tau_column >= 0)
    if act.size:  # joint torques are the unknowns here (a multi-d.o.f. joint: nv columns)
        u_arr = np.array(u_arr, dtype=float, copy=True)
        u_arr[..., np.concatenate([model.tau_column[i] + np.arange(model.nv[i])
                                   for i in act])] = 0.0
    Q = _rnea(model, kin, nudot, u_arr, bias=True)
    off = 6 if model.floating_base else 0
    one_f = joint_forces(model, kin, np.zeros_like(u_arr))
    multi_f = multi_dof_forces(model, np.asarray(x), kin)
    passive = np.zeros((*Q.shape[:-1], Q.shape[-1] - off), dtype=Q.dtype)
    for i, sl in _columns(model).items():
        cols = slice(sl.start - off, sl.stop - off)
        if i in multi_f:
            passive[..., cols] = multi_f[i]
        elif model.qdd_column[i] < 0:  # a driven joint has no spring-damper
            passive[..., cols.start] = one_f[..., i]
    base = Q[..., :6] if off else np.zeros((*Q.shape[:-1], 6))
    return InverseDynamics(names, Q, Q[..., off:] - passive, base)


def mass_matrix(model: Tree, x: Any, params: Any = None) -> np.ndarray:
    """Generalized mass matrix ``M(q)`` (..., n_v, n_v), built column by column from inverse
    dynamics with zero velocities, gravity and loads (all columns in one batched call).

    Parameters
    ----------
    model : Tree
        The compiled tree (a :class:`titop_lpv.Model`).
    x : array_like, shape (..., n_states)
        State(s); only the configuration matters (the velocities are set to zero).
    params : dict or array_like, optional
        Parameter values; defaults when omitted.

    Returns
    -------
    ndarray, shape (..., n_v, n_v)
        In :func:`velocity_names` order.
    """
    x = np.array(model.check_state(x), copy=True)
    for i in range(len(model.body_names)):
        if model.kind[i] != FREE and model.nv[i]:
            x[..., model.qd_index[i]:model.qd_index[i] + model.nv[i]] = 0.0
    if model.floating_base:
        x[..., model.base_index:model.base_index + 6] = 0.0
    kin = kinematics(model, x[..., None, :], params)
    nv = len(velocity_names(model))
    cols = _rnea(model, kin, np.eye(nv), model.check_input(None, kin.batch), bias=False)
    return transpose(cols)
