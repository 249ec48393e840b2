"""Figures against time or against a grid parameter: simulated signals, linear versus
nonlinear responses, trim sweeps."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from matplotlib.figure import Figure

from .base import choose, label, subplots

__all__ = ["plot_comparison", "plot_signals", "plot_sweep"]


def plot_signals(t: np.ndarray, series: Mapping[str, np.ndarray],
                 units: Mapping[str, str] | None = None, *, ncols: int | None = None,
                 title: str | None = None) -> Figure:
    """One subplot per signal against time ``t`` [s]; ``units`` label the y axes.

    Parameters
    ----------
    t : ndarray (n_t,)
        Time [s].
    series : mapping of str to ndarray (n_t,)
        ``name -> time history``, one subplot each (titled with the name), in this order.
    units : mapping of str to str, optional
        ``name -> unit`` for the y-axis labels (a name without a unit gets no label).
    ncols : int, optional
        Columns of the subplot grid (default 3 when more than 3 signals, else one per
        signal).
    title : str, optional
        Figure title (default: none).

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import numpy as np
    >>> t = np.linspace(0.0, 1.0, 11)
    >>> fig = plot_signals(t, {"q": np.sin(t), "qd": np.cos(t)}, {"q": "rad", "qd": "rad/s"})
    >>> [ax.get_title() for ax in fig.axes], fig.axes[0].get_ylabel(), fig.axes[0].get_xlabel()
    (['q', 'qd'], '[rad]', 't [s]')
    """
    names = list(series)
    units = units or {}
    ncols = ncols or (3 if len(names) > 3 else len(names) or 1)
    nrows = -(-len(names) // ncols) or 1
    fig, axes = subplots(nrows, ncols, figsize=(4.2 * ncols, 2.6 * nrows), squeeze=False,
                         sharex=True)
    for ax, name in zip(axes.flat, names):
        ax.plot(t, series[name], color="k", linewidth=1.0)
        ax.set_title(name, fontsize=10)
        unit = units.get(name, "")
        ax.set_ylabel(f"[{unit}]" if unit else "")
        ax.grid(True, alpha=0.3)
    flat = list(axes.flat)
    for ax in flat[len(names):]:
        ax.set_visible(False)
    for col in range(ncols):  # the lowest visible axes of each column carry the time axis
        shown = [k for k in range(len(names)) if k % ncols == col]
        if shown:
            flat[max(shown)].set_xlabel("t [s]")
            flat[max(shown)].xaxis.set_tick_params(labelbottom=True)
    if title:
        fig.suptitle(title)
    return fig


def plot_comparison(comparison: Any, names: Sequence[str] | None = None) -> Figure:
    """Nonlinear (solid) and linear (dashed) responses of a ``ResponseComparison``.

    Parameters
    ----------
    comparison : ResponseComparison
        From :func:`titop_lpv.compare_response`; its ``units`` (``output -> unit``, when
        it has them) label the y axes.
    names : sequence of str, optional
        Outputs to plot, one subplot each, as spelled in ``comparison.outputs`` (default:
        all of them).

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    UnknownNameError
        A name that is not an output of the comparison.
    """
    outputs = list(comparison.outputs)
    names = list(outputs if names is None else names)
    index = [choose(n, outputs, "output", "plot_comparison")[0] for n in names]
    units = getattr(comparison, "units", None) or {}
    fig, axes = subplots(max(len(names), 1), 1, figsize=(6.5, 2.2 * max(len(names), 1) + 0.4),
                         sharex=True, squeeze=False)
    for ax, name, k in zip(axes[:, 0], names, index):
        ax.plot(comparison.t, comparison.y_nonlinear[:, k], "k-", lw=1.2, label="nonlinear")
        ax.plot(comparison.t, comparison.y_linear[:, k], "C1--", lw=1.2, label="linear")
        ax.set_ylabel(label(name, units.get(name, "")))
        ax.grid(True, alpha=0.3)
    axes[0, 0].legend(loc="best")
    axes[-1, 0].set_xlabel("t [s]")
    return fig


def plot_sweep(sweep: Any, names: Sequence[str],
               units: Mapping[str, str] | None = None) -> Figure:
    """Values of a ``TrimSweep`` against its first grid parameter (a line per other value).

    Parameters
    ----------
    sweep : TrimSweep
        From :func:`titop_lpv.trim_sweep`.
    names : sequence of str
        States, inputs or parameters to plot, one subplot each (as
        :meth:`TrimSweep.values` reads them; NaN where the trim failed).
    units : mapping of str to str, optional
        ``name -> unit`` of the plotted names and of the grid parameters (axis labels and
        the legend of the other grid parameters' values).

    Returns
    -------
    matplotlib.figure.Figure
        One subplot per name; on a grid over several parameters, one line per combination
        of the other parameters' values, with a legend (up to 12 lines; a title says how
        many when there are more).
    """
    units = units or {}
    axes_items = list(sweep.axes.items())
    first, xs = axes_items[0]
    others = axes_items[1:]
    combos = [dict(zip([k for k, _ in others], c)) for c in
              zip(*(g.ravel() for g in np.meshgrid(*(v for _, v in others), indexing="ij")))
              ] if others else [{}]
    names = list(names)
    fig, axes = subplots(max(len(names), 1), 1, figsize=(6.5, 2.4 * max(len(names), 1) + 0.4),
                         squeeze=False, sharex=True)
    for ax, name in zip(axes[:, 0], names):
        data = sweep.values(name).reshape(len(xs), -1)
        for c, combo in enumerate(combos):
            key = ", ".join(f"{k} = {v:g}{' ' + units[k] if units.get(k) else ''}"
                            for k, v in combo.items())
            ax.plot(xs, data[:, c], marker=".", label=key or None)
        ax.set_ylabel(label(name, units.get(name, "")))
        ax.grid(True, alpha=0.3)
        if others and len(combos) <= 12:
            ax.legend(fontsize=8, loc="best")
        elif others:
            ax.set_title(f"{len(combos)} lines: one per value of "
                         f"{', '.join(k for k, _ in others)}", fontsize=9)
    axes[-1, 0].set_xlabel(label(first, units.get(first, "")))
    return fig
