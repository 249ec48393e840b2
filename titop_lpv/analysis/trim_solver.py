"""The numerical side of :func:`titop_lpv.analysis.trim`: unknowns, residual, Jacobian and solvers.

:class:`Problem` maps the unknown vector ``z`` (the free variables) onto the model's
``(x, u, p)``; its residual is the derivatives of the velocity states, its Jacobian exact
(complex step, all directions in one batched call). :func:`newton` (Gauss–Newton with
backtracking, trials projected onto the free parameters' declared bounds) runs first;
``scipy.optimize.least_squares`` (trust-region reflective, bounded) takes over where it
stalls. :class:`Evaluator` counts evaluations against the budget ``max_nfev``.
:func:`dependent` finds the free variables the equations do not determine independently
(rank of stacked Jacobians), and :func:`diagnosis` says why a solve failed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.linalg import qr
from scipy.optimize import least_squares

from ..exceptions import ParameterError
from ..model.compiled import Model
from ..spatial import quaternion

__all__ = ["FLOOR_ULPS", "RANK_TOL", "ROUND", "STEP", "BudgetError", "Evaluator", "Problem",
           "at_bounds", "bounds", "dependent", "diagnosis", "newton", "rank", "rounding_floor",
           "trust_region"]

STEP = 1e-30  # complex step
RANK_TOL = 1e-9  # relative threshold on singular values / QR pivots for the numerical rank
ROUND = 25  # residual evaluations per trust-region round between re-centrings of δr
FLOOR_ULPS = 4.0  # rounding floor of the residual: this many ulps of the free variables


@dataclass
class Problem:
    """Index maps between the unknown vector z and the model's (x, u, p).

    Attributes
    ----------
    model : Model
        The compiled model.
    x, u, p : ndarray
        The state, input and parameter vectors that hold the fixed values; the free entries
        are overwritten from ``z``.
    free : list of str
        Names of the free variables, in the order of ``z``.
    where : list of (str, int)
        For each free variable, the vector it sits in (``"x"``, ``"u"`` or ``"p"``) and its
        index there; or ``("r", 3 s + c)``: component ``c`` of the attitude error ``δr`` of
        the spherical joint whose quaternion starts at state ``s``, the quaternion being
        ``q = q_x ⊗ exp(δr)`` with ``q_x`` the (normalised) quaternion held in :attr:`x`.
    eq_index : ndarray of int
        Indices of the states whose derivatives are the equations (the residual).
    """

    model: Model
    x: np.ndarray
    u: np.ndarray
    p: np.ndarray
    free: list[str]
    where: list[tuple[str, int]]  # ("x" | "u" | "p", index) per free variable
    eq_index: np.ndarray  # state indices whose derivatives are the equations

    def assemble(self, z: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The model's ``(x, u, p)`` with the free entries taken from ``z``.

        Parameters
        ----------
        z : ndarray (..., n_free)
            Values of the free variables (real or complex; leading axes are a batch).

        Returns
        -------
        x, u, p : ndarray
            Of shapes ``(..., n_states)``, ``(..., n_inputs)`` and ``(..., n_params)`` (``p``
            is :attr:`p` itself, unbatched, when no parameter is free).
        """
        batch = z.shape[:-1]
        dtype = np.result_type(z, float)
        X = np.array(np.broadcast_to(self.x, (*batch, self.x.size)), dtype=dtype)
        U = np.array(np.broadcast_to(self.u, (*batch, self.u.size)), dtype=dtype)
        columns = self._columns()
        P = (np.array(np.broadcast_to(self.p, (*batch, self.p.size)), dtype=dtype)
             if columns["p"][0].size else self.p)
        for kind, vector in (("x", X), ("u", U), ("p", P)):  # distinct indices: one scatter
            k, i = columns[kind]
            if k.size:
                vector[..., i] = z[..., k]
        errors: dict[int, Any] = {}
        for k, i in zip(*columns["r"]):  # attitude error of a spherical joint: 3 q_start + c
            start, comp = divmod(int(i), 3)
            err = errors.setdefault(start, np.zeros((*batch, 3), dtype=dtype))
            err[..., comp] = z[..., k]
        for start, err in errors.items():  # q = q_guess ⊗ exp(δr)
            X[..., start:start + 4] = quaternion.multiply(
                quaternion.normalize(self.x[start:start + 4]), quaternion.exp(err))
        return X, U, P

    def _columns(self) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        """Per vector (``"x"``, ``"u"``, ``"p"``, ``"r"``): positions in ``z``, indices there."""
        key = tuple(self.where)  # kept while :attr:`where` is unchanged
        cached = self.__dict__.get("_columns_cache")
        if cached is None or cached[0] != key:
            cached = self.__dict__["_columns_cache"] = (key, {kind: (
                np.array([k for k, (w, _) in enumerate(key) if w == kind], dtype=int),
                np.array([i for w, i in key if w == kind], dtype=int))
                for kind in ("x", "u", "p", "r")})
        return cached[1]

    def recentre(self, z: np.ndarray, *others: np.ndarray) -> list[np.ndarray]:
        """Move the attitude errors' origin to ``z``: ``q_x ← q_x ⊗ exp(δr)``, ``δr ← 0``.

        The attitude error ``δr`` parametrises the rotations well near 0 only (the map
        ``δr → q_x ⊗ exp(δr)`` folds at ``|δr| = π`` and is singular at ``2π``); the solvers
        call this after every accepted step, so that each step starts from ``δr = 0`` and a
        solution any rotation away is reached. Only attitudes whose three components are
        all free are re-centred (with some fixed, the chart itself is the constraint).
        :attr:`x` is replaced (not written in place).

        Parameters
        ----------
        z : ndarray (n_free,)
            The new origin (a point of the solver).
        *others : ndarray (n_free,)
            Further points (e.g. the best point seen), re-expressed around the new origin.

        Returns
        -------
        list of ndarray
            ``z`` and then ``others``, with their attitude errors relative to the new origin
            (``z``'s are zero); the same points of the model's ``(x, u, p)``.
        """
        groups: dict[int, list[int]] = {}
        for k, (kind, i) in enumerate(self.where):
            if kind == "r":
                groups.setdefault(i // 3, [-1, -1, -1])[i % 3] = k
        # only a fully free attitude: with some components fixed (δr_y = 0, say), the
        # solution set is q_start ⊗ exp(δr) with those components zero, which a product of
        # such rotations would leave
        groups = {start: cols for start, cols in groups.items() if min(cols) >= 0}
        points = [np.array(v, dtype=float) for v in (z, *others)]
        if not groups:
            return points
        x = np.array(self.x, dtype=float)
        for start, cols in groups.items():
            old = quaternion.normalize(x[start:start + 4])
            new = quaternion.normalize(quaternion.multiply(old, quaternion.exp(points[0][cols])))
            back = quaternion.conjugate(new)
            for pt in points:
                pt[cols] = quaternion.log(quaternion.multiply(
                    back, quaternion.multiply(old, quaternion.exp(pt[cols]))))
            points[0][cols] = 0.0
            x[start:start + 4] = new
        self.x = x
        return points

    def residual(self, z: np.ndarray) -> np.ndarray:
        """The equations at ``z``: the derivatives of the :attr:`eq_index` states.

        Parameters
        ----------
        z : ndarray (..., n_free)
            Values of the free variables (leading axes are a batch).

        Returns
        -------
        ndarray (..., n_equations)
        """
        X, U, P = self.assemble(z)
        return self.model.dynamics(0.0, X, U, P)[..., self.eq_index]

    def jacobian(self, z: np.ndarray, columns: list[int] | None = None) -> np.ndarray:
        """Exact Jacobian of :meth:`residual` at ``z`` (complex step, one batched call).

        Parameters
        ----------
        z : ndarray (n_free,)
            Values of the free variables.
        columns : list of int, optional
            Differentiate only with respect to these free variables (default: all).

        Returns
        -------
        ndarray (n_equations, len(columns))
        """
        cols = list(range(z.size)) if columns is None else columns
        if not cols:
            return np.zeros((self.eq_index.size, 0))
        Z = np.tile(z.astype(complex), (len(cols), 1))
        Z[np.arange(len(cols)), cols] += 1j * STEP
        return (self.residual(Z).imag / STEP).T


def dependent(prob: Problem, z0: np.ndarray,
              jacobian: Callable[[np.ndarray], np.ndarray] | None = None) -> list[int]:
    """Free variables that the equations do not determine independently of the others.

    The Jacobians at ``z0`` and at perturbed points are stacked (a direction of the free
    variables that leaves the residual unchanged at every sample is taken as neutral):
    at least three samples, and enough that the stack has more rows than there are free
    variables (otherwise a null direction would be an artefact of the stack's shape). A
    perturbed point that takes a free parameter out of its declared range is replaced by a
    closer one. The columns are scaled to unit norm (units do not matter) and a
    column-pivoted QR picks a maximal set of independent columns; the others are returned,
    in the order of ``prob.free``. A zero column (the equations do not depend on the
    variable) is always dependent; two columns that stay parallel (two coaxial hinges of
    which only the sum of the angles matters) give one dependent variable.

    Parameters
    ----------
    prob : Problem
        The trim problem.
    z0 : ndarray (n_free,)
        The point (values of the free variables) around which the Jacobians are sampled.
    jacobian : callable, optional
        ``z -> (n_rows, n_free)`` matrix to sample instead of :meth:`Problem.jacobian`:
        the stiffness (Hessian of the potential energy) for an energy trim, which is far
        better conditioned than the Jacobian of the accelerations ``M⁻¹ K`` of a long chain
        (where the latter's condition number makes independent joints look dependent).

    Returns
    -------
    list of int
        Indices (into ``prob.free``) of the dependent free variables, sorted.
    """
    jac = prob.jacobian if jacobian is None else jacobian
    rng = np.random.default_rng(0)
    n_eq = max(1, prob.eq_index.size)
    n_samples = max(3, -(-z0.size // n_eq) + 2)  # the stack must be taller than wide
    blocks = [jac(z0)]
    scale, tries = 0.1, 0
    while len(blocks) < n_samples and tries < 8 * n_samples:
        tries += 1
        try:
            J = jac(z0 + scale * rng.standard_normal(z0.size))
        except ParameterError:  # a free parameter left its declared range: come closer
            scale *= 0.5
            continue
        if np.all(np.isfinite(J)):
            blocks.append(J)
    blocks = [J for J in blocks if np.all(np.isfinite(J))]
    if not blocks:
        return []
    J = np.vstack(blocks)
    norms = np.sqrt(np.sum(J * J, axis=0))
    zero = norms <= 1e-12 * max(1.0, float(np.max(norms, initial=0.0)))
    live = np.flatnonzero(~zero)
    dependent = set(np.flatnonzero(zero).tolist())
    if live.size == z0.size and _independent(blocks[0], norms):
        return sorted(dependent)  # no column can be dependent: the QR is not needed
    if live.size:
        R, piv = qr(J[:, live] / norms[live], mode="r", pivoting=True)
        diag = np.abs(np.diag(R))
        rank = int(np.sum(diag > RANK_TOL * diag[0]))
        dependent |= {int(live[k]) for k in piv[rank:]}
    return sorted(dependent)


def _independent(H: np.ndarray, norms: np.ndarray) -> bool:
    """Whether the first block ``H`` of :func:`dependent`'s stack proves full column rank.

    Each diagonal entry of the pivoted QR's ``R`` of the scaled stack is at least the
    stack's smallest singular value, at least that of ``H diag(1 / norms)``, at least
    ``min |λ(H)| / max(norms)`` for a symmetric ``H``: above :data:`RANK_TOL` a hundredfold,
    no column is dependent and the QR is skipped (the eigenvalues of ``H`` cost far less).
    """
    if H.shape[0] != H.shape[1] or not np.array_equal(H, H.T) or not np.all(np.isfinite(H)):
        return False
    smallest = float(np.min(np.abs(np.linalg.eigvalsh(H)), initial=np.inf))
    return smallest > 100.0 * RANK_TOL * float(np.max(norms))


class BudgetError(Exception):
    """Raised inside the solvers when ``max_nfev`` evaluations are used up."""


class Evaluator:
    """Counts the solver's evaluations against the budget and keeps the best point seen.

    One residual evaluation counts 1; one Jacobian (a single batched complex-step call
    over every free variable) counts 1.

    Parameters
    ----------
    prob : Problem
        The trim problem to evaluate.
    budget : int
        Number of evaluations allowed (``max_nfev``); one more raises :class:`BudgetError`.
    z0 : ndarray (n_free,)
        Starting point: the best point until a finite residual is seen.
    """

    def __init__(self, prob: Problem, budget: int, z0: np.ndarray):
        self.prob, self.budget, self.count = prob, budget, 0
        self.best_z, self.best_cost = z0.copy(), np.inf

    def spend(self) -> None:
        """Count one evaluation; :class:`BudgetError` when the budget is used up."""
        if self.count >= self.budget:
            raise BudgetError
        self.count += 1

    def residual(self, z: np.ndarray) -> np.ndarray:
        """:meth:`Problem.residual` at ``z``, counted, remembering the best point seen.

        A point that takes a free parameter out of its declared range gives a NaN residual
        (except at the first evaluation, the user's own start, where the
        :class:`ParameterError` propagates).

        Parameters
        ----------
        z : ndarray (n_free,)
            Values of the free variables.

        Returns
        -------
        ndarray (n_equations,)

        Raises
        ------
        BudgetError
            The budget is used up.
        """
        self.spend()
        try:
            r = self.prob.residual(z)
        except ParameterError:
            if self.count == 1:
                raise  # the user's own starting values are invalid
            # a trial step took a free parameter out of its declared range (or made the
            # model invalid): not a better point; the line search backs off
            r = np.full(self.prob.eq_index.size, np.nan)
        cost = float(r @ r) if np.all(np.isfinite(r)) else np.inf
        if cost < self.best_cost:
            self.best_z, self.best_cost = np.array(z, dtype=float), cost
        return r

    def recentre(self, z: np.ndarray) -> np.ndarray:
        """:meth:`Problem.recentre` at ``z``, the best point seen re-expressed with it.

        Parameters
        ----------
        z : ndarray (n_free,)
            The solver's current point.

        Returns
        -------
        ndarray (n_free,)
            The same point around the new origin (attitude errors zero).
        """
        z, self.best_z = self.prob.recentre(z, self.best_z)
        return z

    def jacobian(self, z: np.ndarray) -> np.ndarray:
        """:meth:`Problem.jacobian` at ``z``, counted as one evaluation.

        Parameters
        ----------
        z : ndarray (n_free,)
            Values of the free variables.

        Returns
        -------
        ndarray (n_equations, n_free)

        Raises
        ------
        BudgetError
            The budget is used up.
        """
        self.spend()
        return self.prob.jacobian(z)


def newton(ev: Evaluator, z: np.ndarray, tol: float,
            bounds: tuple[np.ndarray, np.ndarray], max_iter: int = 30) -> bool:
    """Gauss-Newton with backtracking on ‖r‖ (minimum-norm steps via lstsq).

    Fast where the problem is well posed (quadratic convergence, exact Jacobian); returns
    ``False`` as soon as it stalls, for the trust-region solver to take over from
    ``ev.best_z``. Trial points are projected into ``bounds`` (free parameters stay in their
    declared ranges). Raises :class:`BudgetError` with the evaluation budget.

    Parameters
    ----------
    ev : Evaluator
        Evaluates (and counts) the residual and the Jacobian; keeps the best point.
    z : ndarray (n_free,)
        Starting point.
    tol : float
        Tolerance on ``max |r|``; the iteration stops early at ``1e-3 * tol``.
    bounds : (ndarray, ndarray)
        Lower and upper bounds of the free variables (from :func:`bounds`).
    max_iter : int, default 30
        Largest number of Gauss-Newton steps.

    Returns
    -------
    bool
        Whether ``max |r| <= tol`` at the last point.
    """
    r = ev.residual(z)
    for _ in range(max_iter):
        if np.all(np.isfinite(r)) and np.max(np.abs(r), initial=0.0) <= 1e-3 * tol:
            return True
        if not np.all(np.isfinite(r)):
            return False
        J = ev.jacobian(z)
        if not np.all(np.isfinite(J)):
            return False
        step = np.linalg.lstsq(J, -r, rcond=None)[0]
        norm = float(r @ r)
        for alpha in (1.0, 0.5, 0.25, 0.125, 0.0625):
            trial = np.clip(z + alpha * step, *bounds)
            r_new = ev.residual(trial)
            if np.all(np.isfinite(r_new)) and float(r_new @ r_new) < norm:
                z, r = ev.recentre(trial), r_new  # attitude errors restart at δr = 0
                break
        else:
            break
    return bool(np.all(np.isfinite(r)) and np.max(np.abs(r), initial=0.0) <= tol)


def trust_region(ev: Evaluator, tol: float, max_nfev: int) -> tuple[str, str]:
    """``scipy.optimize.least_squares`` (trust-region reflective) from ``ev.best_z``.

    The globalised fallback after :func:`newton` stalls. The columns are scaled by the
    Jacobian's (``x_scale="jac"``) unless one vanishes at the start (a variable the
    equations do not depend on there): unit scaling then. With attitude errors among the
    unknowns, it runs in rounds of :data:`ROUND` residual evaluations, each followed by
    :func:`newton` from the best point, the attitude errors re-centred there
    (:meth:`Problem.recentre`), until it converges (to an equilibrium or a least-squares
    minimum) or the budget is used up.

    Parameters
    ----------
    ev : Evaluator
        Evaluates (and counts) the residual and the Jacobian; keeps the best point.
    tol : float
        Tolerance on ``max |r|``.
    max_nfev : int
        The evaluation budget (counted by ``ev``).

    Returns
    -------
    status : str
        ``"budget"`` (the budget was used up) or ``"minimum"`` (the solver converged).
    message : str
        What the solver said, with the evaluation count.

    Raises
    ------
    FloatingPointError
        The Jacobian is not finite at the start.
    BudgetError
        The budget is used up inside the solver.
    """
    prob = ev.prob
    rounds = any(kind == "r" for kind, _ in prob.where)
    while True:
        start = ev.recentre(ev.best_z)  # attitude errors restart at δr = 0
        J0 = prob.jacobian(start)
        if not np.all(np.isfinite(J0)):
            raise FloatingPointError
        cols = np.sqrt(np.sum(J0 * J0, axis=0))
        flat = np.any(cols <= 1e-12 * max(1.0, float(np.max(cols, initial=0.0))))
        left = max(1, max_nfev - ev.count)
        sol = least_squares(ev.residual, start, jac=ev.jacobian, method="trf",
                            bounds=bounds(prob), x_scale=1.0 if flat else "jac", ftol=1e-15,
                            xtol=1e-15, gtol=1e-15, max_nfev=min(left, ROUND) if rounds else left)
        done = np.sqrt(ev.best_cost) <= tol or ev.count >= max_nfev
        if sol.status != 0 or not rounds or left <= ROUND or done:
            break
        if newton(ev, ev.recentre(ev.best_z), tol, bounds(prob)):  # near: Newton's turn
            return "minimum", (f"Gauss-Newton converged after trust-region steps, {ev.count} "
                               "evaluations")
    status = "budget" if sol.status == 0 and not np.sqrt(ev.best_cost) <= tol else "minimum"
    return status, (f"trust-region least squares after Gauss-Newton, {ev.count} evaluations: "
                    f"{str(sol.message).rstrip('.')}")


def rank(J: np.ndarray) -> int:
    """Numerical rank of J (singular values above RANK_TOL times the largest).

    The singular values of an exactly symmetric ``J`` (a Hessian of the potential) are the
    moduli of its eigenvalues: they are computed as such (the same count, to rounding, at
    the cost of the eigenvalues only).

    Parameters
    ----------
    J : ndarray (m, n)
        The matrix (a Jacobian); an empty one has rank 0.

    Returns
    -------
    int
    """
    if J.size == 0 or not np.all(np.isfinite(J)):
        return 0
    if J.shape[0] == J.shape[1] and np.array_equal(J, J.T):
        sv = np.abs(np.linalg.eigvalsh(J))
        return int(np.sum(sv > RANK_TOL * max(float(np.max(sv)), 1e-300)))
    sv = np.linalg.svd(J, compute_uv=False)
    return int(np.sum(sv > RANK_TOL * max(float(sv[0]), 1e-300)))


def rounding_floor(prob: Problem, z: np.ndarray, J: np.ndarray) -> float:
    """The smallest residual that the model's floating-point evaluation can resolve at ``z``.

    The residual is evaluated with the rounding of the recursion's sums of lengths (about
    ε × 1 m) and of the free variables themselves. Moving each free variable by
    ``FLOOR_ULPS`` units in the last place of its scale ``s_j`` moves the residual by up to::

        floor_i = FLOOR_ULPS * eps * sum_j |dr_i/dz_j| * s_j

    with ``s_j = 1`` for an angle or an attitude error (rad: the recursion sees an angle
    through its sine and cosine, rounded at ε whatever its value), ``max(|z_j|, 1)`` for
    another state (a position in metres rounds at its own magnitude, and below 1 m at the
    model's lengths), and ``|z_j|`` for an input or a parameter. A stiff element (a 1e8 N/m
    loop spring) turns that rounding into accelerations of ~1e-7 m/s². A residual below
    ``max_i floor_i`` is an equilibrium to the resolution of double precision: the free
    variables are within a few ulps of a point where the residual, evaluated exactly, would
    vanish. A tolerance below it would let the CPU's rounding decide the outcome.

    Parameters
    ----------
    prob : Problem
        The trim problem.
    z : ndarray (n_free,)
        The point.
    J : ndarray (n_equations, n_free)
        The exact Jacobian of the residual at ``z`` (SI accelerations per unit of each free
        variable).

    Returns
    -------
    float
        ``max_i floor_i`` (m/s², rad/s²); 0 without free variables, inf where ``J`` is not
        finite.
    """
    if z.size == 0:
        return 0.0
    if not np.all(np.isfinite(J)):
        return float("inf")
    units, names = prob.model.unit_table, prob.model.state_names
    s = np.array([1.0 if kind == "r" or (kind == "x" and units.get(names[i]) == "rad")
                  else max(abs(v), 1.0) if kind == "x" else abs(v)
                  for v, (kind, i) in zip(z, prob.where)])
    eps = float(np.finfo(float).eps)
    return float(FLOOR_ULPS * eps * np.max(np.abs(J) @ s, initial=0.0))


def diagnosis(status: str, r: np.ndarray, J: np.ndarray, max_nfev: int) -> str:
    """Why a solve did not reach the tolerance, from the solver status and rank(J).

    Parameters
    ----------
    status : str
        How the solvers ended: ``"budget"`` (the evaluation budget was used up), or another
        status (``"minimum"``: the trust-region solver converged, ``"none"``), which is
        explained from ``r`` and ``J``.
    r : ndarray (n_equations,)
        Residual at the best point found.
    J : ndarray (n_equations, n_free)
        Jacobian of the residual there.
    max_nfev : int
        The evaluation budget, quoted in the message.

    Returns
    -------
    str
        A sentence (no trailing period).
    """
    n_eq, n_free = J.shape
    if status == "budget":
        return (f"the evaluation budget max_nfev = {max_nfev} was used up before the "
                "residual met the tolerance (raise max_nfev or give a closer guess)")
    if not np.all(np.isfinite(r)):
        return "the equations are not finite (NaN or inf) at the best point found"
    if n_free == 0:
        return (f"no free variable: the given point is not an equilibrium ({n_eq} equations, "
                "0 unknowns)")
    rho = rank(J)
    text = (f"the solver converged to a least-squares minimum that is not an equilibrium; "
            f"at it the Jacobian has rank {rho} for {n_eq} equations and {n_free} free "
            "variables")
    if rho < n_free:
        text += (f", so the problem is singular there ({n_free - rho} direction(s) of the "
                 "free variables leave the residual unchanged)")
    if rho < n_eq:
        text += (f"; the free variables move the residual in only {rho} of its {n_eq} "
                 "directions and cannot cancel the rest")
        if n_free < n_eq and rho == n_free:
            text += (": the specification has more equations than unknowns and no solution "
                     "near this point (free more variables, or check the fixed values)")
    return text + "; another guess may find another branch"


def bounds(prob: Problem) -> tuple[np.ndarray, np.ndarray]:
    """Bounds of the unknowns: a free parameter stays in its declared ``[min, max]``.

    Parameters
    ----------
    prob : Problem
        The trim problem.

    Returns
    -------
    lb, ub : ndarray (n_free,)
        Lower and upper bounds (``-inf``/``inf`` for free states and inputs).
    """
    lb, ub = np.full(len(prob.free), -np.inf), np.full(len(prob.free), np.inf)
    for k, (kind, i) in enumerate(prob.where):
        if kind == "p":
            lb[k], ub[k] = prob.model.param_bounds[i]
    return lb, ub


def at_bounds(prob: Problem, z: np.ndarray) -> str:
    """A sentence naming the free parameters that ended on a declared bound (or nothing).

    Parameters
    ----------
    prob : Problem
        The trim problem.
    z : ndarray (n_free,)
        The point where the solve ended.

    Returns
    -------
    str
        ``"; free parameter(s) stopped on ..."`` to append to a message, or ``""``.
    """
    lb, ub = bounds(prob)
    hits = [f"{prob.free[k]!r} = {z[k]:.6g} (declared range [{lb[k]:.6g}, {ub[k]:.6g}])"
            for k in range(z.size)
            if prob.where[k][0] == "p" and min(z[k] - lb[k], ub[k] - z[k])
            <= 1e-9 * max(1.0, abs(z[k]))]
    if not hits:
        return ""
    return ("; free parameter(s) stopped on their declared bounds: " + ", ".join(hits)
            + ": an equilibrium, if any, needs values outside the declared range")
