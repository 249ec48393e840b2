"""Property-based tests over the arguments of ``tl.trim``: only titop_lpv errors, no NaN.

Hypothesis draws the free and fixed variables, parameter values, starting states, spin
specifications and solver options (well-formed and malformed: wrong types, non-finite
and huge numbers, unknown names, strings where numbers belong) on two small models. Every
call must either return an operating point whose state, inputs, parameters and residual
are finite, or raise a ``tl.TitopError`` subclass; a per-example alarm turns a hang into a
failure.
"""

from __future__ import annotations

import signal
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import titop_lpv as tl

G = 9.81
HANG_GUARD = 60  # seconds: turns a hang into a failure, far above any single trim here


def _models() -> dict[str, tl.Model]:
    pend = tl.System("pend", gravity=[0.0, -G, 0.0])
    pend.parameter("k", 2.0, min=0.5, max=10.0)
    pend.body("arm", tl.Revolute(axis=[0, 0, 1], stiffness="k", q0=0.3), mass=1.0,
              com=[0.0, -1.0, 0.0], ports={"tip": [0.0, -1.0, 0.0]})
    pend.body("bob", tl.Revolute(axis=[0, 0, 1], q0=-0.2), parent="arm.tip", mass=1.0,
              com=[0.0, -1.0, 0.0])
    hub = tl.System("hub", gravity=[0.0, 0.0, 0.0])
    hub.parameter("Omega", 2.0)
    hub.body("hub", tl.Free(), mass=5.0, inertia=np.diag([2.0, 2.0, 3.0]),
             ports={"p": [0.5, 0.0, 0.0]})
    hub.body("panel", tl.Revolute(axis=[0, 1, 0], stiffness=20.0, rest=0.3, q0=0.3),
             parent="hub.p", mass=1.0, com=[0.5, 0.0, 0.0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return {"pend": pend.compile(), "hub": hub.compile()}


MODELS = _models()

odd = st.one_of(st.none(), st.booleans(), st.integers(-10, 10),
                st.floats(allow_nan=True, allow_infinity=True),
                st.sampled_from([1e300, -1e300, 1e-300, 2 ** 80]), st.text(max_size=4),
                st.just(b"x"), st.lists(st.floats(-1, 1), max_size=2),
                st.just({}), st.complex_numbers(max_magnitude=2, allow_nan=False))


@st.composite
def call(draw):
    name = draw(st.sampled_from(sorted(MODELS)))
    model = MODELS[name]
    names = list(model.state_names) + list(model.input_names) + list(model.param_names)
    config = [n for n in model.state_names if n not in model.velocity_names()]
    kw: dict = {}
    kw["free"] = draw(st.one_of(st.lists(st.sampled_from(config), max_size=4, unique=True),
                                st.lists(st.one_of(st.sampled_from(names), odd), max_size=3),
                                odd))
    if draw(st.booleans()):
        kw["fixed"] = draw(st.one_of(
            st.dictionaries(st.sampled_from(names), st.one_of(st.floats(-3, 3), odd),
                            max_size=2), odd))
    if draw(st.booleans()):
        kw["params"] = draw(st.one_of(
            st.dictionaries(st.sampled_from(names), st.one_of(st.floats(0.5, 5), odd),
                            max_size=2), odd))
    if draw(st.integers(0, 3)) == 0:
        kw["kind"] = "spin"
        kw["spin"] = draw(st.one_of(st.fixed_dictionaries({
            "body": st.one_of(st.sampled_from(model.body_names), odd),
            "axis": st.one_of(st.sampled_from([[0, 0, 1], [0, 1, 0]]), odd),
            "rate": st.one_of(st.floats(-5, 5), st.just("Omega"), odd)}), odd))
    if draw(st.booleans()):
        n = model.n_states
        kw["x0"] = draw(st.one_of(
            st.lists(st.floats(-4, 4), min_size=n, max_size=n),
            st.lists(st.one_of(st.floats(), st.sampled_from([1e300, -1e300])), min_size=n,
                     max_size=n),
            odd))
    if draw(st.booleans()):
        kw["guess"] = draw(st.one_of(
            st.dictionaries(st.sampled_from(config), st.floats(-10, 10), max_size=2), odd))
    for option, values in (("tol", st.one_of(st.floats(1e-12, 1e-6), odd)),
                           ("max_nfev", st.one_of(st.integers(1, 50), odd)),
                           ("pin_neutral", st.one_of(st.booleans(), odd))):
        if draw(st.integers(0, 4)) == 0:
            kw[option] = draw(values)
    kw["strict"] = draw(st.one_of(st.booleans(), st.booleans(), odd))
    return model, kw


def _alarm(signum, frame):
    raise AssertionError(f"trim did not return within {HANG_GUARD} s")


@settings(max_examples=250, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(call())
def test_trim_arguments_give_typed_errors_or_finite_points(case):
    model, kw = case
    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(HANG_GUARD)
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            op = tl.trim(model, **kw)
    except tl.TitopError:
        return
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    for values in (op.x, op.u, op.residual, list(op.params.values())):
        assert np.all(np.isfinite(np.asarray(values, dtype=float)))
    assert isinstance(op.success, bool) and op.nfev >= 0


@pytest.mark.parametrize("bad", [None, "l0_q", 3, ["arm_q", 1.5], {"arm_q": 1.0}])
def test_free_of_the_wrong_type_is_a_spec_error(bad):
    with pytest.raises(tl.TrimSpecError, match="free"):
        tl.trim(MODELS["pend"], bad)
