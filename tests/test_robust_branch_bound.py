"""Branch and bound over the δ box (titop_lpv.robust.branch_bound) on closed-form cases.

Case 1: the loop is ``1 / (s² + a1 s + a0)`` with ``a1 = 1 − p q + 0.4 p²`` and
``a0 = 1.5 + 0.2 p − 0.3 q`` (p, q ∈ [−1, 1]; p repeated). By Routh–Hurwitz it is stable iff
``a1 > 0`` and ``a0 > 0``; over the box ``[−k, k]²`` the minimum of ``a1`` is
``1 − 0.6 k²`` (at p = q = ±k) and of ``a0`` is ``1.5 − 0.5 k``, so the margin is
``1/√0.6 ≈ 1.29099``. The D-G μ bound of the whole box proves only about 1.16.

Case 2: ``1 / (s³ + a2 s² + a1 s + a0)`` with ``a2 = 1.5 + 0.5 p²``, ``a1 = 2 − p q``,
``a0 = 1 + 0.3 q``: stable iff ``a2, a0 > 0`` and ``a2 a1 > a0`` (Routh–Hurwitz); the margin
is found by bisection on an exhaustive 801 × 801 grid of the box (1.17587).

Case 3: two masses with a spring ``k`` entered twice (``k I2``) and a position feedback ``g``:
the constant coefficient of the characteristic polynomial is ``k (1 + g)``, so the margin
is 2 (a pole at s = 0 when k = 0), checked on an exhaustive grid; the D-G bound gives 0.933.
"""

import control
import numpy as np
import pytest

import titop_lpv as tl
from titop_lpv.exceptions import ArgumentError, ArgumentTypeError
from titop_lpv.robust.branch_bound import box_margin_lower, branch_margin, recentre
from titop_lpv.robust.loop import split_lft

MARGIN = 1 / np.sqrt(0.6)


def _integ():
    return tl.uss(control.ss([[0.0]], [[1.0]], [[1.0]], [[0.0]]))


def _pq():
    return tl.ureal("p", 0.0, range=(-1, 1)), tl.ureal("q", 0.0, range=(-1, 1))


def _loop():
    p, q = _pq()
    integ = _integ()
    return tl.feedback(tl.feedback(integ, 1 - p * q + 0.4 * p * p) * integ,
                       1.5 + 0.2 * p - 0.3 * q)


def _coeffs3(p, q):
    return 1.5 + 0.5 * p * p, 2 - p * q, 1 + 0.3 * q


def _loop3():
    integ = _integ()
    a2, a1, a0 = _coeffs3(*_pq())
    return tl.feedback(tl.feedback(tl.feedback(integ, a2) * integ, a1) * integ, a0)


def _brute_margin3() -> float:
    """Smallest t for which a point of the 801² grid of [−t, t]² violates Routh–Hurwitz."""
    u = np.linspace(-1, 1, 801)
    P, Q = np.meshgrid(u, u)
    lo, hi = 0.0, 10.0
    for _ in range(50):
        t = (lo + hi) / 2
        a2, a1, a0 = _coeffs3(t * P, t * Q)
        stable = np.all((a2 > 0) & (a0 > 0) & (a2 * a1 > a0))
        lo, hi = (t, hi) if stable else (lo, t)
    return hi


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
    rs = tl.robust_stability(T, refine=False)
    assert rs.margin_lower < 0.95 * MARGIN  # D-G alone: conservative by > 5 %
    assert abs(rs.margin_upper - MARGIN) < 1e-6 * MARGIN
    assert rs.certified == rs.mu.certified and rs.branch is None  # refine=False: D-G only
    proved, boxes = box_margin_lower(lft, 1.22, budget=60.0)
    assert proved and boxes > 1  # needed the split, and proved 1.22 > the D-G value
    # beyond the margin (the box contains p = q = 1.3): never proved
    assert not box_margin_lower(lft, 1.6, budget=60.0, max_boxes=3)[0]
    assert not box_margin_lower(lft, MARGIN * 1.001, budget=2.0)[0]


def test_branch_margin_anytime_is_sound():
    lft = split_lft(_loop(), None)
    # an upper bound above the true margin: the target box is never proved; the anytime
    # bound (the nearest sub-box not proved) rises towards the margin, never beyond it
    # stopped by a sub-box count, not by the clock: the same bound on a loaded machine
    res = branch_margin(lft, 1.1606, 1.45, budget=300.0, rtol=0.02, max_boxes=80)
    assert res.proved and not res.complete and res.target == pytest.approx(1.45 / 1.01)
    assert 1.2 < res.margin_lower <= MARGIN
    exact = _brute_margin3()
    res3 = branch_margin(split_lft(_loop3(), None), 1.0, 1.5, budget=3.0, rtol=0.02)
    assert not res3.complete and res3.margin_lower <= exact


def test_robust_stability_refine_closes_gap_routh_hurwitz():
    exact = _brute_margin3()
    assert abs(exact - 1.17587) < 1e-4
    T = _loop3()
    rs = tl.robust_stability(T, refine="branch", budget=60.0)  # ~1 s idle: a wide margin
    assert rs.certified == "branch_and_bound" and rs.branch is not None
    assert rs.margin_lower > rs.mu.peak_upper ** -1 * 1.005  # above the D-G value (1.1429)
    assert rs.margin_lower <= rs.margin_upper
    assert rs.margin_lower <= exact  # sound against the exhaustive grid
    assert abs(rs.margin_upper - exact) < 1e-4 * exact
    assert rs.margin_upper / rs.margin_lower - 1 <= 0.02
    assert "branch and bound" in rs.report()
    # brute force: the loop is stable on a grid of the proved box
    k = rs.margin_lower
    u = np.linspace(-k, k, 21)
    for p in u:
        a2, a1, a0 = _coeffs3(p, u)
        assert np.all((a2 > 0) & (a0 > 0) & (a2 * a1 > a0))


def test_refine_arguments_checked():
    T = _loop()
    with pytest.raises(ArgumentError, match="refine"):
        tl.robust_stability(T, refine="always")
    with pytest.raises(ArgumentTypeError, match="refine"):
        tl.robust_stability(T, refine=1)
    with pytest.raises(ArgumentError, match="budget"):
        tl.robust_stability(T, refine="branch", budget=0.0)
    with pytest.raises(ArgumentTypeError, match="budget"):
        tl.robust_stability(T, budget="5")


def _two_masses():
    """Two unit masses, damping 0.1 each, spring 1 to ground and spring k between them
    (``k I2`` in Δ), position feedback ``u = −g x1`` on the second mass: characteristic
    polynomial ``(s² + 0.1 s + 1 + k)(s² + 0.1 s + k) − k² + g k``."""
    s = tl.tf("s")
    k = tl.ureal("k", 1.0, range=(0.5, 1.5))
    g = tl.ureal("g", 0.3, range=(0.0, 0.6))
    P = k / ((s * s + 0.1 * s + 1 + k) * (s * s + 0.1 * s + k) - k * k)
    return tl.feedback(P, g)


def test_two_masses_repeated_spring_brute_force():
    # the constant coefficient is k (1 + g): a pole at s = 0 when k = 0, i.e. δ_k = −2;
    # an exhaustive 201² grid of the eigenvalues finds no instability before
    def unstable(dk, dg):
        kk, gg = 1 + 0.5 * dk, 0.3 + 0.3 * dg
        a = [np.ones_like(kk), 0.2 + 0 * kk, 1 + 2 * kk + 0.01, 0.1 * (1 + 2 * kk),
             kk * (1 + gg)]
        C = np.zeros((*kk.shape, 4, 4))
        C[..., 0, :] = -np.stack(a[1:], -1)
        C[..., 1, 0] = C[..., 2, 1] = C[..., 3, 2] = 1
        return np.linalg.eigvals(C).real.max(-1) >= 0

    u = np.linspace(-1, 1, 201)
    P, Q = np.meshgrid(u, u)
    assert not unstable(1.999 * P, 1.999 * Q).any() and unstable(2.001 * P, 2.001 * Q).any()
    lft = split_lft(_two_masses(), None)
    assert [b.repeats for b in lft.st.blocks] == [2, 1]
    res = branch_margin(lft, 0.0, 2.0, budget=60.0, rtol=0.02)  # no D-G margin given; ~3 s
    assert res.complete and res.margin_lower == pytest.approx(2.0 / 1.01)
