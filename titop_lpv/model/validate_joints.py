"""Validation of one joint record (the part of :mod:`titop_lpv.model.validate` for joints).

:func:`check_joint` reads the joint's leaves through the validation's checker (its
``number``, ``vector`` and ``rotation`` resolve them with the default parameter values and
record problems) and appends one problem line per fault, naming the body and the field.
:func:`screen_bodies` finds, over arrays, the bodies that have nothing to report, so that
the per-body checks run only for the others (a large model is checked in array time).
"""

from __future__ import annotations

from itertools import chain
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

    A body passes when its mass, com, ports and joint fields (but its inertia and joint
    rotation, which the caller looks up among the matrices already checked) are plain
    numbers within the limits of :func:`check_joint` and the validation's checker: it would
    add no problem there. Every other body (parameter names, anything doubtful) is left to
    the per-body check, which names the faults; so the screen changes no message.

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
    ok = _numbers([b.mass for b in bodies], 0.0, MAX_MAGNITUDE)
    ok &= _vectors([b.com for b in bodies], 3)
    masses = np.array([b.mass if ok[i] else 1.0 for i, b in enumerate(bodies)], dtype=float)
    ok &= (masses == 0.0) | (masses >= MIN_MASS)
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
            good &= _numbers([getattr(j, key) for j in joints], 0.0, MAX_MAGNITUDE)
        for key in scalars:
            good &= _numbers([getattr(j, key) for j in joints], -MAX_MAGNITUDE, MAX_MAGNITUDE)
        for keys, size, nonzero in ((axes, 3, True), (quats, 4, True), (vecs, 3, False)):
            for key in keys:
                good &= _vectors([getattr(j, key) for j in joints], size, nonzero)
        if cls is not Weld:
            good &= np.array([type(j.actuated) is bool for j in joints], dtype=bool)
        if cls is Revolute or cls is Prismatic:
            good &= np.array([j.motion == "free" or (j.motion == "input" and not j.actuated)
                              for j in joints], dtype=bool)
        ok[rows] &= good
    return ok


def _numbers(values: list[Any], lo: float, hi: float) -> np.ndarray:
    """Per value: a plain number (not a bool, not a parameter name) in ``[lo, hi]``."""
    if set(map(type, values)) <= _NUMBERS:
        try:
            arr = np.array(values, dtype=float)
        except OverflowError:  # an integer beyond the doubles: checked one by one
            pass
        else:
            return (arr >= lo) & (arr <= hi)  # NaN fails
    return np.array([(type(v) is float or type(v) is int) and lo <= v <= hi for v in values],
                    dtype=bool)


def _vectors(values: list[Any], size: int, nonzero: bool = False) -> np.ndarray:
    """Per value: a tuple of ``size`` plain numbers within the limits (and, if ``nonzero``,
    clearly longer than zero)."""
    n = len(values)
    if n and set(map(type, values)) == {tuple} and set(map(len, values)) == {size}:
        arr = _numbers(list(chain.from_iterable(values)), -MAX_MAGNITUDE, MAX_MAGNITUDE)
        good = arr.reshape(n, size).all(axis=1)
        if nonzero:
            flat = np.array([v if g else (1.0,) * size for v, g in zip(values, good)],
                            dtype=float)
            good &= np.einsum("ij,ij->i", flat, flat) > 2 * AXIS_MIN_SQUARED
        return good
    return np.array([type(v) is tuple and len(v) == size and bool(
        _vectors([v], size, nonzero)[0]) for v in values], dtype=bool)
