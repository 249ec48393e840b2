"""Joint records of the model description (what the user wrote for ``joint = {...}``).

Frames (docs/design.md §2): ``rotation`` is ``P_{a0/b}``: child → parent coordinates at
``q = 0``; axes are in the child frame unless stated.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from .records import Matrix, Number, Record, Vector, record_dict

__all__ = ["JOINT_TYPES", "Free", "Joint", "Prismatic", "Revolute", "Spherical", "Universal",
           "Weld"]


@dataclass(frozen=True)
class Joint(Record):
    """Base class of the joints; ``type`` is the schema's ``joint.type``."""

    type: ClassVar[str] = ""
    dof: ClassVar[int] = 1
    """Number of degrees of freedom of the joint (a class constant: read once per body of a
    large model)."""

    def to_dict(self) -> dict[str, Any]:
        """The joint as a schema dict (``{"type": ..., ...}``), defaults omitted."""
        return {"type": self.type, **record_dict(self)}


@dataclass(frozen=True)
class Free(Joint):
    """Six-d.o.f. joint of a floating base (root body only).

    Attributes
    ----------
    position0 : vector
        Initial origin position ``IP`` [m], inertial frame.
    euler0 : vector
        Initial Euler angles ``[ψ, θ, φ]`` [rad] in the order the rotations are applied.
    v0, w0 : vector
        Initial twist of the origin (velocity [m/s], angular velocity [rad/s]), body frame.
    attitude : str
        ``"euler"`` (default): the attitude states are the Euler angles ``b_phi b_theta
        b_psi``; ``"quaternion"``: the unit quaternion ``b_qw b_qx b_qy b_qz`` (body frame
        relative to the inertial frame, scalar first), free of gimbal lock.
    q0 : vector
        Initial quaternion ``(w, x, y, z)`` when ``attitude = "quaternion"`` (normalised
        when compiled; ``euler0`` is then unused). Default identity.
    """

    type: ClassVar[str] = "free"
    dof: ClassVar[int] = 6
    position0: Vector = (0.0, 0.0, 0.0)
    euler0: Vector = (0.0, 0.0, 0.0)
    v0: Vector = (0.0, 0.0, 0.0)
    w0: Vector = (0.0, 0.0, 0.0)
    attitude: str = "euler"
    q0: Vector = (1.0, 0.0, 0.0, 0.0)


@dataclass(frozen=True)
class Weld(Joint):
    """Rigid connection, child frame at ``rotation = P_{a0/b}`` to its parent's port.

    Attributes
    ----------
    rotation : matrix or None
        ``P_{a0/b}``: child → parent coordinates (3×3 numbers or parameter names, a proper
        rotation); ``None`` = identity.
    """

    type: ClassVar[str] = "weld"
    dof: ClassVar[int] = 0
    rotation: Matrix | None = None


@dataclass(frozen=True)
class _OneDof(Joint):
    """Common fields of revolute and prismatic joints.

    The joint generalized force is ``τ = −stiffness (q − rest) − damping q̇ (+ u)``
    where ``u`` is the input ``<body>_tau`` when ``actuated``.

    Attributes
    ----------
    axis : vector
        Joint axis in the child frame (normalised; non-zero). Default ``(0, 0, 1)``.
    rotation : matrix or None
        ``P_{a0/b}``: child → parent coordinates at ``q = 0`` (a proper rotation);
        ``None`` = identity.
    stiffness : number
        Joint stiffness [N m/rad for a revolute joint, N/m for a prismatic one]. Default 0.
    damping : number
        Joint damping [N m s/rad, N s/m]. Default 0.
    rest : number
        Position ``q`` at which the spring is at rest [rad, m]. Default 0.
    q0, qd0 : number
        Initial joint position [rad, m] and rate [rad/s, m/s]. Default 0.
    actuated : bool
        Add the input ``<body>_tau`` (torque [N m] or force [N]). Default False.
    motion : str
        ``"free"`` (default): the joint moves under the forces; ``"input"``: the joint is
        driven, its acceleration is the input ``<body>_qdd`` and the force/torque that
        drives it is the output ``<body>_tau`` (TITOP port inversion); stiffness, damping
        and ``actuated`` are then meaningless.

    Numbers may be parameter names.
    """

    axis: Vector = (0.0, 0.0, 1.0)
    rotation: Matrix | None = None
    stiffness: Number = 0.0
    damping: Number = 0.0
    rest: Number = 0.0
    q0: Number = 0.0
    qd0: Number = 0.0
    actuated: bool = False
    motion: str = "free"


@dataclass(frozen=True)
class Revolute(_OneDof):
    """Revolute joint about ``axis`` (child frame), eq. (16); ``q`` in rad, torque in N m.

    Attributes
    ----------
    axis, rotation, stiffness, damping, rest, q0, qd0, actuated, motion
        As in :class:`Prismatic`, with angles in rad, rates in rad/s, stiffness in N m/rad,
        damping in N m s/rad.
    """

    type: ClassVar[str] = "revolute"


@dataclass(frozen=True)
class Prismatic(_OneDof):
    """Prismatic joint along ``axis`` (child frame), eq. (24); ``q`` in m, force in N.

    The joint force is ``τ = −stiffness (q − rest) − damping q̇ (+ u)`` where ``u`` is the
    input ``<body>_tau`` when ``actuated``.

    Attributes
    ----------
    axis : vector
        Joint axis in the child frame (normalised; non-zero). Default ``(0, 0, 1)``.
    rotation : matrix or None
        ``P_{a0/b}``: child → parent coordinates at ``q = 0`` (a proper rotation);
        ``None`` = identity.
    stiffness : number
        Joint stiffness [N/m]. Default 0.
    damping : number
        Joint damping [N s/m]. Default 0.
    rest : number
        Position ``q`` at which the spring is at rest [m]. Default 0.
    q0, qd0 : number
        Initial joint position [m] and rate [m/s]. Default 0.
    actuated : bool
        Add the input ``<body>_tau`` (force [N]). Default False.
    motion : str
        ``"free"`` (default) or ``"input"``: a driven joint, its acceleration the input
        ``<body>_qdd`` [m/s²], its driving force the output ``<body>_tau`` [N].

    Numbers may be parameter names.
    """

    type: ClassVar[str] = "prismatic"


@dataclass(frozen=True)
class Spherical(Joint):
    """Ball joint (3 d.o.f.): attitude quaternion, relative angular velocity in the child frame.

    ``P_{a/b} = P_{a0/b} R(q)`` with ``q = (qw, qx, qy, qz)`` (scalar first) the attitude of
    the child frame relative to the joint frame ``P_{a0/b}``; the states are ``<body>_qw …
    <body>_qz`` and the child-frame relative angular velocity ``<body>_wx … <body>_wz``.
    The spring-damper torque on the child is ``T = −stiffness θ − damping ω_rel`` with
    ``θ`` the rotation vector of ``rest⁻¹ ⊗ q`` (potential ``½ stiffness |θ|²``).

    Attributes
    ----------
    rotation : matrix or None
        ``P_{a0/b}`` (a proper rotation); ``None`` = identity.
    stiffness : number
        Isotropic rotational stiffness [N m/rad]. Default 0.
    damping : number
        Isotropic rotational damping [N m s/rad]. Default 0.
    rest : vector
        Quaternion ``(w, x, y, z)`` at which the spring is at rest. Default identity.
    q0 : vector
        Initial quaternion ``(w, x, y, z)`` (normalised when compiled). Default identity.
    w0 : vector
        Initial relative angular velocity [rad/s], child frame. Default zero.
    actuated : bool
        Add the inputs ``<body>_tau_x <body>_tau_y <body>_tau_z``: a torque [N m] the
        parent applies to the child about the joint point, child-frame components (added
        to the spring-damper torque; the child applies the opposite torque to the parent).
        Default False.

    Numbers may be parameter names.
    """

    type: ClassVar[str] = "spherical"
    dof: ClassVar[int] = 3
    rotation: Matrix | None = None
    stiffness: Number = 0.0
    damping: Number = 0.0
    rest: Vector = (1.0, 0.0, 0.0, 0.0)
    q0: Vector = (1.0, 0.0, 0.0, 0.0)
    w0: Vector = (0.0, 0.0, 0.0)
    actuated: bool = False


@dataclass(frozen=True)
class Universal(Joint):
    """Universal (Cardan) joint (2 d.o.f.): ``P_{a/b} = R(axis1, q1) P_{a0/b} R(axis2, q2)``.

    States ``<body>_q1 <body>_q2 <body>_qd1 <body>_qd2`` [rad, rad/s]. Each axis carries a
    spring-damper ``τ_k = −stiffness_k (q_k − rest_k) − damping_k q̇_k``.

    Attributes
    ----------
    axis1 : vector
        First axis, parent frame (fixed in the parent). Default ``(1, 0, 0)``.
    axis2 : vector
        Second axis, child frame (fixed in the child). Default ``(0, 1, 0)``.
    rotation : matrix or None
        ``P_{a0/b}`` at ``q1 = q2 = 0`` (a proper rotation); ``None`` = identity.
    stiffness, damping, rest, q0, qd0 : number or pair
        Per axis (a number applies to both): [N m/rad], [N m s/rad], [rad], [rad],
        [rad/s]. Default 0.
    actuated : bool
        Add the inputs ``<body>_tau1 <body>_tau2``: a torque [N m] about each axis (the
        generalized force of ``q1``, ``q2``), added to the axis's spring-damper torque.
        Default False.

    Numbers may be parameter names.
    """

    type: ClassVar[str] = "universal"
    dof: ClassVar[int] = 2
    axis1: Vector = (1.0, 0.0, 0.0)
    axis2: Vector = (0.0, 1.0, 0.0)
    rotation: Matrix | None = None
    stiffness: Number | Vector = 0.0
    damping: Number | Vector = 0.0
    rest: Number | Vector = 0.0
    q0: Number | Vector = 0.0
    qd0: Number | Vector = 0.0
    actuated: bool = False


JOINT_TYPES: dict[str, type[Joint]] = {
    cls.type: cls for cls in (Free, Weld, Revolute, Prismatic, Spherical, Universal)
}

