"""Reading URDF robot descriptions (docs/model-file.md, "URDF").

A URDF file is translated into a schema dict (the same tree a TOML model file holds) and
goes through :meth:`System.from_dict <titop_lpv.model.builder.System.from_dict>`, so its
validation is the one of every model file (:func:`~titop_lpv.model.files.load_model` compiles
it into a :class:`~titop_lpv.model.files.URDFModel`):

* a link is a body named after the link; a joint's child link is the body it moves;
  ``revolute`` and ``continuous`` joints become ``revolute``, ``prismatic`` stays
  ``prismatic``, ``fixed`` becomes ``weld``; every moving joint is ``actuated`` (input
  ``<body>_tau``); ``floating`` and ``planar`` joints, and ``<mimic>`` (unless
  ``mimic="independent"``), are refused, naming the joint;
* a joint's ``<origin xyz rpy>`` becomes a port of the parent (named after the joint,
  omitted when ``xyz`` is zero: the child hangs from the parent's origin) and the joint's
  constant ``rotation`` ``P_{a0/b} = Rz(yaw) Ry(pitch) Rx(roll)`` (child → parent
  coordinates at ``q = 0``, docs/design.md §2); ``<axis>`` (default ``1 0 0``) is in the
  child frame in both conventions;
* ``<inertial>``: the centre of mass is its ``origin xyz``; the inertia, given in the frame
  of its ``origin rpy``, is rotated into the link frame (``R I Rᵀ``);
* ``<dynamics damping>`` becomes the joint damping; ``friction``, ``<limit>``,
  ``<safety_controller>``, ``<calibration>``, visual and collision geometry are ignored;
* a massless link (no ``<inertial>`` or zero mass) whose subtree is massless and attached
  by ``fixed`` joints only (a tool frame, a sensor mount) is merged into its parent as
  ports named after the links; any other massless link stays a body of mass 0;
* the root link is welded to the world, or hangs from it by a ``free`` joint when
  ``floating=True``; gravity is ``[0, 0, -9.81]`` m/s² (z up, the ROS convention);
* a name that is not an identifier becomes one by replacing every other character with
  ``_`` (and a leading digit is prefixed with ``_``); two names that become the same body
  or port name are an error.

The file is data: the XML is parsed by the standard library, a document type declaration
(and so any entity) is refused, nothing is evaluated.
"""

from __future__ import annotations

import math
import re
import warnings
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..exceptions import ModelFileError, TitopWarning

__all__ = ["MIMIC_MODES", "URDF_GRAVITY", "UrdfDescription", "parse_urdf", "read_urdf",
           "rpy_matrix", "sanitize"]

URDF_GRAVITY = (0.0, 0.0, -9.81)  # m/s², inertial frame (z up)
MIMIC_MODES = ("refuse", "independent")
_JOINT_TYPES = {"revolute": "revolute", "continuous": "revolute", "prismatic": "prismatic",
                "fixed": "weld"}
_NOT_IDENT = re.compile(r"[^A-Za-z0-9_]")
_DOCTYPE = re.compile(r"<!\s*(DOCTYPE|ENTITY)", re.IGNORECASE)
_RESERVED_PORTS = ("origin", "com")


def sanitize(name: str) -> str:
    """The identifier a URDF name becomes: every character other than a letter, a digit or
    ``_`` replaced by ``_``; a leading digit prefixed with ``_``.

    Parameters
    ----------
    name : str
        A URDF link or joint name.

    Returns
    -------
    str

    Examples
    --------
    >>> sanitize("base_link-base_fixed_joint"), sanitize("2nd.link")
    ('base_link_base_fixed_joint', '_2nd_link')
    """
    out = _NOT_IDENT.sub("_", name)
    return "_" + out if out[:1].isdigit() else out


def rpy_matrix(rpy: Any) -> np.ndarray:
    """The rotation of a URDF ``rpy``: ``Rz(yaw) Ry(pitch) Rx(roll)`` (fixed axes x, y, z).

    Parameters
    ----------
    rpy : array_like, shape (3,)
        Roll, pitch, yaw [rad].

    Returns
    -------
    ndarray, shape (3, 3)
        Maps coordinates in the rotated (child) frame to the reference (parent) frame.
    """
    r, p, y = (float(a) for a in rpy)
    cr, sr, cp, sp, cy, sy = math.cos(r), math.sin(r), math.cos(p), math.sin(p), \
        math.cos(y), math.sin(y)
    return np.array([[cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr],
                     [sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr],
                     [-sp, cp * sr, cp * cr]])


@dataclass
class _Link:
    name: str
    mass: float = 0.0
    com: np.ndarray = field(default_factory=lambda: np.zeros(3))
    inertia: np.ndarray = field(default_factory=lambda: np.zeros((3, 3)))
    has_inertial: bool = False


@dataclass
class _Joint:
    name: str
    type: str
    parent: str
    child: str
    xyz: np.ndarray
    rot: np.ndarray
    axis: np.ndarray
    damping: float
    mimic: str | None


@dataclass(frozen=True)
class UrdfDescription:
    """A URDF file translated into the model schema.

    Attributes
    ----------
    data : dict
        The schema dict (what :meth:`System.from_dict` reads).
    aliases : dict of str to str
        URDF joint name (and sanitised joint name, and original link name when it differs
        from the body name) → the body it designates; a name that is also a body name
        designates that body, not the joint (a warning says so).
    joints : dict of str to str
        Every URDF joint whose child link is a body → that body (joints merged with a
        massless link are not listed).
    """

    data: dict[str, Any]
    aliases: dict[str, str]
    joints: dict[str, str]


# ---------------------------------------------------------------------------- parsing
class _Reader:
    """Typed reads of XML attributes; every error names the file, element and attribute."""

    def __init__(self, where: str):
        self.where = where

    def fail(self, message: str) -> ModelFileError:
        return ModelFileError(f"{self.where}: {message}")

    def floats(self, elem: ET.Element | None, attr: str, n: int, default: Any, what: str
               ) -> np.ndarray:
        text = None if elem is None else elem.get(attr)
        if text is None:
            return np.array(default, dtype=float)
        parts = text.split()
        try:
            values = [float(p) for p in parts]
        except ValueError:
            raise self.fail(f"{what} {attr}={text!r}: not {n} numbers") from None
        if len(values) != n:
            raise self.fail(f"{what} {attr}={text!r}: expected {n} numbers, got {len(values)}")
        if not all(math.isfinite(v) for v in values):
            raise self.fail(f"{what} {attr}={text!r}: numbers must be finite")
        return np.array(values)

    def name(self, elem: ET.Element, what: str) -> str:
        name = elem.get("name")
        if not name or not name.strip():
            raise self.fail(f"a <{elem.tag}> without a name ({what})")
        return name

    def link(self, elem: ET.Element) -> _Link:
        name = self.name(elem, "every link needs one")
        link = _Link(name)
        inertial = elem.find("inertial")
        if inertial is None:
            return link
        what = f"link {name!r} inertial"
        origin = inertial.find("origin")
        xyz = self.floats(origin, "xyz", 3, (0.0, 0.0, 0.0), f"{what} origin")
        rot = rpy_matrix(self.floats(origin, "rpy", 3, (0.0, 0.0, 0.0), f"{what} origin"))
        mass = inertial.find("mass")
        if mass is None or mass.get("value") is None:
            raise self.fail(f"{what}: missing <mass value=...>")
        link.mass = float(self.floats(mass, "value", 1, None, f"{what} mass")[0])
        tensor = inertial.find("inertia")
        comps = {k: 0.0 for k in ("ixx", "ixy", "ixz", "iyy", "iyz", "izz")}
        for k in comps:
            if tensor is not None and tensor.get(k) is not None:
                comps[k] = float(self.floats(tensor, k, 1, None, f"{what} inertia")[0])
        inertia = np.array([[comps["ixx"], comps["ixy"], comps["ixz"]],
                            [comps["ixy"], comps["iyy"], comps["iyz"]],
                            [comps["ixz"], comps["iyz"], comps["izz"]]])
        link.com, link.inertia, link.has_inertial = xyz, rot @ inertia @ rot.T, True
        return link

    def joint(self, elem: ET.Element, mimic: str) -> _Joint:
        name = self.name(elem, "every joint needs one")
        what = f"joint {name!r}"
        kind = elem.get("type")
        if kind in ("floating", "planar"):
            hint = (" (remove the joint and its parent link, and load with floating=True for "
                    "a free root)") if kind == "floating" else ""
            raise self.fail(f"{what}: joint type {kind!r} is not supported{hint}")
        if kind not in _JOINT_TYPES:
            raise self.fail(f"{what}: unknown joint type {kind!r} (expected one of "
                            f"{', '.join(_JOINT_TYPES)})")
        ends = []
        for tag in ("parent", "child"):
            end = elem.find(tag)
            if end is None or not end.get("link"):
                raise self.fail(f"{what}: missing <{tag} link=...>")
            ends.append(end.get("link"))
        mim = elem.find("mimic")
        leader = None
        if mim is not None:
            leader = mim.get("joint", "?")
            if mimic == "refuse":
                raise self.fail(f"{what}: <mimic joint={leader!r}> is not supported (load with "
                                "mimic='independent' to make it an independent joint, as "
                                "Pinocchio's parser does, or remove the <mimic> element)")
        origin = elem.find("origin")
        xyz = self.floats(origin, "xyz", 3, (0.0, 0.0, 0.0), f"{what} origin")
        rot = rpy_matrix(self.floats(origin, "rpy", 3, (0.0, 0.0, 0.0), f"{what} origin"))
        axis = self.floats(elem.find("axis"), "xyz", 3, (1.0, 0.0, 0.0), f"{what} axis")
        if kind != "fixed" and not np.any(axis):
            raise self.fail(f"{what}: the axis is zero")
        dyn = elem.find("dynamics")
        damping = float(self.floats(dyn, "damping", 1, (0.0,), f"{what} dynamics")[0])
        return _Joint(name, kind, ends[0], ends[1], xyz, rot, axis, damping, leader)


def _tree(links: dict[str, _Link], joints: list[_Joint], fail: Any
          ) -> tuple[str, dict[str, list[_Joint]], dict[str, _Joint]]:
    """Root link, child joints of each link, parent joint of each link; the checks."""
    children: dict[str, list[_Joint]] = {name: [] for name in links}
    parent: dict[str, _Joint] = {}
    for j in joints:
        for end in (j.parent, j.child):
            if end not in links:
                raise fail(f"joint {j.name!r}: unknown link {end!r}")
        if j.child in parent:
            raise fail(f"link {j.child!r} is the child of two joints ({parent[j.child].name!r} "
                       f"and {j.name!r}): a kinematic loop, which a URDF tree cannot hold")
        parent[j.child] = j
        children[j.parent].append(j)
    roots = [name for name in links if name not in parent]
    if not roots:
        raise fail("the joints form a cycle: no link is the root")
    if len(roots) > 1:
        raise fail(f"{len(roots)} root links {roots}: a URDF robot has one root (every "
                   "other link is the child of a joint)")
    seen, stack = {roots[0]}, [roots[0]]
    while stack:
        for j in children[stack.pop()]:
            seen.add(j.child)
            stack.append(j.child)
    if len(seen) != len(links):
        cyc = sorted(set(links) - seen)
        raise fail(f"the joints form a cycle through the links {cyc}")
    return roots[0], children, parent


def parse_urdf(text: str, *, where: str = "URDF", floating: bool = False,
               mimic: str = "refuse") -> UrdfDescription:
    """Translate URDF text into the model schema (see the module documentation).

    Parameters
    ----------
    text : str
        The URDF document.
    where : str, optional
        How errors name the source (a file name).
    floating : bool, optional
        Attach the root link by a ``free`` joint (six d.o.f.) instead of welding it to the
        world. Default False.
    mimic : {"refuse", "independent"}, optional
        What to do with a ``<mimic>`` joint: refuse the file (default) or make it an
        independent joint (Pinocchio's default).

    Returns
    -------
    UrdfDescription

    Raises
    ------
    ModelFileError
        Malformed XML, a document type declaration or entity, a root element that is not
        ``<robot>``, a missing or ill-formed attribute (naming the link or joint), an
        unsupported joint (``floating``, ``planar``, ``mimic``), several roots, a cycle, or
        two names that become the same identifier.

    Examples
    --------
    >>> d = parse_urdf('''<robot name="r"><link name="base"/>
    ...   <link name="arm"><inertial><mass value="2"/>
    ...     <inertia ixx="0.1" iyy="0.1" izz="0.1" ixy="0" ixz="0" iyz="0"/></inertial></link>
    ...   <joint name="shoulder" type="continuous"><parent link="base"/><child link="arm"/>
    ...     <origin xyz="0 0 0.5"/><axis xyz="0 1 0"/></joint></robot>''')
    >>> [(b["name"], b["joint"]["type"]) for b in d.data["bodies"]]
    [('base', 'weld'), ('arm', 'revolute')]
    >>> d.data["bodies"][1]["parent"], d.aliases["shoulder"]
    ('base.shoulder', 'arm')
    """
    if mimic not in MIMIC_MODES:
        raise ModelFileError(f"{where}: mimic={mimic!r}; use one of {MIMIC_MODES}")
    rd = _Reader(where)
    if _DOCTYPE.search(text):
        raise rd.fail("a document type declaration (<!DOCTYPE>/<!ENTITY>) is not accepted in "
                      "a model file (entities are not expanded)")
    try:
        robot = ET.fromstring(text)
    except ET.ParseError as err:
        raise rd.fail(f"malformed XML: {err}") from None
    if robot.tag != "robot":
        raise rd.fail(f"the root element is <{robot.tag}>, not <robot>")
    links: dict[str, _Link] = {}
    for elem in robot.findall("link"):
        link = rd.link(elem)
        if link.name in links:
            raise rd.fail(f"link {link.name!r} is defined twice")
        links[link.name] = link
    if not links:
        raise rd.fail("no <link>: nothing to model")
    joints = [rd.joint(elem, mimic) for elem in robot.findall("joint")]
    if len({j.name for j in joints}) != len(joints):
        dup = sorted({j.name for j in joints if [k.name for k in joints].count(j.name) > 1})
        raise rd.fail(f"joint(s) {dup} defined twice")
    root, children, parent = _tree(links, joints, rd.fail)
    name = robot.get("name") or "robot"
    return _Translator(links, children, parent, rd).run(name, root, floating)


class _Translator:
    """URDF links and joints → schema bodies (massless fixed subtrees merged as ports)."""

    def __init__(self, links: dict[str, _Link], children: dict[str, list[_Joint]],
                 parent: dict[str, _Joint], rd: _Reader):
        self.links, self.children, self.parent, self.rd = links, children, parent, rd
        self.body_of: dict[str, str] = {}  # link -> body name (kept links)
        self.bodies: list[dict[str, Any]] = []
        self.aliases: dict[str, str] = {}
        self.joints: dict[str, str] = {}
        # mergeable: a massless link whose subtree is massless and hangs by fixed joints only
        # (children before parents: the reversed depth-first order; no recursion)
        preorder, stack = [], [k for k in links if k not in parent]
        while stack:
            preorder.append(stack.pop())
            stack.extend(j.child for j in children[preorder[-1]])
        self.mergeable: dict[str, bool] = {}
        for name in reversed(preorder):
            ln = links[name]
            self.mergeable[name] = (not ln.has_inertial or ln.mass == 0.0) and not np.any(
                ln.inertia) and all(j.type == "fixed" and self.mergeable[j.child]
                                    for j in children[name])

    def _merge(self, link: str) -> bool:
        return self.mergeable[link]

    def _name(self, raw: str, taken: dict[str, str], what: str) -> str:
        name = sanitize(raw)
        if name in taken and taken[name] != raw:
            raise self.rd.fail(f"{what} {taken[name]!r} and {raw!r} both become the name "
                               f"{name!r}; rename one of them")
        taken[name] = raw
        return name

    def run(self, name: str, root: str, floating: bool) -> UrdfDescription:
        body_names: dict[str, str] = {}
        order, stack = [], [root]
        while stack:  # depth first, in document order (Pinocchio's joint order)
            link = stack.pop()
            order.append(link)
            stack.extend(j.child for j in reversed(self.children[link])
                         if not (j.type == "fixed" and self._merge(j.child)))
        for link in order:
            self.body_of[link] = self._name(link, body_names, "links")
        for link in order:
            self._body(link, root, floating)
        body_set = set(self.body_of.values())
        aliases = {k: v for k, v in self.aliases.items() if k not in body_set}
        for joint, body in self.joints.items():
            if joint in body_set and joint != body:
                warnings.warn(f"URDF joint {joint!r} (moving {body!r}) has the name of a link: "
                              f"the name {joint!r} designates the link's body", TitopWarning,
                              stacklevel=4)
        for link, body in self.body_of.items():
            if link != body and link not in body_set:
                aliases[link] = body
        data = {"name": name, "gravity": list(URDF_GRAVITY), "euler": "321",
                "bodies": self.bodies}
        return UrdfDescription(data, aliases, dict(self.joints))

    def _body(self, link: str, root: str, floating: bool) -> None:
        ln = self.links[link]
        body: dict[str, Any] = {"name": self.body_of[link]}
        ports: dict[str, list[float]] = {}
        port_raw: dict[str, str] = {}
        for j in self.children[link]:
            if j.type == "fixed" and self._merge(j.child):
                self._ports(j, ports, port_raw)
            elif np.any(j.xyz):
                ports[self._port(j.name, port_raw)] = _floats(j.xyz)
        if link == root:
            body["joint"] = {"type": "free" if floating else "weld"}
        else:
            j = self.parent[link]
            parent = self.body_of[j.parent]
            body["parent"] = f"{parent}.{sanitize(j.name)}" if np.any(j.xyz) else parent
            body["joint"] = self._joint(j)
            self.aliases[j.name] = self.joints[j.name] = body["name"]
            self.aliases.setdefault(sanitize(j.name), body["name"])
        body["mass"] = float(ln.mass)
        if np.any(ln.inertia):
            body["inertia"] = [_floats(row) for row in ln.inertia]
        if np.any(ln.com):
            body["com"] = _floats(ln.com)
        if ports:
            body["ports"] = ports
        self.bodies.append(body)

    def _port(self, raw: str, taken: dict[str, str]) -> str:
        """A port of the body being built, named after a joint or a merged link."""
        name = sanitize(raw)
        if name in _RESERVED_PORTS:
            raise self.rd.fail(f"{raw!r} would be a port named {name!r}, a reserved point name; "
                               "rename it")
        if name in taken:
            raise self.rd.fail(f"{taken[name]!r} and {raw!r} would both be the port {name!r} of "
                               "the same body (a joint origin or a merged massless link); rename "
                               "one of them")
        taken[name] = raw
        return name

    def _ports(self, top: _Joint, ports: dict[str, Any], taken: dict[str, str]) -> None:
        """Merge the massless fixed subtree below joint ``top`` as ports (link origins)."""
        stack = [(top, np.zeros(3), np.eye(3))]
        while stack:
            j, xyz, rot = stack.pop()
            here = xyz + rot @ j.xyz
            ports[self._port(j.child, taken)] = _floats(here)
            stack.extend((k, here, rot @ j.rot) for k in reversed(self.children[j.child]))

    @staticmethod
    def _joint(j: _Joint) -> dict[str, Any]:
        out: dict[str, Any] = {"type": _JOINT_TYPES[j.type]}
        if j.type != "fixed":
            out["axis"] = _floats(j.axis)
        if not np.array_equal(j.rot, np.eye(3)):
            out["rotation"] = [_floats(row) for row in j.rot]
        if j.type != "fixed":
            if j.damping:
                out["damping"] = float(j.damping)
            out["actuated"] = True
        return out


def _floats(values: Any) -> list[float]:
    return [float(v) + 0.0 for v in values]  # + 0.0: no negative zeros in files


def read_urdf(path: str | Path, *, floating: bool = False, mimic: str = "refuse"
              ) -> UrdfDescription:
    """Read a URDF file (see :func:`parse_urdf`).

    Parameters
    ----------
    path : str or Path
        The ``.urdf`` file.
    floating : bool, optional
        A ``free`` root joint instead of a weld to the world. Default False.
    mimic : {"refuse", "independent"}, optional
        What to do with ``<mimic>`` joints. Default ``"refuse"``.

    Returns
    -------
    UrdfDescription

    Raises
    ------
    ModelFileError
        The file cannot be read, or :func:`parse_urdf` refuses it.
    """
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except UnicodeDecodeError as err:
        raise ModelFileError(f"{p.name}: not UTF-8 text ({err})") from None
    except OSError as err:
        raise ModelFileError(f"{p.name}: cannot be read ({err.strerror or err})") from None
    return parse_urdf(text, where=p.name, floating=floating, mimic=mimic)
