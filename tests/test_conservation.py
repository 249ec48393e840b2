"""Conservation laws along simulated trajectories of the nonlinear TITOP model.

What is checked against what
----------------------------
* The undamped balloon (``ds = dp1 = dp2 = 0``) from its default state (θ1 = 170°,
  θ2 = −170°), 20 s at ``rtol = 1e-10, atol = 1e-12``: the total energy ``tl.energy``
  (kinetic + gravity + spring + buoyancy potential) stays at its initial value
  (max |E(t) − E(0)| ≤ 1e-7 J).
* The damped balloon: the total energy never increases (1e-9 J allowed for noise) and is
  strictly dissipated overall.
* The balloon's buoyancy equals the total weight, so the external force vanishes: the
  linear momentum ``tl.momentum`` is constant and the centre of mass ``tl.center_of_mass``
  stays at rest (from rest) or moves uniformly at ``p/m`` (with an initial base twist).
* Free trees without gravity or loads (a random tree of ``tests/models.py`` and a floating
  base with revolute and prismatic spring children built with :class:`titop_lpv.System`):
  linear and angular momentum about the inertial origin are constant while the joints move
  a lot; without damping the energy is constant, with damping it decreases while the
  momenta are still conserved (the damping is internal).
"""

import numpy as np
import pytest
from models import balloon, random_tree

import titop_lpv as tl

UNDAMPED = {"ds": 0.0, "dp1": 0.0, "dp2": 0.0}
T_BALLOON = 20.0
BALLOON_MASS = 10.0 + 1.0 + 2.0 + 3.0


@pytest.fixture(scope="module")
def balloon_model():
    with pytest.warns(tl.TitopWarning, match="triangle inequality"):
        return tl.load_model(balloon())


@pytest.fixture(scope="module")
def undamped_trajectory(balloon_model):
    """The conservative balloon, from rest at its default state."""
    return tl.simulate(balloon_model, (0.0, T_BALLOON), params=UNDAMPED, rtol=1e-10,
                       atol=1e-12, n_points=2001)


@pytest.fixture(scope="module")
def damped_moving_trajectory(balloon_model):
    """The damped balloon, default joint angles, with an initial base twist."""
    x0 = balloon_model.default_state()
    x0[:6] = [0.4, -0.3, 0.2, 0.05, -0.1, 0.08]  # balloon_vx ... balloon_wz (body frame)
    return tl.simulate(balloon_model, (0.0, T_BALLOON), x0=x0, rtol=1e-10, atol=1e-12,
                       n_points=2001)


def _total_energy(model, x, params=None):
    kinetic, potential = tl.energy(model, x, params)
    return kinetic + potential


# ============================================================================= balloon energy
def test_undamped_balloon_energy_is_conserved(balloon_model, undamped_trajectory):
    traj = undamped_trajectory
    np.testing.assert_allclose(traj.x[0], balloon_model.default_state(), rtol=0, atol=0)
    assert traj.x[0, balloon_model.state_index("pendulum1_q")] == pytest.approx(
        np.deg2rad(170.0), abs=1e-12)
    E = _total_energy(balloon_model, traj.x, UNDAMPED)
    kinetic, _ = tl.energy(balloon_model, traj.x, UNDAMPED)
    drift = np.max(np.abs(E - E[0]))
    # the motion is violent: kinetic energy and potential exchange tens of joules
    assert np.max(kinetic) > 50.0
    assert drift <= 1e-7, f"undamped balloon energy drift {drift:.3g} J over {T_BALLOON} s"


def test_damped_balloon_energy_never_increases(balloon_model, damped_moving_trajectory):
    traj = damped_moving_trajectory
    E = _total_energy(balloon_model, traj.x)
    increase = np.max(np.diff(E))
    assert increase <= 1e-9, f"damped balloon energy increased by {increase:.3g} J"
    assert E[-1] < E[0] - 50.0  # dissipation is substantial


def test_damped_balloon_energy_rate_is_the_damper_power(balloon_model):
    """dE/dt = −Σ d_j q̇_j² at random states (energy along the exact vector field)."""
    model = balloon_model
    rng = np.random.default_rng(0)
    x = rng.uniform(-1.0, 1.0, (8, model.n_states))
    xdot = model.dynamics(0.0, x)
    h = 1e-30  # complex step along the vector field: dE/dt = Im E(x + i h ẋ) / h
    E_c = _total_energy(model, x + 1j * h * xdot)
    dEdt = E_c.imag / h
    p = model.default_params()
    power = -sum(p[d] * x[:, model.state_index(f"{b}_qd")] ** 2
                 for d, b in (("ds", "slider"), ("dp1", "pendulum1"), ("dp2", "pendulum2")))
    np.testing.assert_allclose(dEdt, power, rtol=1e-10, atol=1e-10)


# ============================================================================= balloon com
def test_balloon_com_stays_at_rest(balloon_model, undamped_trajectory):
    """Buoyancy = total weight: no external force, the com starting at rest stays put."""
    traj = undamped_trajectory
    com = tl.center_of_mass(balloon_model, traj.x, UNDAMPED)
    drift = np.max(np.abs(com - com[0]))
    assert drift <= 1e-8, f"centre of mass drift {drift:.3g} m"
    linear, _ = tl.momentum(balloon_model, traj.x, UNDAMPED)
    np.testing.assert_allclose(linear, 0.0, rtol=0, atol=1e-8)
    # while the balloon itself moves a lot
    balloon_pos = traj.x[:, balloon_model.state_index("balloon_x"):][:, :3]
    assert np.max(np.abs(balloon_pos - balloon_pos[0])) > 0.5


def test_balloon_com_moves_uniformly(balloon_model, damped_moving_trajectory):
    traj = damped_moving_trajectory
    linear, _ = tl.momentum(balloon_model, traj.x)
    drift_p = np.max(np.abs(linear - linear[0])) / np.linalg.norm(linear[0])
    assert drift_p <= 1e-8, f"relative linear momentum drift {drift_p:.3g}"
    v_com = linear[0] / BALLOON_MASS
    assert np.linalg.norm(v_com) > 0.1
    com = tl.center_of_mass(balloon_model, traj.x)
    err = np.max(np.abs(com - com[0] - traj.t[:, None] * v_com))
    assert err <= 1e-8, f"centre of mass deviation from uniform motion {err:.3g} m"


# ============================================================================= free trees
def _undamped_random_tree(seed, n_bodies):
    desc = random_tree(seed, n_bodies, gravity=False, loads=False, springs=True)
    for body in desc["bodies"]:
        body["joint"].pop("damping", None)
    return desc


def _floating_spring_tree(damping):
    s = tl.System("floating_spring_tree", euler="213")
    s.body("base", tl.Free(position0=[0.2, -0.1, 0.3], euler0=[0.3, 0.2, -0.1],
                           v0=[0.5, -0.2, 0.1]),
           mass=5.0, inertia=[[2.0, 0.1, 0.0], [0.1, 2.5, -0.2], [0.0, -0.2, 3.0]],
           com=[0.1, 0.05, -0.1], ports={"left": [-1.0, 0.2, 0.0], "right": [1.0, 0.0, 0.3]})
    s.body("arm", tl.Revolute(axis=[0.3, 1.0, 0.2], stiffness=8.0, rest=0.2, damping=damping,
                              q0=1.0, qd0=3.0),
           parent="base.left", mass=1.5, inertia=np.diag([0.1, 0.05, 0.1]), com=[-0.6, 0, 0.1],
           ports={"tip": [-1.2, 0.0, 0.0]})
    s.body("slider", tl.Prismatic(axis=[1.0, 0.5, 0.0], stiffness=20.0, damping=damping,
                                  q0=0.3, qd0=-2.0,
                                  rotation=[[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]]),
           parent="base.right", mass=1.0, inertia=np.diag([0.05, 0.05, 0.05]),
           com=[0.0, 0.2, 0.1])
    s.body("hand", tl.Revolute(axis=[0.0, 0.0, 1.0], stiffness=2.0, damping=damping, qd0=-4.0),
           parent="arm.tip", mass=0.7, inertia=np.diag([0.02, 0.03, 0.02]), com=[-0.3, 0.1, 0])
    return s.compile()


def _check_momenta(model, traj, label):
    linear, angular = tl.momentum(model, traj.x)
    dp = np.max(np.abs(linear - linear[0])) / np.linalg.norm(linear[0])
    dh = np.max(np.abs(angular - angular[0])) / np.linalg.norm(angular[0])
    assert dp <= 1e-8, f"{label}: relative linear momentum drift {dp:.3g}"
    assert dh <= 1e-8, f"{label}: relative angular momentum drift {dh:.3g}"
    # the com moves uniformly at p / m
    com = tl.center_of_mass(model, traj.x)
    mass = float(np.sum(model.physics().mass))
    np.testing.assert_allclose(com, com[0] + traj.t[:, None] * linear[0] / mass, rtol=0,
                               atol=1e-8)


def _joint_ranges(model, traj):
    return {n: float(np.ptp(traj[n])) for n in model.state_names if n.endswith("_q")}


def test_random_free_tree_conserves_momentum_and_energy():
    model = tl.load_model(_undamped_random_tree(3, 4))
    assert model.floating_base
    traj = tl.simulate(model, (0.0, 5.0), rtol=1e-11, atol=1e-13, n_points=201)
    ranges = _joint_ranges(model, traj)
    assert len(ranges) >= 2 and max(ranges.values()) > 1.0, ranges
    _check_momenta(model, traj, "random tree")
    E = _total_energy(model, traj.x)
    drift = np.max(np.abs(E - E[0])) / abs(E[0])
    assert drift <= 1e-8, f"random tree relative energy drift {drift:.3g}"


@pytest.mark.parametrize("damping", [0.0, 0.8])
def test_built_floating_spring_tree_conserves_momentum(damping):
    model = _floating_spring_tree(damping)
    traj = tl.simulate(model, (0.0, 5.0), rtol=1e-11, atol=1e-13, n_points=201)
    ranges = _joint_ranges(model, traj)
    assert min(ranges.values()) > 0.2 and max(ranges.values()) > 1.5, ranges
    assert np.max(np.abs(traj["base_theta"])) < 1.3  # away from gimbal lock
    _check_momenta(model, traj, f"floating spring tree, damping {damping}")
    E = _total_energy(model, traj.x)
    if damping == 0.0:
        drift = np.max(np.abs(E - E[0])) / abs(E[0])
        assert drift <= 1e-8, f"floating spring tree relative energy drift {drift:.3g}"
    else:
        assert np.max(np.diff(E)) <= 1e-9
        assert E[-1] < 0.9 * E[0]
