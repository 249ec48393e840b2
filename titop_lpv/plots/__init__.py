"""Plots: every function draws data that was computed before and returns the ``Figure``.

Nothing is computed inside a plotting call (python-control's "compute, then plot"); the
result objects of the toolbox (:class:`~titop_lpv.analysis.simulate.Trajectory`,
:class:`~titop_lpv.analysis.lpv_views.PoleMap`, :class:`~titop_lpv.analysis.lpv_views.BodeOverlay`,
:class:`~titop_lpv.analysis.response.ResponseComparison`,
:class:`~titop_lpv.analysis.sweep.TrimSweep`,
:class:`~titop_lpv.analysis.modes.ModalTable`) have a ``.plot()`` method that calls these. Only
``matplotlib.pyplot.subplots`` is used, so any backend works, including ``Agg`` without a
screen.

Every axis and colour bar says its unit: the callers pass the units as strings (the
signals' units follow from their kinds, the parameters' from their declarations:
:func:`titop_lpv.analysis.units.units`); a colour bar or a legend is the key of every
overlay; figures use matplotlib's constrained layout, so no label is clipped; a channel that
is not in the result is an :class:`~titop_lpv.exceptions.UnknownNameError`.

The robustness results (:class:`~titop_lpv.robust.mu.MuResult`,
:class:`~titop_lpv.robust.stability.RobustStabilityResult`,
:class:`~titop_lpv.robust.worst_case.WorstCaseGainResult`,
:class:`~titop_lpv.robust.monte_carlo.MonteCarloResult`) pass plain arrays to
:func:`plot_mu`, :func:`plot_robust_stability`, :func:`plot_worst_case_gain` and
:func:`plot_monte_carlo`: this package imports nothing from :mod:`titop_lpv.robust`.

Modules: :mod:`~titop_lpv.plots.base` (figures, labels with units, colour keys),
:mod:`~titop_lpv.plots.time` (signals, responses, sweeps),
:mod:`~titop_lpv.plots.frequency` (Bode plots), :mod:`~titop_lpv.plots.poles` (pole maps,
modal tables), :mod:`~titop_lpv.plots.robust` (robustness analyses).
"""

from .frequency import plot_bode, plot_bode_overlay
from .poles import plot_modal_table, plot_poles
from .robust import plot_monte_carlo, plot_mu, plot_robust_stability, plot_worst_case_gain
from .time import plot_comparison, plot_signals, plot_sweep

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
