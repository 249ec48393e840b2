"""Nonlinear simulation with SciPy's ODE solvers and the :class:`Trajectory` result.

The solver is stepped as ``scipy.integrate.solve_ivp`` steps it (same methods, tolerances
and output by dense interpolation at the output times), with guards that ``solve_ivp``
lacks: a NaN or infinite state, input or derivative stops the run, as do an evaluation
budget and a stall (steps so short that the span cannot be covered within many times the
budget), so a run never loops forever. ``method="RK4"`` is the classical fixed-step
fourth-order Runge-Kutta scheme (step ``dt``), with the same guards.

A :class:`Trajectory` stores the states and inputs at the output times; its outputs are
computed from them on first access (or only those chosen with ``outputs=``), so that a long
run of a large model keeps only its states.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable, Sequence
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
    input_function,
    integer,
    name_list,
    progress_option,
    real,
)

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["FIXED_STEP", "MAX_NFEV", "MAX_POINTS", "METHODS", "OUTPUT_BLOCK", "SOLVERS",
           "STALL_FACTOR", "STALL_WINDOW", "Trajectory", "simulate"]

SOLVERS = {"RK23": RK23, "RK45": RK45, "DOP853": DOP853, "Radau": Radau, "BDF": BDF,
           "LSODA": LSODA}  # the methods of scipy.integrate.solve_ivp
FIXED_STEP = ("RK4",)  # fixed-step methods (step dt)
METHODS = (*SOLVERS, *FIXED_STEP)
GRID_TOL = 1e-6  # an output time may miss the step grid by this fraction of a step
OUTPUT_BLOCK = 4_000_000  # numbers per block of output times: outputs, dense-output states
MAX_POINTS = 10_000_000  # largest number of output times
MAX_NFEV = 1_000_000  # default budget of right-hand-side evaluations
STALL_WINDOW = 1000  # steps over which the pace of a run is measured
STALL_FACTOR = 10  # a pace that needs more than this many times max_nfev steps is a stall


class Trajectory:
    """A simulated time history with named signals.

    The outputs ``y`` are computed from the stored states and inputs on first access (in
    blocks of output times, so that the evaluation needs little memory beyond ``y``
    itself), then kept; a trajectory built with ``y`` given keeps it as is.

    Parameters
    ----------
    t, x, y, u, state_names, output_names, input_names, units, params, nfev
        As the attributes; ``y`` may be None when ``outputs_of`` is given.
    outputs_of : callable ``f(x, u) -> y``, optional
        Computes the outputs of a block of states (n, n_states) and inputs (n, n_inputs),
        shape (n, n_outputs); used when ``y`` is None.

    Attributes
    ----------
    t : ndarray, shape (n_t,)
        Time [s].
    x : ndarray, shape (n_t, n_states)
    y : ndarray, shape (n_t, n_outputs)
        Computed on first access.
    u : ndarray, shape (n_t, n_inputs)
    state_names, output_names, input_names : tuple of str
    units : dict
        Unit of each signal name (for plot labels).
    params : dict
        Parameter values used.
    nfev : int
        Number of right-hand-side evaluations.
    """

    def __init__(self, t: np.ndarray, x: np.ndarray, y: np.ndarray | None, u: np.ndarray,
                 state_names: tuple[str, ...], output_names: tuple[str, ...],
                 input_names: tuple[str, ...], units: dict[str, str] | None = None,
                 params: dict[str, float] | None = None, nfev: int = 0, *,
                 outputs_of: Callable[[np.ndarray, np.ndarray], np.ndarray] | None = None):
        if y is None and outputs_of is None:
            raise ArgumentError("Trajectory needs y or outputs_of")
        self.t, self.x, self.u = t, x, u
        self.state_names, self.output_names = state_names, output_names
        self.input_names = input_names
        self.units = {} if units is None else units
        self.params = {} if params is None else params
        self.nfev = nfev
        self._y, self._outputs_of = y, outputs_of
        self._lock = threading.Lock()
        self._frozen = True

    def __setattr__(self, key: str, value: Any) -> None:
        if getattr(self, "_frozen", False):
            raise AttributeError(f"Trajectory is immutable: cannot set {key!r}")
        object.__setattr__(self, key, value)

    @property
    def y(self) -> np.ndarray:
        """Outputs (n_t, n_outputs), in :attr:`output_names` order (computed once)."""
        with self._lock:
            if self._y is None:
                n_t, n_y = len(self.t), len(self.output_names)
                y = np.empty((n_t, n_y))
                block = max(1, OUTPUT_BLOCK // max(1, n_y + self.x.shape[1]))
                for k in range(0, n_t, block):
                    if n_y:
                        y[k:k + block] = self._outputs_of(self.x[k:k + block],
                                                          self.u[k:k + block])
                object.__setattr__(self, "_y", y)
            return self._y

    def __repr__(self) -> str:
        return (f"<titop_lpv.Trajectory: {len(self.t)} times in [{self.t[0]:g}, {self.t[-1]:g}]"
                f" s, {len(self.state_names)} states, {len(self.output_names)} outputs, "
                f"{len(self.input_names)} inputs, nfev = {self.nfev}>")

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
    dt: float | None = None,
    outputs: Any = None,
) -> Trajectory:
    """Simulate the nonlinear model with a ``scipy.integrate.solve_ivp`` method or RK4.

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
    u : None, array_like (n_inputs,) or callable ``u(t, x)`` or ``u(t)``, optional
        Inputs: zero, constant, or a function returning ``(n_inputs,)`` finite values: of
        time and state ``u(t, x)`` (state feedback), or of time alone ``u(t)`` (as in
        python-control), told apart by the function's signature before the run.
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
        ``Radau``, ``BDF``, ``LSODA``; or ``RK4``, the classical fixed-step fourth-order
        Runge-Kutta scheme (global error O(dt⁴)) with step ``dt``. RK4 does not
        interpolate: the span and every output time must lie on its step grid
        ``t_span[0] + k dt`` (within 1e-6 step), and the state at an output time is the
        state of that step (e.g. ``t_span=(0, 1), dt=1e-3`` with the default 1001 points
        outputs every step; ``n_points=101`` every tenth).
    rtol, atol, max_step
        Passed to the solver as ``solve_ivp`` passes them: ``rtol > 0``, ``atol >= 0`` (a
        number or one per state), ``max_step > 0`` (inf allowed); not used by RK4. With the
        defaults (DOP853, 1e-9, 1e-11) the energy of the undamped balloon (about 107 J
        exchanged between kinetic and potential) drifts by 2.3e-7 J over 20 s;
        ``rtol=1e-10, atol=1e-12`` brings the drift to 2.5e-8 J.
    max_nfev : int, default 1 000 000
        Budget of right-hand-side evaluations; the run stops with
        :class:`~titop_lpv.SimulationError` when it is spent (the 20 s balloon run of the
        examples takes about 5 400).
    progress : bool or callable
        ``True``: a progress bar on stderr for runs longer than 0.5 s; a callable
        ``f(t, t_final)`` is called as the solver advances; ``False`` (default): silent.
    dt : float, optional
        Step [s] of ``method="RK4"`` (required there, refused with the adaptive methods);
        ``4 (t_span[1] - t_span[0]) / dt`` evaluations must fit in ``max_nfev``.
    outputs : None or list of str, optional
        Outputs the trajectory keeps (default: all of :attr:`Model.output_names`; ``[]``:
        none). They are computed from the stored states on first access of
        :attr:`Trajectory.y` (or of one of their names), not during the run: a run stores
        its states and inputs only, ``n_states + n_inputs`` numbers per output time.

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

    Notes
    -----
    Memory: the trajectory is one float64 array of ``len(t_eval) × n_states`` numbers (1.9
    GB for the default 1001 output times of a 238 000-state model; choose ``n_points``
    accordingly), built once. An adaptive method's dense output is written into it in
    blocks of at most :data:`OUTPUT_BLOCK` numbers (32 MB), so a run needs little beyond the
    model and that array: 0.05 s of the 34 000-body branch system peaks at 2.5 GB resident
    (``benchmarks/bench_memory.py``).

    Examples
    --------
    >>> import titop_lpv as tl
    >>> model = tl.load_model("examples/balloon.toml")
    >>> traj = tl.simulate(model, (0.0, 0.1), method="RK4", dt=1e-3, n_points=11)
    >>> traj.x.shape, traj.nfev
    ((11, 18), 400)
    """
    t0, t1 = _span(t_span)
    ph_params = model.param_vector(params)
    if np.ndim(ph_params) != 1 or np.iscomplexobj(ph_params):
        raise ShapeError(f"simulate needs one real parameter vector; params give shape "
                         f"{np.shape(ph_params)} ({np.asarray(ph_params).dtype})")
    model.check_params(ph_params)
    x0 = (model.default_state(params) if x0 is None
          else finite_vector(x0, "x0", model.state_names, "state"))
    ufun, zero_u = _input_function(model, u)
    solver = _method(method)
    rtol = real(rtol, "rtol", low=0.0, strict=True)
    atol = _atol(atol, model)
    max_step = real(max_step, "max_step", low=0.0, strict=True, allow_inf=True)
    max_nfev = integer(max_nfev, "max_nfev", low=1)
    if (t1 - t0) / max_step > max_nfev:
        raise ArgumentError(f"max_step = {max_step:g} s needs more than max_nfev = {max_nfev} "
                            f"steps to cover t_span ({t0:g}, {t1:g})")
    t_eval = _times(t_eval, n_points, t0, t1)
    if solver is None:
        grid = _step_grid(dt, t_eval, t0, t1, max_nfev)
    else:
        _no_step(dt)
        grid = None
    out_cols = _output_columns(model, outputs)
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
        if not np.isfinite(x.sum()):  # a cheap screen: finite entries sum to a finite number
            bad = np.flatnonzero(~np.isfinite(x))  # (or overflow: then nothing is found)
            if bad.size:
                raise SimulationError(f"{head}{t:.6g} s: state {model.state_names[bad[0]]!r} "
                                      f"became {x[bad[0]]} (the solution overflowed)")
        try:  # zero inputs as None: the kernel's single-state path, without copies
            return model.dynamics(t, x, None if zero_u else ufun(t, x), ph_params)
        except DynamicsError as err:
            raise SimulationError(f"{head}{t:.6g} s: {err}") from err

    if grid is not None:
        X = _rk4(rhs, t0, x0, *grid)
    else:
        X = _integrate(solver(rhs, t0, x0, t1, rtol=rtol, atol=atol, max_step=max_step),
                       t_eval, head, max_nfev)
    if report is not None:
        report(t1, final=True)
    U = np.empty((len(t_eval), model.n_inputs))
    for k, (t, x) in enumerate(zip(t_eval, X)):
        U[k] = ufun(t, x)

    def outputs_of(xs: np.ndarray, us: np.ndarray) -> np.ndarray:
        y = model.outputs(0.0, xs, us, ph_params)
        return y if out_cols is None else y[:, out_cols]

    return Trajectory(
        t=t_eval, x=X, y=None, u=U,
        state_names=model.state_names,
        output_names=(model.output_names if out_cols is None
                      else tuple(model.output_names[c] for c in out_cols)),
        input_names=model.input_names, units=model.units(),
        params=dict(zip(model.param_names, np.asarray(ph_params, float).tolist())),
        nfev=nfev[0], outputs_of=outputs_of,
    )


def _no_step(dt: Any) -> None:
    """``dt`` must be None for the adaptive methods."""
    if dt is not None:
        raise ArgumentError(f"dt = {dt!r:.60} is the step of method='RK4'; the adaptive "
                            "methods choose their steps (use max_step to bound them)")


def _step_grid(dt: Any, t_eval: np.ndarray, t0: float, t1: float, max_nfev: int
               ) -> tuple[float, int, np.ndarray]:
    """RK4's ``(dt, n_steps, step index of each output time)``, the grid checked."""
    if dt is None:
        raise ArgumentError("method='RK4' needs its step dt [s], e.g. dt=1e-3")
    dt = real(dt, "dt", low=0.0, strict=True)
    span = (t1 - t0) / dt
    n_steps = round(span)
    if n_steps < 1 or abs(span - n_steps) > GRID_TOL:
        raise ArgumentError(f"RK4 steps on a fixed grid: t_span ({t0:g}, {t1:g}) must be a "
                            f"whole number of steps dt = {dt:g} s; it is {span:.9g}")
    if 4 * n_steps > max_nfev:
        raise ArgumentError(f"RK4 with dt = {dt:g} s needs {4 * n_steps} evaluations to cover "
                            f"t_span ({t0:g}, {t1:g}), more than max_nfev = {max_nfev}")
    k = (t_eval - t0) / dt
    steps = np.rint(k).astype(np.int64)
    off = np.flatnonzero(np.abs(k - steps) > GRID_TOL)
    if off.size:
        raise ArgumentError(
            f"RK4 does not interpolate: every output time must be t_span[0] + k dt (dt = "
            f"{dt:g} s); t = {t_eval[off[0]]:.9g} s is not (choose t_eval on the grid, or "
            f"n_points - 1 dividing the {n_steps} steps)")
    return dt, n_steps, steps


def _rk4(rhs: Callable[[float, np.ndarray], np.ndarray], t0: float, x0: np.ndarray,
         dt: float, n_steps: int, out_steps: np.ndarray) -> np.ndarray:
    """The classical RK4 scheme from ``x0`` at ``t0``: the states at the steps
    ``out_steps`` (increasing), shape (len(out_steps), n_x). Step k starts at t0 + k dt."""
    X = np.empty((len(out_steps), len(x0)))
    x = np.array(x0, dtype=float)
    stage, acc = np.empty_like(x), np.empty_like(x)
    j = 0
    while j < len(out_steps) and out_steps[j] == 0:
        X[j] = x
        j += 1
    half = 0.5 * dt
    for k in range(n_steps):
        t = t0 + k * dt
        k1 = rhs(t, x)
        np.multiply(k1, half, out=stage)
        stage += x
        k2 = rhs(t + half, stage)
        np.multiply(k2, 2.0, out=acc)
        acc += k1
        np.multiply(k2, half, out=stage)
        stage += x
        k3 = rhs(t + half, stage)
        np.multiply(k3, 2.0, out=stage)
        acc += stage
        np.multiply(k3, dt, out=stage)
        stage += x
        k4 = rhs(t0 + (k + 1) * dt, stage)
        acc += k4
        acc *= dt / 6.0
        x += acc
        while j < len(out_steps) and out_steps[j] == k + 1:
            X[j] = x
            j += 1
    return X


def _output_columns(model: Model, outputs: Any) -> list[int] | None:
    """Columns of the chosen outputs (None: all)."""
    names = name_list(outputs, "outputs")
    if names is None:
        return None
    cols = []
    for name in names:
        key = find(name, model.output_names)
        if key not in model.output_names:
            raise UnknownNameError(f"outputs: no output {name!r}; outputs are "
                                   f"{list(model.output_names)}")
        cols.append(model.output_names.index(key))
    return cols


def _integrate(solver: OdeSolver, t_eval: np.ndarray, head: str, max_nfev: int) -> np.ndarray:
    """Step ``solver`` to its end; the states at ``t_eval`` (n_t, n_x), as ``solve_ivp`` does,
    but stopping with :class:`SimulationError` when the run stalls: every
    :data:`STALL_WINDOW` steps, the pace of the last window must reach the end of the span in
    fewer than :data:`STALL_FACTOR` × ``max_nfev`` steps (a run that would spend its
    evaluation budget many times over even if its steps grew tenfold)."""
    X = np.empty((len(t_eval), solver.n))
    done, steps, t_mark = 0, 0, solver.t
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
            _interpolate(solver.dense_output(), t_eval, done, upto, X)
            done = upto
    return X


def _interpolate(interpolant: Callable[[np.ndarray], np.ndarray], t_eval: np.ndarray,
                 start: int, stop: int, X: np.ndarray) -> None:
    """``X[start:stop]`` = the solver's dense output at ``t_eval[start:stop]``, evaluated in
    blocks of at most :data:`OUTPUT_BLOCK` numbers: the interpolant returns a new
    (n_x, n_times) array, and one step of a large model can span many output times (two
    DOP853 steps covered the 1001 output times of 0.05 s of a 238 000-state model: a
    0.95 GB temporary beside the 1.9 GB of ``X``)."""
    block = max(1, OUTPUT_BLOCK // max(1, X.shape[1]))
    for k in range(start, stop, block):
        end = min(k + block, stop)
        X[k:end] = interpolant(t_eval[k:end]).T


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


def _method(method: Any) -> type[OdeSolver] | None:
    """The OdeSolver class of a ``solve_ivp`` method name (any case), or a subclass given;
    None for RK4."""
    if isinstance(method, type) and issubclass(method, OdeSolver):
        return method
    if not isinstance(method, str):
        raise ArgumentTypeError(f"method must be a string, one of {list(METHODS)}, got "
                                f"{method!r:.60}")
    for name in METHODS:
        if name.lower() == method.lower():
            return SOLVERS.get(name)
    raise ArgumentError(f"unknown method {method!r}; methods are {list(SOLVERS)} (any case), "
                        "and 'RK4' (fixed step dt)")


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


def _input_function(model: Model, u: Any
                    ) -> tuple[Callable[[float, np.ndarray], np.ndarray], bool]:
    """``u(t, x)``: zero, a checked constant, or the user's function with its values
    checked; and whether the inputs are constant zeros."""
    if callable(u):
        call = input_function(u)

        def ufun(t: float, x: np.ndarray) -> np.ndarray:
            raw = call(t, x)
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
        return ufun, False
    const = (np.zeros(model.n_inputs) if u is None
             else finite_vector(u, "u", model.input_names, "input"))
    return (lambda t, x: const), not np.any(const)
