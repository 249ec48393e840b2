"""Plots: every function draws data that was computed before and returns the ``Figure``.

Nothing is computed inside a plotting call (python-control's "compute, then plot"); the
result objects of the toolbox (:class:`~titop_lpv.analysis.simulate.Trajectory`,
:class:`~titop_lpv.analysis.lpv.PoleMap`, :class:`~titop_lpv.analysis.lpv.BodeOverlay`,
:class:`~titop_lpv.analysis.response.ResponseComparison`, :class:`~titop_lpv.analysis.sweep.TrimSweep`,
:class:`~titop_lpv.analysis.modes.ModalTable`) have a ``.plot()`` method that calls these. Only
``matplotlib.pyplot.subplots`` is used, so any backend works, including ``Agg`` without a
screen.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from matplotlib import colormaps
from matplotlib.figure import Figure

from .exceptions import UnknownNameError

__all__ = [
    "plot_bode",
    "plot_bode_overlay",
    "plot_comparison",
    "plot_modal_table",
    "plot_poles",
    "plot_signals",
    "plot_sweep",
]


def _subplots(*args: Any, **kwargs: Any) -> tuple[Figure, Any]:
    import matplotlib.pyplot as plt

    return plt.subplots(*args, layout="constrained", **kwargs)


def plot_signals(t: np.ndarray, series: Mapping[str, np.ndarray],
                 units: Mapping[str, str] | None = None, *, ncols: int | None = None,
                 title: str | None = None) -> Figure:
    """One subplot per signal against time ``t`` [s]; ``units`` label the y axes."""
    names = list(series)
    units = units or {}
    ncols = ncols or (3 if len(names) > 3 else len(names) or 1)
    nrows = -(-len(names) // ncols) or 1
    fig, axes = _subplots(nrows, ncols, figsize=(4.2 * ncols, 2.6 * nrows), squeeze=False,
                          sharex=True)
    for ax, name in zip(axes.flat, names):
        ax.plot(t, series[name], color="k", linewidth=1.0)
        ax.set_title(name, fontsize=10)
        unit = units.get(name, "")
        ax.set_ylabel(f"[{unit}]" if unit else "")
        ax.grid(True, alpha=0.3)
    for ax in list(axes.flat)[len(names):]:
        ax.set_visible(False)
    for ax in axes[-1]:
        ax.set_xlabel("t [s]")
    if title:
        fig.suptitle(title)
    return fig


def plot_comparison(comparison: Any, names: Sequence[str] | None = None) -> Figure:
    """Nonlinear (solid) and linear (dashed) responses of a ``ResponseComparison``."""
    names = list(names or comparison.outputs)
    fig, axes = _subplots(len(names), 1, figsize=(6.5, 2.2 * len(names)), sharex=True,
                          squeeze=False)
    for ax, name in zip(axes[:, 0], names):
        k = comparison.outputs.index(name)
        ax.plot(comparison.t, comparison.y_nonlinear[:, k], "k-", lw=1.2, label="nonlinear")
        ax.plot(comparison.t, comparison.y_linear[:, k], "C1--", lw=1.2, label="linear")
        ax.set_ylabel(name)
        ax.grid(True, alpha=0.3)
    axes[0, 0].legend(loc="best")
    axes[-1, 0].set_xlabel("t [s]")
    return fig


def plot_poles(pole_map: Any, *, ax: Any = None) -> Figure:
    """Poles of a ``PoleMap`` in the complex plane, coloured by the grid parameter."""
    if ax is None:
        fig, ax = _subplots(figsize=(6, 4.5))
    else:
        fig = ax.figure
    vals = np.repeat(pole_map.values, pole_map.poles.shape[1])
    pts = pole_map.poles.ravel()
    ok = np.isfinite(pts)
    sc = ax.scatter(pts.real[ok], pts.imag[ok], c=vals[ok], s=12, cmap="viridis")
    fig.colorbar(sc, ax=ax, label=pole_map.name)
    ax.axvline(0.0, color="k", linewidth=0.6)
    ax.set_xlabel("Re [rad/s]")
    ax.set_ylabel("Im [rad/s]")
    ax.grid(True, alpha=0.3)
    return fig


def plot_bode_overlay(overlay: Any, output: str | None = None, input: str | None = None,
                      ) -> Figure:
    """Magnitude [dB] and phase [deg] of one channel of a ``BodeOverlay``, a curve per point."""
    i = overlay.outputs.index(output) if output else 0
    j = overlay.inputs.index(input) if input else 0
    fig, (am, ap) = _subplots(2, 1, figsize=(6.5, 5), sharex=True)
    lo, hi = np.nanmin(overlay.values), np.nanmax(overlay.values)
    cmap = colormaps["viridis"]
    for k, v in enumerate(overlay.values):
        if not np.all(np.isfinite(overlay.magnitude[k, i, j])):
            continue
        color = cmap((v - lo) / (hi - lo) if hi > lo else 0.5)
        am.semilogx(overlay.omega, 20 * np.log10(overlay.magnitude[k, i, j]), color=color, lw=1)
        ap.semilogx(overlay.omega, np.degrees(overlay.phase[k, i, j]), color=color, lw=1)
    am.set_ylabel("magnitude [dB]")
    ap.set_ylabel("phase [deg]")
    ap.set_xlabel("ω [rad/s]")
    am.set_title(f"{overlay.inputs[j]} → {overlay.outputs[i]}, "
                 f"{overlay.name} ∈ [{lo:g}, {hi:g}]")
    for a in (am, ap):
        a.grid(True, which="both", alpha=0.3)
    return fig


def plot_bode(response: Any, output: str | None = None, input: str | None = None, *,
              label: Sequence[str] | None = None, title: str | None = None) -> Figure:
    """Bode plot of a frequency response computed beforehand, drawn by python-control.

    Parameters
    ----------
    response : control.FrequencyResponseData or sequence of them
        From ``control.frequency_response(sys, omega)`` (ω in rad/s). Several responses
        with the same signals are overlaid, one curve each.
    output, input : str, optional
        Draw only this output / input channel (default: every channel: a magnitude and a
        phase row per output, a column per input).
    label : sequence of str, optional
        Legend entries, one per response.
    title : str, optional
        Figure title (default: the channels, ``input → output``, for one channel).

    Returns
    -------
    matplotlib.figure.Figure
        Magnitude [dB] and unwrapped phase [deg] (starting within ±180° at the lowest
        frequency) against ω [rad/s]: ``control.bode_plot`` on the axes of a new figure.

    Raises
    ------
    UnknownNameError
        ``output`` or ``input`` is not a signal of the response.
    """
    import control

    responses = list(response) if isinstance(response, (list, tuple)) else [response]
    first = responses[0]
    outs, ins = list(first.output_labels), list(first.input_labels)
    for name, names, what in ((output, outs, "output"), (input, ins, "input")):
        if name is not None and name not in names:
            raise UnknownNameError(f"plot_bode: unknown {what} {name!r}; {what}s are {names}")
    i = [outs.index(output)] if output is not None else list(range(len(outs)))
    j = [ins.index(input)] if input is not None else list(range(len(ins)))
    if output is not None or input is not None:
        responses = [r[i[0] if len(i) == 1 else slice(None),
                       j[0] if len(j) == 1 else slice(None)] for r in responses]
    fig, axes = _subplots(2 * len(i), len(j), figsize=(6.5 * len(j), 2.5 * 2 * len(i)),
                          sharex=True, squeeze=False)
    kwargs = {"label": list(label)} if label is not None else {}
    control.bode_plot(responses, ax=axes, dB=True, deg=True, Hz=False, initial_phase=0.0,
                      title="", **kwargs)
    for ax in axes.flat:
        ax.grid(True, which="both", alpha=0.3)
    axes[-1, 0].set_xlabel("ω [rad/s]")
    if title is None and len(i) == 1 and len(j) == 1:
        title = f"{ins[j[0]]} → {outs[i[0]]}"
    if title:
        fig.suptitle(title)
    return fig


def plot_sweep(sweep: Any, names: Sequence[str]) -> Figure:
    """Values of a ``TrimSweep`` against its first grid parameter (a line per other value)."""
    first, xs = next(iter(sweep.axes.items()))
    fig, axes = _subplots(len(names), 1, figsize=(6, 2.4 * len(names)), squeeze=False,
                          sharex=True)
    for ax, name in zip(axes[:, 0], names):
        ax.plot(xs, sweep.values(name).reshape(len(xs), -1), marker=".")
        ax.set_ylabel(name)
        ax.grid(True, alpha=0.3)
    axes[-1, 0].set_xlabel(first)
    return fig


def plot_modal_table(table: Any) -> Figure:
    """A ``ModalTable`` rendered as a figure table (for reports), plus the poles."""
    rows = table._rows()
    fig, (ax_t, ax_p) = _subplots(1, 2, figsize=(13, 0.35 * len(rows) + 1.5),
                                  gridspec_kw={"width_ratios": [4, 1]})
    ax_t.axis("off")
    tab = ax_t.table(cellText=rows, colLabels=list(table._HEAD), loc="center", cellLoc="left")
    tab.auto_set_font_size(False)
    tab.set_fontsize(8)
    tab.auto_set_column_width(list(range(len(table._HEAD))))
    lam = np.array([m.eigenvalue for m in table.modes])
    ax_p.scatter(lam.real, lam.imag, c=["C3" if m.rigid else "C0" for m in table.modes], s=18)
    ax_p.scatter(lam.real, -lam.imag, c=["C3" if m.rigid else "C0" for m in table.modes], s=18)
    ax_p.axvline(0.0, color="k", lw=0.6)
    ax_p.set_xlabel("Re [rad/s]")
    ax_p.set_ylabel("Im [rad/s]")
    ax_p.grid(True, alpha=0.3)
    if table.name:
        fig.suptitle(f"modes of {table.name}")
    return fig
