"""Property-based tests of the wave-2 surfaces (issue 25 item 5), bounded versions of
``fuzz/wave2.py``, and the escapes that campaign found, one test each.

Properties: a mutated URDF text either loads to a model whose dynamics at the default state
are finite or raises a :class:`titop_lpv.ModelError` (never a raw XML, numpy or Python
error); a linear model file corrupted after :func:`titop_lpv.save_linear` either loads to
finite matrices or raises :class:`titop_lpv.ModelFileError`. A per-example alarm turns a
hang into a failure.
"""

from __future__ import annotations

import json
import math
import re
import warnings
from pathlib import Path

import control
import numpy as np
import pytest
from guards import hang_guard
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import titop_lpv as tl

HANG_SECONDS = 60


def _link(name: str) -> str:
    return (f'<link name="{name}"><inertial><origin xyz="0.1 -0.2 0.05" rpy="0.4 -0.3 1.1"/>'
            '<mass value="1.0"/><inertia ixx="0.1" iyy="0.2" izz="0.25" ixy="0.01" ixz="0" '
            'iyz="0.02"/></inertial></link>')


def _joint(name: str, parent: str, child: str, kind: str, extra: str) -> str:
    return (f'<joint name="{name}" type="{kind}"><parent link="{parent}"/>'
            f'<child link="{child}"/>{extra}</joint>')


ARM = ('<?xml version="1.0"?>\n<robot name="arm">\n<link name="base"/>' + _link("a")
       + _link("b") + '<link name="tip"/>'
       + _joint("j1", "base", "a", "revolute", '<origin xyz="0 0 0.3" rpy="0.1 0.2 0.3"/>'
                '<axis xyz="0 0 1"/><dynamics damping="0.7"/>')
       + _joint("j2", "a", "b", "prismatic", '<origin xyz="0.5 0 0"/><axis xyz="1 1 0"/>')
       + _joint("tool", "b", "tip", "fixed", '<origin xyz="0 0 0.2"/>') + "\n</robot>\n")
ATTRIBUTES = list(re.finditer(r'(\w+)="([^"]*)"', ARM))
BAD_VALUES = st.sampled_from(["nan", "inf", "-inf", "1e400", "1e300", "", "abc", "1 2",
                              "1 2 3 4", "0 0 0", "-1", "0", "1e-300", "1,2,3", "a", "base",
                              "tip", "continuous", "floating", "planar", "j1"])


@st.composite
def urdf_texts(draw) -> str:
    """ARM with one to three attribute values replaced, or cut short."""
    text = ARM
    for _ in range(draw(st.integers(1, 3))):
        attrs = list(re.finditer(r'(\w+)="([^"]*)"', text))
        m = attrs[draw(st.integers(0, len(attrs) - 1))]
        text = text[:m.start(2)] + draw(BAD_VALUES) + text[m.end(2):]
    if draw(st.booleans()) and draw(st.booleans()):
        text = text[:draw(st.integers(0, len(text) - 1))]
    return text


@settings(max_examples=80, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(urdf_texts(), st.booleans())
def test_mutated_urdf_text_is_refused_or_finite(tmp_path, text, floating):
    path = tmp_path / "arm.urdf"
    path.write_text(text, encoding="utf-8")
    with hang_guard(HANG_SECONDS), warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        warnings.simplefilter("ignore", tl.TitopWarning)
        try:
            model = tl.load_model(path, floating=floating)
        except tl.ModelError as err:
            assert str(err)
            return
        assert np.all(np.isfinite(model.dynamics(0.0, model.default_state())))


def test_the_urdf_seed_loads(tmp_path):
    """The unmutated arm loads (a revolute and a prismatic joint): the property above sees
    both outcomes, and its mutations start from a valid text."""
    path = tmp_path / "arm.urdf"
    path.write_text(ARM, encoding="utf-8")
    model = tl.load_model(path)
    assert model.state_names == ("a_q", "a_qd", "b_q", "b_qd")
    assert np.all(np.isfinite(model.dynamics(0.0, model.default_state())))
    assert len(ATTRIBUTES) > 20


@pytest.fixture(scope="module")
def linear_files(tmp_path_factory) -> dict[str, Path]:
    s = tl.System("msd", gravity=[0.0, 0.0, 0.0])
    s.parameter("k", 40.0)
    s.body("cart", tl.Prismatic(axis=[1, 0, 0], stiffness="k", actuated=True), mass=2.0)
    model = s.compile()
    sys = tl.linearize(model, x=model.default_state())
    k = tl.ureal("k", 40.0, range=(30.0, 50.0))
    G = tl.uss(tl.feedback(control.tf(1, [1, 0, 0]), k), inputs="f", outputs="x", name="G")
    out = {}
    tmp = tmp_path_factory.mktemp("linear")
    for label, obj in (("ss", sys), ("uss", G)):
        for fmt in (".npz", ".json"):
            out[label + fmt] = tl.save_linear(obj, tmp / f"{label}{fmt}")
    return out


@settings(max_examples=60, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.sampled_from(["ss.npz", "ss.json", "uss.npz", "uss.json"]), st.data())
def test_corrupted_linear_files_are_refused_or_finite(tmp_path, linear_files, which, data):
    src = linear_files[which]
    path = tmp_path / src.name
    raw = src.read_bytes()
    how = data.draw(st.sampled_from(["truncate", "field", "nan"]))
    if how == "truncate" or (src.suffix == ".npz" and how == "field"):
        path.write_bytes(raw[:data.draw(st.integers(0, len(raw) - 1))])
    elif src.suffix == ".json":
        rec = json.loads(raw)
        key = data.draw(st.sampled_from(sorted(rec)))
        rec[key] = data.draw(st.sampled_from([None, [], {}, "abc", math.nan, 1e300, [[1.0]],
                                              True]))
        path.write_text(json.dumps(rec, allow_nan=True))
    else:
        with np.load(src) as f:
            d = {k: f[k] for k in f.files}
        d[data.draw(st.sampled_from(["A", "B", "C", "D"]))] = np.full((1,), math.nan)
        np.savez(path, **d)
    with hang_guard(HANG_SECONDS):
        try:
            obj = tl.load_linear(path)
        except tl.ModelFileError as err:
            assert str(err)
            return
    mats = obj.abcd if hasattr(obj, "abcd") else (obj.A, obj.B, obj.C, obj.D)
    assert all(np.all(np.isfinite(np.asarray(M))) for M in mats)


# ------------------------------------------------------------ what fuzz/wave2.py found
def test_a_truncated_npz_file_is_a_model_file_error(linear_files, tmp_path):
    """zipfile.BadZipFile escaped load_linear."""
    path = tmp_path / "ss.npz"
    path.write_bytes(linear_files["ss.npz"].read_bytes()[:100])
    with pytest.raises(tl.ModelFileError, match=r"ss\.npz: not a titop_lpv linear model"):
        tl.load_linear(path)


@pytest.mark.parametrize("record", ["3.5", "true", "[1, 2]"])
def test_a_json_record_that_is_not_a_table(tmp_path, record):
    """An AttributeError ('float' object has no attribute 'get') escaped load_linear."""
    path = tmp_path / "m.json"
    path.write_text(record)
    with pytest.raises(tl.ModelFileError, match="not a table"):
        tl.load_linear(path)


def test_a_linear_model_with_nan_matrices_is_refused(linear_files, tmp_path):
    """A NaN written into B loaded silently as a NaN StateSpace."""
    with np.load(linear_files["ss.npz"]) as f:
        d = {k: f[k] for k in f.files}
    d["B"] = np.full(d["B"].shape, math.nan)
    np.savez(tmp_path / "ss.npz", **d)
    with pytest.raises(tl.ModelFileError, match=r"the matrix B of .* holds NaN"):
        tl.load_linear(tmp_path / "ss.npz")


@pytest.mark.parametrize("path", [None, 5, b"m.json"])
def test_save_model_to_a_path_that_is_not_a_path(path):
    """Path(None) raised a raw TypeError."""
    model = tl.load_model(str(Path(__file__).resolve().parents[1] / "examples" / "four_bar.toml"))
    with pytest.raises(tl.ArgumentTypeError, match=r"path must be a str or a pathlib\.Path"):
        tl.save_model(model, path)


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"free": np.array("cart.q")}, r"free must be a list of names, got array"),
    ({"free": None}, "free must be a list of names, got None"),
    ({"params": "m"}, r"params must be a dict name -> value, got 'm'"),
    ({"fixed": [1.0]}, r"fixed must be a dict name -> value"),
    ({"scheduling": 3}, r"scheduling must be a dict name -> value"),
    ({"tol": "a"}, "tol must be a real number, got 'a'"),
    ({"uncertain": 5}, "uncertain must be a list of names, got 5"),
    ({"uncertain": "k"}, "uncertain must be a list of names, not the single string 'k'"),
])
def test_linearize_uncertain_argument_types(kwargs, message):
    """Raw TypeError ('iteration over a 0-d array'), AttributeError ('str' object has no
    attribute 'items') and ValueError (float('a')) escaped linearize_uncertain."""
    s = tl.System("msd", gravity=[0.0, 0.0, 0.0])
    s.parameter("k", 40.0)
    s.body("cart", tl.Prismatic(axis=[1, 0, 0], stiffness="k", actuated=True), mass=2.0)
    kw = {"free": ["cart.q"], "uncertain": {"k": (30.0, 50.0)}, **kwargs}
    with pytest.raises(tl.ArgumentTypeError, match=message):
        tl.linearize_uncertain(s.compile(), **kw)
