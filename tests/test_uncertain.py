"""Uncertain parameters and uncertain systems (titop_lpv.robust.uss, uncertain_ops,
uncertain_eval).

Every operation is checked the same way: build the uncertain system with our LFT algebra,
evaluate it at random parameter values, and compare with the system built directly at
those values with python-control (or a closed form), through frequency responses at
several ω (relative error ≤ 1e-12). Names must survive every operation; the lftdata round
trip F_u(M, Δ(δ)) must give at_delta(δ); bad input raises typed errors naming the
parameter or the operands' shapes.
"""

from __future__ import annotations

import warnings

import control
import numpy as np
import pytest

from titop_lpv.exceptions import ShapeError
from titop_lpv.robust.atoms import ucomplex, ultidyn, ureal
from titop_lpv.robust.blocks import Block, DeltaStructure, UncertaintyError
from titop_lpv.robust.evaluate import ComplexStateSpace
from titop_lpv.robust.interconnect import interconnect
from titop_lpv.robust.lft import IllPosedError, lft_upper
from titop_lpv.robust.ops import (
    append,
    feedback,
    hstack,
    parallel,
    series,
    uss,
    vstack,
)
from titop_lpv.robust.uss import USS

RTOL = 1e-12
OMEGA = (0.03, 0.4, 1.7, 6.0, 40.0)

K = ureal("k", 50.0, percent=20)  # [40, 60]
M = ureal("m", 3.0, range=(2.5, 3.5))
C = ureal("c", 0.8, plusminus=0.3)  # [0.5, 1.1]
RANGES = {"k": (40.0, 60.0), "m": (2.5, 3.5), "c": (0.5, 1.1)}


def _fresp(sys, omega=OMEGA) -> np.ndarray:
    return np.stack([np.atleast_2d(sys(1j * w)) for w in omega])


def _same(H1, H2, rtol: float = RTOL) -> None:
    H1, H2 = np.asarray(H1), np.asarray(H2)
    assert H1.shape == H2.shape
    err = np.max(np.abs(H1 - H2), initial=0.0)
    assert err <= rtol * max(1.0, np.max(np.abs(H2), initial=0.0)), err


def _draws(rng: np.random.Generator, n: int = 5) -> list[dict[str, float]]:
    return [{k: rng.uniform(*r) for k, r in RANGES.items()} for _ in range(n)]


def _at(G: USS, values: dict[str, float]):
    """``G.at`` with the values of the parameters ``G`` depends on (others are errors)."""
    return G.at({n: v for n, v in values.items() if n in G.params})


def _integrator(inp: str, out: str) -> control.StateSpace:
    return control.ss(0.0, 1.0, 1.0, 0.0, inputs=inp, outputs=out, states=out)


# ---------------------------------------------------------------- parameters


def test_ureal_normalisation() -> None:
    assert (K.lo, K.hi, K.center, K.half_width, K.delta_nominal) == (40, 60, 50, 10, 0)
    assert (M.lo, M.hi) == (2.5, 3.5) and (C.lo, C.hi) == pytest.approx((0.5, 1.1))
    a = ureal("a", 2.0, range=(1.0, 5.0))  # off-centre nominal
    assert a.center == 3.0 and a.half_width == 2.0 and a.delta_nominal == -0.5
    assert a.from_delta(a.to_delta(4.2)) == pytest.approx(4.2, rel=1e-15)
    b = ureal("b", -4.0, percent=(-10, 50))
    assert (b.lo, b.hi) == pytest.approx((-4.4, -2.0))
    assert ureal("d", 1.0, plusminus=(-0.5, 0.25)).hi == 1.25
    # a parameter is a 1×1 static uncertain system
    G = uss(a)
    assert G.shape == (1, 1) and G.delta.blocks == (Block("a", "real", 1, 1, 1),)
    assert G.nominal().D[0, 0] == pytest.approx(2.0, rel=1e-15)
    assert G.at_delta(a=1.0).D[0, 0] == pytest.approx(5.0, rel=1e-15)


@pytest.mark.parametrize("make, match", [
    (lambda: ureal("k", 70.0, range=(40.0, 60.0)), "'k'.*outside"),
    (lambda: ureal("k", 5.0, range=(5.0, 5.0)), "'k'.*zero-width"),
    (lambda: ureal("k", 5.0, plusminus=0.0), "'k'.*zero-width"),
    (lambda: ureal("k", 0.0, percent=10), "'k'.*zero-width"),
    (lambda: ureal("k", 5.0, range=(6.0, 4.0)), "'k'.*reversed"),
    (lambda: ureal("k", 5.0), "'k'.*exactly one"),
    (lambda: ureal("k", 5.0, range=(4, 6), percent=5), "'k'.*exactly one"),
    (lambda: ureal("k", "heavy", percent=5), "'k'"),
    (lambda: ureal("k", 5.0, plusminus=-1.0), "'k'"),
    (lambda: ureal("k.x", 5.0, percent=5), "'k.x'"),
    (lambda: ucomplex("z", 1.0, radius=0.0), "'z'.*radius"),
    (lambda: ucomplex("z", 1.0 + 1.0j, radius=0.5), "'z'"),
    (lambda: ultidyn("D", (0, 1)), "'D'"),
    (lambda: ultidyn("D", (1, 1), bound=-1.0), "'D'"),
])
def test_bad_parameters_raise_naming_them(make, match) -> None:
    with pytest.raises(UncertaintyError, match=match):
        make()


def test_same_name_with_different_ranges_is_refused() -> None:
    k2 = ureal("k", 50.0, percent=10)
    with pytest.raises(UncertaintyError, match=r"'k'.*different"):
        K + k2
    with pytest.raises(UncertaintyError, match="'k'"):
        feedback(_integrator("u", "y") * K, k2)
    # the same specification twice is the same parameter: one block
    assert (K + ureal("k", 50.0, percent=20)).delta["k"].repeats == 2


def test_mismatched_dimensions_name_the_shapes() -> None:
    A = uss(K * np.ones((2, 3)))
    B = uss(np.ones((2, 2)))
    with pytest.raises(ShapeError, match=r"2×3.*2×2"):
        A + B
    with pytest.raises(ShapeError, match=r"2×3.*2×2"):
        A @ B
    with pytest.raises(ShapeError, match="2×3"):
        A.inv()
    with pytest.raises(ShapeError, match=r"hstack.*2×3.*3×3"):
        hstack(A, np.ones((3, 3)))
    with pytest.raises(ShapeError, match="vstack"):
        vstack(A, np.ones((3, 2)))
    with pytest.raises(ShapeError, match="feedback"):
        feedback(A, np.ones((2, 2)))


# ---------------------------------------------------------------- scalar and matrix algebra


EXPRESSIONS = [
    lambda k, m, c: k + m,
    lambda k, m, c: k - 2.0 * m + 1.5,
    lambda k, m, c: k * m * c,
    lambda k, m, c: 3.0 - k * c,
    lambda k, m, c: -k / m,
    lambda k, m, c: 1.0 / (k + m * c),
    lambda k, m, c: (k - m) / (c + 2.0),
    lambda k, m, c: k**2 - m**-1,
    lambda k, m, c: (k * m - c) * (k + c),
]


@pytest.mark.parametrize("i", range(len(EXPRESSIONS)))
def test_scalar_expressions_at_random_values(i: int) -> None:
    f = EXPRESSIONS[i]
    G = uss(f(K, M, C))
    rng = np.random.default_rng(10 + i)
    for v in _draws(rng):
        _same(_at(G, v).D, np.array([[f(v["k"], v["m"], v["c"])]]))
    _same(G.nominal().D, np.array([[f(50.0, 3.0, 0.8)]]))


def test_matrix_algebra_at_random_values() -> None:
    rng = np.random.default_rng(20)
    B0 = rng.standard_normal((2, 3))
    A = uss([[K, 1.0], [0.0, M]], inputs=["p", "q"], outputs=["r", "s"])
    assert A.input_labels == ["p", "q"] and A.output_labels == ["r", "s"]
    exprs = [
        (lambda a: a @ B0, lambda a: a @ B0),
        (lambda a: a.inv(), np.linalg.inv),
        (lambda a: a @ a - 2.0 * a, lambda a: a @ a - 2.0 * a),
        (lambda a: np.eye(2) / a, np.linalg.inv),
        (lambda a: hstack(a, B0), lambda a: np.hstack([a, B0])),
        (lambda a: vstack(a, a.inv()), lambda a: np.vstack([a, np.linalg.inv(a)])),
        (lambda a: append(a, B0), lambda a: np.block([[a, np.zeros((2, 3))],
                                                      [np.zeros((2, 2)), B0]])),
        (lambda a: a * 2.0 + C, lambda a: a * 2.0 + np.ones((2, 2)) * vals["c"]),
    ]
    for vals in _draws(rng, 4):
        Av = np.array([[vals["k"], 1.0], [0.0, vals["m"]]])
        for f_unc, f_num in exprs:
            _same(_at(uss(f_unc(A)), vals).D, f_num(Av))
    assert A.inv().input_labels == ["r", "s"] and A.inv().output_labels == ["p", "q"]
    assert (A @ B0).input_labels == ["u[0]", "u[1]", "u[2]"] and (A @ B0).output_labels == [
        "r", "s"]
    assert append(A, A).input_labels == ["p", "q", "p_2", "q_2"]


# ---------------------------------------------------------------- systems


def _msd_uncertain() -> USS:
    """m ẍ + c ẋ + k x = F, built from integrators with feedback and series."""
    velocity = feedback(_integrator("a", "v") / M, C)  # F' → v
    return feedback(series(velocity, _integrator("v", "x")), K)


def _msd(k: float, m: float, c: float) -> control.TransferFunction:
    return control.tf([1.0], [m, c, k])


def test_mass_spring_damper_from_feedback_and_series() -> None:
    G = _msd_uncertain()
    assert G.input_labels == ["a"] and G.output_labels == ["x"]
    assert set(G.state_labels) == {"v", "x"}
    assert dict((b.name, b.repeats) for b in G.delta) == {"m": 1, "c": 1, "k": 1}
    for v in _draws(np.random.default_rng(30)):
        H = G.at(**v)
        assert isinstance(H, control.StateSpace) and H.input_labels == ["a"]
        _same(_fresp(H), _fresp(_msd(**v)))
    _same(_fresp(G.nominal()), _fresp(_msd(50.0, 3.0, 0.8)))


def _random_plant(rng: np.random.Generator, n: int, p: int, m: int, param, scale: float):
    """An uncertain state-space model affine in ``param`` and its value → StateSpace map."""
    from titop_lpv.robust.lft import affine_lft

    A0 = rng.standard_normal((n, n))
    A0 -= (np.max(np.linalg.eigvals(A0).real) + 2.0) * np.eye(n)
    B0, C0, D0 = (rng.standard_normal(s) for s in ((n, m), (p, n), (p, m)))
    dA, dB, dD = (scale * rng.standard_normal(s) for s in ((n, n), (n, m), (p, m)))
    U = affine_lft(control.ss(A0, B0, C0, D0), {param: (dA, dB, None, dD)})

    def at(v: float) -> control.StateSpace:
        return control.ss(A0 + v * dA, B0 + v * dB, C0, D0 + v * dD)

    return U, at


def test_sums_products_inverse_feedback_of_mimo_systems() -> None:
    rng = np.random.default_rng(40)
    k, m = ureal("k", 1.0, range=(0.5, 1.5)), ureal("m", 0.0, range=(-0.5, 0.5))
    G1, g1 = _random_plant(rng, 3, 2, 2, k, 0.2)
    G2, g2 = _random_plant(rng, 2, 2, 2, m, 0.2)
    G1 = G1.rename(inputs=["u1", "u2"], outputs=["y1", "y2"])
    cases = [
        (lambda a, b: a + b, lambda a, b: a + b),
        (lambda a, b: a - 2.0 * b, lambda a, b: a - 2.0 * b),
        (lambda a, b: a * b, lambda a, b: a * b),
        (lambda a, b: b @ a, lambda a, b: b * a),
        (lambda a, b: a.inv(), lambda a, b: control.ss(*_inverse(a))),
        (lambda a, b: a / b, lambda a, b: a * control.ss(*_inverse(b))),
        (lambda a, b: feedback(a, 0.1 * b), lambda a, b: control.feedback(a, 0.1 * b)),
        (lambda a, b: feedback(a, 0.1 * b, sign=1), lambda a, b: control.feedback(a, 0.1 * b,
                                                                                  sign=1)),
        (lambda a, b: parallel(a, b, k), lambda a, b: a + b + np.ones((2, 2)) * kv),
        (lambda a, b: series(a, b, a), lambda a, b: a * b * a),
    ]
    for _ in range(4):
        kv, mv = rng.uniform(0.5, 1.5), rng.uniform(-0.5, 0.5)
        a, b = g1(kv), g2(mv)
        for f_unc, f_dir in cases:
            U = f_unc(G1, G2)
            _same(_fresp(_at(U, {"k": kv, "m": mv})), _fresp(f_dir(a, b)))
    # names: sums and feedback keep the first operand's, products left outputs/right inputs
    assert (G1 + G2).input_labels == ["u1", "u2"] and (G1 - G2).output_labels == ["y1", "y2"]
    assert feedback(G1, G2).input_labels == ["u1", "u2"]
    assert (G2 @ G1).input_labels == ["u1", "u2"] and (G2 @ G1).output_labels == ["y[0]", "y[1]"]
    assert (G1 @ G2).output_labels == ["y1", "y2"] and G1.inv().input_labels == ["y1", "y2"]
    assert (2.0 * G1).output_labels == ["y1", "y2"] and (G1 * k).input_labels == ["u1", "u2"]
    assert (G1 * k).delta["k"].repeats == G1.delta["k"].repeats + 2


def _inverse(sys: control.StateSpace):
    Di = np.linalg.inv(sys.D)
    return (sys.A - sys.B @ Di @ sys.C, sys.B @ Di, -Di @ sys.C, Di)


def test_interconnect_by_names() -> None:
    plant = _msd_uncertain().rename(inputs=["F"], outputs=["x"], name="plant")
    kp = ureal("kp", 80.0, percent=10)
    ctrl = uss(kp * control.tf([1.0, 2.0], [1.0, 20.0]), inputs=["e"], outputs=["Fc"],
               name="ctrl")
    err = control.summing_junction(inputs=["r", "-x"], output="e")
    dist = control.summing_junction(inputs=["Fc", "d"], output="F")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        CL = interconnect([plant, ctrl, err, dist], inplist=["r", "d"], outlist=["x", "Fc"],
                          name="loop")
    assert CL.input_labels == ["r", "d"] and CL.output_labels == ["x", "Fc"]
    assert CL.name == "loop" and set(CL.params) == {"m", "c", "k", "kp"}
    rng = np.random.default_rng(50)
    for v in _draws(rng, 4):
        kpv = rng.uniform(72.0, 88.0)
        P = control.ss(_msd(**v), inputs="F", outputs="x", name="P")
        Cn = control.ss(kpv * control.tf([1.0, 2.0], [1.0, 20.0]), inputs="e", outputs="Fc",
                        name="C")
        direct = control.interconnect([P, Cn, err, dist], inplist=["r", "d"],
                                      outlist=["x", "Fc"])
        H = CL.at(kp=kpv, **v)
        assert H.input_labels == ["r", "d"] and H.output_labels == ["x", "Fc"]
        _same(_fresp(H), _fresp(direct))
    # explicit connections, an uncertain parameter used in two subsystems (merged)
    g1 = uss(K * _integrator("u", "y"), inputs=["u"], outputs=["y"], name="g1")
    g2 = uss(uss(control.tf([1.0], [1.0, 1.0])) / K, inputs=["u"], outputs=["y"], name="g2")
    S = interconnect([g1, g2], inplist=["g1.u"], outlist=["g2.y"],
                     connections=[["g2.u", "g1.y"]], outputs=["out"])
    assert S.output_labels == ["out"] and S.input_labels == ["u"]
    assert S.delta["k"].repeats == 2
    _same(_fresp(S.at(k=44.0)), _fresp(control.tf([1.0], [1.0, 1.0, 0.0])))


def test_names_survive_every_operation() -> None:
    rng = np.random.default_rng(45)
    k = ureal("k", 1.0, range=(0.5, 1.5))
    G, _ = _random_plant(rng, 2, 2, 2, k, 0.1)
    G = G.rename(inputs=["u1", "u2"], outputs=["y1", "y2"], states=["s1", "s2"])
    same = [G + k, k + G, G - G, -G, G * 2.0, 2.0 * G, G @ np.eye(2), np.eye(2) @ G,
            G / 2.0, G * k, k * G, feedback(G, k), feedback(G, control.ss([], [], [], np.eye(2))),
            parallel(G, G), series(G, np.diag([1.0, 2.0])), G**2, +G]
    for H in same:
        assert H.input_labels == ["u1", "u2"] and H.output_labels == ["y1", "y2"]
        assert H.at(k=0.7).input_labels == ["u1", "u2"]
    assert (G + k).state_labels == ["s1", "s2"]
    assert (G @ G).state_labels == ["s1", "s2", "s1_2", "s2_2"]
    assert G.inv().input_labels == ["y1", "y2"] and G.inv().output_labels == ["u1", "u2"]
    assert hstack(G, G).input_labels == ["u1", "u2", "u1_2", "u2_2"]
    assert vstack(G, 2 * G).output_labels == ["y1", "y2", "y1_2", "y2_2"]
    M, _ = (G + k).lftdata()
    assert M.input_labels[-2:] == ["u1", "u2"] and M.state_labels == ["s1", "s2"]
    R = uss(G, inputs=["a", "b"], outputs=["c", "d"], name="plant")
    assert R.name == "plant" and R.nominal().input_labels == ["a", "b"]
    with pytest.raises(UncertaintyError, match=r"'a\.b'"):
        G.rename(inputs=["a.b", "c"])
    with pytest.raises(UncertaintyError, match="unique"):
        G.rename(outputs=["a", "a"])


# ---------------------------------------------------------------- lftdata and evaluation


def test_lftdata_round_trip() -> None:
    D = ultidyn("D", (2, 1), bound=0.5)
    G = hstack(vstack(_msd_uncertain(), K * control.tf([1.0], [1.0, 3.0])), 0.3 * D)
    Mx, delta = G.lftdata()
    assert isinstance(Mx, control.StateSpace)
    assert delta.names == ("m", "c", "k", "D")
    assert delta.sizes() == [(1, 1), (1, 1), (2, 2), (2, 1)]
    assert Mx.input_labels[:6] == ["m_w1", "c_w1", "k_w1", "k_w2", "D_w1", "D_w2"]
    assert Mx.output_labels[:5] == ["m_z1", "c_z1", "k_z1", "k_z2", "D_z1"]
    assert Mx.input_labels[6:] == G.input_labels and Mx.output_labels[5:] == G.output_labels
    rng = np.random.default_rng(60)
    for d in G.sample_delta(4, seed=rng):
        d["D"] = d["D"] + 0.1j  # a complex full block: compare frequency responses
        Dm = delta.matrix(d)
        H = G.at_delta(d)
        assert isinstance(H, ComplexStateSpace) and H.input_labels == tuple(G.input_labels)
        HM = _fresp(Mx)
        for i, w in enumerate(OMEGA):
            _same(H(1j * w), lft_upper(HM[i], Dm))
    G2 = USS(Mx, delta, G.params)
    assert G2.input_labels == G.input_labels and G2.state_labels == G.state_labels
    v = {"k": 45.0, "m": 3.3, "c": 0.6, "D": np.array([[0.2], [-0.1]])}
    _same(_fresp(G2.at(v)), _fresp(G.at(v)))


def test_nominal_vertices_grid_and_samples() -> None:
    a = ureal("a", 2.0, range=(1.0, 5.0))
    G = _msd_uncertain() * a
    _same(_fresp(G.nominal()), _fresp(2.0 * _msd(50.0, 3.0, 0.8)))
    V = G.vertices()
    assert V.shape == (2, 2, 2, 2)  # block order m, c, k, a
    assert [b.name for b in G.delta] == ["m", "c", "k", "a"]
    _same(_fresp(V[0, 1, 1, 0]), _fresp(1.0 * _msd(60.0, 2.5, 1.1)))
    grid = G.grid({"k": [40.0, 55.0, 60.0], "a": [1.5, 4.0]})
    assert grid.shape == (3, 2)
    _same(_fresp(grid[1, 1]), _fresp(4.0 * _msd(55.0, 3.0, 0.8)))
    S1, S2 = G.sample(6, seed=3), G.sample(6, seed=3)
    deltas = G.sample_delta(6, seed=3)
    assert all(-1.0 <= d[n] <= 1.0 for d in deltas for n in d)
    for s1, s2, d in zip(S1, S2, deltas):
        assert s1.output_labels == ["x"]
        _same(_fresp(s1), _fresp(s2))
        _same(_fresp(s1), _fresp(G.at_delta(d)))
    assert not np.allclose(_fresp(S1[0]), _fresp(S1[1]))


def test_complex_and_dynamic_uncertainty() -> None:
    z = ucomplex("z", 2.0, radius=0.5)
    G = control.tf([1.0], [1.0, 1.0]) * z
    Hc = G.at(z=2.0 + 0.3j)
    assert isinstance(Hc, ComplexStateSpace)
    for w in OMEGA:
        _same(Hc(1j * w), np.array([[(2.0 + 0.3j) / (1j * w + 1.0)]]))
    assert isinstance(G.at(z=2.4), control.StateSpace)
    samples = G.sample_delta(50, seed=1)
    assert all(abs(d["z"]) <= 1.0 for d in samples)
    # unmodelled dynamics: a constant or a system, scaled by the bound
    D = ultidyn("D", (1, 1), bound=0.5)
    P = control.tf([2.0], [1.0, 3.0])
    W = control.tf([1.0, 1.0], [0.1, 1.0])
    Gd = P * (1.0 + W * D)
    Dsys = control.ss(control.tf([0.4], [1.0, 2.0]))  # ‖D‖∞ = 0.2
    Hd = Gd.at(D=Dsys)
    assert Hd.nstates == Gd.nstates + 1 and Hd.state_labels[-1] == "D_x0"
    _same(_fresp(Hd), _fresp(P * (1.0 + W * control.tf([0.4], [1.0, 2.0]))))
    _same(_fresp(Gd.at_delta(D=[[0.6]])), _fresp(P * (1.0 + W * 0.3)))
    _same(_fresp(Gd.nominal()), _fresp(P))
    for d in Gd.sample_delta(20, seed=2):
        assert np.linalg.norm(d["D"], 2) <= 1.0


def test_evaluation_errors() -> None:
    G = _msd_uncertain()
    with pytest.raises(UncertaintyError, match=r"'kk'.*depends on"):
        G.at(kk=3.0)
    with pytest.raises(UncertaintyError, match="'k'"):
        G.at(k="soft")
    with pytest.raises(UncertaintyError, match="'k'"):
        G.at_delta(k=0.5j)
    D = ultidyn("D", (2, 1))
    with pytest.raises(ShapeError, match="'D'"):
        uss(D).at(D=np.eye(2))
    with pytest.raises(IllPosedError):
        feedback(1.0, 1.0, sign=1)
    with pytest.raises(IllPosedError, match="δ = 0"):
        (K - 50.0).inv()
    with pytest.raises(UncertaintyError, match="no parameter"):
        USS(np.eye(2), DeltaStructure((K.block(),)), [])


def test_static_values_outside_the_range_and_discrete_time() -> None:
    G = uss(K * 2.0)
    assert G.at(k=100.0).D[0, 0] == pytest.approx(200.0, rel=1e-15)
    Gd = K * control.ss(0.5, 1.0, 1.0, 0.0, dt=0.1)
    assert Gd.dt == 0.1 and Gd.at(k=45.0).dt == 0.1
    with pytest.raises(UncertaintyError, match="timebase"):
        Gd + control.ss(-1.0, 1.0, 1.0, 0.0)
