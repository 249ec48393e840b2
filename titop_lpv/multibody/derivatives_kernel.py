"""Analytic Jacobians of the forward dynamics of a tree of revolute, prismatic and weld
joints on a fixed base, compiled: the tangent sweep of the recursive Newton–Euler algorithm.

The forward dynamics solves ``τ_ID(q, q̇, q̈) = τ_J(q, q̇, u)``: the joint forces the
Newton–Euler recursion needs for the accelerations ``q̈`` equal the joint laws
``τ_J = −k (q − rest) − d q̇ + u`` (:func:`~titop_lpv.multibody.dynamics.joint_forces`). So

    ∂q̈/∂q = −M⁻¹ (∂τ_ID/∂q + diag k),   ∂q̈/∂q̇ = −M⁻¹ (∂τ_ID/∂q̇ + diag d),   ∂q̈/∂u = M⁻¹ E_u,

with ``M`` the mass matrix (composite rigid bodies) and the derivatives of ``τ_ID`` at fixed
``q̈`` from one forward-mode (tangent) sweep per joint coordinate, exact to rounding. In the
conventions of :func:`~titop_lpv.multibody.kinematics.kinematics` (twists ``[v; ω]`` at the body
origin, body frame; ``X_i`` the parent map of :func:`~titop_lpv.multibody.kinematics.parent_map`,
``S_i`` the motion subspace ``[0; r]`` or ``[t; 0]``; gravity as the acceleration ``[−g; 0]`` of
the world):

* ``v_i = X_i v_p + S_i q̇_i``, ``a_i = X_i a_p + S_i q̈_i + v_i ×ₘ S_i q̇_i``,
  ``f_i = D_i a_i + v_i ×_f D_i v_i``, ``F_i = f_i + Σ_c X_cᵀ F_c``, ``τ_i = S_iᵀ F_i``;
* ``∂X_i/∂q_i = −(S_i ×ₘ) X_i`` for both joint kinds, so along ``q_j`` the tangents are
  ``dv_i = X_i dv_p − [i = j] S_i ×ₘ X_i v_p``, ``da_i = X_i da_p − [i = j] S_i ×ₘ X_i a_p +
  dv_i ×ₘ S_i q̇_i``, ``df_i = D_i da_i + dv_i ×_f D_i v_i + v_i ×_f D_i dv_i``,
  ``dF_i = df_i + Σ_c X_cᵀ (dF_c + [c = j] S_c ×_f F_c)``; along ``q̇_j``: ``dv_j = S_j``,
  ``da_i`` gains ``[i = j] v_j ×ₘ S_j``.

A tangent is non-zero only on the subtree of ``j`` (and, for ``dF``, its ancestors): each
sweep visits those bodies, then reaches the ancestors' joint forces through ``ψ_k⁽ʲ⁾ = X_{j←k}
S_k`` (each ancestor's motion subspace in body ``j``'s frame, built once): a chain costs O(N²),
a wide tree less. Checked against the complex-step Jacobians and Pinocchio's
``computeABADerivatives`` (``tests/test_derivatives_kernel.py``).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import numpy as np

from . import kernel_ready
from .dynamics import forward_dynamics
from .joints import PRISMATIC, REVOLUTE, WELD
from .tables import Physics
from .tree import Tree

__all__ = ["analytic_jacobians", "eligible", "forward_jacobians", "load_cached", "ready",
           "tangent_sweep"]

_KERNEL: dict[str, Any] = {}
_LOCK = threading.Lock()


def eligible(model: Tree) -> bool:
    """Whether the model is a fixed-base tree of revolute, prismatic and weld joints whose only
    loads are gravity and the joint laws (no load, wrench input, loop or driven joint).

    Parameters
    ----------
    model : Tree
        The compiled model.

    Returns
    -------
    bool
    """
    kinds = np.asarray(model.kind)
    return bool(kinds.size and not model.floating_base
                and np.all(np.isin(kinds, (REVOLUTE, PRISMATIC, WELD)))
                and model.loads.kind.size == 0 and model.wrench_inputs.body.size == 0
                and model.loops.a.size == 0 and np.all(np.asarray(model.qdd_column) < 0))


def _xmot(R, off, sh, y, out):  # pragma: no cover - run compiled
    """Out = X y."""
    yv0, yv1, yv2, yw0, yw1, yw2 = y[0], y[1], y[2], y[3], y[4], y[5]
    t0 = yv0 + yw1 * off[2] - yw2 * off[1]
    t1 = yv1 + yw2 * off[0] - yw0 * off[2]
    t2 = yv2 + yw0 * off[1] - yw1 * off[0]
    w0 = R[0, 0] * yw0 + R[0, 1] * yw1 + R[0, 2] * yw2
    w1 = R[1, 0] * yw0 + R[1, 1] * yw1 + R[1, 2] * yw2
    w2 = R[2, 0] * yw0 + R[2, 1] * yw1 + R[2, 2] * yw2
    out[0] = R[0, 0] * t0 + R[0, 1] * t1 + R[0, 2] * t2 - (sh[1] * w2 - sh[2] * w1)
    out[1] = R[1, 0] * t0 + R[1, 1] * t1 + R[1, 2] * t2 - (sh[2] * w0 - sh[0] * w2)
    out[2] = R[2, 0] * t0 + R[2, 1] * t1 + R[2, 2] * t2 - (sh[0] * w1 - sh[1] * w0)
    out[3], out[4], out[5] = w0, w1, w2


def _xforce_t(R, off, sh, f, out):  # pragma: no cover - run compiled
    """Out += Xᵀ f (child wrench to the parent origin)."""
    fF0, fF1, fF2 = f[0], f[1], f[2]
    g0 = f[3] + sh[1] * fF2 - sh[2] * fF1
    g1 = f[4] + sh[2] * fF0 - sh[0] * fF2
    g2 = f[5] + sh[0] * fF1 - sh[1] * fF0
    F0 = R[0, 0] * fF0 + R[1, 0] * fF1 + R[2, 0] * fF2
    F1 = R[0, 1] * fF0 + R[1, 1] * fF1 + R[2, 1] * fF2
    F2 = R[0, 2] * fF0 + R[1, 2] * fF1 + R[2, 2] * fF2
    out[0] += F0
    out[1] += F1
    out[2] += F2
    out[3] += off[1] * F2 - off[2] * F1 + R[0, 0] * g0 + R[1, 0] * g1 + R[2, 0] * g2
    out[4] += off[2] * F0 - off[0] * F2 + R[0, 1] * g0 + R[1, 1] * g1 + R[2, 1] * g2
    out[5] += off[0] * F1 - off[1] * F0 + R[0, 2] * g0 + R[1, 2] * g1 + R[2, 2] * g2


def _crm(s, y, c, out):  # pragma: no cover - run compiled
    """Out += c (s ×ₘ y) = c [s_ω × y_v + s_v × y_ω; s_ω × y_ω]."""
    out[0] += c * (s[4] * y[2] - s[5] * y[1] + s[1] * y[5] - s[2] * y[4])
    out[1] += c * (s[5] * y[0] - s[3] * y[2] + s[2] * y[3] - s[0] * y[5])
    out[2] += c * (s[3] * y[1] - s[4] * y[0] + s[0] * y[4] - s[1] * y[3])
    out[3] += c * (s[4] * y[5] - s[5] * y[4])
    out[4] += c * (s[5] * y[3] - s[3] * y[5])
    out[5] += c * (s[3] * y[4] - s[4] * y[3])


def _crf(s, h, out):  # pragma: no cover - run compiled
    """Out += s ×_f h = [s_ω × h_F; s_v × h_F + s_ω × h_T]."""
    out[0] += s[4] * h[2] - s[5] * h[1]
    out[1] += s[5] * h[0] - s[3] * h[2]
    out[2] += s[3] * h[1] - s[4] * h[0]
    out[3] += s[1] * h[2] - s[2] * h[1] + s[4] * h[5] - s[5] * h[4]
    out[4] += s[2] * h[0] - s[0] * h[2] + s[5] * h[3] - s[3] * h[5]
    out[5] += s[0] * h[1] - s[1] * h[0] + s[3] * h[4] - s[4] * h[3]


def _matvec6(Dm, y, out):  # pragma: no cover - run compiled
    """Out += D y."""
    for r in range(6):
        acc = 0.0
        for c in range(6):
            acc += Dm[r, c] * y[c]
        out[r] += acc


def _sweep(kind, parent, dof, S, R0, ax, q, off, D, gravity, qd, qdd, dtau_dq, dtau_dqd,
           M):  # pragma: no cover - run compiled
    """Forward and backward sweeps, ``M`` (composite rigid bodies), ``ψ`` and the tangent
    sweeps (module doc); fills ``dtau_dq``, ``dtau_dqd``, ``M`` and returns ``τ_ID``."""
    n = kind.size
    nd = dtau_dq.shape[0]
    # R_i = P_{a/b}ᵀ (parent → child) and the prismatic shift q t: P = P0 E(r, q) for a
    # revolute joint, E = I + sin q (*r) + (1 − cos q) (*r)², P0 otherwise
    R = np.empty((n, 3, 3))
    sh = np.zeros((n, 3))
    E = np.empty((3, 3))
    for i in range(n):
        if kind[i] == 2:  # revolute
            s_, c_ = np.sin(q[i]), 1.0 - np.cos(q[i])
            a0, a1, a2 = ax[i, 0], ax[i, 1], ax[i, 2]
            E[0, 0] = 1.0 + c_ * (a0 * a0 - 1.0)
            E[1, 1] = 1.0 + c_ * (a1 * a1 - 1.0)
            E[2, 2] = 1.0 + c_ * (a2 * a2 - 1.0)
            E[0, 1] = -s_ * a2 + c_ * a0 * a1
            E[1, 0] = s_ * a2 + c_ * a0 * a1
            E[0, 2] = s_ * a1 + c_ * a0 * a2
            E[2, 0] = -s_ * a1 + c_ * a0 * a2
            E[1, 2] = -s_ * a0 + c_ * a1 * a2
            E[2, 1] = s_ * a0 + c_ * a1 * a2
            for r in range(3):
                for c in range(3):
                    R[i, c, r] = R0[i, r, 0] * E[0, c] + R0[i, r, 1] * E[1, c] + \
                        R0[i, r, 2] * E[2, c]
        else:
            for r in range(3):
                for c in range(3):
                    R[i, c, r] = R0[i, r, c]
            if kind[i] == 3:  # prismatic
                for r in range(3):
                    sh[i, r] = q[i] * ax[i, r]
    v = np.zeros((n, 6))
    a = np.zeros((n, 6))
    Xv = np.zeros((n, 6))  # X_i v_p and X_i a_p (the j = i terms)
    Xa = np.zeros((n, 6))
    F = np.zeros((n, 6))
    Dv = np.zeros((n, 6))
    a_world = np.zeros(6)
    a_world[0], a_world[1], a_world[2] = -gravity[0], -gravity[1], -gravity[2]
    zero = np.zeros(6)
    for i in range(n):  # parents first
        p = parent[i]
        _xmot(R[i], off[i], sh[i], v[p] if p >= 0 else zero, Xv[i])
        _xmot(R[i], off[i], sh[i], a[p] if p >= 0 else a_world, Xa[i])
        k = dof[i]
        for r in range(6):
            v[i, r] = Xv[i, r]
            a[i, r] = Xa[i, r]
        if k >= 0:
            for r in range(6):
                v[i, r] += S[i, r] * qd[k]
                a[i, r] += S[i, r] * qdd[k]
            _crm(v[i], S[i], qd[k], a[i])
        _matvec6(D[i], v[i], Dv[i])
        _matvec6(D[i], a[i], F[i])
        _crf(v[i], Dv[i], F[i])
    for i in range(n - 1, -1, -1):  # tips first: F_p += X_iᵀ F_i
        p = parent[i]
        if p >= 0:
            _xforce_t(R[i], off[i], sh[i], F[i], F[p])
    # ψ: every ancestor's motion subspace carried into each body's frame,
    # ψ_k⁽ⁱ⁾ = X_{i←k} S_k (k an ancestor of i with a d.o.f.), stored per body along its
    # path to the root: force at i to joint force of k is ψ_k⁽ⁱ⁾ · f
    depth = np.zeros(n, np.int64)
    for i in range(n):
        p = parent[i]
        depth[i] = 0 if p < 0 else depth[p] + (1 if dof[p] >= 0 else 0)
    start = np.zeros(n + 1, np.int64)
    for i in range(n):
        start[i + 1] = start[i] + depth[i]
    psi = np.zeros((start[n], 6))
    psi_dof = np.zeros(start[n], np.int64)
    for i in range(n):
        p = parent[i]
        if p < 0:
            continue
        m = start[i]
        for e in range(start[p], start[p + 1]):  # the parent's ancestors, one frame on
            _xmot(R[i], off[i], sh[i], psi[e], psi[m])
            psi_dof[m] = psi_dof[e]
            m += 1
        if dof[p] >= 0:
            _xmot(R[i], off[i], sh[i], S[p], psi[m])
            psi_dof[m] = dof[p]
    # composite inertias and the mass matrix: M_ki = ψ_k⁽ⁱ⁾ · (Ic_i S_i)
    Ic = D.copy()
    col = np.zeros(6)
    t = np.zeros(6)
    e6 = np.zeros(6)
    XI = np.zeros((6, 6))
    for i in range(n - 1, -1, -1):
        p = parent[i]
        if p < 0:
            continue
        for c in range(6):  # column c of X_iᵀ Ic_i X_i
            for r in range(6):
                e6[r] = 0.0
                t[r] = 0.0
            e6[c] = 1.0
            _xmot(R[i], off[i], sh[i], e6, col)
            _matvec6(Ic[i], col, t)
            for r in range(6):
                col[r] = 0.0
            _xforce_t(R[i], off[i], sh[i], t, col)
            for r in range(6):
                XI[r, c] = col[r]
        for r in range(6):
            for c in range(6):
                Ic[p, r, c] += XI[r, c]
    for i in range(n):
        k = dof[i]
        if k < 0:
            continue
        for r in range(6):
            t[r] = 0.0
        _matvec6(Ic[i], S[i], t)
        M[k, k] = S[i] @ t
        for e in range(start[i], start[i + 1]):
            M[psi_dof[e], k] = psi[e] @ t
            M[k, psi_dof[e]] = M[psi_dof[e], k]
    # tangent sweeps, one per coordinate: along q_j (which = 0) and q̇_j (which = 1);
    # forward and backward over the subtree of j, then the ancestors through ψ
    dv = np.zeros((n, 6))
    da = np.zeros((n, 6))
    dF = np.zeros((n, 6))
    mark = np.zeros(n, np.bool_)
    tmp = np.zeros(6)
    for bj in range(n):
        kj = dof[bj]
        if kj < 0:
            continue
        for i in range(bj, n):
            mark[i] = i == bj or (parent[i] >= bj and mark[parent[i]])
        for which in range(2):
            for i in range(bj, n):
                if not mark[i]:
                    continue
                p = parent[i]
                for r in range(6):
                    dv[i, r] = 0.0
                    da[i, r] = 0.0
                    dF[i, r] = 0.0
                if i != bj:
                    _xmot(R[i], off[i], sh[i], dv[p], dv[i])
                    _xmot(R[i], off[i], sh[i], da[p], da[i])
                elif which == 0:
                    _crm(S[i], Xv[i], -1.0, dv[i])
                    _crm(S[i], Xa[i], -1.0, da[i])
                else:
                    for r in range(6):
                        dv[i, r] = S[i, r]
                    _crm(v[i], S[i], 1.0, da[i])
                k = dof[i]
                if k >= 0:
                    _crm(dv[i], S[i], qd[k], da[i])
                _matvec6(D[i], da[i], dF[i])
                _crf(dv[i], Dv[i], dF[i])
                for r in range(6):
                    tmp[r] = 0.0
                _matvec6(D[i], dv[i], tmp)
                _crf(v[i], tmp, dF[i])
            for i in range(n - 1, bj, -1):  # the subtree, tips first
                if mark[i]:
                    _xforce_t(R[i], off[i], sh[i], dF[i], dF[parent[i]])
            out = dtau_dq if which == 0 else dtau_dqd
            for i in range(bj, n):
                if mark[i] and dof[i] >= 0:
                    out[dof[i], kj] = S[i] @ dF[i]
            # the ancestors see dF_j (+ S_j ×_f F_j along q_j, from ∂X_jᵀ/∂q_j)
            for r in range(6):
                tmp[r] = dF[bj, r]
            if which == 0:
                _crf(S[bj], F[bj], tmp)
            for e in range(start[bj], start[bj + 1]):
                out[psi_dof[e], kj] = psi[e] @ tmp
    tau = np.zeros(nd)
    for i in range(n):
        if dof[i] >= 0:
            tau[dof[i]] = S[i] @ F[i]
    return tau


_HELPERS = ("_xmot", "_xforce_t", "_crm", "_crf", "_matvec6")


def _compile() -> Any:
    """The compiled :func:`_sweep` (numba imported and the helpers compiled on first use,
    cached on disk; thread-safe)."""
    fn = _KERNEL.get("sweep")
    if fn is None:
        with _LOCK:
            fn = _KERNEL.get("sweep")
            if fn is None:
                import numba  # heavy: imported on first use only

                for name in _HELPERS:  # the sweep calls the compiled helpers by name
                    globals()[name] = numba.njit(cache=True, nogil=True)(globals()[name])
                fn = numba.njit(cache=True, nogil=True)(_sweep)
                _KERNEL["sweep"] = fn
    return fn


def ready(n_bodies: int) -> bool:
    """Whether :func:`forward_jacobians` should run now (else the caller takes the
    complex-step route through the forward-dynamics kernel).

    The sweep is compiled once (20 s on a loaded 2-core machine) and cached on disk. Under
    the compile policy of :mod:`~titop_lpv.multibody.kernel_ready` it runs when it is
    compiled in this process or found in the disk cache, when the policy is ``"wait"``, or
    for a model of more than :data:`~titop_lpv.multibody.kernel_ready.BACKGROUND_BODIES`
    bodies (where the complex-step route costs more than the compilation).

    Parameters
    ----------
    n_bodies : int
        Bodies of the model.

    Returns
    -------
    bool
    """
    if _KERNEL.get("loaded"):
        return True
    if kernel_ready.policy() == "wait" or n_bodies > kernel_ready.BACKGROUND_BODIES:
        return True
    if "probed" not in _KERNEL:  # one look at the disk cache per process
        _KERNEL["probed"] = True
        _KERNEL["loaded"] = load_cached()
    return bool(_KERNEL["loaded"])


def load_cached() -> bool:
    """Make the sweep ready without compiling it, if possible.

    Returns
    -------
    bool
        True when its one specialisation is compiled in this process or was found in
        numba's disk cache (and is now loaded); False when only compiling it would.
    """
    import numba

    fn = _compile()
    i1, f1, f2, f3 = (np.zeros(1, np.int64), np.zeros((1, 6)), np.zeros((1, 3)),
                      np.zeros((1, 6, 6)))
    args = (i1, i1, i1, f1, np.zeros((1, 3, 3)), f2, np.zeros(1), f2, f3, np.zeros(3),
            np.zeros(1), np.zeros(1), np.zeros((1, 1)), np.zeros((1, 1)), np.zeros((1, 1)))
    sig = tuple(numba.typeof(a) for a in args)
    if sig in fn.overloads:
        return True
    cache = getattr(fn, "_cache", None)
    if cache is None or cache.load_overload(sig, fn.targetctx) is None:
        return False
    fn.compile(sig)  # a cache hit: loads it
    _KERNEL["loaded"] = True
    return True


def _constants(model: Tree, ph: Physics) -> tuple[Any, ...]:
    """The sweep's model arguments for one :class:`Physics` (writable C copies: one
    signature), then the d.o.f. bodies and their position and rate state indices."""
    def c(a: Any, dtype: Any = float) -> np.ndarray:
        return np.array(a, dtype=dtype, order="C")

    kind = c(model.kind, np.int64)
    dofs = np.flatnonzero((kind == REVOLUTE) | (kind == PRISMATIC))
    dof = np.full(kind.size, -1, dtype=np.int64)
    dof[dofs] = np.arange(dofs.size)
    return (kind, c(model.parent, np.int64), dof, c(ph.S), c(ph.rot), c(ph.axis),
            c(ph.offset), c(ph.D), c(ph.gravity), dofs,
            np.asarray(model.q_index)[dofs], np.asarray(model.qd_index)[dofs])


def tangent_sweep(model: Tree, ph: Physics, x: np.ndarray, qdd: np.ndarray
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``τ_ID``, ``∂τ_ID/∂q``, ``∂τ_ID/∂q̇`` (at fixed ``q̈``) and the mass matrix ``M``.

    Parameters
    ----------
    model : Tree
        A model for which :func:`eligible` holds.
    ph : Physics
        Its physical data for one real parameter vector.
    x : ndarray (n_states,)
        Real state, in ``model.state_names`` order.
    qdd : ndarray (n_dof,)
        Joint accelerations [rad/s² or m/s²], in the order of ``dofs`` below.

    Returns
    -------
    tau, dtau_dq, dtau_dqd, M : ndarray
        ``(n_dof,)``, ``(n_dof, n_dof)`` ×3, in the order of the one-d.o.f. bodies.
    dofs : ndarray of int
        The bodies of the one-d.o.f. joints (row/column order of the matrices).
    """
    const = model.memo("tangent_sweep", ph, lambda: _constants(model, ph))
    dof, dofs, qi, qdi = const[2], const[-3], const[-2], const[-1]
    nd = dofs.size
    dq, dqd, M = np.zeros((nd, nd)), np.zeros((nd, nd)), np.zeros((nd, nd))
    q = np.zeros(dof.size)
    q[dofs] = x[qi]
    args = (*const[:6], q, *const[6:9], np.array(x[qdi], dtype=float),
            np.array(qdd, dtype=float), dq, dqd, M)
    _KERNEL["loaded"] = True  # this call compiles it if need be
    entry = _KERNEL.get("entry")
    if entry is not None:  # the one specialisation, without numba's type dispatch (~30 µs)
        return entry(*args), dq, dqd, M, dofs
    fn = _compile()
    tau = fn(*args)
    overloads = list(getattr(fn, "overloads", {}).values())
    if len(overloads) == 1:  # every call passes the same types (writable C arrays)
        _KERNEL["entry"] = getattr(overloads[0], "entry_point", None)
    return tau, dq, dqd, M, dofs


def _index(model: Tree, ph: Physics | None = None) -> tuple[Any, ...]:
    """Position and rate state indices of the d.o.f. (sweep order), the actuated d.o.f. and
    their input columns; with ``ph``, also the joints' stiffness and damping."""
    def build() -> tuple[Any, ...]:
        kind = np.asarray(model.kind)
        dofs = np.flatnonzero((kind == REVOLUTE) | (kind == PRISMATIC))
        cols = np.asarray(model.tau_column)[dofs]
        act = np.flatnonzero(cols >= 0)
        qi, qdi = np.asarray(model.q_index)[dofs], np.asarray(model.qd_index)[dofs]
        return qi, qdi, act, cols[act], np.ix_(qdi, qi), np.ix_(qdi, qdi), dofs

    index = model.memo("tangent_sweep_index", None, build)
    if ph is None:
        return index
    dofs = index[-1]
    return (*index[:6], np.asarray(ph.k, dtype=float)[dofs], np.asarray(ph.d, dtype=float)[dofs])


def forward_jacobians(model: Tree, ph: Physics, x: np.ndarray, u: np.ndarray,
                      xdot: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``A = ∂ẋ/∂x`` and ``B = ∂ẋ/∂u`` of an :func:`eligible` model, analytically.

    Parameters
    ----------
    model : Tree
        A model for which :func:`eligible` holds.
    ph : Physics
        Its physical data for one real parameter vector.
    x : ndarray (n_states,)
        Real state.
    u : ndarray (n_inputs,)
        Real input (the joint torques and forces ``<body>_tau``).
    xdot : ndarray (n_states,)
        ``ẋ`` at ``(x, u)`` (its ``q̈`` rows are held fixed by the tangent sweep).

    Returns
    -------
    A, B : ndarray
        ``(n_states, n_states)`` and ``(n_states, n_inputs)``.
    """
    from scipy.linalg import cho_factor, cho_solve

    _, dq, dqd, M, dofs = tangent_sweep(model, ph, x, xdot[_index(model)[1]])
    qi, qdi, act, cols, rows_q, rows_qd, k, d = _index(model, ph)
    nd, n_x, n_u = dofs.size, x.size, u.size
    rhs = np.zeros((nd, 2 * nd + n_u))
    rhs[:, :nd] = dq
    rhs[:, nd:2 * nd] = dqd
    diag = np.arange(nd)
    rhs[diag, diag] += k
    rhs[diag, nd + diag] += d
    rhs[:, :2 * nd] *= -1.0
    rhs[act, 2 * nd + cols] = 1.0
    # M is symmetric positive definite: Cholesky for large trees; below, LAPACK's general
    # solver through numpy costs less call overhead than scipy's two calls
    sol = cho_solve(cho_factor(M), rhs) if nd >= 64 else np.linalg.solve(M, rhs)
    A = np.zeros((n_x, n_x))
    A[qi, qdi] = 1.0
    A[rows_q] = sol[:, :nd]
    A[rows_qd] = sol[:, nd:2 * nd]
    B = np.zeros((n_x, n_u))
    B[qdi] = sol[:, 2 * nd:]
    return A, B


def analytic_jacobians(model: Tree, x: np.ndarray, u: np.ndarray, p: np.ndarray,
                       dynamics: Callable[[], np.ndarray] | None = None
                       ) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """``(A, B, ẋ)`` by the tangent sweep when the model is :func:`eligible` and the sweep
    :func:`ready`, else None (the caller takes the complex-step route).

    Parameters
    ----------
    model : Tree
        The compiled model.
    x : ndarray (n_states,)
        Real state.
    u : ndarray (n_inputs,)
        Real input.
    p : ndarray (n_params,)
        Real parameter vector.
    dynamics : callable, optional
        Returns ``ẋ`` at ``(x, u, p)`` (e.g. the model's one-state route); called only when
        the sweep runs. Default: :func:`~titop_lpv.multibody.dynamics.forward_dynamics`.

    Returns
    -------
    tuple of ndarray or None
        ``A`` (n_states, n_states), ``B`` (n_states, n_inputs) and ``ẋ`` (n_states,).
    """
    ok = model.memo("analytic_jacobians", None, lambda: eligible(model))
    if not ok or not ready(len(model.body_names)):
        return None
    xdot = np.asarray(forward_dynamics(model, x, u, p) if dynamics is None else dynamics(),
                      dtype=float)
    A, B = forward_jacobians(model, model.physics(p), x, u, xdot)
    return A, B, xdot
