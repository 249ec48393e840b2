"""Uncertain systems without inputs or without outputs evaluate (``at_delta``, ``at``,
``nominal``), also where python-control 0.10.2 refuses the shapes (no input and one output
or one state, its issue #1176); a static system with no input and one output, which
python-control cannot hold, is refused with a ShapeError naming the problem.

Reference: ``F_u(M, δ) = A + B_w δ (1 − D_zw δ)⁻¹ C_z …`` written out by hand for one real
block, and for the balloon the exact linearisation ``tl.linearize`` of the re-trimmed model.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import control
import numpy as np
import pytest

import titop_lpv as tl
from titop_lpv.robust.evaluate import statespace

ROOT = Path(__file__).resolve().parent.parent


def _lft(n_u: int, n_y: int, n_x: int = 2):
    """A USS with one real block ``a ∈ [1, 3]`` (nominal 2) entering once, ``n_u`` inputs,
    ``n_y`` outputs, ``n_x`` states; its LFT matrix."""
    rng = np.random.default_rng(7)
    A = -np.eye(n_x) + 0.1 * rng.standard_normal((n_x, n_x))
    B = rng.standard_normal((n_x, 1 + n_u))
    C = rng.standard_normal((1 + n_y, n_x))
    D = 0.1 * rng.standard_normal((1 + n_y, 1 + n_u))
    a = tl.ureal("a", 2.0, range=(1.0, 3.0))
    M = control.ss(A, B, C, D)
    G = tl.USS(M, tl.DeltaStructure((a.block(1),)), [a], inputs=[f"u{i}" for i in range(n_u)],
               outputs=[f"y{i}" for i in range(n_y)], states=[f"x{i}" for i in range(n_x)])
    return G, (A, B, C, D)


def _by_hand(mats, delta: float):
    A, B, C, D = mats
    k = delta / (1.0 - D[0, 0] * delta)  # δ (1 − D_zw δ)⁻¹, Δ 1×1
    return (A + k * np.outer(B[:, 0], C[0]), B[:, 1:] + k * np.outer(B[:, 0], D[0, 1:]),
            C[1:] + k * np.outer(D[1:, 0], C[0]), D[1:, 1:] + k * np.outer(D[1:, 0], D[0, 1:]))


@pytest.mark.parametrize(("n_u", "n_y", "n_x"),
                         [(0, 1, 2), (0, 1, 1), (0, 2, 2), (0, 0, 2), (1, 0, 1), (2, 0, 2)])
def test_no_inputs_or_no_outputs_evaluate(n_u: int, n_y: int, n_x: int) -> None:
    G, mats = _lft(n_u, n_y, n_x)
    for d in (0.0, -1.0, 0.6):
        S = G.at_delta({"a": d})
        assert (S.ninputs, S.noutputs, S.nstates) == (n_u, n_y, n_x)
        assert list(S.input_labels) == [f"u{i}" for i in range(n_u)]
        assert list(S.output_labels) == [f"y{i}" for i in range(n_y)]
        for got, want in zip((S.A, S.B, S.C, S.D), _by_hand(mats, d)):
            assert np.asarray(got).shape == want.shape
            np.testing.assert_allclose(got, want, rtol=0, atol=1e-13)
        assert S(1j).shape == (n_y, n_u)
    assert G.nominal().nstates == n_x
    assert G.at({"a": 3.0}).ninputs == n_u  # physical value: δ = 1


def test_static_no_input_one_output_refused_with_a_shape_error() -> None:
    a = tl.ureal("a", 2.0, range=(1.0, 3.0))
    M = np.array([[0.1], [1.0]])  # w → z, w → y; no input u, no state
    G = tl.USS(M, tl.DeltaStructure((a.block(1),)), [a], inputs=[], outputs=["y"])
    with pytest.raises(tl.ShapeError, match="no state, no input and one output"):
        G.at_delta({"a": 0.5})


def test_statespace_checks_shapes() -> None:
    with pytest.raises(tl.ShapeError, match="do not match"):
        statespace(np.eye(2), np.zeros((2, 1)), np.zeros((1, 2)), np.zeros((1, 1)),
                   inputs=[], outputs=["y"], states=["a", "b"])


def test_balloon_without_inputs_equals_linearize() -> None:
    """``linearize_uncertain(..., inputs=[])``: the free response to pendulum2_q, equal to
    the re-trimmed ``tl.linearize`` at k = 40 (1e-9 relative)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tl.TitopWarning)
        model = tl.load_model(ROOT / "examples" / "balloon.toml")
    free = ["balloon.phi", "balloon.theta", "slider.q", "pendulum1.q", "pendulum2.q"]
    guess = {"pendulum1.q": 0.2, "pendulum2.q": -0.2}
    G = tl.linearize_uncertain(model, free, uncertain=["k"], inputs=[],
                               outputs=["pendulum2_q"], guess=guess)
    S = G.at({"k": 40.0})
    assert (S.ninputs, S.noutputs) == (0, 1)
    op = tl.trim(model, free, params={"k": 40.0}, guess=guess)
    ref = tl.linearize(model, op, inputs=[], outputs=["pendulum2_q"])
    scale = max(1.0, float(np.max(np.abs(ref.A))))
    assert np.max(np.abs(np.asarray(S.A) - ref.A)) <= 1e-9 * scale
    assert np.max(np.abs(np.asarray(S.C) - ref.C)) <= 1e-9 * scale
    H = tl.linearize_uncertain(model, free, uncertain=["k"], inputs=["slider_tau"],
                               outputs=[], guess=guess)
    assert (H.nominal().ninputs, H.nominal().noutputs) == (1, 0)
