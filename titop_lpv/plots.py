"""Plots: every function draws data that was computed before and returns the ``Figure``.

Nothing is computed inside a plotting call (python-control's "compute, then plot"); the
result objects of the toolbox (:class:`~titop_lpv.analysis.simulate.Trajectory`,
:class:`~titop_lpv.analysis.lpv.PoleMap`, :class:`~titop_lpv.analysis.lpv.BodeOverlay`,
:class:`~titop_lpv.analysis.response.ResponseComparison`,
:class:`~titop_lpv.analysis.sweep.TrimSweep`,
:class:`~titop_lpv.analysis.modes.ModalTable`) have a ``.plot()`` method that calls these. Only
``matplotlib.pyplot.subplots`` is used, so any backend works, including ``Agg`` without a
screen.

The robustness results (:class:`~titop_lpv.robust.mu.MuResult`,
:class:`~titop_lpv.robust.stability.RobustStabilityResult`,
:class:`~titop_lpv.robust.worst_case.WorstCaseGainResult`,
:class:`~titop_lpv.robust.monte_carlo.MonteCarloResult`) pass plain arrays to
:func:`plot_mu`, :func:`plot_robust_stability`, :func:`plot_worst_case_gain` and
:func:`plot_monte_carlo`: this module imports nothing from :mod:`titop_lpv.robust`.
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
    "plot_monte_carlo",
    "plot_mu",
    "plot_poles",
    "plot_robust_stability",
    "plot_signals",
    "plot_sweep",
    "plot_worst_case_gain",
]


def _subplots(*args: Any, **kwargs: Any) -> tuple[Figure, Any]:
    import matplotlib.pyplot as plt

    return plt.subplots(*args, layout="constrained", **kwargs)


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
    >>> [ax.get_title() for ax in fig.axes], fig.axes[0].get_ylabel()
    (['q', 'qd'], '[rad]')
    """
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
    """Nonlinear (solid) and linear (dashed) responses of a ``ResponseComparison``.

    Parameters
    ----------
    comparison : ResponseComparison
        From :func:`titop_lpv.compare_response`.
    names : sequence of str, optional
        Outputs to plot, one subplot each, as spelled in ``comparison.outputs`` (default:
        all of them).

    Returns
    -------
    matplotlib.figure.Figure
    """
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
    """Poles of a ``PoleMap`` in the complex plane, coloured by the grid parameter.

    Parameters
    ----------
    pole_map : PoleMap
        From :meth:`titop_lpv.LPVGrid.poles`; NaN poles (failed trims) are left out.
    ax : matplotlib.axes.Axes, optional
        Draw into these axes (default: a new figure).

    Returns
    -------
    matplotlib.figure.Figure
        The figure of ``ax``, or the new one.
    """
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
    """Magnitude [dB] and phase [deg] of one channel of a ``BodeOverlay``, a curve per point.

    Parameters
    ----------
    overlay : BodeOverlay
        From :meth:`titop_lpv.LPVGrid.bode`; grid points whose response is not finite
        (failed trims) are left out.
    output : str, optional
        Output channel, one of ``overlay.outputs`` (default: the first).
    input : str, optional
        Input channel, one of ``overlay.inputs`` (default: the first).

    Returns
    -------
    matplotlib.figure.Figure
    """
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
    """Values of a ``TrimSweep`` against its first grid parameter (a line per other value).

    Parameters
    ----------
    sweep : TrimSweep
        From :func:`titop_lpv.trim_sweep`.
    names : sequence of str
        States, inputs or parameters to plot, one subplot each (as
        :meth:`TrimSweep.values` reads them; NaN where the trim failed).

    Returns
    -------
    matplotlib.figure.Figure
    """
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
    """A ``ModalTable`` rendered as a figure table (for reports), plus the poles.

    Parameters
    ----------
    table : ModalTable
        From :func:`titop_lpv.modes`.

    Returns
    -------
    matplotlib.figure.Figure
    """
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


# ------------------------------------------------------------------ robustness analyses
def _axes(ax: Any, figsize: tuple[float, float]) -> tuple[Figure, Any]:
    """``(figure, axes)``: new ones, or those of ``ax``."""
    if ax is None:
        return _subplots(figsize=figsize)
    return ax.figure, ax


def plot_mu(omega: np.ndarray, upper: np.ndarray, lower: np.ndarray,
            peak_upper: tuple[float, float], peak_lower: tuple[float, float], *,
            ax: Any = None) -> Figure:
    """Bounds on the structured singular value μ against ω (log axis), peaks marked.

    Parameters
    ----------
    omega : ndarray
        Frequencies [rad/s] (ω = 0 is left out of the log axis).
    upper : ndarray
        Upper bound at each frequency.
    lower : ndarray
        Lower bound at each frequency.
    peak_upper : (float, float)
        ``(ω, value)`` of the largest upper bound.
    peak_lower : (float, float)
        ``(ω, value)`` of the largest lower bound.
    ax : matplotlib.axes.Axes, optional
        Draw into these axes (default: a new figure).

    Returns
    -------
    matplotlib.figure.Figure
    """
    fig, ax = _axes(ax, (6.5, 4))
    omega, upper, lower = np.asarray(omega), np.asarray(upper), np.asarray(lower)
    pos = omega > 0
    ax.semilogx(omega[pos], upper[pos], label="upper bound")
    ax.semilogx(omega[pos], lower[pos], "--", label="lower bound")
    for (w, v), m in ((peak_upper, "v"), (peak_lower, "^")):
        if w > 0:
            ax.plot(w, v, m, color="k")
    ax.set_xlabel("ω [rad/s]")
    ax.set_ylabel("μ")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    return fig


def plot_robust_stability(omega: np.ndarray, upper: np.ndarray, lower: np.ndarray,
                          peak_upper: tuple[float, float], peak_lower: tuple[float, float],
                          nominal_poles: np.ndarray, critical_pole: complex,
                          margin: tuple[float, float]) -> Figure:
    """Robust stability: μ bounds against ω (see :func:`plot_mu`) and the poles, nominal and
    with the destabilising Δ.

    Parameters
    ----------
    omega, upper, lower : ndarray
        μ bounds against frequency [rad/s].
    peak_upper, peak_lower : (float, float)
        ``(ω, value)`` of the peaks of the bounds.
    nominal_poles : ndarray
        Closed-loop poles at the nominal parameters.
    critical_pole : complex
        The closed-loop pole that the destabilising Δ puts on the imaginary axis.
    margin : (float, float)
        Lower and upper bounds on the stability margin (in the title).

    Returns
    -------
    matplotlib.figure.Figure
    """
    fig, (a1, a2) = _subplots(1, 2, figsize=(11, 4))
    plot_mu(omega, upper, lower, peak_upper, peak_lower, ax=a1)
    a1.set_title(f"margin ∈ [{margin[0]:.4g}, {margin[1]:.4g}]")
    p = np.asarray(nominal_poles)
    a2.plot(p.real, p.imag, "x", label="nominal")
    a2.plot(critical_pole.real, critical_pole.imag, "o", mfc="none", ms=10,
            label="with Δ critical")
    a2.axvline(0.0, color="k", lw=0.6)
    a2.set_xlabel("Re [rad/s]")
    a2.set_ylabel("Im [rad/s]")
    a2.grid(True, alpha=0.3)
    a2.legend()
    return fig


def plot_worst_case_gain(omega: np.ndarray, nominal_curve: np.ndarray,
                         worst_curve: np.ndarray, peak: tuple[float, float],
                         upper: float | None = None, *, ax: Any = None) -> Figure:
    """Worst-case gain: σ̄ against ω with the worst Δ and at the nominal parameters.

    Parameters
    ----------
    omega : ndarray
        Frequencies [rad/s] (ω = 0 is left out of the log axis).
    nominal_curve : ndarray
        σ̄ at the nominal parameters.
    worst_curve : ndarray
        σ̄ with the worst Δ.
    peak : (float, float)
        ``(ω, gain)`` of the worst-case peak (marked).
    upper : float, optional
        μ upper bound on the worst case, drawn as a horizontal line when finite.
    ax : matplotlib.axes.Axes, optional
        Draw into these axes (default: a new figure).

    Returns
    -------
    matplotlib.figure.Figure
    """
    fig, ax = _axes(ax, (6.5, 4))
    omega = np.asarray(omega)
    pos = omega > 0
    ax.loglog(omega[pos], np.asarray(nominal_curve)[pos], label="nominal parameters")
    ax.loglog(omega[pos], np.asarray(worst_curve)[pos], label="worst Δ")
    if upper is not None and np.isfinite(upper):
        ax.axhline(upper, color="k", ls=":", label="μ upper bound (on the grid)")
    ax.plot(peak[0], peak[1], "o", color="C1")
    ax.set_xlabel("ω [rad/s]")
    ax.set_ylabel("σ̄ (gain)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    return fig


def plot_monte_carlo(poles: np.ndarray, nominal_poles: np.ndarray,
                     omega: np.ndarray | None = None, magnitude: np.ndarray | None = None,
                     nominal_magnitude: np.ndarray | None = None, title: str = "") -> Figure:
    """Monte-Carlo samples: the pole cloud and, with magnitudes, the Bode magnitude envelope
    of one channel.

    Parameters
    ----------
    poles : ndarray
        Poles of the sampled systems (any shape).
    nominal_poles : ndarray
        Poles at the nominal parameters.
    omega : ndarray, optional
        Frequencies [rad/s] of the magnitudes.
    magnitude : ndarray (n_samples, n_omega), optional
        ``|G(jω)|`` of the channel for each sample (none: the pole cloud only).
    nominal_magnitude : ndarray (n_omega,), optional
        ``|G(jω)|`` at the nominal parameters.
    title : str, optional
        Title of the envelope (the channel).

    Returns
    -------
    matplotlib.figure.Figure
    """
    ncol = 2 if magnitude is not None else 1
    fig, axes = _subplots(1, ncol, figsize=(5.5 * ncol, 4), squeeze=False)
    a = axes[0, 0]
    p = np.asarray(poles).ravel()
    nominal_poles = np.asarray(nominal_poles)
    a.plot(p.real, p.imag, ".", ms=2, alpha=0.4, label="samples")
    a.plot(nominal_poles.real, nominal_poles.imag, "x", color="k", label="nominal")
    a.axvline(0.0, color="k", lw=0.6)
    a.set_xlabel("Re [rad/s]")
    a.set_ylabel("Im [rad/s]")
    a.grid(True, alpha=0.3)
    a.legend()
    if magnitude is not None and omega is not None and nominal_magnitude is not None:
        omega = np.asarray(omega)
        a, pos = axes[0, 1], omega > 0
        mag = 20 * np.log10(np.maximum(np.asarray(magnitude)[:, pos], 1e-300))
        a.fill_between(omega[pos], mag.min(0), mag.max(0), alpha=0.3, label="envelope")
        a.semilogx(omega[pos],
                   20 * np.log10(np.maximum(np.asarray(nominal_magnitude)[pos], 1e-300)),
                   color="k", label="nominal")
        a.set_xlabel("ω [rad/s]")
        a.set_ylabel("magnitude [dB]")
        a.set_title(title)
        a.grid(True, which="both", alpha=0.3)
        a.legend()
    return fig
