"""What every figure shares: new figures in constrained layout, axis labels with units, the
unit of a ratio (a frequency response's gain), colour keys."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from matplotlib import colormaps
from matplotlib.cm import ScalarMappable
from matplotlib.colors import Normalize
from matplotlib.figure import Figure

from ..exceptions import UnknownNameError

__all__ = ["axes_of", "choose", "color_key", "gain_label", "label", "ratio_unit", "subplots",
           "units_of"]


def subplots(*args: Any, **kwargs: Any) -> tuple[Figure, Any]:
    """``matplotlib.pyplot.subplots`` in constrained layout (no label is ever clipped).

    Parameters
    ----------
    *args
        Passed to ``subplots`` (``nrows, ncols``).
    **kwargs
        Passed to ``subplots`` (``figsize``, ``sharex``, ``squeeze`` ...).

    Returns
    -------
    (Figure, Axes or ndarray of Axes)
    """
    import matplotlib.pyplot as plt

    return plt.subplots(*args, layout="constrained", **kwargs)


def axes_of(ax: Any, figsize: tuple[float, float]) -> tuple[Figure, Any]:
    """``(figure, axes)``: a new figure of size ``figsize`` [in], or the figure of ``ax``.

    Parameters
    ----------
    ax : matplotlib.axes.Axes or None
        Axes given by the caller.
    figsize : (float, float)
        Size [in] of a new figure.

    Returns
    -------
    (Figure, Axes)
    """
    if ax is None:
        return subplots(figsize=figsize)
    return ax.figure, ax


def label(name: str, unit: str | None) -> str:
    """An axis label: ``"name [unit]"``, or ``"name"`` when the unit is unknown.

    Parameters
    ----------
    name : str
        Quantity or signal name.
    unit : str or None
        Its unit (``""`` or None: unknown; ``"-"`` marks a dimensionless quantity).

    Returns
    -------
    str

    Examples
    --------
    >>> label("slider_q", "m"), label("k", ""), label("μ", "-")
    ('slider_q [m]', 'k', 'μ [-]')
    """
    return f"{name} [{unit}]" if unit else name


def _group(unit: str) -> str:
    """``unit`` as the denominator of a ratio: a compound unit gets parentheses."""
    return f"({unit})" if any(c in unit for c in " /*·") else unit


def ratio_unit(numerator: str | None, denominator: str | None) -> str:
    """The unit of ``numerator / denominator`` (a gain from an input to an output).

    Parameters
    ----------
    numerator, denominator : str or None
        Units of the output and of the input (``""`` or None: unknown).

    Returns
    -------
    str
        ``""`` when either unit is unknown; the numerator alone for a dimensionless
        denominator ``"-"``; ``"-"`` when both units are equal.

    Examples
    --------
    >>> ratio_unit("rad", "N m"), ratio_unit("m", "N"), ratio_unit("m/s", "m/s")
    ('rad/(N m)', 'm/N', '-')
    """
    if not numerator or not denominator:
        return ""
    if numerator == denominator:
        return "-"
    if denominator == "-":
        return numerator
    return f"{'1' if numerator == '-' else numerator}/{_group(denominator)}"


def gain_label(output_unit: str | None, input_unit: str | None) -> str:
    """Label of a magnitude axis in dB: ``"magnitude [dB re 1 rad/N]"``.

    Parameters
    ----------
    output_unit, input_unit : str or None
        Units of the output and of the input of the channel.

    Returns
    -------
    str
        The reference of the decibels (1 output unit per input unit) when both units are
        known, else ``"magnitude [dB]"``.
    """
    unit = ratio_unit(output_unit, input_unit)
    return f"magnitude [dB re 1 {unit}]" if unit and unit != "-" else "magnitude [dB]"


def choose(name: str | None, names: Sequence[str], what: str, where: str) -> list[int]:
    """Indices of the channels to draw: all of ``names``, or the one named.

    Parameters
    ----------
    name : str or None
        The channel asked for (None: all).
    names : sequence of str
        The channels of the result.
    what : str
        ``"input"``, ``"output"`` or ``"signal"`` (for the error message).
    where : str
        The plotting function (for the error message).

    Returns
    -------
    list of int

    Raises
    ------
    UnknownNameError
        ``name`` is not one of ``names``.
    """
    names = list(names)
    if name is None:
        return list(range(len(names)))
    if name not in names:
        raise UnknownNameError(f"{where}: unknown {what} {name!r}; the {what}s are {names}")
    return [names.index(name)]


def color_key(fig: Figure, axes: Any, values: np.ndarray, name: str,
              unit: str | None = "", cmap: str = "viridis", aspect: float = 20.0) -> Any:
    """Colours of values and their key: a colour bar over ``axes`` labelled ``name [unit]``.

    Parameters
    ----------
    fig : Figure
        The figure.
    axes : Axes or list of Axes
        The axes the colour bar serves (it is drawn beside them).
    values : ndarray
        The values to colour (NaN ignored).
    name : str
        Name of the quantity (the colour bar's label).
    unit : str, optional
        Its unit.
    cmap : str
        A matplotlib colour map.
    aspect : float
        Length over width of the bar (larger: thinner; a bar beside several rows of axes
        wants ``20 * rows``).

    Returns
    -------
    callable
        ``color(value) -> RGBA`` (a single value gets the middle colour).
    """
    finite = np.asarray(values, dtype=float)
    finite = finite[np.isfinite(finite)]
    lo, hi = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0)
    if hi <= lo:
        lo, hi = lo - 0.5 * max(abs(lo), 1.0), hi + 0.5 * max(abs(hi), 1.0)
    norm, colors = Normalize(lo, hi), colormaps[cmap]
    fig.colorbar(ScalarMappable(norm=norm, cmap=colors), ax=axes, label=label(name, unit),
                 aspect=aspect)
    return lambda v: colors(norm(v))


def units_of(names: Sequence[str], units: Mapping[str, str] | None) -> list[str]:
    """The unit of each name (``""`` when unknown).

    Parameters
    ----------
    names : sequence of str
        Signal or parameter names.
    units : mapping of str to str or None
        ``name -> unit``.

    Returns
    -------
    list of str
    """
    units = units or {}
    return [str(units.get(n, "") or "") for n in names]
