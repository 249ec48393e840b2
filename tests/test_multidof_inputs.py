"""Torque inputs of spherical and universal joints (``actuated = true``).

A spherical joint's inputs ``b_tau_x b_tau_y b_tau_z`` are the torque the parent applies to
the child about the joint point, in child-frame components (the generalized force of the
child-frame relative angular velocity ``b_wx b_wy b_wz``); a universal joint's ``b_tau1
b_tau2`` are the torques about its two axes (the generalized forces of ``b_q1 b_q2``).

Checked against Pinocchio (``aba`` with the torques on ``JointModelSpherical``'s three
velocity d.o.f. and on the two revolute joints of a universal joint; ``computeMinverse``
for the input matrix of ``linearize``), by power balance (``dE/dt = τ·ν`` without dampers,
loads or dissipation), against closed forms (a spherical pendulum held off-vertical, a
torque spinning a body up) and through inverse dynamics, the model file and ``save_model``.
"""

from __future__ import annotations

import copy

import numpy as np
import pinocchio as pin
import pytest
from scipy.spatial.transform import Rotation
from test_spherical_peer import Peer, _pair, mixed_tree

import titop_lpv as tl
from titop_lpv.multibody.dynamics import forward_dynamics

INERTIA = [[0.09, 0.0, 0.0], [0.0, 0.08, 0.0], [0.0, 0.0, 0.02]]


def actuated_tree(seed: int, n: int, root: str, springs: bool = True) -> dict:
    """``mixed_tree`` without driven joints, every moving joint actuated."""
    desc = mixed_tree(seed, n, root, springs=springs)
    for body in desc["bodies"]:
        j = body["joint"]
        j.pop("motion", None)
        if j["type"] in ("revolute", "prismatic", "spherical", "universal"):
            j["actuated"] = True
    return desc


def pinocchio_xdot(peer: Peer, model: tl.Model, x: np.ndarray, u: np.ndarray) -> np.ndarray:
    """Pinocchio's state derivative in our state order (``aba``), the joint torques made of
    the springs, dampers and the inputs ``b_tau``, ``b_tau_x …``, ``b_tau1 …``."""
    s = {n: x[k] for k, n in enumerate(model.state_names)}
    ins = {n: u[k] for k, n in enumerate(model.input_names)}
    q, v, tau = np.zeros(peer.model.nq), np.zeros(peer.model.nv), np.zeros(peer.model.nv)
    for dof in peer.dofs:
        b, j, iq, iv = dof.body, peer.bodies[dof.body]["joint"], dof.idx_q, dof.idx_v
        if dof.kind == "free":
            q[iq:iq + 3] = [s[f"{b}_{c}"] for c in "xyz"]
            q[iq + 3:iq + 7] = Rotation.from_matrix(model.rotation(x, b)).as_quat()
            v[iv:iv + 6] = [s[f"{b}_{c}"] for c in ("vx", "vy", "vz", "wx", "wy", "wz")]
        elif dof.kind == "spherical":
            qq = np.array([s[f"{b}_q{c}"] for c in "wxyz"])
            qq /= np.linalg.norm(qq)
            q[iq:iq + 4] = [*qq[1:], qq[0]]
            w = np.array([s[f"{b}_w{c}"] for c in "xyz"])
            v[iv:iv + 3] = w
            rest = np.asarray(j.get("rest", [1, 0, 0, 0]), dtype=float)
            theta = (Rotation.from_quat([*rest[1:], rest[0]]).inv()
                     * Rotation.from_quat(q[iq:iq + 4])).as_rotvec()
            tau[iv:iv + 3] = (-j.get("stiffness", 0.0) * theta - j.get("damping", 0.0) * w
                              + [ins.get(f"{b}_tau_{c}", 0.0) for c in "xyz"])
        elif dof.kind == "universal":
            qq = np.array([s[f"{b}_q1"], s[f"{b}_q2"]])
            qd = np.array([s[f"{b}_qd1"], s[f"{b}_qd2"]])
            q[iq:iq + 2], v[iv:iv + 2] = qq, qd
            tau[iv:iv + 2] = (-_pair(j.get("stiffness")) * (qq - _pair(j.get("rest")))
                              - _pair(j.get("damping")) * qd
                              + [ins.get(f"{b}_tau1", 0.0), ins.get(f"{b}_tau2", 0.0)])
        else:
            q[iq], v[iv] = s[f"{b}_q"], s[f"{b}_qd"]
            tau[iv] = (-dof.stiffness * (q[iq] - dof.rest) - dof.damping * v[iv]
                       + ins.get(f"{b}_tau", 0.0))
    ddq = pin.aba(peer.model, peer.data, q, v, tau)
    xdot = np.full(model.n_states, np.nan)
    idx = {n: k for k, n in enumerate(model.state_names)}
    for dof in peer.dofs:
        b, iv = dof.body, dof.idx_v
        names = {"free": [f"{b}_{c}" for c in ("vx", "vy", "vz", "wx", "wy", "wz")],
                 "spherical": [f"{b}_w{c}" for c in "xyz"],
                 "universal": [f"{b}_qd1", f"{b}_qd2"]}.get(dof.kind, [f"{b}_qd"])
        for k, name in enumerate(names):
            xdot[idx[name]] = ddq[iv + k]
    return xdot


# ------------------------------------------------------------------ names and schema
def test_input_names_units_and_columns():
    desc = {"gravity": [0, 0, -9.81], "bodies": [
        {"name": "arm", "joint": {"type": "revolute", "actuated": True}, "mass": 1.0,
         "com": [0.5, 0, 0], "inertia": INERTIA, "ports": {"tip": [1.0, 0, 0]}},
        {"name": "ball", "parent": "arm.tip", "joint": {"type": "spherical", "actuated": True},
         "mass": 1.0, "com": [0, 0, -0.5], "inertia": INERTIA, "ports": {"tip": [0, 0, -1.0]}},
        {"name": "drive", "parent": "ball.tip", "mass": 1.0, "com": [0, 0, -0.5],
         "inertia": INERTIA, "joint": {"type": "revolute", "axis": [1, 0, 0],
                                       "motion": "input"}},
        {"name": "cardan", "parent": "drive", "joint": {"type": "universal", "actuated": True},
         "mass": 1.0, "com": [0, 0.2, -0.5], "inertia": INERTIA}],
        "inputs": [{"body": "cardan"}]}
    model = tl.load_model(desc)
    assert model.input_names == (
        "arm_tau", "ball_tau_x", "ball_tau_y", "ball_tau_z", "drive_qdd", "cardan_tau1",
        "cardan_tau2", "cardan_Fx", "cardan_Fy", "cardan_Fz", "cardan_Tx", "cardan_Ty",
        "cardan_Tz")
    assert model.tau_column.tolist() == [0, 1, -1, 5]
    assert model.wrench_inputs.col.tolist() == [7]  # after every joint input
    units = model.units()
    assert [units[f"ball_tau_{c}"] for c in "xyz"] == ["N m"] * 3
    assert units["cardan_tau1"] == units["cardan_tau2"] == "N m"
    assert model.input_index("ball.tau_y") == 2
    # the wrench input acts where its columns say: a force Fy at the origin of 'cardan'
    # equals (inverse dynamics) the same force given as a torque-free load
    x = model.default_state() + 0.2
    u = np.zeros(model.n_inputs)
    u[model.input_index("cardan_Fy")] = 3.0
    u[model.input_index("drive_qdd")] = 0.7
    nu = model.velocity_names()
    acc = np.linspace(-1, 1, len(nu))
    ours = tl.inverse_dynamics(model, x, acc, u).actuation
    f0 = tl.inverse_dynamics(model, x, acc, np.where(np.arange(model.n_inputs) == 4, u, 0.0))
    assert np.max(np.abs(ours - f0.actuation)) > 0.1  # the wrench input is felt ...
    desc2 = copy.deepcopy(desc)
    desc2.pop("inputs")
    desc2["loads"] = [{"type": "force", "body": "cardan", "force": [0.0, 3.0, 0.0],
                       "frame": "body"}]
    ref = tl.inverse_dynamics(tl.load_model(desc2), x, acc,
                              np.delete(u, range(7, 13))).actuation
    np.testing.assert_allclose(ours, ref, rtol=0, atol=1e-12)  # ... as the equal load


@pytest.mark.parametrize("kind", ["spherical", "universal"])
def test_actuated_must_be_a_bool(kind):
    desc = {"bodies": [{"name": "b", "joint": {"type": kind, "actuated": "yes"}, "mass": 1.0,
                        "com": [0, 0, -1], "inertia": INERTIA}]}
    with pytest.raises(tl.ModelError, match=r"body 'b': joint.actuated: must be true or false"):
        tl.load_model(desc)


def test_save_model_round_trip(tmp_path):
    desc = actuated_tree(3, 8, "free")
    model = tl.load_model(copy.deepcopy(desc))
    assert any(n.endswith("_tau_x") for n in model.input_names)
    assert any(n.endswith("_tau2") for n in model.input_names)
    for suffix in (".toml", ".json"):
        path = tl.save_model(model, tmp_path / f"m{suffix}")
        back = tl.load_model(path)
        assert back == model and back.input_names == model.input_names
        rng = np.random.default_rng(1)
        x = model.default_state() + 0.3 * rng.standard_normal(model.n_states)
        u = rng.standard_normal(model.n_inputs)
        np.testing.assert_array_equal(back.dynamics(0, x, u), model.dynamics(0, x, u))


# ------------------------------------------------------------------ dynamics
CASES = [(1, 4, "free"), (2, 6, "fixed"), (3, 8, "free"), (5, 10, "free"), (9, 6, "quaternion"),
         (7, 9, "fixed")]


@pytest.mark.parametrize(("seed", "n", "root"), CASES)
def test_forward_dynamics_vs_pinocchio(seed, n, root):
    desc = actuated_tree(seed, n, root)
    model = tl.load_model(copy.deepcopy(desc))
    assert any(nm.endswith(("_tau_x", "_tau1")) for nm in model.input_names)
    peer = Peer(copy.deepcopy(desc))
    rng = np.random.default_rng(seed)
    worst = {"numpy": 0.0, "compiled": 0.0}
    for _ in range(3):
        x = model.default_state() + 0.5 * rng.standard_normal(model.n_states)
        u = 3.0 * rng.standard_normal(model.n_inputs)
        ref = pinocchio_xdot(peer, model, x, u)
        acc = ~np.isnan(ref)
        scale = np.max(np.abs(ref[acc]))
        for backend in worst:
            ours = forward_dynamics(model, x, u, backend=backend)
            worst[backend] = max(worst[backend], np.max(np.abs(ours[acc] - ref[acc])) / scale)
    print(f"\nseed {seed} ({n} bodies, {root}): relative error {worst}")
    assert max(worst.values()) <= 1e-12


@pytest.mark.parametrize("seed", [3, 4])
def test_universal_spherical_chain_vs_pinocchio_universal_joint(seed):
    """Universal – spherical – universal chain against ``JointModelUniversal`` and
    ``JointModelSpherical`` (one Pinocchio joint each, torques on their velocity d.o.f.)."""
    rng = np.random.default_rng(seed)

    def unit(v):
        return v / np.linalg.norm(v)

    pm = pin.Model()
    pm.gravity = pin.Motion(np.array([0.0, 0.0, -9.81, 0.0, 0.0, 0.0]))
    bodies, parent, prev = [], 0, None
    for name in ("u0", "s1", "u2"):
        mass, com = float(rng.uniform(0.5, 2)), rng.uniform(-0.5, 0.5, 3)
        tip = rng.uniform(-1, 1, 3)
        R = Rotation.random(random_state=int(rng.integers(1 << 30))).as_matrix()
        inertia = R @ np.diag(rng.uniform(1.0, 1.8, 3) * 0.1) @ R.T  # triangle inequality
        joint = {"type": "spherical" if name[0] == "s" else "universal", "actuated": True}
        if name[0] == "u":
            a1 = unit(rng.standard_normal(3))
            a2 = unit(np.cross(a1, rng.standard_normal(3)))
            joint.update(axis1=a1.tolist(), axis2=a2.tolist())
            jm = pin.JointModelUniversal(a1, a2)
        else:
            jm = pin.JointModelSpherical()
        bodies.append({"name": name, "joint": joint, "mass": mass, "com": com.tolist(),
                       "inertia": inertia.tolist(), "ports": {"tip": tip.tolist()},
                       **({"parent": f"{prev[0]}.tip"} if prev else {})})
        jid = pm.addJoint(parent, jm, pin.SE3(np.eye(3), prev[1] if prev else np.zeros(3)),
                          name)
        pm.appendBodyToJoint(jid, pin.Inertia(mass, com, inertia), pin.SE3.Identity())
        parent, prev = jid, (name, tip)
    model = tl.load_model({"gravity": [0, 0, -9.81], "bodies": bodies})
    data = pm.createData()
    rates = ("u0_qd1", "u0_qd2", "s1_wx", "s1_wy", "s1_wz", "u2_qd1", "u2_qd2")
    torques = ("u0_tau1", "u0_tau2", "s1_tau_x", "s1_tau_y", "s1_tau_z", "u2_tau1", "u2_tau2")
    worst = 0.0
    for _ in range(3):
        x = model.default_state() + 0.6 * rng.standard_normal(model.n_states)
        u = 3.0 * rng.standard_normal(model.n_inputs)
        s = dict(zip(model.state_names, x))
        qq = np.array([s[f"s1_q{c}"] for c in "wxyz"])
        qq /= np.linalg.norm(qq)
        q = np.r_[s["u0_q1"], s["u0_q2"], qq[1:], qq[0], s["u2_q1"], s["u2_q2"]]
        v = np.array([s[r] for r in rates])
        ddq = pin.aba(pm, data, q, v, np.array([u[model.input_index(t)] for t in torques]))
        for backend in ("numpy", "compiled"):
            xd = forward_dynamics(model, x, u, backend=backend)
            ours = np.array([xd[model.state_index(r)] for r in rates])
            worst = max(worst, np.max(np.abs(ours - ddq)) / np.max(np.abs(ddq)))
    print(f"\nseed {seed}: relative error vs JointModelUniversal/Spherical {worst:.1e}")
    assert worst <= 1e-12


@pytest.mark.parametrize(("seed", "n", "root"), CASES[:4])
def test_inverse_dynamics_returns_the_torques(seed, n, root):
    """RNEA at the forward accelerations gives back every joint input (driven joints kept:
    their inputs are accelerations, their ``b_tau`` an output)."""
    desc = mixed_tree(seed, n, root)
    for body in desc["bodies"]:
        if body["joint"]["type"] in ("spherical", "universal"):
            body["joint"]["actuated"] = True
    model = tl.load_model(desc)
    rng = np.random.default_rng(seed + 7)
    x = model.default_state() + 0.5 * rng.standard_normal(model.n_states)
    u = rng.standard_normal(model.n_inputs)
    xd = model.dynamics(0.0, x, u)
    nu = model.velocity_names()
    res = tl.inverse_dynamics(model, x, np.array([xd[model.state_index(v)] for v in nu]), u)
    np.testing.assert_allclose(res.base_wrench, 0.0, atol=1e-10)
    y = model.outputs(0.0, x, u)
    off = 6 * model.floating_base
    expect = np.zeros(len(nu) - off)
    suffix = {"wx": "tau_x", "wy": "tau_y", "wz": "tau_z", "qd1": "tau1", "qd2": "tau2",
              "qd": "tau"}
    checked = 0
    for k, v in enumerate(nu[off:]):
        body, rate = v.rsplit("_", 1)
        name = f"{body}_{suffix[rate]}"
        if name in model.input_names:
            expect[k] = u[model.input_index(name)]
            checked += rate != "qd"
        elif name in model.output_names:
            expect[k] = y[model.output_index(name)]
    assert checked >= 2
    np.testing.assert_allclose(res.actuation, expect, rtol=0, atol=1e-9)


@pytest.mark.parametrize(("seed", "n", "root"), [(2, 6, "fixed"), (4, 5, "fixed"),
                                                 (7, 9, "fixed")])
def test_linearize_input_matrix_vs_pinocchio_inverse_mass(seed, n, root):
    """The rows of B of the joint rates are the columns of M⁻¹ of the actuated d.o.f."""
    desc = actuated_tree(seed, n, root)
    model = tl.load_model(copy.deepcopy(desc))
    peer = Peer(copy.deepcopy(desc))
    rng = np.random.default_rng(seed)
    x = model.default_state() + 0.4 * rng.standard_normal(model.n_states)
    inputs = [nm for nm in model.input_names if nm.endswith(("_tau_x", "_tau_y", "_tau_z",
                                                             "_tau1", "_tau2"))]
    sys_ = tl.linearize(model, None, inputs, [], x=x, drift=True)
    q = np.zeros(peer.model.nq)
    for dof in peer.dofs:
        b, iq = dof.body, dof.idx_q
        if dof.kind == "spherical":
            qq = x[model.state_index(f"{b}_qw"):model.state_index(f"{b}_qw") + 4]
            qq = qq / np.linalg.norm(qq)
            q[iq:iq + 4] = [*qq[1:], qq[0]]
        elif dof.kind == "universal":
            q[iq:iq + 2] = x[model.state_index(f"{b}_q1")], x[model.state_index(f"{b}_q2")]
        else:
            q[iq] = x[model.state_index(f"{b}_q")]
    Minv = pin.computeMinverse(peer.model, peer.data, q)
    Minv = np.triu(Minv) + np.triu(Minv, 1).T
    col, row = {}, {}  # Pinocchio's velocity index of each input and of each joint rate
    for dof in peer.dofs:
        sfx = {"spherical": ("tau_x", "tau_y", "tau_z"), "universal": ("tau1", "tau2")}
        rates = {"spherical": ("wx", "wy", "wz"), "universal": ("qd1", "qd2")}
        for k, (s, r) in enumerate(zip(sfx.get(dof.kind, ("tau",)),
                                       rates.get(dof.kind, ("qd",)))):
            col[f"{dof.body}_{s}"] = row[f"{dof.body}_{r}"] = dof.idx_v + k
    rows = [list(sys_.state_labels).index(nm) for nm in model.velocity_names()]
    B = np.asarray(sys_.B)[np.ix_(rows, [list(sys_.input_labels).index(nm) for nm in inputs])]
    ref = Minv[np.ix_([row[nm] for nm in model.velocity_names()], [col[nm] for nm in inputs])]
    err = np.max(np.abs(B - ref)) / np.max(np.abs(ref))
    print(f"\nB vs Pinocchio M⁻¹ ({len(inputs)} multi-d.o.f. torques): {err:.1e}")
    assert err <= 1e-10


@pytest.mark.parametrize(("seed", "root"), [(11, "fixed"), (12, "free"), (13, "quaternion")])
def test_power_balance(seed, root):
    """Without dampers and dissipative loads, dE/dt = Σ τ·ν over the actuated joints."""
    desc = actuated_tree(seed, 7, root)
    for body in desc["bodies"]:
        body["joint"].pop("damping", None)
    model = tl.load_model(desc)
    rng = np.random.default_rng(seed)
    for _ in range(3):
        x = model.default_state() + 0.5 * rng.standard_normal(model.n_states)
        u = rng.standard_normal(model.n_inputs)
        xd = model.dynamics(0.0, x, u)
        dedt = float(np.imag(sum(tl.energy(model, x + 1e-30j * xd)))) / 1e-30  # complex step
        power = 0.0
        for i in range(len(model.body_names)):
            col = model.tau_column[i]
            if col < 0:
                continue
            nv = int(model.nv[i])
            rates = x[model.qd_index[i]:model.qd_index[i] + nv]
            power += float(u[col:col + nv] @ rates)
        print(f"\nseed {seed}: dE/dt {dedt:.15f}, τ·ν {power:.15f}")
        assert abs(dedt - power) <= 1e-12 * max(1.0, abs(power))


# ------------------------------------------------------------------ closed forms
def pendulum(**joint) -> tl.Model:
    return tl.load_model({"gravity": [0, 0, -9.81], "bodies": [
        {"name": "p", "joint": {"type": "spherical", "actuated": True, **joint}, "mass": 2.0,
         "com": [0.1, 0.0, -0.6], "inertia": INERTIA}]})


def test_trim_holds_a_spherical_pendulum_off_vertical():
    """The torques that hold the pendulum at a given attitude: ``T = −c × (m gᵇ)``."""
    model = pendulum()
    qw = model.state_index("p_qw")
    rng = np.random.default_rng(4)
    for _ in range(3):
        quat = rng.standard_normal(4)
        quat /= np.linalg.norm(quat)
        x0 = model.default_state()
        x0[qw:qw + 4] = quat
        op = tl.trim(model, free=["p_tau_x", "p_tau_y", "p_tau_z"], x0=x0)
        R = Rotation.from_quat([*quat[1:], quat[0]]).as_matrix()
        expect = -np.cross([0.1, 0.0, -0.6], 2.0 * R.T @ [0, 0, -9.81])
        np.testing.assert_allclose(op.u, expect, rtol=0, atol=1e-10)
        np.testing.assert_allclose(model.dynamics(0, op.x, op.u), 0.0, atol=1e-10)


def test_trim_attitude_for_a_given_torque():
    """Conversely, the attitude at which a given torque holds the pendulum (a torque normal
    to the centre of mass vector: the gravity moment has no component along it)."""
    model = pendulum()
    fixed = {"p_tau_x": 0.0, "p_tau_y": 2.0, "p_tau_z": 0.0}
    op = tl.trim(model, free=["p_rx", "p_ry", "p_rz"], fixed=fixed)
    np.testing.assert_allclose(model.dynamics(0, op.x, op.u)[4:], 0.0, atol=1e-10)
    qw = model.state_index("p_qw")
    R = Rotation.from_quat([*op.x[qw + 1:qw + 4], op.x[qw]]).as_matrix()
    moment = np.cross([0.1, 0.0, -0.6], 2.0 * R.T @ [0, 0, -9.81])
    np.testing.assert_allclose(moment + np.array([0.0, 2.0, 0.0]), 0.0, atol=1e-9)


def test_simulate_spin_up_about_a_principal_axis():
    """No gravity, centre of mass on the axis: a torque about z spins the body up,
    ``ω_z = τ t / I_zz``, the quaternion turning about z by ``τ t² / (2 I_zz)``."""
    model = tl.load_model({"bodies": [
        {"name": "p", "joint": {"type": "spherical", "actuated": True}, "mass": 2.0,
         "com": [0.0, 0.0, -0.6], "inertia": INERTIA}]})
    u = np.zeros(model.n_inputs)
    u[model.input_index("p_tau_z")] = 0.05
    traj = tl.simulate(model, (0.0, 2.0), u=u, n_points=21)
    t = traj.t
    np.testing.assert_allclose(traj.x[:, model.state_index("p_wz")], 0.05 * t / 0.02,
                               rtol=0, atol=1e-9)
    angle = 0.05 * t ** 2 / (2 * 0.02)
    qw = model.state_index("p_qw")
    np.testing.assert_allclose(traj.x[:, qw:qw + 4],
                               np.c_[np.cos(angle / 2), 0 * t, 0 * t, np.sin(angle / 2)],
                               rtol=0, atol=1e-8)


def test_universal_torque_closed_form():
    """A universal joint with vertical first axis, second axis horizontal, no gravity, the
    body on the first axis: τ1 turns it about axis 1 only, ``q̈1 = τ1 / I_11``."""
    model = tl.load_model({"bodies": [
        {"name": "c", "joint": {"type": "universal", "axis1": [0, 0, 1], "axis2": [1, 0, 0],
                                "actuated": True}, "mass": 2.0, "com": [0.0, 0.0, 0.0],
         "inertia": INERTIA}]})
    u = np.array([0.3, -0.2])
    xd = model.dynamics(0.0, model.default_state(), u)
    np.testing.assert_allclose(xd[[model.state_index("c_qd1"), model.state_index("c_qd2")]],
                               [0.3 / 0.02, -0.2 / 0.09], rtol=1e-14)
