"""The fast route of ``tl.jacobians(..., outputs=False)`` on fixed-base trees
(titop_lpv/analysis/jacobians_fast.py, titop_lpv/multibody/derivatives_call.py).

The route runs the compiled derivatives kernel directly when the arguments need no
conversion; its ``A``, ``B`` and ``f0`` must be bit-identical to the general route's (forced
here by passing lists, which the fast route refuses), and equal to the complex-step
Jacobians of ``model.dynamics`` (an independent route, through the forward-dynamics kernel)
to 1e-11 of the largest entry. Anything unusual — a NaN or infinite entry, another dtype or
layout, parameter values the model refuses, an overflow — must reach the general route and
its typed errors, naming the state, input, parameter or column at fault.
"""

from __future__ import annotations

import pickle
from pathlib import Path

import models
import numpy as np
import pytest
from reference_jacobians import chain_description as _chain
from reference_jacobians import complex_step_ab
from reference_jacobians import load_quiet as _load

import titop_lpv as tl
from titop_lpv.multibody import derivatives_call

ROOT = Path(__file__).resolve().parents[1]
RTOL = 1e-11  # relative to the largest entry of [A B]


def _call(model: tl.Model) -> derivatives_call.JacobianCall:
    """The model's fast route (built by its first ``jacobians`` call)."""
    tl.jacobians(model, np.zeros(model.n_states), outputs=False)
    return model.memo("jacobian_call", None, lambda: None)


@pytest.fixture(scope="module")
def tree() -> tl.Model:
    """A random fixed-base tree with springs, dampers, two actuated joints and parameters."""
    model = _load(models.random_tree(5, 8, "fixed", loads=False, params=True))
    assert model.n_inputs == 2 and "m_b4" in model.param_names
    return model


def _point(model: tl.Model, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    return rng.uniform(-1.5, 1.5, model.n_states), rng.uniform(-2.0, 2.0, model.n_inputs)


def test_fast_route_equals_general_route_and_complex_step(tree):
    x, u = _point(tree, 1)
    p = np.array(tree.param_defaults, dtype=float)
    p[tree.param_names.index("m_b4")] *= 1.7  # not the defaults: a second cache entry
    call = _call(tree)
    for params in (None, {}, p, dict(zip(tree.param_names, map(float, p)))):
        assert call.route(tree, x, u, params) is not None  # served by the fast route
        fast = tl.jacobians(tree, x, u, params, outputs=False)
        ref = tl.jacobians(tree, list(x), list(u), params, outputs=False)  # general route
        for name in ("A", "B", "f0"):
            np.testing.assert_array_equal(getattr(fast, name), getattr(ref, name), name)
        A, B = complex_step_ab(tree, x, u, params)
        scale = max(1.0, float(np.max(np.abs(A))), float(np.max(np.abs(B))))
        assert np.max(np.abs(fast.A - A)) <= RTOL * scale
        assert np.max(np.abs(fast.B - B)) <= RTOL * scale
        f = tree.dynamics(0.0, x, u, params)
        assert np.max(np.abs(fast.f0 - f)) <= 1e-12 * max(1.0, float(np.max(np.abs(f))))
    # the parameters matter: the heavier body changes A
    assert not np.array_equal(tl.jacobians(tree, x, u, p, outputs=False).A,
                              tl.jacobians(tree, x, u, outputs=False).A)


def test_result_arrays(tree):
    x, u = _point(tree, 2)
    one, two = (tl.jacobians(tree, x, u, outputs=False) for _ in range(2))
    n_x, n_u = tree.n_states, tree.n_inputs
    assert one.A.shape == (n_x, n_x) and one.B.shape == (n_x, n_u) and one.f0.shape == (n_x,)
    assert one.C.shape == (0, n_x) and one.D.shape == (0, n_u) and one.y0.shape == (0,)
    assert not (one.C.flags.writeable or one.D.flags.writeable or one.y0.flags.writeable)
    assert one.Fp is None and one.Hp is None
    assert not np.shares_memory(one.A, two.A) and not np.shares_memory(one.f0, two.f0)
    with pytest.raises(AttributeError):  # still a frozen dataclass
        one.A = two.A
    assert type(one) is type(tl.jacobians(tree, list(x), u, outputs=False))


def test_unusual_arguments_take_the_general_route(tree):
    x, u = _point(tree, 3)
    ref = tl.jacobians(tree, x, u, outputs=False)
    wide = np.zeros((tree.n_states, 2))
    wide[:, 0] = x  # a strided view: converted by the general route
    for xx, uu in ((wide[:, 0], u), (x.astype(np.float32).astype(np.float64), u),
                   (x, u.tolist()), (tuple(x), None)):
        assert tl.jacobians(tree, xx, uu, outputs=False).A.shape == ref.A.shape
    np.testing.assert_array_equal(tl.jacobians(tree, wide[:, 0], u, outputs=False).A, ref.A)
    bad = x.copy()
    bad[4] = np.nan
    with pytest.raises(tl.ArgumentError, match=tree.state_names[4]):
        tl.jacobians(tree, bad, u, outputs=False)
    with pytest.raises(tl.ArgumentError, match=tree.input_names[1]):
        tl.jacobians(tree, x, np.array([0.0, np.inf]), outputs=False)
    with pytest.raises(tl.ShapeError):
        tl.jacobians(tree, x[:-1], u, outputs=False)
    with pytest.raises(tl.ShapeError):
        tl.jacobians(tree, x, u[:1], outputs=False)
    p = np.array(tree.param_defaults, dtype=float)
    p[tree.param_names.index("m_b4")] = -1.0  # refused by the model's checks, never cached
    with pytest.raises(tl.ParameterError, match="'b4': mass"):
        tl.jacobians(tree, x, u, p, outputs=False)
    with pytest.raises(tl.ParameterError, match="'b4': mass"):
        tl.jacobians(tree, x, u, {"m_b4": -1.0}, outputs=False)
    assert p.tobytes() not in _call(tree).entries
    with pytest.raises(tl.UnknownNameError):
        tl.jacobians(tree, x, u, {"no_such_parameter": 1.0}, outputs=False)


def test_overflow_reaches_the_named_error():
    model = _load(_chain(4))
    x = np.zeros(model.n_states)
    x[model.state_index("link1_qd")] = 1e200  # ω² overflows
    assert _call(model).route(model, x, None, None) is None
    with pytest.raises(tl.LinearizationError, match="not finite"):
        tl.jacobians(model, x, outputs=False)


def test_parameter_cache_is_bounded(tree):
    x, u = _point(tree, 4)
    call = _call(tree)
    p0 = np.array(tree.param_defaults, dtype=float)
    k = tree.param_names.index("m_b4")
    for j in range(derivatives_call.CACHE_SIZE + 3):
        p = p0.copy()
        p[k] *= 1.0 + 0.1 * j
        fast = tl.jacobians(tree, x, u, p, outputs=False)
        np.testing.assert_array_equal(fast.A, tl.jacobians(tree, list(x), u, p,
                                                           outputs=False).A)
    assert 0 < len(call.entries) <= derivatives_call.CACHE_SIZE


def test_models_it_cannot_express_take_the_general_route():
    model = _load(models.random_tree(0, 4, "free", loads=False))
    x = np.array(model.state_defaults if hasattr(model, "state_defaults")
                 else np.zeros(model.n_states), dtype=float)
    x[:] = 0.0
    if "b0_qw" in model.state_names:  # a unit base quaternion
        x[model.state_index("b0_qw")] = 1.0
    J = tl.jacobians(model, x, outputs=False)
    assert _call(model).route(model, x, None, None) is None
    A, _ = complex_step_ab(model, x, np.zeros(model.n_inputs), None)
    assert np.max(np.abs(J.A - A)) <= RTOL * max(1.0, float(np.max(np.abs(A))))


def test_pickled_model_builds_its_own_route(tree):
    x, u = _point(tree, 5)
    ref = tl.jacobians(tree, x, u, outputs=False)
    copy = pickle.loads(pickle.dumps(tree))  # the memo (and the route in it) is not pickled
    np.testing.assert_array_equal(tl.jacobians(copy, x, u, outputs=False).A, ref.A)
    assert _call(copy) is not _call(tree)
