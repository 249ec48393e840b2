"""The block route on random trees mixing every joint kind, and with the positions of
universal and driven joints as configuration parameters, against the nonlinear route.

Same comparison as ``test_blocks_multidof`` (``test_linear._assert_same``: matrices,
frequency response at 20 frequencies and poles to 1e-9 relative).
"""

from __future__ import annotations

import models
import numpy as np
import pytest
from test_blocks_multidof import (
    DRIVEN_FREE,
    _load,
    _nominal,
    _points,
    driven_chain,
    gimbal,
)
from test_linear import _assert_same, _two_routes

import titop_lpv as tl
from titop_lpv.linear.assemble import assemble
from titop_lpv.linear.kinds import angle_parameter
from titop_lpv.multibody.kinematics import kinematics


# ------------------------------------------------------------------ random trees
def _unit_quaternion(rng: np.random.Generator) -> list[float]:
    q = np.array([1.0, *rng.uniform(-0.5, 0.5, 3)])
    return (q / np.linalg.norm(q)).tolist()


def mixed_tree(seed: int) -> tuple[dict, list[str], list[str]]:
    """A small random tree (3 to 5 bodies) mixing revolute, prismatic, weld, spherical,
    universal and driven joints, damping loads, an Euler or quaternion floating base (no
    gravity then) or a fixed root under gravity, with a mass, a stiffness and a damping
    coefficient as parameters.

    Every joint is held in its random pose by inputs freed in the trim: the ``b_tau`` of
    the one-d.o.f. joints, and torque components of a wrench input at the origin of each
    spherical (all three) and universal (the two of them its axes span best) joint; on a
    floating base (no gravity, no external wrench) the multi-d.o.f. springs are at rest.

    Returns
    -------
    (dict, list of str, list of str)
        The description, the free inputs, the parameters.
    """
    rng = np.random.default_rng(1000 + seed)
    root = "free" if seed % 3 == 2 else "fixed"
    desc = models.random_tree(seed, 3 + seed % 3, root=root, gravity=root == "fixed",
                              loads="conservative" if root == "fixed" else False)
    order = {b["name"]: b for b in desc["bodies"]}
    bodies = [order[f"b{i}"] for i in range(len(order))]
    kinds = ["spherical", "universal", "driven"]
    rng.shuffle(kinds)
    wrench_inputs = []
    for i, body in enumerate(bodies):
        joint = body["joint"]
        if joint["type"] == "free":
            joint.update(v0=[0.0] * 3, w0=[0.0] * 3)
            if seed % 2 == 0:
                joint["attitude"] = "quaternion"
            continue
        kind = kinds[i - 1] if 1 <= i <= 3 else joint["type"]
        rot = {"rotation": joint["rotation"]} if "rotation" in joint else {}
        if kind == "spherical":
            body["joint"] = {"type": "spherical", **rot, "stiffness": rng.uniform(1, 5),
                             "damping": rng.uniform(0.05, 0.5), "rest": _unit_quaternion(rng),
                             "q0": _unit_quaternion(rng)}
            wrench_inputs.append((body["name"], ["Tx", "Ty", "Tz"]))
        elif kind == "universal":
            a1, a2 = rng.normal(size=3), rng.normal(size=3)
            body["joint"] = {"type": "universal", **rot, "axis1": a1.tolist(),
                             "axis2": a2.tolist(), "stiffness": rng.uniform(1, 5, 2).tolist(),
                             "damping": rng.uniform(0.05, 0.5, 2).tolist(),
                             "rest": rng.uniform(-0.3, 0.3, 2).tolist(),
                             "q0": rng.uniform(-0.8, 0.8, 2).tolist()}
            wrench_inputs.append((body["name"], None))
        elif kind == "driven" and joint["type"] in ("revolute", "prismatic"):
            joint.update(motion="input", qd0=0.0)
            joint.pop("actuated", None)
        elif joint["type"] in ("revolute", "prismatic"):
            joint.update(actuated=True, qd0=0.0)
    # the parameters sit on a multi-d.o.f. body (there is one: two of the three kinds are)
    sprung = next(b for b in bodies if b["joint"]["type"] in ("spherical", "universal"))
    heavy = sprung
    desc["loads"] = [*desc.get("loads", []),
                     {"type": "damping", "body": sprung["name"], "linear": "c",
                      "angular": 0.3, "point": "com"}]
    desc["parameters"] = {"c": {"value": 1.0, "min": 0.5, "max": 2.0},
                          "m": {"value": heavy["mass"], "min": 0.8 * heavy["mass"],
                                "max": 1.2 * heavy["mass"]}}
    heavy["mass"] = "m"
    k = sprung["joint"]["stiffness"]
    k0 = k[0] if isinstance(k, list) else k
    desc["parameters"]["k"] = {"value": k0, "min": 0.8 * k0, "max": 1.2 * k0}
    sprung["joint"]["stiffness"] = ["k", k[1]] if isinstance(k, list) else "k"
    if root == "free":  # no gravity, no external wrench: the springs at rest hold the pose
        for body in bodies:
            if body["joint"]["type"] in ("spherical", "universal"):
                body["joint"]["rest"] = body["joint"]["q0"]
        wrench_inputs = []
    desc["inputs"] = [{"body": name} for name, _ in wrench_inputs]
    model = _load(desc)
    free = [n for n in model.input_names if n.endswith("_tau")]
    x = model.default_state()
    kin = kinematics(model, x, model.default_params())
    for name, comps in wrench_inputs:
        if comps is None:  # the two torque components that best span S_ω of the universal
            S_w = np.asarray(kin.S[model.body_index(name)])[3:, :]
            pairs = [(0, 1), (0, 2), (1, 2)]
            best = max(pairs, key=lambda p: abs(np.linalg.det(S_w[list(p), :])))
            comps = [("Tx", "Ty", "Tz")[j] for j in best]
        free += [f"{name}_{c}" for c in comps]
    return desc, free, list(desc["parameters"])


@pytest.mark.parametrize("seed", range(10))
def test_random_mixed_trees(seed: int) -> None:
    desc, free, params = mixed_tree(seed)
    model = _load(desc)
    inputs = [n for n in model.input_names]
    outputs = list(model.output_names)
    _nominal(model, free, inputs=inputs, outputs=outputs)
    G = tl.linearize_uncertain(model, free, uncertain=params, inputs=inputs, outputs=outputs)
    _two_routes(model, G, _points(G, 1, seed=seed)[:5], {"free": free}, inputs, outputs,
                f"mixed tree {seed}")


# ------------------------------------------------------------------ configuration parameters
def test_universal_joint_angles_as_configuration_parameters() -> None:
    """The blocks with a universal joint's angles as LFT parameters ``ψ`` (its rotations,
    ``s₁`` and the geometric term uncertain), assembled directly around the nominal
    equilibrium: at each stiffness, with the angles of the re-trimmed equilibrium, they give
    the nonlinear route's plant (the equilibrium moves with ``k1``)."""
    desc = gimbal()
    desc["bodies"][0]["joint"]["stiffness"] = ["k1", 5.0]
    desc["bodies"][1] = {"name": "pendant", "parent": "cardan.hook",
                         "joint": {"type": "revolute", "axis": [0.3, 0.0, 1.0],
                                   "stiffness": 3.0, "damping": 0.1},
                         "mass": 0.5, "com": [0.2, 0.05, -0.1],
                         "inertia": [[0.02, 0.0, 0.0], [0.0, 0.02, 0.0], [0.0, 0.0, 0.01]]}
    desc["outputs"] = [{"type": "position", "body": "pendant", "point": "com"},
                       {"type": "angular_velocity", "body": "pendant", "name": "p_w"}]
    desc["parameters"] = {"k1": {"value": 8.0, "min": 6.0, "max": 11.0}}
    model = _load(desc)
    free = ["cardan_q1", "cardan_q2", "pendant_q"]
    op = tl.trim(model, free)
    k1 = tl.ureal("k1", 8.0, range=(6.0, 11.0))
    config = {s: angle_parameter(f"{s}_eq", float(op.x[model.state_index(s)]),
                                 float(op.x[model.state_index(s)]) - 0.5,
                                 float(op.x[model.state_index(s)]) + 0.5, True)
              for s in free}
    outputs = list(model.output_names)
    G = assemble(model, op, {"k1": k1}, inputs=[], outputs=outputs, configuration=config)
    worst = 0.0
    for value in (6.0, 7.3, 9.5, 11.0):
        other = tl.trim(model, free, params={"k1": value}, x0=op.x)
        ref = tl.linearize(model, other, outputs=outputs)
        values = {"k1": value}
        values.update({f"{s}_eq": float(other.x[model.state_index(s)]) for s in free})
        at = G.at(values)
        _assert_same(at, ref, f"gimbal at k1 = {value}")
        worst = max(worst, float(np.max(np.abs(at.A - ref.A)) / np.max(np.abs(ref.A))))
        assert abs(other.x[model.state_index("cardan_q2")] - op.x[
            model.state_index("cardan_q2")]) > 1e-4  # the equilibrium does move
    print(f"\nuniversal angles as parameters: A within {worst:.1e} relative")


def test_driven_joint_angle_as_a_configuration_parameter() -> None:
    """The driven joint's angle as an LFT parameter ``ψ`` (what scheduling a driven joint's
    position needs), assembled directly: at each angle the blocks give the nonlinear
    route's plant, the passive joints re-trimmed (they move with it)."""
    model = _load(driven_chain())
    op = tl.trim(model, DRIVEN_FREE)
    q0 = float(op.x[model.state_index("arm_q")])
    config = {"arm_q": angle_parameter("arm_q", q0, q0 - 0.6, q0 + 0.6, True)}
    for s in DRIVEN_FREE:
        v = float(op.x[model.state_index(s)])
        config[s] = angle_parameter(f"{s}_eq", v, v - 0.5, v + 0.5, s != "slider_q")
    outputs = list(model.output_names)
    G = assemble(model, op, {}, inputs=["arm_qdd"], outputs=outputs, configuration=config)
    for q in (q0 - 0.6, q0 - 0.1, q0 + 0.45):
        other = tl.trim(model, DRIVEN_FREE, fixed={"arm_q": q}, x0=op.x)
        ref = tl.linearize(model, other, inputs=["arm_qdd"], outputs=outputs)
        values = {"arm_q": q}  # joint angles in rad: the blocks' JointAngle forms ψ
        for s in DRIVEN_FREE:
            values[f"{s}_eq"] = float(other.x[model.state_index(s)])
        _assert_same(G.at(values), ref, f"driven chain at arm_q = {q:.3f}")
