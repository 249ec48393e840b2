"""Dynamic worst cases of ``worst_case_gain`` over ``ultidyn`` / ``ucomplex`` blocks (issue 13,
item 3), and the zero-gain system (a typed result, not a raw LinAlgError).

References are closed forms: with ``G = N (1 + W Δ)`` and one ``ultidyn`` ``‖Δ‖∞ ≤ 1``, every
complex ``δ``, ``|δ| ≤ 1``, is the value at ``jω`` of a stable all-pass times ``|δ|``, so the
worst case is ``max_ω |N(jω)| (1 + |W(jω)|)``; with a ``ucomplex`` ``c`` in the disc
``|c − c₀| ≤ r`` it is ``max_ω |N(jω)| (|c₀| + r)`` for ``G = N c``.
"""

from __future__ import annotations

import control
import numpy as np
import pytest
from scipy import optimize

import titop_lpv as tl

N = control.tf([100.0], [1.0, 0.4, 111.0])
W = control.tf([0.5, 0.5], [0.1, 1.0])


def _max(f, lo, hi):
    """Maximum of a smooth scalar function on [lo, hi]: a fine grid, then Brent."""
    ws = np.linspace(lo, hi, 2001)
    v = np.array([f(x) for x in ws])
    k = int(np.argmax(v))
    r = optimize.minimize_scalar(lambda x: -f(x), bounds=(ws[max(k - 1, 0)],
                                                          ws[min(k + 1, ws.size - 1)]),
                                 method="bounded", options={"xatol": 1e-12})
    return -r.fun, r.x


def test_ultidyn_dynamic_worst_case_reaches_the_closed_form():
    """The peak (10.533 rad/s) lies between the points of a 30-point grid; the real static
    search finds only δ = ±1 (|N| (1 + Re W ...) < the closed form); the dynamic Δ(s) reaches
    the closed form to 1e-9 and is a stable first-order all-pass of gain 1."""
    G = tl.uss(N) * (1 + tl.uss(W) * tl.ultidyn("d", (1, 1)))
    truth, _ = _max(lambda w: abs(N(1j * w)) * (1 + abs(W(1j * w))), 8.0, 13.0)
    assert truth == pytest.approx(110.177266, rel=1e-6)
    wc = tl.worst_case_gain(G, omega=np.logspace(0, 2, 30))
    assert wc.delta_system is not None
    assert abs(wc.gain / truth - 1) <= 1e-9
    assert wc.upper >= wc.gain and wc.upper <= truth * (1 + 1e-4)
    d = wc.delta_system
    assert np.all(np.real(control.poles(d)) < 0)
    ws = np.logspace(-2, 3, 200)
    np.testing.assert_allclose(np.abs([d(1j * w)[0, 0] if np.ndim(d(1j * w)) else d(1j * w)
                                       for w in ws]).ravel(), 1.0, rtol=1e-12)
    # independent check: G closed with Δ(s), evaluated by hand, peaks at the gain
    dd = control.ss2tf(d)

    def closed(w):
        return abs(N(1j * w) * (1 + W(1j * w) * dd(1j * w)))
    peak, _ = _max(closed, 8.0, 13.0)
    assert peak == pytest.approx(wc.gain, rel=1e-9)
    assert closed(wc.omega_critical) == pytest.approx(truth, rel=1e-9)
    assert "stable LTI Δ(s)" in wc.report()


def test_ucomplex_dynamic_worst_case_is_the_closed_form():
    """``G = N c`` with ``c`` in the disc ``|c − 1| ≤ 0.5``: worst case ``1.5 max |N|``, where the
    real axis gives the same (c = 1.5), so the static search already attains it; the upper
    bound is within 1e-4."""
    c = tl.ucomplex("c", 1.0, radius=0.5)
    G = tl.uss(N) * c
    truth = 1.5 * _max(lambda w: abs(N(1j * w)), 8.0, 13.0)[0]
    wc = tl.worst_case_gain(G, omega=np.logspace(0, 2, 40))
    assert wc.gain == pytest.approx(truth, rel=1e-9)
    assert truth * (1 - 1e-9) <= wc.upper <= truth * (1 + 1e-4)


def test_ucomplex_phase_matters():
    """``G = N (1 + W c)``, ``c`` in the unit disc: the closed form ``max |N| (1 + |W|)`` needs a
    complex c (W is complex at the peak), which the real static search cannot reach."""
    G = tl.uss(N) * (1 + tl.uss(W) * tl.ucomplex("c", 0.0, radius=1.0))
    truth = _max(lambda w: abs(N(1j * w)) * (1 + abs(W(1j * w))), 8.0, 13.0)[0]
    wc = tl.worst_case_gain(G, omega=np.logspace(0, 2, 30))
    no_upper = tl.worst_case_gain(G, omega=np.logspace(0, 2, 30), upper=False)
    assert wc.gain == pytest.approx(truth, rel=1e-9)
    assert no_upper.gain == wc.gain  # the dynamic search runs with upper=False too
    assert np.iscomplexobj(wc.delta) and abs(wc.delta[0, 0]) == pytest.approx(1.0, rel=1e-9)
    assert wc.upper >= wc.gain


def test_real_and_ultidyn_worst_case_between_static_and_upper():
    """A real parameter and an ultidyn: the dynamic gain is at least the real static one
    (vertices with δ_d = ±1) and at most the certified upper bound."""
    k = tl.ureal("k", nominal=111.0, percent=10)
    P = tl.tf([100.0], [1.0, 0.4, k])
    G = P * (1 + tl.uss(W) * tl.ultidyn("d", (1, 1)))
    wc = tl.worst_case_gain(G, omega=np.logspace(0, 2, 40))
    grid = [abs(100.0 / ((1j * w) ** 2 + 0.4j * w + kk)) * (1 + abs(W(1j * w)))
            for kk in (99.9, 111.0, 122.1) for w in np.linspace(9, 12, 1501)]
    assert wc.gain >= max(grid) * (1 - 1e-6)
    assert wc.gain <= wc.upper


def test_zero_gain_is_a_typed_result():
    """No path from the performance input to the output: gain 0, upper 0, ``exact``."""
    k = tl.ureal("k", nominal=2.0, percent=20)
    P = tl.uss(control.ss([[-1.0]], [[1.0]], [[0.0]], [[0.0]])) * k
    wc = tl.worst_case_gain(P)
    assert (wc.gain, wc.upper, wc.certified) == (0.0, 0.0, "exact")
    assert "gain 0" in wc.report()
    G = tl.uss(control.tf([1.0], [1.0, 1.0])) * (1 + 0.5 * tl.ultidyn("d", (1, 1))) * 0.0
    wc = tl.worst_case_gain(G)
    assert (wc.gain, wc.upper, wc.certified) == (0.0, 0.0, "exact")
