"""The 3-parameter attitude error of spherical joints in linear models.

A spherical joint's attitude is a unit quaternion (4 states, one constraint). Linear models
use the rotation vector ``δr`` of the deviation instead, ``q = q_eq ⊗ exp(δr)`` (states
``b_rx b_ry b_rz``): around ``q_eq``, ``δq = G δr`` with ``G = ½ q_eq ⊗ (0, I)`` (the
quaternion rate matrix) and ``δr = T δq`` with ``T = 2 vec(q_eq* ⊗ ·)``; ``T G = I``. The
Jacobians of the full state map to the reduced ones as ``A_r = T A G``, ``B_r = T B``,
``C_r = C G``; the norm-stabilising term of the quaternion kinematics drops out (its
derivative along ``G`` vanishes).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..model.compiled import Model
from ..multibody.joints import SPHERICAL
from ..spatial.quaternion import normalize, rate_matrix

__all__ = ["attitude_error_map", "quaternion_starts", "reduced_state_names"]


def quaternion_starts(model: Model) -> dict[int, str]:
    """State index of each quaternion's ``qw`` → body name (spherical joints and a floating
    base with ``attitude = "quaternion"``).

    Parameters
    ----------
    model : Model
        The compiled model.

    Returns
    -------
    dict
    """
    out = {int(model.q_index[i]): model.body_names[i]
           for i in np.flatnonzero(model.kind == SPHERICAL)}
    if model.floating_base and model.attitude == "quaternion":
        out[model.base_index + 9] = model.body_names[0]
    return out


def reduced_state_names(model: Model) -> tuple[str, ...]:
    """The state names of a linear model: each quaternion ``b_qw b_qx b_qy b_qz`` (spherical
    joints, a quaternion floating base) replaced by the attitude error ``b_rx b_ry b_rz``.

    Parameters
    ----------
    model : Model
        The compiled model.

    Returns
    -------
    tuple of str
        ``model.state_names`` when the model has no quaternion.
    """
    names = list(model.state_names)
    for start, body in sorted(quaternion_starts(model).items(), reverse=True):
        names[start:start + 4] = [f"{body}_r{c}" for c in "xyz"]
    return tuple(names)


def attitude_error_map(model: Model, x: Any) -> tuple[tuple[str, ...], np.ndarray | None,
                                                      np.ndarray | None]:
    """Reduced state names and the maps ``T`` (n_r × n_x), ``G`` (n_x × n_r) at ``x``.

    Parameters
    ----------
    model : Model
        The compiled model.
    x : array_like (n_states,)
        The state of the operating point (its quaternions ``q_eq``).

    Returns
    -------
    names : tuple of str
        The state names with each ``b_qw b_qx b_qy b_qz`` replaced by ``b_rx b_ry b_rz``
        (spherical joints and a quaternion floating base).
    T, G : ndarray or None
        None when the model has no spherical joint (the identity).
    """
    starts = quaternion_starts(model)
    if not starts:
        return model.state_names, None, None
    x = np.asarray(x, dtype=float)
    names = reduced_state_names(model)
    rows: list[tuple[int, Any]] = []  # (first full index, 1 or the 3×4 block)
    k = 0
    while k < model.n_states:
        if k in starts:
            rows.append((k, normalize(x[k:k + 4])))
            k += 4
        else:
            rows.append((k, None))
            k += 1
    T = np.zeros((len(names), model.n_states))
    G = np.zeros((model.n_states, len(names)))
    r = 0
    for k, q in rows:
        if q is None:
            T[r, k] = G[k, r] = 1.0
            r += 1
            continue
        Gq = rate_matrix(q)  # δq = G δr (½ q ⊗ (0, δr))
        G[k:k + 4, r:r + 3] = Gq
        T[r:r + 3, k:k + 4] = 4.0 * Gq.T  # 4 Gᵀ G = I for a unit q: T G = I
        r += 3
    return names, T, G
