"""Canonical test models of the TITOP multibody description, as plain dicts.

Every function returns a fresh model description following the project's model-file schema
(the same tree a TOML/JSON model file carries): ``name``, ``gravity``, ``euler``,
``parameters``, ``bodies`` and ``loads``.  Nothing here depends on ``titop_lpv`` or on
Pinocchio; the descriptions only contain plain Python lists, floats, strings, bools and dicts,
so they can be serialised to JSON unchanged.

Contents
--------
balloon
    The paper's 9-d.o.f. balloon (free balloon, prismatic spring slider, double pendulum).
pendulum, spring_pendulum, free_body, falling_body
    Small models with closed-form dynamics.
six_link_arm
    The four-joint arm of ``examples/robot_arm.toml`` with a wrist roll, a flange and a
    welded payload of uncertain mass, its joints undamped.
random_tree
    Seeded random trees exercising every feature of the schema.
random_config
    A seeded random state in the project's state naming.
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np
from scipy.spatial.transform import Rotation

__all__ = [
    "balloon",
    "falling_body",
    "free_body",
    "pendulum",
    "random_config",
    "random_tree",
    "six_link_arm",
    "spring_pendulum",
]

Desc = dict[str, Any]


# --------------------------------------------------------------------------------------------
# canonical models
# --------------------------------------------------------------------------------------------
def balloon() -> Desc:
    """Return the paper's 9-d.o.f. balloon model.

    A free balloon (6 d.o.f.) carries, at its port ``C``, a prismatic spring-damper slider
    (axis ``[1, 0, -1]``, not normalised on purpose) from which hangs a damped double pendulum
    (two revolute joints about ``z``).  The balloon is subject to a buoyancy force equal to the
    total weight, applied at its centre of mass.

    Returns
    -------
    dict
        The model description.  The stiffness ``k`` and the dampings ``ds``, ``dp1``, ``dp2``
        are parameters, so that e.g. ``params={"ds": 0, "dp1": 0, "dp2": 0}`` gives the
        conservative model.
    """
    return {
        "name": "balloon",
        "gravity": [0.0, -9.81, 0.0],
        "euler": "213",
        "parameters": {
            "k": {"value": 50.0, "min": 25.0, "max": 100.0, "unit": "N/m"},
            "ds": 5.0,
            "dp1": 0.5,
            "dp2": 0.5,
        },
        "bodies": [
            {
                "name": "balloon",
                "joint": {"type": "free"},
                "mass": 10.0,
                "inertia": [[5.0, 0.0, 0.0], [0.0, 10.0, -7.0], [0.0, -7.0, 10.0]],
                "com": [0.0, 0.0, 0.0],
                "ports": {"C": [0.0, -2.0, 0.0]},
            },
            {
                "name": "slider",
                "parent": "balloon.C",
                "joint": {
                    "type": "prismatic",
                    "axis": [1.0, 0.0, -1.0],
                    "stiffness": "k",
                    "damping": "ds",
                },
                "mass": 1.0,
            },
            {
                "name": "pendulum1",
                "parent": "slider",
                "joint": {
                    "type": "revolute",
                    "axis": [0.0, 0.0, 1.0],
                    "damping": "dp1",
                    "q0": 2.9670597283903604,
                },
                "mass": 2.0,
                "com": [0.0, -1.2, 0.0],
                "ports": {"tip": [0.0, -1.2, 0.0]},
            },
            {
                "name": "pendulum2",
                "parent": "pendulum1.tip",
                "joint": {
                    "type": "revolute",
                    "axis": [0.0, 0.0, 1.0],
                    "damping": "dp2",
                    "q0": -2.9670597283903604,
                },
                "mass": 3.0,
                "com": [0.0, -1.6, 0.0],
            },
        ],
        "loads": [{"type": "buoyancy", "body": "balloon", "point": "com"}],
    }


def pendulum(length: float = 1.0, mass: float = 2.0, g: float = 9.81, damping: float = 0.0) -> Desc:
    """Return a simple pendulum: a point mass on a massless rod, hinged to the world.

    The hinge is a revolute joint about ``z`` at the inertial origin, the mass sits at
    ``(0, -length, 0)`` in the body frame and gravity is ``(0, -g, 0)``, so that

    .. math:: m L^2 \\ddot\\theta = -m g L \\sin\\theta - d \\dot\\theta .

    Parameters
    ----------
    length : float
        Rod length ``L`` (m).
    mass : float
        Point mass ``m`` (kg).
    g : float
        Gravity magnitude (m/s^2).
    damping : float
        Joint viscous damping ``d`` (N m s/rad).

    Returns
    -------
    dict
        The model description (one body named ``"pendulum"``, state ``pendulum_q``,
        ``pendulum_qd``).
    """
    return {
        "name": "pendulum",
        "gravity": [0.0, -float(g), 0.0],
        "euler": "213",
        "parameters": {},
        "bodies": [
            {
                "name": "pendulum",
                "joint": {"type": "revolute", "axis": [0.0, 0.0, 1.0], "damping": float(damping)},
                "mass": float(mass),
                "com": [0.0, -float(length), 0.0],
            }
        ],
        "loads": [],
    }


def spring_pendulum(
    length: float = 1.0,
    mass: float = 2.0,
    carriage_mass: float = 1.0,
    stiffness: float = 50.0,
    damping: float = 0.0,
    rest: float = 0.0,
    g: float = 9.81,
) -> Desc:
    """Return a pendulum hanging from a vertical prismatic spring carriage.

    The carriage (point mass ``M_c`` at its origin) slides along the vertical ``y`` axis of the
    world (prismatic root joint, axis ``[0, 1, 0]``, spring ``k`` with rest position ``rest``
    and damper ``d``).  A point mass ``m`` hangs from the carriage origin on a massless rod of
    length ``L`` (revolute joint about ``z``).  With ``M = M_c + m`` the equations are

    .. math::
        M \\ddot q + m L (\\sin\\theta\\,\\ddot\\theta + \\cos\\theta\\,\\dot\\theta^2)
            = -k (q - q_r) - d \\dot q - M g, \\qquad
        m L^2 \\ddot\\theta + m L \\sin\\theta\\, \\ddot q = -m g L \\sin\\theta .

    Parameters
    ----------
    length : float
        Pendulum length ``L`` (m).
    mass : float
        Pendulum point mass ``m`` (kg).
    carriage_mass : float
        Carriage point mass ``M_c`` (kg).
    stiffness : float
        Spring stiffness ``k`` (N/m).
    damping : float
        Carriage damping ``d`` (N s/m).
    rest : float
        Spring rest position ``q_r`` (m).
    g : float
        Gravity magnitude (m/s^2), gravity is ``(0, -g, 0)``.

    Returns
    -------
    dict
        The model description (bodies ``"carriage"`` and ``"pendulum"``).
    """
    return {
        "name": "spring_pendulum",
        "gravity": [0.0, -float(g), 0.0],
        "euler": "213",
        "parameters": {},
        "bodies": [
            {
                "name": "carriage",
                "joint": {
                    "type": "prismatic",
                    "axis": [0.0, 1.0, 0.0],
                    "stiffness": float(stiffness),
                    "damping": float(damping),
                    "rest": float(rest),
                },
                "mass": float(carriage_mass),
            },
            {
                "name": "pendulum",
                "parent": "carriage",
                "joint": {"type": "revolute", "axis": [0.0, 0.0, 1.0]},
                "mass": float(mass),
                "com": [0.0, -float(length), 0.0],
            },
        ],
        "loads": [],
    }


def free_body(
    inertia: Any = ((1.0, 0.0, 0.0), (0.0, 2.0, 0.0), (0.0, 0.0, 3.0)),
    w0: Any = (0.1, 1.0, 0.05),
    mass: float = 1.0,
) -> Desc:
    """Return a single torque-free rigid body (no gravity, centre of mass at the origin).

    Euler's equations hold: ``I ω̇ = -ω × I ω`` and ``v̇ = -ω × v`` for the body-frame twist.
    The default initial rate spins mostly about the intermediate axis (tennis-racket effect).

    Parameters
    ----------
    inertia : array_like, shape (3, 3)
        Inertia at the centre of mass, body frame (kg m^2).
    w0 : array_like, shape (3,)
        Initial body-frame angular velocity (rad/s).
    mass : float
        Mass (kg).

    Returns
    -------
    dict
        The model description (one free body named ``"body"``).
    """
    return {
        "name": "free_body",
        "gravity": [0.0, 0.0, 0.0],
        "euler": "213",
        "parameters": {},
        "bodies": [
            {
                "name": "body",
                "joint": {"type": "free", "w0": [float(x) for x in np.ravel(w0)]},
                "mass": float(mass),
                "inertia": np.asarray(inertia, dtype=float).tolist(),
            }
        ],
        "loads": [],
    }


def falling_body(
    mass: float = 2.0,
    inertia: Any = ((2.0, 0.1, 0.0), (0.1, 2.5, 0.2), (0.0, 0.2, 3.0)),
    g: float = 9.81,
    w0: Any = (0.0, 0.0, 0.0),
) -> Desc:
    """Return a single free body falling under gravity ``(0, -g, 0)``.

    The centre of mass is at the body origin, so the body-frame twist obeys
    ``v̇ = Pᵀ g - ω × v`` and ``I ω̇ = -ω × I ω`` (``P`` = ``P_{b/i}``).

    Parameters
    ----------
    mass : float
        Mass (kg).
    inertia : array_like, shape (3, 3)
        Inertia at the centre of mass, body frame (kg m^2).
    g : float
        Gravity magnitude (m/s^2).
    w0 : array_like, shape (3,)
        Initial body-frame angular velocity (rad/s).

    Returns
    -------
    dict
        The model description (one free body named ``"body"``).
    """
    return {
        "name": "falling_body",
        "gravity": [0.0, -float(g), 0.0],
        "euler": "213",
        "parameters": {},
        "bodies": [
            {
                "name": "body",
                "joint": {"type": "free", "w0": [float(x) for x in np.ravel(w0)]},
                "mass": float(mass),
                "inertia": np.asarray(inertia, dtype=float).tolist(),
                "com": [0.0, 0.0, 0.0],
            }
        ],
        "loads": [],
    }


# --------------------------------------------------------------------------------------------
# random trees
# --------------------------------------------------------------------------------------------
def _vec(rng: np.random.Generator, lo: float = -1.0, hi: float = 1.0, n: int = 3) -> list:
    return [float(x) for x in rng.uniform(lo, hi, n)]


def _rotation(rng: np.random.Generator) -> list:
    return Rotation.random(random_state=rng).as_matrix().tolist()


def _inertia(rng: np.random.Generator, mass: float) -> list:
    """Random SPD inertia satisfying the triangle inequality (a physical mass distribution).

    With principal second moments ``a, b, c > 0`` the principal inertias are
    ``(b + c, a + c, a + b)``, which satisfy ``I_i < I_j + I_k`` strictly.
    """
    a, b, c = mass * rng.uniform(0.05, 0.5, 3)
    principal = np.diag([b + c, a + c, a + b])
    rot = Rotation.random(random_state=rng).as_matrix()
    inertia = rot @ principal @ rot.T
    return (0.5 * (inertia + inertia.T)).tolist()


def _axis(rng: np.random.Generator) -> list:
    axis = rng.normal(size=3)
    axis /= np.linalg.norm(axis)
    return [float(x) for x in axis * rng.uniform(0.3, 3.0)]


def _joint(rng: np.random.Generator, kind: str) -> dict:
    """Random joint of the given kind; always draws the same number of variates."""
    axis = _axis(rng)
    rotation = _rotation(rng)
    use_rotation = rng.uniform() < 0.8
    stiffness = float(rng.uniform(0.5, 20.0)) if rng.uniform() > 0.3 else 0.0
    damping = float(rng.uniform(0.05, 2.0)) if rng.uniform() > 0.3 else 0.0
    rest = float(rng.uniform(-0.5, 0.5)) if rng.uniform() > 0.5 else 0.0
    q0 = float(rng.uniform(-1.0, 1.0))
    qd0 = float(rng.uniform(-1.0, 1.0))
    actuated = bool(rng.uniform() < 0.25)
    joint: dict[str, Any] = {"type": kind}
    if kind in ("revolute", "prismatic"):
        joint["axis"] = axis
    if kind != "free" and use_rotation:
        joint["rotation"] = rotation
    if kind in ("revolute", "prismatic"):
        joint.update(
            {"stiffness": stiffness, "damping": damping, "rest": rest, "q0": q0, "qd0": qd0}
        )
        if actuated:
            joint["actuated"] = True
    return joint


def _random_loads(rng: np.random.Generator, bodies: list[dict], kinds: tuple[str, ...]) -> list:
    loads = []
    n_loads = int(rng.integers(1, 5))
    for i in range(n_loads):
        kind = kinds[0] if i == 0 else kinds[int(rng.integers(len(kinds)))]
        body = bodies[int(rng.integers(len(bodies)))]
        points = ["com", "origin", *sorted(body.get("ports", {}))]
        point = points[int(rng.integers(len(points)))]
        vec = _vec(rng, -5.0, 5.0)
        frame = "inertial" if rng.uniform() < 0.5 else "body"
        if kind == "buoyancy":
            loads.append(
                {
                    "type": "buoyancy",
                    "body": body["name"],
                    "point": point,
                    "fraction": float(rng.uniform(0.2, 1.2)),
                }
            )
        elif kind == "inertial_force":
            loads.append(
                {"type": "force", "body": body["name"], "point": point, "force": vec,
                 "frame": "inertial"}
            )  # fmt: skip
        elif kind == "force":
            loads.append(
                {"type": "force", "body": body["name"], "point": point, "force": vec,
                 "frame": frame}
            )  # fmt: skip
        else:
            load = {"type": "torque", "body": body["name"], "torque": vec}
            if rng.uniform() < 0.7:
                load["frame"] = frame
            loads.append(load)
    return loads


def _parametrise(rng: np.random.Generator, desc: Desc) -> Desc:
    """Replace a few numeric leaves by parameter names with the same values."""
    desc = copy.deepcopy(desc)
    params: dict[str, Any] = {}
    slots: list[tuple[str, Any, Any]] = []  # (parameter name, container, key)
    slots.append(("g_y", desc["gravity"], 1))
    for body in desc["bodies"]:
        name = body["name"]
        slots.append((f"m_{name}", body, "mass"))
        slots.append((f"com_{name}_x", body["com"], 0))
        joint = body["joint"]
        for key in ("stiffness", "damping", "rest"):
            if key in joint:
                slots.append((f"{key}_{name}", joint, key))
        if "axis" in joint:
            slots.append((f"axis_{name}_z", joint["axis"], 2))
        for port, vec in body.get("ports", {}).items():
            slots.append((f"port_{name}_{port}_y", vec, 1))
    for i, load in enumerate(desc["loads"]):
        if "fraction" in load:
            slots.append((f"fraction_{i}", load, "fraction"))
        if "force" in load:
            slots.append((f"force_{i}_x", load["force"], 0))
    n_pick = min(len(slots), int(rng.integers(3, 7)))
    for idx in sorted(rng.choice(len(slots), size=n_pick, replace=False)):
        pname, container, key = slots[int(idx)]
        value = float(container[key])
        if rng.uniform() < 0.5:
            params[pname] = value
        else:
            params[pname] = {
                "value": value,
                "min": value - 1.0,
                "max": value + 1.0,
                "unit": "-",
                "description": f"random parameter {pname}",
            }
        container[key] = pname
    desc["parameters"] = params
    return desc


def random_tree(
    seed: int,
    n_bodies: int,
    root: str = "free",
    *,
    gravity: bool = True,
    springs: bool = True,
    loads: bool | str = True,
    params: bool = False,
) -> Desc:
    """Return a seeded random tree-structured model description.

    Each body ``b{i}`` (``i >= 1``) picks a random earlier body as parent, attached at its origin
    or at one of its ports, so bodies with several children occur (``b1`` and ``b2`` are always
    both children of ``b0`` when ``n_bodies >= 3``).  Joints are revolute, prismatic or
    occasionally weld, with non-unit random axes, random proper ``rotation`` matrices (mostly
    present), random stiffness/damping/rest (sometimes zero), random ``q0``/``qd0`` and
    sometimes ``"actuated": true``.  Masses are in ``[0.5, 3]``, inertias are SPD and satisfy the
    triangle inequality, ``com`` and ports are in ``[-1, 1]^3``.  The bodies are listed in a
    shuffled order about half of the time (to exercise topological sorting).

    The random tree itself (topology, joints, inertias) only depends on ``seed``, ``n_bodies``
    and ``root``: the flags only remove or parametrise features.

    Parameters
    ----------
    seed : int
        Random seed; the same arguments always give the same dict.
    n_bodies : int
        Number of bodies (``>= 1``).
    root : {"free", "fixed"}
        ``"free"``: the root has a free joint (random ``position0``, ``v0``, ``w0``; no
        ``euler0``).  ``"fixed"``: the root joint is revolute, prismatic or weld, attached to
        the world at the inertial origin.
    gravity : bool
        If true, gravity is a random vector of norm 9.81, else zero.
    springs : bool
        If false, joints carry no ``stiffness``, ``damping`` or ``rest``.
    loads : bool or {"conservative"}
        ``True``: 1 to 4 random loads (the first one is a buoyancy; then buoyancy, inertial or
        body-frame forces at random points, inertial or body-frame torques).  ``False``: no
        loads.  ``"conservative"``: only buoyancy and inertial-frame forces (constant inertial
        forces, which have a potential).
    params : bool
        If true, a few numeric leaves are replaced by parameter names defined in
        ``"parameters"`` (plain numbers or ``{"value", "min", "max", "unit", "description"}``),
        with the same values, so the resolved model equals the ``params=False`` one.

    Returns
    -------
    dict
        The model description.
    """
    if n_bodies < 1:
        raise ValueError("n_bodies must be >= 1")
    if root not in ("free", "fixed"):
        raise ValueError(f"root must be 'free' or 'fixed', not {root!r}")
    if loads not in (True, False, "conservative"):
        raise ValueError(f"loads must be True, False or 'conservative', not {loads!r}")
    r_tree, r_loads, r_params = (
        np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(3)
    )

    direction = r_tree.normal(size=3)
    gravity_vec = [float(x) for x in 9.81 * direction / np.linalg.norm(direction)]

    bodies: list[dict] = []
    for i in range(n_bodies):
        name = f"b{i}"
        mass = float(r_tree.uniform(0.5, 3.0))
        body: dict[str, Any] = {"name": name}
        n_ports = int(r_tree.integers(0, 4))
        ports = {f"p{j}": _vec(r_tree) for j in range(n_ports)}
        com = _vec(r_tree)
        inertia = _inertia(r_tree, mass)
        # parent choice (drawn for every body so the stream does not depend on i)
        parent_index = int(r_tree.integers(0, max(i, 1)))
        at_port = r_tree.uniform() < 0.6
        port_pick = r_tree.uniform()
        kind_u = r_tree.uniform()
        if i == 0:
            if root == "free":
                kind = "free"
            else:
                kind = "revolute" if kind_u < 0.45 else "prismatic" if kind_u < 0.85 else "weld"
                if n_bodies == 1 and kind == "weld":
                    kind = "revolute"
        else:
            kind = "revolute" if kind_u < 0.45 else "prismatic" if kind_u < 0.85 else "weld"
            if i == 2:
                parent_index = int(bodies[1]["parent"].split(".")[0][1:])
            parent = bodies[parent_index]
            parent_ports = sorted(parent.get("ports", {}))
            if at_port and parent_ports:
                port = parent_ports[int(port_pick * len(parent_ports))]
                body["parent"] = f"{parent['name']}.{port}"
            else:
                body["parent"] = parent["name"]
        joint = _joint(r_tree, kind)
        if kind == "free":
            joint.update({"position0": _vec(r_tree, -2, 2), "v0": _vec(r_tree), "w0": _vec(r_tree)})
        else:
            _vec(r_tree, -2, 2), _vec(r_tree), _vec(r_tree)  # keep the stream aligned
        if not springs:
            for key in ("stiffness", "damping", "rest"):
                joint.pop(key, None)
        body["joint"] = joint
        body["mass"] = mass
        body["inertia"] = inertia
        body["com"] = com
        if ports:
            body["ports"] = ports
        bodies.append(body)

    if all(b["joint"]["type"] == "weld" for b in bodies):
        # at least one degree of freedom
        last = bodies[-1]["joint"]
        last["type"] = "revolute"
        last["axis"] = [0.0, 0.0, 1.5]

    listing = list(bodies)
    if r_tree.uniform() < 0.5:
        order = r_tree.permutation(len(listing))
        listing = [listing[int(k)] for k in order]

    if loads is False:
        load_list: list = []
    elif loads == "conservative":
        load_list = _random_loads(r_loads, bodies, ("buoyancy", "inertial_force"))
    else:
        load_list = _random_loads(r_loads, bodies, ("buoyancy", "force", "torque"))

    desc: Desc = {
        "name": f"random_tree_{seed}_{n_bodies}_{root}",
        "gravity": gravity_vec if gravity else [0.0, 0.0, 0.0],
        "euler": "213",
        "parameters": {},
        "bodies": listing,
        "loads": load_list,
    }
    if params:
        desc = _parametrise(r_params, desc)
    return desc


# --------------------------------------------------------------------------------------------
# random states
# --------------------------------------------------------------------------------------------
def random_config(desc: Desc, seed: int) -> dict[str, Any]:
    """Return a seeded random state of a model in the project's state naming.

    For the free root body ``b``: ``b_x, b_y, b_z`` (origin position, inertial, in
    ``[-2, 2]``), ``b_R`` (``P_{b/i}``, a random rotation, ``numpy.ndarray`` of shape (3, 3)),
    ``b_vx, b_vy, b_vz, b_wx, b_wy, b_wz`` (body-frame twist of the origin, in ``[-1, 1]``).
    For each revolute/prismatic body ``c``: ``c_q`` (in ``[-π, π]`` resp. ``[-1, 1]``) and
    ``c_qd`` (in ``[-2, 2]``).  Welded bodies have no state.

    Parameters
    ----------
    desc : dict
        Model description (parameters need not be resolved: only joint types are read).
    seed : int
        Random seed.

    Returns
    -------
    dict
        The state, in the order the bodies are listed in ``desc``.
    """
    rng = np.random.default_rng(seed)
    config: dict[str, Any] = {}
    for body in desc["bodies"]:
        name = body["name"]
        kind = body["joint"]["type"]
        if kind == "free":
            x = rng.uniform(-2.0, 2.0, 3)
            config.update({f"{name}_x": float(x[0]), f"{name}_y": float(x[1]),
                           f"{name}_z": float(x[2])})  # fmt: skip
            config[f"{name}_R"] = Rotation.random(random_state=rng).as_matrix()
            twist = rng.uniform(-1.0, 1.0, 6)
            for comp, value in zip(("vx", "vy", "vz", "wx", "wy", "wz"), twist, strict=True):
                config[f"{name}_{comp}"] = float(value)
        elif kind == "revolute":
            config[f"{name}_q"] = float(rng.uniform(-np.pi, np.pi))
            config[f"{name}_qd"] = float(rng.uniform(-2.0, 2.0))
        elif kind == "prismatic":
            config[f"{name}_q"] = float(rng.uniform(-1.0, 1.0))
            config[f"{name}_qd"] = float(rng.uniform(-2.0, 2.0))
        elif kind != "weld":
            raise ValueError(f"body {name!r}: unknown joint type {kind!r}")
    return config


def free_tree_with_sensors(seed: int, n: int = 5) -> Desc:
    """``random_tree(seed, n, "free")`` with sensors that read a position, a body-frame
    velocity and an acceleration (the sensor kernel then needs the state derivatives)."""
    desc = random_tree(seed, n, "free")
    names = [b["name"] for b in desc["bodies"]]
    desc["outputs"] = [{"type": "position", "body": names[-1], "point": "com"},
                       {"type": "velocity", "body": names[1], "point": "com",
                        "frame": "body"},
                       {"type": "acceleration", "body": names[-1], "point": "com"}]
    return desc


def six_link_arm() -> Desc:
    """The arm of ``examples/robot_arm.toml`` (yaw, shoulder, elbow, wrist) with a wrist roll
    and a flange, carrying a welded payload of mass ``m_payload`` ∈ [0.5, 5] kg; every joint
    actuated and undamped (as a URDF arm's).

    Its yaw axis is vertical: gravity has no moment about it, so the yaw angle's column of
    ``A`` is zero at every pose and payload, and the undamped yaw is a double pole at zero
    (a Jordan block) — sensitive to any residue in that column.
    """
    def body(name: str, parent: str | None, axis: list, mass: Any, inertia: list,
             com: list, port: tuple[str, list] | None) -> dict:
        b: dict[str, Any] = {"name": name,
                             "joint": {"type": "revolute", "axis": axis, "actuated": True},
                             "mass": mass, "inertia": inertia, "com": com}
        if parent is not None:
            b["parent"] = parent
        if port is not None:
            b["ports"] = {port[0]: port[1]}
        return b

    def diag(*d: float) -> list:
        return [[d[0], 0.0, 0.0], [0.0, d[1], 0.0], [0.0, 0.0, d[2]]]

    bodies = [
        body("shoulder_yaw", None, [0, 0, 1], 3.0, diag(0.02, 0.02, 0.015), [0.0, 0.0, 0.15],
             ("top", [0.0, 0.0, 0.3])),
        body("shoulder", "shoulder_yaw.top", [0, 1, 0], 2.5, diag(0.004, 0.055, 0.055),
             [0.25, 0.0, 0.0], ("end", [0.5, 0.0, 0.0])),
        body("elbow", "shoulder.end", [0, 1, 0], 1.5, diag(0.002, 0.021, 0.021),
             [0.2, 0.0, 0.0], ("end", [0.4, 0.0, 0.0])),
        body("wrist", "elbow.end", [0, 1, 0], 0.5, diag(0.0005, 0.0006, 0.0006),
             [0.05, 0.0, 0.0], ("tool", [0.1, 0.0, 0.0])),
        body("roll", "wrist.tool", [1, 0, 0], 0.3, diag(0.0003, 0.0004, 0.0004),
             [0.04, 0.0, 0.0], ("end", [0.08, 0.0, 0.0])),
        body("flange", "roll.end", [0, 1, 0], 0.2, diag(0.0002, 0.0002, 0.0002),
             [0.03, 0.0, 0.0], ("tool", [0.06, 0.0, 0.0])),
        {"name": "payload", "parent": "flange.tool", "joint": {"type": "weld"},
         "mass": "m_payload", "inertia": diag(0.002, 0.002, 0.002), "com": [0.05, 0.0, 0.0]},
    ]
    return {"name": "six_link_arm", "gravity": [0.0, 0.0, -9.81],
            "parameters": {"m_payload": {"value": 2.0, "min": 0.5, "max": 5.0, "unit": "kg"}},
            "bodies": bodies}
