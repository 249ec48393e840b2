"""The numeric leaves of a joint record, split into the per-body scalar slots of the compiled
tree and its ``extra`` slots (:class:`~titop_lpv.multibody.tables.SlotIndex`).

Layout of the ``extra`` slots (:data:`EXTRA_SLOTS` per body):

* spherical: ``rest`` quaternion (4), ``q0`` quaternion (4), ``w0`` (3), 0;
* universal: ``axis1`` (3, parent frame), then for the second axis ``stiffness``,
  ``damping``, ``rest``, ``q0``, ``qd0`` (the first axis's values take the scalar slots);
* other joints: zeros.
"""

from __future__ import annotations

from typing import Any

from .joints import Free, Joint, Spherical, Universal

__all__ = ["EXTRA_SLOTS", "joint_leaves", "leaf_columns"]

EXTRA_SLOTS = 12


def _pair(value: Any) -> tuple[Any, Any]:
    return (value[0], value[1]) if isinstance(value, tuple) else (value, value)


def joint_leaves(j: Joint) -> tuple[dict[str, Any], list[Any]]:
    """Scalar leaves overriding the joint's own fields, and the ``extra`` leaves.

    Parameters
    ----------
    j : Joint
        A joint record.

    Returns
    -------
    first : dict
        ``stiffness``, ``damping``, ``rest``, ``q0``, ``qd0`` for the scalar slots when they
        differ from the record's field (spherical: no scalar rest/initial state; universal:
        the first axis's values).
    extra : list
        :data:`EXTRA_SLOTS` numbers or parameter names.
    """
    if isinstance(j, Spherical):
        extra = [*j.rest, *j.q0, *j.w0, 0.0]
        return {"rest": 0.0, "q0": 0.0, "qd0": 0.0}, extra
    if isinstance(j, Universal):
        keys = ("stiffness", "damping", "rest", "q0", "qd0")
        pairs = {k: _pair(getattr(j, k)) for k in keys}
        extra = [*j.axis1, *(pairs[k][1] for k in keys)]
        return {k: pairs[k][0] for k in keys}, extra + [0.0] * (EXTRA_SLOTS - len(extra))
    if isinstance(j, Free):  # its initial state is in the base slots
        return {"q0": 0.0}, [0.0] * EXTRA_SLOTS
    return {}, [0.0] * EXTRA_SLOTS


_SCALAR_KEYS = ("stiffness", "damping", "rest", "q0", "qd0")
_ZEROS = (0.0,) * EXTRA_SLOTS


def leaf_columns(joints: list[Joint]) -> tuple[dict[str, list[Any]], list[tuple[Any, ...]]]:
    """:func:`joint_leaves` of many joints, field by field (a model of 10⁵ bodies).

    Parameters
    ----------
    joints : list of Joint
        The joint records, in body order.

    Returns
    -------
    scalars : dict
        ``stiffness``, ``damping``, ``rest``, ``q0``, ``qd0`` -> one leaf per joint (what
        the scalar slots hold: the overrides of :func:`joint_leaves`, else the joint's
        field, else 0).
    extra : list of tuple
        The :data:`EXTRA_SLOTS` leaves of each joint.
    """
    n = len(joints)
    scalars: dict[str, list[Any]] = {k: [0.0] * n for k in _SCALAR_KEYS}
    extra: list[tuple[Any, ...]] = [_ZEROS] * n
    groups: dict[type, list[int]] = {}
    for i, j in enumerate(joints):
        groups.setdefault(type(j), []).append(i)
    for cls, rows in groups.items():
        group = [joints[i] for i in rows]
        if cls is Spherical:  # no scalar rest or initial state: those are in extra
            stiffness, damping = scalars["stiffness"], scalars["damping"]
            for i, j in zip(rows, group):
                stiffness[i], damping[i] = j.stiffness, j.damping
                extra[i] = (*j.rest, *j.q0, *j.w0, 0.0)
            continue
        if cls is Universal or not issubclass(cls, Joint):  # rare: one by one
            for i, j in zip(rows, group):
                first, leaves = joint_leaves(j)
                for key in _SCALAR_KEYS:
                    scalars[key][i] = first.get(key, getattr(j, key, 0.0))
                extra[i] = tuple(leaves)
            continue
        skip = ("q0",) if cls is Free else ()  # its initial state is in the base slots
        for key in _SCALAR_KEYS:
            if key in skip or not hasattr(group[0], key):
                continue
            column = scalars[key]
            for i, value in zip(rows, [getattr(j, key) for j in group]):
                column[i] = value
    return scalars, extra
