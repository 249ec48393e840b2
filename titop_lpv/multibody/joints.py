"""Joint kinds of the compiled tree, shared by the numpy recursion and the compiled kernel.

A joint kind is a small integer so that the compiled kernel can branch on it; the model
description's joint classes map onto these when a model is compiled.
"""

from __future__ import annotations

import numpy as np

__all__ = ["FREE", "KIND_NAMES", "MULTI_DOF", "NQ", "NV", "PRISMATIC", "REVOLUTE", "SPHERICAL",
           "UNIVERSAL", "WELD", "is_one_dof"]

FREE, WELD, REVOLUTE, PRISMATIC, SPHERICAL, UNIVERSAL = 0, 1, 2, 3, 4, 5
"""Floating base (6 d.o.f.), weld (0), revolute and prismatic (1 each: states ``b_q, b_qd``),
spherical (3: quaternion ``b_qw … b_qz`` and rate ``b_wx … b_wz``), universal (2:
``b_q1 b_q2 b_qd1 b_qd2``)."""

KIND_NAMES = {FREE: "free", WELD: "weld", REVOLUTE: "revolute", PRISMATIC: "prismatic",
              SPHERICAL: "spherical", UNIVERSAL: "universal"}
MULTI_DOF = (SPHERICAL, UNIVERSAL)
NQ = {FREE: 0, WELD: 0, REVOLUTE: 1, PRISMATIC: 1, SPHERICAL: 4, UNIVERSAL: 2}
"""Position states of a joint kind (a free base's 12 states are handled apart)."""
NV = {FREE: 6, WELD: 0, REVOLUTE: 1, PRISMATIC: 1, SPHERICAL: 3, UNIVERSAL: 2}
"""Velocity d.o.f. of a joint kind."""


def is_one_dof(kind: np.ndarray | int) -> np.ndarray | bool:
    """True for revolute and prismatic joints (the kinds with states ``b_q, b_qd``).

    Parameters
    ----------
    kind : int or ndarray of int
        Joint kind(s).

    Returns
    -------
    bool or ndarray of bool
    """
    return (np.asarray(kind) == REVOLUTE) | (np.asarray(kind) == PRISMATIC)
