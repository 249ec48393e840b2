"""The compiled kernel's external loads (:mod:`titop_lpv.multibody.kernel`): forces and
torques at a point (body or inertial frame), damping to the inertial frame, wrench inputs,
and the loop-closure spring-dampers (the formulas of :mod:`titop_lpv.multibody.loops`, one
loop at a time), subtracted from the bias wrenches ``pA`` (eq. 11: − W_ext).

Attitudes ``P`` and origins ``r`` are read only for the bodies that an inertial-frame load,
an inertial-frame wrench input or a loop names: :mod:`kernel_forward` computes them there.

The function here is plain Python until ``kernel._compile`` replaces it by a numba
dispatcher with the options of :data:`JIT` (the kernel calls it as an attribute of this
module).
"""

from __future__ import annotations

__all__ = ["JIT"]  # the function below is the kernel's, not an API

# apply_loads: no reference counting, as the sweeps (kernel_forward.JIT); its helpers inlined
JIT = {"_cross": {"inline": "always"}, "_row": {"inline": "always"},
       "_col": {"inline": "always"}, "apply_loads": {"_nrt": False}}


def _cross(a, b, out):
    out[0] = a[1] * b[2] - a[2] * b[1]
    out[1] = a[2] * b[0] - a[0] * b[2]
    out[2] = a[0] * b[1] - a[1] * b[0]


def _row(A, a, v):
    """(A v)[a] for a 3×3 A."""
    return A[a, 0] * v[0] + A[a, 1] * v[1] + A[a, 2] * v[2]


def _col(A, a, v):
    """(Aᵀ v)[a] for a 3×3 A."""
    return A[0, a] * v[0] + A[1, a] * v[1] + A[2, a] * v[2]


def apply_loads(um, P, r, tw, pA, l_body, l_point, l_force, l_torque, l_damp, l_body_frame,
                w_body, w_point, w_body_frame, w_col, lp_a, lp_b, lp_pa, lp_pb, lp_k, lp_d, w3,
                w33, w6):
    """``pA −= W_ext`` of every load, wrench input and loop closure for one state (inputs
    ``um``; attitudes ``P``, origins ``r`` and twists ``tw`` of the bodies). ``w3`` (≥ 9,
    3), ``w33`` (≥ 1, 3, 3), ``w6`` (≥ 1, 6): the caller's scratch arrays."""
    tmp3, tmp3b, dp, dpd, dw, f, mdr, v3, Gd = (w3[0], w3[1], w3[2], w3[3], w3[4], w3[5],
                                                w3[6], w3[7], w3[8])
    Rl = w33[0]
    h = w6[0]
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
