"""LFT functions, LFT constructors and the δ-channel reduction (titop_lpv.robust.lft).

* lower/upper LFT and star product on matrices against the closed formulas (real and
  complex), and the identities that tie them together;
* the same on python-control systems: frequency response of the result = matrix LFT of
  the frequency responses, names and state order kept; ill-posed loops are refused;
* affine_lft: repetitions = coefficient ranks, evaluation = M0 + Σ p_i M_i (matrices and
  state-space matrices) at random parameter values;
* polynomial_lft: evaluation = the polynomial;
* reduce: exact (evaluation unchanged) and shrinking hidden redundant channels.
"""

from __future__ import annotations

import control
import numpy as np
import pytest

from titop_lpv.exceptions import ArgumentError, ShapeError
from titop_lpv.robust.atoms import ultidyn, ureal
from titop_lpv.robust.blocks import UncertaintyError
from titop_lpv.robust.lft import (
    IllPosedError,
    affine_lft,
    lft_lower,
    lft_upper,
    polynomial_lft,
    reduce,
    repeat_bounds,
    star,
)
from titop_lpv.robust.ops import feedback, hstack, series, uss, vstack
from titop_lpv.robust.uss import USS

RTOL = 1e-12
OMEGA = (0.05, 0.6, 2.5, 17.0)


def _rand(rng: np.random.Generator, *shape: int, cplx: bool = False) -> np.ndarray:
    X = rng.standard_normal(shape)
    return X + 1j * rng.standard_normal(shape) if cplx else X


def _close(X: np.ndarray, Y: np.ndarray, rtol: float = RTOL) -> bool:
    X, Y = np.asarray(X), np.asarray(Y)
    return X.shape == Y.shape and np.max(np.abs(X - Y), initial=0.0) <= rtol * max(
        1.0, np.max(np.abs(Y), initial=0.0))


def _fresp(sys: control.StateSpace, omega=OMEGA) -> np.ndarray:
    return np.stack([np.atleast_2d(sys(1j * w)) for w in omega])


def _stable(rng: np.random.Generator, n: int, p: int, m: int, **names) -> control.StateSpace:
    A = _rand(rng, n, n)
    A -= (np.max(np.linalg.eigvals(A).real) + 1.0) * np.eye(n)
    return control.ss(A, _rand(rng, n, m), _rand(rng, p, n), _rand(rng, p, m), **names)


# ---------------------------------------------------------------- matrices


@pytest.mark.parametrize("cplx", [False, True])
def test_matrix_lfts_match_closed_formulas(cplx: bool) -> None:
    rng = np.random.default_rng(0)
    M = _rand(rng, 5, 6, cplx=cplx) / 3  # outputs [y1 (3); y2 (2)], inputs [u1 (4); u2 (2)]
    K = _rand(rng, 2, 2, cplx=cplx) / 3
    M11, M12, M21, M22 = M[:3, :4], M[:3, 4:], M[3:, :4], M[3:, 4:]
    expect = M11 + M12 @ K @ np.linalg.solve(np.eye(2) - M22 @ K, M21)
    assert _close(lft_lower(M, K), expect)
    # upper: Δ (2×3) closes the first 2 inputs with the first 3 outputs
    Dl = _rand(rng, 2, 3, cplx=cplx) / 3
    N11, N12, N21, N22 = M[:3, :2], M[:3, 2:], M[3:, :2], M[3:, 2:]
    expect_u = N22 + N21 @ Dl @ np.linalg.solve(np.eye(3) - N11 @ Dl, N12)
    assert _close(lft_upper(M, Dl), expect_u)


def test_star_product_identities() -> None:
    rng = np.random.default_rng(1)
    P = _rand(rng, 5, 5) / 3
    Q = _rand(rng, 4, 4) / 3
    K = _rand(rng, 1, 1) / 3
    # closing Q's free channels after or before the star product: associativity
    PQ = star(P, Q, 2, 3)
    assert PQ.shape == (5 - 2 + 4 - 3, 5 - 3 + 4 - 2)
    assert _close(lft_lower(PQ, K), star(P, lft_lower(Q, K), 2, 3))
    # upper and lower LFT are star products
    K = _rand(rng, 1, 2) / 3
    assert _close(star(P, K, 2, 1), lft_lower(P, K))
    D = _rand(rng, 2, 1)
    assert _close(star(D, P, 2, 1), lft_upper(P, D))


def test_matrix_lft_errors() -> None:
    with pytest.raises(ShapeError, match="3×3"):
        lft_lower(np.eye(2), np.eye(3))
    # u2 = y2 with M22 = 1: I − M22 K singular
    with pytest.raises(IllPosedError, match="not well posed"):
        lft_lower(np.array([[0.0, 1.0], [1.0, 1.0]]), np.array([[1.0]]))


# ---------------------------------------------------------------- systems


def test_state_space_lfts_keep_names_and_match_frequency_responses() -> None:
    rng = np.random.default_rng(2)
    P = _stable(rng, 3, 3, 3, inputs=["d", "f", "u"], outputs=["e", "g", "y"],
                states=["p1", "p2", "p3"])
    P = control.ss(P.A, P.B, P.C, 0.3 * P.D, inputs=P.input_labels,
                   outputs=P.output_labels, states=P.state_labels)
    K = _stable(rng, 2, 1, 1, states=["k1", "k2"])
    K = control.ss(K.A, K.B, K.C, 0.2 * K.D, states=K.state_labels)
    L = lft_lower(P, K)
    assert L.input_labels == ["d", "f"] and L.output_labels == ["e", "g"]
    assert L.state_labels == ["p1", "p2", "p3", "k1", "k2"]
    HP, HK, HL = _fresp(P), _fresp(K), _fresp(L)
    for i in range(len(OMEGA)):
        assert _close(HL[i], lft_lower(HP[i], HK[i]))
    # upper LFT with a dynamic Δ closing the first input/output
    U = lft_upper(P, K)
    assert U.input_labels == ["f", "u"] and U.output_labels == ["g", "y"]
    assert U.state_labels == ["p1", "p2", "p3", "k1", "k2"]
    HU = _fresp(U)
    for i in range(len(OMEGA)):
        assert _close(HU[i], lft_upper(HP[i], HK[i]))
    # a constant Δ on a system; a transfer function is accepted
    Uc = lft_upper(control.tf([1.0], [1.0, 1.0]) * np.ones((2, 2)), np.array([[0.4]]))
    assert _close(_fresp(Uc), _fresp(control.tf([1.0], [1.0, 0.6])))


def test_state_space_star_and_ill_posed_loop() -> None:
    rng = np.random.default_rng(3)
    P1 = _stable(rng, 2, 3, 3, inputs=["a", "b", "c"], outputs=["x", "y", "z"])
    P2 = _stable(rng, 2, 2, 2, inputs=["y2", "q"], outputs=["c2", "r"])
    P1 = control.ss(P1.A, P1.B, P1.C, 0.2 * P1.D, inputs=P1.input_labels,
                    outputs=P1.output_labels)
    S = star(P1, P2, 1, 1)
    assert S.input_labels == ["a", "b", "q"] and S.output_labels == ["x", "y", "r"]
    H1, H2, HS = _fresp(P1), _fresp(P2), _fresp(S)
    for i in range(len(OMEGA)):
        assert _close(HS[i], star(H1[i], H2[i], 1, 1))
    G = control.ss([[-1.0]], [[1.0, 1.0]], [[1.0], [1.0]], [[0.0, 0.0], [0.0, 2.0]])
    with pytest.raises(IllPosedError):
        lft_lower(G, np.array([[0.5]]))  # 1 − 2·0.5 = 0


# ---------------------------------------------------------------- constructors


def test_affine_lft_repetitions_are_ranks_and_evaluation_is_exact() -> None:
    rng = np.random.default_rng(4)
    k = ureal("k", 2.0, range=(1.0, 4.0))
    m = ureal("m", -1.0, plusminus=0.5)
    M0 = _rand(rng, 4, 3)
    Mk = _rand(rng, 4, 2) @ _rand(rng, 2, 3)  # rank 2
    Mm = np.outer(_rand(rng, 4), _rand(rng, 3))  # rank 1
    Mq = _rand(rng, 4, 3)  # rank 3, normalised parameter "q"
    G = affine_lft(M0, {k: Mk, m: Mm, "q": Mq}, inputs=["a", "b", "c"], name="G")
    assert [(b.name, b.repeats) for b in G.delta] == [("k", 2), ("m", 1), ("q", 3)]
    assert G.input_labels == ["a", "b", "c"] and G.output_labels == [f"y[{i}]" for i in range(4)]
    for _ in range(5):
        kv, mv, qv = rng.uniform(1, 4), rng.uniform(-1.5, -0.5), rng.uniform(-1, 1)
        assert _close(G.at(k=kv, m=mv, q=qv).D, M0 + kv * Mk + mv * Mm + qv * Mq)
    assert _close(G.nominal().D, M0 + 2.0 * Mk - 1.0 * Mm)
    with pytest.raises(ShapeError, match="'m'"):
        affine_lft(M0, {m: np.eye(3)})
    with pytest.raises(UncertaintyError, match="'k'"):
        affine_lft(M0, {k: Mk, "k": Mk})


def test_affine_lft_on_state_space_matrices() -> None:
    rng = np.random.default_rng(5)
    k = ureal("k", 50.0, percent=20)
    c = ureal("c", 0.5, range=(0.3, 0.9))
    m_val = 2.0
    A0 = np.array([[0.0, 1.0], [0.0, 0.0]])
    B0 = np.array([[0.0], [1.0 / m_val]])
    C0 = np.array([[1.0, 0.0]])
    M0 = control.ss(A0, B0, C0, 0.0, inputs="F", outputs="x", states=["q", "qd"])
    Ak = np.array([[0.0, 0.0], [-1.0 / m_val, 0.0]])
    Ac = np.array([[0.0, 0.0], [0.0, -1.0 / m_val]])
    G = affine_lft(M0, {k: (Ak, None, None, None), c: (Ac, None, None, None)})
    assert [(b.name, b.repeats) for b in G.delta] == [("k", 1), ("c", 1)]
    assert G.input_labels == ["F"] and G.output_labels == ["x"]
    assert G.state_labels == ["q", "qd"]
    for _ in range(5):
        kv, cv = rng.uniform(40, 60), rng.uniform(0.3, 0.9)
        direct = control.tf([1.0], [m_val, cv, kv])
        assert _close(_fresp(G.at(k=kv, c=cv)), _fresp(direct))


def test_polynomial_lft() -> None:
    rng = np.random.default_rng(6)
    k = ureal("k", 1.0, range=(0.5, 2.0))
    M0, M1, M2 = _rand(rng, 3, 3), _rand(rng, 3, 3), np.outer(_rand(rng, 3), _rand(rng, 3))
    Mkq = _rand(rng, 3, 1) @ _rand(rng, 1, 3)
    G = polynomial_lft(M0, {k: M1, (k, k): M2, (k, "q"): Mkq}, reduce_channels=False)
    assert dict((b.name, b.repeats) for b in G.delta) == {"k": 3 + 2 + 1, "q": 1}
    Gr = polynomial_lft(M0, {k: M1, (k, k): M2, (k, "q"): Mkq})
    assert sum(b.repeats for b in Gr.delta) <= sum(b.repeats for b in G.delta)
    for _ in range(5):
        kv, qv = rng.uniform(0.5, 2.0), rng.uniform(-1, 1)
        expect = M0 + kv * M1 + kv**2 * M2 + kv * qv * Mkq
        assert _close(G.at(k=kv, q=qv).D, expect)
        assert _close(Gr.at(k=kv, q=qv).D, expect)
    # on state-space matrices: A(k) = A0 + k² A2 (a mass-spring with stiffness k²)
    sys0 = control.ss([[0.0, 1.0], [0.0, -0.4]], [[0.0], [1.0]], [[1.0, 0.0]], 0.0,
                      inputs="F", outputs="x")
    Gs = polynomial_lft(sys0, {(k, k): (np.array([[0.0, 0.0], [-1.0, 0.0]]), None, None,
                                        None)})
    assert Gs.delta["k"].repeats == 2 and Gs.input_labels == ["F"]
    for kv in (0.6, 1.3, 1.9):
        assert _close(_fresp(Gs.at(k=kv)), _fresp(control.tf([1.0], [1.0, 0.4, kv**2])))


# ---------------------------------------------------------------- reduction


def test_reduce_redundant_channels() -> None:
    k = ureal("k", 50.0, percent=20)
    m = ureal("m", 3.0, range=(2.5, 3.5))
    G = k + k - k
    assert G.delta["k"].repeats == 3
    R, report = reduce(G)
    assert report == {"k": (3, 1)}
    for d in (-1.0, -0.3, 0.8):
        assert _close(R.at_delta(k=d).D, G.at_delta(k=d).D)
    # k − k vanishes; k·k needs two copies; k·ones(2, 2) needs one
    R0, rep0 = reduce(k - k + m)
    assert rep0 == {"k": (2, 0), "m": (1, 1)} and R0.delta.names == ("m",)
    assert reduce(k * k)[1] == {"k": (2, 2)}
    Gk = k * np.ones((2, 2))
    assert Gk.delta["k"].repeats == 2 and reduce(Gk)[1] == {"k": (2, 1)}


def test_reduce_finds_hidden_channels_and_keeps_the_system() -> None:
    rng = np.random.default_rng(7)
    k = ureal("k", 1.0, range=(0.0, 2.0))
    sys0 = _stable(rng, 3, 2, 2, inputs=["u1", "u2"], outputs=["y1", "y2"])
    terms = {k: (_rand(rng, 3, 3) * 0.1, _rand(rng, 3, 2), None, _rand(rng, 2, 2))}
    G = affine_lft(sys0, terms)  # k with rank(coefficient) repetitions: minimal
    r = G.delta["k"].repeats
    # add 2 uncontrollable and 2 unobservable channels, then hide them by a rotation
    A, B, C, D = G.abcd
    n, q = G.nstates, 2
    N = np.block([[A, B], [C, D]])
    rows, cols = N.shape
    big = np.zeros((rows + 2 * q, cols + 2 * q))
    ir = np.r_[0 : n + r, n + r + 2 * q : rows + 2 * q]  # old rows (z after x)
    ic = np.r_[0 : n + r, n + r + 2 * q : cols + 2 * q]
    big[np.ix_(ir, ic)] = N
    zu, wu = np.arange(n + r, n + r + q), np.arange(n + r, n + r + q)
    zo, wo = np.arange(n + r + q, n + r + 2 * q), np.arange(n + r + q, n + r + 2 * q)
    big[np.ix_(zu, wu)] = _rand(rng, q, q) * 0.1  # uncontrollable: driven by nothing else
    big[np.ix_(ir, wu)] = _rand(rng, len(ir), q)  # … but seen everywhere
    big[np.ix_(zo, wo)] = _rand(rng, q, q) * 0.1  # unobservable: seen by nothing else
    big[np.ix_(zo, ic)] = _rand(rng, q, len(ic))  # … but driven by everything
    T, _ = np.linalg.qr(_rand(rng, r + 2 * q, r + 2 * q))
    blk = np.arange(n, n + r + 2 * q)
    big[blk] = T.T @ big[blk]
    big[:, blk] = big[:, blk] @ T
    from titop_lpv.robust.abcd import ABCD
    from titop_lpv.robust.uss import USS

    Gbig = USS(control.ss(big[:n, :n], big[:n, n:], big[n:, :n], big[n:, n:]),
               G.delta.__class__((k.block(r + 2 * q),)), [k], inputs=["u1", "u2"])
    assert isinstance(Gbig.abcd, ABCD)
    R, report = reduce(Gbig)
    assert report == {"k": (r + 2 * q, r)}
    assert R.input_labels == ["u1", "u2"]
    for _ in range(4):
        kv = rng.uniform(0.0, 2.0)
        assert _close(_fresp(R.at(k=kv)), _fresp(G.at(k=kv)), 1e-10)
        assert _close(_fresp(Gbig.at(k=kv)), _fresp(G.at(k=kv)), 1e-10)


def test_reduce_leaves_full_blocks() -> None:
    D = ultidyn("D", (1, 1), bound=0.5)
    k = ureal("k", 1.0, plusminus=0.2)
    G = (1 + D) * (k + k)
    R, report = reduce(G)
    assert report == {"D": (1, 1), "k": (2, 1)}
    X = np.array([[0.3]])
    assert _close(R.at(D=X, k=1.1).D, G.at(D=X, k=1.1).D)


def _two_block_uss(N: np.ndarray, n: int, ra: int, rb: int) -> USS:
    """A USS from an LFT matrix with states ``n``, blocks ``a·I_ra``, ``b·I_rb``."""
    a, b = ureal("a", 1.0, plusminus=0.5), ureal("b", 2.0, plusminus=0.5)
    from titop_lpv.robust.blocks import DeltaStructure

    return USS(control.ss(N[:n, :n], N[:n, n:], N[n:, :n], N[n:, n:]),
               DeltaStructure((a.block(ra), b.block(rb))), [a, b])


def test_structured_reduction_removes_a_loop_between_blocks() -> None:
    # a's second channel is driven only by b's second channel and vice versa: a closed loop
    # no input reaches. One block at a time each sees the other's channel as an input (the
    # 1-D reduction keeps both); together neither is reachable, and w_a2 = δa δb αβ w_a2
    # gives w_a2 = 0 for every δ: removing both changes nothing
    rng = np.random.default_rng(3)
    n, ra, rb, m, p = 2, 2, 2, 1, 1
    size_r, size_c = n + ra + rb + p, n + ra + rb + m
    N = np.zeros((size_r, size_c))
    a1, a2, b1, b2 = n, n + 1, n + 2, n + 3
    live_r = [0, 1, a1, b1, size_r - 1]  # x', z_a1, z_b1, y
    live_c = [0, 1, a1, b1, size_c - 1]  # x, w_a1, w_b1, u
    N[np.ix_(live_r, live_c)] = _rand(rng, 5, 5) * 0.4
    N[a2, b2], N[b2, a2] = 0.7, -0.9  # the hidden loop
    N[[0, 1, size_r - 1], a2] = _rand(rng, 3)  # observable …
    N[[0, 1, size_r - 1], b2] = _rand(rng, 3)
    N[:n, :n] -= 4.0 * np.eye(n)
    for lo, r in ((n, ra), (n + ra, rb)):  # … and hidden by rotations inside each block
        T, _ = np.linalg.qr(_rand(rng, r, r))
        N[lo:lo + r] = T.T @ N[lo:lo + r]
        N[:, lo:lo + r] = N[:, lo:lo + r] @ T
    G = _two_block_uss(N, n, ra, rb)
    R, report = reduce(G)
    assert report == {"a": (2, 1), "b": (2, 1)}
    for _ in range(5):
        va, vb = rng.uniform(0.5, 1.5), rng.uniform(1.5, 2.5)
        assert _close(_fresp(R.at(a=va, b=vb)), _fresp(G.at(a=va, b=vb)), 1e-11)
    assert repeat_bounds(G) == {"a": 1, "b": 1}


def test_reduce_does_not_depend_on_the_units_of_states_and_signals() -> None:
    # k·M1 with M1 of rank 2, one direction 1e-9 of the other once the states are in
    # units 1e±5 apart: the rank decision relative to the whole matrix would drop it; the
    # reduction evens rows and columns out first (powers of 2) and keeps both
    rng = np.random.default_rng(11)
    k = ureal("k", 1.0, range=(0.5, 1.5))
    sys0 = _stable(rng, 3, 1, 1)
    M1 = _rand(rng, 3, 2) @ _rand(rng, 2, 3) * 0.1
    G = affine_lft(sys0, {k: (M1, None, None, None)})
    assert reduce(G)[1] == {"k": (2, 2)}
    S = np.diag([1e5, 1.0, 1e-5])  # x = S x̃
    A, B, C, D = G.abcd
    n = G.nstates
    T = np.eye(A.shape[0])
    T[:n, :n] = S
    Ti = np.linalg.inv(T)
    Gs = USS(control.ss(Ti @ A @ T, Ti @ B, C @ T, D), G.delta, [k])
    R, report = reduce(Gs)
    assert report == {"k": (2, 2)} and repeat_bounds(Gs) == {"k": 2}
    for kv in (0.6, 1.3):
        assert _close(_fresp(R.at(k=kv)), _fresp(G.at(k=kv)), 1e-10)


def test_repeat_bounds_are_the_degree_in_each_parameter() -> None:
    rng = np.random.default_rng(5)
    k, m = ureal("k", 2.0, percent=10), ureal("m", 1.0, percent=20)
    # affine: the coefficient's rank, reached by the reduction ([0 B_m; C_m 0]: rank 4)
    sys0 = _stable(rng, 3, 2, 2)
    G = affine_lft(sys0, {k: (_rand(rng, 3, 1) @ _rand(rng, 1, 3), None, None, None),
                          m: (None, _rand(rng, 3, 2), _rand(rng, 2, 3), None)})
    assert repeat_bounds(G) == {"k": 1, "m": 4}
    assert {n: r[1] for n, r in reduce(G)[1].items()} == {"k": 1, "m": 4}
    # k² + k·m: k twice, m once; (k + 1)/(k m + 2): k once (degree 1 in k), m once
    assert repeat_bounds(k * k + k * m) == {"k": 2, "m": 1}
    H = feedback(k + 1, k * m + 1)  # (k+1)/(1 + (k+1)(km+1)): degree 2 in k, 1 in m
    assert repeat_bounds(H) == {"k": 2, "m": 1}
    assert all(repeat_bounds(H)[n] <= r for n, (_, r) in reduce(H)[1].items())
    # never above what a reduction reaches, on random LFTs with repeated blocks
    for seed in range(4):
        r = np.random.default_rng(seed)
        N = _rand(r, 2 + 3 + 2 + 1, 2 + 3 + 2 + 1) * 0.3
        Gr = _two_block_uss(N, 2, 3, 2)
        bounds, reps = repeat_bounds(Gr), reduce(Gr)[1]
        assert all(bounds[n] <= reps[n][1] for n in bounds)
    with pytest.raises(ArgumentError, match="samples"):
        repeat_bounds(G, samples=0)


def test_lower_lft_and_star_accept_an_uncertain_plant() -> None:
    """P = [[G, G], [G, G]], G = 1/(s² + k) with k uncertain; u = −c y2 closes the last
    channel: F_l(P, −c) = G/(1 + c G) = 1/(s² + k + c), checked at random k against that
    closed form (evaluated by USS.at, independently of the LFT)."""
    k = ureal("k", 2.0, percent=25)
    integ = [control.ss(0.0, 1.0, 1.0, 0.0, inputs=i, outputs=o, states=o)
             for i, o in (("f", "v"), ("v", "x"))]
    G = feedback(series(uss(integ[0]), integ[1]), k)
    P = vstack(hstack(G, G), hstack(G, G)).rename(inputs=["d", "u"], outputs=["x", "y"])
    c = 0.7
    L = lft_lower(P, np.array([[-c]]))
    S = star(P, np.array([[-c]]), 1, 1)
    assert isinstance(L, USS) and isinstance(S, USS)
    assert list(L.input_labels) == ["d"] and list(L.output_labels) == ["x"]
    assert L.lftdata()[1] == P.lftdata()[1]
    rng = np.random.default_rng(5)
    for kv in rng.uniform(1.5, 2.5, 4):
        s = 1j * rng.uniform(0.1, 3.0)
        for T in (L, S):
            assert abs(complex(T.at(k=kv)(s)) - 1 / (s**2 + kv + c)) <= 1e-12
    with pytest.raises(ShapeError, match="Δ channels, which stay free"):
        lft_lower(P, np.ones((3, 3)))
