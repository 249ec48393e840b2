"""The slot vector and the signal units of a model being compiled (:class:`Model`).

:class:`Slots` lays the numeric leaves of a description (numbers, or names of parameters)
out in one flat vector, sharing the slots of identical vectors and matrices, and
:func:`body_columns` lays out every body's data field by field (a dict lookup per body and
Python work per distinct value: a model of 100 000 bodies in a fraction of a second);
:func:`signal_units` gives every state, input and output of a compiled model its SI unit
(on first use: :attr:`~titop_lpv.multibody.tree.Tree.unit_table`).
"""

from __future__ import annotations

from itertools import chain
from typing import Any

import numpy as np

from ..multibody.joints import FREE, PRISMATIC, REVOLUTE, SPHERICAL, UNIVERSAL, WELD
from .description import Body
from .joint_leaves import EXTRA_SLOTS, leaf_columns
from .signals import BASE_QUATERNION_STATES, BASE_STATES, SPHERICAL_STATES, UNIVERSAL_STATES

__all__ = ["JOINT_OUTPUT_UNITS", "OUTPUT_UNITS", "STATE_UNITS", "Slots", "body_columns",
           "j_attitude", "signal_units"]

_NUMBERS = frozenset((float, int))


def _suffix_units(names: Any, units: Any) -> tuple[tuple[str, str], ...]:
    return tuple((f"_{q}", u) for q, u in zip(names, units))


STATE_UNITS = {
    (FREE, False): _suffix_units(BASE_STATES, ["m/s"] * 3 + ["rad/s"] * 3 + ["m"] * 3
                                 + ["rad"] * 3),
    (FREE, True): _suffix_units(BASE_QUATERNION_STATES, ["m/s"] * 3 + ["rad/s"] * 3
                                + ["m"] * 3 + [""] * 4),
    SPHERICAL: _suffix_units(SPHERICAL_STATES, [""] * 4 + ["rad/s"] * 3),
    UNIVERSAL: _suffix_units(UNIVERSAL_STATES, ["rad"] * 2 + ["rad/s"] * 2),
    REVOLUTE: _suffix_units(("q", "qd", "qdd", "tau"), ("rad", "rad/s", "rad/s^2", "N m")),
    PRISMATIC: _suffix_units(("q", "qd", "qdd", "tau"), ("m", "m/s", "m/s^2", "N")),
    WELD: (),
}
"""(name suffix, unit) of the states and joint signals of a body, by joint kind (a floating
base: by ``(FREE, quaternion attitude)``)."""

OUTPUT_UNITS = {"position": "m", "attitude": "rad", "velocity": "m/s",
                "angular_velocity": "rad/s", "acceleration": "m/s^2"}
"""Unit of the signals of a point or body sensor, by sensor type."""

JOINT_OUTPUT_UNITS = {False: {"tau": "N m", "q": "rad", "qd": "rad/s", "qdd": "rad/s^2"},
                      True: {"tau": "N", "q": "m", "qd": "m/s", "qdd": "m/s^2"}}
"""Unit of a joint sensor, by sensor type, for a rotating (False) or sliding (True) joint."""


def j_attitude(body: Any) -> str:
    """The attitude states of a floating base: ``"euler"`` or ``"quaternion"``.

    Parameters
    ----------
    body : Body
        A body whose joint is free (any other joint reads as ``"euler"``).

    Returns
    -------
    str
    """
    return str(getattr(body.joint, "attitude", "euler"))


class Slots:
    """Flat vector of numeric leaves: constants or parameter references.

    Identical vectors (and identical scalars) share their slots: the data are read-only
    (the numbers 0.0 and -0.0 count as identical). The column methods (:meth:`scalars`,
    :meth:`rows`, :meth:`matrices`) lay out one field of every body at once: a dict lookup
    per item and Python work per distinct value only.

    Parameters
    ----------
    param_names : tuple of str
        The model's parameters (a leaf that is a string names one of them).

    Attributes
    ----------
    const : list of float
        The value of each slot (0.0 for a parameter's slot).
    param : list of int
        The parameter of each slot (its index in ``param_names``), -1 for a constant.
    """

    def __init__(self, param_names: tuple[str, ...]):
        self.pindex = {n: i for i, n in enumerate(param_names)}
        self.const: list[Any] = []
        self.param: list[int] = []
        self.starts: dict[tuple[Any, ...], int] = {}  # vector of leaves -> its first slot
        self.single: dict[Any, int] = {}  # scalar leaf -> its slot

    def _append(self, leaves: list[Any]) -> None:
        """New slots holding ``leaves`` (numbers or parameter names), in order."""
        if set(map(type, leaves)) <= _NUMBERS:
            self.const.extend(leaves)
            self.param.extend([-1] * len(leaves))
            return
        const, param, pindex = self.const, self.param, self.pindex
        for v in leaves:
            if isinstance(v, str):
                const.append(0.0)
                param.append(pindex[v])
            else:
                const.append(float(v))
                param.append(-1)

    def first(self, keys: list[tuple[Any, ...]]) -> np.ndarray:
        """First slot of each vector of leaves (all of one length).

        Parameters
        ----------
        keys : list of tuple
            The vectors (numbers, in the unit of their field, or parameter names); equal
            vectors share their slots, and identical objects are hashed once.

        Returns
        -------
        numpy.ndarray of int
            The slot of each vector's first leaf (its leaves are consecutive).
        """
        starts = self.starts
        if keys and keys.count(keys[0]) == len(keys):  # one vector for all (equal ones)
            return np.full(len(keys), self._start(keys[0]), dtype=np.int64)
        ids = list(map(id, keys))  # identical objects first (a description read in bulk
        by_id = dict(zip(ids, keys))  # shares equal tuples): hashed once each
        new = [k for k in dict.fromkeys(by_id.values()) if k not in starts]
        if new:
            size = len(new[0])
            base = len(self.const)
            starts.update(zip(new, range(base, base + size * len(new), size)))
            self._append(list(chain.from_iterable(new)))
        slot = {i: starts[k] for i, k in by_id.items()}
        return np.fromiter(map(slot.__getitem__, ids), dtype=np.int64, count=len(keys))

    def _start(self, key: tuple[Any, ...]) -> int:
        """First slot of one vector of leaves (new slots when it is new)."""
        start = self.starts.get(key)
        if start is None:
            start = self.starts[key] = len(self.const)
            self._append(list(key))
        return start

    def rows(self, keys: list[tuple[Any, ...]], size: int) -> np.ndarray:
        """Slots of vectors of ``size`` leaves, shape (len(keys), size).

        Parameters
        ----------
        keys : list of tuple
            The vectors (numbers, in the unit of their field, or parameter names).
        size : int
            Their length.

        Returns
        -------
        numpy.ndarray of int
        """
        if not keys:
            return np.zeros((0, size), dtype=np.int64)
        return self.first(keys)[:, None] + np.arange(size)

    def matrices(self, keys: list[Any]) -> np.ndarray:
        """Slots of 3×3 matrices of leaves (row by row), shape (len(keys), 3, 3).

        Parameters
        ----------
        keys : list of tuple of tuple
            The matrices (an inertia [kg m²], a rotation), each as 3 rows.

        Returns
        -------
        numpy.ndarray of int
        """
        return self.rows(list(chain.from_iterable(keys)), 3).reshape(-1, 3, 3)

    def scalars(self, leaves: list[Any]) -> np.ndarray:
        """Slot of each scalar leaf (equal leaves share their slot).

        Parameters
        ----------
        leaves : list
            Numbers (in the unit of their field) or parameter names.

        Returns
        -------
        numpy.ndarray of int
        """
        single = self.single
        new = [v for v in dict.fromkeys(leaves) if v not in single]
        if new:
            base = len(self.const)
            single.update(zip(new, range(base, base + len(new))))
            self._append(new)
        return np.fromiter(map(single.__getitem__, leaves), dtype=np.int64,
                           count=len(leaves))

    def add(self, leaf: Any) -> int:
        """Slot of one leaf (shared with every identical leaf, as :meth:`vec`).

        Parameters
        ----------
        leaf : float or str
            A number (in the unit of its field) or the name of a parameter.

        Returns
        -------
        int
            Its index in the slot vector.
        """
        return int(self.scalars([leaf])[0])

    def vec(self, values: Any) -> list[int]:
        """Slots of a vector of leaves; identical vectors share their slots.

        Parameters
        ----------
        values : sequence of float or str
            Numbers (in the unit of their field) or names of parameters.

        Returns
        -------
        list of int
            Their indices in the slot vector.
        """
        key = tuple(values)
        if not key:
            return []
        return self.rows([key], len(key))[0].tolist()


_IDENTITY = ((1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0))
_ZERO3 = (0.0, 0.0, 0.0)
_ZERO33 = (_ZERO3, _ZERO3, _ZERO3)
_Z_AXIS = (0.0, 0.0, 1.0)


def body_columns(slots: Slots, bodies: list[Body], kind: list[int],
                 parents: list[Body | None], parent_ports: list[str]) -> dict[str, Any]:
    """The slots of every body's own data, field by field over all bodies.

    Parameters
    ----------
    slots : Slots
        The slot vector being laid out.
    bodies : list of Body
        The bodies in tree order.
    kind : list of int
        Their joint kinds (:mod:`titop_lpv.multibody.joints`).
    parents : list of Body or None
        The parent of each body (None: the world).
    parent_ports : list of str
        The point of the parent each body hangs from (``origin``, ``com`` or a port).

    Returns
    -------
    dict
        Slot arrays ``mass`` (n,), ``inertia`` (n, 3, 3), ``com`` (n, 3), ``offset``
        (n, 3), ``rot`` (n, 3, 3), ``axis`` (n, 3), ``k d rest q0 qd0`` (n,), ``extra``
        (n, 12); ``origin`` (3,), the slots of the zero vector; ``port_names`` (a tuple
        per body) and ``port_slots`` (P, 3), the ports body by body.
    """
    joints = [b.joint for b in bodies]
    out: dict[str, Any] = {"origin": slots.rows([_ZERO3], 3)[0]}
    out["mass"] = slots.scalars([b.mass for b in bodies])
    out["inertia"] = slots.matrices([_ZERO33 if b.inertia is None else b.inertia
                                     for b in bodies])
    out["com"] = slots.rows([b.com for b in bodies], 3)
    ports = [b.ports for b in bodies]
    out["port_names"] = [tuple(p) for p in ports]
    out["port_slots"] = slots.rows(list(chain.from_iterable(p.values() for p in ports)), 3)
    out["offset"] = slots.rows([
        _ZERO3 if parent is None or port == "origin" else
        parent.com if port == "com" else parent.ports[port]
        for parent, port in zip(parents, parent_ports)], 3)
    rotations = [getattr(j, "rotation", None) for j in joints]
    out["rot"] = slots.matrices([_IDENTITY if r is None else r for r in rotations])
    out["axis"] = slots.rows([
        j.axis if k_i == REVOLUTE or k_i == PRISMATIC else j.axis2 if k_i == UNIVERSAL
        else _Z_AXIS for j, k_i in zip(joints, kind)], 3)
    scalars, extra = leaf_columns(joints)
    for key, attr in (("k", "stiffness"), ("d", "damping"), ("rest", "rest"), ("q0", "q0"),
                      ("qd0", "qd0")):
        out[key] = slots.scalars(scalars[attr])
    out["extra"] = slots.rows(extra, EXTRA_SLOTS)
    return out


def signal_units(tree: Any) -> dict[str, str]:
    """The SI unit of every state, joint input and output signal of a compiled model.

    Parameters
    ----------
    tree : Tree
        The compiled tree (:class:`~titop_lpv.multibody.tree.Tree`): its bodies, joint
        kinds, floating-base attitude, state names (body by body, as
        :func:`~titop_lpv.model.signals.signal_names` lays them out), input names (wrench
        components ``…_Fx … _Tz`` get ``N`` or ``N m``), sensors and output names.

    Returns
    -------
    dict
        Signal name -> unit (``""`` for a quaternion component).
    """
    kind = tree.kind.tolist()
    keys: list[Any] = list(kind)
    for i, k_i in enumerate(kind):
        if k_i == FREE:  # the root only (validated): its table depends on its attitude
            keys[i] = (FREE, tree.attitude == "quaternion")
    if REVOLUTE in kind or PRISMATIC in kind:  # their tables also name joint inputs, sensors
        units: dict[str, str] = {}
        for name, key in zip(tree.body_names, keys):
            for suffix, unit in STATE_UNITS[key]:
                units[name + suffix] = unit
    else:  # the tables name the states of each body, in state order
        per_kind = {key: [unit for _, unit in table] for key, table in STATE_UNITS.items()}
        units = dict(zip(tree.state_names, chain.from_iterable(map(per_kind.__getitem__, keys)),
                         strict=True))
    units.update({nm: ("N" if nm[-2] == "F" else "N m") for nm in tree.input_names
                  if nm[-2:-1] in "FT" and nm[-1] in "xyz"})
    column_units: list[str] = []
    for spec in tree.output_specs:
        unit = (OUTPUT_UNITS.get(spec.kind)
                or JOINT_OUTPUT_UNITS[kind[spec.body] == PRISMATIC][spec.kind])
        column_units += [unit] * (spec.columns.stop - spec.columns.start)
    units.update(zip(tree.output_names[:len(column_units)], column_units))
    return units
