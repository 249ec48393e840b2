"""The three examples of the multibond-graph (20-sim) library paper (examples/twenty_sim_*.toml).

Each example is built a second time, by hand, in Pinocchio (the geometry stated in the model
files: J1 about the vertical Z at the origin, a massless crank of length a along x, J2 at its
tip, m1's centre of gravity b beyond J2, m2 on a prismatic J3 at m1's centre of gravity) and
checked along the 10 s trajectory that examples/twenty_sim_examples.py plots:

* accelerations (``pinocchio.aba``; for the driven joint of Example 1 its acceleration is
  imposed through ``crba``/``rnea``, which also give the drive torque), positions and
  velocities of the plotted centres of gravity (``forwardKinematics``) at every output time:
  1e-9 relative;
* the same fixed-step RK4 (1 ms) run on our state derivative and on Pinocchio's for 2 s:
  the centres of gravity agree to 1e-9 m;
* conservation laws with Pinocchio's energies and momenta: Example 1's constant-rate drive
  keeps the Jacobi integral E − w L_z, its power τ q̇1 integrates to the energy change and
  J1 turns at exactly w t; in Examples 2 and 3 the imposed moment does the work M Δq1 and
  adds M t to the angular momentum L_z about the J1 axis;
* Example 3's spring at rest (moment removed): m1 hangs, the spring stretched by m2 g / K.

The paper reports its results as plots only (its figures are not in the text), so the
numbers that can be compared are its data: the model files must carry them.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pinocchio as pin
import pytest
from scipy.integrate import cumulative_simpson

import titop_lpv as tl

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
NAMES = ("driven_spherical", "imposed_moment", "prismatic_spring")
# the paper's data (§3.1-3.3)
A, B, C0, K, MASS, INERTIA, W, MOMENT, G = 0.3, 0.1, 0.15, 500.0, 1.0, 4.167e-4, 0.5, 0.1, 9.8
T_FINAL = 10.0


def load(name: str) -> tl.Model:
    """The example's model."""
    return tl.load_model(EXAMPLES / f"twenty_sim_{name}.toml")


@pytest.fixture(scope="module")
def trajectories() -> dict[str, tuple[tl.Model, tl.Trajectory]]:
    """Each example simulated as the script does."""
    out = {}
    for name in NAMES:
        model = load(name)
        out[name] = (model, tl.simulate(model, (0.0, T_FINAL), rtol=1e-10, atol=1e-12,
                                        n_points=1001))
    return out


class PinExample:
    """One example built by hand in Pinocchio, evaluated on our state vectors."""

    def __init__(self, name: str, model: tl.Model) -> None:
        self.name, self.ours = name, model
        pm = pin.Model()
        pm.gravity.linear = np.array([0.0, 0.0, -G])
        body = pin.Inertia(MASS, np.zeros(3), INERTIA * np.eye(3))
        j1 = pm.addJoint(0, pin.JointModelRZ(), pin.SE3.Identity(), "J1")  # massless crank
        tip = pin.SE3(np.eye(3), np.array([A, 0.0, 0.0]))
        j2 = pm.addJoint(j1, pin.JointModelSpherical() if name == "driven_spherical"
                         else pin.JointModelRY(), tip, "J2")
        pm.appendBodyToJoint(j2, body, pin.SE3(np.eye(3), np.array([B, 0.0, 0.0])))
        self.plotted = (j2, np.array([B, 0.0, 0.0]))  # m1's centre of gravity in J2's frame
        if name == "prismatic_spring":
            j3 = pm.addJoint(j2, pin.JointModelPX(), pin.SE3(np.eye(3), np.array([B, 0, 0])),
                             "J3")
            pm.appendBodyToJoint(j3, body, pin.SE3.Identity())
            self.plotted = (j3, np.zeros(3))
        self.model, self.data = pm, pm.createData()
        self.idx = {n: k for k, n in enumerate(model.state_names)}

    def qv(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Pinocchio's configuration and velocity from our state."""
        s = {n: x[k] for n, k in self.idx.items()}
        if self.name == "driven_spherical":
            quat = np.array([s["m1_qx"], s["m1_qy"], s["m1_qz"], s["m1_qw"]])
            q = np.concatenate([[s["crank_q"]], quat / np.linalg.norm(quat)])
            v = np.array([s["crank_qd"], s["m1_wx"], s["m1_wy"], s["m1_wz"]])
            return q, v
        bodies = ["crank", "m1"] + (["m2"] if self.name == "prismatic_spring" else [])
        return (np.array([s[f"{b}_q"] for b in bodies]),
                np.array([s[f"{b}_qd"] for b in bodies]))

    def forces(self, q: np.ndarray) -> np.ndarray:
        """The imposed moment on J1 and the spring of J3 (zero for Example 1)."""
        tau = np.zeros(self.model.nv)
        if self.name != "driven_spherical":
            tau[0] = MOMENT
        if self.name == "prismatic_spring":
            tau[2] = -K * (q[2] - C0)
        return tau

    def accelerations(self, x: np.ndarray) -> tuple[np.ndarray, float]:
        """Generalized accelerations (Pinocchio order) and the drive torque of J1."""
        q, v = self.qv(x)
        if self.name != "driven_spherical":
            return pin.aba(self.model, self.data, q, v, self.forces(q)), 0.0
        mass = pin.crba(self.model, self.data, q)
        mass = np.triu(mass) + np.triu(mass, 1).T
        bias = pin.rnea(self.model, self.data, q, v, np.zeros(self.model.nv))
        ddq = np.zeros(self.model.nv)  # J1: imposed q̈1 = 0 (constant rate)
        ddq[1:] = np.linalg.solve(mass[1:, 1:], -bias[1:])
        return ddq, float(mass[0] @ ddq + bias[0])

    def xdot(self, x: np.ndarray) -> np.ndarray:
        """Our state derivative computed with Pinocchio (quaternion: ½ q ⊗ (0, ω))."""
        ddq, _ = self.accelerations(x)
        out = np.zeros_like(x)
        s = self.idx
        if self.name == "driven_spherical":
            out[s["crank_q"]], out[s["crank_qd"]] = x[s["crank_qd"]], ddq[0]
            w, xx, y, z = (x[s[f"m1_q{c}"]] for c in "wxyz")
            ox, oy, oz = (x[s[f"m1_w{c}"]] for c in "xyz")
            qdot = 0.5 * np.array([-xx * ox - y * oy - z * oz, w * ox + y * oz - z * oy,
                                   w * oy + z * ox - xx * oz, w * oz + xx * oy - y * ox])
            out[[s[f"m1_q{c}"] for c in "wxyz"]] = qdot
            out[[s[f"m1_w{c}"] for c in "xyz"]] = ddq[1:]
            return out
        for k, b in enumerate(["crank", "m1", "m2"][:self.model.nv]):
            out[s[f"{b}_q"]], out[s[f"{b}_qd"]] = x[s[f"{b}_qd"]], ddq[k]
        return out

    def plotted_point(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Position and velocity of the plotted centre of gravity, angular velocity of its
        body (inertial components)."""
        q, v = self.qv(x)
        pin.forwardKinematics(self.model, self.data, q, v)
        jid, point = self.plotted
        pose, twist = self.data.oMi[jid], self.data.v[jid]
        rot = pose.rotation
        return (pose.act(point), rot @ (twist.linear + np.cross(twist.angular, point)),
                rot @ twist.angular)

    def energy_and_lz(self, x: np.ndarray) -> tuple[float, float]:
        """Total energy (kinetic, gravity, spring) and angular momentum about Z at the origin."""
        q, v = self.qv(x)
        energy = (pin.computeKineticEnergy(self.model, self.data, q, v)
                  + pin.computePotentialEnergy(self.model, self.data, q))
        if self.name == "prismatic_spring":
            energy += 0.5 * K * (q[2] - C0) ** 2
        pin.forwardKinematics(self.model, self.data, q, v)
        lz = sum(self.data.oMi[j].act(self.model.inertias[j] * self.data.v[j]).angular[2]
                 for j in range(1, self.model.njoints))
        return float(energy), float(lz)


def _acc_rows(model: tl.Model) -> list[int]:
    """Our state indices of the generalized accelerations, in Pinocchio's order."""
    names = {"driven_spherical": ["crank_qd", "m1_wx", "m1_wy", "m1_wz"],
             "imposed_moment": ["crank_qd", "m1_qd"],
             "prismatic_spring": ["crank_qd", "m1_qd", "m2_qd"]}[model.name[len("twenty_sim_"):]]
    return [model.state_index(n) for n in names]


def test_the_files_carry_the_papers_data():
    expected = {"a": A, "b": B, "m1": MASS, "I1": INERTIA}
    extra = {"driven_spherical": {"w": W},
             "imposed_moment": {"M": MOMENT},
             "prismatic_spring": {"M": MOMENT, "c0": C0, "K": K, "m2": MASS}}
    for name in NAMES:
        model = load(name)
        assert model.default_params() == {**expected, **extra[name]}
        gravity = np.asarray(model.to_dict()["gravity"], dtype=float)
        np.testing.assert_array_equal(gravity, [0.0, 0.0, -G])  # F = -9.8 N on 1 kg


@pytest.mark.parametrize("name", NAMES)
def test_along_the_trajectory_against_pinocchio(trajectories, name):
    model, traj = trajectories[name]
    peer = PinExample(name, model)
    rows = _acc_rows(model)
    body = "m2" if name == "prismatic_spring" else "m1"
    u = np.zeros(model.n_inputs) if model.input_names else None
    acc_err = acc_scale = tau_err = pos_err = 0.0
    for x, y in zip(traj.x, traj.y):
        ddq, tau = peer.accelerations(x)
        ours = model.dynamics(0.0, x, u)[rows]
        acc_err = max(acc_err, float(np.max(np.abs(ours - ddq))))
        acc_scale = max(acc_scale, float(np.max(np.abs(ddq))))
        pos, vel, omega = peer.plotted_point(x)
        out = {n: y[k] for k, n in enumerate(model.output_names)}
        pos_err = max(pos_err, float(np.max(np.abs([out[f"{body}_gc_{c}"] for c in "xyz"]
                                                    - pos))))
        if name == "driven_spherical":
            tau_err = max(tau_err, abs(out["crank_tau"] - tau))
            pos_err = max(pos_err, float(np.max(np.abs(
                np.array([out[f"m1_gc_v{c}"] for c in "xyz"] + [out[f"m1_abs_w{c}"]
                                                                for c in "xyz"])
                - np.concatenate([vel, omega])))))
    print(f"\n{name} vs Pinocchio along 10 s: accelerations {acc_err / acc_scale:.1e} relative"
          f" (largest {acc_scale:.1f}), centre of gravity {pos_err:.1e}"
          + (f", drive torque {tau_err:.1e} N m" if name == "driven_spherical" else ""))
    assert acc_err <= 1e-9 * acc_scale
    assert pos_err <= 1e-12
    if name == "driven_spherical":
        assert tau_err <= 1e-9 * float(np.max(np.abs(traj["crank_tau"])))


def _rk4(f, x0: np.ndarray, h: float, n: int) -> np.ndarray:
    x = np.array(x0, dtype=float)
    for _ in range(n):
        k1 = f(x)
        k2 = f(x + 0.5 * h * k1)
        k3 = f(x + 0.5 * h * k2)
        k4 = f(x + h * k3)
        x = x + h / 6.0 * (k1 + 2 * k2 + 2 * k3 + k4)
    return x


@pytest.mark.parametrize("name", NAMES)
def test_same_rk4_as_pinocchio(name):
    model = load(name)
    peer = PinExample(name, model)
    u = np.zeros(model.n_inputs) if model.input_names else None
    x0 = model.default_state()
    ours = _rk4(lambda x: model.dynamics(0.0, x, u), x0, 1e-3, 2000)
    theirs = _rk4(peer.xdot, x0, 1e-3, 2000)
    body = "m2" if name == "prismatic_spring" else "m1"
    y = model.outputs(0.0, ours, u)
    mine = [y[model.output_index(f"{body}_gc_{c}")] for c in "xyz"]
    err = float(np.max(np.abs(np.array(mine) - peer.plotted_point(theirs)[0])))
    print(f"\n{name}: RK4 (1 ms, 2 s), centre of gravity vs Pinocchio's RK4: {err:.1e} m")
    assert err < 1e-9


def test_driven_rate_and_jacobi_integral(trajectories):
    model, traj = trajectories["driven_spherical"]
    np.testing.assert_allclose(traj["crank_qd"], W, rtol=1e-13)
    np.testing.assert_allclose(traj["crank_q"], W * traj.t, rtol=1e-11, atol=1e-13)
    peer = PinExample("driven_spherical", model)
    e_lz = np.array([peer.energy_and_lz(x) for x in traj.x])
    ours = np.sum(tl.energy(model, traj.x), axis=0)
    np.testing.assert_allclose(ours, e_lz[:, 0], rtol=0, atol=1e-12)  # same energy
    jacobi = e_lz[:, 0] - W * e_lz[:, 1]
    scale = float(np.max(np.abs(e_lz[:, 0])))
    drift = float(np.max(np.abs(jacobi - jacobi[0])))
    print(f"\nExample 1: Jacobi integral E − w L_z drifts by {drift:.1e} J over 10 s "
          f"(energy scale {scale:.3f} J, energy itself changes by "
          f"{np.ptp(e_lz[:, 0]):.3f} J)")
    assert drift < 1e-8 * scale
    assert np.ptp(e_lz[:, 0]) > 1e-3 * scale  # the drive does work: E alone is not conserved
    # the power balance dE/dt = τ q̇1, integrated (Simpson on the 10 ms samples: its own error
    # is about 2e-5 J)
    work = cumulative_simpson(traj["crank_tau"] * traj["crank_qd"], x=traj.t, initial=0.0)
    power_err = float(np.max(np.abs(ours - ours[0] - work)))
    print(f"  |ΔE − ∫ τ q̇1 dt| ≤ {power_err:.1e} J")
    assert power_err < 1e-4 * np.ptp(ours)


@pytest.mark.parametrize("name", ["imposed_moment", "prismatic_spring"])
def test_work_and_momentum_of_the_imposed_moment(trajectories, name):
    model, traj = trajectories[name]
    peer = PinExample(name, model)
    e_lz = np.array([peer.energy_and_lz(x) for x in traj.x])
    ours = np.sum(tl.energy(model, traj.x), axis=0)
    np.testing.assert_allclose(ours, e_lz[:, 0], rtol=0, atol=1e-11)
    work = MOMENT * (traj["crank_q"] - traj["crank_q"][0])
    energy_err = float(np.max(np.abs(e_lz[:, 0] - e_lz[0, 0] - work)))
    lz_err = float(np.max(np.abs(e_lz[:, 1] - e_lz[0, 1] - MOMENT * traj.t)))
    print(f"\n{name}: |ΔE − M Δq1| ≤ {energy_err:.1e} J (work {work[-1]:.3f} J), "
          f"|ΔL_z − M t| ≤ {lz_err:.1e} N m s")
    assert energy_err < 1e-8 * work[-1]
    assert lz_err < 1e-8 * MOMENT * T_FINAL


def test_spring_at_rest_without_the_moment():
    model = load("prismatic_spring")
    op = tl.trim(model, free=["m1_q", "m2_q"], fixed={"crank_q": 0.3}, params={"M": 0.0})
    assert op.success
    s = dict(zip(model.state_names, op.x))
    assert abs(s["m1_q"] - np.pi / 2) < 1e-10  # m1 hangs below J2
    assert abs(s["m2_q"] - (C0 + MASS * G / K)) < 1e-12  # stretched by the weight of m2
