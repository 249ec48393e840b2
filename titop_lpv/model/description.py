"""The model description: bodies, joints, loads, inputs, outputs and parameters.

These are plain, frozen records of what the user wrote (in a model file or with the
:class:`~titop_lpv.model.builder.System` builder). Any numeric leaf may be a number or
the name of a parameter. Nothing is checked here: :mod:`titop_lpv.model.validate` checks
the whole description at once and :mod:`titop_lpv.model.compiled` turns it into a
:class:`~titop_lpv.model.compiled.Model`.

Frames (docs/design.md §2): every body has a body frame whose origin ``P`` is its joint point;
its mass properties, ports and joint axis are given in that frame. ``rotation`` is
``P_{a0/b}``: child → parent coordinates at ``q = 0``.
"""

from __future__ import annotations

from dataclasses import MISSING, dataclass, field, fields
from typing import Any, ClassVar, Protocol, Union

import numpy as np

Number = Union[float, str]  # noqa: UP007  a number or a parameter name
Vector = tuple[Number, ...]
Matrix = tuple[tuple[Number, ...], ...]

__all__ = [
    "Body",
    "Buoyancy",
    "Description",
    "Force",
    "Free",
    "Joint",
    "Load",
    "Loop",
    "Output",
    "Parameter",
    "Prismatic",
    "Revolute",
    "Torque",
    "Weld",
    "WrenchInput",
]

OUTPUT_KINDS = (
    "q",
    "qd",
    "qdd",
    "position",
    "attitude",
    "velocity",
    "angular_velocity",
    "acceleration",
)
FRAMES = ("inertial", "body")


def freeze(value: Any) -> Any:
    """Turn array-likes into nested tuples; keep numbers, strings and other leaves as given."""
    if isinstance(value, np.ndarray):
        value = value.tolist()
    if isinstance(value, (list, tuple)):
        return tuple(freeze(v) for v in value)
    if isinstance(value, dict):
        return {k: freeze(v) for k, v in value.items()}
    if isinstance(value, np.generic):
        return value.item()
    return value


class _Record:
    """Frozen dataclass mixin: array-like fields are stored as nested tuples."""

    def __post_init__(self) -> None:
        for f in fields(self):  # type: ignore[arg-type]
            object.__setattr__(self, f.name, freeze(getattr(self, f.name)))


def _record_dict(obj: Any, skip: tuple[str, ...] = ()) -> dict[str, Any]:
    """Fields of a record that differ from their defaults, as plain Python data."""
    out: dict[str, Any] = {}
    for f in fields(obj):
        if f.name in skip:
            continue
        value = getattr(obj, f.name)
        if value is None or (f.default is not MISSING and value == f.default):
            continue
        out[f.name] = _plain(value)
    return out


def _plain(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


@dataclass(frozen=True)
class Parameter(_Record):
    """A named model parameter.

    Attributes
    ----------
    name : str
        Identifier used in numeric fields of the description.
    value : float
        Default (nominal) value, in ``unit``.
    min, max : float or None
        Documented validity range (used by sweeps and uncertainty models).
    unit, description : str
        Free text for reports.
    """

    name: str
    value: Any
    min: Any = None
    max: Any = None
    unit: str = ""
    description: str = ""


@dataclass(frozen=True)
class Joint(_Record):
    """Base class of the joints; ``type`` is the schema's ``joint.type``."""

    type: ClassVar[str] = ""

    @property
    def dof(self) -> int:
        """Number of degrees of freedom of the joint."""
        return {"free": 6, "weld": 0}.get(self.type, 1)

    def to_dict(self) -> dict[str, Any]:
        """The joint as a schema dict (``{"type": ..., ...}``), defaults omitted."""
        return {"type": self.type, **_record_dict(self)}


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
    """

    type: ClassVar[str] = "free"
    position0: Vector = (0.0, 0.0, 0.0)
    euler0: Vector = (0.0, 0.0, 0.0)
    v0: Vector = (0.0, 0.0, 0.0)
    w0: Vector = (0.0, 0.0, 0.0)


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


@dataclass(frozen=True)
class Revolute(_OneDof):
    """Revolute joint about ``axis`` (child frame), eq. (16); ``q`` in rad, torque in N m.

    Attributes
    ----------
    axis, rotation, stiffness, damping, rest, q0, qd0, actuated
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

    Numbers may be parameter names.
    """

    type: ClassVar[str] = "prismatic"


JOINT_TYPES: dict[str, type[Joint]] = {
    cls.type: cls for cls in (Free, Weld, Revolute, Prismatic)
}


@dataclass(frozen=True)
class Body(_Record):
    """A rigid body and the joint that attaches it to its parent.

    Attributes
    ----------
    name : str
        Identifier (letters, digits, underscores).
    joint : Joint
        How the body hangs from its parent.
    parent : str or None
        ``None`` (the world), ``"body"`` (the parent's origin) or ``"body.port"``.
    mass : number
        Mass [kg] (0 allowed for a massless connection body).
    inertia : matrix or None
        Inertia ``I_B`` at the centre of mass [kg m²], body frame; ``None`` = point mass.
    com : vector
        ``PB``: origin → centre of mass [m], body frame.
    ports : dict
        Named points ``name -> PC`` [m], body frame.
    """

    name: str
    joint: Joint
    parent: str | None = None
    mass: Number | None = None
    inertia: Matrix | None = None
    com: Vector = (0.0, 0.0, 0.0)
    ports: dict[str, Vector] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The body as a schema dict."""
        out: dict[str, Any] = {"name": self.name}
        if self.parent is not None:
            out["parent"] = self.parent
        out["joint"] = self.joint.to_dict()
        out["mass"] = self.mass
        if self.inertia is not None:
            out["inertia"] = _plain(self.inertia)
        if tuple(self.com) != (0.0, 0.0, 0.0):
            out["com"] = _plain(self.com)
        if self.ports:
            out["ports"] = _plain(self.ports)
        return out


@dataclass(frozen=True)
class Load(_Record):
    """Base class of the constant external loads.

    Attributes
    ----------
    body : str
        The body the load acts on.
    """

    type: ClassVar[str] = ""
    body: str = ""

    def to_dict(self) -> dict[str, Any]:
        """The load as a schema dict."""
        return {"type": self.type, "body": self.body, **_record_dict(self, skip=("body",))}


@dataclass(frozen=True)
class Buoyancy(Load):
    """Buoyancy ``F = −fraction · m_total · g`` at ``point``, constant in the inertial frame.

    Attributes
    ----------
    body : str
        The body the force acts on.
    point : str
        ``"origin"``, ``"com"`` (default) or a port of the body.
    fraction : number
        Fraction of the total weight ``m_total · g`` that is lifted. Default 1.
    """

    type: ClassVar[str] = "buoyancy"
    point: str = "com"
    fraction: Number = 1.0


@dataclass(frozen=True)
class Force(Load):
    """Constant force [N] at ``point``, components in ``frame`` ("inertial" or "body").

    Attributes
    ----------
    body : str
        The body the force acts on.
    force : vector
        The force [N] (numbers or parameter names).
    point : str
        ``"origin"`` (default), ``"com"`` or a port of the body.
    frame : str
        ``"inertial"`` (default) or ``"body"``: the frame of the components.
    """

    type: ClassVar[str] = "force"
    force: Vector = (0.0, 0.0, 0.0)
    point: str = "origin"
    frame: str = "inertial"


@dataclass(frozen=True)
class Torque(Load):
    """Constant torque [N m], components in ``frame`` ("inertial" or "body").

    Attributes
    ----------
    body : str
        The body the torque acts on.
    torque : vector
        The torque [N m] (numbers or parameter names).
    frame : str
        ``"inertial"`` (default) or ``"body"``: the frame of the components.
    """

    type: ClassVar[str] = "torque"
    torque: Vector = (0.0, 0.0, 0.0)
    frame: str = "inertial"


LOAD_TYPES: dict[str, type[Load]] = {cls.type: cls for cls in (Buoyancy, Force, Torque)}


@dataclass(frozen=True)
class Loop(_Record):
    """Loop-closure spring-damper between two points (paper §3.4, block ``L_C^A``).

    It closes a kinematic loop of the tree compliantly: the relative motion of point ``b``
    with respect to point ``a`` (its motion vector δm_C, eq. of Fig. 14), projected in the
    frame of ``a``'s body, is fed back to an equal and opposite pair of wrenches through a
    diagonal 6×6 stiffness ``K`` and damping ``D``. The spring is at rest when the two points
    coincide and the two body frames are parallel.

    Attributes
    ----------
    a, b : str
        ``"body.port"`` (or ``"body"``, ``"body.com"``) of the two ends, on different bodies.
    stiffness : 6 numbers or parameter names
        ``[k_x, k_y, k_z, k_rx, k_ry, k_rz]``: translational [N/m] along the axes of ``a``'s
        body frame, rotational [N m/rad] (small-angle stiffness; see Notes).
    damping : 6 numbers or parameter names
        ``[d_x, d_y, d_z, d_rx, d_ry, d_rz]`` [N s/m, N m s/rad] on the relative velocity
        and angular velocity, same axes.
    name : str or None
        Label for reports and errors (default ``"<a>-<b>"``).

    Notes
    -----
    With ``δp`` the position of ``b`` relative to ``a`` in ``a``'s frame and ``R`` the
    rotation of ``b``'s frame relative to ``a``'s, the potential is
    ``V = ½ δpᵀ K_t δp + tr(G (I − R))`` with ``G = ½ tr(K_r) I − K_r`` (``V ≈ ½ θᵀ K_r θ``
    for small rotations θ), and the damping is Rayleigh's
    ``½ δṗᵀ D_t δṗ + ½ δωᵀ D_r δω``: the loop is exactly conservative without damping and
    dissipates ``δṗᵀ D_t δṗ + δωᵀ D_r δω`` with it.
    """

    a: str
    b: str
    stiffness: Vector = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
    damping: Vector = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
    name: str | None = None

    @property
    def label(self) -> str:
        """``name``, or ``"<a>-<b>"``."""
        return self.name or f"{self.a}-{self.b}"

    def to_dict(self) -> dict[str, Any]:
        """The loop as a schema dict."""
        return {"a": self.a, "b": self.b, **_record_dict(self, skip=("a", "b"))}


@dataclass(frozen=True)
class WrenchInput(_Record):
    """An external wrench input at a point of a body.

    Adds the six inputs ``<body>_<point>_Fx, …_Fy, …_Fz, …_Tx, …_Ty, …_Tz`` (force [N]
    applied at the point and torque [N m]), components in ``frame``.

    Attributes
    ----------
    body : str
        The body the wrench acts on.
    point : str
        ``"origin"`` (default; the inputs are then ``<body>_Fx`` ...), ``"com"`` or a port
        of the body.
    frame : str
        ``"body"`` (default) or ``"inertial"``: the frame of the components.
    """

    body: str
    point: str = "origin"
    frame: str = "body"

    def to_dict(self) -> dict[str, Any]:
        """The input as a schema dict."""
        return {"body": self.body, **_record_dict(self, skip=("body",))}


@dataclass(frozen=True)
class Output(_Record):
    """A sensor.

    ``type`` is one of ``q``, ``qd``, ``qdd`` (joint of ``body``), ``position`` (of
    ``point``, inertial frame), ``attitude`` (Euler angles of ``body``, model sequence),
    ``velocity``, ``angular_velocity``, ``acceleration`` (inertial velocity / acceleration of
    ``point`` and angular velocity of ``body``, components in ``frame``). ``name`` overrides
    the default signal prefix.

    Attributes
    ----------
    type : str
        The measured quantity (above).
    body : str
        The body measured.
    point : str
        ``"origin"`` (default), ``"com"`` or a port of the body.
    frame : str
        ``"inertial"`` (default) or ``"body"``: the frame of the components of a velocity,
        angular velocity or acceleration.
    name : str or None
        Signal prefix (default ``<body>``, or ``<body>_<point>`` for a point other than the
        origin).
    """

    type: str
    body: str
    point: str = "origin"
    frame: str = "inertial"
    name: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """The output as a schema dict."""
        return {"type": self.type, "body": self.body, **_record_dict(self, ("type", "body"))}


class Description(Protocol):
    """What validation and compilation read from a description (the
    :class:`~titop_lpv.model.builder.System` builder provides it).

    Attributes
    ----------
    name : str
        Model name.
    gravity : tuple
        Gravity [m/s²], inertial frame (numbers or parameter names).
    euler : str
        Euler sequence of the floating base.
    parameters : dict of str to Parameter
    bodies, loads, loops, inputs, outputs : list
        The records, as written.
    problems : list of str
        Schema problems found while reading a dict.
    """

    name: str
    gravity: Any
    euler: str
    parameters: dict[str, Parameter]
    bodies: list[Body]
    loads: list[Load]
    loops: list[Loop]
    inputs: list[WrenchInput]
    outputs: list[Output]
    problems: list[str]

    def to_dict(self) -> dict[str, Any]:
        """The description as a schema dict."""
