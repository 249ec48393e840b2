"""Loop-closure spring-dampers (paper §3.4, the block ``L_C^A`` of Fig. 14).

A kinematic loop is cut at a point C; the two sides of the cut end at the points ``a`` and
``b`` of two bodies of the tree. The loop block feeds the relative motion vector of ``b``
with respect to ``a`` (projected in the frame of ``a``'s body) back to an equal and opposite
pair of wrenches through a diagonal stiffness ``K = diag(K_t, K_r)`` and damping
``D = diag(D_t, D_r)``. With

* ``δp = P_aᵀ (r_B − r_A)``: position of ``b`` relative to ``a`` [m], frame of ``a``;
* ``R = P_aᵀ P_b``: attitude of ``b``'s body relative to ``a``'s;
* ``δṗ`` (its time derivative, frame of ``a``) and ``δω = R ω_b − ω_a`` [rad/s],

the loop derives from the potential ``V = ½ δpᵀ K_t δp + tr(G (I − R))``,
``G = ½ tr(K_r) I − K_r`` (so that ``V ≈ ½ θᵀ K_r θ`` for a small rotation θ), and from
Rayleigh's dissipation ``½ δṗᵀ D_t δṗ + ½ δωᵀ D_r δω``. The generalised forces on the two
bodies' twists are the wrenches (body frame, at the body origin)

* on ``a``: force ``f``, torque ``(p_a + δp) × f + vee(R G − G Rᵀ) + D_r δω``;
* on ``b``: force ``−Rᵀ f``, torque ``p_b × (−Rᵀ f) − vee(G R − Rᵀ G) − Rᵀ D_r δω``;

with ``f = K_t δp + D_t δṗ`` and ``vee(A − Aᵀ) = (A₃₂ − A₂₃, A₁₃ − A₃₁, A₂₁ − A₁₂)``. The term
``δp × f`` comes from ``δp`` being measured in the rotating frame of ``a``: with it, the pair is
exactly conservative for any diagonal ``K`` (energy is a test) and balances (zero net force and
moment). Every operation is analytic (complex-step safe) and vectorised over batch axes and
loops.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..spatial.algebra import cross, matvec, transpose
from .kinematics import Kinematics
from .tree import Tree

__all__ = ["LoopState", "loop_potential", "loop_state", "loop_wrenches"]


@dataclass(frozen=True)
class LoopState:
    """Relative motion across every loop; arrays with a loop axis before the last.

    Attributes
    ----------
    dp : ndarray (..., L, 3)
        δp [m], frame of ``a``'s body.
    R : ndarray (..., L, 3, 3)
        Relative attitude ``P_{a/i}ᵀ P_{b/i}``.
    dpd : ndarray (..., L, 3)
        δṗ [m/s], frame of ``a``'s body.
    dw : ndarray (..., L, 3)
        δω [rad/s], frame of ``a``'s body.
    Pa, Pb : ndarray (..., L, 3, 3)
        Attitudes of the two bodies.
    pa, pb : ndarray (..., L, 3)
        Attachment points [m], each in its body's frame.
    k, d : ndarray (..., L, 6)
        Stiffness and damping.
    """

    dp: np.ndarray
    R: np.ndarray
    dpd: np.ndarray
    dw: np.ndarray
    Pa: np.ndarray
    Pb: np.ndarray
    pa: np.ndarray
    pb: np.ndarray
    k: np.ndarray
    d: np.ndarray


def _vee_asym(A: np.ndarray) -> np.ndarray:
    """``vee(A − Aᵀ)`` over the last two axes."""
    return np.stack((A[..., 2, 1] - A[..., 1, 2], A[..., 0, 2] - A[..., 2, 0],
                     A[..., 1, 0] - A[..., 0, 1]), axis=-1)


def loop_state(model: Tree, kin: Kinematics) -> LoopState:
    """Relative motion across every loop.

    Parameters
    ----------
    model : Tree
        The compiled model.
    kin : Kinematics
        Result of :func:`titop_lpv.multibody.kinematics.kinematics` for every body.

    Returns
    -------
    LoopState
    """
    lp, ph = model.loops, kin.phys
    Pa = np.stack([kin.P[i] for i in lp.a], axis=-3)
    Pb = np.stack([kin.P[i] for i in lp.b], axis=-3)
    ra = np.stack([kin.r[i] for i in lp.a], axis=-2)
    rb = np.stack([kin.r[i] for i in lp.b], axis=-2)
    twa = np.stack([kin.tw[i] for i in lp.a], axis=-2)
    twb = np.stack([kin.tw[i] for i in lp.b], axis=-2)
    pa, pb = ph.loop_point_a, ph.loop_point_b
    dp = matvec(transpose(Pa), rb + matvec(Pb, pb) - ra - matvec(Pa, pa))
    R = np.swapaxes(Pa, -1, -2) @ Pb
    wa, wb = twa[..., 3:], twb[..., 3:]
    vB = matvec(R, twb[..., :3] + cross(wb, pb))  # velocity of B, frame of a
    vA = twa[..., :3] + cross(wa, pa)
    dpd = vB - vA - cross(wa, dp)
    dw = matvec(R, wb) - wa
    return LoopState(dp=dp, R=R, dpd=dpd, dw=dw, Pa=Pa, Pb=Pb, pa=pa, pb=pb,
                     k=ph.loop_k, d=ph.loop_d)


def _g_diag(k: np.ndarray) -> np.ndarray:
    """Diagonal of ``G = ½ tr(K_r) I − K_r``."""
    kr = k[..., 3:]
    return 0.5 * np.sum(kr, axis=-1, keepdims=True) - kr


def loop_wrenches(model: Tree, kin: Kinematics) -> np.ndarray:
    """Wrenches of the loop-closure spring-dampers on every body, (..., n_bodies, 6).

    Force [N] and torque [N m] at each body's origin, body frame — the layout of the
    external wrenches of :mod:`titop_lpv.multibody.dynamics` (zero for bodies without a loop).

    Parameters
    ----------
    model : Tree
        The compiled model.
    kin : Kinematics
        Result of :func:`titop_lpv.multibody.kinematics.kinematics` for every body.

    Returns
    -------
    ndarray, shape (..., n_bodies, 6)
    """
    n = len(model.body_names)
    lp = model.loops
    st = loop_state(model, kin)
    k, d = st.k, st.d
    f = k[..., :3] * st.dp + d[..., :3] * st.dpd
    G = _g_diag(k)
    R, RT = st.R, np.swapaxes(st.R, -1, -2)
    GR = G[..., :, None] * R
    RG = R * G[..., None, :]
    mdr = d[..., 3:] * st.dw
    Ta = cross(st.pa + st.dp, f) + _vee_asym(RG) + mdr
    Fb = -matvec(RT, f)
    Tb = cross(st.pb, Fb) - _vee_asym(GR) - matvec(RT, mdr)
    Wa = np.concatenate((f, Ta), axis=-1)
    Wb = np.concatenate((Fb, Tb), axis=-1)
    inc_a = (lp.a[:, None] == np.arange(n)[None, :]).astype(float)
    inc_b = (lp.b[:, None] == np.arange(n)[None, :]).astype(float)
    return (np.einsum("ln,...lj->...nj", inc_a, Wa)
            + np.einsum("ln,...lj->...nj", inc_b, Wb))


def loop_potential(model: Tree, kin: Kinematics) -> np.ndarray:
    """Potential energy [J] stored in the loop springs, shape (...).

    Parameters
    ----------
    model : Tree
        The compiled model.
    kin : Kinematics
        Result of :func:`titop_lpv.multibody.kinematics.kinematics` for every body.

    Returns
    -------
    ndarray, shape (...)
    """
    st = loop_state(model, kin)
    vt = 0.5 * np.sum(st.k[..., :3] * st.dp**2, axis=-1)
    diag = np.stack((st.R[..., 0, 0], st.R[..., 1, 1], st.R[..., 2, 2]), axis=-1)
    vr = np.sum(_g_diag(st.k) * (1.0 - diag), axis=-1)  # tr(G (I − R)), G diagonal
    return np.sum(vt + vr, axis=-1)
