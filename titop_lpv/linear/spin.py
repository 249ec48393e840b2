"""Steady spins: what the blocks add around a relative equilibrium (docs/design.md §3).

Around a steady spin the bodies have constant non-zero twists: the Newton–Euler velocity
products ``C(x') D x'`` enter the static wrenches (centrifugal loads) and, through their
Jacobian, the body blocks (gyroscopic and centrifugal terms on the twist deviation); a joint's
velocity-product acceleration ``c`` and its map ``X(q)`` of the parent's twist depend on the
joint motion. The spinning body's cyclic coordinates (a floating base's position and
attitude, or a spinning joint's angle) are left out, as :func:`titop_lpv.linearize` does.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ..model.compiled import Model
from ..multibody.joints import FREE, KIND_NAMES, MULTI_DOF, REVOLUTE, WELD
from .errors import BlockRouteError
from .values import Value, add, matmul, scale, skew_of, stack

__all__ = ["DAMPING_LOAD", "check_spin", "dX_twist", "velocity_products"]

_EYE3 = np.eye(3)
DAMPING_LOAD = 3  # load kind of a damping load (multibody.tables.LoadTable)


def _skew(v: np.ndarray) -> np.ndarray:
    x, y, z = np.asarray(v, dtype=float)
    return np.array([[0.0, -z, y], [z, 0.0, -x], [-y, x, 0.0]])


def check_spin(model: Model, body: Any, params: Mapping[str, float],
               uncertain: Sequence[str] = ()) -> None:
    """Refuse a steady spin the block route does not build, naming why: it builds spins of
    the floating base without gravity and without inertial-frame loads or inputs (the
    base's attitude, cyclic, then enters no block), and spins of a revolute joint on a fixed
    base whose ancestors are welded (its angle is cyclic; the trim has checked that its loads
    keep the spin steady). Around a spin it builds revolute, prismatic and weld joints and an
    Euler-angle floating base only: no spherical, universal or driven joint, quaternion
    attitude, or damping load on a spinning floating base (a damping load on a revolute
    spin is the drag a free actuator torque balances).

    Parameters
    ----------
    model : Model
        The compiled model.
    body : str
        The spinning body.
    params : mapping of str to float
        Parameter values.
    uncertain : sequence of str, optional
        Parameters kept uncertain (gravity must not depend on them).

    Raises
    ------
    BlockRouteError
        Another spinning body; for a floating base, gravity, buoyancy or an inertial-frame
        load or wrench input; a spherical, universal or driven joint, a quaternion attitude,
        a damping load with a spinning floating base (naming the body).
    """
    base = model.body_names[0] if model.floating_base else None
    for i, b in enumerate(model.body_names):
        what = None
        if model.kind[i] in MULTI_DOF:
            what = f"its {KIND_NAMES[int(model.kind[i])]!r} joint"
        elif model.qdd_column[i] >= 0:
            what = "its driven joint"
        elif model.kind[i] == FREE and model.attitude == "quaternion":
            what = "its quaternion attitude"
        elif body == base and np.any((model.loads.kind == DAMPING_LOAD)
                                     & (model.loads.body == i)):
            what = "a damping load (of a spinning floating base)"
        if what:
            raise BlockRouteError(f"body {b!r}: {what} around a steady spin is not built by "
                                  "the block route (use linearize)")
    if body != base:
        i = model.body_index(body) if body in model.body_names else -1
        if i < 0 or model.kind[i] != REVOLUTE or model.floating_base or any(
                model.kind[a] != WELD for a in _ancestors(model, i)):
            raise BlockRouteError(f"steady spin of {body!r}: the block route builds spins of "
                                  "the floating base, and of a revolute joint on a fixed base "
                                  "whose ancestors are welded")
        return  # its loads turn with it: the trim's relative-equilibrium check holds them
    g_slots = np.ravel(model.slots.gravity)
    index = {model.param_names.index(n) for n in uncertain}
    if np.any(model.physics(dict(params)).gravity != 0.0) or any(
            int(p) in index for p in model.slot_param[g_slots]):
        raise BlockRouteError("steady spin under gravity: the block route builds spins "
                              "without gravity")
    lds, wi = model.loads, model.wrench_inputs
    if np.any(lds.kind == 0) or np.any((lds.kind > 0) & ~lds.body_frame) or np.any(
            ~wi.body_frame):
        raise BlockRouteError("steady spin with buoyancy or inertial-frame loads or inputs: "
                              "not built by the block route")


def velocity_products(D: Value, tw: Value) -> tuple[Value, Value]:
    """``p = C(x') D x'`` at the twist ``tw`` and its Jacobian ``∂p/∂x'`` (6×6).

    Parameters
    ----------
    D : ndarray or USS, 6×6
        ``D_P`` of the body at its origin.
    tw : ndarray or USS, 6×1
        Its nominal twist ``[v; ω]`` [m/s, rad/s], body frame.

    Returns
    -------
    (ndarray or USS, ndarray or USS)
        ``p`` (6×1) [N, N m] and ``∂p/∂x'`` (6×6).
    """
    top, bottom = np.hstack([_EYE3, np.zeros((3, 3))]), np.hstack([np.zeros((3, 3)), _EYE3])
    h = matmul(D, tw)
    h_l, h_a = matmul(top, h), matmul(bottom, h)
    D_l, D_a = matmul(top, D), matmul(bottom, D)
    sw, sv = skew_of(matmul(bottom, tw)), skew_of(matmul(top, tw))
    p = stack([[matmul(sw, h_l)], [add(matmul(sv, h_l), matmul(sw, h_a))]], [3, 3], [1])
    J = add(stack([[matmul(sw, D_l)], [add(matmul(sv, D_l), matmul(sw, D_a))]], [3, 3], [6]),
            stack([[None, scale(-1.0, skew_of(h_l))],
                   [scale(-1.0, skew_of(h_l)), scale(-1.0, skew_of(h_a))]], [3, 3], [3, 3]))
    return p, J


def dX_twist(kind: int, PabT: Value, axis: np.ndarray, port: Value, tw_parent: Value
              ) -> Value:
    """``∂X/∂q`` times the parent port's nominal twist: the twist deviation from ``δq``.

    Parameters
    ----------
    kind : int
        Joint kind (revolute or prismatic, :mod:`titop_lpv.multibody.joints`).
    PabT : ndarray or USS, 3×3
        ``P_{c/p}ᵀ`` at the equilibrium.
    axis : ndarray (3,)
        Unit joint axis, child frame.
    port : ndarray or USS, 3×1
        The parent port [m], parent frame.
    tw_parent : ndarray or USS, 6×1
        The parent's nominal twist at its origin, parent frame.

    Returns
    -------
    ndarray or USS, 6×1
    """
    tau = stack([[_EYE3, scale(-1.0, skew_of(port))], [None, _EYE3]], [3, 3], [3, 3])
    xc = matmul(tau, tw_parent)  # twist of the port, parent frame
    rR = scale(-1.0, matmul(_skew(axis), PabT))
    if kind == REVOLUTE:  # ∂Rᵀ/∂q = −(*r) Rᵀ on both halves
        dX = stack([[rR, None], [None, rR]], [3, 3], [3, 3])
    else:  # prismatic: ∂X/∂q = [[0, −(*t) Rᵀ], [0, 0]]
        dX = stack([[None, rR], [None, None]], [3, 3], [3, 3])
    return matmul(dX, xc)


def _ancestors(model: Model, i: int) -> list[int]:
    out = []
    p = int(model.parent[i])
    while p >= 0:
        out.append(p)
        p = int(model.parent[p])
    return out
