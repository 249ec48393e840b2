"""Closed-form stiffness of the potential (multibody/stiffness.py) against the complex step.

Seeded random trees of revolute, prismatic and weld joints (random axes, rotations, ports,
springs), gravity in a random direction, buoyancy and constant inertial-frame forces, some
on a fixed (welded) base, some with a free base held fixed; the closed-form gradient and
Hessian must equal the inverse-dynamics gradient and its complex-step Hessian (the
independent reference, ``EnergyProblem`` without the closed form) to 1e-10 relative.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import titop_lpv as tl
from titop_lpv.analysis import trim_energy as te
from titop_lpv.analysis.trim_solver import Problem
from titop_lpv.exceptions import ArgumentError
from titop_lpv.multibody.stiffness import gravity_stiffness, supported


def _rotation(rng: np.random.Generator) -> np.ndarray:
    Q, R = np.linalg.qr(rng.standard_normal((3, 3)))
    Q = Q * np.sign(np.diag(R))
    return Q if np.linalg.det(Q) > 0 else -Q


def _random_tree(seed: int) -> tuple[tl.Model, list[str]]:
    rng = np.random.default_rng(seed)
    g = rng.standard_normal(3)
    s = tl.System(f"tree{seed}", gravity=list(9.81 * g / np.linalg.norm(g)))
    n = int(rng.integers(4, 9))
    base = seed % 3  # 0: joints on the world, 1: welded base, 2: free base (held fixed)
    names: list[str] = []
    free: list[str] = []
    if base:
        joint = tl.Weld(rotation=_rotation(rng).tolist()) if base == 1 else tl.Free()
        s.body("base", joint, mass=3.0, inertia=np.eye(3).tolist(),
               com=rng.uniform(-0.5, 0.5, 3).tolist(),
               ports={"p": rng.uniform(-1, 1, 3).tolist()})
        names.append("base")
    for i in range(n):
        kind = rng.choice(["revolute", "revolute", "prismatic", "weld"])
        axis = rng.standard_normal(3).tolist()
        kw = {"rotation": _rotation(rng).tolist()}
        if kind != "weld" and rng.random() < 0.6:
            kw.update(stiffness=float(rng.uniform(0.5, 20.0)), rest=float(rng.uniform(-1, 1)))
        if kind == "revolute":
            joint = tl.Revolute(axis=axis, **kw)
        elif kind == "prismatic":
            joint = tl.Prismatic(axis=axis, **kw)
        else:
            joint = tl.Weld(rotation=kw["rotation"])
        parent = {} if not names else {"parent": f"{names[rng.integers(len(names))]}.p"}
        name = f"b{i}"
        s.body(name, joint, mass=float(rng.uniform(0.5, 3.0)),
               inertia=np.eye(3).tolist(), com=rng.uniform(-1, 1, 3).tolist(),
               ports={"p": rng.uniform(-1, 1, 3).tolist(),
                      "c": rng.uniform(-1, 1, 3).tolist()}, **parent)
        names.append(name)
        if kind != "weld":
            free.append(f"{name}_q")
    movers = [b for b in names if b != "base"]
    s.buoyancy(movers[int(rng.integers(len(movers)))], point="c",
               fraction=float(rng.uniform(0.1, 0.5)))
    s.force(movers[int(rng.integers(len(movers)))], rng.uniform(-5, 5, 3).tolist(), point="p")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return s.compile(), free


def _energy_problem(model: tl.Model, free: list[str], z: np.ndarray) -> te.EnergyProblem:
    x = np.array(model.default_state(), dtype=float)
    where = [("x", model.state_index(f)) for f in free]
    x[[i for _, i in where]] = z
    prob = Problem(model, x, np.zeros(len(model.input_names)),
                   model.param_vector(), list(free), where,
                   np.array(model.velocity_indices(), dtype=int))
    return te.EnergyProblem(prob)


@pytest.mark.parametrize("seed", range(12))
def test_closed_form_equals_complex_step(seed):
    model, free = _random_tree(seed)
    assert supported(model) and len(free) >= 1
    rng = np.random.default_rng(100 + seed)
    z = rng.uniform(-1.5, 1.5, len(free))
    ep = _energy_problem(model, free, z)
    X, _, P = ep.prob.assemble(z)
    g, K = gravity_stiffness(model, X, P, ep.bodies)
    ref = _energy_problem(model, free, z)
    ref.closed_form = False  # the complex step of the inverse dynamics
    H = ref.hessian(z)
    g_id = ref.gradient(z)
    assert np.max(np.abs(g - g_id)) <= 1e-10 * np.max(np.abs(g_id))
    assert np.max(np.abs(K - H)) <= 1e-10 * np.max(np.abs(H))
    assert np.array_equal(K, K.T)
    # through EnergyProblem: the closed form is chosen (its gradient check passes)
    assert np.array_equal(ep.hessian(z), K) and ep.closed_form is True
    # the potential's own complex step along a direction agrees with K (second formulation)
    d = rng.standard_normal(len(free))
    h = 1e-6
    dg = (ep.gradient(z + h * d) - ep.gradient(z - h * d)) / (2 * h)
    assert np.allclose(dg, K @ d, rtol=1e-6, atol=1e-6 * np.max(np.abs(K)))


def test_unmodelled_potential_falls_back():
    """A body-frame force has no potential: not supported, complex step used."""
    s = tl.System("bf", gravity=[0.0, -9.81, 0.0])
    s.body("arm", tl.Revolute(axis=[0, 0, 1]), mass=1.0, com=[0.0, -1.0, 0.0],
           ports={"p": [0.0, -1.0, 0.0]})
    s.force("arm", [1.0, 0.0, 0.0], point="p", frame="body")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = s.compile()
    assert not supported(model)
    ep = _energy_problem(model, ["arm_q"], np.array([0.3]))
    assert ep.closed_form is False
    H = ep.hessian(np.array([0.3]))
    assert np.isfinite(H).all()


def test_bad_bodies():
    """A weld (no joint position) among ``bodies``, or a complex state: ArgumentError."""
    model, _ = _random_tree(1)  # welded base at body 0
    assert int(model.kind[0]) == 1
    with pytest.raises(ArgumentError, match="revolute or prismatic"):
        gravity_stiffness(model, model.default_state(), model.param_vector(), [0])
    with pytest.raises(ArgumentError, match="real state"):
        gravity_stiffness(model, model.default_state() + 0j, model.param_vector(), [])


@pytest.mark.parametrize("seed", [0, 12, 21])
def test_trim_lands_on_the_same_equilibrium(seed, monkeypatch):
    """``tl.trim`` with the closed form and with the complex step (forced): same point."""
    model, free = _random_tree(seed)
    x0 = model.default_state()
    x0[[model.state_index(f) for f in free]] = np.random.default_rng(seed).uniform(
        -0.5, 0.5, len(free))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        closed = tl.trim(model, free, x0=x0)
        monkeypatch.setattr(te, "supported", lambda m: False)
        stepped = tl.trim(model, free, x0=x0)
    qa = np.array([closed[f] for f in free])
    qb = np.array([stepped[f] for f in free])
    assert closed.success and stepped.success and closed.nfev == stepped.nfev
    assert np.max(np.abs(qa - qb)) <= 1e-12
