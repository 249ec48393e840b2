"""Polynomial fit of an LPV grid as an uncertain system (``LPVGrid.to_uss`` → ``GridFit``).

What is checked against what (random data seeded, tolerances in each assertion):

* **exact on polynomial plants.** A mass-spring-damper over (k, c), whose A is affine in
  both: the degree-1 fit reproduces every grid system (from its coefficients and from the
  USS evaluated at the point) and the exact linearisation between grid points, with one δ
  per parameter; a degree-2 fit of the same data drops the noise of the quadratic terms
  (still one δ each). A grid whose systems are exactly quadratic in k (seeded random
  coefficients, a rank-1 k² term): the degree-2 fit is exact, the degree-1 fit is not; a
  ``ureal`` given with another range and name gives the same systems at the grid points.
* **Δ size.** The repetitions of each parameter are at most Σ_α α_k·rank(X_α) (what
  :func:`polynomial_lft` uses before its reduction) and equal those of ``polynomial_lft``
  applied to the reported coefficients; a pure k² term of rank 1 needs 2 (so the sum of the
  coefficient ranks alone is no bound in general).
* **balloon, off-centre variant over k** (31 points; the equilibrium moves with k, so the
  matrices are not polynomial): degree 1 and 2; the reported max error (absolute and
  relative, per matrix) equals an independent recomputation (USS evaluated at every grid
  point against the grid's systems) to 1e-12 relative; degree 2 is at least as good as
  degree 1 (RMS residual: guaranteed by least squares; max error: checked here).
* **refusals.** Failed grid points, a degree that is not an integer ≥ 1 or too high for the
  distinct values of a parameter, differing state sets or dropped states, ``params`` naming
  a non-grid parameter or not holding a ``ureal``, two parameters with one ureal name: each
  raises ``LPVError`` naming the culprit.
"""

from __future__ import annotations

import dataclasses
import warnings
from pathlib import Path

import numpy as np
import pytest

import titop_lpv as tl
from titop_lpv.analysis.linearize import named_statespace
from titop_lpv.analysis.lpv_fit import GridFit
from titop_lpv.model import read_description

ROOT = Path(__file__).resolve().parents[1]
MATRICES = ("A", "B", "C", "D")
MASS = 2.0
K_VALUES = np.linspace(10.0, 50.0, 5)
C_VALUES = np.array([1.0, 2.0, 4.0])

BALLOON_FREE = ["balloon.phi", "balloon.theta", "slider.q", "pendulum1.q", "pendulum2.q"]
BALLOON_FIXED = {"balloon.x": 0.0, "balloon.z": 0.0, "balloon.psi": 0.0}
HANGING = {"pendulum1.q": 0.2, "pendulum2.q": -0.2}


def _max_diff(s1, s2) -> float:
    return max(float(np.max(np.abs(getattr(s1, m) - getattr(s2, m)), initial=0.0))
               for m in MATRICES)


def _poly_at(fit: GridFit, point: dict) -> np.ndarray:
    """``[[A, B], [C, D]]`` of the fitted polynomial at physical parameter values, from the
    reported coefficients (in the normalised δ of each ureal)."""
    deltas = [fit.params[k].to_delta(point[k]) for k in fit.params]
    return sum(np.prod([d ** p for d, p in zip(deltas, e)]) * X
               for e, X in fit.coefficients.items())


def _big(sys) -> np.ndarray:
    return np.block([[sys.A, sys.B], [sys.C, sys.D]])


@pytest.fixture(scope="module")
def msd() -> tl.Model:
    s = tl.System("msd", gravity=[0.0, 0.0, -9.81])  # gravity along the axis: q₀ = −m g / k
    s.parameter("k", 40.0, unit="N/m")
    s.parameter("c", 2.0, unit="N s/m")
    s.body("cart", tl.Prismatic(axis=[0, 0, 1], stiffness="k", damping="c", actuated=True),
           mass=MASS)
    return s.compile()


@pytest.fixture(scope="module")
def msd_grid(msd) -> tl.LPVGrid:
    return tl.linearize_sweep(msd, {"k": K_VALUES, "c": C_VALUES}, free=["cart_q"],
                              progress=False)


@pytest.fixture(scope="module")
def k_grid(msd) -> tl.LPVGrid:
    return tl.linearize_sweep(msd, {"k": K_VALUES}, free=["cart_q"], progress=False)


@pytest.fixture(scope="module")
def balloon_grid() -> tl.LPVGrid:
    d = read_description(ROOT / "examples" / "balloon.toml")
    d["bodies"][1]["joint"]["actuated"] = True  # slider force input slider_tau
    d["bodies"][0]["ports"]["C"] = [0.4, -2.0, 0.0]  # off-centre: the equilibrium moves with k
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tl.TitopWarning)  # the paper's inertia: expected
        model = tl.load_model(d)
    return tl.linearize_sweep(model, {"k": np.linspace(25.0, 100.0, 31)}, BALLOON_FREE,
                              BALLOON_FIXED, guess=HANGING, progress=False,
                              inputs=["slider_tau"], outputs=["pendulum2_q"],
                              drop_integrators=True)


def _quadratic_grid(k_grid: tl.LPVGrid, seed: int, *, linear: bool = True) -> tuple:
    """``k_grid`` with its systems replaced by ``M(k) = M0 + t M1 + t² M2`` (seeded random
    ``M0``, ``M1``; ``M2`` of rank 1): ``t = k/30``, or, if not ``linear``, ``M1 = 0`` and
    ``t = (k − 30)/20``, the grid's normalised k (a pure square in the fit's δ)."""
    rng = np.random.default_rng(seed)
    n, m, p = 2, 1, 1
    M0 = rng.standard_normal((n + p, n + m))
    M1 = rng.standard_normal((n + p, n + m)) if linear else np.zeros((n + p, n + m))
    M2 = np.outer(rng.standard_normal(n + p), rng.standard_normal(n + m))
    systems = np.empty(k_grid.shape, dtype=object)
    for i, k in enumerate(k_grid.axes["k"]):
        t = k / 30.0 if linear else (k - 30.0) / 20.0
        X = M0 + t * M1 + t * t * M2
        systems[i] = named_statespace(X[:n, :n], X[:n, n:], X[n:, :n], X[n:, n:],
                                      states=k_grid.state_names, inputs=k_grid.input_names,
                                      outputs=k_grid.output_names, name="quadratic")
        systems[i].dropped_states = {}
        systems[i].dropped_outputs = ()
    return dataclasses.replace(k_grid, systems=systems), (M0, M1, M2)


def _bound(fit) -> dict[str, int]:
    """Σ_α α_k·rank(X_α) per parameter: polynomial_lft's repetitions before reduction."""
    out = {a.name: 0 for a in fit.params.values()}
    for e, X in fit.coefficients.items():
        r = np.linalg.matrix_rank(X, tol=1e-12 * max(1.0, np.linalg.norm(X, 2)))
        for a, p in zip(fit.params.values(), e):
            out[a.name] += p * r
    return out


def _reps_of_polynomial_lft(fit) -> dict[str, int]:
    zero = (0,) * len(fit.params)
    names = [a.name for a in fit.params.values()]
    n = len(fit.uss.state_labels)
    X0 = fit.coefficients[zero]
    sys0 = named_statespace(X0[:n, :n], X0[:n, n:], X0[n:, :n], X0[n:, n:],
                            states=fit.uss.state_labels, inputs=fit.uss.input_labels,
                            outputs=fit.uss.output_labels, name="p")
    terms = {tuple(nm for nm, p in zip(names, e) for _ in range(p)): X
             for e, X in fit.coefficients.items() if e != zero}
    G = tl.polynomial_lft(sys0, terms)
    return {b.name: b.repeats for b in G.delta.blocks}


# --------------------------------------------------------------------------------------------
# exact on polynomial plants
# --------------------------------------------------------------------------------------------
def test_affine_plant_is_reproduced_exactly(msd, msd_grid):
    fit = msd_grid.to_uss(1)
    assert isinstance(fit.uss, tl.USS) and fit.degree == 1 and fit.n_points == 15
    assert fit.repetitions == {"k": 1, "c": 1}
    # every ureal: named after its parameter, range = the grid's, nominal = its midpoint
    for name, values in (("k", K_VALUES), ("c", C_VALUES)):
        u = fit.uss.params[name]
        assert (u.lo, u.hi, u.nominal) == (values.min(), values.max(),
                                           0.5 * (values.min() + values.max()))
    assert tuple(fit.uss.state_labels) == msd_grid.state_names == ("cart_q", "cart_qd")
    assert tuple(fit.uss.input_labels) == msd_grid.input_names
    assert tuple(fit.uss.output_labels) == msd_grid.output_names
    worst_poly = worst_uss = 0.0
    for i, k in enumerate(K_VALUES):
        for j, c in enumerate(C_VALUES):
            ref = msd_grid[i, j]
            worst_poly = max(worst_poly, float(np.max(np.abs(
                _poly_at(fit, {"k": k, "c": c}) - _big(ref)))))
            worst_uss = max(worst_uss, _max_diff(fit.uss.at(k=k, c=c), ref))
    assert worst_poly <= 1e-10, f"polynomial vs grid: {worst_poly:.2e} (1e-10)"
    assert worst_uss <= 1e-9, f"USS at the grid points vs grid: {worst_uss:.2e} (1e-9)"
    assert max(fit.max_error.values()) <= 1e-10, fit.report()
    # A is affine in (k, c): the fit is the plant between grid points too
    op = tl.trim(msd, free=["cart_q"], params={"k": 23.0, "c": 3.1})
    exact = tl.linearize(msd, op)
    np.testing.assert_allclose(exact.A[1], [-23.0 / MASS, -3.1 / MASS], rtol=1e-12)
    assert _max_diff(fit.uss.at(k=23.0, c=3.1), exact) <= 1e-9
    # nominal = the grid's midpoint (k = 30, c = 2.5)
    assert _max_diff(fit.uss.nominal(), fit.uss.at(k=30.0, c=2.5)) <= 1e-12
    # degree 2 on affine data: the quadratic coefficients are noise and are dropped
    fit2 = msd_grid.to_uss(2)
    assert fit2.repetitions == {"k": 1, "c": 1}
    assert max(fit2.max_error.values()) <= 1e-10, fit2.report()
    text = fit.report()
    assert "degree 1" in text and "k x1" in text and "A:" in text and "between" in text


def test_quadratic_plant_is_reproduced_exactly(k_grid):
    grid, (M0, M1, M2) = _quadratic_grid(k_grid, seed=1)
    fit = grid.to_uss(2)
    worst_poly = worst_uss = 0.0
    for i, k in enumerate(K_VALUES):
        worst_poly = max(worst_poly, float(np.max(np.abs(_poly_at(fit, {"k": k})
                                                         - _big(grid[i])))))
        worst_uss = max(worst_uss, _max_diff(fit.uss.at(k=k), grid[i]))
    assert worst_poly <= 1e-10 and worst_uss <= 1e-9, (worst_poly, worst_uss)
    assert max(fit.max_error.values()) <= 1e-10, fit.report()
    # between the grid points too (the data are the polynomial)
    t = 37.0 / 30.0
    X = M0 + t * M1 + t * t * M2
    assert float(np.max(np.abs(_big(fit.uss.at(k=37.0)) - X))) <= 1e-9
    # degree 1 cannot represent it: a real, reported error
    assert max(grid.to_uss(1).max_error.values()) > 1e-3

    # another ureal (name, range beyond the grid: warned, nominal): same systems on the grid
    wide = tl.ureal("stiffness", 20.0, range=(0.0, 60.0))
    with pytest.warns(tl.TitopWarning, match=r"'stiffness'.*beyond the grid"):
        other = grid.to_uss(2, params={"k": wide})
    assert set(other.uss.params) == {"stiffness"} and other.uss.params["stiffness"] is wide
    worst = max(_max_diff(other.uss.at(stiffness=k), grid[i]) for i, k in enumerate(K_VALUES))
    assert worst <= 1e-9 and max(other.max_error.values()) <= 1e-10, other.report()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a range inside the grid: no warning
        inner = grid.to_uss(2, params={"k": tl.ureal("k", 25.0, range=(20.0, 40.0))})
    assert max(inner.max_error.values()) <= 1e-10, inner.report()
    assert _max_diff(inner.uss.nominal(), fit.uss.at(k=25.0)) <= 1e-9


# --------------------------------------------------------------------------------------------
# Δ size
# --------------------------------------------------------------------------------------------
def test_repetitions_against_polynomial_lft(k_grid, msd_grid):
    for grid, degree in ((_quadratic_grid(k_grid, seed=2)[0], 2), (msd_grid, 1),
                         (msd_grid, 2)):
        fit = grid.to_uss(degree)
        bound = _bound(fit)
        for name, reps in fit.repetitions.items():
            assert 1 <= reps <= bound[name], (name, reps, bound)
        assert fit.repetitions == _reps_of_polynomial_lft(fit)
        assert fit.repetitions == {b.name: b.repeats for b in fit.uss.delta.blocks}
    # a pure k² term of rank 1: two repetitions, more than the sum of the coefficient ranks
    pure, _ = _quadratic_grid(k_grid, seed=3, linear=False)
    fit = pure.to_uss(2)
    ranks = sum(np.linalg.matrix_rank(X) for e, X in fit.coefficients.items() if e != (0,))
    assert set(fit.coefficients) == {(0,), (2,)}  # δ² only: the δ term is noise, dropped
    assert fit.repetitions == {"k": 2} and ranks == 1 and _bound(fit) == {"k": 2}
    assert max(fit.max_error.values()) <= 1e-10


# --------------------------------------------------------------------------------------------
# balloon: non-polynomial data
# --------------------------------------------------------------------------------------------
def test_balloon_fit_errors_are_what_they_say(balloon_grid):
    grid = balloon_grid
    assert np.all(grid.sweep.success) and grid.shape == (31,)
    ks = grid.axes["k"]
    assert np.ptp(grid.sweep.values("slider_q")) > 0.5  # the equilibrium moves with k
    fits = {d: grid.to_uss(d) for d in (1, 2)}
    rms = {}
    for d, fit in fits.items():
        err = dict.fromkeys(MATRICES, 0.0)
        peak = dict.fromkeys(MATRICES, 0.0)
        sq = 0.0
        for i, k in enumerate(ks):
            sys = fit.uss.at(k=k)
            assert tuple(sys.state_labels) == grid.state_names
            for m in MATRICES:
                diff = np.abs(getattr(sys, m) - getattr(grid[i], m))
                err[m] = max(err[m], float(diff.max()))
                peak[m] = max(peak[m], float(np.abs(getattr(grid[i], m)).max()))
                sq += float(np.sum(diff ** 2))
        rms[d] = np.sqrt(sq / len(ks))
        whole = max(peak.values())
        for m in MATRICES:
            assert fit.max_error[m] == pytest.approx(err[m], rel=1e-12, abs=0.0), (d, m)
            rel = err[m] / (peak[m] if peak[m] > 0 else whole)
            assert fit.max_relative_error[m] == pytest.approx(rel, rel=1e-12, abs=0.0), (d, m)
        # the fit is not exact here: the error is real and reported
        assert fit.max_relative_error["A"] > 1e-3
        assert fit.repetitions["k"] <= _bound(fit)["k"]
        assert fit.repetitions == _reps_of_polynomial_lft(fit)
    # least squares on nested spaces: the residual cannot grow with the degree
    assert rms[2] <= rms[1] * (1 + 1e-12)
    for m in ("A", "B"):
        assert fits[2].max_error[m] <= fits[1].max_error[m], (m, fits[1].report(),
                                                              fits[2].report())
    # measured (2026-11): Δ = k×10 at degree 1, k×20 at degree 2; see the report
    assert fits[1].repetitions == {"k": 10} and fits[2].repetitions == {"k": 20}


# --------------------------------------------------------------------------------------------
# refusals
# --------------------------------------------------------------------------------------------
def test_refuses_failed_points(msd_grid):
    systems = msd_grid.systems.copy()
    systems[2, 1] = None
    bad = dataclasses.replace(msd_grid, systems=systems)
    with pytest.raises(tl.LPVError, match=r"k=30, c=2"):
        bad.to_uss(1)


@pytest.mark.parametrize("degree", [0, -1, 1.0, 1.5, True, "2", None])
def test_refuses_a_bad_degree(msd_grid, degree):
    with pytest.raises(tl.LPVError, match=r"degree must be an integer >= 1, got"):
        msd_grid.to_uss(degree)


def test_refuses_an_underdetermined_degree(msd_grid):
    msd_grid.to_uss(np.int64(2))  # 3 distinct values of c: degree 2 is fine
    with pytest.raises(tl.LPVError, match=r"degree 3 needs at least 4 distinct values of 'c'"
                                          r"; the grid has 3"):
        msd_grid.to_uss(3)


def test_refuses_differing_states(msd_grid):
    systems = msd_grid.systems.copy()
    ref = systems[1, 0]
    systems[1, 0] = named_statespace(ref.A, ref.B, ref.C, ref.D, states=["cart_q", "other"],
                                     inputs=msd_grid.input_names,
                                     outputs=msd_grid.output_names, name="x")
    with pytest.raises(tl.LPVError, match=r"k=20, c=1 .*differing: \['cart_qd', 'other'\]"):
        dataclasses.replace(msd_grid, systems=systems).to_uss(1)
    systems = msd_grid.systems.copy()
    moved = named_statespace(ref.A, ref.B, ref.C, ref.D, states=msd_grid.state_names,
                             inputs=msd_grid.input_names, outputs=msd_grid.output_names,
                             name="x")
    moved.dropped_states = {"cart_q": "drop"}
    systems[0, 2] = moved
    with pytest.raises(tl.LPVError, match=r"k=10, c=4 dropped the states \{'cart_q'"):
        dataclasses.replace(msd_grid, systems=systems).to_uss(1)


def test_refuses_bad_params(msd_grid):
    with pytest.raises(tl.LPVError, match=r"'m', which is not a grid parameter"):
        msd_grid.to_uss(1, params={"m": tl.ureal("m", 2.0, range=(1.0, 3.0))})
    with pytest.raises(tl.LPVError, match=r"params\['k'\] must be a tl.ureal"):
        msd_grid.to_uss(1, params={"k": 30.0})
    with pytest.raises(tl.LPVError, match=r"share a ureal name: \['c', 'c'\]"):
        msd_grid.to_uss(1, params={"k": tl.ureal("c", 30.0, range=(10.0, 50.0))})
    with pytest.raises(tl.LPVError, match=r"tol must be"):
        msd_grid.to_uss(1, tol=-1.0)
    # a ureal given for one parameter keeps its nominal; the other gets the default
    fit = msd_grid.to_uss(1, params={"k": tl.ureal("k", 20.0, range=(10.0, 50.0))})
    assert fit.uss.params["k"].nominal == 20.0 and fit.uss.params["c"].nominal == 2.5
