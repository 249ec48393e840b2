"""Regression tests for issue 12 in the robustness layer: each repro of the issue, plain.

Bad input gets a typed ``titop_lpv`` error naming the argument at fault; bounds and margins
always satisfy lower <= upper; the margin of a loop with one real parameter matches its
Routh–Hurwitz closed form.
"""

from __future__ import annotations

import math

import control
import numpy as np
import pytest
from guards import hang_guard

import titop_lpv as tl
from titop_lpv.exceptions import TitopError
from titop_lpv.robust.checks import ArgumentError, ArgumentTypeError
from titop_lpv.robust.mu import freqresp, real_frequencies

M_, TAU, KP, KD, K0 = 1.0, 0.1, 20.0, 1.8, 5.0  # the docs' mass-spring-damper (docs/robust.md)


def c_critical(k: float = K0) -> float:
    """Routh–Hurwitz: the cubic ``τ m s³ + (m + cτ) s² + (c + kτ + k_d) s + (k + k_p)`` is on
    the boundary when ``(m + cτ)(c + kτ + k_d) = τ m (k + k_p)``, a quadratic in c."""
    a, b = TAU, M_ + TAU * (k * TAU + KD)
    c = M_ * (k * TAU + KD) - TAU * M_ * (k + KP)
    return (-b + math.sqrt(b * b - 4 * a * c)) / (2 * a)


def damper_loop(percent: float = 50.0) -> tl.USS:
    """The docs' loop with the damping c = 1 ± ``percent`` % as its only uncertainty."""
    c = tl.ureal("c", nominal=1.0, percent=percent)
    integ = control.tf(1, [1, 0])
    plant = tl.feedback(integ * tl.feedback(integ / M_, c), K0)
    plant = tl.uss(plant, inputs="f", outputs="x", states=["pos", "vel"], name="msd")
    pd = control.tf([KD, KP], [TAU, 1], inputs="x", outputs="u", name="pd")
    return tl.feedback(plant, pd)


def assert_typed(exc_info, *builtins: type, words: tuple[str, ...] = ()):
    """The error is a TitopError and each builtin given, and its message names ``words``."""
    err = exc_info.value
    assert isinstance(err, TitopError), type(err).__mro__
    for b in builtins:
        assert isinstance(err, b), type(err).__mro__
    for w in words:
        assert w in str(err), (w, str(err))


# ----------------------------------------------------------------------- item 1: margins
def test_one_real_parameter_margin_is_the_routh_hurwitz_one():
    """c = 1 ± 50 %: the margin was reported in [inf, 1.68] ("stable for every Δ with
    ‖Δ‖ < inf"); it is t* = 2 (1 − c*) = 1.67899 from both sides."""
    t_star = 2 * (1 - c_critical())
    assert t_star == pytest.approx(1.678985777680147, abs=1e-12)
    rs = tl.robust_stability(damper_loop())
    assert rs.margin_lower <= rs.margin_upper
    assert rs.margin_lower == pytest.approx(t_star, abs=1e-10)
    assert rs.margin_upper == pytest.approx(t_star, abs=1e-10)
    assert rs.verified
    assert rs.parameter_values["c"] == pytest.approx(c_critical(), abs=1e-10)
    # the poles cross at ω² = (c + kτ + k_d)/(τ m)
    w = math.sqrt((c_critical() + K0 * TAU + KD) / (TAU * M_))
    assert rs.omega_critical == pytest.approx(w, rel=1e-9)
    assert "inf" not in rs.report()


def test_crossing_just_inside_the_box_is_not_missed():
    """Percent chosen so that the loop goes unstable at δ = −(1 − 1e-13): not robustly
    stable over the box (margin < 1), and the μ bounds agree with the crossing."""
    t_star = 1 - 1e-13
    rs = tl.robust_stability(damper_loop(100 * (1 - c_critical()) / t_star))
    assert rs.margin_lower <= rs.margin_upper < 1.0
    assert rs.margin_lower == pytest.approx(t_star, abs=1e-12)
    assert rs.mu.peak_upper >= rs.mu.peak_lower > 0
    assert np.all(rs.mu.upper >= rs.mu.lower)


def test_worst_case_gain_and_mu_sweep_keep_lower_below_upper():
    G = damper_loop(30.0)
    wc = tl.worst_case_gain(G, starts=2)
    assert 0 < wc.gain <= wc.upper
    M, delta = G.lftdata()
    M11 = M[: delta.nz, : delta.nw]
    res = tl.mu_sweep(M11, delta, np.r_[0.0, np.logspace(-1, 2, 50)])
    assert np.all(res.lower <= res.upper)
    assert res.peak_lower <= res.peak_upper
    # one real scalar: the sweep adds the frequency where M11(jω) is real, so the peak is μ
    assert res.peak_upper == pytest.approx(1 / (2 * (1 - c_critical()) / 0.6), rel=1e-9)


def test_real_frequencies_of_a_third_order_lag():
    """1/(s + 1)³ is real at ω = 0 and at its −180° crossing ω = √3."""
    A = np.array([[0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [-1.0, -3.0, -3.0]])
    w = real_frequencies(A, np.array([[0.0], [0.0], [1.0]]), np.array([[1.0, 0.0, 0.0]]))
    assert w == pytest.approx([0.0, math.sqrt(3.0)], abs=1e-9)


def test_scalar_real_rule_counts_a_crossing_computed_to_rounding():
    """|Im z| = 1e-13 |z| is a crossing of the real axis to rounding: the upper bound is |z|
    (not 0), and never below the lower bound."""
    z = np.array([[-0.5 + 0.5e-13j]])
    up, lo = tl.mu_upper(z, [("real", 1, 1, 1)]), tl.mu_lower(z, [("real", 1, 1, 1)])
    assert up.value == pytest.approx(0.5, rel=1e-12)
    assert lo.value <= up.value
    assert tl.mu_upper(np.array([[0.5j]]), [("real", 1, 1, 1)]).value == 0.0


# ----------------------------------------------------------------------- item 2
def test_mu_upper_of_a_huge_matrix_is_finite_and_scaled():
    blocks = [("real", 1, 1, 1), ("complex", 1, 1, 1)]
    M = np.array([[1.0, 2.0], [3.0, 4.0]]) + 1j * np.array([[0.3, -1.0], [2.0, 0.1]])
    ref = tl.mu_upper(M, blocks).value
    for s in (1e200, 1e-200):
        b = tl.mu_upper(s * M, blocks)
        assert np.isfinite(b.value) and b.value / s == pytest.approx(ref, rel=1e-9)
        assert np.all(np.isfinite(b.D)) and np.all(np.isfinite(b.G))
        lo = tl.mu_lower(s * M, blocks)
        assert lo.value <= b.value
        assert lo.value / s == pytest.approx(ref, rel=1e-6)  # μ here: the bounds meet
        assert tl.structured_norm(lo.delta, blocks) * lo.value == pytest.approx(1.0)


def test_mu_upper_overflow_is_a_typed_error():
    with pytest.raises(ArgumentError) as e:
        tl.mu_upper(np.full((2, 2), 1e308), [("complex", 1, 1, 1), ("complex", 1, 1, 1)])
    assert_typed(e, ValueError, words=("largest float",))


def test_structured_norm_of_a_matrix_of_the_wrong_shape():
    with pytest.raises(tl.StructureError) as e:
        tl.structured_norm(np.eye(3), [("real", 1, 1, 1), ("complex", 1, 1, 1)])
    assert_typed(e, ValueError, words=("(3, 3)", "2x2"))
    with pytest.raises(tl.StructureError):
        tl.block_values(np.eye(3), [("real", 1, 1, 1), ("complex", 1, 1, 1)])


def test_uss_refuses_nan():
    with pytest.raises(ArgumentError) as e:
        tl.uss(np.full((2, 2), np.nan))
    assert_typed(e, ValueError, words=("M must be finite", "nan"))
    with pytest.raises(ArgumentError):
        tl.uss(control.ss([[np.inf]], [[1.0]], [[1.0]], [[0.0]]))


@pytest.mark.parametrize("shape", [(1.5, 2.7), (-1, 1), (0, 2), (1,), "ab", None, (True, 1)])
def test_ultidyn_refuses_non_integer_and_negative_shapes(shape):
    with pytest.raises(tl.UncertaintyError) as e:
        tl.ultidyn("d", shape)
    assert_typed(e, ValueError, words=("'d'", "shape"))


def test_ultidyn_keeps_integral_shapes():
    assert tl.ultidyn("d", (2.0, np.int64(3))).shape == (2, 3)


# ----------------------------------------------------------------------- item 3
def test_type_errors_are_typed():
    for bad in ("sys", None, [[1, "a"]]):
        with pytest.raises(ArgumentTypeError) as e:
            tl.uss(bad)
        assert_typed(e, TypeError)
    k = tl.ureal("k", 1.0, percent=10)
    with pytest.raises(ArgumentTypeError) as e:
        k ** 1.5
    assert_typed(e, TypeError, words=("exponent",))
    with pytest.raises(ArgumentTypeError) as e:
        k * "a"
    assert_typed(e, TypeError, words=("str",))
    with pytest.raises(ArgumentTypeError) as e:
        k * (1j * np.eye(2))
    assert_typed(e, TypeError, words=("complex",))
    with pytest.raises(ArgumentTypeError):
        tl.lft_upper("M", [[1.0]])


@pytest.mark.parametrize("f", [tl.mu_upper, tl.mu_lower])
def test_nan_in_m_is_named_not_an_svd_failure(f):
    with pytest.raises(tl.StructureError) as e:
        f(np.array([[np.nan, 0.0], [0.0, 1.0]]), [("real", 1, 1, 1), ("complex", 1, 1, 1)])
    assert_typed(e, ValueError, words=("M must be finite",))


def test_unchecked_seeds_and_counts():
    G = damper_loop()
    with pytest.raises(ArgumentTypeError) as e:
        tl.mu_lower(np.eye(2), [("real", 1, 1, 1), ("complex", 1, 1, 1)], seed="a")
    assert_typed(e, TypeError, words=("seed",))
    with pytest.raises(ArgumentTypeError):
        tl.mu_lower(np.eye(2), [("real", 1, 1, 1), ("complex", 1, 1, 1)], starts=None)
    with pytest.raises(ArgumentTypeError) as e:
        tl.monte_carlo(G, n="a")
    assert_typed(e, TypeError, words=("n (the number of samples)",))
    with pytest.raises(tl.RobustnessError) as e:
        tl.monte_carlo(G, n=2.5)
    assert_typed(e, ValueError, words=("n (the number of samples)",))
    with pytest.raises(ArgumentTypeError) as e:
        tl.worst_case_gain(G, starts=None)
    assert_typed(e, TypeError, words=("starts",))
    with pytest.raises(ArgumentTypeError) as e:
        tl.robust_stability(G, seed="a")
    assert_typed(e, TypeError, words=("seed",))
    with pytest.raises(tl.UncertaintyError) as e:
        G.sample(-1)
    assert_typed(e, ValueError, words=("number of samples",))
    with pytest.raises(ArgumentTypeError):
        G.sample(2, seed="a")
    with pytest.raises(ArgumentError):
        G.sample_delta(2, seed=-3)
    assert len(G.sample(0)) == 0


def test_wrong_shapes_are_named():
    blocks = [("real", 1, 1, 1), ("complex", 1, 1, 1)]
    with pytest.raises(tl.StructureError) as e:
        tl.mu_upper(np.ones(2), blocks)
    assert_typed(e, ValueError, words=("shape (2,)", "2x2"))
    with pytest.raises(tl.StructureError):
        tl.mu_upper(np.ones((3, 2, 2)), blocks)  # a stack: one matrix only
    with pytest.raises(ArgumentTypeError) as e:
        tl.mu_sweep(np.eye(2), blocks, [1.0])
    assert_typed(e, TypeError, words=("StateSpace", "mu_upper"))


def test_uss_of_a_transfer_function_is_converted():
    tf = control.tf([1.0, 2.0], [1.0, 3.0, 5.0])
    G = tl.uss(tf, inputs="u", outputs="y")
    ref = control.ss(tf)
    w = np.array([0.0, 0.7, 3.0])
    assert freqresp(G.nominal(), w) == pytest.approx(freqresp(ref, w), rel=1e-12)
    assert (G.input_labels, G.output_labels) == (["u"], ["y"])


def test_robust_stability_refuses_non_finite_matrices():
    M = control.ss([[-1.0]], [[1.0, 1.0]], [[1.0], [np.nan]], np.zeros((2, 2)))
    with pytest.raises(tl.RobustnessError) as e:
        tl.robust_stability(M, [("real", 1, 1, 1)])
    assert_typed(e, ValueError, words=("M.C",))


def test_close_lft_without_performance_channels_is_named():
    M = control.ss([[-1.0]], [[1.0]], [[1.0]], [[0.0]])
    with pytest.raises(tl.RobustnessError) as e:
        tl.close_lft(M, [[0.5]])
    assert_typed(e, ValueError, words=("performance",))


def test_mu_sweep_with_a_pole_on_the_grid_is_named():
    integrator = control.ss([[0.0]], [[1.0]], [[1.0]], [[0.0]])
    with pytest.raises(tl.StructureError) as e:
        tl.mu_sweep(integrator, [("complex", 1, 1, 1)], [0.0, 1.0])
    assert_typed(e, ValueError, words=("not finite at ω = 0",))


def test_more_unchecked_arguments_found_by_the_fuzz_campaign():
    G = damper_loop()
    with pytest.raises(tl.UncertaintyError) as e:
        G.grid(None)
    assert_typed(e, ValueError, words=("mapping",))
    with pytest.raises(ArgumentError) as e:
        tl.feedback(G, 1.0, sign="a")
    assert_typed(e, ValueError, words=("sign",))
    with pytest.raises(ArgumentTypeError) as e:
        tl.monte_carlo(G, n=2, executor="pool")
    assert_typed(e, TypeError, words=("executor",))
    K = control.tf([1.0], [1.0, 1.0], inputs="x", outputs="v", name="K")
    with pytest.raises(tl.UncertaintyError) as e:
        tl.interconnect([G, K], ["f"], ["x", "v"], inputs=3)
    assert_typed(e, ValueError, words=("inputs",))
    with pytest.raises(tl.UncertaintyError) as e:
        tl.interconnect([G, K], ["zz"], ["x"])
    assert_typed(e, ValueError, words=("cannot be connected",))
    with pytest.raises(ArgumentError):
        G ** 10**6


# ------------------------------------------------------------ issue 25 item 5: last escapes
def test_frequencies_beyond_the_range_of_a_double_are_refused():
    """omega = [1e308]: robust_stability raised a raw OverflowError in the certificate,
    mu_sweep scipy's "array must not contain infs or NaNs"."""
    with pytest.raises(tl.RobustnessError) as e:
        tl.robust_stability(damper_loop(), omega=[0.0, 1e308])
    assert_typed(e, ValueError, words=("omega holds 1e+308 rad/s", "above 1e+15"))
    sys = control.ss(-np.eye(2), np.eye(2), np.eye(2), np.zeros((2, 2)))
    with pytest.raises(tl.StructureError, match="omega holds 1e"):
        tl.mu_sweep(sys, [("complex", 1, 1, 2)], [1e300])
    with pytest.raises(tl.RobustnessError, match="omega holds"):
        tl.worst_case_gain(damper_loop(), omega=[1.0, 1e200])


def test_mu_sweep_on_one_frequency_needs_certify_false():
    """A scalar omega: the certificate over [0, ∞] started from one point (seconds to
    minutes, or scipy's "lower bound exceeds the upper bound")."""
    sys = control.ss([[-2.0, -0.36], [-0.05, -2.6]], np.eye(2), np.eye(2), np.zeros((2, 2)))
    with hang_guard(30), pytest.raises(tl.StructureError) as e:
        tl.mu_sweep(sys, [("real", 1, 1, 2)], 2.0)
    assert_typed(e, ValueError, words=("one frequency (2 rad/s)", "certify=False"))
    res = tl.mu_sweep(sys, [("real", 1, 1, 2)], 2.0, certify=False)
    assert res.certified == "grid" and 0 <= res.peak_lower <= res.peak_upper


@pytest.mark.parametrize("blocks", [[("real", 1, 1, 10**6, "a")],
                                    [("full", 10**5, 10**5, 1, "a")],
                                    [("complex", 1, 1, 300, "a"), ("real", 1, 1, 1, "b")]])
def test_structures_too_large_for_the_mu_algorithms_are_refused_at_once(blocks):
    """robust_stability on a structure with 10⁶ repeats ran for minutes (O(r² N²) scaling
    basis); a 10⁵×10⁵ full block raised numpy's MemoryError."""
    sys = control.ss(-np.eye(2), np.eye(2), np.eye(2), np.zeros((2, 2)))
    with hang_guard(30):
        for call, error in ((lambda: tl.robust_stability(sys, blocks), tl.RobustnessError),
                            (lambda: tl.mu_sweep(sys, blocks, [0.0, 1.0]), tl.StructureError),
                            (lambda: tl.mu_upper(np.eye(2), blocks), tl.StructureError),
                            (lambda: tl.worst_case_gain(sys, blocks), tl.RobustnessError)):
            with pytest.raises(error) as e:
                call()
            assert_typed(e, ValueError, words=("too large for the μ algorithms", "GiB",
                                               "largest block 'a'"))
        if blocks[0][3] * blocks[0][1] > 1000:  # Δ itself above 1 GiB (numpy's MemoryError)
            with pytest.raises(tl.RobustnessError, match=r"dense .* GiB"):
                tl.delta_matrix(blocks, [0.5] * len(blocks))


def test_a_structure_of_ordinary_size_is_accepted():
    st = tl.DeltaStructure((tl.Block("k", "real", 1, 1, 8), tl.Block("D", "full", 3, 3, 2)))
    M = np.random.default_rng(3).normal(size=(st.nz, st.nw))
    assert np.isfinite(tl.mu_upper(M, st).value)


def test_uss_name_that_is_not_a_string():
    """name=3 raised a raw TypeError later, when an evaluation quoted the name."""
    sys = control.ss(-np.eye(2), np.eye(2), np.eye(2), np.zeros((2, 2)))
    for call in (lambda: tl.uss(sys, name=3), lambda: tl.uss(sys).rename(name=["G"])):
        with pytest.raises(ArgumentTypeError) as e:
            call()
        assert_typed(e, TypeError, words=("name must be a string or None",))
    assert tl.uss(sys, name="G").name == "G"


def test_improper_transfer_functions_are_named():
    """lft_lower with an improper K raised python-control's ValueError ("non-proper")."""
    improper = control.tf([1.0, 1.0, 1.0], [1.0, 1.0])
    M = control.ss(-np.eye(2), np.eye(2), np.eye(2), np.zeros((2, 2)))
    for call in (lambda: tl.lft_lower(M, improper), lambda: tl.lft_upper(np.eye(2), improper),
                 lambda: tl.mu_sweep(improper, [("complex", 1, 1, 1)], [0.0, 1.0])):
        with pytest.raises(ArgumentTypeError) as e:
            call()
        assert_typed(e, TypeError, words=("entry (0, 0)", "improper (deg num > deg den)"))
    proper = tl.lft_lower(M, control.tf([1.0], [1.0, 1.0]))
    assert proper.ninputs == 1 and proper.noutputs == 1
