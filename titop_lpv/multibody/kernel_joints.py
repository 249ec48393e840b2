"""Compiled pieces of the kernel (:mod:`titop_lpv.multibody.kernel`) for spherical and
universal joints: the same equations as :mod:`titop_lpv.multibody.joint_laws` and the
quaternion helpers of :mod:`titop_lpv.spatial.quaternion`, as explicit loops.

The functions here are plain Python until :func:`compile_all` replaces them by numba
dispatchers (the kernel calls them as attributes of this module, so it sees the compiled
versions). ``n_d`` is the number of joint rates (3 spherical, 2 universal); the arrays are
sized for 3.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .joints import SPHERICAL

__all__ = ["QUATERNION_GAIN", "compile_all"]  # the loops below are the kernel's, not an API

QUATERNION_GAIN = 1.0  # as multibody.joint_laws.QUATERNION_GAIN (tested equal)
_NAMES = ("_rodrigues", "quat_dcm", "quat_rates", "pose", "rates", "forces", "condense",
          "accelerations")


def compile_all(numba: Any) -> None:
    """Replace the functions of this module by numba dispatchers (called once, under the
    kernel's compile lock).

    Parameters
    ----------
    numba : module
        The imported numba package.
    """
    space = globals()
    for name in _NAMES:
        space[name] = numba.njit(cache=True, error_model="numpy")(space[name])


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
    ``S = [0 0; R(a2, q2)ᵀ a1c, a2]``. ``E``, ``F``: 3×3 scratch."""
    for a in range(6):
        for b in range(3):
            S[a, b] = 0.0
    if kind == SPHERICAL:
        quat_dcm(xm, qi, E)
        for a in range(3):
            S[3 + a, a] = 1.0
    else:
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
    nd = 3 if kind == SPHERICAL else 2
    for a in range(3):
        s = 0.0 * wr[0]
        for b in range(nd):
            s += S[3 + a, b] * xm[qdi + b]
        wr[a] = s
        sdot[a] = 0.0 * wr[0]
    if kind != SPHERICAL:
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


def condense(nd, IA, pA, S, c, tau, U, Jinv, uu, Ia, pa):
    """Eqs. 20–22 in matrix form: ``U = Â S``, ``J⁻¹``, ``uu = τ − Sᵀ p̂``, the articulated
    ``Ia = Â − U J⁻¹ Uᵀ`` and ``pa = p̂ + Ia c + U J⁻¹ uu``. Returns False for a singular
    ``J``."""
    for a in range(6):
        for b in range(nd):
            s = 0.0 * pA[0]
            for e in range(6):
                s += IA[a, e] * S[e, b]
            U[a, b] = s
    J = np.zeros((3, 3), dtype=pA.dtype)
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
        c00 = J[1, 1] * J[2, 2] - J[1, 2] * J[2, 1]
        c01 = J[1, 2] * J[2, 0] - J[1, 0] * J[2, 2]
        c02 = J[1, 0] * J[2, 1] - J[1, 1] * J[2, 0]
        det = J[0, 0] * c00 + J[0, 1] * c01 + J[0, 2] * c02
        Jinv[0, 0] = c00 / det
        Jinv[1, 0] = c01 / det
        Jinv[2, 0] = c02 / det
        Jinv[0, 1] = (J[0, 2] * J[2, 1] - J[0, 1] * J[2, 2]) / det
        Jinv[1, 1] = (J[0, 0] * J[2, 2] - J[0, 2] * J[2, 0]) / det
        Jinv[2, 1] = (J[0, 1] * J[2, 0] - J[0, 0] * J[2, 1]) / det
        Jinv[0, 2] = (J[0, 1] * J[1, 2] - J[0, 2] * J[1, 1]) / det
        Jinv[1, 2] = (J[0, 2] * J[1, 0] - J[0, 0] * J[1, 2]) / det
        Jinv[2, 2] = (J[0, 0] * J[1, 1] - J[0, 1] * J[1, 0]) / det
    if det.real <= 0.0:
        return False
    UJ = np.zeros((6, 3), dtype=pA.dtype)
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


def accelerations(kind, nd, U, Jinv, uu, a1, S, acc, xm, qi, qdi, xdot, gain):
    """``ν̇ = J⁻¹ (uu − Uᵀ a1)``, ``acc = a1 + S ν̇``, and the joint's entries of ``xdot``
    (the quaternion: ``½ q ⊗ (0, ω_rel) + ½ λ (1 − |q|²) q``)."""
    r = np.zeros(3, dtype=acc.dtype)
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
