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

from ..exceptions import ShapeError, TitopError, UnknownNameError
from .abcd import ABCD
from .algebra import as_system, binary, hstack, vstack
from .algebra import inv as inv_system
from .algebra import neg as neg_system
from .blocks import DeltaStructure
from .checks import ArgumentError, ArgumentTypeError
from .evaluate import evaluate, normalise
from .evaluate import grid as evaluate_grid
from .evaluate import sample_delta as draw_deltas
from .evaluate import vertices as evaluate_vertices
from .polynomial import (
    cadd,
    cmul,
    coefficient,
    is_proper,
    is_uncertain_scalar,
    padd,
    pmul,
    trim,
)
from .reduction import reduce_abcd
from .system import LFTSystem, Uncertain

__all__ = ["USS", "Arithmetic", "UncertainTF"]

# operand types with no reflected operator that could take a USS
_NO_REFLECTED = (str, bytes, dict, list, tuple, np.ndarray, np.generic, numbers.Number)


class _BinaryOperators:
    """``+ − * /`` and their reflected forms, each calling ``self._op(name, other,
    reflected)``: shared by uncertain systems and uncertain transfer functions."""

    __slots__ = ()

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

    def __truediv__(self, other: Any) -> Any:
        return self._op("truediv", other)

    def __rtruediv__(self, other: Any) -> Any:
        return self._op("truediv", other, True)


class Arithmetic(_BinaryOperators, Uncertain):
    """Operators shared by uncertain systems and parameters (a parameter is a static
    system): each calls :func:`titop_lpv.robust.algebra.binary` and returns a :class:`USS`."""

    __slots__ = ()
    __array_ufunc__ = None  # numpy defers to our reflected operators

    def _op(self, name: str, other: Any, reflected: bool = False) -> Any:
        if isinstance(other, UncertainTF):
            return other._op(name, self, not reflected)
        if (name in _POLY_OPS and isinstance(other, control.TransferFunction)
                and is_uncertain_scalar(self) and not is_proper(other)):
            # an improper transfer function (s, s**2 …) with an uncertain coefficient: a
            # polynomial with uncertain coefficients, until divided into a proper one
            return UncertainTF.lift(self, None)._op(name, other, reflected)
        if isinstance(other, control.TransferFunction) and not is_proper(other):
            raise ArgumentTypeError(
                f"an improper transfer function ({other.num[0][0].size - 1}-degree numerator) "
                f"cannot multiply a dynamic uncertain system: write the whole expression as "
                f"one fraction, e.g. tl.tf([1, 0], [m, 1]) rather than s * (1 / (m*s + 1))")
        out = binary(name, self, other, reflected)
        if out is NotImplemented and (
                reflected or other is None or isinstance(other, _NO_REFLECTED)
                or not hasattr(type(other), f"__r{name}__")):
            # nothing else can handle these (numpy defers to us; an object without the
            # reflected operator; or this is the reflected call): a typed error, saying why
            try:
                as_system(other)
            except TitopError as exc:
                raise ArgumentTypeError(f"unsupported operand for {name}: {exc}") from None
            raise ArgumentTypeError(f"unsupported operand for {name}: {type(self).__name__} "
                                    f"and {type(other).__name__} {other!r:.40}")
        return out if out is NotImplemented else USS.adopt(out)

    def __matmul__(self, other: Any) -> Any:
        return self._op("matmul", other)

    def __rmatmul__(self, other: Any) -> Any:
        return self._op("matmul", other, True)

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

    # -- indexing
    def __getitem__(self, key: Any) -> USS:
        """The subsystem ``G[outputs, inputs]`` (MATLAB's ``G(i, j)`` of a ``uss``).

        Each index selects performance outputs (first) or inputs (second) by position or by
        signal name: an integer, a name, a slice, or a list of integers and names
        (``G[0, 0]``, ``G["y", "u"]``, ``G[:, ["u1", "u2"]]``, ``G[1:, -1]``), in the order
        given, as python-control's ``StateSpace`` indexing does. Integers and names always
        keep the dimension (the result is a system, never a scalar).

        Every Δ block and every state is kept, with the same parameters: the result is
        ``F_u(M_sel, Δ)`` with the rows and columns of ``M`` selected, exactly equal to the
        selected entries of ``G`` for every Δ. (MATLAB also drops the uncertain elements
        that no longer appear; here apply :func:`titop_lpv.reduce_lft` to remove δ channels
        that no longer reach the selected signals.)

        Parameters
        ----------
        key : tuple of two indices
            ``(outputs, inputs)``.

        Returns
        -------
        USS

        Raises
        ------
        ArgumentTypeError
            ``key`` is not a pair, or an index of an unsupported type (float, bool, None).
        UnknownNameError
            A name that is not a signal of this system (a ``KeyError``).
        ShapeError
            A position out of range, or an index that selects no signal.
        """
        if not isinstance(key, tuple) or len(key) != 2:
            raise ArgumentTypeError(f"index a USS with two indices, G[outputs, inputs], got "
                                    f"{key!r:.60}")
        rows = _positions(key[0], self._outputs, "output")
        cols = _positions(key[1], self._inputs, "input")
        nw, nz = self._delta.nw, self._delta.nz
        rr = np.concatenate([np.arange(nz), nz + np.asarray(rows, dtype=int)])
        cc = np.concatenate([np.arange(nw), nw + np.asarray(cols, dtype=int)])
        A, B, C, D = self._S
        S = ABCD(A, B[:, cc], C[rr], D[np.ix_(rr, cc)])
        return USS._new(S, self._dt, self._delta, list(self._params.values()),
                        [self._inputs[j] for j in cols], [self._outputs[i] for i in rows],
                        self._states, self._name)

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


def _positions(index: Any, names: tuple[str, ...], what: str) -> list[int]:
    """Positions selected by one index of :meth:`USS.__getitem__` (see there)."""
    n = len(names)
    if isinstance(index, slice):
        for part in ("start", "stop", "step"):
            v = getattr(index, part)
            if v is not None and (isinstance(v, (bool, np.bool_))
                                  or not isinstance(v, numbers.Integral)):
                raise ArgumentTypeError(f"{what} slice {part} must be an integer, got {v!r}")
        if index.step == 0:
            raise ArgumentError(f"{what} slice step must not be zero")
        out = list(range(n))[index]
    elif isinstance(index, (str, numbers.Integral)) and not isinstance(index, (bool, np.bool_)):
        out = [_position(index, names, what)]
    elif isinstance(index, (list, tuple, np.ndarray)):
        items = list(np.asarray(index).ravel()) if isinstance(index, np.ndarray) else index
        out = [_position(i, names, what) for i in items]
    else:
        raise ArgumentTypeError(f"{what} index must be an integer, a name, a slice or a list "
                                f"of them, got {type(index).__name__} {index!r:.40}")
    if not out:
        raise ShapeError(f"the {what} index {index!r:.40} selects no {what}")
    return out


def _position(i: Any, names: tuple[str, ...], what: str) -> int:
    if isinstance(i, (str, np.str_)):
        if str(i) not in names:
            raise UnknownNameError(f"no {what} named {str(i)!r}; the {what}s are {list(names)}")
        return names.index(str(i))
    if isinstance(i, (bool, np.bool_)) or not isinstance(i, numbers.Integral):
        raise ArgumentTypeError(f"{what} index must be an integer or a name, got "
                                f"{type(i).__name__} {i!r:.40}")
    k = int(i)
    if not -len(names) <= k < len(names):
        raise ShapeError(f"{what} index {k} is out of range for {len(names)} {what}s")
    return k % len(names)


# ---------------------------------------------------------------- uncertain transfer functions

_POLY_OPS = ("add", "sub", "mul", "truediv")


class UncertainTF(_BinaryOperators):
    """A SISO rational function ``num(s)/den(s)`` whose coefficients may be uncertain
    scalars: the intermediate value of arithmetic on ``s = tl.tf("s")`` with ``ureal``
    coefficients, such as ``m * s**2 + c * s + k`` (improper, so not yet a USS).

    Arithmetic (``+ − * /``, integer ``**``) with numbers, uncertain scalars, SISO
    transfer functions and other ``UncertainTF`` is exact polynomial arithmetic on the
    coefficients; a result whose coefficients are all certain is a plain
    ``control.TransferFunction`` and a proper one (``deg num ≤ deg den``, an uncertain
    leading coefficient counting as non-zero) is a :class:`USS` (see :meth:`to_uss`), as in
    MATLAB, where ``ureal`` arithmetic with ``tf('s')`` gives a ``uss``. Build one with
    :func:`titop_lpv.robust.tf.tf`, not directly.

    Parameters
    ----------
    num, den : sequence
        Coefficients, highest power first: floats or static 1×1 uncertain systems.
    dt : float or None
        python-control timebase (0 continuous).
    """

    __slots__ = ("den", "dt", "num")
    __array_ufunc__ = None

    def __init__(self, num: Sequence[Any], den: Sequence[Any], dt: Any = 0) -> None:
        self.num = trim([coefficient(c, "num") for c in num])
        self.den = trim([coefficient(c, "den") for c in den])
        self.dt = dt
        if not self.num or not self.den:
            raise ArgumentError("num and den must have at least one coefficient")
        if len(self.den) == 1 and isinstance(self.den[0], float) and self.den[0] == 0.0:
            raise ArgumentError("den is zero")

    @classmethod
    def lift(cls, x: Any, dt: Any = None) -> UncertainTF:
        """``x`` as an UncertainTF: a number, uncertain scalar or SISO transfer function.

        Parameters
        ----------
        x : Any
            The operand.
        dt : float or None, optional
            Timebase of a number or uncertain scalar (default None: static, compatible
            with any timebase).
        """
        if isinstance(x, UncertainTF):
            return x
        if isinstance(x, control.TransferFunction):
            if x.ninputs != 1 or x.noutputs != 1:
                raise ArgumentTypeError(f"uncertain transfer functions are SISO; got a "
                                        f"{x.noutputs}×{x.ninputs} transfer function")
            return cls(list(x.num[0][0]), list(x.den[0][0]), x.dt)
        return cls([x], [1.0], dt)

    def __repr__(self) -> str:
        def show(p: list[Any]) -> str:
            return "[" + ", ".join(f"{c:g}" if isinstance(c, float) else
                                   "·".join(c.delta.names) or "?" for c in p) + "]"
        return f"UncertainTF(num={show(self.num)}, den={show(self.den)})"

    def _timebase(self, other: UncertainTF) -> Any:
        try:
            return control.iosys.common_timebase(self.dt, other.dt)
        except ValueError:
            raise ArgumentError(f"incompatible timebases dt = {self.dt} and dt = {other.dt}"
                                ) from None

    def _op(self, name: str, other: Any, reflected: bool = False) -> Any:
        if isinstance(other, Uncertain) and not is_uncertain_scalar(other):
            # a dynamic uncertain system: only a proper self combines with it
            return self.to_uss()._op(name, other, reflected)
        if isinstance(other, control.StateSpace):
            return self.to_uss()._op(name, other, reflected)
        try:
            o = UncertainTF.lift(other, self.dt)
        except (ArgumentTypeError, ArgumentError) as exc:
            raise ArgumentTypeError(f"unsupported operand for {name} with an uncertain "
                                    f"transfer function: {exc}") from None
        a, b = (o, self) if reflected else (self, o)
        dt = self._timebase(o)
        if name == "add":
            return UncertainTF(padd(pmul(a.num, b.den), pmul(b.num, a.den)),
                               pmul(a.den, b.den), dt).simplify()
        if name == "sub":
            return a._op("add", -b)
        if name == "mul":
            return UncertainTF(pmul(a.num, b.num), pmul(a.den, b.den), dt).simplify()
        if name == "truediv":
            if len(b.num) == 1 and isinstance(b.num[0], float) and b.num[0] == 0.0:
                raise ArgumentError("division by a zero transfer function")
            return UncertainTF(pmul(a.num, b.den), pmul(a.den, b.num), dt).simplify()
        raise ArgumentTypeError(f"unsupported operation {name} on an uncertain transfer "
                                "function")

    def __neg__(self) -> UncertainTF:
        return UncertainTF([neg_system(c) if not isinstance(c, float) else -c
                            for c in self.num], self.den, self.dt)

    def __pow__(self, k: Any) -> Any:
        if isinstance(k, (bool, np.bool_)) or not isinstance(k, numbers.Integral):
            raise ArgumentTypeError(f"the exponent must be an integer, got {k!r:.40}")
        if abs(int(k)) > 1000:
            raise ArgumentError(f"the exponent must be at most 1000 in modulus, got {k}")
        num: list[Any] = [1.0]
        den: list[Any] = [1.0]
        for _ in range(abs(int(k))):
            num, den = pmul(num, self.num), pmul(den, self.den)
        if k < 0:
            num, den = den, num
        return UncertainTF(num, den, self.dt).simplify()

    @property
    def certain(self) -> bool:
        """True when no coefficient is uncertain."""
        return all(isinstance(c, float) for c in self.num + self.den)

    @property
    def proper(self) -> bool:
        """True when ``deg num ≤ deg den``."""
        return len(self.num) <= len(self.den)

    def simplify(self) -> Any:
        """The value as the simplest type: ``control.TransferFunction`` when certain, else
        :class:`USS` when proper, else this UncertainTF."""
        if self.certain:
            return control.tf(self.num, self.den, self.dt)
        if self.proper:
            return self.to_uss()
        return self

    def to_uss(self) -> USS:
        """The uncertain system (SISO, ``deg den`` states) in observer canonical form.

        With ``den = d_n sⁿ + … + d_0`` and ``num = b_n sⁿ + … + b_0`` (padded),
        ``a_i = d_i / d_n`` and ``β_i = b_i / d_n`` are uncertain scalars (the division
        is the LFT inverse of ``d_n``, which needs ``d_n ≠ 0`` at the centre of the box),
        and ``A = [−a | I; 0]``, ``B = β_{0:n} − a β_n``, ``C = e_1ᵀ``, ``D = β_n`` — the
        same matrices for ``s`` and ``z``. Exact for every parameter value where
        ``d_n ≠ 0``. The δ channels made redundant by the coefficient products are removed
        as by :func:`titop_lpv.reduce_lft` (1-D minimal in each parameter, not necessarily
        the fewest repeats overall).

        Raises
        ------
        ArgumentError
            If not proper (``deg num > deg den``).
        """
        if not self.proper:
            raise ArgumentError(f"{self!r} is improper (deg num > deg den): divide it into a "
                                "proper rational function before using it as a system")
        n = len(self.den) - 1
        dn = self.den[0]
        r = (1.0 / dn) if isinstance(dn, float) else inv_system(dn)
        a = [cmul(d, r) for d in self.den[1:]]
        b = [cmul(c, r) for c in [0.0] * (n + 1 - len(self.num)) + self.num]
        rows: list[list[Any]] = []
        for i in range(n):
            rows.append([neg_system(a[i]) if not isinstance(a[i], float) else -a[i]]
                        + [1.0 if j == i + 1 else 0.0 for j in range(1, n)]
                        + [cadd(b[i + 1], cmul(-1.0, cmul(a[i], b[0])))])
        rows.append([1.0 if j == 0 else 0.0 for j in range(n)] + [b[0]])
        N = vstack(*(hstack(*(as_system(np.array([[c]])) if isinstance(c, float) else c
                              for c in row)) for row in rows))
        S = N.abcd  # static: rows [z; ẋ; y], columns [w; x; u]
        nw, nz = N.delta.nw, N.delta.nz
        xr, xc = np.arange(nz, nz + n), np.arange(nw, nw + n)
        ro = np.r_[0:nz, nz + n]
        co = np.r_[0:nw, nw + n]
        R = ABCD(S.D[np.ix_(xr, xc)], S.D[np.ix_(xr, co)], S.D[np.ix_(ro, xc)],
                 S.D[np.ix_(ro, co)])
        # drop the δ channels the products made redundant (exact: tl.reduce_lft's kernel)
        blocks = N.delta.blocks
        R, sizes = reduce_abcd(R, [(b.kind, b.nw, b.nz) for b in blocks], balance=False)
        kept = [(b.with_repeats(r), N.params[b.name]) for b, r in zip(blocks, sizes) if r]
        return USS._new(R, self.dt, DeltaStructure(tuple(b for b, _ in kept)),
                        [a for _, a in kept], ["u[0]"], ["y[0]"],
                        [f"x[{i}]" for i in range(n)], None)
