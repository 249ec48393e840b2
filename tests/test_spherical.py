"""Spherical joints: quaternion kinematics, conservation, the model file and refusals."""

from __future__ import annotations

import copy

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

import titop_lpv as tl
from titop_lpv.multibody.dynamics import forward_dynamics
from titop_lpv.spatial import quaternion as quat


def chain(n: int = 3, stiffness: float = 0.0, damping: float = 0.0) -> dict:
    """A chain of ``n`` rods hanging by spherical joints, started off the vertical, spinning."""
    bodies = []
    rng = np.random.default_rng(n)
    for k in range(n):
        q0 = quat.normalize(np.array([1.0, *(0.4 * rng.standard_normal(3))])).tolist()
        bodies.append({
            "name": f"rod{k}", **({"parent": f"rod{k - 1}.tip"} if k else {}),
            "joint": {"type": "spherical", "q0": q0, "w0": rng.uniform(-2, 2, 3).tolist(),
                      "stiffness": stiffness, "damping": damping,
                      "rest": [1.0, 0.0, 0.0, 0.0]},
            "mass": 1.0 + 0.2 * k, "com": [0.0, 0.0, -0.5],
            "inertia": [[0.09, 0.0, 0.0], [0.0, 0.08, 0.0], [0.0, 0.0, 0.01]],
            "ports": {"tip": [0.05, 0.0, -1.0]}})
    return {"name": "ball_chain", "gravity": [0.0, 0.0, -9.81], "bodies": bodies}


def test_names_defaults_and_outputs():
    model = tl.load_model(chain(2))
    assert model.state_names[:7] == ("rod0_qw", "rod0_qx", "rod0_qy", "rod0_qz", "rod0_wx",
                                     "rod0_wy", "rod0_wz")
    x0 = model.default_state()
    np.testing.assert_allclose(np.sum(x0[:4] ** 2), 1.0, rtol=1e-15)
    assert model.units()["rod0_wx"] == "rad/s" and model.units()["rod0_qw"] == ""
    # the attitude output is the Euler angles of the body frame
    R = model.rotation(x0, "rod0")
    np.testing.assert_allclose(R, quat.to_dcm(x0[:4]), atol=1e-15)


@pytest.mark.parametrize("stiffness", [0.0, 4.0])
def test_energy_conserved_and_quaternion_unit(stiffness):
    model = tl.load_model(chain(3, stiffness=stiffness))
    x0 = model.default_state()
    traj = tl.simulate(model, (0.0, 2.0), x0=x0, rtol=1e-11, atol=1e-11)
    E = np.sum(tl.energy(model, traj.x), axis=0)
    drift = np.max(np.abs(E - E[0])) / np.max(np.abs(tl.energy(model, x0)))
    print(f"\nstiffness {stiffness}: relative energy drift over 2 s {drift:.1e}")
    assert drift < 1e-8
    for k in range(3):
        q = traj.x[:, 7 * k:7 * k + 4]
        assert np.max(np.abs(np.sum(q * q, axis=1) - 1.0)) < 1e-9


def test_quaternion_norm_is_pulled_back():
    """With a perturbed norm, |q|² → 1 at the rate λ (QUATERNION_GAIN) and the motion is that
    of the normalised quaternion."""
    model = tl.load_model(chain(1))
    x = model.default_state()
    x2 = x.copy()
    x2[:4] *= 1.1
    xd, xd2 = model.dynamics(0.0, x), model.dynamics(0.0, x2)
    np.testing.assert_allclose(xd2[4:], xd[4:], rtol=1e-12)  # accelerations: same motion
    n2 = np.sum(x2[:4] ** 2)
    np.testing.assert_allclose(2 * x2[:4] @ xd2[:4], (1 - n2) * n2, rtol=1e-12)


def test_damping_dissipates_power():
    model = tl.load_model(chain(2, stiffness=3.0, damping=0.7))
    x = model.default_state()
    xd = model.dynamics(0.0, x)
    h = 1e-6
    dE = (np.sum(tl.energy(model, x + h * xd)) - np.sum(tl.energy(model, x - h * xd))) / (2 * h)
    power = -0.7 * sum(x[7 * k + 4:7 * k + 7] @ x[7 * k + 4:7 * k + 7] for k in range(2))
    assert abs(dE - power) < 1e-6 * abs(power)


def test_validation_and_refusals():
    bad = chain(1)
    bad["bodies"][0]["joint"]["q0"] = [0.0, 0.0, 0.0, 0.0]
    bad["bodies"][0]["joint"]["stiffness"] = -1.0
    with pytest.raises(tl.ModelError, match=r"q0: a quaternion") as err:
        tl.load_model(bad)
    assert "stiffness: must be >= 0" in str(err.value)
    desc = chain(1, stiffness=2.0)
    desc["parameters"] = {"m": 1.0}
    desc["bodies"][0]["mass"] = "m"
    model = tl.load_model(desc)
    G = tl.linearize_uncertain(model, free=["rod0_rx", "rod0_ry", "rod0_rz"],
                               uncertain={"m": (0.5, 2.0)})
    assert G.kinds == {"m": "exact"}


def test_compiled_kernel_agrees_with_the_numpy_recursion():
    """Real and complex (complex-step) states, spherical + universal + driven joints, Euler
    and quaternion floating bases."""
    from test_spherical_peer import mixed_tree
    for seed, n, root in ((3, 8, "free"), (8, 12, "free"), (9, 6, "quaternion")):
        model = tl.load_model(mixed_tree(seed, n, root))
        rng = np.random.default_rng(seed)
        x = model.default_state() + 0.5 * rng.standard_normal(model.n_states)
        u = rng.standard_normal(model.n_inputs)
        xc = x + 1j * 1e-20 * rng.standard_normal(model.n_states)
        for arg in (x, xc):
            a = forward_dynamics(model, arg, u, backend="numpy")
            b = forward_dynamics(model, arg, u, backend="compiled")
            np.testing.assert_allclose(b.real, a.real, rtol=1e-12, atol=1e-12)
            np.testing.assert_allclose(b.imag, a.imag, rtol=1e-10, atol=1e-32)


def _pendulum(stiffness: float = 0.0) -> tl.Model:
    return tl.load_model({"name": "ball", "gravity": [0.0, 0.0, -9.81], "bodies": [{
        "name": "bob", "joint": {"type": "spherical", "stiffness": stiffness},
        "mass": 2.0, "com": [0.0, 0.0, -0.8],
        "inertia": [[0.05, 0.0, 0.0], [0.0, 0.08, 0.0], [0.0, 0.0, 0.04]]}]})


def test_linearize_hanging_ball_pendulum_closed_form():
    """δr states; ω² = (m g l + k) / (I + m l²) about x and y, a free rotation about z."""
    model = _pendulum(stiffness=3.0)
    sys = tl.linearize(model, x=model.default_state())
    assert sys.state_labels == ["bob_rx", "bob_ry", "bob_rz", "bob_wx", "bob_wy", "bob_wz"]
    wn2 = np.sort(-np.real(np.linalg.eigvals(sys.A) ** 2))  # λ = ±iω: each ω² twice
    m, g, arm, k = 2.0, 9.81, 0.8, 3.0
    expect = np.sort(np.repeat([(m * g * arm + k) / (0.05 + m * arm * arm),
                                (m * g * arm + k) / (0.08 + m * arm * arm), k / 0.04], 2))
    np.testing.assert_allclose(wn2, expect, rtol=1e-10)


def test_linearize_matches_central_differences_on_the_manifold():
    model = tl.load_model(chain(2, stiffness=2.0, damping=0.3))
    x0 = model.default_state()
    sys = tl.linearize(model, x=x0, drift=True)
    names = list(sys.state_labels)
    assert names[:3] == ["rod0_rx", "rod0_ry", "rod0_rz"]

    def full(z):  # reduced coordinates -> full state (q = q_eq ⊗ exp(δr))
        x = x0.copy()
        for k in range(2):
            x[7 * k:7 * k + 4] = quat.multiply(x0[7 * k:7 * k + 4], quat.exp(z[6 * k:6 * k + 3]))
            x[7 * k + 4:7 * k + 7] += z[6 * k + 3:6 * k + 6]
        return x

    def reduced_rate(z):  # δṙ by a central difference along the flow, ω̇ as it is
        x = full(z)
        xd = model.dynamics(0.0, x)
        h = 1e-4
        out = []
        for k in range(2):
            r = [quat.log(quat.multiply(quat.conjugate(quat.normalize(x0[7 * k:7 * k + 4])),
                                        quat.normalize(xs[7 * k:7 * k + 4])))
                 for xs in (x + h * xd, x - h * xd)]
            out += [*((r[0] - r[1]) / (2 * h)), *xd[7 * k + 4:7 * k + 7]]
        return np.array(out)

    eps = 1e-4
    A_fd = np.column_stack([(reduced_rate(eps * e) - reduced_rate(-eps * e)) / (2 * eps)
                            for e in np.eye(12)])
    np.testing.assert_allclose(sys.A, A_fd, rtol=1e-5, atol=1e-5)


def test_trim_on_the_rotation_manifold_then_linearize():
    """A ball pendulum with a torsion spring at rest tilted: the equilibrium balances the
    spring torque −k θ and the gravity torque about the pivot."""
    desc = chain(1, stiffness=15.0)
    rest = quat.exp(np.array([0.6, -0.3, 0.2]))
    desc["bodies"][0]["joint"]["rest"] = rest.tolist()
    model = tl.load_model(desc)
    op = tl.trim(model, free=["rod0_rx", "rod0.ry", "rod0_rz"])
    assert op.success and op.free == ("rod0_rx", "rod0_ry", "rod0_rz")
    q = op.x[:4]
    assert abs(q @ q - 1.0) < 1e-14
    R = quat.to_dcm(q)
    theta = quat.log(quat.multiply(quat.conjugate(rest), q))
    com = np.array([0.0, 0.0, -0.5])
    gravity_torque = np.cross(com, R.T @ np.array([0.0, 0.0, -9.81]))  # body frame, m = 1
    np.testing.assert_allclose(gravity_torque, 15.0 * theta, atol=1e-10)
    sys = tl.linearize(model, op)
    assert sys.state_labels[:3] == ["rod0_rx", "rod0_ry", "rod0_rz"]
    ev = np.linalg.eigvals(sys.A)
    assert np.max(np.abs(ev.real)) < 1e-8  # conservative: a centre
    # op["rod0_rx"]: the solved attitude error from the start, q = q_start ⊗ exp(δr)
    q_start = model.default_state()[:4]
    np.testing.assert_allclose([op[f"rod0_r{c}"] for c in "xyz"],
                               quat.log(quat.multiply(quat.conjugate(q_start), q)), atol=1e-14)
    again = tl.trim(model, free=["rod0_rx", "rod0_ry", "rod0_rz"],
                    guess={f"rod0_r{c}": op[f"rod0_r{c}"] for c in "xyz"})
    assert again.nfev <= 3 and np.allclose(again.x, op.x, atol=1e-12)
    with pytest.raises(tl.TrimSpecError, match="attitude error"):
        tl.trim(model, free=["rod0_ry"], fixed={"rod0_rx": 0.1})


def test_trim_with_a_neutral_yaw_and_sweeps():
    """Without a spring the hanging rod's rotation about the vertical is neutral (rank
    deficiency 1, Gauss–Newton's minimum-norm steps); a sweep over the stiffness continues
    the branch through the attitude errors."""
    desc = chain(1, stiffness=0.0)
    desc["bodies"][0]["joint"]["q0"] = quat.exp(np.array([0.3, 0.2, 0.4])).tolist()
    model = tl.load_model(desc)
    op = tl.trim(model, free=["rod0_rx", "rod0_ry", "rod0_rz"])
    assert op.success and op.rank_deficiency == 1
    R = model.rotation(op.x, "rod0")
    com = R @ np.array([0.0, 0.0, -0.5])
    np.testing.assert_allclose(com[:2], 0.0, atol=1e-10)  # the centre of mass below the pivot
    desc2 = chain(1)
    desc2["parameters"] = {"k": 5.0}
    desc2["bodies"][0]["joint"].update(stiffness="k", rest=quat.exp(np.array([0.5, 0, 0]))
                                       .tolist())
    model2 = tl.load_model(desc2)
    sweep = tl.trim_sweep(model2, {"k": [5.0, 10.0, 20.0]}, free=["rod0_rx", "rod0_ry",
                                                                   "rod0_rz"])
    assert all(o.success for o in sweep.points)
    angles = [float(np.linalg.norm(quat.log(o.x[:4]))) for o in sweep.points]
    assert angles[0] < angles[1] < angles[2] < 0.5  # stiffer: closer to the rest tilt


def test_loop_closure_and_description_round_trip():
    """A loop-closure spring between the first and last rods: energy still conserved; the
    model's description loads back to the same model."""
    desc = chain(3)
    desc["loops"] = [{"a": "rod0.tip", "b": "rod2", "stiffness": [30.0, 30.0, 30.0, 1.0, 1.0,
                                                                    1.0]}]
    model = tl.load_model(desc)
    x0 = model.default_state()
    traj = tl.simulate(model, (0.0, 1.0), x0=x0, rtol=1e-11, atol=1e-11)
    E = np.sum(tl.energy(model, traj.x), axis=0)
    assert np.max(np.abs(E - E[0])) < 1e-8 * np.max(np.abs(tl.energy(model, x0)))
    again = tl.load_model(model.description)
    assert again.state_names == model.state_names
    np.testing.assert_array_equal(again.dynamics(0.0, x0), model.dynamics(0.0, x0))


def test_quaternion_base_follows_the_euler_base():
    """The same tumbling balloon with Euler-angle and quaternion attitudes: the trajectories
    agree (attitude matrices, positions, twists), and the quaternion stays unit."""
    import models

    desc = models.balloon()
    desc["bodies"][0]["inertia"] = [[9.0, 0.0, 0.0], [0.0, 10.0, -3.0], [0.0, -3.0, 10.0]]
    desc["bodies"][0]["joint"].update(w0=[0.3, -0.8, 1.1], v0=[0.2, 0.0, -0.1],
                                      euler0=[0.3, -0.2, 0.1])
    euler = tl.load_model(desc)
    x0 = euler.default_state()
    R0 = euler.rotation(x0, "balloon")
    qdesc = copy.deepcopy(desc)
    q0 = Rotation.from_matrix(R0).as_quat()
    qdesc["bodies"][0]["joint"].update(attitude="quaternion", q0=[q0[3], *q0[:3]])
    quatm = tl.load_model(qdesc)
    assert quatm.state_names[9:13] == ("balloon_qw", "balloon_qx", "balloon_qy", "balloon_qz")
    xq0 = quatm.default_state()
    np.testing.assert_allclose(quatm.rotation(xq0, "balloon"), R0, atol=1e-15)
    ta = tl.simulate(euler, (0.0, 2.0), x0=x0, rtol=1e-11, atol=1e-11, n_points=5)
    tb = tl.simulate(quatm, (0.0, 2.0), x0=xq0, rtol=1e-11, atol=1e-11, n_points=5)
    for xa, xb in zip(ta.x, tb.x):
        np.testing.assert_allclose(quatm.rotation(xb, "balloon"), euler.rotation(xa, "balloon"),
                                   atol=1e-8)
        np.testing.assert_allclose(xb[:9], xa[:9], atol=1e-8)
        np.testing.assert_allclose(xb[13:], xa[12:], atol=1e-8)
        assert abs(xb[9:13] @ xb[9:13] - 1.0) < 1e-9
    # attitude outputs stay Euler angles; linearize uses balloon_rx ...
    np.testing.assert_allclose(quatm.outputs(0, tb.x[-1])[3:6], euler.outputs(0, ta.x[-1])[3:6],
                               atol=1e-7)


def test_quaternion_base_trim_and_linearize():
    """Trim a quaternion-based balloon's attitude (free ``balloon_rx …``) and linearise it:
    the poles are those of the Euler-angle model at the same equilibrium."""
    import models

    desc = models.balloon()
    desc["bodies"][0]["inertia"] = [[9.0, 0.0, 0.0], [0.0, 10.0, -3.0], [0.0, -3.0, 10.0]]
    euler = tl.load_model(desc)
    qdesc = copy.deepcopy(desc)
    qdesc["bodies"][0]["joint"]["attitude"] = "quaternion"
    quatm = tl.load_model(qdesc)
    joints = ["slider_q", "pendulum1_q", "pendulum2_q"]
    guess = {"pendulum1.q": 0.2, "pendulum2.q": -0.2}
    op_e = tl.trim(euler, ["balloon_phi", "balloon_theta", *joints], guess=guess)
    op_q = tl.trim(quatm, ["balloon_rx", "balloon_rz", *joints], guess=guess)
    assert op_e.success and op_q.success
    np.testing.assert_allclose(quatm.rotation(op_q.x, "balloon"),
                               euler.rotation(op_e.x, "balloon"), atol=1e-9)
    sys_e = tl.linearize(euler, op_e, drop_integrators=True)
    sys_q = tl.linearize(quatm, op_q, drop_integrators=True)
    assert "balloon_rx" in sys_q.state_labels and "balloon_qw" not in sys_q.state_labels
    pe = np.sort_complex(np.round(np.linalg.eigvals(sys_e.A), 8))
    pq = np.sort_complex(np.round(np.linalg.eigvals(sys_q.A), 8))
    np.testing.assert_allclose(pq, pe, atol=1e-6)


def test_kernel_and_numpy_share_the_quaternion_gain():
    from titop_lpv.multibody import joint_laws, kernel_joints

    assert kernel_joints.QUATERNION_GAIN == joint_laws.QUATERNION_GAIN == 1.0
