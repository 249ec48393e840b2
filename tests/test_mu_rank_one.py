"""μ of rank-one matrices against the closed form (issue 13, tests), and reduced LFTs
against Routh–Hurwitz.

For ``M = a bᴴ`` and Δ = diag(δ_i) of non-repeated scalars, ``det(I − M Δ) = 1 − Σ c_i δ_i``
with ``c_i = conj(b_i) a_i``. The smallest ``max |δ_i|`` making it zero is a linear program
whose dual gives (Young, Newlin & Doyle; Chen, Fan & Nett, "Structured singular values and
stability analysis of uncertain polynomials", 1994)

    μ = inf_{x ∈ ℝ}  Σ_real |Re c_i + x Im c_i|  +  Σ_complex |c_i| √(1 + x²),

so ``Σ |a_i b_i|`` when every block is complex. For rank-one matrices the D-G upper bound
equals μ (Young), at scalings G → ∞ with real blocks: the upper bound meets the formula to
rounding with complex blocks only, within 0.3 % otherwise; the lower bound meets it.
"""

from __future__ import annotations

import control
import numpy as np
import pytest
from scipy import optimize

import titop_lpv as tl
from titop_lpv.robust.mu import mu_sweep
from titop_lpv.robust.mu_lower import mu_lower
from titop_lpv.robust.mu_upper import mu_upper


def rank_one_mu(a, b, kinds):
    """The closed form of the module docstring (a convex function of x, minimised exactly:
    its minimum is at a breakpoint −Re c_i / Im c_i or at a stationary point)."""
    c = np.conj(b) * a
    re = np.array([k == "real" for k in kinds])

    def f(x):
        return float(np.sum(np.abs(c[re].real + x * c[re].imag)) +
                     np.sum(np.abs(c[~re])) * np.sqrt(1 + x * x))
    if not re.any():
        return f(0.0)
    brk = [-c[i].real / c[i].imag for i in np.flatnonzero(re) if c[i].imag != 0]
    cands = [f(x) for x in brk] + [f(0.0)]
    r = optimize.minimize_scalar(f, bounds=(-1e6, 1e6), method="bounded",
                                 options={"xatol": 1e-12})
    return min([*cands, r.fun])


CASES = [("complex",) * 4, ("real",) * 4, ("real", "complex", "real"),
         ("complex", "real", "real", "complex", "real")]


@pytest.mark.parametrize("kinds", CASES)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_mu_of_a_rank_one_matrix_is_the_closed_form(kinds, seed):
    rng = np.random.default_rng(seed)
    n = len(kinds)
    a = rng.normal(size=n) + 1j * rng.normal(size=n)
    b = rng.normal(size=n) + 1j * rng.normal(size=n)
    M = np.outer(a, np.conj(b))
    blocks = [(k, 1, 1, 1) for k in kinds]
    truth = rank_one_mu(a, b, kinds)
    up = mu_upper(M, blocks).value
    lo = mu_lower(M, blocks, seed=seed).value
    assert lo <= truth * (1 + 1e-9)
    assert up >= truth * (1 - 1e-12)
    # D-G is exact on rank one, at G → ∞: AB13MD's barrier keeps G bounded (0.27 % above,
    # measured) and the unbounded diagonal steps pay the rounding of a huge G (up to 0.13 %)
    assert up <= truth * (1 + 3e-3)
    assert lo >= truth * (1 - 1e-6)  # and the lower bound finds the Δ
    if all(k == "complex" for k in kinds):
        assert truth == pytest.approx(np.sum(np.abs(a * b)), rel=1e-12)


def test_mu_sweep_of_a_rank_one_system():
    """``M(s) = a(s) bᵀ`` with a(s) = [1, 2/(s + 1), 1/(s² + 0.2 s + 4)]·something: μ at each
    frequency is the closed form; the certified sweep peak is above the fine-grid maximum
    of the closed form and within 1e-4."""
    b = np.array([1.0, -0.5, 0.8])
    g = [control.tf([1.0], [1.0, 2.0]), control.tf([2.0], [1.0, 1.0]),
         control.tf([1.0], [1.0, 0.2, 4.0])]
    kinds = ("real", "complex", "real")
    sysm = control.ss(control.append(*[control.ss(x) for x in g]) *
                      control.ss([], [], [], np.ones((3, 1))) *
                      control.ss([], [], [], b[None, :]))
    ws = np.linspace(0.0, 6.0, 601)
    truth = max(rank_one_mu(np.array([x(1j * w) for x in g]), b, kinds) for w in ws)
    res = mu_sweep(sysm, [(k, 1, 1, 1) for k in kinds], np.logspace(-1, 1, 40))
    assert res.certified == "intervals"
    assert res.peak_upper >= truth * (1 - 1e-9)
    assert res.peak_upper <= truth * (1 + 1e-3)
    assert res.peak_lower <= res.peak_upper


# --------------------------------------------------------------------- reduced LFTs
def msd_loop(k, c):
    """The mass-spring-damper with PD of docs/robust.md (Routh–Hurwitz margin in closed
    form: t* = (147 − √15281)/14)."""
    m, tau, kp, kd = 1.0, 0.1, 20.0, 1.8
    integ = control.tf(1, [1, 0])
    plant = tl.feedback(integ * tl.feedback(integ / m, c), k)
    plant = tl.uss(plant, inputs="f", outputs="x")
    pd = control.tf([kd, kp], [tau, 1], inputs="x", outputs="u")
    return tl.feedback(plant, pd)


def test_reduced_lft_keeps_the_routh_hurwitz_margin():
    """The stiffness entered three times (``k/2 + k/4 + k/4``): Δ has k·I3, reduce_lft
    brings it back to k·I1; both LFTs bracket the closed-form margin, certified at every
    frequency, within 1e-5."""
    t_star = (147 - np.sqrt(15281)) / 14
    k = tl.ureal("k", nominal=5.0, percent=40)
    c = tl.ureal("c", nominal=1.0, percent=50)
    loop = msd_loop(0.5 * k + 0.25 * k + 0.25 * k, c)
    red = tl.reduce_lft(loop)[0]
    sizes = {b.name: b.repeats for b in loop.lftdata()[1].blocks}
    sizes_red = {b.name: b.repeats for b in red.lftdata()[1].blocks}
    assert sizes["k"] >= 2 and sizes_red["k"] == 1
    for G in (loop, red):  # measured: lower ends 1.6702552 and 1.67026126 (t* = 1.67026129)
        rs = tl.robust_stability(G)
        assert rs.mu.certified == "intervals"
        assert rs.margin_lower <= t_star * (1 + 1e-9)
        assert rs.margin_upper >= t_star * (1 - 1e-9)
        assert rs.margin_upper == pytest.approx(t_star, rel=1e-7)
        assert rs.margin_lower >= t_star * (1 - 1e-5)
        assert rs.verified
