"""Robustness analysis the user's way: uncertain systems built from ``ureal`` parameters with
arithmetic and ``feedback``, analysed without touching the LFT, against closed forms.

Every destabilising or worst-case parameter value is checked independently of the LFT
closure used inside the analysis: the system is re-evaluated at the reported *physical*
parameter values by ``USS.at`` (``titop_lpv.robust.evaluate``) and its poles or gain are
compared with the closed form.
"""

from __future__ import annotations

import itertools
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor

import control
import matplotlib
import numpy as np
import pytest

import titop_lpv as tl

matplotlib.use("Agg")


def integrator(inp: str, out: str) -> control.StateSpace:
    return control.ss(0.0, 1.0, 1.0, 0.0, inputs=inp, outputs=out, states=out)


def closed_loop_msd(k, c, m=1.0, Kp=1.0, Kd=0.6) -> tl.USS:
    """The PD loop of a mass-spring-damper, as one uncertain system r → x: the velocity
    feedback Kd adds to the damper and the position feedback Kp to the spring, each loop
    closed by :func:`titop_lpv.feedback` around an integrator."""
    velocity = tl.feedback(tl.uss(integrator("r", "v")) / m, c + Kd)
    position = tl.series(velocity, integrator("v", "x"))
    return tl.feedback(position, k + Kp)


def first_order_loop(p, K=3.0) -> tl.USS:
    """Plant 1/(s − p) (an integrator with positive feedback p) under the gain K: the pole
    is p − K."""
    plant = tl.feedback(integrator("u", "x"), -p)
    return tl.feedback(plant * K, 1.0)


def test_first_order_plant_with_an_uncertain_pole():
    p = tl.ureal("p", 1.0, range=(0.5, 1.5))  # δ = 2 (p − 1); the loop pole p − 3 hits 0 at p = 3
    res = tl.robust_stability(first_order_loop(p, K=3.0))
    assert res.margin_lower == pytest.approx(4.0, rel=1e-6)
    assert res.margin_upper == pytest.approx(4.0, rel=1e-6)
    assert res.delta_values["p"] == pytest.approx(4.0, rel=1e-6)
    assert res.parameter_values["p"] == pytest.approx(3.0, rel=1e-6)
    assert res.verified and res.omega_critical == pytest.approx(0.0, abs=1e-6)
    assert "p = 3" in res.report()


@pytest.mark.parametrize("case", ["damping", "stiffness"])
def test_mass_spring_damper_with_uncertain_stiffness_and_damping(case):
    m, Kp, Kd = 1.0, 1.0, 0.6
    if case == "damping":  # ζ crosses first: c + Kd = 0 at δc = −5 (|δk| needed: 10)
        k, c = tl.ureal("k", 2.0, range=(1.5, 2.5)), tl.ureal("c", 0.4, range=(0.2, 0.6))
    else:  # the spring crosses first: k + Kp = 0 at δk = −5 (|δc| needed: 10)
        k, c = tl.ureal("k", 2.0, range=(1.0, 3.0)), tl.ureal("c", 0.4, range=(0.3, 0.5))
    dk, dc = k.to_delta(-Kp), c.to_delta(-Kd)
    exact = min(abs(dk), abs(dc))
    G = closed_loop_msd(k, c, m, Kp, Kd)
    res = tl.robust_stability(G)
    if case == "damping":  # μ flat at 1/exact on a band: certified with headroom <= 1e-4
        assert exact * (1 - 1.01e-4) <= res.margin_lower <= exact
    else:
        assert res.margin_lower == pytest.approx(exact, rel=1e-6)
    assert res.margin_upper == pytest.approx(exact, rel=1e-6)
    phys = res.parameter_values
    if case == "damping":
        assert phys["c"] == pytest.approx(-Kd, abs=1e-6)
        wc = np.sqrt((phys["k"] + Kp) / m)
        assert res.omega_critical == pytest.approx(wc, rel=1e-6)
    else:
        assert phys["k"] == pytest.approx(-Kp, abs=1e-6)
        assert res.omega_critical == pytest.approx(0.0, abs=1e-6)
    # independent check: the closed loop re-evaluated at the physical values, by USS.at
    poles = G.at(**phys).poles()
    expected = np.roots([m, phys["c"] + Kd, phys["k"] + Kp])
    np.testing.assert_allclose(np.sort_complex(poles), np.sort_complex(expected), atol=1e-9)
    assert np.abs(poles.real).min() <= 1e-6 * max(1.0, np.abs(poles).max())
    assert res.verified


def second_order(zeta, w=2.0) -> tl.USS:
    """u → y, 1/(s² + 2ζ w s + w²): rate feedback 2ζw and position feedback w²."""
    velocity = tl.feedback(integrator("u", "v"), 2 * w * zeta)
    return tl.feedback(tl.series(velocity, integrator("v", "y")), w**2)


def test_worst_case_gain_of_a_second_order_system_with_uncertain_damping():
    w = 2.0
    zeta = tl.ureal("zeta", 0.2, range=(0.1, 0.3))
    G = second_order(zeta, w)
    res = tl.worst_case_gain(G, omega=np.logspace(-1, 1, 300))
    zlo = 0.1  # < 1/√2 everywhere in the box: the resonant peak is largest at ζ_lo
    exact = 1 / (2 * zlo * w**2 * np.sqrt(1 - zlo**2))
    assert res.gain == pytest.approx(exact, rel=1e-6)
    assert res.parameter_values["zeta"] == pytest.approx(zlo, abs=1e-9)
    assert res.upper >= exact * (1 - 1e-9) and res.upper <= exact * (1 + 1e-3)
    peak = np.abs(G.at(zeta=zlo)(1j * w * np.sqrt(1 - 2 * zlo**2)))  # independent evaluation
    assert peak == pytest.approx(exact, rel=1e-12)


def test_monte_carlo_on_executors_equals_the_serial_run():
    k, c = tl.ureal("k", 2.0, percent=25), tl.ureal("c", 0.4, percent=50)
    G = closed_loop_msd(k, c)
    seen = []
    serial = tl.monte_carlo(G, n=60, seed=7, chunksize=16,
                            progress=lambda done, total: seen.append((done, total)))
    assert seen == [(16, 60), (32, 60), (48, 60), (60, 60)]
    with ThreadPoolExecutor(2) as ex:
        threads = tl.monte_carlo(G, n=60, seed=7, chunksize=7, executor=ex)
    with ProcessPoolExecutor(2) as ex:
        procs = tl.monte_carlo(G, n=60, seed=7, chunksize=30, executor=ex)
    for other in (threads, procs):
        np.testing.assert_array_equal(other.deltas, serial.deltas)
        np.testing.assert_allclose(other.poles, serial.poles, rtol=0, atol=0)
        np.testing.assert_allclose(other.magnitude, serial.magnitude, rtol=0, atol=0)
    # each sample against the closed form of its physical parameters
    _, delta = G.lftdata()
    order = [b.name for b in delta.blocks]
    for d, p in zip(serial.deltas[:10], serial.poles[:10]):
        vals = dict(zip(order, np.diag(d)))
        kk, cc = k.from_delta(vals["k"]), c.from_delta(vals["c"])
        np.testing.assert_allclose(np.sort_complex(p),
                                   np.sort_complex(np.roots([1.0, cc + 0.6, kk + 1.0])),
                                   rtol=1e-10)
    assert serial.inputs == ("r",) and serial.outputs == ("x",)


def test_bad_input_is_named():
    k = tl.ureal("k", 2.0, percent=25)
    G = closed_loop_msd(k, 0.4)
    M, delta = G.lftdata()
    with pytest.raises(tl.RobustnessError, match="carries its own Δ structure"):
        tl.robust_stability(G, delta)
    with pytest.raises(tl.RobustnessError, match="blocks are needed"):
        tl.robust_stability(M)
    with pytest.raises(tl.RobustnessError, match="positive integer"):
        tl.monte_carlo(G, n=0)
    unstable = tl.feedback(integrator("u", "x"), -k)  # pole at +k: unstable at δ = 0
    with pytest.raises(tl.RobustnessError, match=r"centre of the box \(Δ = 0\) is not stable"):
        tl.robust_stability(unstable)
    with pytest.raises(tl.RobustnessError, match=r"block 'k'.*shape"):
        tl.delta_matrix(delta, {"k": np.ones((2, 2))})
    with pytest.raises(tl.RobustnessError, match=r"no value for the blocks \['k'\]"):
        tl.delta_matrix(delta, {})
    with pytest.raises(tl.RobustnessError, match=r"unknown blocks \['kk'\]"):
        tl.delta_matrix(delta, {"k": 0.5, "kk": 1.0})
    with pytest.raises(tl.RobustnessError, match=r"block 'k' is real"):
        tl.delta_matrix(delta, {"k": 0.5j})


def test_unmodelled_dynamics_margin_is_the_small_gain_bound():
    """One full complex block (ultidyn): robust stability margin = 1/‖M11‖∞ exactly."""
    P = control.tf([1.0], [1.0, 0.4, 1.0])
    W = control.tf([0.5, 0.05], [0.1, 1.0])
    plant = tl.uss(P) * (1 + tl.uss(W) * tl.ultidyn("unm", (1, 1)))
    T = tl.feedback(plant * control.tf([2.0, 1.0], [0.05, 1.0]), 1.0)
    res = tl.robust_stability(T)
    M, _ = T.lftdata()
    w = np.linspace(3.0, 4.5, 200001)  # around the peak of |M11|
    exact = 1 / np.abs(M[0, 0](1j * w)).max()
    assert res.margin_lower == pytest.approx(exact, rel=1e-7)
    assert res.margin_upper == pytest.approx(exact, rel=1e-7)
    assert res.verified and abs(res.pole.real) <= 1e-9 * abs(res.pole)
    closed = T.at_delta(unm=res.delta_values["unm"])  # complex Δ: a complex closed loop
    assert np.abs(np.linalg.eigvals(closed.A).real).min() <= 1e-9


def mass_spring_damper_plant(m, c, k) -> tl.USS:
    """F → x, 1/(m s² + c s + k): rate feedback c and position feedback k around 1/m."""
    velocity = tl.feedback(tl.uss(integrator("F", "v")) / m, c)
    return tl.feedback(tl.series(velocity, integrator("v", "x")), k)


@pytest.fixture(scope="module")
def mck_case():
    """The audit's counter-example: m, c, k uncertain, a lightly damped resonance (ζ ≈ 0.02
    at the worst vertex) narrower than the spacing of a 300-point log grid. The truth is
    brute force, independent of the analysis: the H∞ norm (control.linfnorm, SLICOT AB13DD)
    of the system re-evaluated by ``USS.at`` at the 8 vertices and on a 7×7×7 grid of the
    box. Before the fix worst_case_gain scored candidates on the grid: 0.583455 attained
    and 0.583517 "upper", both below the truth 0.591740."""
    k = tl.ureal("k", 50.0, percent=20)
    m = tl.ureal("m", 3.0, range=(2.5, 3.5))
    c = tl.ureal("c", 0.8, range=(0.5, 1.1))
    G = mass_spring_damper_plant(m, c, k)
    axes = [np.linspace(p.lo, p.hi, 7) for p in (m, c, k)]
    norms = {(mm, cc, kk): control.linfnorm(G.at(m=mm, c=cc, k=kk))[0]
             for mm in axes[0] for cc in axes[1] for kk in axes[2]}
    worst = max(norms, key=norms.get)
    return G, (m, c, k), worst, norms[worst]


def test_worst_case_gain_does_not_depend_on_the_grid(mck_case):
    G, _, worst, truth = mck_case
    assert worst == (3.5, 0.5, 40.0)  # the vertex: heaviest, least damped, softest
    # closed form at that vertex: |x/F| peaks at ω² = k/m − c²/(2m²), value 1/(c ω_d')
    wn2 = 40.0 / 3.5 - 0.5**2 / (2 * 3.5**2)
    peak = 1 / abs(40.0 - 3.5 * wn2 + 1j * 0.5 * np.sqrt(wn2))
    assert truth == pytest.approx(peak, rel=1e-9)
    for omega in (np.logspace(-1, 2, 300), np.linspace(3.0, 4.0, 2001), None):
        wc = tl.worst_case_gain(G, omega=omega)
        assert wc.gain == pytest.approx(truth, rel=1e-6)  # attained: the true worst case
        assert wc.gain <= truth * (1 + 1e-9)
        assert wc.parameter_values == pytest.approx({"m": 3.5, "c": 0.5, "k": 40.0}, abs=1e-9)
        assert wc.omega_peak == pytest.approx(np.sqrt(wn2), rel=1e-6)
        # certified at every frequency (intervals): it bounds the truth, tightly
        # (+42 % on the dense grid before the fix: unconverged scalings in the bisection)
        assert np.any(wc.upper_omega == wc.omega_peak)
        assert truth * (1 - 1e-9) <= wc.upper <= truth * (1 + 1e-4)
        text = wc.report()
        assert "lower bound" in text and "certified at every frequency" in text
        assert wc.certified == "intervals"
        assert "BELOW" not in text


def test_worst_case_upper_bound_holds_at_every_certified_frequency(mck_case):
    """Pointwise brute force: max over a 7×7×7 parameter grid of |G(jω)| at the certified
    frequencies stays below the certified bound, on a grid where the bound is not tight
    (c ∈ [0.5, 1.0] makes the worst resonance sit between the log-grid points)."""
    G, (m, _, k), _, _ = mck_case
    c = tl.ureal("c", 0.8, range=(0.5, 1.0))
    G = mass_spring_damper_plant(m, c, k)
    wc = tl.worst_case_gain(G, omega=np.logspace(-1, 2, 300))
    w = wc.upper_omega
    brute = np.zeros(w.size)
    for mm, cc, kk in itertools.product(*[np.linspace(p.lo, p.hi, 7) for p in (m, c, k)]):
        brute = np.maximum(brute, np.abs(G.at(m=mm, c=cc, k=kk)(1j * w)).ravel())
    assert brute.max() <= wc.upper * (1 + 1e-9)
    assert brute.max() == pytest.approx(wc.gain, rel=1e-9)  # the vertex is on that grid


def test_nominal_means_the_nominal_parameter_values():
    """a = ureal(nominal 1, range (0.5, 3.5)): the centre of the box is a = 2, the nominal
    a = 1. The gain of y = a u is a: nominal 1, worst 3.5."""
    a = tl.ureal("a", 1.0, range=(0.5, 3.5))
    lag = control.ss(-10.0, 10.0, 1.0, 0.0, inputs="u", outputs="y", states="q")  # DC gain 1
    G = tl.uss(lag) * a
    assert control.linfnorm(G.nominal())[0] == pytest.approx(1.0, rel=1e-9)
    wc = tl.worst_case_gain(G)
    assert wc.nominal_gain == pytest.approx(1.0, rel=1e-9)
    assert wc.nominal_delta_values["a"] == pytest.approx(a.delta_nominal, abs=1e-15)
    assert wc.gain == pytest.approx(3.5, rel=1e-9)
    assert "nominal parameters: 1;" in wc.report()
    mc = tl.monte_carlo(G, n=5, omega=[0.0])
    assert mc.nominal_magnitude[0, 0, 0] == pytest.approx(1.0, rel=1e-12)
    assert mc.nominal_delta_values["a"] == pytest.approx(a.delta_nominal, abs=1e-15)
    p = tl.ureal("p", 1.0, range=(0.5, 2.5))  # loop pole p − 3: nominal −2, box centre −1.5
    rs = tl.robust_stability(first_order_loop(p, K=3.0))
    np.testing.assert_allclose(rs.nominal_poles, [-2.0], rtol=1e-12)


@pytest.mark.parametrize("omega", [[float("nan")], [-1.0], [], "x"])
@pytest.mark.parametrize("analysis", ["robust_stability", "worst_case_gain", "monte_carlo"])
def test_bad_frequency_grids_are_refused_by_every_analysis(analysis, omega):
    G = tl.ureal("a", 1.0, range=(0.5, 1.5)) * control.tf(1, [1, 1])
    kwargs = {"n": 3} if analysis == "monte_carlo" else {}
    with pytest.raises(tl.RobustnessError, match="omega"):
        getattr(tl, analysis)(G, omega=omega, **kwargs)
