"""Energy, momentum and centre of mass of the whole system (conservation checks, trim reports)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..exceptions import DynamicsError
from ..spatial.algebra import cross, dot, matvec
from ..spatial.quaternion import conjugate, log, multiply, normalize
from .diagnostics import non_finite_error
from .joints import SPHERICAL, UNIVERSAL, is_one_dof
from .kinematics import Kinematics, kinematics
from .loops import loop_potential
from .tree import Tree

__all__ = ["center_of_mass", "energy", "energy_terms", "momentum", "multi_dof_potential"]


def _finite_kinematics(model: Tree, x: Any, params: Any, what: str) -> Kinematics:
    """The motion at ``x``, after refusing a NaN or infinite state by name.

    Parameters
    ----------
    model : Tree
        The compiled tree.
    x : array_like (..., n_states)
        State(s).
    params : dict or array_like or None
        Parameter values.
    what : str
        The quantity asked for, quoted in the message.

    Returns
    -------
    Kinematics

    Raises
    ------
    DynamicsError
        An entry of ``x`` is NaN or infinite (the message names the state): the result
        would be NaN, silently.
    """
    arr = model.check_state(x)
    bad = np.argwhere(~np.isfinite(arr))
    if bad.size:
        raise DynamicsError(f"model {model.name!r}: state "
                            f"{model.state_names[int(bad[0][-1])]!r} = {arr[tuple(bad[0])]}: "
                            f"the {what} needs finite states")
    return kinematics(model, arr, params)


def energy(model: Tree, x: Any, params: Any = None) -> tuple[np.ndarray, np.ndarray]:
    """Kinetic and potential energy [J].

    The potential holds gravity, the joint springs (a spherical joint's ``½ k |θ|²``, θ the
    rotation vector from its rest attitude), the loop-closure springs
    (:mod:`titop_lpv.multibody.loops`), buoyancy and constant inertial-frame forces (``−F · r``).
    Constant torques and body-frame loads have no potential and are not included; with
    them, the total is not conserved. Damping loads dissipate: with them (and no other
    non-conservative load) the total decreases.

    Parameters
    ----------
    model : Tree
        The compiled tree (a :class:`titop_lpv.Model`).
    x : array_like (..., n_states)
        State(s), in ``model.state_names`` order; leading axes are a batch (e.g. the
        ``traj.x`` of a simulation).
    params : dict or array_like, optional
        Parameter values (a dict ``name -> value`` or an array in ``model.param_names``
        order); defaults when omitted.

    Returns
    -------
    kinetic, potential : ndarray, shape (...)

    Raises
    ------
    DynamicsError
        An entry of ``x`` is NaN or infinite (the message names the state), or an energy
        overflows from finite values (the message names the largest state and datum).
    """
    with np.errstate(all="ignore"):  # an overflow is reported below, not warned
        kinetic, potential = energy_terms(model, x, params)
    both = np.stack(np.broadcast_arrays(kinetic, potential), axis=-1)
    if not np.all(np.isfinite(both)):
        raise non_finite_error(model, x, None, model.physics(params), both, "energy",
                               ("kinetic", "potential"))
    return kinetic, potential


def energy_terms(model: Tree, x: Any, params: Any = None) -> tuple[np.ndarray, np.ndarray]:
    """Kinetic and potential energy [J], as computed: NaN or inf where they overflow.

    What :func:`energy` returns (the same terms: see there), without its check of the
    result: the trim by energy (:mod:`titop_lpv.analysis.trim_energy`) reads a non-finite
    potential as a rejected step.

    Parameters
    ----------
    model : Tree
        The compiled tree (a :class:`titop_lpv.Model`).
    x : array_like (..., n_states)
        State(s), in ``model.state_names`` order; leading axes are a batch (e.g. the
        ``traj.x`` of a simulation).
    params : dict or array_like, optional
        Parameter values (a dict ``name -> value`` or an array in ``model.param_names``
        order); defaults when omitted.

    Returns
    -------
    kinetic, potential : ndarray, shape (...)

    Raises
    ------
    DynamicsError
        An entry of ``x`` is NaN or infinite (the message names the state).
    """
    kin = _finite_kinematics(model, x, params, "energy")
    ph = kin.phys
    tw = np.stack(kin.tw, axis=-2)
    kinetic = 0.5 * np.sum(tw * matvec(ph.D, tw), axis=(-1, -2))
    Pall = np.stack(kin.P, axis=-3)
    r_com = np.stack(kin.r, axis=-2) + matvec(Pall, ph.com)
    potential = -np.sum(ph.mass * dot(r_com, ph.gravity[..., None, :]), axis=-1)
    one = is_one_dof(model.kind)
    potential = potential + 0.5 * np.sum(np.where(one, ph.k * (kin.q - ph.rest) ** 2, 0.0),
                                         axis=-1)
    potential = potential + multi_dof_potential(model, np.asarray(x), kin)
    lds = model.loads
    for k, b in enumerate(lds.body):
        if lds.kind[k] >= 2 or lds.body_frame[k]:  # torques and damping: no potential
            continue
        F = (-(ph.load_fraction[..., k] * ph.total_mass)[..., None] * ph.gravity
             if lds.kind[k] == 0 else ph.load_vec[..., k, :])
        r_pt = kin.r[b] + matvec(kin.P[b], ph.load_point[..., k, :])
        potential = potential - dot(F, r_pt)
    if model.loops.a.size:
        potential = potential + loop_potential(model, kin)
    return kinetic, potential


def center_of_mass(model: Tree, x: Any, params: Any = None) -> np.ndarray:
    """Position of the total centre of mass [m], inertial frame, shape (..., 3).

    Parameters
    ----------
    model : Tree
        The compiled tree (a :class:`titop_lpv.Model`).
    x : array_like (..., n_states)
        State(s), in ``model.state_names`` order; leading axes are a batch (e.g. the
        ``traj.x`` of a simulation).
    params : dict or array_like, optional
        Parameter values (a dict ``name -> value`` or an array in ``model.param_names``
        order); defaults when omitted.

    Returns
    -------
    ndarray (..., 3)

    Raises
    ------
    DynamicsError
        An entry of ``x`` is NaN or infinite (the message names the state), or the result
        overflows from finite values.
    """
    kin = _finite_kinematics(model, x, params, "centre of mass")
    ph = kin.phys
    with np.errstate(all="ignore"):  # an overflow is reported below, not warned
        r_com = np.stack(kin.r, axis=-2) + matvec(np.stack(kin.P, axis=-3), ph.com)
        com = np.sum(ph.mass[..., None] * r_com, axis=-2) / ph.total_mass[..., None]
    if not np.all(np.isfinite(com)):
        raise non_finite_error(model, x, None, ph, com, "centre of mass", ("x", "y", "z"))
    return com


def momentum(model: Tree, x: Any, params: Any = None) -> tuple[np.ndarray, np.ndarray]:
    """Linear momentum [kg m/s] and angular momentum about the inertial origin [kg m²/s].

    Both in the inertial frame, shape (..., 3) each.

    Parameters
    ----------
    model : Tree
        The compiled tree (a :class:`titop_lpv.Model`).
    x : array_like (..., n_states)
        State(s), in ``model.state_names`` order; leading axes are a batch (e.g. the
        ``traj.x`` of a simulation).
    params : dict or array_like, optional
        Parameter values (a dict ``name -> value`` or an array in ``model.param_names``
        order); defaults when omitted.

    Returns
    -------
    linear, angular : ndarray (..., 3)

    Raises
    ------
    DynamicsError
        An entry of ``x`` is NaN or infinite (the message names the state), or the result
        overflows from finite values.
    """
    kin = _finite_kinematics(model, x, params, "momentum")
    ph = kin.phys
    Pall = np.stack(kin.P, axis=-3)
    tw = np.stack(kin.tw, axis=-2)
    v, w = tw[..., :3], tw[..., 3:]
    inertia = ph.vals[..., model.slots.inertia]
    with np.errstate(all="ignore"):  # an overflow is reported below, not warned
        p_body = ph.mass[..., None] * (v + cross(w, ph.com))  # m v_B, body frame
        r_com = np.stack(kin.r, axis=-2) + matvec(Pall, ph.com)
        p_in = matvec(Pall, p_body)
        h_in = cross(r_com, p_in) + matvec(Pall, matvec(inertia, w))
        both = np.concatenate([np.sum(p_in, axis=-2), np.sum(h_in, axis=-2)], axis=-1)
    if not np.all(np.isfinite(both)):
        raise non_finite_error(model, x, None, ph, both, "momentum",
                               ("px", "py", "pz", "hx", "hy", "hz"))
    return both[..., :3], both[..., 3:]


def multi_dof_potential(model: Tree, x: np.ndarray, kin: Kinematics) -> np.ndarray:
    """Potential of the springs of the spherical and universal joints [J], shape (...).

    Parameters
    ----------
    model : Tree
        The compiled tree.
    x : ndarray (..., n_states)
        States.
    kin : Kinematics
        The motion at ``x``.

    Returns
    -------
    ndarray (...)
    """
    ph = kin.phys
    total = np.zeros(kin.batch, dtype=kin.dtype)
    for i in kin.S:
        qi, ex = int(model.q_index[i]), ph.extra[..., i, :]
        if model.kind[i] == SPHERICAL:
            theta = log(multiply(conjugate(normalize(ex[..., 0:4])), x[..., qi:qi + 4]))
            total = total + 0.5 * ph.k[..., i] * dot(theta, theta)
        elif model.kind[i] == UNIVERSAL:
            total = total + 0.5 * (ph.k[..., i] * (x[..., qi] - ph.rest[..., i]) ** 2
                                   + ex[..., 3] * (x[..., qi + 1] - ex[..., 5]) ** 2)
    return total
