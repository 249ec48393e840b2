"""The per-parameter plan of ``tl.linearize`` (``analysis/linearize_fast.py``) and its fused
compiled call (``multibody/kernel_rows.py``) give what ``tl.jacobians`` gives, bit for bit.

* both routes of :func:`linearize_fast.rows` — one compiled call, and the numpy glue around
  the two kernels — equal ``jacobians`` exactly (A, B, C, D, f(x, u), h(x, u)), on the
  balloon at its equilibrium and off it, and on random free trees with position, velocity
  and acceleration sensors (the derivatives passed to the sensors);
* ``tl.linearize`` with its default arguments (the shortcut ``default_system``) equals the
  general route (the same call with every state selected explicitly): matrices, names,
  dropped states and outputs;
* anything unusual still reaches the general route and its named errors: a NaN state, an
  overflowing derivative, a point that is not an equilibrium; models the plan does not
  serve (analytic Jacobians) get the general route's results.
"""

from __future__ import annotations

import dataclasses
import warnings
from pathlib import Path

import numpy as np
import pytest

import titop_lpv as tl
from titop_lpv.analysis import linearize_fast
from titop_lpv.model.files import read_description
from titop_lpv.multibody import derivatives_kernel

ROOT = Path(__file__).resolve().parents[1]
FREE = ["balloon.phi", "balloon.theta", "slider.q", "pendulum1.q", "pendulum2.q"]
FIELDS = ("A", "B", "C", "D", "f0", "y0")


@pytest.fixture(autouse=True)
def _compiled_kernels(monkeypatch):
    """The compiled kernels serve (compiled now if the disk cache lacks them)."""
    monkeypatch.setenv("TITOP_LPV_COMPILE", "wait")


def _load(desc) -> tl.Model:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tl.TitopWarning)  # the paper's inertia: expected
        return tl.load_model(desc)


@pytest.fixture(scope="module")
def model() -> tl.Model:
    desc = read_description(ROOT / "examples" / "balloon.toml")
    desc["bodies"][1]["joint"]["actuated"] = True  # input slider_tau
    return _load(desc)


@pytest.fixture(scope="module")
def op(model) -> tl.OperatingPoint:
    op = tl.trim(model, free=FREE, guess={"pendulum1.q": 0.2, "pendulum2.q": -0.2})
    assert op.success
    return op


def _routes(model, ph, x, u, fused, monkeypatch):
    """linearize_fast.rows through the fused call, or with the fused entry removed."""
    plan = linearize_fast.plan(model, ph, x, u)
    assert plan is not None and plan.fused is not None  # compiled (policy "wait")
    if not fused:
        monkeypatch.setattr(linearize_fast, "plan", lambda *args: plan._replace(fused=None))
    out = linearize_fast.rows(model, ph, x, u)
    monkeypatch.undo()
    return out


def _same(out, ref) -> None:
    assert out is not None
    for name, a in zip(FIELDS, out):
        b = getattr(ref, name)
        assert a.shape == b.shape and a.dtype == b.dtype == np.float64, name
        np.testing.assert_array_equal(a, b, err_msg=name)
    assert out[6] == np.abs(ref.f0).max()


@pytest.mark.parametrize("fused", [True, False])
def test_rows_equal_jacobians_on_the_balloon(model, op, fused, monkeypatch):
    p = op.param_vector
    ph = model.physics(p)
    _same(_routes(model, ph, op.x, op.u, fused, monkeypatch), tl.jacobians(model, op.x, op.u, p))
    rng = np.random.default_rng(3)  # off the equilibrium: a drift, every coupling excited
    x = op.x + 0.3 * rng.standard_normal(op.x.size)
    u = op.u + rng.standard_normal(op.u.size)
    out = _routes(model, ph, x, u, fused, monkeypatch)
    ref = tl.jacobians(model, x, u, p)
    _same(out, ref)
    assert out[6] > 1e-3 and np.abs(ref.B).max() > 0


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("fused", [True, False])
def test_rows_equal_jacobians_on_random_trees(seed, fused, monkeypatch):
    """Free trees with loads and sensors that read positions, velocities and accelerations
    (the sensor kernel then takes the state derivatives)."""
    import models
    desc = models.free_tree_with_sensors(seed)
    model = _load(desc)
    rng = np.random.default_rng(seed)
    x = model.default_state() + 0.1 * rng.standard_normal(model.n_states)
    u = rng.standard_normal(model.n_inputs)
    p = model.param_vector(None)
    out = _routes(model, model.physics(p), x, u, fused, monkeypatch)
    ref = tl.jacobians(model, x, u, p)
    _same(out, ref)
    assert np.abs(ref.C).max() > 0.1  # the sensors read the states


def test_default_linearize_equals_the_general_route(model, op):
    fast = tl.linearize(model, op)
    again = tl.linearize(model, op)
    slow = tl.linearize(model, op, states=list(model.state_names))  # the general route
    for name in "ABCD":
        a, b = getattr(fast, name), getattr(slow, name)
        np.testing.assert_array_equal(a, b)
        assert a.dtype == np.float64 and not np.shares_memory(a, getattr(again, name))
    assert (fast.state_labels, fast.input_labels, fast.output_labels, fast.name) == (
        slow.state_labels, slow.input_labels, slow.output_labels, slow.name)
    assert fast.dropped_states == slow.dropped_states == {}
    assert fast.dropped_outputs == slow.dropped_outputs == ()
    assert tl.linearize(model, op, name="other").name == "other"
    np.testing.assert_array_equal(fast.poles(), slow.poles())


def test_unusual_points_take_the_general_route(model, op):
    p = op.param_vector
    ph = model.physics(p)
    bad = op.x.copy()
    bad[3] = np.nan
    assert linearize_fast.rows(model, ph, bad, op.u) is None
    with pytest.raises(tl.ArgumentError, match=model.state_names[3]):
        tl.linearize(model, x=bad, u=op.u, params=p)
    with pytest.raises(tl.ArgumentError, match=model.state_names[3]):
        tl.linearize(model, dataclasses.replace(op, x=bad))
    huge = op.x.copy()
    huge[model.state_names.index("pendulum2_qd")] = 1e200  # ω² overflows
    assert linearize_fast.rows(model, ph, huge, op.u) is None
    with pytest.raises(tl.DynamicsError):
        tl.linearize(model, x=huge, u=op.u, params=p, drift=True)
    off = op.x.copy()
    off[model.state_names.index("pendulum1_q")] += 0.1  # not an equilibrium
    with pytest.raises(tl.LinearizationError, match="not an equilibrium: d/dt"):
        tl.linearize(model, dataclasses.replace(op, x=off))
    residual = float(np.abs(tl.jacobians(model, op.x, op.u, p).f0).max())
    if residual > 0.0:  # tol is honoured exactly as the general route does
        with pytest.raises(tl.LinearizationError, match="not an equilibrium"):
            tl.linearize(model, op, tol=residual / 2)
    assert tl.linearize(model, op, tol=residual).nstates == model.n_states


def test_analytic_jacobians_keep_their_route():
    """A fixed-base revolute chain takes its Jacobians from the analytic derivatives: no
    plan (nor fused call) for it, and ``tl.linearize`` gives what ``jacobians`` gives."""
    import models
    desc = models.random_tree(0, 3, "fixed", loads=False)
    for body in desc["bodies"]:
        body["joint"] = {**body["joint"], "type": "revolute"}
    chain = _load(desc)
    assert chain.memo("analytic_jacobians", None, lambda: derivatives_kernel.eligible(chain))
    x = chain.default_state() + 0.1
    u, p = np.zeros(chain.n_inputs), chain.param_vector(None)
    assert linearize_fast.plan(chain, chain.physics(p), x, u) is None
    assert linearize_fast.rows(chain, chain.physics(p), x, u) is None
    assert linearize_fast.compile_fused(chain) is None
    sys = tl.linearize(chain, x=x, u=u, drift=True)
    ref = tl.jacobians(chain, x, u, p)
    np.testing.assert_array_equal(sys.A, ref.A)
    np.testing.assert_array_equal(sys.C, ref.C)


def test_compile_fused_finds_the_specialisation(model):
    assert linearize_fast.compile_fused(model) is True


def test_fused_call_found_once_a_background_compiler_cached_it(monkeypatch):
    """A plan built while the fused call was not ready (numpy glue) takes it up at the next
    look at the disk cache (at most every PROBE_S seconds)."""
    from titop_lpv.multibody import kernel_rows
    desc = read_description(ROOT / "examples" / "balloon.toml")
    fresh = _load(desc)  # its own memo
    x, u, ph = fresh.default_state(), np.zeros(fresh.n_inputs), fresh.physics()
    monkeypatch.setattr(kernel_rows, "ready", lambda example, compile_now: None)
    first = linearize_fast.plan(fresh, ph, x, u)
    assert first is not None and first.fused is None
    monkeypatch.undo()
    assert linearize_fast.plan(fresh, ph, x, u).fused is None  # not looked at again yet
    fresh.memo("linearize_plan", ph, list)[1] = 0.0  # the probe interval has passed
    later = linearize_fast.plan(fresh, ph, x, u)
    assert later.fused is not None and later.args is first.args
    ref = tl.jacobians(fresh, x, u, fresh.param_vector(None))
    _same(linearize_fast.rows(fresh, ph, x, u), ref)


def test_other_parameter_vectors_reuse_the_model_plan(model, op, monkeypatch):
    """A new parameter vector (a sweep point) takes the entry points and the batch of the
    model's plan: no numba type look-up, no compilation; results still equal jacobians."""
    from titop_lpv.multibody import kernel_rows
    first = linearize_fast.plan(model, model.physics(op.param_vector), op.x, op.u)

    def refuse(*args):
        raise AssertionError("looked up numba's types again")

    monkeypatch.setattr(kernel_rows, "ready", refuse)
    monkeypatch.setattr(linearize_fast, "kernel_entry_point", refuse)
    for k in (31.0, 77.0):
        p = op.param_vector.copy()
        p[list(model.param_names).index("k")] = k
        ph = model.physics(p)
        other = linearize_fast.plan(model, ph, op.x, op.u)
        assert other.entry is first.entry and other.fused is first.fused
        assert other.args is not first.args
        _same(linearize_fast.rows(model, ph, op.x, op.u), tl.jacobians(model, op.x, op.u, p))


def test_linear_matrices_never_loads_the_fused_call():
    """``linear_matrices`` (process-pool workers of a sweep call it a few times) builds the
    plan without looking for the fused call; the next default ``linearize`` takes it up."""
    from titop_lpv.analysis.linearize import linear_matrices
    desc = read_description(ROOT / "examples" / "balloon.toml")
    fresh = _load(desc)  # its own memo
    op = tl.trim(fresh, free=FREE, guess={"pendulum1.q": 0.2, "pendulum2.q": -0.2})
    lin = linear_matrices(fresh, op, states=list(fresh.state_names))
    ph = fresh.physics(op.param_vector)
    box = fresh.memo("linearize_plan", ph, list)
    assert box[0] is not None and box[0].fused is None and box[1] == 0.0
    sys = tl.linearize(fresh, op)
    assert fresh.memo("linearize_plan", ph, list)[0].fused is not None
    for name in "ABCD":
        np.testing.assert_array_equal(getattr(sys, name), getattr(lin, name))


def test_fused_call_keyed_by_every_kernel_source(model, op):
    """The fused call links both kernels: numba's disk cache must key it by the digest of
    every kernel module (kernel_cache.FILES), so that an edit of any recompiles it."""
    from titop_lpv.multibody import kernel_cache, kernel_rows

    linearize_fast.plan(model, model.physics(op.param_vector), op.x, op.u)
    locator = kernel_rows._compiled()._cache._impl._locator
    assert getattr(locator, "titop_kernel", False)
    assert locator.get_source_stamp() == kernel_cache.sources_digest()
