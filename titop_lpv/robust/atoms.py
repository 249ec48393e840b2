"""Uncertain parameters: real (:func:`ureal`), complex (:func:`ucomplex`) and unmodelled
dynamics (:func:`ultidyn`).

Each one is normalised to a block of Δ (see :class:`titop_lpv.robust.blocks.DeltaStructure`)
and behaves in arithmetic as a static uncertain system (1×1 for a parameter, ``ny × nu``
for unmodelled dynamics): ``k * G``, ``feedback(G / m, c)``, ``P * (1 + W * D)`` …

"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from .abcd import ABCD
from .blocks import Block, DeltaStructure, UncertaintyError, check_name
from .checks import check_count
from .uss import USS, Arithmetic

__all__ = ["UComplex", "ULTIDyn", "UReal", "ucomplex", "ultidyn", "ureal"]


def _real(x: Any, name: str, what: str) -> float:
    try:
        v = complex(x)
    except (TypeError, ValueError):
        raise UncertaintyError(f"parameter {name!r}: {what} must be a number, "
                               f"got {x!r}") from None
    if v.imag != 0 or not math.isfinite(v.real):
        raise UncertaintyError(f"parameter {name!r}: {what} must be a finite real number, "
                               f"got {x!r}")
    return v.real


@dataclass(frozen=True)
class UReal(Arithmetic):
    """Uncertain real parameter: value ``center + half_width·δ``, ``δ ∈ [−1, 1]``.

    Build it with :func:`ureal`. It behaves as a 1×1 static uncertain system.

    Parameters
    ----------
    name : str
        Identifier.
    nominal : float
        Nominal value, inside ``[lo, hi]``.
    lo, hi : float
        Range, ``lo < hi``.
    """

    name: str
    nominal: float
    lo: float
    hi: float
    kind: ClassVar[str] = "real"

    def __post_init__(self) -> None:
        check_name(self.name)
        for attr in ("nominal", "lo", "hi"):
            object.__setattr__(self, attr, _real(getattr(self, attr), self.name, attr))
        if self.lo == self.hi:
            raise UncertaintyError(f"parameter {self.name!r} has a zero-width range "
                                   f"[{self.lo:g}, {self.hi:g}]")
        if self.lo > self.hi:
            raise UncertaintyError(f"parameter {self.name!r}: range [{self.lo:g}, {self.hi:g}] "
                                   "is reversed")
        if not self.lo <= self.nominal <= self.hi:
            raise UncertaintyError(f"parameter {self.name!r}: nominal {self.nominal:g} lies "
                                   f"outside its range [{self.lo:g}, {self.hi:g}]")

    @property
    def center(self) -> float:
        """Centre ``c = (lo + hi)/2`` (the value at δ = 0)."""
        return 0.5 * (self.lo + self.hi)

    @property
    def half_width(self) -> float:
        """Scale ``s = (hi − lo)/2`` (value = c + s δ)."""
        return 0.5 * (self.hi - self.lo)

    @property
    def delta_nominal(self) -> float:
        """Normalised nominal ``(nominal − c)/s``."""
        return (self.nominal - self.center) / self.half_width

    def to_delta(self, value: float) -> float:
        """Normalised ``δ`` of a physical value.

        Parameters
        ----------
        value : float
            The physical value.
        """
        return (_real(value, self.name, "value") - self.center) / self.half_width

    def from_delta(self, delta: float) -> float:
        """Physical value of a normalised ``δ``.

        Parameters
        ----------
        delta : float
            The normalised value.
        """
        return self.center + self.half_width * delta

    def affine(self) -> tuple[float, float]:
        """``(c, s)`` with value ``= c + s δ``."""
        return self.center, self.half_width

    def block(self, repeats: int = 1) -> Block:
        """The block ``δ I_repeats``.

        Parameters
        ----------
        repeats : int, optional
            Number of copies (default 1).
        """
        return Block(self.name, self.kind, 1, 1, repeats)

    def _as_uss(self) -> USS:
        c, s = self.affine()  # z = u, y = s w + c u
        return USS._new(ABCD(np.zeros((0, 0)), np.zeros((0, 2)), np.zeros((2, 0)),
                             np.array([[0.0, 1.0], [s, c]])), None,
                        DeltaStructure((self.block(),)), [self], ["u[0]"], ["y[0]"], [],
                        self.name)


def _pair(x: Any, name: str, what: str) -> tuple[float, float] | float:
    if isinstance(x, (tuple, list, np.ndarray)):
        if len(x) != 2:
            raise UncertaintyError(f"parameter {name!r}: {what} must be a number or a pair")
        return (_real(x[0], name, what), _real(x[1], name, what))
    return _real(x, name, what)


def ureal(name: str, nominal: float, *, range: tuple[float, float] | None = None,
          percent: float | tuple[float, float] | None = None,
          plusminus: float | tuple[float, float] | None = None) -> UReal:
    """Uncertain real parameter ``k = c + s δ``, ``δ ∈ [−1, 1]`` ↔ ``k ∈ [lo, hi]``.

    Give exactly one of ``range``, ``percent`` and ``plusminus``.

    Parameters
    ----------
    name : str
        Identifier (letters, digits, underscores).
    nominal : float
        Nominal value (used by ``G.nominal()``); must lie in the range.
    range : (float, float), optional
        ``(lo, hi)``, the physical range.
    percent : float or (float, float), optional
        ``p``: ``nominal ± |nominal|·p/100``; a pair ``(p_lo, p_hi)`` (p_lo ≤ 0 ≤ p_hi)
        gives ``[nominal + |nominal|·p_lo/100, nominal + |nominal|·p_hi/100]``.
    plusminus : float or (float, float), optional
        ``d``: ``nominal ± d``; a pair ``(d_lo, d_hi)`` gives
        ``[nominal + d_lo, nominal + d_hi]``.

    Returns
    -------
    UReal

    Raises
    ------
    UncertaintyError
        Zero-width or reversed range, nominal outside the range, bad name, none or several
        of the range arguments; the message names the parameter.

    Examples
    --------
    >>> k = ureal("k", 2.0, percent=25)
    >>> k.lo, k.hi, k.affine()
    (1.5, 2.5, (2.0, 0.5))
    >>> k.from_delta(-1.0), k.to_delta(2.25)
    (1.5, 0.5)
    """
    check_name(name)
    nominal = _real(nominal, name, "nominal")
    given = [k for k, v in (("range", range), ("percent", percent),
                            ("plusminus", plusminus)) if v is not None]
    if len(given) != 1:
        raise UncertaintyError(f"parameter {name!r}: give exactly one of range=, percent=, "
                               f"plusminus= (got {given or 'none'})")
    if range is not None:
        r = _pair(range, name, "range")
        if not isinstance(r, tuple):
            raise UncertaintyError(f"parameter {name!r}: range must be a pair (lo, hi)")
        lo, hi = r
    else:
        scale = abs(nominal) / 100.0 if percent is not None else 1.0
        d = _pair(percent if percent is not None else plusminus, name, given[0])
        if not isinstance(d, tuple):
            if d < 0:
                raise UncertaintyError(f"parameter {name!r}: {given[0]} must be ≥ 0, got {d:g}")
            d = (-d, d)
        lo, hi = nominal + scale * d[0], nominal + scale * d[1]
    return UReal(name, nominal, lo, hi)


@dataclass(frozen=True)
class UComplex(Arithmetic):
    """Uncertain complex parameter ``nominal + radius·δ``, ``|δ| ≤ 1``; see :func:`ucomplex`.

    Parameters
    ----------
    name : str
        Identifier.
    nominal : float
        Centre of the disc (real: M is a real system).
    radius : float
        Radius of the disc, > 0.
    """

    name: str
    nominal: float
    radius: float
    kind: ClassVar[str] = "complex"

    def __post_init__(self) -> None:
        check_name(self.name)
        object.__setattr__(self, "nominal", _real(self.nominal, self.name, "nominal (the "
                                                  "disc centre; M is a real system)"))
        object.__setattr__(self, "radius", _real(self.radius, self.name, "radius"))
        if self.radius <= 0:
            raise UncertaintyError(f"parameter {self.name!r}: radius must be > 0 (zero-width "
                                   f"disc), got {self.radius:g}")

    delta_nominal: ClassVar[float] = 0.0

    def to_delta(self, value: complex) -> complex:
        """Normalised ``δ`` of a physical value.

        Parameters
        ----------
        value : complex
            The physical value.
        """
        try:
            return (complex(value) - self.nominal) / self.radius
        except (TypeError, ValueError):
            raise UncertaintyError(f"parameter {self.name!r}: value must be a number, "
                                   f"got {value!r}") from None

    def from_delta(self, delta: complex) -> complex:
        """Physical value of a normalised ``δ``.

        Parameters
        ----------
        delta : complex
            The normalised value.
        """
        return self.nominal + self.radius * delta

    def affine(self) -> tuple[float, float]:
        """``(nominal, radius)`` with value ``= nominal + radius δ``."""
        return self.nominal, self.radius

    def block(self, repeats: int = 1) -> Block:
        """The block ``δ I_repeats``.

        Parameters
        ----------
        repeats : int, optional
            Number of copies (default 1).
        """
        return Block(self.name, self.kind, 1, 1, repeats)

    _as_uss = UReal._as_uss


def ucomplex(name: str, nominal: float, *, radius: float | None = None,
             percent: float | None = None) -> UComplex:
    """Uncertain complex parameter in the disc ``|value − nominal| ≤ radius``.

    Parameters
    ----------
    name : str
        Identifier.
    nominal : float
        Centre of the disc; real (the LFT ``M`` is a real python-control system).
    radius : float, optional
        Radius (> 0).
    percent : float, optional
        Radius as a percentage of ``|nominal|``. Give exactly one of radius and percent.

    Returns
    -------
    UComplex

    Raises
    ------
    UncertaintyError
        Zero radius, complex nominal, none or both of radius/percent.
    """
    check_name(name)
    nominal = _real(nominal, name, "nominal (the disc centre; M is a real system)")
    if (radius is None) == (percent is None):
        raise UncertaintyError(f"parameter {name!r}: give exactly one of radius=, percent=")
    r = radius if radius is not None else abs(nominal) * _real(percent, name, "percent") / 100
    return UComplex(name, nominal, r)


@dataclass(frozen=True)
class ULTIDyn(Arithmetic):
    """Unmodelled dynamics: a stable LTI ``Δ`` of size ``shape`` with ``‖Δ‖∞ ≤ bound``;
    see :func:`ultidyn`. In the LFT it is the full block ``Δ/bound`` (norm ≤ 1).

    Parameters
    ----------
    name : str
        Identifier.
    shape : (int, int)
        ``(ny, nu)``: outputs × inputs of Δ.
    bound : float
        Bound on the H∞ norm, > 0.
    """

    name: str
    shape: tuple[int, int]
    bound: float = 1.0
    kind: ClassVar[str] = "full"

    def __post_init__(self) -> None:
        check_name(self.name)
        what = f"ultidyn {self.name!r}: shape"
        if isinstance(self.shape, (str, bytes)) or not hasattr(self.shape, "__len__") or \
                len(self.shape) != 2:
            raise UncertaintyError(f"{what} must be a pair of integers (ny, nu), got "
                                   f"{self.shape!r}")
        try:
            shape = tuple(check_count(s, what, minimum=1) for s in self.shape)
        except (TypeError, ValueError):
            raise UncertaintyError(f"{what} must be (ny, nu), integers ≥ 1, got "
                                   f"{self.shape!r}") from None
        object.__setattr__(self, "shape", shape)
        object.__setattr__(self, "bound", _real(self.bound, self.name, "bound"))
        if self.bound <= 0:
            raise UncertaintyError(f"ultidyn {self.name!r}: bound must be > 0, "
                                   f"got {self.bound:g}")

    def block(self, repeats: int = 1) -> Block:
        """The full block (``repeats`` copies).

        Parameters
        ----------
        repeats : int, optional
            Number of copies (default 1).
        """
        return Block(self.name, self.kind, self.shape[0], self.shape[1], repeats)

    def _as_uss(self) -> USS:
        ny, nu = self.shape  # z = u, y = bound w
        D = np.block([[np.zeros((nu, ny)), np.eye(nu)],
                      [self.bound * np.eye(ny), np.zeros((ny, nu))]])
        return USS._new(ABCD(np.zeros((0, 0)), np.zeros((0, ny + nu)), np.zeros((ny + nu, 0)),
                             D), None, DeltaStructure((self.block(),)), [self],
                        [f"u[{i}]" for i in range(nu)], [f"y[{i}]" for i in range(ny)], [],
                        self.name)


def ultidyn(name: str, shape: tuple[int, int] = (1, 1), bound: float = 1.0) -> ULTIDyn:
    """Unmodelled dynamics: any stable LTI ``Δ`` with ``ny`` outputs, ``nu`` inputs and
    ``‖Δ‖∞ ≤ bound`` (a full complex block for μ analysis).

    Parameters
    ----------
    name : str
        Identifier.
    shape : (int, int), optional
        ``(ny, nu)``, default (1, 1).
    bound : float, optional
        Bound on the H∞ norm (> 0), default 1.

    Returns
    -------
    ULTIDyn

    Raises
    ------
    UncertaintyError
        A name that is not an identifier, a shape that is not two integers ≥ 1 (``(1.5,
        2.7)`` is refused, not truncated), or a bound that is not a finite number > 0.
    """
    return ULTIDyn(name, shape, bound)


Atom = UReal | UComplex | ULTIDyn
