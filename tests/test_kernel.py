"""The compiled forward dynamics (numba, ``multibody.kernel``) against the numpy reference.

Same recursion, two implementations: they must agree to rounding on the balloon and on
seeded random trees (free and fixed roots, welds, prismatic and revolute joints, loads,
springs, actuated joints, wrench inputs), for real and complex (complex-step) states,
batched or not.
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent))
import models

import titop_lpv as tl
from titop_lpv.multibody.dynamics import forward_dynamics


def _load(desc: dict) -> tl.Model:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tl.TitopWarning)
        return tl.load_model(desc)


def _random_state(model: tl.Model, rng: np.random.Generator, shape=()) -> np.ndarray:
    x = rng.normal(scale=0.7, size=(*shape, model.n_states))
    if model.floating_base:
        b = model.state_index(f"{model.body_names[0]}_theta")
        x[..., b] = np.clip(x[..., b], -1.2, 1.2)  # away from gimbal lock
    return x


def _wrenched(desc: dict) -> dict:
    """Add a body-frame and an inertial wrench input to the first and last bodies."""
    desc = dict(desc)
    first, last = desc["bodies"][0]["name"], desc["bodies"][-1]["name"]
    desc["inputs"] = [{"body": first, "point": "com", "frame": "body"},
                      {"body": last, "frame": "inertial"}]
    return desc


CASES = [("balloon", models.balloon())] + [
    (f"tree{seed}-{root}", _wrenched(models.random_tree(seed, 1 + 3 * seed % 17, root=root)))
    for seed in range(10) for root in ("free", "fixed")
]


@pytest.mark.parametrize(("name", "desc"), CASES, ids=[c[0] for c in CASES])
def test_compiled_equals_numpy(name, desc):
    model = _load(desc)
    rng = np.random.default_rng(abs(hash(name)) % 2**32)
    x = _random_state(model, rng, (5,))
    u = rng.normal(size=(5, model.n_inputs))
    fast = forward_dynamics(model, x, u, backend="compiled")
    ref = forward_dynamics(model, x, u, backend="numpy")
    scale = np.maximum(1.0, np.abs(ref))
    assert np.max(np.abs(fast - ref) / scale) <= 1e-12
    # one state at a time, and the default backend
    np.testing.assert_allclose(model.dynamics(0.0, x[2], u[2]), ref[2], rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize(("name", "desc"), CASES[:6], ids=[c[0] for c in CASES[:6]])
def test_compiled_complex_step_equals_numpy(name, desc):
    model = _load(desc)
    x = _random_state(model, np.random.default_rng(3))
    h = 1e-30
    xc = x + 1j * h * np.eye(model.n_states)
    fast = forward_dynamics(model, xc, backend="compiled")
    ref = forward_dynamics(model, xc, backend="numpy")
    assert fast.dtype == np.complex128
    jac_fast, jac_ref = fast.imag / h, ref.imag / h
    assert np.max(np.abs(jac_fast - jac_ref)) <= 1e-10 * max(1.0, np.max(np.abs(jac_ref)))


def test_batch_shapes_and_params():
    model = _load(models.balloon())
    x = _random_state(model, np.random.default_rng(0), (2, 3))
    fast = model.dynamics(0.0, x, None, {"k": 70.0})
    assert fast.shape == (2, 3, model.n_states)
    ref = forward_dynamics(model, x, None, {"k": 70.0}, backend="numpy")
    np.testing.assert_allclose(fast, ref, rtol=1e-12, atol=1e-12)
    # batched parameters take the numpy path and agree with the compiled one per value
    ks = np.array([30.0, 60.0, 90.0])
    batched = model.dynamics(0.0, x[0, 0], None, {"k": ks})
    for j, k in enumerate(ks):
        np.testing.assert_allclose(batched[j], model.dynamics(0.0, x[0, 0], None, {"k": k}),
                                   rtol=1e-12, atol=1e-12)


def test_backend_argument_is_checked():
    model = _load(models.pendulum())
    with pytest.raises(ValueError, match="backend"):
        forward_dynamics(model, model.default_state(), backend="fortran")
    with pytest.raises(ValueError, match="batch"):
        forward_dynamics(model, model.default_state(), None, {"m": np.ones(2)}
                         if "m" in model.param_names else np.ones((2, len(model.param_names))),
                         backend="compiled")


def test_zero_apparent_inertia_at_runtime_is_named():
    s = tl.System("arm", gravity=[0.0, -9.81, 0.0])
    s.parameter("m", 1.0)
    s.body("link", tl.Revolute(axis=[0, 0, 1]), mass="m", com=[0.0, -1.0, 0.0])
    model = s.compile()
    for backend in ("compiled", "numpy"):
        with pytest.raises(tl.DynamicsError, match="link"):
            forward_dynamics(model, model.default_state(), None, {"m": 0.0}, backend=backend)
