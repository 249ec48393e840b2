"""The compiled kernel of :mod:`~titop_lpv.multibody.derivatives_kernel` (which states the
formulas): ``ẋ`` and the Jacobians ``[A B]`` of the forward dynamics of a fixed-base tree of
revolute, prismatic and weld joints, in one call, or the derivatives of the inverse dynamics
and the mass matrix at given accelerations.

Everything here is compiled by numba as one module (its disk cache is keyed by this file, so
no compiled helper lives elsewhere): :func:`compiled` makes it. The helpers take whole arrays
and row indices, not views (a view costs reference counting in the inner loops): ``y[yi]`` is
a 6-vector row of a (m, 6) array, ``A[ai]`` a 6 × 6 block of a (m, 6, 6) array.
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np

__all__ = ["NB", "compiled"]

NB = 8  # columns per articulated-body solve (a constant: loops of fixed length)
_KERNEL: dict[str, Any] = {}
_LOCK = threading.Lock()


def _crm(s, si, y, yi, c, out, oi):  # pragma: no cover - run compiled
    """out[oi] += c (s[si] ×ₘ y[yi]), ``s ×ₘ y = [s_ω × y_v + s_v × y_ω; s_ω × y_ω]``."""
    s0, s1, s2, s3, s4, s5 = s[si, 0], s[si, 1], s[si, 2], s[si, 3], s[si, 4], s[si, 5]
    y0, y1, y2, y3, y4, y5 = y[yi, 0], y[yi, 1], y[yi, 2], y[yi, 3], y[yi, 4], y[yi, 5]
    out[oi, 0] += c * (s4 * y2 - s5 * y1 + s1 * y5 - s2 * y4)
    out[oi, 1] += c * (s5 * y0 - s3 * y2 + s2 * y3 - s0 * y5)
    out[oi, 2] += c * (s3 * y1 - s4 * y0 + s0 * y4 - s1 * y3)
    out[oi, 3] += c * (s4 * y5 - s5 * y4)
    out[oi, 4] += c * (s5 * y3 - s3 * y5)
    out[oi, 5] += c * (s3 * y4 - s4 * y3)


def _crf(s, si, h, hi, c, out, oi):  # pragma: no cover - run compiled
    """out[oi] += c (s[si] ×_f h[hi]), ``s ×_f h = [s_ω × h_F; s_v × h_F + s_ω × h_T]``."""
    s0, s1, s2, s3, s4, s5 = s[si, 0], s[si, 1], s[si, 2], s[si, 3], s[si, 4], s[si, 5]
    h0, h1, h2, h3, h4, h5 = h[hi, 0], h[hi, 1], h[hi, 2], h[hi, 3], h[hi, 4], h[hi, 5]
    out[oi, 0] += c * (s4 * h2 - s5 * h1)
    out[oi, 1] += c * (s5 * h0 - s3 * h2)
    out[oi, 2] += c * (s3 * h1 - s4 * h0)
    out[oi, 3] += c * (s1 * h2 - s2 * h1 + s4 * h5 - s5 * h4)
    out[oi, 4] += c * (s2 * h0 - s0 * h2 + s5 * h3 - s3 * h5)
    out[oi, 5] += c * (s0 * h1 - s1 * h0 + s3 * h4 - s4 * h3)


def _mv(A, ai, y, yi, c, out, oi):  # pragma: no cover - run compiled
    """out[oi] += c A[ai] y[yi]."""
    for r in range(6):
        acc = 0.0
        for k in range(6):
            acc += A[ai, r, k] * y[yi, k]
        out[oi, r] += c * acc


def _mtv(A, ai, y, yi, out, oi):  # pragma: no cover - run compiled
    """out[oi] = A[ai]ᵀ y[yi]."""
    for k in range(6):
        acc = 0.0
        for r in range(6):
            acc += A[ai, r, k] * y[yi, r]
        out[oi, k] = acc


def _dot(a, ai, b, bi):  # pragma: no cover - run compiled
    """a[ai] · b[bi]."""
    return (a[ai, 0] * b[bi, 0] + a[ai, 1] * b[bi, 1] + a[ai, 2] * b[bi, 2]
            + a[ai, 3] * b[bi, 3] + a[ai, 4] * b[bi, 4] + a[ai, 5] * b[bi, 5])


def _poses(kind, par, dof, fb, x, qi, C, P, R):  # pragma: no cover - run compiled
    """World rotation ``C_i`` (body → world) and origin ``P_i`` of every body (row ``n``: the
    world, identity and zero); ``R`` (3, 3) work."""
    n = kind.size
    for r in range(3):
        for c in range(3):
            C[n, r, c] = 1.0 if r == c else 0.0
        P[n, r] = 0.0
    for i in range(n):
        q = x[qi[dof[i]]] if dof[i] >= 0 else 0.0
        sh0 = sh1 = sh2 = 0.0
        if kind[i] == 2:  # revolute: P_{a/b} = P0 E(r, q), E = I + sin q (*r) + (1 − cos q) (*r)²
            s_, c_ = np.sin(q), 1.0 - np.cos(q)
            a0, a1, a2 = fb[i, 15], fb[i, 16], fb[i, 17]
            E00, E11, E22 = 1.0 + c_ * (a0 * a0 - 1.0), 1.0 + c_ * (a1 * a1 - 1.0), \
                1.0 + c_ * (a2 * a2 - 1.0)
            E01, E10 = -s_ * a2 + c_ * a0 * a1, s_ * a2 + c_ * a0 * a1
            E02, E20 = s_ * a1 + c_ * a0 * a2, -s_ * a1 + c_ * a0 * a2
            E12, E21 = -s_ * a0 + c_ * a1 * a2, s_ * a0 + c_ * a1 * a2
            for r in range(3):  # R = P_{a/b} (child → parent)
                b0, b1, b2 = fb[i, 6 + 3 * r], fb[i, 7 + 3 * r], fb[i, 8 + 3 * r]
                R[r, 0] = b0 * E00 + b1 * E10 + b2 * E20
                R[r, 1] = b0 * E01 + b1 * E11 + b2 * E21
                R[r, 2] = b0 * E02 + b1 * E12 + b2 * E22
        else:
            for r in range(3):
                for c in range(3):
                    R[r, c] = fb[i, 6 + 3 * r + c]
            if kind[i] == 3:  # prismatic: the child origin moves by q t (child frame)
                sh0, sh1, sh2 = q * fb[i, 15], q * fb[i, 16], q * fb[i, 17]
        p = par[i]
        for r in range(3):
            for c in range(3):
                C[i, r, c] = C[p, r, 0] * R[0, c] + C[p, r, 1] * R[1, c] + C[p, r, 2] * R[2, c]
        for r in range(3):
            P[i, r] = (P[p, r] + C[p, r, 0] * fb[i, 18] + C[p, r, 1] * fb[i, 19]
                       + C[p, r, 2] * fb[i, 20] + C[i, r, 0] * sh0 + C[i, r, 1] * sh1
                       + C[i, r, 2] * sh2)


def _world(C, P, fb, D, i, Sw, Iw, T):  # pragma: no cover - run compiled
    """Body ``i``'s motion subspace and spatial inertia in the world frame at the world
    origin: ``S_w = Φ S``, ``I_w = Φ⁻ᵀ D Φ⁻¹`` with ``Φ = [[I, P×], [0, I]] diag(C, C)``
    (``T`` (6, 6) work)."""
    for r in range(3):  # S: ω = C s_ω, v = C s_v + P × ω
        Sw[i, r] = C[i, r, 0] * fb[i, 0] + C[i, r, 1] * fb[i, 1] + C[i, r, 2] * fb[i, 2]
        Sw[i, 3 + r] = C[i, r, 0] * fb[i, 3] + C[i, r, 1] * fb[i, 4] + C[i, r, 2] * fb[i, 5]
    p0, p1, p2 = P[i, 0], P[i, 1], P[i, 2]
    Sw[i, 0] += p1 * Sw[i, 5] - p2 * Sw[i, 4]
    Sw[i, 1] += p2 * Sw[i, 3] - p0 * Sw[i, 5]
    Sw[i, 2] += p0 * Sw[i, 4] - p1 * Sw[i, 3]
    for r in range(6):  # T = diag(C, C) D
        o = 3 * (r // 3)
        for c in range(6):
            T[r, c] = (C[i, r - o, 0] * D[i, o, c] + C[i, r - o, 1] * D[i, o + 1, c]
                       + C[i, r - o, 2] * D[i, o + 2, c])
    for r in range(6):  # I = T diag(Cᵀ, Cᵀ)
        for c in range(6):
            o = 3 * (c // 3)
            Iw[i, r, c] = (T[r, o] * C[i, c - o, 0] + T[r, o + 1] * C[i, c - o, 1]
                           + T[r, o + 2] * C[i, c - o, 2])
    for r in range(6):  # I [[I, −P×], [0, I]]: columns 3..5 −= columns 0..2 · P×
        c0, c1, c2 = Iw[i, r, 0], Iw[i, r, 1], Iw[i, r, 2]
        Iw[i, r, 3] -= c1 * p2 - c2 * p1
        Iw[i, r, 4] -= -c0 * p2 + c2 * p0
        Iw[i, r, 5] -= c0 * p1 - c1 * p0
    for c in range(6):  # [[I, 0], [P×, I]] I: rows 3..5 += P× · rows 0..2
        r0, r1, r2 = Iw[i, 0, c], Iw[i, 1, c], Iw[i, 2, c]
        Iw[i, 3, c] += p1 * r2 - p2 * r1
        Iw[i, 4, c] += p2 * r0 - p0 * r2
        Iw[i, 5, c] += p0 * r1 - p1 * r0


def _add_coriolis(Iw, v, h, i, Bc):  # pragma: no cover - run compiled
    """Bc[i] += L_i = −(G + Gᵀ) − H(h_i), ``G = I_i (v_i ×ₘ)``, ``H(h) = [[0, h_F×],
    [h_F×, h_T×]]`` (so ``L α = I (α ×ₘ v) + α ×_f h + v ×_f I α``)."""
    v0, v1, v2, w0, w1, w2 = v[i, 0], v[i, 1], v[i, 2], v[i, 3], v[i, 4], v[i, 5]
    for r in range(6):  # G[r] = I[r] [[ω×, v×], [0, ω×]]
        a0, a1, a2, b0, b1, b2 = Iw[i, r, 0], Iw[i, r, 1], Iw[i, r, 2], Iw[i, r, 3], \
            Iw[i, r, 4], Iw[i, r, 5]
        g0 = a1 * w2 - a2 * w1
        g1 = -a0 * w2 + a2 * w0
        g2 = a0 * w1 - a1 * w0
        g3 = a1 * v2 - a2 * v1 + b1 * w2 - b2 * w1
        g4 = -a0 * v2 + a2 * v0 - b0 * w2 + b2 * w0
        g5 = a0 * v1 - a1 * v0 + b0 * w1 - b1 * w0
        g = (g0, g1, g2, g3, g4, g5)
        for c in range(6):
            Bc[i, r, c] -= g[c]
            Bc[i, c, r] -= g[c]
    f0, f1, f2, t0, t1, t2 = h[i, 0], h[i, 1], h[i, 2], h[i, 3], h[i, 4], h[i, 5]
    for blk in range(3):  # −(h_F×) at (0, 3) and (3, 0), −(h_T×) at (3, 3)
        r0, c0 = (0, 3) if blk == 0 else ((3, 0) if blk == 1 else (3, 3))
        e0, e1, e2 = (t0, t1, t2) if blk == 2 else (f0, f1, f2)
        Bc[i, r0, c0 + 1] += e2
        Bc[i, r0, c0 + 2] -= e1
        Bc[i, r0 + 1, c0] -= e2
        Bc[i, r0 + 1, c0 + 2] += e0
        Bc[i, r0 + 2, c0] += e1
        Bc[i, r0 + 2, c0 + 1] -= e0


def _aba_solve(par, dof, Sw, U, Dinv, rhs, out, pp, acc, c):  # pragma: no cover
    """``out = M⁻¹ rhs`` for the :data:`NB` columns of ``rhs`` (n_dof, NB): the
    articulated-body recursion at zero twist and gravity, world frame, the columns in the
    inner loops. ``pp``, ``acc`` (n + 1, 6, NB) work, ``pp`` zero on entry and on return
    (but for its row ``n``, the world's, never read), ``acc`` zero in row ``n``; ``c`` (NB,)
    work."""
    n = par.size
    for i in range(n - 1, -1, -1):  # tips first: u_i = τ_i − S_i · p_i, p_p += p_i + U_i u_i / D_i
        k, p = dof[i], par[i]
        if k >= 0:
            for b in range(NB):
                c[b] = rhs[k, b]
            for r in range(6):
                s = Sw[i, r]
                for b in range(NB):
                    c[b] -= s * pp[i, r, b]
            d = Dinv[i]
            for b in range(NB):
                out[k, b] = c[b]
                c[b] *= d
            for r in range(6):
                s = U[i, r]
                for b in range(NB):
                    pp[p, r, b] += pp[i, r, b] + s * c[b]
                    pp[i, r, b] = 0.0
        else:
            for r in range(6):
                for b in range(NB):
                    pp[p, r, b] += pp[i, r, b]
                    pp[i, r, b] = 0.0
    for i in range(n):  # root first: q̈_i = (u_i − U_i · a_p) / D_i, a_i = a_p + S_i q̈_i
        k, p = dof[i], par[i]
        for r in range(6):
            for b in range(NB):
                acc[i, r, b] = acc[p, r, b]
        if k >= 0:
            for b in range(NB):
                c[b] = out[k, b]
            for r in range(6):
                s = U[i, r]
                for b in range(NB):
                    c[b] -= s * acc[i, r, b]
            d = Dinv[i]
            for b in range(NB):
                c[b] *= d
                out[k, b] = c[b]
            for r in range(6):
                s = Sw[i, r]
                for b in range(NB):
                    acc[i, r, b] += s * c[b]


def _wrenches(par, Iw, v, a, h, F):  # pragma: no cover - run compiled
    """F_i = Σ_{k ⪰ i} (I_k a_k + v_k ×_f h_k) (row n: the world's, unused)."""
    n = par.size
    for i in range(n + 1):
        for r in range(6):
            F[i, r] = 0.0
    for i in range(n):
        _mv(Iw, i, a, i, 1.0, F, i)
        _crf(v, i, h, i, 1.0, F, i)
    for i in range(n - 1, -1, -1):
        for r in range(6):
            F[par[i], r] += F[i, r]


def _aba_one(par, dof, Sw, U, Dinv, rhs, out, pp, acc):  # pragma: no cover - run compiled
    """``out = M⁻¹ rhs[:, 0]``: :func:`_aba_solve` for one column (``pp``, ``acc`` (n + 1,
    6) zero on entry)."""
    n = par.size
    for i in range(n - 1, -1, -1):
        k, p = dof[i], par[i]
        if k >= 0:
            s = rhs[k, 0] - _dot(Sw, i, pp, i)
            out[k] = s
            s *= Dinv[i]
            for r in range(6):
                pp[p, r] += pp[i, r] + U[i, r] * s
        else:
            for r in range(6):
                pp[p, r] += pp[i, r]
    for i in range(n):
        k, p = dof[i], par[i]
        for r in range(6):
            acc[i, r] = acc[p, r]
        if k >= 0:
            s = (out[k] - _dot(U, i, acc, i)) * Dinv[i]
            out[k] = s
            for r in range(6):
                acc[i, r] += Sw[i, r] * s


def _jacobians(ib, idof, fb, D, fd, gravity, x, u, qdd_in, J, xdot, dtau,
               mode):  # pragma: no cover - run compiled
    """The whole computation (module doc), for bodies in parents-first order.

    ``ib`` (n, 3): joint kind, parent, d.o.f. index (−1: weld) of each body; ``idof``
    (n_dof, 4): body, position and rate state index, input column (−1: not actuated) of each
    d.o.f.; ``fb`` (n, 21): ``S``, the joint frame ``P0`` (row-major), axis and offset;
    ``D`` (n, 6, 6) spatial inertias; ``fd`` (n_dof, 3): stiffness, damping, rest.
    ``mode`` 0: fills ``J = [A B]`` (zero on entry) and ``xdot``; ``mode`` 1: at the
    accelerations ``qdd_in``, fills ``dtau`` (8, n_dof, 6) with the d.o.f. vectors ``S``,
    ``α``, ``γ``, ``w``, ``u``, ``P``, ``Q`` and (column 0 of the last) ``τ_ID``.
    Returns the status: 0, or (mode 0) 1 when an entry of ``x`` or ``u`` is not finite
    (nothing computed) or one of ``J`` or ``ẋ`` is not (overflow)."""
    if mode == 0:  # a state or input not finite: status 1 (the caller's checks name it)
        z = 0.0
        for k in range(x.size):
            z += x[k] * 0.0
        for k in range(u.size):
            z += u[k] * 0.0
        if z != 0.0:
            return 1
    n, nd = ib.shape[0], idof.shape[0]
    kind, dof = ib[:, 0], ib[:, 2]
    qi, qdi = idof[:, 1], idof[:, 2]
    iw = np.empty(n + NB, np.int64)
    par, row = iw[:n], iw[n:]  # parents (the world: n), the columns of J of a block
    for i in range(n):  # the world is row n of the body arrays
        par[i] = ib[i, 1] if ib[i, 1] >= 0 else n
    sub = np.zeros(n, np.bool_)
    m1 = n + 1
    C, P, R, T = np.zeros((m1, 3, 3)), np.zeros((m1, 3)), np.zeros((3, 3)), np.zeros((6, 6))
    V = np.zeros((8, m1, 6))  # body 6-vectors (row n: the world)
    Sw, v, a, h, F, U, p1, a1 = V[0], V[1], V[2], V[3], V[4], V[5], V[6], V[7]
    W = np.zeros((4, m1, 6, 6))  # body 6 × 6 matrices
    Iw, Ic, Bc, IA = W[0], W[1], W[2], W[3]
    Dinv, qd, qdd, cw = np.zeros(m1), np.zeros(nd), np.zeros(nd), np.zeros(NB)
    G = np.zeros((7, nd, 6))  # d.o.f. 6-vectors
    Sd, al, ga, w, uu, Pv, Qv = G[0], G[1], G[2], G[3], G[4], G[5], G[6]
    rhs, sol = np.zeros((nd, NB)), np.zeros((nd, NB))
    pp, acc = np.zeros((m1, 6, NB)), np.zeros((m1, 6, NB))
    _poses(kind, par, dof, fb, x, qi, C, P, R)
    a[n, 0], a[n, 1], a[n, 2] = -gravity[0], -gravity[1], -gravity[2]  # the world's
    for k in range(nd):
        qd[k] = x[qdi[k]]
    for i in range(n):  # world motion subspaces, inertias, twists, bias accelerations
        _world(C, P, fb, D, i, Sw, Iw, T)
        p, k = par[i], dof[i]
        for r in range(6):
            v[i, r] = v[p, r] + (Sw[i, r] * qd[k] if k >= 0 else 0.0)
            a[i, r] = a[p, r]
        if k >= 0:
            _crm(v, i, Sw, i, qd[k], a, i)
        _mv(Iw, i, v, i, 1.0, h, i)
        for r in range(6):
            for c in range(6):
                Ic[i, r, c] = IA[i, r, c] = Iw[i, r, c]
    for i in range(n - 1, -1, -1):  # tips first: Ic, Bc (subtree sums), IA, U, 1/D
        _add_coriolis(Iw, v, h, i, Bc)
        p, k = par[i], dof[i]
        if k >= 0:
            _mv(IA, i, Sw, i, 1.0, U, i)
            Dinv[i] = 1.0 / _dot(Sw, i, U, i)
        if p < n:
            for r in range(6):
                for c in range(6):
                    Ic[p, r, c] += Ic[i, r, c]
                    Bc[p, r, c] += Bc[i, r, c]
                    IA[p, r, c] += IA[i, r, c] - (U[i, r] * U[i, c] * Dinv[i] if k >= 0
                                                  else 0.0)
    act = np.empty(nd, np.int64)  # the actuated d.o.f.
    n_act = 0
    for k in range(nd):
        if idof[k, 3] >= 0:
            act[n_act] = k
            n_act += 1
    if mode == 0:  # q̈ = M⁻¹ (τ_J − τ_ID(q̈ = 0)): the bias wrenches, then one solve
        _wrenches(par, Iw, v, a, h, F)
        for k in range(nd):
            bk, col = idof[k, 0], idof[k, 3]
            rhs[k, 0] = (-fd[k, 0] * (x[qi[k]] - fd[k, 2]) - fd[k, 1] * qd[k]
                         - _dot(Sw, bk, F, bk) + (u[col] if col >= 0 else 0.0))
        _aba_one(par, dof, Sw, U, Dinv, rhs, qdd, p1, a1)
        for k in range(nd):
            xdot[qi[k]] = qd[k]
            xdot[qdi[k]] = qdd[k]
    else:
        qdd[:] = qdd_in
    for i in range(n):  # the accelerations at q̈
        p, k = par[i], dof[i]
        for r in range(6):
            a[i, r] = a[p, r] + (Sw[i, r] * qdd[k] if k >= 0 else 0.0)
        if k >= 0:
            _crm(v, i, Sw, i, qd[k], a, i)
    _wrenches(par, Iw, v, a, h, F)
    # per d.o.f.: S, α, γ, w, u (the ancestor columns), P = Ic S, Q = Bcᵀ S (the subtree rows)
    for k in range(nd):
        i = idof[k, 0]
        p = par[i]
        for r in range(6):
            Sd[k, r] = Sw[i, r]
        _crm(Sd, k, v, p, 1.0, al, k)
        _crm(Sd, k, a, p, 1.0, ga, k)
        _crm(al, k, v, p, -1.0, ga, k)
        _crf(Sd, k, F, i, 1.0, w, k)
        _mv(Ic, i, ga, k, -1.0, w, k)
        _mv(Bc, i, al, k, -1.0, w, k)
        _mv(Bc, i, Sd, k, 1.0, uu, k)
        _mv(Ic, i, al, k, -2.0, uu, k)
        _mv(Ic, i, Sd, k, 1.0, Pv, k)
        _mtv(Bc, i, Sd, k, Qv, k)
    if mode == 1:  # the d.o.f. vectors and τ_ID (derivatives_kernel forms the matrices)
        for k in range(nd):
            dtau[:7, k, :] = G[:, k, :]
            dtau[7, k, 0] = _dot(Sd, k, F, idof[k, 0])
        return 0
    # mode 0: A's q̈ rows and B through M⁻¹, NB columns per solve: the pairs (q_j, q̇_j),
    # then the inputs
    n_x = x.size
    for k in range(nd):
        J[qi[k], qdi[k]] = 1.0
    nc = 2 * nd + n_act
    n_bad = 0  # entries of the q̈ rows of J that are not finite (v − v is not 0)
    for c0 in range(0, nc, NB):
        nb = min(NB, nc - c0)
        for b in range(NB):
            for k in range(nd):
                rhs[k, b] = 0.0
        for b in range(nb):
            c = c0 + b
            if c >= 2 * nd:  # an input: E_u
                m = act[c - 2 * nd]
                rhs[m, b] = 1.0
                row[b] = n_x + idof[m, 3]
                continue
            m, which = c // 2, c % 2
            bj = idof[m, 0]
            row[b] = qi[m] if which == 0 else qdi[m]
            if which == 0 or b == 0:  # the subtree of bj (parents first), kept for q̇_j
                for i in range(bj, n):
                    sub[i] = i == bj or (par[i] >= bj and par[i] < n and sub[par[i]])
            for i in range(bj, n):  # −∂τ_i/∂q_j or −∂τ_i/∂q̇_j on the subtree
                k = dof[i]
                if sub[i] and k >= 0:
                    s0 = 0.0
                    for r in range(6):
                        s0 += (Pv[k, r] * ga[m, r] + Qv[k, r] * al[m, r] if which == 0
                               else 2.0 * Pv[k, r] * al[m, r] - Qv[k, r] * Sd[m, r])
                    rhs[k, b] = s0
            j = par[bj]
            while j < n:  # its ancestors
                k = dof[j]
                if k >= 0:
                    s0 = 0.0
                    for r in range(6):
                        s0 -= Sd[k, r] * (w[m, r] if which == 0 else uu[m, r])
                    rhs[k, b] = s0
                j = par[j]
            rhs[m, b] -= fd[m, which]
        _aba_solve(par, dof, Sw, U, Dinv, rhs, sol, pp, acc, cw)
        for k in range(nd):  # the columns of a pair (q_j, q̇_j) are neighbours in J
            for b in range(nb):
                s0 = sol[k, b]
                J[qdi[k], row[b]] = s0
                n_bad += 0 if s0 - s0 == 0.0 else 1
    z = 0.0 if n_bad == 0 else 1.0  # status 0: J (its other entries 0, 1) and ẋ finite
    for r in range(n_x):
        z += xdot[r] * 0.0
    return 0 if z == 0.0 else 1


# inlined in numba's IR (no call, no reference counting of their array arguments): 20 %
# less time at N = 10, as fast at N = 100 to 1 000
_HELPERS = ("_crm", "_crf", "_mv", "_mtv", "_dot", "_poses", "_world", "_add_coriolis",
            "_aba_solve", "_aba_one", "_wrenches")


def compiled() -> Any:
    """The compiled :func:`_jacobians` (numba imported and the helpers compiled on first
    use, cached on disk; thread-safe).

    Returns
    -------
    numba dispatcher
    """
    fn = _KERNEL.get("jacobians")
    if fn is None:
        with _LOCK:
            fn = _KERNEL.get("jacobians")
            if fn is None:
                import numba  # heavy: imported on first use only

                for name in _HELPERS:  # the kernel calls the compiled helpers by name
                    globals()[name] = numba.njit(cache=True, nogil=True, inline="always")(
                        globals()[name])
                fn = numba.njit(cache=True, nogil=True)(_jacobians)
                _KERNEL["jacobians"] = fn
    return fn
