"""Large generated models: loading, the compile-time reference check, identifiers."""

from __future__ import annotations

import copy
import importlib.util
from pathlib import Path

import numpy as np
import pytest

import titop_lpv as tl
from titop_lpv.multibody.dynamics import forward_dynamics

_SPEC = importlib.util.spec_from_file_location(
    "branch_system", Path(__file__).parents[1] / "benchmarks" / "branch_system.py")
branch = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(branch)


@pytest.fixture(scope="module")
def big():
    return tl.load_model(branch.branch_system(2000, spin=0.01))


def test_2000_bodies_load_and_match_the_numpy_route(big):
    assert len(big.body_names) == 2000 and big.n_states == 14000
    sub1, sub2, out = branch.chain_lengths(2000)
    assert (sub1, sub2, sub1 + sub2 + out + 1) == (5, 5, 2000)
    rng = np.random.default_rng(1)
    x = big.default_state()
    x[4::7] = rng.uniform(-1, 1, 2000)  # angular velocities
    q = rng.standard_normal((2000, 4)) * [1.0, 0.1, 0.1, 0.1]
    for k in range(4):
        x[k::7] = q[:, k] / np.linalg.norm(q, axis=1)
    fast = big.dynamics(0.0, x)
    ref = forward_dynamics(big, x, backend="numpy")
    scale = np.max(np.abs(ref))
    print(f"\n2000 bodies: max |kernel - numpy| = {np.max(np.abs(fast - ref)):.2e} "
          f"(max |xdot| {scale:.2e})")
    np.testing.assert_allclose(fast, ref, rtol=0, atol=1e-9 * scale)


def test_shared_slots_keep_every_body_its_values(big):
    """Identical vectors share their slots: the description round-trips, and each body's
    initial angular velocity (distinct per body) is its own."""
    data = branch.branch_system(2000, spin=0.01)
    x0 = big.default_state()
    w0 = np.array([b["joint"]["w0"] for b in data["bodies"]])
    order = [big.body_names.index(b["name"]) for b in data["bodies"]]
    np.testing.assert_array_equal(x0.reshape(-1, 7)[order, 4:], w0)
    assert big.description["bodies"][7]["joint"]["w0"] == data["bodies"][7]["joint"]["w0"]
    assert tl.load_model(copy.deepcopy(big.description)) == big


def test_non_finite_derivative_refused_by_the_kernel_check():
    """A model past the numpy check's size: the compiled evaluation still refuses it."""
    data = branch.branch_system(400)
    for body in data["bodies"]:  # data within the limits, overflowing dynamics
        body["mass"] = 1e100
        body["inertia"] = [[1e100, 0, 0], [0, 6e99, 0], [0, 0, 5e99]]
        body["joint"]["w0"] = [1e100] * 3
    with pytest.raises(tl.ModelError, match=r"d/dt out0_w. = nan from finite state"):
        tl.load_model(data)
    for body in data["bodies"]:
        body["joint"]["w0"] = [1e60] * 3
    assert tl.load_model(data).n_states == 2800


@pytest.mark.parametrize("where", ["body", "port", "output"])
def test_identifier_with_a_trailing_newline_is_refused(where):
    data = branch.branch_system(4)
    if where == "body":
        data["bodies"][0]["name"] = "out0\n"
        data["bodies"][1]["parent"] = "out0\n.tip"
    elif where == "port":
        data["bodies"][0]["ports"]["tip\n"] = [0.0, 0.0, -1.0]
    else:
        data["outputs"] = [{"type": "q", "body": "out0", "name": "a\n"}]
    with pytest.raises(tl.ModelError, match="identifier"):
        tl.load_model(data)
