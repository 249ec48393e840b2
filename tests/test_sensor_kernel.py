"""The compiled sensor kernel (``multibody/sensor_kernel.py``) against the numpy reference.

Every sensor kind the kernel covers (joint ``q``/``qd``/``qdd``, ``attitude``, ``position``,
``velocity``, ``angular_velocity``, ``acceleration`` at the origin, the centre of mass and
every port, in both frames) on every example model and on random trees with every joint
kind (revolute, prismatic, weld, spherical, universal, driven; Euler and quaternion floating
bases, fixed bases): real states, and complex-step perturbations of the states and inputs,
whose imaginary parts (the ``C``/``D`` columns of ``linearize``) must agree as well. The
reference is the numpy route of ``evaluate_outputs``, taken by declaring the kernel not
ready. A driven joint's ``tau`` sensor, which the kernel does not cover, still comes from
the numpy recursion.
"""

from __future__ import annotations

import copy
import glob
import warnings
from pathlib import Path

import models
import numpy as np
import pytest
from test_spherical_peer import mixed_tree

import titop_lpv as tl
from titop_lpv.analysis.linearize import jacobians
from titop_lpv.exceptions import DynamicsError
from titop_lpv.model import read_description
from titop_lpv.multibody import sensor_kernel

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = sorted(glob.glob(str(ROOT / "examples" / "*.toml")))
RTOL = 1e-13
STEP = 1e-30


def every_sensor(desc: dict) -> dict:
    """``desc`` with every sensor kind on every body and point (both frames)."""
    desc = copy.deepcopy(desc)
    outs = []
    for body in desc["bodies"]:
        name, kind = body["name"], body["joint"]["type"]
        if kind not in ("weld", "free"):
            outs += [{"type": t, "body": name, "name": f"{name}_{t}S"} for t in ("q", "qd", "qdd")]
        outs.append({"type": "attitude", "body": name, "name": f"{name}_att"})
        for j, point in enumerate(["origin", "com", *sorted(body.get("ports", {}))]):
            for typ in ("position", "velocity", "angular_velocity", "acceleration"):
                for frame in (("inertial",) if typ == "position" else ("inertial", "body")):
                    outs.append({"type": typ, "body": name, "point": point, "frame": frame,
                                 "name": f"{name}_{typ}_{j}_{frame}"})
    desc["outputs"] = outs
    return desc


def _load(desc):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tl.TitopWarning)
        return tl.load_model(desc)


def _reference(model, monkeypatch, *args):
    with monkeypatch.context() as m:
        m.setattr(sensor_kernel, "ready", lambda n_bodies, dtype: False)
        return model.outputs(0.0, *args)


def _rel(a, b):
    return float(np.max(np.abs(a - b), initial=0.0) / max(1.0, np.max(np.abs(b), initial=0.0)))


def check(model, monkeypatch, seed=0, n=3):
    """Kernel vs numpy on ``n`` random states near the default, real and complex step."""
    rng = np.random.default_rng(seed)
    x = model.default_state() + 0.5 * rng.normal(size=(n, model.n_states))
    u = rng.normal(size=(n, model.n_inputs))
    assert sensor_kernel.ready(len(model.body_names), np.float64)
    y, ref = model.outputs(0.0, x, u), _reference(model, monkeypatch, x, u)
    assert y.shape == ref.shape == (n, model.n_outputs)
    assert _rel(y, ref) <= RTOL
    xc, uc = x.astype(complex), u.astype(complex)
    xc[:, rng.integers(model.n_states)] += 1j * STEP  # a state direction
    if model.n_inputs:
        uc[:, rng.integers(model.n_inputs)] += 1j * STEP  # and an input direction
    yc, refc = model.outputs(0.0, xc, uc), _reference(model, monkeypatch, xc, uc)
    assert _rel(yc.real, refc.real) <= RTOL
    assert _rel(yc.imag / STEP, refc.imag / STEP) <= RTOL
    return yc


@pytest.mark.parametrize("path", EXAMPLES, ids=[Path(p).stem for p in EXAMPLES])
def test_example_models(path, monkeypatch):
    check(_load(path), monkeypatch)
    check(_load(every_sensor(read_description(path))), monkeypatch, seed=1)


@pytest.mark.parametrize(("seed", "n", "root"), [(0, 4, "free"), (1, 5, "fixed"),
                                                 (2, 6, "quaternion"), (5, 7, "free"),
                                                 (6, 8, "fixed"), (7, 5, "quaternion")])
def test_random_trees_with_every_joint_kind(seed, n, root, monkeypatch):
    desc = every_sensor(mixed_tree(seed, n, root))
    model = _load(desc)
    kinds = {b["joint"]["type"] for b in desc["bodies"]} | {
        b["joint"].get("motion", "") for b in desc["bodies"]}
    assert {"spherical", "universal"} <= kinds or seed in (0, 1)
    check(model, monkeypatch, seed)
    plain = every_sensor(models.random_tree(seed, n, "free" if root == "quaternion" else root))
    check(_load(plain), monkeypatch, seed)


def test_driven_joints_tau_columns_come_from_the_recursion(monkeypatch):
    desc = every_sensor(mixed_tree(2, 6, "free"))
    driven = [b["name"] for b in desc["bodies"] if b["joint"].get("motion") == "input"]
    model = _load(desc)
    assert driven and not all(sensor_kernel.covered(model))
    taus = [k for k, nm in enumerate(model.output_names) if nm.endswith("_tau")]
    assert len(taus) == len(driven)
    yc = check(model, monkeypatch, seed=3)
    assert np.all(np.abs(yc[:, taus].real) > 0.0)


def test_batch_shapes_and_one_state(monkeypatch):
    model = _load(every_sensor(read_description(ROOT / "examples" / "balloon.toml")))
    rng = np.random.default_rng(4)
    x = model.default_state() + 0.3 * rng.normal(size=(2, 3, model.n_states))
    y = model.outputs(0.0, x)
    assert y.shape == (2, 3, model.n_outputs)
    assert _rel(y, _reference(model, monkeypatch, x)) <= RTOL
    one = model.outputs(0.0, x[1, 2])
    assert one.shape == (model.n_outputs,)
    np.testing.assert_array_equal(one, y[1, 2])


def test_jacobians_equal_the_numpy_route(monkeypatch):
    model = _load(every_sensor(mixed_tree(6, 8, "quaternion")))
    rng = np.random.default_rng(5)
    x = model.default_state() + 0.2 * rng.normal(size=model.n_states)
    u = rng.normal(size=model.n_inputs)
    fast = jacobians(model, x, u)
    with monkeypatch.context() as m:
        m.setattr(sensor_kernel, "ready", lambda n_bodies, dtype: False)
        ref = jacobians(model, x, u)
    for a, b in ((fast.C, ref.C), (fast.D, ref.D), (fast.y0, ref.y0)):
        assert _rel(a, b) <= RTOL
    assert np.abs(fast.C).max() > 0.0 and np.abs(fast.D).max() > 0.0


def test_non_finite_output_is_a_dynamics_error():
    model = _load(read_description(ROOT / "examples" / "robot_arm.toml"))
    x = model.default_state()
    x[0] = np.inf
    with pytest.raises(DynamicsError):
        model.outputs(0.0, x)


def test_background_policy_uses_a_compiled_or_cached_kernel(monkeypatch):
    model = _load(read_description(ROOT / "examples" / "balloon.toml"))
    model.outputs(0.0, model.default_state())  # compiled (the suite runs under "wait")
    monkeypatch.setenv("TITOP_LPV_COMPILE", "background")
    monkeypatch.setitem(sensor_kernel._STATE, "loaded", set())
    monkeypatch.setitem(sensor_kernel._STATE, "probed", {})
    assert sensor_kernel.load_cached(np.float64)
    assert sensor_kernel.ready(len(model.body_names), np.float64)
    assert "d" in sensor_kernel._STATE["loaded"]
