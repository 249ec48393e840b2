"""``q``, ``qd``, ``qdd`` sensors of spherical and universal joints.

A spherical joint's sensors are its unit quaternion ``<b>_qw … _qz``, its child-frame
relative angular velocity ``<b>_wx … _wz`` and that velocity's derivative ``<b>_wdx …
_wdz``; a universal joint's are ``<b>_q1 _q2``, ``<b>_qd1 _qd2``, ``<b>_qdd1 _qdd2``.
Checked along simulated trajectories by finite differences of the sensors themselves
(5-point stencils: the quaternion sensor's rate must be ``½ q ⊗ (0, ω)`` with ``ω`` the
``qd`` sensor, the rate sensor's rate the ``qdd`` sensor), against the relative rotation
of the two bodies (``R = P_{a0/b}ᵀ P_parentᵀ P_child``), and through the model file.
"""

from __future__ import annotations

import copy

import numpy as np
import pytest
from scipy.spatial.transform import Rotation
from test_spherical_peer import mixed_tree

import titop_lpv as tl
from titop_lpv.spatial.quaternion import multiply


def sensed_tree(seed: int, n: int, root: str) -> tuple[dict, list[str]]:
    """``mixed_tree`` (springs, no driven joint) with q, qd, qdd sensors on every
    spherical and universal joint, and a position sensor (the default outputs replaced)."""
    desc = mixed_tree(seed, n, root)
    multi = []
    for body in desc["bodies"]:
        body["joint"].pop("motion", None)
        if body["joint"]["type"] in ("spherical", "universal"):
            multi.append(body["name"])
    desc["outputs"] = [{"type": t, "body": b} for b in multi for t in ("q", "qd", "qdd")]
    desc["outputs"].append({"type": "position", "body": multi[0], "name": "pos"})
    return desc, multi


def _deriv(y: np.ndarray, dt: float) -> np.ndarray:
    """5-point central derivative along axis 0 (interior points)."""
    return (y[:-4] - 8 * y[1:-3] + 8 * y[3:-1] - y[4:]) / (12 * dt)


@pytest.mark.parametrize(("seed", "n", "root"), [(1, 4, "free"), (2, 6, "fixed"),
                                                 (9, 6, "quaternion")])
def test_sensors_along_a_trajectory(seed, n, root):
    desc, multi = sensed_tree(seed, n, root)
    model = tl.load_model(copy.deepcopy(desc))
    kinds = {b["name"]: b["joint"]["type"] for b in desc["bodies"]}
    dt = 1e-3
    traj = tl.simulate(model, (0.0, 0.05), t_eval=np.arange(51) * dt, rtol=1e-13, atol=1e-13)
    y = traj.y
    col = {nm: k for k, nm in enumerate(model.output_names)}
    worst = 0.0
    for b in multi:
        if kinds[b] == "spherical":
            q = y[:, [col[f"{b}_q{c}"] for c in "wxyz"]]
            w = y[:, [col[f"{b}_w{c}"] for c in "xyz"]]
            wd = y[:, [col[f"{b}_wd{c}"] for c in "xyz"]]
            np.testing.assert_allclose(np.linalg.norm(q, axis=1), 1.0, rtol=0, atol=1e-14)
            # the sensors against the states
            qs = traj.x[:, [model.state_index(f"{b}_q{c}") for c in "wxyz"]]
            np.testing.assert_allclose(q, qs / np.linalg.norm(qs, axis=1)[:, None], atol=1e-15)
            np.testing.assert_array_equal(
                w, traj.x[:, [model.state_index(f"{b}_w{c}") for c in "xyz"]])
            # the quaternion's rate is ½ q ⊗ (0, ω) with ω the qd sensor (child frame)
            rate = 0.5 * multiply(q, np.c_[np.zeros(len(w)), w])
            err = np.max(np.abs(_deriv(q, dt) - rate[2:-2])) / max(1.0, np.max(np.abs(rate)))
            worst = max(worst, err)
            assert err <= 1e-8, (b, err)
            # the relative rotation of child and parent: R = P_{a0/b}ᵀ P_parentᵀ P_child
            i = model.body_index(b)
            par = model.body_names[model.parent[i]] if model.parent[i] >= 0 else None
            R0 = np.asarray(next(d for d in desc["bodies"] if d["name"] == b)["joint"].get(
                "rotation", np.eye(3)))
            for k in (0, 25, 50):
                P_c = model.rotation(traj.x[k], b)
                P_p = model.rotation(traj.x[k], par) if par else np.eye(3)
                R = R0.T @ P_p.T @ P_c
                ref = Rotation.from_matrix(R).as_quat()
                ref = np.r_[ref[3], ref[:3]]
                assert min(np.max(np.abs(q[k] - ref)), np.max(np.abs(q[k] + ref))) <= 1e-9
        else:
            q = y[:, [col[f"{b}_q1"], col[f"{b}_q2"]]]
            w = y[:, [col[f"{b}_qd1"], col[f"{b}_qd2"]]]
            wd = y[:, [col[f"{b}_qdd1"], col[f"{b}_qdd2"]]]
            err = np.max(np.abs(_deriv(q, dt) - w[2:-2])) / max(1.0, np.max(np.abs(w)))
            worst = max(worst, err)
            assert err <= 1e-8, (b, err)
        # the acceleration sensor is the rate of the velocity sensor
        err = np.max(np.abs(_deriv(w, dt) - wd[2:-2])) / max(1.0, np.max(np.abs(wd)))
        worst = max(worst, err)
        assert err <= 1e-7, (b, err)
    print(f"\nseed {seed}: worst relative finite-difference mismatch {worst:.1e}")


def test_names_units_and_state_equality():
    desc, multi = sensed_tree(3, 8, "free")
    model = tl.load_model(desc)
    units = model.units()
    kinds = {b["name"]: b["joint"]["type"] for b in desc["bodies"]}
    for b in multi:
        if kinds[b] == "spherical":
            assert [units[f"{b}_q{c}"] for c in "wxyz"] == [""] * 4
            assert [units[f"{b}_w{c}"] for c in "xyz"] == ["rad/s"] * 3
            assert [units[f"{b}_wd{c}"] for c in "xyz"] == ["rad/s^2"] * 3
        else:
            assert [units[f"{b}_{s}"] for s in ("q1", "qd2", "qdd1")] == [
                "rad", "rad/s", "rad/s^2"]
    rng = np.random.default_rng(0)
    x = model.default_state() + 0.3 * rng.standard_normal(model.n_states)
    u = rng.standard_normal(model.n_inputs)
    y = model.outputs(0.0, x, u)
    xd = model.dynamics(0.0, x, u)
    for b in multi:
        rates = ([f"{b}_w{c}" for c in "xyz"] if kinds[b] == "spherical"
                 else [f"{b}_qd1", f"{b}_qd2"])
        acc = ([f"{b}_wd{c}" for c in "xyz"] if kinds[b] == "spherical"
               else [f"{b}_qdd1", f"{b}_qdd2"])
        np.testing.assert_array_equal(y[[model.output_index(r) for r in rates]],
                                      x[[model.state_index(r) for r in rates]])
        np.testing.assert_allclose(y[[model.output_index(a) for a in acc]],
                                   xd[[model.state_index(r) for r in rates]], rtol=1e-13,
                                   atol=1e-13)
    # a batch of states gives the same as one at a time
    xs = model.default_state() + 0.3 * rng.standard_normal((4, model.n_states))
    ys = model.outputs(0.0, xs)
    np.testing.assert_allclose(ys[2], model.outputs(0.0, xs[2]), rtol=1e-14, atol=1e-14)


def test_linearized_sensors():
    """C of the rate sensors picks the rate states; of the quaternion sensor at identity, ½ of
    the attitude error (``q ≈ (1, δr/2)``)."""
    model = tl.load_model({"gravity": [0, 0, -9.81], "bodies": [
        {"name": "p", "joint": {"type": "spherical"}, "mass": 2.0, "com": [0.0, 0.0, -0.6],
         "inertia": [[0.09, 0, 0], [0, 0.08, 0], [0, 0, 0.02]]}],
        "outputs": [{"type": "q", "body": "p"}, {"type": "qd", "body": "p"}]})
    op = tl.trim(model)
    sys_ = tl.linearize(model, op, [], list(model.output_names))
    C = np.asarray(sys_.C)
    s = list(sys_.state_labels)
    r = [s.index(f"p_r{c}") for c in "xyz"]
    w = [s.index(f"p_w{c}") for c in "xyz"]
    np.testing.assert_allclose(C[0], 0.0, atol=1e-12)  # qw: second order
    np.testing.assert_allclose(C[1:4][:, r], 0.5 * np.eye(3), atol=1e-12)
    np.testing.assert_allclose(C[4:7][:, w], np.eye(3), atol=1e-12)


def test_validation_and_round_trip(tmp_path):
    base = {"bodies": [{"name": "b", "joint": {"type": "weld"}, "mass": 1.0},
                       {"name": "s", "parent": "b", "joint": {"type": "spherical"},
                        "mass": 1.0, "com": [0, 0, -1.0],
                        "inertia": [[0.1, 0, 0], [0, 0.1, 0], [0, 0, 0.1]]}]}
    bad = copy.deepcopy(base)
    bad["outputs"] = [{"type": "qd", "body": "b"}]
    with pytest.raises(tl.ModelError, match=r"outputs\[0\].*'b' has a 'weld' joint"):
        tl.load_model(bad)
    clash = copy.deepcopy(base)
    clash["outputs"] = [{"type": "qd", "body": "s"}, {"type": "angular_velocity", "body": "s"}]
    with pytest.raises(tl.ModelError, match=r"output names collide: \['s_wx'"):
        tl.load_model(clash)
    clash["outputs"][0]["name"] = "rel"
    model = tl.load_model(clash)
    assert model.output_names[:3] == ("rel_wx", "rel_wy", "rel_wz")
    path = tl.save_model(model, tmp_path / "m.toml")
    back = tl.load_model(path)
    assert back == model and back.output_names == model.output_names
