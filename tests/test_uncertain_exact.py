"""``linearize_uncertain`` equals ``linearize(trim(...))`` over the whole box, corners included.

The case of issue 25 (item 4): a six-link arm with two joint angles scheduled over about
±1 rad and the payload mass uncertain. The two routes are compared in frequency response,
per frequency and relative (down to 1e-4 rad/s, where the undamped yaw's ``1/s²`` dominates),
and in poles, at every corner of the box and at seeded interior points. The yaw axis is
vertical: its column of ``A`` is zero at every point, and any rounding residue in it split
the yaw's double pole at zero (1e-7 before the block route made such columns exactly zero).
"""

from __future__ import annotations

import warnings

import models
import numpy as np
import pytest
from scipy.optimize import linear_sum_assignment

import titop_lpv as tl
from titop_lpv.linear.reduce_check import ZERO_RTOL, at_delta, exact_zero_columns, matrices

RTOL = 1e-9
OMEGA = np.logspace(-4, 3, 15)  # rad/s
FIXED = {"shoulder_yaw_q": 0.3, "shoulder_q": -0.4, "roll_q": 0.2, "flange_q": -0.3}
SCHEDULING = {"elbow_q": (-0.1, 1.9), "wrist_q": (-1.2, 0.8)}  # rad: 0.9 ± 1, −0.2 ± 1
PAYLOAD = (0.5, 5.0)  # kg


@pytest.fixture(scope="module")
def arm() -> tl.Model:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tl.TitopWarning)
        return tl.load_model(models.six_link_arm())


@pytest.fixture(scope="module")
def arm_lft(arm):
    taus = [f"{b}_tau" for b in arm.body_names if b != "payload"]
    outputs = [f"{b}_q" for b in ("shoulder", "elbow", "wrist", "roll", "flange")]
    G = tl.linearize_uncertain(arm, free=taus, fixed=FIXED, uncertain={"m_payload": PAYLOAD},
                               scheduling=SCHEDULING, inputs=taus, outputs=outputs)
    return G, taus, outputs


def _points(n: int, seed: int) -> list[dict[str, float]]:
    """Every corner of the box, then ``n`` seeded interior points (angles in rad)."""
    box = {"m_payload": PAYLOAD, **SCHEDULING}
    names = list(box)
    corners = [{k: box[k][(c >> j) & 1] for j, k in enumerate(names)}
               for c in range(2 ** len(names))]
    rng = np.random.default_rng(seed)
    return corners + [{k: float(rng.uniform(*box[k])) for k in names} for _ in range(n)]


def _response_gap(S1, S2) -> float:
    """Largest relative difference of the frequency responses, frequency by frequency."""
    H1, H2 = S1(1j * OMEGA), S2(1j * OMEGA)
    return max(float(np.linalg.norm(H1[:, :, k] - H2[:, :, k], 2)
                     / np.linalg.norm(H2[:, :, k], 2)) for k in range(len(OMEGA)))


def _pole_gap(S1, S2) -> float:
    """Largest distance between matched poles, relative to the largest pole."""
    p1, p2 = np.linalg.eigvals(np.asarray(S1.A)), np.linalg.eigvals(np.asarray(S2.A))
    rows, cols = linear_sum_assignment(np.abs(p1[:, None] - p2[None, :]))
    return float(np.max(np.abs(p1[rows] - p2[cols])) / np.max(np.abs(p2)))


def test_six_link_arm_equals_the_nonlinear_route_at_corners_and_inside(arm, arm_lft) -> None:
    G, taus, outputs = arm_lft
    assert G.kinds == {"m_payload": "exact", "elbow_q": "scheduled", "wrist_q": "scheduled"}
    yaw = list(G.state_labels).index("shoulder_yaw_q")
    M = G.abcd
    assert not np.any(M.A[:, yaw]) and not np.any(M.C[:, yaw])  # exactly, for every Δ
    for values in _points(8, seed=25):
        op = tl.trim(arm, free=taus, params={"m_payload": values["m_payload"]},
                     fixed={**FIXED, "elbow_q": values["elbow_q"],
                            "wrist_q": values["wrist_q"]})
        assert op.success, (values, op.message)
        ref = tl.linearize(arm, op, inputs=taus, outputs=outputs)
        S = G.at(values)
        assert _response_gap(S, ref) <= RTOL, values
        assert _pole_gap(S, ref) <= RTOL, values


def test_exact_zero_columns_changes_no_other_column(arm_lft) -> None:
    G, _, _ = arm_lft
    # the residue the assembly leaves in the yaw column, restored: the function removes it
    # again and changes nothing else
    M = G.abcd
    yaw = list(G.state_labels).index("shoulder_yaw_q")
    rng = np.random.default_rng(4)
    A, C = np.array(M.A), np.array(M.C)
    scale = float(np.max(np.abs(matrices(at_delta(G, {})))))
    A[:, yaw] = 1e-3 * ZERO_RTOL * scale * rng.standard_normal(A.shape[0])
    C[:, yaw] = 1e-3 * ZERO_RTOL * scale * rng.standard_normal(C.shape[0])
    noisy = type(G)._new(type(M)(A, M.B, C, M.D), G.dt, G.delta, list(G.params.values()),
                         G.input_labels, G.output_labels, G.state_labels, G.name)
    cleaned, zeroed = exact_zero_columns(noisy)
    assert zeroed == ("shoulder_yaw_q",)
    np.testing.assert_array_equal(cleaned.abcd.A, M.A)
    np.testing.assert_array_equal(cleaned.abcd.C, M.C)
    # a column that does not vanish (the elbow angle's) is kept, even when it is small
    elbow = list(G.state_labels).index("elbow_q")
    A[:, elbow] *= 1e-6
    small = type(G)._new(type(M)(A, M.B, C, M.D), G.dt, G.delta, list(G.params.values()),
                         G.input_labels, G.output_labels, G.state_labels, G.name)
    kept, zeroed = exact_zero_columns(small)
    assert zeroed == ("shoulder_yaw_q",)
    np.testing.assert_array_equal(kept.abcd.A[:, elbow], A[:, elbow])
    # a column already zero in M is left as it is (nothing to do: no evaluation beyond δ = 0)
    assert exact_zero_columns(G)[1] == ()


def test_scheduled_angles_keep_their_range_in_rad(arm_lft, tmp_path) -> None:
    from titop_lpv.linear.kinds import JointAngle, psi

    G, _, _ = arm_lft
    for name, (lo, hi) in SCHEDULING.items():
        p = G.params[name]
        assert isinstance(p, JointAngle)
        assert (p.lo, p.hi, p.nominal) == (lo, hi, 0.5 * (lo + hi))  # as given, in rad
        assert p.from_delta(-1.0) == pytest.approx(lo, abs=1e-15)
        assert p.from_delta(1.0) == pytest.approx(hi, abs=1e-15)
        # the LFT's variable ψ = q₀ + 2 tan((q − q₀)/2) is affine in δ
        c, s = p.affine()
        for q in (lo, p.nominal, 0.3 * lo + 0.7 * hi, hi):
            assert c + s * p.to_delta(q) == pytest.approx(psi(q, p.nominal), abs=1e-15)
            assert p.from_delta(p.to_delta(q)) == pytest.approx(q, abs=1e-15)
        assert f"[{lo:.6g}, {hi:.6g}]" in G.report()
    # saved and loaded: the same blocks, the same plants at the same angles; the file holds
    # the plain ureal of ψ (what MATLAB's ureal rebuilds) and the angle range beside it
    values = {"m_payload": 4.0, "elbow_q": 1.7, "wrist_q": -1.1}
    for ext in ("npz", "json", "mat"):
        H = tl.load_linear(tl.save_linear(G, tmp_path / f"arm.{ext}"))
        assert H.params == G.params, ext
        np.testing.assert_array_equal(matrices(H.at(values)), matrices(G.at(values)))
