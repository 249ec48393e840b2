"""The compiled kernel's second sweep (:mod:`titop_lpv.multibody.kernel`), tips to root: each
joint condenses its subtree's articulated inertia and bias wrench into the parent port
(the paper's eqs. 20–22, 27–28), then its third sweep, root to tips: the accelerations.

One call per state walks every body, reading and writing the per-body arrays by index (no
array views). Revolute, prismatic, fixed and spherical joints are written out here; a
universal joint calls :mod:`kernel_joints`. The transform to the parent port is
``X = [[Aᵀ, −Aᵀ d̃], [0, Aᵀ]]`` (``A = XA[i]``, ``d = dsh[i]``, from
:mod:`kernel_forward`). A spherical joint transmits no moment: the articulated inertia it
passes on is ``[[M, 0], [0, 0]]`` and its bias wrench ``[f; τ]``; they are rotated into the
parent frame (``A M Aᵀ``) and shifted to the parent's origin, which costs about half the
general 6×6 transform.

The functions here are plain Python until ``kernel._compile`` replaces them by numba
dispatchers with the options of :data:`JIT` (the kernel calls them as attributes of this
module).
"""

from __future__ import annotations

from . import kernel_joints as kj
from .joints import FREE, PRISMATIC, REVOLUTE, SPHERICAL

__all__ = ["JIT"]  # the sweeps below are the kernel's, not an API

# _nrt=False: no reference counting of the array arguments (two atomic operations per array
# and call, which cost a small model half its time); these functions allocate nothing and
# keep no array
JIT = {name: {"_nrt": False} for name in ("to_parent", "backward_sweep", "accel_sweep")}


def to_parent(w66, w6, w33, XA, dsh, i, IA, pA, p):
    """``Â_p += Xᵀ Ia X``, ``p̂_p += Xᵀ pa`` with ``X = [[Aᵀ, B], [0, Aᵀ]]``,
    ``A = XA[i]``, ``B = −Aᵀ d̃`` (``d = dsh[i]``; its zero block skipped). Scratch: ``Ia = w66[0]``,
    ``IaX = w66[1]``, ``pa = w6[0]``, ``B = w33[0]``."""
    d0, d1, d2 = dsh[i, 0], dsh[i, 1], dsh[i, 2]
    for b in range(3):
        w33[0, b, 0] = -(XA[i, 1, b] * d2 - XA[i, 2, b] * d1)
        w33[0, b, 1] = -(XA[i, 2, b] * d0 - XA[i, 0, b] * d2)
        w33[0, b, 2] = -(XA[i, 0, b] * d1 - XA[i, 1, b] * d0)
    for a in range(6):
        for b in range(3):
            s = 0.0 * w6[0, 0]
            for e in range(3):
                s += w66[0, a, e] * XA[i, b, e]
            w66[1, a, b] = s
            s = 0.0 * w6[0, 0]
            for e in range(3):
                s += w66[0, a, e] * w33[0, e, b]
            for e in range(3):
                s += w66[0, a, 3 + e] * XA[i, b, e]
            w66[1, a, 3 + b] = s
    for a in range(3):
        for b in range(a, 6):
            s = 0.0 * w6[0, 0]
            for e in range(3):
                s += XA[i, a, e] * w66[1, e, b]
            IA[p, a, b] += s
            if b != a:
                IA[p, b, a] += s
        s = 0.0 * w6[0, 0]
        for e in range(3):
            s += XA[i, a, e] * w6[0, e]
        pA[p, a] += s
    for a in range(3):
        for b in range(3 + a, 6):
            s = 0.0 * w6[0, 0]
            for e in range(3):
                s += w33[0, e, a] * w66[1, e, b]
            for e in range(3):
                s += XA[i, a, e] * w66[1, 3 + e, b]
            IA[p, 3 + a, b] += s
            if b != 3 + a:
                IA[p, b, 3 + a] += s
        s = 0.0 * w6[0, 0]
        for e in range(3):
            s += w33[0, e, a] * w6[0, e]
        for e in range(3):
            s += XA[i, a, e] * w6[0, 3 + e]
        pA[p, 3 + a] += s


def backward_sweep(xm, um, kind, parent, q_index, qd_index, tau_col, qdd_col, S, k_s, d_s,
                   rest, extra, nd, XA, dsh, c, IA, pA, U, J, uu, Sm, Um, Jm, uum, w3, w33, w6,
                   w66, w63):
    """Tips to root: condense every joint into its parent. Returns ``-1``, or the index of a
    body whose joint has a non-positive apparent inertia (the sweep stops there).

    Kept for :func:`accel_sweep`: revolute/prismatic ``U``, ``J``, ``uu``; spherical
    ``Jm = J⁻¹`` and ``uum = τ − p̂_ω`` (its ``U`` is the last three columns of ``IA``);
    universal ``Um``, ``Jm``, ``uum`` (:func:`kernel_joints.condense`). ``w3`` (≥ 2, 3),
    ``w33`` (≥ 5, 3, 3), ``w6`` (≥ 2, 6), ``w66`` (≥ 2, 6, 6), ``w63`` (6, 3): the caller's
    scratch arrays, indexed in place (a view would cost a reference count): ``w66[0]``,
    ``w6[0]`` the articulated inertia and bias passed on, ``w6[1]`` a driven joint's
    acceleration; spherical: ``w3[0]`` the joint torque ``τ``, ``w3[1]`` the force ``f``
    passed on, ``w33[2]`` its ``M`` (then ``A M Aᵀ``), ``w33[3]`` ``A M``, ``w33[4]`` ``M d̃``
    (then ``A f``, ``A τ``), ``w63`` ``U J⁻¹``."""
    n = kind.shape[0]
    zero = 0.0 * w6[0, 0]
    for i in range(n - 1, -1, -1):
        k = kind[i]
        if k == FREE:
            continue
        p = parent[i]
        if k == SPHERICAL and qdd_col[i] < 0:
            qdi = qd_index[i]
            if k_s[i] == 0.0:  # no spring: the damper only (kernel_joints.forces)
                for a in range(3):
                    w3[0, a] = -d_s[i] * xm[qdi + a]
            else:
                kj.forces(k, xm, q_index[i], qdi, k_s[i], d_s[i], rest[i], extra[i], w3[0])
            if tau_col[i] >= 0:  # actuated: torques <body>_tau_x _tau_y _tau_z
                for a in range(3):
                    w3[0, a] += um[tau_col[i] + a]
            # J = Â_ωω (U = Â[:, 3:]); J⁻¹ by the adjugate (kernel_joints.inv3)
            c00 = IA[i, 4, 4] * IA[i, 5, 5] - IA[i, 4, 5] * IA[i, 5, 4]
            c01 = IA[i, 4, 5] * IA[i, 5, 3] - IA[i, 4, 3] * IA[i, 5, 5]
            c02 = IA[i, 4, 3] * IA[i, 5, 4] - IA[i, 4, 4] * IA[i, 5, 3]
            det = IA[i, 3, 3] * c00 + IA[i, 3, 4] * c01 + IA[i, 3, 5] * c02
            if det.real <= 0.0:
                return i
            Jm[i, 0, 0] = c00 / det
            Jm[i, 1, 0] = c01 / det
            Jm[i, 2, 0] = c02 / det
            Jm[i, 0, 1] = (IA[i, 3, 5] * IA[i, 5, 4] - IA[i, 3, 4] * IA[i, 5, 5]) / det
            Jm[i, 1, 1] = (IA[i, 3, 3] * IA[i, 5, 5] - IA[i, 3, 5] * IA[i, 5, 3]) / det
            Jm[i, 2, 1] = (IA[i, 3, 4] * IA[i, 5, 3] - IA[i, 3, 3] * IA[i, 5, 4]) / det
            Jm[i, 0, 2] = (IA[i, 3, 4] * IA[i, 4, 5] - IA[i, 3, 5] * IA[i, 4, 4]) / det
            Jm[i, 1, 2] = (IA[i, 3, 5] * IA[i, 4, 3] - IA[i, 3, 3] * IA[i, 4, 5]) / det
            Jm[i, 2, 2] = (IA[i, 3, 3] * IA[i, 4, 4] - IA[i, 3, 4] * IA[i, 4, 3]) / det
            for a in range(3):
                uum[i, a] = w3[0, a] - pA[i, 3 + a]
            for a in range(3):  # U J⁻¹, top rows (the bottom ones are I)
                for b in range(3):
                    s = zero
                    for e in range(3):
                        s += IA[i, a, 3 + e] * Jm[i, e, b]
                    w63[a, b] = s
            for a in range(3):  # M = Â_vv − U_v J⁻¹ U_vᵀ
                for b in range(a, 3):
                    s = IA[i, a, b]
                    for e in range(3):
                        s -= w63[a, e] * IA[i, b, 3 + e]
                    w33[2, a, b] = s
                    w33[2, b, a] = s
            for a in range(3):  # f = p̂_v + U_v J⁻¹ uu + M c_v
                s = pA[i, a]
                for e in range(3):
                    s += w63[a, e] * uum[i, e]
                for b in range(3):
                    s += w33[2, a, b] * c[i, b]
                w3[1, a] = s
            if p < 0:
                continue
            # the parent frame: A M Aᵀ, A f, A τ; then shifted by d to the parent's origin
            for a in range(3):
                for b in range(3):
                    w33[3, a, b] = (XA[i, a, 0] * w33[2, 0, b] + XA[i, a, 1] * w33[2, 1, b]
                                    + XA[i, a, 2] * w33[2, 2, b])
            for a in range(3):
                for b in range(a, 3):
                    s = (w33[3, a, 0] * XA[i, b, 0] + w33[3, a, 1] * XA[i, b, 1]
                         + w33[3, a, 2] * XA[i, b, 2])
                    w33[2, a, b] = s
                    w33[2, b, a] = s
            d0, d1, d2 = dsh[i, 0], dsh[i, 1], dsh[i, 2]
            for a in range(3):  # N = M d̃ (row a: w33[2, a] × d)
                w33[4, a, 0] = w33[2, a, 1] * d2 - w33[2, a, 2] * d1
                w33[4, a, 1] = w33[2, a, 2] * d0 - w33[2, a, 0] * d2
                w33[4, a, 2] = w33[2, a, 0] * d1 - w33[2, a, 1] * d0
            for a in range(3):
                for b in range(3):
                    IA[p, a, b] += w33[2, a, b]
                    IA[p, a, 3 + b] -= w33[4, a, b]
                    IA[p, 3 + b, a] -= w33[4, a, b]
            for b in range(3):  # − d̃ N (symmetric): column b is −d × w33[4, :, b]
                x0 = -(d1 * w33[4, 2, b] - d2 * w33[4, 1, b])
                x1 = -(d2 * w33[4, 0, b] - d0 * w33[4, 2, b])
                x2 = -(d0 * w33[4, 1, b] - d1 * w33[4, 0, b])
                if b == 0:
                    IA[p, 3, 3] += x0
                elif b == 1:
                    IA[p, 3, 4] += x0
                    IA[p, 4, 3] += x0
                    IA[p, 4, 4] += x1
                else:
                    IA[p, 3, 5] += x0
                    IA[p, 5, 3] += x0
                    IA[p, 4, 5] += x1
                    IA[p, 5, 4] += x1
                    IA[p, 5, 5] += x2
            for a in range(3):
                w33[4, 0, a] = (XA[i, a, 0] * w3[1, 0] + XA[i, a, 1] * w3[1, 1]
                                + XA[i, a, 2] * w3[1, 2])
                w33[4, 1, a] = (XA[i, a, 0] * w3[0, 0] + XA[i, a, 1] * w3[0, 1]
                                + XA[i, a, 2] * w3[0, 2])
            pA[p, 0] += w33[4, 0, 0]
            pA[p, 1] += w33[4, 0, 1]
            pA[p, 2] += w33[4, 0, 2]
            pA[p, 3] += w33[4, 1, 0] + d1 * w33[4, 0, 2] - d2 * w33[4, 0, 1]
            pA[p, 4] += w33[4, 1, 1] + d2 * w33[4, 0, 0] - d0 * w33[4, 0, 2]
            pA[p, 5] += w33[4, 1, 2] + d0 * w33[4, 0, 1] - d1 * w33[4, 0, 0]
            continue
        if qdd_col[i] >= 0:  # driven: q̈ imposed, the subtree passes unreduced
            for a in range(6):
                w6[1, a] = c[i, a] + S[i, a] * um[qdd_col[i]]
            for a in range(6):
                s = pA[i, a]
                for b in range(6):
                    w66[0, a, b] = IA[i, a, b]
                    s += IA[i, a, b] * w6[1, b]
                w6[0, a] = s
        elif nd[i] > 1:  # universal (kernel_joints)
            kj.forces(k, xm, q_index[i], qd_index[i], k_s[i], d_s[i], rest[i], extra[i], w3[0])
            if tau_col[i] >= 0:  # actuated: torques <body>_tau1 _tau2
                for a in range(nd[i]):
                    w3[0, a] += um[tau_col[i] + a]
            if not kj.condense(k, nd[i], IA[i], pA[i], Sm[i], c[i], w3[0], Um[i], Jm[i],
                               uum[i], w66[0], w6[0], w33[1], w63):
                return i
        elif k == REVOLUTE or k == PRISMATIC:
            tq = -k_s[i] * (xm[q_index[i]] - rest[i]) - d_s[i] * xm[qd_index[i]]
            if tau_col[i] >= 0:
                tq = tq + um[tau_col[i]]
            for a in range(6):
                s = zero
                for b in range(6):
                    s += IA[i, a, b] * S[i, b]
                U[i, a] = s
            Ji = zero
            sp = zero
            for a in range(6):
                Ji += S[i, a] * U[i, a]
                sp += S[i, a] * pA[i, a]
            J[i] = Ji
            if Ji.real <= 0.0:
                return i
            uu[i] = tq - sp
            for a in range(6):
                for b in range(6):
                    w66[0, a, b] = IA[i, a, b] - U[i, a] * U[i, b] / Ji
            for a in range(6):
                s = pA[i, a] + U[i, a] * uu[i] / Ji
                for b in range(6):
                    s += w66[0, a, b] * c[i, b]
                w6[0, a] = s
        else:
            for a in range(6):
                w6[0, a] = pA[i, a]
                for b in range(6):
                    w66[0, a, b] = IA[i, a, b]
        if p >= 0:
            to_parent(w66, w6, w33, XA, dsh, i, IA, pA, p)
    return -1


def accel_sweep(xm, um, kind, parent, q_index, qd_index, qdd_col, S, nd, XA, dsh, c, IA, pA,
                U, J, uu, acc, Sm, Um, Jm, uum, xdot, gain, w3, w6, w66):
    """Root to tips: each body's acceleration ``acc = a1 + S ν̇`` with ``a1 = c + X acc_p``,
    and the joints' entries of ``xdot`` (one state's row). ``w3`` (≥ 2, 3), ``w6`` (≥ 2,
    6), ``w66`` (≥ 1, 6, 6): the caller's scratch arrays, indexed in place: ``w6[1]`` is
    ``a1``, ``w3[0]`` the parent's acceleration at the port, ``w3[1]`` ``uu − Uᵀ a1``."""
    n = kind.shape[0]
    for i in range(n):
        k = kind[i]
        if k == FREE:
            for a in range(6):
                w6[0, a] = -pA[i, a]
            kj.solve6(IA[i], w6[0], acc[i], w66[0])
            continue
        p = parent[i]
        if p >= 0:  # a1 = c + X acc_p = c + [Aᵀ (a_p + α_p × d); Aᵀ α_p]
            w3[0, 0] = acc[p, 0] + acc[p, 4] * dsh[i, 2] - acc[p, 5] * dsh[i, 1]
            w3[0, 1] = acc[p, 1] + acc[p, 5] * dsh[i, 0] - acc[p, 3] * dsh[i, 2]
            w3[0, 2] = acc[p, 2] + acc[p, 3] * dsh[i, 1] - acc[p, 4] * dsh[i, 0]
            for a in range(3):
                w6[1, a] = c[i, a] + (XA[i, 0, a] * w3[0, 0] + XA[i, 1, a] * w3[0, 1]
                                   + XA[i, 2, a] * w3[0, 2])
                w6[1, 3 + a] = c[i, 3 + a] + (XA[i, 0, a] * acc[p, 3] + XA[i, 1, a] * acc[p, 4]
                                           + XA[i, 2, a] * acc[p, 5])
        else:
            for a in range(6):
                w6[1, a] = c[i, a]
        if k == SPHERICAL and qdd_col[i] < 0:  # ν̇ = J⁻¹ (uu − Uᵀ a1), U = Â[:, 3:]
            qi = q_index[i]
            qdi = qd_index[i]
            for a in range(3):
                s = uum[i, a]
                for e in range(6):
                    s -= IA[i, e, 3 + a] * w6[1, e]
                w3[1, a] = s
            for a in range(3):
                s = Jm[i, a, 0] * w3[1, 0] + Jm[i, a, 1] * w3[1, 1] + Jm[i, a, 2] * w3[1, 2]
                xdot[qdi + a] = s
                acc[i, a] = w6[1, a]
                acc[i, 3 + a] = w6[1, 3 + a] + s
            # ½ q ⊗ (0, ω_rel) + ½ λ (1 − |q|²) q (kernel_joints.quat_rates)
            w_, x_, y_, z_ = xm[qi], xm[qi + 1], xm[qi + 2], xm[qi + 3]
            wx, wy, wz = xm[qdi], xm[qdi + 1], xm[qdi + 2]
            fq = 0.5 * gain * (1.0 - (w_ * w_ + x_ * x_ + y_ * y_ + z_ * z_))
            xdot[qi] = 0.5 * (-x_ * wx - y_ * wy - z_ * wz) + fq * w_
            xdot[qi + 1] = 0.5 * (w_ * wx - z_ * wy + y_ * wz) + fq * x_
            xdot[qi + 2] = 0.5 * (z_ * wx + w_ * wy - x_ * wz) + fq * y_
            xdot[qi + 3] = 0.5 * (-y_ * wx + x_ * wy + w_ * wz) + fq * z_
        elif nd[i] > 1:
            kj.accelerations(k, nd[i], Um[i], Jm[i], uum[i], w6[1], Sm[i], acc[i],
                             xm, q_index[i], qd_index[i], xdot, gain, w3[1])
        elif k == REVOLUTE or k == PRISMATIC:
            s = uu[i]
            for a in range(6):
                s -= U[i, a] * w6[1, a]
            qdd = s / J[i] if qdd_col[i] < 0 else um[qdd_col[i]]
            for a in range(6):
                acc[i, a] = w6[1, a] + S[i, a] * qdd
            xdot[q_index[i]] = xm[qd_index[i]]
            xdot[qd_index[i]] = qdd
        else:
            for a in range(6):
                acc[i, a] = w6[1, a]
