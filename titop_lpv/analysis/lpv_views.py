"""What a parameter grid shows: the poles over the grid (:class:`PoleMap`) and the Bode
responses of every grid point (:class:`BodeOverlay`), each with its ``.plot()``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ..plots import plot_bode_overlay, plot_poles

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["BodeOverlay", "PoleMap"]


@dataclass(frozen=True)
class PoleMap:
    """Poles over the grid: ``poles[k]`` are the poles at ``values[k]`` of parameter ``name``.

    Made by :meth:`LPVGrid.poles`.

    Attributes
    ----------
    name : str
        The grid parameter that labels the points.
    values : ndarray (n_points,)
        Its value at each grid point, in the order of ``LPVGrid.systems.flat``.
    poles : ndarray (n_points, n_states) of complex
        Poles [rad/s] of each point's state matrix, sorted (``numpy.sort_complex``); NaN
        where the trim failed.
    unit : str, default ""
        Unit of the parameter ``name`` (its declared unit; the colour bar's label).
    """

    name: str
    values: np.ndarray
    poles: np.ndarray  # (n_points, n_states) complex, NaN where the trim failed
    unit: str = ""

    def plot(self, *, ax: Any = None) -> Figure:
        """Poles in the complex plane, coloured by the parameter; returns the Figure.

        Parameters
        ----------
        ax : matplotlib.axes.Axes, optional
            Draw into these axes (default: a new figure).

        Returns
        -------
        matplotlib.figure.Figure
        """
        return plot_poles(self, ax=ax)

@dataclass(frozen=True)
class BodeOverlay:
    """Frequency responses over the grid (one curve per grid point).

    ``magnitude[k, i, j, :]`` and ``phase`` [rad] from input ``inputs[j]`` to output
    ``outputs[i]`` at grid point ``values[k]``. Made by :meth:`LPVGrid.bode`.

    Attributes
    ----------
    name : str
        The grid parameter that labels (colours) the curves.
    values : ndarray (n_points,)
        Its value at each grid point, in the order of ``LPVGrid.systems.flat``.
    omega : ndarray (n_omega,)
        Frequencies [rad/s].
    magnitude : ndarray (n_points, n_outputs, n_inputs, n_omega)
        Gain (absolute, not dB); NaN at points where the trim failed.
    phase : ndarray (n_points, n_outputs, n_inputs, n_omega)
        Phase [rad], unwrapped along ω; NaN at points where the trim failed.
    inputs, outputs : tuple of str
        The channels, in the order of the two middle axes.
    unit : str, default ""
        Unit of the parameter ``name`` (the label of the colour bar, the key of the curves).
    input_units, output_units : tuple of str, default ()
        Units of the channels (the magnitude is in dB relative to 1 output per input unit).
    """

    name: str
    values: np.ndarray
    omega: np.ndarray
    magnitude: np.ndarray
    phase: np.ndarray
    inputs: tuple[str, ...]
    outputs: tuple[str, ...]
    unit: str = ""
    input_units: tuple[str, ...] = ()
    output_units: tuple[str, ...] = ()

    def plot(self, output: str | None = None, input: str | None = None) -> Figure:
        """Magnitude (dB) and phase (deg) against ω, a colour bar as key; returns the Figure.

        Parameters
        ----------
        output : str, optional
            Output channel, one of :attr:`outputs` (default: all; else UnknownNameError).
        input : str, optional
            Input channel, one of :attr:`inputs` (default: all; else UnknownNameError).

        Returns
        -------
        matplotlib.figure.Figure
        """
        return plot_bode_overlay(self, output, input)
