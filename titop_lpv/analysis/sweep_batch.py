"""Batched trims of consecutive grid points: one Gauss–Newton iteration for all of them.

A sweep's continuation (:mod:`~titop_lpv.analysis.sweep`) trims its points one after the
other, each from its predecessor's solution; most of the cost of a point on a small model
is the set-up of its parameter vector (checks, resolved physics, compiled-kernel data) and
the Python around a few tiny evaluations. :func:`trim_block` instead solves a block of
consecutive points at once: every evaluation is one call of the vectorised recursion over
the whole block, each row with its own parameter vector (checked once for the block),
and the small least-squares steps of all points are solved together.

It runs the same Gauss–Newton iteration as :func:`titop_lpv.analysis.trim` (minimum-norm
least-squares steps from the exact Jacobian, stop at ``max |r| <= 1e-3 tol``, or at a
stall within ``tol``), from the block's seed (the last solution of the walk), with full
steps only: a point whose residual does not decrease at every full step, whose steps do
not shrink at least by half from one to the next (Newton's quadratic convergence: the seed
lies in the basin of the root it finds; a point that wanders first, where another root may
lie, is not taken), that does not converge within :data:`MAX_ITER` steps or its evaluation
budget, or whose residual is not finite, is left to :func:`~titop_lpv.analysis.trim`
(``None`` in the result), as is every point of a specification the block does not serve
(see :func:`trim_block`). An accepted point is an :class:`OperatingPoint` with the fields
:func:`~titop_lpv.analysis.trim` gives: the same equilibrium within the trim's tolerance,
angles of spring-less revolute joints taken within π of the previous point's, residual,
rank deficiency of the Jacobian at the solution, evaluation count and message.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ..exceptions import TitopError
from ..model.compiled import Model
from . import trim as trim_module
from . import trim_energy as te
from . import trim_solver as ts
from .operating_point import OperatingPoint

__all__ = ["BATCH_BODIES", "MAX_ITER", "MIN_BLOCK", "directions", "lstsq", "trim_block"]

BATCH_BODIES = 16  # larger models: the compiled one-vector route is cheaper than the batch
MAX_ITER = 8  # full Gauss-Newton steps before a point is left to trim()
MIN_BLOCK = 6  # fewer points: one by one is cheaper (a batched call costs ~2 ms on its own)


def lstsq(J: np.ndarray, r: np.ndarray) -> np.ndarray:
    """Minimum-norm least-squares solutions of a stack of small systems ``J x = r``.

    Singular values below ``eps · max(m, n)`` times the largest are dropped, as
    ``numpy.linalg.lstsq`` with ``rcond=None`` does.

    Parameters
    ----------
    J : ndarray (k, m, n)
        The matrices.
    r : ndarray (k, m)
        The right-hand sides.

    Returns
    -------
    ndarray (k, n)
    """
    U, s, Vt = np.linalg.svd(J, full_matrices=False)
    cut = np.finfo(float).eps * max(J.shape[1:]) * s[:, :1]
    inv = np.divide(1.0, s, out=np.zeros_like(s), where=s > cut)
    return np.einsum("kji,kj,kj->ki", Vt, inv, np.einsum("kmj,km->kj", U, r))


def _eligible(model: Model, spec: Mapping[str, Any], seed: Any) -> bool:
    """Whether :func:`trim_block` may serve the specification (see its doc)."""
    pins = spec.get("pin_neutral", True)
    return (seed is not None and spec.get("kind", "static") == "static"
            and spec.get("spin") is None and (pins is False or not isinstance(pins, bool))
            and len(model.body_names) <= BATCH_BODIES)


def trim_block(model: Model, spec: Mapping[str, Any], base_params: Mapping[str, float],
               values: Sequence[Mapping[str, float]], seed: Mapping[str, float] | None,
               full: bool = False) -> tuple[list[Any], list[Any]] | None:
    """Trims of consecutive grid points, all from ``seed``, in batched evaluations.

    Served: blocks of at least :data:`MIN_BLOCK` points; static trims of a model of at most
    :data:`BATCH_BODIES` bodies whose free variables are states and inputs (no parameter, no
    attitude error), with the held variables already chosen (``pin_neutral`` a list or
    False: after the walk's first equilibrium), outside the potential-energy route of
    :func:`~titop_lpv.analysis.trim`, and whose baseline state (``x0`` or the model's
    initial state) does not change over the block. Anything else returns None.

    Parameters
    ----------
    model : Model
        The compiled model.
    spec : mapping
        The keyword arguments of :func:`~titop_lpv.analysis.trim` for every point (``free``,
        ``fixed``, ``kind``, ``pin_neutral``, ``tol``, ...), without ``params`` and ``guess``.
    base_params : mapping
        Parameter values common to the points.
    values : sequence of mapping
        Each point's grid parameter values ``name -> value``.
    seed : mapping or None
        The starting values of the free variables (the walk's last solution).
    full : bool
        Take the Jacobian at each solution (for its rank) from the complex-step rows of
        :func:`directions` (every state and input direction) and return them, for a
        linearisation at the same points (:func:`~titop_lpv.analysis.sweep_linear.matrices`).

    Returns
    -------
    (ops, dynamics) or None
        ``ops``: one entry per point, its equilibrium, or None for a point to trim one by
        one. ``dynamics``: per point, the rows of :func:`directions` at its equilibrium
        with ``full`` (else None). None when the block serves none of the points.
    """
    if len(values) < MIN_BLOCK or not _eligible(model, spec, seed):
        return None
    try:
        prob, z0, options = trim_module.prepare(
            model, **{**spec, "strict": False}, params={**base_params, **values[0]},
            guess=dict(seed or {}))
        prob, z0, pinned, ep = trim_module.reduce(prob, z0, "static", options["pin_neutral"])
        if ep is not None or not z0.size or any(w not in ("x", "u") for w, _ in prob.where):
            return None
        P = np.array(np.broadcast_to(prob.p, (len(values), prob.p.size)), dtype=float)
        for name in values[0]:
            P[:, model.param_names.index(name)] = [float(v[name]) for v in values]
        if spec.get("x0") is None:
            start = model.default_state(P)  # checks the block's parameter vectors at once
            if not np.array_equal(start, np.broadcast_to(start[0], start.shape)):
                return None  # initial conditions that depend on the grid: one by one
        return _solve(prob, z0, P, pinned, options, full)
    except (TitopError, np.linalg.LinAlgError, FloatingPointError):
        return None  # trim() one by one evaluates again and raises the named error


class _Block:
    """The residual and its Jacobian at points of a block.

    Parameters
    ----------
    prob : Problem
        The trim problem of the block's first point (the free variables and fixed values
        of every point).
    P : ndarray (m, n_params)
        The parameter vector of each point.
    """

    def __init__(self, prob: ts.Problem, P: np.ndarray):
        self.prob, self.P = prob, P

    def residual(self, Z: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """The equations (k, n_equations) at the unknowns ``Z`` (k, n_free) of the points
        ``rows`` (k,)."""
        X, U, _ = self.prob.assemble(Z)
        with np.errstate(all="ignore"):
            F = self.prob.model.dynamics(0.0, X, U, self.P[rows])
        return F[..., self.prob.eq_index]

    def jacobian(self, Z: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """Their exact Jacobians (k, n_equations, n_free): complex step, one call."""
        n = Z.shape[1]
        Zc = np.repeat(Z[:, None, :].astype(complex), n, axis=1)
        Zc[:, np.arange(n), np.arange(n)] += 1j * ts.STEP
        X, U, _ = self.prob.assemble(Zc)
        with np.errstate(all="ignore"):
            F = self.prob.model.dynamics(0.0, X, U, self.P[rows][:, None, :])
        return np.swapaxes(F[..., self.prob.eq_index].imag / ts.STEP, 1, 2)


def _converged(R: np.ndarray, tol: float) -> np.ndarray:
    """Which rows of residuals ``R`` (k, n) are finite with ``max |r| <= tol``."""
    finite = np.all(np.isfinite(R), axis=1)
    return finite & (np.max(np.abs(np.where(finite[:, None], R, 0.0)), axis=1,
                            initial=0.0) <= tol)


def directions(model: Model, X: np.ndarray, U: np.ndarray, P: np.ndarray) -> np.ndarray:
    """The dynamics at complex-step perturbations of points, every direction at once.

    Parameters
    ----------
    model : Model
        The compiled model.
    X, U, P : ndarray (m, n_states), (m, n_inputs), (m, n_params)
        The points (states, inputs, parameter vectors).

    Returns
    -------
    ndarray (m, n_states + n_inputs + 1, n_states), complex
        Row ``j < n_states + n_inputs`` of point ``i``: the derivative with state (then
        input) ``j`` moved by ``i·STEP``; the last row: the point itself.
    """
    m, n_x = X.shape
    n_u = U.shape[1]
    n = n_x + n_u
    Xc = np.empty((m, n + 1, n_x), dtype=complex)
    Xc[:] = X[:, None, :]
    Xc[:, np.arange(n_x), np.arange(n_x)] += 1j * ts.STEP
    Uc = np.empty((m, n + 1, n_u), dtype=complex)
    Uc[:] = U[:, None, :]
    Uc[:, n_x + np.arange(n_u), np.arange(n_u)] += 1j * ts.STEP
    with np.errstate(all="ignore"):
        return model.dynamics(0.0, Xc, Uc, P[:, None, :])


def _ranks(J: np.ndarray) -> np.ndarray:
    """:func:`~titop_lpv.analysis.trim_solver.rank` of each matrix of a stack (k, m, n)."""
    finite = np.all(np.isfinite(J), axis=(1, 2))
    sv = np.linalg.svd(np.where(finite[:, None, None], J, 0.0), compute_uv=False)
    ranks = np.sum(sv > ts.RANK_TOL * np.maximum(sv[:, :1], 1e-300), axis=1)
    for k in np.flatnonzero(~finite | (J.shape[1] == J.shape[2])):
        ranks[k] = ts.rank(J[k])  # square (symmetric ones: eigenvalues) or not finite
    return ranks


def _solve(prob: ts.Problem, z0: np.ndarray, P: np.ndarray, pinned: list[str],
           options: Mapping[str, Any], full: bool) -> tuple[list[Any], list[Any]]:
    """Gauss–Newton for every point of the block, then the trim's checks (module doc)."""
    model, tol, budget = prob.model, float(options["tol"]), int(options["max_nfev"])
    m, everyone = P.shape[0], np.arange(P.shape[0])
    block = _Block(prob, P)
    Z = np.tile(z0, (m, 1))
    R = block.residual(Z, everyone)
    count = np.ones(m, dtype=int)
    last = np.full(m, np.inf)  # size of each point's previous step
    settled = np.zeros(m, dtype=bool)  # stalled with max |r| <= tol
    alive = np.all(np.isfinite(R), axis=1)
    done = _converged(R, 1e-3 * tol)
    for _ in range(MAX_ITER):
        act = np.flatnonzero(alive & ~done)
        if not act.size:
            break
        J = block.jacobian(Z[act], act)
        ok = np.all(np.isfinite(J), axis=(1, 2))
        step = lstsq(np.where(ok[:, None, None], J, 0.0), -R[act])
        size = np.max(np.abs(step), axis=1, initial=0.0)
        trial = Z[act] + step
        R_new = block.residual(trial, act)
        count[act] += 2
        better = ok & np.all(np.isfinite(R_new), axis=1) & (
            np.sum(R_new * R_new, axis=1) < np.sum(R[act] * R[act], axis=1))
        # Newton's own region: each step at most half the previous one (above rounding);
        # a point that wanders first (another root may lie there) is left to trim()
        noise = 1e-8 * (1.0 + np.max(np.abs(Z[act]), axis=1, initial=0.0))
        better &= (size <= 0.5 * last[act]) | (size <= noise)
        last[act] = size
        Z[act[better]], R[act[better]] = trial[better], R_new[better]
        stalled = act[~better]  # as trim's Gauss-Newton: a stall within tol is a success
        within = _converged(R[stalled], tol)
        settled[stalled[within]] = True
        alive[stalled[~within]] = False
        done = _converged(R, 1e-3 * tol) | settled
    good = alive & done & (count <= budget)
    if not good.any():
        return [None] * m, [None] * m
    # angles of revolute joints without a spring: within π of the previous point's (the
    # serial walk starts each point from its predecessor and returns the nearest turn)
    turns = te.periodic(prob, P)
    previous, moved = z0, False
    for i in np.flatnonzero(good):
        shift = np.where(turns[i], 2.0 * np.pi * np.round((Z[i] - previous) / (2.0 * np.pi)), 0.0)
        if np.any(shift != 0.0):
            Z[i], moved = Z[i] - shift, True
        previous = Z[i]
    if moved:  # the residual where the point now is (the serial trim's is taken there too)
        R = block.residual(Z, everyone)
    good &= _converged(R, tol)
    rows = np.flatnonzero(good)
    if not rows.size:
        return [None] * m, [None] * m
    X, U, _ = prob.assemble(Z)
    dynamics: list[Any] = [None] * m
    if full:  # the Jacobian's columns among every state and input direction
        F = directions(model, X[rows], np.asarray(U[rows], float), P[rows])
        n_x = model.n_states
        pick = [i if w == "x" else n_x + i for w, i in prob.where]
        J = np.swapaxes(F[:, pick][..., prob.eq_index].imag / ts.STEP, 1, 2)
        for k, i in enumerate(rows):
            dynamics[i] = F[k]
    else:
        J = block.jacobian(Z[rows], rows)
    ranks = _ranks(J)
    fixed = tuple(n for n in options["fixed"] if n not in pinned)
    residual_names = tuple(model.state_names[i] for i in prob.eq_index)
    out: list[OperatingPoint | None] = [None] * m
    for k, i in enumerate(rows):
        out[i] = OperatingPoint(
            model_name=model.name, kind="static", state_names=model.state_names,
            input_names=model.input_names, param_names=model.param_names, x=X[i].copy(),
            u=np.array(U[i], dtype=float), params=dict(zip(model.param_names, P[i].tolist())),
            residual_names=residual_names, residual=R[i].copy(), free=tuple(prob.free), fixed=fixed,
            pinned=tuple(pinned), cyclic=(), spin=None, success=True,
            message=f"Gauss-Newton converged in {int(count[i])} evaluations", tolerance=tol,
            nfev=int(count[i]), rank_deficiency=int(Z.shape[1] - ranks[k]),
            attitude_errors=None)
    return out, dynamics
