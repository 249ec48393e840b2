"""Block structures of Δ for the structured singular value, and μ bounds as typed results.

Δ is ``n_w × n_z`` (``w = Δ z``) and block diagonal in the order of its blocks, each a
:class:`titop_lpv.robust.uss.Block` (``name, kind, rows, cols, repeats``):

* ``"real"``: δ I_repeats, δ real in [−1, 1]; ``"complex"``: δ I_repeats, ``|δ|`` ≤ 1;
* ``"full"``: I_repeats ⊗ Δ₀, Δ₀ a complex ``rows × cols`` matrix (w-side rows, z-side
  cols), σ̄(Δ₀) ≤ 1.

The structured norm of a Δ is the largest ``|δ|`` or σ̄(Δ₀) over its blocks.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

import numpy as np

from ..exceptions import TitopError
from .uss import Block, UncertaintyError

__all__ = ["MuBound", "StructureError", "as_blocks", "block_values", "structured_norm"]

KINDS = ("real", "complex", "full")


class StructureError(TitopError, ValueError):
    """A block structure is invalid or does not match the matrix it is applied to."""



def as_blocks(obj: Any) -> tuple[Block, ...]:
    """Normalise a block structure.

    Parameters
    ----------
    obj
        A :class:`~titop_lpv.robust.uss.DeltaStructure` (as returned by ``USS.lftdata``), or
        a sequence of :class:`~titop_lpv.robust.uss.Block`, of tuples ``(kind, rows, cols,
        repeats[, name])`` or ``(name, kind, rows, cols, repeats)``, or of objects with the
        attributes ``kind``, ``rows``, ``cols``, ``repeats`` (and optionally ``name``).

    Returns
    -------
    tuple of Block
        Names default to ``"<kind><index>"``.

    Raises
    ------
    StructureError
        Listing every invalid block.
    """
    out, problems = [], []
    items = getattr(obj, "blocks", obj)
    if isinstance(items, (str, bytes)) or not hasattr(items, "__iter__"):
        raise StructureError(f"a block structure is a sequence of blocks, got {obj!r}")
    for i, b in enumerate(items):
        if isinstance(b, (tuple, list)):
            if len(b) == 5 and str(b[0]).lower() not in KINDS and str(b[1]).lower() in KINDS:
                b = SimpleNamespace(name=b[0], kind=b[1], rows=b[2], cols=b[3], repeats=b[4])
            elif len(b) in (4, 5):
                b = SimpleNamespace(kind=b[0], rows=b[1], cols=b[2], repeats=b[3],
                                    name=b[4] if len(b) == 5 else "")
            else:
                problems.append(f"block {i}: expected (kind, rows, cols, repeats[, name]), "
                                f"got {b!r}")
                continue
        try:
            kind, name = str(b.kind).lower(), str(getattr(b, "name", "") or f"{b.kind}{i}")
            rows, cols, rep = int(b.rows), int(b.cols), int(b.repeats)
        except AttributeError:
            problems.append(f"block {i}: {b!r} is not a block (kind, rows, cols, repeats)")
            continue
        except (TypeError, ValueError):
            problems.append(f"block {name!r}: rows, cols and repeats must be integers")
            continue
        if kind not in KINDS:
            problems.append(f"block {name!r}: kind {b.kind!r} not in {KINDS}")
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
    return tuple(out)


class _Structure:
    """Index maps of a structure: Δ channels, AB13MD's square padding, scaling parameters."""

    def __init__(self, blocks: Any):
        self.blocks = bl = as_blocks(blocks)
        nb = len(bl)
        self.nz, self.nw = sum(b.nz for b in bl), sum(b.nw for b in bl)
        self.N = N = sum(max(b.rows, b.cols) * b.repeats for b in bl)
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

    def check(self, M: np.ndarray) -> np.ndarray:
        M = np.asarray(M, dtype=complex)
        if M.shape[-2:] != (self.nz, self.nw):
            desc = ", ".join(f"{b.name} ({b.kind} {b.rows}x{b.cols} x{b.repeats})"
                             for b in self.blocks)
            raise StructureError(f"M is {M.shape[-2]}x{M.shape[-1]} but the structure [{desc}] "
                                 f"needs n_z x n_w = {self.nz}x{self.nw} (M maps w to z)")
        return M

    def pad(self, M: np.ndarray) -> np.ndarray:
        Z = np.zeros((*M.shape[:-2], self.N, self.N), complex)
        Z[..., self.zpos[:, None], self.wpos[None, :]] = M
        return Z

    def norm(self, delta: np.ndarray) -> float:
        """Structured norm of a Δ (n_w × n_z) of this structure."""
        return float(max(np.linalg.norm(delta[np.ix_(*cop[0])], 2) for cop in self.copies))


def check_omega(omega: Any, error: type[Exception] = StructureError) -> np.ndarray:
    """Frequencies [rad/s] for an analysis: sorted, unique, finite and ``>= 0``.

    Raises ``error`` (default :class:`StructureError`) naming the problem otherwise.
    """
    try:
        w = np.unique(np.asarray(omega, float).ravel())
    except (TypeError, ValueError):
        raise error(f"omega must be an array of frequencies [rad/s], got {omega!r}") from None
    if w.size == 0 or not np.all(np.isfinite(w)) or w[0] < 0:
        raise error("omega must be a non-empty set of finite frequencies >= 0 [rad/s]")
    return w


def structured_norm(delta: np.ndarray, blocks: Any) -> float:
    """Structured norm max(``|δ_i|``, σ̄(Δ₀_j)) of a block-diagonal Δ (``n_w × n_z``)."""
    return _Structure(blocks).norm(np.asarray(delta, complex))


def block_values(delta: np.ndarray, blocks: Any) -> dict[str, Any]:
    """Each block of Δ by name: float (real), complex, or the ``rows × cols`` matrix Δ₀."""
    st = _Structure(blocks)
    out: dict[str, Any] = {}
    for b, cop in zip(st.blocks, st.copies):
        sub = np.asarray(delta)[np.ix_(*cop[0])]
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
