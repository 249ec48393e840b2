"""The compiled kernel's first sweep (:mod:`titop_lpv.multibody.kernel`), root to tips: each
body's joint rotation ``P_{a/b}``, twist, velocity product ``c``, gravity in its own frame,
and its bias wrench and rigid inertia (the paper's eqs. 11, 16, 17, 24).

One call per state walks every body, reading and writing the per-body arrays by index (no
array views: a view costs numba a reference count per body). A revolute or spherical joint
is written out here; a universal joint and a free base call :mod:`kernel_joints`.

Gravity is rotated into each body's frame along the tree (``g_i = P_{a/b}ᵀ g_p``), so the
attitude ``P_{b/i}`` and the origin ``r`` of a body are computed only where an
inertial-frame load, a wrench input or a loop closure needs them (``need``: those bodies
and their ancestors; :func:`titop_lpv.multibody.kernel_args.kernel_data`). The transform to
the parent port ``X = [[Aᵀ, −Aᵀ d̃], [0, Aᵀ]]`` is kept as ``A = P_{a/b}`` (``XA``) and the
port offset ``d`` (``dsh``: ``off``, plus ``A q t`` for a prismatic joint).

The functions here are plain Python until ``kernel._compile`` replaces them by numba
dispatchers with the options of :data:`JIT` (the kernel calls them as attributes of this
module).
"""

from __future__ import annotations

import numpy as np

from . import kernel_joints as kj
from .joints import FREE, PRISMATIC, REVOLUTE, SPHERICAL

__all__ = ["JIT"]  # the sweep below is the kernel's, not an API

# _nrt=False: no reference counting of the array arguments (two atomic operations per array
# and call, which cost a small model half its time); these functions allocate nothing and
# keep no array
JIT = {"forward_sweep": {"_nrt": False}}  # name -> numba.njit options (kernel._compile)


def forward_sweep(xm, kind, parent, q_index, qd_index, base, base_quat, axis, R0, rot_id, off,
                  D, K, K2, g, euler_axes, need, a1c, nd, P, r, tw, c, XA, dsh, gb, IA, pA, Sm,
                  w3, w33, w6, scratch):
    """Root to tips for the state ``xm``: writes ``XA``, ``dsh``, ``tw``, ``c``, ``gb``,
    ``pA`` (``C(x') D x' − D [g_b; 0]``, before the external loads), ``IA = D``, and ``P``,
    ``r`` for the bodies of ``need`` (and a free base). ``w3`` (≥ 11, 3), ``w33`` (≥ 6, 3,
    3), ``w6`` (≥ 1, 6), ``scratch`` (5, 3, 3): the caller's scratch arrays, indexed in
    place (a view would cost a reference count): ``w33[0]`` the joint rotation ``A``,
    ``[1]``, ``[2]`` factors ``E``, ``F`` of it, ``[5]`` the free base's Euler ``Γ`` (left
    there for the kernel's attitude rates: no other sweep writes ``w33[5]``); ``w3[0]`` Euler
    angles, ``[1]``, ``[2]``, ``[3]`` the parent's linear and angular velocity at the port
    and gravity, ``[4]``, ``[5]`` the body's ``v``, ``ω``, ``[6]`` the joint rate ``ν``,
    ``[7]`` ``Ṡ ν``, ``[8]``, ``[9]`` the linear and angular parts of ``c``, ``[10]`` a
    prismatic joint's ``q t``; ``w6[0]`` the momentum ``D x'``."""
    n = kind.shape[0]
    zero = 0.0 * w6[0, 0]
    for i in range(n):
        k = kind[i]
        if k == FREE:
            for a in range(3):
                w3[4, a] = xm[base + a]
                w3[5, a] = xm[base + 3 + a]
                r[i, a] = xm[base + 6 + a]
                w3[0, a] = xm[base + 9 + a]
            if base_quat:
                kj.quat_dcm(xm, base + 9, P[i])
            else:
                kj.euler(w3[0], euler_axes, P[i], w33[5], scratch)
            for a in range(3):
                gb[i, a] = P[i, 0, a] * g[0] + P[i, 1, a] * g[1] + P[i, 2, a] * g[2]
                dsh[i, a] = zero
                w3[8, a] = zero
                w3[9, a] = zero
        else:
            p = parent[i]
            # ---- the joint rotation A = P_{a/b} = P0 E(q)
            if k == REVOLUTE:  # eq. (16)
                q = xm[q_index[i]]
                sq = np.sin(q)
                cq = 1.0 - np.cos(q)
                for a in range(3):
                    for b in range(3):
                        w33[1, a, b] = (1.0 if a == b else 0.0) + sq * K[i, a, b] + cq * K2[i, a, b]
            elif k == SPHERICAL:  # E = R(q/|q|)
                qi = q_index[i]
                nq = np.sqrt(xm[qi] ** 2 + xm[qi + 1] ** 2 + xm[qi + 2] ** 2 + xm[qi + 3] ** 2)
                qw, qx, qy, qz = xm[qi] / nq, xm[qi + 1] / nq, xm[qi + 2] / nq, xm[qi + 3] / nq
                w33[1, 0, 0] = 1 - 2 * (qy * qy + qz * qz)
                w33[1, 0, 1] = 2 * (qx * qy - qw * qz)
                w33[1, 0, 2] = 2 * (qx * qz + qw * qy)
                w33[1, 1, 0] = 2 * (qx * qy + qw * qz)
                w33[1, 1, 1] = 1 - 2 * (qx * qx + qz * qz)
                w33[1, 1, 2] = 2 * (qy * qz - qw * qx)
                w33[1, 2, 0] = 2 * (qx * qz - qw * qy)
                w33[1, 2, 1] = 2 * (qy * qz + qw * qx)
                w33[1, 2, 2] = 1 - 2 * (qx * qx + qy * qy)
            elif nd[i] > 1:  # universal (kernel_joints): A written directly
                kj.pose(k, xm, q_index[i], R0[i], a1c[i], axis[i], w33[0], Sm[i], w33[1], w33[2])
            if k == REVOLUTE or k == SPHERICAL:
                if rot_id[i]:
                    for a in range(3):
                        for b in range(3):
                            w33[0, a, b] = w33[1, a, b]
                else:
                    for a in range(3):
                        for b in range(3):
                            w33[0, a, b] = (R0[i, a, 0] * w33[1, 0, b] + R0[i, a, 1] * w33[1, 1, b]
                                       + R0[i, a, 2] * w33[1, 2, b])
            elif nd[i] <= 1:  # prismatic, fixed
                for a in range(3):
                    for b in range(3):
                        w33[0, a, b] = R0[i, a, b]
            for a in range(3):
                for b in range(3):
                    XA[i, a, b] = w33[0, a, b]
            # ---- the parent's twist at the port and gravity, projected in the child frame
            if p >= 0:
                for a in range(3):
                    w3[2, a] = tw[p, 3 + a]
                    w3[3, a] = gb[p, a]
                w3[1, 0] = tw[p, 0] + w3[2, 1] * off[i, 2] - w3[2, 2] * off[i, 1]
                w3[1, 1] = tw[p, 1] + w3[2, 2] * off[i, 0] - w3[2, 0] * off[i, 2]
                w3[1, 2] = tw[p, 2] + w3[2, 0] * off[i, 1] - w3[2, 1] * off[i, 0]
            else:
                for a in range(3):
                    w3[2, a] = zero
                    w3[1, a] = zero
                    w3[3, a] = g[a] + zero
            for a in range(3):
                w3[4, a] = (w33[0, 0, a] * w3[1, 0] + w33[0, 1, a] * w3[1, 1]
                            + w33[0, 2, a] * w3[1, 2])
                w3[5, a] = (w33[0, 0, a] * w3[2, 0] + w33[0, 1, a] * w3[2, 1]
                            + w33[0, 2, a] * w3[2, 2])
                gb[i, a] = (w33[0, 0, a] * w3[3, 0] + w33[0, 1, a] * w3[3, 1]
                            + w33[0, 2, a] * w3[3, 2])
                dsh[i, a] = off[i, a]
            if need[i]:  # attitude and origin
                for a in range(3):
                    for b in range(3):
                        if p >= 0:
                            P[i, a, b] = (P[p, a, 0] * w33[0, 0, b] + P[p, a, 1] * w33[0, 1, b]
                                          + P[p, a, 2] * w33[0, 2, b])
                        else:
                            P[i, a, b] = w33[0, a, b]
                for a in range(3):
                    if p >= 0:
                        r[i, a] = r[p, a] + (P[p, a, 0] * off[i, 0] + P[p, a, 1] * off[i, 1]
                                             + P[p, a, 2] * off[i, 2])
                    else:
                        r[i, a] = off[i, a]
            # ---- the joint's rate: twist and velocity product
            for a in range(3):
                w3[8, a] = zero
                w3[9, a] = zero
            if k == PRISMATIC:  # eq. (24): P = P0 + q t̃
                q = xm[q_index[i]]
                qd = xm[qd_index[i]]
                for a in range(3):
                    w3[10, a] = q * axis[i, a]
                w3[4, 0] += w3[5, 1] * w3[10, 2] - w3[5, 2] * w3[10, 1] + qd * axis[i, 0]
                w3[4, 1] += w3[5, 2] * w3[10, 0] - w3[5, 0] * w3[10, 2] + qd * axis[i, 1]
                w3[4, 2] += w3[5, 0] * w3[10, 1] - w3[5, 1] * w3[10, 0] + qd * axis[i, 2]
                for a in range(3):  # the port offset of the child's origin: off + A q t
                    dsh[i, a] += (w33[0, a, 0] * w3[10, 0] + w33[0, a, 1] * w3[10, 1]
                                  + w33[0, a, 2] * w3[10, 2])
                w3[8, 0] = qd * (w3[5, 1] * axis[i, 2] - w3[5, 2] * axis[i, 1])
                w3[8, 1] = qd * (w3[5, 2] * axis[i, 0] - w3[5, 0] * axis[i, 2])
                w3[8, 2] = qd * (w3[5, 0] * axis[i, 1] - w3[5, 1] * axis[i, 0])
                if need[i]:
                    for a in range(3):
                        r[i, a] += (P[i, a, 0] * w3[10, 0] + P[i, a, 1] * w3[10, 1]
                                    + P[i, a, 2] * w3[10, 2])
            elif k == REVOLUTE:  # eq. (17): ω_A = ω_B + θ̇ r̃
                qd = xm[qd_index[i]]
                for a in range(3):
                    w3[5, a] += qd * axis[i, a]
                w3[8, 0] = qd * (w3[4, 1] * axis[i, 2] - w3[4, 2] * axis[i, 1])
                w3[8, 1] = qd * (w3[4, 2] * axis[i, 0] - w3[4, 0] * axis[i, 2])
                w3[8, 2] = qd * (w3[4, 0] * axis[i, 1] - w3[4, 1] * axis[i, 0])
                w3[9, 0] = qd * (w3[5, 1] * axis[i, 2] - w3[5, 2] * axis[i, 1])
                w3[9, 1] = qd * (w3[5, 2] * axis[i, 0] - w3[5, 0] * axis[i, 2])
                w3[9, 2] = qd * (w3[5, 0] * axis[i, 1] - w3[5, 1] * axis[i, 0])
            elif nd[i] > 1:  # ω_A = ω_B + ω_rel, c = [v × ω_rel; ω × ω_rel + Ṡ ν]
                if k == SPHERICAL:  # S = [0; I]
                    for a in range(3):
                        w3[6, a] = xm[qd_index[i] + a]
                        w3[7, a] = zero
                else:
                    kj.rates(k, xm, qd_index[i], Sm[i], w3[6], w3[7])
                for a in range(3):
                    w3[5, a] += w3[6, a]
                w3[8, 0] = w3[4, 1] * w3[6, 2] - w3[4, 2] * w3[6, 1]
                w3[8, 1] = w3[4, 2] * w3[6, 0] - w3[4, 0] * w3[6, 2]
                w3[8, 2] = w3[4, 0] * w3[6, 1] - w3[4, 1] * w3[6, 0]
                w3[9, 0] = w3[5, 1] * w3[6, 2] - w3[5, 2] * w3[6, 1] + w3[7, 0]
                w3[9, 1] = w3[5, 2] * w3[6, 0] - w3[5, 0] * w3[6, 2] + w3[7, 1]
                w3[9, 2] = w3[5, 0] * w3[6, 1] - w3[5, 1] * w3[6, 0] + w3[7, 2]
        for a in range(3):
            tw[i, a] = w3[4, a]
            tw[i, 3 + a] = w3[5, a]
            c[i, a] = w3[8, a]
            c[i, 3 + a] = w3[9, a]
        # ---- bias wrench C(x') D x' − D [g_b; 0] and Â = D (eq. 11)
        for a in range(6):
            s = zero
            for b in range(3):
                s += D[i, a, b] * w3[4, b]
            for b in range(3):
                s += D[i, a, 3 + b] * w3[5, b]
            w6[0, a] = s
        pA[i, 0] = w3[5, 1] * w6[0, 2] - w3[5, 2] * w6[0, 1]
        pA[i, 1] = w3[5, 2] * w6[0, 0] - w3[5, 0] * w6[0, 2]
        pA[i, 2] = w3[5, 0] * w6[0, 1] - w3[5, 1] * w6[0, 0]
        pA[i, 3] = (w3[4, 1] * w6[0, 2] - w3[4, 2] * w6[0, 1] + w3[5, 1] * w6[0, 5]
                    - w3[5, 2] * w6[0, 4])
        pA[i, 4] = (w3[4, 2] * w6[0, 0] - w3[4, 0] * w6[0, 2] + w3[5, 2] * w6[0, 3]
                    - w3[5, 0] * w6[0, 5])
        pA[i, 5] = (w3[4, 0] * w6[0, 1] - w3[4, 1] * w6[0, 0] + w3[5, 0] * w6[0, 4]
                    - w3[5, 1] * w6[0, 3])
        for a in range(6):
            pA[i, a] -= D[i, a, 0] * gb[i, 0] + D[i, a, 1] * gb[i, 1] + D[i, a, 2] * gb[i, 2]
            for b in range(6):
                IA[i, a, b] = D[i, a, b]
