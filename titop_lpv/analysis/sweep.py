"""Parameter continuation of operating points: :func:`trim_sweep` and :class:`TrimSweep`.

The grid is walked in a snake order (neighbouring points follow each other); each point's
trim starts from its predecessor's solution, so the sweep follows one branch of
equilibria. A point where no equilibrium is found is kept with ``success=False`` and the
next point starts again from the last solution that succeeded.

With an executor (any ``concurrent.futures.Executor``: local processes, threads, or a Dask
cluster's ``client.get_executor()``), the walk is cut into contiguous chunks; the first
point of each chunk is trimmed serially by continuation along the chunk heads, then the
chunks run in parallel, each by continuation from its head.

After the walk's first equilibrium, consecutive points are trimmed in blocks of
:data:`BLOCK` (:func:`~titop_lpv.analysis.sweep_batch.trim_block`): one Gauss–Newton
iteration for all of them from the block's seed, each evaluation one vectorised call over
the block; a point the block does not settle (or a specification it does not serve) is
trimmed on its own by continuation, as above. The equilibria are the same within the
trim's tolerance.

:func:`trim_sweep_then` also applies a function to each equilibrium in the process that
trimmed it, right after its trim or after its block (``linearize_sweep`` linearises there:
a point's resolved parameters are still cached, a block's points are linearised together,
and only matrices travel back from an executor's workers).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import Executor, as_completed
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from ..exceptions import ParameterError, UnknownNameError
from ..model.compiled import Model
from ..multibody.tree import numeric_array
from ..names import find
from ..plots import plot_sweep
from ..progress import n_chunks, reporter
from .arguments import ArgumentError, ArgumentTypeError, flag, integer, progress_option
from .operating_point import OperatingPoint
from .sweep_batch import trim_block
from .trim import TrimError, TrimSpecError, trim
from .units import units as model_units

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["BLOCK", "TrimSweep", "check_executor", "trim_sweep", "trim_sweep_then"]

BLOCK = 128  # points trimmed together (after the walk's first equilibrium)


@dataclass(frozen=True)
class TrimSweep:
    """Operating points over a parameter grid.

    Attributes
    ----------
    axes : dict
        ``name -> 1-D array`` of the grid (in the order given).
    points : ndarray of OperatingPoint, shape ``tuple(len(a) for a in axes.values())``
    units : dict of str to str, optional
        Unit of every state, input, output and parameter by name (from
        :func:`titop_lpv.analysis.units.units`; empty when unknown): labels of the figures,
        units of the exported files.
    """

    axes: dict[str, np.ndarray]
    points: np.ndarray
    units: dict[str, str] = field(default_factory=dict)

    @property
    def shape(self) -> tuple[int, ...]:
        """Grid shape."""
        return self.points.shape

    @property
    def success(self) -> np.ndarray:
        """Boolean array: which grid points are equilibria."""
        return np.vectorize(lambda op: op.success, otypes=[bool])(self.points)

    def __len__(self) -> int:
        return self.points.size

    def __iter__(self) -> Iterable[OperatingPoint]:
        return iter(self.points.flat)

    def __getitem__(self, index: Any) -> Any:
        """Grid point(s) by index, like a numpy array (``sweep[3]``, ``sweep[2, 0]``)."""
        return self.points[index]

    def values(self, name: str) -> np.ndarray:
        """A state, input or parameter over the grid (NaN where the trim failed).

        Parameters
        ----------
        name : str
            A state, input or parameter name (``"slider_q"`` or ``"slider.q"``), as
            :class:`OperatingPoint` reads it.

        Returns
        -------
        ndarray
            The value at every grid point, of shape :attr:`shape`.
        """
        return np.vectorize(lambda op: op[name] if op.success else np.nan,
                            otypes=[float])(self.points)

    def residual_norms(self) -> np.ndarray:
        """``max |residual|`` over the grid."""
        return np.vectorize(lambda op: op.residual_norm, otypes=[float])(self.points)

    def report(self) -> str:
        """Summary: grid, successes, failures with their residuals."""
        ok = self.success
        lines = [f"trim sweep over {', '.join(f'{k} ({v.size})' for k, v in self.axes.items())}: "
                 f"{int(ok.sum())}/{ok.size} equilibria found"]
        for idx in zip(*np.nonzero(~ok)):
            op = self.points[idx]
            at = ", ".join(f"{k}={v[i]:g}" for (k, v), i in zip(self.axes.items(), idx))
            lines.append(f"  no equilibrium at {at}: max |residual| = {op.residual_norm:.2e}"
                         f" ({op.message})")
        return "\n".join(lines)

    def plot(self, names: Sequence[str]) -> Figure:
        """Each name against the first grid parameter (one line per value of the others).

        Parameters
        ----------
        names : sequence of str
            States, inputs or parameters to plot, one subplot each (as :meth:`values` reads
            them).

        Returns
        -------
        matplotlib.figure.Figure
        """
        return plot_sweep(self, names, self.units)

def check_executor(executor: Any, progress: Any, chunks: Any) -> None:
    """Check the execution arguments of a sweep.

    Parameters
    ----------
    executor : object
        None, or an object with a callable ``submit`` (a ``concurrent.futures.Executor``,
        Dask's ``client.get_executor()``).
    progress : object
        A bool or a callable.
    chunks : object
        None or an integer >= 0 (0: choose).

    Raises
    ------
    ArgumentTypeError, ArgumentError
        The argument at fault, named.
    """
    if executor is not None and not callable(getattr(executor, "submit", None)):
        raise ArgumentTypeError(f"executor must be a concurrent.futures.Executor (an object "
                                f"with submit), got {executor!r:.60}")
    progress_option(progress)
    if chunks is not None:
        integer(chunks, "chunks", low=0)


def _snake(shape: tuple[int, ...]) -> list[tuple[int, ...]]:
    """Grid indices in boustrophedon order: consecutive entries are grid neighbours."""
    if len(shape) == 1:
        return [(i,) for i in range(shape[0])]
    inner = _snake(shape[1:])
    out = []
    for i in range(shape[0]):
        seq = inner if i % 2 == 0 else inner[::-1]
        out += [(i, *rest) for rest in seq]
    return out


def _run_chain(model: Model, spec: dict[str, Any], values: list[dict[str, float]],
               seed: dict[str, float] | None, then: Callable[[Model, OperatingPoint], Any]
               | None = None, batch: bool = False) -> list[Any]:
    """Continuation along consecutive grid points (module level: picklable for executors).
    Returns the operating points, or ``(op, then(model, op))`` pairs (``None`` for a point
    without equilibrium) when ``then`` is given: it runs where the trim ran. With ``batch``,
    the points after the walk's first equilibrium are trimmed together, :data:`BLOCK` at a
    time from the last solution (:func:`~titop_lpv.analysis.sweep_batch.trim_block`; the
    points it leaves, one by one). ``then`` runs right after a trim of one point, and after
    the chain's trims for the points a block trimmed: a ``then`` with a ``batch`` method
    gets those together (``then.batch(model, ops, rows)``, ``rows``: the block's
    complex-step rows at each point)."""
    ops: list[Any] = [None] * len(values)
    extra: list[Any] = [None] * len(values)
    spec = dict(spec)
    base_params = dict(spec.pop("params", None) or {})
    many = getattr(then, "batch", None)
    dynamics: list[Any] = [None] * len(values)  # complex-step rows of trim_block, if any
    together: list[int] = []  # the points a block trimmed
    block_end = 0 if batch else len(values)  # points up to here: trimmed or tried together
    last = None  # the last equilibrium: the seed of the next trim
    for k, fixed_params in enumerate(values):
        if last is not None and (ops[k] is None or k >= block_end):  # the seed, when needed
            seed, last = _seed(last), None
        if k >= block_end and seed is not None and spec.get("pin_neutral", True) is not True:
            block_end = k + BLOCK
            block = trim_block(model, spec, base_params, values[k:block_end], seed,
                               full=many is not None)
            if block is not None:
                ops[k:block_end], dynamics[k:block_end] = block
                together += [j for j in range(k, min(block_end, len(ops))) if ops[j] is not None]
        op = ops[k]
        if op is None:
            op = ops[k] = trim(model, **spec, params={**base_params, **fixed_params},
                               guess=dict(seed) if seed else None, strict=False)
            if then is not None and op.success:  # its parameters are still cached
                extra[k] = then(model, op)
        if op.success:
            last = op
            _hold_pins(spec, op)
    if then is None:
        return ops
    good = [k for k in together if ops[k].success]
    if many is not None and len(good) > 1:
        for k, value in zip(good, many(model, [ops[k] for k in good],
                                       [dynamics[k] for k in good])):
            extra[k] = value
    else:
        for k in good:
            extra[k] = then(model, ops[k])
    return list(zip(ops, extra))


def _seed(op: OperatingPoint) -> dict[str, float]:
    """The values of an equilibrium's free variables: the guess of the next point's trim."""
    values = {**(op.attitude_errors or {}), **op.params,  # precedence of op[name]
              **dict(zip(op.input_names, op.u.tolist())),
              **dict(zip(op.state_names, op.x.tolist()))}
    return {name: values[name] if name in values else op[name] for name in op.free}


def _hold_pins(spec: dict[str, Any], op: OperatingPoint) -> None:
    """After the first equilibrium, pin the same variables at every later point.

    With ``pin_neutral=True`` each trim picks the dependent variables itself; where two of
    them are interchangeable (coaxial hinges) the choice could flip along the grid and the
    branch would jump. The first equilibrium's choice is kept instead.
    """
    if spec.get("pin_neutral", True) is True and op.success:
        spec["pin_neutral"] = list(op.pinned)


def trim_sweep(
    model: Model,
    grid: Mapping[str, Any],
    free: Iterable[str] = (),
    fixed: Mapping[str, float] | None = None,
    *,
    executor: Executor | None = None,
    progress: bool | Callable[[int, int], None] = True,
    chunks: int | None = None,
    strict: bool = False,
    **trim_kwargs: Any,
) -> TrimSweep:
    """Trim at every point of a parameter grid, by continuation.

    Parameters
    ----------
    model : Model
    grid : dict
        ``parameter name -> 1-D array of values``; several parameters make a tensor grid.
    free, fixed
        As in :func:`titop_lpv.analysis.trim`; neither may name a grid parameter (its value at each
        point is the grid's).
    executor : concurrent.futures.Executor, optional
        Run chunks of the walk in parallel (processes, threads, Dask ``client.get_executor()``).
    progress : bool or callable
        ``True``: a text progress bar on stderr; a callable ``f(done, total)`` is called
        after each point (serial) or chunk (executor); ``False``: silent.
    chunks : int, optional
        Number of chunks with an executor (default: 4 per worker when the executor says how
        many it has, else 8).
    strict : bool
        ``False`` (default): every grid point is trimmed without raising and failed points
        are kept with ``success=False``. ``True``: the whole grid is still trimmed, then a
        :class:`~titop_lpv.TrimError` is raised for the first failed point in grid order
        (its message names the grid values; the full result is in the exception's
        ``sweep`` attribute).
    **trim_kwargs
        ``kind``, ``spin``, ``params``, ``x0``, ``guess`` (first point only), ``tol``,
        ``max_nfev``, ``pin_neutral`` — see :func:`titop_lpv.analysis.trim`. A spin rate
        given as a parameter name (``spin={..., "rate": "Omega"}``) takes that parameter's
        value at each point: with ``"Omega"`` in ``grid``, every point is a steady spin at
        its own rate (its :attr:`OperatingPoint.spin` holds the rate and ``rate_param``).

    Returns
    -------
    TrimSweep
        Failed points are kept with ``success=False``.

    Raises
    ------
    UnknownNameError
        A grid name is not a parameter.
    ParameterError
        Grid values that are not a non-empty, strictly monotone 1-D array of finite
        numbers, or lie outside the parameter's declared ``[min, max]`` (checked before any
        trim).
    ArgumentError, ArgumentTypeError
        A grid that is not a non-empty dict, an ``executor`` without ``submit``, a
        ``progress`` that is neither a bool nor a callable, ``chunks`` not an integer >= 0,
        ``strict`` not a bool.
    TrimSpecError
        A grid parameter is also in ``free`` or ``fixed``, or an invalid trim argument.
    TrimError
        ``strict=True`` and some grid point has no equilibrium.
    """
    return trim_sweep_then(model, grid, free, fixed, executor=executor, progress=progress,
                           chunks=chunks, strict=strict, **trim_kwargs)[0]


def trim_sweep_then(
    model: Model,
    grid: Mapping[str, Any],
    free: Iterable[str] = (),
    fixed: Mapping[str, float] | None = None,
    *,
    executor: Executor | None = None,
    progress: bool | Callable[[int, int], None] = True,
    chunks: int | None = None,
    strict: bool = False,
    then: Callable[[Model, OperatingPoint], Any] | None = None,
    **trim_kwargs: Any,
) -> tuple[TrimSweep, np.ndarray]:
    """:func:`trim_sweep`, and a function of each equilibrium computed where it was found.

    Parameters
    ----------
    model, grid, free, fixed, executor, progress, chunks, strict, **trim_kwargs
        As in :func:`trim_sweep`.
    then : callable, optional
        ``then(model, op)`` for each operating point ``op`` that is an equilibrium, called
        in the process that trimmed it: right after its trim, or, for points trimmed
        together in a block, after the block, in the walk's order (``then.batch(model, ops,
        rows)``, if ``then`` has it, gets the block's equilibria at once; ``rows``: the
        complex-step rows of the dynamics at each, see
        :func:`~titop_lpv.analysis.sweep_batch.trim_block`). In the executor's worker with an
        executor: then it must be picklable, e.g. an instance of a module-level class; the
        instance sent to the workers is the one the first chunk heads, trimmed in this
        process, have called.

    Returns
    -------
    sweep : TrimSweep
    results : ndarray of object, shape ``sweep.shape``
        ``then``'s value at each equilibrium, ``None`` elsewhere (all ``None`` without
        ``then``).

    Raises
    ------
    UnknownNameError, ParameterError, ArgumentError, ArgumentTypeError, TrimSpecError, TrimError
        As :func:`trim_sweep`.
    """
    if not isinstance(grid, Mapping):
        raise ArgumentTypeError(f"grid must be a dict parameter name -> values, got "
                                f"{grid!r:.60}")
    if not grid:
        raise ArgumentError("trim_sweep needs a non-empty grid")
    if isinstance(free, (str, bytes)) or not isinstance(free, Iterable) or (
            isinstance(free, np.ndarray) and free.ndim == 0):  # Iterable, not iterable
        raise TrimSpecError(f"free must be a list of names, got {free!r:.60}")
    if fixed is not None and not isinstance(fixed, Mapping):
        raise TrimSpecError(f"fixed must be a dict name -> value, got {fixed!r:.60}")
    if trim_kwargs.get("params") is not None and not isinstance(trim_kwargs["params"], Mapping):
        raise TrimSpecError(f"params of a sweep must be a dict name -> value, got "
                            f"{trim_kwargs['params']!r:.60}")
    check_executor(executor, progress, chunks)
    strict = flag(strict, "strict")
    axes = {}
    for name, vals in grid.items():
        if name not in model.param_names:
            raise UnknownNameError(f"grid: {name!r} is not a parameter of {model.name!r}; "
                                   f"parameters are {list(model.param_names)}")
        arr = numeric_array(vals)
        if (arr is None or np.iscomplexobj(arr) or arr.ndim > 1 or arr.size == 0
                or not np.all(np.isfinite(arr))):
            raise ParameterError(f"grid: values of {name!r} must be a non-empty 1-D array of "
                                 f"finite real numbers, got {vals!r:.60}", name=model.name)
        arr = np.atleast_1d(arr).astype(float)
        steps = np.diff(arr)
        if arr.size > 1 and not (np.all(steps > 0) or np.all(steps < 0)):
            raise ParameterError(f"grid: values of {name!r} must be strictly increasing or "
                                 "strictly decreasing (continuation walks them in order)",
                                 name=model.name)
        axes[name] = arr
    free = list(free)
    for what, names in (("free", free), ("fixed", list(fixed or {}))):
        for name in names:
            if find(str(name), axes) is not None:
                raise TrimSpecError(f"{name!r} is both a grid parameter and {what}: the grid "
                                    "sets its value at every point")
    base_params = dict(trim_kwargs.get("params") or {})
    for name, arr in axes.items():  # grid values outside a declared range: before any work
        model.check_params({**base_params, name: arr})
    shape = tuple(a.size for a in axes.values())
    order = _snake(shape)
    columns = [(k, a.tolist()) for k, a in axes.items()]  # Python floats, as float(a[i])
    values = [{k: col[i] for (k, col), i in zip(columns, idx)} for idx in order]
    first_guess = trim_kwargs.pop("guess", None)
    spec = {"free": free, "fixed": dict(fixed or {}), **trim_kwargs}
    total = len(order)
    report = reporter(progress, total, "trim_sweep")

    results: list[Any] = [None] * total
    if executor is None:
        seed = dict(first_guess) if first_guess else None
        lo = 0
        while lo < total:  # blocks of points trimmed together, reported point by point
            hi = min(total, lo + (1 if seed is None else BLOCK))
            results[lo:hi] = _run_chain(model, spec, values[lo:hi], seed, then, batch=True)
            last = None
            for k in range(lo, hi):
                op = results[k] if then is None else results[k][0]
                if op.success:
                    last = op
                    _hold_pins(spec, op)
                if report:
                    report(k + 1, total)
            seed = _seed(last) if last is not None else seed
            lo = hi
    else:
        bounds = np.linspace(0, total, n_chunks(executor, total, chunks) + 1).astype(int)
        heads = [int(b) for b in bounds[:-1]]
        head_res = _run_chain(model, {**spec}, [values[h] for h in heads],
                              dict(first_guess) if first_guess else None, then)
        head_ops = head_res if then is None else [r[0] for r in head_res]
        first = next((op for op in head_ops if op.success), None)
        if first is not None:
            _hold_pins(spec, first)
        futures = {}
        for c, (lo, hi) in enumerate(itertools.pairwise(bounds)):
            results[lo] = head_res[c]
            seed_op = next((op for op in head_ops[c::-1] if op.success), None)
            seed = _seed(seed_op) if seed_op else None
            if hi - lo > 1:
                fut = executor.submit(_run_chain, model, spec, values[lo + 1:hi], seed, then,
                                      True)
                futures[fut] = (lo + 1, hi)
        done = len(heads)
        if report:
            report(done, total)
        for fut in as_completed(futures):
            lo, hi = futures[fut]
            results[lo:hi] = fut.result()
            done += hi - lo
            if report:
                report(done, total)
    extra = np.empty(shape, dtype=object)
    if then is not None:
        for idx, (_, value) in zip(order, results):
            extra[idx] = value
        results = [r[0] for r in results]
    points = np.empty(shape, dtype=object)
    for idx, op in zip(order, results):
        points[idx] = op
    sweep = TrimSweep(axes=axes, points=points, units=model_units(model))
    if strict and not sweep.success.all():
        idx = tuple(int(i) for i in np.argwhere(~sweep.success)[0])
        at = ", ".join(f"{k}={v[i]:g}" for (k, v), i in zip(axes.items(), idx))
        error = TrimError(points[idx], where=f"grid point {idx} ({at})")
        error.sweep = sweep
        raise error
    return sweep, extra

