"""Static trims as minima of the potential energy: a trust-region Newton method.

For a static trim whose free variables are joint positions only, with zero inputs and
conservative loads, an equilibrium is a stationary point of the potential energy ``V``
restricted to the free joints: its gradient is the effort the joints would need to hold
the configuration (inverse dynamics at zero velocity and acceleration), its Hessian the
stiffness (exact: in closed form, :mod:`titop_lpv.multibody.stiffness`, when the model's
potential is gravity, buoyancy, constant inertial-frame forces and joint springs; else by a
complex step of that gradient, all directions in one batched call).
:func:`minimize` descends on ``V`` with a trust region in the joint coordinates, so that
it lands on a stable equilibrium (a minimum), near the start in the sense of the
steepest-descent flow, instead of wandering to a far root of the accelerations as
Gauss–Newton on ``‖ẋ‖`` can; the trim then checks the accelerations themselves.
:func:`applicable` says whether a problem qualifies (checked numerically: the directional
derivative of ``V`` must equal the gradient's along a random direction, which refuses
loads without a potential). For a model the closed form covers, ``V``, its gradient and
its stiffness at a real point all come from the compiled sweep of poses
(:mod:`titop_lpv.multibody.kinematics_kernel`); at rest, that check compares the closed
form with ``V`` itself (:func:`_closed_form_at_rest`) instead of running inverse dynamics.
The Newton step is taken from a Cholesky factor when the stiffness is positive definite,
the eigen-decomposition serving the other steps (for :data:`TRIDIAGONAL_MIN` joints or
more, the same steps from the stiffness's tridiagonal form, without its eigenvectors).
"""

from __future__ import annotations

import numpy as np
from scipy.linalg import lapack, solve_triangular

from ..multibody.energy import energy_terms
from ..multibody.inverse_dynamics import inverse_dynamics
from ..multibody.joints import FREE, REVOLUTE, SPHERICAL, UNIVERSAL, is_one_dof
from ..multibody.stiffness import gravity_stiffness, static_potential, supported
from .trim_solver import STEP, Evaluator, Problem

__all__ = ["EnergyProblem", "applicable", "minimize", "periodic", "trust_region_step"]

RADIUS0 = 0.5  # initial trust radius [rad or m]
MAX_ITER = 200
MEMO = 4  # Hessians kept by EnergyProblem.hessian
FD_STEP = 1e-3  # step [rad or m] of the central differences of _closed_form_at_rest
TRIDIAGONAL_MIN = 48  # rows from which trust_region_step skips forming the eigenvectors


class EnergyProblem:
    """Potential energy, its gradient and Hessian over the free joint positions.

    Parameters
    ----------
    prob : Problem
        A trim problem whose free variables are all joint positions (see
        :func:`applicable`).

    Attributes
    ----------
    closed_form : bool or None
        Whether the closed-form gradient and stiffness serve (None: not decided yet).
    compiled_potential : bool
        Whether a real point's potential comes from the compiled sweep of poses
        (:func:`~titop_lpv.multibody.stiffness.static_potential`): the model's potential is
        one the closed form covers and it has no spherical or universal joint.
    """

    def __init__(self, prob: Problem):
        model = prob.model
        self.prob = prob
        column, k = {}, 0  # actuation column of each one-d.o.f. joint (joint rates order)
        for b in range(len(model.body_names)):
            if model.kind[b] != FREE and model.nv[b]:
                if is_one_dof(model.kind[b]):
                    column[int(model.q_index[b])] = k
                k += int(model.nv[b])
        self.columns = np.array([column[i] for _, i in prob.where], dtype=int)
        self.zero_acc = np.zeros(len(model.velocity_indices()))
        first: dict[int, int] = {}  # joint position index -> first one-d.o.f. body there
        for b in np.flatnonzero(is_one_dof(model.kind)):
            first.setdefault(int(model.q_index[b]), int(b))
        self.bodies = np.array([first[int(i)] for _, i in prob.where], dtype=int)
        self.closed_form: bool | None = None if supported(model) else False
        self.compiled_potential = bool(self.closed_form is None and not np.any(
            (model.kind == SPHERICAL) | (model.kind == UNIVERSAL)))
        self._memo: list[tuple[np.ndarray, np.ndarray]] = []  # last MEMO (z, Hessian)
        self._efforts: tuple[np.ndarray, np.ndarray] | None = None  # last (z, ID gradient)

    def potential(self, z: np.ndarray) -> np.ndarray:
        """Potential energy [J] at ``z`` (..., n_free) (leading axes are a batch).

        Parameters
        ----------
        z : ndarray (..., n_free)
            Joint positions (real or complex).

        Returns
        -------
        ndarray (...)

        Notes
        -----
        A real point of a model without spherical or universal joints whose potential
        :func:`titop_lpv.multibody.stiffness.supported` covers is evaluated by
        :func:`~titop_lpv.multibody.stiffness.static_potential` (the compiled sweep of
        poses); any other point by :func:`titop_lpv.multibody.energy.energy_terms`.
        """
        X, _, P = self.prob.assemble(z)
        if self.compiled_potential and np.ndim(z) == 1 and not np.iscomplexobj(z):
            return np.asarray(static_potential(self.prob.model, X, P))
        return energy_terms(self.prob.model, X, P)[1]

    def gradient(self, z: np.ndarray) -> np.ndarray:
        """Gradient of :meth:`potential`: the joint efforts that hold the configuration.

        Parameters
        ----------
        z : ndarray (..., n_free)
            Joint positions (real or complex).

        Returns
        -------
        ndarray (..., n_free)

        Notes
        -----
        Once :meth:`hessian` has accepted the closed form, a real point is evaluated by
        :func:`titop_lpv.multibody.stiffness.gravity_stiffness` (one kinematics sweep, equal
        to inverse dynamics to rounding) and its Hessian memorised for :meth:`hessian`.
        """
        if self.closed_form and np.ndim(z) == 1 and not np.iscomplexobj(z):
            z = np.asarray(z, dtype=float)  # closed form: the Hessian from the same sweep
            X, _, P = self.prob.assemble(z)
            g, H = gravity_stiffness(self.prob.model, X, P, self.bodies)
            self._memo = [(z.copy(), H.copy()), *self._memo[:MEMO - 1]]
            return g
        real = np.ndim(z) == 1 and not np.iscomplexobj(z)
        if real and self._efforts is not None and np.array_equal(self._efforts[0], z):
            return self._efforts[1].copy()  # the start: asked by applicable and hessian
        X, _, P = self.prob.assemble(z)
        ida = inverse_dynamics(self.prob.model, X, self.zero_acc, self.prob.u, P)
        g = ida.actuation[..., self.columns]
        if real:
            self._efforts = (np.array(z, dtype=float), g.copy())
        return g

    def hessian(self, z: np.ndarray) -> np.ndarray:
        """Exact Hessian of :meth:`potential`, symmetrised.

        Closed form (:func:`titop_lpv.multibody.stiffness.gravity_stiffness`) when the model
        qualifies, else the complex step of :meth:`gradient`.

        Parameters
        ----------
        z : ndarray (n_free,)
            Joint positions.

        Returns
        -------
        ndarray (n_free, n_free)

        Notes
        -----
        The closed form is used when :func:`titop_lpv.multibody.stiffness.supported` holds
        and, at the first call, its gradient equals :meth:`gradient` (inverse dynamics) to
        1e-9 relative: a potential it does not model falls back to the complex step. The
        last ``MEMO`` Hessians are kept: asked again at the same ``z`` (the start, shared by
        the dependence check and the descent), one is returned without recomputation (a
        copy, bit-identical).
        """
        z = np.asarray(z, dtype=float)
        for zk, Hk in self._memo:
            if np.array_equal(zk, z):
                return Hk.copy()
        H = None
        if self.closed_form is not False:
            X, _, P = self.prob.assemble(z)
            g, H = gravity_stiffness(self.prob.model, X, P, self.bodies)
            if self.closed_form is None:
                g_id = self.gradient(z)
                scale = max(float(np.max(np.abs(g_id), initial=0.0)),
                            float(np.max(np.abs(H), initial=0.0)), 1e-300)
                self.closed_form = bool(np.max(np.abs(g - g_id), initial=0.0) <= 1e-9 * scale)
                H = H if self.closed_form else None
        if H is None:
            Z = np.tile(z.astype(complex), (z.size, 1))
            Z[np.arange(z.size), np.arange(z.size)] += 1j * STEP
            H = self.gradient(Z).imag / STEP
            H = 0.5 * (H + H.T)
        self._memo = [(z.copy(), H.copy()), *self._memo[:MEMO - 1]]
        return H


def applicable(prob: Problem, kind: str, z0: np.ndarray) -> EnergyProblem | None:
    """The energy formulation of ``prob``, if the trim is a minimum-of-``V`` problem.

    Static trim, every free variable a joint position, every input zero, and the
    potential's directional derivative along a random direction equal (to 1e-6 relative)
    to the gradient's: loads without a potential (constant torques, body-frame loads) fail
    this check and leave the problem to Gauss–Newton.

    Parameters
    ----------
    prob : Problem
        The trim problem.
    kind : str
        ``"static"`` or ``"spin"``.
    z0 : ndarray (n_free,)
        The starting point, where the check is made.

    Returns
    -------
    EnergyProblem or None
    """
    model = prob.model
    joint_q = {int(model.q_index[b]) for b in np.flatnonzero(is_one_dof(model.kind))}
    driven_q = {int(model.q_index[b]) for b in np.flatnonzero(model.qdd_column >= 0)}
    if (kind != "static" or not z0.size or np.any(prob.u != 0.0)
            or any(w != "x" or i not in joint_q or i in driven_q for w, i in prob.where)):
        return None
    ep = EnergyProblem(prob)
    d = np.random.default_rng(1).standard_normal(z0.size)
    if _closed_form_at_rest(ep, z0, d):
        return ep
    with np.errstate(all="ignore"):
        slope = float(ep.potential(z0 + 1j * STEP * d).imag / STEP)
        g = ep.gradient(z0)
    if not (np.isfinite(slope) and np.all(np.isfinite(g))):
        return None
    scale = float(np.sqrt(g @ g) * np.sqrt(d @ d))
    return ep if abs(slope - float(g @ d)) <= 1e-6 * scale else None


def _closed_form_at_rest(ep: EnergyProblem, z0: np.ndarray, d: np.ndarray) -> bool:
    """Accept the closed form at once for a model at rest whose potential it covers.

    When :func:`~titop_lpv.multibody.stiffness.supported` holds, no joint is spherical or
    universal and every velocity is zero, the joint efforts of inverse dynamics are the
    gradient of ``V`` (no velocity terms, every load conservative): the check of
    :func:`applicable` reduces to the closed form against ``V`` itself, made here along
    ``d`` by fourth-order central differences of the compiled potential (relative error
    about 1e-12 on chains and random trees, tolerance 1e-6), without the complex-step sweep
    and the inverse dynamics.
    Sets :attr:`EnergyProblem.closed_form` and memorises the Hessian at ``z0``.
    """
    prob = ep.prob
    model = prob.model
    if not ep.compiled_potential:
        return False
    X, _, P = prob.assemble(z0)
    if np.any(X[list(model.velocity_indices())] != 0.0):
        return False
    with np.errstate(all="ignore"):
        g, H = gravity_stiffness(model, X, P, ep.bodies)
        e = d / np.sqrt(d @ d)
        V = [float(ep.potential(z0 + c * FD_STEP * e)) for c in (-2.0, -1.0, 1.0, 2.0)]
    slope = (8.0 * (V[2] - V[1]) - (V[3] - V[0])) / (12.0 * FD_STEP)
    scale = float(np.sqrt(g @ g))
    if not (np.isfinite(slope) and np.all(np.isfinite(H)) and scale > 0.0
            and abs(slope - float(g @ e)) <= 1e-6 * scale):
        return False
    ep.closed_form = True
    ep._memo = [(np.array(z0, dtype=float), H.copy())]
    return True


def trust_region_step(g: np.ndarray, H: np.ndarray, radius: float) -> tuple[np.ndarray, bool]:
    """Minimiser of ``g·s + ½ sᵀHs`` over ``‖s‖ ≤ radius`` (eigen-decomposition of ``H``).

    Parameters
    ----------
    g : ndarray (n,)
        Gradient.
    H : ndarray (n, n)
        Symmetric Hessian (may be indefinite).
    radius : float
        Trust radius (Euclidean norm).

    Returns
    -------
    step : ndarray (n,)
    newton : bool
        Whether the step is the full Newton step (``H`` positive definite, step inside).
    """
    try:  # positive definite: the Newton step from a Cholesky factor, if it fits
        L = np.linalg.cholesky(H)
    except np.linalg.LinAlgError:
        L = None
    if L is not None:
        step = -solve_triangular(L, solve_triangular(L, g, lower=True), lower=True,
                                 trans="T")
        if np.all(np.isfinite(step)) and np.sqrt(step @ step) <= radius:
            return step, True
    if H.shape[0] >= TRIDIAGONAL_MIN:  # the same step without forming the eigenvectors
        found = _tridiagonal_step(g, H, radius)
        if found is not None:
            return found
    lam, U = np.linalg.eigh(H)
    gt = U.T @ g
    if lam[0] > 0.0:
        step = -U @ (gt / lam)
        if np.sqrt(step @ step) <= radius:
            return step, True
    lo = max(0.0, -float(lam[0]))
    gnorm = float(np.sqrt(gt @ gt))
    if lam[0] <= 0.0:
        denom = lam + lo
        safe = denom > 1e-12 * max(1.0, float(np.max(np.abs(lam))))
        s_lo = np.where(safe, gt / np.where(safe, denom, 1.0), 0.0)
        if (not np.any(~safe & (np.abs(gt) > 1e-12 * max(gnorm, 1e-300)))
                and float(s_lo @ s_lo) < radius ** 2):
            # hard case: no gradient along the most negative curvature; follow it
            return -U @ s_lo + np.sqrt(radius ** 2 - float(s_lo @ s_lo)) * U[:, 0], False
    a, b = lo, lo + gnorm / radius
    for _ in range(200):  # bisection on the shift: ‖s(μ)‖ = radius, s(μ) = −(H + μI)⁻¹ g
        mu = 0.5 * (a + b)
        norm = np.sqrt(np.sum((gt / (lam + mu)) ** 2))
        if abs(norm - radius) <= 1e-3 * radius or b - a <= 1e-15 * max(b, 1e-300):
            break
        a, b = (mu, b) if norm > radius else (a, mu)
    return -U @ (gt / (lam + mu)), False


def _tridiagonal_step(g: np.ndarray, H: np.ndarray, radius: float
                      ) -> tuple[np.ndarray, bool] | None:
    """:func:`trust_region_step`'s eigen route, from the tridiagonal form of ``H``.

    ``H = Q T Qᵀ`` (``dsytrd``, lower triangle, as ``numpy.linalg.eigh`` does), the
    eigenvalues of ``T`` (``dsterf``), and each step ``−(H + μI)⁻¹ g = −Q (T + μI)⁻¹ Qᵀg``
    from a tridiagonal solve (``dgtsv``, ``O(n)``); ``Q`` is applied from its Householder
    reflectors (``dormqr``). The same steps as the eigen-decomposition (to rounding),
    without its ``O(n³)`` eigenvectors. Where the eigen route might take the hard case (the
    gradient's component along the lowest curvature, from ``dstein``'s eigenvectors of
    ``T``, below 1e-6 of its norm, a million times its own threshold), it returns None
    and the eigen route decides.

    Parameters
    ----------
    g : ndarray (n,)
        Gradient.
    H : ndarray (n, n)
        Symmetric Hessian, not found positive definite with a Newton step inside the region.
    radius : float
        Trust radius (Euclidean norm).

    Returns
    -------
    (step, newton) or None
        As :func:`trust_region_step`; None when the eigen route must decide (or LAPACK
        reports a failure).
    """
    n = H.shape[0]
    c, d, e, tau, info = lapack.dsytrd(H, lower=1, lwork=int(lapack.dsytrd_lwork(n, lower=1)[0]))
    if info != 0:
        return None
    e = e[:n - 1]
    lam, info = lapack.dsterf(d, e)
    if info != 0:
        return None
    lam = np.sort(lam)
    reflectors, scales = c[1:, :n - 1], tau[:n - 1]

    def q(v: np.ndarray, trans: str) -> np.ndarray:  # Q v or Qᵀ v, with Q = diag(1, Q')
        out = np.array(v, dtype=float)
        out[1:] = lapack.dormqr("L", trans, reflectors, scales, out[1:, None], n)[0][:, 0]
        return out

    def solve(mu: float) -> np.ndarray | None:  # (T + μI)⁻¹ Qᵀg
        *_, y, status = lapack.dgtsv(e, d + mu, e, gt[:, None])
        return y[:, 0] if status == 0 and np.all(np.isfinite(y)) else None

    gt = q(g, "T")
    if lam[0] > 0.0:
        y = solve(0.0)
        if y is None:
            return None
        step = -q(y, "N")
        if np.sqrt(step @ step) <= radius:
            return step, True
    lo = max(0.0, -float(lam[0]))
    gnorm = float(np.sqrt(gt @ gt))
    if lam[0] <= 0.0:  # the components of Qᵀg along T's lowest eigenvectors
        low = int(np.sum(lam + lo <= 1e-12 * max(1.0, float(np.max(np.abs(lam))))))
        m, w, block, split, status = lapack.dstebz(d, e, 2, 0.0, 0.0, 1, max(low, 1), 0.0, b"B")
        if status != 0 or m < 1:
            return None
        Z, status = lapack.dstein(d, e, w[:m], block, split)
        if status != 0 or np.max(np.abs(Z[:, :m].T @ gt)) <= 1e-6 * max(gnorm, 1e-300):
            return None  # maybe the hard case: the eigen route decides
    a, b = lo, lo + gnorm / radius
    for _ in range(200):  # bisection on the shift, as in trust_region_step
        mu = 0.5 * (a + b)
        y = solve(mu)
        if y is None:
            return None
        norm = np.sqrt(y @ y)
        if abs(norm - radius) <= 1e-3 * radius or b - a <= 1e-15 * max(b, 1e-300):
            break
        a, b = (mu, b) if norm > radius else (a, mu)
    return -q(y, "N"), False


def minimize(ep: EnergyProblem, ev: Evaluator, z: np.ndarray, tol: float) -> bool:
    """Trust-region Newton descent on the potential energy from ``z``.

    After each accepted step, the angles of revolute joints without a spring
    (:func:`periodic`) are brought back to within π of their start: the equations are
    periodic in them, and far multiples of 2π would only add rounding error. Counted
    against ``ev``'s budget: one potential evaluation 1, one Hessian 1 (a rejected step
    keeps the point and reuses its Hessian), the residual
    (accelerations) at each accepted point 1. Stops when ``max |ẋ| <= 1e-3 tol`` at an
    accepted point, or when the step stalls.

    Parameters
    ----------
    ep : EnergyProblem
        Potential, gradient and Hessian.
    ev : Evaluator
        Counts evaluations and keeps the best point (by the residual).
    z : ndarray (n_free,)
        Start.
    tol : float
        Tolerance on ``max |ẋ|``.

    Returns
    -------
    bool
        Whether the residual met ``tol`` at the last accepted point.
    """
    start = z.copy()
    turns = periodic(ep.prob, np.asarray(ep.prob.p, dtype=float))
    ev.spend()
    v = float(ep.potential(z))
    g = ep.gradient(z)
    r = ev.residual(z)
    radius = RADIUS0
    H = None
    for _ in range(MAX_ITER):
        if not (np.isfinite(v) and np.all(np.isfinite(g)) and np.all(np.isfinite(r))):
            return False
        if np.max(np.abs(r), initial=0.0) <= 1e-3 * tol:
            return True
        if H is None:  # a rejected step keeps z, hence the Hessian
            ev.spend()
            H = ep.hessian(z)
        if not np.all(np.isfinite(H)):
            return False
        step, newton = trust_region_step(g, H, radius)
        size = float(np.sqrt(step @ step))
        if size <= 1e-15 * (1.0 + float(np.sqrt(z @ z))):
            break
        pred = float(g @ step + 0.5 * step @ H @ step)
        ev.spend()
        with np.errstate(all="ignore"):
            v_new = float(ep.potential(z + step))
        roundoff = abs(pred) <= 1e-12 * max(abs(v), 1.0)
        if not np.isfinite(v_new):
            rho = -1.0
        elif roundoff:
            rho = 1.0 if newton else -1.0
        else:
            rho = (v_new - v) / pred if pred < 0.0 else -1.0
        if rho > 0.01:
            z = z + step
            z = np.where(turns, z - 2.0 * np.pi * np.round((z - start) / (2.0 * np.pi)), z)
            v, g, r, H = v_new, ep.gradient(z), ev.residual(z), None
        if rho < 0.25:
            radius = 0.25 * size
        elif rho > 0.75 and size > 0.99 * radius:
            radius = 2.0 * radius
    return bool(np.all(np.isfinite(r)) and np.max(np.abs(r), initial=0.0) <= tol)


def periodic(prob: Problem, P: np.ndarray) -> np.ndarray:
    """Mask of the free variables that are angles of revolute joints without a spring.

    The equations are 2π-periodic in such an angle (the spring ``k (q − rest)`` is the only
    place where a joint angle enters other than through its sine and cosine), so the trim
    returns the representative nearest to the start.

    Parameters
    ----------
    prob : Problem
        The trim problem.
    P : ndarray (..., n_params)
        Parameter values at the solution (leading axes: a batch of points).

    Returns
    -------
    ndarray of bool (..., n_free)
    """
    model = prob.model
    k = np.asarray(model.physics(P).k, dtype=float)  # (..., n_bodies)
    out = np.zeros((*k.shape[:-1], len(prob.where)), dtype=bool)
    revolute: dict[int, list[int]] = {}  # joint position index -> revolute bodies there
    for b in np.flatnonzero(model.kind == REVOLUTE):
        revolute.setdefault(int(model.q_index[b]), []).append(int(b))
    for j, (w, i) in enumerate(prob.where):
        if w != "x":
            continue
        body = revolute.get(int(i), [])
        if len(body) == 1:
            out[..., j] = k[..., body[0]] == 0.0
    return out
