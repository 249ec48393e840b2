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

__all__ = ["REDUCTION_RTOL", "REDUCTION_TOLERANCES", "at_delta", "matrices", "reduce_checked"]

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
    deltas = normalise(G, values, physical=False)
    blocks = G.delta.blocks
    if all(b.kind == "real" and b.rows == b.cols == 1 for b in blocks):  # Δ = diag(δ_k I)
        Delta = np.diag(np.repeat([float(deltas[b.name]) for b in blocks],
                                  [b.repeats for b in blocks]))
    else:
        Delta = G.delta.matrix(deltas)
    R = lft_upper_abcd(G.abcd, Delta,
                       what=f"{G.name or 'the uncertain system'} at the given values")
    return ABCD(*(np.real(M) for M in R))


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
