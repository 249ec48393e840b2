"""Self-checks of the Pinocchio peer and of the test models (no ``titop_lpv`` needed).

The peer (``tests/peer_pinocchio.py``) is checked against closed forms (pendulums, Euler's
equations, Newton–Euler of a free body pushed at an offset point), against an independent
NumPy forward kinematics, and against energy balances; the random models
(``tests/models.py``) are checked for determinism and physical consistency.
"""

from __future__ import annotations

import copy
import sys
from pathlib import Path

import numpy as np
import pinocchio as pin
import pytest
from scipy.integrate import solve_ivp
from scipy.linalg import expm
from scipy.spatial.transform import Rotation

if str(Path(__file__).resolve().parent) not in sys.path:
    sys.path.insert(0, str(Path(__file__).resolve().parent))

import models
import peer_pinocchio as pp

TWIST = ("vx", "vy", "vz", "wx", "wy", "wz")


# --------------------------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------------------------
def skew(w: np.ndarray) -> np.ndarray:
    """Cross-product matrix."""
    return np.array([[0.0, -w[2], w[1]], [w[2], 0.0, -w[0]], [-w[1], w[0], 0.0]])


def free_config(name, position, rot, twist) -> dict:
    """Project-named state of a free body."""
    config = {f"{name}_{c}": float(x) for c, x in zip("xyz", position, strict=True)}
    config[f"{name}_R"] = np.asarray(rot, dtype=float)
    config.update({f"{name}_{c}": float(x) for c, x in zip(TWIST, twist, strict=True)})
    return config


def twist_rates(acc: dict, name: str) -> np.ndarray:
    return np.array([acc[f"{name}_{c}"] for c in TWIST])


def newton_euler(mass, com, inertia_c, vel, w, force_b, moment_b_origin):
    """Body-frame twist rates of a free rigid body (origin P, centre of mass at ``com``).

    ``force_b``: resultant force, ``moment_b_origin``: resultant moment about P, both in the
    body frame (gravity included by the caller).
    """
    moment_c = moment_b_origin - np.cross(com, force_b)
    wdot = np.linalg.solve(inertia_c, moment_c - np.cross(w, inertia_c @ w))
    vdot = force_b / mass - np.cross(w, vel) - np.cross(wdot, com) - np.cross(w, np.cross(w, com))
    return np.concatenate([vdot, wdot])


def undamped(desc: dict) -> dict:
    out = copy.deepcopy(desc)
    for body in out["bodies"]:
        if "damping" in body["joint"]:
            body["joint"]["damping"] = 0.0
    return out


def numpy_fk(desc: dict, config: dict) -> dict:
    """Independent forward kinematics from the description (parameters already resolved)."""
    bodies = {b["name"]: b for b in desc["bodies"]}
    poses: dict = {}

    def pose(name):
        if name in poses:
            return poses[name]
        body = bodies[name]
        joint = body["joint"]
        if "parent" not in body:
            r_p, rot_p, port = np.zeros(3), np.eye(3), np.zeros(3)
        else:
            parent = body["parent"]
            if parent in bodies:
                pname, port = parent, np.zeros(3)
            else:
                pname, pport = parent.rsplit(".", 1)
                port = np.asarray(bodies[pname]["ports"][pport], dtype=float)
            r_p, rot_p = pose(pname)
        rot0 = np.asarray(joint.get("rotation", np.eye(3)), dtype=float)
        kind = joint["type"]
        if kind == "free":
            result = np.array([config[f"{name}_{c}"] for c in "xyz"]), config[f"{name}_R"]
        elif kind == "weld":
            result = r_p + rot_p @ port, rot_p @ rot0
        else:
            axis = np.asarray(joint["axis"], dtype=float)
            axis = axis / np.linalg.norm(axis)
            q = config[f"{name}_q"]
            if kind == "revolute":
                result = r_p + rot_p @ port, rot_p @ rot0 @ expm(q * skew(axis))
            else:
                result = r_p + rot_p @ (port + rot0 @ axis * q), rot_p @ rot0
        poses[name] = result
        return result

    for name in bodies:
        pose(name)
    return poses


# --------------------------------------------------------------------------------------------
# the fext frame convention of pinocchio.aba
# --------------------------------------------------------------------------------------------
def test_pinocchio_fext_is_local_joint_frame():
    rng = np.random.default_rng(0)
    mass, com = 2.0, np.array([0.3, -0.2, 0.5])
    a = rng.normal(size=(3, 3))
    inertia_c = a @ a.T + np.eye(3)
    model = pin.Model()
    model.gravity.linear = np.zeros(3)
    jid = model.addJoint(0, pin.JointModelFreeFlyer(), pin.SE3.Identity(), "b")
    model.appendBodyToJoint(jid, pin.Inertia(mass, com, inertia_c), pin.SE3.Identity())
    data = model.createData()
    rot = Rotation.random(random_state=rng).as_matrix()
    pos = rng.normal(size=3)
    q = np.concatenate([pos, pin.Quaternion(rot).coeffs()])
    v = rng.normal(size=6)
    point, force = np.array([1.0, 0.5, -0.7]), np.array([3.0, -1.0, 2.0])  # body frame
    expected = newton_euler(mass, com, inertia_c, v[:3], v[3:], force, np.cross(point, force))
    local = [pin.Force.Zero(), pin.Force(force, np.cross(point, force))]
    ddq = pin.aba(model, data, q, v, np.zeros(6), local)
    np.testing.assert_allclose(ddq, expected, atol=1e-12)
    # the WORLD-frame reading of the same load gives something else: the check discriminates
    fw, pw = rot @ force, pos + rot @ point
    world = [pin.Force.Zero(), pin.Force(fw, np.cross(pw, fw))]
    assert np.max(np.abs(pin.aba(model, data, q, v, np.zeros(6), world) - expected)) > 0.1


# --------------------------------------------------------------------------------------------
# closed forms
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("damping", [0.0, 0.7])
def test_pendulum_closed_form(damping):
    length, mass, g = 1.3, 2.0, 9.81
    peer = pp.build(models.pendulum(length=length, mass=mass, g=g, damping=damping))
    for theta in np.linspace(-3.0, 3.0, 7):
        for rate in (-1.5, 0.0, 2.0):
            acc = peer.aba({"pendulum_q": theta, "pendulum_qd": rate})
            expected = -g / length * np.sin(theta) - damping * rate / (mass * length**2)
            assert acc["pendulum_qd"] == pytest.approx(expected, abs=1e-12)
    kin, pot = peer.energy({"pendulum_q": 0.4, "pendulum_qd": 1.1})
    assert kin == pytest.approx(0.5 * mass * length**2 * 1.1**2, rel=1e-12)
    assert pot == pytest.approx(-mass * g * length * np.cos(0.4), rel=1e-12)


def test_spring_pendulum_closed_form():
    length, m, mc, k, d, rest, g = 0.8, 2.0, 1.5, 40.0, 0.3, 0.2, 9.81
    desc = models.spring_pendulum(length, m, mc, k, d, rest, g)
    peer = pp.build(desc)
    rng = np.random.default_rng(1)
    total = m + mc
    for _ in range(5):
        q, qd, th, thd = rng.uniform(-1.5, 1.5, 4)
        acc = peer.aba({"carriage_q": q, "carriage_qd": qd, "pendulum_q": th, "pendulum_qd": thd})
        coupling = m * length * np.sin(th)
        mass = np.array([[total, coupling], [coupling, m * length**2]])
        rhs = np.array(
            [
                -k * (q - rest) - d * qd - total * g - m * length * np.cos(th) * thd**2,
                -m * g * length * np.sin(th),
            ]
        )
        expected = np.linalg.solve(mass, rhs)
        np.testing.assert_allclose(
            [acc["carriage_qd"], acc["pendulum_qd"]], expected, rtol=1e-11, atol=1e-11
        )


def test_free_body_euler_equations():
    inertia = np.array([[2.0, 0.3, 0.1], [0.3, 3.0, -0.2], [0.1, -0.2, 4.0]])
    peer = pp.build(models.free_body(inertia=inertia, w0=[0.1, 1.0, 0.05], mass=1.5))
    rng = np.random.default_rng(2)
    for _ in range(3):
        twist = rng.normal(size=6)
        rot = Rotation.random(random_state=rng).as_matrix()
        acc = twist_rates(peer.aba(free_config("body", rng.normal(size=3), rot, twist)), "body")
        vel, w = twist[:3], twist[3:]
        expected = np.concatenate(
            [-np.cross(w, vel), np.linalg.solve(inertia, -np.cross(w, inertia @ w))]
        )
        np.testing.assert_allclose(acc, expected, atol=1e-12)
    config = peer.initial_config()
    np.testing.assert_allclose([config[f"body_{c}"] for c in ("wx", "wy", "wz")], [0.1, 1.0, 0.05])


def test_falling_body():
    g = 9.81
    desc = models.falling_body(g=g)
    inertia = np.asarray(desc["bodies"][0]["inertia"])
    peer = pp.build(desc)
    rng = np.random.default_rng(3)
    grav = np.array([0.0, -g, 0.0])
    rot = Rotation.random(random_state=rng).as_matrix()
    acc = twist_rates(peer.aba(free_config("body", [1.0, 2.0, 3.0], rot, np.zeros(6))), "body")
    np.testing.assert_allclose(acc, np.concatenate([rot.T @ grav, np.zeros(3)]), atol=1e-12)
    twist = rng.normal(size=6)
    vel, w = twist[:3], twist[3:]
    acc = twist_rates(peer.aba(free_config("body", [1.0, 2.0, 3.0], rot, twist)), "body")
    expected = np.concatenate(
        [rot.T @ grav - np.cross(w, vel), np.linalg.solve(inertia, -np.cross(w, inertia @ w))]
    )
    np.testing.assert_allclose(acc, expected, atol=1e-12)


def test_free_body_loads_newton_euler():
    """Inertial/body-frame forces at offset points and torques, against Newton–Euler."""
    rng = np.random.default_rng(4)
    mass, com = 1.7, np.array([0.2, -0.4, 0.3])
    inertia_c = np.asarray(models._inertia(rng, mass))
    grav = np.array([0.5, -9.81, 1.0])
    ports = {"a": [1.0, 0.5, -0.7], "b": [-0.3, 0.8, 0.2]}
    loads = [
        {"type": "force", "body": "body", "point": "a", "force": [3.0, -1.0, 2.0]},
        {"type": "force", "body": "body", "point": "b", "force": [0.5, 2.0, -1.0], "frame": "body"},
        {"type": "torque", "body": "body", "torque": [0.3, -0.2, 0.9], "frame": "inertial"},
        {"type": "torque", "body": "body", "torque": [-0.4, 0.1, 0.2], "frame": "body"},
        {"type": "buoyancy", "body": "body", "point": "b", "fraction": 0.6},
        {"type": "force", "body": "body", "point": "com", "force": [0.0, 0.0, 1.0]},
    ]
    desc = {
        "name": "pushed",
        "gravity": grav.tolist(),
        "parameters": {},
        "bodies": [
            {
                "name": "body",
                "joint": {"type": "free"},
                "mass": mass,
                "inertia": inertia_c.tolist(),
                "com": com.tolist(),
                "ports": ports,
            }
        ],
        "loads": loads,
    }
    peer = pp.build(desc)
    rot = Rotation.random(random_state=rng).as_matrix()
    twist = rng.normal(size=6)
    acc = twist_rates(peer.aba(free_config("body", rng.normal(size=3), rot, twist)), "body")
    pa, pb = np.array(ports["a"]), np.array(ports["b"])
    forces = [  # (body-frame force, body-frame application point)
        (rot.T @ np.array([3.0, -1.0, 2.0]), pa),
        (np.array([0.5, 2.0, -1.0]), pb),
        (rot.T @ (-0.6 * mass * grav), pb),
        (rot.T @ np.array([0.0, 0.0, 1.0]), com),
        (rot.T @ (mass * grav), com),
    ]
    force = sum(f for f, _ in forces)
    moment = sum(np.cross(p, f) for f, p in forces)
    moment = moment + rot.T @ np.array([0.3, -0.2, 0.9]) + np.array([-0.4, 0.1, 0.2])
    expected = newton_euler(mass, com, inertia_c, twist[:3], twist[3:], force, moment)
    np.testing.assert_allclose(acc, expected, atol=1e-11)
    with pytest.raises(ValueError, match="non-conservative"):
        peer.energy(free_config("body", np.zeros(3), rot, twist))


def test_buoyancy_cancels_gravity():
    desc = models.falling_body()
    desc["loads"] = [{"type": "buoyancy", "body": "body", "point": "com"}]
    peer = pp.build(desc)
    rot = Rotation.random(random_state=5).as_matrix()
    acc = twist_rates(peer.aba(free_config("body", [0.0, 1.0, 0.0], rot, np.zeros(6))), "body")
    np.testing.assert_allclose(acc, 0.0, atol=1e-12)
    _, pot = peer.energy(free_config("body", [0.3, 1.0, -2.0], rot, np.zeros(6)))
    assert pot == pytest.approx(0.0, abs=1e-12)


# --------------------------------------------------------------------------------------------
# welds, ordering, parameters
# --------------------------------------------------------------------------------------------
def test_weld_compound_pendulum():
    """A point mass welded (rotated, offset) to a pendulum: compound-pendulum closed form."""
    g, m1, m2 = 9.81, 2.0, 0.7
    rot_w = Rotation.from_euler("zyx", [0.4, -0.3, 1.1]).as_matrix()
    c2 = np.array([0.3, -0.5, 0.2])
    desc = models.pendulum(length=1.0, mass=m1, g=g)
    desc["bodies"][0]["ports"] = {"tip": [0.2, -1.0, 0.4]}
    desc["bodies"].insert(
        0,
        {
            "name": "tip",
            "parent": "pendulum.tip",
            "joint": {"type": "weld", "rotation": rot_w.tolist()},
            "mass": m2,
            "com": c2.tolist(),
        },
    )
    peer = pp.build(desc)
    points = [(m1, np.array([0.0, -1.0, 0.0])), (m2, np.array([0.2, -1.0, 0.4]) + rot_w @ c2)]
    inertia_z = sum(m * (p[0] ** 2 + p[1] ** 2) for m, p in points)
    for theta in (-2.0, 0.3, 1.4):
        rz = Rotation.from_euler("z", theta).as_matrix()
        torque = sum(np.cross(rz @ p, m * np.array([0.0, -g, 0.0]))[2] for m, p in points)
        acc = peer.aba({"pendulum_q": theta, "pendulum_qd": 0.8})
        assert acc["pendulum_qd"] == pytest.approx(torque / inertia_z, rel=1e-12)
        poses = peer.positions({"pendulum_q": theta, "pendulum_qd": 0.8})
        np.testing.assert_allclose(poses["tip"][0], rz @ np.array([0.2, -1.0, 0.4]), atol=1e-14)
        np.testing.assert_allclose(poses["tip"][1], rz @ rot_w, atol=1e-14)


def test_weld_loads_map_to_parent():
    """A body-frame force on a welded child equals the mapped force on its parent."""
    rot_w = Rotation.random(random_state=6).as_matrix()
    port, p_child, f_child = np.array([0.5, -0.2, 0.1]), np.array([0.3, 0.4, -0.6]), np.ones(3)
    base = models.falling_body()
    base["bodies"][0]["ports"] = {"C": port.tolist(), "Q": (port + rot_w @ p_child).tolist()}
    welded = copy.deepcopy(base)
    welded["bodies"].append(
        {
            "name": "child",
            "parent": "body.C",
            "joint": {"type": "weld", "rotation": rot_w.tolist()},
            "mass": 0.0,
            "ports": {"P": p_child.tolist()},
        }
    )
    welded["loads"] = [
        {"type": "force", "body": "child", "point": "P", "force": f_child.tolist(),
         "frame": "body"},
        {"type": "torque", "body": "child", "torque": [0.0, 1.0, 0.0], "frame": "body"},
    ]  # fmt: skip
    base["loads"] = [
        {"type": "force", "body": "body", "point": "Q", "force": (rot_w @ f_child).tolist(),
         "frame": "body"},
        {"type": "torque", "body": "body", "torque": (rot_w @ [0.0, 1.0, 0.0]).tolist(),
         "frame": "body"},
    ]  # fmt: skip
    config = free_config("body", [1, 2, 3], Rotation.random(random_state=7).as_matrix(), np.ones(6))
    a_welded = twist_rates(pp.build(welded).aba(config), "body")
    a_base = twist_rates(pp.build(base).aba(config), "body")
    np.testing.assert_allclose(a_welded, a_base, atol=1e-12)


@pytest.mark.parametrize("root", ["free", "fixed"])
def test_listing_order_does_not_matter(root):
    desc = models.random_tree(11, 7, root)
    config = models.random_config(desc, 1)
    reference = pp.build(desc).aba(config)
    rng = np.random.default_rng(0)
    for _ in range(3):
        shuffled = copy.deepcopy(desc)
        rng.shuffle(shuffled["bodies"])
        acc = pp.build(shuffled).aba(config)
        assert acc.keys() == reference.keys()
        for key, value in reference.items():
            assert acc[key] == pytest.approx(value, rel=1e-10, abs=1e-12), key


def test_parameters_resolve_and_override():
    for seed in range(6):
        plain = models.random_tree(seed, 5, "free")
        param = models.random_tree(seed, 5, "free", params=True)
        assert param["parameters"], "some leaves must be parameters"
        assert param != plain
        resolved_plain, resolved_param = pp.resolve(plain), pp.resolve(param)
        resolved_param["parameters"] = resolved_plain["parameters"] = {}
        assert resolved_param == resolved_plain
        config = models.random_config(plain, seed)
        assert pp.build(param).aba(config) == pytest.approx(pp.build(plain).aba(config))
    desc = models.balloon()
    assert pp.build(desc).dofs[1].stiffness == 50.0
    assert pp.build(desc, params={"k": 80.0}).dofs[1].stiffness == 80.0
    with pytest.raises(KeyError):
        pp.build(desc, params={"nope": 1.0})


def test_invalid_descriptions_raise():
    desc = models.pendulum()
    two_roots = copy.deepcopy(desc)
    two_roots["bodies"].append(copy.deepcopy(desc["bodies"][0]) | {"name": "other"})
    free_child = copy.deepcopy(desc)
    free_child["bodies"].append({"name": "c", "parent": "pendulum", "joint": {"type": "free"}})
    bad_port = copy.deepcopy(desc)
    bad_port["bodies"].append(
        {"name": "c", "parent": "pendulum.nope", "joint": {"type": "weld"}, "mass": 1.0}
    )
    cycle = copy.deepcopy(desc)
    cycle["bodies"] += [
        {"name": "a", "parent": "b", "joint": {"type": "weld"}},
        {"name": "b", "parent": "a", "joint": {"type": "weld"}},
    ]
    for bad in (two_roots, free_child, bad_port, cycle):
        with pytest.raises(ValueError):
            pp.build(bad)


def test_actuated_input():
    desc = models.spring_pendulum()
    desc["bodies"][1]["joint"]["actuated"] = True
    peer = pp.build(desc)
    config = {"carriage_q": 0.1, "carriage_qd": 0.2, "pendulum_q": 0.7, "pendulum_qd": -0.4}
    base = peer.aba(config)
    pushed = peer.aba(config, {"pendulum_tau": 2.5})
    delta = np.array([pushed[k] - base[k] for k in ("carriage_qd", "pendulum_qd")])
    np.testing.assert_allclose(delta, np.linalg.solve(peer.mass_matrix(config), [0, 2.5]))
    with pytest.raises(ValueError):
        peer.aba(config, {"carriage_tau": 1.0})


def test_euler_fallback_matches_rotation():
    angles = [0.3, -0.7, 1.9]  # (phi, theta, psi)
    expected = Rotation.from_euler("ZYX", angles[::-1]).as_matrix()  # Rz(psi) Ry(th) Rx(phi)
    np.testing.assert_allclose(pp.euler_to_dcm("321", angles), expected, atol=1e-15)
    peer = pp.build(models.falling_body())
    config = free_config("body", [0, 0, 0], pp.euler_to_dcm("213", angles), np.ones(6))
    by_euler = {k: v for k, v in config.items() if k != "body_R"}
    by_euler.update(dict(zip(("body_phi", "body_theta", "body_psi"), angles, strict=True)))
    assert peer.aba(by_euler) == pytest.approx(peer.aba(config), abs=1e-14)


# --------------------------------------------------------------------------------------------
# random models
# --------------------------------------------------------------------------------------------
def test_random_tree_properties():
    assert models.random_tree(5, 8) == models.random_tree(5, 8)
    assert models.random_tree(5, 8) != models.random_tree(6, 8)
    shuffled = several_children = 0
    kinds = set()
    for seed in range(30):
        for root in ("free", "fixed"):
            desc = models.random_tree(seed, 6, root)
            bodies = desc["bodies"]
            names = [b["name"] for b in bodies]
            shuffled += names != sorted(names, key=lambda n: int(n[1:]))
            roots = [b for b in bodies if "parent" not in b]
            assert len(roots) == 1
            assert (roots[0]["joint"]["type"] == "free") == (root == "free")
            parents = [b["parent"].split(".")[0] for b in bodies if "parent" in b]
            several_children += max(parents.count(n) for n in names) >= 2
            for body in bodies:
                joint = body["joint"]
                kinds.add(joint["type"])
                assert joint["type"] != "free" or "parent" not in body
                assert 0.5 <= body["mass"] <= 3.0
                inertia = np.asarray(body["inertia"])
                np.testing.assert_allclose(inertia, inertia.T)
                ev = np.linalg.eigvalsh(inertia)
                assert ev[0] > 0 and ev[2] < ev[0] + ev[1]
                assert np.all(np.abs(body["com"]) <= 1.0)
                if "rotation" in joint:
                    rot = np.asarray(joint["rotation"])
                    np.testing.assert_allclose(rot @ rot.T, np.eye(3), atol=1e-12)
                    assert np.linalg.det(rot) > 0
            assert pp.build(desc).nv >= 1
    assert shuffled > 5 and several_children == 60
    assert kinds == {"free", "revolute", "prismatic", "weld"}
    axes = [np.linalg.norm(b["joint"]["axis"]) for b in models.random_tree(1, 10)["bodies"]
            if "axis" in b["joint"]]  # fmt: skip
    assert not np.allclose(axes, 1.0)
    plain = models.random_tree(3, 6, gravity=False, springs=False, loads=False)
    assert plain["gravity"] == [0.0, 0.0, 0.0] and plain["loads"] == []
    assert all("stiffness" not in b["joint"] for b in plain["bodies"])
    loaded = [models.random_tree(s, 6, loads="conservative")["loads"] for s in range(10)]
    for loads in loaded:
        assert loads and all(
            ld["type"] == "buoyancy" or (ld["type"] == "force" and ld["frame"] == "inertial")
            for ld in loads
        )


@pytest.mark.parametrize("root", ["free", "fixed"])
def test_positions_and_com_match_numpy(root):
    for seed in range(5):
        desc = models.random_tree(seed, 7, root)
        peer = pp.build(desc)
        config = models.random_config(desc, seed + 100)
        poses = peer.positions(config)
        reference = numpy_fk(desc, config)
        assert poses.keys() == reference.keys()
        for name, (r, rot) in poses.items():
            np.testing.assert_allclose(r, reference[name][0], atol=1e-12)
            np.testing.assert_allclose(rot, reference[name][1], atol=1e-12)
        bodies = {b["name"]: b for b in desc["bodies"]}
        total = sum(b["mass"] for b in bodies.values())
        com = sum(b["mass"] * (reference[n][0] + reference[n][1] @ b["com"])
                  for n, b in bodies.items()) / total  # fmt: skip
        np.testing.assert_allclose(peer.com(config), com, atol=1e-12)


def _energy_rate(peer, config, u=None, h=1e-5):
    x = peer.state_vector(config)
    dx = peer.rhs(0.0, x, u)
    e_plus = sum(peer.energy(peer.config_from_vector(x + h * dx)))
    e_minus = sum(peer.energy(peer.config_from_vector(x - h * dx)))
    return (e_plus - e_minus) / (2 * h)


@pytest.mark.parametrize("root", ["free", "fixed"])
def test_energy_rate_is_joint_power(root):
    """dE/dt = sum(-d qd^2 + u qd): checks spring, damping, gravity and constant forces."""
    for seed in range(4):
        desc = models.random_tree(seed, 6, root, loads="conservative")
        peer = pp.build(desc)
        config = models.random_config(desc, seed)
        u = {f"{d.body}_tau": 0.7 + d.idx_v for d in peer.dofs if d.actuated}
        power = sum(
            (-d.damping * config[f"{d.body}_qd"] + u.get(f"{d.body}_tau", 0.0))
            * config[f"{d.body}_qd"]
            for d in peer.dofs
            if d.kind != "free"
        )
        scale = 1.0 + abs(power) + abs(sum(peer.energy(config)))
        assert _energy_rate(peer, config, u) == pytest.approx(power, abs=1e-6 * scale)


def _integrate_energy_drift(peer, config, t_end):
    e0 = sum(peer.energy(config))
    sol = solve_ivp(peer.rhs, (0.0, t_end), peer.state_vector(config), method="DOP853",
                    rtol=1e-10, atol=1e-12)  # fmt: skip
    assert sol.success
    energies = [sum(peer.energy(peer.config_from_vector(x))) for x in sol.y.T]
    return max(abs(e - e0) for e in energies), sol


def test_balloon_initial_accelerations_finite():
    peer = pp.build(models.balloon())
    config = peer.initial_config()
    acc = peer.aba(config)
    assert set(acc) == {*(f"balloon_{c}" for c in TWIST), "slider_qd", "pendulum1_qd",
                        "pendulum2_qd"}  # fmt: skip
    assert all(np.isfinite(list(acc.values())))
    assert peer.nv == 9 and peer.total_mass == 16.0


def test_balloon_energy_conserved():
    peer = pp.build(models.balloon(), params={"ds": 0.0, "dp1": 0.0, "dp2": 0.0})
    config = peer.initial_config()
    config.update({"balloon_wz": 0.3, "balloon_vx": 0.2, "slider_qd": 0.5})
    drift, sol = _integrate_energy_drift(peer, config, 2.0)
    assert drift < 1e-7
    rot = sol.y[3:12, -1].reshape(3, 3)
    np.testing.assert_allclose(rot @ rot.T, np.eye(3), atol=1e-8)
    # the damped balloon loses energy
    damped = pp.build(models.balloon())
    _, sol = _integrate_energy_drift(damped, config, 0.5)
    e_end = sum(damped.energy(damped.config_from_vector(sol.y[:, -1])))
    assert e_end < sum(damped.energy(config)) - 1e-3


@pytest.mark.parametrize("root", ["free", "fixed"])
@pytest.mark.parametrize("seed", [0, 2])
def test_random_tree_energy_conserved(root, seed):
    desc = undamped(models.random_tree(seed, 5, root, loads="conservative"))
    peer = pp.build(desc)
    drift, _ = _integrate_energy_drift(peer, peer.initial_config(), 1.0)
    assert drift < 1e-7 * (1.0 + abs(sum(peer.energy(peer.initial_config()))))
