"""The :class:`System` builder and the model-file schema (docs/design.md §4).

A :class:`System` is a mutable description that :meth:`System.compile` validates as a
whole and turns into an immutable :class:`~titop_lpv.model.compiled.Model`. The same
object is produced from a schema dict (:meth:`System.from_dict`, used by
:func:`~titop_lpv.model.files.load_model`) or built in Python::

    s = System("pendulum", gravity=[0, -9.81, 0])
    s.parameter("L", 1.0, unit="m")
    s.body("arm", Revolute(axis=[0, 0, 1], q0=0.3), mass=2.0, com=[0, "L", 0])
    model = s.compile()
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any

from .compiled import Model, compile_system
from .description import (
    JOINT_TYPES,
    LOAD_TYPES,
    Body,
    Buoyancy,
    Damping,
    Force,
    Joint,
    Load,
    Loop,
    Output,
    Parameter,
    Torque,
    WrenchInput,
    bodies_from_tables,
    freeze,
)
from .records import gc_paused, has_null, make, without_nulls

__all__ = ["System"]

_TOP_KEYS = ("name", "gravity", "euler", "parameters", "bodies", "loads", "loops", "inputs",
             "outputs")
_BODY_KEYS = ("name", "parent", "joint", "mass", "inertia", "com", "ports")
_PARAM_KEYS = ("value", "min", "max", "unit", "description")
_BODY_KEY_SET = frozenset(_BODY_KEYS)


class System:
    """Mutable description of a multibody system; :meth:`compile` gives the ``Model``.

    Parameters
    ----------
    name : str
        Model name (reports, file names).
    gravity : vector of 3 numbers or parameter names
        Uniform acceleration field ``g`` [m/s²], inertial frame.
    euler : str
        Euler sequence of floating-base attitudes (see :mod:`titop_lpv.spatial.euler`),
        e.g. ``"321"``.
    """

    def __init__(self, name: str = "model", *, gravity: Any = (0.0, 0.0, 0.0), euler: str = "321"):
        self.name = name
        self.gravity = freeze(gravity)
        self.euler = euler
        self.parameters: dict[str, Parameter] = {}
        self.bodies: list[Body] = []
        self.loads: list[Load] = []
        self.loops: list[Loop] = []
        self.inputs: list[WrenchInput] = []
        self.outputs: list[Output] = []
        self.problems: list[str] = []  # schema problems found while reading a file

    # ------------------------------------------------------------------ building
    def parameter(
        self,
        name: str,
        value: float,
        *,
        min: float | None = None,
        max: float | None = None,
        unit: str = "",
        description: str = "",
    ) -> str:
        """Declare a parameter; returns its name, to be used in numeric fields.

        Parameters
        ----------
        name : str
            Identifier, used in place of a number in numeric fields.
        value : float
            Default (nominal) value, in ``unit``.
        min, max : float, optional
            Declared validity range (checked on run-time values; used by sweeps and
            uncertainty models). Default: unbounded.
        unit, description : str, optional
            Free text for reports.

        Returns
        -------
        str
            ``name``. Declaring a name twice is a problem reported by :meth:`compile`.
        """
        if not isinstance(name, str):
            self.problems.append(f"parameter {name!r}: name must be an identifier")
            return name
        if name in self.parameters:
            self.problems.append(f"parameter {name!r}: declared twice")
        self.parameters[name] = Parameter(name, freeze(value), freeze(min), freeze(max), unit,
                                          description)
        return name

    def body(
        self,
        name: str,
        joint: Joint,
        *,
        parent: str | None = None,
        mass: Any = None,
        inertia: Any = None,
        com: Any = (0.0, 0.0, 0.0),
        ports: dict[str, Any] | None = None,
    ) -> Body:
        """Add a body attached by ``joint`` to ``parent`` (``None``, ``"b"`` or ``"b.port"``).

        Parameters
        ----------
        name : str
            Identifier (letters, digits, underscores).
        joint : Joint
            How the body hangs from its parent: :class:`Free`, :class:`Weld`,
            :class:`Revolute` or :class:`Prismatic`.
        parent : str, optional
            ``None`` (the world: the root body), ``"body"`` (the parent's origin) or
            ``"body.port"``.
        mass : number or str
            Mass [kg] or a parameter name; required (:meth:`compile` reports it missing);
            0 for a massless connection body.
        inertia : 3×3 numbers or parameter names, optional
            Inertia ``I_B`` at the centre of mass [kg m²], body frame (default: a point
            mass).
        com : 3 numbers or parameter names, optional
            ``PB``: origin → centre of mass [m], body frame. Default ``(0, 0, 0)``.
        ports : dict, optional
            Named points ``name -> PC`` [m], body frame (``origin`` and ``com`` are
            reserved).

        Returns
        -------
        Body
        """
        body = Body(
            name=name,
            joint=joint,
            parent=parent,
            mass=mass,  # the record freezes its fields
            inertia=inertia,
            com=com,
            ports=dict(ports or {}),
        )
        self.bodies.append(body)
        return body

    def load(self, load: Load) -> Load:
        """Add a constant external load (:class:`Buoyancy`, :class:`Force`, :class:`Torque`).

        Parameters
        ----------
        load : Load
            The load record.

        Returns
        -------
        Load
            ``load``.
        """
        self.loads.append(load)
        return load

    def buoyancy(self, body: str, point: str = "com", fraction: Any = 1.0) -> Load:
        """Add buoyancy ``−fraction · m_total · g`` at ``point`` of ``body``.

        Parameters
        ----------
        body : str
            The body the force acts on.
        point : str, optional
            ``"com"`` (default), ``"origin"`` or a port of the body.
        fraction : number or str, optional
            Fraction of the total weight lifted (default 1), or a parameter name.

        Returns
        -------
        Load
            The :class:`Buoyancy` record.
        """
        return self.load(Buoyancy(body=body, point=point, fraction=freeze(fraction)))

    def force(self, body: str, force: Any, point: str = "origin", frame: str = "inertial") -> Load:
        """Add a constant force [N] at ``point`` of ``body``.

        Parameters
        ----------
        body : str
            The body the force acts on.
        force : 3 numbers or parameter names
            The force [N].
        point : str, optional
            ``"origin"`` (default), ``"com"`` or a port of the body.
        frame : str, optional
            ``"inertial"`` (default) or ``"body"``: the frame of the components.

        Returns
        -------
        Load
            The :class:`Force` record.
        """
        return self.load(Force(body=body, force=freeze(force), point=point, frame=frame))

    def torque(self, body: str, torque: Any, frame: str = "inertial") -> Load:
        """Add a constant torque [N m] on ``body``.

        Parameters
        ----------
        body : str
            The body the torque acts on.
        torque : 3 numbers or parameter names
            The torque [N m].
        frame : str, optional
            ``"inertial"`` (default) or ``"body"``: the frame of the components.

        Returns
        -------
        Load
            The :class:`Torque` record.
        """
        return self.load(Torque(body=body, torque=freeze(torque), frame=frame))

    def damping(self, body: str, linear: Any = 0.0, angular: Any = 0.0,
                point: str = "origin") -> Load:
        """Add viscous damping against the inertial frame: ``−linear · v_point``, ``−angular · ω``.

        Parameters
        ----------
        body : str
            The body the load acts on.
        linear : number or str
            Translational coefficient [N s/m] (or a parameter name).
        angular : number or str
            Rotational coefficient [N m s/rad] (or a parameter name).
        point : str
            Where the force acts: ``"origin"``, ``"com"`` or a port.

        Returns
        -------
        Load
            The :class:`Damping` record.
        """
        return self.load(Damping(body=body, linear=freeze(linear), angular=freeze(angular),
                                 point=point))

    def loop(self, a: str, b: str, *, stiffness: Any = (0.0,) * 6, damping: Any = (0.0,) * 6,
             name: str | None = None) -> Loop:
        """Close a kinematic loop between the points ``a`` and ``b`` (``"body.port"``) with a
        spring-damper (see :class:`~titop_lpv.model.description.Loop`): ``stiffness`` and
        ``damping`` are ``[x, y, z, rx, ry, rz]`` in the frame of ``a``'s body.

        Parameters
        ----------
        a, b : str
            The two ends, ``"body.port"`` (or ``"body"``, ``"body.com"``), on different
            bodies.
        stiffness : 6 numbers or parameter names, optional
            ``[k_x, k_y, k_z, k_rx, k_ry, k_rz]`` [N/m, N m/rad]. Default zeros.
        damping : 6 numbers or parameter names, optional
            ``[d_x, d_y, d_z, d_rx, d_ry, d_rz]`` [N s/m, N m s/rad]. Default zeros.
        name : str, optional
            Label for reports and errors (default ``"<a>-<b>"``).

        Returns
        -------
        Loop
        """
        item = Loop(a=a, b=b, stiffness=freeze(stiffness), damping=freeze(damping), name=name)
        self.loops.append(item)
        return item

    def wrench_input(self, body: str, point: str = "origin", frame: str = "body") -> WrenchInput:
        """Add six wrench inputs ``<body>_<point>_Fx … _Tz`` at ``point`` of ``body``.

        Parameters
        ----------
        body : str
            The body the wrench acts on.
        point : str, optional
            ``"origin"`` (default; the inputs are then ``<body>_Fx`` ...), ``"com"`` or a
            port of the body.
        frame : str, optional
            ``"body"`` (default) or ``"inertial"``: the frame of the components (force [N]
            at the point, torque [N m]).

        Returns
        -------
        WrenchInput
        """
        item = WrenchInput(body=body, point=point, frame=frame)
        self.inputs.append(item)
        return item

    def output(
        self,
        type: str,
        body: str,
        point: str = "origin",
        frame: str = "inertial",
        name: str | None = None,
    ) -> Output:
        """Add a sensor output (see :class:`~titop_lpv.model.description.Output`).

        Parameters
        ----------
        type : str
            ``"q"``, ``"qd"``, ``"qdd"``, ``"position"``, ``"attitude"``, ``"velocity"``,
            ``"angular_velocity"`` or ``"acceleration"``.
        body : str
            The body measured.
        point : str, optional
            ``"origin"`` (default), ``"com"`` or a port of the body.
        frame : str, optional
            ``"inertial"`` (default) or ``"body"``: the frame of the components of a
            velocity, angular velocity or acceleration.
        name : str, optional
            Signal prefix (default ``<body>``, or ``<body>_<point>``).

        Returns
        -------
        Output
        """
        item = Output(type=type, body=body, point=point, frame=frame, name=name)
        self.outputs.append(item)
        return item

    def compile(self) -> Model:
        """Validate the whole description and build the immutable ``Model``.

        After validation, the dynamics are evaluated once at the default state and
        parameters (the reference evaluation): a model whose ``ẋ`` is not finite there is
        refused.

        Raises
        ------
        ModelError
            With every problem found, each naming the body, joint, load or field; or naming
            the state derivative that is not finite at the default state.
        """
        return compile_system(self)

    # ------------------------------------------------------------------ schema
    def to_dict(self) -> dict[str, Any]:
        """The description as a schema dict (what ``load_model`` reads)."""
        params: dict[str, Any] = {}
        for p in self.parameters.values():
            extra = {k: getattr(p, k) for k in _PARAM_KEYS[1:] if getattr(p, k) not in (None, "")}
            params[p.name] = {"value": p.value, **extra} if extra else p.value
        out: dict[str, Any] = {
            "name": self.name,
            "gravity": list(self.gravity) if isinstance(self.gravity, tuple) else self.gravity,
            "euler": self.euler,
        }
        if params:
            out["parameters"] = params
        out["bodies"] = [b.to_dict() for b in self.bodies]
        for key, items in (("loads", self.loads), ("loops", self.loops),
                           ("inputs", self.inputs), ("outputs", self.outputs)):
            if items:
                out[key] = [item.to_dict() for item in items]
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> System:
        """Read a schema dict (docs/design.md §4). Unknown keys are recorded as problems.

        Schema problems are reported, together with every other problem, by
        :meth:`compile`.

        Parameters
        ----------
        data : dict
            The model as a mapping (the content of a ``.toml``, ``.json`` or ``.yaml``
            model file); anything else is recorded as a problem.

        Returns
        -------
        System
        """
        if not isinstance(data, dict):
            s = cls()
            s.problems.append(f"the model must be a table/mapping, got {type(data).__name__}")
            return s
        with gc_paused():
            return cls._from_dict(data)

    @classmethod
    def _from_dict(cls, data: dict[str, Any]) -> System:
        nulls: list[str] = []
        tables = data.get("bodies")
        fast = None  # the bodies read in bulk (no problem in them), or None
        if type(tables) is list and all(type(t) is dict for t in tables):
            fast = bodies_from_tables(tables)
        rest = data if fast is None else {k: v for k, v in data.items() if k != "bodies"}
        if has_null(rest):  # the paths of the nulls, for the messages (the data unchanged)
            data = without_nulls(data, "", nulls)
            fast = None
        s = cls(
            name=data.get("name", "model"),
            gravity=data.get("gravity", (0.0, 0.0, 0.0)),
            euler=data.get("euler", "321"),
        )
        s.problems.extend(nulls)
        s.problems.extend(_unknown(data, _TOP_KEYS, "top level"))
        params = data.get("parameters", {})
        if not isinstance(params, dict):
            s.problems.append("parameters: must be a table name -> number or {value, ...}")
            params = {}
        for name, spec in params.items():
            if isinstance(spec, dict):
                s.problems.extend(_unknown(spec, _PARAM_KEYS, f"parameter {name!r}"))
                if "value" not in spec:
                    s.problems.append(f"parameter {name!r}: missing 'value'")
                kw = {k: spec[k] for k in _PARAM_KEYS[1:] if k in spec}
                s.parameter(name, spec.get("value"), **kw)
            else:
                s.parameter(name, spec)
        if fast is not None:
            s.bodies.extend(fast)
        else:
            for i, body in enumerate(_list(data, "bodies", s.problems)):
                s._body_from_dict(i, body)
        for i, item in enumerate(_list(data, "loads", s.problems)):
            where = f"loads[{i}]"
            kind = item.get("type")
            if not isinstance(kind, str) or kind not in LOAD_TYPES:
                s.problems.append(f"{where}: unknown load type {kind!r} "
                                  f"(expected one of {', '.join(LOAD_TYPES)})")
                continue
            load_cls = LOAD_TYPES[kind]
            kw = _record_kwargs(item, load_cls, where, s.problems, skip=("type",))
            if "body" not in item:
                s.problems.append(f"{where}: missing 'body'")
            s.load(load_cls(**kw))
        records = (("loops", Loop, ("a", "b"), s.loops),
                   ("inputs", WrenchInput, ("body",), s.inputs),
                   ("outputs", Output, ("type", "body"), s.outputs))
        for key, cls, required, target in records:
            for i, item in enumerate(_list(data, key, s.problems)):
                kw = _record_kwargs(item, cls, f"{key}[{i}]", s.problems)
                missing = [k for k in required if k not in kw]
                if missing:
                    s.problems.append(f"{key}[{i}]: missing {' and '.join(map(repr, missing))}")
                    continue
                target.append(cls(**kw))
        return s

    def _body_from_dict(self, i: int, body: dict[str, Any]) -> None:
        problems = self.problems
        name = body.get("name")
        where = f"body {name!r}" if name else f"bodies[{i}]"
        if not name:
            problems.append(f"{where}: missing 'name'")
            name = f"bodies[{i}]"
        if not body.keys() <= _BODY_KEY_SET:
            problems.extend(_unknown(body, _BODY_KEYS, where))
        jspec = body.get("joint")
        if not isinstance(jspec, dict):
            problems.append(f"{where}: missing 'joint' table (e.g. joint = {{type = 'free'}})")
            return
        kind = jspec.get("type")
        if not isinstance(kind, str) or kind not in JOINT_TYPES:
            problems.append(f"{where}: unknown joint type {kind!r} "
                            f"(expected one of {', '.join(JOINT_TYPES)})")
            return
        jcls = JOINT_TYPES[kind]
        kw = _record_kwargs(jspec, jcls, f"{where} joint", problems, skip=("type",))
        ports = body.get("ports", {})
        if not isinstance(ports, dict):
            problems.append(f"{where}: 'ports' must be a table name -> [x, y, z]")
            ports = {}
        # as self.body(...) with jcls(**kw), without the dataclass __init__ (same records)
        self.bodies.append(make(Body, {
            "name": name,
            "joint": make(jcls, kw),
            "parent": body.get("parent"),
            "mass": body.get("mass"),
            "inertia": body.get("inertia"),
            "com": body.get("com", (0.0, 0.0, 0.0)),
            "ports": ports,
        }))


def _unknown(table: dict[str, Any], allowed: tuple[str, ...], where: str) -> list[str]:
    return [
        f"{where}: unknown key {key!r} (allowed: {', '.join(allowed)})"
        for key in table
        if key not in allowed
    ]


def _list(data: dict[str, Any], key: str, problems: list[str]) -> list[dict[str, Any]]:
    items = data.get(key, [])
    if not isinstance(items, list) or not all(isinstance(x, dict) for x in items):
        problems.append(f"{key}: must be an array of tables")
        return []
    return items


_INIT_FIELDS: dict[type, tuple[str, ...]] = {}  # init fields of each record class
_ALLOWED: dict[tuple[type, tuple[str, ...]], frozenset[str]] = {}  # ... and the skipped keys


def _record_kwargs(
    table: dict[str, Any], cls: type, where: str, problems: list[str], skip: tuple[str, ...] = ()
) -> dict[str, Any]:
    names = _INIT_FIELDS.get(cls)
    if names is None:
        names = _INIT_FIELDS[cls] = tuple(f.name for f in fields(cls) if f.init)
    allowed = _ALLOWED.get((cls, skip))
    if allowed is None:
        allowed = _ALLOWED[(cls, skip)] = frozenset(names) | frozenset(skip)
    if not table.keys() <= allowed:
        problems.extend(_unknown({k: v for k, v in table.items() if k not in skip}, names,
                                 where))
        return {k: v for k, v in table.items() if k in names}  # the records freeze them
    kw = dict(table)
    for key in skip:
        kw.pop(key, None)
    return kw
