"""The trajectory stores states and inputs; outputs are computed on first access."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

import titop_lpv as tl
from titop_lpv.analysis import simulate as sim
from titop_lpv.exceptions import UnknownNameError


@pytest.fixture(scope="module")
def balloon():
    return tl.load_model("examples/balloon.toml")


def test_lazy_outputs_equal_the_eager_ones_bit_for_bit(balloon, monkeypatch):
    u = np.zeros(balloon.n_inputs)
    traj = tl.simulate(balloon, (0.0, 1.0), u=lambda t, x: u, n_points=201)
    assert traj._y is None  # nothing computed during the run
    eager = balloon.outputs(0.0, traj.x, traj.u)
    monkeypatch.setattr(sim, "OUTPUT_BLOCK", 7 * (balloon.n_states + balloon.n_outputs))
    np.testing.assert_array_equal(traj.y, eager)  # in blocks of 7 times
    assert traj.y is traj.y
    name = balloon.output_names[2]
    np.testing.assert_array_equal(traj[name], eager[:, 2])


def test_chosen_outputs(balloon):
    names = [balloon.output_names[4], balloon.output_names[1]]
    traj = tl.simulate(balloon, (0.0, 0.5), n_points=11, outputs=names)
    full = tl.simulate(balloon, (0.0, 0.5), n_points=11)
    assert traj.output_names == tuple(names)
    np.testing.assert_array_equal(traj.y, full.y[:, [4, 1]])
    none = tl.simulate(balloon, (0.0, 0.5), n_points=11, outputs=[])
    assert none.y.shape == (11, 0) and none.output_names == ()
    with pytest.raises(UnknownNameError, match="no output 'nope'"):
        tl.simulate(balloon, (0.0, 0.5), outputs=["nope"])


def test_memory_per_point_is_the_states():
    """A 40-body chain: a run keeps about n_states doubles per output time."""
    bodies = [{"name": f"b{k}", **({"parent": f"b{k - 1}.tip"} if k else {}),
               "mass": 1.0, "com": [0.0, -0.5, 0.0], "inertia": [[0.1, 0, 0], [0, 0.1, 0],
                                                                 [0, 0, 0.1]],
               "ports": {"tip": [0.0, -1.0, 0.0]},
               "joint": {"type": "revolute", "axis": [0, 0, 1], "q0": 0.01}}
              for k in range(40)]
    model = tl.load_model({"name": "chain", "gravity": [0, -9.81, 0], "bodies": bodies})
    tl.simulate(model, (0.0, 0.01), method="RK4", dt=1e-3, n_points=11)  # warm caches
    n_points = 2001
    tracemalloc.start()
    traj = tl.simulate(model, (0.0, 0.2), method="RK4", dt=1e-4, n_points=n_points)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    per_body_point = peak / (40 * n_points)
    print(f"\npeak {peak / 1e6:.2f} MB: {per_body_point:.1f} B per body per point")
    assert traj._y is None
    assert per_body_point < 2.5 * 8 * model.n_states / 40  # states, plus slack


def _hanging_chain(n: int = 40) -> tl.Model:
    """A chain of ``n`` pendulums hanging at rest (an equilibrium: the solver's steps grow
    until one spans most of the output times)."""
    bodies = [{"name": f"b{k}", **({"parent": f"b{k - 1}.tip"} if k else {}),
               "mass": 1.0, "com": [0.0, -0.5, 0.0], "inertia": [[0.1, 0, 0], [0, 0.1, 0],
                                                                 [0, 0, 0.1]],
               "ports": {"tip": [0.0, -1.0, 0.0]},
               "joint": {"type": "revolute", "axis": [0, 0, 1]}}
              for k in range(n)]
    return tl.load_model({"name": "chain", "gravity": [0, -9.81, 0], "bodies": bodies})


def test_dense_output_is_interpolated_in_blocks(monkeypatch):
    """An adaptive run writes its dense output into the stored states block by block: no
    temporary of the size of the trajectory (two DOP853 steps spanned the 1001 output times
    of a 238 000-state model: 0.95 GB beside the 1.9 GB of ``x``). The blocks give the same
    states bit for bit; the peak of Python allocations stays near the stored states."""
    model = _hanging_chain()
    n_points = 20001
    whole = tl.simulate(model, (0.0, 10.0), n_points=n_points)  # blocks of 4e6 numbers
    assert whole.nfev < 200  # few steps: each spans hundreds of output times
    monkeypatch.setattr(sim, "OUTPUT_BLOCK", 100 * model.n_states)  # 100 times per block
    tracemalloc.start()
    traj = tl.simulate(model, (0.0, 10.0), n_points=n_points)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    np.testing.assert_array_equal(traj.x, whole.x)
    stored = traj.x.nbytes + traj.t.nbytes
    print(f"\npeak {peak / 1e6:.2f} MB for {stored / 1e6:.2f} MB stored")
    assert peak < 1.25 * stored
