"""Conveniences of the robust layer (issue 13, item 5): USS indexing, lft/star with two
uncertain operands, uncertain transfer functions, makeweight, the robust performance
margin, Monte-Carlo H∞ peaks; each against an independent computation, and bad input."""

from __future__ import annotations

import itertools

import control
import numpy as np
import pytest

import titop_lpv as tl
from titop_lpv.exceptions import ArgumentError, ArgumentTypeError, ShapeError, UnknownNameError
from titop_lpv.robust.lft import lft_lower, lft_upper, star
from titop_lpv.robust.performance import robust_performance
from titop_lpv.robust.tf import tf
from titop_lpv.robust.uss import UncertainTF
from titop_lpv.robust.weights import makeweight

W = np.array([0.03, 0.3, 1.0, 2.7, 11.0])


def _resp(sys, w=W):
    return np.array([np.atleast_2d(sys(1j * x)) for x in w])


def _plant():
    k = tl.ureal("k", 2.0, range=(1.0, 3.0))
    g = tl.ureal("g", 0.5, range=(0.2, 0.8))
    P0 = control.ss([[-1.0, 0.3], [0.0, -2.0]], [[1.0, 0.0, 0.5], [0.0, 1.0, 0.2]],
                    [[1.0, 1.0], [1.0, -1.0]], np.zeros((2, 3)),
                    inputs=["d", "u1", "u2"], outputs=["z", "y"])
    return tl.uss(P0) * k + g * np.ones((2, 3)), k, g


def test_indexing_matches_entries():
    G = _plant()[0]
    H = G["y", ["u2", "d"]]
    assert H.output_labels == ["y"] and H.input_labels == ["u2", "d"]
    assert G[1, 2].input_labels == ["u2"] and G[-1, :].shape == (1, 3)
    assert G[:, 1:].input_labels == ["u1", "u2"] and G[[0], np.array([2, 0])].shape == (1, 2)
    assert H.delta == G.delta  # every block kept
    for kv, gv in [(1.1, 0.3), (2.9, 0.75)]:
        full = _resp(G.at(k=kv, g=gv))
        assert np.abs(_resp(H.at(k=kv, g=gv)) - full[:, [1]][:, :, [2, 0]]).max() < 1e-13


def test_indexing_bad_input():
    G = _plant()[0]
    with pytest.raises(ArgumentTypeError, match="two indices"):
        G[0]
    with pytest.raises(UnknownNameError, match="no input named 'w'"):
        G[0, "w"]
    with pytest.raises(ShapeError, match="out of range"):
        G[5, 0]
    with pytest.raises(ArgumentTypeError, match="output index"):
        G[0.5, 0]
    with pytest.raises(ArgumentTypeError, match="input index"):
        G[0, True]
    with pytest.raises(ShapeError, match="selects no input"):
        G[0, 3:]
    with pytest.raises(ArgumentError, match="step"):
        G[0, ::0]


def _lower_ref(P, K, w):
    """F_l(P, K)(jω) by the formula, from frequency responses (independent of star_abcd)."""
    out = []
    for x in w:
        Pm, Km = np.atleast_2d(P(1j * x)), np.atleast_2d(K(1j * x))
        ny, nu = Km.shape[1], Km.shape[0]
        P11, P12 = Pm[:-ny, :-nu], Pm[:-ny, -nu:]
        P21, P22 = Pm[-ny:, :-nu], Pm[-ny:, -nu:]
        out.append(P11 + P12 @ Km @ np.linalg.solve(np.eye(ny) - P22 @ Km, P21))
    return np.array(out)


def test_lft_with_uncertain_second_operand():
    G, k, g = _plant()
    P = G[:, ["d", "u1"]]
    K = g * tl.uss(control.tf([1.0], [0.1, 1.0])) + k * 0.1  # uncertain controller, shares k
    L = lft_lower(P, K)
    S = star(P, K, 1, 1)
    assert L.input_labels == ["d"] and L.output_labels == ["z"]
    assert set(L.delta.names) == {"k", "g"}
    for kv, gv in [(1.2, 0.25), (2.8, 0.7), (2.0, 0.5)]:
        ref = _lower_ref(P.at(k=kv, g=gv), K.at(k=kv, g=gv), W)
        for T in (L, S):
            assert np.abs(_resp(T.at(k=kv, g=gv)) - ref).max() < 1e-12
    # upper LFT with an ultidyn Δ: F_u(M, Δ) for a static Δ of the block
    D = tl.ultidyn("D", (1, 1), bound=0.5)
    M = control.ss([[-1.0]], [[1.0, 1.0]], [[1.0], [1.0]], [[0.0, 0.0], [0.0, 1.0]])
    U = lft_upper(M, D)
    for d in (-0.4, 0.3):
        Mr = _resp(M)
        ref = Mr[:, 1:, 1:] + Mr[:, 1:, :1] * d / (1 - Mr[:, :1, :1] * d) * Mr[:, :1, 1:]
        assert np.abs(_resp(U.at(D=np.array([[d]]))) - ref).max() < 1e-12
    with pytest.raises(ShapeError):
        star(P, K, 3, 1)


def test_uncertain_transfer_functions():
    m = tl.ureal("m", 1.0, range=(0.5, 2.0))
    c = tl.ureal("c", 0.4, range=(0.2, 0.6))
    k = tl.ureal("k", 2.0, range=(1.0, 3.0))
    s = tf("s")
    assert type(s) is control.TransferFunction
    assert type(tf([1.0], [1.0, 2.0])) is control.TransferFunction
    assert isinstance(m * s**2 + c * s + k, UncertainTF)
    G = k / (m * s**2 + c * s + k)
    H = tf([c, k], [m, c, k])
    J = (s**2 * m + 1) * (1 / (s**2 + s + 1))
    assert isinstance(G, tl.USS) and isinstance(H, tl.USS) and G.nstates == 2
    rng = np.random.default_rng(3)
    for mv, cv, kv in rng.uniform([0.5, 0.2, 1.0], [2.0, 0.6, 3.0], (6, 3)):
        p = dict(m=mv, c=cv, k=kv)
        for T, num, den in ((G, [kv], [mv, cv, kv]), (H, [cv, kv], [mv, cv, kv]),
                            (J, [mv, 0, 1], [1, 1, 1])):
            ref = np.array([np.polyval(num, 1j * x) / np.polyval(den, 1j * x) for x in W])
            got = _resp(T.at(**{n: p[n] for n in T.delta.names}))[:, 0, 0]
            assert np.abs(got - ref).max() <= 1e-12 * np.abs(ref).max()


def test_uncertain_tf_discrete_and_complex():
    m = tl.ureal("m", 1.0, range=(0.5, 2.0))
    k = tl.ureal("k", 2.0, range=(1.0, 3.0))
    z = tf("z", 0.1)
    assert type(z) is control.TransferFunction and z.dt == 0.1
    E = k / (z - 0.5 * m)
    D = tf([k], [1.0, -0.5 * m], 0.1)
    zz = np.exp(1j * np.array([0.1, 0.3, 1.0, 2.5]))
    for T in (E, D):
        assert T.dt == 0.1
        got = np.array([complex(np.squeeze(T.at(m=1.5, k=1.2)(x))) for x in zz])
        assert np.abs(got - 1.2 / (zz - 0.75)).max() < 1e-13
    c = tl.ucomplex("c", 1.0, radius=0.2)
    F = 1 / (c * tf("s") + 1)
    got = complex(np.squeeze(F.at_delta(c=0.5j)(2j)))
    assert abs(got - 1 / ((1 + 0.1j) * 2j + 1)) < 1e-13
    with pytest.raises(tl.UncertaintyError, match="timebases"):
        E + 1 / (m * tf("s") + 1)
    Q = (m * tf("s") + 1) ** -2  # products of coefficients: channels reduced on the way
    assert tl.reduce_lft(Q)[1]["m"] == (3, 3)
    for mv in (0.6, 1.9):
        got = np.array([complex(np.squeeze(Q.at(m=mv)(1j * x))) for x in W])
        assert np.abs(got - 1 / (mv * 1j * W + 1) ** 2).max() < 1e-13


def test_uncertain_tf_bad_input():
    m = tl.ureal("m", 1.0, range=(0.5, 2.0))
    s = tf("s")
    with pytest.raises(ArgumentTypeError, match="num"):
        tf([[m]], [1.0, 1.0])
    with pytest.raises(ArgumentTypeError, match="den"):
        tf([1.0], [m, "x"])
    with pytest.raises(ArgumentError, match="den"):
        tf([1.0], [m, np.inf])
    with pytest.raises(ArgumentTypeError, match="not ultidyn"):
        tf([1.0], [tl.ultidyn("D"), 1.0])
    with pytest.raises(ArgumentTypeError, match="one fraction"):
        s * (1 / (m * s + 1))
    with pytest.raises(ArgumentError, match="improper"):
        (m * s**2 + 1).to_uss()
    with pytest.raises(ArgumentTypeError, match="exponent"):
        (m * s + 1) ** 0.5
    with pytest.raises(ArgumentTypeError, match="keyword"):
        tf([1.0], [m, 1.0], bogus=1)
    with pytest.raises(ArgumentTypeError, match="unsupported operand"):
        (m * s + 1) + object()
    with pytest.raises(ArgumentTypeError, match="improper"):
        lft_lower(tl.uss(np.ones((2, 2))) * m, s)


@pytest.mark.parametrize("args", [(0.1, 10.0, 10.0), (10.0, [3.0, 2.0], 0.5),
                                  (0.01, [5.0, 0.3], 3.0, 0, 3), (0.1, [2.0, 1.0], 5.0, 0.1, 2)])
def test_makeweight_gains(args):
    W_ = makeweight(*args)
    dc, hf = args[0], args[2]
    wc, mag = (args[1], 1.0) if np.isscalar(args[1]) else args[1]
    order = args[4] if len(args) > 4 else 1
    assert W_.nstates == order
    if W_.dt:
        pts = (1.0, np.exp(1j * wc * W_.dt), -1.0)
    else:
        pts = (0.0, 1j * wc, 1e9j * max(1.0, wc))
    got = [abs(complex(np.squeeze(W_(z)))) for z in pts]
    assert np.allclose(got, [dc, mag, hf], rtol=1e-8)
    assert np.all(np.linalg.eigvals(W_.A).real < 0) if not W_.dt else \
        np.all(np.abs(np.linalg.eigvals(W_.A)) < 1)


def test_makeweight_bad_input():
    with pytest.raises(ArgumentError, match="dcgain"):
        makeweight(-1.0, 1.0, 10.0)
    with pytest.raises(ArgumentError, match="between"):
        makeweight(0.1, [1.0, 20.0], 10.0)
    with pytest.raises(ArgumentTypeError, match="crossover"):
        makeweight(0.1, "x", 10.0)
    with pytest.raises(ArgumentError, match="Nyquist"):
        makeweight(0.1, 100.0, 10.0, 0.1)
    with pytest.raises(ArgumentError, match="order"):
        makeweight(0.1, 1.0, 10.0, 0, 0)
    with pytest.raises(ArgumentError, match="Ts"):
        makeweight(0.1, 1.0, 10.0, -1.0)
    with pytest.raises(ArgumentError, match="hfgain"):
        makeweight(0.1, 1.0, 1e300)


def _linf_box(G, scale, n=9):
    """Peak over a grid of the scaled box: max over δ of control.linfnorm."""
    best = 0.0
    names = G.delta.names
    for ds in itertools.product(np.linspace(-scale, scale, n), repeat=len(names)):
        best = max(best, control.linfnorm(G.at_delta(dict(zip(names, ds))))[0])
    return best


def test_robust_performance_brute_force():
    k = tl.ureal("k", 2.0, range=(1.0, 3.0))
    z = tl.ureal("z", 0.5, range=(0.3, 0.7))
    G = k * tl.uss(control.tf([1.0], [1.0, 1.0, 4.0])) * (1 / (1 + z * 0.5))
    bound = 1.0  # nominal H∞ norm 0.826
    r = robust_performance(G, bound, tol=1e-3)
    assert 0 < r.margin_lower <= r.margin_upper <= r.margin_lower * (1 + 2e-3)
    # brute force (the worst case is a vertex: the gain grows with k and falls with z)
    assert _linf_box(G, 0.999 * r.margin_lower, 5) < bound
    assert _linf_box(G, 1.001 * r.margin_upper, 5) >= bound
    # closed form at the vertex δ_k = α, δ_z = −α: k = 2 + α, z = 0.5 − 0.2 α
    peak = control.linfnorm(control.tf([1.0], [1.0, 1.0, 4.0]))[0]
    # (2 + α) peak = bound (1.25 − 0.1 α)
    alpha = (1.25 * bound - 2 * peak) / (peak + 0.1 * bound)
    assert r.margin_lower - 1e-9 <= alpha <= r.margin_upper + 1e-9
    assert max(abs(v) for v in r.delta_values.values()) <= r.margin_upper * (1 + 1e-12)
    assert control.linfnorm(G.at_delta(r.delta_values))[0] >= bound * (1 - 1e-9)
    with pytest.raises(ArgumentError, match="gain_bound"):
        robust_performance(G, -1.0)
    with pytest.raises(ArgumentTypeError):
        robust_performance("G", 1.0)


def test_monte_carlo_peak_is_hinf_norm():
    k = tl.ureal("k", 2.0, range=(1.0, 3.0))
    c = tl.ureal("c", 0.05, range=(0.02, 0.08))
    G = tl.feedback(tl.uss(control.tf(1, [1, 0, 0])), c * tl.uss(control.tf([1, 0], [0.01, 1])) + k)
    r = tl.monte_carlo(G, n=12, seed=2, omega=np.logspace(-2, 2, 201))
    for d, pk, grid in zip(r.deltas, r.peak, r.magnitude.max(axis=(1, 2, 3))):
        Gi = G.at_delta({n: d[sl][0, 0] for n, sl in G.delta.slices().items()})
        ref = control.linfnorm(Gi)[0]
        wd = np.linspace(0.5, 2.5, 20001)  # resonance near √k: a dense independent check
        dense = np.abs(np.squeeze(Gi(1j * wd))).max()
        assert abs(pk - ref) <= 1e-9 * ref and pk >= dense * (1 - 1e-9)
        assert pk >= grid
    assert (r.peak > r.magnitude.max(axis=(1, 2, 3)) * 1.01).any()  # the grid misses peaks
    assert r.channel_peak.shape == (12, 1, 1) and np.allclose(r.channel_peak[:, 0, 0], r.peak)
    assert "H∞ norm" in r.report()


def test_uncertain_tf_random_fractions():
    """Random proper fractions with a mix of certain and uncertain coefficients (parameters
    shared between numerator and denominator), built both by tf(num, den) and by arithmetic
    on s, against np.polyval of the evaluated coefficients at random parameter values."""
    rng = np.random.default_rng(11)
    P = [tl.ureal(f"p{i}", 1.0 + i, range=(0.5 + i, 1.5 + i)) for i in range(3)]
    s = tf("s")
    for _ in range(12):
        nd = int(rng.integers(1, 4))
        nn = int(rng.integers(0, nd + 1))
        pick = lambda: P[int(rng.integers(3))] if rng.uniform() < 0.5 else float(  # noqa: E731
            rng.uniform(0.5, 2.0))
        num = [pick() for _ in range(nn + 1)]
        den = [P[int(rng.integers(3))]] + [pick() for _ in range(nd)]
        G = tf(num, den)
        top = sum((c * s**(nn - i) for i, c in enumerate(num)), 0.0)
        bottom = sum((c * s**(nd - i) for i, c in enumerate(den)), 0.0)
        # python-control's TransferFunction / (uncertain) raises: a certain numerator
        # polynomial multiplies from the right instead, when the product stays proper
        H = top / bottom if not isinstance(top, control.TransferFunction) else \
            (1 / bottom) * top if nn == 0 else G
        for _ in range(3):
            vals = {p.name: rng.uniform(p.lo, p.hi) for p in P}
            ev = [[vals[c.name] if isinstance(c, tl.UReal) else c for c in x] for x in (num, den)]
            ref = np.polyval(ev[0], 1j * W) / np.polyval(ev[1], 1j * W)
            for T in (G, H):
                if not isinstance(T, tl.USS):
                    T = tl.uss(T)
                got = _resp(T.at(**{n: vals[n] for n in T.delta.names}))[:, 0, 0]
                assert np.abs(got - ref).max() <= 1e-10 * max(1.0, np.abs(ref).max())
