"""Plots: every function draws data that was computed before and returns the ``Figure``.

Nothing is computed inside a plotting call (python-control's "compute, then plot"); the
result objects of the toolbox (:class:`~titop_lpv.simulate.Trajectory`,
:class:`~titop_lpv.lpv.PoleMap`, :class:`~titop_lpv.lpv.BodeOverlay`,
:class:`~titop_lpv.response.ResponseComparison`, :class:`~titop_lpv.sweep.TrimSweep`,
:class:`~titop_lpv.modes.ModalTable`) have a ``.plot()`` method that calls these. Only
``matplotlib.pyplot.subplots`` is used, so any backend works, including ``Agg`` without a
screen.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from matplotlib import colormaps
from matplotlib.figure import Figure

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


def plot_bode(sys: Any, omega: Any = None, output: str | None = None,
              input: str | None = None) -> Figure:
    """Bode plot of one channel of a ``control.StateSpace`` (magnitude [dB], phase [deg])."""
    omega = np.logspace(-2, 2, 400) if omega is None else np.asarray(omega, float)
    i = list(sys.output_labels).index(output) if output else 0
    j = list(sys.input_labels).index(input) if input else 0
    resp = sys[i, j].frequency_response(omega)
    mag = np.asarray(resp.magnitude).ravel()
    phase = np.unwrap(np.asarray(resp.phase).ravel())
    fig, (am, ap) = _subplots(2, 1, figsize=(6.5, 5), sharex=True)
    am.semilogx(omega, 20 * np.log10(mag), "k", lw=1.2)
    ap.semilogx(omega, np.degrees(phase), "k", lw=1.2)
    am.set_ylabel("magnitude [dB]")
    ap.set_ylabel("phase [deg]")
    ap.set_xlabel("ω [rad/s]")
    am.set_title(f"{sys.input_labels[j]} → {sys.output_labels[i]}")
    for a in (am, ap):
        a.grid(True, which="both", alpha=0.3)
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
