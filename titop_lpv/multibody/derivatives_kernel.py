"""Analytic Jacobians of the forward dynamics of a tree of revolute, prismatic and weld
joints on a fixed base, compiled: derivatives of the recursive Newton–Euler algorithm.

The forward dynamics solves ``τ_ID(q, q̇, q̈) = τ_J(q, q̇, u)``: the joint forces the
Newton–Euler recursion needs for the accelerations ``q̈`` equal the joint laws
``τ_J = −k (q − rest) − d q̇ + u`` (:func:`~titop_lpv.multibody.dynamics.joint_forces`). So

    ∂q̈/∂q = −M⁻¹ (∂τ_ID/∂q + diag k),   ∂q̈/∂q̇ = −M⁻¹ (∂τ_ID/∂q̇ + diag d),   ∂q̈/∂u = M⁻¹ E_u,

with ``M`` the mass matrix. One compiled call (:mod:`~titop_lpv.multibody.derivatives_sweep`)
gives ``ẋ`` and ``[A B]``. Every quantity is carried in the world frame at the world origin
(twists ``[v; ω]``, wrenches ``[F; T]``), where a body's perturbation is a rigid motion of its
subtree. With ``S_i`` the
world motion subspace of joint ``i``, ``v_i``, ``a_i`` the body twist and (spatial)
acceleration (``a`` of the world: ``[−g; 0]``), ``I_i`` the world inertia, ``h_i = I_i v_i``,
``f_i = I_i a_i + v_i ×_f h_i``, ``F_i = Σ_{k ⪰ i} f_k`` and ``τ_i = S_i · F_i``:

* ``v_i = v_p + S_i q̇_i``, ``a_i = a_p + S_i q̈_i + v_i ×ₘ S_i q̇_i``;
* along ``q_j`` the subtree of ``j`` turns rigidly about ``S_j`` while ``v_p``, ``a_p`` of its
  parent ``p`` stay: with ``α_j = S_j ×ₘ v_p`` and ``γ_j = S_j ×ₘ a_p − α_j ×ₘ v_p``, each
  ``f_k`` (``k ⪰ j``) turns with it less its response ``I_k γ_j + L_k α_j`` to the parent's
  twist and acceleration not turning, ``L_k α = I_k (α ×ₘ v_k) + α ×_f h_k + v_k ×_f I_k α``;
  so ``∂τ_i/∂q_j = −P_i · γ_j − Q_i · α_j`` for ``j ⪯ i`` (``P_i = Ic_i S_i``,
  ``Q_i = Bc_iᵀ S_i``, ``Ic``, ``Bc`` the subtree sums of ``I`` and ``L``), and
  ``S_i · w_j`` for ``i ≺ j`` (``w_j = S_j ×_f F_j − Ic_j γ_j − Bc_j α_j``);
* along ``q̇_j``: ``dv_k = S_j``, ``da_k = S_j ×ₘ v_k − 2 α_j``, so ``∂τ_i/∂q̇_j =
  Q_i · S_j − 2 P_i · α_j`` (``j ⪯ i``) and ``S_i · (Bc_j S_j − 2 Ic_j α_j)`` (``i ≺ j``);
* the mass matrix ``M_ij = P_i · S_j`` (``j ⪯ i``), and ``M⁻¹`` applied to a column of joint
  forces by the articulated-body recursion (world articulated inertias ``IA``, O(n) per
  column): ``q̈ = M⁻¹ (τ_J − τ_ID(q̈ = 0))``, ``A``'s ``q̈`` rows ``−M⁻¹ (∂τ_ID/∂(q, q̇) +
  diag(k, d))`` and ``B``'s ``M⁻¹ E_u``.

A chain of N joints costs O(N²) dot products of 6-vectors and O(N²) steps of the
articulated-body recursion (blocks of columns), a wide tree less; no dense O(N³) solve, no
mass matrix, memory O(N) besides ``[A B]`` itself. Exact to rounding: checked against the
complex-step Jacobians, the forward dynamics and Pinocchio's ``computeABADerivatives``
(``tests/test_derivatives_kernel.py``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import kernel_ready
from .derivatives_sweep import compiled
from .joints import PRISMATIC, REVOLUTE, WELD
from .tables import Physics
from .tree import Tree

__all__ = ["eligible", "entry_point", "forward_jacobians", "jacobian_matrix", "load_cached",
           "ready", "tangent_sweep"]

_KERNEL: dict[str, Any] = {}


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


def ready(n_bodies: int) -> bool:
    """Whether the compiled Jacobians should run now (else the caller takes the complex-step
    route through the forward-dynamics kernel).

    The kernel is compiled once (about 20 s on a loaded 2-core machine) and cached on disk.
    Under the compile policy of :mod:`~titop_lpv.multibody.kernel_ready` it runs when it is
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


def _signature_args() -> tuple[Any, ...]:
    """Arguments with the types of every call (the kernel's one specialisation)."""
    i2, f1 = np.zeros((1, 4), np.int64), np.zeros(1)
    return (np.zeros((1, 3), np.int64), i2, np.zeros((1, 21)), np.zeros((1, 6, 6)),
            np.zeros((1, 3)), np.zeros(3), np.zeros(2), f1, f1, np.zeros((2, 2)), np.zeros(2),
            np.zeros((4, 1, 1)), 0)


def load_cached() -> bool:
    """Make the kernel ready without compiling it, if possible.

    Returns
    -------
    bool
        True when its one specialisation is compiled in this process or was found in
        numba's disk cache (and is now loaded); False when only compiling it would.
    """
    import numba

    fn = compiled()
    sig = tuple(numba.typeof(a) for a in _signature_args())
    if sig in fn.overloads:
        return True
    cache = getattr(fn, "_cache", None)
    if cache is None or cache.load_overload(sig, fn.targetctx) is None:
        return False
    fn.compile(sig)  # a cache hit: loads it
    _KERNEL["loaded"] = True
    return True


def _constants(model: Tree, ph: Physics) -> tuple[Any, ...]:
    """The kernel's model arguments for one :class:`Physics` (writable C arrays: one
    signature), then the d.o.f. bodies and their position and rate state indices."""
    kind = np.asarray(model.kind, dtype=np.int64)
    dofs = np.flatnonzero((kind == REVOLUTE) | (kind == PRISMATIC))
    dof = np.full(kind.size, -1, dtype=np.int64)
    dof[dofs] = np.arange(dofs.size)
    ib = np.ascontiguousarray(np.stack([kind, np.asarray(model.parent, np.int64), dof], 1))
    qi, qdi = np.asarray(model.q_index)[dofs], np.asarray(model.qd_index)[dofs]
    idof = np.ascontiguousarray(np.stack([dofs, qi, qdi, np.asarray(model.tau_column)[dofs]],
                                         1).astype(np.int64))
    n = kind.size
    fb = np.concatenate([np.asarray(ph.S, float).reshape(n, 6),
                         np.asarray(ph.rot, float).reshape(n, 9),
                         np.asarray(ph.axis, float).reshape(n, 3),
                         np.asarray(ph.offset, float).reshape(n, 3)], 1)
    fd = np.stack([np.asarray(ph.k, float)[dofs], np.asarray(ph.d, float)[dofs],
                   np.asarray(ph.rest, float)[dofs]], 1)
    return (ib, idof, np.ascontiguousarray(fb), np.array(ph.D, dtype=float, order="C"),
            np.ascontiguousarray(fd), np.array(ph.gravity, dtype=float, order="C"), dofs)


def _run(args: tuple[Any, ...]) -> None:
    """Call the kernel (its one specialisation without numba's type dispatch, once known)."""
    _KERNEL["loaded"] = True  # this call compiles it if need be
    entry = _KERNEL.get("entry")
    if entry is not None:
        entry(*args)
        return
    fn = compiled()
    fn(*args)
    overloads = list(getattr(fn, "overloads", {}).values())
    if len(overloads) == 1:  # every call passes the same types (writable C arrays)
        _KERNEL["entry"] = getattr(overloads[0], "entry_point", None)


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
    const = model.memo("derivatives_kernel", ph, lambda: _constants(model, ph))
    dofs = const[-1]
    nd = dofs.size
    out = np.zeros((8, nd, 6))
    _run((*const[:-1], np.array(x, dtype=float), np.zeros(0), np.array(qdd, dtype=float),
          np.zeros((0, 0)), np.zeros(0), out, 1))
    S, al, ga, w, uu, P, Q = out[:7]
    # j ⪯ i (the body of d.o.f. j is the body of i or one of its ancestors): row i, column j
    anc = model.memo("derivatives_ancestors", None, lambda: _ancestors(model, dofs))
    low_q, low_qd, low_m = -(P @ ga.T + Q @ al.T), Q @ S.T - 2.0 * P @ al.T, P @ S.T
    dq = np.where(anc, low_q, np.where(anc.T, S @ w.T, 0.0))
    dqd = np.where(anc, low_qd, np.where(anc.T, S @ uu.T, 0.0))
    M = np.where(anc, low_m, np.where(anc.T, low_m.T, 0.0))
    return out[7, :, 0].copy(), dq, dqd, M, dofs


def _ancestors(model: Tree, dofs: np.ndarray) -> np.ndarray:
    """``anc[i, j]``: the body of d.o.f. ``j`` is the body of d.o.f. ``i`` or an ancestor."""
    parent = np.asarray(model.parent)
    index = {int(b): k for k, b in enumerate(dofs)}
    anc = np.zeros((dofs.size, dofs.size), dtype=bool)
    for i, b in enumerate(dofs):
        while b >= 0:
            if int(b) in index:
                anc[i, index[int(b)]] = True
            b = parent[b]
    return anc


def forward_jacobians(model: Tree, ph: Physics, x: np.ndarray, u: np.ndarray
                      ) -> tuple[np.ndarray, np.ndarray]:
    """``J = [A B]`` (``A = ∂ẋ/∂x``, ``B = ∂ẋ/∂u``) and ``ẋ`` of an :func:`eligible` model,
    analytically, in one compiled call.

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

    Returns
    -------
    J : ndarray (n_states, n_states + n_inputs)
        ``[A B]``.
    xdot : ndarray (n_states,)
        ``ẋ`` at ``(x, u)``.
    """
    const = model.memo("derivatives_kernel", ph, lambda: _constants(model, ph))
    n_x = x.size
    J = np.zeros((n_x, n_x + u.size))
    xdot = np.zeros(n_x)
    _run((*const[:-1], np.array(x, dtype=float), np.array(u, dtype=float), xdot, J, xdot,
          _NO_DTAU, 0))
    return J, xdot


_NO_DTAU = np.zeros((4, 1, 1))


def entry_point(model: Tree, ph: Physics) -> tuple[Any, tuple[Any, ...]] | None:
    """The kernel's compiled entry point and its model arguments for one :class:`Physics`,
    for a caller that runs it directly (:mod:`~titop_lpv.multibody.derivatives_call`).

    ``entry(*args, x, u, xdot, J, xdot, dtau, 0)`` fills ``J = [A B]`` (zero on entry) and
    ``ẋ`` and returns the status (0: every entry of ``x``, ``u``, ``J`` and ``ẋ`` finite).
    The entry point does not check types: ``x``, ``u`` and ``xdot`` must be C-contiguous,
    aligned, writable 1-D float64 arrays, ``J`` 2-D and ``dtau`` 3-D ones.

    Parameters
    ----------
    model : Tree
        A model for which :func:`eligible` holds.
    ph : Physics
        Its physical data for one real parameter vector.

    Returns
    -------
    (callable, tuple) or None
        The entry point and the model arguments (read only by the kernel; they must not be
        written), or None while the kernel is not :func:`ready`.
    """
    if not ready(len(model.body_names)):
        return None
    const = model.memo("derivatives_kernel", ph, lambda: _constants(model, ph))
    args = tuple(const[:-1])
    if _KERNEL.get("entry") is None:  # one call compiles or loads it, and finds its entry
        n_x, n_u = model.n_states, model.n_inputs
        J = np.zeros((n_x, n_x + n_u))
        _run((*args, np.zeros(n_x), np.zeros(n_u), np.zeros(n_x), J, np.zeros(n_x),
              _NO_DTAU, 0))
    entry = _KERNEL.get("entry")
    return None if entry is None else (entry, args)


def jacobian_matrix(model: Tree, x: np.ndarray, u: np.ndarray, p: np.ndarray
                    ) -> tuple[np.ndarray, np.ndarray] | None:
    """``(J, ẋ)`` with ``J = [A B]`` by the compiled derivatives when the model is
    :func:`eligible` and the kernel :func:`ready`, else None (the caller takes the
    complex-step route).

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

    Returns
    -------
    tuple of ndarray or None
        ``J`` (n_states, n_states + n_inputs) and ``ẋ`` (n_states,).
    """
    ok = model.memo("analytic_jacobians", None, lambda: eligible(model))
    if not ok or not ready(len(model.body_names)):
        return None
    return forward_jacobians(model, model.physics(p), x, u)
