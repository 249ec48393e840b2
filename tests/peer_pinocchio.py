"""Pinocchio as an independent peer of the TITOP multibody dynamics (tests only).

The project's model description (a plain dict, see ``tests/models.py``) is translated into a
``pinocchio.Model``:

* the body frame of a body with a revolute/prismatic/free joint *is* its Pinocchio joint frame;
  ``jointPlacement = (placement of the parent body in its joint frame) * SE3(rotation, port)``;
* revolute -> ``JointModelRevoluteUnaligned(axis/|axis|)``, prismatic ->
  ``JointModelPrismaticUnaligned(axis/|axis|)``, free (root only) -> ``JointModelFreeFlyer``;
* a weld has no joint: the body's inertia is appended to the parent's joint (to the universe,
  joint 0, for a root weld) with the composed placement, which is remembered to map loads.

``pinocchio.aba`` expects the external forces ``fext`` as spatial forces expressed in the
LOCAL joint frames, about the joint origins (checked in ``tests/test_peer_selfcheck.py``
against the Newton–Euler closed form of a free body pushed at an offset point).

Nothing here imports ``titop_lpv``.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

import numpy as np
import pinocchio as pin

__all__ = [
    "DofInfo",
    "PeerModel",
    "build",
    "euler_to_dcm",
    "resolve",
]

Desc = dict[str, Any]

_TWIST = ("vx", "vy", "vz", "wx", "wy", "wz")
_POSITION = ("x", "y", "z")
_EULER = ("phi", "theta", "psi")

#: keys whose values are numeric leaves (possibly nested lists) in the description
_NUMERIC_KEYS = frozenset(
    {
        "gravity", "axis", "rotation", "stiffness", "damping", "rest", "q0", "qd0",
        "position0", "euler0", "v0", "w0", "mass", "inertia", "com", "fraction", "force",
        "torque",
    }
)  # fmt: skip


# --------------------------------------------------------------------------------------------
# parameters
# --------------------------------------------------------------------------------------------
def _parameter_values(desc: Desc, params: dict | None) -> dict[str, float]:
    values: dict[str, float] = {}
    for name, spec in (desc.get("parameters") or {}).items():
        value = spec["value"] if isinstance(spec, dict) else spec
        values[name] = float(value)
    for name, value in (params or {}).items():
        if name not in values:
            raise KeyError(f"unknown parameter {name!r} (defined: {sorted(values)})")
        values[name] = float(value["value"] if isinstance(value, dict) else value)
    return values


def _resolve_leaf(value: Any, values: dict[str, float], where: str) -> Any:
    if isinstance(value, str):
        if value not in values:
            raise KeyError(f"{where}: {value!r} is not a parameter (defined: {sorted(values)})")
        return values[value]
    if isinstance(value, (list, tuple, np.ndarray)):
        return [_resolve_leaf(v, values, where) for v in value]
    if isinstance(value, bool):
        raise TypeError(f"{where}: expected a number, got {value!r}")
    return float(value)


def resolve(desc: Desc, params: dict | None = None) -> Desc:
    """Return a copy of a description with every numeric leaf resolved to a float.

    Parameters
    ----------
    desc : dict
        Model description; a numeric leaf may be a string naming an entry of
        ``desc["parameters"]`` (a number or a dict with a ``"value"``).
    params : dict, optional
        Overrides ``{name: value}`` of the parameters' values (names must exist).

    Returns
    -------
    dict
        A deep copy where numeric leaves are floats (vectors/matrices are nested lists).
        ``"parameters"`` holds the resolved values ``{name: float}``.

    Raises
    ------
    KeyError
        If a string leaf or an override names no parameter.
    """
    values = _parameter_values(desc, params)
    out = copy.deepcopy(desc)
    out["parameters"] = dict(values)
    if "gravity" in out:
        out["gravity"] = _resolve_leaf(out["gravity"], values, "gravity")
    for body in out.get("bodies", []):
        name = body.get("name", "?")
        for key in list(body):
            if key in _NUMERIC_KEYS:
                body[key] = _resolve_leaf(body[key], values, f"body {name!r}.{key}")
        if "ports" in body:
            body["ports"] = {
                port: _resolve_leaf(vec, values, f"body {name!r}.ports.{port}")
                for port, vec in body["ports"].items()
            }
        joint = body.get("joint", {})
        for key in list(joint):
            if key in _NUMERIC_KEYS:
                joint[key] = _resolve_leaf(joint[key], values, f"body {name!r}.joint.{key}")
    for i, load in enumerate(out.get("loads", [])):
        for key in list(load):
            if key in _NUMERIC_KEYS:
                load[key] = _resolve_leaf(load[key], values, f"loads[{i}].{key}")
    return out


# --------------------------------------------------------------------------------------------
# small helpers
# --------------------------------------------------------------------------------------------
def _elementary(axis: int, angle: float) -> np.ndarray:
    c, s = np.cos(angle), np.sin(angle)
    i, j = [(1, 2), (2, 0), (0, 1)][axis]
    rot = np.eye(3)
    rot[i, i] = c
    rot[j, j] = c
    rot[i, j] = -s
    rot[j, i] = s
    return rot


def euler_to_dcm(sequence: str, angles: Any) -> np.ndarray:
    """Direction cosine matrix ``P_{b/i}`` from Euler angles (project convention).

    For a sequence ``"ijk"`` (1 = x, 2 = y, 3 = z) and the angle vector ``(φ, θ, ψ)``,
    ``P_{b/i} = R_i(ψ) R_j(θ) R_k(φ)`` with ``R_a`` the elementary active rotations.

    Parameters
    ----------
    sequence : str
        Euler sequence, e.g. ``"213"``.
    angles : array_like, shape (3,)
        ``(φ, θ, ψ)`` in radians.

    Returns
    -------
    numpy.ndarray, shape (3, 3)
        ``P_{b/i}`` (body -> inertial).
    """
    i, j, k = (int(c) - 1 for c in sequence)
    phi, theta, psi = (float(a) for a in angles)
    return _elementary(i, psi) @ _elementary(j, theta) @ _elementary(k, phi)


def _project_rotation(rot: Any, where: str) -> np.ndarray:
    rot = np.asarray(rot, dtype=float).reshape(3, 3)
    u, _, vt = np.linalg.svd(rot)
    proj = u @ np.diag([1.0, 1.0, np.linalg.det(u @ vt)]) @ vt
    if np.linalg.det(rot) <= 0 or np.max(np.abs(proj - rot)) > 1e-3:
        raise ValueError(f"{where} is not a proper rotation matrix:\n{rot}")
    return proj


def _unit(axis: Any, where: str) -> np.ndarray:
    axis = np.asarray(axis, dtype=float).reshape(3)
    norm = np.linalg.norm(axis)
    if norm < 1e-12:
        raise ValueError(f"{where}: zero joint axis")
    return axis / norm


@dataclass(frozen=True)
class DofInfo:
    """Joint of the peer model that carries degrees of freedom.

    Attributes
    ----------
    body : str
        Body name (the state names are ``{body}_q`` etc.).
    kind : str
        ``"free"``, ``"revolute"`` or ``"prismatic"``.
    joint_id : int
        Pinocchio joint index.
    idx_q, idx_v : int
        Offsets in Pinocchio's ``q`` and ``v``.
    stiffness, damping, rest : float
        Spring-damper: ``tau = -stiffness (q - rest) - damping qd`` (1-d.o.f. joints).
    actuated : bool
        Whether an input ``{body}_tau`` is added to the joint force.
    """

    body: str
    kind: str
    joint_id: int
    idx_q: int
    idx_v: int
    stiffness: float = 0.0
    damping: float = 0.0
    rest: float = 0.0
    actuated: bool = False


# --------------------------------------------------------------------------------------------
# the peer model
# --------------------------------------------------------------------------------------------
class PeerModel:
    """A model description translated into Pinocchio; evaluated on project-named states.

    Use :func:`build` to create one.

    Attributes
    ----------
    desc : dict
        The resolved description (see :func:`resolve`).
    model : pinocchio.Model
        The Pinocchio model (``model.gravity.linear`` = the description's gravity).
    data : pinocchio.Data
        Its workspace.
    frames : dict[str, tuple[int, pinocchio.SE3]]
        Body name -> (joint id, placement of the body frame in that joint frame).  Joint id 0
        (universe) for bodies welded to the world.
    dofs : list[DofInfo]
        The joints with degrees of freedom, in Pinocchio order.
    order : list[str]
        Body names in topological order (parents first).
    total_mass : float
        Mass of all bodies (including those welded to the world).
    gravity : numpy.ndarray, shape (3,)
        Gravity in the inertial frame.
    """

    def __init__(self, desc: Desc, params: dict | None = None) -> None:
        self.desc = resolve(desc, params)
        self.gravity = np.asarray(self.desc.get("gravity", [0.0, 0.0, 0.0]), dtype=float)
        self.bodies: dict[str, dict] = {}
        for body in self.desc["bodies"]:
            if body["name"] in self.bodies:
                raise ValueError(f"duplicate body name {body['name']!r}")
            self.bodies[body["name"]] = body
        self._parents = {name: self._parse_parent(b) for name, b in self.bodies.items()}
        self.order = self._topological_order()
        self.total_mass = float(sum(float(b.get("mass", 0.0)) for b in self.bodies.values()))
        self.model = pin.Model()
        self.model.name = str(self.desc.get("name", "model"))
        self.model.gravity.linear = self.gravity.copy()
        self.frames: dict[str, tuple[int, pin.SE3]] = {}
        self.dofs: list[DofInfo] = []
        for name in self.order:
            self._add_body(name)
        self.data = self.model.createData()
        loads = self.desc.get("loads", [])
        self.loads = [self._check_load(i, load) for i, load in enumerate(loads)]
        self._dof_by_body = {d.body: d for d in self.dofs}

    # ---------------------------------------------------------------- construction
    def _parse_parent(self, body: dict) -> tuple[str, np.ndarray] | None:
        parent = body.get("parent")
        if parent is None:
            return None
        if parent in self.bodies:
            return parent, np.zeros(3)
        if "." in parent:
            pname, port = parent.rsplit(".", 1)
            if pname in self.bodies:
                ports = self.bodies[pname].get("ports", {})
                if port not in ports:
                    raise ValueError(f"body {body['name']!r}: {pname!r} has no port {port!r}")
                return pname, np.asarray(ports[port], dtype=float)
        raise ValueError(f"body {body['name']!r}: unknown parent {parent!r}")

    def _topological_order(self) -> list[str]:
        roots = [n for n, p in self._parents.items() if p is None]
        if len(roots) != 1:
            raise ValueError(f"exactly one root body expected, got {roots}")
        children: dict[str, list[str]] = {n: [] for n in self.bodies}
        for name, parent in self._parents.items():
            if parent is not None:
                children[parent[0]].append(name)
        # depth-first: pin.crba needs every subtree on a contiguous block of velocity indices
        order, stack = [], [roots[0]]
        while stack:
            name = stack.pop()
            order.append(name)
            stack.extend(reversed(children[name]))
        if len(order) != len(self.bodies):
            missing = sorted(set(self.bodies) - set(order))
            raise ValueError(f"bodies not connected to the root (cycle?): {missing}")
        return order

    def _add_body(self, name: str) -> None:
        body = self.bodies[name]
        joint = body.get("joint", {})
        kind = joint.get("type")
        mass = float(body.get("mass", 0.0))
        com = np.asarray(body.get("com", np.zeros(3)), dtype=float).reshape(3)
        inertia_c = np.asarray(body.get("inertia", np.zeros((3, 3))), dtype=float).reshape(3, 3)
        inertia = pin.Inertia(mass, com, inertia_c)
        parent = self._parents[name]
        if parent is None:
            parent_joint, parent_frame, port = 0, pin.SE3.Identity(), np.zeros(3)
        else:
            parent_joint, parent_frame = self.frames[parent[0]]
            port = parent[1]
        rotation = _project_rotation(joint.get("rotation", np.eye(3)), f"body {name!r} rotation")
        placement = parent_frame * pin.SE3(rotation, port)
        if kind == "free":
            if parent is not None:
                raise ValueError(f"body {name!r}: a free joint is only allowed at the root")
            jmodel = pin.JointModelFreeFlyer()
            placement = pin.SE3.Identity()
        elif kind == "revolute":
            jmodel = pin.JointModelRevoluteUnaligned(_unit(joint.get("axis"), name))
        elif kind == "prismatic":
            jmodel = pin.JointModelPrismaticUnaligned(_unit(joint.get("axis"), name))
        elif kind == "weld":
            self.model.appendBodyToJoint(parent_joint, inertia, placement)
            self.frames[name] = (parent_joint, placement)
            return
        else:
            raise ValueError(f"body {name!r}: unknown joint type {kind!r}")
        jid = self.model.addJoint(parent_joint, jmodel, placement, name)
        self.model.appendBodyToJoint(jid, inertia, pin.SE3.Identity())
        self.frames[name] = (jid, pin.SE3.Identity())
        self.dofs.append(
            DofInfo(
                body=name,
                kind=kind,
                joint_id=jid,
                idx_q=self.model.joints[jid].idx_q,
                idx_v=self.model.joints[jid].idx_v,
                stiffness=float(joint.get("stiffness", 0.0)) if kind != "free" else 0.0,
                damping=float(joint.get("damping", 0.0)) if kind != "free" else 0.0,
                rest=float(joint.get("rest", 0.0)) if kind != "free" else 0.0,
                actuated=bool(joint.get("actuated", False)),
            )
        )

    def _check_load(self, i: int, load: dict) -> dict:
        kind = load.get("type")
        if kind not in ("buoyancy", "force", "torque"):
            raise ValueError(f"loads[{i}]: unknown type {kind!r}")
        if load.get("body") not in self.bodies:
            raise ValueError(f"loads[{i}]: unknown body {load.get('body')!r}")
        frame = load.get("frame", "inertial")
        if frame not in ("inertial", "body"):
            raise ValueError(f"loads[{i}]: unknown frame {frame!r}")
        if kind != "torque":
            self._load_point(load)  # validates the point
        return load

    def _load_point(self, load: dict) -> np.ndarray:
        """Load application point in the body frame (vector from the body origin)."""
        body = self.bodies[load["body"]]
        point = load.get("point", "origin")
        if point == "com":
            return np.asarray(body.get("com", np.zeros(3)), dtype=float)
        if point == "origin":
            return np.zeros(3)
        ports = body.get("ports", {})
        if point not in ports:
            raise ValueError(f"load on {load['body']!r}: unknown point {point!r}")
        return np.asarray(ports[point], dtype=float)

    # ---------------------------------------------------------------- states
    @property
    def nq(self) -> int:
        """Pinocchio configuration size."""
        return self.model.nq

    @property
    def nv(self) -> int:
        """Number of degrees of freedom."""
        return self.model.nv

    def state_names(self) -> list[str]:
        """Names of the (minimal) state entries, in Pinocchio order.

        Returns
        -------
        list[str]
            For the free root ``b``: ``b_x b_y b_z b_R b_vx ... b_wz``; for a 1-d.o.f. body
            ``c``: ``c_q c_qd``.
        """
        names: list[str] = []
        for dof in self.dofs:
            b = dof.body
            if dof.kind == "free":
                names += [f"{b}_{c}" for c in _POSITION] + [f"{b}_R"]
                names += [f"{b}_{c}" for c in _TWIST]
            else:
                names += [f"{b}_q", f"{b}_qd"]
        return names

    def _attitude(self, config: dict, body: str) -> np.ndarray:
        if f"{body}_R" in config:
            return _project_rotation(config[f"{body}_R"], f"config[{body + '_R'!r}]")
        keys = [f"{body}_{a}" for a in _EULER]
        if all(k in config for k in keys):
            return euler_to_dcm(str(self.desc.get("euler", "321")), [config[k] for k in keys])
        raise KeyError(f"config has no attitude for {body!r} (expected {body + '_R'!r})")

    def to_pinocchio(self, config: dict) -> tuple[np.ndarray, np.ndarray]:
        """Convert a project-named state into Pinocchio's ``(q, v)``.

        Parameters
        ----------
        config : dict
            State.  The free root ``b`` needs ``b_x, b_y, b_z``, ``b_R`` (``P_{b/i}``; the
            Euler angles ``b_phi, b_theta, b_psi`` are accepted instead) and
            ``b_vx ... b_wz``; a 1-d.o.f. body ``c`` needs ``c_q`` and ``c_qd``.

        Returns
        -------
        q : numpy.ndarray, shape (nq,)
        v : numpy.ndarray, shape (nv,)
        """
        q = np.zeros(self.model.nq)
        v = np.zeros(self.model.nv)
        for dof in self.dofs:
            b = dof.body
            try:
                if dof.kind == "free":
                    q[dof.idx_q : dof.idx_q + 3] = [float(config[f"{b}_{c}"]) for c in _POSITION]
                    quat = pin.Quaternion(self._attitude(config, b))
                    quat.normalize()
                    q[dof.idx_q + 3 : dof.idx_q + 7] = quat.coeffs()
                    v[dof.idx_v : dof.idx_v + 6] = [float(config[f"{b}_{c}"]) for c in _TWIST]
                else:
                    q[dof.idx_q] = float(config[f"{b}_q"])
                    v[dof.idx_v] = float(config[f"{b}_qd"])
            except KeyError as err:
                raise KeyError(f"config misses {err.args[0]!r}") from None
        return q, v

    def initial_config(self) -> dict[str, Any]:
        """The initial state given by the description (``q0``, ``qd0``, ``position0``, ...).

        Returns
        -------
        dict
            State in the project naming; the free root's attitude ``b_R`` is the identity, or
            :func:`euler_to_dcm` of ``euler0`` with the description's ``euler`` sequence.
        """
        config: dict[str, Any] = {}
        for dof in self.dofs:
            b = dof.body
            joint = self.bodies[b]["joint"]
            if dof.kind == "free":
                pos = joint.get("position0", [0.0, 0.0, 0.0])
                config.update({f"{b}_{c}": float(x) for c, x in zip(_POSITION, pos, strict=True)})
                if "euler0" in joint:
                    config[f"{b}_R"] = euler_to_dcm(str(self.desc["euler"]), joint["euler0"])
                else:
                    config[f"{b}_R"] = np.eye(3)
                twist = [*joint.get("v0", [0.0] * 3), *joint.get("w0", [0.0] * 3)]
                config.update({f"{b}_{c}": float(x) for c, x in zip(_TWIST, twist, strict=True)})
            else:
                config[f"{b}_q"] = float(joint.get("q0", 0.0))
                config[f"{b}_qd"] = float(joint.get("qd0", 0.0))
        return config

    # ---------------------------------------------------------------- forces
    def joint_forces(self, config: dict, u: dict | None = None) -> np.ndarray:
        """Generalized joint forces ``tau = -k (q - rest) - d qd (+ u)``.

        Parameters
        ----------
        config : dict
            State.
        u : dict, optional
            Inputs ``{c_tau: value}`` for actuated joints.

        Returns
        -------
        numpy.ndarray, shape (nv,)

        Raises
        ------
        ValueError
            If ``u`` names an unknown or non-actuated joint.
        """
        tau = np.zeros(self.model.nv)
        for dof in self.dofs:
            if dof.kind == "free":
                continue
            q = float(config[f"{dof.body}_q"])
            qd = float(config[f"{dof.body}_qd"])
            tau[dof.idx_v] = -dof.stiffness * (q - dof.rest) - dof.damping * qd
        for key, value in (u or {}).items():
            body = key[:-4] if key.endswith("_tau") else None
            dof = self._dof_by_body.get(body) if body else None
            if dof is None or dof.kind == "free" or not dof.actuated:
                raise ValueError(f"input {key!r} is not the input of an actuated joint")
            tau[dof.idx_v] += float(value)
        return tau

    def _load_vectors(self, load: dict) -> tuple[np.ndarray, np.ndarray, str]:
        """(force, torque, frame) of a load; buoyancy is an inertial force."""
        kind = load["type"]
        frame = load.get("frame", "inertial")
        if kind == "buoyancy":
            force = -float(load.get("fraction", 1.0)) * self.total_mass * self.gravity
            return force, np.zeros(3), "inertial"
        if kind == "force":
            return np.asarray(load["force"], dtype=float), np.zeros(3), frame
        return np.zeros(3), np.asarray(load["torque"], dtype=float), frame

    def external_forces(self) -> list[pin.Force]:
        """External spatial forces per joint, in the LOCAL joint frames (needs ``data.oMi``).

        Call after ``pinocchio.forwardKinematics(model, data, q)``.

        Returns
        -------
        list[pinocchio.Force]
            Length ``model.njoints``; entry ``j`` is the resultant (force, moment about the
            joint origin) expressed in joint ``j``'s frame.  Loads on bodies welded to the world
            (joint 0) are ignored.
        """
        fext = [pin.Force.Zero() for _ in range(self.model.njoints)]
        for load in self.loads:
            jid, placement = self.frames[load["body"]]
            if jid == 0:
                continue
            force, torque, frame = self._load_vectors(load)
            if frame == "inertial":
                rot_t = self.data.oMi[jid].rotation.T
                force_j, torque_j = rot_t @ force, rot_t @ torque
            else:
                force_j, torque_j = placement.rotation @ force, placement.rotation @ torque
            point_j = (
                placement.act(self._load_point(load)) if load["type"] != "torque" else np.zeros(3)
            )
            fext[jid] += pin.Force(force_j, np.cross(point_j, force_j) + torque_j)
        return fext

    # ---------------------------------------------------------------- dynamics
    def aba(self, config: dict, u: dict | None = None) -> dict[str, float]:
        """Forward dynamics with ``pinocchio.aba`` (spring-dampers, inputs and loads).

        Parameters
        ----------
        config : dict
            State (see :meth:`to_pinocchio`).
        u : dict, optional
            Inputs ``{c_tau: value}`` of actuated joints.

        Returns
        -------
        dict[str, float]
            ``{b_vx: ..., b_wz: ...}`` for the free root (time derivatives of the body-frame
            twist components of its origin, Pinocchio's free-flyer ``a``) and ``{c_qd: q̈}``
            for each 1-d.o.f. joint.
        """
        q, v = self.to_pinocchio(config)
        tau = self.joint_forces(config, u)
        pin.forwardKinematics(self.model, self.data, q)
        fext = self.external_forces()
        ddq = pin.aba(self.model, self.data, q, v, tau, fext)
        out: dict[str, float] = {}
        for dof in self.dofs:
            if dof.kind == "free":
                for i, c in enumerate(_TWIST):
                    out[f"{dof.body}_{c}"] = float(ddq[dof.idx_v + i])
            else:
                out[f"{dof.body}_qd"] = float(ddq[dof.idx_v])
        return out

    def mass_matrix(self, config: dict) -> np.ndarray:
        """Joint-space mass matrix (``pinocchio.crba``, symmetrised), Pinocchio order.

        Parameters
        ----------
        config : dict
            State (only positions are used, but the full state is converted).

        Returns
        -------
        numpy.ndarray, shape (nv, nv)
        """
        q, _ = self.to_pinocchio(config)
        mass = pin.crba(self.model, self.data, q)
        return np.triu(mass) + np.triu(mass, 1).T

    def energy(self, config: dict) -> tuple[float, float]:
        """Kinetic and potential energy.

        The potential energy is gravity (``pinocchio.computePotentialEnergy``, plus the
        constant contribution of bodies welded to the world), the springs
        ``0.5 k (q - rest)^2`` and ``-F · r`` for every constant inertial force ``F``
        (buoyancy, inertial-frame ``force`` loads) applied at the world point ``r``.

        Parameters
        ----------
        config : dict
            State.

        Returns
        -------
        kinetic, potential : float

        Raises
        ------
        ValueError
            If a non-conservative load (torque, body-frame force) acts on a moving body.
        """
        q, v = self.to_pinocchio(config)
        kinetic = float(pin.computeKineticEnergy(self.model, self.data, q, v))
        potential = float(pin.computePotentialEnergy(self.model, self.data, q))
        fixed = self.model.inertias[0]
        potential -= fixed.mass * float(self.gravity @ fixed.lever)
        for dof in self.dofs:
            if dof.kind != "free":
                dq = float(config[f"{dof.body}_q"]) - dof.rest
                potential += 0.5 * dof.stiffness * dq * dq
        pin.forwardKinematics(self.model, self.data, q)
        for load in self.loads:
            jid, placement = self.frames[load["body"]]
            force, _torque, frame = self._load_vectors(load)
            if jid != 0 and (load["type"] == "torque" or frame == "body"):
                raise ValueError(f"non-conservative load {load} on a moving body")
            if load["type"] == "torque":
                continue
            if frame == "body":  # welded to the world: a constant inertial force
                force = placement.rotation @ force
            point = self.data.oMi[jid].act(placement.act(self._load_point(load)))
            potential -= float(force @ point)
        return kinetic, potential

    def com(self, config: dict) -> np.ndarray:
        """Total centre of mass in the inertial frame (``pinocchio.centerOfMass``).

        Bodies welded to the world are included.

        Parameters
        ----------
        config : dict
            State.

        Returns
        -------
        numpy.ndarray, shape (3,)
        """
        q, _ = self.to_pinocchio(config)
        com_moving = np.array(pin.centerOfMass(self.model, self.data, q))
        mass_moving = float(self.data.mass[0])
        fixed = self.model.inertias[0]
        total = mass_moving + fixed.mass
        if total <= 0.0:
            raise ValueError("the model has no mass")
        return (mass_moving * com_moving + fixed.mass * np.asarray(fixed.lever)) / total

    def positions(self, config: dict) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        """World pose of every body frame.

        Parameters
        ----------
        config : dict
            State.

        Returns
        -------
        dict[str, tuple[numpy.ndarray, numpy.ndarray]]
            ``{body: (r, P)}`` with ``r`` the inertial position of the body origin (shape (3,))
            and ``P = P_{a/i}`` the rotation body -> inertial (shape (3, 3)).
        """
        q, _ = self.to_pinocchio(config)
        pin.forwardKinematics(self.model, self.data, q)
        out = {}
        for name in self.order:
            jid, placement = self.frames[name]
            pose = self.data.oMi[jid] * placement
            out[name] = (np.array(pose.translation), np.array(pose.rotation))
        return out

    # ---------------------------------------------------------------- integration helpers
    def state_vector(self, config: dict) -> np.ndarray:
        """Flatten a state for ODE integration.

        Layout, per d.o.f. joint in Pinocchio order: free root ``[x y z, R (9, row-major),
        vx vy vz wx wy wz]``; 1-d.o.f. ``[q, qd]``.

        Parameters
        ----------
        config : dict
            State.

        Returns
        -------
        numpy.ndarray
        """
        parts: list[np.ndarray] = []
        for dof in self.dofs:
            b = dof.body
            if dof.kind == "free":
                parts.append(np.array([float(config[f"{b}_{c}"]) for c in _POSITION]))
                parts.append(self._attitude(config, b).ravel())
                parts.append(np.array([float(config[f"{b}_{c}"]) for c in _TWIST]))
            else:
                parts.append(np.array([float(config[f"{b}_q"]), float(config[f"{b}_qd"])]))
        return np.concatenate(parts) if parts else np.zeros(0)

    def config_from_vector(self, x: np.ndarray) -> dict[str, Any]:
        """Inverse of :meth:`state_vector` (``b_R`` is returned as given, not re-projected).

        Parameters
        ----------
        x : numpy.ndarray
            Flat state.

        Returns
        -------
        dict
        """
        config: dict[str, Any] = {}
        i = 0
        for dof in self.dofs:
            b = dof.body
            if dof.kind == "free":
                config.update({f"{b}_{c}": float(x[i + k]) for k, c in enumerate(_POSITION)})
                config[f"{b}_R"] = np.array(x[i + 3 : i + 12], dtype=float).reshape(3, 3)
                config.update({f"{b}_{c}": float(x[i + 12 + k]) for k, c in enumerate(_TWIST)})
                i += 18
            else:
                config[f"{b}_q"] = float(x[i])
                config[f"{b}_qd"] = float(x[i + 1])
                i += 2
        return config

    def rhs(self, t: float, x: np.ndarray, u: dict | None = None) -> np.ndarray:
        """Time derivative of a flat state (for ``scipy.integrate.solve_ivp``).

        Uses ``ṗ = R v``, ``Ṙ = R (ω×)`` for the free root and :meth:`aba` for the rates.

        Parameters
        ----------
        t : float
            Time (unused).
        x : numpy.ndarray
            Flat state (see :meth:`state_vector`).
        u : dict, optional
            Constant inputs.

        Returns
        -------
        numpy.ndarray
        """
        config = self.config_from_vector(x)
        acc = self.aba(config, u)
        dx = np.zeros_like(x, dtype=float)
        i = 0
        for dof in self.dofs:
            b = dof.body
            if dof.kind == "free":
                rot = np.asarray(config[f"{b}_R"])
                vel = np.array([config[f"{b}_{c}"] for c in _TWIST[:3]])
                w = np.array([config[f"{b}_{c}"] for c in _TWIST[3:]])
                dx[i : i + 3] = rot @ vel
                dx[i + 3 : i + 12] = (rot @ pin.skew(w)).ravel()
                dx[i + 12 : i + 18] = [acc[f"{b}_{c}"] for c in _TWIST]
                i += 18
            else:
                dx[i] = config[f"{b}_qd"]
                dx[i + 1] = acc[f"{b}_qd"]
                i += 2
        return dx


def build(desc: Desc, params: dict | None = None) -> PeerModel:
    """Build the Pinocchio peer of a model description.

    Parameters
    ----------
    desc : dict
        Model description (project schema; bodies may be listed in any order).
    params : dict, optional
        Parameter overrides ``{name: value}``.

    Returns
    -------
    PeerModel

    Raises
    ------
    ValueError
        On an invalid tree (no/several roots, unknown parent or port, free joint below the
        root, zero axis, improper rotation, unknown load).
    KeyError
        On an unknown parameter name.
    """
    return PeerModel(desc, params)
