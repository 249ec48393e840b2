"""Figures of the robustness analyses, from plain arrays: μ bounds, robust stability,
worst-case gain, Monte-Carlo samples. Nothing here imports :mod:`titop_lpv.robust`."""

from __future__ import annotations

from typing import Any

import numpy as np
from matplotlib.figure import Figure

from .base import axes_of, label, subplots
from .poles import pole_axes

__all__ = ["plot_monte_carlo", "plot_mu", "plot_robust_stability", "plot_worst_case_gain"]


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
        μ is dimensionless (``[-]`` on its axis).
    """
    fig, ax = axes_of(ax, (6.5, 4))
    omega, upper, lower = np.asarray(omega), np.asarray(upper), np.asarray(lower)
    pos = omega > 0
    ax.semilogx(omega[pos], upper[pos], label="upper bound")
    ax.semilogx(omega[pos], lower[pos], "--", label="lower bound")
    for (w, v), m, name in ((peak_upper, "v", "peak of the upper bound"),
                            (peak_lower, "^", "peak of the lower bound")):
        if w > 0:
            ax.plot(w, v, m, color="k", label=name)
    ax.set_xlabel("ω [rad/s]")
    ax.set_ylabel(label("μ", "-"))
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
        Closed-loop poles at the nominal parameters [rad/s].
    critical_pole : complex
        The closed-loop pole [rad/s] that the destabilising Δ puts on the imaginary axis.
    margin : (float, float)
        Lower and upper bounds on the stability margin (in the title; dimensionless, in
        units of the normalised uncertainty).

    Returns
    -------
    matplotlib.figure.Figure
    """
    fig, (a1, a2) = subplots(1, 2, figsize=(11, 4))
    plot_mu(omega, upper, lower, peak_upper, peak_lower, ax=a1)
    a1.set_title(f"stability margin ∈ [{margin[0]:.4g}, {margin[1]:.4g}]")
    p = np.asarray(nominal_poles)
    a2.plot(p.real, p.imag, "x", label="nominal")
    a2.plot(critical_pole.real, critical_pole.imag, "o", mfc="none", ms=10,
            label="with the critical Δ")
    pole_axes(a2)
    a2.legend()
    return fig


def plot_worst_case_gain(omega: np.ndarray, nominal_curve: np.ndarray,
                         worst_curve: np.ndarray, peak: tuple[float, float],
                         upper: float | None = None, *, ax: Any = None,
                         unit: str = "") -> Figure:
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
    unit : str, optional
        Unit of the gain (output unit per input unit, e.g. ``"rad/(N m)"``; default: the
        gain is labelled in the units of the system's signals).

    Returns
    -------
    matplotlib.figure.Figure
    """
    fig, ax = axes_of(ax, (6.5, 4))
    omega = np.asarray(omega)
    pos = omega > 0
    ax.loglog(omega[pos], np.asarray(nominal_curve)[pos], label="nominal parameters")
    ax.loglog(omega[pos], np.asarray(worst_curve)[pos], label="worst Δ")
    if upper is not None and np.isfinite(upper):
        ax.axhline(upper, color="k", ls=":", label="μ upper bound (on the grid)")
    ax.plot(peak[0], peak[1], "o", color="C1", label="worst-case peak")
    ax.set_xlabel("ω [rad/s]")
    ax.set_ylabel(label("gain σ̄", unit or "output unit / input unit"))
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    return fig


def plot_monte_carlo(poles: np.ndarray, nominal_poles: np.ndarray,
                     omega: np.ndarray | None = None, magnitude: np.ndarray | None = None,
                     nominal_magnitude: np.ndarray | None = None, title: str = "", *,
                     unit: str = "") -> Figure:
    """Monte-Carlo samples: the pole cloud and, with magnitudes, the Bode magnitude envelope
    of one channel.

    Parameters
    ----------
    poles : ndarray
        Poles of the sampled systems [rad/s] (any shape).
    nominal_poles : ndarray
        Poles at the nominal parameters [rad/s].
    omega : ndarray, optional
        Frequencies [rad/s] of the magnitudes.
    magnitude : ndarray (n_samples, n_omega), optional
        ``|G(jω)|`` of the channel for each sample (none: the pole cloud only).
    nominal_magnitude : ndarray (n_omega,), optional
        ``|G(jω)|`` at the nominal parameters.
    title : str, optional
        Title of the envelope (the channel).
    unit : str, optional
        Unit of the channel's gain (output unit per input unit): the magnitude is in dB
        relative to 1 of it.

    Returns
    -------
    matplotlib.figure.Figure
    """
    ncol = 2 if magnitude is not None else 1
    fig, axes = subplots(1, ncol, figsize=(5.5 * ncol, 4), squeeze=False)
    a = axes[0, 0]
    p = np.asarray(poles).ravel()
    nominal_poles = np.asarray(nominal_poles)
    a.plot(p.real, p.imag, ".", ms=2, alpha=0.4, label="samples")
    a.plot(nominal_poles.real, nominal_poles.imag, "x", color="k", label="nominal")
    pole_axes(a)
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
        a.set_ylabel(f"magnitude [dB re 1 {unit}]" if unit and unit != "-"
                     else "magnitude [dB]")
        a.set_title(title)
        a.grid(True, which="both", alpha=0.3)
        a.legend()
    return fig
