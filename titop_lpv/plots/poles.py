"""Poles in the complex plane: the pole map of an LPV grid (coloured by the grid parameter)
and the modal table of one system."""

from __future__ import annotations

from typing import Any

import numpy as np
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from .base import label, subplots

__all__ = ["plot_modal_table", "plot_poles", "pole_axes"]


def pole_axes(ax: Any) -> None:
    """Label and dress axes of the complex plane (s-plane, rad/s).

    The imaginary axis is drawn, the tick labels are plain numbers (no offset, no
    scientific multiplier hidden at the axis end) and at most 7 per axis, so that they
    never overlap.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        The axes to dress.
    """
    ax.axvline(0.0, color="k", linewidth=0.6)
    ax.axhline(0.0, color="k", linewidth=0.3)
    ax.set_xlabel("Re s [rad/s]")
    ax.set_ylabel("Im s [rad/s]")
    for axis in (ax.xaxis, ax.yaxis):
        axis.set_major_locator(MaxNLocator(nbins=7, steps=[1, 2, 2.5, 5, 10]))
    ax.ticklabel_format(style="plain", useOffset=False)
    ax.grid(True, alpha=0.3)


def plot_poles(pole_map: Any, *, ax: Any = None) -> Figure:
    """Poles of a ``PoleMap`` in the complex plane, coloured by the grid parameter.

    Parameters
    ----------
    pole_map : PoleMap
        From :meth:`titop_lpv.LPVGrid.poles`; NaN poles (failed trims) are left out. Its
        ``unit`` (of the grid parameter), when it has one, labels the colour bar.
    ax : matplotlib.axes.Axes, optional
        Draw into these axes (default: a new figure).

    Returns
    -------
    matplotlib.figure.Figure
        The figure of ``ax``, or the new one; the colour bar is the key.
    """
    if ax is None:
        fig, ax = subplots(figsize=(6.5, 4.5))
    else:
        fig = ax.figure
    vals = np.repeat(np.asarray(pole_map.values, dtype=float), pole_map.poles.shape[1])
    pts = pole_map.poles.ravel()
    ok = np.isfinite(pts)
    sc = ax.scatter(pts.real[ok], pts.imag[ok], c=vals[ok], s=14, cmap="viridis",
                    marker="x" if ok.sum() < 400 else ".")
    fig.colorbar(sc, ax=ax, label=label(pole_map.name, getattr(pole_map, "unit", "")))
    pole_axes(ax)
    return fig


def plot_modal_table(table: Any) -> Figure:
    """A ``ModalTable`` rendered as a figure table (for reports), plus the poles.

    Parameters
    ----------
    table : ModalTable
        From :func:`titop_lpv.modes`.

    Returns
    -------
    matplotlib.figure.Figure
    """
    rows = table.rows()
    head = list(table.header)
    fig, (ax_t, ax_p) = subplots(1, 2, figsize=(14, 0.26 * (len(rows) + 1) + 1.6),
                                 gridspec_kw={"width_ratios": [3, 1]})
    ax_t.axis("off")
    tab = ax_t.table(cellText=rows, colLabels=head, cellLoc="left", bbox=[0, 0, 1, 1])
    tab.auto_set_font_size(False)
    tab.set_fontsize(8)
    tab.auto_set_column_width(list(range(len(head))))
    lam = np.array([m.eigenvalue for m in table.modes], dtype=complex)
    rigid = np.array([m.rigid for m in table.modes], dtype=bool)
    for mask, color, name in ((rigid, "C3", "rigid-body"), (~rigid, "C0", "other")):
        if mask.any():
            pts = np.concatenate([lam[mask], lam[mask].conj()])
            ax_p.scatter(pts.real, pts.imag, c=color, s=22, marker="x", label=name)
    pole_axes(ax_p)
    if lam.size:
        ax_p.legend(fontsize=8, loc="best")
    if table.name:
        fig.suptitle(f"modes of {table.name}")
    return fig
