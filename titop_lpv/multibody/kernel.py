"""Compiled forward dynamics: the two-sweep TITOP recursion of :mod:`titop_lpv.multibody.dynamics`
written as explicit loops and compiled by numba.

Same algorithm, same equations (the paper's eqs. 11, 13, 17, 20–24, 27–28), one state at a
time: about a hundred times faster than the vectorised numpy evaluation for one state, and
faster per state than Pinocchio called from Python for large batches. It serves
evaluations whose physical data (masses, axes, rotations, ...) are not batched; the numpy
path in :mod:`titop_lpv.multibody.dynamics` stays the reference and handles batched parameters.
Complex inputs compile a complex specialisation, so complex-step Jacobians pass through.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import numpy as np

from . import kernel_joints as kj
from .joints import FREE, PRISMATIC, REVOLUTE, SPHERICAL
from .kernel_args import KernelData, kernel_data

__all__ = ["NONFINITE", "KernelData", "kernel_data", "load_cached", "run", "workspace"]

NONFINITE = -2  # status of run(): some derivative is NaN or infinite

# numba is imported, and the functions below compiled, on the first run(): importing the
# package does not pay for numba, and a run that never uses the kernel never compiles it.
_JIT_OPTIONS: dict[str, dict[str, Any]] = {}  # function name -> numba.njit options
_COMPILED = threading.Event()
_COMPILE_LOCK = threading.Lock()


def _jit(**options: Any) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Register a function for numba compilation (``njit(cache=True, **options)``) on first use."""

    def register(fn: Callable[..., Any]) -> Callable[..., Any]:
        _JIT_OPTIONS[fn.__name__] = options
        return fn

    return register


def _compile() -> None:
    """Replace every registered function by its numba dispatcher (once, thread-safe)."""
    with _COMPILE_LOCK:
        if _COMPILED.is_set():
            return
        import numba  # heavy: imported on the first kernel run only

        space = globals()
        kj.compile_all(numba)
        for name, options in _JIT_OPTIONS.items():
            # error_model="numpy": a division by zero gives inf/NaN (caught as NONFINITE by
            # the kernel) instead of raising a bare ZeroDivisionError from compiled code
            space[name] = numba.njit(cache=True, error_model="numpy", **options)(space[name])
        _COMPILED.set()


@_jit(inline="always")
def _cross(a, b, out):
    out[0] = a[1] * b[2] - a[2] * b[1]
    out[1] = a[2] * b[0] - a[0] * b[2]
    out[2] = a[0] * b[1] - a[1] * b[0]


@_jit(inline="always")
def _row(A, a, v):
    """(A v)[a] for a 3×3 A."""
    return A[a, 0] * v[0] + A[a, 1] * v[1] + A[a, 2] * v[2]


@_jit(inline="always")
def _col(A, a, v):
    """(Aᵀ v)[a] for a 3×3 A."""
    return A[0, a] * v[0] + A[1, a] * v[1] + A[2, a] * v[2]


@_jit()
def _bias(D, tw, P, g, pA, IA, h, tmp3, tmp3b):
    """A body's bias wrench ``C(x') D x' − D [g_a; 0]`` (eq. 11, before the external loads)
    and ``Â = D``, computed where its twist and attitude are at hand (the forward sweep)."""
    for a in range(6):
        s = 0.0 * h[0]
        for b in range(6):
            s += D[a, b] * tw[b]
        h[a] = s
    _cross(tw[3:], h[:3], tmp3)
    for a in range(3):
        pA[a] = tmp3[a]
    _cross(tw[:3], h[:3], tmp3)
    _cross(tw[3:], h[3:], tmp3b)
    for a in range(3):
        pA[3 + a] = tmp3[a] + tmp3b[a]
    for a in range(3):  # g in the body frame
        tmp3[a] = P[0, a] * g[0] + P[1, a] * g[1] + P[2, a] * g[2]
    for a in range(6):
        pA[a] -= D[a, 0] * tmp3[0] + D[a, 1] * tmp3[1] + D[a, 2] * tmp3[2]
    for a in range(6):
        for b in range(6):
            IA[a, b] = D[a, b]


@_jit()
def _forward_kernel(
    x, u, kind, parent, q_index, qd_index, base, tau_col, S, axis, R0, off, D, K, K2,
    k_s, d_s, rest, g, euler_axes, l_body, l_point, l_force, l_torque, l_damp, l_body_frame,
    w_body, w_point, w_body_frame, w_col, lp_a, lp_b, lp_pa, lp_pb, lp_k, lp_d, nd, a1c,
    extra, qdd_col, base_quat, xdot,
):
    """The kernel with its per-body work arrays allocated here (uninitialised: every entry
    read is written first)."""
    n = kind.shape[0]
    dt = xdot.dtype
    return _forward_work(
        x, u, kind, parent, q_index, qd_index, base, tau_col, S, axis, R0, off, D, K, K2,
        k_s, d_s, rest, g, euler_axes, l_body, l_point, l_force, l_torque, l_damp,
        l_body_frame, w_body, w_point, w_body_frame, w_col, lp_a, lp_b, lp_pa, lp_pb, lp_k,
        lp_d, nd, a1c, extra, qdd_col, base_quat, xdot,
        np.empty((n, 3, 3), dtype=dt), np.empty((n, 3), dtype=dt),
        np.empty((n, 6), dtype=dt), np.empty((n, 6), dtype=dt),
        np.empty((n, 3, 3), dtype=dt), np.empty((n, 3, 3), dtype=dt),
        np.empty((n, 6, 6), dtype=dt), np.empty((n, 6), dtype=dt),
        np.empty((n, 6), dtype=dt), np.empty(n, dtype=dt), np.empty(n, dtype=dt),
        np.empty((n, 6), dtype=dt), np.empty((n, 6, 3), dtype=dt),
        np.empty((n, 6, 3), dtype=dt), np.empty((n, 3, 3), dtype=dt),
        np.empty((n, 3), dtype=dt))


@_jit()
def _forward_work(
    x, u, kind, parent, q_index, qd_index, base, tau_col, S, axis, R0, off, D, K, K2,
    k_s, d_s, rest, g, euler_axes, l_body, l_point, l_force, l_torque, l_damp, l_body_frame,
    w_body, w_point, w_body_frame, w_col, lp_a, lp_b, lp_pa, lp_pb, lp_k, lp_d, nd, a1c,
    extra, qdd_col, base_quat, xdot, P, r, tw, c, XA, XB, IA, pA, U, J, uu, acc, Sm, Um, Jm,
    uum,
):
    # per-body work arrays (P … uum): the caller's (every entry read is written first).
    # The transform of body i to its parent port is X = [[XAᵀ, XB], [0, XAᵀ]]
    # (XA = P_{a/b}): its two 3×3 blocks, not the 6×6 matrix.
    n = kind.shape[0]
    dt = xdot.dtype
    Gamma = np.zeros((3, 3), dtype=dt)
    scratch = np.zeros((5, 3, 3), dtype=dt)
    E = np.zeros((3, 3), dtype=dt)
    tmp3 = np.zeros(3, dtype=dt)
    tmp3b = np.zeros(3, dtype=dt)
    Ia = np.zeros((6, 6), dtype=dt)
    IaX = np.zeros((6, 6), dtype=dt)
    pa = np.zeros(6, dtype=dt)
    a1 = np.zeros(6, dtype=dt)
    h = np.zeros(6, dtype=dt)
    theta = np.zeros(3, dtype=dt)
    Rl = np.zeros((3, 3), dtype=dt)
    dp = np.zeros(3, dtype=dt)
    dpd = np.zeros(3, dtype=dt)
    dw = np.zeros(3, dtype=dt)
    f = np.zeros(3, dtype=dt)
    mdr = np.zeros(3, dtype=dt)
    v3 = np.zeros(3, dtype=dt)
    Gd = np.zeros(3, dtype=dt)
    Fs = np.zeros((3, 3), dtype=dt)
    Jw = np.zeros((3, 3), dtype=dt)  # scratch of kernel_joints.condense / accelerations
    UJ = np.zeros((6, 3), dtype=dt)
    for m in range(x.shape[0]):
        xm = x[m]
        um = u[m]
        # ---- root -> tips: attitudes, positions, twists, velocity products (eqs. 17, 24)
        for i in range(n):
            if kind[i] == FREE:
                for a in range(6):
                    tw[i, a] = xm[base + a]
                for a in range(3):
                    r[i, a] = xm[base + 6 + a]
                    theta[a] = xm[base + 9 + a]
                if base_quat:
                    kj.quat_dcm(xm, base + 9, P[i])
                else:
                    kj.euler(theta, euler_axes, P[i], Gamma, scratch)
                for a in range(6):
                    c[i, a] = 0.0
                _bias(D[i], tw[i], P[i], g, pA[i], IA[i], h, tmp3, tmp3b)
                continue
            p = parent[i]
            Pab = XA[i]
            q = xm[q_index[i]] if (kind[i] == REVOLUTE or kind[i] == PRISMATIC) else 0.0
            qd = xm[qd_index[i]] if (kind[i] == REVOLUTE or kind[i] == PRISMATIC) else 0.0
            if kind[i] == REVOLUTE:  # eq. (16)
                sq = np.sin(q)
                cq = 1.0 - np.cos(q)
                for a in range(3):
                    for b in range(3):
                        E[a, b] = (1.0 if a == b else 0.0) + sq * K[i, a, b] + cq * K2[i, a, b]
                for a in range(3):
                    for b in range(3):
                        Pab[a, b] = (R0[i, a, 0] * E[0, b] + R0[i, a, 1] * E[1, b]
                                     + R0[i, a, 2] * E[2, b])
            elif nd[i] > 1:  # spherical, universal (kernel_joints)
                kj.pose(kind[i], xm, q_index[i], R0[i], a1c[i], axis[i], Pab, Sm[i], E, Fs)
            else:
                for a in range(3):
                    for b in range(3):
                        Pab[a, b] = R0[i, a, b]
            # parent's twist at the port C (τ_CP), projected in the child frame
            if p >= 0:
                _cross(tw[p, 3:], off[i], tmp3)
                for a in range(3):
                    tmp3[a] += tw[p, a]
            else:
                for a in range(3):
                    tmp3[a] = 0.0
            for a in range(3):
                tw[i, a] = _col(Pab, a, tmp3)
                if p >= 0:
                    tw[i, 3 + a] = _col(Pab, a, tw[p, 3:])
                else:
                    tw[i, 3 + a] = 0.0
            # attitude and origin
            for a in range(3):
                for b in range(3):
                    if p >= 0:
                        P[i, a, b] = _row(P[p], a, Pab[:, b])
                    else:
                        P[i, a, b] = Pab[a, b]
            for a in range(3):
                if p >= 0:
                    r[i, a] = r[p, a] + _row(P[p], a, off[i])
                else:
                    r[i, a] = off[i, a]
            # X = [[Pᵀ, Pᵀ(*−off) + (*−qt)Pᵀ], [0, Pᵀ]]: XA = P (above), XB the top right
            for a in range(3):  # Pᵀ (*−off): column b is Pᵀ (−off × e_b)
                tmp3b[0] = 0.0
                tmp3b[1] = 0.0
                tmp3b[2] = 0.0
                tmp3b[a] = 1.0
                _cross(off[i], tmp3b, tmp3)  # off × e_a
                for b in range(3):
                    XB[i, b, a] = -_col(Pab, b, tmp3)
            for a in range(6):
                c[i, a] = 0.0
            if kind[i] == PRISMATIC:  # eq. (24): P = P0 + q t̃
                for a in range(3):
                    tmp3b[a] = q * axis[i, a]
                _cross(tw[i, 3:], tmp3b, tmp3)
                for a in range(3):
                    tw[i, a] += tmp3[a] + qd * axis[i, a]
                # (*−qt) Pᵀ added to the top-right block: −qt × (Pᵀ e_b)
                for b in range(3):
                    for a in range(3):
                        tmp3[a] = Pab[b, a]
                    _cross(tmp3b, tmp3, h[:3])
                    for a in range(3):
                        XB[i, a, b] -= h[a]
                _cross(tw[i, 3:], axis[i], tmp3)
                for a in range(3):
                    c[i, a] = qd * tmp3[a]
                    r[i, a] += P[i, a, 0] * tmp3b[0] + P[i, a, 1] * tmp3b[1] + P[i, a, 2] * tmp3b[2]
            elif kind[i] == REVOLUTE:  # eq. (17): ω_A = ω_B + θ̇ r̃
                for a in range(3):
                    tw[i, 3 + a] += qd * axis[i, a]
                _cross(tw[i, :3], axis[i], tmp3)
                for a in range(3):
                    c[i, a] = qd * tmp3[a]
                _cross(tw[i, 3:], axis[i], tmp3)
                for a in range(3):
                    c[i, 3 + a] = qd * tmp3[a]
            elif nd[i] > 1:  # ω_A = ω_B + ω_rel, c = [v × ω_rel; ω × ω_rel + Ṡ ν]
                kj.rates(kind[i], xm, qd_index[i], Sm[i], v3, dw)
                for a in range(3):
                    tw[i, 3 + a] += v3[a]
                _cross(tw[i, :3], v3, tmp3)
                _cross(tw[i, 3:], v3, tmp3b)
                for a in range(3):
                    c[i, a] = tmp3[a]
                    c[i, 3 + a] = tmp3b[a] + dw[a]
            _bias(D[i], tw[i], P[i], g, pA[i], IA[i], h, tmp3, tmp3b)  # eq. 11
        # ---- external loads (eq. 11: − W_ext)
        for li in range(l_body.shape[0]):
            i = l_body[li]
            for a in range(3):
                if l_body_frame[li]:
                    tmp3[a] = l_force[li, a]
                    tmp3b[a] = l_torque[li, a]
                else:
                    tmp3[a] = (P[i, 0, a] * l_force[li, 0] + P[i, 1, a] * l_force[li, 1]
                               + P[i, 2, a] * l_force[li, 2])
                    tmp3b[a] = (P[i, 0, a] * l_torque[li, 0] + P[i, 1, a] * l_torque[li, 1]
                                + P[i, 2, a] * l_torque[li, 2])
            if l_damp[li, 0] != 0.0 or l_damp[li, 1] != 0.0:  # −c_v v_C, −c_ω ω
                _cross(tw[i, 3:], l_point[li], v3)
                for a in range(3):
                    tmp3[a] -= l_damp[li, 0] * (tw[i, a] + v3[a])
                    tmp3b[a] -= l_damp[li, 1] * tw[i, 3 + a]
            _cross(l_point[li], tmp3, h[:3])
            for a in range(3):
                pA[i, a] -= tmp3[a]
                pA[i, 3 + a] -= tmp3b[a] + h[a]
        for wi in range(w_body.shape[0]):
            i = w_body[wi]
            col = w_col[wi]
            for a in range(3):
                if w_body_frame[wi]:
                    tmp3[a] = um[col + a]
                    tmp3b[a] = um[col + 3 + a]
                else:
                    tmp3[a] = _col(P[i], a, um[col:col + 3])
                    tmp3b[a] = _col(P[i], a, um[col + 3:col + 6])
            _cross(w_point[wi], tmp3, h[:3])
            for a in range(3):
                pA[i, a] -= tmp3[a]
                pA[i, 3 + a] -= tmp3b[a] + h[a]
        # ---- loop-closure spring-dampers (multibody.loops: same formulas, one loop at a time)
        for li in range(lp_a.shape[0]):
            ia = lp_a[li]
            ib = lp_b[li]
            for a in range(3):
                for b in range(3):
                    Rl[a, b] = P[ia, 0, a] * P[ib, 0, b] + P[ia, 1, a] * P[ib, 1, b] \
                        + P[ia, 2, a] * P[ib, 2, b]
            for a in range(3):  # r_B − r_A, inertial
                tmp3[a] = r[ib, a] - r[ia, a] + _row(P[ib], a, lp_pb[li]) \
                    - _row(P[ia], a, lp_pa[li])
            for a in range(3):
                dp[a] = _col(P[ia], a, tmp3)
            _cross(tw[ib, 3:], lp_pb[li], tmp3)
            for a in range(3):
                tmp3[a] += tw[ib, a]
            _cross(tw[ia, 3:], lp_pa[li], tmp3b)
            _cross(tw[ia, 3:], dp, v3)
            for a in range(3):
                dpd[a] = _row(Rl, a, tmp3) - tw[ia, a] - tmp3b[a] - v3[a]
                dw[a] = _row(Rl, a, tw[ib, 3:]) - tw[ia, 3 + a]
            gsum = 0.5 * (lp_k[li, 3] + lp_k[li, 4] + lp_k[li, 5])
            for a in range(3):
                f[a] = lp_k[li, a] * dp[a] + lp_d[li, a] * dpd[a]
                Gd[a] = gsum - lp_k[li, 3 + a]
                mdr[a] = lp_d[li, 3 + a] * dw[a]
            # body a: force f, torque (p_a + δp) × f + vee(R G − G Rᵀ) + D_r δω
            for a in range(3):
                v3[a] = lp_pa[li, a] + dp[a]
            _cross(v3, f, tmp3)
            tmp3[0] += Rl[2, 1] * Gd[1] - Rl[1, 2] * Gd[2] + mdr[0]
            tmp3[1] += Rl[0, 2] * Gd[2] - Rl[2, 0] * Gd[0] + mdr[1]
            tmp3[2] += Rl[1, 0] * Gd[0] - Rl[0, 1] * Gd[1] + mdr[2]
            for a in range(3):
                pA[ia, a] -= f[a]
                pA[ia, 3 + a] -= tmp3[a]
            # body b: force −Rᵀ f, torque p_b × (−Rᵀ f) − vee(G R − Rᵀ G) − Rᵀ D_r δω
            for a in range(3):
                v3[a] = -_col(Rl, a, f)
            _cross(lp_pb[li], v3, tmp3)
            tmp3[0] -= Gd[2] * Rl[2, 1] - Gd[1] * Rl[1, 2]
            tmp3[1] -= Gd[0] * Rl[0, 2] - Gd[2] * Rl[2, 0]
            tmp3[2] -= Gd[1] * Rl[1, 0] - Gd[0] * Rl[0, 1]
            for a in range(3):
                pA[ib, a] -= v3[a]
                pA[ib, 3 + a] -= tmp3[a] - _col(Rl, a, mdr)
        # ---- tips -> root: condense each subtree into its parent port (eqs. 20-22, 27-28)
        status = -1
        for i in range(n - 1, -1, -1):
            if kind[i] == FREE:
                continue
            if qdd_col[i] >= 0:  # driven: q̈ imposed, the subtree passes unreduced
                for a in range(6):
                    a1[a] = c[i, a] + S[i, a] * um[qdd_col[i]]
                for a in range(6):
                    s = pA[i, a]
                    for b in range(6):
                        Ia[a, b] = IA[i, a, b]
                        s += IA[i, a, b] * a1[b]
                    pa[a] = s
            elif nd[i] > 1:
                kj.forces(kind[i], xm, q_index[i], qd_index[i], k_s[i], d_s[i], rest[i],
                          extra[i], dp)
                if tau_col[i] >= 0:  # actuated: torques <body>_tau_x … / _tau1 _tau2
                    for a in range(nd[i]):
                        dp[a] += um[tau_col[i] + a]
                if not kj.condense(kind[i], nd[i], IA[i], pA[i], Sm[i], c[i], dp, Um[i], Jm[i],
                                   uum[i], Ia, pa, Jw, UJ):
                    status = i
                    break
            elif (kind[i] == REVOLUTE or kind[i] == PRISMATIC):
                tau = -k_s[i] * (xm[q_index[i]] - rest[i]) - d_s[i] * xm[qd_index[i]]
                if tau_col[i] >= 0:
                    tau = tau + um[tau_col[i]]
                for a in range(6):
                    s = 0.0 * h[0]
                    for b in range(6):
                        s += IA[i, a, b] * S[i, b]
                    U[i, a] = s
                Ji = 0.0 * h[0]
                sp = 0.0 * h[0]
                for a in range(6):
                    Ji += S[i, a] * U[i, a]
                    sp += S[i, a] * pA[i, a]
                J[i] = Ji
                if Ji.real <= 0.0:
                    status = i
                    break
                uu[i] = tau - sp
                for a in range(6):
                    for b in range(6):
                        Ia[a, b] = IA[i, a, b] - U[i, a] * U[i, b] / Ji
                for a in range(6):
                    s = pA[i, a] + U[i, a] * uu[i] / Ji
                    for b in range(6):
                        s += Ia[a, b] * c[i, b]
                    pa[a] = s
            else:
                for a in range(6):
                    pa[a] = pA[i, a]
                    for b in range(6):
                        Ia[a, b] = IA[i, a, b]
            p = parent[i]
            if p >= 0:
                kj.to_parent(kind[i] == SPHERICAL, XA[i], XB[i], Ia, pa, IA[p], pA[p],
                             IaX)
        if status >= 0:
            return status
        # ---- root -> tips: accelerations
        for i in range(n):
            if kind[i] == FREE:
                for a in range(6):
                    pa[a] = -pA[i, a]
                kj.solve6(IA[i], pa, acc[i])
                continue
            p = parent[i]
            for a in range(3):  # a1 = c + X acc_p
                s = c[i, a]
                t = c[i, 3 + a]
                if p >= 0:
                    for b in range(3):
                        s += XA[i, b, a] * acc[p, b]
                    for b in range(3):
                        s += XB[i, a, b] * acc[p, 3 + b]
                    for b in range(3):
                        t += XA[i, b, a] * acc[p, 3 + b]
                a1[a] = s
                a1[3 + a] = t
            if nd[i] > 1:
                kj.accelerations(kind[i], nd[i], Um[i], Jm[i], uum[i], a1, Sm[i], acc[i], xm,
                                 q_index[i], qd_index[i], xdot[m], kj.QUATERNION_GAIN, dp)
            elif (kind[i] == REVOLUTE or kind[i] == PRISMATIC):
                s = uu[i]
                for a in range(6):
                    s -= U[i, a] * a1[a]
                qdd = s / J[i] if qdd_col[i] < 0 else um[qdd_col[i]]
                for a in range(6):
                    acc[i, a] = a1[a] + S[i, a] * qdd
                xdot[m, q_index[i]] = xm[qd_index[i]]
                xdot[m, qd_index[i]] = qdd
            else:
                for a in range(6):
                    acc[i, a] = a1[a]
        if base >= 0:
            for a in range(6):
                xdot[m, base + a] = acc[0, a]
            for a in range(3):
                xdot[m, base + 6 + a] = _row(P[0], a, tw[0, :3])
            if base_quat:
                kj.quat_rates(xm, base + 9, tw[0, 3], tw[0, 4], tw[0, 5], xdot[m],
                              kj.QUATERNION_GAIN)
            else:
                for a in range(3):
                    theta[a] = xm[base + 9 + a]
                kj.euler(theta, euler_axes, P[0], Gamma, scratch)
                for a in range(3):
                    xdot[m, base + 9 + a] = (Gamma[a, 0] * tw[0, 3] + Gamma[a, 1] * tw[0, 4]
                                             + Gamma[a, 2] * tw[0, 5])
        for a in range(xdot.shape[1]):
            if xdot[m, a] - xdot[m, a] != 0.0:  # NaN or ±inf (real or imaginary part)
                return NONFINITE
    return -1


def run(data: KernelData, x: np.ndarray, u: np.ndarray) -> tuple[np.ndarray, int]:
    """State derivatives for states ``x`` (M, n_x) and inputs ``u`` (M, n_u).

    Parameters
    ----------
    data : KernelData
        From :func:`kernel_data`.
    x : ndarray, shape (M, n_x)
        States.
    u : ndarray, shape (M, n_u)
        Inputs.

    Returns
    -------
    xdot : ndarray (M, n_x)
    status : int
        ``-1``; the index of a body whose joint has a non-positive apparent inertia; or
        :data:`NONFINITE` when a derivative is NaN or infinite (the evaluation stops there).
    """
    dtype = np.result_type(x, u, float)
    # writable C arrays: numba compiles a separate specialisation for read-only ones
    x = np.require(x, dtype=dtype, requirements=["C", "W"])
    u = np.require(u, dtype=dtype, requirements=["C", "W"])
    xdot = np.zeros(x.shape, dtype=dtype)
    if not _COMPILED.is_set():
        _compile()
    if dtype.str not in _WRAPPED:  # compiles both (the allocating entry serves model.dynamics)
        status = _forward_kernel(x, u, *data.args, xdot)
        _WRAPPED.add(dtype.str)
    else:
        status = _forward_work(x, u, *data.args, xdot, *workspace(len(data.args[0]), dtype))
    return xdot, int(status)


_WRAPPED: set[str] = set()  # dtypes for which _forward_kernel is compiled
_LOCAL = threading.local()  # each thread's work arrays: {(n bodies, dtype): arrays}
_KEPT = 2  # work-array sets kept per thread (the latest sizes)


def workspace(n: int, dtype: Any) -> tuple[np.ndarray, ...]:
    """The kernel's per-body work arrays for ``n`` bodies (about 1.2 kB per body), kept from
    call to call in the calling thread: a large model's evaluation then neither allocates
    nor touches fresh memory (page faults: half the time of an evaluation of 10⁴ bodies
    otherwise). The kernel writes every entry before reading it.

    Parameters
    ----------
    n : int
        Number of bodies.
    dtype : data-type
        ``float64`` or ``complex128`` (complex-step derivatives).

    Returns
    -------
    tuple of ndarray
        The trailing arguments of ``_forward_work`` (after ``xdot``), this thread's own.
    """
    kept = getattr(_LOCAL, "work", None)
    if kept is None:
        kept = _LOCAL.work = {}
    key = (n, np.dtype(dtype).str)
    work = kept.pop(key, None)
    if work is None:
        shapes = ((n, 3, 3), (n, 3), (n, 6), (n, 6), (n, 3, 3), (n, 3, 3), (n, 6, 6), (n, 6),
                  (n, 6), (n,), (n,), (n, 6), (n, 6, 3), (n, 6, 3), (n, 3, 3), (n, 3))
        work = tuple(np.zeros(shape, dtype=dtype) for shape in shapes)
        while len(kept) >= _KEPT:
            kept.pop(next(iter(kept)))
    kept[key] = work  # the most recent last
    return work


def load_cached(dtype: Any, args: tuple[Any, ...]) -> bool:
    """Make the kernel for states of ``dtype`` ready without compiling it, if possible.

    Parameters
    ----------
    dtype : numpy dtype
        dtype of the states and inputs (float64 or complex128).
    args : tuple
        The model arguments (:attr:`KernelData.args`); with ``dtype`` they fix the signature.

    Returns
    -------
    bool
        True when the specialisation is compiled in this process or was found in numba's
        disk cache (and is now loaded); False when only compiling it would make it ready.
    """
    if not _COMPILED.is_set():
        _compile()
    import numba

    probe = np.zeros((1, 1), dtype=np.result_type(dtype, float))
    sig = tuple(numba.typeof(a) for a in (probe, probe, *args, probe))
    dispatcher = _forward_kernel
    if sig in dispatcher.overloads:
        return True
    cache = getattr(dispatcher, "_cache", None)  # numba's disk cache of this dispatcher
    if cache is None or cache.load_overload(sig, dispatcher.targetctx) is None:
        return False
    dispatcher.compile(sig)  # found: load it through the dispatcher (a cache hit, no compile)
    return True


def work_entry_point(args: tuple[Any, ...]) -> Any:
    """Entry point of the kernel on caller-given work arrays (:func:`workspace`), or None.

    Parameters
    ----------
    args : tuple
        Every argument of that kernel as :func:`run` passes them (states (1, n_x) first).

    Returns
    -------
    callable or None
        numba's ``entry_point`` (no type dispatch) if compiled or in numba's disk cache."""
    try:  # None before the first run() (not compiled) or if numba's internals changed
        sig = tuple(_forward_work.typeof_pyval(a) for a in args)
        if sig not in _forward_work.overloads and _forward_work._cache.load_overload(
                sig, _forward_work.targetctx) is not None:
            _forward_work.compile(sig)  # a disk-cache hit: loaded, not compiled
        return getattr(_forward_work.overloads.get(sig), "entry_point", None)
    except Exception:
        return None
