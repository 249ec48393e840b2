"""Forward dynamics of one real state of a small tree, its state-independent data precomputed.

While the compiled kernel is not ready (a fresh installation: numba compiles it in the
background, :mod:`~titop_lpv.multibody.kernel_ready`), an ``"auto"`` evaluation of a small
model takes the numpy route. The reference recursion (:mod:`~titop_lpv.multibody.dynamics`,
:mod:`~titop_lpv.multibody.kinematics`) is written for batches and every joint kind: for one
state of the paper's balloon it makes about a thousand numpy calls on arrays of three to
thirty-six numbers (about 1 ms, nearly all of it call overhead). :func:`forward_one` runs the
same two sweeps for one real state with about ninety numpy calls, everything that does not
depend on the state computed once per parameter vector (:class:`Plan`, kept in the model's
memo with its :class:`~titop_lpv.multibody.tables.Physics`):

* each joint's 6×6 map ``X`` from the parent's twist to the child's frame
  (:func:`~titop_lpv.multibody.kinematics.parent_map`) is affine in ``(sin q, 1 − cos q)`` for
  a revolute joint (Rodrigues: ``P_{a/b}ᵀ = (1 − sin q K + (1 − cos q) K²) P₀ᵀ``, ``K = (*r̃)``),
  affine in ``q`` for a prismatic one and constant for a weld: the maps of all bodies are one
  batched product of per-body coefficients with precomputed matrices;
* the sweeps work on augmented 7×7 matrices: ``T = [[X, c], [0, 1]]`` maps ``[ẋ'_parent; 1]``
  to ``[ẋ'_child − S q̈; 1]`` (``[tw_parent; 1]`` to ``[tw_child; 1]`` with ``S q̇`` in place of
  ``c``), and a subtree's condensed model ``Â ẋ' + p̂`` is the quadratic form
  ``[[Â, p̂], [p̂ᵀ, ·]]``: the joint's elimination (eq. 20–22, 27–28) is one rank-one update
  by ``û = [Â S; Sᵀ p̂ − τ]`` over ``J_r = Sᵀ Â S``, the move to the parent port one congruence
  ``Tᵀ (·) T``, and ``q̈ = −ûᵀ [a; 1] / J_r``;
* ``P_{a/i}ᵀ`` rides along the twist sweep as three more columns of the same products; the
  bias wrenches (eq. 11) of all bodies are computed at once (the loads as precomputed 6×3 or
  6×6 maps, those constant in the body frame as one constant wrench); springs, dampers,
  actuators and the Euler attitude on plain floats.

It serves free bases (Euler angles or quaternion), weld, revolute and prismatic joints
(actuated or driven), every load kind and wrench inputs, at real unbatched parameters; for
anything else (spherical, universal joints, loops) and an evaluation that cannot finish (zero
apparent inertia, singular base, a NaN or infinite result) it returns None and the caller
takes the reference route, which raises the named error. It equals the reference to rounding
(the same products in another order; ``tests/test_small_forward.py``).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy.linalg import lapack

from ..spatial.algebra import skew
from ..spatial.euler import check_sequence
from ..spatial.quaternion import to_dcm
from .joint_laws import quaternion_rates
from .joints import FREE, PRISMATIC, REVOLUTE, WELD
from .tables import Physics
from .tree import Tree

__all__ = ["Plan", "build_plan", "forward_one", "supported"]

_F64 = np.dtype(np.float64)
_EYE3 = np.eye(3)
_FIXED = (1.0, 0.0, 0.0, 0.0)  # coefficients of a weld's (or the free base's) joint map
_WORLD = np.zeros((7, 4))  # the world as a parent: [tw; 1] = [0; 1], P_{a/i}ᵀ = 1
_WORLD[6, 0] = 1.0
_WORLD[3:6, 1:] = _EYE3
_E7 = _WORLD[:, 0].copy()  # [ẋ'; 1] of the world: no acceleration
_ONE = _E7[6:]
# the 9 cross-product components [ω × h₁, v × h₁, ω × h₂] of the bias p (eq. 11) from a twist
# tw = [v; ω] and h = D tw: component k of a × b is a[k+1] b[k+2] − a[k+2] b[k+1]
_A = (3, 0, 3)  # where a (ω, v, ω) starts in tw
_B = (0, 0, 3)  # where b (h₁, h₁, h₂) starts in h
_TW1 = np.array([a + (k + 1) % 3 for a in _A for k in range(3)])
_TW2 = np.array([a + (k + 2) % 3 for a in _A for k in range(3)])
_H2 = np.array([b + (k + 2) % 3 for b in _B for k in range(3)])
_H1 = np.array([b + (k + 1) % 3 for b in _B for k in range(3)])
_SUM = np.zeros((9, 6))  # p = [ω × h₁; v × h₁ + ω × h₂]
_SUM[[0, 1, 2, 3, 4, 5, 6, 7, 8], [0, 1, 2, 3, 4, 5, 3, 4, 5]] = 1.0


def supported(model: Tree) -> bool:
    """Whether :func:`forward_one` serves this model (joint kinds, no loop closure).

    Parameters
    ----------
    model : Tree
        The compiled tree.

    Returns
    -------
    bool
        Every joint free (the root, body 0), weld, revolute or prismatic; no loop closure.
    """
    kinds = {int(k) for k in model.kind}
    if not kinds <= {FREE, WELD, REVOLUTE, PRISMATIC} or model.loops.a.size:
        return False
    free = np.flatnonzero(model.kind == FREE)
    return free.size == 0 or (free.size == 1 and free[0] == 0 and model.parent[0] < 0)


def _block(M: np.ndarray, off: np.ndarray) -> np.ndarray:
    """``[[M, M (*−off)], [0, M]]`` in 7×7 zeros: ``parent_map``, linear in ``M = P_{a/b}ᵀ``."""
    X = np.zeros((7, 7))
    X[:3, :3] = X[3:6, 3:6] = M
    X[:3, 3:6] = M @ skew(-off)
    return X


class Plan:
    """What :func:`forward_one` needs of a model at one parameter vector (state-free).

    Read-only once built (shared by threads); :func:`build_plan` builds it when it applies.

    Parameters
    ----------
    model : Tree
        The compiled tree (:func:`supported`).
    ph : Physics
        Its physical data at one real parameter vector, without batch axes.

    Attributes
    ----------
    n, n_states, n_inputs : int
        Numbers of bodies, states and inputs.
    bodies : list of tuple
        Per body ``(kind, parent, q slot, q̇ slot, k, d, rest, τ column, q̈ column)``: the
        state slots of a one-d.o.f. joint (−1: none), its spring stiffness, damping and rest
        position, its actuator input column and its driven-joint input column (−1: none).
    XS : ndarray (n, 4, 49)
        Each body's 7×7 joint map is ``coef @ XS[i]`` with ``coef = (1, −sin q, 1 − cos q,
        q̇)`` (revolute), ``(1, q, 0, q̇)`` (prismatic) or ``(1, 0, 0, 0)``: the constant part,
        the coefficient matrices, and ``S`` in the last column.
    S, Sh : ndarray (n, 6), (n, 7)
        Motion subspaces ``S`` and ``[S; 0]``.
    D, Dg, AH0 : ndarray (n, 6, 6), (n, 6, 3), (n, 7, 7)
        Dynamic models ``D_P`` (eq. 4), their first three columns (gravity), and ``D_P`` in
        the top-left block of 7×7 zeros (the start of the condensed models).
    Kc : ndarray (n, 6, 6)
        Velocity-product maps: ``c_i = q̇_i Kc_i tw_i`` (``−diag(K, K)`` revolute,
        ``[[0, −K], [0, 0]]`` prismatic).
    gravity, w_const : ndarray (3,), (n, 6)
        Gravity [m/s²] (inertial frame); per body, the sum of its loads constant in its frame.
    gravity_loads : list of (int, ndarray (6, 3))
        Buoyancies given in the inertial frame: ``W_b += M P_bᵀ g``.
    inertial_loads : list of (int, ndarray (6, 3), ndarray (3,))
        Constant forces or torques in the inertial frame: ``W_b += M P_bᵀ vec``.
    damping_loads : list of (int, ndarray (6, 6))
        Damping loads: ``W_b += M tw_b``.
    wrench_inputs : list of (int, int, bool, ndarray (6, 6))
        Body, first input column, body frame?, map of the six inputs to the wrench at the
        body origin.
    base : tuple
        ``(state slot, attitude, Euler axes (i, j, k), parity)`` of the free base; slot −1
        without one.
    """

    __slots__ = ("AH0", "D", "Dg", "Kc", "S", "Sh", "XS", "base", "bodies", "damping_loads",
                 "gravity", "gravity_loads", "inertial_loads", "n", "n_inputs", "n_states",
                 "w_const", "wrench_inputs")

    def __init__(self, model: Tree, ph: Physics):
        n = len(model.body_names)
        self.n, self.n_states, self.n_inputs = n, model.n_states, model.n_inputs
        self.D = np.array(ph.D, dtype=float)
        self.Dg = np.ascontiguousarray(self.D[:, :, :3])
        self.AH0 = np.zeros((n, 7, 7))
        self.AH0[:, :6, :6] = self.D
        self.S = np.array(ph.S, dtype=float)
        self.Sh = np.zeros((n, 7))
        self.Sh[:, :6] = self.S
        self.Kc = np.zeros((n, 6, 6))
        self.XS = np.zeros((n, 4, 7, 7))
        self.gravity = np.array(ph.gravity, dtype=float)
        bodies = []
        for i in range(n):
            kind, par = int(model.kind[i]), int(model.parent[i])
            R0T, off = ph.rot[i].T, ph.offset[i]
            K = skew(ph.axis[i])
            self.XS[i, 0] = _block(R0T, off)
            self.XS[i, 0, 6, 6] = 1.0
            self.XS[i, 3, :6, 6] = self.S[i]
            if kind == REVOLUTE:  # P_{a/b}ᵀ = (1 − sin q K + (1 − cos q) K²) P₀ᵀ
                self.XS[i, 1], self.XS[i, 2] = _block(K @ R0T, off), _block(K @ K @ R0T, off)
                self.Kc[i, :3, :3] = self.Kc[i, 3:, 3:] = -K
            elif kind == PRISMATIC:  # top right + (*−q t) P₀ᵀ
                self.XS[i, 1, :3, 3:6] = -K @ R0T
                self.Kc[i, :3, 3:] = -K
            one = kind in (REVOLUTE, PRISMATIC)
            bodies.append((kind, par, int(model.q_index[i]) if one else -1,
                           int(model.qd_index[i]) if one else -1, float(ph.k[i]),
                           float(ph.d[i]), float(ph.rest[i]),
                           int(model.tau_column[i]) if one else -1, int(model.qdd_column[i])))
        self.XS = self.XS.reshape(n, 4, 49)
        self.bodies = bodies
        self._loads(model, ph)
        self.wrench_inputs = []
        wi = model.wrench_inputs
        for j in range(wi.body.size):
            M = np.eye(6)
            M[3:, :3] = skew(ph.input_point[j])  # T + pt × F
            self.wrench_inputs.append((int(wi.body[j]), int(wi.col[j]), bool(wi.body_frame[j]),
                                       M))
        euler = model.base_index >= 0 and model.attitude != "quaternion"
        axes = check_sequence(model.euler) if euler else (0, 0, 0)
        parity = 1 if (axes[1] - axes[0]) % 3 == 1 else -1  # of (i, j, ·) (euler.py)
        self.base = (model.base_index, model.attitude, axes, parity)

    def _loads(self, model: Tree, ph: Physics) -> None:
        """Sort the loads into constant wrenches and the state-dependent maps."""
        lds = model.loads
        self.w_const = np.zeros((self.n, 6))
        self.gravity_loads, self.inertial_loads, self.damping_loads = [], [], []
        for j in range(lds.kind.size):
            kind, b, body_frame = int(lds.kind[j]), int(lds.body[j]), bool(lds.body_frame[j])
            pt, vec = ph.load_point[j], np.array(ph.load_vec[j], dtype=float)
            force = np.zeros((6, 3))  # F at pt → [F; pt × F]
            force[:3] = _EYE3
            force[3:] = skew(pt)
            torque = np.zeros((6, 3))
            torque[3:] = _EYE3
            if kind == 3:  # damping: F = −c_v (v + ω × pt), T = −c_ω ω
                M = force @ (-vec[0] * np.hstack((_EYE3, -skew(pt))))
                M[3:, 3:] -= vec[1] * _EYE3
                self.damping_loads.append((b, M))
                continue
            M = torque if kind == 2 else force
            if kind == 0:  # buoyancy: −(fraction · total mass) g, inertial frame
                coef = -float(ph.load_fraction[j] * ph.total_mass)
                if body_frame:
                    self.w_const[b] += M @ (coef * self.gravity)
                else:
                    self.gravity_loads.append((b, coef * M))
            elif body_frame:
                self.w_const[b] += M @ vec
            else:
                self.inertial_loads.append((b, M, vec))


def build_plan(model: Tree, ph: Physics) -> Plan | None:
    """The :class:`Plan` of ``model`` at ``ph``, or None when :func:`forward_one` cannot
    serve it (see :func:`supported`; batched or complex physical data).

    Parameters
    ----------
    model : Tree
        The compiled tree.
    ph : Physics
        Physical data of one real parameter vector.

    Returns
    -------
    Plan or None
    """
    if ph.vals.ndim != 1 or np.iscomplexobj(ph.vals) or not supported(model):
        return None
    return Plan(model, ph)


def forward_one(model: Tree, x: np.ndarray, u: Any, ph: Physics) -> np.ndarray | None:
    """State derivative of one real state, as the reference route computes it.

    Parameters
    ----------
    model : Tree
        The compiled tree.
    x : ndarray (n_states,)
        A checked state (float64).
    u : ndarray (n_inputs,) or None
        Checked inputs (float64), or None for zero inputs.
    ph : Physics
        Physical data of one real parameter vector (the model's cached one: the plan is kept
        in the model's memo under it).

    Returns
    -------
    ndarray (n_states,) or None
        ``ẋ``; None when this route does not serve the call (see the module doc): the
        reference route then evaluates it, and raises the error if there is one.

    Examples
    --------
    >>> import numpy as np
    >>> import titop_lpv as tl
    >>> from titop_lpv.multibody.dynamics import forward_dynamics
    >>> model = tl.load_model("examples/spinning_spacecraft.toml")
    >>> x = model.default_state() + 0.1
    >>> xdot = forward_one(model, x, None, model.physics())
    >>> ref = forward_dynamics(model, x, backend="numpy")
    >>> bool(np.max(np.abs(xdot - ref)) <= 1e-13 * np.max(np.abs(ref)))
    True
    >>> loop = tl.load_model("examples/four_bar.toml")  # a loop closure: not served here
    >>> forward_one(loop, loop.default_state(), None, loop.physics()) is None
    True
    """
    if x.dtype != _F64 or x.ndim != 1 or (u is not None and (u.dtype != _F64 or u.ndim != 1)):
        return None
    plan = model.memo("small_forward", ph, lambda: build_plan(model, ph))
    if plan is None:
        return None
    return _evaluate(plan, x, u)


def _evaluate(plan: Plan, x: np.ndarray, u: Any) -> np.ndarray | None:
    n, bodies = plan.n, plan.bodies
    xl = x.tolist()
    ul = [0.0] * plan.n_inputs if u is None else u.tolist()
    qd = [0.0] * n
    coef = []
    for i, (kind, _, qi, qdi, *_rest) in enumerate(bodies):
        if kind == REVOLUTE:
            q = xl[qi]
            qd[i] = xl[qdi]
            coef.append((1.0, -math.sin(q), 1.0 - math.cos(q), qd[i]))
        elif kind == PRISMATIC:
            qd[i] = xl[qdi]
            coef.append((1.0, xl[qi], 0.0, qd[i]))
        else:
            coef.append(_FIXED)
    T = (np.array(coef)[:, None, :] @ plan.XS).reshape(n, 7, 7)  # [[X, S q̇], [0, 1]]
    # root → tips: [tw; 1] and P_{a/i}ᵀ (kinematics.py)
    TWP = np.empty((n, 7, 4))
    b, attitude, axes, parity = plan.base
    P0: Any = None
    tw0: list[float] = []
    for i, (kind, par, *_rest) in enumerate(bodies):
        if kind == FREE:  # [tw; 1] from the state, P_{a/i}ᵀ in rows 3–5
            P0 = (to_dcm(x[b + 9:b + 13]).tolist() if attitude == "quaternion"
                  else _euler_dcm(xl[b + 9:b + 12], axes))
            tw0 = xl[b:b + 6]
            TWP[i] = [[tw0[0], 0.0, 0.0, 0.0], [tw0[1], 0.0, 0.0, 0.0],
                      [tw0[2], 0.0, 0.0, 0.0], [tw0[3], P0[0][0], P0[1][0], P0[2][0]],
                      [tw0[4], P0[0][1], P0[1][1], P0[2][1]],
                      [tw0[5], P0[0][2], P0[1][2], P0[2][2]], [1.0, 0.0, 0.0, 0.0]]
        else:
            np.matmul(T[i], TWP[par] if par >= 0 else _WORLD, out=TWP[i])
    TW = TWP[:, :6, 0]
    PT = TWP[:, 3:6, 1:]
    # bias wrenches (bias_wrenches, eq. 11): C(x') D x' − D [g; 0] − W_ext
    H = (plan.D @ TW[:, :, None])[:, :, 0]
    p = (TW[:, _TW1] * H[:, _H2] - TW[:, _TW2] * H[:, _H1]) @ _SUM
    gb = PT @ plan.gravity
    p -= (plan.Dg @ gb[:, :, None])[:, :, 0]
    p -= plan.w_const
    for i, M in plan.gravity_loads:
        p[i] -= M @ gb[i]
    for i, M, vec in plan.inertial_loads:
        p[i] -= M @ (PT[i] @ vec)
    for i, M in plan.damping_loads:
        p[i] -= M @ TW[i]
    for i, col, body_frame, M in plan.wrench_inputs:
        wu = np.array(ul[col:col + 6])
        p[i] -= M @ (wu if body_frame else (wu.reshape(2, 3) @ PT[i].T).ravel())
    T[:, :6, 6] = np.array(qd)[:, None] * (plan.Kc @ TW[:, :, None])[:, :, 0]  # c
    AH = plan.AH0.copy()
    AH[:, :6, 6] = p
    AH[:, 6, :6] = p
    # tips → root: condense each subtree into its parent port (dynamics._forward)
    red: list[Any] = [None] * n
    qdd = [0.0] * n
    for i in range(n - 1, -1, -1):
        kind, par, qi, _, k, d, rest, tcol, dcol = bodies[i]
        if kind == FREE:
            continue
        A = AH[i]
        if dcol >= 0:  # driven: q̈ is the input, the subtree passes unreduced
            qdd[i] = ul[dcol]
            T[i, :6, 6] += qdd[i] * plan.S[i]
        elif qi >= 0:  # û = [Â S; Sᵀ p̂ − τ], J_r = Sᵀ Â S
            Sh = plan.Sh[i]
            uh = A @ Sh
            J = float(uh @ Sh)
            if not J > 0.0:
                return None  # zero apparent inertia: the reference raises the error
            uh[6] -= -k * (xl[qi] - rest) - d * qd[i] + (ul[tcol] if tcol >= 0 else 0.0)
            red[i] = (uh, J, Sh)
            A = A - np.multiply.outer(uh, uh / J)
        if par >= 0:
            Ti = T[i]
            AH[par] += Ti.T @ A @ Ti
    # root → tips: accelerations [ẋ'; 1]
    acc: list[Any] = [None] * n
    for i, (kind, par, *_rest) in enumerate(bodies):
        if kind == FREE:
            sol, info = lapack.dgesv(AH[i, :6, :6], -AH[i, :6, 6])[2:]  # LU, as numpy's solve
            if info:
                return None  # singular base: the reference raises the error
            acc[i] = np.concatenate((sol, _ONE))
            continue
        a = T[i] @ (acc[par] if par >= 0 else _E7)
        if red[i] is not None:
            uh, J, Sh = red[i]
            qdd[i] = -float(uh @ a) / J
            a += qdd[i] * Sh
        acc[i] = a
    # the state derivative (dynamics._state_derivative)
    xdot = [0.0] * plan.n_states
    for i, (_, _, qi, qdi, *_rest) in enumerate(bodies):
        if qi >= 0:
            xdot[qi] = qd[i]
            xdot[qdi] = qdd[i]
    if b >= 0:
        xdot[b:b + 6] = acc[0][:6].tolist()
        v, w = tw0[:3], tw0[3:]
        xdot[b + 6:b + 9] = [r[0] * v[0] + r[1] * v[1] + r[2] * v[2] for r in P0]  # IṖ = P v
        if attitude == "quaternion":  # q̇ = ½ q ⊗ (0, ω) + ½ λ (1 − |q|²) q
            xdot[b + 9:b + 13] = quaternion_rates(x[b + 9:b + 13], x[b + 3:b + 6]).tolist()
        else:  # Θ̇ = Γ(Θ) ω
            xdot[b + 9:b + 12] = [r[0] * w[0] + r[1] * w[1] + r[2] * w[2]
                                  for r in _euler_rates(xl[b + 9:b + 12], axes, parity)]
    out = np.array(xdot)
    if not math.isfinite(out.sum()):  # a NaN or infinity reaches the sum
        return None
    return out


def _elementary(axis: int, angle: float) -> list[list[float]]:
    """``R_axis(angle)`` (:func:`titop_lpv.spatial.euler.elementary_rotation`) as lists."""
    c, s, a, b = math.cos(angle), math.sin(angle), (axis + 1) % 3, (axis + 2) % 3
    R = [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]
    R[axis][axis], R[a][a], R[a][b], R[b][a], R[b][b] = 1.0, c, -s, s, c
    return R


def _euler_dcm(theta: list[float], axes: tuple[int, int, int]) -> list[list[float]]:
    """``P_{b/i} = R_i(ψ) R_j(θ) R_k(φ)`` (:func:`titop_lpv.spatial.euler.euler_to_dcm`)."""
    i, j, k = axes
    return _matmul3(_matmul3(_elementary(i, theta[2]), _elementary(j, theta[1])),
                    _elementary(k, theta[0]))


def _matmul3(A: list[list[float]], B: list[list[float]]) -> list[list[float]]:
    """3×3 product on lists of floats."""
    return [[a[0] * B[0][c] + a[1] * B[1][c] + a[2] * B[2][c] for c in range(3)] for a in A]


def _euler_rates(theta: list[float], axes: tuple[int, int, int], e: int
                 ) -> list[list[float]]:
    """``Γ(Θ)``, ``Θ̇ = Γ ω`` (:func:`titop_lpv.spatial.euler.euler_rates_matrix`), with the
    parity ``e`` of ``(i, j, k)`` (Tait–Bryan) or ``(i, j, l)`` (proper Euler)."""
    i, j, k = axes
    phi, the = theta[0], theta[1]
    cf, sf, ct, st = math.cos(phi), math.sin(phi), math.cos(the), math.sin(the)
    M = [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]
    F, T, S = 0, 1, 2  # rows of (φ̇, θ̇, ψ̇)
    if i != k:
        tt = st / ct
        M[S][i], M[S][j] = cf / ct, -e * sf / ct
        M[T][i], M[T][j] = e * sf, cf
        M[F][i], M[F][j], M[F][k] = -e * tt * cf, tt * sf, 1.0
    else:
        l = 3 - i - j  # noqa: E741
        M[S][j], M[S][l] = sf / st, e * cf / st
        M[T][j], M[T][l] = cf, -e * sf
        ctt = ct / st
        M[F][i], M[F][j], M[F][l] = 1.0, -ctt * sf, -e * ctt * cf
    return M
