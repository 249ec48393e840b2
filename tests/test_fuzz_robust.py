"""Property-based fuzzing of every public entry point of the robustness layer (issue 12).

Random shapes, NaN / inf / huge values, wrong types, strings, None and negative counts:
each call either returns a result without NaN or raises a ``titop_lpv`` error
(:class:`~titop_lpv.exceptions.TitopError`); a per-example alarm turns a hang into a
failure. Valid inputs also keep ``lower <= upper`` for the μ bounds, and the margin of a
loop with one real parameter equals its Routh–Hurwitz closed form.
"""

from __future__ import annotations

import math
from typing import Any

import control
import numpy as np
import pytest
from guards import hang_guard
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import titop_lpv as tl
from titop_lpv.exceptions import TitopError

SETTINGS = dict(deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
HANG_GUARD = 120  # seconds: only turns a hang into a failure (calls take well under 1 s)

POISON = st.sampled_from([np.nan, np.inf, -np.inf, 1e300, -1e300, 1e-300, 0.0])
JUNK = st.sampled_from(["a", None, "", b"x", [1, "a"], {"a": 1}, object(), 1j, True])
COUNTS = st.one_of(st.integers(-5, 6), st.sampled_from([1.5, -0.5, np.nan, np.inf, "a", None,
                                                        True, 2.0, [1]]))


def has_nan(obj: Any, depth: int = 0) -> bool:
    """Whether a result holds a NaN (numbers, arrays, tuples, dataclass fields)."""
    if depth > 3:
        return False
    if isinstance(obj, (float, complex, np.floating, np.complexfloating)):
        return bool(np.isnan(obj))
    if isinstance(obj, np.ndarray) and obj.dtype.kind in "fc":
        return bool(np.isnan(obj).any())
    if isinstance(obj, (tuple, list)):
        return any(has_nan(x, depth + 1) for x in obj)
    if hasattr(obj, "__dataclass_fields__"):
        return any(has_nan(getattr(obj, f), depth + 1) for f in obj.__dataclass_fields__)
    return False


def outcome(f, *args, **kwargs) -> Any:
    """Call ``f``: a titop_lpv error is fine (None is returned); any other exception, a
    hang or a NaN in the result fails the test."""
    with hang_guard(HANG_GUARD):
        try:
            out = f(*args, **kwargs)
        except TitopError:
            return None
    assert not has_nan(out), f"NaN in the result of {f.__name__}: {out!r:.300}"
    return out


@st.composite
def structures(draw) -> list[tuple]:
    n = draw(st.integers(1, 3))
    out = []
    for i in range(n):
        kind = draw(st.sampled_from(["real", "complex", "full"]))
        rows, cols = (draw(st.integers(1, 2)), draw(st.integers(1, 2))) if kind == "full" \
            else (1, 1)
        out.append((kind, rows, cols, draw(st.integers(1, 2)), f"b{i}"))
    return out


def sizes(blocks: list[tuple]) -> tuple[int, int]:
    nz = sum(b[2] * b[3] for b in blocks)
    nw = sum(b[1] * b[3] for b in blocks)
    return nz, nw


@st.composite
def matrices(draw, shape: tuple[int, ...], poison: bool = True) -> np.ndarray:
    size = int(np.prod(shape)) if shape else 1
    re = draw(st.lists(st.floats(-3, 3), min_size=size, max_size=size))
    im = draw(st.lists(st.floats(-3, 3), min_size=size, max_size=size))
    M = (np.array(re) + 1j * np.array(im) * draw(st.sampled_from([0.0, 1e-13, 1.0])))
    M = M.reshape(shape)
    M = M * draw(st.sampled_from([1.0, 1.0, 1e200, 1e-200]))
    if poison and M.size and draw(st.booleans()):
        M.flat[draw(st.integers(0, M.size - 1))] = draw(POISON)
    return M


@st.composite
def mu_inputs(draw):
    blocks = draw(structures())
    nz, nw = sizes(blocks)
    shape = draw(st.sampled_from([(nz, nw), (nz, nw), (nz, nw), (nz,), (nz + 1, nw),
                                  (2, nz, nw), ()]))
    M = draw(st.one_of(matrices(shape), JUNK)) if draw(st.integers(0, 5)) == 0 else \
        draw(matrices(shape))
    return M, blocks


@settings(max_examples=60, **SETTINGS)
@given(mu_inputs())
def test_mu_upper_never_escapes(args):
    M, blocks = args
    b = outcome(tl.mu_upper, M, blocks)
    if b is not None:
        assert b.value >= 0 and np.isfinite(b.value)


SEEDS = st.one_of(st.integers(0, 3), st.integers(0, 3), st.integers(0, 3), JUNK, COUNTS)


@settings(max_examples=80, **SETTINGS)
@given(mu_inputs(), SEEDS, st.one_of(st.integers(1, 3), st.integers(1, 3), COUNTS, JUNK))
def test_mu_lower_never_escapes(args, seed, starts):
    M, blocks = args
    b = outcome(tl.mu_lower, M, blocks, seed=seed, starts=starts)
    if b is not None:
        assert b.value >= 0 and np.isfinite(b.value)


@settings(max_examples=25, **SETTINGS)
@given(structures(), st.data())
def test_mu_bounds_are_ordered(blocks, data):
    nz, nw = sizes(blocks)
    M = data.draw(matrices((nz, nw), poison=False))
    up = tl.mu_upper(M, blocks)
    lo = tl.mu_lower(M, blocks, starts=2)
    assert lo.value <= up.value * (1 + 1e-9)
    if lo.delta is not None:
        assert tl.structured_norm(lo.delta, blocks) * lo.value == pytest.approx(1.0, rel=1e-9)


@settings(max_examples=60, **SETTINGS)
@given(structures(), st.data())
def test_structured_norm_and_block_values_never_escape(blocks, data):
    nz, nw = sizes(blocks)
    shape = data.draw(st.sampled_from([(nw, nz), (nw, nz), (nw + 1, nz), (nz + 2,), ()]))
    d = data.draw(st.one_of(matrices(shape), JUNK))
    n = outcome(tl.structured_norm, d, blocks)
    outcome(tl.block_values, d, blocks)
    if n is not None:
        assert n >= 0


@settings(max_examples=60, **SETTINGS)
@given(st.one_of(st.just("p"), JUNK), st.one_of(st.floats(-10, 10), POISON, JUNK),
       st.sampled_from(["percent", "plusminus", "range", "radius"]),
       st.one_of(st.floats(-50, 200), POISON, JUNK, st.tuples(st.floats(-5, 5),
                                                              st.floats(-5, 5))))
def test_parameters_never_escape(name, nominal, key, value):
    if key == "radius":
        outcome(tl.ucomplex, name, nominal, radius=value)
        outcome(tl.ucomplex, name, nominal, percent=value)
    else:
        outcome(tl.ureal, name, nominal, **{key: value})


@settings(max_examples=40, **SETTINGS)
@given(st.one_of(st.tuples(COUNTS, COUNTS), COUNTS, JUNK, st.tuples(st.integers(1, 3))),
       st.one_of(st.floats(-2, 5), POISON, JUNK))
def test_ultidyn_never_escapes(shape, bound):
    d = outcome(tl.ultidyn, "d", shape, bound)
    if d is not None:
        assert all(isinstance(k, int) and k >= 1 for k in d.shape)
        assert d.bound > 0


def loop(percent: float = 50.0, two: bool = False) -> tl.USS:
    """The docs' mass-spring-damper under a filtered PD controller (docs/robust.md)."""
    c = tl.ureal("c", nominal=1.0, percent=percent)
    k = tl.ureal("k", nominal=5.0, percent=40) if two else 5.0
    integ = control.tf(1, [1, 0])
    plant = tl.uss(tl.feedback(integ * tl.feedback(integ, c), k), inputs="f", outputs="x")
    return tl.feedback(plant, control.tf([1.8, 20.0], [0.1, 1], inputs="x", outputs="u"))


LOOP = loop()


@settings(max_examples=40, **SETTINGS)
@given(st.one_of(st.sampled_from([control.tf([1.0], [1.0, 1.0]), control.ss(-1, 1, 1, 0)]),
                 matrices((2, 2)), JUNK, POISON),
       st.one_of(st.none(), st.just("u"), JUNK, st.integers(0, 3)))
def test_uss_never_escapes(obj, inputs):
    G = outcome(tl.uss, obj, inputs=inputs)
    if G is not None:
        assert isinstance(G, tl.USS)


@settings(max_examples=40, **SETTINGS)
@given(st.one_of(COUNTS, JUNK), st.one_of(st.none(), st.integers(0, 5), COUNTS, JUNK),
       st.booleans())
def test_sampling_never_escapes(n, seed, systems):
    out = outcome(LOOP.sample if systems else LOOP.sample_delta, n, seed)
    if out is not None:
        assert len(out) == n


@settings(max_examples=40, **SETTINGS)
@given(st.one_of(st.floats(0.1, 3), POISON, JUNK), st.sampled_from(["at", "at_delta"]),
       st.booleans())
def test_evaluation_never_escapes(value, method, unknown):
    kw = {"c": value, **({"zz": 1.0} if unknown else {})}
    outcome(getattr(LOOP, method), **kw)


@settings(max_examples=40, **SETTINGS)
@given(st.sampled_from(["+", "*", "/", "**", "feedback", "series", "parallel", "append"]),
       st.one_of(POISON, JUNK, matrices((1, 1)), st.sampled_from([control.tf([1.0], [1, 2]),
                                                                  2.0, 1.5])))
def test_algebra_never_escapes(op, other):
    k = tl.ureal("k", 1.0, percent=10)
    f = {"+": lambda: k + other, "*": lambda: k * other, "/": lambda: k / other,
         "**": lambda: k ** other}.get(op) or (lambda: getattr(tl, op)(k, other))
    with hang_guard(HANG_GUARD):
        try:
            out = f()
        except TitopError:
            return
    assert isinstance(out, tl.USS)


@settings(max_examples=40, **SETTINGS)
@given(st.sampled_from(["lft_upper", "lft_lower", "star", "close_lft"]),
       st.one_of(matrices((3, 3)), JUNK), st.one_of(matrices((1, 1)), matrices((2, 2)), JUNK),
       COUNTS)
def test_lfts_never_escape(name, M, D, n):
    if name == "star":
        outcome(tl.star, np.real(M) if isinstance(M, np.ndarray) else M,
                np.real(D) if isinstance(D, np.ndarray) else D, n, n)
    elif name == "close_lft":
        sys = control.ss([[-1.0]], np.ones((1, 3)), np.ones((3, 1)), np.zeros((3, 3)))
        outcome(tl.close_lft, sys, D)
    else:
        outcome(getattr(tl, name), np.real(M) if isinstance(M, np.ndarray) else M, D)


@settings(max_examples=30, **SETTINGS)
@given(st.sampled_from(["robust_stability", "worst_case_gain", "monte_carlo", "mu_sweep"]),
       SEEDS, st.one_of(st.integers(1, 3), st.integers(1, 3), COUNTS, JUNK),
       st.one_of(st.none(), st.just([np.nan]), st.just([-1.0]), st.just("a"),
                 st.just([0.0, 1.0, 10.0])))
def test_analyses_never_escape(name, seed, count, omega):
    if name == "robust_stability":
        r = outcome(tl.robust_stability, LOOP, None, omega, seed=seed)
        if r is not None:
            assert r.margin_lower <= r.margin_upper
    elif name == "worst_case_gain":
        r = outcome(tl.worst_case_gain, LOOP, None, omega, seed=seed, starts=count)
        if r is not None:
            assert r.gain <= r.upper
    elif name == "monte_carlo":
        outcome(tl.monte_carlo, LOOP, None, count, seed=seed, omega=omega)
    else:
        M, delta = LOOP.lftdata()
        r = outcome(tl.mu_sweep, M[:1, :1], delta, [0.0, 1.0] if omega is None else omega,
                    seed=seed, polish=count)
        if r is not None:
            assert np.all(r.lower <= r.upper)


@settings(max_examples=6, **SETTINGS)
@given(st.floats(0.3, 0.95), st.floats(3.0, 8.0))
def test_one_real_parameter_margin_against_routh_hurwitz(c_frac, k):
    """Damping c uncertain, stiffness k fixed: by Routh–Hurwitz the loop is on the boundary
    at the c* solving ``(m + cτ)(c + kτ + k_d) = τ m (k + k_p)``; with c = 1 ± p %, the margin
    is (1 − c*)/(p/100). The percent is set so that the margin is ``c_frac`` (in [0.3, 0.95],
    unstable inside the box)."""
    m, tau, kp, kd = 1.0, 0.1, 20.0, 1.8
    a, b = tau, m + tau * (k * tau + kd)
    c0 = m * (k * tau + kd) - tau * m * (k + kp)
    c_star = (-b + math.sqrt(b * b - 4 * a * c0)) / (2 * a)
    percent = 100 * (1 - c_star) / c_frac
    c = tl.ureal("c", nominal=1.0, percent=percent)
    integ = control.tf(1, [1, 0])
    plant = tl.feedback(integ * tl.feedback(integ, c), k)
    G = tl.feedback(plant, control.tf([kd, kp], [tau, 1]))
    rs = tl.robust_stability(G)
    assert rs.margin_lower <= rs.margin_upper
    assert rs.margin_lower == pytest.approx(c_frac, rel=1e-9)
    assert rs.margin_upper == pytest.approx(c_frac, rel=1e-9)
