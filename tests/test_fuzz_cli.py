"""Property-based tests of the ``titop-lpv`` command line (issue 12).

hypothesis draws command lines that are malformed by construction: a command, a shipped
model, a few well-formed options, and at least one poisoned one (a number that is NaN,
infinite, above 1e100 or not a number; a grid whose N is not a small positive integer; a
``--spin`` with a bad rate or axis, or given twice; an unknown name or option; a model file
whose top level, names or values are bad). Each runs in-process through
:func:`titop_lpv.cli.main.main` with stdout and stderr captured. Property: exit status 2 and
exactly one line ``titop-lpv: error: ...`` on stderr: never ``internal error``, never a
traceback, never a numpy warning. A per-example alarm turns a hang into a failure.
"""

from __future__ import annotations

import contextlib
import io
import json
import warnings
from pathlib import Path

import pytest
import yaml
from guards import hang_guard
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from titop_lpv.cli.main import main

ROOT = Path(__file__).resolve().parents[1]
BALLOON = str(ROOT / "examples" / "balloon.toml")
SPACECRAFT = str(ROOT / "examples" / "spinning_spacecraft.toml")
ARM = str(ROOT / "examples" / "robot_arm.toml")
MODELS = {BALLOON: ("balloon", "slider", "k", "slider_q", "pendulum1_q"),
          SPACECRAFT: ("hub", "panel1", "k_hinge", "panel1_q", "hub_wz"),
          ARM: ("shoulder", "elbow", "payload_weight", "elbow_q", "shoulder_q")}
HANG_SECONDS = 120

BAD_NUMBER = st.sampled_from(["nan", "NaN", "inf", "-inf", "1e300", "-1e300", "1e101", "1e400",
                              "", "abc", "1..2", "0x1p3", "--", "1e"])
GOOD_NUMBER = st.sampled_from(["0", "0.2", "-0.3", "1.5", "50"])
COMMANDS = ["simulate", "trim", "linearize", "modes", "sweep", "bode"]


@st.composite
def poison(draw: st.DrawFn, names: tuple[str, ...]) -> list[str]:
    """One option that is malformed whatever the rest of the line."""
    body, _, param, state, _ = names
    kind = draw(st.sampled_from(["value", "spin", "spin twice", "grid", "unknown name",
                                 "unknown option", "tol", "t-final", "workers"]))
    bad = draw(BAD_NUMBER)
    if kind == "value":
        option = draw(st.sampled_from(["--param", "--x0", "--fix", "--guess"]))
        name = param if option == "--param" else state
        return [f"{option}={name}={bad}"]
    if kind == "spin":
        rate, axis = draw(st.sampled_from([(bad, "0,0,1"), ("1", f"0,{bad},1"),
                                           ("1", "0,0,0"), ("1", "0,0"), ("a-b", "0,0,1")]))
        return [f"--spin={body}:{axis}:{rate}"]
    if kind == "spin twice":
        return [f"--spin={body}:0,0,1:1", f"--spin={body}:0,0,1:{draw(GOOD_NUMBER)}"]
    if kind == "grid":
        n = draw(st.sampled_from(["nan", "inf", "0", "-2", "2.5", "1e300", "100001", "x"]))
        return [f"--param={param}={draw(GOOD_NUMBER)}:{draw(GOOD_NUMBER)}:{n}"]
    if kind == "unknown name":
        option = draw(st.sampled_from(["--param", "--x0", "--fix", "--guess"]))
        return [f"{option}=nope_{draw(st.integers(0, 9))}={draw(GOOD_NUMBER)}"]
    if kind == "unknown option":
        return [f"--{draw(st.sampled_from(['bogus', 'paramm', 'x1']))}=1"]
    if kind == "tol":
        return [f"--tol={draw(st.sampled_from(['nan', 'inf', '-1', '0', 'abc', '1e300']))}"]
    if kind == "t-final":
        return [f"--t-final={draw(st.sampled_from(['nan', 'inf', '-1', '0', 'x', '1e300']))}"]
    return [f"--workers={draw(st.sampled_from(['0', '-1', '65', '1e3', 'x']))}"]


@st.composite
def malformed_lines(draw: st.DrawFn) -> list[str]:
    """A command line with at least one poisoned option."""
    command = draw(st.sampled_from(COMMANDS))
    model = draw(st.sampled_from(sorted(MODELS)))
    names = MODELS[model]
    argv = [command, model]
    if command == "simulate":
        argv.append("--t-final=0.05")
    if command == "sweep" and draw(st.booleans()):
        argv.append(f"--param={names[2]}={draw(GOOD_NUMBER)}:{draw(GOOD_NUMBER)}:2")
    extras = [["--free", names[3]], [f"--guess={names[3]}={draw(GOOD_NUMBER)}"],
              ["--drop-integrators"], [f"--param={names[2]}={draw(GOOD_NUMBER)}"]]
    for extra in draw(st.lists(st.sampled_from(extras), max_size=2)):
        argv += extra
    position = draw(st.integers(2, len(argv)))
    return argv[:position] + draw(poison(names)) + argv[position:]


def run(argv: list[str]) -> tuple[int, str, str]:
    """Run the command line in-process: (status, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    with hang_guard(HANG_SECONDS), warnings.catch_warnings(), contextlib.redirect_stdout(out), \
            contextlib.redirect_stderr(err):
        warnings.simplefilter("always")
        status = main(argv)
    return status, out.getvalue(), err.getvalue()


def assert_one_error_line(argv: list[str]) -> str:
    status, _, err = run(argv)
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert status == 2, (argv, status, err[-2000:])
    assert len(lines) == 1 and lines[0].startswith("titop-lpv: error: "), (argv, err[-2000:])
    assert "Warning" not in err and "Traceback" not in err, (argv, err)
    return lines[0]


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("TITOP_LPV_DEBUG", raising=False)


@settings(max_examples=150, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(malformed_lines())
def test_malformed_command_lines_end_in_one_usage_error(argv):
    assert_one_error_line(argv)


BAD_MODEL_FILES = st.sampled_from([
    [1, 2], None, 3, "text",
    {"name": "x", "bodies": [{"name": {"a": 1}, "joint": {"type": "free"}, "mass": 1}]},
    {"name": "x", "bodies": [{"name": "b", "joint": {"type": "free"}, "mass": None}]},
    {"name": "x", "bodies": [{"name": "b", "joint": {"type": "revolute"}, "mass": 0}]},
    {"name": "x", "bodies": [{"name": "b", "joint": {"type": "weld"}, "mass": 1}]},
    {"name": "x", "bodies": [{"name": "b", "joint": {"type": "revolute"}, "mass": 1,
                              "com": [1e200, 0, 0]}]},
    {"name": "x", "parameters": {"m": {"value": 1, "unit": 3}},
     "bodies": [{"name": "b", "joint": {"type": "revolute"}, "mass": "m", "com": [1, 0, 0]}]},
])


@settings(max_examples=40, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(BAD_MODEL_FILES, st.sampled_from([".json", ".yaml"]),
       st.sampled_from(["simulate", "trim", "linearize", "modes"]))
def test_bad_model_files_end_in_one_usage_error(content, suffix, command):
    path = Path(f"model{suffix}")
    path.write_text(json.dumps(content) if suffix == ".json" else yaml.safe_dump(content))
    argv = [command, str(path)] + (["--t-final=0.05"] if command == "simulate" else [])
    assert_one_error_line(argv)


def test_the_lines_are_well_formed_without_their_poison():
    """Control: the unpoisoned skeletons run (status 0), so the error comes from the poison."""
    for argv in (["simulate", BALLOON, "--t-final=0.05"],
                 ["trim", SPACECRAFT, "--spin=hub:0,0,1:1"],
                 ["sweep", SPACECRAFT, "--param=k_hinge=50:60:2"]):
        status, _, err = run(argv)
        assert status == 0, err
