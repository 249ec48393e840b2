"""Uncertain parameters, the Δ block structure and uncertain systems as upper LFTs.

An uncertain system is ``y = F_u(M, Δ) u``: with ``[z; y] = M [w; u]`` and ``w = Δ z``,
where ``M`` is a (real) state-space system and ``Δ = diag(Δ_1, …, Δ_N)`` follows the
:class:`DeltaStructure`, in block order. ``M``'s first inputs are ``w`` (``Σ rows·repeats``
channels) and its first outputs are ``z`` (``Σ cols·repeats`` channels); the remaining
inputs and outputs are the performance signals ``u`` and ``y``, with names.

Every uncertainty is normalised:

* :func:`ureal` ``k``: value ``c + s δ`` with ``δ ∈ [−1, 1]`` real, block ``δ I_r``;
* :func:`ucomplex` ``c``: value ``nominal + radius δ`` with ``|δ| ≤ 1`` complex, ``δ I_r``;
* :func:`ultidyn` ``D``: ``bound · Δ_n`` with ``‖Δ_n‖∞ ≤ 1``, a full block (``I_r ⊗ Δ_n``
  when repeated).

Arithmetic (``+ − * / @``, :meth:`USS.inv`) and the functions of
:mod:`titop_lpv.robust.ops` (``feedback``, ``interconnect`` …) combine uncertain
systems, python-control systems, arrays, numbers and parameters, keeping signal names and
merging the blocks of a parameter used more than once (one block, repeats summed).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

import control
import numpy as np

from ..exceptions import ShapeError, TitopError
from .abcd import ABCD, blkdiag, to_abcd, unique_names

if TYPE_CHECKING:
    from .atoms import Atom

__all__ = ["USS", "Block", "DeltaStructure", "UncertaintyError"]

_PARAMS = ("UComplex", "ULTIDyn", "UReal", "ucomplex", "ultidyn", "ureal")

_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class UncertaintyError(TitopError, ValueError):
    """An uncertain parameter, block or uncertain system is specified inconsistently."""


def _check_name(name: Any, what: str = "parameter") -> str:
    if not isinstance(name, str) or not _NAME.match(name):
        raise UncertaintyError(f"{what} name {name!r} must be an identifier "
                               "(letters, digits, underscores)")
    return name


class _Arithmetic:
    """Operators shared by uncertain systems and parameters (a parameter is a 1×1 system)."""

    __slots__ = ()
    __array_ufunc__ = None  # numpy defers to our reflected operators
    # subclasses (USS and the uncertain parameters) define ``_as_uss() -> USS``

    def _op(self, name: str, other: Any, reflected: bool = False) -> Any:
        from . import ops as uncertain_ops

        return uncertain_ops.binary(name, self, other, reflected)

    def __add__(self, other: Any) -> Any:
        return self._op("add", other)

    def __radd__(self, other: Any) -> Any:
        return self._op("add", other, True)

    def __sub__(self, other: Any) -> Any:
        return self._op("sub", other)

    def __rsub__(self, other: Any) -> Any:
        return self._op("sub", other, True)

    def __mul__(self, other: Any) -> Any:
        return self._op("mul", other)

    def __rmul__(self, other: Any) -> Any:
        return self._op("mul", other, True)

    def __matmul__(self, other: Any) -> Any:
        return self._op("matmul", other)

    def __rmatmul__(self, other: Any) -> Any:
        return self._op("matmul", other, True)

    def __truediv__(self, other: Any) -> Any:
        return self._op("truediv", other)

    def __rtruediv__(self, other: Any) -> Any:
        return self._op("truediv", other, True)

    def __pow__(self, k: int) -> USS:
        return self._op("power", k)

    def __neg__(self) -> USS:
        return self._op("neg", None)

    def __pos__(self) -> USS:
        return self._as_uss()

    def inv(self) -> USS:
        """Inverse system ``G⁻¹`` (inputs and outputs exchanged); needs ``D`` invertible at
        the centre of the uncertainty box (δ = 0), else :class:`~titop_lpv.robust.lft.IllPosedError`."""
        return self._op("inv", None)



@dataclass(frozen=True)
class Block:
    """One block of Δ.

    Parameters
    ----------
    name : str
        Name of the uncertainty.
    kind : {"real", "complex", "full"}
        Real scalar ``δ I_r`` (δ ∈ [−1, 1]), complex scalar ``δ I_r`` (``|δ| ≤ 1``) or full
        complex block ``I_r ⊗ Δ`` (Δ of size rows × cols, ‖Δ‖ ≤ 1).
    rows, cols : int
        Size of one copy of the block (1 × 1 for scalars): it maps ``cols`` entries of
        ``z`` to ``rows`` entries of ``w``.
    repeats : int
        Number of copies ``r`` (≥ 1).
    """

    name: str
    kind: str
    rows: int
    cols: int
    repeats: int

    def __post_init__(self) -> None:
        _check_name(self.name, "block")
        if self.kind not in ("real", "complex", "full"):
            raise UncertaintyError(f"block {self.name!r}: kind must be 'real', 'complex' or "
                                   f"'full', got {self.kind!r}")
        if self.kind != "full" and (self.rows, self.cols) != (1, 1):
            raise UncertaintyError(f"block {self.name!r}: a scalar block is 1×1")
        if min(self.rows, self.cols, self.repeats) < 1:
            raise UncertaintyError(f"block {self.name!r}: rows, cols and repeats must be ≥ 1")

    @property
    def nw(self) -> int:
        """Number of ``w`` channels (rows of the whole block): ``rows·repeats``."""
        return self.rows * self.repeats

    @property
    def nz(self) -> int:
        """Number of ``z`` channels (columns of the whole block): ``cols·repeats``."""
        return self.cols * self.repeats

    def with_repeats(self, repeats: int) -> Block:
        """The same block with another number of repetitions."""
        return Block(self.name, self.kind, self.rows, self.cols, repeats)


@dataclass(frozen=True)
class DeltaStructure:
    """Ordered block structure ``Δ = diag(Δ_1, …, Δ_N)`` of an uncertain system.

    ``Δ`` is ``nw × nz`` and ``w = Δ z``; block ``name`` occupies the ``w`` channels
    (rows) and ``z`` channels (columns) ``slices()[name]``.

    Parameters
    ----------
    blocks : tuple of Block
        The blocks, names unique.
    """

    blocks: tuple[Block, ...] = field(default_factory=tuple)

    def __post_init__(self) -> None:
        object.__setattr__(self, "blocks", tuple(self.blocks))
        names = [b.name for b in self.blocks]
        dup = sorted({n for n in names if names.count(n) > 1})
        if dup:
            raise UncertaintyError(f"block names must be unique, repeated: {dup}")

    def sizes(self) -> list[tuple[int, int]]:
        """``[(nw_i, nz_i)]``: rows and columns of each whole block ``Δ_i`` (with repeats)."""
        return [(b.nw, b.nz) for b in self.blocks]

    @property
    def nw(self) -> int:
        """Rows of Δ (number of ``w`` channels)."""
        return sum(b.nw for b in self.blocks)

    @property
    def nz(self) -> int:
        """Columns of Δ (number of ``z`` channels)."""
        return sum(b.nz for b in self.blocks)

    @property
    def names(self) -> tuple[str, ...]:
        """Block names, in order."""
        return tuple(b.name for b in self.blocks)

    def __len__(self) -> int:
        return len(self.blocks)

    def __iter__(self) -> Iterator[Block]:
        return iter(self.blocks)

    def __contains__(self, name: object) -> bool:
        return name in self.names

    def __getitem__(self, key: int | str) -> Block:
        if isinstance(key, str):
            if key not in self.names:
                raise UncertaintyError(f"no block named {key!r}; blocks: {list(self.names)}")
            return self.blocks[self.names.index(key)]
        return self.blocks[key]

    def slices(self) -> dict[str, tuple[slice, slice]]:
        """``{name: (w slice, z slice)}``: each block's rows and columns in Δ."""
        out, i, j = {}, 0, 0
        for b in self.blocks:
            out[b.name] = (slice(i, i + b.nw), slice(j, j + b.nz))
            i, j = i + b.nw, j + b.nz
        return out

    def matrix(self, values: Mapping[str, Any]) -> np.ndarray:
        """Constant ``Δ`` (``nw × nz``) from normalised values.

        Parameters
        ----------
        values : mapping
            ``{name: δ}`` for every block: a real or complex number for a scalar block, a
            ``rows × cols`` array for a full block.
        """
        parts = []
        for b in self.blocks:
            if b.name not in values:
                raise UncertaintyError(f"no value for block {b.name!r}")
            v = np.atleast_2d(np.asarray(values[b.name]))
            if v.shape != (b.rows, b.cols):
                raise ShapeError(f"block {b.name!r}: value has shape {v.shape}, expected "
                                 f"{(b.rows, b.cols)}")
            parts.append(np.kron(np.eye(b.repeats), v))
        return blkdiag(*parts) if parts else np.zeros((0, 0))

    def __str__(self) -> str:
        def one(b: Block) -> str:
            core = f"{b.name}[{b.rows}×{b.cols}]" if b.kind == "full" else b.name
            return core + (f"·I{b.repeats}" if b.repeats > 1 else "")

        return f"Δ = diag({', '.join(one(b) for b in self.blocks)}), {self.nw}×{self.nz}"


# ------------------------------------------------------------------ uncertain system


def _check_labels(labels: Sequence[str] | str | None, count: int, default: Sequence[str],
                  what: str) -> tuple[str, ...]:
    if labels is None:
        return tuple(default)
    labels = [labels] if isinstance(labels, str) else list(labels)
    if len(labels) != count:
        raise ShapeError(f"{len(labels)} {what} names given for {count} {what}s")
    for s in labels:
        if not isinstance(s, str) or not s or "." in s:
            raise UncertaintyError(f"{what} name {s!r} must be a non-empty string without '.'")
    if len(set(labels)) != len(labels):
        raise UncertaintyError(f"{what} names must be unique, got {labels}")
    return tuple(labels)


class USS(_Arithmetic):
    """Uncertain LTI system (or uncertain matrix, with no states) ``y = F_u(M, Δ) u``.

    ``[z; y] = M [w; u]``, ``w = Δ z``: ``M``'s first ``delta.nw`` inputs are ``w`` and its
    first ``delta.nz`` outputs are ``z``, in the block order of ``delta``; each block is
    normalised (see the module docstring). Immutable.

    Parameters
    ----------
    M : control.StateSpace or array_like
        The LFT matrix or system (its first inputs/outputs are the Δ channels).
    delta : DeltaStructure, optional
        Block structure (default: none, a certain system).
    params : iterable or mapping of UReal, UComplex, ULTIDyn, optional
        The specification of every block, matched by name.
    inputs, outputs, states : sequence of str, optional
        Names of ``u``, ``y`` and the states (default: ``M``'s remaining names).
    name : str, optional
        System name (default ``M.name`` for a system).
    """

    __slots__ = ("_S", "_delta", "_dt", "_inputs", "_name", "_outputs", "_params", "_states")

    def __init__(self, M: Any, delta: DeltaStructure | None = None,
                 params: Iterable[Atom] | Mapping[str, Atom] = (), *,
                 inputs: Sequence[str] | None = None, outputs: Sequence[str] | None = None,
                 states: Sequence[str] | None = None, name: str | None = None) -> None:
        S, sys = to_abcd(M, "M")
        if any(np.iscomplexobj(X) for X in S):
            raise UncertaintyError("M must be real (python-control systems are real)")
        delta = DeltaStructure() if delta is None else delta
        if not isinstance(delta, DeltaStructure):
            delta = DeltaStructure(tuple(delta))
        if delta.nw > S.m or delta.nz > S.p:
            raise ShapeError(f"Δ is {delta.nw}×{delta.nz} but M has only {S.m} inputs and "
                             f"{S.p} outputs")
        atoms = list(params.values()) if isinstance(params, Mapping) else list(params)
        by_name = {a.name: a for a in atoms}
        for b in delta:
            a = by_name.get(b.name)
            if a is None:
                raise UncertaintyError(f"no parameter given for block {b.name!r}")
            if a.block(b.repeats) != b:
                raise UncertaintyError(f"block {b} does not match parameter {a}")
        extra = sorted(set(by_name) - set(delta.names))
        if extra:
            raise UncertaintyError(f"parameters {extra} have no block in delta")
        if sys is None:
            ins = [f"u[{i}]" for i in range(S.m - delta.nw)]
            outs = [f"y[{i}]" for i in range(S.p - delta.nz)]
            sts, dt, default_name = [], None, None
        else:
            ins, outs = list(sys.input_labels)[delta.nw :], list(sys.output_labels)[delta.nz :]
            sts, dt, default_name = list(sys.state_labels), sys.dt, sys.name
        self._set(S, dt, delta, [by_name[n] for n in delta.names],
                  _check_labels(inputs, len(ins), ins, "input"),
                  _check_labels(outputs, len(outs), outs, "output"),
                  _check_labels(states, len(sts), sts, "state"),
                  default_name if name is None else name)

    def _set(self, S: ABCD, dt: Any, delta: DeltaStructure, params: Sequence[Atom],
             inputs: Sequence[str], outputs: Sequence[str], states: Sequence[str],
             name: str | None) -> None:
        S = ABCD(*(np.array(M, dtype=float) for M in S))
        for M in S:
            M.flags.writeable = False
        self._S, self._dt, self._delta = S, dt, delta
        self._params = {a.name: a for a in params}
        self._inputs = tuple(unique_names(inputs, "u"))
        self._outputs = tuple(unique_names(outputs, "y"))
        self._states = tuple(unique_names(states, "x"))
        self._name = name

    @classmethod
    def _new(cls, S: ABCD, dt: Any, delta: DeltaStructure, params: Sequence[Atom],
             inputs: Sequence[str], outputs: Sequence[str], states: Sequence[str],
             name: str | None) -> USS:
        """Internal constructor: no validation beyond name uniqueness."""
        obj = object.__new__(cls)
        obj._set(S, dt, delta, params, inputs, outputs, states, name)
        return obj

    def _as_uss(self) -> USS:
        return self

    # -- description
    @property
    def abcd(self) -> ABCD:
        """Matrices of ``M`` (read-only): inputs ``[w; u]``, outputs ``[z; y]``."""
        return self._S

    @property
    def delta(self) -> DeltaStructure:
        """Block structure of Δ."""
        return self._delta

    @property
    def params(self) -> Mapping[str, Atom]:
        """``{name: UReal | UComplex | ULTIDyn}``, in block order (read-only view)."""
        return MappingProxyType(self._params)

    @property
    def dt(self) -> Any:
        """python-control timebase (None for a static uncertain matrix)."""
        return self._dt

    @property
    def name(self) -> str | None:
        """System name."""
        return self._name

    @property
    def input_labels(self) -> list[str]:
        """Names of the inputs ``u``."""
        return list(self._inputs)

    @property
    def output_labels(self) -> list[str]:
        """Names of the outputs ``y``."""
        return list(self._outputs)

    @property
    def state_labels(self) -> list[str]:
        """Names of the states of ``M``."""
        return list(self._states)

    @property
    def ninputs(self) -> int:
        """Number of inputs ``u``."""
        return len(self._inputs)

    @property
    def noutputs(self) -> int:
        """Number of outputs ``y``."""
        return len(self._outputs)

    @property
    def nstates(self) -> int:
        """Number of states of ``M``."""
        return self._S.n

    @property
    def shape(self) -> tuple[int, int]:
        """``(noutputs, ninputs)``."""
        return self.noutputs, self.ninputs

    def __repr__(self) -> str:
        return (f"USS({self._name!r}, {self.noutputs} outputs × {self.ninputs} inputs, "
                f"{self.nstates} states, {self._delta})")

    def rename(self, *, inputs: Sequence[str] | str | None = None,
               outputs: Sequence[str] | str | None = None,
               states: Sequence[str] | str | None = None, name: str | None = None) -> USS:
        """Copy with new signal names (None keeps the current ones).

        Parameters
        ----------
        inputs, outputs, states : sequence of str, optional
            New names, one per signal, unique, without '.'.
        name : str, optional
            New system name.
        """
        return USS._new(self._S, self._dt, self._delta, list(self._params.values()),
                        _check_labels(inputs, self.ninputs, self._inputs, "input"),
                        _check_labels(outputs, self.noutputs, self._outputs, "output"),
                        _check_labels(states, self.nstates, self._states, "state"),
                        self._name if name is None else name)

    def lftdata(self) -> tuple[control.StateSpace, DeltaStructure]:
        """``(M, Δ structure)`` with ``y = F_u(M, Δ) u``.

        Returns
        -------
        M : control.StateSpace
            Inputs ``[<name>_w1 …, performance inputs]``, outputs ``[<name>_z1 …,
            performance outputs]`` (Δ channels first, in block order), states named.
        delta : DeltaStructure
            The normalised blocks: ``w = Δ z``.
        """
        wn = [f"{b.name}_w{j + 1}" for b in self._delta for j in range(b.nw)]
        zn = [f"{b.name}_z{j + 1}" for b in self._delta for j in range(b.nz)]
        M = control.ss(*self._S, self._dt, inputs=wn + list(self._inputs),
                       outputs=zn + list(self._outputs), states=list(self._states),
                       name=self._name)
        return M, self._delta

    # -- evaluation (titop_lpv.robust.evaluate)
    def at_delta(self, values: Mapping[str, Any] | None = None, /, **kw: Any) -> Any:
        """The system at normalised values (missing blocks at their nominal).

        Parameters
        ----------
        values : mapping, optional
            ``{name: δ}``: real δ for a ureal (δ ∈ [−1, 1] is the range), complex δ for a
            ucomplex (``|δ| ≤ 1``), a ``ny × nu`` array or a StateSpace for an ultidyn
            (norm ≤ 1).
        **kw
            Same as ``values``, merged in.

        Returns
        -------
        control.StateSpace or ComplexStateSpace
            With this system's signal names; a :class:`~titop_lpv.robust.evaluate.
            ComplexStateSpace` when complex values make the matrices complex.
        """
        from .evaluate import evaluate, normalise

        return evaluate(self, normalise(self, {**(values or {}), **kw}, physical=False))

    def at(self, values: Mapping[str, Any] | None = None, /, **kw: Any) -> Any:
        """The system at physical parameter values, by name (missing ones at their nominal;
        values outside the range are accepted).

        Parameters
        ----------
        values : mapping, optional
            ``{name: value}``: a number for a ureal or ucomplex, a ``ny × nu`` array or a
            StateSpace (``Δ`` itself, norm ≤ bound) for an ultidyn.
        **kw
            Same as ``values``, merged in.

        Returns
        -------
        control.StateSpace or ComplexStateSpace
            See :meth:`at_delta`. Unknown names raise :class:`UncertaintyError`.
        """
        from .evaluate import evaluate, normalise

        return evaluate(self, normalise(self, {**(values or {}), **kw}, physical=True))

    def nominal(self) -> control.StateSpace:
        """The system with every parameter at its nominal value (Δ = 0 for ucomplex and
        ultidyn), as a named control.StateSpace."""
        return self.at_delta()

    def grid(self, values: Mapping[str, Sequence[Any]]) -> np.ndarray:
        """Systems on a grid of physical values: ndarray of StateSpace of shape
        ``(len(v_1), len(v_2), …)`` in the order of ``values``.

        Parameters
        ----------
        values : mapping
            ``{name: sequence of values}``; other parameters at their nominal.
        """
        from .evaluate import grid

        return grid(self, values)

    def vertices(self) -> np.ndarray:
        """Systems at every vertex of the real-parameter box: ndarray of StateSpace of
        shape ``(2,)·n_real`` in block order, index 0 for δ = −1 (``lo``), 1 for δ = +1
        (``hi``); ucomplex and ultidyn at their nominal (0)."""
        from .evaluate import vertices

        return vertices(self)

    def sample_delta(self, n: int, seed: Any = None) -> list[dict[str, Any]]:
        """``n`` random normalised values ``{name: δ}``: uniform in [−1, 1] for a ureal,
        uniform in the unit disc for a ucomplex, a real ``ny × nu`` matrix with spectral
        norm uniform in [0, 1] for an ultidyn (a constant gain is a stable LTI system).

        Parameters
        ----------
        n : int
            Number of samples.
        seed : int or numpy.random.Generator, optional
            Seed of ``numpy.random.default_rng``.
        """
        from .evaluate import sample_delta

        return sample_delta(self, n, seed)

    def sample(self, n: int, seed: Any = None) -> np.ndarray:
        """``n`` random systems (ndarray of StateSpace, shape (n,)) at the values of
        :meth:`sample_delta` with the same arguments.

        Parameters
        ----------
        n : int
            Number of samples.
        seed : int or numpy.random.Generator, optional
            Seed of ``numpy.random.default_rng``.
        """
        from .evaluate import evaluate

        out = np.empty(int(n), dtype=object)
        for i, d in enumerate(self.sample_delta(n, seed)):
            out[i] = evaluate(self, d)
        return out


def __getattr__(name: str) -> Any:
    """Re-export the parameters of :mod:`titop_lpv.robust.atoms` (which imports this
    module, hence the lazy import)."""
    if name in _PARAMS:
        from . import atoms as uncertain_params

        return getattr(uncertain_params, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
