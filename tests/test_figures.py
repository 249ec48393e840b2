"""Figures a reader understands: every axis and colour bar says its unit (from the signals'
kinds and the parameters' declared units), overlays have a key, every chosen channel is
drawn (an unknown one is a typed error), no label is clipped (constrained layout, checked on
the drawn figure), pole-map ticks are plain and few; modal and pole tables print as tables."""

from __future__ import annotations

import itertools
import warnings
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import control
import matplotlib.pyplot as plt
import numpy as np
import pytest
from matplotlib.layout_engine import ConstrainedLayoutEngine

import titop_lpv as tl
from titop_lpv import plots
from titop_lpv.analysis.poles import pole_table
from titop_lpv.plots.base import gain_label, label, ratio_unit

ROOT = Path(__file__).resolve().parents[1]
FREE = ["balloon.phi", "balloon.theta", "slider.q", "pendulum1.q", "pendulum2.q"]
GUESS = {"pendulum1.q": 0.2, "pendulum2.q": -0.2}


@pytest.fixture(scope="module")
def balloon():
    with warnings.catch_warnings():  # the slider of the shipped balloon is actuated
        warnings.simplefilter("ignore", tl.TitopWarning)
        model = tl.load_model(ROOT / "examples" / "balloon.toml")
    op = tl.trim(model, free=FREE, guess=GUESS)
    grid = tl.linearize_sweep(model, {"k": np.linspace(30.0, 90.0, 5)}, free=FREE, guess=GUESS,
                              inputs=["slider_tau"], outputs=["slider_q", "pendulum2_q"],
                              drop_integrators=True, progress=False)
    return model, op, grid


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def _plotting_axes(fig):
    return [ax for ax in fig.axes if ax.get_visible() and ax.get_label() != "<colorbar>"]


def _colorbars(fig):
    return [ax for ax in fig.axes if ax.get_label() == "<colorbar>"]


def _nothing_clipped(fig) -> None:
    """Constrained layout, and after drawing everything each axes draws (its labels, title,
    tick labels, legend: its tight bounding box) lies inside the figure."""
    assert isinstance(fig.get_layout_engine(), ConstrainedLayoutEngine)
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    box = fig.bbox
    for ax in fig.axes:
        if not ax.get_visible():
            continue
        ext = ax.get_tightbbox(renderer)
        assert (ext.x0 >= box.x0 - 1 and ext.x1 <= box.x1 + 1 and ext.y0 >= box.y0 - 1
                and ext.y1 <= box.y1 + 1), (f"axes {ax.get_ylabel()!r} / {ax.get_title()!r} "
                                            f"reach out of the figure: {ext} vs {box}")


def test_unit_helpers():
    assert label("slider_q", "m") == "slider_q [m]" and label("k", "") == "k"
    assert ratio_unit("rad", "N m") == "rad/(N m)" and ratio_unit("m", "N") == "m/N"
    assert ratio_unit("m", "") == "" and ratio_unit("rad", "rad") == "-"
    assert gain_label("rad", "N") == "magnitude [dB re 1 rad/N]"
    assert gain_label("m", None) == "magnitude [dB]"


def test_pole_map_units_key_and_ticks(balloon):
    _, _, grid = balloon
    pm = grid.poles()
    assert pm.unit == "N/m"
    fig = pm.plot()
    (ax,), (bar,) = _plotting_axes(fig), _colorbars(fig)
    assert bar.get_ylabel() == "k [N/m]"
    assert ax.get_xlabel() == "Re s [rad/s]" and ax.get_ylabel() == "Im s [rad/s]"
    _nothing_clipped(fig)
    for axis in (ax.xaxis, ax.yaxis):
        shown = [t for t in axis.get_ticklabels() if t.get_text()]
        assert 3 <= len(shown) <= 9  # few enough not to overlap
        assert axis.get_offset_text().get_text() == ""  # plain numbers, no hidden multiplier
    # the ticks do not overlap each other
    renderer = fig.canvas.get_renderer()
    boxes = [t.get_window_extent(renderer) for t in ax.get_xticklabels() if t.get_text()]
    assert all(a.x1 < b.x0 for a, b in itertools.pairwise(boxes))


def test_bode_overlay_draws_every_channel_with_units_and_a_key(balloon):
    _, _, grid = balloon
    overlay = grid.bode(np.logspace(-1, 1, 40))
    assert overlay.unit == "N/m" and overlay.input_units == ("N",)
    assert overlay.output_units == ("m", "rad")
    fig = overlay.plot()
    axes = _plotting_axes(fig)
    assert len(axes) == 4 and all(len(ax.lines) == 5 for ax in axes)  # 2 outputs × (mag, phase)
    assert [ax.get_ylabel() for ax in axes] == [
        "magnitude [dB re 1 m/N]", "phase [deg]", "magnitude [dB re 1 rad/N]", "phase [deg]"]
    assert axes[0].get_title() == "slider_tau [N] → slider_q [m]"
    assert axes[2].get_title() == "slider_tau [N] → pendulum2_q [rad]"
    assert axes[-1].get_xlabel() == "ω [rad/s]"
    (bar,) = _colorbars(fig)
    assert bar.get_ylabel() == "k [N/m]"
    lo, hi = bar.get_ylim()
    assert (lo, hi) == (30.0, 90.0)
    # the curve of each grid point has the colour the key gives its k
    cmap = matplotlib.colormaps["viridis"]
    for line, k in zip(axes[0].lines, grid.axes["k"]):
        np.testing.assert_allclose(line.get_color(), cmap((k - 30.0) / 60.0))
    _nothing_clipped(fig)
    one = overlay.plot("pendulum2_q", "slider_tau")
    assert len(_plotting_axes(one)) == 2 and len(_colorbars(one)) == 1
    with pytest.raises(tl.UnknownNameError, match="nope"):
        overlay.plot("nope")
    with pytest.raises(tl.UnknownNameError, match="ghost"):
        overlay.plot(input="ghost")


def test_bode_overlay_of_one_point_has_a_legend(balloon):
    model = balloon[0]
    grid = tl.linearize_sweep(model, {"k": [50.0]}, free=FREE, guess=GUESS,
                              inputs=["slider_tau"], outputs=["pendulum2_q"], progress=False)
    fig = grid.bode(np.logspace(-1, 1, 20)).plot()
    mag = _plotting_axes(fig)[0]
    assert not _colorbars(fig)
    assert [t.get_text() for t in mag.get_legend().get_texts()] == ["k = 50 N/m"]


def test_sweep_comparison_signals_and_bode_units(balloon):
    model, op, _ = balloon
    sweep = tl.trim_sweep(model, {"k": [30.0, 60.0, 90.0], "ds": [2.0, 5.0]}, free=FREE,
                          guess=GUESS, progress=False)
    assert sweep.units["k"] == "N/m" and sweep.units["pendulum1_q"] == "rad"
    fig = sweep.plot(["slider_q", "pendulum1_q"])
    axes = _plotting_axes(fig)
    assert [ax.get_ylabel() for ax in axes] == ["slider_q [m]", "pendulum1_q [rad]"]
    assert axes[-1].get_xlabel() == "k [N/m]"
    assert [t.get_text() for t in axes[0].get_legend().get_texts()] == [
        "ds = 2 N s/m", "ds = 5 N s/m"]
    _nothing_clipped(fig)

    sys = tl.linearize(model, op, ["slider_tau"], ["slider_q", "pendulum2_q"],
                       drop_integrators=True)
    cmp = tl.compare_response(model, op, sys, u={"slider_tau": 0.05}, t_final=0.5,
                              n_points=26)
    fig = cmp.plot()
    assert [ax.get_ylabel() for ax in fig.axes] == ["slider_q [m]", "pendulum2_q [rad]"]
    assert fig.axes[-1].get_xlabel() == "t [s]"
    assert [t.get_text() for t in fig.axes[0].get_legend().get_texts()] == ["nonlinear",
                                                                            "linear"]
    with pytest.raises(tl.UnknownNameError, match="balloon_x"):
        cmp.plot(["balloon_x"])
    _nothing_clipped(fig)

    resp = control.frequency_response(sys, np.logspace(-1, 1, 30))
    fig = plots.plot_bode(resp, units=model.units())
    assert [ax.get_ylabel() for ax in fig.axes] == [
        "magnitude [dB re 1 m/N]", "phase [deg]", "magnitude [dB re 1 rad/N]", "phase [deg]"]
    assert fig.axes[0].get_title() == "slider_tau [N] → slider_q [m]"
    assert not fig.texts  # python-control's row labels, which overlapped, are gone
    _nothing_clipped(fig)

    traj = tl.simulate(model, (0.0, 0.2), n_points=11)
    fig = traj.plot(["balloon_x", "slider_q", "pendulum1_q", "pendulum2_q"])
    axes = _plotting_axes(fig)
    assert [ax.get_ylabel() for ax in axes] == ["[m]", "[m]", "[rad]", "[rad]"]
    # the lowest axes of every column carry the time axis (the 2nd row has one plot)
    assert [ax.get_xlabel() for ax in axes] == ["", "t [s]", "t [s]", "t [s]"]
    _nothing_clipped(fig)


def test_robust_figures_label_every_axis():
    fig = plots.plot_mu(np.logspace(-1, 1, 5), np.ones(5), 0.5 * np.ones(5), (1.0, 1.0),
                        (1.0, 0.5))
    assert fig.axes[0].get_ylabel() == "μ [-]" and fig.axes[0].get_xlabel() == "ω [rad/s]"
    fig = plots.plot_worst_case_gain(np.logspace(-1, 1, 5), np.ones(5), 2 * np.ones(5),
                                     (1.0, 2.0), 3.0, unit="rad/(N m)")
    assert fig.axes[0].get_ylabel() == "gain σ̄ [rad/(N m)]"
    assert len(fig.axes[0].get_legend().get_texts()) == 4
    fig = plots.plot_monte_carlo(np.array([-1 + 1j, -1 - 1j]), np.array([-1.0]),
                                 np.logspace(-1, 1, 5), np.ones((3, 5)), np.ones(5), "u → y",
                                 unit="m/N")
    assert [ax.get_ylabel() for ax in fig.axes] == ["Im s [rad/s]", "magnitude [dB re 1 m/N]"]
    for fig in map(plt.figure, plt.get_fignums()):
        _nothing_clipped(fig)


def test_modal_and_pole_tables_print_as_tables(balloon):
    model, op, _ = balloon
    sys = tl.linearize(model, op, drop_integrators=True)
    table = tl.modes(sys)
    text = str(table)
    assert repr(table) == text  # what an interactive prompt shows
    lines = text.splitlines()
    assert lines[0].startswith("modes of balloon_lin: 4 rigid-body, 5 other")
    assert "ω_n [rad/s]" in lines[1] and "ζ [-]" in lines[1] and len(lines) == 2 + len(table)
    fig = table.plot()
    ax_p = _plotting_axes(fig)[1]
    assert ax_p.get_xlabel() == "Re s [rad/s]"
    assert [t.get_text() for t in ax_p.get_legend().get_texts()] == ["rigid-body", "other"]
    _nothing_clipped(fig)

    poles = pole_table(sys)
    assert repr(poles) == str(poles) and len(poles) == sys.nstates
    eig = np.linalg.eigvals(sys.A)
    np.testing.assert_allclose(np.sort_complex(poles.poles), np.sort_complex(eig), atol=1e-12)
    rows = poles.rows()
    for row, lam in zip(rows, poles.poles):  # every row: the pole's own ω_n and ζ
        assert float(row[4]) == pytest.approx(abs(lam), rel=1e-5)
        if abs(lam) > 1e-6:
            assert float(row[5]) == pytest.approx(-lam.real / abs(lam), rel=1e-3)
    assert sum(r[-1] == "at the origin" for r in rows) == 4
    assert "| pole [rad/s] |" in poles.to_markdown()
    assert poles._repr_html_().startswith("<table>")
    with pytest.raises(tl.ShapeError):
        pole_table(np.ones((2, 3)))


def test_pole_table_of_a_grid_against_the_closed_form():
    """Mass-spring-damper m = 2 kg, c = 0.4 N s/m: ω_n = sqrt(k/m), ζ = c / (2 sqrt(k m))
    at every grid point, with the point's k [N/m] in the second column."""
    s = tl.System("msd", gravity=[0.0, 0.0, 0.0])
    s.parameter("k", 40.0, unit="N/m")
    s.body("cart", tl.Prismatic(axis=[1, 0, 0], stiffness="k", damping=0.4, actuated=True),
           mass=2.0)
    grid = tl.linearize_sweep(s.compile(), {"k": [10.0, 40.0, 90.0]}, free=["cart_q"],
                              progress=False)
    table = pole_table(grid.poles())
    assert table.header[1] == "k [N/m]" and len(table) == 6
    for row in table.rows():
        k = float(row[1])
        assert float(row[5]) == pytest.approx(np.sqrt(k / 2.0), rel=1e-5)
        assert float(row[6]) == pytest.approx(0.4 / (2 * np.sqrt(2.0 * k)), rel=1e-3)
    assert [r[1] for r in table.rows()] == ["10", "10", "40", "40", "90", "90"]
    assert str(table).splitlines()[0] == "poles: 6, 0 in the right half-plane"
