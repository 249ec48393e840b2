"""``tl.save_model``: TOML, JSON and YAML files that load back to the same model.

Every shipped example model, a builder model using every record type (parameters with
ranges, units and descriptions that need escaping, loads, loops, wrench inputs, sensors) and
URDF-imported robots are written in each format and read back: same description
(``Model.__eq__``), same signal and parameter names, and the same dynamics and outputs at
random states, inputs and parameters (to 1e-15 relative: the numbers are written exactly).
The TOML emitter itself is checked on random nested data against ``tomllib``.
"""

from __future__ import annotations

import importlib.metadata
import json
import math
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import titop_lpv as tl
from titop_lpv.exceptions import ModelError, ModelFileError
from titop_lpv.model.description import JOINT_TYPES
from titop_lpv.model.writer import save_model, to_json, to_toml

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
TOMLS = sorted(EXAMPLES.glob("*.toml"))
SUFFIXES = [".toml", ".json", ".yaml"]


def same_model(a: tl.Model, b: tl.Model, seed: int = 0) -> None:
    """Same description, names and (to 1e-15) dynamics and outputs at random points."""
    assert a == b and a.to_dict() == b.to_dict()
    for attr in ("name", "state_names", "input_names", "output_names", "param_names",
                 "body_names", "euler"):
        assert getattr(a, attr) == getattr(b, attr), attr
    assert a.units() == b.units()
    np.testing.assert_array_equal(a.param_bounds, b.param_bounds)
    rng = np.random.default_rng(seed)
    p0 = a.default_params()
    for _ in range(3):
        x = a.default_state() + 0.3 * rng.normal(size=a.n_states)
        u = rng.normal(size=a.n_inputs)
        p = {k: float(np.clip(v * (1.0 + 0.1 * rng.uniform()), lo, hi))
             for (k, v), (lo, hi) in zip(p0.items(), a.param_bounds)}
        for f in ("dynamics", "outputs"):
            ya, yb = getattr(a, f)(0.0, x, u, p), getattr(b, f)(0.0, x, u, p)
            scale = max(np.max(np.abs(ya)), 1e-300) if ya.size else 1.0
            assert ya.shape == yb.shape and np.max(np.abs(ya - yb), initial=0.0) <= 1e-15 * scale


@pytest.mark.filterwarnings("ignore::titop_lpv.TitopWarning")
@pytest.mark.parametrize("suffix", SUFFIXES)
@pytest.mark.parametrize("path", TOMLS, ids=[p.stem for p in TOMLS])
def test_examples_round_trip(path: Path, suffix: str, tmp_path: Path) -> None:
    model = tl.load_model(path)
    out = save_model(model, tmp_path / f"{path.stem}{suffix}")
    assert out == tmp_path / f"{path.stem}{suffix}"
    same_model(model, tl.load_model(out))
    if suffix == ".toml":  # the written file reads back to the very description
        assert tomllib.loads(out.read_text(encoding="utf-8")) == model.to_dict()


def builder_model() -> tl.System:
    """Every record type, parameters in numeric leaves, text that needs escaping."""
    s = tl.System('arm "test"\nmodel', gravity=[0.0, 0.0, "g"], euler="213")
    s.parameter("g", -9.81, min=-10.0, max=-9.0, unit="m/s^2",
                description='gravity, "down"\\ é ünïcödé\ttab')
    s.parameter("L", 0.7, min=0.1, unit="m")
    s.parameter("k", 40.0, max=100.0)
    s.parameter("tiny", 1e-300)
    s.body("base", tl.Free(position0=[0.1, 0.2, 0.3], euler0=[0.1, -0.2, 0.3], w0=[0, 0, 1]),
           mass=5.0, inertia=[[1.0, 0.1, 0.0], [0.1, 2.0, 0.0], [0.0, 0.0, 2.5]],
           com=[0.0, 0.0, 0.1], ports={"top": [0.0, 0.0, "L"], "side": [0.2, 0.0, 0.0]})
    s.body("arm", tl.Revolute(axis=[0, 1, 0], stiffness="k", damping=0.3, rest=0.1, q0=0.2,
                              actuated=True, rotation=[[0, -1, 0], [1, 0, 0], [0, 0, 1]]),
           parent="base.top", mass=1.0, com=[0.0, 0.0, "L"], ports={"tip": [0, 0, 1.0 / 3]})
    s.body("slider", tl.Prismatic(axis=[1, 0, 0], stiffness=20.0, qd0=0.1),
           parent="arm.tip", mass=0.5)
    s.body("tool", tl.Weld(rotation=[[1, 0, 0], [0, 0, -1], [0, 1, 0]]), parent="slider",
           mass=0.1)
    s.buoyancy("base", fraction=0.5)
    s.force("arm", [1.0, 0.0, 0.0], point="tip", frame="body")
    s.torque("base", [0.0, 0.1, 0.0])
    s.loop("base.side", "slider", stiffness=[100.0] * 6, damping=[1.0] * 6, name="strut")
    s.wrench_input("tool", frame="inertial")
    s.output("position", "tool", name="tool_pos")
    s.output("angular_velocity", "arm", frame="body")
    s.output("q", "slider")
    return s


@pytest.mark.filterwarnings("ignore::titop_lpv.TitopWarning")
@pytest.mark.parametrize("suffix", [*SUFFIXES, ".yml"])
def test_builder_model_round_trip(suffix: str, tmp_path: Path) -> None:
    system = builder_model()
    model = system.compile()
    back = tl.load_model(save_model(system, tmp_path / f"m{suffix}"))
    same_model(model, back)
    params = back.to_dict()["parameters"]
    assert params["g"] == {"value": -9.81, "min": -10.0, "max": -9.0, "unit": "m/s^2",
                           "description": 'gravity, "down"\\ é ünïcödé\ttab'}
    assert params["tiny"] == 1e-300 and back.name == 'arm "test"\nmodel'


@pytest.mark.filterwarnings("ignore::titop_lpv.TitopWarning")
@pytest.mark.parametrize("suffix", SUFFIXES)
def test_dict_source_round_trip(suffix: str, tmp_path: Path) -> None:
    data = tl.load_model(EXAMPLES / "balloon.toml").to_dict()
    back = tl.load_model(save_model(data, tmp_path / f"b{suffix}"))
    same_model(tl.load_model(data), back)


WAVE2 = {"name": "wave2", "gravity": [0.0, 0.0, -9.81],
         "parameters": {"c": {"value": 0.5, "unit": "N s/m"}},
         "bodies": [
             {"name": "hub", "joint": {"type": "free"}, "mass": 3.0,
              "inertia": [[1.0, 0, 0], [0, 2.0, 0], [0, 0, 3.0]], "ports": {"p": [0.5, 0, 0]}},
             {"name": "ball", "parent": "hub.p", "mass": 1.0, "com": [0.3, 0, 0],
              "joint": {"type": "spherical", "stiffness": 2.0, "damping": 0.1,
                        "q0": [0.9, 0.1, 0.3, 0.2]},
              "inertia": [[0.1, 0, 0], [0, 0.1, 0], [0, 0, 0.1]]},
             {"name": "card", "parent": "ball", "mass": 0.5, "com": [0, 0, 0.2],
              "joint": {"type": "universal", "axis1": [1, 0, 1], "axis2": [0, 1, 0],
                        "stiffness": [1.0, 2.0]}},
             {"name": "arm", "parent": "card", "mass": 0.2, "com": [0.1, 0, 0],
              "joint": {"type": "revolute", "axis": [0, 0, 1], "motion": "input"}}],
         "loads": [{"type": "damping", "body": "hub", "linear": "c", "angular": 0.2}]}


@pytest.mark.skipif(not {"spherical", "universal"} <= set(JOINT_TYPES),
                    reason="spherical and universal joints are not in this version")
@pytest.mark.parametrize("suffix", SUFFIXES)
def test_new_joint_types_round_trip(suffix: str, tmp_path: Path) -> None:
    """Spherical, universal, driven joints and damping loads pass through the writer."""
    model = tl.load_model(WAVE2)
    same_model(model, tl.load_model(save_model(model, tmp_path / f"w{suffix}")), seed=2)


def _robots() -> Path | None:
    try:
        files = importlib.metadata.files("example-robot-data") or []
    except importlib.metadata.PackageNotFoundError:
        return None
    hits = [f for f in files if str(f).endswith("ur_description/urdf/ur5_robot.urdf")]
    return Path(hits[0].locate()).parents[2] if hits else None


ROBOTS = _robots()


@pytest.mark.skipif(ROBOTS is None, reason="example-robot-data is not installed")
@pytest.mark.filterwarnings("ignore::titop_lpv.TitopWarning")
@pytest.mark.parametrize("suffix", SUFFIXES)
@pytest.mark.parametrize(("robot", "floating"), [
    ("ur_description/urdf/ur5_robot.urdf", False),
    ("solo_description/robots/solo12.urdf", True),
    ("z1_description/urdf/z1.urdf", False),
])
def test_urdf_model_round_trip(robot: str, floating: bool, suffix: str, tmp_path: Path
                               ) -> None:
    model = tl.load_model(ROBOTS / robot, floating=floating)
    back = tl.load_model(save_model(model, tmp_path / f"robot{suffix}"))
    assert type(back) is tl.Model  # the URDF aliases are not part of the schema
    same_model(model, back, seed=1)


def test_errors(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    model = tl.load_model(EXAMPLES / "four_bar.toml")
    with pytest.raises(ModelFileError, match=r"unknown model file type '\.txt'"):
        save_model(model, tmp_path / "m.txt")
    with pytest.raises(ModelFileError, match=r"unknown model file type '\.urdf'"):
        save_model(model, tmp_path / "m.urdf")
    with pytest.raises(ModelFileError, match="does not exist"):
        save_model(model, tmp_path / "missing" / "m.toml")
    with pytest.raises(ModelError, match="mass"):
        save_model({"bodies": [{"name": "b", "joint": {"type": "revolute"}, "mass": -1.0}]},
                   tmp_path / "bad.toml")
    assert not (tmp_path / "bad.toml").exists()
    with pytest.raises(ModelFileError, match=r"parameters\.k\.max: inf cannot be written to "
                                             "JSON"):
        to_json({"parameters": {"k": {"value": 1.0, "max": math.inf}}})
    with pytest.raises(ModelFileError, match=r"bodies\[0\]\.mass: TOML has no null"):
        to_toml({"bodies": [{"mass": None}]})
    with pytest.raises(ModelFileError, match="cannot write a set"):
        to_toml({"a": {1, 2}})
    monkeypatch.setitem(sys.modules, "yaml", None)  # PyYAML missing: a clear error
    with pytest.raises(ModelFileError, match="writing YAML needs PyYAML"):
        save_model(model, tmp_path / "m.yaml")


@pytest.mark.filterwarnings("ignore::titop_lpv.TitopWarning")
def test_json_is_standard(tmp_path: Path) -> None:
    out = save_model(tl.load_model(EXAMPLES / "balloon.toml"), tmp_path / "b.json")
    json.loads(out.read_text(encoding="utf-8"), parse_constant=lambda c: pytest.fail(c))


# ---------------------------------------------------------------------------- the emitter
_keys = st.text(max_size=6)
_scalars = (st.floats(allow_nan=False) | st.integers(-2**63, 2**63 - 1) | st.booleans()
            | st.text(max_size=12))
_values = st.recursive(_scalars, lambda inner: st.lists(inner, max_size=4)
                       | st.dictionaries(_keys, inner, max_size=4), max_leaves=12)
_tops = st.dictionaries(_keys, _values | st.lists(st.dictionaries(_keys, _values, max_size=4),
                                                  min_size=1, max_size=3), max_size=6)


@settings(max_examples=60, deadline=None)
@given(_tops)
def test_toml_emitter_round_trips(data: dict) -> None:
    assert tomllib.loads(to_toml(data)) == data


def test_toml_floats_are_exact() -> None:
    values = [0.1, 1 / 3, -0.0, 5e-324, 1.7976931348623157e308, 1e16, 123456789.123456789,
              math.inf, -math.inf, 2.0**-1074, 1e-5]
    back = tomllib.loads(to_toml({"v": values}))["v"]
    assert all(repr(a) == repr(b) for a, b in zip(values, back))
    assert math.isnan(tomllib.loads(to_toml({"v": math.nan}))["v"])
