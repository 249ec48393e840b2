"""Branch and bound over the δ box (titop_lpv.robust.branch_bound) on a closed-form case.

The loop is ``1 / (s² + a1 s + a0)`` with ``a1 = 1 − p q + 0.4 p²`` and
``a0 = 1.5 + 0.2 p − 0.3 q`` (p, q ∈ [−1, 1]; p repeated). By Routh–Hurwitz it is stable iff
``a1 > 0`` and ``a0 > 0``; over the box ``[−k, k]²`` the minimum of ``a1`` is
``1 − 0.6 k²`` (at p = q = ±k) and of ``a0`` is ``1.5 − 0.5 k``, so the margin is
``1/√0.6 ≈ 1.29099``. The D-G μ bound of the whole box proves only about 1.16.
"""

import control
import numpy as np

import titop_lpv as tl
from titop_lpv.robust.branch_bound import box_margin_lower, recentre
from titop_lpv.robust.loop import split_lft

MARGIN = 1 / np.sqrt(0.6)


def _loop():
    integ = tl.uss(control.ss([[0.0]], [[1.0]], [[1.0]], [[0.0]]))
    p = tl.ureal("p", 0.0, range=(-1, 1))
    q = tl.ureal("q", 0.0, range=(-1, 1))
    return tl.feedback(tl.feedback(integ, 1 - p * q + 0.4 * p * p) * integ,
                       1.5 + 0.2 * p - 0.3 * q)


def _dmat(st, d):
    D = np.zeros((st.nw, st.nz))
    D[st.sw, st.sz] = np.asarray(d, float)[st.sblk]
    return D


def test_recentre_is_exact():
    lft = split_lft(_loop(), None)
    names = [b.name for b in lft.st.blocks]
    c, r = np.array([0.3, -0.7]), np.array([0.25, 0.4])
    A, B, C, D = recentre(lft, c, r)
    rng = np.random.default_rng(1)
    for dp in rng.uniform(-1, 1, (5, 2)):
        Dp = _dmat(lft.st, dp)
        Ac = A + B @ Dp @ np.linalg.solve(np.eye(D.shape[0]) - D @ Dp, C)
        d = dict(zip(names, c + r * dp))
        p, q = d["p"], d["q"]
        a1, a0 = 1 - p * q + 0.4 * p * p, 1.5 + 0.2 * p - 0.3 * q
        np.testing.assert_allclose(np.sort_complex(np.linalg.eigvals(Ac)),
                                   np.sort_complex(np.roots([1, a1, a0])), atol=1e-10)


def test_branch_bound_beats_dg_and_stays_sound():
    T = _loop()
    lft = split_lft(T, None)
    rs = tl.robust_stability(T)
    assert rs.margin_lower < 0.95 * MARGIN  # D-G alone: conservative by > 5 %
    assert abs(rs.margin_upper - MARGIN) < 1e-6 * MARGIN
    proved, boxes = box_margin_lower(lft, 1.22, budget=60.0)
    assert proved and boxes > 1  # needed the split, and proved 1.22 > the D-G value
    # beyond the margin (the box contains p = q = 1.3): never proved
    assert not box_margin_lower(lft, 1.6, budget=60.0, max_boxes=3)[0]
