"""Analytic Jacobians of fixed-base trees of revolute, prismatic and weld joints
(titop_lpv/multibody/derivatives_kernel.py: the tangent sweep of the Newton–Euler recursion).

Checked against two independent routes: the complex-step Jacobians of the compiled forward
dynamics (``tl.jacobians``, exact to rounding), on random trees with springs, dampers,
actuated joints, welds and shuffled bodies, and Pinocchio's ``computeABADerivatives`` on a
chain and a tree; the inverse dynamics it returns must vanish against the joint laws at the
accelerations of the forward dynamics, and its mass matrix equal the package's
``mass_matrix``. Models it cannot express are not eligible.
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import models
import numpy as np
import pytest

import titop_lpv as tl
from titop_lpv.multibody import derivatives_kernel as dk
from titop_lpv.multibody.inverse_dynamics import mass_matrix

ROOT = Path(__file__).resolve().parents[1]
RTOL = 1e-11  # relative to the largest entry of [A B]


def _load(desc: dict) -> tl.Model:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tl.TitopWarning)
        return tl.load_model(desc)


def _random_point(model: tl.Model, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    return rng.uniform(-1.5, 1.5, model.n_states), rng.uniform(-2.0, 2.0, model.n_inputs)


def _chain(n: int) -> dict:
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        from bench_dynamics import chain_description
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    return chain_description(n)


@pytest.mark.parametrize("seed", range(8))
def test_random_fixed_trees_against_complex_step(seed: int) -> None:
    model = _load(models.random_tree(seed, 3 + seed, "fixed", loads=False))
    assert dk.eligible(model)
    x, u = _random_point(model, seed)
    ph = model.physics(None)
    xdot = model.dynamics(0.0, x, u, None)
    A, B = dk.forward_jacobians(model, ph, x, u, xdot)
    ref = tl.jacobians(model, x, u, outputs=False)
    scale = max(1.0, float(np.max(np.abs(ref.A))), float(np.max(np.abs(ref.B), initial=0.0)))
    assert np.max(np.abs(A - ref.A)) <= RTOL * scale, f"seed {seed}"
    assert np.max(np.abs(B - ref.B), initial=0.0) <= RTOL * scale, f"seed {seed}"
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
        A, _ = dk.forward_jacobians(model, model.physics(None), x, u,
                                    model.dynamics(0.0, x, u, None))
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


def test_analytic_jacobians_entry_point() -> None:
    # what tl.jacobians calls: None for a model the sweep cannot express, else A, B and ẋ
    assert dk.analytic_jacobians(_load(models.random_tree(0, 4, "free", loads=False)),
                                 np.zeros(1), np.zeros(0), np.zeros(0)) is None
    model = _load(models.random_tree(5, 8, "fixed", loads=False))
    x, u = _random_point(model, 3)
    p = model.param_vector(None)
    A, B, xdot = dk.analytic_jacobians(model, x, u, p)
    ref = tl.jacobians(model, x, u, outputs=False)
    assert np.array_equal(xdot, model.dynamics(0.0, x, u, p))
    assert np.allclose(A, ref.A, rtol=0.0, atol=RTOL * max(1.0, float(np.max(np.abs(ref.A)))))
    assert np.allclose(B, ref.B, rtol=0.0, atol=RTOL * max(1.0, float(np.max(np.abs(ref.A)))))
