"""Every plot function runs headless (Agg) and returns a Figure with the expected axes and
lines; nothing is computed inside the plotting calls (they take result objects)."""

from __future__ import annotations

import warnings
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import control
import numpy as np
import pytest
from matplotlib.figure import Figure

import titop_lpv as tl
from titop_lpv import plots

ROOT = Path(__file__).resolve().parents[1]
FREE = ["balloon.phi", "balloon.theta", "slider.q", "pendulum1.q", "pendulum2.q"]
GUESS = {"pendulum1.q": 0.2, "pendulum2.q": -0.2}


@pytest.fixture(scope="module")
def balloon():
    with warnings.catch_warnings():  # the slider of the shipped balloon is actuated
        warnings.simplefilter("ignore", tl.TitopWarning)
        model = tl.load_model(ROOT / "examples" / "balloon.toml")
    op = tl.trim(model, free=FREE, guess=GUESS)
    return model, op


def _visible_axes(fig: Figure):
    return [ax for ax in fig.axes if ax.get_visible() and ax.get_label() != "<colorbar>"]


def test_signals(balloon):
    model, _ = balloon
    traj = tl.simulate(model, (0.0, 0.5), n_points=21)
    fig = traj.plot(["balloon_x", "slider.q", "pendulum1_q", "pendulum2_q"])
    axes = _visible_axes(fig)
    assert len(axes) == 4 and all(len(ax.lines) == 1 for ax in axes)
    np.testing.assert_array_equal(axes[1].lines[0].get_ydata(), traj["slider_q"])
    with pytest.raises(tl.UnknownNameError):
        traj.plot(["nope"])


def test_comparison_poles_bode_sweep_modes(balloon):
    model, op = balloon
    sys = tl.linearize(model, op, ["slider_tau"], ["slider_q", "pendulum2_q"])
    cmp = tl.compare_response(model, op, sys, u={"slider_tau": 0.01}, t_final=1.0, n_points=51)
    fig = cmp.plot()
    assert len(fig.axes) == 2 and all(len(ax.lines) == 2 for ax in fig.axes)

    grid = tl.linearize_sweep(model, {"k": np.linspace(30, 90, 5)}, free=FREE, guess=GUESS,
                              inputs=["slider_tau"], outputs=["pendulum2_q"],
                              drop_integrators=True, progress=False)
    fig = grid.poles().plot()
    assert len(fig.axes) == 2  # the plane and its colorbar
    assert len(fig.axes[0].collections) == 1
    fig = grid.bode(np.logspace(-1, 1, 50)).plot()  # magnitude, phase and the colour bar key
    axes = _visible_axes(fig)
    assert len(fig.axes) == 3 and len(axes) == 2 and all(len(ax.lines) == 5 for ax in axes)
    fig = grid.sweep.plot(["slider_q", "balloon_phi"])
    assert len(fig.axes) == 2 and all(len(ax.lines) == 1 for ax in fig.axes)

    omega = np.logspace(-1, 1, 50)
    resp = control.frequency_response(sys, omega)  # computed before the plotting call
    fig = plots.plot_bode(resp, output="pendulum2_q")
    assert len(fig.axes) == 2 and all(len(ax.lines) == 1 for ax in fig.axes)
    assert fig.get_suptitle() == "slider_tau → pendulum2_q"
    mag, phase = (ax.lines[0] for ax in fig.axes)
    np.testing.assert_allclose(mag.get_xdata(), omega)
    np.testing.assert_allclose(mag.get_ydata(), 20 * np.log10(np.abs(resp.complex[1, 0])))
    assert -180 <= phase.get_ydata()[0] <= 180  # unwrapped from the principal value
    fig = plots.plot_bode(resp)  # every channel: magnitude and phase rows per output
    assert len(fig.axes) == 4 and all(len(ax.lines) == 1 for ax in fig.axes)
    fig = plots.plot_bode([resp, control.frequency_response(sys * 2.0, omega)],
                          output="slider_q", label=["k = 50", "twice"])
    assert all(len(ax.lines) == 2 for ax in fig.axes)
    with pytest.raises(tl.UnknownNameError, match="nope"):
        plots.plot_bode(resp, output="nope")
    table = tl.modes(sys)
    fig = table.plot()
    assert isinstance(fig, Figure) and len(fig.axes) == 2
