"""Sensor outputs of a batch of states, compiled: the kinematic sweep and the sensor formulas
of :func:`~titop_lpv.multibody.dynamics.evaluate_outputs` as explicit loops (numba).

For each state the root → tips sweep gives every body's DCM ``P_{a/i}``, origin ``IP`` and
twist ``[v; ω]`` (eqs. 17, 24, as :func:`~titop_lpv.multibody.kinematics.kinematics`); when a
sensor reads accelerations, a second pass rebuilds each body's spatial acceleration
``ẋ' = X ẋ'_parent + c + S q̈`` from the state derivative that the forward dynamics returned
(its rows ``q̈``, ``ν̇`` and the floating base's ``[v̇; ω̇]``). Then every sensor:
joint ``q``/``qd``/``qdd`` (a spherical joint's unit quaternion), Euler ``attitude``,
``position``, ``velocity``, ``angular_velocity`` and ``acceleration`` of a point, in the
body or the inertial frame. The driving force ``tau`` of a driven joint is not covered
(its columns are left to the numpy recursion: :func:`covered`).

Everything is analytic (the arctangent of the Euler angles is the complex-step-safe form of
:func:`~titop_lpv.spatial.euler.atan2`), so complex-step perturbations pass through: the
``C``/``D`` Jacobians of :func:`~titop_lpv.analysis.linearize.jacobians` come from one call.
Two specialisations (real, complex states), compiled on first use and cached on disk; under
the compile policy of :mod:`~titop_lpv.multibody.kernel_ready` a session uses them only when
they are compiled or cached (:func:`ready`). Agreement with the numpy reference: 1e-13
relative (``tests/test_sensor_kernel.py``).
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..spatial.algebra import skew
from ..spatial.euler import check_sequence
from . import kernel_ready
from .joints import FREE, PRISMATIC, REVOLUTE, SPHERICAL, UNIVERSAL
from .kernel_args import entry_point, signature_id
from .tables import Physics
from .tree import Tree

__all__ = ["PROBE_S", "SENSOR_CODES", "SensorData", "covered", "evaluate", "load_cached", "ready",
           "sensor_data"]

# sensor kinds the kernel computes, and their codes in its argument `s_kind`
SENSOR_CODES = {"q": 0, "qd": 1, "qdd": 2, "attitude": 3, "position": 4, "velocity": 5,
                "angular_velocity": 6, "acceleration": 7}

_LOCK = threading.Lock()
_STATE: dict[str, Any] = {"fn": None, "loaded": set(), "probed": {}}
PROBE_S = 5.0  # s between two looks at the disk cache while the kernel is not ready


@dataclass(frozen=True)
class SensorData:
    """Arguments of the sensor kernel for one model and one unbatched real parameter vector.

    Attributes
    ----------
    args : tuple
        The kernel's positional arguments after the states, inputs and derivatives.
    needs_xdot : bool
        Some sensor reads an acceleration (``qdd``, ``acceleration``): the caller passes the
        state derivative.
    signature : int
        :func:`~titop_lpv.multibody.kernel_args.signature_id` of :attr:`args`, computed on
        construction unless given (:func:`sensor_data`: once per model): :func:`evaluate`
        keys the kernel's compiled entry points by it.
    """

    args: tuple[Any, ...]
    needs_xdot: bool
    signature: int = field(default=-2, compare=False, repr=False)

    def __post_init__(self) -> None:  # what numba's types of `args` depend on (evaluate)
        if self.signature == -2:  # not given: computed
            object.__setattr__(self, "signature", signature_id(self.args))

    def __reduce__(self) -> tuple[Any, ...]:  # ids are per process: computed again
        return (SensorData, (self.args, self.needs_xdot))


def covered(model: Tree) -> list[bool]:
    """Which sensors of the model the kernel computes (all but ``tau``), in output order.

    Parameters
    ----------
    model : Tree
        The compiled model.

    Returns
    -------
    list of bool
        One per declared sensor (:attr:`Tree.output_specs`).
    """
    return [spec.kind in SENSOR_CODES for spec in model.output_specs]


def sensor_data(model: Tree, ph: Physics) -> SensorData:
    """The kernel's arguments for one model and unbatched real physical data.

    Parameters
    ----------
    model : Tree
        The compiled model, :func:`covered`.
    ph : Physics
        Its physical data for one real parameter vector (no batch axes).

    Returns
    -------
    SensorData
    """
    def arr(a: Any) -> np.ndarray:  # writable C copies: one numba signature for all models
        return np.array(a, dtype=float, order="C", copy=True)

    fixed = model.memo("sensor_kernel_index", None, lambda: _index(model))
    kind = fixed[0]
    a1c = np.zeros((kind.size, 3))
    for i in np.flatnonzero(kind == UNIVERSAL):  # P_{a0/b}ᵀ axis1 (unit), as kinematics
        a1 = ph.extra[i, 0:3] / np.sqrt(np.sum(ph.extra[i, 0:3] ** 2))
        a1c[i] = ph.rot[i].T @ a1
    K = skew(np.asarray(ph.axis, dtype=float))
    K1 = skew(a1c)  # a universal joint's first axis, child frame at q = 0
    specs = model.output_specs
    pts = np.zeros((len(specs), 3))
    at = fixed[-1]  # the point sensors
    if at.size:
        pts[at] = np.asarray(ph.vals, dtype=float)[np.stack([specs[s].point for s in at])]
    needs = any(spec.kind in ("qdd", "acceleration") for spec in specs)
    args = (*fixed[:7], arr(ph.rot), arr(K), arr(K @ K), arr(ph.axis), arr(ph.offset), arr(a1c),
            arr(K1), arr(K1 @ K1), arr(ph.S), *fixed[7:10], pts, *fixed[10:13], needs)
    return SensorData(args, needs, model.memo("sensor_kernel_signature", None,
                                              lambda: signature_id(args)))


def _index(model: Tree) -> tuple[Any, ...]:
    """The kernel's arguments that do not depend on the parameters (built once per model),
    then the indices of the point sensors."""
    def ints(a: Any) -> np.ndarray:
        return np.array(a, dtype=np.int64, order="C", copy=True).reshape(-1)

    specs = model.output_specs
    i, j, k = check_sequence(model.euler)
    parity = 1.0 if (j - i) % 3 == 1 else -1.0  # spatial.euler._parity(i, j, k or l)
    return (ints(model.kind), ints(model.parent), ints(model.q_index), ints(model.qd_index),
            int(model.base_index), bool(model.attitude == "quaternion"), ints([i, j, k]),
            ints([SENSOR_CODES.get(sp.kind, -1) for sp in specs]), ints([sp.body for sp in specs]),
            ints([sp.columns.start for sp in specs]),
            np.array([bool(sp.body_frame) for sp in specs], dtype=np.bool_), float(parity),
            bool(i == k), np.array([s for s, sp in enumerate(specs)
                                    if sp.kind not in ("q", "qd", "qdd", "attitude", "tau")],
                                   dtype=np.intp))


def _atan2(y, x, iu):  # pragma: no cover - run compiled
    """:func:`~titop_lpv.spatial.euler.atan2`: ``iu`` is 0 for real states, 1j for complex."""
    yr, yi, xr, xi = y.real, y.imag, x.real, x.imag
    return np.arctan2(yr, xr) + iu * ((xr * yi - yr * xi) / (xr * xr + yr * yr))


def _elementary(axis, angle, R):  # pragma: no cover - run compiled
    c = np.cos(angle)
    s = np.sin(angle)
    for a in range(3):
        for b in range(3):
            R[a, b] = 0.0 * c
    R[axis, axis] = 1.0 + 0.0 * c
    a = (axis + 1) % 3
    b = (axis + 2) % 3
    R[a, a] = c
    R[a, b] = -s
    R[b, a] = s
    R[b, b] = c


def _quat(xm, qi, E):  # pragma: no cover - run compiled
    """``E = R(q/|q|)`` of the quaternion ``xm[qi:qi + 4]`` (as spatial.quaternion.to_dcm)."""
    n = np.sqrt(xm[qi] ** 2 + xm[qi + 1] ** 2 + xm[qi + 2] ** 2 + xm[qi + 3] ** 2)
    w, x, y, z = xm[qi] / n, xm[qi + 1] / n, xm[qi + 2] / n, xm[qi + 3] / n
    E[0, 0] = 1 - 2 * (y * y + z * z)
    E[0, 1] = 2 * (x * y - w * z)
    E[0, 2] = 2 * (x * z + w * y)
    E[1, 0] = 2 * (x * y + w * z)
    E[1, 1] = 1 - 2 * (x * x + z * z)
    E[1, 2] = 2 * (y * z - w * x)
    E[2, 0] = 2 * (x * z - w * y)
    E[2, 1] = 2 * (y * z + w * x)
    E[2, 2] = 1 - 2 * (x * x + y * y)


def _rot(K, K2, q, E):  # pragma: no cover - run compiled
    """``E = 1 + sin q K + (1 − cos q) K²`` (eq. 16)."""
    s = np.sin(q)
    c = 1.0 - np.cos(q)
    for a in range(3):
        for b in range(3):
            E[a, b] = (1.0 if a == b else 0.0) + s * K[a, b] + c * K2[a, b]


def _mul(A, B, out):  # pragma: no cover - run compiled
    """``out = A B`` (3×3)."""
    for a in range(3):
        for b in range(3):
            out[a, b] = A[a, 0] * B[0, b] + A[a, 1] * B[1, b] + A[a, 2] * B[2, b]


def _cross(a, b, out):  # pragma: no cover - run compiled
    out[0] = a[1] * b[2] - a[2] * b[1]
    out[1] = a[2] * b[0] - a[0] * b[2]
    out[2] = a[0] * b[1] - a[1] * b[0]


def _sensors(x, xdot, y, iu, kind, parent, q_index, qd_index, base, base_quat, seq, R0, K, K2,
             axis, off, a1c, K1, K12, S, s_kind, s_body, s_col, s_pt, s_frame, parity, proper,
             needs):  # pragma: no cover - run compiled
    """``y[m]`` for every state ``x[m]`` (and its derivative ``xdot[m]`` when ``needs``)."""
    n = kind.shape[0]
    dt = y.dtype
    P = np.empty((n, 3, 3), dtype=dt)
    Pab = np.empty((n, 3, 3), dtype=dt)
    r = np.empty((n, 3), dtype=dt)
    tw = np.empty((n, 6), dtype=dt)
    c = np.empty((n, 6), dtype=dt)
    acc = np.empty((n, 6), dtype=dt)
    Sm = np.empty((n, 3, 2), dtype=dt)  # angular part of a universal joint's S
    E = np.empty((3, 3), dtype=dt)
    F = np.empty((3, 3), dtype=dt)
    G = np.empty((3, 3), dtype=dt)
    t3 = np.empty(3, dtype=dt)
    u3 = np.empty(3, dtype=dt)
    w3 = np.empty(3, dtype=dt)
    vec = np.empty(3, dtype=dt)
    zero = 0.0 * iu
    for m in range(x.shape[0]):
        xm = x[m]
        for i in range(n):  # ---- root -> tips: P, r, twist, velocity product c
            ki = kind[i]
            if ki == FREE:
                for a in range(6):
                    tw[i, a] = xm[base + a]
                    c[i, a] = zero
                for a in range(3):
                    r[i, a] = xm[base + 6 + a]
                if base_quat:
                    _quat(xm, base + 9, P[i])
                else:
                    _elementary(seq[0], xm[base + 11], E)
                    _elementary(seq[1], xm[base + 10], F)
                    _mul(E, F, G)
                    _elementary(seq[2], xm[base + 9], E)
                    _mul(G, E, P[i])
                continue
            q = xm[q_index[i]] if (ki == REVOLUTE or ki == PRISMATIC) else zero
            qd = xm[qd_index[i]] if (ki == REVOLUTE or ki == PRISMATIC) else zero
            if ki == REVOLUTE:
                _rot(K[i], K2[i], q, E)
                _mul(R0[i], E, Pab[i])
            elif ki == SPHERICAL:
                _quat(xm, q_index[i], E)
                _mul(R0[i], E, Pab[i])
            elif ki == UNIVERSAL:  # P0 R(a1c, q1) R(a2, q2) (K: skew(a2))
                qi = q_index[i]
                _rot(K[i], K2[i], xm[qi + 1], E)  # R(a2, q2)
                for a in range(3):  # S's angular columns: s1 = R(a2, q2)ᵀ a1c, a2
                    Sm[i, a, 0] = E[0, a] * a1c[i, 0] + E[1, a] * a1c[i, 1] + E[2, a] * a1c[i, 2]
                    Sm[i, a, 1] = axis[i, a] + zero
                _rot(K1[i], K12[i], xm[qi], F)  # R(a1c, q1)
                _mul(R0[i], F, G)
                _mul(G, E, Pab[i])
            else:
                for a in range(3):
                    for b in range(3):
                        Pab[i, a, b] = R0[i, a, b] + zero
            p = parent[i]
            if p >= 0:
                _cross(tw[p, 3:], off[i], t3)
                for a in range(3):
                    t3[a] += tw[p, a]
            else:
                for a in range(3):
                    t3[a] = zero
            for a in range(3):
                tw[i, a] = Pab[i, 0, a] * t3[0] + Pab[i, 1, a] * t3[1] + Pab[i, 2, a] * t3[2]
                if p >= 0:
                    tw[i, 3 + a] = (Pab[i, 0, a] * tw[p, 3] + Pab[i, 1, a] * tw[p, 4]
                                    + Pab[i, 2, a] * tw[p, 5])
                else:
                    tw[i, 3 + a] = zero
            if p >= 0:
                _mul(P[p], Pab[i], P[i])
                for a in range(3):
                    r[i, a] = r[p, a] + P[p, a, 0] * off[i, 0] + P[p, a, 1] * off[i, 1] \
                        + P[p, a, 2] * off[i, 2]
            else:
                for a in range(3):
                    r[i, a] = off[i, a] + zero
                    for b in range(3):
                        P[i, a, b] = Pab[i, a, b]
            for a in range(6):
                c[i, a] = zero
            if ki == PRISMATIC:  # eq. 24: v += ω × q t + q̇ t, c = [q̇ ω × t; 0]
                for a in range(3):
                    u3[a] = q * axis[i, a]
                _cross(tw[i, 3:], u3, t3)
                for a in range(3):
                    tw[i, a] += t3[a] + qd * axis[i, a]
                _cross(tw[i, 3:], axis[i], t3)
                for a in range(3):
                    c[i, a] = qd * t3[a]
                for a in range(3):
                    r[i, a] += P[i, a, 0] * u3[0] + P[i, a, 1] * u3[1] + P[i, a, 2] * u3[2]
            elif ki == REVOLUTE:  # eq. 17: ω += q̇ r, c = [q̇ v × r; q̇ ω × r]
                for a in range(3):
                    tw[i, 3 + a] += qd * axis[i, a]
                _cross(tw[i, :3], axis[i], t3)
                _cross(tw[i, 3:], axis[i], u3)
                for a in range(3):
                    c[i, a] = qd * t3[a]
                    c[i, 3 + a] = qd * u3[a]
            elif ki == SPHERICAL or ki == UNIVERSAL:  # ω += ω_rel, c = [v × ω_rel; ω × ω_rel + Ṡν]
                qdi = qd_index[i]
                for a in range(3):
                    if ki == SPHERICAL:
                        w3[a] = xm[qdi + a]
                    else:
                        w3[a] = Sm[i, a, 0] * xm[qdi] + Sm[i, a, 1] * xm[qdi + 1]
                for a in range(3):
                    tw[i, 3 + a] += w3[a]
                _cross(tw[i, :3], w3, t3)
                _cross(tw[i, 3:], w3, u3)
                for a in range(3):
                    c[i, a] = t3[a]
                    c[i, 3 + a] = u3[a]
                if ki == UNIVERSAL:
                    f = xm[qdi] * xm[qdi + 1]
                    c[i, 3] += f * (Sm[i, 1, 0] * Sm[i, 2, 1] - Sm[i, 2, 0] * Sm[i, 1, 1])
                    c[i, 4] += f * (Sm[i, 2, 0] * Sm[i, 0, 1] - Sm[i, 0, 0] * Sm[i, 2, 1])
                    c[i, 5] += f * (Sm[i, 0, 0] * Sm[i, 1, 1] - Sm[i, 1, 0] * Sm[i, 0, 1])
        if needs:  # ---- root -> tips: ẋ' = X ẋ'_parent + c + S q̈ (q̈, ν̇ from xdot)
            xd = xdot[m]
            for i in range(n):
                ki = kind[i]
                if ki == FREE:
                    for a in range(6):
                        acc[i, a] = xd[base + a]
                    continue
                p = parent[i]
                for a in range(6):
                    acc[i, a] = c[i, a]
                if p >= 0:  # [Pᵀ (a_p + ω̇_p × off) + (Pᵀ ω̇_p) × q t; Pᵀ ω̇_p]
                    _cross(acc[p, 3:], off[i], t3)
                    for a in range(3):
                        t3[a] += acc[p, a]
                    for a in range(3):
                        u3[a] = (Pab[i, 0, a] * acc[p, 3] + Pab[i, 1, a] * acc[p, 4]
                                 + Pab[i, 2, a] * acc[p, 5])
                        acc[i, a] += Pab[i, 0, a] * t3[0] + Pab[i, 1, a] * t3[1] \
                            + Pab[i, 2, a] * t3[2]
                        acc[i, 3 + a] += u3[a]
                    if ki == PRISMATIC:
                        for a in range(3):
                            w3[a] = xm[q_index[i]] * axis[i, a]
                        _cross(u3, w3, t3)
                        for a in range(3):
                            acc[i, a] += t3[a]
                qdi = qd_index[i]
                if ki == REVOLUTE or ki == PRISMATIC:
                    for a in range(6):
                        acc[i, a] += S[i, a] * xd[qdi]
                elif ki == SPHERICAL:
                    for a in range(3):
                        acc[i, 3 + a] += xd[qdi + a]
                elif ki == UNIVERSAL:
                    for a in range(3):
                        acc[i, 3 + a] += Sm[i, a, 0] * xd[qdi] + Sm[i, a, 1] * xd[qdi + 1]
        for s in range(s_kind.shape[0]):  # ---- the sensors
            code = s_kind[s]
            b = s_body[s]
            col = s_col[s]
            kb = kind[b]
            if code < 0:  # not covered (tau): the caller's
                continue
            if code <= 2:  # q, qd, qdd
                if code == 0 and kb == SPHERICAL:
                    qi = q_index[b]
                    nq = np.sqrt(xm[qi] ** 2 + xm[qi + 1] ** 2 + xm[qi + 2] ** 2
                                 + xm[qi + 3] ** 2)
                    for a in range(4):
                        y[m, col + a] = xm[qi + a] / nq
                    continue
                nv = 1 if (kb == REVOLUTE or kb == PRISMATIC) else (
                    3 if kb == SPHERICAL else (2 if kb == UNIVERSAL else 0))
                if nv == 0:
                    y[m, col] = zero
                    continue
                for a in range(nv):
                    if code == 0:
                        y[m, col + a] = xm[q_index[b] + a]
                    elif code == 1:
                        y[m, col + a] = xm[qd_index[b] + a]
                    else:
                        y[m, col + a] = xdot[m, qd_index[b] + a]
                continue
            if code == 3:  # attitude: Euler angles of P_{b/i} (spatial.euler.dcm_to_euler)
                if kb == FREE and not base_quat:
                    for a in range(3):
                        y[m, col + a] = xm[base + 9 + a]
                    continue
                Pb = P[b]
                i0, j0, k0 = seq[0], seq[1], seq[2]
                if not proper:
                    y[m, col + 1] = _atan2(parity * Pb[i0, k0],
                                           np.sqrt(Pb[i0, i0] ** 2 + Pb[i0, j0] ** 2), iu)
                    y[m, col] = _atan2(-parity * Pb[i0, j0], Pb[i0, i0], iu)
                    y[m, col + 2] = _atan2(-parity * Pb[j0, k0], Pb[k0, k0], iu)
                else:
                    l0 = 3 - i0 - j0
                    y[m, col + 1] = _atan2(np.sqrt(Pb[i0, j0] ** 2 + Pb[i0, l0] ** 2),
                                           Pb[i0, i0], iu)
                    y[m, col] = _atan2(Pb[i0, j0], parity * Pb[i0, l0], iu)
                    y[m, col + 2] = _atan2(Pb[j0, i0], -parity * Pb[l0, i0], iu)
                continue
            pt = s_pt[s]
            if code == 4:  # position: IP + P pt (inertial)
                for a in range(3):
                    y[m, col + a] = r[b, a] + P[b, a, 0] * pt[0] + P[b, a, 1] * pt[1] \
                        + P[b, a, 2] * pt[2]
                continue
            if code == 5:  # velocity: v + ω × pt
                _cross(tw[b, 3:], pt, t3)
                for a in range(3):
                    vec[a] = tw[b, a] + t3[a]
            elif code == 6:
                for a in range(3):
                    vec[a] = tw[b, 3 + a]
            else:  # acceleration: a + ω × v + ω̇ × pt + ω × (ω × pt)
                _cross(tw[b, 3:], tw[b, :3], t3)
                _cross(acc[b, 3:], pt, u3)
                _cross(tw[b, 3:], pt, w3)
                for a in range(3):
                    vec[a] = acc[b, a] + t3[a] + u3[a]
                _cross(tw[b, 3:], w3, t3)
                for a in range(3):
                    vec[a] += t3[a]
            for a in range(3):
                if s_frame[s]:
                    y[m, col + a] = vec[a]
                else:
                    y[m, col + a] = P[b, a, 0] * vec[0] + P[b, a, 1] * vec[1] + P[b, a, 2] * vec[2]


_HELPERS = ("_atan2", "_elementary", "_quat", "_rot", "_mul", "_cross")


def _compiled() -> Any:
    """The numba dispatcher of ``_sensors`` (its helpers compiled first; once, thread-safe)."""
    fn = _STATE["fn"]
    if fn is None:
        with _LOCK:
            fn = _STATE["fn"]
            if fn is None:
                import numba  # heavy: imported on first use only

                space = globals()
                for name in _HELPERS:
                    space[name] = numba.njit(cache=True, inline="always",
                                             error_model="numpy")(space[name])
                fn = numba.njit(cache=True, error_model="numpy")(_sensors)
                _STATE["fn"] = fn
    return fn


def _probe(dtype: Any) -> tuple[Any, ...]:
    """Arguments with the signature of a call on states of ``dtype`` (any model)."""
    i1, m3, v3 = np.zeros(1, np.int64), np.zeros((1, 3, 3)), np.zeros((1, 3))
    z = np.zeros((1, 1), dtype=dtype)
    iu = np.complex128(1j) if dtype is np.complex128 else 0.0
    return (z, z, z, iu, i1, i1, i1, i1, 0, False, np.zeros(3, np.int64), m3, m3, m3, v3, v3,
            v3, m3, m3, np.zeros((1, 6)), i1, i1, i1, v3, np.zeros(1, np.bool_), 1.0, False,
            False)


def load_cached(dtype: Any) -> bool:
    """Make the specialisation for states of ``dtype`` ready without compiling, if possible.

    Parameters
    ----------
    dtype : numpy dtype
        ``float64`` or ``complex128``.

    Returns
    -------
    bool
        True when it is compiled in this process or was found in numba's disk cache (and is
        now loaded); False when only compiling it would make it ready.
    """
    import numba

    dt = np.complex128 if np.dtype(dtype).kind == "c" else np.float64
    fn = _compiled()
    sig = tuple(numba.typeof(a) for a in _probe(dt))
    if sig in fn.overloads:
        return True
    cache = getattr(fn, "_cache", None)
    if cache is None or cache.load_overload(sig, fn.targetctx) is None:
        return False
    fn.compile(sig)  # a disk-cache hit: loaded, not compiled
    return True


def ready(n_bodies: int, dtype: Any) -> bool:
    """Whether the kernel should run now for states of ``dtype`` (else the numpy route).

    It runs when compiled in this process or found in the disk cache, under the compile
    policy ``"wait"``, or for a model of more than
    :data:`~titop_lpv.multibody.kernel_ready.BACKGROUND_BODIES` bodies (where the numpy route
    costs more than the compilation): a first session on a small model never waits for it.

    Parameters
    ----------
    n_bodies : int
        Bodies of the model.
    dtype : numpy dtype
        dtype of the states.

    Returns
    -------
    bool
    """
    char = np.dtype(dtype).char
    if char in _STATE["loaded"]:
        return True
    if kernel_ready.policy() == "wait" or n_bodies > kernel_ready.BACKGROUND_BODIES:
        _STATE["loaded"].add(char)
        return True
    now = time.monotonic()  # a look at the disk cache at most every PROBE_S (a background
    if now - _STATE["probed"].get(char, -PROBE_S) >= PROBE_S:  # compiler may fill it)
        _STATE["probed"][char] = now
        if load_cached(dtype):
            _STATE["loaded"].add(char)
    return char in _STATE["loaded"]


def evaluate(data: SensorData, x: np.ndarray, xdot: np.ndarray | None, n_outputs: int
             ) -> np.ndarray:
    """Outputs for states ``x`` (M, n_x), shape (M, n_outputs).

    Parameters
    ----------
    data : SensorData
        From :func:`sensor_data`.
    x : ndarray (M, n_states)
        States (real or complex).
    xdot : ndarray (M, n_states) or None
        Their state derivatives (the forward dynamics at the same inputs); needed when
        ``data.needs_xdot``.
    n_outputs : int
        Number of outputs of the model.

    Returns
    -------
    ndarray (M, n_outputs)
        Not checked for NaN or infinite entries (the caller does); the columns of the
        sensors it does not cover (:func:`covered`) are zero.
    """
    x = x if type(x) is np.ndarray else np.asarray(x)
    xd = x if xdot is None else xdot if type(xdot) is np.ndarray else np.asarray(xdot)
    dt = _C128 if x.dtype.kind == "c" or xd.dtype.kind == "c" else _F64
    if x.dtype is not dt or not x.flags.carray:  # aligned writable C arrays
        x = np.require(x, dtype=dt, requirements=["C", "W", "A"])
    if xdot is None:
        xd = x
    elif xd.dtype is not dt or not xd.flags.carray:
        xd = np.require(xd, dtype=dt, requirements=["C", "W", "A"])
    y = np.zeros((x.shape[0], n_outputs), dtype=dt)
    iu = _IU if dt is _C128 else 0.0
    key = (dt.char, data.signature)
    entry = _ENTRY_POINTS.get(key) if x.ndim == 2 and xd.ndim == 2 else None
    if entry is not None:  # no numba type dispatch of the ~30 arguments
        entry(x, xd, y, iu, *data.args)
        return y
    _compiled()(x, xd, y, iu, *data.args)
    if data.signature >= 0 and x.ndim == 2 and xd.ndim == 2:  # keep the entry point
        entry = entry_point(_compiled(), (x, xd, y, iu, *data.args))
        if entry is not None:
            _ENTRY_POINTS[key] = entry
    return y


_F64, _C128 = np.dtype(np.float64), np.dtype(np.complex128)
_IU = np.complex128(1j)
# (dtype character, SensorData.signature) -> numba's entry point of the kernel for 2-D
# aligned writable C states of that dtype (as evaluate passes them) and such arguments
_ENTRY_POINTS: dict[tuple[str, int], Any] = {}
