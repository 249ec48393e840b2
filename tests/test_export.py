"""Export round trips: a StateSpace (with and without inputs, with its operating point) and an
LPV grid through ``.mat``, ``.npz`` and ``.json`` keep every matrix to 1e-15 and every name.
The ``.mat`` file is also read with scipy alone, as a MATLAB user would see it."""

from __future__ import annotations

import dataclasses
import warnings
from pathlib import Path

import numpy as np
import pytest
from scipy.io import loadmat

import titop_lpv as tl
from titop_lpv.io import export
from titop_lpv.io.export import load_linear, save_linear

ROOT = Path(__file__).resolve().parents[1]
FREE = ["balloon.phi", "balloon.theta", "slider.q", "pendulum1.q", "pendulum2.q"]
GUESS = {"pendulum1.q": 0.2, "pendulum2.q": -0.2}


@pytest.fixture(scope="module")
def balloon():
    with warnings.catch_warnings():  # the slider of the shipped balloon is actuated
        warnings.simplefilter("ignore", tl.TitopWarning)
        model = tl.load_model(ROOT / "examples" / "balloon.toml")
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


def _same_field(a, b, where: str) -> None:
    """Equal values of the same type (arrays: same shape and bits; dicts: recursively)."""
    if isinstance(a, dict):
        assert isinstance(b, dict) and list(a) == list(b), where
        for k in a:
            _same_field(a[k], b[k], f"{where}.{k}")
    elif isinstance(a, np.ndarray):
        assert isinstance(b, np.ndarray) and b.shape == a.shape, where
        np.testing.assert_array_equal(b, a, err_msg=where)
    else:
        assert a == b and type(a) is type(b), f"{where}: {a!r} != {b!r}"


def _spin_point() -> tl.OperatingPoint:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tl.TitopWarning)
        model = tl.load_model(ROOT / "examples" / "spinning_spacecraft.toml")
    return tl.trim(model, free=["panel1_q", "panel2_q"], kind="spin",
                   spin={"body": "hub", "axis": [0, 0, 1], "rate": 2.0})


@pytest.mark.parametrize("ext", [".mat", ".npz", ".json"])
def test_every_operating_point_field_round_trips(balloon, tmp_path, ext):
    """Every field of OperatingPoint, whatever fields it has (dataclasses.fields): a spin
    point (spin dict, cyclic states), the balloon (spin None), and one with every field
    set to an unusual value (empty message, no pinned states, failed, nfev 0)."""
    model, op = balloon
    spin_op = _spin_point()
    odd = dataclasses.replace(op, message="", pinned=(), success=False, nfev=0,
                              rank_deficiency=2, tolerance=1e-7)
    assert spin_op.spin is not None and spin_op.nfev > 0
    sys = tl.linearize(model, op, inputs=["slider_tau"], outputs=["pendulum2_q"])
    for k, point in enumerate((spin_op, op, odd)):
        back = load_linear(save_linear(sys, tmp_path / f"sys{k}{ext}", op=point)).op
        for field in dataclasses.fields(tl.OperatingPoint):
            _same_field(getattr(point, field.name), getattr(back, field.name),
                        f"{ext} point {k}: {field.name}")
    grid = tl.linearize_sweep(model, {"k": [40.0, 60.0]}, free=FREE, guess=GUESS,
                              inputs=["slider_tau"], outputs=["pendulum2_q"], progress=False)
    back = load_linear(save_linear(grid, tmp_path / f"grid{ext}"))
    for point, point_back in zip(grid.sweep, back.sweep):
        for field in dataclasses.fields(tl.OperatingPoint):
            _same_field(getattr(point, field.name), getattr(point_back, field.name),
                        f"{ext} grid: {field.name}")


@dataclasses.dataclass(frozen=True)
class _LaterPoint(tl.OperatingPoint):
    """An OperatingPoint with fields a later version might add."""

    margin: float = 0.0
    labels: tuple[str, ...] = ()
    scales: np.ndarray = dataclasses.field(default_factory=lambda: np.zeros(0))
    extra: dict | None = None


@pytest.mark.parametrize("ext", [".mat", ".npz", ".json"])
def test_fields_added_later_round_trip_too(balloon, tmp_path, ext, monkeypatch):
    """The export is generic over the dataclass fields: new fields need no export change."""
    model, op = balloon
    later = _LaterPoint(**{f.name: getattr(op, f.name)
                           for f in dataclasses.fields(tl.OperatingPoint)},
                        margin=0.25, labels=("a", "b"), scales=np.array([1.5, -2.0]),
                        extra={"note": "x", "gain": 3.0})
    monkeypatch.setattr(export, "OperatingPoint", _LaterPoint)
    sys = tl.linearize(model, op, inputs=["slider_tau"], outputs=["pendulum2_q"])
    back = load_linear(save_linear(sys, tmp_path / f"later{ext}", op=later)).op
    assert isinstance(back, _LaterPoint)
    for field in dataclasses.fields(_LaterPoint):
        _same_field(getattr(later, field.name), getattr(back, field.name), field.name)
    # a file written before a field existed still loads: the field takes its default
    monkeypatch.setattr(export, "OperatingPoint", tl.OperatingPoint)
    old = load_linear(save_linear(sys, tmp_path / f"old{ext}", op=op))
    monkeypatch.setattr(export, "OperatingPoint", _LaterPoint)
    assert load_linear(tmp_path / f"old{ext}").op.margin == 0.0 and old.op.x.size


@pytest.mark.parametrize("suffix", [".mat", ".npz", ".json"])
def test_one_output_without_input_round_trips(tmp_path, suffix):
    """A shape python-control 0.10.2 refuses to build directly (D is 1×0, its issue #1176)
    is written and read back like any other."""
    from titop_lpv.analysis.linearize import named_statespace

    A = np.array([[0.0, 1.0], [-4.0, -0.2]])
    sys = named_statespace(A, np.zeros((2, 0)), np.array([[1.0, 0.0]]), np.zeros((1, 0)),
                           states=["q", "qd"], inputs=[], outputs=["y"], name="free")
    back = load_linear(save_linear(sys, tmp_path / f"free{suffix}"))
    assert (back.ninputs, back.noutputs, back.nstates) == (0, 1, 2)
    np.testing.assert_array_equal(back.A, A)
    assert back.state_labels == ["q", "qd"] and back.output_labels == ["y"]
    assert back.name == "free"
