"""Export round trips: a StateSpace (with and without inputs, with its operating point) and an
LPV grid through ``.mat``, ``.npz`` and ``.json`` keep every matrix to 1e-15 and every name.
The ``.mat`` file is also read with scipy alone, as a MATLAB user would see it."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest
from scipy.io import loadmat

import titop_lpv as tl
from titop_lpv.export import load_linear, save_linear
from titop_lpv.model import read_description

ROOT = Path(__file__).resolve().parents[1]
FREE = ["balloon.phi", "balloon.theta", "slider.q", "pendulum1.q", "pendulum2.q"]
GUESS = {"pendulum1.q": 0.2, "pendulum2.q": -0.2}


@pytest.fixture(scope="module")
def balloon():
    d = read_description(ROOT / "examples" / "balloon.toml")
    d["bodies"][1]["joint"]["actuated"] = True
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tl.TitopWarning)
        model = tl.load_model(d)
    op = tl.trim(model, free=FREE, guess=GUESS)
    return model, op


def _same(a, b):
    for k in "ABCD":
        x, y = np.asarray(getattr(a, k)), np.asarray(getattr(b, k))
        assert x.shape == y.shape
        np.testing.assert_allclose(x, y, rtol=0, atol=1e-15)
    assert a.state_labels == b.state_labels
    assert a.input_labels == b.input_labels
    assert a.output_labels == b.output_labels


@pytest.mark.parametrize("ext", [".mat", ".npz", ".json"])
def test_statespace_round_trip(balloon, tmp_path, ext):
    model, op = balloon
    sys = tl.linearize(model, op, drop_integrators=True)
    back = load_linear(save_linear(sys, tmp_path / f"sys{ext}", op=op))
    _same(sys, back)
    assert back.name == sys.name
    assert back.op.params == op.params
    np.testing.assert_array_equal(back.op.x, op.x)
    assert back.op.free == op.free and back.op.success
    # a system without inputs
    sys0 = tl.linearize(model, op, inputs=[], outputs=["slider_q", "pendulum1_q"])
    _same(sys0, load_linear(save_linear(sys0, tmp_path / f"sys0{ext}")))


@pytest.mark.parametrize("ext", [".mat", ".npz", ".json"])
def test_grid_round_trip(balloon, tmp_path, ext):
    model, _ = balloon
    grid = tl.linearize_sweep(model, {"k": np.linspace(25, 100, 4), "ds": [2.0, 5.0]},
                              free=FREE, guess=GUESS, inputs=["slider_tau"],
                              outputs=["pendulum2_q"], progress=False)
    back = load_linear(save_linear(grid, tmp_path / f"grid{ext}"))
    assert isinstance(back, tl.LPVGrid) and back.shape == grid.shape
    for idx in np.ndindex(*grid.shape):
        _same(grid[idx], back[idx])
        assert back.sweep[idx].params == grid.sweep[idx].params
    for name, values in grid.axes.items():
        np.testing.assert_array_equal(back.axes[name], values)
    _same(grid.at(k=40.0, ds=3.0), back.at(k=40.0, ds=3.0))


def test_mat_file_reads_like_matlab_ss(balloon, tmp_path):
    model, op = balloon
    sys = tl.linearize(model, op, inputs=["slider_tau"], outputs=["pendulum2_q"])
    raw = loadmat(save_linear(sys, tmp_path / "balloon.mat", op=op), simplify_cells=True)
    np.testing.assert_array_equal(raw["A"], sys.A)
    assert list(raw["StateName"]) == list(sys.state_labels)
    assert raw["InputName"] == "slider_tau" or list(raw["InputName"]) == ["slider_tau"]
    np.testing.assert_array_equal(raw["op"]["x0"], op.x)


def test_bad_paths(tmp_path, balloon):
    model, op = balloon
    sys = tl.linearize(model, op, inputs=[], outputs=["slider_q", "pendulum1_q"])
    with pytest.raises(tl.TitopError, match="unknown format"):
        save_linear(sys, tmp_path / "sys.xlsx")
    with pytest.raises(tl.ModelFileError, match="does not exist"):
        load_linear(tmp_path / "missing.npz")
    (tmp_path / "junk.json").write_text('{"kind": "nothing"}')
    with pytest.raises(tl.ModelFileError):
        load_linear(tmp_path / "junk.json")
