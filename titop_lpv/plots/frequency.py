"""Frequency responses: a Bode plot of responses computed beforehand (python-control draws
it) and the Bode overlay of an LPV grid, one curve per grid point coloured by the grid
parameter, with its colour bar as the key."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from matplotlib.figure import Figure

from .base import choose, color_key, gain_label, label, subplots, units_of

__all__ = ["plot_bode", "plot_bode_overlay"]


def _channel_title(inp: str, out: str, in_unit: str, out_unit: str) -> str:
    return f"{label(inp, in_unit)} → {label(out, out_unit)}"


def plot_bode_overlay(overlay: Any, output: str | None = None, input: str | None = None,
                      ) -> Figure:
    """Magnitude [dB] and phase [deg] of a ``BodeOverlay``: a curve per grid point.

    The curves are coloured by the grid parameter; the colour bar beside the axes is the
    key (``name [unit]``); with a single grid point a legend gives its value instead.

    Parameters
    ----------
    overlay : BodeOverlay
        From :meth:`titop_lpv.LPVGrid.bode`; grid points whose response is not finite
        (failed trims) are left out. Its ``unit`` (of the grid parameter) and
        ``input_units``/``output_units``, when it has them, label the key and the axes.
    output : str, optional
        Output channel, one of ``overlay.outputs`` (default: every output, a magnitude and
        a phase row each).
    input : str, optional
        Input channel, one of ``overlay.inputs`` (default: every input, a column each).

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    UnknownNameError
        ``output`` or ``input`` is not a channel of the overlay.
    """
    outs = choose(output, overlay.outputs, "output", "BodeOverlay.plot")
    ins = choose(input, overlay.inputs, "input", "BodeOverlay.plot")
    out_units = list(getattr(overlay, "output_units", ()) or units_of(overlay.outputs, None))
    in_units = list(getattr(overlay, "input_units", ()) or units_of(overlay.inputs, None))
    unit = getattr(overlay, "unit", "")
    fig, axes = subplots(2 * len(outs), len(ins), figsize=(6.5 * len(ins) + 1.0,
                                                           2.6 * 2 * len(outs)),
                         sharex=True, squeeze=False)
    values = np.asarray(overlay.values, dtype=float)
    distinct = np.unique(values[np.isfinite(values)])
    if distinct.size > 1:
        color = color_key(fig, axes.ravel().tolist(), values, overlay.name, unit,
                          aspect=20.0 * len(outs))
    else:
        color = None
    for r, i in enumerate(outs):
        for c, j in enumerate(ins):
            am, ap = axes[2 * r, c], axes[2 * r + 1, c]
            for k, v in enumerate(values):
                mag = overlay.magnitude[k, i, j]
                if not np.all(np.isfinite(mag)):
                    continue
                style = {"color": color(v)} if color else {
                    "label": f"{overlay.name} = {v:g}{' ' + unit if unit else ''}"}
                am.semilogx(overlay.omega, 20 * np.log10(np.maximum(mag, 1e-300)), lw=1,
                            **style)
                ap.semilogx(overlay.omega, np.degrees(overlay.phase[k, i, j]), lw=1, **style)
            am.set_ylabel(gain_label(out_units[i], in_units[j]))
            ap.set_ylabel("phase [deg]")
            am.set_title(_channel_title(overlay.inputs[j], overlay.outputs[i], in_units[j],
                                        out_units[i]), fontsize=10)
            if color is None and am.lines:
                am.legend(fontsize=8, loc="best")
            for a in (am, ap):
                a.grid(True, which="both", alpha=0.3)
    for ax in axes[-1]:
        ax.set_xlabel("ω [rad/s]")
    return fig


def plot_bode(response: Any, output: str | None = None, input: str | None = None, *,
              label: Sequence[str] | None = None, title: str | None = None,
              units: Mapping[str, str] | None = None) -> Figure:
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
    units : mapping of str to str, optional
        ``signal -> unit`` of the inputs and outputs: the magnitude axes are labelled in dB
        relative to 1 output unit per input unit, the channel titles carry the units.

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
    i = choose(output, outs, "output", "plot_bode")
    j = choose(input, ins, "input", "plot_bode")
    if output is not None or input is not None:
        responses = [r[i[0] if len(i) == 1 else slice(None),
                       j[0] if len(j) == 1 else slice(None)] for r in responses]
    fig, axes = subplots(2 * len(i), len(j), figsize=(6.5 * len(j), 2.5 * 2 * len(i)),
                         sharex=True, squeeze=False)
    kwargs = {"label": list(label)} if label is not None else {}
    control.bode_plot(responses, ax=axes, dB=True, deg=True, Hz=False, initial_phase=0.0,
                      title="", **kwargs)
    for text in list(fig.texts):  # python-control's "To <output>" row labels overlap the
        text.remove()             # axis labels; the channel titles below name the channels
    out_units, in_units = units_of(outs, units), units_of(ins, units)
    for r, oi in enumerate(i):
        for c, ij in enumerate(j):
            axes[2 * r, c].set_ylabel(gain_label(out_units[oi], in_units[ij]))
            axes[2 * r + 1, c].set_ylabel("phase [deg]")
            if len(i) > 1 or len(j) > 1:
                axes[2 * r, c].set_title(_channel_title(ins[ij], outs[oi], in_units[ij],
                                                        out_units[oi]), fontsize=10)
    for ax in axes.flat:
        ax.grid(True, which="both", alpha=0.3)
    for ax in axes[-1]:
        ax.set_xlabel("ω [rad/s]")
    if title is None and len(i) == 1 and len(j) == 1:
        title = f"{ins[j[0]]} → {outs[i[0]]}"
    if title:
        fig.suptitle(title)
    return fig
