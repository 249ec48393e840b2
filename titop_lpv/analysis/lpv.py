"""LPV grids: trimmed and linearised models over a parameter grid, with pole maps, Bode
overlays and interpolation between grid points.

:func:`linearize_sweep` runs the continuation of :func:`titop_lpv.trim_sweep` (progress,
optional executor) and linearises every point that is an equilibrium where it was trimmed
(:func:`~titop_lpv.analysis.sweep.trim_sweep_then`), with one state set for the whole grid
(so the matrices of neighbouring points can be compared and interpolated): a point trimmed
on its own right after its trim, the points of a block trimmed together
(:mod:`~titop_lpv.analysis.sweep_batch`) together, from the complex-step rows of the
dynamics the block computed at them (:mod:`~titop_lpv.analysis.sweep_linear`).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass
from typing import Any

import control
import numpy as np

from ..exceptions import TitopError, TitopWarning, UnknownNameError
from ..model.compiled import Model
from ..multibody.tree import numeric_array
from ..names import canonical, find, resolve
from ..progress import reporter
from ..robust.atoms import UReal, ureal
from .arguments import check_branch_tol, flag, name_list, real
from .linearize import LinearMatrices, linear_matrices, named_statespace
from .lpv_fit import GridFit, fit_grid
from .lpv_views import BodeOverlay, PoleMap
from .sweep import TrimSweep, trim_sweep_then
from .sweep_linear import matrices

__all__ = ["BodeOverlay", "LPVError", "LPVGrid", "PoleMap", "linearize_sweep"]


class LPVError(TitopError, ValueError):
    """An LPV query outside the grid, on a failed point, or across trim branches."""


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
    branch_tol : float or dict of str to float
        Largest change of a free trim variable across a grid cell that :meth:`at` accepts
        as one branch of equilibria. It is absolute, in the variable's own unit (rad for
        angles, m for lengths, N or N m for inputs): one number for every variable, or a
        dict ``variable -> tolerance`` (variables it does not name get 0.5).
    """

    sweep: TrimSweep
    systems: np.ndarray
    state_names: tuple[str, ...]
    input_names: tuple[str, ...]
    output_names: tuple[str, ...]
    branch_tol: float | Mapping[str, float] = 0.5

    def __post_init__(self) -> None:
        check_branch_tol(self.branch_tol)

    def _branch_tol(self, name: str) -> float:
        if isinstance(self.branch_tol, Mapping):
            tols = {canonical(k): float(v) for k, v in self.branch_tol.items()}
            return tols.get(name, 0.5)
        return float(self.branch_tol)

    @property
    def axes(self) -> dict[str, np.ndarray]:
        """The grid: ``parameter -> values``."""
        return self.sweep.axes

    @property
    def shape(self) -> tuple[int, ...]:
        """Grid shape."""
        return self.systems.shape

    @property
    def units(self) -> dict[str, str]:
        """Unit of every signal and parameter by name (:attr:`TrimSweep.units`)."""
        return self.sweep.units

    def __getitem__(self, index: Any) -> Any:
        """The linear model(s) at grid index ``index``."""
        return self.systems[index]

    def __len__(self) -> int:
        return self.systems.size

    def _flat_param(self, by: str | None) -> tuple[str, np.ndarray]:
        """The values of parameter ``by`` (default: the first axis) at every grid point,
        in the order of ``systems.flat``."""
        name = next(iter(self.axes)) if by is None else find(by, self.axes)
        if name is None:
            raise UnknownNameError(f"by={by!r} is not a grid parameter; the grid is over "
                                   f"{list(self.axes)}")
        grids = np.meshgrid(*self.axes.values(), indexing="ij")
        return name, grids[list(self.axes).index(name)].ravel()

    def poles(self, by: str | None = None) -> PoleMap:
        """Poles of every grid point (NaN for failed points).

        Parameters
        ----------
        by : str, optional
            The grid parameter whose values go with the poles (and colour the plot); default
            the first one. On a grid over several parameters each point carries its value of
            ``by``: ``grid.poles(by="ds").plot()`` colours by ``ds``.
        """
        name, vals = self._flat_param(by)
        n = len(self.state_names)
        out = np.full((self.systems.size, n), np.nan + 0j)
        for k, sys in enumerate(self.systems.flat):
            if sys is not None:
                out[k] = np.sort_complex(np.linalg.eigvals(sys.A))
        return PoleMap(name, vals, out, self.units.get(name, ""))

    def bode(self, omega: Any = None, inputs: Sequence[str] | None = None,
             outputs: Sequence[str] | None = None, *, by: str | None = None) -> BodeOverlay:
        """Frequency responses of every grid point (default ω: 200 points, 1e-2 to 1e2 rad/s).

        Parameters
        ----------
        omega : array_like, optional
            Frequencies [rad/s].
        inputs, outputs : sequence of str, optional
            Channels (default: all); ``slider.tau`` and ``slider_tau`` both name an input.
        by : str, optional
            The grid parameter that labels (colours) the curves; default the first one.

        Raises
        ------
        LPVError
            The grid's systems have no input or no output (nothing to plot), or ``omega`` is
            not a non-empty 1-D array of finite frequencies > 0.
        UnknownNameError
            An unknown channel or parameter.
        """
        omega = np.logspace(-2, 2, 200) if omega is None else numeric_array(omega)
        if (omega is None or np.iscomplexobj(omega) or omega.ndim != 1 or omega.size == 0
                or not np.all(np.isfinite(omega)) or np.any(omega <= 0)):
            raise LPVError("omega must be a non-empty 1-D array of finite frequencies > 0 "
                           "[rad/s]")
        omega = omega.astype(float)
        ins = [resolve(n, self.input_names, "input") for n in
               (inputs if inputs is not None else self.input_names)]
        outs = [resolve(n, self.output_names, "output") for n in
                (outputs if outputs is not None else self.output_names)]
        if not ins or not outs:
            raise LPVError(
                f"bode needs at least one input and one output; the grid's systems have inputs "
                f"{list(self.input_names)} and outputs {list(self.output_names)} (selected "
                f"{ins} and {outs}): linearize_sweep(..., inputs=[...], outputs=[...])")
        name, vals = self._flat_param(by)
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
        u = self.units
        return BodeOverlay(name, vals, omega, mag, phase, tuple(ins), tuple(outs), u.get(name, ""),
                           tuple(u.get(n, "") for n in ins), tuple(u.get(n, "") for n in outs))

    def at(self, **values: float) -> control.StateSpace:
        """The linear model at parameter values inside the grid, by multilinear interpolation.

        A, B, C, D are interpolated element-wise between the corners of the grid cell that
        holds the point. Valid only when the state ordering is common (it is, by
        construction), every corner is an equilibrium, and the corners lie on one branch of
        equilibria: no free trim variable changes by more than :attr:`branch_tol` across the
        cell. Otherwise :class:`LPVError` says which condition failed.

        Parameters
        ----------
        **values : float
            The value of every grid parameter, by name (``grid.at(k=40.5)``), in the
            parameter's unit; each must lie inside the grid's range.

        Returns
        -------
        control.StateSpace
            The interpolated model, with the grid's signal names and the
            ``dropped_states``/``dropped_outputs`` of the corner models.

        Raises
        ------
        LPVError
            A missing or unknown parameter, a value outside the grid, a corner that is not an
            equilibrium, or corners on different branches of equilibria.
        ArgumentError, ArgumentTypeError
            A value that is not a finite real number (named).
        """
        missing = [k for k in self.axes if k not in values]
        extra = [k for k in values if k not in self.axes]
        if missing or extra:
            raise LPVError(f"at() needs exactly the grid parameters {list(self.axes)}; "
                           f"missing {missing}, unknown {extra}")
        lo_idx, weights = [], []
        for name, grid in self.axes.items():
            v = real(values[name], name)
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
            if span > self._branch_tol(name):
                raise LPVError(f"the trim variable {name!r} jumps by {span:.3g} across the grid "
                               f"cell (> branch_tol = {self._branch_tol(name):g}): the corners "
                               "are on different branches of equilibria")
        mats = [sum(w * getattr(self.systems[idx], m) for idx, w in corners)
                for m in ("A", "B", "C", "D")]
        # python-control rejects '.' in system names: 40.5 -> 40p5, -1 -> m1
        label = "_".join(f"{k}{float(v):g}".replace(".", "p").replace("-", "m")
                         for k, v in values.items())
        first = self.systems[corners[0][0]]
        sys = named_statespace(*mats, states=self.state_names, inputs=self.input_names,
                               outputs=self.output_names, name=f"{first.name}_at_{label}")
        sys.dropped_states = dict(getattr(first, "dropped_states", {}))
        sys.dropped_outputs = tuple(getattr(first, "dropped_outputs", ()))
        return sys

    def to_uss(self, degree: int = 1, *, params: Mapping[str, UReal] | None = None,
               tol: float = 1e-12) -> GridFit:
        """Polynomial fit of the grid as an uncertain system (an exact LFT of the fit).

        Every entry of ``[[A, B], [C, D]]`` is fitted by least squares over the grid points
        with a polynomial of total degree ``degree`` in the grid parameters, each normalised
        to [−1, 1] over the grid's range; the fitted polynomial is realised exactly (to
        rounding) as an LFT by :func:`titop_lpv.polynomial_lft` (SVD factors of each
        coefficient, then :func:`titop_lpv.reduce_lft`). It is the route for plants the exact
        block route cannot build; the fit error is measured at the grid points only, so the
        result is not a guaranteed model of the plant between them (see
        ``docs/linearize.md``).

        Parameters
        ----------
        degree : int, optional
            Total degree of the polynomial (default 1, affine); each parameter needs at
            least ``degree + 1`` distinct values on the grid.
        params : dict of str to UReal, optional
            ``{grid parameter: tl.ureal(...)}`` for the parameters whose uncertain real
            should not be the default one: ``ureal(name, midpoint, range=(min, max))`` over
            the grid's values. Its range sets δ (a range beyond the grid extrapolates the
            fit: :class:`~titop_lpv.TitopWarning`); its name names the Δ block.

        Other Parameters
        ----------------
        tol : float, optional
            Singular values of a fitted coefficient below ``tol`` times the largest
            ``‖[[A, B], [C, D]]‖₂`` over the grid are dropped (numerical noise would
            otherwise add δ repetitions); their effect is included in the reported error.

        Returns
        -------
        GridFit
            ``.uss`` (the USS, with the grid's state, input and output names),
            ``.max_error`` and ``.max_relative_error`` per matrix (A, B, C, D) at the grid
            points, ``.repetitions`` (block name -> size), ``.report()``.

        Raises
        ------
        LPVError
            A failed grid point (named), systems whose states or dropped states differ
            (the point named), a degree that is not an integer ≥ 1 or needs more distinct
            values of a parameter (named) than the grid has, ``params`` naming a parameter
            that is not a grid parameter, or a value that is not a ``ureal``.

        Examples
        --------
        >>> import titop_lpv as tl
        >>> s = tl.System("msd", gravity=[0.0, 0.0, 0.0])
        >>> _ = s.parameter("k", 40.0)
        >>> _ = s.body("cart", tl.Prismatic(axis=[1, 0, 0], stiffness="k", actuated=True),
        ...            mass=2.0)
        >>> grid = tl.linearize_sweep(s.compile(), {"k": [10.0, 20.0, 30.0]}, free=["cart_q"],
        ...                           progress=False)
        >>> fit = grid.to_uss(1)
        >>> fit.repetitions, fit.max_error["A"] < 1e-12
        ({'k': 1}, True)
        >>> round(float(fit.uss.at(k=25.0).A[1, 0]), 9)  # −k/m between the grid points
        -12.5
        """
        if (isinstance(degree, bool) or not isinstance(degree, (int, np.integer))
                or degree < 1):
            raise LPVError(f"degree must be an integer >= 1, got {degree!r}")
        if not (isinstance(tol, (int, float)) and math.isfinite(tol) and tol >= 0):
            raise LPVError(f"tol must be a finite number >= 0, got {tol!r}")
        points = list(np.ndindex(*self.shape))
        where = [", ".join(f"{k}={g[i]:g}" for (k, g), i in zip(self.axes.items(), idx))
                 for idx in points]
        failed = [w for idx, w in zip(points, where) if self.systems[idx] is None]
        if failed:
            raise LPVError(f"{len(failed)} grid point(s) have no linear model (trim failed): "
                           f"{'; '.join(failed[:5])}{' ...' if len(failed) > 5 else ''}; "
                           "fit a grid of equilibria only")
        dropped = getattr(self.systems[points[0]], "dropped_states", {})
        for idx, w in zip(points, where):
            sys = self.systems[idx]
            names = (tuple(sys.state_labels), tuple(sys.input_labels), tuple(sys.output_labels))
            if names != (self.state_names, self.input_names, self.output_names):
                diff = sorted(set(names[0]) ^ set(self.state_names)) or "their order"
                raise LPVError(f"the system at {w} has states {list(names[0])} (inputs "
                               f"{list(names[1])}, outputs {list(names[2])}), not the grid's "
                               f"(differing: {diff}): no common model to fit")
            if dict(getattr(sys, "dropped_states", {})) != dict(dropped):
                raise LPVError(f"the system at {w} dropped the states "
                               f"{dict(getattr(sys, 'dropped_states', {}))}, the first point "
                               f"{dict(dropped)}: no common model to fit")
        atoms: dict[str, UReal] = {}
        for key, atom in (params or {}).items():
            name = find(key, self.axes)
            if name is None:
                raise LPVError(f"params names {key!r}, which is not a grid parameter; the "
                               f"grid is over {list(self.axes)}")
            if not isinstance(atom, UReal):
                raise LPVError(f"params[{key!r}] must be a tl.ureal, got {atom!r}")
            atoms[name] = atom
        ranges = {}
        for name, grid in self.axes.items():
            distinct = np.unique(np.asarray(grid, dtype=float))
            if distinct.size < degree + 1:
                raise LPVError(f"degree {degree} needs at least {degree + 1} distinct values "
                               f"of {name!r}; the grid has {distinct.size}: the fit would be "
                               "underdetermined")
            lo, hi = float(distinct[0]), float(distinct[-1])
            ranges[name] = (lo, hi)
            atom = atoms.setdefault(name, ureal(name, 0.5 * (lo + hi), range=(lo, hi)))
            if atom.lo < lo or atom.hi > hi:
                warnings.warn(f"ureal {atom.name!r} spans [{atom.lo:g}, {atom.hi:g}], beyond the "
                              f"grid's {name} in [{lo:g}, {hi:g}]: the fit is extrapolated "
                              "there", TitopWarning, stacklevel=2)
        atoms = {name: atoms[name] for name in self.axes}
        taken = [a.name for a in atoms.values()]
        if len(set(taken)) != len(taken):
            raise LPVError(f"two grid parameters share a ureal name: {taken}")
        values = np.stack([g.ravel() for g in np.meshgrid(*self.axes.values(), indexing="ij")],
                          axis=1).astype(float)
        first = self.systems[points[0]]
        return fit_grid(values, [self.systems[idx] for idx in points], atoms, ranges,
                        int(degree), states=self.state_names, inputs=self.input_names,
                        outputs=self.output_names, name=first.name, tol=float(tol))

    def report(self) -> str:
        """Summary of the grid."""
        ok = np.vectorize(lambda s: s is not None, otypes=[bool])(self.systems)
        return (f"LPV grid over {', '.join(f'{k} ({v.size})' for k, v in self.axes.items())}: "
                f"{int(ok.sum())}/{ok.size} linear models, {len(self.state_names)} states, "
                f"inputs {list(self.input_names)}, outputs {list(self.output_names)}")


class _Linearizer:
    """Linearises each equilibrium of a sweep where it was trimmed (picklable: it travels to
    the executor's workers). The first equilibrium it sees is linearised with the user's
    options and fixes the state, input and output names; every later one is linearised
    onto those names. Returns :class:`LinearMatrices` (a StateSpace holds lambdas and does
    not pickle)."""

    def __init__(self, options: dict[str, Any]) -> None:
        self.options = options
        self.names: tuple[tuple[str, ...], ...] | None = None

    def __call__(self, model: Model, op: Any) -> LinearMatrices:
        if self.names is None:
            lin = linear_matrices(model, op, **self.options)
            self.names = (lin.state_names, lin.input_names, lin.output_names)
            return lin
        return linear_matrices(model, op, list(self.names[1]), list(self.names[2]),
                               states=list(self.names[0]))

    def batch(self, model: Model, ops: list[Any], dynamics: list[Any] | None = None
              ) -> list[LinearMatrices]:
        """:meth:`__call__` for many equilibria in a row, linearised together where
        :func:`~titop_lpv.analysis.sweep_linear.matrices` serves them (the others one by
        one, in order, with the same errors); ``dynamics``: the trim's complex-step rows
        at each point, when it has them (``sweep_batch.trim_block(..., full=True)``)."""
        out: list[Any] = [None] * len(ops)
        start = 0
        if self.names is None and ops:
            out[0], start = self(model, ops[0]), 1
        names = self.names or ((), (), ())  # set by the first call
        rows = None if dynamics is None else dynamics[start:]
        for k, lin in enumerate(matrices(model, ops[start:], names, dynamics=rows), start):
            out[k] = lin if lin is not None else self(model, ops[k])
        return out


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
    branch_tol: float | Mapping[str, float] = 0.5,
    executor: Executor | None = None,
    progress: bool | Callable[[int, int], None] = True,
    **sweep_kwargs: Any,
) -> LPVGrid:
    """Trim and linearise over a parameter grid (an LPV model on a grid).

    Parameters
    ----------
    model : Model
        The compiled model.
    grid, free, fixed
        As in :func:`titop_lpv.trim_sweep` (``kind``, ``spin``, ``guess``, ``tol``,
        ``chunks`` ... go through ``**sweep_kwargs``). A spin rate that names a grid
        parameter (``spin={..., "rate": "Omega"}``, ``grid={"Omega": ...}``) makes an LPV
        model over the spin rate: each point is trimmed and linearised at its own rate.
    inputs, outputs, states, drop, drop_integrators
        As in :func:`titop_lpv.analysis.linearize`; the state set chosen at the first
        successful point is used for every point, and its ``dropped_states`` are reported
        on every system.
    branch_tol : float or dict of str to float
        See :class:`LPVGrid` and :meth:`LPVGrid.at` (absolute, in each variable's unit).
    executor : concurrent.futures.Executor, optional
        Runs the walk in chunks (see :func:`titop_lpv.trim_sweep`); each point is linearised
        in the worker that trimmed it (see the module doc), and only matrices come back.
    progress : bool or callable
        ``True``: a text progress bar on stderr for each stage (``trim_sweep``: the points
        trimmed and linearised, then ``linearize_sweep``: the state-space models built); a
        callable ``f(done, total)`` is called for both stages; ``False``: silent.
    **sweep_kwargs
        Passed on to :func:`titop_lpv.trim_sweep` (``chunks``, ``strict``) and through it to
        :func:`titop_lpv.trim` (``kind``, ``spin``, ``guess``, ``tol`` ...).

    Returns
    -------
    LPVGrid

    Raises
    ------
    LPVError
        No grid point is an equilibrium.
    ArgumentError, ArgumentTypeError
        ``branch_tol`` not a finite number > 0 (or a dict of them by variable name),
        ``inputs``, ``outputs``, ``states`` or ``drop`` not a list of names, or
        ``drop_integrators`` not a bool (checked before any trim).
    """
    check_branch_tol(branch_tol)
    for what, names in (("inputs", inputs), ("outputs", outputs), ("states", states),
                        ("drop", drop)):
        name_list(names, what)
    flag(drop_integrators, "drop_integrators")
    options = {"inputs": inputs, "outputs": outputs, "states": states, "drop": drop,
               "drop_integrators": drop_integrators}
    then = _Linearizer(options)
    # each point is linearised where it was trimmed: one trimmed alone right after its trim
    # (its parameters' resolved physics still cached), a block's points together
    sweep, mats = trim_sweep_then(model, grid, free, fixed, executor=executor,
                                  progress=progress, then=then, **sweep_kwargs)
    systems = np.empty(sweep.shape, dtype=object)
    good = [idx for idx in np.ndindex(*sweep.shape) if sweep[idx].success]
    if not good:
        raise LPVError("no grid point is an equilibrium:\n" + sweep.report())
    # the grid's state set: the first equilibrium in grid order, with the user's options
    first = linear_matrices(model, sweep[good[0]], **options)
    names = (first.state_names, first.input_names, first.output_names)
    then.names = names  # points linearised onto other names (rare) are redone below
    total = len(good)
    report = reporter(progress, total, "linearize_sweep")
    sys_name = f"{model.name}_lin"
    for k, idx in enumerate(good):
        m = mats[idx]
        if m is None or (m.state_names, m.input_names, m.output_names) != names:
            m = then(model, sweep[idx])  # a point the walk did not linearise onto the names
        sys = named_statespace(m.A, m.B, m.C, m.D, states=names[0], inputs=names[1],
                               outputs=names[2], name=sys_name)
        sys.dropped_states = dict(first.dropped_states)
        sys.dropped_outputs = tuple(first.dropped_outputs)
        systems[idx] = sys
        if report:
            report(k + 1, total)
    return LPVGrid(sweep, systems, *names, branch_tol=branch_tol)
