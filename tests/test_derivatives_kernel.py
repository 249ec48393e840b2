"""Analytic Jacobians of fixed-base trees of revolute, prismatic and weld joints
(titop_lpv/multibody/derivatives_kernel.py and derivatives_sweep.py: derivatives of the
Newton–Euler recursion in the world frame, ``M⁻¹`` by the articulated-body recursion).

Checked against two independent routes: the complex-step Jacobians of the forward dynamics
(``model.dynamics`` at complex states, exact to rounding), on random trees with springs, dampers,
actuated joints, welds and shuffled bodies, on a forest of several roots and on a chain long
enough for several column blocks, and Pinocchio's ``computeABADerivatives`` on a chain and a
tree; the ``ẋ`` it returns must equal the forward dynamics', its inverse dynamics vanish
against the joint laws at those accelerations, and its mass matrix equal the package's
``mass_matrix``. Models it cannot express are not eligible.
"""

from __future__ import annotations

from pathlib import Path

import models
import numpy as np
import pytest
from reference_jacobians import chain_description as _chain
from reference_jacobians import complex_step_ab
from reference_jacobians import load_quiet as _load

import titop_lpv as tl
from titop_lpv.multibody import derivatives_kernel as dk
from titop_lpv.multibody.inverse_dynamics import mass_matrix

ROOT = Path(__file__).resolve().parents[1]
RTOL = 1e-11  # relative to the largest entry of [A B]


def _random_point(model: tl.Model, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    return rng.uniform(-1.5, 1.5, model.n_states), rng.uniform(-2.0, 2.0, model.n_inputs)


def _check_against_complex_step(model: tl.Model, x: np.ndarray, u: np.ndarray,
                                what: str) -> None:
    """[A B] and ẋ of the compiled derivatives against the complex step and the forward
    dynamics (both from the forward-dynamics kernel, an independent route)."""
    J, xdot = dk.forward_jacobians(model, model.physics(None), x, u)
    A, B = complex_step_ab(model, x, u)
    n_x = model.n_states
    assert J.shape == (n_x, n_x + model.n_inputs)
    scale = max(1.0, float(np.max(np.abs(A))), float(np.max(np.abs(B), initial=0.0)))
    assert np.max(np.abs(J[:, :n_x] - A)) <= RTOL * scale, what
    assert np.max(np.abs(J[:, n_x:] - B), initial=0.0) <= RTOL * scale, what
    f = model.dynamics(0.0, x, u, None)
    assert np.max(np.abs(xdot - f)) <= 1e-12 * max(1.0, float(np.max(np.abs(f)))), what


@pytest.mark.parametrize("seed", range(8))
def test_random_fixed_trees_against_complex_step(seed: int) -> None:
    model = _load(models.random_tree(seed, 3 + seed, "fixed", loads=False))
    assert dk.eligible(model)
    x, u = _random_point(model, seed)
    ph = model.physics(None)
    xdot = model.dynamics(0.0, x, u, None)
    _check_against_complex_step(model, x, u, f"seed {seed}")
    # the same sweep's inverse dynamics balances the joint laws at the forward accelerations,
    # and its composite-rigid-body mass matrix is the package's (column by column RNEA)
    one = np.flatnonzero(np.isin(model.kind, (2, 3)))
    qdi = np.asarray(model.qd_index)[one]
    qi = np.asarray(model.q_index)[one]
    tau, _, _, M, dofs = dk.tangent_sweep(model, ph, x, xdot[qdi])
    assert list(dofs) == list(one)
    law = -ph.k[one] * (x[qi] - ph.rest[one]) - ph.d[one] * x[qdi]
    cols = np.asarray(model.tau_column)[one]
    act = np.flatnonzero(cols >= 0)
    law[act] += u[cols[act]]
    assert np.max(np.abs(tau - law)) <= 1e-11 * max(1.0, float(np.max(np.abs(tau))))
    Mref = mass_matrix(model, x)
    assert np.allclose(M, Mref, rtol=0.0, atol=1e-12 * max(1.0, float(np.max(np.abs(Mref)))))


def test_chain_and_tree_against_pinocchio() -> None:
    pin = pytest.importorskip("pinocchio")
    import peer_pinocchio

    for desc in (_chain(12), models.random_tree(3, 9, "fixed", loads=False, springs=False)):
        model = _load(desc)
        peer = peer_pinocchio.build(desc)
        x, _ = _random_point(model, 1)
        u = np.zeros(model.n_inputs)
        config = {name: float(value) for name, value in zip(model.state_names, x)}
        q, v = peer.to_pinocchio(config)
        tau = peer.joint_forces(config, {n: 0.0 for n in model.input_names})
        ddq_dq, ddq_dv, _ = (np.array(a) for a in
                             pin.computeABADerivatives(peer.model, peer.data, q, v, tau))
        J, _ = dk.forward_jacobians(model, model.physics(None), x, u)
        A = J[:, :model.n_states]
        rows = [model.state_index(f"{d.body}_qd") for d in peer.dofs]
        cols = [model.state_index(f"{d.body}_q") for d in peer.dofs]
        iv = [d.idx_v for d in peer.dofs]
        scale = max(1.0, float(np.max(np.abs(ddq_dq))))
        assert np.max(np.abs(A[np.ix_(rows, cols)] - ddq_dq[np.ix_(iv, iv)])) <= 1e-10 * scale
        assert np.max(np.abs(A[np.ix_(rows, rows)] - ddq_dv[np.ix_(iv, iv)])) <= 1e-10 * scale


def test_what_is_not_eligible() -> None:
    assert not dk.eligible(_load(models.random_tree(0, 4, "free", loads=False)))
    assert not dk.eligible(_load(models.random_tree(0, 4, "fixed", loads=True)))
    assert not dk.eligible(_load(str(ROOT / "examples" / "four_bar.toml")))  # a loop
    assert not dk.eligible(_load(str(ROOT / "examples" / "twenty_sim_driven_spherical.toml")))
    assert dk.eligible(_load(_chain(3)))


def test_jacobian_matrix_entry_point() -> None:
    # what tl.jacobians calls: None for a model the sweep cannot express, else [A B] and ẋ
    assert dk.jacobian_matrix(_load(models.random_tree(0, 4, "free", loads=False)),
                              np.zeros(1), np.zeros(0), np.zeros(0)) is None
    model = _load(models.random_tree(5, 8, "fixed", loads=False))
    x, u = _random_point(model, 3)
    p = model.param_vector(None)
    J, xdot = dk.jacobian_matrix(model, x, u, p)
    A, B = J[:, :x.size], J[:, x.size:]
    refA, refB = complex_step_ab(model, x, u)
    f = model.dynamics(0.0, x, u, p)
    assert np.allclose(xdot, f, rtol=0.0, atol=1e-12 * max(1.0, float(np.max(np.abs(f)))))
    assert np.allclose(A, refA, rtol=0.0, atol=RTOL * max(1.0, float(np.max(np.abs(refA)))))
    assert np.allclose(B, refB, rtol=0.0, atol=RTOL * max(1.0, float(np.max(np.abs(refA)))))
    # what tl.jacobians returns once the kernel is compiled: the same arrays
    ref = tl.jacobians(model, x, u, p, outputs=False)
    assert np.allclose(ref.A, A, rtol=0.0, atol=1e-14 * max(1.0, float(np.max(np.abs(A)))))


def _branching() -> dict:
    """A prismatic root carrying two branches, with a weld, springs, dampers and actuated
    joints, bodies listed children first."""
    def body(name: str, joint: dict, parent: str | None, com: list) -> dict:
        b = {"name": name, "joint": joint, "mass": 1.3,
             "inertia": [[0.2, 0.01, 0.0], [0.01, 0.3, 0.02], [0.0, 0.02, 0.25]],
             "com": com, "ports": {"tip": [0.1, -0.8, 0.2]}}
        if parent is not None:
            b["parent"] = f"{parent}.tip"
        return b

    rev = {"type": "revolute", "axis": [0.0, 0.6, 0.8], "stiffness": 3.0, "damping": 0.4,
           "rest": 0.2, "actuated": True}
    pri = {"type": "prismatic", "axis": [1.0, 0.0, 0.0], "stiffness": 5.0, "damping": 0.7,
           "actuated": True}
    return {"name": "branching", "gravity": [0.0, -9.81, 0.0], "bodies": [
        body("c3", dict(rev, axis=[1.0, 0.0, 0.0]), "c2", [0.0, -0.4, 0.1]),
        body("a0", rev, "c0", [0.1, -0.5, 0.0]),
        body("c2", {"type": "weld"}, "c1", [0.2, 0.1, 0.0]),
        body("a1", pri, "a0", [0.0, -0.3, 0.2]),
        body("c1", {"type": "revolute", "axis": [0.0, 0.0, 1.0]}, "c0", [0.0, -0.5, 0.0]),
        body("c0", pri, None, [0.3, 0.0, -0.1]),
        body("a2", dict(rev, actuated=False), "a0", [-0.2, -0.4, 0.1])]}


def test_branching_tree_with_weld_and_inputs_against_complex_step() -> None:
    model = _load(_branching())
    assert dk.eligible(model) and model.n_inputs >= 3
    for seed in range(3):
        x, u = _random_point(model, 10 + seed)
        _check_against_complex_step(model, x, u, f"branching tree, seed {seed}")


def test_long_chain_many_column_blocks_against_complex_step() -> None:
    # 24 links: 48 state columns and 24 input columns, several blocks of the solve
    desc = _chain(24)
    for b in desc["bodies"][::2]:
        b["joint"].update(actuated=True, stiffness=2.0, damping=0.3)
    model = _load(desc)
    x, u = _random_point(model, 7)
    _check_against_complex_step(model, x, u, "chain of 24")


def test_mode_of_given_accelerations_matches_the_jacobian_route() -> None:
    # tangent_sweep (derivatives at given q̈) and the Jacobian route share their formulas
    # but not their last steps: −M⁻¹ (∂τ/∂q + diag k) from the one must be the other's A
    model = _load(models.random_tree(4, 9, "fixed", loads=False))
    x, u = _random_point(model, 4)
    ph = model.physics(None)
    J, xdot = dk.forward_jacobians(model, ph, x, u)
    one = np.flatnonzero(np.isin(model.kind, (2, 3)))
    qi, qdi = np.asarray(model.q_index)[one], np.asarray(model.qd_index)[one]
    _, dq, dqd, M, _ = dk.tangent_sweep(model, ph, x, xdot[qdi])
    A = J[:, :model.n_states]
    aq = -np.linalg.solve(M, dq + np.diag(ph.k[one]))
    aqd = -np.linalg.solve(M, dqd + np.diag(ph.d[one]))
    scale = max(1.0, float(np.max(np.abs(A))))
    assert np.max(np.abs(A[np.ix_(qdi, qi)] - aq)) <= 1e-11 * scale
    assert np.max(np.abs(A[np.ix_(qdi, qdi)] - aqd)) <= 1e-11 * scale
