"""Validation of one joint record (the part of :mod:`titop_lpv.model.validate` for joints).

:func:`check_joint` reads the joint's leaves through the validation's checker (its
``number``, ``vector`` and ``rotation`` resolve them with the default parameter values and
record problems) and appends one problem line per fault, naming the body and the field.
"""

from __future__ import annotations

from typing import Any

from ..multibody.param_checks import AXIS_MIN_SQUARED
from .description import Body, Free, Spherical, Universal, Weld

__all__ = ["check_joint"]


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
