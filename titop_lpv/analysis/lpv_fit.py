"""Polynomial fit of an LPV grid, realised as an exact LFT of the fitted polynomial
(:meth:`titop_lpv.LPVGrid.to_uss`).

Every entry of ``[[A, B], [C, D]]`` is fitted by least squares with a polynomial of total
degree ``d`` in the grid parameters, each normalised to ``t = (p − c)/s ∈ [−1, 1]`` over the
grid's range (a well-conditioned Vandermonde matrix whatever the parameter's unit). The
polynomial is then re-expressed in the normalised ``δ`` of each parameter's ``ureal``
(``t = a + b δ``: the identity when the ``ureal`` spans the grid's range) and turned into an
LFT by :func:`titop_lpv.robust.lft.polynomial_lft`, which factorises each coefficient by SVD
and reduces the δ channels. The fit error reported is that of the final uncertain system,
evaluated at every grid point: it includes the fit, the rank truncation and the rounding of
the LFT.

The validation of the grid (failed points, state sets, degree, parameters) is done by
:meth:`~titop_lpv.LPVGrid.to_uss`, which owns :class:`~titop_lpv.LPVError`; this module only
computes.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import control
import numpy as np

from ..robust.atoms import UReal
from ..robust.lft import polynomial_lft
from ..robust.uss import USS
from .linearize import named_statespace

__all__ = ["GridFit", "fit_grid", "monomials"]

MATRICES = ("A", "B", "C", "D")


@dataclass(frozen=True)
class GridFit:
    """A polynomial fit of an LPV grid, as an uncertain system, with its error on the grid.

    Made by :meth:`titop_lpv.LPVGrid.to_uss`. The fit quality is kept here, beside the
    uncertain system rather than on it: a :class:`~titop_lpv.USS` is immutable and closed
    under arithmetic (``fit.uss * 2`` or a feedback loop is no longer the fitted plant), so
    an error attached to it would outlive its meaning.

    Attributes
    ----------
    uss : USS
        The fitted plant ``[[A, B], [C, D]](p)`` as an exact LFT of the fitted polynomial:
        one real block per parameter that the fit depends on, with the grid's state, input
        and output names.
    degree : int
        Total degree of the polynomial.
    params : dict of str to UReal
        ``grid parameter -> ureal`` standing for it in :attr:`uss` (a parameter on which no
        entry depends has no block in :attr:`uss` but is listed here).
    coefficients : dict of tuple of int to ndarray
        The fitted polynomial in the normalised ``δ`` of each ``ureal`` (``δ ∈ [−1, 1]`` on
        its range): ``exponents -> [[A_α, B_α], [C_α, D_α]]``, exponents in the order of
        :attr:`params`, after the rank truncation.
    max_error : dict of str to float
        ``"A", "B", "C", "D" ->`` the largest ``|entry(uss at p_k) − entry(grid[k])|`` over
        the entries and the grid points ``p_k`` (the matrix's own unit).
    max_relative_error : dict of str to float
        The same, divided by the largest ``|entry|`` of that matrix over the grid (for a
        matrix that is zero over the whole grid, by the largest ``|entry|`` of
        ``[[A, B], [C, D]]``; 0 when the error is 0).
    repetitions : dict of str to int
        ``ureal name -> `` size of its block ``δ I_r`` in :attr:`uss` (0 for a parameter on
        which nothing depends): the size of Δ that μ analyses will see.
    n_points : int
        Number of grid points fitted.
    """

    uss: USS
    degree: int
    params: dict[str, UReal]
    coefficients: dict[tuple[int, ...], np.ndarray]
    max_error: dict[str, float]
    max_relative_error: dict[str, float]
    repetitions: dict[str, int]
    n_points: int

    def report(self) -> str:
        """Text summary: degree, Δ size and the fit error per matrix.

        Returns
        -------
        str
        """
        over = ", ".join(f"{k} [{a.lo:g}, {a.hi:g}] as {a.name!r}"
                         for k, a in self.params.items())
        reps = ", ".join(f"{n} x{r}" for n, r in self.repetitions.items())
        lines = [f"polynomial fit of total degree {self.degree} over {over} "
                 f"({self.n_points} grid points)",
                 f"Δ repetitions: {reps} (total {sum(self.repetitions.values())})",
                 "max error over the grid points (absolute, relative to max |entry|):"]
        lines += [f"  {m}: {self.max_error[m]:.3e}  ({self.max_relative_error[m]:.3e})"
                  for m in MATRICES]
        lines.append("measured at the grid points only: not a guaranteed model of the plant "
                     "between them")
        return "\n".join(lines)


def monomials(n_params: int, degree: int) -> list[tuple[int, ...]]:
    """Exponent tuples of every monomial of total degree at most ``degree``.

    Parameters
    ----------
    n_params : int
        Number of variables.
    degree : int
        Largest total degree.

    Returns
    -------
    list of tuple of int
        By increasing total degree, then in reverse lexicographic order (``(0, 0), (1, 0),
        (0, 1), (2, 0), (1, 1), (0, 2)`` for two variables of degree 2).
    """
    out = [e for e in itertools.product(range(degree + 1), repeat=n_params)
           if sum(e) <= degree]
    return sorted(out, key=lambda e: (sum(e), tuple(-x for x in e)))


def _vandermonde(t: np.ndarray, exps: Sequence[tuple[int, ...]]) -> np.ndarray:
    return np.stack([np.prod(t ** np.asarray(e, dtype=float), axis=1) for e in exps], axis=1)


def _substitute(coeffs: dict[tuple[int, ...], np.ndarray], j: int, a: float, b: float
                ) -> dict[tuple[int, ...], np.ndarray]:
    """Coefficients after ``t_j = a + b δ_j`` (binomial expansion; same total degree)."""
    out: dict[tuple[int, ...], np.ndarray] = {}
    for e, X in coeffs.items():
        for i in range(e[j] + 1):
            w = math.comb(e[j], i) * a ** (e[j] - i) * b ** i
            key = (*e[:j], i, *e[j + 1:])
            out[key] = out.get(key, 0.0) + w * X
    return out


def _truncate(X: np.ndarray, atol: float) -> np.ndarray | None:
    """``X`` without its singular values ``≤ atol`` (None when none is left)."""
    s = np.linalg.svd(X, compute_uv=False)
    keep = int(np.sum(s > atol))
    if keep == 0:
        return None
    if keep == s.size:
        return X
    U, s, Vh = np.linalg.svd(X, full_matrices=False)
    return (U[:, :keep] * s[:keep]) @ Vh[:keep]


def fit_grid(values: np.ndarray, systems: Sequence[object], params: Mapping[str, UReal],
             ranges: Mapping[str, tuple[float, float]], degree: int, *,
             states: Sequence[str], inputs: Sequence[str], outputs: Sequence[str],
             name: str, tol: float) -> GridFit:
    """Least-squares polynomial fit of linear systems at parameter points, as an LFT.

    The inputs are taken as checked (:meth:`titop_lpv.LPVGrid.to_uss` checks them).

    Parameters
    ----------
    values : ndarray (n_points, n_params)
        The parameter values at each point, columns in the order of ``params``.
    systems : sequence of control.StateSpace
        The linear system at each point (one state, input and output set).
    params : mapping of str to UReal
        ``grid parameter -> ureal`` standing for it (its range sets δ).
    ranges : mapping of str to (float, float)
        ``grid parameter -> (min, max)`` over the points: the fit's normalisation.
    degree : int
        Total degree (≥ 1; at least ``degree + 1`` distinct values per parameter).
    states, inputs, outputs : sequence of str
        Signal names of the result.
    name : str
        Name of the uncertain system.
    tol : float
        Singular values of a coefficient matrix below ``tol`` times the largest 2-norm of
        ``[[A, B], [C, D]]`` over the points are dropped (noise of a term that the data do
        not contain); the effect is part of the reported error.

    Returns
    -------
    GridFit
    """
    names = list(params)
    n = len(states)
    big = np.stack([np.block([[s.A, s.B], [s.C, s.D]]) for s in systems])
    centre = np.array([0.5 * (ranges[k][0] + ranges[k][1]) for k in names])
    half = np.array([0.5 * (ranges[k][1] - ranges[k][0]) for k in names])
    t = (values - centre) / half
    exps = monomials(len(names), degree)
    V = _vandermonde(t, exps)
    sol = np.linalg.lstsq(V, big.reshape(len(systems), -1), rcond=None)[0]
    coeffs = {e: sol[i].reshape(big.shape[1:]) for i, e in enumerate(exps)}
    for j, k in enumerate(names):  # t_j = a + b δ_j in the ureal's own normalisation
        u = params[k]
        a, b = (u.center - centre[j]) / half[j], u.half_width / half[j]
        if (a, b) != (0.0, 1.0):
            coeffs = _substitute(coeffs, j, a, b)
    scale = max((np.linalg.norm(X, 2) for X in big if X.size), default=0.0)
    zero = (0,) * len(names)
    kept = {zero: coeffs[zero]}
    for e in sorted(coeffs, key=lambda e: (sum(e), tuple(-x for x in e))):
        if e != zero:
            X = _truncate(coeffs[e], tol * scale)
            if X is not None:
                kept[e] = X
    A0, B0, C0, D0 = _split(kept[zero], n)
    M0 = named_statespace(A0, B0, C0, D0, states=states, inputs=inputs, outputs=outputs,
                          name=name)
    atom_of = {k: params[k].name for k in names}
    terms = {tuple(atom_of[k] for k, p in zip(names, e) for _ in range(p)): X
             for e, X in kept.items() if e != zero}
    normalised = polynomial_lft(M0, terms, inputs=inputs, outputs=outputs, states=states,
                                name=name)
    uss = normalised
    if normalised.delta.blocks:  # δ of the name-keyed atoms is the ureals' δ: swap the specs
        by_atom = {u.name: u for u in params.values()}
        uss = USS(control.ss(*normalised.abcd), normalised.delta,
                  [by_atom[b.name] for b in normalised.delta.blocks],
                  inputs=inputs, outputs=outputs, states=states, name=name)
    reps = {u.name: 0 for u in params.values()}
    reps.update({b.name: b.repeats for b in uss.delta.blocks})
    err, rel = _errors(uss, values, big, [params[k].name for k in names], n)
    return GridFit(uss=uss, degree=degree, params=dict(params), coefficients=kept,
                   max_error=err, max_relative_error=rel, repetitions=reps,
                   n_points=len(systems))


def _split(X: np.ndarray, n: int) -> tuple[np.ndarray, ...]:
    return X[:n, :n], X[:n, n:], X[n:, :n], X[n:, n:]


def _errors(uss: USS, values: np.ndarray, big: np.ndarray, atoms: Sequence[str], n: int
            ) -> tuple[dict[str, float], dict[str, float]]:
    """Largest entry-wise difference, per matrix, between ``uss`` and the data."""
    present = set(uss.params)
    err = dict.fromkeys(MATRICES, 0.0)
    peak = dict.fromkeys(MATRICES, 0.0)
    for row, X in zip(values, big):
        sys = uss.at({a: v for a, v in zip(atoms, row) if a in present})
        for m, ref in zip(MATRICES, _split(X, n)):
            if ref.size:
                err[m] = max(err[m], float(np.max(np.abs(getattr(sys, m) - ref))))
                peak[m] = max(peak[m], float(np.max(np.abs(ref))))
    whole = max(peak.values())  # a matrix that is zero on the whole grid: the overall scale
    rel = {m: err[m] / (peak[m] if peak[m] > 0 else whole) if err[m] > 0 else 0.0
           for m in MATRICES}
    return err, rel
