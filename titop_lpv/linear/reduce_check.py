"""The δ-channel reduction of an assembled uncertain model, checked against the assembly.

:func:`titop_lpv.robust.lft.reduce` removes repetitions by rank decisions; the block route's
LFT mixes units (a free balloon's 1e-4 couplings beside 1e4 entries), so
:func:`reduce_checked` keeps a reduction only if it changes no matrix of the model, at the
nominal values and at seeded points of the box, by more than :data:`REDUCTION_RTOL`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ..robust.abcd import ABCD, lft_upper_abcd
from ..robust.evaluate import normalise
from ..robust.lft import reduce as reduce_lft
from ..robust.uss import USS

__all__ = ["MAX_VERTEX_BLOCKS", "REDUCTION_RTOL", "REDUCTION_TOLERANCES", "ZERO_RTOL", "at_delta",
           "exact_zero_columns", "matrices", "reduce_checked"]

REDUCTION_TOLERANCES = (1e-13, 1e-15)  # rank tolerances tried, relative to ‖M‖₂
REDUCTION_RTOL = 1e-11  # largest change of [A B; C D] a reduction may make, relative


def reduce_checked(G: USS) -> tuple[USS, dict[str, tuple[int, int]]]:
    """Remove Δ repetitions that do not change the model, and check that they do not.

    The reduction's rank decisions are relative to ‖M‖₂ (after evening out the rows
    and columns of the states and signals by powers of 2), which mixes the scales of every
    channel: a small but real channel could fall under the threshold (a free balloon's 1e-4
    couplings beside 1e4 entries). So the reduced model is compared with the assembled one
    at the nominal values and at seeded points of the box; the loosest tolerance of
    :data:`REDUCTION_TOLERANCES` that keeps every matrix within :data:`REDUCTION_RTOL`
    (relative to the largest entry) is kept, else no reduction.

    Parameters
    ----------
    G : USS
        The assembled uncertain model (real scalar blocks).

    Returns
    -------
    (USS, dict of str to (int, int))
        The reduced model and, per block, its repetitions before and after.
    """
    rng = np.random.default_rng(0)
    names = list(G.params)
    points = [{}] + [{n: float(rng.uniform(-1.0, 1.0)) for n in names} for _ in range(4)]
    reference = [matrices(at_delta(G, d)) for d in points]
    scale = max(1.0, *(float(np.max(np.abs(m), initial=0.0)) for m in reference))
    for tol in REDUCTION_TOLERANCES:
        Gr, repeats = reduce_lft(G, tol=tol)
        if set(Gr.params) == set(names):
            got = [matrices(at_delta(Gr, d)) for d in points]
        else:  # a parameter dropped: compare with it at its nominal value
            got = [matrices(at_delta(Gr, {k: v for k, v in d.items() if k in Gr.params}))
                   for d in points]
        gap = max(float(np.max(np.abs(a - b), initial=0.0)) for a, b in zip(got, reference))
        if gap <= REDUCTION_RTOL * scale:
            return Gr, repeats
    return G, {b.name: (b.repeats, b.repeats) for b in G.delta}


def at_delta(G: USS, values: Mapping[str, float]) -> ABCD:
    """The matrices of ``G.at_delta(values)``, without building a python-control system.

    Parameters
    ----------
    G : USS
        The uncertain model.
    values : mapping of str to float
        Normalised values of its blocks (missing blocks: 0, the nominal).

    Returns
    -------
    ABCD
        The real state-space matrices at those values.
    """
    R = lft_upper_abcd(G.abcd, _delta_matrix(G, values),
                       what=f"{G.name or 'the uncertain system'} at the given values")
    return ABCD(*(np.real(M) for M in R))


def _delta_matrix(G: USS, values: Mapping[str, float]) -> np.ndarray:
    """Δ at normalised values of the blocks (missing blocks: their nominal)."""
    deltas = normalise(G, values, physical=False)
    blocks = G.delta.blocks
    if all(b.kind == "real" and b.rows == b.cols == 1 for b in blocks):  # Δ = diag(δ_k I)
        return np.diag(np.repeat([float(deltas[b.name]) for b in blocks],
                                 [b.repeats for b in blocks]))
    return G.delta.matrix(deltas)


def matrices(S: Any) -> np.ndarray:
    """``[[A, B], [C, D]]`` of a state-space object (``D`` alone for a static one).

    Parameters
    ----------
    S : ABCD or control.StateSpace
        Anything with ``A``, ``B``, ``C``, ``D`` attributes.

    Returns
    -------
    ndarray
    """
    A, B, C, D = (np.asarray(getattr(S, m), dtype=float) for m in "ABCD")
    return np.block([[A, B], [C, D]]) if A.size or B.size or C.size else D


ZERO_RTOL = 1e-12  # a state column of A(Δ), C(Δ) below this (relative) everywhere is zero
MAX_VERTEX_BLOCKS = 8  # up to this many blocks every vertex of the δ box is a check point


def exact_zero_columns(G: USS) -> tuple[USS, tuple[str, ...]]:
    """Make the state columns of ``A(Δ)`` and ``C(Δ)`` that vanish for every Δ exactly zero.

    A symmetry can make a column vanish for every parameter value — a vertical yaw axis,
    about which gravity has no moment, a wrist axis through its payload's centre of mass —
    through terms that cancel: turning the static wrench ``W₀`` the joint transmits, and
    turning every body's weight below it. The nonlinear route finds those columns exactly
    zero (gravity rotated about itself); the block route sums products of rotations and keeps
    a rounding residue (about 1e-16 of the cancelling terms). Small as it is, that residue
    does not leave an undamped joint's double pole at zero alone: a Jordan block splits by
    the square root of a perturbation of its lower-left entry (1e-13 → 3e-7 rad/s), and the
    low-frequency response ``1/s²`` follows.

    A column ``k`` of ``[A(Δ); C(Δ)]`` is ``[A; C_y] e_k + [B_w; D_yw] Δ (1 − D_zw Δ)⁻¹ C_z
    e_k``: zeroing ``A``'s, ``C_y``'s and ``C_z``'s column ``k`` of ``M`` changes that column of
    every plant and nothing else. It is done for a column that is zero, to
    :data:`ZERO_RTOL` of the largest entry of ``[A B; C D]`` at δ = 0, at δ = 0, at every
    vertex of the δ box (up to :data:`MAX_VERTEX_BLOCKS` blocks) and at eight seeded points
    of it: a column that is a non-zero rational function of the δ's does not vanish at all
    of those
    (this is a test by sampling, not a proof; a column below 1e-12 relative at every one of
    them changes no plant by more than that if it is not zero after all). Only columns not
    already zero in ``M`` are candidates, and only they are evaluated beyond δ = 0 (a
    solve with ``1 − D_zw Δ`` per point), so a model without any costs one evaluation.

    Parameters
    ----------
    G : USS
        The uncertain model (real scalar blocks).

    Returns
    -------
    (USS, tuple of str)
        The model with those columns zero, and the names of their states.
    """
    n = G.nstates
    if n == 0 or not len(G.delta.blocks):
        return G, ()
    M = G.abcd
    names = list(G.params)
    # candidates: columns that vanish at δ = 0 and are not already zero in M
    S0 = at_delta(G, {k: 0.0 for k in names})
    tol = ZERO_RTOL * float(np.max(np.abs(matrices(S0)), initial=0.0))
    nonzero = np.any(M.A != 0.0, axis=0) | np.any(M.C != 0.0, axis=0)
    cols0 = np.vstack([S0.A, S0.C])
    vanish = nonzero & (np.max(np.abs(cols0), axis=0, initial=0.0) <= tol)
    if not vanish.any():  # the common case: one evaluation
        return G, ()
    rng = np.random.default_rng(2)
    points: list[dict[str, float]] = []
    if len(names) <= MAX_VERTEX_BLOCKS:
        points += [{k: (-1.0, 1.0)[(c >> j) & 1] for j, k in enumerate(names)}
                   for c in range(2 ** len(names))]
    else:
        points += [{k: -1.0 for k in names}, {k: 1.0 for k in names}]
    points += [{k: float(rng.uniform(-1.0, 1.0)) for k in names} for _ in range(8)]
    # the candidate columns alone: [A; C_y] e_k + [B_w; D_yw] Δ (1 − D_zw Δ)⁻¹ C_z e_k
    nz, nw = G.delta.nz, G.delta.nw
    base = np.vstack([M.A, M.C[nz:]])
    Bw = np.vstack([M.B[:, :nw], M.D[nz:, :nw]])
    Dzw, Cz = M.D[:nz, :nw], M.C[:nz]
    blocks = G.delta.blocks
    scalar = all(b.kind == "real" and b.rows == b.cols == 1 for b in blocks)
    reps = [b.repeats for b in blocks]
    for d in points:
        K = np.flatnonzero(vanish)
        Delta = (np.diag(np.repeat([d[b.name] for b in blocks], reps)) if scalar
                 else _delta_matrix(G, d))
        X = np.linalg.solve(np.eye(nz) - Dzw @ Delta, Cz[:, K])
        cols = base[:, K] + np.real(Bw @ (Delta @ X))
        vanish[K[np.max(np.abs(cols), axis=0, initial=0.0) > tol]] = False
        if not vanish.any():
            return G, ()
    A, C = np.array(M.A, dtype=float), np.array(M.C, dtype=float)
    A[:, vanish] = 0.0
    C[:, vanish] = 0.0
    out = USS._new(ABCD(A, M.B, C, M.D), G.dt, G.delta, list(G.params.values()),
                   G.input_labels, G.output_labels, G.state_labels, G.name)
    return out, tuple(s for s, v in zip(G.state_labels, vanish) if v)
