"""The compiled sweep of poses (titop_lpv/multibody/kinematics_kernel.py) and what the energy
trim builds on it (issue 16, item 4).

Checked against the reference sweep (:func:`titop_lpv.multibody.kinematics.kinematics`) on
random trees with every joint type and on long chains (1e-14 relative), the subtree sums
against a plain loop, the compiled potential against :func:`titop_lpv.energy`, and the
energy trim's shortcut (closed form accepted at rest without inverse dynamics) against
the checks it replaces.
"""

from __future__ import annotations

import models
import numpy as np
import pytest
from test_single_call import mixed_tree

import titop_lpv as tl
from titop_lpv.analysis import trim_energy as te
from titop_lpv.analysis import trim_solver as ts
from titop_lpv.multibody import kinematics_kernel as kk
from titop_lpv.multibody.energy import energy
from titop_lpv.multibody.kinematics import kinematics
from titop_lpv.multibody.stiffness import gravity_stiffness, static_potential, supported

RTOL = 1e-14


@pytest.fixture(params=["compiled", "python"])
def route(request, monkeypatch):
    """Both implementations of the sequential steps, whatever the size of the tree."""
    monkeypatch.setattr(kk, "COMPILED_MIN_BODIES", 0 if request.param == "compiled" else 10**9)
    return request.param


def chain(n: int, prismatic_every: int = 0) -> tl.Model:
    """A hanging chain of ``n`` links (revolute about z, or prismatic along y every
    ``prismatic_every``-th link)."""
    s = tl.System(f"chain{n}", gravity=[0.0, -9.81, 0.0])
    parent = None
    for i in range(n):
        kw = {} if parent is None else {"parent": parent}
        joint = (tl.Prismatic(axis=[0, 1, 0], stiffness=3.0) if prismatic_every
                 and i % prismatic_every == prismatic_every - 1
                 else tl.Revolute(axis=[0, 0, 1], stiffness=0.5 * (i % 3)))
        s.body(f"l{i}", joint, mass=1.0 + 0.01 * i, com=[0.02, -0.5, 0.0],
               ports={"tip": [0.0, -1.0, 0.01]}, **kw)
        parent = f"l{i}.tip"
    return s.compile()


def _compare(model: tl.Model, x: np.ndarray) -> None:
    kin = kinematics(model, x)
    P, r = kk.poses(model, x, kin.phys)
    P_ref, r_ref = np.stack(kin.P), np.stack(kin.r)
    np.testing.assert_allclose(P, P_ref, rtol=0, atol=RTOL)
    np.testing.assert_allclose(r, r_ref, rtol=0, atol=RTOL * max(1.0, np.max(np.abs(r_ref))))


@pytest.mark.parametrize("seed", range(6))
def test_poses_equal_the_reference_sweep_on_every_joint_type(seed, route):
    descs = [mixed_tree(seed), models.random_tree(seed, 10, "fixed"),
             models.random_tree(seed, 10, "free", params=True)]
    kinds = set()
    for desc in descs:
        model = tl.load_model(desc)
        kinds |= set(model.kind.tolist())
        rng = np.random.default_rng(seed)
        for _ in range(4):
            _compare(model, model.default_state() + rng.uniform(-2.0, 2.0, model.n_states))
    assert kinds >= {0, 1, 2, 3, 4, 5}  # free, weld, revolute, prismatic, spherical, universal


def test_poses_of_an_euler_base_and_long_chains(route):
    desc = models.random_tree(4, 6, "free")
    model = tl.load_model(desc)
    assert model.attitude == "euler"
    _compare(model, model.default_state() + 0.3)
    for n, every in ((30, 0), (300, 0), (100, 4)):
        model = chain(n, every)
        x = np.random.default_rng(n).uniform(-0.5, 0.5, model.n_states)
        _compare(model, x)


def test_subtree_sums_equal_a_plain_loop(route):
    model = tl.load_model(models.random_tree(2, 15, "fixed"))
    values = np.random.default_rng(0).standard_normal((15, 3, 4))
    ref = values.copy()
    for i in range(14, -1, -1):
        if model.parent[i] >= 0:
            ref[model.parent[i]] += ref[i]
    np.testing.assert_allclose(kk.subtree_sums(model, values), ref, rtol=0, atol=1e-14)
    assert not np.shares_memory(kk.subtree_sums(model, values), values)
    with pytest.raises(tl.ShapeError, match="poses"):
        kk.poses(model, np.zeros((2, model.n_states)), model.physics())
    with pytest.raises(tl.ShapeError):
        kk.poses(model, np.zeros(model.n_states + 1), model.physics())


@pytest.mark.parametrize("seed", range(4))
def test_static_potential_equals_energy(seed, route):
    desc = models.random_tree(seed, 9, "free" if seed % 2 else "fixed",
                              loads="conservative", params=True)
    model = tl.load_model(desc)
    assert supported(model)
    rng = np.random.default_rng(seed)
    pv = model.param_vector(None)
    for _ in range(3):
        x = model.default_state() + rng.uniform(-1.0, 1.0, model.n_states)
        ref = float(energy(model, x, pv)[1])
        assert abs(static_potential(model, x, pv) - ref) <= 1e-13 * max(1.0, abs(ref))
    with pytest.raises(tl.ArgumentError, match="spherical/universal"):
        static_potential(tl.load_model(mixed_tree(1)), tl.load_model(mixed_tree(1))
                         .default_state(), None)


def test_closed_form_gradient_and_stiffness_on_a_long_chain():
    """At 300 links: the gradient equals inverse dynamics', the Hessian the complex step of
    the gradient (the reference formulation of trim_energy), to rounding."""
    model = chain(120, 5)
    x = np.random.default_rng(3).uniform(-0.5, 0.5, model.n_states)
    x[model.qd_index[model.qd_index >= 0]] = 0.0
    bodies = np.arange(120)
    free = [f"l{i}_q" for i in range(120)]
    prob = ts.Problem(model, x, np.zeros(0), model.param_vector(None), free,
                      [("x", model.state_index(n)) for n in free], np.array(
                          [model.state_index(f"l{i}_qd") for i in range(120)]))
    ep = te.EnergyProblem(prob)
    ep.closed_form = False  # the reference: efforts by inverse dynamics, Hessian by complex step
    z = x[[model.state_index(n) for n in free]]
    g_ref, H_ref = ep.gradient(z), ep.hessian(z)
    g, H = gravity_stiffness(model, x, model.param_vector(None), bodies)
    scale = np.max(np.abs(H_ref))
    assert np.max(np.abs(g - g_ref)) <= 1e-12 * np.max(np.abs(g_ref))
    assert np.max(np.abs(H - H_ref)) <= 1e-11 * scale


def _problem(model: tl.Model, x: np.ndarray) -> tuple[ts.Problem, np.ndarray]:
    free = [n for n in model.state_names if n.endswith("_q")]
    eq = np.array([model.state_index(n[:-1] + "qd") for n in free])
    prob = ts.Problem(model, x, np.zeros(model.n_inputs), model.param_vector(None), free,
                      [("x", model.state_index(n)) for n in free], eq)
    return prob, x[[model.state_index(n) for n in free]]


def test_closed_form_accepted_at_rest_without_inverse_dynamics(monkeypatch):
    model = chain(40, 4)
    x = model.default_state()
    x[model.q_index] = np.random.default_rng(1).uniform(-0.5, 0.5, 40)
    prob, z0 = _problem(model, x)

    def no_inverse_dynamics(*args, **kwargs):
        raise AssertionError("inverse dynamics was called")

    monkeypatch.setattr(te, "inverse_dynamics", no_inverse_dynamics)
    ep = te.applicable(prob, "static", z0)
    assert ep is not None and ep.closed_form is True
    monkeypatch.undo()
    # the checks it replaces agree: slope of V (complex step) against inverse dynamics
    ref = te.EnergyProblem(prob)
    d = np.random.default_rng(1).standard_normal(z0.size)
    slope = float(ref.potential(z0 + 1j * ts.STEP * d).imag / ts.STEP)
    g_id = ref.gradient(z0)
    assert abs(slope - g_id @ d) <= 1e-9 * np.sqrt(g_id @ g_id) * np.sqrt(d @ d)
    g, H = gravity_stiffness(model, x, model.param_vector(None), ep.bodies)
    np.testing.assert_allclose(g, g_id, rtol=0, atol=1e-11 * np.max(np.abs(g_id)))
    np.testing.assert_array_equal(ep.hessian(z0), H)  # memorised at the start


def test_moving_or_unsupported_models_take_the_numeric_checks():
    model = chain(12)
    x = model.default_state()
    x[model.q_index] = 0.3
    x[model.qd_index[2]] = 0.5  # not at rest: inverse dynamics has velocity terms
    prob, z0 = _problem(model, x)
    ep = te.EnergyProblem(prob)
    assert not te._closed_form_at_rest(ep, z0, np.ones(z0.size))
    assert ep.closed_form is None
    desc = models.random_tree(3, 6, "fixed", loads=True)  # torques, body-frame forces
    other = tl.load_model(desc)
    if not supported(other):
        prob, z0 = _problem(other, other.default_state())
        assert not te._closed_form_at_rest(te.EnergyProblem(prob), z0, np.ones(z0.size))


def test_chain_trims_land_on_the_hanging_equilibrium():
    for n in (30, 100):
        model = chain(n)
        x0 = model.default_state()
        free = [f"l{i}_q" for i in range(n)]
        x0[[model.state_index(f) for f in free]] = np.random.default_rng(0).uniform(-0.5, 0.5, n)
        op = tl.trim(model, free, x0=x0)
        assert op.success
        q = np.array([op[f] for f in free])
        # the hanging equilibrium: every com below its joint (com x offset 0.02, tip z 0.01)
        P, r = kk.poses(model, op.x, model.physics())
        com = r + np.einsum("nij,j->ni", P, [0.02, -0.5, 0.0])
        assert np.all(com[:, 1] < r[:, 1])
        assert np.max(np.abs(model.dynamics(0.0, op.x))) <= 1e-9
        assert np.all(np.isfinite(q))


@pytest.mark.parametrize("seed", range(6))
def test_shortcut_accepts_only_what_inverse_dynamics_confirms(seed):
    """On random trees at rest (conservative loads or not, floating or fixed root): when the
    shortcut accepts the closed form, its gradient equals inverse dynamics' to 1e-9 (the
    criterion of EnergyProblem.hessian it stands for)."""
    desc = models.random_tree(seed, 8, ("fixed", "free")[seed % 2],
                              loads="conservative" if seed % 3 else True, params=seed < 3)
    model = tl.load_model(desc)
    x = model.default_state()
    x[model.qd_index[model.qd_index >= 0]] = 0.0
    if model.base_index >= 0:
        x[model.base_index:model.base_index + 6] = 0.0
    prob, z0 = _problem(model, x)
    ep = te.EnergyProblem(prob)
    accepted = te._closed_form_at_rest(ep, z0, np.random.default_rng(1).standard_normal(z0.size))
    assert accepted == (ep.closed_form is True)
    if not supported(model):
        assert not accepted
        return
    assert accepted
    ref = te.EnergyProblem(prob)
    ref.closed_form = False
    g_id = ref.gradient(z0)
    g, H = gravity_stiffness(model, x, model.param_vector(None), ep.bodies)
    scale = max(np.max(np.abs(g_id)), np.max(np.abs(H)))
    assert np.max(np.abs(g - g_id)) <= 1e-9 * scale
