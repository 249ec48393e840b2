"""Joint kinds of the compiled tree, shared by the numpy recursion and the compiled kernel.

A joint kind is a small integer so that the compiled kernel can branch on it; the model
description's joint classes map onto these when a model is compiled.
"""

from __future__ import annotations

__all__ = ["FREE", "KIND_NAMES", "PRISMATIC", "REVOLUTE", "WELD"]

FREE, WELD, REVOLUTE, PRISMATIC = 0, 1, 2, 3
"""Floating base (6 d.o.f.), weld (0), revolute and prismatic (1 each): kinds ``>= REVOLUTE``
have one degree of freedom ``b_q, b_qd``."""

KIND_NAMES = {FREE: "free", WELD: "weld", REVOLUTE: "revolute", PRISMATIC: "prismatic"}
