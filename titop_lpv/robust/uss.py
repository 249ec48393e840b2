"""Uncertain systems with arithmetic: :class:`USS`, and the operators shared with the
uncertain parameters (:class:`Arithmetic`).

An uncertain system is ``y = F_u(M, Δ) u``: with ``[z; y] = M [w; u]`` and ``w = Δ z``,
where ``M`` is a (real) state-space system and ``Δ = diag(Δ_1, …, Δ_N)`` follows the
:class:`~titop_lpv.robust.blocks.DeltaStructure`, in block order (the data:
:class:`~titop_lpv.robust.system.LFTSystem`).

Every uncertainty is normalised:

* :func:`~titop_lpv.robust.atoms.ureal` ``k``: value ``c + s δ`` with ``δ ∈ [−1, 1]``
  real, block ``δ I_r``;
* :func:`~titop_lpv.robust.atoms.ucomplex` ``c``: value ``nominal + radius δ`` with
  ``|δ| ≤ 1`` complex, ``δ I_r``;
* :func:`~titop_lpv.robust.atoms.ultidyn` ``D``: ``bound · Δ_n`` with ``‖Δ_n‖∞ ≤ 1``, a
  full block (``I_r ⊗ Δ_n`` when repeated).

Arithmetic (``+ − * / @``, :meth:`Arithmetic.inv`; :mod:`titop_lpv.robust.algebra`) and the
functions of :mod:`titop_lpv.robust.ops` (``feedback``, ``interconnect`` …) combine uncertain
systems, python-control systems, arrays, numbers and parameters, keeping signal names and
merging the blocks of a parameter used more than once (one block, repeats summed).
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping, Sequence
from typing import Any

import control
import numpy as np

from ..exceptions import TitopError
from .algebra import as_system, binary
from .checks import ArgumentTypeError
from .evaluate import evaluate, normalise
from .evaluate import grid as evaluate_grid
from .evaluate import sample_delta as draw_deltas
from .evaluate import vertices as evaluate_vertices
from .system import LFTSystem, Uncertain

__all__ = ["USS", "Arithmetic"]

# operand types with no reflected operator that could take a USS
_NO_REFLECTED = (str, bytes, dict, list, tuple, np.ndarray, np.generic, numbers.Number)


class Arithmetic(Uncertain):
    """Operators shared by uncertain systems and parameters (a parameter is a static
    system): each calls :func:`titop_lpv.robust.algebra.binary` and returns a :class:`USS`."""

    __slots__ = ()
    __array_ufunc__ = None  # numpy defers to our reflected operators

    def _op(self, name: str, other: Any, reflected: bool = False) -> Any:
        out = binary(name, self, other, reflected)
        if out is NotImplemented and (other is None or isinstance(other, _NO_REFLECTED)):
            # nothing else can handle these (numpy defers to us): a typed error, saying why
            try:
                as_system(other)
            except TitopError as exc:
                raise ArgumentTypeError(f"unsupported operand for {name}: {exc}") from None
            raise ArgumentTypeError(f"unsupported operand for {name}: {type(self).__name__} "
                                    f"and {type(other).__name__} {other!r:.40}")
        return out if out is NotImplemented else USS.adopt(out)

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
        return USS.adopt(self._as_uss())

    def inv(self) -> USS:
        """Inverse system ``G⁻¹`` (inputs and outputs exchanged); needs ``D`` invertible at
        the centre of the uncertainty box (δ = 0), else
        :class:`~titop_lpv.robust.abcd.IllPosedError`."""
        return self._op("inv", None)


class USS(Arithmetic, LFTSystem):
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
    inputs : sequence of str, optional
        Names of ``u`` (default: ``M``'s inputs after the Δ channels).
    outputs : sequence of str, optional
        Names of ``y`` (default: ``M``'s outputs after the Δ channels).
    states : sequence of str, optional
        Names of the states (default: ``M``'s).
    name : str, optional
        System name (default ``M.name`` for a system).
    """

    __slots__ = ()

    @classmethod
    def adopt(cls, system: LFTSystem) -> USS:
        """The :class:`USS` holding the same data as ``system`` (``system`` itself if it is
        one already; the matrices are shared, being read-only).

        Parameters
        ----------
        system : LFTSystem
            An uncertain system's data, as returned by :mod:`titop_lpv.robust.algebra`.

        Returns
        -------
        USS
        """
        if isinstance(system, USS):
            return system
        obj = object.__new__(USS)
        for slot in LFTSystem.__slots__:
            object.__setattr__(obj, slot, getattr(system, slot))
        return obj

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
        return evaluate_grid(self, values)

    def vertices(self) -> np.ndarray:
        """Systems at every vertex of the real-parameter box: ndarray of StateSpace of
        shape ``(2,)·n_real`` in block order, index 0 for δ = −1 (``lo``), 1 for δ = +1
        (``hi``); ucomplex and ultidyn at their nominal (0)."""
        return evaluate_vertices(self)

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
        return draw_deltas(self, n, seed)

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
        deltas = self.sample_delta(n, seed)
        out = np.empty(len(deltas), dtype=object)
        for i, d in enumerate(deltas):
            out[i] = evaluate(self, d)
        return out
