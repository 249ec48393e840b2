"""save_linear / load_linear of uncertain systems: exact round trips, typed errors."""

from __future__ import annotations

import json

import control
import numpy as np
import pytest

import titop_lpv as tl
from titop_lpv.exceptions import ArgumentTypeError, ModelFileError
from titop_lpv.io.export import load_linear, save_linear


def _systems():
    m = tl.ureal("m", 1.0, range=(0.5, 2.0))
    c = tl.ucomplex("c", 0.4, radius=0.1)
    D = tl.ultidyn("D", (1, 2), bound=0.3)
    G = tl.feedback(tl.uss(control.tf(1, [1, 1, 0]), inputs="u", outputs="y") * m, c)
    G = tl.append(G, 1.0) @ np.ones((2, 1)) * (1 + D @ np.ones((2, 1)))
    k = tl.ureal("k", 2.0, range=(1.0, 4.0))
    S = tl.uss([[k, 1.0], [0.0, k]], inputs=["a", "b"], outputs=["x", "z"], name="P")
    Gd = tl.uss(control.tf([1.0], [1.0, -0.5], 0.1)) * k
    return [G, S, Gd]


@pytest.mark.parametrize("ext", [".mat", ".npz", ".json"])
def test_round_trip_exact(tmp_path, ext):
    for i, G in enumerate(_systems()):
        H = load_linear(save_linear(G, tmp_path / f"g{i}{ext}"))
        assert isinstance(H, tl.USS)
        for X, Y in zip(G.abcd, H.abcd):
            assert X.shape == Y.shape and np.array_equal(X, Y)
        assert H.delta == G.delta and dict(H.params) == dict(G.params)
        assert H.input_labels == G.input_labels and H.output_labels == G.output_labels
        assert H.state_labels == G.state_labels and H.name == G.name and H.dt == G.dt


def test_npz_has_no_pickle(tmp_path):
    path = save_linear(_systems()[0], tmp_path / "g.npz")
    with np.load(path, allow_pickle=False) as data:
        rec = json.loads(str(data["record"]))
    assert rec["kind"] == "uss" and rec["param_types"] == ["ureal", "ucomplex", "ultidyn"]


def test_bad_input(tmp_path):
    G = _systems()[1]
    with pytest.raises(ArgumentTypeError, match="obj"):
        save_linear([1, 2], tmp_path / "x.json")
    with pytest.raises(ArgumentTypeError, match="path"):
        save_linear(G, 3)
    with pytest.raises(ArgumentTypeError, match="op"):
        save_linear(G, tmp_path / "x.json", op=object())
    with pytest.raises(ArgumentTypeError, match="path"):
        load_linear(None)
    path = save_linear(G, tmp_path / "g.json")
    rec = json.loads(path.read_text())
    rec["param_types"] = ["uweird"]
    path.write_text(json.dumps(rec))
    with pytest.raises(ModelFileError, match="uweird"):
        load_linear(path)
    rec["param_types"] = ["ureal"]
    rec["block_kinds"] = ["nonsense"]
    path.write_text(json.dumps(rec))
    with pytest.raises(ModelFileError):
        load_linear(path)
