"""Whole-model validation: every problem of a description, gathered and reported once.

:func:`check` returns a :class:`Plan` (topological order, parent links, resolved default
numbers) or raises one :class:`~titop_lpv.exceptions.ModelError` listing every problem,
each naming the body, joint, load, input, output, parameter or field at fault.
"""

from __future__ import annotations

import heapq
import inspect
import math
import re
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..exceptions import ModelError, TitopWarning
from ..multibody.param_checks import (
    MAX_MAGNITUDE,
    MIN_MASS,
    ROTATION_TOL,
    SYMMETRY_TOL,
    inertia_tolerance,
)
from ..spatial.euler import SEQUENCES
from .description import (
    FRAMES,
    OUTPUT_KINDS,
    Body,
    Buoyancy,
    Damping,
    Description,
    Force,
    Torque,
)
from .records import gc_paused
from .signals import collisions, signal_names
from .validate_joints import check_joint, screen_bodies

__all__ = ["MAX_MAGNITUDE", "MIN_MASS", "Plan", "check"]

IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
RESERVED_POINTS = ("origin", "com")
NEGLIGIBLE = 1e-12  # a moving subtree with less than this share of the mass/inertia is massless


def _user_stacklevel() -> int:
    """Stack level of the first caller outside titop_lpv (so warnings point at user code)."""
    package = str(Path(__file__).resolve().parents[1])
    level = 1
    for frame in inspect.stack()[1:]:
        level += 1
        if not str(Path(frame.filename).resolve()).startswith(package):
            return level - 1
    return level


@dataclass(frozen=True)
class Plan:
    """What validation learned: body order and links, with default numbers resolved.

    Attributes
    ----------
    order : tuple of int
        Indices into ``system.bodies``, parents first.
    parent : dict of str to str or None
        ``body -> parent body`` (None: the world).
    parent_port : dict of str to str
        ``body -> port of the parent`` it hangs from (``"origin"``: the parent's origin).
    signals : tuple or None
        What :func:`~titop_lpv.model.signals.signal_names` returned for the bodies in
        ``order`` (states, inputs, outputs), or None.
    bodies : list of Body
        The bodies, as declared (``order`` indexes them).
    ports : dict of str to dict
        ``body -> port -> vector`` [m], body frame, as written (built when read).
    """

    order: tuple[int, ...]  # indices into system.bodies, parents first
    parent: dict[str, str | None]  # body -> parent body (None = world)
    parent_port: dict[str, str]  # body -> port of the parent ("origin" = its origin)
    signals: tuple[Any, ...] | None = None  # signal_names of the bodies in order
    bodies: tuple[Body, ...] | list[Body] = ()  # as declared

    @property
    def ports(self) -> dict[str, dict[str, Any]]:  # documented in the class docstring
        return {b.name: b.ports for b in self.bodies}


class _Checker:
    """Collects problems while resolving numeric leaves with the default parameter values."""

    def __init__(self, system: Description):
        self.s = system
        self.clean_inertia: set[Any] = set()  # inertia tuples already checked, clean
        self.clean_rotation: set[Any] = set()  # rotation tuples already checked, clean
        self.problems: list[str] = list(system.problems)
        self.values: dict[str, float] = {}
        for name, p in system.parameters.items():
            if not isinstance(name, str) or not IDENTIFIER.fullmatch(name):
                self.problems.append(f"parameter {name!r}: name must be an identifier")
            for key in ("unit", "description"):
                if not isinstance(getattr(p, key), str):
                    self.problems.append(f"parameter {name!r}: {key} must be text, got "
                                         f"{getattr(p, key)!r}")
            v = self.number(p.value, f"parameter {name!r}: value", allow_param=False)
            if v is None:
                continue
            self.values[name] = v
            lo = hi = None
            if p.min is not None:
                lo = self._number(p.min, f"parameter {name!r}: min", allow_param=False)
            if p.max is not None:
                hi = self._number(p.max, f"parameter {name!r}: max", allow_param=False)
            if lo is not None and hi is not None and lo > hi:
                self.problems.append(f"parameter {name!r}: min {lo} > max {hi}")
            if (lo is not None and v < lo) or (hi is not None and v > hi):
                self.problems.append(f"parameter {name!r}: value {v} outside [min, max]")

    # -- leaves -------------------------------------------------------------
    def _number(self, value: Any, where: str, allow_param: bool = True) -> float | None:
        """A numeric leaf with the default parameter values, or None (a problem recorded)."""
        if isinstance(value, str):
            if not allow_param:
                self.problems.append(f"{where}: must be a number, got {value!r}")
                return None
            if value not in self.s.parameters:
                self.problems.append(f"{where}: unknown parameter {value!r}")
                return None
            return self.values.get(value)
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            self.problems.append(f"{where}: must be a number or a parameter name, got {value!r}")
            return None
        try:
            number = float(value)
        except OverflowError:
            number = math.inf
        if not math.isfinite(number):
            self.problems.append(f"{where}: must be finite, got {value}")
            return None
        if abs(number) > MAX_MAGNITUDE:
            self.problems.append(f"{where}: magnitude {number:.3g} is above {MAX_MAGNITUDE:g} "
                                 "(its products in the dynamics overflow)")
            return None
        return number

    def number(self, value: Any, where: str, allow_param: bool = True) -> float | None:
        """:meth:`_number` of a required field: a missing value (None) is a problem."""
        if value is None:
            self.problems.append(f"{where}: missing")
            return None
        return self._number(value, where, allow_param)

    def vector(self, value: Any, where: str, n: int = 3) -> np.ndarray | None:
        if not isinstance(value, tuple) or len(value) != n:
            self.problems.append(f"{where}: must be a vector of {n} numbers, got {value!r}")
            return None
        if all((type(v) is float or type(v) is int) and -MAX_MAGNITUDE <= v <= MAX_MAGNITUDE
               for v in value):  # the common case, without a message per entry
            return np.array(value, dtype=float)
        items = [self._number(v, f"{where}[{k}]") for k, v in enumerate(value)]
        return None if any(v is None for v in items) else np.array(items)

    def matrix(self, value: Any, where: str) -> np.ndarray | None:
        if (
            not isinstance(value, tuple)
            or len(value) != 3
            or not all(isinstance(r, tuple) and len(r) == 3 for r in value)
        ):
            self.problems.append(f"{where}: must be a 3x3 matrix (3 rows of 3), got {value!r}")
            return None
        rows = [self.vector(r, f"{where}[{k}]") for k, r in enumerate(value)]
        return None if any(r is None for r in rows) else np.array(rows)

    def rotation(self, value: Any, where: str) -> None:
        if value is None:
            return
        R = self.matrix(value, where)
        if R is None:
            return
        err = np.max(np.abs(R.T @ R - np.eye(3)))
        if err > ROTATION_TOL or np.linalg.det(R) < 0:
            self.problems.append(
                f"{where}: not a proper rotation matrix (|RᵀR − 1| = {err:.2e}, "
                f"det = {np.linalg.det(R):.6g}); expected orthonormal with det +1"
            )
        elif all(type(v) is float or type(v) is int for row in value for v in row):
            self.clean_rotation.add(value)  # numbers only: checked once per distinct matrix

    def frame(self, value: Any, where: str) -> None:
        if value not in FRAMES:
            self.problems.append(f"{where}: frame must be 'inertial' or 'body', got {value!r}")

    # -- bodies ---------------------------------------------------------------
    def body(self, b: Body, is_root: bool) -> None:
        w = f"body {b.name!r}"
        m = self.number(b.mass, f"{w}: mass")
        if m is not None and m < 0:
            self.problems.append(f"{w}: mass must be >= 0, got {m}")
        elif m is not None and 0 < m < MIN_MASS:
            self.problems.append(f"{w}: mass {m:.3g} is below {MIN_MASS:g} kg (it underflows "
                                 "in the dynamics): write 0 for a massless body")
        com = self.vector(b.com, f"{w}: com")
        if b.inertia is not None:
            try:  # equal to a clean matrix, and of plain numbers (True == 1: no bools)
                seen = b.inertia in self.clean_inertia and all(
                    type(v) is float or type(v) is int for row in b.inertia for v in row)
            except TypeError:  # unhashable: not a matrix of numbers (reported below)
                seen = False
            if not seen:
                before = len(self.problems)
                inertia = self.matrix(b.inertia, f"{w}: inertia")
                if (inertia is not None
                        and self._inertia(inertia, w, m or 0.0,
                                          np.zeros(3) if com is None else com)
                        and len(self.problems) == before):
                    self.clean_inertia.add(b.inertia)  # checked once per distinct matrix
        if not isinstance(b.ports, dict):
            self.problems.append(f"{w}: ports must be a mapping name -> [x, y, z]")
        else:
            for port, vec in b.ports.items():
                if not isinstance(port, str) or not IDENTIFIER.fullmatch(port):
                    self.problems.append(f"{w}: port name {port!r} must be an identifier")
                elif port in RESERVED_POINTS:
                    self.problems.append(f"{w}: port name {port!r} is reserved")
                self.vector(vec, f"{w}: port {port!r}")
        check_joint(self, b, is_root)

    def _inertia(self, inertia: np.ndarray, w: str, mass: float, com: np.ndarray) -> bool:
        """Check an inertia matrix; True when it is clean whatever the body's mass and com.

        The principal moments are checked to :func:`inertia_tolerance` of the body's mass
        and ``com``; a matrix accepted only thanks to them (rounding of ``m |PB|²``) is not
        cached as clean for other bodies.
        """
        tiny = (inertia != 0) & (np.abs(inertia) < MIN_MASS)
        if tiny.any():
            self.problems.append(f"{w}: inertia entries {inertia[tiny].tolist()} are below "
                                 f"{MIN_MASS:g} kg m² (they underflow in the dynamics): "
                                 "write 0")
            return False
        scale = max(np.max(np.abs(inertia)), 1e-300)
        if np.max(np.abs(inertia - inertia.T)) > SYMMETRY_TOL * scale:
            self.problems.append(f"{w}: inertia is not symmetric: {inertia.tolist()}")
            return False
        ev = np.linalg.eigvalsh(inertia)
        tol = float(inertia_tolerance(inertia, mass, com))
        own = SYMMETRY_TOL * float(np.max(np.abs(inertia)))  # the tolerance without m, com
        if ev[0] < -tol:
            self.problems.append(
                f"{w}: inertia is not positive semi-definite "
                f"(principal moments {[float(f'{v:.6g}') for v in ev]} kg m², the smallest "
                f"below "
                f"−{tol:.3g})"
            )
            return False
        a, b_, c = ev
        if c > a + b_ + tol:
            warnings.warn(
                f"{w}: principal moments {np.round(ev, 9).tolist()} violate the triangle "
                f"inequality ({c:.6g} > {a:.6g} + {b_:.6g}): no real mass distribution has "
                "this inertia; the dynamics stay well defined",
                TitopWarning,
                stacklevel=_user_stacklevel(),
            )
            return False
        return bool(ev[0] >= -own and c <= a + b_ + own)


def _shown(value: Any) -> str:
    """``repr`` of a value as the user wrote it (arrays as lists, not tuples)."""
    def plain(v: Any) -> Any:
        if isinstance(v, tuple):
            return [plain(x) for x in v]
        if isinstance(v, dict):
            return {k: plain(x) for k, x in v.items()}
        return v

    return repr(plain(value))


def _ports(body: Body) -> dict[Any, Any]:
    """The ports of a body, or {} when they are not a mapping (a problem reported)."""
    return body.ports if isinstance(body.ports, dict) else {}


def _port_list(body: Body) -> str:
    return ", ".join(map(str, _ports(body))) or "none"


def _order(bodies: list[Body], parent: dict[str, str | None]) -> tuple[list[int], list[str]]:
    """Topological order (declaration order where it allows: Kahn's algorithm on a heap) and
    the bodies on a cycle of parent links (those that never become ready and loop back)."""
    names = [b.name for b in bodies]
    index = dict(zip(names, range(len(names)))) if set(map(type, names)) <= {str} else {}
    if len(index) == len(bodies) and index.keys() <= parent.keys():
        up = [-1 if q is None else index[q] for q in map(parent.__getitem__, names)]
        if bool(np.all(np.array(up, dtype=np.int64) < np.arange(len(up)))):
            return list(range(len(bodies))), []  # parents declared first: that order
    children: dict[str, list[int]] = {}
    ready: list[int] = []
    for i, b in enumerate(bodies):
        if not isinstance(b.name, str) or b.name not in parent:
            continue
        if parent[b.name] is None:
            ready.append(i)
        else:
            children.setdefault(parent[b.name], []).append(i)
    heapq.heapify(ready)
    order: list[int] = []
    placed: set[int] = set()
    while ready:
        i = heapq.heappop(ready)
        if i in placed:
            continue
        placed.add(i)
        order.append(i)
        for k in children.get(bodies[i].name, []):
            heapq.heappush(ready, k)

    def on_cycle(name: str) -> bool:
        seen = set()
        while name in parent and parent[name] is not None:
            if name in seen:
                return True
            seen.add(name)
            name = parent[name]
        return False

    cycle = [b.name for i, b in enumerate(bodies) if isinstance(b.name, str)
             and b.name in parent and i not in placed and on_cycle(b.name)]
    return order, cycle


def _links(s: Description, by_name: dict[str, Body], p: list[str]
           ) -> tuple[dict[str, str | None], dict[str, str]]:
    """``body -> parent body`` and ``body -> parent port`` of the bodies whose link is valid."""
    parent: dict[str, str | None] = {}
    parent_port: dict[str, str] = {}
    for b in s.bodies:
        if not isinstance(b.name, str):
            continue
        if b.parent is None:
            parent[b.name] = None
            parent_port[b.name] = "origin"
            continue
        if not isinstance(b.parent, str):
            p.append(f"body {b.name!r}: parent must be 'body' or 'body.port', got "
                     f"{_shown(b.parent)}")
            continue
        pname, dot, port = b.parent.partition(".")
        if dot and not port:
            p.append(f"body {b.name!r}: parent {b.parent!r} ends with '.'; "
                     "write 'body' or 'body.port'")
            continue
        port = port or "origin"
        if pname not in by_name:
            p.append(f"body {b.name!r}: unknown parent body {pname!r}")
            continue
        if pname == b.name:
            p.append(f"body {b.name!r}: is its own parent")
            continue
        if port != "origin" and port not in _ports(by_name[pname]):
            p.append(f"body {b.name!r}: parent {pname!r} has no port {port!r} "
                     f"(ports: {_port_list(by_name[pname])})")
            continue
        parent[b.name] = pname
        parent_port[b.name] = port
    return parent, parent_port


def _massless_joints(c: _Checker, bodies: list[Body], parent: dict[str, str | None]
                     ) -> list[str]:
    """Moving joints whose subtree has (next to) no mass, or no inertia where it turns.

    A massless body welded to a massive parent is well defined; a revolute, prismatic or
    free joint that moves nothing is singular (its apparent inertia is zero). "Next to no"
    is below :data:`NEGLIGIBLE` times the model's total mass (inertia: the largest inertia
    entry of any body), with the default parameter values.
    """
    masses: list[float] = []
    inertia: list[float] = []
    largest: dict[Any, float | None] = {}  # inertia tuple -> its largest |entry|
    for b in bodies:
        m = (None if b.mass is None else b.mass if type(b.mass) is float
             else c._number(b.mass, "mass"))
        rows = b.inertia if b.inertia is not None else ((0.0,) * 3,) * 3
        top = largest.get(rows, largest)
        if top is largest:
            entries = [v if type(v) is float else c._number(v, "inertia") for row in rows
                       for v in row]
            top = largest[rows] = (None if any(e is None for e in entries)
                                   else max(abs(e) for e in entries))  # type: ignore[arg-type]
        if m is None or top is None:
            return []  # reported elsewhere
        masses.append(m)
        inertia.append(top)
    index = {b.name: i for i, b in enumerate(bodies)}
    up = [-1 if parent[b.name] is None else index[parent[b.name]] for b in bodies]
    sub_mass, sub_inertia = list(masses), list(inertia)
    for i in range(len(bodies) - 1, -1, -1):  # children after parents: accumulate upwards
        k = up[i]
        if k >= 0:
            sub_mass[k] += sub_mass[i]
            if sub_inertia[i] > sub_inertia[k]:
                sub_inertia[k] = sub_inertia[i]
    total_mass = sum(masses)
    top_inertia = max(inertia, default=0.0)
    light = np.flatnonzero(np.array(sub_mass) <= NEGLIGIBLE * total_mass)  # the candidates
    problems = []
    for b in (bodies[i] for i in light):
        kind = b.joint.type
        if kind == "weld":
            continue
        i = index[b.name]
        flat = sub_inertia[i] <= NEGLIGIBLE * top_inertia
        if kind != "revolute" or flat:
            what = "mass" if kind == "prismatic" or not flat else "mass or inertia"
            problems.append(
                f"body {b.name!r}: its {kind} joint moves a subtree with no {what} "
                f"(mass {sub_mass[i]:.3g} kg of {total_mass:.3g} kg): the joint's apparent "
                "inertia is zero and the dynamics are singular; give the body or a child "
                "mass, or weld it")
    return problems


def check(system: Description) -> Plan:
    """Validate ``system`` as a whole.

    Parameters
    ----------
    system : Description
        The description (a :class:`~titop_lpv.model.builder.System`).

    Returns
    -------
    Plan
        Topological order and links.

    Raises
    ------
    ModelError
        Listing every problem found (unknown keys, parents, ports and parameters, cycles,
        roots, masses, inertias, axes, rotations, vector lengths, non-finite numbers or
        numbers of magnitude above :data:`MAX_MAGNITUDE`, non-zero masses below
        :data:`MIN_MASS`, moving joints of massless subtrees, a model without any degree of
        freedom, loads/loops/inputs/outputs naming unknown bodies or points, colliding
        signal names).
    """
    with gc_paused():
        return _check(system)


def _check(system: Description) -> Plan:
    """:func:`check`, with the garbage collector paused."""
    c = _Checker(system)
    p = c.problems
    s = system
    if not isinstance(s.name, str) or not s.name:
        p.append(f"name: must be a non-empty string, got {s.name!r}")
    c.vector(s.gravity, "gravity")
    if not isinstance(s.euler, str) or s.euler not in SEQUENCES:
        p.append(f"euler: invalid sequence {s.euler!r} (valid: {', '.join(SEQUENCES)})")

    by_name: dict[str, Body] = {}
    names = [b.name for b in s.bodies]
    if (set(map(type, names)) <= {str} and all(map(str.isascii, names))
            and all(map(str.isidentifier, names)) and len(set(names)) == len(names)):
        by_name = dict(zip(names, s.bodies))  # every name an identifier, declared once
    for b in s.bodies if len(by_name) != len(s.bodies) else ():
        if not (type(b.name) is str and b.name.isascii() and b.name.isidentifier()
                ) and (not isinstance(b.name, str) or not IDENTIFIER.fullmatch(b.name)):
            p.append(f"body {_shown(b.name)}: name must be an identifier (letters, digits, _)")
            if not isinstance(b.name, str):
                continue
        if b.name in by_name:
            p.append(f"body {b.name!r}: declared twice")
        by_name[b.name] = b
    if not s.bodies:
        p.append("bodies: the model has no body")
    elif all(b.joint.dof == 0 for b in s.bodies):
        p.append("bodies: the model has no degree of freedom (every joint is a weld): "
                 "nothing moves; give a body a 'free', 'revolute' or 'prismatic' joint")

    parent, parent_port = _links(s, by_name, p)
    roots = [b.name for b in s.bodies if b.parent is None]
    if s.bodies and not roots:
        p.append("bodies: no root body (exactly one body must omit 'parent')")
    if len(roots) > 1:
        p.append(f"bodies: {len(roots)} root bodies {roots}; exactly one body may omit 'parent'")
    order, cyc = _order(s.bodies, parent)
    if cyc:
        p.append(f"bodies: cycle in the parent links among {cyc}")

    clean_inertia, clean_rotation = c.clean_inertia, c.clean_rotation
    inertia_ids, rotation_ids = set(), set()  # ids of the matrices found clean (alive)
    for b, ok in zip(s.bodies, screen_bodies(s.bodies, IDENTIFIER, RESERVED_POINTS).tolist()):
        if ok:  # nothing to report in its own fields: only its matrices are looked up
            inertia, rotation = b.inertia, getattr(b.joint, "rotation", None)
            try:
                if ((inertia is None or id(inertia) in inertia_ids
                     or inertia in clean_inertia)
                        and (rotation is None or id(rotation) in rotation_ids
                             or rotation in clean_rotation)):
                    inertia_ids.add(id(inertia))
                    rotation_ids.add(id(rotation))
                    continue
            except TypeError:  # unhashable: not a matrix of numbers (reported by c.body)
                pass
        c.body(b, is_root=b.parent is None)

    def point_ok(body: Any, point: Any, where: str) -> bool:
        if not isinstance(body, str) or body not in by_name:
            p.append(f"{where}: unknown body {_shown(body)}")
            return False
        if not isinstance(point, str) or (point not in RESERVED_POINTS
                                          and point not in _ports(by_name[body])):
            p.append(f"{where}: body {body!r} has no point {_shown(point)} "
                     f"(use 'origin', 'com' or a port: {_port_list(by_name[body])})")
            return False
        return True

    for k, load in enumerate(s.loads):
        w = f"loads[{k}] ({load.type} on {_shown(load.body)})"
        if isinstance(load, Buoyancy):
            point_ok(load.body, load.point, w)
            c.number(load.fraction, f"{w}: fraction")
        elif isinstance(load, Force):
            point_ok(load.body, load.point, w)
            c.vector(load.force, f"{w}: force")
            c.frame(load.frame, w)
        elif isinstance(load, Torque):
            point_ok(load.body, "origin", w)
            c.vector(load.torque, f"{w}: torque")
            c.frame(load.frame, w)
        elif isinstance(load, Damping):
            point_ok(load.body, load.point, w)
            for key in ("linear", "angular"):
                val = c.number(getattr(load, key), f"{w}: {key}")
                if val is not None and val < 0:
                    p.append(f"{w}: {key} must be >= 0 (a damping coefficient), got {val}")
    for k, loop in enumerate(s.loops):
        w = f"loops[{k}] ({loop.label!r})"
        ends = []
        for key in ("a", "b"):
            end = getattr(loop, key)
            if not isinstance(end, str) or not end or end.endswith("."):
                p.append(f"{w}: {key} must be 'body' or 'body.point', got {_shown(end)}")
                continue
            body, _, point = end.partition(".")
            if point_ok(body, point or "origin", f"{w}: {key}"):
                ends.append(body)
        if len(ends) == 2 and ends[0] == ends[1]:
            p.append(f"{w}: both ends are on body {ends[0]!r}; a loop joins two bodies")
        for key in ("stiffness", "damping"):
            vec = c.vector(getattr(loop, key), f"{w}: {key}", n=6)
            if vec is not None and np.any(vec < 0):
                p.append(f"{w}: {key} must be >= 0 (a diagonal [x, y, z, rx, ry, rz]), "
                         f"got {vec.tolist()}")
        if loop.name is not None and (not isinstance(loop.name, str)
                                      or not IDENTIFIER.fullmatch(loop.name)):
            p.append(f"{w}: name {loop.name!r} must be an identifier")
    for k, item in enumerate(s.inputs):
        w = f"inputs[{k}] (wrench on {_shown(item.body)})"
        point_ok(item.body, item.point, w)
        c.frame(item.frame, w)
    for k, out in enumerate(s.outputs):
        w = f"outputs[{k}] ({_shown(out.type)} of {_shown(out.body)})"
        if not isinstance(out.type, str) or out.type not in OUTPUT_KINDS:
            p.append(f"{w}: unknown output type {_shown(out.type)} "
                     f"(one of {', '.join(OUTPUT_KINDS)})")
            continue
        if not point_ok(out.body, out.point, w):
            continue
        if out.type in ("q", "qd", "qdd") and by_name[out.body].joint.type in ("free", "weld"):
            p.append(f"{w}: body {out.body!r} has a {by_name[out.body].joint.type!r} joint, "
                     "which has no joint coordinates (q, qd, qdd sensors are for revolute, "
                     "prismatic, spherical and universal joints)")
        c.frame(out.frame, w)
        if out.name is not None and (not isinstance(out.name, str)
                                     or not IDENTIFIER.fullmatch(out.name)):
            p.append(f"{w}: name {out.name!r} must be an identifier")

    tree_ok = not cyc and len(roots) == 1 and len(order) == len(s.bodies)
    if tree_ok and not p:
        p.extend(_massless_joints(c, [s.bodies[i] for i in order], parent))
    signals = None
    if tree_ok:
        try:
            signals = signal_names([s.bodies[i] for i in order], list(s.inputs),
                                   list(s.outputs))
            states, inputs, outs = signals
            p.extend(collisions(states, inputs, [n for _, names in outs for n in names]))
        except (KeyError, TypeError, AttributeError):  # already reported as other problems
            pass

    if p:
        raise ModelError(p, name=s.name if isinstance(s.name, str) else None)
    return Plan(
        order=tuple(order),
        parent=parent,
        parent_port=parent_port,
        signals=signals,
        bodies=s.bodies,
    )
