"""Linear TITOP blocks around a static equilibrium: rigid bodies, joints, integrators.

Each block is a named static matrix (uncertain when its physical parameters are ``ureal``)
or a certain integrator; :func:`~titop_lpv.linear.connect.connect` assembles them by signal
names. All vectors are in the frame of the body named, twists/accelerations ``[v̇; ω̇]``,
wrenches ``[F; T]`` (docs/design.md §2); ``δ`` (dropped from the names) is the deviation from
the equilibrium, where every velocity is zero.

Signals of a body ``b`` (child ``c`` hanging from a port of ``b``):

========================  ======  =================================================
``b_a0 … b_a5``            6       acceleration of ``b``'s origin ``P`` (its frame)
``b_th0 … b_th2``          3       small rotation of ``b``'s frame, ``P = P₀ (1 + (*θ))``
``b_W0 … b_W5``            6       wrench ``b`` (and its subtree) applies to its parent
                                   at ``P``, in ``b``'s frame
``c_ap0 … c_ap5``          6       acceleration of the port of ``b`` that ``c`` hangs
                                   from, ``b``'s frame
``c_thp0 … c_thp2``        3       rotation of that port's frame (= ``b_th``)
``c_Wp0 … c_Wp5``          6       wrench ``c`` applies to ``b`` at that port, ``b``'s frame
``c_q``, ``c_qd``          1       joint state (integrator outputs)
``c_qdd``                  1       joint acceleration; ``c_qdd_fb`` its feedback input
========================  ======  =================================================

**The rigid body** (the multi-port block of the Satellite Dynamics Toolbox, its parent
port inverted): Newton–Euler at ``P`` (paper eq. 11) at zero velocity, linearised,

``W_b = −D_P a_P + D_P[:, :3] (*g_b) θ + Σ_c τ_cᵀ Wp_c + δW_loads``,  ``ap_c = τ_c a_P``,

with ``g_b = P₀ᵀ g`` gravity in the body frame (its rotation with the body gives the
``θ`` term) and ``τ_c = [[1, −(*p_c)], [0, 1]]`` the kinematic model of the port ``p_c``.

**The joint** (revolute, prismatic, weld) between the port of the parent and the child's
origin, ``P_{c/b}(q) = R₀ exp(q (*r))`` (eq. 16) or ``R₀`` with ``P = C + R₀ q t`` (eq. 24):

``a_c = X a_p + S q̈``, ``θ_c = R(q₀)ᵀ θ_p + r q`` (revolute),
``Wp = Xᵀ W_c + (∂Xᵀ/∂q W₀) q`` (the static wrench ``W₀`` turning with the joint),
``ρ = −Sᵀ W_c + k q + d q̇ − τ = 0`` (spring, damper, actuator along the axis).

The constraint ``ρ = 0`` fixes ``q̈`` only through the loop ``q̈ → a_c → W_c``; the block
writes it as ``q̈ = q̈_fb − ρ / J_ref`` with ``q̈_fb`` fed back from ``q̈``. The closed loop
has the unique solution ``ρ = 0`` for any ``J_ref ≠ 0`` (its loop gain is ``1 − J/J_ref``,
``J`` the apparent inertia of eq. 20), so the assembly is exact; ``J_ref`` is the joint's
diagonal entry of the mass matrix at the equilibrium, which keeps the loop well conditioned.
A floating base is the same with six directions: ``q̈ = q̈_fb + Z_ref⁻¹ W_b`` (the world
applies no wrench). Spherical, universal and driven joints and damping loads follow the same
pattern with matrices (:mod:`titop_lpv.linear.blocks_multidof`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import control
import numpy as np

from ..robust.ops import uss
from ..robust.uss import USS
from .values import Value, add, matmul, scale, skew_of, stack, value_matrix

__all__ = [
    "base_integrator",
    "base_kinematics",
    "free_joint",
    "joint",
    "joint_integrator",
    "rigid_body",
    "signals",
    "zero_source",
]

_EYE3 = np.eye(3)


def signals(prefix: str, n: int) -> list[str]:
    """Names ``prefix0 … prefix{n-1}`` of a vector signal.

    Parameters
    ----------
    prefix : str
        Name of the signal.
    n : int
        Its size.

    Returns
    -------
    list of str
    """
    return [f"{prefix}{i}" for i in range(n)]


def _block(D: Value, inputs: list[str], outputs: list[str], name: str) -> USS:
    return uss(D, inputs=inputs, outputs=outputs, name=name)


def _tau(p: Value) -> Value:
    """``τ = [[1, −(*p)], [0, 1]]`` moving an acceleration from the origin to the point p."""
    return stack([[_EYE3, scale(-1.0, skew_of(p))], [None, _EYE3]], [3, 3], [3, 3])


def _tau_t(p: Value) -> Value:
    """``τᵀ = [[1, 0], [(*p), 1]]`` moving a wrench from the point p to the origin."""
    return stack([[_EYE3, None], [skew_of(p), _EYE3]], [3, 3], [3, 3])


def dynamic_model_value(mass: Any, inertia: Value, com: Value) -> Value:
    """``D_P`` of eq. (4) at the body origin, from possibly uncertain mass properties.

    Parameters
    ----------
    mass : float or UReal
        Mass [kg].
    inertia : ndarray or USS, 3×3
        Inertia at the centre of mass [kg m²], body frame.
    com : ndarray or USS, 3×1
        Vector ``P→B`` [m], body frame.

    Returns
    -------
    ndarray or USS, 6×6
    """
    c = skew_of(com)
    mc = scale(mass, c)
    return stack([[scale(mass, _EYE3), scale(-1.0, mc)],
                  [mc, add(inertia, scale(-1.0, matmul(mc, c)))]], [3, 3], [3, 3])


def rigid_body(name: str, mass: Any, inertia: Value, com: Value, *,
               children: Mapping[str, Value] | None = None, gravity: Value | None = None,
               theta_gain: Value | None = None,
               input_gains: Mapping[str, Value] | None = None,
               gyro: Value | None = None) -> USS:
    """The multi-port rigid-body block of body ``name``, its parent port inverted.

    Parameters
    ----------
    name : str
        Body name (signal prefix).
    mass : float or UReal
        Mass [kg].
    inertia : ndarray or USS, 3×3
        Inertia at the centre of mass [kg m²], body frame.
    com : ndarray or USS, 3×1
        ``P→B`` [m], body frame.
    children : mapping of str to ndarray or USS (3×1), optional
        For each child body, the port it hangs from [m], body frame.
    gravity : ndarray or USS, 3×1, optional
        Gravity at the equilibrium in the body frame, ``g_b = P₀ᵀ g`` [m/s²].
    theta_gain : ndarray or USS, 6×3, optional
        ``∂W_loads/∂θ`` of the loads on the body (wrench at ``P``), added to the gravity term.
    input_gains : mapping of str to ndarray or USS (6×1), optional
        For each external input signal acting on the body, ``∂W_loads/∂u`` at ``P``.
    gyro : ndarray or USS, 6×6, optional
        Around a steady spin: ``∂(C(x') D x')/∂x'`` at the nominal twist (centrifugal and
        gyroscopic terms); adds the twist deviation input ``b_v*``.

    Returns
    -------
    USS
        Inputs ``b_a*``, ``b_th*``, ``c_Wp*`` per child, the input signals; outputs ``b_W*``,
        ``c_ap*`` and ``c_thp*`` per child.
    """
    children = dict(children or {})
    input_gains = dict(input_gains or {})
    D = dynamic_model_value(mass, inertia, com)
    th = None
    if gravity is not None:
        D3 = stack([[scale(mass, _EYE3)], [scale(mass, skew_of(com))]], [3, 3], [3])
        th = matmul(D3, skew_of(gravity))
    th = add(th, theta_gain)
    taus = {c: _tau(p) for c, p in children.items()}
    taus_t = {c: _tau_t(p) for c, p in children.items()}
    n_c, names_u = len(children), list(input_gains)
    col_sizes = [6, 3] + [6] * n_c + [1] * len(names_u)
    row_sizes = [6] + [6, 3] * n_c
    top = [scale(-1.0, D), th, *taus_t.values()]
    top += [input_gains[u] for u in names_u]
    extra = 0
    if gyro is not None:
        top.append(scale(-1.0, gyro))
        col_sizes.append(6)
        extra = 1
    rows = [top]
    for t in taus.values():
        rows += [[t, None] + [None] * (n_c + len(names_u) + extra),
                 [None, _EYE3] + [None] * (n_c + len(names_u) + extra)]
    inputs = signals(f"{name}_a", 6) + signals(f"{name}_th", 3)
    for c in children:
        inputs += signals(f"{c}_Wp", 6)
    inputs += names_u
    if gyro is not None:
        inputs += signals(f"{name}_v", 6)
    outputs = signals(f"{name}_W", 6)
    for c in children:
        outputs += signals(f"{c}_ap", 6) + signals(f"{c}_thp", 3)
    return _block(stack(rows, row_sizes, col_sizes), inputs, outputs, f"{name}_body")


def joint(child: str, kind: str, *, parent: bool, X: Value, dX_W0: Value | None,
          axis: np.ndarray, k: Any, d: Any, J_ref: float, actuated: bool,
          R: np.ndarray | None = None, XT: Value | None = None,
          RT: Value | None = None, c_qd: Value | None = None,
          c_twist: Value | None = None) -> USS:
    """The linear block of a one-d.o.f. joint (``kind`` ``"revolute"`` or ``"prismatic"``)
    or of a weld (``kind`` ``"weld"``), around its equilibrium.

    Parameters
    ----------
    child : str
        The child body (signal prefix).
    kind : {"revolute", "prismatic", "weld"}
        Joint kind.
    parent : bool
        False for a joint to the world (no parent acceleration or rotation inputs).
    X : ndarray or USS, 6×6
        Map of the parent port's acceleration (parent frame) to the child's origin (child
        frame) at the equilibrium.
    dX_W0 : ndarray or USS, 6×1, optional
        ``∂Xᵀ/∂q W₀``: how the static wrench ``W₀`` of the child (child frame) turns into the
        parent frame as the joint moves [N or N m per rad or m]; None for a weld.
    axis : ndarray (3,)
        Unit joint axis, child frame.
    k, d : float or UReal
        Joint stiffness and damping.
    J_ref : float
        Reference apparent inertia (any non-zero value gives the same closed loop).
    actuated : bool
        The joint has a force/torque input ``c_tau``.
    R : ndarray, 3×3, optional
        ``P_{c/p}`` at the equilibrium (child → parent coordinates), when certain.
    XT : ndarray or USS, 6×6, optional
        ``Xᵀ`` (default: the transpose of a certain ``X``).
    RT : ndarray or USS, 3×3, optional
        ``P_{c/p}ᵀ`` (default: the transpose of ``R``); give it when ``R`` is uncertain.
    c_qd : ndarray or USS, 6×1, optional
        Around a steady spin: ``∂c/∂q̇``, the joint rate's velocity-product acceleration
        (``[v × r; ω × r]`` revolute, ``[ω × t; 0]`` prismatic, at the child's nominal twist).
    c_twist : ndarray or USS, 6×6, optional
        Around the steady spin of this joint (rate ``q̇₀``): ``∂c/∂x'_c``,
        ``q̇₀ [[−(*r), 0], [0, −(*r)]]`` on the child's twist deviation (input ``c_v*``).

    Returns
    -------
    USS
        Inputs ``c_ap*``, ``c_thp*`` (with a parent), ``c_W*``, and for a joint with a
        d.o.f. ``c_q``, ``c_qd``, ``c_qdd_fb`` and ``c_tau`` (actuated); outputs ``c_a*``,
        ``c_th*``, ``c_Wp*`` and ``c_qdd``.
    """
    dof = kind != "weld"
    if XT is None:
        XT = np.asarray(X).T
    if RT is None:
        RT = np.asarray(R).T
    S = np.zeros(6)
    if kind == "revolute":
        S[3:] = axis
    elif kind == "prismatic":
        S[:3] = axis
    r_th = np.zeros((3, 1))
    if kind == "revolute":
        r_th[:, 0] = axis
    # column groups: (input names, its entries in the rows a, θ, Wp, q̈)
    groups: list[tuple[list[str], list[Any]]] = []
    if parent:
        groups += [(signals(f"{child}_ap", 6), [X, None, None, None]),
                   (signals(f"{child}_thp", 3), [None, RT, None, None])]
    groups.append((signals(f"{child}_W", 6), [None, None, XT, S[None, :] / J_ref]))
    if dof:
        groups += [([f"{child}_q"], [None, r_th, dX_W0, scale(-1.0 / J_ref, value_matrix([[k]]))]),
                   ([f"{child}_qd"], [c_qd, None, None, scale(-1.0 / J_ref, value_matrix([[d]]))]),
                   ([f"{child}_qdd_fb"], [S[:, None], None, None, np.ones((1, 1))])]
        if c_twist is not None:
            groups.append((signals(f"{child}_v", 6), [c_twist, None, None, None]))
        if actuated:
            groups.append(([f"{child}_tau"], [None, None, None, np.full((1, 1), 1.0 / J_ref)]))
    n_rows = 4 if dof else 3
    rows = [[g[1][r] for g in groups] for r in range(n_rows)]
    rows_sz = [6, 3, 6, 1][:n_rows]
    cols = [len(g[0]) for g in groups]
    inputs = [name for g in groups for name in g[0]]
    outputs = signals(f"{child}_a", 6) + signals(f"{child}_th", 3) + signals(f"{child}_Wp", 6)
    if dof:
        outputs += [f"{child}_qdd"]
    return _block(stack(rows, rows_sz, cols), inputs, outputs, f"{child}_joint")


def free_joint(base: str, Z_ref: np.ndarray) -> USS:
    """The floating base's joint to the world: no wrench is transmitted.

    Parameters
    ----------
    base : str
        The base body (signal prefix).
    Z_ref : ndarray, 6×6
        Reference inertia (any invertible matrix gives the same closed loop; the composite
        inertia of the tree at the base keeps the loop well conditioned).

    Returns
    -------
    USS
        Inputs ``b_W*``, ``b_qdd_fb*``; outputs ``b_a*`` and ``b_qdd*`` (the base's
        spatial acceleration, body frame).
    """
    Zi = np.linalg.inv(Z_ref)
    D = np.block([[np.zeros((6, 6)), np.eye(6)], [Zi, np.eye(6)]])
    return _block(D, signals(f"{base}_W", 6) + signals(f"{base}_qdd_fb", 6),
                  signals(f"{base}_a", 6) + signals(f"{base}_qdd", 6), f"{base}_free")


def joint_integrator(child: str, *, cyclic: bool = False) -> control.StateSpace:
    """``q̈ → (q, q̇)`` of a one-d.o.f. joint.

    Parameters
    ----------
    child : str
        The child body.
    cyclic : bool, optional
        The joint spins steadily: its angle is cyclic and left out (``q̈ → q̇`` only).

    Returns
    -------
    control.StateSpace
        Input ``c_qdd``; states and outputs ``c_q``, ``c_qd`` (``c_qd`` alone if cyclic).
    """
    if cyclic:
        return control.ss([[0.0]], [[1.0]], [[1.0]], [[0.0]], inputs=[f"{child}_qdd"],
                          outputs=[f"{child}_qd"], states=[f"{child}_qd"], name=f"{child}_int")
    names = [f"{child}_q", f"{child}_qd"]
    return control.ss([[0.0, 1.0], [0.0, 0.0]], [[0.0], [1.0]], np.eye(2), np.zeros((2, 1)),
                      inputs=[f"{child}_qdd"], outputs=names, states=names,
                      name=f"{child}_int")


def base_integrator(base: str, state_names: Sequence[str], *, spin: bool = False
                    ) -> control.StateSpace:
    """The 12 states of a floating base around rest: pure integrators.

    Parameters
    ----------
    base : str
        The base body.
    state_names : sequence of str
        Its 12 state names (twist, position, Euler angles) in model order.
    spin : bool, optional
        Around a steady spin of the base: its position and Euler angles are cyclic and
        left out; the twist alone is integrated (input ``b_qdd*``, outputs the twist states
        and ``b_v*``).

    Returns
    -------
    control.StateSpace
        Inputs ``b_qdd*`` (twist rates) and ``b_rate*`` (position and Euler-angle rates, from
        :func:`base_kinematics`); states the 12 base states; outputs the states, ``b_v*``
        (the twist) and ``b_r*`` (the origin's position).
    """
    if spin:
        names = list(state_names[:6])
        return control.ss(np.zeros((6, 6)), np.eye(6), np.vstack([np.eye(6), np.eye(6)]),
                          np.zeros((12, 6)), inputs=signals(f"{base}_qdd", 6),
                          outputs=[*names, *signals(f"{base}_v", 6)], states=names,
                          name=f"{base}_int")
    B = np.eye(12)
    C = np.vstack([np.eye(12), np.eye(12)[:9]])
    return control.ss(np.zeros((12, 12)), B, C, np.zeros((21, 12)),
                      inputs=signals(f"{base}_qdd", 6) + signals(f"{base}_rate", 6),
                      outputs=[*state_names, *signals(f"{base}_v", 6), *signals(f"{base}_r", 3)],
                      states=list(state_names), name=f"{base}_int")


def base_kinematics(base: str, euler_names: Sequence[str], P: Value, rates: Value,
                    omega: Value) -> USS:
    """Position and Euler-angle rates of a floating base around rest, and its small rotation.

    ``δṙ = P₀ δv`` (inertial), ``δΘ̇ = Γ(Θ₀) δω``, ``θ = Γ(Θ₀)⁻¹ δΘ``.

    Parameters
    ----------
    base : str
        The base body.
    euler_names : sequence of str
        Its Euler-angle state names (model order).
    P : ndarray or USS, 3×3
        Its attitude ``P_{b/i}`` at the equilibrium.
    rates : ndarray or USS, 3×3
        ``Γ(Θ₀)``: Euler-angle rates from the body angular velocity.
    omega : ndarray or USS, 3×3
        ``Γ(Θ₀)⁻¹``.

    Returns
    -------
    USS
        Inputs ``b_v*`` and the Euler-angle states; outputs ``b_rate*`` and ``b_th*``.
    """
    D = stack([[P, None, None], [None, rates, None], [None, None, omega]], [3, 3, 3],
              [3, 3, 3])
    return uss(D, inputs=signals(f"{base}_v", 6) + list(euler_names),
               outputs=signals(f"{base}_rate", 6) + signals(f"{base}_th", 3),
               name=f"{base}_kin")


def zero_source(names: Sequence[str], name: str) -> USS:
    """Signals held at zero (a deviation that a steady spin leaves out, e.g. the small
    rotation of a body without gravity or inertial loads).

    Parameters
    ----------
    names : sequence of str
        The signals.
    name : str
        Block name.

    Returns
    -------
    USS
        No input; the outputs ``names``, zero.
    """
    return uss(np.zeros((len(names), 0)), outputs=list(names), name=name)
