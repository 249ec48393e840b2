"""State-space proof of sub-boxes of real parameters (titop_lpv.robust.modal_box) against
closed forms (Routh–Hurwitz) and brute force (eigenvalues on dense grids of the box).

The loops are those of tests/test_robust_branch_bound.py (``1/(s² + a1 s + a0)`` with
``a1 = 1 − p q + 0.4 p²``, ``a0 = 1.5 + 0.2 p − 0.3 q``: margin ``1/√0.6``; the third-order
loop, margin 1.17587 by an exhaustive grid; two masses with ``k I2``: margin 2), plus a
lightly damped oscillator ``s² + 0.002 (1 + 0.3 p) s + (1 + 0.3 p)²`` (p repeated; stable
iff ``1 + 0.3 p > 0``: margin 10/3, a pole pair 0.001 from the axis at the centre).
"""

import numpy as np
import pytest
from test_robust_branch_bound import (
    MARGIN,
    _brute_margin3,
    _coeffs3,
    _integ,
    _loop,
    _loop3,
    _two_masses,
)

import titop_lpv as tl
from titop_lpv.exceptions import ArgumentError
from titop_lpv.robust.loop import split_lft
from titop_lpv.robust.modal_box import modal_box_stable, modal_margin


def _oscillator():
    p = tl.ureal("p", 0.0, range=(-1, 1))
    w2 = (1 + 0.3 * p) * (1 + 0.3 * p)
    integ = _integ()
    return tl.feedback(tl.feedback(integ, 0.002 * (1 + 0.3 * p)) * integ, w2)


def _stable3(p, q):
    a2, a1, a0 = _coeffs3(p, q)
    return (a2 > 0) & (a0 > 0) & (a2 * a1 > a0)


def _stable1(p, q):
    return (1 - p * q + 0.4 * p * p > 0) & (1.5 + 0.2 * p - 0.3 * q > 0)


@pytest.mark.parametrize("make, stable, exact", [
    (_loop, _stable1, MARGIN), (_loop3, _stable3, None)])
def test_proved_sub_boxes_are_stable_on_a_dense_grid(make, stable, exact):
    # random sub-boxes of [-2, 2]² (the margin is about 1.2-1.3): every one proved is stable
    # at every point of a 41² grid of it (Routh-Hurwitz), and some are proved
    lft = split_lft(make(), None)
    names = [b.name for b in lft.st.blocks]
    rng = np.random.default_rng(3)
    proved = refused_unstable = 0
    u = np.linspace(-1, 1, 41)
    for _ in range(200):
        c = rng.uniform(-2, 2, 2)
        r = rng.uniform(0.01, 0.6, 2)
        g = dict(zip(names, np.meshgrid(c[0] + r[0] * u, c[1] + r[1] * u)))
        ok_grid = bool(np.all(stable(g["p"], g["q"])))
        if modal_box_stable(lft, c, r):
            proved += 1
            assert ok_grid, (c, r)
        elif not ok_grid:
            refused_unstable += 1
    assert proved >= 20 and refused_unstable >= 20


@pytest.mark.parametrize("make, exact, frac", [
    (_loop, MARGIN, 0.99), (_loop3, None, 0.99), (_two_masses, 2.0, 0.99),
    (_oscillator, 10 / 3, 0.95)])  # (at the margin a double pole at s = 0: modes merge)
def test_modal_margin_closed_forms(make, exact, frac):
    lft = split_lft(make(), None)
    exact = _brute_margin3() if exact is None else exact
    got, boxes, complete = modal_margin(lft, frac * exact, budget=60.0)
    assert complete and got == pytest.approx(frac * exact) and boxes >= 1
    # beyond the margin: never complete, and the anytime bound stays below the margin
    got, boxes, complete = modal_margin(lft, 1.05 * exact, budget=60.0, max_boxes=1500)
    assert not complete and got <= exact


def test_oscillator_pole_pair_near_the_axis():
    # the centre's poles are 0.001 from the imaginary axis; the loop stays stable up to
    # p = −10/3 (Routh–Hurwitz: both coefficients are positive multiples of 1 + 0.3 p)
    lft = split_lft(_oscillator(), None)
    assert abs(np.linalg.eigvals(lft.A).real.max() + 0.001) < 1e-12
    assert modal_box_stable(lft, np.zeros(1), np.full(1, 0.05))  # frequency ±1.5 %
    assert not modal_box_stable(lft, np.array([-3.0]), np.array([0.5]))  # contains −10/3
    rs = tl.robust_stability(_oscillator())
    assert rs.margin_lower <= 10 / 3 <= rs.margin_upper * (1 + 1e-9)
    assert rs.margin_upper == pytest.approx(10 / 3, rel=1e-9)


def test_robust_stability_default_is_conclusive_and_sound():
    exact = _brute_margin3()
    rs = tl.robust_stability(_loop3())  # refine="auto" by default
    assert rs.certified == "branch_and_bound" and rs.branch.method == "modal"
    assert rs.branch.complete and rs.margin_lower <= exact <= rs.margin_upper * (1 + 1e-9)
    assert rs.margin_upper / rs.margin_lower - 1 <= 0.02
    assert "modal eigenvalue exclusion" in rs.report()
    rs2 = tl.robust_stability(_two_masses())
    assert rs2.certified == "branch_and_bound" and 1.96 <= rs2.margin_lower <= 2.0
    # refine=False: the D-G bound of the whole box, as before (conservative, certified)
    rs0 = tl.robust_stability(_loop3(), refine=False)
    assert rs0.branch is None and rs0.certified == rs0.mu.certified == "intervals"
    assert rs0.margin_lower < rs.margin_lower


def test_modal_box_stable_bad_input():
    lft = split_lft(_loop(), None)
    with pytest.raises(ArgumentError, match="c must be 2"):
        modal_box_stable(lft, np.zeros(3), np.ones(2))
    with pytest.raises(ArgumentError, match="r must be 2"):
        modal_box_stable(lft, np.zeros(2), [1.0, np.nan])
    with pytest.raises(ArgumentError, match="r must be >= 0"):
        modal_box_stable(lft, np.zeros(2), [1.0, -0.5])
