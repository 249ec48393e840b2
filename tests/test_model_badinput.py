"""Regression tests of issue 12 for model descriptions and the command line.

Each test is one repro of the issue (or of the fuzz campaigns ``fuzz/model.py`` and
``fuzz/cli.py``): a description or a command line that used to escape as a bare
``TypeError``/``IndexError``/``ZeroDivisionError``, pass validation with a ``null``, or give
NaN without a word. Models must now be refused by :class:`titop_lpv.ModelError` (or
:class:`~titop_lpv.ModelFileError`) with a problem line naming the body, field or
parameter; command lines must end with exit status 2 and exactly one line
``titop-lpv: error: ...`` on stderr, naming the option, with no numpy warning.
"""

from __future__ import annotations

import copy
import json
import re
import warnings
from pathlib import Path

import numpy as np
import pytest
import yaml

import titop_lpv as tl
from titop_lpv.cli.main import main
from titop_lpv.model.files import read_description
from titop_lpv.model.validate import MAX_MAGNITUDE, MIN_MASS

ROOT = Path(__file__).resolve().parents[1]
BALLOON = ROOT / "examples" / "balloon.toml"
SPACECRAFT = str(ROOT / "examples" / "spinning_spacecraft.toml")


def chain() -> dict:
    """A fixed-base arm: revolute link with a port, prismatic slider at its tip."""
    return {
        "name": "chain",
        "gravity": [0.0, -9.81, 0.0],
        "parameters": {"m": {"value": 2.0, "unit": "kg", "description": "link mass"}},
        "bodies": [
            {"name": "link", "joint": {"type": "revolute"}, "mass": "m",
             "com": [0.5, 0.0, 0.0], "ports": {"tip": [1.0, 0.0, 0.0]}},
            {"name": "slider", "parent": "link.tip",
             "joint": {"type": "prismatic", "axis": [1.0, 0.0, 0.0], "stiffness": 10.0},
             "mass": 1.0},
        ],
    }


def refused(desc: object) -> tl.ModelError:
    """Load ``desc``; return the ModelError (any other outcome fails)."""
    with pytest.raises(tl.ModelError) as info:
        tl.load_model(desc)
    return info.value


def named(err: tl.ModelError, *words: str) -> None:
    """Some problem line of ``err`` contains every word."""
    assert any(all(w in p for w in words) for p in err.problems), err.problems


def test_the_chain_is_valid():
    m = tl.load_model(chain())
    assert m.state_names == ("link_q", "link_qd", "slider_q", "slider_qd")
    assert np.all(np.isfinite(m.dynamics(0.0, m.default_state())))


# ------------------------------------------------------------------------------------ top level
@pytest.mark.parametrize("top", [[1, 2], None, 3, 2.5, True, (1, 2)])
def test_top_level_that_is_not_a_table(top):
    err = refused(top)
    named(err, "table/mapping", type(top).__name__)


@pytest.mark.parametrize(("suffix", "text", "what"), [
    (".json", "[1, 2]", "list"), (".json", "null", "nothing"), (".json", "3", "int"),
    (".yaml", "", "nothing"), (".yaml", "- a\n- b\n", "list"), (".yaml", "~\n", "nothing")])
def test_model_file_whose_top_level_is_not_a_table(tmp_path, suffix, text, what):
    path = tmp_path / f"m{suffix}"
    path.write_text(text)
    with pytest.raises(tl.ModelFileError, match=f"m{suffix}: the model must be a table.*{what}"):
        read_description(path)
    with pytest.raises(tl.ModelFileError):
        tl.load_model(path)


def test_model_path_with_a_nul_byte():
    with pytest.raises(tl.ModelFileError, match="does not exist"):
        tl.load_model("a\0b.toml")


# ------------------------------------------------------------------------------------ nulls
@pytest.mark.parametrize(("edit", "words"), [
    (lambda d: d["bodies"][0].__setitem__("mass", None), ("bodies[0] ('link').mass", "null")),
    (lambda d: d["bodies"][1]["joint"].__setitem__("rotation", None),
     ("bodies[1] ('slider').joint.rotation", "null")),
    (lambda d: d["bodies"][0].__setitem__("inertia", None), ("('link').inertia", "null")),
    (lambda d: d["bodies"][1].__setitem__("parent", None), ("('slider').parent", "null")),
    (lambda d: d["parameters"]["m"].__setitem__("value", None), ("parameters.m.value", "null")),
    (lambda d: d["parameters"]["m"].__setitem__("min", None), ("parameters.m.min", "null")),
    (lambda d: d["parameters"].__setitem__("m", None), ("parameters.m", "null")),
    (lambda d: d.__setitem__("gravity", None), ("gravity", "null")),
    (lambda d: d.__setitem__("name", None), ("name", "null")),
    (lambda d: d["bodies"][0].__setitem__("com", [None, 0.0, 0.0]), ("com[0]", "null")),
    (lambda d: d.__setitem__("outputs", [{"type": "q", "body": "link", "name": None}]),
     ("outputs[0].name", "null")),
])
def test_null_is_refused_naming_the_field(edit, words):
    d = chain()
    edit(d)
    named(refused(d), *words)


def test_null_in_a_vector_from_the_builder():
    s = tl.System("arm")
    s.body("link", tl.Revolute(), mass=1.0, com=[0.5, None, 0.0])
    with pytest.raises(tl.ModelError, match=r"'link': com\[1\]: must be a number"):
        s.compile()


def test_parameter_value_none_from_the_builder():
    s = tl.System("arm")
    s.parameter("m", None)
    s.body("link", tl.Revolute(), mass="m", com=[0.5, 0.0, 0.0])
    with pytest.raises(tl.ModelError, match="parameter 'm': value: missing"):
        s.compile()


def test_json_and_yaml_nulls_through_files(tmp_path):
    d = chain()
    d["bodies"][1]["joint"]["axis"] = None
    (tmp_path / "m.json").write_text(json.dumps(d))
    (tmp_path / "m.yaml").write_text(yaml.safe_dump(d).replace("axis: null", "axis: ~"))
    for name in ("m.json", "m.yaml"):
        named(refused(read_description(tmp_path / name)), "('slider').joint.axis", "null")


# ------------------------------------------------------------------------------------ names
@pytest.mark.parametrize(("edit", "words"), [
    (lambda d: d["bodies"][1].__setitem__("name", {"a": 1}), ("{'a': 1}", "identifier")),
    (lambda d: d["bodies"][1].__setitem__("name", ["slider"]), ("['slider']", "identifier")),
    (lambda d: d["bodies"][1].__setitem__("name", 7), ("body 7", "identifier")),
    (lambda d: d["bodies"][1].__setitem__("parent", {"link": "tip"}), ("'slider'", "parent")),
    (lambda d: d.__setitem__("loads", [{"type": "force", "body": {"x": 1}}]),
     ("loads[0]", "unknown body {'x': 1}")),
    (lambda d: d.__setitem__("loads", [{"type": "torque", "body": ["link"]}]),
     ("loads[0]", "unknown body ['link']")),
    (lambda d: d.__setitem__("outputs", [{"type": "q", "body": {"b": 1}}]),
     ("outputs[0]", "unknown body")),
    (lambda d: d.__setitem__("outputs", [{"type": ["q"], "body": "link"}]),
     ("outputs[0]", "unknown output type")),
    (lambda d: d.__setitem__("outputs", [{"type": "position", "body": "link",
                                          "point": {"p": 1}}]), ("has no point {'p': 1}",)),
    (lambda d: d.__setitem__("inputs", [{"body": "link", "point": ["tip"]}]),
     ("inputs[0]", "no point ['tip']")),
    (lambda d: d.__setitem__("loops", [{"a": {"x": 1}, "b": "slider"}]), ("loops[0]", "a must")),
    (lambda d: d.__setitem__("euler", {"seq": "321"}), ("euler", "invalid sequence")),
    (lambda d: d.__setitem__("name", {"a": 1}), ("name", "non-empty string")),
])
def test_table_valued_names(edit, words):
    d = chain()
    edit(d)
    named(refused(d), *words)


def test_integer_port_keys_from_yaml(tmp_path):
    d = chain()
    d["bodies"][0]["ports"] = {1: [1.0, 0.0, 0.0], "tip": [1.0, 0.0, 0.0]}
    (tmp_path / "m.yaml").write_text(yaml.safe_dump(d))
    err = refused(read_description(tmp_path / "m.yaml"))
    named(err, "'link'", "port name 1", "identifier")


def test_integer_port_keys_in_a_parent_message():
    d = chain()
    d["bodies"][0]["ports"] = {1: [1.0, 0.0, 0.0]}
    named(refused(d), "'slider'", "no port 'tip'", "ports: 1")


def test_integer_parameter_name_from_the_builder():
    s = tl.System("arm")
    s.parameter(["m"], 1.0)
    s.body("link", tl.Revolute(), mass=1.0, com=[0.5, 0.0, 0.0])
    with pytest.raises(tl.ModelError, match=r"parameter \['m'\]: name must be an identifier"):
        s.compile()


@pytest.mark.parametrize("key", ["unit", "description"])
@pytest.mark.parametrize("value", [3, 2.5, ["kg"], {"a": 1}, True])
def test_parameter_unit_and_description_must_be_text(key, value):
    d = chain()
    d["parameters"]["m"][key] = value
    named(refused(d), "parameter 'm'", f"{key} must be text")


# ------------------------------------------------------------------------------------ masses
def test_balloon_masses_0_0_0_1e_minus_300():
    d = read_description(BALLOON)
    for b, m in zip(d["bodies"], [0.0, 0.0, 0.0, 1e-300]):
        b["mass"] = m
        b.pop("inertia", None)
    named(refused(d), "'pendulum2'", "mass 1e-300", "below")


def test_balloon_without_any_mass():
    d = read_description(BALLOON)
    for b in d["bodies"]:
        b["mass"] = 0.0
        b.pop("inertia", None)
    err = refused(d)
    for body in ("balloon", "slider", "pendulum1", "pendulum2"):
        named(err, f"body {body!r}", "subtree with no mass", "singular")


def test_massless_free_base_carrying_mass_is_valid():
    d = read_description(BALLOON)
    d["bodies"][0]["mass"] = 0.0
    d["bodies"][0].pop("inertia")
    # the slider welded, with an inertia: the base carries a rigid body's full 6x6 inertia
    d["bodies"][1]["joint"] = {"type": "weld"}
    d["bodies"][1]["inertia"] = [[0.1, 0.0, 0.0], [0.0, 0.2, 0.0], [0.0, 0.0, 0.3]]
    m = tl.load_model(d)  # the base moves the chain's mass: its 6x6 inertia is regular
    assert np.all(np.isfinite(m.dynamics(0.0, m.default_state())))


def test_massless_free_base_on_a_sliding_chain_is_refused():
    """The balloon's massless envelope on its slider: pushed along the slider's axis, the base
    meets no inertia (the chain slides away), so its articulated inertia is singular in exact
    arithmetic. One BLAS kernel's rounding left a pivot of 5e-16 and accelerations of ~1e16
    (accepted), another an exact zero (refused): it is refused on every kernel."""
    d = read_description(BALLOON)
    d["bodies"][0]["mass"] = 0.0
    d["bodies"][0].pop("inertia")
    named(refused(d), "body 'balloon'", "articulated inertia of the floating base is singular")


def test_massless_leaf_welded_to_a_massive_parent_is_valid():
    d = chain()
    d["bodies"].append({"name": "sensor", "parent": "slider", "joint": {"type": "weld"},
                        "mass": 0.0, "com": [0.1, 0.0, 0.0]})
    m = tl.load_model(d)
    assert np.all(np.isfinite(m.dynamics(0.0, m.default_state())))


@pytest.mark.parametrize("kind", ["revolute", "prismatic"])
def test_massless_leaf_on_a_moving_joint(kind):
    d = chain()
    d["bodies"].append({"name": "ghost", "parent": "slider", "joint": {"type": kind},
                        "mass": 0.0, "com": [0.1, 0.0, 0.0]})
    named(refused(d), "body 'ghost'", f"its {kind} joint moves a subtree with no mass")


def test_massless_subtree_welded_together_on_a_revolute_joint():
    d = chain()
    d["bodies"] += [
        {"name": "g1", "parent": "slider", "joint": {"type": "revolute"}, "mass": 0.0},
        {"name": "g2", "parent": "g1", "joint": {"type": "weld"}, "mass": 0.0,
         "com": [1.0, 0.0, 0.0]},
    ]
    err = refused(d)
    named(err, "body 'g1'", "no mass or inertia")
    assert not any("'g2'" in p for p in err.problems), err.problems


def test_massless_flywheel_on_a_revolute_joint_is_valid():
    """No mass, but an inertia about the axis: the joint's apparent inertia is positive."""
    d = chain()
    d["bodies"].append({"name": "wheel", "parent": "slider",
                        "joint": {"type": "revolute", "axis": [1.0, 0.0, 0.0]}, "mass": 0.0,
                        "inertia": [[0.2, 0.0, 0.0], [0.0, 0.1, 0.0], [0.0, 0.0, 0.1]]})
    m = tl.load_model(d)
    assert np.all(np.isfinite(m.dynamics(0.0, m.default_state())))


def test_massless_leaf_with_inertia_on_a_prismatic_joint():
    d = chain()
    d["bodies"].append({"name": "ghost", "parent": "slider", "joint": {"type": "prismatic"},
                        "mass": 0.0, "inertia": np.eye(3).tolist()})
    named(refused(d), "body 'ghost'", "prismatic joint moves a subtree with no mass ")


def test_negligible_mass_relative_to_the_model():
    d = chain()
    d["bodies"].append({"name": "dust", "parent": "slider", "joint": {"type": "prismatic"},
                        "mass": 1e-14})
    named(refused(d), "body 'dust'", "no mass")


@pytest.mark.parametrize("value", [1e-101, 1e-200, 5e-324])
def test_tiny_nonzero_mass_and_inertia(value):
    assert value < MIN_MASS
    d = chain()
    d["bodies"][1]["mass"] = value
    named(refused(d), "body 'slider'", "mass", "below 1e-100")
    d = chain()
    d["bodies"][1]["inertia"] = [[1.0, value, 0.0], [value, 1.0, 0.0], [0.0, 0.0, 1.0]]
    named(refused(d), "body 'slider'", "inertia entries", "below 1e-100")


def test_mass_parameter_below_the_floor_at_run_time():
    m = tl.load_model(chain())
    with pytest.raises(tl.ParameterError, match="'link': non-zero mass below 1e-100"):
        m.dynamics(0.0, m.default_state(), params={"m": 1e-200})


# ------------------------------------------------------------------------------------ no d.o.f.
def test_model_without_any_degree_of_freedom():
    d = {"name": "statue", "bodies": [
        {"name": "plinth", "joint": {"type": "weld"}, "mass": 100.0},
        {"name": "bust", "parent": "plinth", "joint": {"type": "weld"}, "mass": 20.0}]}
    named(refused(d), "no degree of freedom", "weld")


# ------------------------------------------------------------------------------------ magnitudes
@pytest.mark.parametrize(("edit", "words"), [
    (lambda d: d["bodies"][0].__setitem__("com", [1e200, 0.0, 0.0]), ("'link': com[0]",)),
    (lambda d: d["bodies"][0]["ports"].__setitem__("tip", [0.0, -1e200, 0.0]),
     ("'link': port 'tip'[1]",)),
    (lambda d: d.__setitem__("gravity", [0.0, 1e200, 0.0]), ("gravity[1]",)),
    (lambda d: d["bodies"][1]["joint"].__setitem__("stiffness", 1e101), ("joint.stiffness",)),
    (lambda d: d["parameters"]["m"].__setitem__("value", 1e150), ("parameter 'm': value",)),
    (lambda d: d["parameters"]["m"].__setitem__("max", -1e300), ("parameter 'm': max",)),
    (lambda d: d["bodies"][1].__setitem__("mass", 10**400), ("'slider': mass", "finite")),
])
def test_huge_numbers_are_refused_naming_the_field(edit, words):
    d = chain()
    edit(d)
    err = refused(d)
    named(err, *words)
    assert any("above 1e+100" in p or "finite" in p for p in err.problems), err.problems


def test_the_magnitude_bound_is_inclusive():
    d = chain()
    d["gravity"] = [0.0, -MAX_MAGNITUDE, 0.0]
    m = tl.load_model(d)
    assert np.all(np.isfinite(m.dynamics(0.0, m.default_state())))


def test_parameter_value_above_the_bound_at_run_time():
    m = tl.load_model(chain())
    with pytest.raises(tl.ParameterError, match="'m': magnitude 1e\\+200 is above 1e\\+100"):
        m.dynamics(0.0, m.default_state(), params={"m": 1e200})


def test_non_finite_reference_evaluation_is_refused():
    """Numbers within the bound whose dynamics still overflow (m ω² c = 1e400): the reference
    evaluation at the default state refuses the model, naming the derivative, and numpy
    stays silent."""
    d = {"name": "one", "gravity": [0.0, -9.81, 0.0], "bodies": [
        {"name": "link", "joint": {"type": "revolute", "qd0": 1e100}, "mass": 1e100,
         "com": [1e100, 0.0, 0.0]}]}
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        err = refused(d)
    named(err, "default state", "link_qd")


# ------------------------------------------------------------------------------------ CLI
def one_error_line(capsys, argv: list[str]) -> str:
    status = main(argv)
    captured = capsys.readouterr()
    lines = [ln for ln in captured.err.splitlines() if ln.strip()]
    assert status == 2, captured
    assert len(lines) == 1 and lines[0].startswith("titop-lpv: error: "), captured.err
    assert "Warning" not in captured.err
    return lines[0]


def write(tmp_path: Path, name: str, content: object) -> str:
    path = tmp_path / name
    if name.endswith(".json"):
        path.write_text(json.dumps(content))
    else:
        path.write_text(yaml.safe_dump(content))
    return str(path)


def chain_with(edit) -> dict:
    d = chain()
    edit(d)
    return d


CLI_MODELS = {
    "top-level JSON list": ("m.json", [chain()], "table/mapping"),
    "top-level YAML number": ("m.yaml", 3, "table/mapping"),
    "table-valued body name": ("m.json", chain_with(
        lambda d: d["bodies"][1].__setitem__("name", {"a": 1})), "{'a': 1}"),
    "table-valued load body": ("m.yaml", chain_with(
        lambda d: d.__setitem__("loads", [{"type": "force", "body": {"b": 2}}])), "loads[0]"),
    "JSON null": ("m.json", chain_with(lambda d: d["bodies"][0].__setitem__("mass", None)),
                  "null"),
    "YAML null": ("m.yaml", chain_with(
        lambda d: d["parameters"]["m"].__setitem__("value", None)), "null"),
    "zero masses": ("m.json", chain_with(lambda d: [b.__setitem__("mass", 0.0)
                                                    for b in d["bodies"]]), "no mass"),
    "tiny mass": ("m.json", chain_with(lambda d: d["bodies"][1].__setitem__("mass", 1e-300)),
                  "below 1e-100"),
    "huge com": ("m.json", chain_with(
        lambda d: d["bodies"][0].__setitem__("com", [1e200, 0.0, 0.0])), "com[0]"),
    "no degree of freedom": ("m.yaml", {"name": "w", "bodies": [
        {"name": "a", "joint": {"type": "weld"}, "mass": 1.0}]}, "no degree of freedom"),
}


@pytest.mark.parametrize("command", ["simulate", "trim", "linearize"])
@pytest.mark.parametrize("case", list(CLI_MODELS))
def test_cli_bad_model(case, command, tmp_path, capsys):
    name, content, expected = CLI_MODELS[case]
    argv = [command, write(tmp_path, name, content)]
    if command == "simulate":
        argv += ["--t-final", "0.1"]
    assert expected in one_error_line(capsys, argv)


CLI_LINES = {
    "spin rate nan": (["trim", SPACECRAFT, "--spin", "hub:0,0,1:nan"], "--spin rate"),
    "spin rate inf": (["trim", SPACECRAFT, "--spin", "hub:0,0,1:inf"], "--spin rate"),
    "spin rate 1e300": (["trim", SPACECRAFT, "--spin", "hub:0,0,1:1e300"], "too large"),
    "spin axis nan": (["trim", SPACECRAFT, "--spin", "hub:0,nan,1:2"], "--spin axis"),
    "spin axis zero": (["trim", SPACECRAFT, "--spin", "hub:0,0,0:2"], "must not be zero"),
    "spin twice": (["trim", SPACECRAFT, "--spin", "hub:0,0,1:1", "--spin", "hub:0,0,1:2"],
                   "--spin is given 2 times"),
    "x0 nan": (["simulate", str(BALLOON), "--t-final", "1", "--x0", "slider.q=nan"],
               "--x0 slider.q: expected a finite number"),
    "x0 1e300": (["simulate", str(BALLOON), "--t-final", "1", "--x0", "balloon_vx=1e300"],
                 "--x0 balloon_vx: '1e300' is too large"),
    "param inf": (["trim", str(BALLOON), "--param", "k=inf"], "--param k"),
    "fix nan": (["trim", str(BALLOON), "--fix", "slider.q=nan"], "--fix slider.q"),
    "guess -inf": (["trim", str(BALLOON), "--guess=slider.q=-inf"], "--guess slider.q"),
    "bad value overridden later": (["trim", str(BALLOON), "--guess=slider_q=nan",
                                    "--guess=slider_q=0"], "--guess slider_q"),
    "t-final nan": (["simulate", str(BALLOON), "--t-final", "nan"], "--t-final"),
    "t-final inf": (["simulate", str(BALLOON), "--t-final", "inf"], "--t-final"),
    "tol nan": (["trim", str(BALLOON), "--tol", "nan"], "--tol"),
    "tol negative": (["trim", str(BALLOON), "--tol", "-1"], "--tol -1"),
    "grid N nan": (["sweep", str(BALLOON), "--param", "k=25:100:nan"], "--param k"),
    "grid N 1e300": (["sweep", str(BALLOON), "--param", "k=25:100:1e300"], "--param k"),
    "grid N too many": (["sweep", str(BALLOON), "--param", "k=25:100:1000000"], "at most"),
    "grid bound inf": (["sweep", str(BALLOON), "--param", "k=25:inf:3"], "finite"),
    "omega nan": (["bode", str(BALLOON), "--omega", "nan:10:5"], "--omega"),
    "workers 0": (["sweep", str(BALLOON), "--param", "k=25:100:3", "--workers", "0"],
                  "--workers"),
    "workers huge": (["sweep", str(BALLOON), "--param", "k=25:100:3", "--workers", "100000"],
                     "--workers"),
}


@pytest.mark.parametrize("case", list(CLI_LINES))
def test_cli_bad_value(case, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    argv, expected = CLI_LINES[case]
    assert expected in one_error_line(capsys, argv)


def test_cli_overflowing_initial_state_ends_in_one_line(tmp_path, monkeypatch, capsys):
    """A finite initial state within the bound whose simulation fails: the progress bar, then
    one error line; no numpy warning on stderr."""
    monkeypatch.chdir(tmp_path)
    status = main(["simulate", str(BALLOON), "--t-final", "0.05", "--x0", "balloon_vx=1e100"])
    err = capsys.readouterr().err
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert status == 2, err
    assert lines[-1].startswith("titop-lpv: error: ") and "'balloon'" in lines[-1], err
    assert all(re.match(r"simulate:\s+\d+%.* \d+/\d+ \[", ln) for ln in lines[:-1]), err
    assert "Warning" not in err


def test_cli_success_keeps_its_warnings(tmp_path, monkeypatch, capsys):
    """Warnings recorded during a successful command are still shown (once each)."""
    monkeypatch.chdir(tmp_path)
    d = chain()
    d["bodies"][1]["inertia"] = [[0.1, 0.0, 0.0], [0.0, 0.1, 0.0], [0.0, 0.0, 0.5]]
    assert main(["simulate", write(tmp_path, "m.json", d), "--t-final", "0.05"]) == 0
    out = capsys.readouterr().out
    assert "note: body 'slider'" in out and "triangle" in out


def test_description_copy_is_not_changed_by_loading():
    d = chain()
    d["bodies"][0]["mass"] = None
    before = copy.deepcopy(d)
    refused(d)
    assert d == before
