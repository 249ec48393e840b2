"""Joints with several degrees of freedom (spherical, universal) and driven joints in the
two-sweep TITOP recursion (:mod:`titop_lpv.multibody.dynamics`, docs/design.md §2).

A joint with ``n_d`` degrees of freedom and motion subspace ``S`` (6 × n_d, child frame)
condenses its subtree as a one-d.o.f. joint does (eqs. 20–22), with the apparent inertia a
matrix ``J = Sᵀ Â S`` and the joint force a vector ``τ`` (n_d). A driven joint (``motion =
"input"``, the TITOP block with its joint port inverted) imposes ``q̈``: its subtree is
passed to the parent unreduced with the known acceleration, and the force that drives it
is read on the way down, ``τ = Sᵀ (Â ẋ' + p̂)``.

A spherical joint's quaternion follows ``q̇ = ½ q ⊗ (0, ω_rel) + ½ λ (1 − |q|²) q``; the
second term (:data:`QUATERNION_GAIN` ``λ``) pulls the norm back to 1 at the rate ``λ``
without touching the rotation (it is along ``q``), and the kinematics use ``q / |q|``, so a
drifting norm never changes the motion.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..exceptions import DynamicsError
from ..spatial.algebra import dot, matvec, transpose
from ..spatial.quaternion import conjugate, log, multiply, normalize, rate_matrix
from .joints import SPHERICAL, UNIVERSAL
from .kinematics import Kinematics
from .tree import Tree

__all__ = ["QUATERNION_GAIN", "condense_multi", "driven_wrench", "multi_dof_accelerations",
           "multi_dof_derivatives", "multi_dof_forces", "quaternion_rates"]

QUATERNION_GAIN = 1.0
"""``λ`` [1/s] of the norm-stabilising term of the quaternion kinematics."""


def multi_dof_forces(model: Tree, x: np.ndarray, kin: Kinematics, u: Any = None
                     ) -> dict[int, Any]:
    """Spring-damper (and actuator) force of each spherical or universal joint, by body index.

    Spherical: ``τ = −k θ − d ω_rel (+ u)`` [N m] with ``θ`` the rotation vector of
    ``rest⁻¹ ⊗ q`` (potential ``½ k |θ|²``), child frame. Universal: per axis
    ``τ_k = −k_k (q_k − rest_k) − d_k q̇_k (+ u_k)`` [N m].

    Parameters
    ----------
    model : Tree
        The compiled tree.
    x : ndarray (..., n_states)
        States.
    kin : Kinematics
        The motion at ``x`` (its ``w_rel``).
    u : ndarray (..., n_inputs), optional
        Inputs: an actuated joint adds its torques ``<body>_tau_x …`` / ``<body>_tau1 …``
        (columns ``tau_column[i] …``); omitted: the spring-damper force alone.

    Returns
    -------
    dict
        Body index → force (..., n_d).
    """
    ph = kin.phys
    out: dict[int, Any] = {}
    for i in kin.S:
        qi, qdi, ex = int(model.q_index[i]), int(model.qd_index[i]), ph.extra[..., i, :]
        if model.kind[i] == SPHERICAL:
            theta = log(multiply(conjugate(normalize(ex[..., 0:4])), x[..., qi:qi + 4]))
            out[i] = (-ph.k[..., i, None] * theta - ph.d[..., i, None] * kin.w_rel[i])
        elif model.kind[i] == UNIVERSAL:
            k = np.stack((ph.k[..., i], ex[..., 3]), -1)
            d = np.stack((ph.d[..., i], ex[..., 4]), -1)
            rest = np.stack((ph.rest[..., i], ex[..., 5]), -1)
            out[i] = -k * (x[..., qi:qi + 2] - rest) - d * x[..., qdi:qdi + 2]
        col = int(model.tau_column[i])
        if u is not None and col >= 0:
            out[i] = out[i] + u[..., col:col + int(model.nv[i])]
    return out


def condense_multi(name: str, IA: np.ndarray, pA: np.ndarray, S: np.ndarray, c: np.ndarray,
                   tau: np.ndarray) -> tuple[Any, Any, Any, Any, Any]:
    """Condense a multi-d.o.f. joint's subtree into its parent port (eqs. 20–22, matrix form).

    Parameters
    ----------
    name : str
        Body name (for the error).
    IA, pA : ndarray (..., 6, 6), (..., 6)
        Articulated inertia and bias of the body's subtree at its origin, body frame.
    S : ndarray (..., 6, n_d)
        Motion subspace.
    c : ndarray (..., 6)
        Velocity-product term of the joint.
    tau : ndarray (..., n_d)
        Joint force.

    Returns
    -------
    Ia, pa : ndarray
        The condensed model seen through the joint.
    U, Jinv, uu : ndarray
        ``Â S``, ``J⁻¹`` and ``τ − Sᵀ p̂`` for the way down.

    Raises
    ------
    DynamicsError
        A singular apparent inertia (the subtree has no inertia along some joint direction).
    """
    St = transpose(S)
    U = IA @ S
    J = St @ U
    try:
        Jinv = np.linalg.inv(J)
    except np.linalg.LinAlgError as err:
        raise DynamicsError(f"body {name!r}: the joint's apparent inertia J_r (eq. 20) is "
                            "singular: its subtree has no inertia along some joint direction"
                            ) from err
    uu = tau - matvec(St, pA)
    Ia = IA - U @ Jinv @ transpose(U)
    Ia = 0.5 * (Ia + transpose(Ia))  # symmetric to rounding: else the error grows along chains
    pa = pA + matvec(Ia, c) + matvec(U @ Jinv, uu)
    return Ia, pa, U, Jinv, uu


def multi_dof_accelerations(U: np.ndarray, Jinv: np.ndarray, uu: np.ndarray, a1: np.ndarray
                            ) -> np.ndarray:
    """Joint accelerations ``ν̇ = J⁻¹ (τ − Sᵀ p̂ − Uᵀ a₁)`` (..., n_d) (eq. 22, matrix form).

    Parameters
    ----------
    U, Jinv, uu : ndarray
        From :func:`condense_multi`.
    a1 : ndarray (..., 6)
        The parent's acceleration moved through the joint plus ``c``.

    Returns
    -------
    ndarray (..., n_d)
    """
    return matvec(Jinv, uu - matvec(transpose(U), a1))


def driven_wrench(IA: np.ndarray, pA: np.ndarray, S: np.ndarray, acc: np.ndarray
                  ) -> np.ndarray:
    """Force/torque ``τ = Sᵀ (Â ẋ' + p̂)`` that drives a joint with imposed acceleration.

    Parameters
    ----------
    IA, pA : ndarray (..., 6, 6), (..., 6)
        Articulated inertia and bias of the body's subtree (unreduced).
    S : ndarray (..., 6)
        Motion subspace of the one-d.o.f. joint.
    acc : ndarray (..., 6)
        The body's spatial acceleration.

    Returns
    -------
    ndarray (...)
    """
    return dot(S, matvec(IA, acc) + pA)


def multi_dof_derivatives(model: Tree, x: np.ndarray, kin: Kinematics, xdot: np.ndarray
                          ) -> None:
    """Write the position and rate derivatives of the multi-d.o.f. joints into ``xdot``.

    Parameters
    ----------
    model : Tree
        The compiled tree.
    x : ndarray (..., n_states)
        States.
    kin : Kinematics
        The forward dynamics' result (its ``w_rel`` and ``qdd_multi``).
    xdot : ndarray (..., n_states)
        Filled in place.
    """
    for i in kin.S:
        qi, qdi, nv = int(model.q_index[i]), int(model.qd_index[i]), int(model.nv[i])
        xdot[..., qdi:qdi + nv] = kin.qdd_multi[i]
        if model.kind[i] == SPHERICAL:
            xdot[..., qi:qi + 4] = quaternion_rates(x[..., qi:qi + 4], kin.w_rel[i])
        else:
            xdot[..., qi:qi + nv] = x[..., qdi:qdi + nv]


def quaternion_rates(q: np.ndarray, w: np.ndarray) -> np.ndarray:
    """``q̇ = ½ q ⊗ (0, ω) + ½ λ (1 − |q|²) q`` (λ: :data:`QUATERNION_GAIN`).

    Parameters
    ----------
    q : ndarray (..., 4)
        Quaternions ``(w, x, y, z)`` (near unit).
    w : ndarray (..., 3)
        Angular velocity [rad/s] of the frame the quaternion describes, in that frame.

    Returns
    -------
    ndarray (..., 4)
    """
    norm2 = np.sum(q * q, axis=-1, keepdims=True)
    return matvec(rate_matrix(q), w) + 0.5 * QUATERNION_GAIN * (1.0 - norm2) * q
