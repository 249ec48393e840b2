"""A μ upper bound below a level, proved on a frequency band only (:func:`cover_band`).

The branch and bound of :mod:`titop_lpv.robust.branch_bound` proves a box of real parameters
in pieces: the frequencies where the D-G bound of the whole box is below the level once, and
the remaining bands sub-box by sub-box. This module proves ``μ(Z(jω)) < level`` on a closed
band ``[a, b]`` (``b = inf`` allowed, then ω = ∞ is included), left to right, with constant
D-G scalings on open intervals (:func:`titop_lpv.robust.certify.scaled_interval`: the
Hermitian frequency-domain test has no imaginary-axis crossing between the interval's ends),
and returns the parts of the band it could not prove, so that the caller splits the box
there only. It stops early (the rest of the band unproved) as soon as the D-G bound at one
frequency is not below the level: the box cannot be proved by this test, whatever the rest.
"""

from __future__ import annotations

import numpy as np

from .certify import complex_scaling, diag_scaling, padded_system, scaled_interval
from .mu import freqresp
from .mu_upper import dg_batch, dg_common, dg_init
from .structure import MuStructure

__all__ = ["band_grid", "cover_band"]


def band_grid(omega: np.ndarray, bands: list[tuple[float, float]],
              poles: np.ndarray) -> np.ndarray:
    """The grid frequencies [rad/s] inside ``bands``, their ends, and points near the poles
    (``|Im p| + k |Re p|``, k = 0, ±1, ±3) whose frequency lies in a band: where a lightly
    damped mode of the (re-centred) loop puts the peak of μ.

    Parameters
    ----------
    omega : ndarray
        A sorted grid [rad/s].
    bands : list of (float, float)
        Closed bands ``[a, b]`` (``b`` may be inf).
    poles : ndarray
        Poles of the loop at the centre of the box.
    """
    p = np.asarray(poles, complex)
    near = (np.abs(p.imag)[:, None] + np.array([-3, -1, 0, 1, 3])[None]
            * np.abs(p.real)[:, None]).ravel()
    w = np.r_[np.asarray(omega, float), near[near >= 0]]
    out = [np.zeros(0)]
    for a, b in bands:
        out.append(np.r_[w[(w >= a) & (w <= b)], a, [b] if np.isfinite(b) else []])
    return np.unique(np.concatenate(out))


def cover_band(abcd: tuple, st: MuStructure, a: float, b: float, level: float,
               grid: np.ndarray, x_grid: np.ndarray, max_fresh: int = 40
               ) -> tuple[list[tuple[float, float]], bool]:
    """Prove ``μ(Z(jω)) < level`` on ``[a, b]``; the parts not proved.

    Parameters
    ----------
    abcd : tuple of ndarray
        ``(A, B, C, D)`` of the Δ-channel part (``n_z × n_w``), A stable.
    st : MuStructure
        The block structure.
    a, b : float
        The band [rad/s], ``0 <= a <= b`` (``b = inf``: up to ω = ∞ included).
    level : float
        The level to prove (> 0).
    grid : ndarray
        Sorted frequencies [rad/s] of the band with D-G scalings ``x_grid`` (one row each,
        diagonal parametrisation of :func:`titop_lpv.robust.mu_upper.dg_batch`), tried
        first at each step.
    x_grid : ndarray
        The scalings of ``grid``.
    max_fresh : int, optional
        Fresh scaling computations at most (default 40); past it, the rest is not proved.

    Returns
    -------
    (list of (float, float), bool)
        Closed sub-bands not proved (empty: the bound holds on the whole band), and whether
        the test failed for good (a frequency where the D-G bound is not below the level:
        no scalings can prove it there).
    """
    A, B, C, D = abcd
    pz = padded_system(A, B, C, D, st.zpos, st.wpos, st.N)
    c, fresh, x_last = float(a), 0, None

    def covers(iv, c):
        return iv is not None and (iv[0] < c or (c == 0.0 and iv[0] < 0)) and iv[1] > c

    while True:
        best = None
        k = int(np.searchsorted(grid, c))
        for j in (k - 1, k, k + 1):  # scalings of the grid points around c
            if 0 <= j < grid.size:
                iv = scaled_interval(pz, level, diag_scaling(x_grid[j], st), float(grid[j]))
                if covers(iv, c) and (best is None or iv[1] > best[1]):
                    best = iv
        if best is None:
            if fresh >= max_fresh:
                return [(c, b)], False
            fresh += 1
            Z = st.pad(freqresp(_Sys(A, B, C, D), [c]))
            x0 = x_grid[min(k, grid.size - 1)] if grid.size else \
                (x_last if x_last is not None else dg_init(Z, st)[0])
            ub, x = dg_batch(Z, st, x0[None], iters=40)
            if ub[0] >= level:  # from the balanced start too, longer
                u2, x2 = dg_batch(Z, st, dg_init(Z, st), iters=80)
                ub, x = (u2, x2) if u2[0] < ub[0] else (ub, x)
            i = 0
            if ub[i] >= level:
                return [(c, b)], True
            x_last = x[i]
            nxt = grid[grid > c]
            h = (nxt[0] - c) if nxt.size else max(c, 1e-3)
            for sc in _candidates(A, B, C, D, st, Z, c, h, x[i], level):  # lazily
                iv = scaled_interval(pz, level, sc, c)
                if covers(iv, c) and (best is None or iv[1] > best[1]):
                    best = iv
                if best is not None and best[1] >= c + h:
                    break
            if best is None or best[1] <= c * (1 + 1e-12) + 1e-300:
                return [(c, b)], False
        c = best[1]
        if c > b or np.isinf(c):  # (the interval is open: c = b itself is covered next)
            return [], False


def _candidates(A, B, C, D, st, Z, c, h, x, level):
    """Scalings to try at ``c``, costlier and milder in turn: the D-G optimum ``x`` at ``c``;
    D-G shared over ``[c, c + h]`` and ``[c, c + h/8]`` (longer intervals); D only (G = 0).
    Only those whose bound at the frequencies they were fitted on is below ``level``."""
    yield diag_scaling(x, st)
    for f in (1.0, 0.125):
        ws = c + f * h * np.linspace(0.0, 1.0, 5)
        bc, xc = dg_common(st.pad(freqresp(_Sys(A, B, C, D), ws)), st, x)
        if bc < level:
            yield diag_scaling(xc, st)
    bc, scc = complex_scaling(Z[0], st, x)
    if bc < level:
        yield scc


class _Sys:
    """Matrices with the attributes freqresp expects."""

    def __init__(self, A, B, C, D):
        self.A, self.B, self.C, self.D = A, B, C, D
