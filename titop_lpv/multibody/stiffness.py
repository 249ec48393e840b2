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

O(n²) for ``n`` joints, against the complex step's batched inverse dynamics. The poses
and the subtree sums come from the compiled sweep of :mod:`titop_lpv.multibody.kinematics_kernel`
(one real state); :func:`static_potential` gives ``V`` itself from the same sweep.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..exceptions import ArgumentError
from ..spatial.algebra import cross, matvec
from .joints import PRISMATIC, REVOLUTE, SPHERICAL, UNIVERSAL, is_one_dof
from .kinematics_kernel import poses, subtree_sums
from .tables import Physics
from .tree import Tree

__all__ = ["gravity_stiffness", "static_potential", "supported"]


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


def _subtree_sums(model: Tree, x: np.ndarray, ph: Physics
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Poses ``P`` (n, 3, 3), ``r`` (n, 3), subtree sums ``F`` (n, 3) and ``S = Σ x_p f_pᵀ``
    (n, 3, 3), from the compiled sweep (:mod:`titop_lpv.multibody.kinematics_kernel`)."""
    P, r = poses(model, x, ph)
    n = len(model.body_names)
    g = np.asarray(ph.gravity, dtype=float)
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
    sums = subtree_sums(model, np.concatenate((F, S.reshape(n, 9)), axis=1))
    return P, r, sums[:, :3], sums[:, 3:].reshape(n, 3, 3)


def static_potential(model: Tree, x: Any, params: Any) -> float:
    """Potential energy [J] of a model that :func:`supported` covers, at one real state.

    ``V = −Σ m g · x_B − Σ f · x_p + ½ Σ k (q − rest)²`` (gravity at each centre of mass,
    buoyancy and constant inertial-frame loads at their points, springs of the revolute
    and prismatic joints): :func:`titop_lpv.multibody.energy.energy`'s potential for these
    models, from the compiled sweep of poses.

    Parameters
    ----------
    model : Tree
        The compiled tree; :func:`supported` must hold and it must have no spherical or
        universal joint (their springs are not modelled here).
    x : array_like (n_states,)
        One real state, in ``model.state_names`` order.
    params : array_like (n_params,) or dict
        Parameter values (one set).

    Returns
    -------
    float

    Raises
    ------
    ArgumentError
        A model with potentials it does not model, or ``x`` not one real state.
    ShapeError
        ``x`` not an array of ``n_states`` numbers.
    """
    if not supported(model) or np.any((model.kind == SPHERICAL) | (model.kind == UNIVERSAL)):
        raise ArgumentError(f"static_potential: model {model.name!r} has loads, loops or "
                            "spherical/universal joints it does not model")
    x = model.check_state(x)
    if x.ndim != 1 or np.iscomplexobj(x):
        raise ArgumentError("static_potential: 'x' must be one real state vector")
    x = x.astype(float)
    ph = model.physics(params)
    P, r = poses(model, x, ph)
    g = np.asarray(ph.gravity, dtype=float)
    r_com = r + matvec(P, np.asarray(ph.com, dtype=float))
    potential = -np.sum(np.asarray(ph.mass, dtype=float) * (r_com @ g))
    one = is_one_dof(model.kind)
    q = np.where(one, x[np.where(one, model.q_index, 0)], 0.0)
    potential = potential + 0.5 * np.sum(np.where(one, ph.k * (q - ph.rest) ** 2, 0.0))
    lds = model.loads
    for k, b in enumerate(lds.body):
        if lds.kind[k] >= 2 or lds.body_frame[k]:  # damping: no potential
            continue
        F = (-(ph.load_fraction[k] * ph.total_mass) * g if lds.kind[k] == 0
             else np.asarray(ph.load_vec[k], dtype=float))
        potential = potential - F @ (r[b] + P[b] @ np.asarray(ph.load_point[k], dtype=float))
    return float(potential)


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
    x = model.check_state(x)
    if x.ndim != 1 or np.iscomplexobj(x):
        raise ArgumentError("gravity_stiffness: 'x' must be one real state vector")
    ph = model.physics(params)
    P, r, F, S = _subtree_sums(model, np.asarray(x, dtype=float), ph)
    rev = kind[bodies] == REVOLUTE
    a = matvec(P[bodies], np.asarray(ph.axis, dtype=float)[bodies])
    o = r[bodies]
    Fj = F[bodies]
    N = S[bodies] - o[:, :, None] * Fj[:, None, :]
    moment = np.stack((N[:, 1, 2] - N[:, 2, 1], N[:, 2, 0] - N[:, 0, 2],
                       N[:, 0, 1] - N[:, 1, 0]), axis=-1)  # Σ (x_p − o_j) × f_p
    k = np.asarray(ph.k, dtype=float)[bodies]
    q = x[model.q_index[bodies]].astype(float)
    rest = np.asarray(ph.rest, dtype=float)[bodies]
    grad = -np.where(rev, np.sum(a * moment, axis=-1), np.sum(a * Fj, axis=-1)) \
        + k * (q - rest)
    trace = np.trace(N, axis1=-2, axis2=-1)
    Na = np.sum(N * a[:, None, :], axis=-1)  # N_j a_j
    rr = a @ Na.T - (a @ a.T) * trace[None, :]  # [i, j] = a_iᵀ N_j a_j − (a_i · a_j) tr N_j
    if np.all(rev):
        val = -rr
    else:
        rp = a @ cross(a, Fj).T  # [i, j] = a_i · (a_j × F_j) = F_j · (a_i × a_j)
        val = -np.where(rev[None, :], rr, rp)
        val = np.where(rev[:, None], val, 0.0)
    mask = _ancestor_mask(model, bodies)
    K = np.where(mask, val, 0.0)
    K = K + K.T
    K.flat[::bodies.size + 1] = np.diagonal(val) + k  # the diagonal once, plus the springs
    return grad, K


def _ancestor_mask(model: Tree, bodies: np.ndarray) -> np.ndarray:
    """``mask[i, j]``: ``bodies[i]`` is ``bodies[j]`` or one of its ancestors (read-only; the
    relation among all bodies and the last few selections are kept in the model's memo)."""
    table = model.memo("ancestors", model.parent, lambda: {"all": _ancestors(model)})
    key = bodies.tobytes()
    mask = table.get(key)
    if mask is None:
        mask = table["all"][np.ix_(bodies, bodies)]
        mask.flags.writeable = False
        if len(table) > 4:  # "all" and the last few selections
            table.pop(next(k for k in table if k != "all"))
        table[key] = mask
    return mask


def _ancestors(model: Tree) -> np.ndarray:
    """``anc[i, j]``: body ``i`` is ``j`` or an ancestor of ``j`` (n_bodies, n_bodies)."""
    nb = len(model.body_names)
    anc = np.zeros((nb, nb), dtype=bool)
    for j in range(nb):
        p = int(model.parent[j])
        if p >= 0:
            anc[:, j] = anc[:, p]
        anc[j, j] = True
    anc.flags.writeable = False
    return anc
