"""Loads in the linear TITOP blocks around a static equilibrium (docs/design.md §2).

Constant loads (buoyancy, forces and torques, body or inertial frame) and declared wrench
inputs at their trimmed values enter a body block as a static wrench at its origin and, for
the inertial-frame ones, a gain on the body's small rotation ``θ`` (they turn in the body
frame as it turns: ``δ(Pᵀ F) = (*(Pᵀ F)) θ``). A damping load (``−c_v v_C`` at a point,
``−c_ω ω``) is zero at rest: it enters through the twist deviation
(:func:`titop_lpv.linear.blocks_multidof.damping_gain`), and around a steady spin through
its nominal wrench ``−C_d x'₀`` too.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from ..model.compiled import Model
from .blocks_multidof import damping_gain
from .spin import DAMPING_LOAD
from .values import Value, add, matmul, scale, skew_of, stack, value_matrix

__all__ = ["damping_gains", "load_terms"]


def load_terms(model: Model, leaf: Callable[[int], Any], column: Callable[[Any], Value],
               PT: Sequence[Any], u0: np.ndarray, inputs: Sequence[str],
               u_eq: Mapping[str, Any]
               ) -> tuple[dict[int, Value], dict[int, Value], dict[int, dict[str, Value]]]:
    """Per body: the nominal load wrench at its origin, its gain on the body's small
    rotation ``θ``, and the gains of the external inputs.

    Buoyancy, constant forces and torques, and the wrench inputs at their trimmed values;
    inertial-frame ones turn with the body (``θ`` gain). A damping load is zero at rest
    (:func:`damping_gains`).

    Parameters
    ----------
    model : Model
        The compiled model.
    leaf : callable
        Slot → number or ``ureal``.
    column : callable
        Slots → 3×1 value.
    PT : sequence of ndarray or USS, 3×3
        Each body's ``P_{b/i}ᵀ`` at the equilibrium (uncertain where a position above it
        is a parameter).
    u0 : ndarray (n_inputs,)
        Inputs at the equilibrium.
    inputs : sequence of str
        The model inputs kept (their gains are returned).
    u_eq : mapping of str to UReal
        Wrench inputs whose equilibrium value [N, N m] is a parameter.

    Returns
    -------
    w0 : dict
        Body index → 6×1 wrench at the origin [N, N m], body frame.
    th : dict
        Body index → 6×3 gain on ``θ``.
    gains : dict
        Body index → {input name → 6×1 gain}.
    """
    w0: dict[int, Value] = {}
    th: dict[int, Value] = {}
    gains: dict[int, dict[str, Value]] = {}
    g = column(model.slots.gravity)
    total = None
    for i in range(len(model.body_names)):
        total = add(total, value_matrix([[leaf(int(model.slots.mass[i]))]]))

    def force_at(b: int, F_b: Value, p: Value, rotates: bool) -> None:
        w0[b] = add(w0.get(b), stack([[F_b], [matmul(skew_of(p), F_b)]], [3, 3], [1]))
        if rotates:
            sF = skew_of(F_b)
            th[b] = add(th.get(b), stack([[sF], [matmul(skew_of(p), sF)]], [3, 3], [3]))

    def torque_at(b: int, T_b: Value, rotates: bool) -> None:
        w0[b] = add(w0.get(b), stack([[None], [T_b]], [3, 3], [1]))
        if rotates:
            th[b] = add(th.get(b), stack([[None], [skew_of(T_b)]], [3, 3], [3]))

    lds = model.loads
    for k in range(lds.kind.size):
        b = int(lds.body[k])
        Pt = PT[b]
        if lds.kind[k] == 0:  # buoyancy: −fraction · total mass · g, inertial
            fm = matmul(total, value_matrix([[leaf(int(lds.fraction[k]))]]))
            force_at(b, matmul(Pt, scale(-1.0, matmul(g, fm))), column(lds.point[k]),
                     True)
        elif lds.kind[k] == 1:
            v = column(lds.vec[k])
            body = bool(lds.body_frame[k])
            force_at(b, v if body else matmul(Pt, v), column(lds.point[k]), not body)
        elif lds.kind[k] == 2:  # (a damping load is zero at rest: damping_gains)
            v = column(lds.vec[k])
            body = bool(lds.body_frame[k])
            torque_at(b, v if body else matmul(Pt, v), not body)
    wi = model.wrench_inputs
    for k in range(wi.body.size):
        b = int(wi.body[k])
        body = bool(wi.body_frame[k])
        Pt = np.eye(3) if body else PT[b]
        p = column(wi.point[k])
        col = int(wi.col[k])
        u = [[u_eq.get(model.input_names[col + j], float(u0[col + j]))] for j in range(6)]
        F0 = matmul(Pt, value_matrix(u[:3]))
        T0 = matmul(Pt, value_matrix(u[3:]))
        force_at(b, F0, p, not body)
        torque_at(b, T0, not body)
        for j in range(6):
            name = model.input_names[col + j]
            if name not in inputs:
                continue
            e = matmul(Pt, np.eye(3)[:, j % 3:j % 3 + 1])
            gain = (stack([[e], [matmul(skew_of(p), e)]], [3, 3], [1]) if j < 3 else
                    stack([[None], [e]], [3, 3], [1]))
            gains.setdefault(b, {})[name] = gain
    return w0, th, gains


def damping_gains(model: Model, leaf: Callable[[int], Any], column: Callable[[Any], Value]
                  ) -> dict[int, Value]:
    """Per body, the sum of the ``C_d`` of its damping loads (``δW = −C_d δx'``).

    Parameters
    ----------
    model : Model
        The compiled model.
    leaf : callable
        Slot → number or ``ureal``.
    column : callable
        Slots → 3×1 value.

    Returns
    -------
    dict
        Body index → 6×6 value.
    """
    out: dict[int, Value] = {}
    lds = model.loads
    for k in np.flatnonzero(lds.kind == DAMPING_LOAD):
        b = int(lds.body[k])
        vec = np.ravel(lds.vec[k])
        out[b] = add(out.get(b), damping_gain(leaf(int(vec[0])), leaf(int(vec[1])),
                                              column(lds.point[k])))
    return out
