"""Nonlinear simulation with SciPy's ODE solvers and the :class:`Trajectory` result.

The solver is stepped as ``scipy.integrate.solve_ivp`` steps it (same methods, tolerances
and output by dense interpolation at the output times), with guards that ``solve_ivp``
lacks: a NaN or infinite state, input or derivative stops the run, as do an evaluation
budget and a stall (steps so short that the span cannot be covered within many times the
budget), so a run never loops forever.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
from scipy.integrate import BDF, DOP853, LSODA, RK23, RK45, OdeSolver, Radau

from ..exceptions import DynamicsError, ShapeError, SimulationError, UnknownNameError
from ..model.compiled import Model
from ..multibody.tree import numeric_array
from ..names import canonical, find
from ..plots import plot_signals
from ..progress import Progress
from .arguments import (
    ArgumentError,
    ArgumentTypeError,
    finite_vector,
    integer,
    progress_option,
    real,
)

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["MAX_NFEV", "MAX_POINTS", "METHODS", "SOLVERS", "STALL_FACTOR", "STALL_WINDOW",
           "Trajectory", "simulate"]

SOLVERS = {"RK23": RK23, "RK45": RK45, "DOP853": DOP853, "Radau": Radau, "BDF": BDF,
           "LSODA": LSODA}  # the methods of scipy.integrate.solve_ivp
METHODS = tuple(SOLVERS)
MAX_POINTS = 10_000_000  # largest number of output times
MAX_NFEV = 1_000_000  # default budget of right-hand-side evaluations
STALL_WINDOW = 1000  # steps over which the pace of a run is measured
STALL_FACTOR = 10  # a pace that needs more than this many times max_nfev steps is a stall


@dataclass(frozen=True)
class Trajectory:
    """A simulated time history with named signals.

    Attributes
    ----------
    t : ndarray, shape (n_t,)
        Time [s].
    x : ndarray, shape (n_t, n_states)
    y : ndarray, shape (n_t, n_outputs)
    u : ndarray, shape (n_t, n_inputs)
    state_names, output_names, input_names : tuple of str
    units : dict
        Unit of each signal name (for plot labels).
    params : dict
        Parameter values used.
    nfev : int
        Number of right-hand-side evaluations.
    """

    t: np.ndarray
    x: np.ndarray
    y: np.ndarray
    u: np.ndarray
    state_names: tuple[str, ...]
    output_names: tuple[str, ...]
    input_names: tuple[str, ...]
    units: dict[str, str] = field(default_factory=dict)
    params: dict[str, float] = field(default_factory=dict)
    nfev: int = 0

    @property
    def names(self) -> tuple[str, ...]:
        """Every signal name: states, then outputs not already states, then inputs."""
        extra = tuple(n for n in self.output_names if n not in self.state_names)
        return self.state_names + extra + self.input_names

    def __getitem__(self, name: str) -> np.ndarray:
        """Time history of a state, output or input by name (``"slider_q"`` or ``"slider.q"``)."""
        key = find(name, self.names)
        for names, data in ((self.state_names, self.x), (self.output_names, self.y),
                            (self.input_names, self.u)):
            if key in names:
                return data[:, names.index(key)]
        raise UnknownNameError(f"no signal {name!r} in this trajectory; signals are: "
                               f"{list(self.names)}")

    def at(self, time: float) -> dict[str, float]:
        """Every signal linearly interpolated at ``time`` [s].

        Parameters
        ----------
        time : float
            Time [s]; outside the simulated span the end values are returned
            (``numpy.interp``).

        Returns
        -------
        dict of str to float
            ``name -> value`` for every name of :attr:`names`.

        Raises
        ------
        ArgumentError, ArgumentTypeError
            ``time`` is not a finite real number.
        """
        time = real(time, "time")
        return {n: float(np.interp(time, self.t, self[n])) for n in self.names}

    def plot(self, names: Sequence[str] | None = None, *, ncols: int | None = None,
             title: str | None = None) -> Figure:
        """One subplot per signal against time; returns the matplotlib ``Figure``.

        Parameters
        ----------
        names : sequence of str, optional
            Signals to plot (default: the outputs).
        ncols : int, optional
            Columns of the subplot grid (default 3 when more than 3 signals, else one per
            signal).
        title : str, optional
            Figure title (default: none).

        Returns
        -------
        matplotlib.figure.Figure
        """
        names = list(names) if names is not None else list(self.output_names)
        series = {canonical(n): self[n] for n in names}  # unknown names raise here
        return plot_signals(self.t, series, self.units, ncols=ncols, title=title)


def simulate(
    model: Model,
    t_span: tuple[float, float],
    x0: Any = None,
    u: Any = None,
    params: Any = None,
    *,
    t_eval: Any = None,
    n_points: int = 1001,
    method: str = "DOP853",
    rtol: float = 1e-9,
    atol: float = 1e-11,
    max_step: float = np.inf,
    max_nfev: int = MAX_NFEV,
    progress: bool | Callable[[float, float], None] = False,
) -> Trajectory:
    """Simulate the nonlinear model with a ``scipy.integrate.solve_ivp`` method.

    Every argument is checked before the solver starts, and every evaluation of the
    right-hand side during the run: a state or input that becomes NaN or infinite, a
    derivative that cannot be evaluated, the evaluation budget ``max_nfev``, or a stall (over
    its last 1000 steps the run advanced so slowly that the rest of the span would take more
    than ten times ``max_nfev`` steps: a model too stiff for the method, an input switching
    at every step) stop the run with :class:`~titop_lpv.SimulationError` naming the time
    and the signal, so that a simulation never loops forever.

    Parameters
    ----------
    model : Model
    t_span : (float, float)
        Start and end time [s], finite, the end after the start.
    x0 : array_like, shape (n_states,), optional
        Initial state, finite (default: :meth:`Model.default_state`).
    u : None, array_like (n_inputs,) or callable ``u(t, x) -> (n_inputs,)``, optional
        Inputs: zero, constant, or a function of time and state (state feedback); finite.
    params : dict or array_like, optional
        Parameter values (defaults otherwise), one real parameter vector.
    t_eval : array_like, optional
        Output times [s], strictly increasing, inside ``t_span`` (default: ``n_points``
        evenly spaced over ``t_span``).
    n_points : int, default 1001
        Number of evenly spaced output times when ``t_eval`` is not given (both ends
        included, 1 to 10 000 000); ignored otherwise.
    method : str or scipy.integrate.OdeSolver subclass, default "DOP853"
        One of ``solve_ivp``'s methods, in any case: ``RK23``, ``RK45``, ``DOP853``,
        ``Radau``, ``BDF``, ``LSODA``.
    rtol, atol, max_step
        Passed to the solver as ``solve_ivp`` passes them: ``rtol > 0``, ``atol >= 0`` (a
        number or one per state), ``max_step > 0`` (inf allowed). With the defaults (DOP853,
        1e-9, 1e-11) the energy of the undamped balloon (about 107 J exchanged between
        kinetic and potential) drifts by 2.3e-7 J over 20 s; ``rtol=1e-10, atol=1e-12``
        brings the drift to 2.5e-8 J.
    max_nfev : int, default 1 000 000
        Budget of right-hand-side evaluations; the run stops with
        :class:`~titop_lpv.SimulationError` when it is spent (the 20 s balloon run of the
        examples takes about 5 400).
    progress : bool or callable
        ``True``: a progress bar on stderr for runs longer than 0.5 s; a callable
        ``f(t, t_final)`` is called as the solver advances; ``False`` (default): silent.

    Returns
    -------
    Trajectory

    Raises
    ------
    ArgumentError, ArgumentTypeError, ShapeError, ParameterError, UnknownNameError
        An invalid argument (named), before the solver starts.
    SimulationError
        The solver stops before ``t_span[1]`` (its message is quoted), a state, an input or
        a derivative becomes NaN or infinite, the run stalls, or
        ``max_nfev`` is spent; with the time.
    """
    t0, t1 = _span(t_span)
    ph_params = model.param_vector(params)
    if np.ndim(ph_params) != 1 or np.iscomplexobj(ph_params):
        raise ShapeError(f"simulate needs one real parameter vector; params give shape "
                         f"{np.shape(ph_params)} ({np.asarray(ph_params).dtype})")
    model.check_params(ph_params)
    x0 = (model.default_state(params) if x0 is None
          else finite_vector(x0, "x0", model.state_names, "state"))
    ufun = _input_function(model, u)
    solver = _method(method)
    rtol = real(rtol, "rtol", low=0.0, strict=True)
    atol = _atol(atol, model)
    max_step = real(max_step, "max_step", low=0.0, strict=True, allow_inf=True)
    max_nfev = integer(max_nfev, "max_nfev", low=1)
    if (t1 - t0) / max_step > max_nfev:
        raise ArgumentError(f"max_step = {max_step:g} s needs more than max_nfev = {max_nfev} "
                            f"steps to cover t_span ({t0:g}, {t1:g})")
    t_eval = _times(t_eval, n_points, t0, t1)
    report = _progress(progress_option(progress), t0, t1)
    head = f"simulation of {model.name!r} stopped at t = "
    nfev = [0]

    def rhs(t: float, x: np.ndarray) -> np.ndarray:
        nfev[0] += 1
        if nfev[0] > max_nfev:
            raise SimulationError(f"{head}{t:.6g} s: max_nfev = {max_nfev} evaluations spent "
                                  f"before t = {t1:g} s (raise max_nfev, or loosen rtol/atol)")
        if report is not None:
            report(t)
        bad = np.flatnonzero(~np.isfinite(x))
        if bad.size:
            raise SimulationError(f"{head}{t:.6g} s: state {model.state_names[bad[0]]!r} "
                                  f"became {x[bad[0]]} (the solution overflowed)")
        try:
            return model.dynamics(t, x, ufun(t, x), ph_params)
        except DynamicsError as err:
            raise SimulationError(f"{head}{t:.6g} s: {err}") from err

    X = _integrate(solver(rhs, t0, x0, t1, rtol=rtol, atol=atol, max_step=max_step),
                   t_eval, head, max_nfev)
    if report is not None:
        report(t1, final=True)
    U = np.array([ufun(t, x) for t, x in zip(t_eval, X)]).reshape(len(t_eval), model.n_inputs)
    Y = model.outputs(0.0, X, U, ph_params)
    return Trajectory(
        t=t_eval, x=X, y=Y, u=U,
        state_names=model.state_names, output_names=model.output_names,
        input_names=model.input_names, units=model.units(),
        params=dict(zip(model.param_names, np.asarray(ph_params, float).tolist())),
        nfev=nfev[0],
    )


def _integrate(solver: OdeSolver, t_eval: np.ndarray, head: str, max_nfev: int) -> np.ndarray:
    """Step ``solver`` to its end; the states at ``t_eval`` (n_t, n_x), as ``solve_ivp`` does,
    but stopping with :class:`SimulationError` when the run stalls: every
    :data:`STALL_WINDOW` steps, the pace of the last window must reach the end of the span in
    fewer than :data:`STALL_FACTOR` × ``max_nfev`` steps (a run that would spend its
    evaluation budget many times over even if its steps grew tenfold)."""
    rows, done, steps, t_mark = [], 0, 0, solver.t
    t_end = solver.t_bound
    while solver.status == "running":
        message = solver.step()
        if solver.status == "failed":
            raise SimulationError(f"{head}{solver.t:.6g} s: {message}")
        steps += 1
        if solver.status == "running" and steps % STALL_WINDOW == 0:
            pace = abs(solver.t - t_mark) / STALL_WINDOW
            if pace == 0.0 or abs(t_end - solver.t) / pace > STALL_FACTOR * max_nfev:
                raise SimulationError(
                    f"{head}{solver.t:.6g} s: the run stalls: its last {STALL_WINDOW} steps "
                    f"averaged {pace:.3g} s, at which pace the rest of the span takes more "
                    f"than {STALL_FACTOR} × max_nfev steps; the model is too stiff for "
                    f"{type(solver).__name__} at these values (try method='Radau' or 'BDF'), "
                    "or an input switches at every step: check the parameters, the initial "
                    "state and u")
            t_mark = solver.t
        upto = int(np.searchsorted(t_eval, solver.t, side="right"))
        if upto > done:
            rows.append(np.atleast_2d(solver.dense_output()(t_eval[done:upto]).T))
            done = upto
    return np.concatenate(rows).reshape(len(t_eval), -1)


def _span(t_span: Any) -> tuple[float, float]:
    """``(t0, t1)``: two finite times, increasing."""
    if isinstance(t_span, (str, bytes, dict)) or not isinstance(t_span, Iterable):
        raise ArgumentTypeError(f"t_span must be a pair (start, end) [s], got {t_span!r:.60}")
    times = list(t_span)
    if len(times) != 2:
        raise ArgumentError(f"t_span must be a pair (start, end) [s], got {len(times)} values")
    t0, t1 = (real(v, f"t_span[{k}]") for k, v in enumerate(times))
    if not t1 > t0:
        raise ArgumentError(f"t_span must be increasing, got ({t0:g}, {t1:g})")
    return t0, t1


def _method(method: Any) -> type[OdeSolver]:
    """The OdeSolver class of a ``solve_ivp`` method name (any case), or a subclass given."""
    if isinstance(method, type) and issubclass(method, OdeSolver):
        return method
    if not isinstance(method, str):
        raise ArgumentTypeError(f"method must be a string, one of {list(METHODS)}, got "
                                f"{method!r:.60}")
    for name in METHODS:
        if name.lower() == method.lower():
            return SOLVERS[name]
    raise ArgumentError(f"unknown method {method!r}; methods are {list(METHODS)} (any case)")


def _atol(atol: Any, model: Model) -> Any:
    """A finite absolute tolerance >= 0: a number, or one per state."""
    if np.ndim(atol) == 0 or isinstance(atol, str):
        return real(atol, "atol", low=0.0)
    arr = finite_vector(atol, "atol", model.state_names, "state")
    if np.any(arr < 0):
        raise ArgumentError(f"atol must be >= 0; state {model.state_names[np.argmin(arr)]!r} "
                            f"has {arr.min():g}")
    return arr


def _times(t_eval: Any, n_points: Any, t0: float, t1: float) -> np.ndarray:
    """Output times: ``n_points`` evenly spaced, or ``t_eval`` checked."""
    if t_eval is None:
        return np.linspace(t0, t1, integer(n_points, "n_points", low=1, high=MAX_POINTS))
    arr = numeric_array(t_eval)
    if arr is None or np.iscomplexobj(arr) or arr.ndim != 1 or not 1 <= arr.size <= MAX_POINTS:
        got = f"{t_eval!r:.60}" if arr is None else f"shape {arr.shape}"
        raise ShapeError(f"t_eval must be a 1-D array of 1 to {MAX_POINTS} times [s]; got {got}")
    arr = arr.astype(float)
    if not np.all(np.isfinite(arr)) or arr[0] < t0 or arr[-1] > t1 or np.any(np.diff(arr) <= 0):
        raise ArgumentError(f"t_eval must be finite, strictly increasing and inside t_span "
                            f"[{t0:g}, {t1:g}]; got {arr[:5].tolist()}"
                            f"{' ...' if arr.size > 5 else ''}")
    return arr


def _progress(progress: Any, t0: float, t1: float) -> Callable[..., None] | None:
    """A throttled reporter of the solver's time, or None."""
    if not progress:
        return None
    bar = Progress(100, "simulate") if progress is True else None
    state = {"start": time.perf_counter(), "last": 0.0}

    def report(t: float, final: bool = False) -> None:
        if bar is None:
            progress(t, t1)
            return
        now = time.perf_counter()
        if (final and state["last"]) or (now - state["start"] > 0.5
                                         and now - state["last"] > 0.1):
            state["last"] = now
            bar(100 if final else min(99, int(100 * (t - t0) / (t1 - t0))))

    return report


def _input_function(model: Model, u: Any) -> Callable[[float, np.ndarray], np.ndarray]:
    """``u(t, x)``: zero, a checked constant, or the user's function with its values checked."""
    if callable(u):
        def ufun(t: float, x: np.ndarray) -> np.ndarray:
            raw = u(t, x)
            val = numeric_array(raw)
            if val is None or np.iscomplexobj(val) or val.shape != (model.n_inputs,):
                got = f"{raw!r:.60}" if val is None else f"shape {val.shape} ({val.dtype})"
                raise ShapeError(f"u(t, x) must return {model.n_inputs} real numbers, the "
                                 f"inputs {list(model.input_names)}; got {got} at t = {t:.6g} s")
            val = val.astype(float)
            bad = np.flatnonzero(~np.isfinite(val))
            if bad.size:
                raise SimulationError(
                    f"simulation of {model.name!r} stopped at t = {t:.6g} s: u(t, x) returned "
                    f"{val[bad[0]]} for input {model.input_names[bad[0]]!r}")
            return val
        return ufun
    const = (np.zeros(model.n_inputs) if u is None
             else finite_vector(u, "u", model.input_names, "input"))
    return lambda t, x: const
