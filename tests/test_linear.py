"""Uncertain models by the block route (titop_lpv.linear) against the nonlinear route.

Two independent formulations of the same linear model:

* the nonlinear route: trim the nonlinear TITOP model at the parameter values, then exact
  (complex-step) Jacobians (``tl.linearize``);
* the block route: linear TITOP blocks (rigid bodies with their parent port inverted, joint
  blocks, integrators) assembled around the nominal equilibrium with the parameters as
  ``ureal``, evaluated at the same values (``G.at``).

They must agree, matrix by matrix, in frequency response (20 frequencies) and in poles, at
random points of the parameter box and at its vertices (tolerances: 1e-9 relative). The
block route is also checked by hand assembly against a closed form.
"""

from __future__ import annotations

import copy
import warnings
from pathlib import Path

import control
import models
import numpy as np
import pytest
from scipy.optimize import linear_sum_assignment

import titop_lpv as tl
from titop_lpv.linear.blocks import joint, joint_integrator, rigid_body
from titop_lpv.linear.connect import AssemblyError, connect
from titop_lpv.model.files import read_description

ROOT = Path(__file__).resolve().parents[1]
RTOL = 1e-9
OMEGA = np.logspace(-2, 2, 20)
BALLOON_FREE = ["balloon.phi", "balloon.theta", "slider.q", "pendulum1.q", "pendulum2.q"]
HANGING = {"pendulum1.q": 0.2, "pendulum2.q": -0.2}
ARM_POSE = {"shoulder_yaw_q": 0.3, "shoulder_q": -0.4, "elbow_q": 0.9, "wrist_q": -0.2}


def _load(source) -> tl.Model:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tl.TitopWarning)  # the balloon's inertia (expected)
        return tl.load_model(source)


def _assert_same(G_at, ref, what: str) -> None:
    """Matrices, frequency response and poles of two StateSpace systems agree."""
    scale = max(1.0, *(float(np.max(np.abs(getattr(ref, m)), initial=0.0)) for m in "ABCD"))
    for name in "ABCD":
        err = np.max(np.abs(np.asarray(getattr(G_at, name)) - getattr(ref, name)), initial=0.0)
        assert err <= RTOL * scale, f"{what}: {name} differs by {err:.3g} (scale {scale:.3g})"
    H1 = G_at(1j * OMEGA)
    H2 = ref(1j * OMEGA)
    assert np.max(np.abs(H1 - H2), initial=0.0) <= RTOL * max(
        1.0, float(np.max(np.abs(H2), initial=0.0))), what
    p1 = np.linalg.eigvals(np.asarray(G_at.A))
    p2 = np.linalg.eigvals(ref.A)
    rows, cols = linear_sum_assignment(np.abs(p1[:, None] - p2[None, :]))  # pole matching
    pscale = max(1.0, float(np.max(np.abs(p2), initial=0.0)))
    # 1e-9 relative; zero eigenvalues of a floating base form Jordan chains, which rounding
    # splits by sqrt(eps): 1e-7 there
    tol = np.where(np.abs(p2[cols]) > 1e-6 * pscale, 1e-9, 1e-7) * pscale
    gap = np.abs(p1[rows] - p2[cols])
    assert np.all(gap <= tol), (what, gap.max())


@pytest.fixture(scope="module")
def balloon() -> tl.Model:
    return _load(ROOT / "examples" / "balloon.toml")


@pytest.fixture(scope="module")
def arm() -> tl.Model:
    return _load(ROOT / "examples" / "robot_arm.toml")


def _arm_with_masses() -> tl.Model:
    desc = read_description(ROOT / "examples" / "robot_arm.toml")
    for body in desc["bodies"]:
        name = f"m_{body['name']}"
        desc["parameters"][name] = {"value": body["mass"], "min": 0.5 * body["mass"],
                                    "max": 2.0 * body["mass"], "unit": "kg"}
        body["mass"] = name
    return _load(desc)


# ------------------------------------------------------------------ the nominal assembly
def test_nominal_blocks_equal_linearize_on_the_example_models(balloon, arm) -> None:
    from titop_lpv.linear.assemble import assemble

    op = tl.trim(balloon, BALLOON_FREE, guess=HANGING)
    G = assemble(balloon, op, {}, inputs=list(balloon.input_names),
                 outputs=list(balloon.state_names))
    ref = tl.linearize(balloon, op, inputs=list(balloon.input_names))
    assert G.state_labels == list(balloon.state_names)
    _assert_same(G.nominal(), control_outputs(ref, balloon), "balloon")
    taus = [f"{b}_tau" for b in arm.body_names]
    op = tl.trim(arm, free=taus, fixed=ARM_POSE)
    G = assemble(arm, op, {}, inputs=taus, outputs=list(arm.state_names))
    _assert_same(G.nominal(), control_outputs(tl.linearize(arm, op, inputs=taus), arm), "arm")


def control_outputs(ref, model: tl.Model):
    """The nonlinear route's system with every state as an output (C = I, D = 0)."""
    import control

    return control.ss(ref.A, ref.B, np.eye(ref.nstates), np.zeros((ref.nstates, ref.ninputs)),
                      states=list(model.state_names), outputs=list(model.state_names),
                      inputs=ref.input_labels)


# ------------------------------------------------------------------ two routes, one answer
def _two_routes(model, G, points, trim_kwargs, inputs, outputs, what) -> None:
    for values in points:
        op = tl.trim(model, params={**G.operating_point.params, **values}, **trim_kwargs)
        assert op.success, (what, values, op.message)
        ref = tl.linearize(model, op, inputs=inputs, outputs=outputs)
        _assert_same(G.at(values), ref, f"{what} at {values}")


def _box_points(G, n: int, seed: int) -> list[dict[str, float]]:
    rng = np.random.default_rng(seed)
    names = list(G.params)
    pts = [{k: float(rng.uniform(G.params[k].lo, G.params[k].hi)) for k in names}
           for _ in range(n)]
    for corner in range(2 ** len(names)):
        pts.append({k: (G.params[k].lo, G.params[k].hi)[(corner >> j) & 1]
                    for j, k in enumerate(names)})
    return pts


def test_balloon_stiffness_and_dampers_fifty_points_and_vertices(balloon) -> None:
    outputs = ["balloon_x", "balloon_y", "pendulum1_q", "pendulum2_q"]
    G = tl.linearize_uncertain(balloon, BALLOON_FREE, guess=HANGING,
                               uncertain={"k": (25, 100), "ds": (2, 8), "dp1": (0.2, 1.0),
                                          "dp2": (0.2, 1.0)},
                               inputs=["slider_tau"], outputs=outputs)
    assert G.kinds == {"k": "exact", "ds": "exact", "dp1": "exact", "dp2": "exact"}
    # a spring stiffness, a damper: each enters once
    assert {b.name: b.repeats for b in G.delta} == {"k": 1, "ds": 1, "dp1": 1, "dp2": 1}
    _two_routes(balloon, G, _box_points(G, 50, seed=3),
                {"free": BALLOON_FREE, "guess": HANGING}, ["slider_tau"], outputs, "balloon")
    text = G.report()
    assert "k" in text and "exact" in text and "[25, 100]" in text


def test_arm_masses_and_payload_exact_with_the_torques_free() -> None:
    model = _arm_with_masses()
    taus = [f"{b}_tau" for b in model.body_names]
    outputs = ["shoulder_q", "elbow_q", "wrist_q"]
    # the yaw link's centre of mass lies on its axis: its mass changes the holding torques
    # only, and the linear model not at all
    with pytest.raises(tl.BlockRouteError, match="'m_shoulder_yaw'"):
        tl.linearize_uncertain(model, free=taus, fixed=ARM_POSE, uncertain=["m_shoulder_yaw"],
                               inputs=taus, outputs=outputs)
    names = ["m_shoulder", "m_elbow", "m_wrist", "payload_weight"]
    G = tl.linearize_uncertain(model, free=taus, fixed=ARM_POSE, uncertain=names,
                               inputs=taus, outputs=outputs)
    assert set(G.kinds.values()) == {"exact"}
    # each mass as few times as any LFT of this model can hold it
    assert G.repeat_bounds == {n: r for n, (_, r) in G.repeats.items()} == {
        "m_shoulder": 2, "m_elbow": 3, "m_wrist": 4, "payload_weight": 3}
    assert "least" in G.report()
    assert all(after <= before for before, after in G.repeats.values())
    _two_routes(model, G, _box_points(G, 10, seed=5), {"free": taus, "fixed": ARM_POSE}, taus,
                outputs, "arm")


def _actuated_random_tree(seed: int, root: str) -> dict:
    gravity = root != "free"  # a floating base is at rest only without external loads
    desc = models.random_tree(seed, 3 + seed % 4, root=root, gravity=gravity,
                              loads=gravity and "conservative", params=True)
    for body in desc["bodies"]:
        joint = body["joint"]
        if joint["type"] in ("revolute", "prismatic"):
            joint["actuated"] = True
            joint["qd0"] = 0.0
        if joint["type"] == "free":  # at rest
            joint["v0"], joint["w0"] = [0.0] * 3, [0.0] * 3
    return desc


@pytest.mark.parametrize("seed", range(20))
def test_random_trees_at_random_equilibria(seed: int) -> None:
    root = ("fixed", "fixed", "free")[seed % 3]
    desc = _actuated_random_tree(seed, root)
    model = _load(desc)
    config = models.random_config(desc, seed)
    pose = {n: v for n, v in config.items() if n.endswith("_q")}
    if root == "free":
        b = next(body["name"] for body in desc["bodies"] if body["joint"]["type"] == "free")
        pose.update({f"{b}_{c}": config[f"{b}_{c}"] for c in ("x", "y", "z")})
    taus = [n for n in model.input_names if n.endswith("_tau")]
    # joint axes are geometry (refused); rest positions only move the holding torques; a
    # floating base is at rest only without gravity
    names = [n for n in model.param_names if not n.startswith(("axis_", "rest_"))
             and not (root == "free" and n == "g_y")]
    if not names or not taus:
        pytest.skip("no uncertain parameter or no actuated joint in this tree")
    values = model.default_params()
    box = {}
    for n in names:
        lo, hi = model.param_bounds[model.param_names.index(n)]
        v = values[n]
        half = 0.2 * abs(v) if v else 0.1
        box[n] = (max(lo, v - half), min(hi, v + half))
    kwargs = {"free": taus, "fixed": pose}
    outputs = [n for n in model.state_names if n.endswith("_q")]

    def plant(values: dict[str, float]) -> np.ndarray:
        op = tl.trim(model, params=values, **kwargs)
        ref = tl.linearize(model, op, inputs=taus, outputs=outputs)
        return np.block([[ref.A, ref.B], [ref.C, ref.D]])

    # keep the parameters the nonlinear route's linear model depends on (a load on a body
    # welded to the world, say, changes nothing); the block route refuses the others
    nominal = plant(values)
    idle = [n for n in box if all(np.allclose(plant({**values, n: v}), nominal, rtol=1e-12,
                                              atol=1e-12) for v in box[n])]
    box = {n: r for n, r in box.items() if n not in idle}
    if idle:
        with pytest.raises(tl.BlockRouteError, match=repr(idle[0])):
            tl.linearize_uncertain(model, uncertain=[idle[0]] if np.all(np.isfinite(
                model.param_bounds[model.param_names.index(idle[0])])) else
                {idle[0]: box.get(idle[0], (values[idle[0]] - 0.1, values[idle[0]] + 0.1))},
                inputs=taus, outputs=outputs, **kwargs)
    if not box:
        pytest.skip("the linear model depends on none of the parameters of this tree")
    G = tl.linearize_uncertain(model, uncertain=box, inputs=taus, outputs=outputs, **kwargs)
    _two_routes(model, G, _box_points(G, 3, seed)[:3 + 4], kwargs, taus, outputs,
                f"tree {seed} ({root})")
    # small Δ: with the pose fixed no angle is a block, and every parameter is held as few
    # times as any LFT of this model can hold it (its McMillan degree in it)
    assert {n: r for n, (_, r) in G.repeats.items() if r} == G.repeat_bounds, f"tree {seed}"


# ------------------------------------------------------------------ sensors
SENSORS = [
    {"type": "position", "body": "pendulum2", "point": "com"},
    {"type": "position", "body": "slider", "name": "slider_pos"},
    {"type": "velocity", "body": "pendulum1", "point": "tip", "frame": "body"},
    {"type": "velocity", "body": "balloon", "point": "C", "name": "gondola_v"},
    {"type": "angular_velocity", "body": "pendulum2", "name": "p2_w"},
    {"type": "angular_velocity", "body": "balloon", "frame": "body", "name": "b_w"},
    {"type": "acceleration", "body": "pendulum2", "point": "com", "name": "p2_acc"},
    {"type": "acceleration", "body": "balloon", "point": "C", "frame": "body",
     "name": "b_acc"},
    {"type": "attitude", "body": "pendulum1"},
    {"type": "attitude", "body": "balloon"},
    {"type": "qdd", "body": "slider"},
    {"type": "q", "body": "pendulum2"},
]


def test_every_sensor_kind_by_the_block_route() -> None:
    desc = read_description(ROOT / "examples" / "balloon.toml")
    desc["outputs"] = SENSORS
    desc["bodies"][1]["joint"]["actuated"] = True
    model = _load(desc)
    G = tl.linearize_uncertain(model, BALLOON_FREE, guess=HANGING,
                               uncertain={"k": (25, 100), "dp1": (0.2, 1.0)})
    assert G.output_labels == list(model.output_names)
    _two_routes(model, G, _box_points(G, 6, seed=11), {"free": BALLOON_FREE, "guess": HANGING},
                list(model.input_names), list(model.output_names), "balloon sensors")


# ------------------------------------------------------------------ by hand (the SDT way)
def test_hand_assembled_pendulum_has_the_closed_form_frequency() -> None:
    # a rod of mass m, centre of mass at distance c below a revolute joint: ω² = m g c / I_P
    m, c, Ib, g = 2.0, 0.6, 0.05, 9.81
    k = tl.ureal("k", 3.0, range=(1.0, 5.0))  # a torsional spring at the hinge, uncertain
    com = np.array([[0.0], [-c], [0.0]])
    body = rigid_body("rod", m, Ib * np.eye(3), com, gravity=np.array([[0.0], [-g], [0.0]]))
    W0 = np.zeros((6, 1))  # the hanging rod transmits its weight along the axis: no torque
    W0[:3, 0] = [0.0, -m * g, 0.0]
    R = np.eye(3)
    r = np.array([0.0, 0.0, 1.0])
    rz = np.array([[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 0.0]])
    dX = np.block([[R @ rz, np.zeros((3, 3))], [np.zeros((3, 3)), R @ rz]]) @ W0
    I_P = Ib + m * c**2
    hinge = joint("rod", "revolute", parent=False, X=np.eye(6), dX_W0=dX, R=R, axis=r, k=k,
                  d=0.0, J_ref=1.0, actuated=True)
    G = connect([body, hinge, joint_integrator("rod")], ["rod_tau"], ["rod_q"],
                aliases={"rod_qdd_fb": "rod_qdd"})
    for kv in (1.0, 3.0, 5.0):
        w2 = (m * g * c + kv) / I_P
        poles = np.linalg.eigvals(np.asarray(G.at({"k": kv}).A))
        assert np.allclose(np.sort(poles.imag), [-np.sqrt(w2), np.sqrt(w2)], rtol=1e-12)
        assert np.allclose(poles.real, 0.0, atol=1e-12)
        assert np.isclose(float(np.asarray(G.at({"k": kv}).D)[0, 0]), 0.0)
        dc = float(G.at({"k": kv})(0.0).real)
        assert np.isclose(dc, 1.0 / (m * g * c + kv), rtol=1e-12)  # static compliance


def test_connect_names_what_is_missing() -> None:
    body = rigid_body("rod", 1.0, np.eye(3), np.zeros((3, 1)))
    with pytest.raises(AssemblyError, match="rod_a0"):
        connect([body], [], ["rod_W0"])
    with pytest.raises(AssemblyError, match="nope"):
        connect([body], ["nope"], ["rod_W0"])
    with pytest.raises(AssemblyError, match="more than once"):
        connect([body, body], [], ["rod_W0"])


# ------------------------------------------------------------------ bad input
def test_bad_input_is_named(balloon) -> None:
    kw = {"free": BALLOON_FREE, "guess": HANGING}
    with pytest.raises(tl.UnknownNameError, match="stiff"):
        tl.linearize_uncertain(balloon, uncertain=["stiff"], **kw)
    with pytest.raises(tl.ParameterError, match="'k'"):
        tl.linearize_uncertain(balloon, uncertain={"k": (10.0, 100.0)}, **kw)
    with pytest.raises(tl.BlockRouteError, match=r"'ds'.*no declared"):
        tl.linearize_uncertain(balloon, uncertain=["ds"], **kw)
    with pytest.raises(tl.UnknownNameError, match="'nope_x'"):
        tl.linearize_uncertain(balloon, uncertain=["k"], outputs=["slider_qd", "nope_x"], **kw)
    desc = copy.deepcopy(read_description(ROOT / "examples" / "balloon.toml"))
    desc["parameters"]["unused"] = 1.0
    with pytest.raises(tl.BlockRouteError, match="'unused'"):
        tl.linearize_uncertain(_load(desc), uncertain={"unused": (0.5, 2.0)}, **kw)


def test_off_centre_balloon_covered_with_its_tilt() -> None:
    # the off-centre balloon: its slider hangs along its axis, so the spring's deflection
    # changes with k, the balloon tilts and the pendulums turn: covered, with equilibrium
    # blocks for the tilt, the slider and the upper pendulum
    desc = read_description(ROOT / "examples" / "balloon.toml")
    desc["bodies"][1]["joint"]["axis"] = [1.0, -1.0, 0.0]
    model = _load(desc)
    outputs = ["pendulum2_q", "balloon_x", "balloon_phi"]
    G = tl.linearize_uncertain(model, BALLOON_FREE, guess=HANGING,
                               uncertain={"k": (25, 100), "dp1": (0.2, 1.0)},
                               inputs=["slider_tau"], outputs=outputs)
    assert G.kinds["k"] == "covered" and G.kinds["dp1"] == "exact"
    assert {"balloon_phi_eq", "slider_q_eq"} <= set(G.kinds)
    op0 = G.operating_point
    for values in _box_points(G, 8, seed=4):
        values = {k: v for k, v in values.items() if k in ("k", "dp1")}
        # the nonlinear route continued from the nominal equilibrium (a trim from the guess
        # may land on the branch with the lower pendulum turned by π)
        op = tl.trim(model, BALLOON_FREE, params=values, x0=op0.x)
        ref = tl.linearize(model, op, inputs=["slider_tau"], outputs=outputs)
        _assert_same(G.at(values), ref, f"off-centre balloon at {values}")


def test_four_bar_loop_closure_by_blocks() -> None:
    # the loop-closure spring-damper is linearised at the substructure level (complex step of
    # its wrenches per stiffness and damping component); a stiff loop: trims at 1e-8
    from titop_lpv.linear.assemble import assemble

    four_bar = _load(ROOT / "examples" / "four_bar.toml")
    free = ["crank.q", "coupler.q", "rocker.q"]
    op = tl.trim(four_bar, free=free, tol=1e-8)
    ref = tl.linearize(four_bar, op)
    G = assemble(four_bar, op, {}, inputs=[], outputs=list(four_bar.state_names))
    assert np.max(np.abs(np.asarray(G.nominal().A) - ref.A)) <= 1e-11 * np.max(np.abs(ref.A))
    outputs = ["crank_q", "rocker_q"]
    G = tl.linearize_uncertain(four_bar, free, uncertain={"d_loop": (100.0, 300.0)},
                               outputs=outputs, tol=1e-8)
    assert G.kinds == {"d_loop": "exact"}
    for d in (100.0, 170.0, 300.0):
        op = tl.trim(four_bar, free=free, params={"d_loop": d}, x0=G.operating_point.x,
                     tol=1e-8)
        _assert_same(G.at({"d_loop": d}), tl.linearize(four_bar, op, outputs=outputs),
                     f"four-bar at d_loop = {d}")
    # its stiffness moves the (slightly sagging) equilibrium: loops with a moving
    # configuration are refused
    with pytest.raises(tl.BlockRouteError, match="loop-closure"):
        tl.linearize_uncertain(four_bar, free, uncertain={"k_loop": (5e5, 2e6)},
                               outputs=outputs, tol=1e-7)


def test_uncertain_joint_geometry_is_refused() -> None:
    desc = read_description(ROOT / "examples" / "robot_arm.toml")
    desc["parameters"]["tilt"] = {"value": 1.0, "min": 0.9, "max": 1.1}
    desc["bodies"][1]["joint"]["axis"] = [0, "tilt", 0]
    arm = _load(desc)
    taus = [f"{b}_tau" for b in arm.body_names]
    with pytest.raises(tl.BlockRouteError, match=r"'shoulder'.*axis"):
        tl.linearize_uncertain(arm, free=taus, fixed=ARM_POSE, uncertain=["tilt"])


# ------------------------------------------------------------------ scheduled and covered
def _angle_points(G, names: list[str], n: int, seed: int) -> list[dict[str, float]]:
    """Random points and vertices of the box, joint angles in rad (their blocks' units)."""
    rng = np.random.default_rng(seed)
    bounds = {k: (G.params[k].lo, G.params[k].hi) for k in names}
    pts = [{k: float(rng.uniform(*bounds[k])) for k in names} for _ in range(n)]
    for corner in range(2 ** len(names)):
        pts.append({k: bounds[k][(corner >> j) & 1] for j, k in enumerate(names)})
    return pts


def test_arm_with_two_joint_angles_scheduled_and_the_payload_uncertain(arm) -> None:
    taus = [f"{b}_tau" for b in arm.body_names]
    fixed = {"shoulder_yaw_q": 0.3, "shoulder_q": -0.4}
    outputs = ["shoulder_q", "elbow_q", "wrist_q"]
    G = tl.linearize_uncertain(arm, free=taus, fixed=fixed, uncertain=["payload_weight"],
                               scheduling={"elbow_q": (0.2, 1.6), "wrist_q": (-1.0, 0.6)},
                               inputs=taus, outputs=outputs)
    assert G.kinds == {"payload_weight": "exact", "elbow_q": "scheduled",
                       "wrist_q": "scheduled"}
    names = ["payload_weight", "elbow_q", "wrist_q"]
    for values in _angle_points(G, names, 12, seed=2):
        op = tl.trim(arm, free=taus, params={"payload_weight": values["payload_weight"]},
                     fixed={**fixed, "elbow_q": values["elbow_q"], "wrist_q": values["wrist_q"]})
        ref = tl.linearize(arm, op, inputs=taus, outputs=outputs)
        _assert_same(G.at(values), ref, f"arm at {values}")


def _spring_pendulum_desc() -> dict:
    """A mass on a vertical spring (prismatic) carrying a pendulum held off the vertical by a
    torsional spring: both equilibrium positions move with the stiffnesses and masses."""
    return {
        "name": "spring_pendulum", "gravity": [0.0, -9.81, 0.0],
        "parameters": {"k1": {"value": 200.0, "min": 100.0, "max": 300.0},
                       "k2": {"value": 30.0, "min": 20.0, "max": 40.0},
                       "m2": {"value": 1.5, "min": 1.0, "max": 2.0}},
        "bodies": [
            {"name": "cart", "joint": {"type": "prismatic", "axis": [0, 1, 0],
                                       "stiffness": "k1", "damping": 2.0},
             "mass": 3.0, "inertia": [[0.1, 0, 0], [0, 0.1, 0], [0, 0, 0.1]],
             "ports": {"pivot": [0.2, 0.0, 0.0]}},
            {"name": "arm", "parent": "cart.pivot",
             "joint": {"type": "revolute", "axis": [0, 0, 1], "stiffness": "k2",
                       "damping": 0.3, "rest": 0.6, "actuated": True},
             "mass": "m2", "com": [0.0, -0.5, 0.0],
             "inertia": [[0.05, 0, 0], [0, 0.01, 0], [0, 0, 0.05]]},
        ],
        "outputs": [{"type": "q", "body": "arm"}, {"type": "position", "body": "arm",
                                                    "point": "com", "name": "bob"}],
    }


def test_covered_equilibria_contain_every_plant_of_the_box() -> None:
    model = _load(_spring_pendulum_desc())
    kw = {"free": ["cart.q", "arm.q"], "guess": {"arm.q": 0.3}}
    G = tl.linearize_uncertain(model, uncertain=["k1", "k2", "m2"], inputs=["arm_tau"], **kw)
    # the cart's displacement moves too, but a vertical slide changes no lever arm: only the
    # pendulum's equilibrium angle enters the linear model
    assert G.kinds == {"k1": "covered", "k2": "covered", "m2": "covered",
                       "arm_q_eq": "equilibrium"}
    eq = G.operating_point
    assert G.params["arm_q_eq"].nominal == pytest.approx(eq["arm_q"], abs=0)
    points = _box_points(G, 12, seed=9)
    points = [{k: v for k, v in pt.items() if k in ("k1", "k2", "m2")} for pt in points]
    for values in points:
        op = tl.trim(model, params=values, **kw)
        ref = tl.linearize(model, op, inputs=["arm_tau"])
        _assert_same(G.at(values), ref, f"covered at {values}")  # trims for the _eq blocks
        # the equilibrium lies in the box of the equilibrium blocks (the survey's range)
        for b in ("arm_q_eq",):
            state = G._joints[b][0]
            lo, hi = G.params[b].lo, G.params[b].hi
            value = G.block_values({b: op[state]})[b]
            assert lo - 1e-9 <= value <= hi + 1e-9, (b, values)
    text = G.report()
    assert "equilibrium" in text and "arm_q_eq" in text


def test_drop_integrators_matches_linearize(balloon) -> None:
    kw = {"guess": HANGING, "inputs": ["slider_tau"]}
    G = tl.linearize_uncertain(balloon, BALLOON_FREE, uncertain={"k": (25, 100)},
                               outputs=["pendulum2_q", "balloon_phi"], drop_integrators=True,
                               **kw)
    assert set(G.dropped_states) == {"balloon_x", "balloon_y", "balloon_z", "balloon_psi"}
    for k in (25.0, 61.0, 100.0):
        op = tl.trim(balloon, BALLOON_FREE, guess=HANGING, params={"k": k})
        ref = tl.linearize(balloon, op, inputs=["slider_tau"],
                           outputs=["pendulum2_q", "balloon_phi"], drop_integrators=True)
        assert G.state_labels == list(ref.state_labels)
        _assert_same(G.at({"k": k}), ref, f"dropped integrators at k = {k}")
    with pytest.raises(tl.BlockRouteError, match="balloon_x"):
        tl.linearize_uncertain(balloon, BALLOON_FREE, uncertain={"k": (25, 100)},
                               outputs=["balloon_x"], drop_integrators=True, **kw)
    G = tl.linearize_uncertain(balloon, BALLOON_FREE, uncertain={"k": (25, 100)},
                               drop_integrators=True, **kw)  # default outputs: some go
    assert "balloon_x" in G.dropped_outputs and "pendulum2_q" in G.output_labels


# ------------------------------------------------------------------ steady spins
def _spacecraft(rate_parameter: bool) -> tl.Model:
    desc = read_description(ROOT / "examples" / "spinning_spacecraft.toml")
    if rate_parameter:
        desc["parameters"]["Omega"] = {"value": 2.0, "min": 0.5, "max": 4.0, "unit": "rad/s"}
    return _load(desc)


@pytest.mark.parametrize("rate", [0.5, 2.0, 4.0])
def test_nominal_blocks_equal_linearize_around_a_steady_spin(rate: float) -> None:
    from titop_lpv.linear.assemble import assemble

    model = _spacecraft(False)
    spin = {"body": "hub", "axis": [0, 0, 1], "rate": rate}
    op = tl.trim(model, ["panel1.q", "panel2.q"], kind="spin", spin=spin)
    ref = tl.linearize(model, op)  # the reduced state: the hub's attitude is cyclic
    G = assemble(model, op, {}, inputs=[], outputs=list(ref.state_labels))
    assert G.state_labels == list(ref.state_labels)
    scale = float(np.max(np.abs(ref.A)))
    assert np.max(np.abs(np.asarray(G.nominal().A) - ref.A)) <= 1e-12 * scale


def test_spin_rate_scheduled_and_hinge_stiffness_covered() -> None:
    model = _spacecraft(True)
    spin = {"body": "hub", "axis": [0, 0, 1], "rate": "Omega"}
    free = ["panel1.q", "panel2.q"]
    outputs = ["panel1_q", "panel2_q"]
    G = tl.linearize_uncertain(model, free, kind="spin", spin=spin, inputs=[], outputs=outputs,
                               uncertain={"Omega": (0.5, 4.0), "k_hinge": (60.0, 240.0)})
    assert G.kinds == {"Omega": "scheduled", "k_hinge": "covered",
                       "panel1_q_eq": "equilibrium", "panel2_q_eq": "equilibrium"}
    op0 = G.operating_point
    for values in _box_points(G, 8, seed=6):
        values = {k: v for k, v in values.items() if k in ("Omega", "k_hinge")}
        op = tl.trim(model, free, kind="spin", spin=spin, params=values, x0=op0.x)
        ref = tl.linearize(model, op, outputs=outputs)
        _assert_same(G.at(values), ref, f"spacecraft at {values}")


def test_spins_the_block_route_does_not_build_are_refused() -> None:
    desc = read_description(ROOT / "examples" / "spinning_spacecraft.toml")
    desc["gravity"] = [0.0, 0.0, -9.81]
    model = _load(desc)
    spin = {"body": "hub", "axis": [0, 0, 1], "rate": 2.0}
    with pytest.raises(tl.BlockRouteError, match="gravity"):
        tl.linearize_uncertain(model, ["panel1.q", "panel2.q"], kind="spin", spin=spin,
                               uncertain={"d_hinge": (1.0, 3.0)}, inputs=[],
                               outputs=["panel1_q"])


def _balloon_with_mass_parameters() -> dict:
    """The balloon's description with each body's mass a parameter m_<body> (± 20 %)."""
    desc = read_description(ROOT / "examples" / "balloon.toml")
    for body in desc["bodies"]:
        name = f"m_{body['name']}"
        desc["parameters"][name] = {"value": body["mass"], "min": 0.8 * body["mass"],
                                    "max": 1.2 * body["mass"], "unit": "kg"}
        body["mass"] = name
    return desc


def test_balloon_with_its_four_masses_uncertain() -> None:
    # masses move the hanging equilibrium (the balloon tilts with the centre of mass): the
    # tilt and the joint positions become equilibrium blocks; buoyancy follows the total mass
    desc = _balloon_with_mass_parameters()
    model = _load(desc)
    outputs = ["pendulum2_q", "balloon_phi"]
    names = [f"m_{b}" for b in model.body_names]
    G = tl.linearize_uncertain(model, BALLOON_FREE, guess=HANGING, uncertain=names,
                               inputs=["slider_tau"], outputs=outputs)
    op0 = G.operating_point
    for values in _box_points(G, 6, seed=12)[:6 + 4]:
        values = {k: v for k, v in values.items() if k in names}
        op = tl.trim(model, BALLOON_FREE, params=values, x0=op0.x)
        ref = tl.linearize(model, op, inputs=["slider_tau"], outputs=outputs)
        _assert_same(G.at(values), ref, f"balloon masses at {values}")


def test_arithmetic_on_the_uncertain_linearization(balloon) -> None:
    # its slot holding the operating point once shadowed the operators' helper method
    G = tl.linearize_uncertain(balloon, BALLOON_FREE, guess=HANGING, uncertain={"k": (25, 100)},
                               inputs=["slider_tau"], outputs=["pendulum2_q", "slider_q"])
    S = np.array([[1.0, 1.0]]) @ G
    T = tl.feedback(np.array([[0.0, 1.0]]) @ G, 2.0)
    values = {"k": 60.0}
    ref = G.at(values)
    assert np.allclose(S.at(values)(1j * OMEGA), (ref[0, 0] + ref[1, 0])(1j * OMEGA),
                       rtol=1e-12, atol=0.0)
    ref_T = control.feedback(ref[1, 0], 2.0)
    assert np.allclose(T.at(values)(1j * OMEGA), ref_T(1j * OMEGA), rtol=1e-10, atol=0.0)


def test_balloon_with_its_masses_and_buoyancy_fraction_uncertain() -> None:
    # the variant: four masses and the buoyancy fraction f are parameters; at f ≠ 1 a
    # vertical force input on the balloon (ballast, valve) is trimmed to (1 − f)·m·g, so the
    # free input moves with the parameters: an equilibrium block balloon_Fy_eq
    desc = _balloon_with_mass_parameters()
    desc["parameters"]["f_b"] = {"value": 1.0, "min": 0.9, "max": 1.1}
    desc["loads"][0]["fraction"] = "f_b"
    desc["inputs"] = [{"body": "balloon", "frame": "inertial"}]
    model = _load(desc)
    free = [*BALLOON_FREE, "balloon_Fy"]
    names = ["f_b", *(f"m_{b}" for b in model.body_names)]
    outputs = ["pendulum2_q", "balloon_phi", "balloon_y"]
    G = tl.linearize_uncertain(model, free, guess=HANGING, uncertain=names,
                               inputs=["slider_tau", "balloon_Fx"], outputs=outputs)
    assert G.kinds["balloon_Fy_eq"] == "equilibrium" and G.kinds["f_b"] == "covered"
    m = sum(float(model.default_params()[f"m_{b}"]) for b in model.body_names)
    lo, hi = G.params["balloon_Fy_eq"].lo, G.params["balloon_Fy_eq"].hi
    assert lo == pytest.approx(-0.1 * 1.2 * m * 9.81, rel=1e-9)  # (1 − f)·m·g at the corners
    assert hi == pytest.approx(0.1 * 1.2 * m * 9.81, rel=1e-9)
    pts = [{k: v for k, v in p.items() if k in names}
           for p in _box_points(G, 50, seed=21)]
    corners = {tuple(sorted(p.items())) for p in pts[50:]}
    assert len(corners) == 2 ** len(names)  # every vertex of the model parameters' box
    _two_routes(model, G, [*pts[:50], *(dict(c) for c in corners)],
                {"free": free, "guess": HANGING}, ["slider_tau", "balloon_Fx"], outputs,
                "balloon masses and buoyancy fraction")


def test_small_couplings_survive_the_repetition_reduction() -> None:
    # the balloon-borne telescope: couplings of 1e-4 (the balloon's momenta) beside LFT
    # entries of 1e4; a reduction whose rank tolerance is relative to ‖M‖₂ alone dropped them
    # (the nominal plant was off by 1.5e-5); linearize_uncertain checks its reduction
    model = _load(ROOT / "examples" / "telescope.toml")
    free = ["balloon.phi", "balloon.theta", "swivel.q", "ladder.q", "telescope_tau"]
    fixed = {"telescope.q": 0.5}
    kw = {"inputs": ["telescope_tau"], "outputs": ["telescope_q", "ladder_q"]}
    G = tl.linearize_uncertain(model, free, fixed,
                               uncertain={"k": (1400.0, 2600.0), "m_g": (450.0, 550.0)}, **kw)
    assert G.kinds == {"k": "exact", "m_g": "covered", "ladder_q_eq": "equilibrium"}
    # the reduction's rank decisions see through the units (states and signals evened out
    # first): m_g 8 (least 7: its eighth direction is a 1e-10 coupling the bound's rank
    # test may drop), the moving ladder angle 16 (least 14; 20 before the structured stage)
    reduced, least = {n: r for n, (_, r) in G.repeats.items()}, G.repeat_bounds
    assert reduced["k"] == least["k"] == 1 and reduced["m_g"] == 8 and least["m_g"] >= 7
    assert least["ladder_q_eq"] <= reduced["ladder_q_eq"] <= 16
    for values in ({"k": 2000.0, "m_g": 500.0}, {"k": 1400.0, "m_g": 550.0},
                   {"k": 2600.0, "m_g": 450.0}):
        op = tl.trim(model, free, fixed, params=values, x0=G.operating_point.x)
        _assert_same(G.at(values), tl.linearize(model, op, **kw), f"telescope at {values}")


def test_telescope_heading_dropped_though_it_enters_delta_channels() -> None:
    # the heading enters Δ channels whose effects cancel (gravity turned about itself): its
    # column of M is not zero, every plant's is; drop_integrators drops it, and the plants
    # equal the nonlinear route's with the same states dropped
    model = _load(ROOT / "examples" / "telescope.toml")
    free = ["balloon.phi", "balloon.theta", "swivel.q", "ladder.q", "telescope_tau"]
    fixed = {"telescope.q": 0.5}
    kw = {"inputs": ["telescope_tau"], "outputs": ["telescope_q", "ladder_q"]}
    G = tl.linearize_uncertain(model, free, fixed, drop_integrators=True,
                               uncertain={"k": (1400.0, 2600.0), "m_g": (450.0, 550.0)}, **kw)
    assert set(G.dropped_states) == {"balloon_x", "balloon_y", "balloon_z", "balloon_psi"}
    for values in ({"k": 1400.0, "m_g": 550.0}, {"k": 2600.0, "m_g": 450.0},
                   {"k": 1900.0, "m_g": 510.0}):
        op = tl.trim(model, free, fixed, params=values, x0=G.operating_point.x)
        ref = tl.linearize(model, op, drop_integrators=True, **kw)
        assert list(G.state_labels) == list(ref.state_labels)
        _assert_same(G.at(values), ref, f"telescope without its integrators at {values}")


def _turntable() -> tl.Model:
    """A turntable spinning about the vertical (gravity along the axis) carrying an arm on a
    torsional hinge: centrifugal loads lift the arm."""
    return _load({
        "name": "turntable", "gravity": [0.0, 0.0, -9.81],
        "parameters": {"k_arm": {"value": 40.0, "min": 20.0, "max": 80.0},
                       "d_arm": {"value": 0.5, "min": 0.2, "max": 1.0},
                       "Omega": {"value": 3.0, "min": 1.0, "max": 4.0, "unit": "rad/s"}},
        "bodies": [
            {"name": "table", "joint": {"type": "revolute", "axis": [0, 0, 1], "damping": 0.2,
                                        "actuated": True},
             "mass": 10.0, "inertia": [[1, 0, 0], [0, 1, 0], [0, 0, 1.8]],
             "ports": {"hinge": [0.5, 0.0, 0.2]}},
            {"name": "arm", "parent": "table.hinge",
             "joint": {"type": "revolute", "axis": [0, 1, 0], "stiffness": "k_arm",
                       "damping": "d_arm", "rest": 0.3},
             "mass": 2.0, "com": [0.4, 0.0, 0.0],
             "inertia": [[0.01, 0, 0], [0, 0.1, 0], [0, 0, 0.1]]},
        ]})


def test_spinning_revolute_joint_rate_scheduled_arm_covered() -> None:
    from titop_lpv.linear.assemble import assemble

    model = _turntable()
    free = ["arm.q", "table_tau"]
    for rate in (1.0, -2.0, 3.5):  # the nominal assembly, table angle cyclic
        op = tl.trim(model, free, kind="spin", spin={"body": "table", "axis": [0, 0, 1],
                                                     "rate": rate})
        ref = tl.linearize(model, op, inputs=["table_tau"])
        G = assemble(model, op, {}, inputs=["table_tau"], outputs=list(ref.state_labels))
        assert G.state_labels == list(ref.state_labels) == ["table_qd", "arm_q", "arm_qd"]
        assert np.max(np.abs(np.asarray(G.nominal().A) - ref.A)) <= 1e-12 * np.max(
            np.abs(ref.A))
    spin = {"body": "table", "axis": [0, 0, 1], "rate": "Omega"}
    kw = {"inputs": ["table_tau"], "outputs": ["arm_q"]}
    G = tl.linearize_uncertain(model, free, kind="spin", spin=spin,
                               uncertain={"Omega": (1.0, 4.0), "k_arm": (20.0, 80.0),
                                          "d_arm": (0.2, 1.0)}, **kw)
    assert G.kinds == {"Omega": "scheduled", "k_arm": "covered", "d_arm": "exact",
                       "arm_q_eq": "equilibrium"}
    for values in _box_points(G, 8, seed=13)[:8 + 8]:
        values = {k: v for k, v in values.items() if k in ("Omega", "k_arm", "d_arm")}
        op = tl.trim(model, free, kind="spin", spin=spin, params=values,
                     x0=G.operating_point.x)
        _assert_same(G.at(values), tl.linearize(model, op, **kw), f"turntable at {values}")
