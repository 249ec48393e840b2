"""Linear blocks for sensors: twists and positions along the tree, and the sensor outputs.

Around a static equilibrium (every velocity zero) a body's twist deviation follows its
parent's through the same maps as the accelerations (``δx'_c = X τ δx'_p + S δq̇``), and the
origin's position deviation through the joint geometry:

``δr_c = δr_p − P_p (*C) θ_p − P_c (*(q₀ t)) θ_c + P_c t δq``

(``C`` the parent port, ``t`` a prismatic axis; ``δ(P v) = −P (*v) θ``). A sensor is a static
map of these signals and of the accelerations and rotations of
:mod:`titop_lpv.linear.blocks`: for a point ``p`` of body ``b``,

========================  ================================================================
position (inertial)       ``δr_b − P_b (*p) θ_b``
velocity                  ``δv − (*p) δω`` (body frame; ``P_b`` times it, inertial)
angular velocity          ``δω`` (body frame; ``P_b δω``, inertial)
acceleration              ``δv̇ − (*p) δω̇`` (body frame; ``P_b`` times it, inertial)
attitude                  ``Γ(Θ₀) θ_b``: Euler-angle deviations (model sequence)
========================  ================================================================

Signals: ``b_v0 … b_v5`` (twist deviation of the origin, body frame), ``b_r0 … b_r2``
(origin position deviation, inertial frame).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..robust.ops import uss
from ..robust.uss import USS
from .blocks import signals
from .values import Value, matmul, scalar_times, scale, skew_of, stack, value_matrix

__all__ = ["SENSOR_KINDS", "joint_kinematics", "sensor"]

SENSOR_KINDS = ("position", "velocity", "angular_velocity", "acceleration", "attitude", "qdd")
_EYE3 = np.eye(3)


def joint_kinematics(child: str, parent: str | None, *, X: np.ndarray, port: Value,
                     P_parent: np.ndarray, P_child: np.ndarray, axis: np.ndarray, kind: str,
                     q0: float, dX_v: Value | None = None) -> USS:
    """Twist and position deviations of ``child`` from its parent's, through its joint.

    Parameters
    ----------
    child : str
        The child body.
    parent : str or None
        The parent body; None for a joint to the world.
    X : ndarray or USS, 6×6
        The joint's map of the parent port's twist (parent frame) to the child's origin.
    port : ndarray or USS, 3×1
        The parent port ``C`` the child hangs from [m], parent frame.
    P_parent, P_child : ndarray or USS, 3×3
        Attitudes ``P_{·/i}`` at the equilibrium.
    axis : ndarray (3,)
        Unit joint axis, child frame.
    kind : {"revolute", "prismatic", "weld"}
        Joint kind.
    q0 : float or UReal
        Equilibrium joint position (a configuration parameter of a prismatic joint).
    dX_v : ndarray or USS, 6×1, optional
        Around a steady spin: ``∂X/∂q`` times the parent port's nominal twist.

    Returns
    -------
    USS
        Inputs ``p_v*``, ``p_r*``, ``p_th*`` (with a parent), ``c_th*`` and ``c_q``,
        ``c_qd`` (with a d.o.f.); outputs ``c_v*`` and ``c_r*``.
    """
    dof = kind != "weld"
    S = np.zeros((6, 1))
    t = np.zeros((3, 1))
    if kind == "revolute":
        S[3:, 0] = axis
    elif kind == "prismatic":
        S[:3, 0] = axis
        t[:, 0] = axis
    tau = stack([[_EYE3, scale(-1.0, skew_of(port))], [None, _EYE3]], [3, 3], [3, 3])
    inputs: list[str] = []
    cols: list[int] = []
    row_v: list[Any] = []
    row_r: list[Any] = []
    if parent is not None:
        inputs += signals(f"{parent}_v", 6) + signals(f"{parent}_r", 3) + signals(
            f"{parent}_th", 3)
        cols += [6, 3, 3]
        row_v += [matmul(X, tau), None, None]
        row_r += [None, _EYE3, scale(-1.0, matmul(P_parent, skew_of(port)))]
    inputs += signals(f"{child}_th", 3)
    cols += [3]
    row_v += [None]
    row_r += [scale(-1.0, matmul(P_child, scalar_times(value_matrix([[q0]]), _skew(t[:, 0]))))]
    if dof:
        inputs += [f"{child}_q", f"{child}_qd"]
        cols += [1, 1]
        row_v += [dX_v, S]
        row_r += [matmul(P_child, t), None]
    D = stack([row_v, row_r], [6, 3], cols)
    return uss(D, inputs=inputs, outputs=signals(f"{child}_v", 6) + signals(f"{child}_r", 3),
               name=f"{child}_kin")


def sensor(body: str, kind: str, names: list[str], *, point: Value, P: np.ndarray,
           body_frame: bool, rates: np.ndarray | None = None) -> USS:
    """The linear block of one sensor of body ``body``.

    Parameters
    ----------
    body : str
        The body measured.
    kind : str
        One of :data:`SENSOR_KINDS`.
    names : list of str
        The sensor's output signal names (model output names).
    point : ndarray or USS, 3×1
        The measured point [m], body frame.
    P : ndarray or USS, 3×3
        The body's attitude at the equilibrium.
    body_frame : bool
        Components in the body frame (velocity, angular velocity, acceleration).
    rates : ndarray, 3×3, optional
        ``Γ(Θ₀)`` of the body's Euler angles (attitude sensors).

    Returns
    -------
    USS
    """
    turn = _EYE3 if body_frame else P
    if kind == "qdd":
        return uss(np.eye(1), inputs=[f"{body}_qdd"], outputs=names, name=f"{names[0]}_sensor")
    if kind == "attitude":
        return uss(rates, inputs=signals(f"{body}_th", 3), outputs=names,
                   name=f"{names[0]}_sensor")
    if kind == "position":
        D = stack([[_EYE3, scale(-1.0, matmul(P, skew_of(point)))]], [3], [3, 3])
        ins = signals(f"{body}_r", 3) + signals(f"{body}_th", 3)
    elif kind == "angular_velocity":
        D = stack([[None, turn]], [3], [3, 3])
        ins = signals(f"{body}_v", 6)
    else:  # velocity or acceleration of the point: [1, −(*p)] then the frame
        D = stack([[turn, scale(-1.0, matmul(turn, skew_of(point)))]], [3], [3, 3])
        ins = signals(f"{body}_v" if kind == "velocity" else f"{body}_a", 6)
    return uss(D, inputs=ins, outputs=names, name=f"{names[0]}_sensor")


def _skew(v: np.ndarray) -> np.ndarray:
    x, y, z = np.asarray(v, dtype=float)
    return np.array([[0.0, -z, y], [z, 0.0, -x], [-y, x, 0.0]])
