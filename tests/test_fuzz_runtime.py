"""Property-based tests of the runtime arguments (issue 12): simulate, linearize, jacobians,
dynamics, outputs, default_state, the sweeps and LPV interpolation.

Whatever the arguments (NaN, ±inf, 1e300, strings, ragged lists, wrong lengths, non-string
names, ...), a call either returns numbers that are all finite or raises a ``titop_lpv``
error; it never hangs (an alarm turns a hang into a failure). Simulations use spans of at
most 2 ms and a bounded evaluation budget, so each example is quick.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import control
import numpy as np
import pytest
from guards import hang_guard
from hypothesis import HealthCheck, currently_in_test_context, event, given, settings
from hypothesis import strategies as st

import titop_lpv as tl

ROOT = Path(__file__).resolve().parents[1]
with warnings.catch_warnings():
    warnings.simplefilter("ignore", tl.TitopWarning)
    MODEL = tl.load_model(ROOT / "examples" / "balloon.toml")
OP = tl.trim(MODEL, ["balloon.phi", "balloon.theta", "slider.q", "pendulum1.q", "pendulum2.q"],
             guess={"pendulum1.q": 0.2, "pendulum2.q": -0.2})
N_X = MODEL.n_states
FUZZ = settings(deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])

def either(*strategies: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """One of ``strategies``, each with the same weight (``st.one_of`` flattens nested
    unions into one list of branches, so ten kinds of junk would outweigh a valid value)."""
    return st.sampled_from(range(len(strategies))).flatmap(lambda k: strategies[k])


BAD_NUMBERS = st.sampled_from([math.nan, math.inf, -math.inf, 1e300, -1e300, 1e25])
JUNK = st.one_of(st.none(), st.booleans(), st.text(max_size=3), st.complex_numbers(),
                 st.just([]), st.just({}), st.just([1.0, 2.0]), st.just(10**400),
                 st.just(object()))
NUMBERS = st.one_of(st.floats(-10.0, 10.0), BAD_NUMBERS)


def spring() -> tl.Model:
    s = tl.System("msd", gravity=[0.0, 0.0, 0.0])
    s.parameter("k", 40.0, min=1.0)
    s.body("cart", tl.Prismatic(axis=[1, 0, 0], stiffness="k", actuated=True), mass=2.0)
    return s.compile()


SPRING = spring()
GRID = tl.linearize_sweep(SPRING, {"k": [10.0, 20.0, 30.0]}, free=["cart_q"], progress=False)


def vectors(valid: np.ndarray) -> st.SearchStrategy[Any]:
    """Arguments for a vector: the valid one with entries replaced, or malformed."""
    n = valid.size
    patched = st.lists(st.tuples(st.integers(0, max(n - 1, 0)), NUMBERS), max_size=3).map(
        lambda edits: _patch(valid, edits))
    malformed = st.one_of(
        st.lists(st.floats(-10.0, 10.0), min_size=n + 1, max_size=n + 2),
        st.lists(JUNK, min_size=1, max_size=n), JUNK,
        st.just([[1.0, 2.0], [3.0]]), st.just(np.zeros((2, n + 1))),
    )
    return either(st.just(valid.copy()), patched, malformed)


def _patch(valid: np.ndarray, edits: list[tuple[int, float]]) -> np.ndarray:
    out = valid.astype(float).copy()
    for k, v in edits:
        if out.size:
            out[k] = v
    return out


PARAMS = either(
    st.none(), st.just({"k": 60.0}),
    st.dictionaries(st.sampled_from(["k", "ds", "dp1", "dp2", "zz"]),
                    st.one_of(st.floats(allow_nan=True, allow_infinity=True), JUNK),
                    max_size=2),
    st.lists(st.floats(allow_nan=True, allow_infinity=True), min_size=3, max_size=5), JUNK,
)
NAME_LISTS = either(st.none(), st.just(["slider_tau"]), st.just(["pendulum2_q"]),
                       st.lists(st.one_of(st.integers(), st.none(), st.text(max_size=4)),
                                max_size=2), st.text(max_size=4), st.integers())


def finite(result: Any) -> bool:
    """All the numbers of a result are finite (and numbers)."""
    if isinstance(result, control.StateSpace):
        arrays = [result.A, result.B, result.C, result.D]
    elif isinstance(result, tl.Trajectory):
        arrays = [result.t, result.x, result.y, result.u]
    elif isinstance(result, tl.Jacobians):
        arrays = [result.A, result.B, result.C, result.D, result.f0, result.y0]
    elif isinstance(result, tl.LPVGrid):
        arrays = [s.A for s in result.systems.flat if s is not None]
    elif isinstance(result, tl.TrimSweep):
        arrays = [op.x for op in result if op.success]
    else:
        arrays = [result]
    return all(np.asarray(a).dtype.kind in "fc" and np.all(np.isfinite(a)) for a in arrays)


def _event(outcome: str) -> None:
    """Count an outcome in hypothesis's statistics (``--hypothesis-show-statistics``)."""
    if currently_in_test_context():
        event(outcome)


def check(call: Callable[[], Any]) -> None:
    """The call returns finite numbers or raises a titop_lpv error; never hangs."""
    with hang_guard(), warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            result = call()
        except tl.TitopError as err:
            _event(f"typed {type(err).__name__}")
            return
    _event("returned")
    assert finite(result), f"non-finite result {result!r:.200}"


@settings(FUZZ, max_examples=120)
@given(x=vectors(OP.x), params=PARAMS, which=st.sampled_from(["energy", "momentum",
                                                               "center_of_mass"]))
def test_energy_momentum_and_centre_of_mass(x, params, which):
    """A NaN, infinite or overflowing state was a silent (nan, nan) (issue 25 item 5)."""
    fn = getattr(tl, which)

    def flat() -> np.ndarray:
        result = fn(MODEL, x, params)
        parts = result if isinstance(result, tuple) else (result,)
        return np.concatenate([np.ravel(p) for p in parts])
    check(flat)


@settings(FUZZ, max_examples=300)
@given(x=vectors(OP.x), u=either(st.none(), vectors(np.zeros(1))), params=PARAMS,
       outputs=st.booleans())
def test_dynamics_and_outputs(x, u, params, outputs):
    fn = MODEL.outputs if outputs else MODEL.dynamics
    check(lambda: fn(0.0, x, u, params))


@settings(FUZZ, max_examples=60)
@given(params=PARAMS)
def test_default_state(params):
    check(lambda: MODEL.default_state(params))


@settings(FUZZ, max_examples=100)
@given(span=either(st.just((0.0, 0.002)), st.tuples(st.just(0.0), NUMBERS),
                  st.tuples(NUMBERS, NUMBERS), JUNK),
       x0=either(st.none(), vectors(OP.x)),
       u=either(st.none(), vectors(np.zeros(1)),
                   st.sampled_from([lambda t, x: [math.nan], lambda t, x: "a",
                                    lambda t, x: [0.5], lambda t, x: [1e300],
                                    lambda t: [0.5], lambda: [0.5]])),
       params=either(st.none(), PARAMS),
       options=st.fixed_dictionaries({}, optional={
           "method": st.sampled_from(["rk45", "Radau", "lsoda", "nope", 5]),
           "rtol": either(st.floats(1e-8, 1e-3), NUMBERS, JUNK),
           "atol": either(st.floats(1e-10, 1e-3), NUMBERS, JUNK),
           "max_step": either(st.floats(1e-4, 1.0), NUMBERS, JUNK),
           "t_eval": either(st.just([0.001]), st.lists(NUMBERS, max_size=2), JUNK),
           "n_points": either(st.integers(-2, 7), JUNK),
           "progress": either(st.booleans(), JUNK)}))
def test_simulate(span, x0, u, params, options):
    check(lambda: tl.simulate(MODEL, span, x0, u, params, max_nfev=20_000, **options))


@settings(FUZZ, max_examples=150)
@given(use_op=st.sampled_from([True, False, "abc"]), x=vectors(OP.x),
       kwargs=st.fixed_dictionaries({}, optional={
           "u": vectors(np.zeros(1)), "params": PARAMS, "inputs": NAME_LISTS,
           "outputs": NAME_LISTS, "states": NAME_LISTS, "drop": NAME_LISTS,
           "tol": either(NUMBERS, JUNK), "drift": either(st.booleans(), JUNK),
           "name": either(st.text(max_size=4), JUNK)}))
def test_linearize(use_op, x, kwargs):
    if use_op is True:
        check(lambda: tl.linearize(MODEL, OP, **kwargs))
    elif use_op is False:
        check(lambda: tl.linearize(MODEL, x=x, **kwargs))
    else:
        check(lambda: tl.linearize(MODEL, use_op, **kwargs))


@settings(FUZZ, max_examples=80)
@given(x=vectors(OP.x), u=either(st.none(), vectors(np.zeros(1))), params=PARAMS,
       parameters=either(st.booleans(), JUNK))
def test_jacobians(x, u, params, parameters):
    check(lambda: tl.jacobians(MODEL, x, u, params, parameters=parameters))


@settings(FUZZ, max_examples=40)
@given(grid=either(st.just({"k": [10.0, 20.0]}),
                      st.dictionaries(st.sampled_from(["k", "zz"]),
                                      either(st.lists(NUMBERS, max_size=3), JUNK),
                                      min_size=1, max_size=1), JUNK),
       kwargs=st.fixed_dictionaries({"progress": either(st.just(False), JUNK)}, optional={
           "executor": either(st.just(object()), JUNK),
           "chunks": either(st.integers(-2, 3), JUNK),
           "branch_tol": either(NUMBERS, JUNK, st.just({"cart_q": math.nan}))}))
def test_sweeps(grid, kwargs):
    if "branch_tol" in kwargs:
        check(lambda: tl.linearize_sweep(SPRING, grid, ["cart_q"], **kwargs))
    else:
        check(lambda: tl.trim_sweep(SPRING, grid, ["cart_q"], **kwargs))


@settings(FUZZ, max_examples=80)
@given(values=either(
    st.fixed_dictionaries({"k": either(st.floats(5.0, 35.0), NUMBERS, JUNK)}),
    st.dictionaries(st.sampled_from(["k", "K", "zz"]),
                    either(st.floats(allow_nan=True, allow_infinity=True), JUNK), max_size=2)))
def test_lpv_at(values):
    check(lambda: GRID.at(**values))


@pytest.mark.parametrize("value", [math.nan, math.inf, 1e300, "a", None])
def test_check_passes_only_typed_errors_or_finite_results(value):
    """The property's oracle: a NaN result would fail it, a foreign error escapes it."""
    with pytest.raises(AssertionError, match="non-finite result"):
        check(lambda: np.array([1.0, math.nan]))
    with pytest.raises(ZeroDivisionError):
        check(lambda: 1 / 0)
    check(lambda: MODEL.dynamics(0.0, OP.x, [value]))  # typed error, or finite
