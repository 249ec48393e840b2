"""Linear blocks of the loop-closure spring-dampers (paper §3.4) around a static equilibrium.

A loop's wrenches on its two bodies (:mod:`titop_lpv.multibody.loops`) are linear in its
stiffnesses and dampings ``k = (K_t, K_r)``, ``d = (D_t, D_r)`` and nonlinear in the motion
of the two bodies. The block is linearised at the substructure level: for each of the twelve
stiffness and damping components, the exact (complex-step) Jacobian of the wrenches with
respect to the two bodies' position deviations ``δr`` (inertial), small rotations ``θ`` and
twists ``δx'`` (body frames) at the equilibrium; the block is their sum weighted by the
components, which may be ``ureal``. The attachment points must be certain.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..robust.ops import uss
from ..robust.uss import USS
from .blocks import signals
from .values import Value, add, matmul, scalar_times, value_matrix

__all__ = ["loop_block", "loop_wrench_terms"]

STEP = 1e-30  # complex step


def _cross(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.array([a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2],
                     a[0] * b[1] - a[1] * b[0]])


def _skew(v: np.ndarray) -> np.ndarray:
    return np.array([[0.0, -v[2], v[1]], [v[2], 0.0, -v[0]], [-v[1], v[0], 0.0]], dtype=v.dtype)


def _vee_asym(A: np.ndarray) -> np.ndarray:
    return np.array([A[2, 1] - A[1, 2], A[0, 2] - A[2, 0], A[1, 0] - A[0, 1]])


def _wrenches(m: np.ndarray, geometry: tuple[np.ndarray, ...], k: np.ndarray, d: np.ndarray
              ) -> np.ndarray:
    """The loop's wrenches ``[W_a; W_b]`` (12) for the motion deviations ``m`` (24):
    ``δr_a, θ_a, δv_a, δω_a, δr_b, θ_b, δv_b, δω_b`` (the formulas of multibody.loops)."""
    ra0, Pa0, pa, rb0, Pb0, pb = geometry
    ra, tha, va, wa = m[0:3], m[3:6], m[6:9], m[9:12]
    rb, thb, vb, wb = m[12:15], m[15:18], m[18:21], m[21:24]
    Pa = Pa0 @ (np.eye(3) + _skew(tha))
    Pb = Pb0 @ (np.eye(3) + _skew(thb))
    dp = Pa.T @ (rb0 + rb + Pb @ pb - ra0 - ra - Pa @ pa)
    R = Pa.T @ Pb
    dpd = R @ (vb + _cross(wb, pb)) - (va + _cross(wa, pa)) - _cross(wa, dp)
    dw = R @ wb - wa
    f = k[:3] * dp + d[:3] * dpd
    G = 0.5 * np.sum(k[3:]) - k[3:]
    mdr = d[3:] * dw
    Ta = _cross(pa + dp, f) + _vee_asym(R * G[None, :]) + mdr
    Fb = -R.T @ f
    Tb = _cross(pb, Fb) - _vee_asym(G[:, None] * R) - R.T @ mdr
    return np.concatenate([f, Ta, Fb, Tb])


def loop_wrench_terms(geometry: tuple[np.ndarray, ...]) -> list[tuple[np.ndarray, np.ndarray]]:
    """For each of the 12 stiffness and damping components: the loop's nominal wrenches
    (12) and their Jacobian (12 × 24) with respect to the motion deviations, at unit value of
    that component and zero of the others.

    Parameters
    ----------
    geometry : tuple of ndarray
        ``(r_a, P_a, p_a, r_b, P_b, p_b)`` at the equilibrium: origins [m] (inertial),
        attitudes, attachment points [m] (body frames).

    Returns
    -------
    list of (ndarray (12,), ndarray (12, 24))
        In the order ``K_t (3), K_r (3), D_t (3), D_r (3)``.
    """
    terms = []
    for c in range(12):
        unit = np.zeros(12)
        unit[c] = 1.0
        k, d = unit[:6], unit[6:]
        W0 = _wrenches(np.zeros(24), geometry, k, d)
        J = np.empty((12, 24))
        for j in range(24):
            m = np.zeros(24, dtype=complex)
            m[j] = 1j * STEP
            J[:, j] = _wrenches(m, geometry, k, d).imag / STEP
        terms.append((W0, J))
    return terms


def loop_block(label: str, a: str, b: str, terms: list[tuple[np.ndarray, np.ndarray]],
               leaves: Sequence[Any]) -> tuple[USS, Value, Value]:
    """The linear block of one loop, and its nominal wrenches on the two bodies.

    Parameters
    ----------
    label : str
        The loop's signal prefix.
    a, b : str
        The two bodies.
    terms : list of (ndarray, ndarray)
        From :func:`loop_wrench_terms`.
    leaves : sequence
        The 12 components ``K_t, K_r, D_t, D_r``: numbers or ``ureal``.

    Returns
    -------
    (USS, ndarray or USS, ndarray or USS)
        The block (inputs ``a_r*``, ``a_th*``, ``a_v*``, ``b_r*``, ``b_th*``, ``b_v*``;
        outputs ``<label>_Wa*``, ``<label>_Wb*``: wrenches on the bodies at their origins,
        body frames) and the nominal wrenches on ``a`` and ``b`` (6×1 each).
    """
    D: Any = None
    W: Any = None
    for (W0, J), leaf in zip(terms, leaves):
        c = value_matrix([[leaf]])
        D = add(D, scalar_times(c, J))
        W = add(W, scalar_times(c, W0[:, None]))
    inputs = []
    for body in (a, b):
        inputs += signals(f"{body}_r", 3) + signals(f"{body}_th", 3) + signals(f"{body}_v", 6)
    block = uss(D, inputs=inputs, outputs=signals(f"{label}_Wa", 6) + signals(f"{label}_Wb", 6),
                name=f"{label}_loop")
    top = np.hstack([np.eye(6), np.zeros((6, 6))])
    bottom = np.hstack([np.zeros((6, 6)), np.eye(6)])
    return block, matmul(top, W), matmul(bottom, W)
