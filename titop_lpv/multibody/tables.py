"""The records a compiled tree is made of: slot-index tables and the physics of one evaluation.

A :class:`~titop_lpv.multibody.tree.Tree` keeps, for each kind of numeric data, the indices
of its slots (:class:`SlotIndex`, :class:`LoadTable`, :class:`LoopTable`,
:class:`WrenchInputTable`, :class:`OutputSpec`); resolving the slots for given parameter
values gives a :class:`Physics`. All are frozen dataclasses of read-only arrays.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, fields, replace
from typing import Any

import numpy as np

from .joints import SPHERICAL, UNIVERSAL

__all__ = [
    "JOINT_TORQUE_INPUTS",
    "LoadTable",
    "LoopTable",
    "OutputSpec",
    "Physics",
    "PointTable",
    "SlotIndex",
    "WrenchInputTable",
    "joint_input_columns",
    "readonly",
]

JOINT_TORQUE_INPUTS = {SPHERICAL: ("tau_x", "tau_y", "tau_z"), UNIVERSAL: ("tau1", "tau2")}
"""Suffixes of the torque inputs of an actuated multi-d.o.f. joint (``<body>_tau_x`` …):
a spherical joint's torque in child-frame components, a universal joint's torque about each
axis; one-d.o.f. joints have the single input ``<body>_tau``."""


def readonly(a: Any, dtype: Any = None) -> np.ndarray:
    """A read-only copy of ``a`` as an array.

    Parameters
    ----------
    a : array_like
        Values.
    dtype : data-type, optional
        Data type of the copy.

    Returns
    -------
    ndarray
        With ``writeable`` False.
    """
    arr = np.array(a, dtype=dtype)
    arr.setflags(write=False)
    return arr


@dataclass(frozen=True)
class SlotIndex:
    """Slot indices of each body's and joint's numeric data (arrays over bodies).

    Attributes
    ----------
    mass : ndarray (n,)
    inertia : ndarray (n, 3, 3)
        Inertia at the centre of mass, body frame.
    com : ndarray (n, 3)
        Vector ``P→B`` from the joint point to the centre of mass, body frame.
    offset : ndarray (n, 3)
        The parent port ``C`` the body hangs from, parent frame.
    rot : ndarray (n, 3, 3)
        Constant joint orientation ``P_{a0/b}``.
    axis : ndarray (n, 3)
        Joint axis, child frame (unused for free and weld joints).
    gravity : ndarray (3,)
        Gravity, inertial frame.
    base0 : ndarray (12,), (13,) or (0,)
        Initial state of the floating base in state order (13 with a quaternion).
    k, d, rest, q0, qd0 : ndarray (n,)
        Joint stiffness, damping, spring rest position, initial position and rate (of a
        universal joint: its first axis).
    extra : ndarray (n, 12)
        Further joint data: spherical ``rest`` quaternion, ``q0`` quaternion, ``w0``;
        universal ``axis1`` (parent frame) and the second axis's stiffness, damping, rest,
        q0, qd0 (layout: :mod:`titop_lpv.model.joint_leaves`).
    """

    mass: np.ndarray
    inertia: np.ndarray
    com: np.ndarray
    offset: np.ndarray
    rot: np.ndarray
    axis: np.ndarray
    gravity: np.ndarray
    base0: np.ndarray
    k: np.ndarray
    d: np.ndarray
    rest: np.ndarray
    q0: np.ndarray
    qd0: np.ndarray
    extra: np.ndarray


@dataclass(frozen=True)
class LoadTable:
    """Constant loads: one row per load.

    Attributes
    ----------
    kind : ndarray (L,)
        0 buoyancy, 1 force, 2 torque, 3 damping against the inertial frame.
    body : ndarray (L,)
        Body index.
    point : ndarray (L, 3)
        Slots of the application point (body frame).
    vec : ndarray (L, 3)
        Slots of the force [N] or torque [N m]; of a damping load, its coefficients
        ``(c_v [N s/m], c_ω [N m s/rad], 0)``.
    body_frame : ndarray (L,) of bool
        Vector given in the body frame (else inertial).
    fraction : ndarray (L,)
        Slot of the buoyancy fraction of the total weight.
    """

    kind: np.ndarray
    body: np.ndarray
    point: np.ndarray
    vec: np.ndarray
    body_frame: np.ndarray
    fraction: np.ndarray


@dataclass(frozen=True)
class LoopTable:
    """Loop-closure spring-dampers between two points of two bodies.

    Attributes
    ----------
    a, b : ndarray (L,)
        Body indices of the two ends.
    point_a, point_b : ndarray (L, 3)
        Slots of the attachment points (each in its body's frame).
    k, d : ndarray (L, 6)
        Slots of the translational and rotational stiffness and damping.
    names : tuple of str
        Loop labels.
    """

    a: np.ndarray
    b: np.ndarray
    point_a: np.ndarray
    point_b: np.ndarray
    k: np.ndarray
    d: np.ndarray
    names: tuple[str, ...]


@dataclass(frozen=True)
class WrenchInputTable:
    """Declared external wrench inputs: one row per input wrench.

    Attributes
    ----------
    body : ndarray (W,)
        Body index.
    point : ndarray (W, 3)
        Slots of the application point (body frame).
    body_frame : ndarray (W,) of bool
        Wrench given in the body frame (else inertial).
    col : ndarray (W,)
        Input column of the wrench's first component ``Fx``.
    """

    body: np.ndarray
    point: np.ndarray
    body_frame: np.ndarray
    col: np.ndarray


@dataclass(frozen=True)
class OutputSpec:
    """One declared sensor.

    Attributes
    ----------
    kind : str
        ``q``, ``qd``, ``qdd``, ``position``, ``attitude``, ``velocity``,
        ``angular_velocity`` or ``acceleration``.
    body : int
        Body index.
    point : ndarray (3,)
        Slots of the measured point (body frame).
    body_frame : bool
        Vector outputs in the body frame (else inertial).
    columns : slice
        Its columns in the output vector.
    """

    kind: str
    body: int
    point: np.ndarray
    body_frame: bool
    columns: slice


@dataclass(frozen=True)
class Physics:
    """Physical data of one evaluation, resolved from the slots (leading axes: batch).

    Attributes
    ----------
    mass : ndarray (..., n)
        Masses [kg].
    com : ndarray (..., n, 3)
        Centres of mass ``P→B`` [m], body frame.
    D : ndarray (..., n, 6, 6)
        Direct dynamic model ``D_P`` at each body origin (eq. 4).
    offset : ndarray (..., n, 3)
        Parent port of each joint [m], parent frame.
    rot : ndarray (..., n, 3, 3)
        ``P_{a0/b}``.
    axis : ndarray (..., n, 3)
        Unit joint axes, child frame.
    S : ndarray (..., n, 6)
        Joint motion subspace ``[t; 0]`` (prismatic) or ``[0; r]`` (revolute), zero otherwise.
    k, d, rest : ndarray (..., n)
        Joint stiffness [N/m or N m/rad], damping [N s/m or N m s/rad] and rest position.
    gravity : ndarray (..., 3)
        [m/s²], inertial frame.
    total_mass : ndarray (...)
        [kg].
    load_point, load_vec : ndarray (..., L, 3)
        Load application points [m] and vectors.
    load_fraction : ndarray (..., L)
        Buoyancy fractions.
    input_point : ndarray (..., W, 3)
        Application points of the wrench inputs [m].
    loop_point_a, loop_point_b : ndarray (..., Lp, 3)
        Loop attachment points [m].
    loop_k, loop_d : ndarray (..., Lp, 6)
        Loop stiffness and damping.
    extra : ndarray (..., n, 12)
        Further joint data (:attr:`SlotIndex.extra`).
    vals : ndarray (..., n_slots)
        Every slot value.
    """

    mass: np.ndarray
    com: np.ndarray
    D: np.ndarray
    offset: np.ndarray
    rot: np.ndarray
    axis: np.ndarray
    S: np.ndarray
    k: np.ndarray
    d: np.ndarray
    rest: np.ndarray
    gravity: np.ndarray
    total_mass: np.ndarray
    load_point: np.ndarray
    load_vec: np.ndarray
    load_fraction: np.ndarray
    input_point: np.ndarray
    loop_point_a: np.ndarray
    loop_point_b: np.ndarray
    loop_k: np.ndarray
    loop_d: np.ndarray
    extra: np.ndarray
    vals: np.ndarray

    def freeze(self) -> Physics:
        """Make every array read-only (the data shared by cached evaluations); returns self."""
        for f in fields(self):
            getattr(self, f.name).setflags(write=False)
        return self


def joint_input_columns(kind: Any, body_names: tuple[str, ...], input_names: tuple[str, ...],
                        tau_column: Any, wrench_inputs: WrenchInputTable
                        ) -> tuple[np.ndarray, WrenchInputTable, dict[str, str]]:
    """Input columns of the joint torques and of the wrench inputs, from the input names.

    The inputs are the joint inputs (``<body>_tau``, ``<body>_qdd``, the torques of
    :data:`JOINT_TORQUE_INPUTS`) followed by six columns per wrench input; the torques of a
    multi-d.o.f. joint are consecutive, so one column (the first) locates them.

    Parameters
    ----------
    kind : array_like of int (n,)
        Joint kind per body.
    body_names : tuple of str
        Bodies, in tree order.
    input_names : tuple of str
        Input names, in column order.
    tau_column : array_like of int (n,)
        Column of each one-d.o.f. joint's ``<body>_tau`` (``-1``: none); other entries are
        replaced.
    wrench_inputs : WrenchInputTable
        Declared wrench inputs (their columns are recomputed: they follow every joint input).

    Returns
    -------
    tau_column : ndarray of int (n,)
        Column of each actuated joint's first torque (``-1``: not actuated).
    wrench_inputs : WrenchInputTable
        With ``col`` the column of each wrench's ``Fx``.
    units : dict
        ``"N m"`` for every multi-d.o.f. joint torque input.
    """
    cols = np.array(tau_column, dtype=int)
    kind = np.asarray(kind, dtype=int)
    cols[np.isin(kind, list(JOINT_TORQUE_INPUTS))] = -1
    units: dict[str, str] = {}
    firsts = {f"_{sfx[0]}": sfx for sfx in JOINT_TORQUE_INPUTS.values()}
    body_index: dict[str, int] | None = None
    for k, name in enumerate(input_names):  # from the inputs: fast for 10⁵ bodies
        for head, suffixes in firsts.items():
            if not name.endswith(head):
                continue
            if body_index is None:
                body_index = {b: i for i, b in enumerate(body_names)}
            i = body_index.get(name[:-len(head)], -1)
            names = [f"{name[:-len(head)]}_{sfx}" for sfx in suffixes]
            if (i >= 0 and JOINT_TORQUE_INPUTS.get(int(kind[i])) == suffixes
                    and tuple(input_names[k:k + len(names)]) == tuple(names)):
                cols[i] = k
                units.update(dict.fromkeys(names, "N m"))
    n_w = int(wrench_inputs.body.size)
    start = len(input_names) - 6 * n_w
    wrench = replace(wrench_inputs, col=readonly(start + 6 * np.arange(n_w), int))
    return cols, wrench, units


class PointTable(Mapping):
    """The named points of every body, ``(body, point) -> slots (3,)``, held as arrays.

    A read-only mapping over ``origin``, ``com`` and the ports of each body (in body order),
    built from slot arrays (no Python object per point until one is looked up: a model of
    10⁵ bodies has some 4·10⁵ points).

    Parameters
    ----------
    body_names : tuple of str
        The bodies, in tree order.
    origin : array_like of int (3,)
        Slots of the zero vector (every body's origin).
    com : array_like of int (n, 3)
        Slots of each body's centre of mass (body frame).
    port_names : list of tuple of str
        The port names of each body.
    port_slots : array_like of int (P, 3)
        Slots of the ports, body by body in ``port_names`` order.
    """

    def __init__(self, body_names: tuple[str, ...], origin: Any, com: Any,
                 port_names: list[tuple[str, ...]], port_slots: Any):
        self.body_names = tuple(body_names)
        self.origin = readonly(origin, int)
        self.com = readonly(com, int).reshape(-1, 3)
        self.port_names = list(port_names)
        self.port_slots = readonly(port_slots, int).reshape(-1, 3)
        counts = np.fromiter(map(len, self.port_names), dtype=int, count=len(self.port_names))
        self.port_first = np.concatenate(([0], np.cumsum(counts)[:-1])).astype(int)
        self._index: dict[str, int] | None = None

    def _body(self, body: Any) -> int:
        if self._index is None:
            self._index = dict(zip(self.body_names, range(len(self.body_names))))
        return self._index[body]

    def __getitem__(self, key: tuple[str, str]) -> np.ndarray:
        body, point = key
        i = self._body(body)
        if point == "origin":
            return self.origin
        if point == "com":
            return self.com[i]
        names = self.port_names[i]
        if point not in names:
            raise KeyError(key)
        return self.port_slots[self.port_first[i] + names.index(point)]

    def __iter__(self) -> Iterator[tuple[str, str]]:
        for body, ports in zip(self.body_names, self.port_names):
            yield (body, "origin")
            yield (body, "com")
            for port in ports:
                yield (body, port)

    def __len__(self) -> int:
        return 2 * len(self.body_names) + len(self.port_slots)

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "_index": None}
