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

from dataclasses import dataclass, field, fields
from itertools import chain
from typing import Any, ClassVar, Protocol

from .joints import (
    JOINT_TYPES,
    Free,
    Joint,
    Prismatic,
    Revolute,
    Spherical,
    Universal,
    Weld,
)
from .records import (
    Matrix,
    Number,
    Record,
    Vector,
    freeze,
    freeze_column,
    plain,
    record_defaults,
    record_dict,
)

__all__ = [
    "JOINT_TYPES",
    "Body",
    "Buoyancy",
    "Damping",
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
    "Spherical",
    "Torque",
    "Universal",
    "Weld",
    "WrenchInput",
    "freeze",
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


@dataclass(frozen=True)
class Parameter(Record):
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
class Body(Record):
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
            out["inertia"] = plain(self.inertia)
        if tuple(self.com) != (0.0, 0.0, 0.0):
            out["com"] = plain(self.com)
        if self.ports:
            out["ports"] = plain(self.ports)
        return out


BODY_KEYS = ("name", "parent", "joint", "mass", "inertia", "com", "ports")  # of a body table
_BODY_DEFAULTS = {"parent": None, "mass": None, "inertia": None, "com": (0.0, 0.0, 0.0)}
_JOINT_KEYS: dict[str, frozenset[str]] = {}  # joint type -> keys of its table


CHUNK = 1024  # bodies read together by bodies_from_tables (see there)


def bodies_from_tables(tables: list[dict[str, Any]]) -> list[Body] | None:
    """The ``bodies`` array of a model file as records, read field by field over all bodies.

    The fast path of a large model: the same records as reading each table alone
    (:meth:`~titop_lpv.model.builder.System.from_dict`), or None when a table needs that
    reading because it has something to report (an unknown key, a missing name or joint
    table, an unknown joint type, ports that are not a table, a null).

    The tables are read :data:`CHUNK` at a time: each field is a pass over the tables, and
    the tables of a few thousand bodies stay in the processor's cache from one pass to
    the next while those of 34 000 do not (read whole, they cost about 40 % more per
    body). Equal vectors and matrices of floats are one object across the chunks.

    Parameters
    ----------
    tables : list of dict
        The body tables (schema: docs/model-file.md).

    Returns
    -------
    list of Body or None
    """
    if not _JOINT_KEYS:
        for kind, cls in JOINT_TYPES.items():
            _JOINT_KEYS[kind] = frozenset(f.name for f in fields(cls) if f.init) | {"type"}
    shared: dict[str, dict[Any, Any]] = {}  # per field: the kept copy of each distinct value
    out: list[Body] = []
    for start in range(0, len(tables), CHUNK):
        part = _bodies_chunk(tables[start:start + CHUNK], shared)
        if part is None:
            return None
        out += part
    return out


def _bodies_chunk(tables: list[dict[str, Any]], shared: dict[str, dict[Any, Any]]
                  ) -> list[Body] | None:
    """:func:`bodies_from_tables` of a few tables; ``shared`` maps each field to the
    ``shared`` argument of its :func:`freeze_column` calls (updated)."""
    if not tables:
        return []
    if not set().union(*map(dict.keys, tables)) <= frozenset(BODY_KEYS):
        return None
    joints: list[Any] = [t.get("joint") for t in tables]
    if set(map(type, joints)) != {dict} or not all([t.get("name") for t in tables]):
        return None
    kinds = [js.get("type") for js in joints]
    if set(map(type, kinds)) != {str}:
        return None
    groups: dict[str, list[dict[str, Any]]] = {}
    for kind, js in zip(kinds, joints):
        groups.setdefault(kind, []).append(js)
    for kind, group in groups.items():
        keys = _JOINT_KEYS.get(kind)
        if keys is None or not set().union(*map(dict.keys, group)) <= keys:
            return None
    port_tables = [t.get("ports", _NO_PORTS) for t in tables]
    if not set(map(type, port_tables)) <= {dict}:
        return None
    columns: dict[str, list[Any]] = {}
    for key in BODY_KEYS:
        if key in ("joint", "ports"):
            continue
        col = _column(tables, key, _BODY_DEFAULTS.get(key), shared.setdefault(key, {}))
        if col is None:
            return None
        columns[key] = col
    vectors = freeze_column(list(chain.from_iterable(p.values() for p in port_tables)),
                            shared.setdefault("ports", {}))
    if vectors is None:
        return None
    flat = iter(vectors)
    defaults = {kind: record_defaults(JOINT_TYPES[kind]) for kind in groups}
    states = [dict(defaults[kind][1]) for kind in kinds]  # each joint's fields
    for key in set().union(*map(dict.keys, joints)) - {"type"}:
        try:  # the common case: every joint has the key
            values, where = [js[key] for js in joints], None
        except KeyError:
            where = [i for i, js in enumerate(joints) if key in js]
            values = [joints[i][key] for i in where]
        col = freeze_column(values, shared.setdefault(f"joint.{key}", {}))
        if col is None:
            return None
        for state, value in (zip(states, col) if where is None else
                             zip(map(states.__getitem__, where), col)):
            state[key] = value
    new, set_state = object.__new__, object.__setattr__  # as records.make, inlined
    out = []
    for name, kind, state, parent, mass, inertia, com, ports in zip(
            columns["name"], kinds, states, columns["parent"], columns["mass"],
            columns["inertia"], columns["com"], port_tables):
        joint = new(defaults[kind][0])
        set_state(joint, "__dict__", state)
        body = new(Body)
        set_state(body, "__dict__", {"parent": parent, "mass": mass, "inertia": inertia,
                                     "com": com, "ports": dict(zip(ports, flat)),
                                     "name": name, "joint": joint})
        out.append(body)
    return out


_NO_PORTS: dict[str, Any] = {}


def _column(tables: list[dict[str, Any]], key: str, default: Any,
            shared: dict[Any, Any]) -> list[Any] | None:
    """The frozen values of ``key`` in every table (``default`` where it is absent), or None
    when one is null; ``shared`` as in :func:`freeze_column`."""
    if all(key in t for t in tables):
        return freeze_column([t[key] for t in tables], shared)
    where = [i for i, t in enumerate(tables) if key in t]
    col = freeze_column([tables[i][key] for i in where], shared)
    if col is None:
        return None
    out = [default] * len(tables)
    for i, value in zip(where, col):
        out[i] = value
    return out


@dataclass(frozen=True)
class Load(Record):
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
        return {"type": self.type, "body": self.body, **record_dict(self, skip=("body",))}


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


@dataclass(frozen=True)
class Damping(Load):
    """Viscous damping of a body against the inertial frame (air drag of a slow balloon).

    The force ``F = −linear · v_C`` acts at ``point`` ``C`` (``v_C``: velocity of ``C``
    relative to the inertial frame) and the torque ``T = −angular · ω`` (``ω``: angular
    velocity of the body relative to the inertial frame); both are isotropic, so their
    frame does not matter. The load dissipates energy.

    Attributes
    ----------
    body : str
        The body the load acts on.
    linear : number
        Translational damping coefficient ``c_v`` [N s/m] (number or parameter name).
        Default 0.
    angular : number
        Rotational damping coefficient ``c_ω`` [N m s/rad] (number or parameter name).
        Default 0.
    point : str
        ``"origin"`` (default), ``"com"`` or a port of the body: where the force acts.
    """

    type: ClassVar[str] = "damping"
    linear: Number = 0.0
    angular: Number = 0.0
    point: str = "origin"


LOAD_TYPES: dict[str, type[Load]] = {cls.type: cls for cls in (Buoyancy, Force, Torque, Damping)}


@dataclass(frozen=True)
class Loop(Record):
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
        return {"a": self.a, "b": self.b, **record_dict(self, skip=("a", "b"))}


@dataclass(frozen=True)
class WrenchInput(Record):
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
        return {"body": self.body, **record_dict(self, skip=("body",))}


@dataclass(frozen=True)
class Output(Record):
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
        return {"type": self.type, "body": self.body, **record_dict(self, ("type", "body"))}


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
