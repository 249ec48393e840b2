"""Closed-form stiffness (Hessian of the potential energy) over revolute and prismatic joints.

Under constant inertial-frame forces ``f_p`` at body-fixed points ``x_p`` (gravity ``m g`` at
each centre of mass, buoyancy, constant inertial-frame loads), ``V = −Σ f_p · x_p + ½ Σ k
(q − rest)²``. With ``a_j`` the world axis of joint ``j`` and ``o_j`` its body origin (on the
axis), a revolute joint moves the points below it by ``∂x_p/∂q_j = a_j × (x_p − o_j)``, a
prismatic one by ``a_j``. With the subtree sums ``F_j = Σ f_p`` and ``N_j = Σ (x_p − o_j)
f_pᵀ`` (3×3) over the points below ``j``, for ``i`` an ancestor of ``j`` or ``i = j``:

- ``∂V/∂q_j = −a_j · Σ (x_p − o_j) × f_p`` (revolute), ``−a_j · F_j`` (prismatic);
- ``K_ij = −(a_iᵀ N_j a_j − (a_i · a_j) tr N_j)`` (both revolute), ``−F_j · (a_i × a_j)``
  (``i`` revolute, ``j`` prismatic), ``0`` (``i`` prismatic: its axis does not turn);
- ``K_ji = K_ij``, ``K_ij = 0`` on separate branches, plus the spring ``k_j`` on the diagonal.

O(n²) for ``n`` joints, against the complex step's batched inverse dynamics.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..exceptions import ArgumentError
from ..spatial.algebra import cross, matvec
from .joints import PRISMATIC, REVOLUTE
from .kinematics import kinematics
from .tree import Tree

__all__ = ["gravity_stiffness", "supported"]


def supported(model: Tree) -> bool:
    """Whether :func:`gravity_stiffness` covers every potential of ``model``.

    No loop closures; loads only buoyancy and constant inertial-frame forces (not body
    frame), or damping (zero at rest). Other joints (free, weld, spherical, universal) may be
    present but not among the joints differentiated.

    Parameters
    ----------
    model : Tree
        The compiled tree.

    Returns
    -------
    bool
    """
    lds = model.loads
    if model.loops.a.size:
        return False
    for k in range(lds.kind.size):
        if lds.kind[k] == 3:
            continue
        if lds.kind[k] not in (0, 1) or lds.body_frame[k]:
            return False
    return True


def _subtree_sums(model: Tree, x: np.ndarray, params: Any) -> tuple[Any, np.ndarray,
                                                                      np.ndarray]:
    """Kinematics, subtree sums ``F`` (n_bodies, 3) and ``S = Σ x_p f_pᵀ`` (n_bodies, 3, 3)."""
    kin = kinematics(model, x, params)
    ph = kin.phys
    n = len(model.body_names)
    g = np.asarray(ph.gravity, dtype=float)
    P = np.stack(kin.P, axis=0)
    r = np.stack(kin.r, axis=0)
    xc = r + matvec(P, np.asarray(ph.com, dtype=float))
    f = np.asarray(ph.mass, dtype=float)[:, None] * g
    F = f.copy()
    S = xc[:, :, None] * f[:, None, :]
    lds = model.loads
    for k, b in enumerate(lds.body):
        if lds.kind[k] not in (0, 1):
            continue
        fk = (-(float(ph.load_fraction[k]) * float(ph.total_mass)) * g if lds.kind[k] == 0
              else np.asarray(ph.load_vec[k], dtype=float))
        xk = r[b] + P[b] @ np.asarray(ph.load_point[k], dtype=float)
        F[b] += fk
        S[b] += np.outer(xk, fk)
    for i in range(n - 1, -1, -1):
        p = int(model.parent[i])
        if p >= 0:
            F[p] += F[i]
            S[p] += S[i]
    return kin, F, S


def gravity_stiffness(model: Tree, x: Any, params: Any, bodies: Any
                      ) -> tuple[np.ndarray, np.ndarray]:
    """Gradient and Hessian of the potential energy over the joints of ``bodies``.

    Parameters
    ----------
    model : Tree
        The compiled tree; :func:`supported` must hold.
    x : array_like (n_states,)
        One state (real), in ``model.state_names`` order.
    params : array_like (n_params,) or dict
        Parameter values (one set).
    bodies : sequence of int
        Bodies whose (revolute or prismatic) joint positions are differentiated.

    Returns
    -------
    gradient : ndarray (n,)
        ``∂V/∂q`` [N m or N], the efforts that hold the configuration.
    hessian : ndarray (n, n)
        ``∂²V/∂q²`` [N m/rad² …], symmetric.

    Examples
    --------
    >>> import titop_lpv as tl
    >>> s = tl.System("pendulum", gravity=[0.0, -9.81, 0.0])
    >>> rod = s.body("rod", tl.Revolute(axis=[0, 0, 1]), mass=2.0, com=[0.0, -0.5, 0.0])
    >>> m = s.compile()
    >>> g, K = gravity_stiffness(m, m.default_state(), m.param_vector(), [0])
    >>> round(float(K[0, 0]), 6)  # V = -m g l cos q: K = m g l = 2 * 9.81 * 0.5
    9.81
    """
    bodies = np.asarray(bodies, dtype=int).reshape(-1)
    kind = np.asarray(model.kind)
    if bodies.size and not np.all((kind[bodies] == REVOLUTE) | (kind[bodies] == PRISMATIC)):
        raise ArgumentError("gravity_stiffness: every body in 'bodies' needs a revolute or "
                            "prismatic joint")
    x = np.asarray(x)
    if x.ndim != 1 or np.iscomplexobj(x):
        raise ArgumentError("gravity_stiffness: 'x' must be one real state vector")
    kin, F, S = _subtree_sums(model, x, params)
    ph = kin.phys
    rev = kind[bodies] == REVOLUTE
    a = np.stack([kin.P[b] @ np.asarray(ph.axis[b], dtype=float) for b in bodies]) \
        if bodies.size else np.zeros((0, 3))
    o = np.stack([kin.r[b] for b in bodies]) if bodies.size else np.zeros((0, 3))
    Fj = F[bodies]
    N = S[bodies] - o[:, :, None] * Fj[:, None, :]
    moment = np.stack((N[:, 1, 2] - N[:, 2, 1], N[:, 2, 0] - N[:, 0, 2],
                       N[:, 0, 1] - N[:, 1, 0]), axis=-1)  # Σ (x_p − o_j) × f_p
    k = np.asarray(ph.k, dtype=float)[bodies]
    q = np.asarray(kin.q, dtype=float)[bodies]
    rest = np.asarray(ph.rest, dtype=float)[bodies]
    grad = -np.where(rev, np.sum(a * moment, axis=-1), np.sum(a * Fj, axis=-1)) \
        + k * (q - rest)
    trace = np.trace(N, axis1=-2, axis2=-1)
    rr = np.einsum("ia,jab,jb->ij", a, N, a) - (a @ a.T) * trace[None, :]
    rp = a @ cross(a, Fj).T  # [i, j] = a_i · (a_j × F_j) = F_j · (a_i × a_j)
    val = -np.where(rev[None, :], rr, rp)
    val = np.where(rev[:, None], val, 0.0)
    # ancestor-or-self relation among all bodies, then among the selected ones
    nb = len(model.body_names)
    anc = np.zeros((nb, nb), dtype=bool)
    for j in range(nb):
        p = int(model.parent[j])
        if p >= 0:
            anc[:, j] = anc[:, p]
        anc[j, j] = True
    mask = anc[np.ix_(bodies, bodies)]
    K = np.where(mask, val, 0.0)
    K = K + K.T - np.diag(np.diag(K)) + np.diag(k)
    return grad, K
