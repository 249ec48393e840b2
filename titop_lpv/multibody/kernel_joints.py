"""Compiled pieces of the kernel (:mod:`titop_lpv.multibody.kernel`): spherical and
universal joints (the same equations as :mod:`titop_lpv.multibody.joint_laws` and the
quaternion helpers of :mod:`titop_lpv.spatial.quaternion`, as explicit loops), the Euler
attitude of a floating base, the 3×3 adjugate inverse they share, the 6×6 solve of a free
base, and the transform of an articulated body to its parent port.

The functions here are plain Python until ``kernel._compile`` replaces them by numba
dispatchers with the options of :data:`JIT` (the kernel calls them as attributes of this
module, so it sees the compiled versions). ``n_d`` is the number of joint rates (3
spherical, 2 universal); the arrays are sized for 3.
"""

from __future__ import annotations

import numpy as np

from .joints import SPHERICAL

__all__ = ["JIT", "QUATERNION_GAIN"]  # the loops below are the kernel's, not an API

QUATERNION_GAIN = 1.0  # as multibody.joint_laws.QUATERNION_GAIN (tested equal)
JIT: dict[str, dict] = {  # name -> numba.njit options (kernel._compile): none beyond the kernel's
    name: {} for name in ("_rodrigues", "_elementary", "inv3", "euler", "solve6", "quat_dcm",
                          "quat_rates", "pose", "rates", "forces", "condense", "accelerations",
                          "to_parent")}


def _rodrigues(axis, angle, R):
    """R = exp(angle (*axis)) for a unit axis."""
    s = np.sin(angle)
    c = 1.0 - np.cos(angle)
    x, y, z = axis[0], axis[1], axis[2]
    R[0, 0] = 1.0 - c * (y * y + z * z)
    R[0, 1] = -s * z + c * x * y
    R[0, 2] = s * y + c * x * z
    R[1, 0] = s * z + c * x * y
    R[1, 1] = 1.0 - c * (x * x + z * z)
    R[1, 2] = -s * x + c * y * z
    R[2, 0] = -s * y + c * x * z
    R[2, 1] = s * x + c * y * z
    R[2, 2] = 1.0 - c * (x * x + y * y)


def inv3(B, out):
    """``out = B⁻¹`` of a 3×3 matrix by the adjugate (complex-safe); returns ``det B``."""
    c00 = B[1, 1] * B[2, 2] - B[1, 2] * B[2, 1]
    c01 = B[1, 2] * B[2, 0] - B[1, 0] * B[2, 2]
    c02 = B[1, 0] * B[2, 1] - B[1, 1] * B[2, 0]
    det = B[0, 0] * c00 + B[0, 1] * c01 + B[0, 2] * c02
    out[0, 0] = c00 / det
    out[1, 0] = c01 / det
    out[2, 0] = c02 / det
    out[0, 1] = (B[0, 2] * B[2, 1] - B[0, 1] * B[2, 2]) / det
    out[1, 1] = (B[0, 0] * B[2, 2] - B[0, 2] * B[2, 0]) / det
    out[2, 1] = (B[0, 1] * B[2, 0] - B[0, 0] * B[2, 1]) / det
    out[0, 2] = (B[0, 1] * B[1, 2] - B[0, 2] * B[1, 1]) / det
    out[1, 2] = (B[0, 2] * B[1, 0] - B[0, 0] * B[1, 2]) / det
    out[2, 2] = (B[0, 0] * B[1, 1] - B[0, 1] * B[1, 0]) / det
    return det


def quat_dcm(xm, qi, E):
    """``E = R(q/|q|)`` for the quaternion ``xm[qi:qi + 4]``."""
    n = np.sqrt(xm[qi] ** 2 + xm[qi + 1] ** 2 + xm[qi + 2] ** 2 + xm[qi + 3] ** 2)
    w, x, y, z = xm[qi] / n, xm[qi + 1] / n, xm[qi + 2] / n, xm[qi + 3] / n
    E[0, 0] = 1 - 2 * (y * y + z * z)
    E[0, 1] = 2 * (x * y - w * z)
    E[0, 2] = 2 * (x * z + w * y)
    E[1, 0] = 2 * (x * y + w * z)
    E[1, 1] = 1 - 2 * (x * x + z * z)
    E[1, 2] = 2 * (y * z - w * x)
    E[2, 0] = 2 * (x * z - w * y)
    E[2, 1] = 2 * (y * z + w * x)
    E[2, 2] = 1 - 2 * (x * x + y * y)


def quat_rates(xm, qi, wx, wy, wz, xdot, gain):
    """``xdot[qi:qi + 4] = ½ q ⊗ (0, ω) + ½ λ (1 − |q|²) q``."""
    w, x, y, z = xm[qi], xm[qi + 1], xm[qi + 2], xm[qi + 3]
    f = 0.5 * gain * (1.0 - (w * w + x * x + y * y + z * z))
    xdot[qi] = 0.5 * (-x * wx - y * wy - z * wz) + f * w
    xdot[qi + 1] = 0.5 * (w * wx - z * wy + y * wz) + f * x
    xdot[qi + 2] = 0.5 * (z * wx + w * wy - x * wz) + f * y
    xdot[qi + 3] = 0.5 * (-y * wx + x * wy + w * wz) + f * z


def pose(kind, xm, qi, R0, a1c, a2, Pab, S, E, F):
    """``P_{a/b}`` and the motion subspace ``S`` (6 × 3, first ``n_d`` columns used).

    Spherical: ``P0 R(q/|q|)``, ``S = [0; I]``; universal: ``P0 R(a1c, q1) R(a2, q2)``,
    ``S = [0 0; R(a2, q2)ᵀ a1c, a2]``. ``E``, ``F``: 3×3 scratch. A spherical joint's
    ``S`` is not written: the functions below use its structure instead."""
    if kind == SPHERICAL:
        quat_dcm(xm, qi, E)
    else:
        for a in range(6):
            for b in range(3):
                S[a, b] = 0.0
        _rodrigues(a1c, xm[qi], E)
        _rodrigues(a2, xm[qi + 1], F)
        for a in range(3):  # s1 = R(a2, q2)ᵀ a1c
            S[3 + a, 0] = F[0, a] * a1c[0] + F[1, a] * a1c[1] + F[2, a] * a1c[2]
            S[3 + a, 1] = a2[a]
        for a in range(3):  # E <- E F
            r0, r1, r2 = E[a, 0], E[a, 1], E[a, 2]
            for b in range(3):
                E[a, b] = r0 * F[0, b] + r1 * F[1, b] + r2 * F[2, b]
    for a in range(3):
        for b in range(3):
            Pab[a, b] = R0[a, 0] * E[0, b] + R0[a, 1] * E[1, b] + R0[a, 2] * E[2, b]


def rates(kind, xm, qdi, S, wr, sdot):
    """``ω_rel = S ν`` and the angular ``Ṡ ν`` (universal: ``q̇1 q̇2 (s1 × a2)``)."""
    if kind == SPHERICAL:  # S = [0; I]
        for a in range(3):
            wr[a] = xm[qdi + a]
            sdot[a] = 0.0 * wr[0]
        return
    for a in range(3):
        s = 0.0 * S[3, 1]  # a zero of the state's dtype (S[3, 1] = a2[0], written by pose)
        for b in range(2):
            s += S[3 + a, b] * xm[qdi + b]
        wr[a] = s
        sdot[a] = 0.0 * wr[0]
    f = xm[qdi] * xm[qdi + 1]
    sdot[0] = f * (S[4, 0] * S[5, 1] - S[5, 0] * S[4, 1])
    sdot[1] = f * (S[5, 0] * S[3, 1] - S[3, 0] * S[5, 1])
    sdot[2] = f * (S[3, 0] * S[4, 1] - S[4, 0] * S[3, 1])


def forces(kind, xm, qi, qdi, k, d, rest, extra, tau):
    """Spring-damper force: spherical ``−k θ − d ω_rel`` (θ: rotation vector of
    ``rest⁻¹ ⊗ q``); universal ``−k_j (q_j − rest_j) − d_j q̇_j``."""
    if kind != SPHERICAL:
        tau[0] = -k * (xm[qi] - rest) - d * xm[qdi]
        tau[1] = -extra[3] * (xm[qi + 1] - extra[5]) - extra[4] * xm[qdi + 1]
        return
    if k == 0.0:  # no spring: the damper only
        for a in range(3):
            tau[a] = -d * xm[qdi + a]
        return
    n = np.sqrt(extra[0] ** 2 + extra[1] ** 2 + extra[2] ** 2 + extra[3] ** 2)
    rw, rx, ry, rz = extra[0] / n, -extra[1] / n, -extra[2] / n, -extra[3] / n  # rest⁻¹
    n = np.sqrt(xm[qi] ** 2 + xm[qi + 1] ** 2 + xm[qi + 2] ** 2 + xm[qi + 3] ** 2)
    qw, qx, qy, qz = xm[qi] / n, xm[qi + 1] / n, xm[qi + 2] / n, xm[qi + 3] / n
    ew = rw * qw - rx * qx - ry * qy - rz * qz
    ex = rw * qx + qw * rx + ry * qz - rz * qy
    ey = rw * qy + qw * ry + rz * qx - rx * qz
    ez = rw * qz + qw * rz + rx * qy - ry * qx
    if ew.real < 0.0:
        ew, ex, ey, ez = -ew, -ex, -ey, -ez
    s2 = ex * ex + ey * ey + ez * ez
    if ew.real <= 1e-8:
        ratio = 0.5 * np.pi / np.sqrt(s2)
    elif s2.real < 1e-4 * (ew * ew).real:
        t = s2 / (ew * ew)
        ratio = (1.0 - t / 3.0 + t * t / 5.0 - t ** 3 / 7.0) / ew
    else:
        s = np.sqrt(s2)
        ratio = np.arctan(s / ew) / s
    tau[0] = -k * 2.0 * ratio * ex - d * xm[qdi]
    tau[1] = -k * 2.0 * ratio * ey - d * xm[qdi + 1]
    tau[2] = -k * 2.0 * ratio * ez - d * xm[qdi + 2]


def condense(kind, nd, IA, pA, S, c, tau, U, Jinv, uu, Ia, pa, J, UJ):
    """Eqs. 20–22 in matrix form: ``U = Â S``, ``J⁻¹``, ``uu = τ − Sᵀ p̂``, the articulated
    ``Ia = Â − U J⁻¹ Uᵀ`` and ``pa = p̂ + Ia c + U J⁻¹ uu``. Returns False for a singular
    ``J``. ``J`` (3×3) and ``UJ`` (6×3): scratch.

    A spherical joint (``S = [0; I]``) transmits no moment: ``U`` is the last three columns
    of ``Â``, ``J`` its lower right block, and ``Ia = [[Ia₁₁, 0], [0, 0]]``, ``pa = [·; τ]``
    exactly (the zero blocks are cancellations: they are not computed, only ``Ia₁₁`` is
    written, and the caller transforms the two non-zero blocks)."""
    if kind == SPHERICAL:
        for a in range(6):
            for b in range(3):
                U[a, b] = IA[a, 3 + b]
        for a in range(3):
            for b in range(3):
                J[a, b] = U[3 + a, b]
            uu[a] = tau[a] - pA[3 + a]
        det = inv3(J, Jinv)
        if det.real <= 0.0:
            return False
        for a in range(3):
            for b in range(3):
                s = 0.0 * pA[0]
                for e in range(3):
                    s += U[a, e] * Jinv[e, b]
                UJ[a, b] = s
        for a in range(3):
            for b in range(a, 3):
                s = IA[a, b]
                for e in range(3):
                    s -= UJ[a, e] * U[b, e]
                Ia[a, b] = s
                Ia[b, a] = s
        for a in range(3):
            s = pA[a]
            for e in range(3):
                s += UJ[a, e] * uu[e]
            for b in range(3):
                s += Ia[a, b] * c[b]
            pa[a] = s
            pa[3 + a] = tau[a]
        return True
    for a in range(6):
        for b in range(nd):
            s = 0.0 * pA[0]
            for e in range(6):
                s += IA[a, e] * S[e, b]
            U[a, b] = s
    for a in range(nd):
        for b in range(nd):
            s = 0.0 * pA[0]
            for e in range(6):
                s += S[e, a] * U[e, b]
            J[a, b] = s
        s = tau[a]
        for e in range(6):
            s -= S[e, a] * pA[e]
        uu[a] = s
    if nd == 2:
        det = J[0, 0] * J[1, 1] - J[0, 1] * J[1, 0]
        Jinv[0, 0] = J[1, 1] / det
        Jinv[0, 1] = -J[0, 1] / det
        Jinv[1, 0] = -J[1, 0] / det
        Jinv[1, 1] = J[0, 0] / det
    else:
        det = inv3(J, Jinv)
    if det.real <= 0.0:
        return False
    for a in range(6):
        for b in range(nd):
            s = 0.0 * pA[0]
            for e in range(nd):
                s += U[a, e] * Jinv[e, b]
            UJ[a, b] = s
    for a in range(6):
        for b in range(6):
            s = IA[a, b]
            for e in range(nd):
                s -= UJ[a, e] * U[b, e]
            Ia[a, b] = s
    for a in range(6):
        s = pA[a]
        for e in range(nd):
            s += UJ[a, e] * uu[e]
        for b in range(6):
            s += Ia[a, b] * c[b]
        pa[a] = s
    return True


def accelerations(kind, nd, U, Jinv, uu, a1, S, acc, xm, qi, qdi, xdot, gain, r):
    """``ν̇ = J⁻¹ (uu − Uᵀ a1)``, ``acc = a1 + S ν̇``, and the joint's entries of ``xdot``
    (the quaternion: ``½ q ⊗ (0, ω_rel) + ½ λ (1 − |q|²) q``). ``r``: scratch of 3."""
    for a in range(nd):
        s = uu[a]
        for e in range(6):
            s -= U[e, a] * a1[e]
        r[a] = s
    for a in range(nd):
        s = 0.0 * r[0]
        for b in range(nd):
            s += Jinv[a, b] * r[b]
        xdot[qdi + a] = s
    if kind == SPHERICAL:  # S = [0; I]
        for a in range(3):
            acc[a] = a1[a]
            acc[3 + a] = a1[3 + a] + xdot[qdi + a]
    else:
        for a in range(6):
            s = a1[a]
            for b in range(nd):
                s += S[a, b] * xdot[qdi + b]
            acc[a] = s
    if kind != SPHERICAL:
        xdot[qi] = xm[qdi]
        xdot[qi + 1] = xm[qdi + 1]
        return
    quat_rates(xm, qi, xm[qdi], xm[qdi + 1], xm[qdi + 2], xdot, gain)


def _elementary(axis, angle, R):
    c = np.cos(angle)
    s = np.sin(angle)
    for i in range(3):
        for j in range(3):
            R[i, j] = 0.0
    R[axis, axis] = 1.0
    a = (axis + 1) % 3
    b = (axis + 2) % 3
    R[a, a] = c
    R[a, b] = -s
    R[b, a] = s
    R[b, b] = c


def euler(theta, axes, P, Gamma, scratch):
    """P_{b/i} = R_i(ψ) R_j(θ) R_k(φ) and Γ = B⁻¹ with ω = B Θ̇, Θ = (φ, θ, ψ)."""
    Ri = scratch[0]
    Rj = scratch[1]
    Rk = scratch[2]
    T = scratch[3]
    B = scratch[4]
    _elementary(axes[0], theta[2], Ri)
    _elementary(axes[1], theta[1], Rj)
    _elementary(axes[2], theta[0], Rk)
    for a in range(3):
        for b in range(3):
            T[a, b] = Ri[a, 0] * Rj[0, b] + Ri[a, 1] * Rj[1, b] + Ri[a, 2] * Rj[2, b]
    for a in range(3):
        for b in range(3):
            P[a, b] = T[a, 0] * Rk[0, b] + T[a, 1] * Rk[1, b] + T[a, 2] * Rk[2, b]
    # columns of B for (φ̇, θ̇, ψ̇): e_k, R_kᵀ e_j, R_kᵀ R_jᵀ e_i
    for a in range(3):
        B[a, 0] = 1.0 if a == axes[2] else 0.0
        B[a, 1] = Rk[axes[1], a]
        B[a, 2] = Rk[0, a] * Rj[axes[0], 0] + Rk[1, a] * Rj[axes[0], 1] + Rk[2, a] * Rj[axes[0], 2]
    inv3(B, Gamma)  # Γ = B⁻¹ by the adjugate (complex-safe)


def solve6(A, b, out, M):
    """Solve the 6×6 system A out = b by Gaussian elimination (A is SPD: no pivoting).
    ``b`` is overwritten; ``M``: 6×6 scratch (allocation-free: the sweeps run without
    numba's reference counting)."""
    for i in range(6):
        for j in range(6):
            M[i, j] = A[i, j]
    y = b
    for k in range(6):
        for i in range(k + 1, 6):
            f = M[i, k] / M[k, k]
            for j in range(k, 6):
                M[i, j] -= f * M[k, j]
            y[i] -= f * y[k]
    for i in range(5, -1, -1):
        s = y[i]
        for j in range(i + 1, 6):
            s -= M[i, j] * out[j]
        out[i] = s / M[i, i]


def to_parent(ball, A, B, Ia, pa, IAp, pAp, IaX):
    """``Â_p += Xᵀ Ia X``, ``p̂_p += Xᵀ pa`` with ``X = [[Aᵀ, B], [0, Aᵀ]]`` (the transform
    of a body to its parent port: ``A = P_{a/b}``; its zero block skipped). ``ball``: a
    spherical joint's ``Ia = [[M, 0], [0, 0]]`` (only ``M`` read; :func:`condense`), whose
    two non-zero blocks are transformed alone. ``IaX``: 6×6 scratch."""
    if ball:  # IaX = [[M A, M B], [0, 0]]; Xᵀ IaX = [[Aᵀ M A, Aᵀ M B], [Bᵀ M A, Bᵀ M B]]
        for a in range(3):  # IaX = [[M A, M B], [0, 0]] (X's block A is XAᵀ)
            for b in range(3):
                s = 0.0 * pa[0]
                t = 0.0 * pa[0]
                for e in range(3):
                    s += Ia[a, e] * A[b, e]
                    t += Ia[a, e] * B[e, b]
                IaX[a, b] = s
                IaX[a, 3 + b] = t
        for a in range(3):  # Xᵀ IaX = [[Aᵀ M A, Aᵀ M B], [Bᵀ M A, Bᵀ M B]]
            for b in range(3):
                s = 0.0 * pa[0]
                for e in range(3):
                    s += A[a, e] * IaX[e, 3 + b]
                IAp[a, 3 + b] += s
                IAp[3 + b, a] += s
            for b in range(a, 3):
                s = 0.0 * pa[0]
                t = 0.0 * pa[0]
                for e in range(3):
                    s += A[a, e] * IaX[e, b]
                    t += B[e, a] * IaX[e, 3 + b]
                IAp[a, b] += s
                IAp[3 + a, 3 + b] += t
                if b != a:
                    IAp[b, a] += s
                    IAp[3 + b, 3 + a] += t
            s = 0.0 * pa[0]
            t = 0.0 * pa[0]
            for e in range(3):
                s += A[a, e] * pa[e]
                t += B[e, a] * pa[e] + A[a, e] * pa[3 + e]
            pAp[a] += s
            pAp[3 + a] += t
    else:
        for a in range(6):
            for b in range(3):
                s = 0.0 * pa[0]
                for e in range(3):
                    s += Ia[a, e] * A[b, e]
                IaX[a, b] = s
                s = 0.0 * pa[0]
                for e in range(3):
                    s += Ia[a, e] * B[e, b]
                for e in range(3):
                    s += Ia[a, 3 + e] * A[b, e]
                IaX[a, 3 + b] = s
        for a in range(3):
            for b in range(a, 6):
                s = 0.0 * pa[0]
                for e in range(3):
                    s += A[a, e] * IaX[e, b]
                IAp[a, b] += s
                if b != a:
                    IAp[b, a] += s
            s = 0.0 * pa[0]
            for e in range(3):
                s += A[a, e] * pa[e]
            pAp[a] += s
        for a in range(3):
            for b in range(3 + a, 6):
                s = 0.0 * pa[0]
                for e in range(3):
                    s += B[e, a] * IaX[e, b]
                for e in range(3):
                    s += A[a, e] * IaX[3 + e, b]
                IAp[3 + a, b] += s
                if b != 3 + a:
                    IAp[b, 3 + a] += s
            s = 0.0 * pa[0]
            for e in range(3):
                s += B[e, a] * pa[e]
            for e in range(3):
                s += A[a, e] * pa[3 + e]
            pAp[3 + a] += s
