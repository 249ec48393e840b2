"""The fast paths of the trim (issue 16, item 4) against the routes they shortcut.

* :func:`trim_energy._tridiagonal_step` (tridiagonal form, no eigenvectors) gives the step of
  the eigen-decomposition route of :func:`trim_energy.trust_region_step` to rounding, and
  hands the possible hard case back to it;
* :func:`trim_solver.rank` of a symmetric matrix (eigenvalues) equals the SVD's count;
* :func:`trim_solver.dependent` skipping the pivoted QR when the first Hessian proves full
  rank returns what the QR returns, and still finds coaxial hinges;
* :meth:`Problem.assemble` (one scatter per vector) equals an entry-by-entry assembly;
* an energy trim of a 60-link chain lands on the same equilibrium, with the same
  evaluations, through either eigen route; a successful energy trim no longer evaluates
  the Jacobian of the accelerations, a failed one still does (for its diagnosis).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import titop_lpv as tl
from titop_lpv.analysis import trim_energy as te
from titop_lpv.analysis import trim_solver as ts
from titop_lpv.spatial import quaternion

G = 9.81


def _chain(n: int) -> tl.Model:
    s = tl.System(f"chain{n}", gravity=[0.0, -G, 0.0])
    parent = None
    for i in range(n):
        kw = {} if parent is None else {"parent": parent}
        s.body(f"l{i}", tl.Revolute(axis=[0, 0, 1], damping=0.1), mass=1.0,
               com=[0.0, -0.5, 0.0], ports={"tip": [0.0, -1.0, 0.0]}, **kw)
        parent = f"l{i}.tip"
    return s.compile()


def _eigen_route(g, H, radius, monkeypatch):
    with monkeypatch.context() as mp:
        mp.setattr(te, "TRIDIAGONAL_MIN", 10 ** 9)
        return te.trust_region_step(g, H, radius)


@pytest.mark.parametrize("n", [48, 120])
@pytest.mark.parametrize("shift", [-40.0, 0.0, 30.0, 200.0])
def test_tridiagonal_step_equals_eigen_route(n, shift, monkeypatch):
    rng = np.random.default_rng(n + int(shift))
    A = rng.standard_normal((n, n))
    H = A + A.T + shift * np.eye(n)
    g = rng.standard_normal(n)
    for radius in (0.01, 0.3, 3.0, 100.0):
        fast = te.trust_region_step(g, H, radius)
        ref = _eigen_route(g, H, radius, monkeypatch)
        assert fast[1] == ref[1]
        # both solve (H + μI) s = −g: equal to the rounding that its condition number allows
        s_ref = ref[0]
        mu = -float(s_ref @ (H @ s_ref + g)) / float(s_ref @ s_ref)
        lam = np.abs(np.linalg.eigvalsh(H + mu * np.eye(n)))
        tol = 1e-14 * max(lam) / min(lam)
        assert np.max(np.abs(fast[0] - s_ref)) <= max(tol, 1e-13) * np.max(np.abs(s_ref))
        size = np.sqrt(fast[0] @ fast[0])
        # inside the region, on its edge (to the bisection's 1e-3) unless a Newton step
        assert size <= radius * (1.0 + 1e-3)
        assert fast[1] or size >= radius * (1.0 - 1e-3)


def test_tridiagonal_step_leaves_the_hard_case_to_the_eigen_route(monkeypatch):
    """No gradient along the most negative curvature: the eigen route decides."""
    rng = np.random.default_rng(7)
    n = 60
    Q, _ = np.linalg.qr(rng.standard_normal((n, n)))
    H = Q @ np.diag(np.linspace(-2.0, 5.0, n)) @ Q.T
    H = 0.5 * (H + H.T)
    g = Q @ np.r_[0.0, rng.standard_normal(n - 1)]
    assert te._tridiagonal_step(g, H, 10.0) is None
    step, newton = te.trust_region_step(g, H, 10.0)
    ref = _eigen_route(g, H, 10.0, monkeypatch)
    assert not newton and np.array_equal(step, ref[0])
    np.testing.assert_allclose(np.sqrt(step @ step), 10.0, rtol=1e-12)


def test_rank_of_symmetric_matrices_equals_svd_rank():
    rng = np.random.default_rng(3)
    for n, r in [(1, 0), (1, 1), (5, 3), (40, 40), (40, 17)]:
        B = rng.standard_normal((n, r))
        H = B @ np.diag(rng.choice([-1.0, 1.0], r)) @ B.T
        H = 0.5 * (H + H.T)  # exactly symmetric: eigenvalues
        sv = np.linalg.svd(H, compute_uv=False)
        assert ts.rank(H) == int(np.sum(sv > ts.RANK_TOL * max(sv[0], 1e-300))) == r
        assert ts.rank(B @ rng.standard_normal((r, n))) == r  # not symmetric: the SVD
    assert ts.rank(np.zeros((0, 0))) == 0
    assert ts.rank(np.array([[1.0, np.nan], [np.nan, 1.0]])) == 0
    assert ts.rank(np.array([[1.0, 2.0], [0.0, 1.0]])) == 2


def _energy_problem(model, free, z):
    x = np.array(model.default_state(), dtype=float)
    where = [("x", model.state_index(f)) for f in free]
    x[[i for _, i in where]] = z
    prob = ts.Problem(model, x, np.zeros(model.n_inputs), model.param_vector(), list(free),
                      where, np.array(sorted(model.velocity_indices()), dtype=int))
    return prob, te.applicable(prob, "static", z)


@pytest.mark.parametrize("n", [5, 60])
def test_dependent_shortcut_equals_qr(n, monkeypatch):
    model = _chain(n)
    free = [f"l{i}_q" for i in range(n)]
    z = np.random.default_rng(n).uniform(-0.5, 0.5, n)
    prob, ep = _energy_problem(model, free, z)
    assert ep is not None
    fast = ts.dependent(prob, z, ep.hessian)
    calls = []
    monkeypatch.setattr(ts, "_independent", lambda *a: calls.append(1) or False)
    assert ts.dependent(prob, z, ep.hessian) == fast == [] and calls


def test_dependent_coaxial_hinges_in_an_energy_trim():
    """Two hinges on one axis under gravity only: singular stiffness, one pinned."""
    s = tl.System("coaxial_energy", gravity=[0.0, -G, 0.0])
    s.body("a", tl.Revolute(axis=[0, 0, 1]), mass=1.0, inertia=0.1 * np.eye(3))
    s.body("b", tl.Revolute(axis=[0, 0, 1], q0=0.3), parent="a", mass=2.0,
           com=[0.0, -0.5, 0.0])
    model = s.compile()
    z = np.array([0.2, 0.3])
    prob, ep = _energy_problem(model, ["a_q", "b_q"], z)
    assert ep is not None
    assert not ts._independent(ep.hessian(z), np.ones(2))
    assert len(ts.dependent(prob, z, ep.hessian)) == 1
    op = tl.trim(model, ["a.q", "b.q"], x0=np.r_[0.2, 0.3, 0.0, 0.0])
    assert op.success and len(op.pinned) == 1
    np.testing.assert_allclose(np.sin(op["a_q"] + op["b_q"]), 0.0, atol=1e-10)


def test_assemble_equals_entry_by_entry():
    model = tl.load_model("examples/balloon.toml")
    rng = np.random.default_rng(5)
    where = [("x", 3), ("p", 1), ("x", 7), ("p", 0)]
    if model.n_inputs:
        where.append(("u", model.n_inputs - 1))
    prob = ts.Problem(model, rng.standard_normal(model.n_states), rng.standard_normal(
        model.n_inputs), np.asarray(model.param_vector(), float), [str(w) for w in where],
        where, np.arange(3))
    Z = rng.standard_normal((2, 3, len(where))) + 1j * rng.standard_normal((2, 3, len(where)))
    X, U, P = prob.assemble(Z)
    for idx in np.ndindex(2, 3):
        ref = {"x": prob.x.astype(complex), "u": prob.u.astype(complex),
               "p": prob.p.astype(complex)}
        for k, (kind, i) in enumerate(where):
            ref[kind][i] = Z[idx][k]
        assert np.array_equal(X[idx], ref["x"]) and np.array_equal(U[idx], ref["u"])
        assert np.array_equal(P[idx], ref["p"])
    # attitude errors: q = q_x ⊗ exp(δr), components placed by index
    s = tl.System("ball", gravity=[0.0, 0.0, -G])
    s.body("bob", tl.Spherical(), mass=1.0, inertia=np.eye(3).tolist(),
           com=[0.0, 0.0, -1.0])
    ball = s.compile()
    start = ball.state_index("bob_qw")
    x = np.array(ball.default_state(), dtype=float)
    r_where = [("r", 3 * start + 2), ("r", 3 * start)]
    prob = ts.Problem(ball, x, np.zeros(ball.n_inputs), np.asarray(ball.param_vector(), float),
                      ["bob_rz", "bob_rx"], r_where, np.arange(3))
    X, _, _ = prob.assemble(np.array([0.3, -0.2]))
    expected = quaternion.multiply(quaternion.normalize(x[start:start + 4]),
                                   quaternion.exp(np.array([-0.2, 0.0, 0.3])))
    assert np.array_equal(X[start:start + 4], expected)


def test_chain_trim_same_through_either_eigen_route(monkeypatch):
    n = 60
    model = _chain(n)
    free = [f"l{i}_q" for i in range(n)]
    x0 = model.default_state()
    x0[[model.state_index(f) for f in free]] = np.random.default_rng(0).uniform(-0.5, 0.5, n)
    calls = []
    jacobian = ts.Problem.jacobian

    def counted(self, *args, **kwargs):
        calls.append(1)
        return jacobian(self, *args, **kwargs)

    monkeypatch.setattr(ts.Problem, "jacobian", counted)
    fast = tl.trim(model, free, x0=x0)
    assert fast.success and not calls  # success of an energy trim: no Jacobian at the end
    with monkeypatch.context() as mp:
        mp.setattr(te, "TRIDIAGONAL_MIN", 10 ** 9)
        ref = tl.trim(model, free, x0=x0)
    qa = np.array([fast[f] for f in free])
    qb = np.array([ref[f] for f in free])
    assert fast.nfev == ref.nfev and fast.message == ref.message
    assert np.max(np.abs(qa - qb)) <= 1e-12 and np.max(np.abs(qa)) <= 1e-9
    assert fast.rank_deficiency == ref.rank_deficiency == 0
    # a failure still quotes the rank of the Jacobian (computed for the diagnosis)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        failed = tl.trim(model, free[:3], x0=x0, strict=False, max_nfev=30)
    assert not failed.success and calls and "max_nfev = 30" in failed.message
