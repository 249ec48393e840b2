"""The lean one-state route of small trees against the reference numpy recursion.

:func:`titop_lpv.multibody.small_forward.forward_one` (the route of one real state while the
compiled kernel is not ready) must equal ``forward_dynamics(..., backend="numpy")`` to
rounding: relative ``<= 1e-13`` of the largest derivative, on seeded random trees (free and
fixed roots, 1 to 30 bodies, revolute, prismatic and weld joints, springs, loads, actuated
joints), with every Euler sequence and the quaternion attitude of a free base, damping loads,
wrench inputs in both frames and driven joints added; and on the examples. What it does not
serve (loop closures, spherical joints, batched or complex arguments, a joint with zero
apparent inertia, a non-finite result) it leaves to the reference route (None).
"""

from __future__ import annotations

import copy
import sys
from pathlib import Path

import numpy as np
import pytest

if str(Path(__file__).resolve().parent) not in sys.path:
    sys.path.insert(0, str(Path(__file__).resolve().parent))

import models

import titop_lpv as tl
from titop_lpv.multibody.dynamics import forward_dynamics
from titop_lpv.multibody.small_forward import build_plan, forward_one, supported
from titop_lpv.spatial.euler import SEQUENCES

ROOT = Path(__file__).resolve().parents[1]
RTOL = 1e-13
pytestmark = pytest.mark.filterwarnings("ignore::titop_lpv.TitopWarning")


def _compare(model: tl.Model, x: np.ndarray, u: np.ndarray | None,
             params: object = None) -> float:
    """Relative difference of the lean route and the reference at one state."""
    ph = model.physics(params)
    ours = forward_one(model, x, u, ph)
    assert ours is not None, "the lean route refused a model it should serve"
    ref = forward_dynamics(model, x, u, params, backend="numpy")
    assert ours.shape == ref.shape and ours.dtype == np.float64
    return float(np.max(np.abs(ours - ref)) / max(np.max(np.abs(ref)), 1e-300))


def _extended(seed: int) -> dict:
    """A random tree with the features the random trees of ``models`` lack: an Euler
    sequence or the quaternion attitude, damping loads, wrench inputs, a driven joint."""
    rng = np.random.default_rng(1000 + seed)
    n = 2 + seed % 9
    root = "free" if seed % 3 else "fixed"
    desc = models.random_tree(seed, n, root, params=seed % 4 == 1)
    if root == "free":
        base = next(b for b in desc["bodies"] if b["joint"]["type"] == "free")
        if seed % 5 == 0:
            base["joint"]["attitude"] = "quaternion"
        else:  # middle angle away from the sequence's singularity (0 or ±90°)
            desc["euler"] = SEQUENCES[seed % len(SEQUENCES)]
            base["joint"]["euler0"] = [0.3, 0.6, -0.4]
    names = [b["name"] for b in desc["bodies"]]
    desc.setdefault("loads", [])
    desc["loads"].append({"type": "damping", "body": names[-1],
                          "linear": float(rng.uniform(0.1, 2.0)),
                          "angular": float(rng.uniform(0.1, 2.0))})
    desc["inputs"] = [{"body": names[0], "frame": "body"},
                      {"body": names[-1], "frame": "inertial"}]
    moving = [b for b in desc["bodies"]
              if b.get("joint", {}).get("type") in ("revolute", "prismatic")
              and not b["joint"].get("actuated")]
    if seed % 2 and moving:
        joint = moving[0]["joint"]
        joint["motion"] = "input"
        for key in ("stiffness", "damping", "rest"):
            joint.pop(key, None)
    return desc


@pytest.mark.parametrize("seed", range(24))
def test_random_trees_equal_the_reference(seed):
    n_bodies = 1 + (seed * 7) % 30
    root = "free" if seed % 2 == 0 else "fixed"
    model = tl.load_model(models.random_tree(seed, n_bodies, root, params=seed % 4 == 1))
    rng = np.random.default_rng(seed)
    worst = 0.0
    for _ in range(3):
        x = model.default_state() + 0.5 * rng.standard_normal(model.n_states)
        u = rng.standard_normal(model.n_inputs) if model.n_inputs else None
        worst = max(worst, _compare(model, x, u))
    assert worst <= RTOL


@pytest.mark.parametrize("seed", range(20))
def test_attitudes_damping_wrench_inputs_and_driven_joints(seed):
    desc = _extended(seed)
    model = tl.load_model(copy.deepcopy(desc))
    assert supported(model)
    assert model.wrench_inputs.body.size == 2 and np.any(model.loads.kind == 3)
    rng = np.random.default_rng(seed)
    worst = 0.0
    for _ in range(3):
        x = model.default_state() + 0.5 * rng.standard_normal(model.n_states)
        worst = max(worst, _compare(model, x, 2.0 * rng.standard_normal(model.n_inputs)))
    worst = max(worst, _compare(model, x, None))
    assert worst <= RTOL


def test_the_extended_trees_cover_every_feature():
    """The cases above do reach each branch: quaternion and Euler bases, driven joints."""
    built = [tl.load_model(_extended(seed)) for seed in range(20)]
    assert any(m.attitude == "quaternion" for m in built)
    assert len({m.euler for m in built if m.base_index >= 0 and m.attitude != "quaternion"}) > 5
    assert any(np.any(m.qdd_column >= 0) for m in built)
    assert any(np.any(m.tau_column >= 0) for m in built)
    assert any(m.base_index < 0 for m in built)


@pytest.mark.parametrize("name", ["balloon", "spinning_spacecraft", "robot_arm", "telescope",
                                  "twenty_sim_prismatic_spring", "twenty_sim_imposed_moment"])
def test_examples_equal_the_reference(name):
    model = tl.load_model(ROOT / "examples" / f"{name}.toml")
    if not supported(model):
        pytest.skip(f"{name}: joints the lean route leaves to the reference")
    rng = np.random.default_rng(3)
    x = model.default_state() + 0.3 * rng.standard_normal(model.n_states)
    u = rng.standard_normal(model.n_inputs) if model.n_inputs else None
    assert _compare(model, x, u) <= RTOL


def test_balloon_parameters_and_plan_cache():
    """Another parameter vector gives another plan (the memo is keyed by the physics)."""
    model = tl.load_model(ROOT / "examples" / "balloon.toml")
    x = model.default_state() + 0.2
    for k in (25.0, 100.0):
        assert _compare(model, x, None, {"k": k}) <= RTOL
    ph = model.physics({"k": 25.0})
    first = model.memo("small_forward", ph, lambda: build_plan(model, ph))
    assert model.memo("small_forward", ph, lambda: None) is first


def test_what_it_leaves_to_the_reference():
    balloon = tl.load_model(ROOT / "examples" / "balloon.toml")
    ph, x = balloon.physics(), balloon.default_state()
    assert forward_one(balloon, x.astype(complex), None, ph) is None  # complex step
    assert forward_one(balloon, np.tile(x, (2, 1)), None, ph) is None  # a batch
    assert build_plan(balloon, balloon.physics(np.tile(balloon.param_vector(None), (2, 1)))
                      ) is None  # batched parameters
    four_bar = tl.load_model(ROOT / "examples" / "four_bar.toml")  # a loop closure
    assert not supported(four_bar)
    assert forward_one(four_bar, four_bar.default_state(), None, four_bar.physics()) is None
    spherical = tl.load_model(ROOT / "examples" / "twenty_sim_driven_spherical.toml")
    assert not supported(spherical)


def test_failures_are_left_to_the_reference_which_names_them():
    """A NaN state and a massless joint: None here, the reference raises the named error."""
    balloon = tl.load_model(ROOT / "examples" / "balloon.toml")
    x = balloon.default_state()
    x[0] = np.nan
    assert forward_one(balloon, x, None, balloon.physics()) is None
    desc = models.pendulum()
    desc["parameters"] = {"m": 2.0}
    desc["bodies"][0]["mass"] = "m"
    model = tl.load_model(desc)
    massless = {"m": 0.0}
    assert forward_one(model, model.default_state(), None, model.physics(massless)) is None
    with pytest.raises(tl.DynamicsError, match="zero apparent inertia"):
        forward_dynamics(model, model.default_state(), params=massless, backend="numpy")


@pytest.mark.parametrize("seed", [0, 3, 5, 8])
def test_equal_to_the_compiled_kernel(seed):
    """The compiled kernel (one real state) is the other route the lean one stands in for."""
    model = tl.load_model(_extended(seed))
    rng = np.random.default_rng(seed)
    x = model.default_state() + 0.5 * rng.standard_normal(model.n_states)
    u = rng.standard_normal(model.n_inputs)
    ours = forward_one(model, x, u, model.physics())
    ref = forward_dynamics(model, x, u, backend="compiled")
    assert np.max(np.abs(ours - ref)) <= RTOL * np.max(np.abs(ref))
