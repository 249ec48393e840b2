"""The index maps of a block structure used by the μ algorithms (:class:`MuStructure`),
structured norms, Δ block by block, and μ bounds as typed results (:class:`MuBound`).

Δ is ``n_w × n_z`` (``w = Δ z``) and block diagonal in the order of its blocks, each a
:class:`titop_lpv.robust.blocks.Block` (``name, kind, rows, cols, repeats``):

* ``"real"``: δ I_repeats, δ real in [−1, 1]; ``"complex"``: δ I_repeats, ``|δ|`` ≤ 1;
* ``"full"``: I_repeats ⊗ Δ₀, Δ₀ a complex ``rows × cols`` matrix (w-side rows, z-side
  cols), σ̄(Δ₀) ≤ 1.

The structured norm of a Δ is the largest ``|δ|`` or σ̄(Δ₀) over its blocks.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .blocks import DeltaStructure, StructureError, as_structure
from .checks import numeric_array

__all__ = ["MAX_SCALING_BYTES", "MuBound", "MuStructure", "block_values", "check_scaling_size",
           "structured_norm"]


MAX_SCALING_BYTES = 2**30
"""Largest memory [bytes] the basis of the D-G scalings of a structure may take (1 GiB).

The basis holds one ``N × N`` complex matrix per pair of copies of each block (twice for a
repeated block, once more for a real one): ``16 N² Σ r²`` bytes or so, ``N`` the padded
size and ``r`` the repeats. Beyond this the μ algorithms cannot run (memory, and hours of
LMI steps); :class:`MuStructure` refuses such a structure at once."""


def check_scaling_size(delta: DeltaStructure, N: int) -> None:
    """Refuse a structure whose D-G scalings cannot be held in memory (at once, by name).

    Parameters
    ----------
    delta : DeltaStructure
        The structure.
    N : int
        Its padded size (AB13MD's square matrix).

    Raises
    ------
    StructureError
        The basis would take more than :data:`MAX_SCALING_BYTES`; the message names the
        block with the most copies.
    """
    count = sum(b.repeats ** 2 * (2 if b.repeats > 1 else 1) + (b.repeats ** 2 if b.kind ==
                                                                  "real" else 0)
                for b in delta.blocks)
    need = 16 * N * N * count
    if need > MAX_SCALING_BYTES:
        big = max(delta.blocks, key=lambda b: (b.repeats, b.rows * b.cols))
        raise StructureError(
            f"the block structure is too large for the μ algorithms: padded size N = {N}, "
            f"its D-G scalings would need {need / 2**30:.3g} GiB (at most "
            f"{MAX_SCALING_BYTES / 2**30:g}); largest block {big.name!r} ({big.kind} "
            f"{big.rows}x{big.cols} x{big.repeats})")


class MuStructure:
    """Index maps of a block structure for the μ algorithms: the Δ channels of each block
    and copy, AB13MD's square zero-padding and block description, and the parametrisation
    of the D-G scalings (diagonal: one log d per AB13MD block, one g̃ per real one; full:
    T = T_r ⊗ I_s and G̃ Hermitian on each repeated block).

    Parameters
    ----------
    blocks : DeltaStructure or sequence
        The structure, in any form accepted by
        :func:`~titop_lpv.robust.blocks.as_structure` (converted once, here).

    Attributes
    ----------
    delta : DeltaStructure
        The structure.
    blocks : tuple of Block
        Its blocks.
    nz, nw : int
        Columns and rows of Δ.
    N : int
        Size of the square zero-padded matrix given to AB13MD.

    Raises
    ------
    StructureError
        An invalid structure, or one too large for the μ algorithms
        (:func:`check_scaling_size`).
    """

    def __init__(self, blocks: DeltaStructure | Any):
        self.delta = as_structure(blocks)
        self.blocks = bl = self.delta.blocks
        nb = len(bl)
        self.nz, self.nw = sum(b.nz for b in bl), sum(b.nw for b in bl)
        self.N = N = sum(max(b.rows, b.cols) * b.repeats for b in bl)
        check_scaling_size(self.delta, N)
        self.zidx, self.widx, self.pidx, self.copies = [], [], [], []
        zpos, wpos, ab_nb, ab_it, sz, sw, sblk = [], [], [], [], [], [], []
        colT, colG, self.dparam = [], [], np.zeros(N, int)

        def unit(pairs, c=1.0):
            e = np.zeros((N, N), complex)
            for a, b in pairs:
                e[a, b] = c
            return e

        z0 = w0 = p0 = 0
        for i, b in enumerate(bl):
            zi, wi, s = np.arange(z0, z0 + b.nz), np.arange(w0, w0 + b.nw), max(b.rows, b.cols)
            P = [np.arange(p0 + k * s, p0 + (k + 1) * s) for k in range(b.repeats)]
            cop = [(wi[k * b.rows:(k + 1) * b.rows], zi[k * b.cols:(k + 1) * b.cols])
                   for k in range(b.repeats)]
            self.zidx.append(zi), self.widx.append(wi), self.copies.append(cop)
            self.pidx.append(np.concatenate(P))
            for Pk in P:
                zpos += list(Pk[:b.cols])
                wpos += list(Pk[:b.rows])
            ab_nb += [s] * b.repeats
            ab_it += [1 if b.kind == "real" else 2] * b.repeats
            if b.kind != "full":
                sz, sw, sblk = sz + list(zi), sw + list(wi), sblk + [i] * b.repeats
            for k, m in ((k, m) for k in range(b.repeats) for m in range(b.repeats)):
                pairs = list(zip(P[k], P[m]))  # T = T_r ⊗ I_s on the block
                if k == m:
                    self.dparam[P[k]] = len(colT)
                colT.append(unit(pairs))
                if b.repeats > 1:
                    colT.append(unit(pairs, 1j))
                if b.kind == "real" and k <= m:  # G̃ Hermitian on repeated reals
                    back = [(c, r) for r, c in pairs]
                    colG.append(unit(pairs) + unit(back) if k < m else unit(pairs))
                    if k < m:
                        colG.append(unit(pairs, 1j) + unit(back, -1j))
            z0, w0, p0 = z0 + b.nz, w0 + b.nw, p0 + s * b.repeats
        self.zpos, self.wpos = np.array(zpos), np.array(wpos)
        self.ab_nblock, self.ab_itype = np.array(ab_nb), np.array(ab_it)
        # diagonal scalings (AB13MD's set): one log d per AB13MD block, one g̃ per real one
        self.dgrp = np.repeat(np.arange(len(ab_nb)), ab_nb)
        self.Pd = np.zeros((N, len(ab_nb)))
        self.Pd[np.arange(N), self.dgrp] = 1.0
        self.realpad = np.repeat(np.array(ab_it) == 1, ab_nb)
        self.nd, self.nr = len(ab_nb), int(self.realpad.sum())
        self.AT = np.array([c.ravel() for c in colT]).T
        self.AG = np.array([c.ravel() for c in colG]).T.reshape(N * N, len(colG))
        self.nT, self.nG = len(colT), len(colG)
        self.isreal = np.array([b.kind == "real" for b in bl])
        self.has_real, self.all_real = bool(self.isreal.any()), bool(self.isreal.all())
        self.repeated = any(b.repeats > 1 for b in bl)
        self.sz, self.sw, self.sblk = np.array(sz, int), np.array(sw, int), np.array(sblk, int)
        self.Ps = np.zeros((len(sz), nb))
        self.Ps[np.arange(len(sz)), self.sblk] = 1.0

    def describe(self) -> str:
        """The blocks in one line, for messages: ``name (kind rows x cols xrepeats), …``."""
        return ", ".join(f"{b.name} ({b.kind} {b.rows}x{b.cols} x{b.repeats})"
                         for b in self.blocks)

    def check(self, M: np.ndarray, what: str = "M", stack: bool = True) -> np.ndarray:
        """``M`` as a finite complex array, its last two dimensions checked against
        ``n_z × n_w``.

        Parameters
        ----------
        M : array_like
            One matrix or (``stack``) a stack of them.
        what : str, optional
            Its name in the messages (default ``"M"``).
        stack : bool, optional
            Accept a stack of matrices (default True); else exactly one matrix.

        Raises
        ------
        StructureError
            A wrong shape, or a NaN or infinite entry.
        ArgumentTypeError
            ``M`` is not numeric.
        """
        M = numeric_array(M, what, error=StructureError)
        if M.ndim < 2 or (not stack and M.ndim != 2) or M.shape[-2:] != (self.nz, self.nw):
            got = "x".join(str(k) for k in M.shape[-2:]) if M.ndim >= 2 else \
                f"of shape {M.shape}"
            raise StructureError(f"{what} is {got} but the structure [{self.describe()}] "
                                 f"needs n_z x n_w = {self.nz}x{self.nw} (one matrix; M maps "
                                 "w to z)")
        return M

    def check_delta(self, delta: Any, what: str = "delta") -> np.ndarray:
        """Δ as a finite complex ``n_w × n_z`` array.

        Parameters
        ----------
        delta : array_like
            The Δ.
        what : str, optional
            Its name in the messages (default ``"delta"``).

        Raises
        ------
        StructureError
            A wrong shape, or a NaN or infinite entry.
        ArgumentTypeError
            ``delta`` is not numeric.
        """
        d = numeric_array(delta, what, error=StructureError)
        if d.shape != (self.nw, self.nz):
            raise StructureError(f"{what} has shape {d.shape} but the structure "
                                 f"[{self.describe()}] needs n_w x n_z = {self.nw}x{self.nz}")
        return d

    def pad(self, M: np.ndarray) -> np.ndarray:
        """The square zero-padded matrices Z (``N × N``) of AB13MD's structure.

        Parameters
        ----------
        M : ndarray
            Matrices ``n_z × n_w`` (stacked on the leading axes).
        """
        Z = np.zeros((*M.shape[:-2], self.N, self.N), complex)
        Z[..., self.zpos[:, None], self.wpos[None, :]] = M
        return Z

    def norm(self, delta: np.ndarray) -> float:
        """Structured norm of a Δ (n_w × n_z) of this structure.

        Parameters
        ----------
        delta : ndarray
            The Δ.
        """
        return float(max(np.linalg.norm(delta[np.ix_(*cop[0])], 2) for cop in self.copies))


def structured_norm(delta: np.ndarray, blocks: Any) -> float:
    """Structured norm max(``|δ_i|``, σ̄(Δ₀_j)) of a block-diagonal Δ (``n_w × n_z``).

    Parameters
    ----------
    delta : array_like
        The Δ (``n_w × n_z``).
    blocks : DeltaStructure or sequence
        Block structure (see :func:`~titop_lpv.robust.blocks.as_structure`).

    Returns
    -------
    float

    Examples
    --------
    >>> structured_norm([[0.5, 0.0], [0.0, -2.0]], [("real", 1, 1, 1), ("complex", 1, 1, 1)])
    2.0
    """
    st = MuStructure(blocks)
    return st.norm(st.check_delta(delta))


def block_values(delta: np.ndarray, blocks: Any) -> dict[str, Any]:
    """Each block of Δ by name: float (real), complex, or the ``rows × cols`` matrix Δ₀.

    Parameters
    ----------
    delta : array_like
        The Δ (``n_w × n_z``).
    blocks : DeltaStructure or sequence
        Block structure (see :func:`~titop_lpv.robust.blocks.as_structure`).

    Returns
    -------
    dict
    """
    st = MuStructure(blocks)
    checked = st.check_delta(delta)
    delta = checked if np.iscomplexobj(np.asarray(delta)) else checked.real  # keep real Δ₀ real
    out: dict[str, Any] = {}
    for b, cop in zip(st.blocks, st.copies):
        sub = delta[np.ix_(*cop[0])]
        out[b.name] = (float(sub[0, 0].real) if b.kind == "real" else
                       complex(sub[0, 0]) if b.kind == "complex" else sub.copy())
    return out


@dataclass(frozen=True)
class MuBound:
    """A bound on μ(M).

    Attributes
    ----------
    value : float
        The bound.
    kind : str
        ``"upper"`` or ``"lower"``.
    method : str
        How it was obtained.
    D, G : ndarray or None
        Upper bound: Hermitian D > 0 and G, block diagonal and commuting with Δ, on the square
        zero-padded matrix Z (= M when every full block is square), with
        ``Zᴴ D Z + j(G Z − Zᴴ G) ≤ value² D`` (Fan–Tits–Doyle certificate).
    delta : ndarray or None
        Lower bound: a Δ (``n_w × n_z``) in the structure with structured norm 1/value and
        ``det(I − M Δ) = 0`` (None when the bound is 0).
    residual : float
        Lower bound: σ_min(I − M Δ)/(1 + σ̄(M) σ̄(Δ)), verified ≤ 1e-8.
    """

    value: float
    kind: str
    method: str
    D: np.ndarray | None = None
    G: np.ndarray | None = None
    delta: np.ndarray | None = None
    residual: float = 0.0
