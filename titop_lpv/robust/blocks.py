"""The block structure of Δ: :class:`Block`, :class:`DeltaStructure` and the conversion of
other descriptions of a structure (:func:`as_structure`).

``Δ = diag(Δ_1, …, Δ_N)`` is ``n_w × n_z`` (``w = Δ z``), block diagonal in block order:

* ``"real"``: ``δ I_repeats``, δ real in [−1, 1]; ``"complex"``: ``δ I_repeats``, ``|δ| ≤ 1``;
* ``"full"``: ``I_repeats ⊗ Δ₀``, Δ₀ a complex ``rows × cols`` matrix (w-side rows, z-side
  cols), σ̄(Δ₀) ≤ 1.

:class:`DeltaStructure` is the one representation of a structure in the robustness layer;
the public entry points that accept other forms (sequences of tuples, of blocks, objects
with a ``blocks`` attribute) convert them once with :func:`as_structure`.
"""

from __future__ import annotations

import math
import numbers
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np

from ..exceptions import ShapeError, TitopError
from .abcd import blkdiag
from .checks import check_count, check_finite

__all__ = ["KINDS", "Block", "BlockSpec", "DeltaStructure", "StructureError",
           "UncertaintyError", "as_blocks", "as_structure", "check_name"]

KINDS = ("real", "complex", "full")

_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class UncertaintyError(TitopError, ValueError):
    """An uncertain parameter, block or uncertain system is specified inconsistently."""


class StructureError(TitopError, ValueError):
    """A block structure is invalid or does not match the matrix it is applied to."""


def check_name(name: Any, what: str = "parameter") -> str:
    """Check that ``name`` is an identifier (letters, digits, underscores) and return it.

    Parameters
    ----------
    name : Any
        The candidate name.
    what : str, optional
        What is named, for the error message (default ``"parameter"``).

    Returns
    -------
    str
        ``name``.

    Raises
    ------
    UncertaintyError
        If ``name`` is not an identifier.
    """
    if not isinstance(name, str) or not _NAME.match(name):
        raise UncertaintyError(f"{what} name {name!r} must be an identifier "
                               "(letters, digits, underscores)")
    return name


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
    rows : int
        Rows of one copy of the block (1 for scalars): ``w`` entries it drives.
    cols : int
        Columns of one copy of the block (1 for scalars): ``z`` entries it reads.
    repeats : int
        Number of copies ``r`` (≥ 1).
    """

    name: str
    kind: str
    rows: int
    cols: int
    repeats: int

    def __post_init__(self) -> None:
        check_name(self.name, "block")
        if self.kind not in KINDS:
            raise UncertaintyError(f"block {self.name!r}: kind must be 'real', 'complex' or "
                                   f"'full', got {self.kind!r}")
        for f in ("rows", "cols", "repeats"):
            v = getattr(self, f)
            if isinstance(v, (bool, np.bool_)) or not isinstance(v, numbers.Real) or \
                    not math.isfinite(v) or v != int(v):
                raise UncertaintyError(f"block {self.name!r}: {f} must be an integer, got {v!r}")
            object.__setattr__(self, f, int(v))
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
        """The same block with another number of repetitions.

        Parameters
        ----------
        repeats : int
            The new number of copies.
        """
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
        if isinstance(self.blocks, (str, bytes)) or not hasattr(self.blocks, "__iter__"):
            raise StructureError(f"DeltaStructure takes a tuple of Block, got {self.blocks!r}")
        object.__setattr__(self, "blocks", tuple(self.blocks))
        bad = [b for b in self.blocks if not isinstance(b, Block)]
        if bad:
            raise StructureError(f"DeltaStructure takes a tuple of Block, got {bad[0]!r} (use "
                                 "as_structure for tuples (kind, rows, cols, repeats[, name]))")
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

    def matrix(self, values: Mapping[str, Any] | Any) -> np.ndarray:
        """Constant ``Δ`` (``nw × nz``) from the normalised value of each block.

        Parameters
        ----------
        values : mapping or sequence
            ``{name: δ}`` for every block, or one value per block in block order: a real
            or complex number for a scalar block (real for a ``"real"`` block), a
            ``rows × cols`` array for a full block (repeated ``repeats`` times).

        Returns
        -------
        ndarray
            Complex when a value is complex, else real.

        Raises
        ------
        UncertaintyError
            A missing or unknown block, a wrong number of values, a non-numeric, NaN or
            infinite value, a complex value for a real block, or a Δ that would take more
            than 1 GiB.
        ShapeError
            A value of the wrong shape.

        Examples
        --------
        >>> D = DeltaStructure((Block("k", "real", 1, 1, 2), Block("D", "full", 1, 2, 1)))
        >>> D.matrix({"k": 0.5, "D": [[1.0, -1.0]]})
        array([[ 0.5,  0. ,  0. ,  0. ],
               [ 0. ,  0.5,  0. ,  0. ],
               [ 0. ,  0. ,  1. , -1. ]])
        """
        names = list(self.names)
        if isinstance(values, Mapping):
            missing = [n for n in names if n not in values]
            unknown = [k for k in values if k not in names]
            if missing or unknown:
                raise UncertaintyError(f"no value for the blocks {missing}" if missing else
                                       f"unknown blocks {unknown}: the structure has {names}")
            values = [values[n] for n in names]
        if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
            raise UncertaintyError(f"values must be a mapping {{name: value}} or a sequence of "
                                   f"one value per block, got {values!r}")
        values = list(values)
        if len(values) != len(self.blocks):
            raise UncertaintyError(f"{len(values)} values for {len(self.blocks)} blocks")
        if 16 * self.nw * self.nz > 2**30:  # dense complex Δ above 1 GiB: refused at once
            raise UncertaintyError(f"Δ would be a dense {self.nw}×{self.nz} matrix "
                                   f"({16 * self.nw * self.nz / 2**30:.3g} GiB, at most 1): "
                                   f"the structure is too large ({self})")
        parts = []
        for b, v in zip(self.blocks, values):
            try:
                arr = np.atleast_2d(np.asarray(v))
            except (TypeError, ValueError):
                arr = np.asarray([[None]])
            if arr.dtype == object or not np.issubdtype(arr.dtype, np.number):
                raise UncertaintyError(f"block {b.name!r}: value {v!r} is not a number or an "
                                       "array")
            check_finite(arr, f"block {b.name!r}: value", UncertaintyError)
            if arr.shape != (b.rows, b.cols):
                raise ShapeError(f"block {b.name!r}: value of shape {arr.shape}, expected "
                                 f"{(b.rows, b.cols)}")
            if b.kind == "real" and np.iscomplexobj(arr) and arr[0, 0].imag != 0:
                raise UncertaintyError(f"block {b.name!r} is real, got the value {arr[0, 0]}")
            parts.append(np.kron(np.eye(b.repeats), arr))
        return blkdiag(*parts) if parts else np.zeros((0, 0))

    def __str__(self) -> str:
        def one(b: Block) -> str:
            core = f"{b.name}[{b.rows}×{b.cols}]" if b.kind == "full" else b.name
            return core + (f"·I{b.repeats}" if b.repeats > 1 else "")

        return f"Δ = diag({', '.join(one(b) for b in self.blocks)}), {self.nw}×{self.nz}"


class BlockSpec(NamedTuple):
    """A block as described by the user, before validation (see :func:`as_structure`).

    Parameters
    ----------
    name : Any
        Name, or an empty value for the default ``"<kind><index>"``.
    kind : Any
        ``"real"``, ``"complex"`` or ``"full"`` (any case).
    rows, cols, repeats : Any
        Integers.
    """

    name: Any
    kind: Any
    rows: Any
    cols: Any
    repeats: Any


def _spec(b: Any) -> BlockSpec | None:
    """The :class:`BlockSpec` of one item of a structure, None if it is no block."""
    if isinstance(b, (tuple, list)):
        if len(b) == 5 and str(b[0]).lower() not in KINDS and str(b[1]).lower() in KINDS:
            return BlockSpec(*b)
        if len(b) in (4, 5):
            return BlockSpec(b[4] if len(b) == 5 else "", *b[:4])
        return None
    try:
        return BlockSpec(getattr(b, "name", ""), b.kind, b.rows, b.cols, b.repeats)
    except AttributeError:
        return None


def as_structure(obj: Any) -> DeltaStructure:
    """Convert a description of a block structure to a :class:`DeltaStructure`.

    Parameters
    ----------
    obj : DeltaStructure or sequence
        A :class:`DeltaStructure` (returned as it is, as from ``USS.lftdata``), an object
        with a ``blocks`` attribute, or a sequence of :class:`Block`, of tuples
        ``(kind, rows, cols, repeats[, name])`` or ``(name, kind, rows, cols, repeats)``,
        or of objects with the attributes ``kind``, ``rows``, ``cols``, ``repeats`` (and
        optionally ``name``). Names default to ``"<kind><index>"``.

    Returns
    -------
    DeltaStructure

    Raises
    ------
    StructureError
        Listing every invalid block (or an empty structure).
    """
    if isinstance(obj, DeltaStructure):
        if not obj.blocks:
            raise StructureError("invalid block structure: the structure has no block")
        return obj
    out, problems = [], []
    items = getattr(obj, "blocks", obj)
    if isinstance(items, (str, bytes)) or not hasattr(items, "__iter__"):
        raise StructureError(f"a block structure is a sequence of blocks, got {obj!r}")
    for i, b in enumerate(items):
        spec = _spec(b)
        if spec is None:
            problems.append(f"block {i}: expected (kind, rows, cols, repeats[, name]), "
                            f"got {b!r}" if isinstance(b, (tuple, list)) else
                            f"block {i}: {b!r} is not a block (kind, rows, cols, repeats)")
            continue
        kind, name = str(spec.kind).lower(), str(spec.name or f"{spec.kind}{i}")
        try:
            rows, cols, rep = (check_count(v, f) for v, f in ((spec.rows, "rows"),
                                                                (spec.cols, "cols"),
                                                                (spec.repeats, "repeats")))
        except (TypeError, ValueError):
            problems.append(f"block {name!r}: rows, cols and repeats must be integers, got "
                            f"{spec.rows!r}, {spec.cols!r}, {spec.repeats!r}")
            continue
        if kind not in KINDS:
            problems.append(f"block {name!r}: kind {spec.kind!r} not in {KINDS}")
            continue
        try:
            out.append(Block(name, kind, rows, cols, rep))
        except UncertaintyError as exc:
            problems.append(str(exc))
    names = [b.name for b in out]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        problems.append(f"block names must be unique, repeated: {dup}")
    if not out and not problems:
        problems.append("the structure has no block")
    if problems:
        raise StructureError("invalid block structure: " + "; ".join(problems))
    return DeltaStructure(tuple(out))


def as_blocks(obj: Any) -> tuple[Block, ...]:
    """The blocks of a structure given in any form accepted by :func:`as_structure`.

    Parameters
    ----------
    obj : DeltaStructure or sequence
        The structure (see :func:`as_structure`).

    Returns
    -------
    tuple of Block
        ``as_structure(obj).blocks``.

    Raises
    ------
    StructureError
        Listing every invalid block.

    Examples
    --------
    >>> as_blocks([("real", 1, 1, 2, "k"), ("full", 2, 1, 1)])
    (Block(name='k', kind='real', rows=1, cols=1, repeats=2), \
Block(name='full1', kind='full', rows=2, cols=1, repeats=1))
    """
    return as_structure(obj).blocks
