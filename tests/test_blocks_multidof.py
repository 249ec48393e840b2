"""The block route on spherical, universal and driven joints, quaternion floating bases and
damping loads, against the nonlinear route.

The linear TITOP blocks of :mod:`titop_lpv.linear.blocks_multidof` assembled around the
nominal equilibrium (``G.at(values)``) against the exact (complex-step) linearisation of the
nonlinear model re-trimmed at the same parameter values (``tl.linearize``, whose spherical
joints and quaternion bases use the attitude error ``b_rx b_ry b_rz``): matrices, frequency
response at 20 frequencies and poles to 1e-9 relative (``test_linear._assert_same``), at the
nominal values, at random points of the box and at its vertices.
"""

from __future__ import annotations

import copy
import re
import warnings
from pathlib import Path

import models
import numpy as np
import pytest
from test_damping_load import _desc as damped_balloon
from test_linear import _assert_same, _two_routes

import titop_lpv as tl
from titop_lpv.linear.assemble import assemble
from titop_lpv.model.files import read_description

INERTIA = [[0.09, 0.01, 0.0], [0.01, 0.08, 0.0], [0.0, 0.0, 0.03]]


def _load(desc: dict) -> tl.Model:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tl.TitopWarning)
        return tl.load_model(copy.deepcopy(desc))


def _points(G, n: int, seed: int) -> list[dict[str, float]]:
    """``n`` random points of the box of the model parameters and its vertices (the
    equilibrium blocks ``<state>_eq``, ``<input>_eq`` are trimmed for by ``G.at``)."""
    rng = np.random.default_rng(seed)
    names = [k for k in G.params if G.kinds[k] != "equilibrium"]
    pts = [{k: float(rng.uniform(G.params[k].lo, G.params[k].hi)) for k in names}
           for _ in range(n)]
    for corner in range(2 ** len(names)):
        pts.append({k: (G.params[k].lo, G.params[k].hi)[(corner >> j) & 1]
                    for j, k in enumerate(names)})
    return pts


def _nominal(model: tl.Model, free, inputs=(), outputs=None, **trim_kwargs) -> float:
    """The nominal block assembly against linearize (every state and the model outputs);
    returns the largest relative difference of [A B; C D]."""
    op = tl.trim(model, free, **trim_kwargs)
    assert op.success, op.message
    ref = tl.linearize(model, op, inputs=list(inputs), outputs=outputs)
    G = assemble(model, op, {}, inputs=list(inputs), outputs=list(ref.output_labels))
    assert G.state_labels == list(ref.state_labels)
    nom = G.nominal()
    _assert_same(nom, ref, model.name)
    a = np.block([[nom.A, nom.B], [nom.C, nom.D]])
    b = np.block([[ref.A, ref.B], [ref.C, ref.D]])
    return float(np.max(np.abs(a - b)) / max(1.0, np.max(np.abs(b))))


# ------------------------------------------------------------------ spherical joints
def spherical_pendulum(params: bool = False) -> dict:
    """Two rods on spherical joints with springs whose rest is off the vertical and
    dampers, under gravity: a non-trivial equilibrium; a tip position and velocity sensor."""
    desc = {"name": "ball_pendulum", "gravity": [0.0, 0.0, -9.81], "bodies": [
        {"name": "rod", "joint": {"type": "spherical", "stiffness": 3.0, "damping": 0.2,
                                  "rest": [0.9, 0.3, -0.2, 0.1],
                                  "rotation": [[1, 0, 0], [0, 0.8, -0.6], [0, 0.6, 0.8]]},
         "mass": 1.3, "com": [0.1, 0.05, -0.5], "inertia": INERTIA,
         "ports": {"tip": [0.05, 0.0, -1.0]}},
        {"name": "bob", "parent": "rod.tip",
         "joint": {"type": "spherical", "stiffness": 2.0, "damping": 0.1,
                   "rest": [0.95, -0.1, 0.2, 0.0]},
         "mass": 0.7, "com": [0.0, 0.1, -0.4],
         "inertia": [[0.05, 0.0, 0.0], [0.0, 0.04, 0.0], [0.0, 0.0, 0.02]],
         "ports": {"tip": [0.0, 0.1, -0.8]}}],
        "outputs": [{"type": "attitude", "body": "rod"}, {"type": "attitude", "body": "bob"},
                    {"type": "position", "body": "bob", "point": "tip"},
                    {"type": "velocity", "body": "bob", "point": "tip", "frame": "body"},
                    {"type": "angular_velocity", "body": "bob"}]}
    if params:
        desc["parameters"] = {"I_zz": {"value": 0.03, "min": 0.02, "max": 0.05},
                              "d": {"value": 0.2, "min": 0.1, "max": 0.4},
                              "d_bob": {"value": 0.1, "min": 0.05, "max": 0.3}}
        desc["bodies"][0]["inertia"] = [[0.09, 0.01, 0.0], [0.01, 0.08, 0.0],
                                        [0.0, 0.0, "I_zz"]]
        desc["bodies"][0]["joint"]["damping"] = "d"
        desc["bodies"][1]["joint"]["damping"] = "d_bob"
    return desc


BALL_FREE = ["rod_rx", "rod_ry", "rod_rz", "bob_rx", "bob_ry", "bob_rz"]


def test_spherical_pendulum_nominal_blocks_equal_linearize() -> None:
    model = _load(spherical_pendulum())
    err = _nominal(model, BALL_FREE)
    print(f"\nspherical pendulum, nominal: [A B; C D] relative difference {err:.1e}")


def test_spherical_pendulum_inertia_and_dampers_uncertain() -> None:
    """Inertia and dampers do not move the equilibrium: exact, at random points and every
    vertex; a damper enters once."""
    model = _load(spherical_pendulum(params=True))
    outputs = list(model.output_names)
    G = tl.linearize_uncertain(model, BALL_FREE, uncertain=["I_zz", "d", "d_bob"],
                               outputs=outputs)
    assert G.kinds == {"I_zz": "exact", "d": "exact", "d_bob": "exact"}
    assert G.repeats["d"][1] == G.repeats["d_bob"][1] == 3  # d 1₃: once per axis
    _two_routes(model, G, _points(G, 4, seed=1), {"free": BALL_FREE}, [], outputs,
                "spherical pendulum")


def spherical_held() -> dict:
    """One rod on a spherical joint with a spring, held off its rest and off the vertical by
    a torque input at its origin (freed in the trim): the stiffness and the mass move the
    holding torque only."""
    desc = spherical_pendulum()
    desc["bodies"] = desc["bodies"][:1]
    desc["outputs"] = [{"type": "attitude", "body": "rod"},
                       {"type": "position", "body": "rod", "point": "tip"}]
    desc["bodies"][0]["joint"].update(q0=[0.8, -0.3, 0.4, 0.33], stiffness="k")
    desc["bodies"][0]["mass"] = "m"
    desc["parameters"] = {"k": {"value": 3.0, "min": 2.0, "max": 5.0},
                          "m": {"value": 1.3, "min": 1.0, "max": 1.6}}
    desc["inputs"] = [{"body": "rod"}]
    return desc


def test_spherical_joint_held_by_a_torque_with_stiffness_and_mass_uncertain() -> None:
    model = _load(spherical_held())
    torques = ["rod_Tx", "rod_Ty", "rod_Tz"]
    G = tl.linearize_uncertain(model, torques, uncertain=["k", "m"], inputs=torques)
    assert G.kinds["k"] == G.kinds["m"] == "covered"  # the holding torque moves with them
    _two_routes(model, G, _points(G, 4, seed=2), {"free": torques}, torques,
                list(model.output_names), "held spherical joint")
    # the same rod left free to move: its attitude moves with k, which the blocks refuse
    with pytest.raises(tl.BlockRouteError, match=r"body 'rod'.*parameter 'k'"):
        tl.linearize_uncertain(model, ["rod_rx", "rod_ry", "rod_rz"], uncertain=["k"])


def spherical_chain(n: int = 3) -> dict:
    """``n`` rods hanging vertically by spherical joints, springs at rest there: stiffness
    and masses do not move the equilibrium."""
    bodies = []
    for k in range(n):
        bodies.append({
            "name": f"link{k}", **({"parent": f"link{k - 1}.tip"} if k else {}),
            "joint": {"type": "spherical", "stiffness": "k" if k == 1 else 1.0 + k,
                      "damping": 0.05 * (k + 1)},
            "mass": "m" if k == 2 else 1.0 + 0.2 * k, "com": [0.0, 0.0, -0.5],
            "inertia": [[0.09, 0.0, 0.0], [0.0, 0.08 + 0.01 * k, 0.0], [0.0, 0.0, 0.01]],
            "ports": {"tip": [0.0, 0.0, -1.0]}})
    return {"name": "ball_chain", "gravity": [0.0, 0.0, -9.81], "bodies": bodies,
            "parameters": {"k": {"value": 2.0, "min": 1.0, "max": 4.0},
                           "m": {"value": 1.4, "min": 1.0, "max": 2.0}}}


def test_spherical_chain_stiffness_and_mass_uncertain() -> None:
    model = _load(spherical_chain())
    free = [f"link{k}_r{c}" for k in range(3) for c in "xyz"]
    err = _nominal(model, free)
    print(f"\nspherical chain, nominal: relative difference {err:.1e}")
    outputs = list(model.output_names)
    G = tl.linearize_uncertain(model, free, uncertain=["k", "m"], outputs=outputs)
    assert G.kinds == {"k": "exact", "m": "exact"}
    assert G.repeats["k"][1] == 3  # k 1₃ (the rest is the equilibrium: J_r⁻¹ = 1)
    _two_routes(model, G, _points(G, 4, seed=3), {"free": free}, [], outputs,
                "spherical chain")


# ------------------------------------------------------------------ universal joints
def gimbal(params: bool = False) -> dict:
    """A universal-joint gimbal (first axis in the parent, second in the child) carrying a
    body whose centre of mass is off both axes, springs off their rest, under gravity; a
    spherical pendulum below it."""
    desc = {"name": "gimbal", "gravity": [0.0, 0.0, -9.81], "bodies": [
        {"name": "cardan",
         "joint": {"type": "universal", "axis1": [1.0, 0.0, 0.0], "axis2": [0.0, 0.6, 0.8],
                   "rotation": [[0.8, -0.6, 0], [0.6, 0.8, 0], [0, 0, 1]],
                   "stiffness": [8.0, 5.0], "damping": [0.3, 0.2], "rest": [0.2, -0.3]},
         "mass": 2.0, "com": [0.12, -0.08, -0.3], "inertia": INERTIA,
         "ports": {"hook": [0.1, 0.0, -0.6]}},
        {"name": "load", "parent": "cardan.hook",
         "joint": {"type": "spherical", "stiffness": 1.5, "damping": 0.05,
                   "rest": [0.97, 0.1, 0.0, -0.2]},
         "mass": 0.5, "com": [0.0, 0.05, -0.3],
         "inertia": [[0.02, 0.0, 0.0], [0.0, 0.02, 0.0], [0.0, 0.0, 0.01]]}],
        "outputs": [{"type": "attitude", "body": "cardan"},
                    {"type": "position", "body": "load", "point": "com"},
                    {"type": "acceleration", "body": "load", "point": "com"}]}
    if params:
        desc["parameters"] = {"d1": {"value": 0.3, "min": 0.1, "max": 0.6},
                              "d2": {"value": 0.2, "min": 0.1, "max": 0.5},
                              "I_load": {"value": 0.01, "min": 0.005, "max": 0.02}}
        desc["bodies"][0]["joint"]["damping"] = ["d1", "d2"]
        desc["bodies"][1]["inertia"][2][2] = "I_load"
    return desc


GIMBAL_FREE = ["cardan_q1", "cardan_q2", "load_rx", "load_ry", "load_rz"]


def test_universal_gimbal_nominal_blocks_equal_linearize() -> None:
    model = _load(gimbal())
    err = _nominal(model, GIMBAL_FREE)
    print(f"\nuniversal gimbal, nominal: relative difference {err:.1e}")


def test_universal_gimbal_dampers_and_inertia_uncertain() -> None:
    model = _load(gimbal(params=True))
    outputs = list(model.output_names)
    G = tl.linearize_uncertain(model, GIMBAL_FREE, uncertain=["d1", "d2", "I_load"],
                               outputs=outputs)
    assert set(G.kinds.values()) == {"exact"}
    assert G.repeats["d1"][1] == G.repeats["d2"][1] == 1
    _two_routes(model, G, _points(G, 4, seed=4), {"free": GIMBAL_FREE}, [], outputs,
                "universal gimbal")


def test_universal_gimbal_held_by_a_torque_with_stiffness_and_mass_uncertain() -> None:
    desc = gimbal()
    desc["bodies"] = desc["bodies"][:1]
    desc["outputs"] = [{"type": "position", "body": "cardan", "point": "hook"}]
    desc["bodies"][0]["joint"].update(stiffness=["k1", "k2"], q0=[0.4, -0.5])
    desc["bodies"][0]["mass"] = "m"
    desc["parameters"] = {"k1": {"value": 8.0, "min": 6.0, "max": 10.0},
                          "k2": {"value": 5.0, "min": 4.0, "max": 7.0},
                          "m": {"value": 2.0, "min": 1.5, "max": 2.5}}
    desc["inputs"] = [{"body": "cardan"}]
    model = _load(desc)
    torques = ["cardan_Tx", "cardan_Ty", "cardan_Tz"]
    free = ["cardan_Tx", "cardan_Ty"]
    G = tl.linearize_uncertain(model, free, uncertain=["k1", "k2", "m"], inputs=torques)
    assert G.repeats["k1"][1] == G.repeats["k2"][1] == 1
    _two_routes(model, G, _points(G, 3, seed=5), {"free": free}, torques,
                list(model.output_names), "held universal joint")
    # the same joint free to move: its angles move with k1; covered (blocks cardan_q1_eq,
    # cardan_q2_eq) where the survey watches universal angles, else refused by name
    free = ["cardan_q1", "cardan_q2"]
    try:
        G = tl.linearize_uncertain(model, free, uncertain=["k1"], inputs=["cardan_Tx"],
                                   outputs=["cardan_hook_x"])
    except tl.BlockRouteError as err:
        assert re.search(r"body 'cardan'.*parameter 'k1'", str(err)), err
    else:
        assert G.kinds["cardan_q1_eq"] == "equilibrium"
        _two_routes(model, G, _points(G, 3, seed=13), {"free": free}, ["cardan_Tx"],
                    ["cardan_hook_x"], "covered universal joint")


# ------------------------------------------------------------------ quaternion floating base
def quaternion_balloon() -> dict:
    """The paper's balloon with ``attitude = "quaternion"`` and a non-symmetric inertia
    (its attitude enters the linear model as ``balloon_rx balloon_ry balloon_rz``)."""
    desc = models.balloon()
    desc["bodies"][0]["inertia"] = [[9.0, 0.0, 0.0], [0.0, 10.0, -3.0], [0.0, -3.0, 10.0]]
    desc["bodies"][0]["joint"]["attitude"] = "quaternion"
    desc["bodies"][1]["joint"]["actuated"] = True
    desc["outputs"] = [{"type": "position", "body": "pendulum2", "point": "com"},
                       {"type": "attitude", "body": "balloon"},
                       {"type": "angular_velocity", "body": "balloon", "name": "b_omega"},
                       {"type": "q", "body": "slider"}]
    return desc


QBALLOON_FREE = ["balloon_rx", "balloon_rz", "slider_q", "pendulum1_q", "pendulum2_q"]
QBALLOON_GUESS = {"pendulum1_q": 0.2, "pendulum2_q": -0.2}


def test_quaternion_balloon_nominal_and_stiffness_dampers_uncertain() -> None:
    model = _load(quaternion_balloon())
    err = _nominal(model, QBALLOON_FREE, inputs=["slider_tau"], guess=QBALLOON_GUESS)
    print(f"\nquaternion balloon, nominal: relative difference {err:.1e}")
    outputs = list(model.output_names)
    G = tl.linearize_uncertain(model, QBALLOON_FREE, guess=QBALLOON_GUESS,
                               uncertain={"k": (25, 100), "ds": (2, 8), "dp1": (0.2, 1.0),
                                          "dp2": (0.2, 1.0)},
                               inputs=["slider_tau"], outputs=outputs)
    assert set(G.kinds.values()) == {"exact"}
    assert all(G.repeats[n][1] == 1 for n in ("k", "ds", "dp1", "dp2"))
    assert G.state_labels[9:12] == ["balloon_rx", "balloon_ry", "balloon_rz"]
    # re-trimmed from the nominal equilibrium: a trim from the initial attitude composes its
    # steps q ⊗ exp(δr) and ends at a heading (neutral: buoyancy balances gravity about the
    # vertical) that depends on its path by ~1e-7 rad, which turns the position rows of A
    _two_routes(model, G, _points(G, 4, seed=6),
                {"free": QBALLOON_FREE, "x0": G.operating_point.x},
                ["slider_tau"], outputs, "quaternion balloon")


# ------------------------------------------------------------------ driven joints
def driven_chain() -> dict:
    """A chain whose middle revolute joint is driven (its acceleration the input
    ``arm_qdd``, its torque the output ``arm_tau``), between a sprung revolute shoulder and
    a sprung prismatic slider carrying a revolute pendulum, under gravity."""
    return {"name": "driven_chain", "gravity": [0.0, -9.81, 0.0],
            "parameters": {"k": {"value": 40.0, "min": 30.0, "max": 60.0},
                           "m": {"value": 0.8, "min": 0.5, "max": 1.2}},
            "bodies": [
                {"name": "shoulder", "joint": {"type": "revolute", "axis": [0, 0, 1],
                                               "stiffness": 60.0, "damping": 0.4, "rest": 0.3},
                 "mass": 1.5, "com": [0.2, 0.0, 0.0], "inertia": INERTIA,
                 "ports": {"end": [0.4, 0.0, 0.05]}},
                {"name": "arm", "parent": "shoulder.end",
                 "joint": {"type": "revolute", "axis": [0.0, 0.6, 0.8], "motion": "input",
                           "q0": 0.5},
                 "mass": 1.0, "com": [0.15, 0.02, 0.0], "inertia": INERTIA,
                 "ports": {"end": [0.3, 0.0, 0.0]}},
                {"name": "slider", "parent": "arm.end",
                 "joint": {"type": "prismatic", "axis": [1.0, -1.0, 0.0], "stiffness": "k",
                           "damping": 2.0},
                 "mass": 0.6, "com": [0.0, -0.05, 0.0], "inertia": INERTIA},
                {"name": "bob", "parent": "slider",
                 "joint": {"type": "revolute", "axis": [0, 0, 1], "damping": 0.05},
                 "mass": "m", "com": [0.0, -0.3, 0.0],
                 "inertia": [[0.01, 0, 0], [0, 0.01, 0], [0, 0, 0.01]]}],
            "outputs": [{"type": "q", "body": "bob"},
                        {"type": "position", "body": "bob", "point": "com"}]}


DRIVEN_FREE = ["shoulder_q", "slider_q", "bob_q"]


def test_driven_revolute_in_a_chain() -> None:
    model = _load(driven_chain())
    assert "arm_qdd" in model.input_names and "arm_tau" in model.output_names
    err = _nominal(model, DRIVEN_FREE, inputs=["arm_qdd"])
    print(f"\ndriven chain, nominal: relative difference {err:.1e}")
    outputs = list(model.output_names)
    G = tl.linearize_uncertain(model, DRIVEN_FREE, uncertain=["k", "m"], inputs=["arm_qdd"],
                               outputs=outputs)
    assert G.kinds["k"] == G.kinds["m"] == "covered"  # the slider and shoulder sag with them
    _two_routes(model, G, _points(G, 3, seed=7), {"free": DRIVEN_FREE}, ["arm_qdd"], outputs,
                "driven chain")
    # without its input the joint is held still (q̈ = 0): the same free motion
    _nominal(model, DRIVEN_FREE, inputs=[], outputs=["arm_tau", "bob_q"])


# ------------------------------------------------------------------ damping loads
BALLOON_FREE = ["balloon_phi", "balloon_theta", "slider_q", "pendulum1_q", "pendulum2_q"]


def test_damping_loads_on_a_floating_balloon() -> None:
    """Damping against the inertial frame at the balloon's port C (linear and angular, its
    linear coefficient a parameter) and at the tip of the lower pendulum."""
    desc = damped_balloon()
    desc["bodies"][1]["joint"]["actuated"] = True
    desc["outputs"] = [{"type": "velocity", "body": "pendulum2", "point": "tip"},
                       {"type": "q", "body": "pendulum1"}]
    model = _load(desc)
    guess = {"pendulum1_q": 0.2, "pendulum2_q": -0.2}
    err = _nominal(model, BALLOON_FREE, inputs=["slider_tau"], guess=guess)
    print(f"\ndamped balloon, nominal: relative difference {err:.1e}")
    outputs = list(model.output_names)
    G = tl.linearize_uncertain(model, BALLOON_FREE, guess=guess,
                               uncertain={"cv": (1.0, 6.0), "k": (25, 100)},
                               inputs=["slider_tau"], outputs=outputs)
    assert G.kinds == {"cv": "exact", "k": "exact"}
    _two_routes(model, G, _points(G, 4, seed=9), {"free": BALLOON_FREE, "guess": guess},
                ["slider_tau"], outputs, "damped balloon")


# ------------------------------------------------------------------ actuated multi-d.o.f.
def test_actuated_spherical_and_universal_joints() -> None:
    """The torque inputs of actuated spherical (``b_tau_x …``) and universal (``b_tau1``,
    ``b_tau2``) joints, freed in the trim to hold a pose, the stiffness and mass uncertain."""
    desc = gimbal()
    desc["bodies"][0]["joint"].update(actuated=True, q0=[0.3, -0.4], stiffness=["k1", 5.0])
    desc["bodies"][1]["joint"].update(actuated=True, q0=[0.9, 0.2, -0.3, 0.1])
    desc["bodies"][1]["mass"] = "m"
    desc["parameters"] = {"k1": {"value": 8.0, "min": 6.0, "max": 10.0},
                          "m": {"value": 0.5, "min": 0.4, "max": 0.7}}
    try:
        model = _load(desc)
    except tl.ModelError as err:  # the model layer without multi-d.o.f. torque inputs
        pytest.skip(f"actuated multi-d.o.f. joints not in this model layer: {err}")
    torques = ["cardan_tau1", "cardan_tau2", "load_tau_x", "load_tau_y", "load_tau_z"]
    assert list(model.input_names) == torques
    err = _nominal(model, torques, inputs=torques)
    print(f"\nactuated gimbal, nominal: relative difference {err:.1e}")
    outputs = list(model.output_names)
    G = tl.linearize_uncertain(model, torques, uncertain=["k1", "m"], inputs=torques,
                               outputs=outputs)
    _two_routes(model, G, _points(G, 3, seed=10), {"free": torques}, torques, outputs,
                "actuated gimbal")


def test_driven_spherical_example_at_rest() -> None:
    """examples/twenty_sim_driven_spherical.toml with its crank held (q̈ = 0, at rest) and
    the body hanging below its spherical joint: mass, inertia and arm uncertain."""
    path = Path(__file__).resolve().parents[1] / "examples" / "twenty_sim_driven_spherical.toml"
    model = _load(read_description(path))
    free = ["m1_rx", "m1_ry", "m1_rz"]
    guess = {"m1_ry": 1.5}
    fixed = {"crank_qd": 0.0}
    err = _nominal(model, free, inputs=["crank_qdd"], fixed=fixed, guess=guess)
    print(f"\ndriven spherical example, nominal: relative difference {err:.1e}")
    outputs = list(model.output_names)
    G = tl.linearize_uncertain(model, free, fixed=fixed, guess=guess,
                               uncertain={"m1": (0.5, 2.0), "I1": (2e-4, 8e-4),
                                          "b": (0.05, 0.2)},
                               inputs=["crank_qdd"], outputs=outputs)
    assert set(G.kinds.values()) == {"exact"}
    # the turn about the vertical is neutral (isotropic inertia, centre of mass below the
    # joint): re-trimmed from the nominal equilibrium, not from a path-dependent heading
    _two_routes(model, G, _points(G, 3, seed=11),
                {"free": free, "fixed": fixed, "x0": G.operating_point.x}, ["crank_qdd"],
                outputs, "driven spherical example")


def test_spherical_joint_below_a_covered_revolute() -> None:
    """A sprung revolute shoulder that sags with its uncertain stiffness (covered: its angle
    becomes the block ``shoulder_q_eq``) carrying a spherical joint held by a torque input:
    the spherical joint's blocks turn with the shoulder's uncertain rotation."""
    desc = spherical_held()
    rod = desc["bodies"][0]
    rod.update(parent="shoulder.end", mass=1.3)
    rod["joint"]["stiffness"] = 3.0
    desc["bodies"] = [
        {"name": "shoulder", "joint": {"type": "revolute", "axis": [1, 0, 0],
                                       "stiffness": "k", "damping": 0.3},
         "mass": 2.0, "com": [0.0, 0.3, 0.1], "inertia": INERTIA,
         "ports": {"end": [0.0, 0.6, 0.0]}}, rod]
    desc["parameters"] = {"k": {"value": 80.0, "min": 60.0, "max": 120.0}}
    desc["outputs"] = [{"type": "position", "body": "rod", "point": "tip"},
                       {"type": "angular_velocity", "body": "rod", "name": "rod_omega"}]
    model = _load(desc)
    free = ["shoulder_q", "rod_Tx", "rod_Ty", "rod_Tz"]
    outputs = list(model.output_names)
    G = tl.linearize_uncertain(model, free, uncertain=["k"], inputs=["rod_Tx"],
                               outputs=outputs)
    assert G.kinds["k"] == "covered" and G.kinds["shoulder_q_eq"] == "equilibrium"
    _two_routes(model, G, _points(G, 4, seed=12), {"free": free}, ["rod_Tx"], outputs,
                "spherical joint below a covered revolute")


# ------------------------------------------------------------------ what stays refused
def test_spin_with_a_spherical_joint_is_refused_naming_the_body() -> None:
    desc = {"name": "spinner", "parameters": {"m": {"value": 1.0, "min": 0.5, "max": 2.0}},
            "bodies": [
                {"name": "hub", "joint": {"type": "free"}, "mass": 10.0,
                 "inertia": [[2.0, 0, 0], [0, 2.0, 0], [0, 0, 3.0]],
                 "ports": {"tip": [1.0, 0.0, 0.0]}},
                {"name": "pod", "parent": "hub.tip", "joint": {"type": "spherical",
                                                               "stiffness": 5.0},
                 "mass": "m", "inertia": [[0.1, 0, 0], [0, 0.1, 0], [0, 0, 0.1]]}]}
    model = _load(desc)
    with pytest.raises(tl.BlockRouteError, match=r"body 'pod': its 'spherical' joint around "
                                                 r"a steady spin"):
        tl.linearize_uncertain(model, [], uncertain=["m"], kind="spin",
                               spin={"body": "hub", "axis": [0, 0, 1], "rate": 1.0})


def test_uncertain_spherical_rest_attitude_is_refused() -> None:
    """The rest attitude enters the stiffness ``k J_r⁻¹(θ₀)`` transcendentally: refused."""
    desc = spherical_held()
    desc["parameters"]["qr"] = {"value": 0.3, "min": 0.2, "max": 0.4}
    desc["bodies"][0]["joint"]["rest"] = [0.9, "qr", -0.2, 0.1]
    model = _load(desc)
    with pytest.raises(tl.BlockRouteError, match=r"body 'rod'.*rest attitude.*\['qr'\]"):
        tl.linearize_uncertain(model, ["rod_Tx", "rod_Ty", "rod_Tz"], uncertain=["qr"])


def test_inputs_the_block_route_does_not_know_are_named() -> None:
    """Torque inputs of a multi-d.o.f. joint under other names than ``b_tau_x …`` /
    ``b_tau1 b_tau2`` (a model layer the blocks do not know) are refused, one by one."""
    from types import SimpleNamespace

    from titop_lpv.linear.assemble_joints import check_inputs
    from titop_lpv.multibody.joints import SPHERICAL, UNIVERSAL

    none = SimpleNamespace(body=np.zeros(0, int), col=np.zeros(0, int))
    odd = SimpleNamespace(body_names=("ball", "cardan"), kind=np.array([SPHERICAL, UNIVERSAL]),
                          tau_column=np.array([0, 3]), qdd_column=np.array([-1, -1]),
                          input_names=("ball_tau_x", "ball_tau_y", "ball_tau_z",
                                       "cardan_tau_a", "cardan_tau_b"), wrench_inputs=none)
    problems = check_inputs(odd)
    assert len(problems) == 2 and "'cardan_tau_a'" in problems[0]
    known = SimpleNamespace(**{**vars(odd), "input_names": (*odd.input_names[:3], "cardan_tau1",
                                                            "cardan_tau2")})
    assert check_inputs(known) == []


def test_damping_loads_on_a_spinning_turntable() -> None:
    """Around a steady spin a damping load has a nominal wrench ``−C_d x'₀`` (the drag the
    turntable's free torque balances) and acts on the twist deviation: the turntable of
    ``test_linear`` with air drag on its arm, the drag coefficient uncertain."""
    from test_linear import _turntable

    desc = copy.deepcopy(_turntable().description)
    desc["parameters"]["c"] = {"value": 0.6, "min": 0.3, "max": 1.2}
    desc["loads"] = [{"type": "damping", "body": "arm", "linear": "c", "angular": 0.05,
                      "point": "com"}]
    model = _load(desc)
    free = ["arm_q", "table_tau"]
    spin = {"body": "table", "axis": [0, 0, 1], "rate": "Omega"}
    op = tl.trim(model, free, kind="spin", spin=spin)
    ref = tl.linearize(model, op, inputs=["table_tau"])
    G = assemble(model, op, {}, inputs=["table_tau"], outputs=list(ref.state_labels))
    assert np.max(np.abs(np.asarray(G.nominal().A) - ref.A)) <= 1e-12 * np.max(np.abs(ref.A))
    kw = {"inputs": ["table_tau"], "outputs": ["arm_q"]}
    G = tl.linearize_uncertain(model, free, kind="spin", spin=spin,
                               uncertain={"c": (0.3, 1.2), "Omega": (1.0, 4.0)}, **kw)
    assert G.kinds["c"] == "exact" and G.kinds["Omega"] == "scheduled"
    for values in _points(G, 4, seed=14):
        values = {k: v for k, v in values.items() if k in ("c", "Omega")}
        other = tl.trim(model, free, kind="spin", spin=spin, params=values,
                        x0=G.operating_point.x)
        _assert_same(G.at(values), tl.linearize(model, other, **kw), f"turntable at {values}")
    with pytest.raises(tl.BlockRouteError, match=r"'pod': a damping load \(of a spinning "
                                                 r"floating base\)"):
        free_desc = {"name": "hub", "bodies": [
            {"name": "hub", "joint": {"type": "free"}, "mass": 10.0,
             "inertia": [[2.0, 0, 0], [0, 2.0, 0], [0, 0, 3.0]], "ports": {"tip": [1, 0, 0]}},
            {"name": "pod", "parent": "hub.tip", "joint": {"type": "weld"}, "mass": 1.0}],
            "loads": [{"type": "damping", "body": "pod", "linear": 0.1}],
            "parameters": {"m": {"value": 10.0, "min": 8.0, "max": 12.0}}}
        free_desc["bodies"][0]["mass"] = "m"
        tl.linearize_uncertain(_load(free_desc), [], uncertain=["m"], kind="spin",
                               spin={"body": "hub", "axis": [0, 0, 1], "rate": 1.0})
