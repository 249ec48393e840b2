"""Large repeated real structures, where the speed work of issue 13 changes the route (no
AB13MD above a padded size of 16, no μ lower bound: the ray search finds the destabilising
Δ): the bounds must still bracket the margin found by brute force.

The loop is ``ẋ = (A + δ₁ B₁ C₁ + δ₂ B₂ C₂) x`` written as an LFT with Δ = diag(δ₁ I₉, δ₂ I₉)
(N = 18), so the margin is the smallest ``max |δ_i|`` of an unstable ``A(δ)``: a dense grid
of the δ plane (eigenvalues of 4×4 matrices) brackets it independently.
"""

from __future__ import annotations

import control
import numpy as np
import pytest

import titop_lpv as tl
from titop_lpv.robust.mu_lower import mu_lower
from titop_lpv.robust.mu_upper import AB13MD_MAX_N, mu_upper
from titop_lpv.robust.structure import MuStructure


def repeated_loop(seed):
    rng = np.random.default_rng(seed)
    n, r = 4, 9
    A = rng.normal(size=(n, n))
    A -= (np.linalg.eigvals(A).real.max() + 1.0) * np.eye(n)
    B1, B2 = 0.3 * rng.normal(size=(n, r)), 0.3 * rng.normal(size=(n, r))
    C1, C2 = rng.normal(size=(r, n)), rng.normal(size=(r, n))
    M = control.ss(A, np.hstack([B1, B2]), np.vstack([C1, C2]), np.zeros((2 * r, 2 * r)))
    blocks = [("real", 1, 1, r, "d1"), ("real", 1, 1, r, "d2")]
    return M, blocks, (A, B1 @ C1, B2 @ C2)


def brute_margin(mats, t_max, n=241):
    """Smallest max|δ_i| of an unstable A + δ₁ E₁ + δ₂ E₂ on an n × n grid of [−t, t]², and
    the largest norm below which every grid point is stable."""
    A, E1, E2 = mats
    g = np.linspace(-t_max, t_max, n)
    d1, d2 = np.meshgrid(g, g)
    d1, d2 = d1.ravel(), d2.ravel()
    lam = np.linalg.eigvals(A + d1[:, None, None] * E1 + d2[:, None, None] * E2)
    unstable = lam.real.max(axis=1) >= 0
    norm = np.maximum(np.abs(d1), np.abs(d2))
    return float(norm[unstable].min()) if unstable.any() else np.inf, g[1] - g[0]


@pytest.mark.parametrize("seed", [3])
def test_large_repeated_real_structure_brackets_the_brute_force_margin(seed):
    M, blocks, mats = repeated_loop(seed)
    assert MuStructure(blocks).N > AB13MD_MAX_N  # the route without AB13MD
    rs = tl.robust_stability(M, blocks)
    assert rs.verified and rs.margin_lower <= rs.margin_upper
    first_unstable, step = brute_margin(mats, 1.5 * rs.margin_upper)
    assert np.isfinite(first_unstable)
    # the attained Δ destabilises: no grid point below its norm is unstable, up to a step
    assert rs.margin_upper <= first_unstable * (1 + 1e-9)
    assert rs.margin_upper >= first_unstable - step
    # the certified lower margin is below every unstable point
    assert rs.margin_lower <= first_unstable
    assert rs.mu.certified in ("intervals", "grid")


def test_upper_bound_without_ab13md_is_above_the_lower_bound():
    """At a few frequencies of the N = 18 loop: the D-G route's bound (no AB13MD) is at
    least the attained lower bound, and comes with a certificate that checks."""
    M, blocks, _ = repeated_loop(0)
    st = MuStructure(blocks)
    for w in (0.0, 0.7, 2.0):
        Mw = np.asarray(M(1j * w))
        up = mu_upper(Mw, blocks)
        lo = mu_lower(Mw, blocks, starts=1)
        assert up.value >= lo.value * (1 - 1e-9)
        Z = st.pad(Mw)
        L = Z.conj().T @ up.D @ Z + 1j * (up.G @ Z - Z.conj().T @ up.G) - \
            up.value ** 2 * (1 + 1e-7) * up.D
        assert np.linalg.eigvalsh((L + L.conj().T) / 2).max() <= 1e-9 * np.abs(up.D).max()


def test_mu_sweep_floor_is_checked_and_only_raises_the_bound():
    """``floor`` (a known lower bound of the μ peak) starts the certificate there: the peak
    upper bound is at least the floor and still certified; bad values are typed errors."""
    from titop_lpv.exceptions import ArgumentError, ArgumentTypeError
    from titop_lpv.robust.mu import mu_sweep

    sys = control.ss(control.tf([1.0], [1.0, 0.2, 1.0]))
    blocks = [("complex", 1, 1, 1)]
    w = np.logspace(-1, 1, 30)
    plain = mu_sweep(sys, blocks, w)
    raised = mu_sweep(sys, blocks, w, floor=2 * plain.peak_upper)
    assert raised.certified == "intervals"
    assert raised.peak_upper >= 2 * plain.peak_upper
    for bad, err in ((-1.0, ArgumentError), (np.inf, ArgumentError), ("1", ArgumentTypeError)):
        with pytest.raises(err, match="floor"):
            mu_sweep(sys, blocks, w, floor=bad)
