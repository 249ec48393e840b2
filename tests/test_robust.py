"""Robust stability, worst-case gain and Monte-Carlo on LFTs built by hand, against closed forms.

Every LFT is ``[z; y] = M [w; u]`` with ``w = Δ z``; real δ are normalised to [−1, 1].
"""

from __future__ import annotations

import control
import matplotlib
import numpy as np
import pytest

from titop_lpv.robust.loop import RobustnessError, close_lft, delta_matrix
from titop_lpv.robust.monte_carlo import monte_carlo
from titop_lpv.robust.stability import robust_stability
from titop_lpv.robust.worst_case import worst_case_gain

matplotlib.use("Agg")


def first_order(p0=1.0, K=3.0, sp=2.5):
    """ẋ = p x + u, p = p0 + sp δ, u = −K x + r; z = sp x, y = x. Pole p0 − K + sp δ."""
    return control.ss([[p0 - K]], [[1.0, 1.0]], [[sp], [1.0]], np.zeros((2, 2)),
                      states=["x"], inputs=["w_p", "r"], outputs=["z_p", "y"], name="first")


def mass_spring_damper(m=1.0, k0=2.0, c0=0.4, Kp=1.0, Kd=0.6, sk=0.5, sc=0.5):
    """m ẍ + c ẋ + k x = u, k = k0 + sk δk, c = c0 + sc δc, PD loop u = −Kp x − Kd ẋ + r.

    Characteristic polynomial m s² + (c0 + Kd + sc δc) s + (k0 + Kp + sk δk): a pole reaches
    s = 0 at δk = −(k0 + Kp)/sk, a pair reaches ±jω at δc = −(c0 + Kd)/sc."""
    A = [[0.0, 1.0], [-(k0 + Kp) / m, -(c0 + Kd) / m]]
    B = [[0.0, 0.0, 0.0], [-1 / m, -1 / m, 1 / m]]
    C = [[sk, 0.0], [0.0, sc], [1.0, 0.0]]
    return control.ss(A, B, C, np.zeros((3, 3)), states=["x", "v"],
                      inputs=["w_k", "w_c", "r"], outputs=["z_k", "z_c", "y"], name="msd")


MSD_BLOCKS = [("real", 1, 1, 1, "k"), ("real", 1, 1, 1, "c")]


def test_first_order_plant_with_an_uncertain_pole():
    p0, K, sp = 1.0, 3.0, 2.5
    res = robust_stability(first_order(p0, K, sp), [("real", 1, 1, 1, "p")])
    exact = (K - p0) / sp  # the closed-loop pole reaches 0 at δ = (K − p0)/sp
    assert res.margin_lower == pytest.approx(exact, rel=1e-6)
    assert res.margin_upper == pytest.approx(exact, rel=1e-6)
    assert res.delta_values["p"] == pytest.approx(exact, rel=1e-6)
    assert res.verified and res.axis_distance <= 1e-6
    assert res.omega_critical == pytest.approx(0.0, abs=1e-6)
    assert res.mu.omega_upper == 0.0


@pytest.mark.parametrize("case", ["damping", "stiffness"])
def test_mass_spring_damper_with_uncertain_stiffness_and_damping(case):
    pars = dict(m=1.0, k0=2.0, c0=0.4, Kp=1.0, Kd=0.6, sk=0.5, sc=0.5)
    if case == "stiffness":
        pars.update(sk=1.5, sc=0.25)
    M = mass_spring_damper(**pars)
    dk = -(pars["k0"] + pars["Kp"]) / pars["sk"]  # 0 stiffness: a pole at s = 0
    dc = -(pars["c0"] + pars["Kd"]) / pars["sc"]  # 0 damping: a pair on the axis
    exact = min(abs(dk), abs(dc))
    res = robust_stability(M, MSD_BLOCKS)
    if case == "damping":
        # real μ is exactly 1/exact on a whole band (ω² = k/m over the δk range), and the
        # D-G bound certified at every frequency needs headroom there (at most 1e-4,
        # titop_lpv.robust.certify.cover): valid (<= exact) and within 1e-4
        assert exact * (1 - 1.01e-4) <= res.margin_lower <= exact
        assert res.mu.certified == "intervals"
    else:
        assert res.margin_lower == pytest.approx(exact, rel=1e-6)
    assert res.margin_upper == pytest.approx(exact, rel=1e-6)
    assert res.verified and res.axis_distance <= 1e-6 * max(1, abs(res.pole))
    k, c = res.delta_values["k"], res.delta_values["c"]
    assert max(abs(k), abs(c)) == pytest.approx(exact, rel=1e-9)
    if case == "damping":  # δc at its critical value, δk free in the box: ω² = k/m
        assert c == pytest.approx(dc, rel=1e-6)
        wc = np.sqrt((pars["k0"] + pars["Kp"] + pars["sk"] * k) / pars["m"])
        assert res.omega_critical == pytest.approx(wc, rel=1e-6)
    else:
        assert k == pytest.approx(dk, rel=1e-6)
        assert res.omega_critical == pytest.approx(0.0, abs=1e-6)
    assert np.all(res.mu.upper >= res.mu.lower * (1 - 1e-9))
    text = res.report()
    assert "verified" in text and "destabilising" in text
    assert isinstance(res.plot(), matplotlib.figure.Figure)


def test_complex_block_destabilising_delta_is_verified():
    # M11 = wn²/(s² + 2ζ wn s + wn²), one complex scalar: margin = 1/peak |M11|
    wn, zeta = 2.0, 0.1
    G = control.ss(control.tf([wn**2], [1, 2 * zeta * wn, wn**2]))
    M = control.ss(G.A, np.c_[G.B, G.B], np.r_[G.C, G.C], np.zeros((2, 2)))
    res = robust_stability(M, [("complex", 1, 1, 1, "dyn")])
    exact = 2 * zeta * np.sqrt(1 - zeta**2)
    assert res.margin_lower == pytest.approx(exact, rel=1e-6)
    assert res.margin_upper == pytest.approx(exact, rel=1e-6)
    assert res.verified
    assert res.omega_critical == pytest.approx(wn * np.sqrt(1 - 2 * zeta**2), rel=1e-6)


def test_errors_name_the_problem():
    with pytest.raises(RobustnessError, match="not stable"):
        robust_stability(first_order(p0=1.0, K=0.5), [("real", 1, 1, 1)])
    with pytest.raises(RobustnessError, match=r"3 inputs and 3 outputs.*n_w = 4"):
        robust_stability(mass_spring_damper(), [("real", 1, 1, 4)])
    with pytest.raises(RobustnessError, match="performance"):
        worst_case_gain(mass_spring_damper(), [("real", 1, 1, 3)])
    with pytest.raises(RobustnessError, match="real Δ"):
        close_lft(first_order(), np.array([[1j]]))


def test_close_lft_matches_the_closed_form():
    M = mass_spring_damper()
    delta = delta_matrix(MSD_BLOCKS, {"k": 0.3, "c": -0.7})
    T = close_lft(M, delta, MSD_BLOCKS)
    k, c = 2.0 + 0.5 * 0.3 + 1.0, 0.4 - 0.5 * 0.7 + 0.6
    np.testing.assert_allclose(np.sort_complex(T.poles()), np.sort_complex(np.roots([1, c, k])),
                               rtol=1e-12)
    assert list(T.input_labels) == ["r"] and list(T.output_labels) == ["y"]
    assert list(T.state_labels) == ["x", "v"]
    assert T.dcgain() == pytest.approx(1 / k, rel=1e-12)


def second_order(w=2.0, zeta0=0.2, szeta=0.1):
    """y = u/(s² + 2ζ w s + w²), ζ = ζ0 + sζ δ: z = 2 sζ w ẏ, w_ζ = δ z."""
    return control.ss([[0.0, 1.0], [-(w**2), -2 * zeta0 * w]], [[0.0, 0.0], [-1.0, 1.0]],
                      [[0.0, 2 * szeta * w], [1.0, 0.0]], np.zeros((2, 2)),
                      states=["y", "yd"], inputs=["w_zeta", "u"], outputs=["z_zeta", "y"])


def test_worst_case_gain_of_a_second_order_system_with_uncertain_damping():
    w, zeta0, szeta = 2.0, 0.2, 0.1
    res = worst_case_gain(second_order(w, zeta0, szeta), [("real", 1, 1, 1, "zeta")])
    zlo = zeta0 - szeta  # ζ ∈ [0.1, 0.3] < 1/√2: the peak is largest at ζ_lo
    exact = 1 / (2 * zlo * w**2 * np.sqrt(1 - zlo**2))
    assert res.gain == pytest.approx(exact, rel=1e-6)
    assert res.delta_values["zeta"] == pytest.approx(-1.0, abs=1e-9)
    assert res.omega_peak == pytest.approx(w * np.sqrt(1 - 2 * zlo**2), rel=1e-4)
    assert res.nominal_gain == pytest.approx(1 / (2 * zeta0 * w**2 * np.sqrt(1 - zeta0**2)),
                                             rel=1e-3)
    assert res.upper >= exact * (1 - 1e-9)
    assert res.upper <= exact * (1 + 1e-3)
    assert "worst-case gain" in res.report()
    assert isinstance(res.plot(), matplotlib.figure.Figure)


def test_monte_carlo_stays_inside_the_analytic_envelope():
    w, zeta0, szeta = 2.0, 0.2, 0.1
    res = monte_carlo(second_order(w, zeta0, szeta), [("real", 1, 1, 1, "zeta")], n=200,
                      seed=3)
    zeta = zeta0 + szeta * res.deltas[:, 0, 0]
    assert np.all(np.abs(res.deltas) <= 1.0)
    np.testing.assert_allclose(res.poles.real.max(axis=1), -zeta * w, rtol=1e-9)
    assert not res.unstable.any()
    peak = 1 / (2 * (zeta0 - szeta) * w**2 * np.sqrt(1 - (zeta0 - szeta) ** 2))
    assert res.magnitude.max() <= peak * (1 + 1e-12)
    assert res.magnitude.shape == (200, res.omega.size, 1, 1)
    assert "200 samples, 0 unstable" in res.report()
    assert isinstance(res.plot(), matplotlib.figure.Figure)


@pytest.mark.parametrize("full", [False, True])
def test_worst_case_certificate_gamma_is_the_closed_form(full):
    """The γ that D-G scalings certify for [[M11, M12], [M21/γ, M22/γ]] (a generalised
    eigenvalue) against the certificate itself (mu_upper_bound._certify, Fan–Tits–Doyle):
    β(γ) = 1 at that γ, β > 1 just below it, for random matrices and a mixed structure."""
    from titop_lpv.robust.blocks import Block
    from titop_lpv.robust.mu_upper import _certify, dg_batch
    from titop_lpv.robust.mu_upper import full_scalings as _to_full
    from titop_lpv.robust.mu_upper import scaled_matrices as _scaled
    from titop_lpv.robust.structure import MuStructure as _Structure
    from titop_lpv.robust.worst_case import _gain_certified

    rng = np.random.default_rng(3)
    blocks = [Block("a", "real", 1, 1, 1), Block("b", "real", 1, 1, 2),
              Block("c", "complex", 1, 1, 1), Block("perf", "full", 1, 2, 1)]
    st = _Structure(blocks)  # M: 6 outputs (4 z, 2 performance) x 5 inputs (4 w, 1 u)
    M = 0.3 * (rng.normal(size=(8, 6, 5)) + 1j * rng.normal(size=(8, 6, 5)))
    M[:, :4, :4] *= 0.3  # μ(M11) < 1: some γ is certifiable
    Md, Mp = M.copy(), M.copy()
    Md[:, 4:], Mp[:, :4] = 0.0, 0.0
    Zd, Zp = st.pad(Md), st.pad(Mp)
    _, x = dg_batch(Zd + Zp / 2.0, st, iters=40)
    if full:
        x = _to_full(x, st) + 0.05 * rng.normal(size=(8, st.nT + st.nG))
    Nd, Gs, ok, _ = _scaled(x, Zd, st, full)
    gam = _gain_certified(Nd, _scaled(x, Zp, st, full)[0], Gs, full)
    assert ok.all() and np.all(np.isfinite(gam)) and np.all(gam > 0)
    for f in range(8):
        if full:
            T = (x[f, :st.nT] @ st.AT.T).reshape(st.N, st.N)
            D, G = T.conj().T @ T, T.conj().T @ Gs[f] @ T
        else:
            d = np.exp(x[f, :st.nd] @ st.Pd.T)
            D, G = np.diag(d**2), np.diag(Gs[f] * d**2)
        assert _certify(Zd[f] + Zp[f] / gam[f], D, G) <= 1 + 1e-8
        assert _certify(Zd[f] + Zp[f] / (gam[f] * (1 - 1e-4)), D, G) > 1 + 1e-6
