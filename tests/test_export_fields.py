"""The exported files are complete: units of every signal and parameter, the values at the
operating point (kept states, inputs, outputs, full state), the parameters with their
declared ranges, the dropped states with their reasons, and for a grid its shape and axes
(names, values, units). Read with scipy alone, as MATLAB's ``load`` would see them, and
checked against the model; the MATLAB lines of docs/export.md use only fields the files
have, with the shapes they say."""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import numpy as np
import pytest
from scipy.io import loadmat

import titop_lpv as tl
from titop_lpv.io.export import load_linear, save_linear

ROOT = Path(__file__).resolve().parents[1]
FREE = ["balloon.phi", "balloon.theta", "slider.q", "pendulum1.q", "pendulum2.q"]
GUESS = {"pendulum1.q": 0.2, "pendulum2.q": -0.2}
# the balloon's physics, independently of the code: a prismatic slider (m), hinged
# pendulums (rad), a free base (m/s, rad/s, m, rad), the slider force (N)
UNITS = {"balloon_vx": "m/s", "balloon_wz": "rad/s", "balloon_phi": "rad", "slider_q": "m",
         "slider_qd": "m/s", "pendulum1_q": "rad", "pendulum1_qd": "rad/s",
         "pendulum2_q": "rad", "slider_tau": "N"}
PARAMS = {"k": ("N/m", 25.0, 100.0), "ds": ("N s/m", np.nan, np.nan),
          "dp1": ("N m s/rad", np.nan, np.nan), "dp2": ("N m s/rad", np.nan, np.nan)}


@pytest.fixture(scope="module")
def balloon():
    with warnings.catch_warnings():  # the slider of the shipped balloon is actuated
        warnings.simplefilter("ignore", tl.TitopWarning)
        model = tl.load_model(ROOT / "examples" / "balloon.toml")
    op = tl.trim(model, free=FREE, guess=GUESS)
    sys = tl.linearize(model, op, inputs=["slider_tau"],
                       outputs=["slider_q", "pendulum2_q"], drop_integrators=True)
    return model, op, sys


@pytest.fixture(scope="module")
def grid(balloon):
    model = balloon[0]
    return tl.linearize_sweep(model, {"k": [30.0, 50.0, 90.0], "ds": [2.0, 5.0]}, free=FREE,
                              guess=GUESS, inputs=["slider_tau"],
                              outputs=["slider_q", "pendulum2_q"], drop_integrators=True,
                              progress=False)


def _cells(value) -> list[str]:
    return [str(v) for v in np.atleast_1d(value)]


def test_statespace_fields_against_the_model(balloon, tmp_path):
    model, op, sys = balloon
    raw = loadmat(save_linear(sys, tmp_path / "ss.mat", op=op, model=model),
                  simplify_cells=True)
    states, inputs = _cells(raw["StateName"]), _cells(raw["InputName"])
    outputs = _cells(raw["OutputName"])
    assert states == list(sys.state_labels) and outputs == ["slider_q", "pendulum2_q"]
    units = dict(zip(states + inputs + outputs, _cells(raw["StateUnit"])
                     + _cells(raw["InputUnit"]) + _cells(raw["OutputUnit"])))
    assert {k: units[k] for k in UNITS} == UNITS
    assert all(units.values())  # every signal of the balloon has a unit
    # the deviations' origin: kept states, inputs, and outputs evaluated at the point
    np.testing.assert_array_equal(raw["x0"], [op[n] for n in states])
    np.testing.assert_array_equal(np.atleast_1d(raw["u0"]), [op["slider_tau"]])
    np.testing.assert_allclose(raw["y0"], [op["slider_q"], op["pendulum2_q"]], rtol=0,
                               atol=1e-15)  # these outputs are the joint coordinates
    np.testing.assert_array_equal(raw["x0_full"], op.x)
    assert _cells(raw["FullStateName"]) == list(model.state_names) and raw["x0_full"].size == 18
    assert raw["model_name"] == "balloon"
    # left out: the base's position and heading (pure integrators), in the model's order
    assert _cells(raw["dropped_states"]) == ["balloon_x", "balloon_y", "balloon_z",
                                             "balloon_psi"]
    assert _cells(raw["dropped_reasons"]) == ["integrator"] * 4
    assert _cells(raw["dropped_outputs"]) == []
    # parameters: values at the point, declared units and ranges (NaN: not declared)
    assert _cells(raw["param_names"]) == list(PARAMS)
    np.testing.assert_array_equal(raw["param_values"], [op.params[n] for n in PARAMS])
    assert _cells(raw["param_units"]) == [u for u, _, _ in PARAMS.values()]
    np.testing.assert_array_equal(raw["param_min"], [lo for _, lo, _ in PARAMS.values()])
    np.testing.assert_array_equal(raw["param_max"], [hi for _, _, hi in PARAMS.values()])


@pytest.mark.parametrize("ext", [".mat", ".npz", ".json"])
def test_fields_read_back(balloon, tmp_path, ext):
    model, op, sys = balloon
    back = load_linear(save_linear(sys, tmp_path / f"ss{ext}", op=op, model=model))
    assert back.dropped_states == sys.dropped_states and back.dropped_outputs == ()
    assert {k: back.units[k] for k in UNITS} == UNITS and back.units["k"] == "N/m"
    assert back.op.params == op.params
    bare = load_linear(save_linear(sys, tmp_path / f"bare{ext}"))  # no op, no model
    assert bare.units == {} and bare.dropped_states == sys.dropped_states


def test_spin_point_records_cyclic_states(tmp_path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tl.TitopWarning)
        model = tl.load_model(ROOT / "examples" / "spinning_spacecraft.toml")
    op = tl.trim(model, free=["panel1_q", "panel2_q"], kind="spin",
                 spin={"body": "hub", "axis": [0, 0, 1], "rate": 2.0})
    sys = tl.linearize(model, op)
    raw = loadmat(save_linear(sys, tmp_path / "spin.mat", op=op, model=model),
                  simplify_cells=True)
    dropped = dict(zip(_cells(raw["dropped_states"]), _cells(raw["dropped_reasons"])))
    assert dropped == sys.dropped_states and set(dropped.values()) == {"cyclic"}
    assert set(dropped) == set(op.cyclic)
    assert raw["x0"].size == sys.nstates and raw["x0_full"].size == model.n_states


def test_grid_keeps_its_shape_and_axes(balloon, grid, tmp_path):
    model = balloon[0]
    n, p = len(grid.state_names), len(grid.output_names)
    raw = loadmat(save_linear(grid, tmp_path / "grid.mat", model=model), simplify_cells=True)
    np.testing.assert_array_equal(raw["grid_shape"], [3, 2])
    assert raw["A"].shape == (3, 2, n, n) and raw["C"].shape == (3, 2, p, n)
    assert _cells(raw["axis_names"]) == ["k", "ds"]
    assert _cells(raw["axis_units"]) == ["N/m", "N s/m"]
    np.testing.assert_array_equal(raw["axis_values"][0], [30.0, 50.0, 90.0])
    np.testing.assert_array_equal(raw["axis_values"][1], [2.0, 5.0])
    np.testing.assert_array_equal(raw["success"], np.ones((3, 2)))
    assert raw["x0"].shape == (3, 2, n) and raw["y0"].shape == (3, 2, p)
    assert raw["param_values"].shape == (3, 2, 4) and raw["x0_full"].shape == (3, 2, 18)
    names = _cells(raw["param_names"])
    for i, j in np.ndindex(3, 2):
        op = grid.sweep[i, j]
        np.testing.assert_array_equal(raw["A"][i, j], grid[i, j].A)
        np.testing.assert_array_equal(raw["x0"][i, j], [op[s] for s in grid.state_names])
        np.testing.assert_allclose(raw["y0"][i, j], [op["slider_q"], op["pendulum2_q"]],
                                   rtol=0, atol=1e-15)
        values = dict(zip(names, raw["param_values"][i, j]))
        assert (values["k"], values["ds"]) == (grid.axes["k"][i], grid.axes["ds"][j])
    assert _cells(raw["StateUnit"])[_cells(raw["StateName"]).index("slider_q")] == "m"
    assert _cells(raw["dropped_reasons"]) == ["integrator"] * 4
    # without the model: the grid's own units (recorded by linearize_sweep), no y0
    bare = loadmat(save_linear(grid, tmp_path / "bare.mat"), simplify_cells=True)
    assert "y0" not in bare and _cells(bare["axis_units"]) == ["N/m", "N s/m"]
    assert _cells(bare["StateUnit"]) == _cells(raw["StateUnit"])


@pytest.mark.parametrize("ext", [".mat", ".npz", ".json"])
def test_grid_units_read_back(balloon, grid, tmp_path, ext):
    back = load_linear(save_linear(grid, tmp_path / f"grid{ext}", model=balloon[0]))
    assert back.units["k"] == "N/m" and back.units["ds"] == "N s/m"
    for name in (*grid.state_names, *grid.input_names, *grid.output_names):
        assert back.units[name] == grid.units[name] == UNITS.get(name, back.units[name])
    assert back[1, 0].dropped_states == grid[1, 0].dropped_states
    assert back.poles().unit == "N/m"
    fig = back.bode(np.logspace(-1, 1, 20)).plot()
    assert fig.axes[0].get_ylabel() == "magnitude [dB re 1 m/N]"


def test_matlab_lines_of_the_docs_use_fields_the_files_have(balloon, grid, tmp_path):
    """Every ``S.<field>`` and ``G.<field>`` of the MATLAB block of docs/export.md is in the
    file, a cell of names where the code uses one, with the orientation MATLAB gets."""
    model, op, sys = balloon
    doc = (ROOT / "docs" / "export.md").read_text()
    block = re.search(r"```matlab\n(.*?)```", doc, re.S).group(1)
    files = {"S": save_linear(sys, tmp_path / "balloon_ss.mat", op=op, model=model),
             "G": save_linear(grid, tmp_path / "balloon_lpv.mat", model=model)}
    for var, path in files.items():
        raw = loadmat(path)  # as MATLAB loads it: cells stay cells, vectors are columns
        used = set(re.findall(rf"\b{var}\.(\w+)", block))
        assert used, var
        missing = sorted(used - set(raw))
        assert not missing, f"docs/export.md uses {var}.{missing}, not in the file"
        for field in used:
            value = raw[field]
            if field.endswith(("Name", "Unit", "names", "units", "states", "reasons")) \
                    or field in ("axis_values",):
                assert value.dtype == object and value.shape[1] == 1, field  # column cell
            elif value.ndim == 2 and field not in ("A", "B", "C", "D", "op"):
                assert value.shape[1] == 1, f"{field} is a row, not a column: {value.shape}"
    raw = loadmat(files["S"])
    n_p = raw["param_names"].shape[0]
    for field in ("param_values", "param_units", "param_min", "param_max"):
        assert raw[field].shape == (n_p, 1), field  # table(...) needs equal columns
    assert raw["x0"].shape == (sys.nstates, 1) and raw["y0"].shape == (2, 1)


def test_bad_model_arguments(balloon, tmp_path):
    model, op, sys = balloon
    other = tl.System("msd", gravity=[0.0, 0.0, 0.0])
    other.body("cart", tl.Prismatic(axis=[1, 0, 0], stiffness=10.0), mass=1.0)
    with pytest.raises(tl.ArgumentError, match="msd"):
        save_linear(sys, tmp_path / "x.mat", op=op, model=other.compile())
    with pytest.raises(tl.ArgumentTypeError, match="model must be"):
        save_linear(sys, tmp_path / "x.mat", op=op, model="balloon.toml")
    G = tl.uss(np.array([[1.0]])) * tl.ureal("a", 1.0, range=(0.5, 2.0))
    with pytest.raises(tl.ArgumentTypeError, match="model"):
        save_linear(G, tmp_path / "g.mat", model=model)
