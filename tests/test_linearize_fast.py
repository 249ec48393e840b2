"""The fast paths of ``tl.linearize`` give what the general routes give, bit for bit.

* :mod:`titop_lpv.analysis.statespace_clone`: a system copied from a cached template equals
  the one ``control.StateSpace`` builds (every attribute; the update and output functions
  bound to the copy itself; the dictionaries its own) and behaves alike (dynamics, outputs,
  poles, a step response); the shapes python-control refuses still take the workaround;
* :mod:`titop_lpv.analysis.complex_step`: the compiled kernels called directly on the
  perturbed batch equal ``forward_dynamics`` / ``evaluate_outputs`` exactly; a NaN or
  infinite derivative still raises the general route's named error;
* ``kernel.run`` and ``sensor_kernel.evaluate`` through their kept entry points equal
  numba's own dispatch exactly; ``KernelData.signature`` is shared by parameter vectors;
* ``linear_matrices`` without selection equals the same call with every name selected
  explicitly (the general selection), and a permuted output selection is honoured;
* ``jacobians`` still converts and checks its arguments (lists, integers, NaN named).
"""

from __future__ import annotations

import pickle
import warnings
from pathlib import Path

import control
import numpy as np
import pytest

import titop_lpv as tl
from titop_lpv.analysis import complex_step, statespace_clone
from titop_lpv.analysis.linearize import linear_matrices, named_statespace
from titop_lpv.model.files import read_description
from titop_lpv.multibody import dynamics, kernel, sensor_kernel
from titop_lpv.multibody.kernel_args import KernelData, signature_id

ROOT = Path(__file__).resolve().parents[1]
FREE = ["balloon.phi", "balloon.theta", "slider.q", "pendulum1.q", "pendulum2.q"]


@pytest.fixture(autouse=True)
def _compiled_kernels(monkeypatch):
    """The compiled kernels serve (compiled now if the disk cache lacks them)."""
    monkeypatch.setenv("TITOP_LPV_COMPILE", "wait")


@pytest.fixture(scope="module")
def model() -> tl.Model:
    desc = read_description(ROOT / "examples" / "balloon.toml")
    desc["bodies"][1]["joint"]["actuated"] = True  # input slider_tau
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tl.TitopWarning)  # the paper's inertia: expected
        return tl.load_model(desc)


@pytest.fixture(scope="module")
def op(model) -> tl.OperatingPoint:
    op = tl.trim(model, free=FREE, guess={"pendulum1.q": 0.2, "pendulum2.q": -0.2})
    assert op.success
    return op


def _random_system(rng, n_x, n_u, n_y):
    return (rng.standard_normal((n_x, n_x)), rng.standard_normal((n_x, n_u)),
            rng.standard_normal((n_y, n_x)), rng.standard_normal((n_y, n_u)))


def _same_system(a, b) -> None:
    """Every attribute equal; functions of the same code, each bound to its own system."""
    va, vb = vars(a), vars(b)
    assert type(a) is type(b) and set(va) == set(vb)
    for key in va:
        x, y = va[key], vb[key]
        if isinstance(x, np.ndarray):
            assert x.dtype == y.dtype and x.shape == y.shape and x.flags.c_contiguous
            np.testing.assert_array_equal(x, y)
            assert not np.shares_memory(x, y)
        elif callable(x):
            assert x.__code__ is y.__code__ and x.__qualname__ == y.__qualname__
            assert x.__closure__[0].cell_contents is a
            assert y.__closure__[0].cell_contents is b
        else:
            assert x == y, key
            if isinstance(x, dict):
                assert x is not y, key


def test_clone_equals_the_constructor():
    rng = np.random.default_rng(3)
    names = {"states": ["s1", "s2", "s3"], "inputs": ["u1", "u2"], "outputs": ["y1"]}
    first = named_statespace(*_random_system(rng, 3, 2, 1), name="clone_test", **names)
    mats = _random_system(rng, 3, 2, 1)
    fast = named_statespace(*mats, name="clone_test", **names)  # from the template
    slow = control.StateSpace(*mats, name="clone_test", **names)
    _same_system(fast, slow)
    np.testing.assert_array_equal(first.A.shape, fast.A.shape)
    assert not np.array_equal(first.A, fast.A)  # each its own matrices
    x, u = rng.standard_normal(3), rng.standard_normal(2)
    np.testing.assert_array_equal(fast.dynamics(0.0, x, u), slow.dynamics(0.0, x, u))
    np.testing.assert_array_equal(fast.output(0.0, x, u), slow.output(0.0, x, u))
    np.testing.assert_array_equal(np.sort_complex(fast.poles()), np.sort_complex(slow.poles()))
    t = np.linspace(0.0, 1.0, 11)
    np.testing.assert_array_equal(control.step_response(fast, t).outputs,
                                  control.step_response(slow, t).outputs)
    fast.set_inputs(["a", "b"])  # renaming one copy leaves the template and others alone
    other = named_statespace(*mats, name="clone_test", **names)
    assert other.input_labels == ["u1", "u2"] and fast.input_labels == ["a", "b"]
    fast.A[0, 0] += 1.0
    np.testing.assert_array_equal(other.A, mats[0])
    kept = named_statespace(*mats, name="clone_test", copy=False, **names)
    assert all(getattr(kept, k) is M for k, M in zip("ABCD", mats))  # handed over


def test_clone_respects_python_control_settings():
    rng = np.random.default_rng(4)
    names = {"states": ["p", "q"], "inputs": ["f"], "outputs": ["z"]}
    mats = _random_system(rng, 2, 1, 1)
    named_statespace(*mats, name="cfg_test", **names)
    old = control.config.defaults["control.default_dt"]
    try:
        control.config.defaults["control.default_dt"] = True  # discrete, unspecified step
        sys = named_statespace(*mats, name="cfg_test", **names)
        assert sys.dt is True and sys.dt == control.StateSpace(*mats, **names).dt
    finally:
        control.config.defaults["control.default_dt"] = old
    assert named_statespace(*mats, name="cfg_test", **names).dt == 0
    old = control.config.defaults["statesp.remove_useless_states"]
    try:  # the states kept depend on the matrices: the constructor serves
        control.config.defaults["statesp.remove_useless_states"] = True
        A = np.diag([1.0, 0.0])  # the second state: a zero row of A and of B
        B, C = np.array([[1.0], [0.0]]), np.array([[1.0, 0.0]])
        sys = named_statespace(A, B, C, np.zeros((1, 1)), name="cfg_test", **names)
        assert sys.nstates == 1
    except tl.LinearizationError:  # a python-control that refuses the mismatched names
        pass
    finally:
        control.config.defaults["statesp.remove_useless_states"] = old


def test_template_refused_when_the_layout_differs(monkeypatch):
    rng = np.random.default_rng(5)
    monkeypatch.setattr(statespace_clone, "ATTRIBUTES", frozenset({"A"}))
    monkeypatch.setattr(statespace_clone, "_CACHE", {})
    mats = _random_system(rng, 2, 1, 2)
    names = {"states": ["a", "b"], "inputs": ["c"], "outputs": ["d", "e"]}
    assert statespace_clone.clone_statespace(*mats, name="layout", **names) is None
    _same_system(named_statespace(*mats, name="layout", **names),
                 control.StateSpace(*mats, name="layout", **names))


def test_shapes_python_control_refuses_still_work():
    one = named_statespace(np.array([[-1.0]]), np.zeros((1, 0)), np.array([[2.0]]),
                           np.zeros((1, 0)), states=["s"], inputs=[], outputs=["y"], name="n")
    assert one.ninputs == 0 and one.B.shape == (1, 0) and one.D.shape == (1, 0)
    with pytest.raises(tl.LinearizationError, match="do not match"):
        named_statespace(np.eye(2), np.zeros((2, 1)), np.zeros((1, 2)), np.zeros((1, 1)),
                         states=["a"], inputs=["u"], outputs=["y"], name="bad")


def test_direct_kernels_equal_the_general_route(model, op):
    x, u, p = op.x, op.u, op.param_vector
    X, U = complex_step.perturbed(x, u)
    assert np.array_equal(X.real, np.broadcast_to(x, X.shape))
    assert np.count_nonzero(X.imag) == model.n_states
    F, Y = complex_step.evaluate(model, model.physics(p), X, U, True)
    F_ref = dynamics.forward_dynamics(model, X, U, p)
    Y_ref = dynamics.evaluate_outputs(model, X, U, p, xdot=F_ref)
    np.testing.assert_array_equal(F, F_ref)
    np.testing.assert_array_equal(Y, Y_ref)
    # the numpy reference agrees to rounding (a different formulation of the same sweeps)
    F_np = dynamics.forward_dynamics(model, X, U, p, backend="numpy")
    np.testing.assert_allclose(F.imag, F_np.imag, rtol=1e-10, atol=1e-40)
    np.testing.assert_allclose(F.real, F_np.real, rtol=1e-12, atol=1e-12)


def test_finite_check():
    for M in (np.ones(7), np.ones((3, 4)).T, np.ones((2, 3)) + 1j, np.full(5, 1e300)):
        assert complex_step.finite(M)
        for bad in (np.nan, np.inf, -np.inf):
            N = M.copy()
            N.flat[-1] = bad
            assert not complex_step.finite(N)
    N = np.ones((2, 3), dtype=complex)
    N[1, 2] = complex(1.0, np.inf)
    assert not complex_step.finite(N) and not complex_step.finite(N[:, ::2])


def test_signed_zero_kept_in_the_perturbed_states():
    x = np.array([-0.0, 1.0])
    X, U = complex_step.perturbed(x, np.array([-0.0]))
    assert np.signbit(X.real[:, 0]).all() and np.signbit(U.real).all()


def test_non_finite_derivative_raises_the_named_error(model, op):
    x = op.x.copy()
    x[model.state_names.index("pendulum2_qd")] = 1e200  # ω² overflows
    with pytest.raises(tl.DynamicsError):
        tl.jacobians(model, x, op.u, op.param_vector)


@pytest.mark.parametrize("allocate", [True, False])
def test_kernel_entry_points_equal_the_dispatcher(model, op, allocate, monkeypatch):
    """Both variants (allocating its work arrays, or on the thread's kept ones)."""
    monkeypatch.setattr(kernel, "ALLOCATE_BELOW", 10**9 if allocate else 0)
    ph = model.physics(op.param_vector)
    data = model.memo("kernel", ph, lambda: kernel.kernel_data(model, ph))
    for dtype in (float, complex):
        X = np.tile(op.x, (5, 1)).astype(dtype) + np.linspace(0, 0.1, 5)[:, None]
        U = np.tile(op.u, (5, 1)).astype(dtype)
        kernel.run(data, X, U)
        a, status_a = kernel.run(data, X, U)  # through the kept entry point now
        assert (np.dtype(dtype).char, data.signature, allocate) in kernel._ENTRY_POINTS
        assert status_a == -1
        b = np.zeros_like(a)
        status_b = kernel._forward_work(X, U, *data.args, b,
                                        *kernel.workspace(len(data.args[0]), X.dtype))
        assert status_b == -1
        np.testing.assert_array_equal(a, b)
    other = kernel.kernel_data(model, model.physics({"k": 77.0}))
    assert other.signature == data.signature >= 0
    assert signature_id((np.zeros(3), [1, 2])) == -1
    again = pickle.loads(pickle.dumps(data))  # the id is computed again in this process
    assert again.signature == data.signature and len(again.args) == len(data.args)
    assert KernelData(args=(np.zeros(2),)).signature != data.signature


def test_sensor_entry_points_equal_the_dispatcher(model, op):
    ph = model.physics(op.param_vector)
    data = sensor_kernel.sensor_data(model, ph)
    X, U = complex_step.perturbed(op.x, op.u)
    F = dynamics.forward_dynamics(model, X, U, op.param_vector)
    first = sensor_kernel.evaluate(data, X, F, model.n_outputs)
    kept = sensor_kernel.evaluate(data, X, F, model.n_outputs)
    y = np.zeros_like(first)
    sensor_kernel._compiled()(X, F, y, np.complex128(1j), *data.args)
    np.testing.assert_array_equal(kept, y)
    np.testing.assert_array_equal(first, y)
    real = sensor_kernel.evaluate(data, X.real.copy(), F.real.copy(), model.n_outputs)
    np.testing.assert_array_equal(real, y.real)


def test_default_selection_equals_the_explicit_one(model, op):
    fast = linear_matrices(model, op)
    slow = linear_matrices(model, op, list(model.input_names), list(model.output_names),
                           states=list(model.state_names))
    for name in "ABCD":
        np.testing.assert_array_equal(getattr(fast, name), getattr(slow, name))
    assert (fast.state_names, fast.input_names, fast.output_names) == (
        slow.state_names, slow.input_names, slow.output_names)
    assert fast.dropped_states == slow.dropped_states == {}
    assert fast.dropped_outputs == slow.dropped_outputs == ()
    order = list(reversed(model.output_names))  # every output, in another order
    perm = linear_matrices(model, op, outputs=order)
    assert perm.output_names == tuple(order)
    np.testing.assert_array_equal(perm.C, fast.C[::-1])
    np.testing.assert_array_equal(perm.D, fast.D[::-1])
    sys = tl.linearize(model, op)
    np.testing.assert_array_equal(sys.A, fast.A)
    assert sys.output_labels == list(model.output_names)


def test_jacobians_still_convert_and_check(model, op):
    ref = tl.jacobians(model, op.x, op.u, op.param_vector)
    as_list = tl.jacobians(model, list(op.x), list(op.u), dict(op.params))
    np.testing.assert_array_equal(as_list.A, ref.A)
    np.testing.assert_array_equal(as_list.C, ref.C)
    bad = op.x.copy()
    bad[3] = np.nan
    with pytest.raises(tl.ArgumentError, match=model.state_names[3]):
        tl.jacobians(model, bad, op.u)
    with pytest.raises(tl.ShapeError):
        tl.jacobians(model, op.x[:-1], op.u)
    with pytest.raises(tl.ShapeError):
        tl.jacobians(model, op.x.astype(complex), op.u)
    with pytest.raises(tl.ArgumentTypeError):
        tl.jacobians(model, op.x, op.u, outputs=1)
    with pytest.raises(tl.ArgumentError):
        tl.linearize(model, op, tol=float("nan"))
    with pytest.raises(tl.ArgumentError):
        tl.linearize(model, op, tol=-1.0)


def _full_batch(model, x, u, p):
    """F, Y of every row by the general route (no row skipped)."""
    X, U = complex_step.perturbed(x, u)
    F = dynamics.forward_dynamics(model, X, U, p)
    return X, F, dynamics.evaluate_outputs(model, X, U, p, xdot=F)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_base_position_rows_skipped_exactly(seed):
    """Random free trees with buoyancy, forces, torques (inertial and body frame), random
    sensors added: the batch without the base-position rows equals the full batch exactly;
    with a loop closure or a fixed base nothing is skipped."""
    import models
    desc = models.free_tree_with_sensors(seed)
    names = [b["name"] for b in desc["bodies"]]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tl.TitopWarning)
        model = tl.load_model(desc)
    kept, skipped = complex_step.translation_rows(model)
    assert list(skipped) == [model.base_index + k for k in (6, 7, 8)]
    assert kept[-1] == model.n_states + model.n_inputs and kept.size + 3 == kept[-1] + 1
    rng = np.random.default_rng(seed)
    x = model.default_state() + 0.1 * rng.standard_normal(model.n_states)
    u = rng.standard_normal(model.n_inputs)
    p = model.param_vector(None)
    X, F_ref, Y_ref = _full_batch(model, x, u, p)
    F, Y = complex_step.evaluate(model, model.physics(p), X, complex_step.perturbed(x, u)[1],
                                 True)
    np.testing.assert_array_equal(F, F_ref)
    np.testing.assert_array_equal(Y, Y_ref)
    assert not F_ref[skipped].imag.any()
    J = tl.jacobians(model, x, u, p)
    assert np.abs(J.C[:3, skipped]).max() > 0.5  # the position sensor reads the base position
    loops = {"a": names[1], "b": names[-1], "stiffness": [5.0] * 6, "damping": [0.1] * 6}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tl.TitopWarning)
        closed = tl.load_model({**desc, "loops": [loops]})
        fixed = tl.load_model(models.random_tree(seed, 3, "fixed"))
    assert complex_step.translation_rows(closed) is None
    assert complex_step.translation_rows(fixed) is None


@pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")  # numpy's division
def test_overflowing_derivative_names_its_column(model, op, monkeypatch):
    """A finite complex-step row whose imaginary part overflows once divided by the step:
    LinearizationError naming the direction's state."""
    real = complex_step.evaluate

    def huge(model_, ph, X, U, outputs):
        F, Y = real(model_, ph, X, U, outputs)
        F = F.copy()
        F[4, 0] += 1e300j  # direction 4: the state model.state_names[4]
        return F, Y

    monkeypatch.setattr(complex_step, "evaluate", huge)
    with pytest.raises(tl.LinearizationError, match=f"'{model.state_names[4]}' \\(overflow\\)"):
        tl.jacobians(model, op.x, op.u, op.param_vector)
