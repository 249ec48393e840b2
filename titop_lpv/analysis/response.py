"""Linear versus nonlinear: :func:`compare_response` simulates both for a small perturbation."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import control
import numpy as np

from ..exceptions import ShapeError, UnknownNameError
from ..model.compiled import Model
from ..names import find
from ..plots import plot_comparison
from .arguments import ArgumentTypeError, integer, real
from .operating_point import OperatingPoint
from .simulate import MAX_POINTS, simulate

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["ResponseComparison", "compare_response"]


@dataclass(frozen=True)
class ResponseComparison:
    """Nonlinear and linear responses to the same perturbation.

    Attributes
    ----------
    t : ndarray (n_t,)
    outputs : tuple of str
    y_nonlinear : ndarray (n_t, n_y)
        Outputs of the nonlinear simulation.
    y_linear : ndarray (n_t, n_y)
        ``y₀ + δy`` of the linear model (deviations added back to the operating point).
    units : dict of str to str, optional
        Unit of each output (``output -> unit``; the y-axis labels of :meth:`plot`).
    """

    t: np.ndarray
    outputs: tuple[str, ...]
    y_nonlinear: np.ndarray
    y_linear: np.ndarray
    units: dict[str, str] = field(default_factory=dict)

    @property
    def error(self) -> np.ndarray:
        """``y_nonlinear − y_linear`` (n_t, n_y)."""
        return self.y_nonlinear - self.y_linear

    @property
    def max_error(self) -> float:
        """Largest absolute difference over time and outputs."""
        return float(np.max(np.abs(self.error)))

    def plot(self, names: list[str] | None = None) -> Figure:
        """Nonlinear (solid) and linear (dashed) outputs, one subplot each; returns the Figure.

        Parameters
        ----------
        names : list of str, optional
            Outputs to plot, as spelled in :attr:`outputs` (default: all of them).

        Returns
        -------
        matplotlib.figure.Figure

        Raises
        ------
        UnknownNameError
            A name that is not one of :attr:`outputs`.
        """
        return plot_comparison(self, names)
def _values(values: Any, names: list[str], what: str, kind: str) -> np.ndarray:
    """A dict ``name -> finite number`` over ``names`` as a vector (zero where not given)."""
    if values is None:
        return np.zeros(len(names))
    if not isinstance(values, Mapping):
        raise ArgumentTypeError(f"{what} must be a dict name -> value, got {values!r:.60}")
    out = np.zeros(len(names))
    for name, value in values.items():
        key = find(name, names)
        if key is None:
            raise UnknownNameError(f"{what}: {name!r} is not {'an' if kind[0] in 'aeiou' else 'a'}"
                                   f" {kind} of the linear model {names}")
        out[names.index(key)] = real(value, f"{what}[{name!r}]")
    return out


def compare_response(
    model: Model,
    op: OperatingPoint,
    sys: control.StateSpace,
    *,
    x0_offset: Mapping[str, float] | None = None,
    u: Any = None,
    t_final: float = 5.0,
    n_points: int = 501,
    rtol: float = 1e-10,
    atol: float = 1e-12,
) -> ResponseComparison:
    """Simulate the nonlinear model and its linearisation for the same small perturbation.

    Parameters
    ----------
    model, op, sys
        The model, the operating point and ``linearize(model, op, ...)``.
    x0_offset : dict, optional
        Initial deviation ``name -> δx`` (states of ``sys``).
    u : dict or callable, optional
        Input deviation ``name -> δu`` (constant) or ``u(t) -> dict`` over ``sys``'s inputs.
    t_final : float, default 5.0
        End of the simulation [s]; both responses start at 0.
    n_points : int, default 501
        Number of evenly spaced samples over ``[0, t_final]``.
    rtol, atol : float
        Relative and absolute tolerances of the nonlinear simulation (passed to
        :func:`titop_lpv.simulate`, hence to ``solve_ivp``); default 1e-10 and 1e-12, tighter
        than :func:`titop_lpv.simulate`'s so that the difference measures the
        linearisation, not the integration error.

    Returns
    -------
    ResponseComparison

    Raises
    ------
    ArgumentError, ArgumentTypeError
        An invalid argument, named: ``op`` or ``sys`` of the wrong type, ``t_final`` not a
        finite time > 0, ``n_points`` not an integer >= 2, ``x0_offset`` or ``u`` not a dict
        (or ``u`` a callable returning one) of finite numbers.
    UnknownNameError
        A name of ``x0_offset`` or ``u`` that is not a state or input of ``sys``.
    SimulationError
        The nonlinear simulation stops (see :func:`titop_lpv.simulate`).
    """
    if not isinstance(op, OperatingPoint):
        raise ArgumentTypeError(f"op must be a titop_lpv.OperatingPoint, got {op!r:.60}")
    if not isinstance(sys, control.StateSpace):
        raise ArgumentTypeError(f"sys must be a control.StateSpace, got {sys!r:.60}")
    t_final = real(t_final, "t_final", low=0.0, strict=True)
    T = np.linspace(0.0, t_final, integer(n_points, "n_points", low=2, high=MAX_POINTS))
    states = list(sys.state_labels)
    dx = _values(x0_offset, states, "x0_offset", "state")
    inputs = list(sys.input_labels)
    if not (u is None or callable(u) or isinstance(u, Mapping)):
        raise ArgumentTypeError(f"u must be a dict name -> value or a callable u(t) -> dict, "
                                f"got {u!r:.60}")

    def du(t: float) -> np.ndarray:
        return _values(u(t) if callable(u) else u, inputs, "u", "input")

    if "drift" in inputs:
        raise ShapeError("compare_response needs a model linearised at an equilibrium")
    x0 = op.x.copy()
    for k, name in enumerate(states):
        x0[model.state_index(name)] += dx[k]
    in_idx = [model.input_index(n) for n in inputs]

    def u_full(t: float, x: np.ndarray) -> np.ndarray:
        full = op.u.copy()
        full[in_idx] += du(t)
        return full

    traj = simulate(model, (0.0, t_final), x0=x0, u=u_full, params=op.params, t_eval=T,
                    rtol=rtol, atol=atol)
    U = np.array([du(t) for t in T]).T.reshape(len(inputs), T.size)
    lin = control.forced_response(sys, T, U, X0=dx)
    y0 = model.outputs(0.0, op.x, op.u, op.params)
    outs = list(sys.output_labels)
    y0_sel = np.array([y0[model.output_index(n)] for n in outs])
    y_lin = y0_sel + np.asarray(lin.outputs).reshape(len(outs), T.size).T
    y_nl = np.column_stack([traj[n] for n in outs]) if outs else np.zeros((T.size, 0))
    units = model.units()
    return ResponseComparison(T, tuple(outs), y_nl, y_lin, {n: units.get(n, "") for n in outs})
