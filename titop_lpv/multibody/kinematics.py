"""Kinematics: the root → tips sweep of attitudes, positions and twists (paper eqs. 17, 24).

The first half of every multibody algorithm: each body's motion follows from its parent's
through the joint (the TITOP block's kinematic model ``τ`` and the joint DCM). The forward
dynamics (:mod:`titop_lpv.multibody.dynamics`) adds the accelerations to the same result.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..spatial.algebra import cross, matvec, revolute_dcm, skew, transpose, unit
from ..spatial.euler import euler_to_dcm
from ..spatial.quaternion import to_dcm
from .joints import FREE, PRISMATIC, REVOLUTE, SPHERICAL, UNIVERSAL, is_one_dof
from .tables import Physics
from .tree import Tree

__all__ = ["Kinematics", "kinematics", "parent_map"]


@dataclass
class Kinematics:
    """Motion of every body at one evaluation (leading axes: batch).

    :func:`kinematics` fills the motion; the forward dynamics adds ``acc``, ``qdd``, ``J``
    and ``u``. Lists are indexed by body.

    Attributes
    ----------
    P : list of ndarray (..., 3, 3)
        Attitude ``P_{a/i}`` (body → inertial coordinates).
    r : list of ndarray (..., 3)
        Origin position ``IP`` [m], inertial frame.
    tw : list of ndarray (..., 6)
        Twist ``[v_P; ω]`` of the origin, body frame [m/s, rad/s].
    X : list of ndarray (..., 6, 6)
        Map from the parent's twist at its origin to this body's frame at ``P``
        (``None`` for the floating base).
    c : list of ndarray (..., 6)
        Velocity-product term of the joint.
    q, qd : ndarray (..., n_bodies)
        Joint positions and rates (zero for joints without a d.o.f.).
    phys : Physics
        The physical data used.
    batch : tuple of int
        Batch shape.
    dtype : numpy dtype
        Result type (complex under complex-step perturbations).
    acc : list of ndarray (..., 6), optional
        Spatial acceleration w.r.t. the body frame ``[v̇_P; ω̇]`` (forward dynamics).
    qdd : ndarray (..., n_bodies), optional
        Joint accelerations (forward dynamics).
    J : list, optional
        Apparent inertia ``J_r`` of each one-d.o.f. joint (eq. 20), ``None`` otherwise.
    u : ndarray (..., n_inputs), optional
        The inputs used by the forward dynamics.
    S : dict, optional
        Motion subspace ``(..., 6, n_d)`` (child frame) of each spherical or universal
        joint, by body index.
    w_rel : dict, optional
        Their relative angular velocity ``S ν`` (..., 3), child frame.
    qdd_multi : dict, optional
        Their accelerations ``ν̇`` (..., n_d) (forward dynamics).
    tau : dict, optional
        The driving force/torque of each driven joint (forward dynamics).
    IA_base : ndarray (..., 6, 6), optional
        Articulated inertia of the floating base at its origin, body frame (forward
        dynamics; ``None`` for a fixed base).
    """

    P: list[Any]
    r: list[Any]
    tw: list[Any]
    X: list[Any]
    c: list[Any]
    q: np.ndarray
    qd: np.ndarray
    phys: Physics
    batch: tuple[int, ...]
    dtype: Any
    acc: list[Any] | None = None
    qdd: np.ndarray | None = None
    J: list[Any] | None = None
    u: np.ndarray | None = None
    S: dict[int, Any] | None = None
    w_rel: dict[int, Any] | None = None
    qdd_multi: dict[int, Any] | None = None
    tau: dict[int, Any] | None = None
    IA_base: Any = None


def parent_map(PabT: np.ndarray, off: np.ndarray, shift: np.ndarray | None = None
                ) -> np.ndarray:
    """6×6 map from the parent's twist at its origin (parent frame) to the child's frame.

    Parameters
    ----------
    PabT : ndarray (..., 3, 3)
        ``P_{a/b}ᵀ``: parent → child coordinates.
    off : ndarray (..., 3)
        Parent port ``C`` [m], parent frame.
    shift : ndarray (..., 3), optional
        Prismatic displacement ``q t`` [m], child frame.

    Returns
    -------
    ndarray (..., 6, 6)

    ``X = τ(−shift) diag(Pᵀ, Pᵀ) τ(−off)`` (``τ_{P P0}`` of a prismatic joint, the change of
    frame, and ``τ_{C P_parent}``), built block-wise: ``[[Pᵀ, Pᵀ(*−off) + (*−shift)Pᵀ], [0, Pᵀ]]``.
    """
    top_right = PabT @ skew(-off)
    if shift is not None:
        top_right = top_right + skew(-shift) @ PabT
    X = np.zeros((*np.broadcast_shapes(PabT.shape, top_right.shape)[:-2], 6, 6),
                 dtype=np.result_type(PabT, top_right))
    X[..., :3, :3] = PabT
    X[..., 3:, 3:] = PabT
    X[..., :3, 3:] = top_right
    return X


def kinematics(
    model: Tree,
    x: Any,
    params: Any = None,
    *,
    upto: int | None = None,
    phys: Physics | None = None,
) -> Kinematics:
    """Root → tips sweep of positions, attitudes and twists (the motion vectors less ẋ').

    Parameters
    ----------
    model : Tree
        The compiled model.
    x : array_like, shape (..., n_states)
        States.
    params : dict or array_like, optional
        Parameter values (ignored when ``phys`` is given).
    upto : int, optional
        Stop after this body index (its ancestors come first).
    phys : Physics, optional
        Physical data already resolved for these parameters.

    Returns
    -------
    Kinematics
    """
    x = model.check_state(x)
    ph = phys if phys is not None else model.physics(params)
    n = len(model.body_names) if upto is None else upto + 1
    dtype = np.result_type(x, ph.vals)
    batch = np.broadcast_shapes(x.shape[:-1], ph.vals.shape[:-1])
    one = is_one_dof(model.kind)
    qsel = np.where(one, model.q_index, 0)
    q = np.where(one, x[..., qsel], 0.0)
    qd = np.where(one, x[..., np.where(one, model.qd_index, 0)], 0.0)
    P: list[Any] = [None] * n
    r: list[Any] = [None] * n
    tw: list[Any] = [None] * n
    X: list[Any] = [None] * n
    c: list[Any] = [None] * n
    zero3 = np.zeros((*batch, 3), dtype=dtype)
    zero6 = np.zeros((*batch, 6), dtype=dtype)
    S: dict[int, Any] = {}
    w_rel: dict[int, Any] = {}
    for i in range(n):
        kind = model.kind[i]
        if kind == FREE:
            b = model.base_index
            tw[i] = np.broadcast_to(x[..., b:b + 6], (*batch, 6))
            r[i] = np.broadcast_to(x[..., b + 6:b + 9], (*batch, 3))
            P[i] = np.broadcast_to(to_dcm(x[..., b + 9:b + 13]) if model.attitude ==
                                   "quaternion" else euler_to_dcm(x[..., b + 9:b + 12],
                                                                  model.euler), (*batch, 3, 3))
            c[i] = zero6
            continue
        p = model.parent[i]
        if p >= 0:
            Pp, rp, twp = P[p], r[p], tw[p]
        else:  # attached to the world
            Pp, rp, twp = np.eye(3), zero3, zero6
        off = ph.offset[..., i, :]
        R0 = ph.rot[..., i, :, :]
        ax = ph.axis[..., i, :]
        if kind in (SPHERICAL, UNIVERSAL):
            Pab, S[i], w_rel[i], sdot = _multi_dof(model, x, ph, i, R0, ax)
        else:
            Pab = revolute_dcm(R0, ax, q[..., i]) if kind == REVOLUTE else R0
        PabT = transpose(Pab)
        # parent's twist moved to the port C (τ_CP), then projected in the child frame
        v = matvec(PabT, twp[..., :3] + cross(twp[..., 3:], off))
        w = matvec(PabT, twp[..., 3:])
        Pi = Pp @ Pab
        ri = rp + matvec(Pp, off)
        qdi = qd[..., i, None]
        if kind == PRISMATIC:  # eq. (24): P = P0 + x t̃
            qt = q[..., i, None] * ax
            v = v + cross(w, qt) + qdi * ax
            Xi = parent_map(PabT, off, qt)
            ci = np.concatenate((qdi * cross(w, ax), zero3), axis=-1)
            ri = ri + matvec(Pi, qt)
        elif kind == REVOLUTE:  # eq. (17): ω_A = ω_B + θ̇ r̃
            w = w + qdi * ax
            ci = np.concatenate((qdi * cross(v, ax), qdi * cross(w, ax)), axis=-1)
            Xi = parent_map(PabT, off)
        elif kind in (SPHERICAL, UNIVERSAL):  # ω_A = ω_B + ω_rel, c = [v × ω_rel; ω × ω_rel]
            wr = w_rel[i]
            w = w + wr
            cw = cross(w, wr) if sdot is None else cross(w, wr) + sdot
            ci = np.concatenate((cross(v, wr), cw), axis=-1)
            Xi = parent_map(PabT, off)
        else:
            ci = zero6
            Xi = parent_map(PabT, off)
        P[i] = np.broadcast_to(Pi, (*batch, 3, 3))
        r[i] = np.broadcast_to(ri, (*batch, 3))
        X[i], c[i] = Xi, np.broadcast_to(ci, (*batch, 6))
        tw[i] = np.broadcast_to(np.concatenate((v, w), axis=-1), (*batch, 6))
    return Kinematics(P=P, r=r, tw=tw, X=X, c=c, q=q, qd=qd, phys=ph, batch=batch,
                      dtype=dtype, S=S, w_rel=w_rel)


def _multi_dof(model: Tree, x: np.ndarray, ph: Physics, i: int, R0: np.ndarray,
               ax: np.ndarray) -> tuple[Any, Any, Any, Any]:
    """Spherical or universal joint ``i``: ``P_{a/b}``, the motion subspace ``S`` (..., 6,
    n_d), ``ω_rel = S ν`` (child frame) and ``Ṡ ν`` (angular part, or None)."""
    qi, qdi = int(model.q_index[i]), int(model.qd_index[i])
    if model.kind[i] == SPHERICAL:  # P = P0 R(q), ω_rel = w (child frame), S = [0; I]
        Pab = R0 @ to_dcm(x[..., qi:qi + 4])
        wr = x[..., qdi:qdi + 3]
        Sm = np.zeros((6, 3))
        Sm[3:, :] = np.eye(3)
        return Pab, Sm, wr, None
    # universal: P = P0 R(a1c, q1) R(a2, q2), a1c = P0ᵀ a1 (a1 fixed in the parent)
    a1c = matvec(transpose(R0), unit(ph.extra[..., i, 0:3]))
    q1, q2 = x[..., qi], x[..., qi + 1]
    qd1, qd2 = x[..., qdi, None], x[..., qdi + 1, None]
    Pab = revolute_dcm(revolute_dcm(R0, a1c, q1), ax, q2)
    s1 = matvec(transpose(revolute_dcm(np.eye(3), ax, q2)), a1c)  # a1 in the child frame
    s1, a2 = np.broadcast_arrays(s1, ax)
    wr = s1 * qd1 + a2 * qd2
    Sm = np.zeros((*s1.shape[:-1], 6, 2), dtype=s1.dtype)
    Sm[..., 3:, 0] = s1
    Sm[..., 3:, 1] = a2
    return Pab, Sm, wr, qd1 * qd2 * cross(s1, a2)  # Ṡ ν: a1 turns in the child frame
