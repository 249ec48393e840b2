"""Linear TITOP blocks of spherical, universal and driven joints, and of damping loads.

The same equations as the one-d.o.f. joint of :mod:`titop_lpv.linear.blocks`, around a
static equilibrium (every velocity zero), with ``n_d`` degrees of freedom: position
deviations ``δp`` (``n_d``) and rates ``ν`` (``n_d``), motion subspace
``S = [0; S_ω]`` (6 × n_d, child frame; both joints are rotations about the joint point).

**Spherical joint** ``P_{c/p} = R₀ R(q)``, ``q = q_eq ⊗ exp(δr)`` (the attitude error of
:mod:`titop_lpv.analysis.attitude_error`; states ``b_rx b_ry b_rz`` and ``b_wx b_wy b_wz``):
``R(q) = R(q_eq) (1 + (*δr))``, so ``δp = δr``, ``S_ω = 1`` and ``δṙ = ω_rel`` (the
norm-stabilising term of the quaternion kinematics has no first-order part along
``δr``). Its spring ``τ = −k θ − d ω_rel`` acts through ``θ = log(rest⁻¹ ⊗ q)``, and
``log(exp(θ₀) exp(δr)) = θ₀ + J_r⁻¹(θ₀) δr`` to first order, with the inverse right
Jacobian of SO(3)

``J_r⁻¹(θ) = 1 + ½ (*θ) + (1/|θ|² − (1 + cos|θ|)/(2 |θ| sin|θ|)) (*θ)²``;

so the joint's stiffness matrix is ``K = k J_r⁻¹(θ₀)`` (not symmetric away from the rest).

**Universal joint** ``P_{c/p} = R₀ R(a₁, q₁) R(a₂, q₂)`` (``a₁ = R₀ᵀ a₁ᵖ`` the first axis,
fixed in the parent, ``a₂`` the second, child frame): ``δP = P (*(s₁ δq₁ + a₂ δq₂))`` with
``s₁ = R(a₂, q₂)ᵀ a₁``, so ``S_ω = [s₁, a₂]``. ``s₁`` turns with ``q₂``
(``∂s₁/∂q₂ = s₁ × a₂``), so the joint law ``Sᵀ W_{p→c} = τ`` adds the geometric term
``((s₁ × a₂) · T₀) δq₂`` on the first axis (``W₀ = [F₀; T₀]`` the static wrench the child
applies to the parent, child frame); ``K = diag(k₁, k₂) − [[0, (s₁ × a₂)·T₀], [0, 0]]``.

For both, with ``X`` the map of the parent port's acceleration to the child (6×6):

``a_c = X a_p + S ν̇``,   ``θ_c = R(q₀)ᵀ θ_p + S_ω δp``,
``Wp = Xᵀ W_c + (∂Xᵀ/∂p W₀) δp``,  ``∂Xᵀ/∂p_k W₀ = −[P (*F₀) s_k; P (*T₀) s_k]``,
``ρ = −Sᵀ W_c + K δp + D ν − τ = 0``,  written ``ν̇ = ν̇_fb − J_ref⁻¹ ρ``

(``D = d 1`` spherical, ``diag(d₁, d₂)`` universal; ``τ`` the torque inputs of an actuated
joint; ``J_ref`` the joint's n_d × n_d block of the mass matrix at the equilibrium — the
loop ``ν̇ → a_c → W_c → ρ`` has the unique solution ``ρ = 0`` for any invertible
``J_ref``, as for one d.o.f.).

**Driven joint** (revolute or prismatic, ``motion = "input"``: the TITOP block with its joint
port inverted): the acceleration is the input ``b_qdd``; the block gives the force that
drives it, the output ``b_tau = −Sᵀ W_c`` (deviation), and no joint law (no loop):
``a_c = X a_p + S q̈``, ``θ_c``, ``Wp`` as for a free joint.

**Damping loads** (``F = −c_v v_C`` at a point ``C`` of the body, ``T = −c_ω ω``, velocities
relative to the inertial frame): zero at rest, so they act through the twist deviation only,
``δW = −C_d δx'`` at the origin with
``C_d = c_v [[1, −(*C)], [(*C), −(*C)²]] + c_ω [[0, 0], [0, 1]]``. The twists come from
the twist signals ``b_v*`` carried down the tree through every joint
(:func:`multi_joint_kinematics`, :func:`titop_lpv.linear.sensors.joint_kinematics`,
``δx'_c = X τ_C δx'_p + S ν``) — the configuration Jacobian applied joint by joint, as the
accelerations are — rather than one dense Jacobian term per load: it reuses the blocks the
sensors already need and keeps each body's damping a 6×6 gain on its own twist (its
coefficients ``c_v``, ``c_ω`` then enter once each per body). Around the steady spin of a
revolute joint the load also has a nominal wrench ``−C_d x'₀`` at the nominal twist ``x'₀``
(:mod:`titop_lpv.linear.assemble` adds it to the static wrenches).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import control
import numpy as np

from ..robust.ops import uss
from ..robust.uss import USS
from .blocks import signals
from .values import Value, add, matmul, scalar_times, scale, skew_of, stack, value_matrix

__all__ = [
    "damping_gain",
    "driven_joint",
    "inverse_right_jacobian",
    "multi_integrator",
    "multi_joint",
    "multi_joint_kinematics",
]

_EYE3 = np.eye(3)


def inverse_right_jacobian(theta: np.ndarray) -> np.ndarray:
    """``J_r⁻¹(θ)`` of SO(3): ``log(exp(θ) exp(δ)) = θ + J_r⁻¹(θ) δ + O(δ²)``.

    Parameters
    ----------
    theta : ndarray (3,)
        Rotation vector [rad], ``|θ| < π``.

    Returns
    -------
    ndarray, 3×3

    Examples
    --------
    >>> import numpy as np
    >>> from titop_lpv.linear.blocks_multidof import inverse_right_jacobian
    >>> bool(np.allclose(inverse_right_jacobian(np.zeros(3)), np.eye(3)))
    True
    """
    th = np.asarray(theta, dtype=float).reshape(3)
    K = skew_of(th)
    a = float(np.linalg.norm(th))
    if a < 1e-4:  # the series: 1/a² − (1 + cos a)/(2 a sin a) = 1/12 + a²/720 + …
        c = 1.0 / 12.0 + a * a / 720.0
    else:
        c = 1.0 / (a * a) - (1.0 + np.cos(a)) / (2.0 * a * np.sin(a))
    return np.eye(3) + 0.5 * K + c * (K @ K)


def multi_joint(child: str, *, parent: bool, X: Value, XT: Value, RT: Value,
                S_w: Value, dX_W0: Value | None, K: Value, D: Value,
                J_ref: np.ndarray, positions: Sequence[str], rates: Sequence[str],
                torques: Sequence[str] = (), S_wT: Value | None = None) -> USS:
    """The linear block of a spherical or universal joint around a static equilibrium.

    Parameters
    ----------
    child : str
        The child body (signal prefix).
    parent : bool
        False for a joint to the world (no parent acceleration or rotation inputs).
    X, XT : ndarray or USS, 6×6
        Map of the parent port's acceleration (parent frame) to the child's origin (child
        frame) at the equilibrium, and its transpose.
    RT : ndarray or USS, 3×3
        ``P_{c/p}ᵀ`` at the equilibrium.
    S_w : ndarray or USS, 3×n_d
        Angular part of the motion subspace at the equilibrium, child frame (uncertain
        where it turns with a joint position that is a parameter).
    dX_W0 : ndarray or USS, 6×n_d, optional
        ``∂Xᵀ/∂p W₀``: the static wrench of the child turning into the parent frame
        [N or N m per rad].
    K : ndarray or USS, n_d×n_d
        Stiffness of the joint law (spring and geometric terms) [N m/rad].
    D : ndarray or USS, n_d×n_d
        Damping [N m s/rad].
    J_ref : ndarray, n_d×n_d
        Reference apparent inertia (invertible; any gives the same closed loop).
    positions, rates : sequence of str
        The joint's position-deviation and rate signals (its linear state names).
    torques : sequence of str, optional
        Torque inputs of an actuated joint kept as inputs (n_d names), added to the joint
        law.
    S_wT : ndarray or USS, n_d×3, optional
        ``S_ωᵀ`` (default: the transpose of a certain ``S_w``); give it when ``S_w`` is
        uncertain.

    Returns
    -------
    USS
        Inputs ``c_ap*``, ``c_thp*`` (with a parent), ``c_W*``, the positions, the rates,
        ``c_qdd_fb*`` and the torques; outputs ``c_a*``, ``c_th*``, ``c_Wp*``, ``c_qdd*``.
    """
    n = len(positions)
    if S_wT is None:
        S_wT = np.asarray(S_w, dtype=float).T
    S = stack([[None], [S_w]], [3, 3], [n])
    ST = stack([[None, S_wT]], [n], [3, 3])
    Ji = np.linalg.inv(np.asarray(J_ref, dtype=float))
    groups: list[tuple[list[str], list[Any]]] = []
    if parent:
        groups += [(signals(f"{child}_ap", 6), [X, None, None, None]),
                   (signals(f"{child}_thp", 3), [None, RT, None, None])]
    groups += [(signals(f"{child}_W", 6), [None, None, XT, matmul(Ji, ST)]),
               (list(positions), [None, S_w, dX_W0, matmul(-Ji, K)]),
               (list(rates), [None, None, None, matmul(-Ji, D)]),
               (signals(f"{child}_qdd_fb", n), [S, None, None, np.eye(n)])]
    if torques:
        groups.append((list(torques), [None, None, None, Ji]))
    rows = [[g[1][r] for g in groups] for r in range(4)]
    D_all = stack(rows, [6, 3, 6, n], [len(g[0]) for g in groups])
    return uss(D_all, inputs=[s for g in groups for s in g[0]],
               outputs=signals(f"{child}_a", 6) + signals(f"{child}_th", 3)
               + signals(f"{child}_Wp", 6) + signals(f"{child}_qdd", n),
               name=f"{child}_joint")


def multi_integrator(child: str, positions: Sequence[str], rates: Sequence[str]
                     ) -> control.StateSpace:
    """``ν̇ → (δp, ν)`` of a multi-d.o.f. joint at rest (``δṗ = ν``).

    Parameters
    ----------
    child : str
        The child body.
    positions, rates : sequence of str
        Its position-deviation and rate state names (n_d each).

    Returns
    -------
    control.StateSpace
        Inputs ``c_qdd*``; states and outputs the positions then the rates.
    """
    n = len(positions)
    A = np.block([[np.zeros((n, n)), np.eye(n)], [np.zeros((n, 2 * n))]])
    B = np.vstack([np.zeros((n, n)), np.eye(n)])
    names = [*positions, *rates]
    return control.ss(A, B, np.eye(2 * n), np.zeros((2 * n, n)),
                      inputs=signals(f"{child}_qdd", n), outputs=names, states=names,
                      name=f"{child}_int")


def driven_joint(child: str, kind: str, *, parent: bool, X: Value, XT: Value, RT: Value,
                 dX_W0: Value, axis: np.ndarray) -> USS:
    """The linear block of a driven revolute or prismatic joint (``motion = "input"``).

    Parameters
    ----------
    child : str
        The child body (signal prefix).
    kind : {"revolute", "prismatic"}
        Joint kind.
    parent : bool
        False for a joint to the world.
    X, XT : ndarray or USS, 6×6
        Map of the parent port's acceleration to the child's origin, and its transpose.
    RT : ndarray or USS, 3×3
        ``P_{c/p}ᵀ`` at the equilibrium.
    dX_W0 : ndarray or USS, 6×1
        ``∂Xᵀ/∂q W₀`` [N or N m per rad or m].
    axis : ndarray (3,)
        Unit joint axis, child frame.

    Returns
    -------
    USS
        Inputs ``c_ap*``, ``c_thp*`` (with a parent), ``c_W*``, ``c_q`` and ``c_qdd`` (the
        imposed acceleration); outputs ``c_a*``, ``c_th*``, ``c_Wp*`` and ``c_tau`` (the
        force or torque that drives the joint).
    """
    S = np.zeros((6, 1))
    r_th = np.zeros((3, 1))
    if kind == "revolute":
        S[3:, 0] = r_th[:, 0] = axis
    else:
        S[:3, 0] = axis
    groups: list[tuple[list[str], list[Any]]] = []
    if parent:
        groups += [(signals(f"{child}_ap", 6), [X, None, None, None]),
                   (signals(f"{child}_thp", 3), [None, RT, None, None])]
    groups += [(signals(f"{child}_W", 6), [None, None, XT, -S.T]),
               ([f"{child}_q"], [None, r_th, dX_W0, None]),
               ([f"{child}_qdd"], [S, None, None, None])]
    rows = [[g[1][r] for g in groups] for r in range(4)]
    D = stack(rows, [6, 3, 6, 1], [len(g[0]) for g in groups])
    return uss(D, inputs=[s for g in groups for s in g[0]],
               outputs=signals(f"{child}_a", 6) + signals(f"{child}_th", 3)
               + signals(f"{child}_Wp", 6) + [f"{child}_tau"], name=f"{child}_joint")


def multi_joint_kinematics(child: str, parent: str | None, *, X: Value, port: Value,
                           P_parent: Value, S_w: Value, rates: Sequence[str]) -> USS:
    """Twist and position deviations of ``child`` through a spherical or universal joint.

    ``δx'_c = X τ_C δx'_p + S ν``, ``δr_c = δr_p − P_p (*C) θ_p`` (the joint point does not
    move in the parent).

    Parameters
    ----------
    child : str
        The child body.
    parent : str or None
        The parent body; None for a joint to the world.
    X : ndarray or USS, 6×6
        The joint's map of the parent port's twist (parent frame) to the child's origin.
    port : ndarray or USS, 3×1
        The parent port ``C`` [m], parent frame.
    P_parent : ndarray or USS, 3×3
        The parent's attitude ``P_{p/i}`` at the equilibrium.
    S_w : ndarray or USS, 3×n_d
        Angular part of the motion subspace, child frame.
    rates : sequence of str
        The joint's rate signals.

    Returns
    -------
    USS
        Inputs ``p_v*``, ``p_r*``, ``p_th*`` (with a parent) and the rates; outputs
        ``c_v*`` and ``c_r*``.
    """
    n = len(rates)
    S = stack([[None], [S_w]], [3, 3], [n])
    inputs: list[str] = []
    cols: list[int] = []
    row_v: list[Any] = []
    row_r: list[Any] = []
    if parent is not None:
        tau = stack([[_EYE3, scale(-1.0, skew_of(port))], [None, _EYE3]], [3, 3], [3, 3])
        inputs += signals(f"{parent}_v", 6) + signals(f"{parent}_r", 3) + signals(
            f"{parent}_th", 3)
        cols += [6, 3, 3]
        row_v += [matmul(X, tau), None, None]
        row_r += [None, _EYE3, scale(-1.0, matmul(P_parent, skew_of(port)))]
    inputs += list(rates)
    cols += [n]
    row_v += [S]
    row_r += [None]
    D = stack([row_v, row_r], [6, 3], cols)
    return uss(D, inputs=inputs, outputs=signals(f"{child}_v", 6) + signals(f"{child}_r", 3),
               name=f"{child}_kin")


def damping_gain(c_v: Any, c_w: Any, point: Value) -> Value:
    """``C_d`` of a damping load: ``δW = −C_d δx'`` at the body origin (body frame).

    Parameters
    ----------
    c_v : float or UReal
        Linear coefficient [N s/m] (force ``−c_v v_C`` at the point).
    c_w : float or UReal
        Angular coefficient [N m s/rad] (torque ``−c_ω ω``).
    point : ndarray or USS, 3×1
        The point ``C`` [m], body frame.

    Returns
    -------
    ndarray or USS, 6×6

    Examples
    --------
    >>> import numpy as np
    >>> from titop_lpv.linear.blocks_multidof import damping_gain
    >>> C = damping_gain(2.0, 0.5, np.zeros((3, 1)))
    >>> np.diag(C).tolist()
    [2.0, 2.0, 2.0, 0.5, 0.5, 0.5]
    """
    sp = skew_of(point)
    lin = stack([[_EYE3, scale(-1.0, sp)], [sp, scale(-1.0, matmul(sp, sp))]], [3, 3],
                [3, 3])
    ang = np.zeros((6, 6))
    ang[3:, 3:] = _EYE3
    return add(_times(c_v, lin), scalar_times(_scalar(c_w), ang))


def _scalar(c: Any) -> Value:
    return value_matrix([[c]])


def _times(c: Any, M: Value) -> Value:
    """``c M`` for a number or ``ureal`` ``c`` and a certain or uncertain matrix ``M``."""
    if isinstance(M, np.ndarray):
        return scalar_times(_scalar(c), M)
    return matmul(scalar_times(_scalar(c), np.eye(6)), M)
