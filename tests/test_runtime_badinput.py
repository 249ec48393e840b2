"""Bad runtime arguments of simulate, linearize, the sweeps and the dynamics (issue 12).

Each test is one repro of the issue: the call used to hang, escape as a foreign exception
(TypeError, ZeroDivisionError, ...) or return a silently wrong answer; it now raises a
``titop_lpv`` error whose message names the argument, state, input or parameter at fault.
Calls that used to hang run under a generous alarm that only turns a hang into a failure.
"""

from __future__ import annotations

import math
import warnings
from pathlib import Path

import control
import numpy as np
import pytest
from guards import hang_guard

import titop_lpv as tl
from titop_lpv.analysis.arguments import ArgumentError, ArgumentTypeError
from titop_lpv.multibody.dynamics import forward_dynamics

ROOT = Path(__file__).resolve().parents[1]
FREE = ["balloon.phi", "balloon.theta", "slider.q", "pendulum1.q", "pendulum2.q"]


@pytest.fixture(scope="module")
def model() -> tl.Model:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tl.TitopWarning)
        return tl.load_model(ROOT / "examples" / "balloon.toml")


@pytest.fixture(scope="module")
def op(model: tl.Model) -> tl.OperatingPoint:
    return tl.trim(model, FREE, guess={"pendulum1.q": 0.2, "pendulum2.q": -0.2})


def spring(com: object = (0.0, 0.0, 0.0)) -> tl.Model:
    """A 2 kg cart on a spring of stiffness ``k`` along x; a parameter ``c`` may set its com."""
    s = tl.System("msd", gravity=[0.0, 0.0, 0.0])
    s.parameter("k", 40.0)
    s.parameter("c", 0.5)
    s.body("cart", tl.Prismatic(axis=[1, 0, 0], stiffness="k", actuated=True), mass=2.0,
           com=com)
    return s.compile()


# ------------------------------------------------------------------ 1. simulate never hangs
def test_simulate_constant_nan_input_names_the_input(model):
    with hang_guard(), pytest.raises(ArgumentError, match=r"u: input 'slider_tau' = nan"):
        tl.simulate(model, (0.0, 0.1), u=[math.nan])


def test_simulate_input_function_returning_nan_stops_with_time_and_input(model):
    with hang_guard(), pytest.raises(tl.SimulationError,
                                  match=r"t = 0 s: u\(t, x\) returned nan for input 'slider_tau'"):
        tl.simulate(model, (0.0, 0.1), u=lambda t, x: [math.nan])


def test_simulate_input_function_nan_later_names_that_time(model):
    u = lambda t, x: [math.nan if t > 0.05 else 0.0]  # noqa: E731
    with hang_guard(), pytest.raises(tl.SimulationError, match=r"t = 0\.05\d* s: u\(t, x\)"):
        tl.simulate(model, (0.0, 0.1), u=u)


def test_simulate_huge_initial_state_stops_at_the_start(model):
    with hang_guard(), pytest.raises(tl.SimulationError,
                                  match=r"stopped at t = 0 s: .*d/dt .* = nan from finite"):
        tl.simulate(model, (0.0, 0.1), x0=np.full(model.n_states, 1e300))


def test_simulate_nan_initial_state_names_the_state(model):
    x0 = model.default_state()
    x0[model.state_index("pendulum2_q")] = math.nan
    with pytest.raises(ArgumentError, match=r"x0: state 'pendulum2_q' = nan is not finite"):
        tl.simulate(model, (0.0, 0.1), x0=x0)


@pytest.mark.parametrize("key", ["rtol", "atol"])
def test_simulate_nan_tolerance_is_refused(model, key):
    with hang_guard(), pytest.raises(ArgumentError,
                                     match=rf"{key} must be a finite number, got nan"):
        tl.simulate(model, (0.0, 0.1), **{key: math.nan})


@pytest.mark.parametrize(("key", "value", "message"), [
    ("rtol", 0.0, "rtol must be > 0"), ("rtol", -1e-6, "rtol must be > 0"),
    ("atol", -1.0, "atol must be >= 0"), ("max_step", 0.0, "max_step must be > 0"),
    ("max_step", math.nan, "max_step must be a finite number"),
    ("max_nfev", 0, r"max_nfev must lie in \[1, None\]"),
])
def test_simulate_solver_options_out_of_range(model, key, value, message):
    with pytest.raises(ArgumentError, match=message):
        tl.simulate(model, (0.0, 0.01), **{key: value})


def test_simulate_tolerance_per_state_is_accepted_and_checked(model):
    atol = np.full(model.n_states, 1e-10)
    traj = tl.simulate(model, (0.0, 0.01), atol=atol, n_points=3)
    assert traj.x.shape == (3, model.n_states) and np.all(np.isfinite(traj.x))
    atol[model.state_index("slider_q")] = math.nan
    with pytest.raises(ArgumentError, match=r"atol: state 'slider_q' = nan"):
        tl.simulate(model, (0.0, 0.01), atol=atol)


def test_simulate_huge_damping_is_refused_or_stops(model):
    with hang_guard(), pytest.raises(tl.ParameterError, match=r"parameter 'ds'"):
        tl.simulate(model, (0.0, 0.1), params={"ds": 1e300})  # the repro
    with hang_guard(), pytest.raises(tl.SimulationError, match=r"d/dt \w+ = nan from finite .* "
                                                            r"joint damping \(parameter 'ds'\)"):
        tl.simulate(model, (0.0, 0.1), params={"ds": 1e99})


def test_simulate_stalled_by_a_switching_input_stops():
    """A bang-bang input that flips at every step: the steps shrink to 1e-12 s for good."""
    u = lambda t, x: [-100.0 * np.sign(x[1])]  # noqa: E731
    with hang_guard(), pytest.raises(tl.SimulationError,
                                  match=r"the run stalls: its last 1000 steps averaged .* "
                                        r"more than 10 × max_nfev steps"):
        tl.simulate(spring(), (0.0, 1.0), x0=[0.1, 0.0], u=u)


def test_simulate_from_an_equilibrium_starts_with_a_tiny_step_and_goes_on(model, op):
    """The solver's first step from rest can be below the floor; it then grows."""
    traj = tl.simulate(model, (0.0, 1.0), x0=op.x, u=op.u, params=op.params, rtol=1e-10,
                       atol=1e-12, n_points=3)
    np.testing.assert_allclose(traj.x[-1], op.x, atol=1e-6)


def test_simulate_stops_when_the_evaluation_budget_is_spent(model):
    with hang_guard(), pytest.raises(tl.SimulationError,
                                  match=r"max_nfev = 40 evaluations spent before t = 1 s"):
        tl.simulate(model, (0.0, 1.0), max_nfev=40)


def test_simulate_max_step_that_cannot_cover_the_span_within_the_budget(model):
    with pytest.raises(ArgumentError, match=r"max_step = 1e-300 s needs more than max_nfev"):
        tl.simulate(model, (0.0, 0.01), max_step=1e-300)


def test_simulate_state_overflowing_during_the_run_names_the_state():
    m = spring()
    # an input force of 1e307 N on a 2 kg cart: the rate reaches inf within the span; whether
    # the first non-finite value is ±inf or a NaN (inf - inf in the step's error estimate)
    # is the BLAS kernel's rounding: the contract is the state named and the overflow said
    with hang_guard(), pytest.raises(tl.SimulationError, match=r"state 'cart_q\w*' became "
                                     r"(-?inf|nan) \(the solution overflowed\)"):
        tl.simulate(m, (0.0, 100.0), u=[1e307], rtol=1e-3, atol=1e-3)


@pytest.mark.parametrize("span", [(0.0, math.inf), (-math.inf, 0.0), (math.nan, 1.0)])
def test_simulate_non_finite_span_is_refused(model, span):
    with hang_guard(), pytest.raises(ArgumentError, match=r"t_span\[\d\] must be a finite number"):
        tl.simulate(model, span)


# ------------------------------------------------------------------ 2. simulate argument checks
def test_simulate_reversed_span(model):
    with pytest.raises(ArgumentError, match=r"t_span must be increasing, got \(1, 0\)") as err:
        tl.simulate(model, (1.0, 0.0))
    assert isinstance(err.value, ValueError)


@pytest.mark.parametrize("span", ["ab", (0.0,), (0.0, 1.0, 2.0), 3.0, None])
def test_simulate_span_that_is_not_a_pair(model, span):
    with pytest.raises((ArgumentError, ArgumentTypeError), match="t_span"):
        tl.simulate(model, span)


def test_simulate_method_names_in_any_case(model):
    lower = tl.simulate(model, (0.0, 0.01), method="rk45", n_points=5)
    upper = tl.simulate(model, (0.0, 0.01), method="RK45", n_points=5)
    np.testing.assert_array_equal(lower.x, upper.x)
    assert lower.nfev == upper.nfev > 0


def test_simulate_unknown_method_lists_the_methods(model):
    with pytest.raises(ArgumentError, match=r"unknown method 'nope'; methods are \['RK23', "
                                            r"'RK45', 'DOP853', 'Radau', 'BDF', 'LSODA'\]"):
        tl.simulate(model, (0.0, 0.01), method="nope")
    with pytest.raises(ArgumentTypeError, match="method must be a string"):
        tl.simulate(model, (0.0, 0.01), method=5)


def test_simulate_matches_solve_ivp_step_for_step(model):
    from scipy.integrate import solve_ivp

    x0 = model.default_state()
    t = np.linspace(0.0, 0.5, 11)
    for method in ("DOP853", "Radau", "LSODA"):
        ours = tl.simulate(model, (0.0, 0.5), method=method, t_eval=t)
        ref = solve_ivp(lambda s, x: model.dynamics(s, x), (0.0, 0.5), x0, method=method,
                        t_eval=t, rtol=1e-9, atol=1e-11)
        np.testing.assert_array_equal(ours.x, ref.y.T)


@pytest.mark.parametrize(("t_eval", "error", "message"), [
    ([], tl.ShapeError, "t_eval must be a 1-D array of 1 to"),
    ("ab", tl.ShapeError, "t_eval must be a 1-D array"),
    ([[0.0, 0.01]], tl.ShapeError, r"got shape \(1, 2\)"),
    ([0.0, 0.02], ArgumentError, r"inside t_span \[0, 0.01\]"),
    ([0.005, 0.001], ArgumentError, "strictly increasing"),
    ([math.nan], ArgumentError, "must be finite"),
])
def test_simulate_bad_output_times(model, t_eval, error, message):
    with pytest.raises(error, match=message):
        tl.simulate(model, (0.0, 0.01), t_eval=t_eval)


@pytest.mark.parametrize("n_points", [0, -1, 1.5, "a", 10**12])
def test_simulate_bad_number_of_points(model, n_points):
    with pytest.raises((ArgumentError, ArgumentTypeError), match="n_points"):
        tl.simulate(model, (0.0, 0.01), n_points=n_points)


def test_simulate_single_output_time(model):
    traj = tl.simulate(model, (0.0, 0.01), t_eval=[0.005])
    assert traj.t.tolist() == [0.005] and traj.x.shape == (1, model.n_states)


@pytest.mark.parametrize("u", [[1.0, 2.0], [[0.0]], "a", [None]])
def test_simulate_input_of_the_wrong_shape_or_type(model, u):
    with pytest.raises(tl.ShapeError, match=r"u must be real numbers of shape \(1,\), the "
                                            r"inputs \['slider_tau'\]"):
        tl.simulate(model, (0.0, 0.01), u=u)


@pytest.mark.parametrize("ret", [[1.0, 2.0], "a", None, [1j]])
def test_simulate_input_function_of_the_wrong_shape_or_type(model, ret):
    with pytest.raises(tl.ShapeError, match=r"u\(t, x\) must return 1 real numbers.* at t = 0"):
        tl.simulate(model, (0.0, 0.01), u=lambda t, x: ret)


@pytest.mark.parametrize("progress", ["yes", 3, object()])
def test_simulate_progress_that_is_neither_bool_nor_callable(model, progress):
    with pytest.raises(ArgumentTypeError, match="progress must be True, False or a callable") \
            as err:
        tl.simulate(model, (0.0, 0.01), progress=progress)
    assert isinstance(err.value, TypeError)


def test_simulate_refuses_a_batch_of_parameters(model):
    with pytest.raises(tl.ShapeError, match="one real parameter vector"):
        tl.simulate(model, (0.0, 0.01), params={"k": [40.0, 60.0]})


# ------------------------------------------------------------------ 3. linearize: op vs x/u/params
@pytest.mark.parametrize("extra", [{"params": {"k": 80.0}}, {"x": "state"}, {"u": [0.0]}])
def test_linearize_refuses_values_given_with_an_operating_point(model, op, extra):
    if extra.get("x") == "state":
        extra = {"x": op.x}
    name = next(iter(extra))
    with pytest.raises(tl.LinearizationError,
                       match=rf"{name} given with an operating point, which fixes x, u and params"):
        tl.linearize(model, op, **extra)


def test_linearize_with_op_honours_the_op_parameters(model, op):
    sys = tl.linearize(model, op)
    ref = tl.linearize(model, x=op.x, u=op.u, params=op.params)
    np.testing.assert_array_equal(sys.A, ref.A)


def test_linearize_unknown_parameter_name_with_or_without_op(model, op):
    for kwargs in ({"op": op}, {"x": op.x}):
        with pytest.raises(tl.UnknownNameError, match=r"unknown parameter\(s\) \['zz'\]"):
            tl.linearize(model, params={"zz": 1.0}, **kwargs)


@pytest.mark.parametrize("tol", [math.nan, math.inf, -1.0])
def test_linearize_non_finite_or_negative_tolerance(model, tol):
    x = model.default_state()  # |ẋ| = 6 here: not an equilibrium
    with pytest.raises(ArgumentError, match="tol must be"):
        tl.linearize(model, x=x, tol=tol)


def test_linearize_nan_state_names_the_state(model, op):
    x = op.x.copy()
    x[model.state_index("slider_qd")] = math.nan
    with pytest.raises(ArgumentError, match=r"x: state 'slider_qd' = nan is not finite"):
        tl.linearize(model, x=x, drift=True)
    with pytest.raises(ArgumentError, match=r"u: input 'slider_tau' = inf is not finite"):
        tl.jacobians(model, op.x, [math.inf])


# ------------------------------------------------------------------ 4. types of arguments
def test_default_state_with_a_string_parameter(model):
    with pytest.raises(tl.ParameterError, match=r"parameter 'k': 'abc' is not a number"):
        model.default_state({"k": "abc"})


def test_default_state_checks_parameter_values(model):
    with pytest.raises(tl.ParameterError, match=r"parameter 'k': value 10 outside"):
        model.default_state({"k": 10.0})
    np.testing.assert_array_equal(model.default_state({"k": 60.0}), model.default_state())


@pytest.mark.parametrize("params", [{"k": "abc"}, {"ds": [1.0, "a"]}, {"dp1": None},
                                    {"k": 10**400}])
def test_string_or_non_numeric_parameter_values_anywhere(model, op, params):
    name = next(iter(params))
    for call in (lambda: model.dynamics(0.0, op.x, None, params),
                 lambda: model.outputs(0.0, op.x, None, params),
                 lambda: tl.simulate(model, (0.0, 0.01), params=params),
                 lambda: tl.linearize(model, x=op.x, params=params),
                 lambda: model.check_params(params)):
        with pytest.raises(tl.ParameterError, match=rf"parameter '{name}': .* is not a number"):
            call()


def test_parameter_array_of_strings(model, op):
    with pytest.raises(tl.ParameterError, match="params must be a dict name -> value or an "
                                                "array of numbers"):
        model.dynamics(0.0, op.x, None, ["a", "b", "c", "d"])


def test_parameter_batches_that_do_not_broadcast(model, op):
    with pytest.raises(tl.ParameterError, match=r"values of shapes .* do not broadcast"):
        model.dynamics(0.0, op.x, None, {"k": [40.0, 50.0], "ds": [1.0, 2.0, 3.0]})


@pytest.mark.parametrize("x", [["a"] * 18, [[1.0, 2.0], [3.0]], [None] * 18, "abc"])
def test_non_numeric_or_ragged_states(model, x):
    for call in (lambda: model.dynamics(0.0, x), lambda: model.outputs(0.0, x),
                 lambda: forward_dynamics(model, x, backend="numpy")):
        with pytest.raises(tl.ShapeError, match=r"x must be an array of numbers of shape "
                                                r"\(\.\.\., 18\)"):
            call()


def test_non_numeric_inputs(model, op):
    with pytest.raises(tl.ShapeError,
                       match=r"u must be an array of numbers of shape \(\.\.\., 1\)"):
        model.dynamics(0.0, op.x, ["a"])


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"inputs": [1]}, "inputs: every name must be a string, got 1"),
    ({"outputs": [None]}, "outputs: every name must be a string, got None"),
    ({"states": [["slider_q"]]}, r"states: every name must be a string, got \['slider_q'\]"),
    ({"drop": "balloon_x"}, "drop must be a list of names, not the single string"),
    ({"inputs": 5}, "inputs must be a list of names, got 5"),
    ({"tol": "a"}, "tol must be a real number, got 'a'"),
    ({"name": 5}, "name must be a string without '.', got 5"),
    ({"drift": "yes"}, "drift must be True or False"),
    ({"drop_integrators": 1}, "drop_integrators must be True or False"),
])
def test_linearize_argument_types(model, op, kwargs, message):
    with pytest.raises(ArgumentTypeError, match=message) as err:
        tl.linearize(model, op, **kwargs)
    assert isinstance(err.value, TypeError)


def test_linearize_name_with_a_dot(model, op):
    with pytest.raises(ArgumentError, match=r"name must be a string without '\.'"):
        tl.linearize(model, op, name="a.b")


@pytest.mark.parametrize("bad_op", ["abc", 5, object()])
def test_linearize_op_that_is_not_an_operating_point(model, bad_op):
    with pytest.raises(ArgumentTypeError, match=r"op must be a titop_lpv\.OperatingPoint"):
        tl.linearize(model, bad_op)


def test_jacobians_flags_and_parameter_batches(model, op):
    with pytest.raises(ArgumentTypeError, match="parameters must be True or False"):
        tl.jacobians(model, op.x, parameters="a")
    with pytest.raises(tl.ShapeError, match="one real parameter vector"):
        tl.jacobians(model, op.x, params={"k": [40.0, 60.0]})


def test_sweep_grid_that_is_a_list():
    with pytest.raises(ArgumentTypeError, match=r"grid must be a dict parameter name -> values"):
        tl.trim_sweep(spring(), [10.0, 20.0], ["cart_q"], progress=False)


@pytest.mark.parametrize(("values", "message"), [
    ("ab", "values of 'k' must be a non-empty 1-D array of finite real numbers"),
    ([10.0, "a"], "must be a non-empty 1-D array"), ([[10.0, 20.0]], "must be a non-empty"),
    ([], "must be a non-empty"), ([10.0, math.nan], "finite real numbers"),
    (10**400, "finite real numbers"), ([20.0, 10.0, 20.0], "strictly increasing or strictly"),
])
def test_sweep_grid_values(values, message):
    with pytest.raises(tl.ParameterError, match=message):
        tl.trim_sweep(spring(), {"k": values}, ["cart_q"], progress=False)


@pytest.mark.parametrize(("kwargs", "error", "message"), [
    ({"executor": object()}, ArgumentTypeError, "executor must be a concurrent.futures.Executor"),
    ({"executor": "abc"}, ArgumentTypeError, "executor must be"),
    ({"progress": "yes"}, ArgumentTypeError, "progress must be True, False or a callable"),
    ({"chunks": -1}, ArgumentError, "chunks must lie in"),
    ({"chunks": 1.5}, ArgumentTypeError, "chunks must be an integer"),
    ({"strict": "no"}, ArgumentTypeError, "strict must be True or False"),
])
def test_sweep_execution_arguments(kwargs, error, message):
    kwargs = {"progress": False, **kwargs}
    for sweep in (tl.trim_sweep, tl.linearize_sweep):
        with pytest.raises(error, match=message):
            sweep(spring(), {"k": [10.0, 20.0]}, ["cart_q"], **kwargs)


def test_sweep_free_that_is_not_a_list():
    with pytest.raises(tl.TrimSpecError, match="free must be a list of names"):
        tl.trim_sweep(spring(), {"k": [10.0, 20.0]}, 5, progress=False)


@pytest.mark.parametrize("tol", [math.nan, math.inf, 0.0, -1.0, {"cart_q": math.nan}])
def test_branch_tol_non_finite_or_non_positive_is_refused(tol):
    with pytest.raises(ArgumentError, match=r"branch_tol(\['cart_q'\])? must be"):
        tl.linearize_sweep(spring(), {"k": [10.0, 20.0]}, ["cart_q"], branch_tol=tol,
                           progress=False)


def test_branch_tol_checked_on_a_grid_made_directly():
    grid = tl.linearize_sweep(spring(), {"k": [10.0, 20.0]}, ["cart_q"], progress=False)
    with pytest.raises(ArgumentError, match="branch_tol must be a finite number, got nan"):
        tl.LPVGrid(grid.sweep, grid.systems, grid.state_names, grid.input_names,
                   grid.output_names, branch_tol=math.nan)
    with pytest.raises(ArgumentTypeError, match="the keys name trim variables"):
        tl.LPVGrid(grid.sweep, grid.systems, grid.state_names, grid.input_names,
                   grid.output_names, branch_tol={5: 1.0})


def test_lpv_at_and_bode_with_bad_values():
    grid = tl.linearize_sweep(spring(), {"k": [10.0, 20.0]}, ["cart_q"], progress=False)
    with pytest.raises(ArgumentTypeError, match="k must be a real number, got 'a'"):
        grid.at(k="a")
    with pytest.raises(ArgumentError, match="k must be a finite number, got nan"):
        grid.at(k=math.nan)
    with pytest.raises(tl.LPVError, match="omega must be a non-empty 1-D array"):
        grid.bode([0.0, 1.0])


def test_compare_response_bad_arguments(model, op):
    sys = tl.linearize(model, op, ["slider_tau"], ["pendulum2_q"], drop_integrators=True)
    with pytest.raises(ArgumentError, match="t_final must be > 0"):
        tl.compare_response(model, op, sys, t_final=0.0)
    with pytest.raises(ArgumentError, match=r"x0_offset\['pendulum2_q'\] must be a finite"):
        tl.compare_response(model, op, sys, x0_offset={"pendulum2_q": math.nan}, t_final=0.01)
    with pytest.raises(ArgumentTypeError, match="u must be a dict name -> value or a callable"):
        tl.compare_response(model, op, sys, u="a", t_final=0.01)
    with pytest.raises(ArgumentTypeError, match=r"sys must be a control\.StateSpace"):
        tl.compare_response(model, op, control.tf([1], [1, 1]), t_final=0.01)


# ------------------------------------------------------------------ 5. non-finite dynamics
@pytest.mark.parametrize("backend", ["compiled", "numpy"])
def test_huge_joint_position_is_a_dynamics_error(model, backend):
    x = model.default_state()
    x[model.state_index("slider_q")] = 1e25
    with pytest.raises(tl.DynamicsError) as err:
        forward_dynamics(model, x, backend=backend)
    if backend == "compiled":  # was a bare ZeroDivisionError from the compiled kernel
        assert "largest magnitudes: state 'slider_q' = 1e+25" in str(err.value)


@pytest.mark.parametrize("backend", ["compiled", "numpy"])
def test_nan_state_and_input_are_named(model, backend):
    x = model.default_state()
    x[model.state_index("pendulum1_qd")] = math.nan
    with pytest.raises(tl.DynamicsError, match=r"state 'pendulum1_qd' = nan"):
        forward_dynamics(model, x, backend=backend)
    with pytest.raises(tl.DynamicsError, match=r"input 'slider_tau' = inf"):
        forward_dynamics(model, model.default_state(), [math.inf], backend=backend)


def test_nan_in_one_state_of_a_batch(model):
    xs = np.tile(model.default_state(), (4, 1))
    xs[2, model.state_index("slider_q")] = math.nan
    with pytest.raises(tl.DynamicsError, match=r"state 'slider_q' = nan"):
        model.dynamics(0.0, xs)


def test_overflow_from_finite_values_names_the_largest_data():
    m = spring(com=["c", 0.0, 0.0])
    x = m.default_state()
    x[m.state_index("cart_q")] = 1e300  # the spring force k q overflows
    with pytest.raises(tl.DynamicsError, match=r"d/dt cart_qd = -inf from finite state, input "
                                               r"and parameters .* state 'cart_q' = 1e\+300, "
                                               r"body 'cart' com \(parameter 'c'\) = 1e\+95"):
        m.dynamics(0.0, x, None, {"c": 1e95, "k": 1e90})


def test_outputs_of_a_nan_state(model):
    x = model.default_state()
    x[model.state_index("balloon_phi")] = math.nan
    with pytest.raises(tl.DynamicsError, match=r"state 'balloon_phi' = nan"):
        model.outputs(0.0, x)


def test_finite_evaluations_are_unchanged(model):
    rng = np.random.default_rng(7)
    xs = model.default_state() + 0.3 * rng.standard_normal((20, model.n_states))
    us = rng.standard_normal((20, 1))
    compiled = forward_dynamics(model, xs, us, backend="compiled")
    reference = forward_dynamics(model, xs, us, backend="numpy")
    np.testing.assert_allclose(compiled, reference, rtol=1e-10, atol=1e-10)
    assert np.all(np.isfinite(compiled))


def test_rotation_position_and_motion_vector_of_a_nan_state(model):
    x = model.default_state()
    x[model.state_index("pendulum1_q")] = math.nan
    for call in (lambda: model.rotation(x, "pendulum2"),
                 lambda: model.position(x, "pendulum2", "com"),
                 lambda: tl.motion_vector(model, x, "pendulum2")):
        with pytest.raises(tl.DynamicsError, match=r"state 'pendulum1_q' = nan: the evaluation "
                                                   "needs finite values"):
            call()
    # a body above the NaN joint is still placed: its position does not read that state
    np.testing.assert_array_equal(model.position(x, "slider"),
                                  model.position(model.default_state(), "slider"))


@pytest.mark.parametrize(("time", "error"), [(math.nan, ArgumentError),
                                             ("a", ArgumentTypeError)])
def test_trajectory_at_a_time_that_is_not_a_finite_number(model, time, error):
    traj = tl.simulate(model, (0.0, 0.01), n_points=3)
    with pytest.raises(error, match="time must be a"):
        traj.at(time)
    assert traj.at(0.01)["slider_q"] == traj["slider_q"][-1]


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf])
def test_energy_momentum_and_com_of_a_non_finite_state_name_it(model, value):
    x = np.tile(model.default_state(), (3, 1))
    x[1, model.state_index("pendulum1_qd")] = value  # was (nan, nan), silently
    for call, what in ((tl.energy, "energy"), (tl.momentum, "momentum"),
                       (tl.center_of_mass, "centre of mass")):
        with pytest.raises(tl.DynamicsError,
                           match=rf"state 'pendulum1_qd' = -?(nan|inf): the {what} needs"):
            call(model, x)
    kinetic, potential = tl.energy(model, model.default_state())
    assert kinetic == 0.0 and np.isfinite(potential)


def test_simulate_input_function_of_time_alone(model):
    """u(t), python-control's convention, raised a raw TypeError inside the integrator."""
    traj = tl.simulate(model, (0.0, 0.02), u=lambda t: [0.5 + t], n_points=3)
    ref = tl.simulate(model, (0.0, 0.02), u=lambda t, x: [0.5 + t], n_points=3)
    np.testing.assert_array_equal(traj.x, ref.x)
    np.testing.assert_allclose(traj.u[:, 0], 0.5 + traj.t)


@pytest.mark.parametrize("u", [lambda: [0.0], lambda t, x, y: [0.0]])
def test_simulate_input_function_that_takes_neither_t_nor_t_x(model, u):
    with pytest.raises(ArgumentTypeError, match=r"u must be callable as u\(t\) or u\(t, x\); "
                                                r"<lambda>\("):
        tl.simulate(model, (0.0, 0.01), u=u)


def test_names_given_as_numpy_arrays(model):
    """A name as a 0-d numpy array raised "iteration over a 0-d array"; a point name as an
    array numpy's "truth value of an array ... is ambiguous"."""
    x = model.default_state()
    with pytest.raises(tl.UnknownNameError, match=r"body 'pendulum1' has no point array\("):
        model.position(x, "pendulum1", np.array(["com", "tip"]))
    with pytest.raises(ArgumentTypeError, match=r"inputs must be a list of names, got array"):
        tl.linearize(model, x=x, inputs=np.array("slider_tau"))
    with pytest.raises(tl.TrimSpecError, match=r"free must be a list of variable names"):
        tl.trim(model, np.array("slider.q"))
    with pytest.raises(tl.TrimSpecError, match=r"free must be a list of names, got array"):
        tl.trim_sweep(spring(), {"k": [10.0, 20.0]}, np.array("cart_q"), progress=False)
    # a 1-D array of names is a list of names
    np.testing.assert_array_equal(model.position(x, np.str_("pendulum1"), np.str_("tip")),
                                  model.position(x, "pendulum1", "tip"))


@pytest.mark.filterwarnings("error::RuntimeWarning")
def test_energy_and_momentum_overflowing_from_finite_states_are_named(model):
    """A velocity of 1e300 gave a kinetic energy of inf, silently (now an error, not a numpy
    warning)."""
    x = model.default_state()
    x[model.state_index("slider_qd")] = 1e300
    with pytest.raises(tl.DynamicsError, match=r"energy kinetic = inf from finite state.*"
                                               r"state 'slider_qd' = 1e\+300"):
        tl.energy(model, x)
    linear, angular = tl.momentum(model, x)  # 1e300 kg m/s is large, not an overflow
    assert np.all(np.isfinite(linear)) and np.all(np.isfinite(angular))
    x = model.default_state()
    x[model.state_index("balloon_vx")] = 1e308
    with pytest.raises(tl.DynamicsError, match=r"momentum px = inf from finite state"):
        tl.momentum(model, x)
    x = model.default_state()
    x[model.state_index("balloon_x")] = 1e308
    with pytest.raises(tl.DynamicsError, match=r"centre of mass x = inf from finite state"):
        tl.center_of_mass(model, x)
