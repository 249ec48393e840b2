"""Validation of one joint record (the part of :mod:`titop_lpv.model.validate` for joints).

:func:`check_joint` reads the joint's leaves through the validation's checker (its
``number``, ``vector`` and ``rotation`` resolve them with the default parameter values and
record problems) and appends one problem line per fault, naming the body and the field.
:func:`screen_bodies` finds, over arrays, the bodies that have nothing to report, so that
the per-body checks run only for the others (a large model is checked in array time).
"""

from __future__ import annotations

from itertools import chain
from operator import attrgetter
from typing import Any

import numpy as np

from ..multibody.param_checks import AXIS_MIN_SQUARED, MAX_MAGNITUDE, MIN_MASS
from .description import Body, Free, Prismatic, Revolute, Spherical, Universal, Weld

__all__ = ["check_joint", "screen_bodies"]


def check_joint(c: Any, b: Body, is_root: bool) -> None:
    """Check the joint of body ``b``.

    Parameters
    ----------
    c : the validation's checker
        Its ``number``, ``vector`` and ``rotation`` read the leaves and record problems in
        its ``problems`` list.
    b : Body
        The body whose joint is checked.
    is_root : bool
        ``b`` hangs from the world (a ``free`` joint is allowed only there).
    """
    j = b.joint
    p = c.problems
    w = f"body {b.name!r}: joint"
    if isinstance(j, Free):
        if not is_root:
            p.append(f"{w}: a 'free' joint is allowed only on the root body "
                     f"(hanging from the world), but parent is {b.parent!r}")
        for key in ("position0", "euler0", "v0", "w0"):
            c.vector(getattr(j, key), f"{w}.{key}")
        if j.attitude not in ("euler", "quaternion"):
            p.append(f"{w}.attitude: must be 'euler' or 'quaternion', got {j.attitude!r}")
        _quaternion(c, j.q0, f"{w}.q0")
        return
    c.rotation(j.rotation, f"{w}.rotation")
    if isinstance(j, Weld):
        return
    if not isinstance(j.actuated, bool):
        p.append(f"{w}.actuated: must be true or false, got {j.actuated!r}")
    if isinstance(j, (Spherical, Universal)):
        _multi_dof(c, j, w)
        return
    if j.motion not in ("free", "input"):
        p.append(f"{w}.motion: must be 'free' or 'input', got {j.motion!r}")
    elif j.motion == "input" and j.actuated is True:
        p.append(f"{w}: a driven joint (motion = 'input') cannot also be actuated: its force "
                 "is an output")
    _axis(c, j.axis, f"{w}.axis")
    for key in ("stiffness", "damping", "rest", "q0", "qd0"):
        c.number(getattr(j, key), f"{w}.{key}")


def _axis(c: Any, value: Any, where: str) -> None:
    axis = c.vector(value, where)
    if axis is not None and float(axis @ axis) <= AXIS_MIN_SQUARED:
        c.problems.append(f"{where}: zero-length axis {axis.tolist()}")


def _quaternion(c: Any, value: Any, where: str) -> None:
    quat = c.vector(value, where, n=4)
    if quat is not None and float(quat @ quat) <= AXIS_MIN_SQUARED:
        c.problems.append(f"{where}: a quaternion (w, x, y, z) must not be zero, "
                          f"got {quat.tolist()}")


def _multi_dof(c: Any, j: Spherical | Universal, w: str) -> None:
    """The fields of a spherical or universal joint."""
    p = c.problems
    if isinstance(j, Spherical):
        for key in ("stiffness", "damping"):
            val = c.number(getattr(j, key), f"{w}.{key}")
            if val is not None and val < 0:
                p.append(f"{w}.{key}: must be >= 0, got {val}")
        for key in ("rest", "q0"):
            _quaternion(c, getattr(j, key), f"{w}.{key}")
        c.vector(j.w0, f"{w}.w0")
        return
    for key in ("axis1", "axis2"):
        _axis(c, getattr(j, key), f"{w}.{key}")
    for key in ("stiffness", "damping", "rest", "q0", "qd0"):
        val = getattr(j, key)
        if isinstance(val, tuple):
            c.vector(val, f"{w}.{key}", n=2)
        else:
            c.number(val, f"{w}.{key}")


# -- the screen: which bodies have nothing to report, over all bodies at once -------------

_NUMBERS = frozenset((float, int))
_SCREENED = {  # joint class -> (scalars >= 0, scalars, axes, quaternions, 3-vectors)
    Spherical: (("stiffness", "damping"), (), (), ("rest", "q0"), ("w0",)),
    Revolute: ((), ("stiffness", "damping", "rest", "q0", "qd0"), ("axis",), (), ()),
    Prismatic: ((), ("stiffness", "damping", "rest", "q0", "qd0"), ("axis",), (), ()),
    Universal: ((), ("stiffness", "damping", "rest", "q0", "qd0"), ("axis1", "axis2"), (), ()),
    Weld: ((), (), (), (), ()),
}


def screen_bodies(bodies: list[Body], identifier: Any, reserved: tuple[str, ...]
                  ) -> np.ndarray:
    """Bodies certainly without a problem in their own fields, found over arrays.

    A body passes when its mass, com, ports and joint fields are plain numbers within the
    limits of :func:`check_joint` and the validation's checker (it would add no problem
    there) and its inertia and joint rotation are absent or 3×3 matrices of plain numbers
    (whose other properties the caller looks up among the matrices already checked: a
    matrix equal to a clean one has the same numbers, as no bool is among them). Every
    other body (parameter names, anything doubtful) is left to the per-body check, which
    names the faults; so the screen changes no message.

    Parameters
    ----------
    bodies : list of Body
        The bodies, as declared.
    identifier : re.Pattern
        The pattern of a port name.
    reserved : tuple of str
        Reserved point names (not allowed as port names).

    Returns
    -------
    numpy.ndarray of bool
        Per body: True when it passes the screen.
    """
    n = len(bodies)
    mass = [b.mass for b in bodies]
    ok = _numbers(mass, 0.0, MAX_MAGNITUDE)
    ok &= _vectors([b.com for b in bodies], 3)
    masses = np.array([m if g else 1.0 for m, g in zip(mass, ok.tolist())], dtype=float)
    ok &= (masses == 0.0) | (masses >= MIN_MASS)
    ok &= _matrices([b.inertia for b in bodies])  # plain numbers (then the caller's lookup
    ok &= _matrices([getattr(b.joint, "rotation", None) for b in bodies])  # is by value)
    ports = [b.ports for b in bodies]
    is_dict = np.array([type(p) is dict for p in ports], dtype=bool)
    ok &= is_dict
    ports = [p if type(p) is dict else {} for p in ports]
    names = set(chain.from_iterable(ports))
    bad = {nm for nm in names if type(nm) is not str or not identifier.fullmatch(nm)
           or nm in reserved}
    if bad:
        ok &= np.array([not bad.intersection(p) for p in ports], dtype=bool)
    counts = np.fromiter(map(len, ports), dtype=int, count=n)
    vec_ok = _vectors(list(chain.from_iterable(p.values() for p in ports)), 3)
    if not vec_ok.all():
        owner = np.repeat(np.arange(n), counts)
        ok[owner[~vec_ok]] = False
    groups: dict[type, list[int]] = {}
    for i, b in enumerate(bodies):
        groups.setdefault(type(b.joint), []).append(i)
    for cls, rows in groups.items():
        spec = _SCREENED.get(cls)
        if spec is None:  # a free joint (the root) or not a joint: checked body by body
            ok[rows] = False
            continue
        joints = [bodies[i].joint for i in rows]
        good = np.ones(len(rows), dtype=bool)
        nonneg, scalars, axes, quats, vecs = spec
        for key in nonneg:
            good &= _numbers([*map(attrgetter(key), joints)], 0.0, MAX_MAGNITUDE)
        for key in scalars:
            good &= _numbers([*map(attrgetter(key), joints)], -MAX_MAGNITUDE, MAX_MAGNITUDE)
        for keys, size, nonzero in ((axes, 3, True), (quats, 4, True), (vecs, 3, False)):
            for key in keys:
                good &= _vectors([*map(attrgetter(key), joints)], size, nonzero)
        if cls is not Weld:
            good &= np.array([type(j.actuated) is bool for j in joints], dtype=bool)
        if cls is Revolute or cls is Prismatic:
            good &= np.array([j.motion == "free" or (j.motion == "input" and not j.actuated)
                              for j in joints], dtype=bool)
        ok[rows] &= good
    return ok


def _floats(values: list[Any]) -> np.ndarray | None:
    """``values`` as a float array when every one is a plain number (not a bool, not a
    parameter name, not an integer beyond the doubles); else None."""
    if set(map(type, values)) <= _NUMBERS:
        try:
            return np.array(values, dtype=float)
        except OverflowError:  # an integer beyond the doubles: checked one by one
            return None
    return None


def _numbers(values: list[Any], lo: float, hi: float) -> np.ndarray:
    """Per value: a plain number (not a bool, not a parameter name) in ``[lo, hi]``."""
    arr = _floats(values)
    if arr is not None:
        return (arr >= lo) & (arr <= hi)  # NaN fails
    return np.array([(type(v) is float or type(v) is int) and lo <= v <= hi for v in values],
                    dtype=bool)


def _vectors(values: list[Any], size: int, nonzero: bool = False) -> np.ndarray:
    """Per value: a tuple of ``size`` plain numbers within the limits (and, if ``nonzero``,
    clearly longer than zero)."""
    n = len(values)
    if n and set(map(type, values)) == {tuple} and set(map(len, values)) == {size}:
        ids = list(map(id, values))  # each distinct object once (a description read in
        by_id = dict(zip(ids, values))  # bulk shares its equal tuples of floats)
        distinct = list(by_id.values())
        arr = _floats(list(chain.from_iterable(distinct)))
        if arr is not None:  # all plain numbers: one array
            arr = arr.reshape(len(distinct), size)
            good = ((arr >= -MAX_MAGNITUDE) & (arr <= MAX_MAGNITUDE)).all(axis=1)
            if nonzero:
                flat = np.where(good[:, None], arr, 1.0)
                good &= np.einsum("ij,ij->i", flat, flat) > 2 * AXIS_MIN_SQUARED
            if len(distinct) == n:
                return good
            verdict = dict(zip(by_id, good.tolist()))
            return np.fromiter(map(verdict.__getitem__, ids), dtype=bool, count=n)
    return np.array([type(v) is tuple and len(v) == size and _one_vector(v, nonzero)
                     for v in values], dtype=bool)


def _one_vector(v: tuple[Any, ...], nonzero: bool) -> bool:
    """:func:`_vectors` of one tuple of the right length."""
    if not all((type(x) is float or type(x) is int) and -MAX_MAGNITUDE <= x <= MAX_MAGNITUDE
               for x in v):
        return False
    return not nonzero or sum(float(x) * float(x) for x in v) > 2 * AXIS_MIN_SQUARED


def _matrices(values: list[Any]) -> np.ndarray:
    """Per value: None, or a tuple of 3 rows of 3 plain numbers within the limits."""
    good = np.ones(len(values), dtype=bool)
    present = [i for i, v in enumerate(values) if v is not None]
    if not present:
        return good
    mats = [values[i] for i in present]
    ids = list(map(id, mats))  # each distinct object once (shared by a bulk reading)
    by_id = dict(zip(ids, mats))
    distinct = list(by_id.values())
    if set(map(type, distinct)) == {tuple} and set(map(len, distinct)) == {3}:
        rows = _vectors(list(chain.from_iterable(distinct)), 3).reshape(-1, 3).all(axis=1)
    else:
        rows = np.array([type(m) is tuple and len(m) == 3 and bool(_vectors(list(m), 3).all())
                         for m in distinct], dtype=bool)
    verdict = dict(zip(by_id, rows.tolist()))
    good[present] = np.fromiter(map(verdict.__getitem__, ids), dtype=bool, count=len(ids))
    return good
