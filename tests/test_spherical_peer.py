"""Spherical, universal and driven joints against Pinocchio, on random trees mixing every
joint type (free base, revolute, prismatic, weld, spherical, universal, driven).

Pinocchio side (``tests/peer_pinocchio.py``, extended here): spherical →
``JointModelSpherical`` (configuration ``[x, y, z, w]``, velocity the child-frame relative
angular velocity); universal → two ``JointModelRevoluteUnaligned`` (the first about
``P_{a0/b}ᵀ axis1``, the second about ``axis2``) with a massless intermediate body; a driven
joint's acceleration imposed through the mass matrix: ``M_ff q̈_f = τ_f − h_f − M_fd q̈_d``,
``τ_d = M_df q̈_f + M_dd q̈_d + h_d`` (``crba`` and ``rnea``). Spring torques of the spherical
joints come from scipy's rotation vectors. Tolerance: 1e-9 (relative to the largest
acceleration).
"""

from __future__ import annotations

import copy

import models
import numpy as np
import pinocchio as pin
import pytest
from peer_pinocchio import DofInfo, PeerModel, _project_rotation, _unit
from scipy.spatial.transform import Rotation

import titop_lpv as tl
from titop_lpv.multibody.dynamics import forward_dynamics


def _quat(rng: np.random.Generator) -> list[float]:
    q = rng.standard_normal(4)
    return (q / np.linalg.norm(q)).tolist()


def mixed_tree(seed: int, n_bodies: int, root: str = "free", springs: bool = True) -> dict:
    """``models.random_tree`` with some revolute joints turned spherical, universal or driven
    (``root = "quaternion"``: a free base with ``attitude = "quaternion"``)."""
    quaternion_base = root == "quaternion"
    desc = models.random_tree(seed, n_bodies, "free" if quaternion_base else root,
                              loads=False, springs=springs)
    if quaternion_base:
        root_body = next(b for b in desc["bodies"] if b.get("parent") is None)
        root_body["joint"].update(attitude="quaternion", q0=[0.8, -0.2, 0.5, 0.3])
    rng = np.random.default_rng(seed + 1000)
    kinds = ["spherical", "universal", "driven", "keep"]
    count = 0
    for body in desc["bodies"]:
        j = body["joint"]
        if j["type"] not in ("revolute", "prismatic"):
            continue
        pick = kinds[count % 4]
        count += 1
        new = {"type": j["type"]} if pick == "driven" else {}
        if "rotation" in j:
            new["rotation"] = j["rotation"]
        if pick == "spherical":
            new.update(type="spherical", q0=_quat(rng), w0=rng.uniform(-1, 1, 3).tolist())
            if springs:
                new.update(stiffness=float(rng.uniform(0.5, 5)), damping=float(rng.uniform(0, 1)),
                           rest=_quat(rng))
        elif pick == "universal":
            new.update(type="universal", axis1=rng.standard_normal(3).tolist(),
                       axis2=rng.standard_normal(3).tolist(),
                       q0=rng.uniform(-1, 1, 2).tolist(), qd0=rng.uniform(-1, 1, 2).tolist())
            if springs:
                new.update(stiffness=rng.uniform(0.5, 5, 2).tolist(),
                           damping=rng.uniform(0, 1, 2).tolist(),
                           rest=rng.uniform(-0.5, 0.5, 2).tolist())
        elif pick == "driven":
            new.update(axis=j["axis"], q0=j["q0"], qd0=j["qd0"], motion="input")
        else:
            continue
        body["joint"] = new
    return desc


class Peer(PeerModel):
    """:class:`PeerModel` with spherical and universal joints."""

    def _add_body(self, name: str) -> None:
        body = self.bodies[name]
        joint = body["joint"]
        kind = joint["type"]
        if kind not in ("spherical", "universal"):
            if joint.get("motion") == "input":
                joint = {k: v for k, v in joint.items() if k not in ("stiffness", "damping")}
                body["joint"] = joint
            return super()._add_body(name)
        inertia = pin.Inertia(float(body.get("mass", 0.0)), np.asarray(body.get("com", [0] * 3),
                              dtype=float), np.asarray(body["inertia"], dtype=float))
        if self._parents[name] is None:  # hangs from the world
            parent_joint, parent_frame, port = 0, pin.SE3.Identity(), np.zeros(3)
        else:
            parent_joint, parent_frame = self.frames[self._parents[name][0]]
            port = self._parents[name][1]
        R0 = _project_rotation(joint.get("rotation", np.eye(3)), name)
        placement = parent_frame * pin.SE3(R0, port)
        if kind == "spherical":
            jid = self.model.addJoint(parent_joint, pin.JointModelSpherical(), placement, name)
        else:
            a1c = R0.T @ _unit(joint["axis1"], name)
            mid = self.model.addJoint(parent_joint, pin.JointModelRevoluteUnaligned(a1c),
                                      placement, name + "_1")
            jid = self.model.addJoint(mid, pin.JointModelRevoluteUnaligned(
                _unit(joint["axis2"], name)), pin.SE3.Identity(), name + "_2")
        self.model.appendBodyToJoint(jid, inertia, pin.SE3.Identity())
        self.frames[name] = (jid, pin.SE3.Identity())
        first = self.model.joints[jid if kind == "spherical" else jid - 1]
        self.dofs.append(DofInfo(body=name, kind=kind, joint_id=jid, idx_q=first.idx_q,
                                 idx_v=first.idx_v))


def _pair(v, default=0.0):
    return np.broadcast_to(np.asarray(v if v is not None else default, dtype=float), (2,))


def peer_dynamics(peer: Peer, model: tl.Model, x: np.ndarray, u: np.ndarray
                  ) -> tuple[np.ndarray, dict[str, float]]:
    """Pinocchio's state derivative in our state order, and the driven joints' forces."""
    s = {n: x[k] for k, n in enumerate(model.state_names)}
    ins = {n: u[k] for k, n in enumerate(model.input_names)}
    q = np.zeros(peer.model.nq)
    v = np.zeros(peer.model.nv)
    tau = np.zeros(peer.model.nv)
    driven_v: dict[str, int] = {}
    for dof in peer.dofs:
        b, j = dof.body, peer.bodies[dof.body]["joint"]
        iq, iv = dof.idx_q, dof.idx_v
        if dof.kind == "free":
            R = model.rotation(x, b)
            q[iq:iq + 3] = [s[f"{b}_{c}"] for c in "xyz"]
            q[iq + 3:iq + 7] = Rotation.from_matrix(R).as_quat()
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
            tau[iv:iv + 3] = -j.get("stiffness", 0.0) * theta - j.get("damping", 0.0) * w
        elif dof.kind == "universal":
            qq = np.array([s[f"{b}_q1"], s[f"{b}_q2"]])
            qd = np.array([s[f"{b}_qd1"], s[f"{b}_qd2"]])
            q[iq:iq + 2], v[iv:iv + 2] = qq, qd
            tau[iv:iv + 2] = (-_pair(j.get("stiffness")) * (qq - _pair(j.get("rest")))
                              - _pair(j.get("damping")) * qd)
        else:
            q[iq], v[iv] = s[f"{b}_q"], s[f"{b}_qd"]
            if j.get("motion") == "input":
                driven_v[b] = iv
                continue
            tau[iv] = (-dof.stiffness * (q[iq] - dof.rest) - dof.damping * v[iv]
                       + ins.get(f"{b}_tau", 0.0))
    M = pin.crba(peer.model, peer.data, q)
    M = np.triu(M) + np.triu(M, 1).T
    h = pin.rnea(peer.model, peer.data, q, v, np.zeros(peer.model.nv))
    d_idx = np.array(list(driven_v.values()), dtype=int)
    f_idx = np.setdiff1d(np.arange(peer.model.nv), d_idx)
    ddq = np.zeros(peer.model.nv)
    ddq[d_idx] = [ins[f"{b}_qdd"] for b in driven_v]
    rhs = tau[f_idx] - h[f_idx] - M[np.ix_(f_idx, d_idx)] @ ddq[d_idx]
    ddq[f_idx] = np.linalg.solve(M[np.ix_(f_idx, f_idx)], rhs)
    tau_d = M[d_idx] @ ddq + h[d_idx]
    xdot = np.zeros(model.n_states)
    idx = {n: k for k, n in enumerate(model.state_names)}
    for dof in peer.dofs:
        b, iv = dof.body, dof.idx_v
        if dof.kind == "free":
            for k, c in enumerate(("vx", "vy", "vz", "wx", "wy", "wz")):
                xdot[idx[f"{b}_{c}"]] = ddq[iv + k]
        elif dof.kind == "spherical":
            for k, c in enumerate("xyz"):
                xdot[idx[f"{b}_w{c}"]] = ddq[iv + k]
        elif dof.kind == "universal":
            xdot[idx[f"{b}_qd1"]], xdot[idx[f"{b}_qd2"]] = ddq[iv], ddq[iv + 1]
        else:
            xdot[idx[f"{b}_qd"]] = ddq[iv]
    return xdot, {b: float(t) for b, t in zip(driven_v, tau_d)}


def _accelerations(model: tl.Model) -> np.ndarray:
    return np.array([n.split("_")[-1] in ("vx", "vy", "vz", "wx", "wy", "wz", "qd", "qd1",
                                          "qd2") and not n.endswith(("_x", "_y", "_z"))
                     for n in model.state_names])


CASES = [(seed, n, root) for seed, n, root in
         [(1, 4, "free"), (2, 6, "fixed"), (3, 8, "free"), (4, 5, "fixed"), (5, 10, "free"),
          (6, 7, "free"), (7, 9, "fixed"), (8, 12, "free"), (9, 6, "quaternion"),
          (10, 9, "quaternion")]]


@pytest.mark.parametrize(("seed", "n", "root"), CASES)
def test_forward_dynamics_vs_pinocchio(seed, n, root):
    desc = mixed_tree(seed, n, root)
    model = tl.load_model(copy.deepcopy(desc))
    kinds = {b["joint"]["type"] + ("-driven" if b["joint"].get("motion") == "input" else "")
             for b in desc["bodies"]}
    assert {"spherical", "universal"} & kinds
    peer = Peer(copy.deepcopy(desc))
    rng = np.random.default_rng(seed)
    acc = _accelerations(model)
    worst = 0.0
    for _ in range(3):
        x = model.default_state() + 0.5 * rng.standard_normal(model.n_states)
        u = rng.standard_normal(model.n_inputs)
        ours = forward_dynamics(model, x, u, backend="numpy")
        ref, tau_d = peer_dynamics(peer, model, x, u)
        scale = max(1.0, np.max(np.abs(ref[acc])))
        err = np.max(np.abs(ours[acc] - ref[acc])) / scale
        worst = max(worst, err)
        y = model.outputs(0.0, x, u)
        for b, t in tau_d.items():
            assert abs(y[model.output_index(f"{b}_tau")] - t) <= 1e-9 * max(1.0, abs(t))
    print(f"\nseed {seed} ({n} bodies, {sorted(kinds)}): max relative error {worst:.1e}")
    assert worst <= 1e-9


@pytest.mark.parametrize(("seed", "n", "root"), CASES[:4])
def test_inverse_dynamics_inverts_forward_dynamics(seed, n, root):
    """RNEA at the forward accelerations gives back the inputs (driven: the b_tau output)."""
    model = tl.load_model(mixed_tree(seed, n, root))
    rng = np.random.default_rng(seed + 7)
    x = model.default_state() + 0.5 * rng.standard_normal(model.n_states)
    u = rng.standard_normal(model.n_inputs)
    xd = model.dynamics(0.0, x, u)
    nu = model.velocity_names()
    res = tl.inverse_dynamics(model, x, np.array([xd[model.state_index(v)] for v in nu]), u)
    np.testing.assert_allclose(res.base_wrench, 0.0, atol=1e-10)
    y = model.outputs(0.0, x, u)
    expect = np.zeros(len(nu) - 6 * model.floating_base)
    off = 6 * model.floating_base
    for k, v in enumerate(nu[off:]):
        body = v.rsplit("_", 1)[0]
        if f"{body}_tau" in model.input_names:
            expect[k] = u[model.input_index(f"{body}_tau")]
        elif f"{body}_tau" in model.output_names:
            expect[k] = y[model.output_index(f"{body}_tau")]
    np.testing.assert_allclose(res.actuation, expect, atol=1e-9)


@pytest.mark.parametrize("n", [50, 100])
def test_long_ball_chain_equations_of_motion_residual(n):
    """On long ball-joint chains Pinocchio 4.1's own ``aba`` is no reference (its RNEA
    residual: 1e-3 at 50 bodies, 1e5 at 100, measured with this chain); ours stays accurate:
    Pinocchio's RNEA at our accelerations (both routes) vanishes to ≤ 1e-9."""
    rng = np.random.default_rng(n)
    bodies = []
    for k in range(n):
        bodies.append({"name": f"r{k}", **({"parent": f"r{k - 1}.tip"} if k else {}),
                       "joint": {"type": "spherical", "q0": _quat(rng),
                                 "w0": rng.uniform(-1, 1, 3).tolist()},
                       "mass": 1.0, "com": [0.0, 0.0, -0.5],
                       "inertia": [[0.09, 0, 0], [0, 0.09, 0], [0, 0, 0.01]],
                       "ports": {"tip": [0.0, 0.0, -1.0]}})
    desc = {"name": "ball_chain", "gravity": [0.0, 0.0, -9.81], "bodies": bodies}
    model, peer = tl.load_model(copy.deepcopy(desc)), Peer(copy.deepcopy(desc))
    x = model.default_state()
    for backend in ("compiled", "numpy"):
        xd = forward_dynamics(model, x, backend=backend)
        q, v, a = np.zeros(peer.model.nq), np.zeros(peer.model.nv), np.zeros(peer.model.nv)
        for dof in peer.dofs:
            i = model.body_index(dof.body)
            qi, wi = model.q_index[i], model.qd_index[i]
            qq = x[qi:qi + 4] / np.linalg.norm(x[qi:qi + 4])
            q[dof.idx_q:dof.idx_q + 4] = [*qq[1:], qq[0]]
            v[dof.idx_v:dof.idx_v + 3] = x[wi:wi + 3]
            a[dof.idx_v:dof.idx_v + 3] = xd[wi:wi + 3]
        residual = np.max(np.abs(pin.rnea(peer.model, peer.data, q, v, a)))
        print(f"\n{n} ball joints, {backend}: Pinocchio RNEA residual {residual:.1e} N m "
              f"(max |ω̇| {np.max(np.abs(a)):.1e})")
        assert residual <= 1e-9
