"""The O(n) TITOP recursion against a second, dense route, and its evaluation properties.

docs/design.md: "a second, independent route (mass matrix from inverse dynamics, then a dense
solve) exists only to test the first". On seeded random trees (free and fixed roots, 1 to 30
bodies, revolute + prismatic + weld joints, random joint rotations, springs, loads and
actuated inputs) the following are checked:

* forward dynamics :meth:`titop_lpv.Model.dynamics` against ``ν̇ = M⁻¹ (Q_joint − h)``, with
  ``M`` from :func:`titop_lpv.mass_matrix`, the bias ``h`` from
  :func:`titop_lpv.multibody.inverse_dynamics` at zero acceleration, and the joint forces
  ``Q_joint = −k (q − rest) − d q̇ + u_τ`` computed here from the (resolved) description;
  ``M`` is symmetric positive definite (relative ``<= 1e-10``);
* the inverse-dynamics round trip: the actuation needed for the forward accelerations is the
  actuator input on actuated joints and zero elsewhere, the base wrench is zero;
* batched evaluation (states, inputs and parameters with leading axes) equals the loop over
  single evaluations (relative ``<= 1e-13``);
* complex-step derivatives of the dynamics (all directions in one batched call) equal central
  finite differences (``<= 1e-6``) and do not depend on the step (1e-30 vs 1e-40, ``<= 1e-12``):
  the evaluation is analytic;
* invariance: rotating the whole description of a fixed-root tree (gravity, the root joint's
  rotation, inertial-frame loads) by a rotation ``Q`` leaves every joint acceleration unchanged
  and rotates every body position by ``Q`` (``<= 1e-10``).
"""

from __future__ import annotations

import copy
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

if str(Path(__file__).resolve().parent) not in sys.path:
    sys.path.insert(0, str(Path(__file__).resolve().parent))

import models
import peer_pinocchio as pp

import titop_lpv as tl
from titop_lpv.spatial.euler import dcm_to_euler

EULER = ("phi", "theta", "psi")
N_TREES = 56
balloon_warning = pytest.mark.filterwarnings("ignore::titop_lpv.TitopWarning")


def tree_case(seed: int) -> tuple[dict, str]:
    """The random tree of a seed: 1 to 30 bodies, alternating roots, some parametrised."""
    n_bodies = 1 + (seed * 7) % 30
    root = "free" if seed % 2 == 0 else "fixed"
    desc = models.random_tree(seed, n_bodies, root, params=seed % 4 == 1)
    return desc, root


def state_vector(model: tl.Model, config: dict) -> np.ndarray:
    """Our state from a project-named random config (free root attitude -> Euler angles)."""
    x = np.zeros(model.n_states)
    for i, name in enumerate(model.state_names):
        if name in config:
            x[i] = float(config[name])
    if model.floating_base:
        b = model.body_names[0]
        angles = dcm_to_euler(np.asarray(config[f"{b}_R"]), model.euler)
        for name, angle in zip(EULER, angles):
            x[model.state_index(f"{b}_{name}")] = angle
    return x


def random_state(model: tl.Model, desc: dict, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """A random state (away from the Euler singularity) and random actuator inputs."""
    for k in range(20):
        x = state_vector(model, models.random_config(desc, seed + 7919 * k))
        if not model.floating_base:
            break
        theta = x[model.state_index(f"{model.body_names[0]}_theta")]
        if abs(np.cos(theta)) > 0.2:
            break
    rng = np.random.default_rng(seed)
    return x, rng.uniform(-3.0, 3.0, model.n_inputs)


def joint_forces(model: tl.Model, desc: dict, x: np.ndarray, u: np.ndarray) -> np.ndarray:
    """``Q_joint``: zero for the base, ``−k (q − rest) − d q̇ + u_τ`` for each joint."""
    resolved = pp.resolve(desc)
    joints = {b["name"]: b["joint"] for b in resolved["bodies"]}
    inputs = dict(zip(model.input_names, u))
    out = []
    for name in tl.velocity_names(model):
        if not name.endswith("_qd"):
            out.append(0.0)
            continue
        body = name[:-3]
        joint = joints[body]
        q = x[model.state_index(f"{body}_q")]
        qd = x[model.state_index(name)]
        force = -joint.get("stiffness", 0.0) * (q - joint.get("rest", 0.0))
        force -= joint.get("damping", 0.0) * qd
        if joint.get("actuated", False):
            force += inputs[f"{body}_tau"]
        out.append(force)
    return np.array(out)


def rates(model: tl.Model, xdot: np.ndarray) -> np.ndarray:
    """The ν̇ part of a state derivative (velocity-state derivatives, ν order)."""
    return xdot[..., [model.state_index(n) for n in tl.velocity_names(model)]]


def max_rel_err(a, b) -> float:
    a, b = np.asarray(a), np.asarray(b)
    return float(np.max(np.abs(a - b) / np.maximum(1.0, np.abs(b)), initial=0.0))


# --------------------------------------------------------------------------------------------
# the dense route
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("seed", range(N_TREES))
def test_recursion_equals_dense_solve(seed):
    """ν̇ of the recursion equals M⁻¹ (Q_joint − h); M is symmetric positive definite."""
    desc, _ = tree_case(seed)
    model = tl.load_model(desc)
    x, u = random_state(model, desc, seed)
    nv = len(tl.velocity_names(model))
    mass = tl.mass_matrix(model, x)
    assert mass.shape == (nv, nv)
    scale = np.max(np.abs(mass))
    assert np.max(np.abs(mass - mass.T)) <= 1e-12 * scale
    eigenvalues = np.linalg.eigvalsh(0.5 * (mass + mass.T))
    assert eigenvalues[0] > 1e-8 * scale, f"M not positive definite: {eigenvalues[0]:.3g}"
    np.linalg.cholesky(mass)
    bias = tl.inverse_dynamics(model, x, np.zeros(nv), u).generalized_force
    dense = np.linalg.solve(mass, joint_forces(model, desc, x, u) - bias)
    recursion = rates(model, model.dynamics(0.0, x, u))
    err = max_rel_err(recursion, dense)
    assert err <= 1e-10, f"recursion vs dense solve: rel. err {err:.3g}"


@pytest.mark.parametrize("seed", range(0, N_TREES, 3))
def test_inverse_dynamics_round_trip(seed):
    """Inverse dynamics of the forward accelerations returns the inputs that produced them."""
    desc, root = tree_case(seed)
    model = tl.load_model(desc)
    x, u = random_state(model, desc, seed)
    nudot = rates(model, model.dynamics(0.0, x, u))
    inv = tl.inverse_dynamics(model, x, nudot, u)
    assert inv.names == tl.velocity_names(model)
    joints = [n[:-3] for n in inv.names if n.endswith("_qd")]
    inputs = dict(zip(model.input_names, u))
    expected = np.array([inputs.get(f"{b}_tau", 0.0) for b in joints])
    scale = max(1.0, float(np.max(np.abs(inv.generalized_force), initial=0.0)))
    np.testing.assert_allclose(inv.actuation, expected, rtol=0, atol=1e-10 * scale)
    np.testing.assert_allclose(inv.base_wrench, np.zeros(6), rtol=0, atol=1e-10 * scale)
    if root == "free":
        np.testing.assert_allclose(inv.generalized_force[:6], 0.0, rtol=0, atol=1e-10 * scale)


# --------------------------------------------------------------------------------------------
# batched evaluation
# --------------------------------------------------------------------------------------------
def check_batch_against_loop(model, x, u=None, params=None) -> None:
    """``model.dynamics`` on broadcast batches equals the loop over the single evaluations.

    ``params`` is ``None`` or an array (..., n_p); the batch shape is the broadcast of the
    leading axes of ``x``, ``u`` and ``params``.
    """
    u = np.zeros(model.n_inputs) if u is None else np.asarray(u)
    pv = model.param_vector() if params is None else np.asarray(params)
    shape = np.broadcast_shapes(x.shape[:-1], u.shape[:-1], pv.shape[:-1])
    batched = model.dynamics(0.0, x, u, params)
    assert batched.shape == (*shape, model.n_states)
    xb = np.broadcast_to(x, (*shape, x.shape[-1]))
    ub = np.broadcast_to(u, (*shape, u.shape[-1]))
    pb = np.broadcast_to(pv, (*shape, pv.shape[-1]))
    for idx in np.ndindex(*shape):
        single = model.dynamics(0.0, xb[idx], ub[idx], dict(zip(model.param_names, pb[idx])))
        err = max_rel_err(batched[idx], single)
        assert err <= 1e-13, f"batch element {idx}: rel. err {err:.3g}"


@pytest.mark.parametrize("seed", [0, 5, 9, 12, 21])
def test_batched_states_equal_loop(seed):
    """x of shape (4, 3, n_x) and u of shape (4, 3, n_u) equal 12 single evaluations.

    Roots: free (seeds 0, 12), revolute (5), weld (9) and prismatic (21); below a weld or
    prismatic root the attitude of the root does not depend on the state.
    """
    desc, _ = tree_case(seed)
    model = tl.load_model(desc)
    xs, us = zip(*(random_state(model, desc, 1000 * seed + k) for k in range(12)))
    x = np.array(xs).reshape(4, 3, model.n_states)
    u = np.array(us).reshape(4, 3, model.n_inputs)
    check_batch_against_loop(model, x, u)
    check_batch_against_loop(model, x, us[0])  # one input vector for every state


@pytest.mark.parametrize("seed", [5, 12])
def test_batched_inputs_single_state(seed):
    """One state, a batch of inputs (3, n_u): what a batched ∂f/∂u needs."""
    desc, _ = tree_case(seed)
    model = tl.load_model(desc)
    assert model.n_inputs > 0
    x, u = random_state(model, desc, seed)
    check_batch_against_loop(model, x, u + np.arange(3.0)[:, None])


@balloon_warning
def test_batched_stiffness_equal_loop():
    """Balloon: params {"k": (5, 1)} with x of shape (5, 1, n_x) equal the loop."""
    model = tl.load_model(models.balloon())
    rng = np.random.default_rng(3)
    ks = np.linspace(25.0, 100.0, 5)
    x = model.default_state() + 0.3 * rng.uniform(-1.0, 1.0, (5, 1, model.n_states))
    batched = model.dynamics(0.0, x, params={"k": ks[:, None]})
    assert batched.shape == (5, 1, model.n_states)
    for i, k in enumerate(ks):
        single = model.dynamics(0.0, x[i, 0], params={"k": k})
        assert max_rel_err(batched[i, 0], single) <= 1e-13, i
    # the stiffness matters: same state, different k, different slider accelerations
    slider = model.state_index("slider_qd")
    x_same = np.broadcast_to(x[0], (5, 1, model.n_states))
    by_k = model.dynamics(0.0, x_same, params={"k": ks[:, None]})
    assert np.ptp(by_k[:, 0, slider]) > 1.0


@balloon_warning
def test_batched_params_grid_balloon():
    """Balloon: 5 parameter vectors (5, 1, n_p) times 3 states (3, n_x) -> a (5, 3) grid."""
    model = tl.load_model(models.balloon())
    assert model.param_names == ("k", "ds", "dp1", "dp2")
    rng = np.random.default_rng(4)
    x = model.default_state() + 0.3 * rng.uniform(-1.0, 1.0, (3, model.n_states))
    pv = np.array([[k, 1.0, 0.2, 0.7] for k in np.linspace(25.0, 100.0, 5)])[:, None, :]
    check_batch_against_loop(model, x, params=pv)


@pytest.mark.parametrize("root", ["free", "fixed"])
def test_batched_params_single_state(root):
    """A parametrised random tree: one state, a batch of parameter vectors (6, n_p)."""
    desc = models.random_tree(9, 12, root, params=True)
    model = tl.load_model(desc)
    x, u = random_state(model, desc, 9)
    p0 = model.param_vector()
    rng = np.random.default_rng(9)
    check_batch_against_loop(model, x, u, p0 * (1.0 + 0.2 * rng.uniform(-1, 1, (6, p0.size))))


# --------------------------------------------------------------------------------------------
# complex step
# --------------------------------------------------------------------------------------------
def complex_step_jacobian(f, x: np.ndarray, step: float) -> np.ndarray:
    """``∂f/∂x`` by the complex step, every direction in one batched call."""
    n = x.size
    out = f(x + 1j * step * np.eye(n))  # row k is f(x + i h e_k)
    assert out.shape[:-1] == (n,), f"batched call returned shape {out.shape}, not ({n}, ...)"
    return np.imag(out).T / step


def central_difference_jacobian(f, x: np.ndarray, h: float = 1e-6) -> np.ndarray:
    n = x.size
    return ((f(x + h * np.eye(n)) - f(x - h * np.eye(n))) / (2 * h)).T


def check_complex_step(f, x: np.ndarray) -> None:
    jac = complex_step_jacobian(f, x, 1e-30)
    assert np.all(np.isfinite(jac))
    assert np.max(np.abs(jac)) > 0.1  # not trivially zero
    jac_fd = central_difference_jacobian(f, x)
    err_fd = max_rel_err(jac, jac_fd)
    assert err_fd <= 1e-6, f"complex step vs finite differences: {err_fd:.3g}"
    err_step = max_rel_err(complex_step_jacobian(f, x, 1e-40), jac)
    assert err_step <= 1e-12, f"complex step depends on the step: {err_step:.3g}"


COMPLEX_TREES = [(31, 4, "free"), (32, 9, "fixed"), (33, 16, "free")]


def complex_case(case):
    if case == "balloon":
        model = tl.load_model(models.balloon())
        rng = np.random.default_rng(11)
        x = model.default_state() + rng.uniform(-0.5, 0.5, model.n_states)
        return model, x, np.zeros(0)
    seed, n_bodies, root = case
    desc = models.random_tree(seed, n_bodies, root, params=True)
    model = tl.load_model(desc)
    x, u = random_state(model, desc, seed)
    return model, x, u


@balloon_warning
@pytest.mark.parametrize("case", ["balloon", *COMPLEX_TREES])
def test_complex_step_state(case):
    """∂ẋ/∂x by the complex step (x + 1e-30 i I, one batched call) vs finite differences."""
    model, x, u = complex_case(case)
    check_complex_step(lambda xx: model.dynamics(0.0, xx, u), x)


@pytest.mark.parametrize("case", COMPLEX_TREES)
def test_complex_step_inputs(case):
    """∂ẋ/∂u by the complex step (u + 1e-30 i I, one batched call, one state)."""
    model, x, u = complex_case(case)
    assert model.n_inputs > 0
    check_complex_step(lambda uu: model.dynamics(0.0, x, uu), u)


@balloon_warning
@pytest.mark.parametrize("case", ["balloon", *COMPLEX_TREES])
def test_complex_step_params(case):
    """∂ẋ/∂params by the complex step (params + 1e-30 i I, one batched call, one state)."""
    model, x, u = complex_case(case)
    check_complex_step(lambda pv: model.dynamics(0.0, x, u, pv), model.param_vector())


# --------------------------------------------------------------------------------------------
# invariance under a rotation of the world
# --------------------------------------------------------------------------------------------
def rotated_description(desc: dict, rot: np.ndarray) -> dict:
    """The same system seen from a world frame rotated by ``rot`` (root joint at the origin).

    A fixed root's joint rotation is turned; a floating root's pose is part of the state
    (the test turns it there).
    """
    out = copy.deepcopy(pp.resolve(desc))
    out["gravity"] = (rot @ np.asarray(out["gravity"])).tolist()
    roots = [b for b in out["bodies"] if b.get("parent") is None]
    assert len(roots) == 1
    joint = roots[0]["joint"]
    if joint["type"] != "free":
        joint["rotation"] = (rot @ np.asarray(joint.get("rotation", np.eye(3)))).tolist()
    for load in out["loads"]:
        if load["type"] in ("force", "torque") and load.get("frame", "inertial") == "inertial":
            key = load["type"]
            load[key] = (rot @ np.asarray(load[key])).tolist()
    return out


@pytest.mark.parametrize("seed", [41, 43, 45, 47, 49, 51])
def test_rotating_the_world_leaves_joint_accelerations_unchanged(seed):
    desc = models.random_tree(seed, 3 + seed % 20, "fixed", params=seed % 4 == 1)
    rot = Rotation.random(random_state=np.random.default_rng(seed)).as_matrix()
    model = tl.load_model(desc)
    turned = tl.load_model(rotated_description(desc, rot))
    assert turned.state_names == model.state_names
    assert turned.input_names == model.input_names
    x, u = random_state(model, desc, seed)
    xdot = model.dynamics(0.0, x, u)
    xdot_turned = turned.dynamics(0.0, x, u)
    assert np.max(np.abs(xdot)) > 0.1
    assert max_rel_err(xdot_turned, xdot) <= 1e-10
    for body in model.body_names:
        np.testing.assert_allclose(turned.position(x, body), rot @ model.position(x, body),
                                   rtol=0, atol=1e-10, err_msg=body)
        np.testing.assert_allclose(turned.rotation(x, body), rot @ model.rotation(x, body),
                                   rtol=0, atol=1e-10, err_msg=body)


@pytest.mark.parametrize("seed", [42, 44, 46, 48, 50])
def test_rotating_the_world_around_a_floating_base(seed):
    """Free root: turn gravity, inertial loads and the base pose (position, attitude) by a
    random rotation; the body-frame twist rates and joint accelerations do not change and
    the position rates turn with the world."""
    desc = models.random_tree(seed, 3 + seed % 20, "free", params=seed % 4 == 2)
    rot = Rotation.random(random_state=np.random.default_rng(seed)).as_matrix()
    model = tl.load_model(desc)
    turned = tl.load_model(rotated_description(desc, rot))
    x, u = random_state(model, desc, seed)
    base = model.body_names[0]
    pos = [model.state_index(f"{base}_{c}") for c in "xyz"]
    ang = [model.state_index(f"{base}_{name}") for name in EULER]
    x_turned = x.copy()
    x_turned[pos] = rot @ x[pos]
    x_turned[ang] = dcm_to_euler(rot @ model.rotation(x, base), model.euler)
    np.testing.assert_allclose(turned.rotation(x_turned, base), rot @ model.rotation(x, base),
                               rtol=0, atol=1e-12)
    xdot = model.dynamics(0.0, x, u)
    xdot_turned = turned.dynamics(0.0, x_turned, u)
    assert np.max(np.abs(xdot)) > 0.1
    same = [k for k in range(model.n_states) if k not in pos + ang]
    assert max_rel_err(xdot_turned[same], xdot[same]) <= 1e-10
    assert max_rel_err(xdot_turned[pos], rot @ xdot[pos]) <= 1e-10
    for body in model.body_names:
        np.testing.assert_allclose(turned.position(x_turned, body),
                                   rot @ model.position(x, body), rtol=0, atol=1e-10,
                                   err_msg=body)
