"""Property-based tests of model descriptions (issue 12): bad input never escapes raw.

The shipped model files (``examples/*.toml``, ``titop_lpv/data/*.toml``), read with
:func:`titop_lpv.model.files.read_description`, are mutated by hypothesis: fields replaced
by ``None``, lists, tables, strings, NaN, ±inf, ±1e200, tiny or negative numbers, integers
for names; keys renamed (to integers too) or deleted; the top level replaced by a
non-table. Property: :func:`titop_lpv.load_model` either raises a
:class:`titop_lpv.ModelError` (the family of description errors) with at least one problem
line, or returns a model whose dynamics at the default state are finite, and numpy never
warns (a ``RuntimeWarning`` is turned into an error). A per-example alarm turns a hang into
a failure.
"""

from __future__ import annotations

import copy
import json
import math
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml
from guards import hang_guard
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import titop_lpv as tl
from titop_lpv.model.files import read_description

ROOT = Path(__file__).resolve().parents[1]
SEEDS = [read_description(p) for p in sorted((ROOT / "examples").glob("*.toml"))
         + sorted((ROOT / "titop_lpv" / "data").glob("*.toml"))]
HANG_SECONDS = 60  # generous: only turns a hang into a failure

BAD_LEAVES = st.one_of(
    st.none(),
    st.just([]), st.just({}),
    st.sampled_from([math.nan, math.inf, -math.inf, 1e200, -1e200, 1e-300, -1e-300, 0, 0.0,
                     -1.0, 1, 7, 10**400, True, False, "", "x", "k", "origin", "com", "free",
                     "weld", "revolute", "prismatic", "not a name"]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.integers(min_value=-3, max_value=3),
    st.text(max_size=4),
    st.lists(st.one_of(st.none(), st.floats(allow_nan=True, allow_infinity=True),
                       st.text(max_size=2)), max_size=4),
    st.dictionaries(st.one_of(st.text(max_size=3), st.integers(0, 3)),
                    st.one_of(st.none(), st.floats(), st.text(max_size=2)), max_size=2),
    st.lists(st.lists(st.floats(allow_nan=True, allow_infinity=True), min_size=3, max_size=3),
             min_size=3, max_size=3),
)
NOT_A_TABLE = st.one_of(st.none(), st.integers(), st.floats(), st.booleans(),
                        st.lists(st.integers(), max_size=3), st.tuples(st.integers()))


def paths(node: Any, prefix: tuple = ()) -> list[tuple]:
    """Every path (keys and indices) to a value inside ``node``."""
    out: list[tuple] = []
    items = node.items() if isinstance(node, dict) else (
        enumerate(node) if isinstance(node, list) else ())
    for k, v in items:
        out.append((*prefix, k))
        out += paths(v, (*prefix, k))
    return out


def container(root: Any, path: tuple) -> Any:
    for key in path[:-1]:
        root = root[key]
    return root


@st.composite
def mutants(draw: st.DrawFn) -> Any:
    """A shipped model with 1 to 3 random mutations."""
    desc = copy.deepcopy(draw(st.sampled_from(SEEDS)))
    for _ in range(draw(st.integers(1, 3))):
        where = paths(desc)
        if not where:
            break
        path = draw(st.sampled_from(where))
        parent, key = container(desc, path), path[-1]
        action = draw(st.sampled_from(["replace", "replace", "replace", "rename", "delete",
                                       "scale"]))
        if action == "rename" and isinstance(parent, dict):
            parent[draw(st.one_of(st.integers(0, 3), st.sampled_from(["zz", "Name", ""])))] = \
                parent.pop(key)
        elif action == "delete":
            del parent[key]
        elif action == "scale" and isinstance(parent[key], (int, float)) and \
                not isinstance(parent[key], bool):
            parent[key] = parent[key] * draw(st.sampled_from([-1.0, 0.0, 1e200, 1e-300,
                                                              math.nan, math.inf]))
        else:
            parent[key] = draw(BAD_LEAVES)
    return desc


def check(desc: Any) -> str:
    """The property; returns ``"refused"`` or ``"loaded"``."""
    with hang_guard(HANG_SECONDS), warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        warnings.simplefilter("ignore", tl.TitopWarning)  # legal but unphysical inertias
        try:
            model = tl.load_model(desc)
        except tl.ModelError as err:
            assert err.problems and all(isinstance(p, str) and p for p in err.problems)
            return "refused"
        xdot = model.dynamics(0.0, model.default_state())
    assert xdot.shape == (model.n_states,)
    assert np.all(np.isfinite(xdot)), (desc, xdot)
    return "loaded"


FAST = settings(max_examples=300, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@FAST
@given(mutants())
def test_mutated_model_dicts_are_refused_or_finite(desc):
    check(desc)


@settings(max_examples=40, deadline=None, derandomize=True)
@given(NOT_A_TABLE)
def test_a_top_level_that_is_not_a_table_is_refused(top):
    assert check(top) == "refused"


@settings(max_examples=60, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                 HealthCheck.function_scoped_fixture])
@given(mutants(), st.sampled_from([".json", ".yaml"]))
def test_mutated_model_files_are_refused_or_finite(tmp_path, desc, suffix):
    """The same property through a JSON or YAML file (nulls, NaN, integer keys as written)."""
    path = tmp_path / f"model{suffix}"
    try:
        text = (json.dumps(desc, allow_nan=True) if suffix == ".json"
                else yaml.safe_dump(desc))
    except (TypeError, ValueError, OverflowError):  # not expressible in that format
        return
    path.write_text(text)
    try:
        data = read_description(path)
    except tl.ModelFileError:
        return
    check(data)


def test_the_mutation_space_reaches_both_outcomes():
    """Control: the shipped models load, and a mutation of each kind is refused."""
    assert all(check(copy.deepcopy(seed)) == "loaded" for seed in SEEDS)
    for leaf in (None, math.nan, 1e200, {"a": 1}):
        d = copy.deepcopy(SEEDS[0])
        d["bodies"][0]["mass"] = leaf
        assert check(d) == "refused"


@pytest.mark.parametrize("seed", range(len(SEEDS)))
def test_each_seed_survives_a_round_trip(seed):
    """``Model.to_dict`` of a loaded seed loads again to an equal model."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tl.TitopWarning)
        model = tl.load_model(copy.deepcopy(SEEDS[seed]))
        assert tl.load_model(model.to_dict()) == model
