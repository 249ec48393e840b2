"""Nonlinear TITOP dynamics: the block diagram of the paper, its algebraic loop solved in O(n).

The paper's block diagram (Figs. 4, 8, 11, 16) connects one TITOP block per body. Each
block maps the motion vector imposed at its parent port ``P`` and the wrenches of its
children at its ports ``C`` to the wrench it applies to its parent and the motion vectors
at its ports; the connections form an algebraic loop. We solve that loop exactly with two
sweeps (the Riccati transfer-matrix / articulated-body recursion, docs/design.md §2):

1. **tips → root**: each block condenses its subtree into its parent port,
   ``W_{A/parent, P} = −(Â_A ẋ'_P + p̂_A)``: the block's own ``D_P`` (eq. 4) and bias
   ``C(x') D_P x' − D_P [g; 0] − W_ext`` (eq. 11) plus its children's condensed models,
   moved to ``P`` with ``τ_CPᵀ`` (eq. 13) and the DCM ``P_{a/b}``; the joint acceleration is
   eliminated with the apparent inertia ``J_r = Sᵀ Â S`` (eq. 20–22 revolute, 27–28
   prismatic);
2. **root → tips**: the base acceleration follows from the condensed model of the whole
   tree, then each joint acceleration (eq. 22, 28) and each child's spatial acceleration
   (eq. 17, 24).

Every array carries optional leading batch axes; all operations are analytic, so complex
perturbations (complex-step Jacobians) pass through.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..exceptions import DynamicsError
from ..spatial.algebra import cross, dot, matvec, transpose
from ..spatial.euler import dcm_to_euler, euler_rates_matrix
from ..spatial.quaternion import normalize
from . import kernel, kernel_ready, sensor_kernel, small_forward
from .diagnostics import non_finite_error, slot_label
from .joint_laws import (
    condense_multi,
    driven_wrench,
    multi_dof_accelerations,
    multi_dof_derivatives,
    multi_dof_forces,
    quaternion_rates,
)
from .joints import FREE, SPHERICAL, is_one_dof
from .kinematics import Kinematics, kinematics
from .loops import loop_wrenches
from .tables import Physics
from .tree import Tree

__all__ = ["bias_wrenches", "evaluate_outputs", "forward_dynamics", "joint_forces",
           "joint_inertia_problems", "motion_vector", "non_finite_error", "slot_label",
           "state_and_input"]


def _external_wrenches(model: Tree, kin: Kinematics, u: np.ndarray) -> np.ndarray:
    """Loads, wrench inputs and loop-closure spring-dampers (:mod:`titop_lpv.multibody.loops`) as
    wrenches at each body origin, body frame, (..., n, 6)."""
    ph = kin.phys
    n = len(model.body_names)
    W = np.zeros((*kin.batch, n, 6), dtype=np.result_type(kin.dtype, u))
    lds = model.loads
    if lds.kind.size:
        Pl = np.stack([kin.P[b] for b in lds.body], axis=-3)
        g = ph.gravity[..., None, :]
        buoy = -(ph.load_fraction * ph.total_mass[..., None])[..., None] * g
        vec = np.where((lds.kind == 0)[:, None], buoy, ph.load_vec)
        vec = np.where(lds.body_frame[:, None], vec, np.einsum("...ji,...j->...i", Pl, vec))
        is_torque = (lds.kind == 2)[:, None]
        F = np.where(is_torque, 0.0, vec)
        T = np.where(is_torque, vec, 0.0)
        is_damping = lds.kind == 3
        if np.any(is_damping):  # −c_v v_C at the point C, −c_ω ω (vec = (c_v, c_ω, 0))
            tw_l = np.stack([kin.tw[b] for b in lds.body], axis=-2)
            w_l = tw_l[..., 3:]
            v_c = tw_l[..., :3] + cross(w_l, ph.load_point)
            damp = is_damping[:, None]
            F = np.where(damp, -ph.load_vec[..., 0:1] * v_c, F)
            T = np.where(damp, -ph.load_vec[..., 1:2] * w_l, T)
        T = T + cross(ph.load_point, F)
        W = W + _scatter(np.concatenate((F, T), axis=-1), lds.body, n)
    wi = model.wrench_inputs
    if wi.body.size:
        cols = wi.col[:, None] + np.arange(6)
        Wu = u[..., cols]  # (..., n_inputs, 6)
        Pw = np.stack([kin.P[b] for b in wi.body], axis=-3)
        F = np.where(wi.body_frame[:, None], Wu[..., :3],
                     np.einsum("...ji,...j->...i", Pw, Wu[..., :3]))
        T = np.where(wi.body_frame[:, None], Wu[..., 3:],
                     np.einsum("...ji,...j->...i", Pw, Wu[..., 3:]))
        T = T + cross(ph.input_point, F)
        W = W + _scatter(np.concatenate((F, T), axis=-1), wi.body, n)
    if model.loops.a.size:
        W = W + loop_wrenches(model, kin)
    return W


def _scatter(w: np.ndarray, bodies: np.ndarray, n: int) -> np.ndarray:
    """Sum the rows ``w[..., k, :]`` into body ``bodies[k]``: (..., m, 6) → (..., n, 6)."""
    incidence = (bodies[:, None] == np.arange(n)[None, :]).astype(float)
    return np.einsum("kn,...kj->...nj", incidence, w)


def bias_wrenches(model: Tree, kin: Kinematics, u: np.ndarray, gravity_and_loads: bool = True
          ) -> tuple[np.ndarray, np.ndarray]:
    """Twists (..., n, 6) and bias wrenches ``C(x') D x' − D [g_a; 0] − W_ext`` (eq. 11).

    Parameters
    ----------
    model : Tree
        The compiled tree (a :class:`titop_lpv.Model`).
    kin : Kinematics
        The motion of every body (from :func:`~titop_lpv.multibody.kinematics.kinematics`).
    u : ndarray (..., n_inputs)
        Inputs (the wrench inputs enter ``W_ext``).
    gravity_and_loads : bool, default True
        Include gravity ``g_a`` (in body coordinates) and the external wrenches ``W_ext``
        (loads, wrench inputs, loop closures); False: the velocity-product term only.

    Returns
    -------
    twists, bias : ndarray (..., n_bodies, 6)
        Twist of each body origin and its bias wrench, body frame.
    """
    ph = kin.phys
    tw = np.stack(kin.tw, axis=-2)
    D = ph.D
    h = matvec(D, tw)
    v, w = tw[..., :3], tw[..., 3:]
    p = np.concatenate((cross(w, h[..., :3]), cross(v, h[..., :3]) + cross(w, h[..., 3:])), -1)
    if gravity_and_loads:
        Pall = np.stack(kin.P, axis=-3)
        g_body = ph.gravity[..., None, None, :] @ Pall  # P_{a/i}ᵀ g as row vectors
        g_body = g_body[..., 0, :]
        p = p - matvec(D[..., :, :3], g_body) - _external_wrenches(model, kin, u)
    return tw, p


def joint_forces(model: Tree, kin: Kinematics, u: np.ndarray) -> np.ndarray:
    """Spring, damper and actuator force of every one-d.o.f. joint, (..., n) (zero for the
    other joints: :func:`~titop_lpv.multibody.joint_laws.multi_dof_forces` gives theirs).

    ``τ = −k (q − rest) − d q̇ (+ u)`` [N m or N].

    Parameters
    ----------
    model : Tree
        The compiled tree (a :class:`titop_lpv.Model`).
    kin : Kinematics
        The motion (joint positions and rates) and physical data.
    u : ndarray (..., n_inputs)
        Inputs; an actuated joint adds its column ``<body>_tau``.

    Returns
    -------
    ndarray (..., n_bodies)
    """
    ph = kin.phys
    one = is_one_dof(model.kind)
    f = np.where(one, -ph.k * (kin.q - ph.rest) - ph.d * kin.qd, 0.0)
    act = (model.tau_column >= 0) & one
    if np.any(act):
        f = f + np.where(act, u[..., np.where(act, model.tau_column, 0)], 0.0)
    return f


# ---------------------------------------------------------------------------- forward
def _forward(model: Tree, x: np.ndarray, u: Any, ph: Physics) -> Kinematics:
    kin = kinematics(model, x, phys=ph)
    u = model.check_input(u, kin.batch)
    n = len(model.body_names)
    _, p = bias_wrenches(model, kin, u)
    tau_j = joint_forces(model, kin, u)
    tau_m = multi_dof_forces(model, x, kin, u)
    IA = [ph.D[..., i, :, :] for i in range(n)]
    pA = [p[..., i, :] for i in range(n)]
    U: list[Any] = [None] * n
    J: list[Any] = [None] * n
    uu: list[Any] = [None] * n
    qdd = np.zeros((*kin.batch, n), dtype=np.result_type(kin.dtype, u))
    drv = model.qdd_column
    # tips -> root: condense each subtree into its parent port
    for i in range(n - 1, -1, -1):
        kind = model.kind[i]
        if kind == FREE:
            continue
        if drv[i] >= 0:  # driven: q̈ is the input, the subtree passes unreduced
            qdd[..., i] = u[..., drv[i]]
            Ia = IA[i]
            pa = pA[i] + matvec(Ia, kin.c[i] + ph.S[..., i, :] * qdd[..., i, None])
        elif i in kin.S:
            Ia, pa, U[i], J[i], uu[i] = condense_multi(model.body_names[i], IA[i], pA[i],
                                                       kin.S[i], kin.c[i], tau_m[i])
        elif is_one_dof(kind):
            S = ph.S[..., i, :]
            U[i] = matvec(IA[i], S)
            J[i] = dot(S, U[i])
            if np.any(np.real(J[i]) <= 0.0):
                raise DynamicsError(
                    f"body {model.body_names[i]!r}: the joint has zero apparent inertia "
                    "J_r (eq. 20): its subtree has no mass or inertia along the joint axis")
            uu[i] = tau_j[..., i] - dot(S, pA[i])
            Ia = IA[i] - U[i][..., :, None] * U[i][..., None, :] / J[i][..., None, None]
            pa = pA[i] + matvec(Ia, kin.c[i]) + U[i] * (uu[i] / J[i])[..., None]
        else:
            Ia, pa = IA[i], pA[i]
        par = model.parent[i]
        if par >= 0:
            XT = transpose(kin.X[i])
            IA[par] = IA[par] + XT @ Ia @ kin.X[i]
            pA[par] = pA[par] + matvec(XT, pa)
    # root -> tips: accelerations
    acc: list[Any] = [None] * n
    qdd_multi: dict[int, Any] = {}
    tau_drv: dict[int, Any] = {}
    zero6 = np.zeros((*kin.batch, 6), dtype=qdd.dtype)
    for i in range(n):
        kind = model.kind[i]
        if kind == FREE:
            kin.IA_base = IA[i]
            try:
                acc[i] = np.linalg.solve(IA[i], -pA[i][..., None])[..., 0]
            except np.linalg.LinAlgError as err:
                raise DynamicsError(
                    f"body {model.body_names[i]!r}: the articulated inertia of the floating "
                    "base is singular (massless tree?)") from err
            continue
        par = model.parent[i]
        a1 = (matvec(kin.X[i], acc[par]) if par >= 0 else zero6) + kin.c[i]
        if drv[i] >= 0:
            acc[i] = a1 + ph.S[..., i, :] * qdd[..., i, None]
            tau_drv[i] = driven_wrench(IA[i], pA[i], ph.S[..., i, :], acc[i])
        elif i in kin.S:
            qdd_multi[i] = multi_dof_accelerations(U[i], J[i], uu[i], a1)
            acc[i] = a1 + matvec(kin.S[i], qdd_multi[i])
        elif is_one_dof(kind):
            qdd[..., i] = (uu[i] - dot(U[i], a1)) / J[i]
            acc[i] = a1 + ph.S[..., i, :] * qdd[..., i, None]
        else:
            acc[i] = a1
    kin.acc = acc
    kin.qdd = qdd
    kin.J = [j if i not in kin.S else None for i, j in enumerate(J)]
    kin.u = u
    kin.qdd_multi = qdd_multi
    kin.tau = tau_drv
    return kin


def _state_derivative(model: Tree, x: np.ndarray, kin: Kinematics) -> np.ndarray:
    xdot = np.zeros((*kin.batch, model.n_states), dtype=kin.qdd.dtype)
    one = is_one_dof(model.kind)
    xdot[..., model.q_index[one]] = kin.qd[..., one]
    xdot[..., model.qd_index[one]] = kin.qdd[..., one]
    if model.base_index >= 0:
        b = model.base_index
        tw = kin.tw[0]
        xdot[..., b:b + 6] = kin.acc[0]
        xdot[..., b + 6:b + 9] = matvec(kin.P[0], tw[..., :3])  # IṖ = P_{b/i} v
        if model.attitude == "quaternion":  # q̇ = ½ q ⊗ (0, ω) + ½ λ (1 − |q|²) q
            xdot[..., b + 9:b + 13] = quaternion_rates(x[..., b + 9:b + 13], tw[..., 3:])
        else:
            Gamma = euler_rates_matrix(x[..., b + 9:b + 12], model.euler)
            xdot[..., b + 9:b + 12] = matvec(Gamma, tw[..., 3:])  # Θ̇ = Γ(Θ) ω
    if kin.S:
        multi_dof_derivatives(model, x, kin, xdot)
    return xdot


def state_and_input(model: Tree, x: Any, u: Any) -> tuple[np.ndarray, Any]:
    """Checked state, broadcast to the batch axes of the input (if any).

    Parameters
    ----------
    model : Tree
        The compiled tree (a :class:`titop_lpv.Model`).
    x : array_like (..., n_states)
        State(s).
    u : array_like (..., n_inputs) or None
        Input(s), or None (zero inputs, checked later).

    Returns
    -------
    x : ndarray (..., n_states)
        The state, broadcast to the common batch shape.
    u : ndarray (..., n_inputs) or None
        The checked input, or None.

    Raises
    ------
    ShapeError
        A last axis of the wrong length.
    """
    x = model.check_state(x)
    if u is not None:
        u = model.check_input(u, x.shape[:-1])
        batch = np.broadcast_shapes(x.shape[:-1], u.shape[:-1])
        x = np.broadcast_to(x, (*batch, x.shape[-1]))
    return x, u


def forward_dynamics(model: Tree, x: Any, u: Any = None, params: Any = None, *,
                     backend: str = "auto") -> np.ndarray:
    """State derivative of the model (see :meth:`Model.dynamics`), shape (..., n_states).

    Parameters
    ----------
    model : Tree
        The compiled tree (a :class:`titop_lpv.Model`).
    x : array_like (..., n_states)
        State(s), in ``model.state_names`` order.
    u : array_like (..., n_inputs), optional
        Inputs; zero when omitted.
    params : dict or array_like, optional
        Parameter values (a dict ``name -> value`` or an array in ``model.param_names``
        order); defaults when omitted.
    backend : {"auto", "numpy", "compiled"}
        ``"numpy"``: the vectorised recursion of this module (the reference);
        ``"compiled"``: the same recursion compiled by numba (:mod:`titop_lpv.multibody.kernel`),
        one state at a time, for physical data without batch axes; ``"auto"`` picks the
        compiled one whenever the parameters carry no batch axes and are real (the
        compiled kernel's physical data are real; complex parameters, as pushed by
        complex-step sensitivities, take the numpy route) and the kernel is ready: for a
        small model still waiting for numba, the numpy route serves while the kernel
        compiles in the background (:mod:`titop_lpv.multibody.kernel_ready`; one state at a
        time by :func:`~titop_lpv.multibody.small_forward.forward_one`, equal to rounding).

    Returns
    -------
    ndarray (..., n_states)

    Raises
    ------
    DynamicsError
        A NaN or infinite state or input, a NaN or infinite derivative from finite
        arguments (:func:`non_finite_error`), or a joint with zero apparent inertia.
    """
    if not _batch_pair(model, x, u):  # else already what the checks would return
        x, u = state_and_input(model, x, u)
    ph = model.physics(params)
    if backend not in ("auto", "numpy", "compiled"):
        raise ValueError(f"backend must be 'auto', 'numpy' or 'compiled', got {backend!r}")
    if backend == "compiled" or (backend == "auto" and ph.vals.ndim == 1
                                 and not np.iscomplexobj(ph.vals)
                                 and _kernel_ready(model, x, u, ph)):
        return _forward_compiled(model, x, u, ph)
    if backend == "auto" and x.ndim == 1:  # one state while the kernel compiles: the lean route
        xdot = small_forward.forward_one(model, x, u, ph)
        if xdot is not None:
            return xdot
    kin = _forward(model, x, u, ph)
    xdot = _state_derivative(model, x, kin)
    if not np.isfinite(xdot).all():
        raise non_finite_error(model, x, kin.u, ph, xdot, "d/dt", model.state_names)
    return xdot


def _kernel_ready(model: Tree, x: np.ndarray, u: Any, ph: Physics) -> bool:
    """Whether ``"auto"`` runs the kernel now (see :mod:`titop_lpv.multibody.kernel_ready`)."""
    dtype = x.dtype if u is None else np.result_type(x, u, float)
    return kernel_ready.use_kernel(
        len(model.body_names), dtype,
        lambda: model.memo("kernel", ph, lambda: kernel.kernel_data(model, ph)).args)


def _batch_pair(model: Tree, x: Any, u: Any) -> bool:
    """Whether ``x`` (M, n_x), ``u`` (M, n_u) are what :func:`state_and_input` returns."""
    return (type(x) is np.ndarray and type(u) is np.ndarray and x.ndim == 2 and u.ndim == 2
            and x.shape[0] == u.shape[0] and x.shape[1] == model.n_states
            and u.shape[1] == model.n_inputs and x.dtype.kind in "fc" and u.dtype.kind in "fc")


def _forward_compiled(model: Tree, x: np.ndarray, u: Any, ph: Physics) -> np.ndarray:
    if ph.vals.ndim != 1 or np.iscomplexobj(ph.vals):
        raise ValueError("the compiled backend needs real parameters without batch axes")
    n_x, n_u = model.n_states, model.n_inputs
    if x.ndim == 1 and u is None:  # the common single-state call (ODE solvers)
        batch: tuple[int, ...] = ()
        X = x.reshape(1, n_x)
        U = np.zeros((1, n_u))
    elif _batch_pair(model, x, u):  # a batch of states with its inputs (complex step)
        batch, X, U = x.shape[:1], x, u
    else:
        u = model.check_input(u, x.shape[:-1])
        batch = np.broadcast_shapes(x.shape[:-1], u.shape[:-1])
        size = int(np.prod(batch))
        X = np.broadcast_to(x, (*batch, n_x)).reshape(size, n_x)
        U = np.broadcast_to(u, (*batch, n_u)).reshape(size, n_u)
    data = model.memo("kernel", ph, lambda: kernel.kernel_data(model, ph))
    xdot, status = kernel.run(data, X, U)
    if status == kernel.NONFINITE:
        raise non_finite_error(model, X, U, ph, xdot, "d/dt", model.state_names)
    if status >= 0:
        raise DynamicsError(
            f"body {model.body_names[status]!r}: the joint has zero apparent inertia "
            "J_r (eq. 20): its subtree has no mass or inertia along the joint axis")
    return xdot.reshape(*batch, n_x)


# ---------------------------------------------------------------------------- outputs
def evaluate_outputs(model: Tree, x: Any, u: Any = None, params: Any = None, *,
                     xdot: Any = None) -> np.ndarray:
    """Outputs of the model (see :meth:`Model.outputs`), shape (..., n_outputs).

    For real parameters without batch axes, the outputs come from the compiled sensor kernel
    once it is ready (:mod:`titop_lpv.multibody.sensor_kernel`; the driving force ``tau`` of a
    driven joint, which it does not cover, from the numpy recursion); otherwise from the
    numpy recursion (the reference).

    Parameters
    ----------
    model : Tree
        The compiled tree (a :class:`titop_lpv.Model`).
    x : array_like (..., n_states)
        State(s), in ``model.state_names`` order.
    u : array_like (..., n_inputs), optional
        Inputs; zero when omitted (they matter only to accelerations).
    params : dict or array_like, optional
        Parameter values; defaults when omitted.
    xdot : array_like (..., n_states), optional
        The state derivative at ``(x, u, params)``, when the caller has it (the compiled
        route then reads the accelerations from it instead of evaluating the dynamics);
        it must be exactly :func:`forward_dynamics` at the same arguments.

    Returns
    -------
    ndarray (..., n_outputs)
    """
    if not _batch_pair(model, x, u):  # else already what the checks would return
        x, u = state_and_input(model, x, u)
    ph = model.physics(params)
    y = _outputs_compiled(model, x, u, params, ph, xdot)
    if y is not None:
        if not np.isfinite(y).all():
            raise non_finite_error(model, x, u, ph, y, "output", model.output_names)
        return y
    if any(spec.kind in ("qdd", "acceleration", "tau") for spec in model.output_specs):
        kin = _forward(model, x, u, ph)
    else:
        kin = kinematics(model, x, phys=ph)
    cols = []
    for spec in model.output_specs:
        typ, b, pslots, body_frame = spec.kind, spec.body, spec.point, spec.body_frame
        if typ in ("q", "qd", "qdd"):
            cols.append(getattr(kin, typ)[..., b, None] if b not in kin.S
                        else _multi_dof_sensor(model, x, kin, b, typ))
            continue
        if typ == "tau":  # the force that drives a driven joint
            cols.append(kin.tau[b][..., None])
            continue
        if typ == "attitude":
            if model.kind[b] == FREE and model.attitude == "euler":
                cols.append(np.broadcast_to(x[..., model.base_index + 9:model.base_index + 12],
                                            (*kin.batch, 3)))
            else:
                cols.append(dcm_to_euler(kin.P[b], model.euler))
            continue
        pt = ph.vals[..., pslots]
        v, w = kin.tw[b][..., :3], kin.tw[b][..., 3:]
        if typ == "position":
            cols.append(kin.r[b] + matvec(kin.P[b], pt))
            continue
        if typ == "velocity":
            vec = v + cross(w, pt)
        elif typ == "angular_velocity":
            vec = w
        else:  # acceleration of the point, inertial, in body components
            a, wd = kin.acc[b][..., :3], kin.acc[b][..., 3:]
            vec = a + cross(w, v) + cross(wd, pt) + cross(w, cross(w, pt))
        cols.append(vec if body_frame else matvec(kin.P[b], vec))
    if not cols:
        return np.zeros((*kin.batch, 0))
    y = np.concatenate([np.broadcast_to(c, (*kin.batch, c.shape[-1])) for c in cols], -1)
    if not np.isfinite(y).all():
        raise non_finite_error(model, x, u, ph, y, "output", model.output_names)
    return y


def _outputs_compiled(model: Tree, x: np.ndarray, u: Any, params: Any, ph: Physics,
                      xdot: Any) -> np.ndarray | None:
    """The outputs by :mod:`~titop_lpv.multibody.sensor_kernel` (``tau`` columns by the numpy
    recursion), or None when it does not serve this call (batched or complex parameters,
    kernel not ready)."""
    if ph.vals.ndim != 1 or np.iscomplexobj(ph.vals) or not model.output_specs:
        return None
    data = model.memo("sensor_kernel", ph, lambda: sensor_kernel.sensor_data(model, ph))
    if data.needs_xdot and xdot is None:
        if not sensor_kernel.ready(len(model.body_names), np.result_type(x, u, float)):
            return None
        xdot = forward_dynamics(model, x, u, params)
    dtype = np.result_type(x, float) if xdot is None else np.result_type(x, xdot, float)
    if not sensor_kernel.ready(len(model.body_names), dtype):
        return None
    n_x = model.n_states
    batch = x.shape[:-1]
    X = x.reshape(-1, n_x)
    XD = None
    if data.needs_xdot and type(xdot) is np.ndarray and xdot.shape == x.shape:
        XD = xdot.reshape(-1, n_x)  # no broadcast: a read-only view would be copied
    elif data.needs_xdot:
        XD = np.broadcast_to(np.asarray(xdot), (*batch, n_x)).reshape(-1, n_x)
    y = sensor_kernel.evaluate(data, X, XD, model.n_outputs).reshape(*batch, model.n_outputs)
    rest = [spec for spec, ok in zip(model.output_specs, model.memo(
        "sensor_kernel_covered", None, lambda: sensor_kernel.covered(model))) if not ok]
    if rest:  # the driving forces of driven joints: the numpy recursion
        kin = _forward(model, x, u, ph)
        y = y.astype(np.result_type(y, kin.dtype, kin.u), copy=False)
        for spec in rest:
            y[..., spec.columns.start] = kin.tau[spec.body]
    return y


def _multi_dof_sensor(model: Tree, x: np.ndarray, kin: Kinematics, b: int, typ: str
                      ) -> np.ndarray:
    """``q``, ``qd`` or ``qdd`` sensor of a spherical or universal joint (..., n_q or n_v):
    the unit quaternion, the child-frame relative angular velocity and its derivative; or
    the two angles, rates and accelerations (:data:`titop_lpv.model.signals.JOINT_SENSORS`)."""
    if typ == "qdd":
        return kin.qdd_multi[b]
    nv = int(model.nv[b])
    if typ == "qd":
        return x[..., model.qd_index[b]:model.qd_index[b] + nv]
    qi = int(model.q_index[b])
    return normalize(x[..., qi:qi + 4]) if model.kind[b] == SPHERICAL else x[..., qi:qi + nv]


def motion_vector(model: Tree, x: Any, body: str, point: str = "origin", u: Any = None,
                  params: Any = None) -> np.ndarray:
    """Motion vector ``m_C = [ẋ'_C; x'_C; IC; Θ]`` of a point (eq. 14, Definition 1).

    Parameters
    ----------
    model : Tree
        The compiled tree (a :class:`titop_lpv.Model`).
    x : array_like (..., n_states)
        State(s), in ``model.state_names`` order.
    body : str
        Body name.
    point : str
        ``"origin"`` (the joint point ``P``), ``"com"`` or a port name.
    u : array_like (..., n_inputs), optional
        Inputs (they set the accelerations); zero when omitted.
    params : dict or array_like, optional
        Parameter values; defaults when omitted.

    Returns
    -------
    ndarray, shape (..., 18)
        Spatial acceleration w.r.t. the body frame and twist of the point (body frame),
        its inertial position [m] and the body's Euler angles ``(φ, θ, ψ)`` (model sequence).
    """
    x, u = state_and_input(model, x, u)
    ph = model.physics(params)
    kin = _forward(model, x, u, ph)
    b = model.body_index(body)
    pt = ph.vals[..., model.point_slots(body, point)]
    acc, tw = kin.acc[b], kin.tw[b]
    acc_c = np.concatenate((acc[..., :3] + cross(acc[..., 3:], pt), acc[..., 3:]), -1)
    tw_c = np.concatenate((tw[..., :3] + cross(tw[..., 3:], pt), tw[..., 3:]), -1)
    pos = kin.r[b] + matvec(kin.P[b], pt)
    if model.kind[b] == FREE and model.attitude == "euler":
        theta = np.broadcast_to(x[..., model.base_index + 9:model.base_index + 12], pos.shape)
    else:
        theta = dcm_to_euler(kin.P[b], model.euler)
    m = np.concatenate((acc_c, np.broadcast_to(tw_c, acc_c.shape), pos, theta), -1)
    if not np.isfinite(m).all():
        raise non_finite_error(model, x, u, ph, m, "motion vector of", (f"{body}.{point}",) * 18)
    return m


def joint_inertia_problems(model: Tree, rtol: float = 1e-12) -> list[str]:
    """Joints whose apparent inertia ``J_r`` (eq. 20) vanishes at the default state.

    Parameters
    ----------
    model : Tree
        The compiled tree (a :class:`titop_lpv.Model`).
    rtol : float, default 1e-12
        ``J_r <= rtol`` times the largest entry of the bodies' dynamic models counts as
        zero.

    Returns
    -------
    list of str
        One problem line per such joint (empty if none).
    """
    ph = model.physics()
    scale = max(float(np.max(np.abs(ph.D))), 1e-300) if ph.D.size else 1.0
    try:
        kin = _forward(model, model.default_state(), None, ph)
    except DynamicsError as err:
        return [str(err)]
    problems = [
        f"body {model.body_names[i]!r}: the joint has zero apparent inertia J_r = {J:.3g} "
        "(eq. 20): the body and its subtree have no mass or inertia along the joint axis"
        for i, J in enumerate(kin.J)
        if J is not None and float(np.real(J)) <= rtol * scale
    ]
    if kin.IA_base is not None:  # singular in exact arithmetic: rounding decides the solve
        low = float(np.linalg.eigvalsh(np.real(kin.IA_base))[0])
        if low <= rtol * scale:
            base = model.body_names[int(np.flatnonzero(model.kind == FREE)[0])]
            problems.append(
                f"body {base!r}: the articulated inertia "
                f"of the floating base is singular (smallest eigenvalue {low:.3g} <= "
                f"{rtol:g} x {scale:.3g}): a massless base whose subtree moves freely "
                "relative to it along some direction (massless tree?)")
    return problems
