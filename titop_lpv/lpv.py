"""LPV grids: trimmed and linearised models over a parameter grid, with pole maps, Bode
overlays and interpolation between grid points.

:func:`linearize_sweep` runs :func:`titop_lpv.trim_sweep` (continuation, progress, optional
executor) and linearises every point that is an equilibrium, with one state set for the
whole grid (so the matrices of neighbouring points can be compared and interpolated).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import control
import numpy as np

from .exceptions import TitopError, UnknownNameError
from .linearize import linearize
from .model.compiled import Model
from .sweep import TrimSweep, trim_sweep

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["BodeOverlay", "LPVError", "LPVGrid", "PoleMap", "linearize_sweep"]


class LPVError(TitopError, ValueError):
    """An LPV query outside the grid, on a failed point, or across trim branches."""


@dataclass(frozen=True)
class PoleMap:
    """Poles over the grid: ``poles[k]`` are the poles at ``values[k]`` of parameter ``name``."""

    name: str
    values: np.ndarray
    poles: np.ndarray  # (n_points, n_states) complex, NaN where the trim failed

    def plot(self, *, ax: Any = None) -> Figure:
        """Poles in the complex plane, coloured by the parameter; returns the Figure."""
        from .plots import plot_poles

        return plot_poles(self, ax=ax)

@dataclass(frozen=True)
class BodeOverlay:
    """Frequency responses over the grid (one curve per grid point).

    ``magnitude[k, i, j, :]`` and ``phase`` [rad] from input ``inputs[j]`` to output
    ``outputs[i]`` at grid point ``values[k]``.
    """

    name: str
    values: np.ndarray
    omega: np.ndarray
    magnitude: np.ndarray
    phase: np.ndarray
    inputs: tuple[str, ...]
    outputs: tuple[str, ...]

    def plot(self, output: str | None = None, input: str | None = None) -> Figure:
        """Magnitude (dB) and phase (deg) against ω for one channel; returns the Figure."""
        from .plots import plot_bode_overlay

        return plot_bode_overlay(self, output, input)

@dataclass(frozen=True)
class LPVGrid:
    """Linear models over a parameter grid.

    Attributes
    ----------
    sweep : TrimSweep
        The operating points.
    systems : ndarray of control.StateSpace (None where the trim failed)
    state_names, input_names, output_names : tuple of str
        Common to every system.
    branch_tol : float
        Largest change of a free trim variable between neighbouring grid points that
        :meth:`at` accepts as one branch of equilibria.
    """

    sweep: TrimSweep
    systems: np.ndarray
    state_names: tuple[str, ...]
    input_names: tuple[str, ...]
    output_names: tuple[str, ...]
    branch_tol: float = 0.5

    @property
    def axes(self) -> dict[str, np.ndarray]:
        """The grid: ``parameter -> values``."""
        return self.sweep.axes

    @property
    def shape(self) -> tuple[int, ...]:
        """Grid shape."""
        return self.systems.shape

    def __getitem__(self, index: Any) -> Any:
        """The linear model(s) at grid index ``index``."""
        return self.systems[index]

    def __len__(self) -> int:
        return self.systems.size

    def _flat_param(self) -> tuple[str, np.ndarray]:
        name, vals = next(iter(self.axes.items()))
        grids = np.meshgrid(*self.axes.values(), indexing="ij")
        return name, grids[0].ravel() if len(self.axes) > 1 else vals

    def poles(self) -> PoleMap:
        """Poles of every grid point (NaN for failed points)."""
        n = len(self.state_names)
        out = np.full((self.systems.size, n), np.nan + 0j)
        for k, sys in enumerate(self.systems.flat):
            if sys is not None:
                out[k] = np.sort_complex(np.linalg.eigvals(sys.A))
        name, vals = self._flat_param()
        return PoleMap(name, vals, out)

    def bode(self, omega: Any = None, inputs: Sequence[str] | None = None,
             outputs: Sequence[str] | None = None) -> BodeOverlay:
        """Frequency responses of every grid point (default ω: 200 points, 1e-2 to 1e2 rad/s)."""
        omega = np.logspace(-2, 2, 200) if omega is None else np.asarray(omega, float)
        ins = list(inputs) if inputs is not None else list(self.input_names)
        outs = list(outputs) if outputs is not None else list(self.output_names)
        for nm, pool, what in [(n, self.input_names, "input") for n in ins] + \
                              [(n, self.output_names, "output") for n in outs]:
            if nm not in pool:
                raise UnknownNameError(f"unknown {what} {nm!r}; {what}s are {list(pool)}")
        shape = (self.systems.size, len(outs), len(ins), omega.size)
        mag = np.full(shape, np.nan)
        phase = np.full(shape, np.nan)
        for k, sys in enumerate(self.systems.flat):
            if sys is None:
                continue
            sub = sys[[self.output_names.index(o) for o in outs],
                      [self.input_names.index(i) for i in ins]]
            resp = sub.frequency_response(omega)
            mag[k] = np.asarray(resp.magnitude).reshape(len(outs), len(ins), -1)
            phase[k] = np.unwrap(np.asarray(resp.phase).reshape(len(outs), len(ins), -1))
        name, vals = self._flat_param()
        return BodeOverlay(name, vals, omega, mag, phase, tuple(ins), tuple(outs))

    def at(self, **values: float) -> control.StateSpace:
        """The linear model at parameter values inside the grid, by multilinear interpolation.

        A, B, C, D are interpolated element-wise between the corners of the grid cell that
        holds the point. Valid only when the state ordering is common (it is, by
        construction), every corner is an equilibrium, and the corners lie on one branch of
        equilibria: no free trim variable changes by more than :attr:`branch_tol` across the
        cell. Otherwise :class:`LPVError` says which condition failed.
        """
        missing = [k for k in self.axes if k not in values]
        extra = [k for k in values if k not in self.axes]
        if missing or extra:
            raise LPVError(f"at() needs exactly the grid parameters {list(self.axes)}; "
                           f"missing {missing}, unknown {extra}")
        lo_idx, weights = [], []
        for name, grid in self.axes.items():
            v = float(values[name])
            lo, hi = float(np.min(grid)), float(np.max(grid))
            if not lo <= v <= hi:
                raise LPVError(f"{name} = {v:g} is outside the grid [{lo:g}, {hi:g}]")
            if grid.size == 1:
                lo_idx.append(0)
                weights.append(0.0)
                continue
            # monotone axes, increasing or decreasing (a sweep may run either way)
            inc = grid if grid[-1] > grid[0] else grid[::-1]
            j = min(int(np.searchsorted(inc, v, side="right")) - 1, grid.size - 2)
            w = (v - inc[j]) / (inc[j + 1] - inc[j])
            if grid[-1] < grid[0]:  # map back to the stored (decreasing) order
                j, w = grid.size - 2 - j, 1.0 - w
            lo_idx.append(j)
            weights.append(w)
        corners = []
        for offs in np.ndindex(*(2 if g.size > 1 else 1 for g in self.axes.values())):
            idx = tuple(i + o for i, o in zip(lo_idx, offs))
            w = float(np.prod([wk if o else 1 - wk for wk, o in zip(weights, offs)]))
            corners.append((idx, w))
        for idx, _ in corners:
            if self.systems[idx] is None:
                at = ", ".join(f"{k}={g[i]:g}" for (k, g), i in zip(self.axes.items(), idx))
                raise LPVError(f"the grid point {at} is not an equilibrium: no model to "
                               "interpolate")
        ops = [self.sweep[idx] for idx, _ in corners]
        for name in ops[0].free:
            span = np.ptp([op[name] for op in ops])
            if span > self.branch_tol:
                raise LPVError(f"the trim variable {name!r} jumps by {span:.3g} across the grid "
                               f"cell (> branch_tol = {self.branch_tol:g}): the corners are on "
                               "different branches of equilibria")
        mats = [sum(w * getattr(self.systems[idx], m) for idx, w in corners)
                for m in ("A", "B", "C", "D")]
        # python-control rejects '.' in system names: 40.5 -> 40p5, -1 -> m1
        label = "_".join(f"{k}{float(v):g}".replace(".", "p").replace("-", "m")
                         for k, v in values.items())
        return control.ss(*mats, states=list(self.state_names), inputs=list(self.input_names),
                          outputs=list(self.output_names),
                          name=f"{self.systems[corners[0][0]].name}_at_{label}")

    def report(self) -> str:
        """Summary of the grid."""
        ok = np.vectorize(lambda s: s is not None, otypes=[bool])(self.systems)
        return (f"LPV grid over {', '.join(f'{k} ({v.size})' for k, v in self.axes.items())}: "
                f"{int(ok.sum())}/{ok.size} linear models, {len(self.state_names)} states, "
                f"inputs {list(self.input_names)}, outputs {list(self.output_names)}")


def linearize_sweep(
    model: Model,
    grid: Mapping[str, Any],
    free: Iterable[str] = (),
    fixed: Mapping[str, float] | None = None,
    *,
    inputs: Sequence[str] | None = None,
    outputs: Sequence[str] | None = None,
    states: Sequence[str] | None = None,
    drop: Sequence[str] = (),
    drop_integrators: bool = False,
    branch_tol: float = 0.5,
    **sweep_kwargs: Any,
) -> LPVGrid:
    """Trim and linearise over a parameter grid (an LPV model on a grid).

    Parameters
    ----------
    grid, free, fixed
        As in :func:`titop_lpv.trim_sweep` (``executor``, ``progress``, ``kind``, ``spin``,
        ``guess``, ``tol`` ... go through ``**sweep_kwargs``).
    inputs, outputs, states, drop, drop_integrators
        As in :func:`titop_lpv.linearize`; the state set chosen at the first successful point
        is used for every point.
    branch_tol : float
        See :meth:`LPVGrid.at`.

    Returns
    -------
    LPVGrid
    """
    sweep = trim_sweep(model, grid, free, fixed, **sweep_kwargs)
    systems = np.empty(sweep.shape, dtype=object)
    names: tuple[tuple[str, ...], ...] | None = None
    for idx in np.ndindex(*sweep.shape):
        op = sweep[idx]
        if not op.success:
            systems[idx] = None
            continue
        if names is None:
            sys = linearize(model, op, inputs, outputs, states=states, drop=drop,
                            drop_integrators=drop_integrators)
            names = (tuple(sys.state_labels), tuple(sys.input_labels), tuple(sys.output_labels))
        else:
            sys = linearize(model, op, list(names[1]), list(names[2]), states=list(names[0]))
        systems[idx] = sys
    if names is None:
        raise LPVError("no grid point is an equilibrium:\n" + sweep.report())
    return LPVGrid(sweep, systems, *names, branch_tol=branch_tol)
