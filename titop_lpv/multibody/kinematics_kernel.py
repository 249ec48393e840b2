"""Poses of every body for one real state: the root → tips sweep of attitudes and positions,
compiled.

:func:`~titop_lpv.multibody.kinematics.kinematics` is the reference (batched, complex-step
safe, with twists and the maps of the dynamics); a static trim needs only the poses, at one
real state, a few dozen times: the energy ``V`` and its closed-form gradient and stiffness
(:mod:`titop_lpv.multibody.stiffness`). :func:`poses` computes them in two steps:

1. every joint's DCM ``P_{a/b}`` at once, with the reference's own vectorised formulas
   (:func:`~titop_lpv.spatial.algebra.revolute_dcm` eq. 16, the quaternion DCM of a
   spherical joint, a universal joint's two rotations, the floating base's Euler angles or
   quaternion);
2. the sequential part, ``P_{a/i} = P_{b/i} P_{a/b}`` and ``IP_a = IP_b + P_{b/i} C_b
   (+ P_{a/i} q t`` for a prismatic joint, eq. 24), parents before children: from
   :data:`COMPILED_MIN_BODIES` bodies on, one small numba function (compiled on first use,
   about 0.5 s, cached on disk: one specialisation); below, a plain loop over numpy rows.

:func:`subtree_sums` adds rows of a per-body array into every ancestor (tips → root), the
other sequential step of the stiffness. Both agree with the reference sweep to rounding
(1e-14 relative, ``tests/test_kinematics_fast.py``).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import numpy as np

from ..exceptions import ShapeError
from ..spatial.algebra import matvec, revolute_dcm, transpose, unit
from ..spatial.euler import euler_to_dcm
from ..spatial.quaternion import to_dcm
from .joints import FREE, PRISMATIC, REVOLUTE, SPHERICAL, UNIVERSAL
from .tables import Physics
from .tree import Tree

__all__ = ["COMPILED_MIN_BODIES", "joint_dcms", "poses", "subtree_sums"]

# below this many bodies the sequential steps run as plain Python loops over numpy rows
# (microseconds per body, nothing to compile: a first run on a small model pays no numba
# compilation); from it on, compiled
COMPILED_MIN_BODIES = 32

_LOCK = threading.Lock()
_COMPILED: dict[str, Callable[..., Any]] = {}


def _scan(parent, prismatic, Pab, off, shift, P, r):  # pragma: no cover - run compiled
    """Parents before children: ``P_i = P_p Pab_i``, ``r_i = r_p + P_p off_i (+ P_i shift_i)``
    (world-attached: ``P_i = Pab_i``, ``r_i = off_i``)."""
    n = parent.shape[0]
    for i in range(n):
        p = parent[i]
        if p < 0:
            for a in range(3):
                r[i, a] = off[i, a]
                for b in range(3):
                    P[i, a, b] = Pab[i, a, b]
        else:
            for a in range(3):
                s = 0.0
                for c in range(3):
                    s += P[p, a, c] * off[i, c]
                r[i, a] = r[p, a] + s
                for b in range(3):
                    t = 0.0
                    for c in range(3):
                        t += P[p, a, c] * Pab[i, c, b]
                    P[i, a, b] = t
        if prismatic[i]:
            for a in range(3):
                s = 0.0
                for c in range(3):
                    s += P[i, a, c] * shift[i, c]
                r[i, a] += s


def _accumulate(parent, F):  # pragma: no cover - run compiled
    """Tips → root: add each row of ``F`` (n, m) into its parent's."""
    for i in range(parent.shape[0] - 1, -1, -1):
        p = parent[i]
        if p >= 0:
            for a in range(F.shape[1]):
                F[p, a] += F[i, a]


def _scan_python(parent, prismatic, Pab, off, shift, P, r):
    """:func:`_scan` by numpy rows (small trees)."""
    for i in range(parent.shape[0]):
        p = parent[i]
        if p < 0:
            P[i] = Pab[i]
            r[i] = off[i]
        else:
            P[i] = P[p] @ Pab[i]
            r[i] = r[p] + P[p] @ off[i]
        if prismatic[i]:
            r[i] += P[i] @ shift[i]


def _accumulate_python(parent, F):
    """:func:`_accumulate` by numpy rows (small trees)."""
    for i in range(parent.shape[0] - 1, -1, -1):
        if parent[i] >= 0:
            F[parent[i]] += F[i]


def _sweep(name: str, n: int) -> Callable[..., Any]:
    """``_scan`` or ``_accumulate``: compiled from :data:`COMPILED_MIN_BODIES` bodies on,
    else the plain Python loop."""
    return _compiled(name) if n >= COMPILED_MIN_BODIES else globals()[f"{name}_python"]


def _compiled(name: str) -> Callable[..., Any]:
    """The numba-compiled ``_scan`` or ``_accumulate`` (compiled once, thread-safe)."""
    fn = _COMPILED.get(name)
    if fn is None:
        with _LOCK:
            fn = _COMPILED.get(name)
            if fn is None:
                import numba  # heavy: imported on first use only

                fn = numba.njit(cache=True, error_model="numpy")(globals()[name])
                _COMPILED[name] = fn
    return fn


def joint_dcms(model: Tree, x: np.ndarray, ph: Physics) -> np.ndarray:
    """``P_{a/b}`` of every joint (the floating base's: ``P_{a/i}``), shape (n_bodies, 3, 3).

    Parameters
    ----------
    model : Tree
        The compiled tree.
    x : ndarray (n_states,)
        One real state.
    ph : Physics
        Unbatched physical data.

    Returns
    -------
    ndarray (n_bodies, 3, 3)
        Child → parent coordinates (body → inertial for the floating base).
    """
    kind = model.kind
    R0 = np.asarray(ph.rot, dtype=float)
    Pab = R0.copy()
    rev = np.flatnonzero(kind == REVOLUTE)
    if rev.size:
        Pab[rev] = revolute_dcm(R0[rev], ph.axis[rev], x[model.q_index[rev]])
    sph = np.flatnonzero(kind == SPHERICAL)
    if sph.size:
        Pab[sph] = R0[sph] @ to_dcm(x[model.q_index[sph][:, None] + np.arange(4)])
    uni = np.flatnonzero(kind == UNIVERSAL)
    if uni.size:
        qi = model.q_index[uni]
        a1c = matvec(transpose(R0[uni]), unit(ph.extra[uni, 0:3]))
        Pab[uni] = revolute_dcm(revolute_dcm(R0[uni], a1c, x[qi]), ph.axis[uni], x[qi + 1])
    if kind.size and kind[0] == FREE:
        b = model.base_index
        Pab[0] = (to_dcm(x[b + 9:b + 13]) if model.attitude == "quaternion"
                  else euler_to_dcm(x[b + 9:b + 12], model.euler))
    return Pab


def poses(model: Tree, x: Any, ph: Physics) -> tuple[np.ndarray, np.ndarray]:
    """Attitude and origin position of every body for one real state.

    Parameters
    ----------
    model : Tree
        The compiled tree.
    x : array_like (n_states,)
        One real state, in ``model.state_names`` order.
    ph : Physics
        Its physical data for one real parameter vector (``model.physics(params)``).

    Returns
    -------
    P : ndarray (n_bodies, 3, 3)
        ``P_{a/i}`` (body → inertial coordinates).
    r : ndarray (n_bodies, 3)
        Origin ``IP`` [m], inertial frame.

    Raises
    ------
    ShapeError
        ``x`` not one real state of the model.

    Examples
    --------
    >>> import titop_lpv as tl
    >>> s = tl.System("arm", gravity=[0.0, -9.81, 0.0])
    >>> a = s.body("a", tl.Revolute(axis=[0, 0, 1]), mass=1.0, ports={"tip": [1.0, 0, 0]})
    >>> b = s.body("b", tl.Prismatic(axis=[1, 0, 0]), parent="a.tip", mass=1.0)
    >>> m = s.compile()
    >>> P, r = poses(m, [1.5707963267948966, 0.0, 0.5, 0.0], m.physics())
    >>> [round(float(v), 12) for v in r[1]]  # the slider's origin: 1.5 m up the y axis
    [0.0, 1.5, 0.0]
    """
    x = model.check_state(x)
    if x.ndim != 1 or np.iscomplexobj(x):
        raise ShapeError(f"poses: x must be one real state of shape ({model.n_states},); "
                         f"got shape {x.shape} ({x.dtype})")
    x = x.astype(float)
    n = len(model.body_names)
    kind = model.kind
    Pab = joint_dcms(model, x, ph)
    off = np.array(ph.offset, dtype=float)
    if kind.size and kind[0] == FREE:
        off[0] = x[model.base_index + 6:model.base_index + 9]
    prismatic = kind == PRISMATIC
    shift = np.zeros((n, 3))
    pri = np.flatnonzero(prismatic)
    if pri.size:
        shift[pri] = x[model.q_index[pri], None] * ph.axis[pri]
    P = np.empty((n, 3, 3))
    r = np.empty((n, 3))
    parent = np.ascontiguousarray(model.parent, dtype=np.int64)
    _sweep("_scan", n)(parent, np.ascontiguousarray(prismatic), Pab, off, shift, P, r)
    return P, r


def subtree_sums(model: Tree, values: np.ndarray) -> np.ndarray:
    """Each body's row of ``values`` plus those of all its descendants.

    Parameters
    ----------
    model : Tree
        The compiled tree.
    values : ndarray (n_bodies, ...)
        One real array per body.

    Returns
    -------
    ndarray, the shape of ``values``
        A new array.
    """
    values = np.asarray(values, dtype=float)
    out = np.array(values.reshape(values.shape[0], -1), dtype=float, order="C")
    parent = np.ascontiguousarray(model.parent, dtype=np.int64)
    _sweep("_accumulate", out.shape[0])(parent, out)
    return out.reshape(values.shape)
