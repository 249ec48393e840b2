"""Uncertain systems as data: the LFT matrix ``M``, the Δ structure, the parameters and the
signal names, without arithmetic (:class:`LFTSystem`).

An uncertain system is ``y = F_u(M, Δ) u``: with ``[z; y] = M [w; u]`` and ``w = Δ z``,
where ``M`` is a (real) state-space system and ``Δ = diag(Δ_1, …, Δ_N)`` follows the
:class:`~titop_lpv.robust.blocks.DeltaStructure`, in block order. ``M``'s first inputs are
``w`` (``Σ rows·repeats`` channels) and its first outputs are ``z`` (``Σ cols·repeats``
channels); the remaining inputs and outputs are the performance signals ``u`` and ``y``,
with names.

:class:`LFTSystem` is what the algebra (:mod:`titop_lpv.robust.algebra`) and the evaluation
(:mod:`titop_lpv.robust.evaluate`) work on; the user-facing
:class:`~titop_lpv.robust.uss.USS` adds the operators and the evaluation methods to it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from types import MappingProxyType
from typing import Any

import control
import numpy as np

from ..exceptions import ArgumentTypeError, ShapeError
from .abcd import ABCD, to_abcd, unique_names
from .blocks import DeltaStructure, UncertaintyError

__all__ = ["LFTSystem", "Uncertain", "check_labels"]


class Uncertain:
    """Base of every uncertain object, systems and parameters alike.

    Every subclass defines ``_as_uss()``, which returns it as an uncertain system: a system
    returns itself, a parameter a static system (1×1 for ``ureal`` and ``ucomplex``,
    ``ny × nu`` for ``ultidyn``).
    """

    __slots__ = ()


def check_labels(labels: Sequence[str] | str | None, count: int, default: Sequence[str],
                 what: str) -> tuple[str, ...]:
    """Signal names, checked: one per signal, unique, non-empty, without '.'.

    Parameters
    ----------
    labels : sequence of str or str or None
        The names (None: ``default``).
    count : int
        Number of signals.
    default : sequence of str
        The names when ``labels`` is None.
    what : str
        ``"input"``, ``"output"`` or ``"state"``, for the messages.

    Returns
    -------
    tuple of str
    """
    if labels is None:
        return tuple(default)
    if not isinstance(labels, str) and not hasattr(labels, "__iter__"):
        raise UncertaintyError(f"{what} names must be a string or a sequence of strings, got "
                               f"{labels!r}")
    labels = [labels] if isinstance(labels, str) else list(labels)
    if len(labels) != count:
        raise ShapeError(f"{len(labels)} {what} names given for {count} {what}s")
    for s in labels:
        if not isinstance(s, str) or not s or "." in s:
            raise UncertaintyError(f"{what} name {s!r} must be a non-empty string without '.'")
    if len(set(labels)) != len(labels):
        raise UncertaintyError(f"{what} names must be unique, got {labels}")
    return tuple(labels)


class LFTSystem(Uncertain):
    """Uncertain LTI system (or uncertain matrix, with no states) ``y = F_u(M, Δ) u``, as data.

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
    inputs : sequence of str, optional
        Names of ``u`` (default: ``M``'s inputs after the Δ channels).
    outputs : sequence of str, optional
        Names of ``y`` (default: ``M``'s outputs after the Δ channels).
    states : sequence of str, optional
        Names of the states (default: ``M``'s).
    name : str, optional
        System name (default ``M.name`` for a system).
    """

    __slots__ = ("_S", "_delta", "_dt", "_inputs", "_name", "_outputs", "_params", "_states")

    def __init__(self, M: Any, delta: DeltaStructure | None = None,
                 params: Iterable[Any] | Mapping[str, Any] = (), *,
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
                  check_labels(inputs, len(ins), ins, "input"),
                  check_labels(outputs, len(outs), outs, "output"),
                  check_labels(states, len(sts), sts, "state"),
                  default_name if name is None else name)

    def _set(self, S: ABCD, dt: Any, delta: DeltaStructure, params: Sequence[Any],
             inputs: Sequence[str], outputs: Sequence[str], states: Sequence[str],
             name: str | None) -> None:
        if name is not None and not isinstance(name, str):  # evaluations quote it later
            raise ArgumentTypeError(f"name must be a string or None, got {name!r:.60}")
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
    def _new(cls, S: ABCD, dt: Any, delta: DeltaStructure, params: Sequence[Any],
             inputs: Sequence[str], outputs: Sequence[str], states: Sequence[str],
             name: str | None) -> Any:
        """Internal constructor: no validation beyond name uniqueness."""
        obj = object.__new__(cls)
        obj._set(S, dt, delta, params, inputs, outputs, states, name)
        return obj

    def _as_uss(self) -> LFTSystem:
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
    def params(self) -> Mapping[str, Any]:
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
        return (f"{type(self).__name__}({self._name!r}, {self.noutputs} outputs × "
                f"{self.ninputs} inputs, {self.nstates} states, {self._delta})")

    def rename(self, *, inputs: Sequence[str] | str | None = None,
               outputs: Sequence[str] | str | None = None,
               states: Sequence[str] | str | None = None, name: str | None = None) -> Any:
        """Copy with new signal names (None keeps the current ones).

        Parameters
        ----------
        inputs : sequence of str, optional
            New input names, one per input, unique, without '.'.
        outputs : sequence of str, optional
            New output names.
        states : sequence of str, optional
            New state names.
        name : str, optional
            New system name.

        Returns
        -------
        LFTSystem
            Of the same class as this one.
        """
        return type(self)._new(self._S, self._dt, self._delta, list(self._params.values()),
                        check_labels(inputs, self.ninputs, self._inputs, "input"),
                        check_labels(outputs, self.noutputs, self._outputs, "output"),
                        check_labels(states, self.nstates, self._states, "state"),
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
