"""The TITOP recursion of ``titop_lpv`` against Pinocchio as an independent peer.

Every model description (``tests/models.py``) is compiled by ``titop_lpv`` and translated
into a ``pinocchio.Model`` by ``tests/peer_pinocchio.py`` (which does not import
``titop_lpv``). At seeded random states the following are checked against the peer:

* forward dynamics: the velocity-state derivatives of :meth:`titop_lpv.Model.dynamics`
  (free-base body-frame twist rates and joint accelerations) against ``pinocchio.aba`` with
  the same spring-dampers, actuator inputs and loads, on the paper's balloon and on random
  trees (free and fixed roots, 1 to 30 bodies, parametrised or not), relative error
  ``<= 1e-9``; the free base's position and Euler-angle derivatives against ``P_{b/i} v`` and
  ``Ṗ = P (ω×)``;
* the mass matrix :func:`titop_lpv.mass_matrix` against the peer's, built from
  ``pinocchio.rnea`` columns and, where the peer's joint numbering allows it, from
  ``pinocchio.crba`` (relative ``<= 1e-10``, the peer's ν ordering permuted to ours);
* the world pose of every body frame (:meth:`Model.position`, :meth:`Model.rotation`) against
  ``pinocchio.forwardKinematics`` (``<= 1e-12``);
* the kinetic and potential energies and the centre of mass on conservative random trees
  (relative ``<= 1e-10``);
* a simulation of ``examples/balloon.toml`` over 20 s against the reference trajectory
  ``tests/data/balloon_trajectory.json``, computed independently (Pinocchio ``aba``
  + DOP853 at rtol 1e-10, cross-checked by a sympy Kane model to 6e-10): balloon position,
  attitude and joint coordinates to ``1e-7`` absolute.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pinocchio as pin
import pytest
from scipy.spatial.transform import Rotation

if str(Path(__file__).resolve().parent) not in sys.path:
    sys.path.insert(0, str(Path(__file__).resolve().parent))

import models
import peer_pinocchio as pp

import titop_lpv as tl
from titop_lpv.spatial.euler import dcm_to_euler

REPO = Path(__file__).resolve().parents[1]
REFERENCE = REPO / "tests" / "data" / "balloon_trajectory.json"  # the independent peer run
TWIST = ("vx", "vy", "vz", "wx", "wy", "wz")
EULER = ("phi", "theta", "psi")

# (seed, n_bodies, root, params): 1 to 30 bodies, both roots, some parametrised
TREES = [
    (1, 1, "free", False),
    (2, 1, "fixed", True),
    (3, 2, "fixed", False),
    (4, 3, "free", True),
    (5, 5, "fixed", False),
    (6, 7, "free", False),
    (7, 10, "fixed", True),
    (8, 13, "free", False),
    (9, 17, "fixed", False),
    (10, 21, "free", True),
    (11, 25, "fixed", False),
    (12, 30, "free", False),
    (13, 30, "fixed", True),
]

balloon_warning = pytest.mark.filterwarnings("ignore::titop_lpv.TitopWarning")


# --------------------------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------------------------
def compile_model(desc: dict) -> tl.Model:
    return tl.load_model(desc)


def state_from_config(model: tl.Model, config: dict) -> tuple[np.ndarray, dict]:
    """Our state vector from a project-named config, and the config the peer should use.

    The free root's attitude ``b_R`` becomes Euler angles (``dcm_to_euler``); the peer then
    gets the matrix rebuilt from those angles by its own ``euler_to_dcm`` so that both sides
    see the very same attitude (this also checks the Euler convention of the model).
    """
    x = np.zeros(model.n_states)
    peer_config = dict(config)
    for i, name in enumerate(model.state_names):
        if name in config:
            x[i] = float(config[name])
    if model.floating_base:
        b = model.body_names[0]
        rot = np.asarray(config[f"{b}_R"])
        angles = dcm_to_euler(rot, model.euler)
        assert np.abs(np.cos(angles[1])) > 0.05, "test state too close to gimbal lock"
        for name, angle in zip(EULER, angles):
            x[model.state_index(f"{b}_{name}")] = angle
        rebuilt = pp.euler_to_dcm(model.euler, angles)
        np.testing.assert_allclose(rebuilt, rot, rtol=0, atol=1e-12)
        peer_config[f"{b}_R"] = rebuilt
    return x, peer_config


def random_inputs(model: tl.Model, seed: int) -> tuple[np.ndarray, dict]:
    """Random actuator inputs (random trees have only joint ``tau`` inputs)."""
    rng = np.random.default_rng(seed)
    u = rng.uniform(-3.0, 3.0, model.n_inputs)
    assert all(n.endswith("_tau") for n in model.input_names)
    return u, dict(zip(model.input_names, u.tolist()))


def velocity_rate_indices(model: tl.Model) -> tuple[list[str], list[int]]:
    """Names of the velocity states (whose derivatives are accelerations) and their indices."""
    names = list(tl.velocity_names(model))
    return names, [model.state_index(n) for n in names]


def peer_velocity_names(peer: pp.PeerModel) -> list[str]:
    """The peer's ν names in Pinocchio's ``v`` order."""
    names = [""] * peer.nv
    for dof in peer.dofs:
        if dof.kind == "free":
            for k, c in enumerate(TWIST):
                names[dof.idx_v + k] = f"{dof.body}_{c}"
        else:
            names[dof.idx_v] = f"{dof.body}_qd"
    return names


def max_rel_err(a: np.ndarray, b: np.ndarray) -> float:
    """``max |a - b| / max(1, |b|)`` elementwise."""
    a, b = np.asarray(a), np.asarray(b)
    return float(np.max(np.abs(a - b) / np.maximum(1.0, np.abs(b)), initial=0.0))


def check_forward(model: tl.Model, peer: pp.PeerModel, config: dict, u=None, u_dict=None,
                  params=None) -> float:
    """Compare the accelerations of ``model.dynamics`` with ``pinocchio.aba``."""
    x, peer_config = state_from_config(model, config)
    xdot = model.dynamics(0.0, x, u, params)
    expected = peer.aba(peer_config, u_dict)
    names, idx = velocity_rate_indices(model)
    assert sorted(names) == sorted(expected)
    ours = xdot[idx]
    theirs = np.array([expected[n] for n in names])
    err = max_rel_err(ours, theirs)
    assert err <= 1e-9, f"accelerations differ from pinocchio.aba: rel. err {err:.3g}\n" \
        f"{dict(zip(names, ours - theirs))}"
    # joint position rates are the joint velocities
    for i, name in enumerate(model.state_names):
        if name.endswith("_q"):
            assert xdot[i] == x[model.state_index(name + "d")]
    return err


def check_base_kinematics(model: tl.Model, config: dict) -> None:
    """d/dt position = P_{b/i} v and d/dt P(Θ) = P (ω×) for the free base."""
    x, peer_config = state_from_config(model, config)
    xdot = model.dynamics(0.0, x)
    b = model.body_names[0]
    rot = peer_config[f"{b}_R"]
    vel = np.array([config[f"{b}_{c}"] for c in TWIST[:3]])
    w = np.array([config[f"{b}_{c}"] for c in TWIST[3:]])
    pos_rate = xdot[[model.state_index(f"{b}_{c}") for c in "xyz"]]
    np.testing.assert_allclose(pos_rate, rot @ vel, rtol=0, atol=1e-13 * max(1, np.abs(vel).max()))
    # attitude: central difference of the peer's own euler_to_dcm along Θ̇
    angles = x[[model.state_index(f"{b}_{c}") for c in EULER]]
    theta_rate = xdot[[model.state_index(f"{b}_{c}") for c in EULER]]
    h = 1e-6
    dP = (pp.euler_to_dcm(model.euler, angles + h * theta_rate)
          - pp.euler_to_dcm(model.euler, angles - h * theta_rate)) / (2 * h)
    skew = np.array([[0.0, -w[2], w[1]], [w[2], 0.0, -w[0]], [-w[1], w[0], 0.0]])
    np.testing.assert_allclose(dP, rot @ skew, rtol=0, atol=1e-8)


def balloon_state(model: tl.Model, seed: int) -> dict:
    """Random balloon state: twist, Euler angles away from gimbal lock, joint q and q̇."""
    rng = np.random.default_rng(seed)
    config: dict = {}
    config.update({f"balloon_{c}": v for c, v in zip(TWIST, rng.uniform(-1, 1, 6))})
    config.update({f"balloon_{c}": v for c, v in zip("xyz", rng.uniform(-3, 3, 3))})
    angles = [rng.uniform(-np.pi, np.pi), rng.uniform(-1.2, 1.2), rng.uniform(-np.pi, np.pi)]
    config["balloon_R"] = pp.euler_to_dcm(model.euler, angles)
    config["slider_q"], config["slider_qd"] = rng.uniform(-1, 1), rng.uniform(-2, 2)
    for p in ("pendulum1", "pendulum2"):
        config[f"{p}_q"], config[f"{p}_qd"] = rng.uniform(-np.pi, np.pi), rng.uniform(-3, 3)
    return config


# --------------------------------------------------------------------------------------------
# forward dynamics
# --------------------------------------------------------------------------------------------
@balloon_warning
def test_balloon_initial_state_matches_aba():
    """At the paper's initial state (θ1 = 170°, θ2 = −170°) the rates equal pinocchio.aba."""
    desc = models.balloon()
    model = compile_model(desc)
    peer = pp.build(desc)
    x = model.default_state()
    config = dict(zip(model.state_names, x.tolist()))
    config["balloon_R"] = np.eye(3)
    assert np.all(x[[model.state_index(f"balloon_{c}") for c in EULER]] == 0.0)
    check_forward(model, peer, config)


@balloon_warning
@pytest.mark.parametrize("seed", range(5))
def test_balloon_random_states_match_aba(seed):
    """Random balloon states, default and modified parameters, against pinocchio.aba."""
    desc = models.balloon()
    model = compile_model(desc)
    config = balloon_state(model, seed)
    check_forward(model, pp.build(desc), config)
    params = {"k": 25.0 + 15.0 * seed, "ds": 0.5 * seed, "dp1": 0.1, "dp2": 2.0}
    check_forward(model, pp.build(desc, params), config, params=params)
    check_base_kinematics(model, config)


@pytest.mark.parametrize("seed,n_bodies,root,params", TREES)
def test_random_tree_matches_aba(seed, n_bodies, root, params):
    """Random trees with loads, springs and actuated inputs at two random states."""
    desc = models.random_tree(seed, n_bodies, root, params=params)
    model = compile_model(desc)
    peer = pp.build(desc)
    for k in range(2):
        config = models.random_config(desc, 100 * seed + k)
        u, u_dict = random_inputs(model, 100 * seed + k)
        check_forward(model, peer, config, u, u_dict)
        if model.floating_base:
            check_base_kinematics(model, config)


def test_random_tree_parameter_override_matches_aba():
    """Overriding parameter values at evaluation time equals a peer built with them."""
    desc = models.random_tree(7, 10, "fixed", params=True)
    model = compile_model(desc)
    new = {n: v * 1.3 + 0.1 for n, v in model.default_params().items()}
    config = models.random_config(desc, 77)
    u, u_dict = random_inputs(model, 77)
    check_forward(model, pp.build(desc, new), config, u, u_dict, params=new)


# --------------------------------------------------------------------------------------------
# mass matrix
# --------------------------------------------------------------------------------------------
def subtrees_are_contiguous(peer: pp.PeerModel) -> bool:
    """Whether every joint's subtree occupies a contiguous block ``v[idx_v : ...]``.

    ``pinocchio.crba`` relies on this; the peer adds joints in breadth-first order, which
    breaks it for trees where a later sibling sits between a joint and its children (then
    ``PeerModel.mass_matrix`` silently misses couplings; e.g. ``random_tree(5, 5, "fixed")``).
    Pinocchio's ``rnea`` has no such requirement, so its columns are the reference for all
    trees and crba is compared as well wherever it is valid.
    """
    model = peer.model
    for j in range(1, model.njoints):
        sub = set()
        for k in range(1, model.njoints):
            a = k
            while a > 0 and a != j:
                a = model.parents[a]
            if a == j:
                sub.update(range(model.joints[k].idx_v, model.joints[k].idx_v + model.nvs[k]))
        lo = model.joints[j].idx_v
        if sub != set(range(lo, lo + len(sub))):
            return False
    return True


def peer_mass_matrix_rnea(peer: pp.PeerModel, config: dict) -> np.ndarray:
    """Mass matrix from ``pinocchio.rnea`` columns (zero velocity and gravity)."""
    q, _ = peer.to_pinocchio(config)
    model = peer.model.copy()
    model.gravity.linear = np.zeros(3)
    data = model.createData()
    zero = np.zeros(model.nv)
    cols = [pin.rnea(model, data, q, zero, e) for e in np.eye(model.nv)]
    return np.array(cols).T


def check_mass_matrix(desc: dict, config: dict) -> float:
    """Our mass matrix against the peer's (crba where valid, and rnea columns)."""
    model = compile_model(desc)
    peer = pp.build(desc)
    x, peer_config = state_from_config(model, config)
    ours = tl.mass_matrix(model, x)
    names = list(tl.velocity_names(model))
    peer_names = peer_velocity_names(peer)
    assert sorted(names) == sorted(peer_names)
    perm = np.ix_(*[[peer_names.index(n) for n in names]] * 2)
    references = {"rnea": peer_mass_matrix_rnea(peer, peer_config)[perm]}
    if subtrees_are_contiguous(peer):
        references["crba"] = peer.mass_matrix(peer_config)[perm]
    worst = 0.0
    for route, theirs in references.items():
        err = float(np.max(np.abs(ours - theirs)) / np.max(np.abs(theirs)))
        assert err <= 1e-10, f"mass matrix differs from pinocchio.{route}: rel. err {err:.3g}"
        worst = max(worst, err)
    return worst


@balloon_warning
@pytest.mark.parametrize("seed", range(3))
def test_balloon_mass_matrix_matches_peer(seed):
    desc = models.balloon()
    check_mass_matrix(desc, balloon_state(compile_model(desc), seed))


@pytest.mark.parametrize("seed,n_bodies,root,params", TREES)
def test_random_tree_mass_matrix_matches_peer(seed, n_bodies, root, params):
    desc = models.random_tree(seed, n_bodies, root, params=params)
    check_mass_matrix(desc, models.random_config(desc, 1000 + seed))


# --------------------------------------------------------------------------------------------
# kinematics
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("seed,n_bodies,root,params", TREES[1::2])
def test_positions_and_attitudes_match_forward_kinematics(seed, n_bodies, root, params):
    """Origin position and P_{b/i} of every body against pinocchio.forwardKinematics."""
    desc = models.random_tree(seed, n_bodies, root, params=params)
    model = compile_model(desc)
    peer = pp.build(desc)
    config = models.random_config(desc, 2000 + seed)
    x, peer_config = state_from_config(model, config)
    poses = peer.positions(peer_config)
    assert sorted(poses) == sorted(model.body_names)
    for body, (r, rot) in poses.items():
        np.testing.assert_allclose(model.position(x, body), r, rtol=0,
                                   atol=1e-12 * max(1.0, np.abs(r).max()), err_msg=body)
        np.testing.assert_allclose(model.rotation(x, body), rot, rtol=0, atol=1e-12,
                                   err_msg=body)


@balloon_warning
def test_balloon_positions_match_forward_kinematics():
    desc = models.balloon()
    model = compile_model(desc)
    config = balloon_state(model, 42)
    x, peer_config = state_from_config(model, config)
    for body, (r, rot) in pp.build(desc).positions(peer_config).items():
        np.testing.assert_allclose(model.position(x, body), r, rtol=0,
                                   atol=1e-12 * max(1.0, np.abs(r).max()), err_msg=body)
        np.testing.assert_allclose(model.rotation(x, body), rot, rtol=0, atol=1e-12,
                                   err_msg=body)


# --------------------------------------------------------------------------------------------
# energy and centre of mass
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "seed,n_bodies,root,params",
    [(21, 1, "free", False), (22, 4, "fixed", True), (23, 8, "free", True),
     (24, 15, "fixed", False), (25, 30, "free", False), (26, 30, "fixed", True)],
)
def test_energy_and_center_of_mass_match_peer(seed, n_bodies, root, params):
    """Kinetic/potential energy (gravity, springs, buoyancy, inertial forces) and the CoM."""
    desc = models.random_tree(seed, n_bodies, root, loads="conservative", params=params)
    model = compile_model(desc)
    peer = pp.build(desc)
    config = models.random_config(desc, 3000 + seed)
    x, peer_config = state_from_config(model, config)
    kinetic, potential = tl.energy(model, x)
    kin_ref, pot_ref = peer.energy(peer_config)
    assert kin_ref > 0.0
    assert abs(kinetic - kin_ref) <= 1e-10 * max(1.0, abs(kin_ref))
    assert abs(potential - pot_ref) <= 1e-10 * max(1.0, abs(pot_ref))
    com = tl.center_of_mass(model, x)
    com_ref = peer.com(peer_config)
    np.testing.assert_allclose(com, com_ref, rtol=0, atol=1e-10 * max(1.0, np.abs(com_ref).max()))


# --------------------------------------------------------------------------------------------
# shared reference trajectory
# --------------------------------------------------------------------------------------------
@balloon_warning
def test_balloon_simulation_matches_reference_trajectory():
    """examples/balloon.toml over 20 s against the Pinocchio/Kane reference (1e-7 absolute)."""
    reference = json.loads(REFERENCE.read_text())
    assert reference["parameters"] == {"k": 50.0, "ds": 5.0, "dp1": 0.5, "dp2": 0.5}
    model = tl.load_model(REPO / "examples" / "balloon.toml")
    assert model.default_params() == reference["parameters"]
    times = [s["t"] for s in reference["samples"]]
    assert times == [1.0, 2.0, 5.0, 10.0, 20.0]
    traj = tl.simulate(model, (0.0, 20.0), t_eval=times, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(traj.t, times, rtol=0, atol=0)
    for k, sample in enumerate(reference["samples"]):
        x = traj.x[k]
        position = [x[model.state_index(f"balloon_{c}")] for c in "xyz"]
        np.testing.assert_allclose(position, sample["B_inertial"], rtol=0, atol=1e-7,
                                   err_msg=f"t = {sample['t']}")
        np.testing.assert_allclose(model.position(x, "balloon"), sample["B_inertial"], rtol=0,
                                   atol=1e-7, err_msg=f"t = {sample['t']}")
        for joint in ("slider.q", "pendulum1.q", "pendulum2.q"):
            assert abs(traj[joint][k] - sample[joint]) <= 1e-7, (sample["t"], joint)
        rot = Rotation.from_quat(sample["quat_xyzw_body_to_inertial"]).as_matrix()
        np.testing.assert_allclose(model.rotation(x, "balloon"), rot, rtol=0, atol=1e-7,
                                   err_msg=f"t = {sample['t']}")
