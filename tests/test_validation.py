"""Tests of model validation: every bad description raises the documented titop_lpv error.

What is checked against what
----------------------------
Each invalid description (made by one edit of a valid three-body model) is checked against
the contract of docs/design.md §4 and ``titop_lpv.exceptions``: loading raises
:class:`titop_lpv.ModelError` (or :class:`~titop_lpv.ModelFileError` for unreadable files),
never a bare ``KeyError``/``TypeError``; the problem line names the offending body, field,
parameter or key; and every problem of a description is reported in the same error
(``err.problems``). Legal but unphysical inertias (triangle inequality) give a
:class:`titop_lpv.TitopWarning`, not an error. Zero apparent joint inertia ``J_r`` (eq. 20)
is rejected naming the body.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable

import numpy as np
import pytest

import titop_lpv as tl

NAN, INF = float("nan"), float("inf")


# --------------------------------------------------------------------------------------------
# a valid reference model and helpers
# --------------------------------------------------------------------------------------------
def valid() -> dict:
    """Free base, revolute arm, prismatic bob: every inertia physical (no warning)."""
    return {
        "name": "chain",
        "gravity": [0.0, -9.81, 0.0],
        "euler": "321",
        "parameters": {
            "L": {"value": 1.0, "min": 0.5, "max": 2.0, "unit": "m"},
            "m": 2.0,
        },
        "bodies": [
            {
                "name": "base",
                "joint": {"type": "free", "position0": [0.0, 1.0, 0.0]},
                "mass": 5.0,
                "inertia": [[1.0, 0.0, 0.0], [0.0, 1.5, 0.0], [0.0, 0.0, 2.0]],
                "ports": {"hinge": [0.0, -0.5, 0.0]},
            },
            {
                "name": "arm",
                "parent": "base.hinge",
                "joint": {"type": "revolute", "axis": [0.0, 0.0, 1.0], "damping": 0.1},
                "mass": "m",
                "com": [0.0, -0.5, 0.0],
                "ports": {"tip": [0.0, -1.0, 0.0]},
            },
            {
                "name": "bob",
                "parent": "arm.tip",
                "joint": {"type": "prismatic", "axis": [1.0, 0.0, 0.0], "stiffness": 10.0},
                "mass": 1.0,
                "inertia": [[0.1, 0.0, 0.0], [0.0, 0.1, 0.0], [0.0, 0.0, 0.1]],
            },
        ],
        "loads": [{"type": "force", "body": "bob", "point": "origin", "force": [0.0, 1.0, 0.0]}],
    }


def body(d: dict, name: str) -> dict:
    return next(b for b in d["bodies"] if b["name"] == name)


def load_error(d: dict, exc: type[Exception] = tl.ModelError) -> Exception:
    """Load ``d`` and return the raised error; fail on a non-titop error or no error."""
    with pytest.raises(exc) as info:
        tl.load_model(d)
    return info.value


def assert_names(err: Exception, *words: str) -> None:
    """Some problem line (and the message) contains every word."""
    problems = getattr(err, "problems", [str(err)])
    assert any(all(w in p for w in words) for p in problems), (words, problems)
    assert all(w in str(err) for w in words), (words, str(err))


@pytest.mark.filterwarnings("error::titop_lpv.TitopWarning")
def test_reference_model_is_valid():
    m = tl.load_model(valid())
    assert m.body_names == ("base", "arm", "bob")
    assert m.state_names[12:] == ("arm_q", "arm_qd", "bob_q", "bob_qd")
    assert m.param_names == ("L", "m")
    assert np.all(np.isfinite(m.dynamics(0.0, m.default_state())))


def test_exception_hierarchy():
    assert issubclass(tl.ModelError, ValueError) and issubclass(tl.ModelError, tl.TitopError)
    assert issubclass(tl.ModelFileError, tl.ModelError)
    assert issubclass(tl.UnknownNameError, KeyError)
    assert issubclass(tl.ShapeError, ValueError)


# --------------------------------------------------------------------------------------------
# one bad edit each: (edit, words that must appear in one problem line)
# --------------------------------------------------------------------------------------------
def _set(path: Callable[[dict], dict], key, value) -> Callable[[dict], None]:
    return lambda d: path(d).__setitem__(key, value)


def _pop(path: Callable[[dict], dict], key) -> Callable[[dict], None]:
    return lambda d: path(d).pop(key)


def _append(key: str, item: dict) -> Callable[[dict], None]:
    return lambda d: d.setdefault(key, []).append(item)


TOP = lambda d: d  # noqa: E731
BASE = lambda d: body(d, "base")  # noqa: E731
ARM = lambda d: body(d, "arm")  # noqa: E731
BOB = lambda d: body(d, "bob")  # noqa: E731
ARM_JOINT = lambda d: body(d, "arm")["joint"]  # noqa: E731
BOB_JOINT = lambda d: body(d, "bob")["joint"]  # noqa: E731
BASE_JOINT = lambda d: body(d, "base")["joint"]  # noqa: E731


def _cycle(d: dict) -> None:
    d["bodies"] += [
        {"name": "ring_a", "parent": "ring_b", "joint": {"type": "revolute"}, "mass": 1.0,
         "com": [1.0, 0.0, 0.0]},
        {"name": "ring_b", "parent": "ring_a", "joint": {"type": "revolute"}, "mass": 1.0,
         "com": [1.0, 0.0, 0.0]},
    ]


def _no_root(d: dict) -> None:
    b = body(d, "base")
    b["parent"] = "bob"
    b["joint"] = {"type": "revolute"}


BAD = {
    "unknown parent body": (_set(ARM, "parent", "ghost.hinge"), ("'arm'", "'ghost'")),
    "unknown parent port": (_set(ARM, "parent", "base.elbow"), ("'arm'", "'elbow'")),
    "cycle": (_cycle, ("cycle", "ring_a", "ring_b")),
    "two roots": (_pop(BOB, "parent"), ("root", "'base'", "'bob'")),
    "no root": (_no_root, ("no root",)),
    "missing mass": (_pop(BOB, "mass"), ("'bob'", "mass")),
    "negative mass": (_set(BOB, "mass", -1.0), ("'bob'", "mass", "-1")),
    "non-symmetric inertia": (
        _set(BASE, "inertia", [[1.0, 0.2, 0.0], [0.0, 1.5, 0.0], [0.0, 0.0, 2.0]]),
        ("'base'", "inertia", "symmetric"),
    ),
    "indefinite inertia": (
        _set(BASE, "inertia", [[1.0, 0.0, 0.0], [0.0, -0.5, 0.0], [0.0, 0.0, 2.0]]),
        ("'base'", "inertia", "positive"),
    ),
    "indefinite symmetric inertia with positive diagonal": (
        _set(BOB, "inertia", [[1.0, 2.0, 0.0], [2.0, 1.0, 0.0], [0.0, 0.0, 1.0]]),
        ("'bob'", "inertia"),
    ),
    "zero-length axis": (_set(ARM_JOINT, "axis", [0.0, 0.0, 0.0]), ("'arm'", "axis")),
    "non-orthonormal rotation": (
        _set(ARM_JOINT, "rotation", [[1.0, 0.0, 0.0], [0.0, 1.0, 0.1], [0.0, 0.0, 1.0]]),
        ("'arm'", "rotation"),
    ),
    "scaled rotation": (
        _set(BOB_JOINT, "rotation", (2.0 * np.eye(3)).tolist()), ("'bob'", "rotation"),
    ),
    "reflection": (
        _set(ARM_JOINT, "rotation", [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, -1.0]]),
        ("'arm'", "rotation", "det"),
    ),
    "com with 2 entries": (_set(ARM, "com", [0.0, -0.5]), ("'arm'", "com")),
    "port with 4 entries": (
        _set(ARM, "ports", {"tip": [0.0, -1.0, 0.0, 0.0]}), ("'arm'", "'tip'"),
    ),
    "inertia 2x2": (_set(BOB, "inertia", [[0.1, 0.0], [0.0, 0.1]]), ("'bob'", "inertia")),
    "gravity with 2 entries": (_set(TOP, "gravity", [0.0, -9.81]), ("gravity",)),
    "euler0 with 2 entries": (_set(BASE_JOINT, "euler0", [0.0, 0.0]), ("'base'", "euler0")),
    "unknown parameter in mass": (_set(BOB, "mass", "m_bob"), ("'bob'", "mass", "'m_bob'")),
    "unknown parameter in a vector": (
        _set(ARM, "com", [0.0, "Lc", 0.0]), ("'arm'", "com", "'Lc'"),
    ),
    "unknown parameter in a joint": (
        _set(BOB_JOINT, "stiffness", "kb"), ("'bob'", "stiffness", "'kb'"),
    ),
    "unknown top-level key": (_set(TOP, "colour", "red"), ("top level", "'colour'")),
    "unknown body key": (_set(ARM, "length", 1.0), ("'arm'", "'length'")),
    "unknown joint key": (_set(ARM_JOINT, "friction", 0.1), ("'arm'", "'friction'")),
    "key of another joint type": (_set(BASE_JOINT, "axis", [0, 0, 1]), ("'base'", "'axis'")),
    "unknown load key": (
        lambda d: d["loads"][0].__setitem__("torque", [1.0, 0.0, 0.0]), ("loads[0]", "'torque'"),
    ),
    "unknown parameter key": (
        lambda d: d["parameters"]["L"].__setitem__("nominal", 1.0), ("'L'", "'nominal'"),
    ),
    "unknown input key": (_append("inputs", {"body": "bob", "gain": 2.0}), ("'gain'",)),
    "unknown output key": (
        _append("outputs", {"type": "q", "body": "arm", "noise": 0.1}), ("'noise'",),
    ),
    "NaN mass": (_set(BOB, "mass", NAN), ("'bob'", "mass", "nan")),
    "inf in com": (_set(ARM, "com", [0.0, -INF, 0.0]), ("'arm'", "com", "inf")),
    "NaN in inertia": (
        _set(BOB, "inertia", [[0.1, 0.0, 0.0], [0.0, NAN, 0.0], [0.0, 0.0, 0.1]]),
        ("'bob'", "inertia", "nan"),
    ),
    "inf in a port": (_set(BASE, "ports", {"hinge": [INF, 0.0, 0.0]}), ("'base'", "hinge")),
    "NaN stiffness": (_set(BOB_JOINT, "stiffness", NAN), ("'bob'", "stiffness")),
    "NaN parameter value": (
        lambda d: d["parameters"].__setitem__("m", NAN), ("'m'", "nan"),
    ),
    "inf gravity": (_set(TOP, "gravity", [0.0, -INF, 0.0]), ("gravity", "inf")),
    "free joint on a non-root body": (_set(ARM, "joint", {"type": "free"}), ("'arm'", "free")),
    "unknown joint type": (_set(ARM, "joint", {"type": "ball"}), ("'arm'", "'ball'")),
    "missing joint type": (_set(ARM, "joint", {"axis": [0, 0, 1]}), ("'arm'", "joint")),
    "unknown load type": (_append("loads", {"type": "drag", "body": "bob"}), ("'drag'",)),
    "load on an unknown body": (
        _append("loads", {"type": "torque", "body": "wing", "torque": [0.0, 0.0, 1.0]}),
        ("'wing'",),
    ),
    "load at an unknown point": (
        _append("loads", {"type": "buoyancy", "body": "base", "point": "top"}),
        ("'base'", "'top'"),
    ),
    "input on an unknown body": (_append("inputs", {"body": "wing"}), ("'wing'",)),
    "input at an unknown point": (
        _append("inputs", {"body": "arm", "point": "elbow"}), ("'arm'", "'elbow'"),
    ),
    "output on an unknown body": (
        _append("outputs", {"type": "position", "body": "wing"}), ("'wing'",),
    ),
    "output at an unknown point": (
        _append("outputs", {"type": "velocity", "body": "arm", "point": "elbow"}),
        ("'arm'", "'elbow'"),
    ),
    "unknown output type": (_append("outputs", {"type": "jerk", "body": "arm"}), ("'jerk'",)),
    "output q of a free body": (
        _append("outputs", {"type": "q", "body": "base"}), ("'base'", "free"),
    ),
    "output qdd of a free body": (
        _append("outputs", {"type": "qdd", "body": "base"}), ("'base'",),
    ),
    "unknown frame": (
        _append("outputs", {"type": "velocity", "body": "arm", "frame": "world"}),
        ("'world'",),
    ),
    "invalid euler sequence": (_set(TOP, "euler", "322"), ("euler", "'322'")),
    "euler sequence as a number": (_set(TOP, "euler", 321), ("euler", "321")),
    "duplicate body names": (
        lambda d: d["bodies"].append(copy.deepcopy(body(d, "bob"))), ("'bob'", "twice"),
    ),
    "body name not an identifier": (
        lambda d: (body(d, "bob").__setitem__("name", "bob 2")), ("'bob 2'",),
    ),
    "reserved port name": (_set(ARM, "ports", {"com": [0.0, 0.0, 0.0]}), ("'arm'", "'com'")),
    "parameter value above max": (
        lambda d: d["parameters"]["L"].__setitem__("value", 3.0), ("'L'", "3"),
    ),
    "parameter value below min": (
        lambda d: d["parameters"]["L"].__setitem__("value", 0.1), ("'L'", "0.1"),
    ),
    "parameter min above max": (
        lambda d: d["parameters"]["L"].__setitem__("min", 5.0), ("'L'", "min"),
    ),
    "parameter without value": (
        lambda d: d["parameters"].__setitem__("c", {"unit": "m"}), ("'c'", "value"),
    ),
    "parameter value naming another parameter": (
        lambda d: d["parameters"].__setitem__("c", "L"), ("'c'",),
    ),
    "boolean mass": (_set(BOB, "mass", True), ("'bob'", "mass")),
    "actuated not a boolean": (_set(ARM_JOINT, "actuated", "yes"), ("'arm'", "actuated")),
    "bodies not an array of tables": (_set(TOP, "bodies", {"base": {}}), ("bodies",)),
}


@pytest.mark.parametrize("case", list(BAD), ids=list(BAD))
def test_bad_description_names_the_culprit(case):
    edit, words = BAD[case]
    d = valid()
    edit(d)
    err = load_error(d)
    assert_names(err, *words)
    assert err.problems and all(isinstance(p, str) for p in err.problems)


# Leaves of the wrong Python type (as a TOML/JSON/YAML file can carry them) must give a
# ModelError, not a TypeError/OverflowError from inside the validator.
ODD_TYPES = {
    "joint type is an array": (_set(ARM_JOINT, "type", ["revolute"]), ("'arm'",)),
    "load type is an array": (
        lambda d: d["loads"][0].__setitem__("type", ["force"]), ("loads[0]",),
    ),
    "body name is an array": (_set(BOB, "name", ["bob"]), ("bob",)),
    "parent is an array": (_set(ARM, "parent", ["base"]), ("'arm'", "parent")),
    "mass is a table": (_set(BOB, "mass", {"value": 1.0}), ("'bob'", "mass")),
    "ports is an array": (_set(BOB, "ports", [[0, 0, 0]]), ("'bob'", "ports")),
    "output body is an array": (
        _append("outputs", {"type": "q", "body": ["arm"]}), ("outputs[0]",),
    ),
    "huge integer mass": (_set(BOB, "mass", 10**400), ("'bob'", "mass")),
}


@pytest.mark.parametrize("case", list(ODD_TYPES), ids=list(ODD_TYPES))
def test_leaves_of_the_wrong_type_give_model_errors(case):
    edit, words = ODD_TYPES[case]
    d = valid()
    edit(d)
    err = load_error(d)
    assert_names(err, *words)


def test_unknown_parent_is_not_reported_as_a_cycle():
    """A body below an unknown parent is unreachable, not on a cycle: no false 'cycle' line."""
    d = valid()
    body(d, "arm")["parent"] = "ghost"
    err = load_error(d)
    assert_names(err, "'arm'", "'ghost'")
    assert not any("cycle" in p for p in err.problems), err.problems


# --------------------------------------------------------------------------------------------
# every problem in one error
# --------------------------------------------------------------------------------------------
def test_all_problems_are_reported_at_once():
    d = valid()
    body(d, "bob").pop("mass")                                    # missing mass
    body(d, "arm")["joint"]["axis"] = [0.0, 0.0, 0.0]             # zero-length axis
    d["loads"].append({"type": "force", "body": "wing", "force": [1.0, 0.0, 0.0]})  # bad body
    d["parameters"]["L"]["colour"] = "red"                        # unknown key
    body(d, "base")["inertia"][0][1] = 0.3                        # non-symmetric inertia
    err = load_error(d)
    assert len(err.problems) >= 5, err.problems
    assert_names(err, "'bob'", "mass")
    assert_names(err, "'arm'", "axis")
    assert_names(err, "'wing'")
    assert_names(err, "'L'", "'colour'")
    assert_names(err, "'base'", "inertia")
    assert f"{len(err.problems)} problems" in str(err)


def test_three_problems_in_three_bodies():
    d = valid()
    body(d, "base")["mass"] = -2.0
    body(d, "arm")["com"] = [0.0, 1.0]
    body(d, "bob")["joint"]["rotation"] = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, -1.0]]
    err = load_error(d)
    assert len(err.problems) >= 3, err.problems
    assert_names(err, "'base'", "mass")
    assert_names(err, "'arm'", "com")
    assert_names(err, "'bob'", "rotation")


def test_signal_collision_is_reported_with_the_other_problems():
    d = valid()
    d["outputs"] = [{"type": "q", "body": "arm"},
                    {"type": "qd", "body": "bob", "name": "arm_q"}]   # collides with arm_q
    body(d, "bob")["mass"] = -1.0
    err = load_error(d)
    assert_names(err, "'bob'", "mass")
    assert_names(err, "arm_q")


# --------------------------------------------------------------------------------------------
# colliding signal names
# --------------------------------------------------------------------------------------------
def test_output_named_like_another_output():
    d = valid()
    d["outputs"] = [{"type": "q", "body": "arm"},
                    {"type": "qd", "body": "bob", "name": "arm_q"}]
    err = load_error(d)
    assert_names(err, "arm_q")


def test_output_prefix_colliding_with_a_generated_name():
    d = valid()
    d["outputs"] = [{"type": "position", "body": "arm", "point": "tip"},     # arm_tip_x ...
                    {"type": "position", "body": "bob", "name": "arm_tip"}]  # arm_tip_x ...
    err = load_error(d)
    assert_names(err, "arm_tip_x")


def test_wrench_inputs_colliding_through_underscores():
    """Body 'a' port 'b_c' and body 'a_b' port 'c' both give the inputs 'a_b_c_Fx' ..."""
    d = {
        "name": "underscores",
        "bodies": [
            {"name": "a", "joint": {"type": "revolute"}, "mass": 1.0, "com": [1.0, 0.0, 0.0],
             "ports": {"b_c": [1.0, 0.0, 0.0]}},
            {"name": "a_b", "parent": "a", "joint": {"type": "revolute"}, "mass": 1.0,
             "com": [1.0, 0.0, 0.0], "ports": {"c": [1.0, 0.0, 0.0]}},
        ],
        "inputs": [{"body": "a", "point": "b_c"}, {"body": "a_b", "point": "c"}],
    }
    err = load_error(d)
    assert_names(err, "a_b_c_Fx")
    d["inputs"] = d["inputs"][:1]
    assert tl.load_model(d).input_names[0] == "a_b_c_Fx"


def test_two_wrench_inputs_at_the_same_point():
    d = valid()
    d["inputs"] = [{"body": "bob"}, {"body": "bob", "frame": "inertial"}]
    err = load_error(d)
    assert_names(err, "bob_Fx")


# --------------------------------------------------------------------------------------------
# zero apparent joint inertia J_r (eq. 20)
# --------------------------------------------------------------------------------------------
def test_massless_leaf_on_a_revolute_joint():
    d = valid()
    d["bodies"].append({"name": "ghost", "parent": "bob", "joint": {"type": "revolute"},
                        "mass": 0.0})
    err = load_error(d)
    assert_names(err, "'ghost'")


def test_point_mass_on_its_own_revolute_axis():
    d = valid()
    d["bodies"].append({"name": "bead", "parent": "bob",
                        "joint": {"type": "revolute", "axis": [1.0, 0.0, 0.0]},
                        "mass": 1.0, "com": [2.0, 0.0, 0.0]})   # on the axis: J_r = 0
    err = load_error(d)
    assert_names(err, "'bead'")


def test_massless_body_whose_child_turns_about_the_same_axis():
    """g1 is massless; its only child g2 turns freely about a parallel axis through the same
    point, so rotating g1 moves nothing: J_r(g1) = 0, while J_r(g2) = m d² > 0."""
    d = valid()
    d["bodies"] += [
        {"name": "g1", "parent": "bob", "joint": {"type": "revolute"}, "mass": 0.0},
        {"name": "g2", "parent": "g1", "joint": {"type": "revolute", "axis": [0.0, 0.0, 2.0]},
         "mass": 1.0, "com": [0.5, 0.0, 0.0]},
    ]
    err = load_error(d)
    assert_names(err, "'g1'")
    assert not any("'g2'" in p for p in err.problems), err.problems


def test_massless_body_with_a_crossed_child_is_valid():
    """Control case: with the child's axis perpendicular, g1 drags the child's mass around."""
    d = valid()
    d["bodies"] += [
        {"name": "g1", "parent": "bob", "joint": {"type": "revolute"}, "mass": 0.0},
        {"name": "g2", "parent": "g1", "joint": {"type": "revolute", "axis": [1.0, 0.0, 0.0]},
         "mass": 1.0, "com": [0.0, 0.5, 0.0]},
    ]
    m = tl.load_model(d)
    assert np.all(np.isfinite(m.dynamics(0.0, m.default_state())))


def test_massless_prismatic_leaf():
    d = valid()
    d["bodies"].append({"name": "ghost", "parent": "arm", "joint": {"type": "prismatic"},
                        "mass": 0.0, "inertia": np.eye(3).tolist()})  # inertia alone: no mass
    err = load_error(d)
    assert_names(err, "'ghost'")


# --------------------------------------------------------------------------------------------
# inertia triangle inequality: a warning, not an error
# --------------------------------------------------------------------------------------------
def test_triangle_inequality_violation_warns_naming_the_body():
    d = valid()
    body(d, "bob")["inertia"] = [[0.1, 0.0, 0.0], [0.0, 0.1, 0.0], [0.0, 0.0, 0.3]]
    with pytest.warns(tl.TitopWarning, match="'bob'.*triangle"):
        m = tl.load_model(d)
    assert np.all(np.isfinite(m.dynamics(0.0, m.default_state())))


# --------------------------------------------------------------------------------------------
# rounding noise in an inertia (URDF exports): accepted to a few ulps of m |PB|², no further
# --------------------------------------------------------------------------------------------
EPS = np.finfo(float).eps
NOISE = -5.42101e-20  # iCub's r_hip_2 (icub_reduced.urdf): half an ulp of m |PB|² = 4.88e-4


def _noisy_bob(inertia: list, com: list, mass: float = 0.526) -> dict:
    d = valid()
    body(d, "bob").update({"mass": mass, "com": com, "inertia": inertia})
    return d


@pytest.mark.filterwarnings("error::titop_lpv.TitopWarning")
def test_rounding_noise_of_the_point_mass_term_is_accepted():
    """iCub's inertia ``diag(-5.42e-20, -5.42e-20, 0)`` with ``m |PB|² = 4.9e-4 kg m²``
    loads (and does not warn about the triangle inequality); so does a noisy off-diagonal."""
    com = [0.0, 0.0, 0.03045]
    tl.load_model(_noisy_bob([[NOISE, 0.0, 0.0], [0.0, NOISE, 0.0], [0.0, 0.0, 0.0]], com))
    head = [[0.0, 0.0, 2.40741e-35], [0.0, 0.0, 0.0], [2.40741e-35, 0.0, 0.0]]  # iCub's head
    tl.load_model(_noisy_bob(head, [0.0185, -0.1108, 0.0], mass=1.33687))


def test_negative_inertia_beyond_the_rounding_tolerance_is_refused():
    """The tolerance is ``4 ε m |PB|²`` (plus 1e-9 of the matrix's own largest entry): five
    ulps below zero, the same noise with the centre of mass at the joint point, and a real
    negative moment are refused naming the body and the field."""
    com = [0.0, 0.0, 0.03045]
    point = 0.526 * 0.03045**2
    for inertia, c in (
        ([[-5 * EPS * point, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]], com),
        ([[NOISE, 0.0, 0.0], [0.0, NOISE, 0.0], [0.0, 0.0, 0.0]], [0.0, 0.0, 0.0]),
        ([[-1e-6, 0.0, 0.0], [0.0, 1e-4, 0.0], [0.0, 0.0, 1e-4]], com),
    ):
        err = load_error(_noisy_bob(inertia, c))
        assert_names(err, "'bob'", "inertia", "positive semi-definite")
    with pytest.warns(tl.TitopWarning, match="'bob'.*triangle"):  # 5 ulps over the sum
        tl.load_model(_noisy_bob([[0.0, 0.0, 0.0], [0.0, 0.0, 0.0],
                                  [0.0, 0.0, 5 * EPS * point]], com))


def test_runtime_inertia_check_uses_the_same_tolerance():
    """A parameter-valued inertia is checked at run time to the same tolerance."""
    d = _noisy_bob([["Ib", 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]], [0.0, 0.0, 0.03045])
    d["parameters"]["Ib"] = 0.0
    model = tl.load_model(d)
    x = model.default_state()
    assert np.all(np.isfinite(model.dynamics(0.0, x, None, {"Ib": NOISE})))
    with pytest.raises(tl.ParameterError, match=r"'bob'.*positive semi-definite"):
        model.dynamics(0.0, x, None, {"Ib": -1e-12})


@pytest.mark.filterwarnings("error::titop_lpv.TitopWarning")
def test_thin_disc_inertia_is_on_the_boundary_and_does_not_warn():
    d = valid()
    body(d, "bob")["inertia"] = [[0.1, 0.0, 0.0], [0.0, 0.1, 0.0], [0.0, 0.0, 0.2]]  # I3 = I1+I2
    tl.load_model(d)


# --------------------------------------------------------------------------------------------
# model files
# --------------------------------------------------------------------------------------------
def test_missing_file(tmp_path):
    path = tmp_path / "nowhere.toml"
    with pytest.raises(tl.ModelFileError, match=r"nowhere\.toml"):
        tl.load_model(path)
    with pytest.raises(tl.ModelError):
        tl.load_model(str(path))


@pytest.mark.parametrize(
    ("filename", "text"),
    [
        ("broken.toml", 'name = "chain"\n[[bodies]\nname = "a"\n'),
        ("broken.json", '{"name": "chain", "bodies": [}'),
        ("broken.yaml", "name: chain\nbodies: [1, 2\n"),
    ],
)
def test_malformed_file_names_the_file(tmp_path, filename, text):
    path = tmp_path / filename
    path.write_text(text, encoding="utf-8")
    with pytest.raises(tl.ModelFileError, match=filename.replace(".", r"\.")):
        tl.load_model(path)


def test_unknown_extension(tmp_path):
    path = tmp_path / "chain.ini"
    path.write_text(json.dumps(valid()), encoding="utf-8")
    with pytest.raises(tl.ModelFileError, match=r"\.ini"):
        tl.load_model(path)


def test_file_that_is_not_utf8(tmp_path):
    path = tmp_path / "latin1.toml"
    path.write_bytes('name = "pendule à ressort"\n'.encode("latin-1"))
    with pytest.raises(tl.ModelFileError, match=r"latin1\.toml"):
        tl.load_model(path)


def test_problems_in_a_valid_file_are_model_errors(tmp_path):
    d = valid()
    body(d, "arm")["parent"] = "ghost"
    path = tmp_path / "chain.json"
    path.write_text(json.dumps(d), encoding="utf-8")
    with pytest.raises(tl.ModelError) as info:
        tl.load_model(path)
    assert not isinstance(info.value, tl.ModelFileError)
    assert_names(info.value, "'arm'", "'ghost'")


def test_file_whose_top_level_is_not_a_table(tmp_path):
    path = tmp_path / "list.yaml"
    path.write_text("- 1\n- 2\n", encoding="utf-8")
    with pytest.raises(tl.ModelError, match="mapping"):
        tl.load_model(path)


def test_array_valued_joint_type_in_a_toml_file(tmp_path):
    path = tmp_path / "array_type.toml"
    path.write_text(
        'name = "x"\n[[bodies]]\nname = "a"\njoint = { type = ["revolute"] }\nmass = 1.0\n'
        'com = [1.0, 0.0, 0.0]\n',
        encoding="utf-8",
    )
    with pytest.raises(tl.ModelError, match="'a'"):
        tl.load_model(path)


# --------------------------------------------------------------------------------------------
# parameter values given at run time are checked like the file's defaults
# --------------------------------------------------------------------------------------------
def _parametric(**defaults: float) -> tl.Model:
    """The valid chain with its inertia, joint rotation, axis and a mass made parameters."""
    d = valid()
    for name, value in defaults.items():
        d["parameters"][name]["value"] = value
    d["parameters"].update({"Ixx": 1.0, "r00": 1.0, "ax": 1.0, "mb": 5.0})
    base = d["bodies"][0]
    base["mass"] = "mb"
    base["inertia"][0][0] = "Ixx"
    arm = d["bodies"][1]["joint"]
    arm["rotation"] = [["r00", 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
    arm["axis"] = ["ax", 0.0, 1.0]
    d["bodies"][1]["ports"]["tip"] = ["L", -1.0, 0.0]  # the arm's length parameter is used
    return tl.load_model(d)


RUNTIME_BAD = {
    "above max": ({"L": 2.5}, ["'L'", "2.5", "[0.5, 2]"]),
    "below min": ({"L": 0.1}, ["'L'", "0.1"]),
    "not finite": ({"m": NAN}, ["'m'", "finite"]),
    "infinite": ({"m": INF}, ["'m'", "finite"]),
    "negative mass": ({"mb": -1.0}, ["'base'", "mass"]),
    "indefinite inertia": ({"Ixx": -5.0}, ["'base'", "positive semi-definite"]),
    "rotation not orthonormal": ({"r00": 0.5}, ["'arm'", "rotation"]),
    "improper rotation": ({"r00": -1.0}, ["'arm'", "rotation"]),
}


@pytest.mark.parametrize("case", list(RUNTIME_BAD))
@pytest.mark.parametrize("call", ["dynamics", "outputs", "energy", "simulate", "batch"])
def test_runtime_parameters_are_checked_naming_the_culprit(case: str, call: str) -> None:
    model = _parametric()
    params, expected = RUNTIME_BAD[case]
    x = model.default_state()
    calls: dict[str, Callable[[], object]] = {
        "dynamics": lambda: model.dynamics(0.0, x, None, params),
        "outputs": lambda: model.outputs(0.0, x, None, params),
        "energy": lambda: tl.energy(model, x, params),
        "simulate": lambda: tl.simulate(model, (0.0, 0.1), params=params),
        # a batch of parameter vectors with one bad row among good ones
        "batch": lambda: model.dynamics(0.0, np.stack([x, x, x]), None, {
            **{k: np.array([model.default_params()[k]] * 3) for k in params},
            **{k: np.array([model.default_params()[k], v, model.default_params()[k]])
               for k, v in params.items()}}),
    }
    with pytest.raises(tl.ParameterError) as err:
        calls[call]()
    assert isinstance(err.value, tl.ModelError) and isinstance(err.value, ValueError)
    assert len(err.value.problems) == 1, err.value.problems
    for word in expected:
        assert word in str(err.value), (word, str(err.value))


def test_zero_axis_at_run_time_names_the_body() -> None:
    d = valid()
    d["parameters"]["az"] = 1.0
    d["bodies"][1]["joint"]["axis"] = [0.0, 0.0, "az"]
    model = tl.load_model(d)
    with pytest.raises(tl.ParameterError, match=r"'arm'.*axis"):
        model.dynamics(0.0, model.default_state(), None, {"az": 0.0})


def test_every_runtime_problem_is_reported_at_once() -> None:
    model = _parametric()
    with pytest.raises(tl.ParameterError) as err:
        model.dynamics(0.0, model.default_state(), None, {"mb": -1.0, "Ixx": -5.0,
                                                           "r00": 0.5})
    assert len(err.value.problems) == 3
    assert sum("'base'" in p for p in err.value.problems) == 2


def test_valid_runtime_parameters_evaluate_and_agree_with_a_rebuilt_model() -> None:
    # a value inside the range gives the same dynamics as a model whose default it is
    model = _parametric()
    rebuilt = _parametric(L=1.7)
    x = model.default_state() + 0.1
    assert np.abs(model.dynamics(0.0, x) - rebuilt.dynamics(0.0, x)).max() > 1e-3  # L matters
    np.testing.assert_allclose(model.dynamics(0.0, x, None, {"L": 1.7}),
                               rebuilt.dynamics(0.0, x), rtol=1e-13, atol=1e-13)


def test_complex_step_parameters_are_checked_on_their_real_part() -> None:
    # the linearisation pushes complex parameters: a tiny imaginary step is legal
    model = _parametric()
    p = model.param_vector({"L": 1.2}).astype(complex)
    p[model.param_names.index("L")] += 1e-30j
    x = model.default_state() + 0.1
    xdot = model.dynamics(0.0, x, None, p)
    # the imaginary part is the derivative with respect to L: compare with central differences
    h = 1e-6
    fd = (model.dynamics(0.0, x, None, {"L": 1.2 + h})
          - model.dynamics(0.0, x, None, {"L": 1.2 - h})) / (2 * h)
    assert np.abs(fd).max() > 1e-3  # L matters
    np.testing.assert_allclose(xdot.imag / 1e-30, fd, rtol=1e-7, atol=1e-8)
    p[model.param_names.index("L")] = 2.5 + 1e-30j
    with pytest.raises(tl.ParameterError, match="'L'"):
        model.dynamics(0.0, model.default_state(), None, p)
