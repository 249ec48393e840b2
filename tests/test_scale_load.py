"""Large generated models: loading, the compile-time reference check, identifiers."""

from __future__ import annotations

import copy
import importlib.util
from pathlib import Path

import models
import numpy as np
import pytest

import titop_lpv as tl
from titop_lpv.multibody.dynamics import forward_dynamics

_SPEC = importlib.util.spec_from_file_location(
    "branch_system", Path(__file__).parents[1] / "benchmarks" / "branch_system.py")
branch = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(branch)


@pytest.fixture(scope="module")
def big():
    return tl.load_model(branch.branch_system(2000, spin=0.01))


def test_2000_bodies_load_and_match_the_numpy_route(big):
    assert len(big.body_names) == 2000 and big.n_states == 14000
    sub1, sub2, out = branch.chain_lengths(2000)
    assert (sub1, sub2, sub1 + sub2 + out + 1) == (5, 5, 2000)
    rng = np.random.default_rng(1)
    x = big.default_state()
    x[4::7] = rng.uniform(-1, 1, 2000)  # angular velocities
    q = rng.standard_normal((2000, 4)) * [1.0, 0.1, 0.1, 0.1]
    for k in range(4):
        x[k::7] = q[:, k] / np.linalg.norm(q, axis=1)
    fast = big.dynamics(0.0, x)
    ref = forward_dynamics(big, x, backend="numpy")
    scale = np.max(np.abs(ref))
    print(f"\n2000 bodies: max |kernel - numpy| = {np.max(np.abs(fast - ref)):.2e} "
          f"(max |xdot| {scale:.2e})")
    np.testing.assert_allclose(fast, ref, rtol=0, atol=1e-9 * scale)


def test_shared_slots_keep_every_body_its_values(big):
    """Identical vectors share their slots: the description round-trips, and each body's
    initial angular velocity (distinct per body) is its own."""
    data = branch.branch_system(2000, spin=0.01)
    x0 = big.default_state()
    w0 = np.array([b["joint"]["w0"] for b in data["bodies"]])
    order = [big.body_names.index(b["name"]) for b in data["bodies"]]
    np.testing.assert_array_equal(x0.reshape(-1, 7)[order, 4:], w0)
    assert big.description["bodies"][7]["joint"]["w0"] == data["bodies"][7]["joint"]["w0"]
    assert tl.load_model(copy.deepcopy(big.description)) == big


def test_non_finite_derivative_refused_by_the_kernel_check():
    """A model past the numpy check's size: the compiled evaluation still refuses it."""
    data = branch.branch_system(400)
    for body in data["bodies"]:  # data within the limits, overflowing dynamics
        body["mass"] = 1e100
        body["inertia"] = [[1e100, 0, 0], [0, 6e99, 0], [0, 0, 5e99]]
        body["joint"]["w0"] = [1e100] * 3
    with pytest.raises(tl.ModelError, match=r"d/dt out0_w. = nan from finite state"):
        tl.load_model(data)
    for body in data["bodies"]:
        body["joint"]["w0"] = [1e60] * 3
    assert tl.load_model(data).n_states == 2800


@pytest.mark.parametrize("where", ["body", "port", "output"])
def test_identifier_with_a_trailing_newline_is_refused(where):
    data = branch.branch_system(4)
    if where == "body":
        data["bodies"][0]["name"] = "out0\n"
        data["bodies"][1]["parent"] = "out0\n.tip"
    elif where == "port":
        data["bodies"][0]["ports"]["tip\n"] = [0.0, 0.0, -1.0]
    else:
        data["outputs"] = [{"type": "q", "body": "out0", "name": "a\n"}]
    with pytest.raises(tl.ModelError, match="identifier"):
        tl.load_model(data)


def _mixed() -> dict:
    """Every joint type, parameters in numeric fields, ports, a rotation, an int and a
    bool leaf: what the bulk reading and the screen must pass through unchanged."""
    return {"name": "mixed", "gravity": [0, 0, -9.81],
            "parameters": {"m": 2.0, "L": {"value": 0.5, "unit": "m"}},
            "bodies": [
                {"name": "base", "joint": {"type": "free", "position0": [0, 0, 1]},
                 "mass": 3, "inertia": [[1, 0, 0], [0, 2, 0], [0, 0, 2.5]],
                 "ports": {"a": [0.1, 0, 0], "b": [0, "L", 0]}},
                {"name": "arm", "parent": "base.a",
                 "joint": {"type": "revolute", "axis": [0, 0, 1], "q0": 0.3, "stiffness": 1,
                           "actuated": True,
                           "rotation": [[0, -1, 0], [1, 0, 0], [0, 0, 1]]},
                 "mass": "m", "com": [0.2, 0, 0], "inertia": [[0.1, 0, 0], [0, 0.1, 0],
                                                              [0, 0, 0.1]]},
                {"name": "ball", "parent": "arm", "mass": 1.0, "com": [0, 0, -0.5],
                 "joint": {"type": "spherical", "q0": [1, 0, 0, 0], "w0": [0.1, 0, 0],
                           "damping": "m"}, "inertia": [[0.1, 0, 0], [0, 0.1, 0],
                                                        [0, 0, 0.01]]},
                {"name": "cross", "parent": "base.b", "mass": 1.0,
                 "joint": {"type": "universal", "stiffness": [1.0, 2.0], "q0": [0.1, 0.2]},
                 "inertia": [[0.1, 0, 0], [0, 0.1, 0], [0, 0, 0.1]]},
                {"name": "slide", "parent": "cross", "mass": 0.5,
                 "joint": {"type": "prismatic", "axis": [1, 0, 0], "motion": "input"}},
                {"name": "lump", "parent": "slide", "mass": 0.0, "joint": {"type": "weld"}},
            ]}


def test_bulk_reading_gives_the_records_of_the_table_by_table_reading():
    from titop_lpv.model.description import Body, bodies_from_tables

    data = _mixed()
    one_by_one = tl.System()
    for i, table in enumerate(data["bodies"]):
        one_by_one._body_from_dict(i, table)
    bulk = bodies_from_tables(data["bodies"])
    assert bulk == one_by_one.bodies and not one_by_one.problems
    for a, b in zip(bulk, one_by_one.bodies):  # same types, frozen the same way
        assert type(a) is Body and type(a.joint) is type(b.joint)
        assert repr(a) == repr(b) and hash(a.com) == hash(b.com)
    assert tl.System.from_dict(data).bodies == bulk
    # anything to report: the table-by-table reading names it
    for edit in ({"colour": "red"}, {"mass": None}, {"name": ""}, {"ports": [1, 2, 3]}):
        tables = copy.deepcopy(data["bodies"])
        tables[2].update(edit)
        assert bodies_from_tables(tables) is None
    tables = copy.deepcopy(data["bodies"])
    tables[3]["joint"]["q0"] = [0.1, None]
    assert bodies_from_tables(tables) is None


@pytest.mark.parametrize("field, value", [
    ("mass", -1.0), ("mass", 1e-200), ("mass", "nope"), ("mass", True), ("com", [0, 0]),
    ("com", [0, float("nan"), 0]), ("com", [0, 1e101, 0]), ("ports", {"com": [0, 0, 0]}),
    ("ports", {"tip": [0, 0, "x"]}), ("q0", [0, 0, 0, 0]), ("stiffness", -1.0),
    ("w0", [0, 0]), ("actuated", "yes"), ("rest", [1e-13, 0, 0, 0]),
    ("inertia", [[1, 0, 0], [0, 1, 0], [0, 0, 3]]), ("rotation", [[1, 0, 0], [0, 1, 0],
                                                                   [0, 0, -1]]),
])
def test_the_screen_hides_no_problem(monkeypatch, field, value):
    """A fault in one body of many: the same message with and without the screen."""
    import warnings

    from titop_lpv.model import validate

    data = branch.branch_system(60)
    body = data["bodies"][37]
    if field in ("q0", "stiffness", "w0", "actuated", "rest", "rotation"):
        body["joint"][field] = value
    else:
        body[field] = value

    def message() -> str:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                tl.load_model(copy.deepcopy(data))
            except tl.ModelError as err:
                return str(err) + "".join(str(w.message) for w in caught)
        return "no error" + "".join(str(w.message) for w in caught)

    screened = message()
    monkeypatch.setattr(validate, "screen_bodies", lambda bodies, *a: np.zeros(len(bodies),
                                                                                bool))
    assert "'out37'" in screened  # the body at fault named (an error, or the warning)
    assert screened == message()


def test_load_leaves_the_garbage_collector_as_it_was():
    import gc

    assert gc.isenabled()
    tl.load_model(branch.branch_system(10))
    assert gc.isenabled()
    gc.disable()
    try:
        tl.load_model(branch.branch_system(10))
        assert not gc.isenabled()
    finally:
        gc.enable()


@pytest.mark.parametrize("seed", range(4))
def test_joint_index_maps_name_the_joint_states(seed):
    """``q_index``/``qd_index`` (laid out from running state offsets when compiling) point at
    each joint's first position and velocity state, on trees mixing every joint kind."""
    from test_single_call import mixed_tree

    from titop_lpv.multibody.joints import FREE, PRISMATIC, REVOLUTE, SPHERICAL, UNIVERSAL

    first = {REVOLUTE: ("q", "qd"), PRISMATIC: ("q", "qd"), SPHERICAL: ("qw", "wx"),
             UNIVERSAL: ("q1", "qd1")}
    desc = mixed_tree(seed)
    desc["bodies"][-1]["joint"] = {"type": "weld"}
    for model in (tl.load_model(desc), tl.load_model(models.random_tree(seed, 6, "fixed"))):
        kinds = set()
        for i, body in enumerate(model.body_names):
            kind = int(model.kind[i])
            kinds.add(kind)
            if kind in first:
                assert model.state_names[model.q_index[i]] == f"{body}_{first[kind][0]}"
                assert model.state_names[model.qd_index[i]] == f"{body}_{first[kind][1]}"
            else:
                assert model.q_index[i] == -1 and model.qd_index[i] == -1
        if model.kind[0] == FREE:
            assert model.state_names[model.base_index] == f"{model.body_names[0]}_vx"
        units = model.unit_table
        assert all(name in units for name in (*model.state_names, *model.input_names,
                                              *model.output_names))
    assert len(kinds) >= 2
