"""Rigid-body (zero-eigenvalue) modes of ``tl.modes``: Jordan chains in any basis.

What is checked against what:

* the chain structure against independent ranks (``numpy.linalg.matrix_rank``): the number
  of rigid-body d.o.f. (chains) is ``n − rank(A)`` and the number of chains of length
  ``>= k`` is ``rank(A^(k−1)) − rank(A^k)``; the chains themselves satisfy ``A v₀ = 0``,
  ``A v(j+1) = v(j)``;
* ``A = S·diag(J₂, 0, −1, −2)·S⁻¹`` (seeded random ``S``): one chain of length 2 and one of
  length 1 (3 zero rows), the top of the long chain along ``S e₀``, the tops spanning
  ``null(A) = span(S e₀, S e₂)``; every eigenvalue in the table once;
* random similarities of several Jordan structures (chains of length 1 to 4 beside a damped
  oscillator): the chain lengths from the table equal those built in;
* the balloon at its hanging equilibrium under a seeded random orthogonal similarity (states
  renamed or not): the same counts as the state-aligned model (8 zero eigenvalues, 4 d.o.f.
  each with a rate partner, the same 5 oscillatory modes), the tops spanning exactly the
  rotated ``balloon_x, y, z, psi``;
* the balloon with ``balloon_y`` dropped (aligned and rotated): 7 zero eigenvalues, 3 chains
  of length 2 and ``balloon_vy`` alone; every one of the 17 eigenvalues accounted for
  (a complex pair counted twice);
* a near-zero complex pair and a small real eigenvalue that no chain explains: listed once
  each, ``dof = −1``; a pair that cannot be split replaces a chain vector.
"""

from __future__ import annotations

import importlib
import itertools
import warnings
from pathlib import Path

import control
import numpy as np
import pytest
import scipy.linalg

import titop_lpv as tl
from titop_lpv.analysis.modes import _rigid_chains

ROOT = Path(__file__).resolve().parents[1]
BALLOON_FREE = ["balloon.phi", "balloon.theta", "slider.q", "pendulum1.q", "pendulum2.q"]
BALLOON_FIXED = {"balloon.x": 0.0, "balloon.z": 0.0, "balloon.psi": 0.0}
HANGING = {"pendulum1.q": 0.2, "pendulum2.q": -0.2}


def _jordan(k: int) -> np.ndarray:
    J = np.zeros((k, k))
    J[np.arange(k - 1), np.arange(1, k)] = 1.0
    return J


def _count(table: tl.ModalTable, rows=None) -> int:
    """Eigenvalues in the rows (a complex pair counts twice)."""
    rows = table.modes if rows is None else rows
    return sum(1 if m.eigenvalue.imag == 0 else 2 for m in rows)


def _chains_at_least(A: np.ndarray, k: int) -> int:
    """Independent count of the Jordan chains of λ = 0 of length >= k, from ranks."""
    n = A.shape[0]
    rank = [n] + [np.linalg.matrix_rank(np.linalg.matrix_power(A, j)) for j in range(1, k + 1)]
    return int(rank[k - 1] - rank[k])


def _check_chains(A: np.ndarray, chains: list[list[np.ndarray]]) -> None:
    scale = np.linalg.norm(A, 2)
    for chain in chains:
        assert np.linalg.norm(A @ chain[0]) <= 1e-9 * scale * np.linalg.norm(chain[0])
        for low, high in itertools.pairwise(chain):
            assert np.linalg.norm(A @ high - low) <= 1e-9 * scale * np.linalg.norm(low)


def _same_span(X: np.ndarray, Y: np.ndarray) -> bool:
    """Whether the columns of X and Y span the same subspace (principal angles ~ 0)."""
    qx, qy = scipy.linalg.orth(X), scipy.linalg.orth(Y)
    if qx.shape[1] != qy.shape[1]:
        return False
    return bool(np.all(scipy.linalg.svdvals(qx.T @ qy) >= 1 - 1e-9))


# --------------------------------------------------------------------------------------------
# 1. small matrices with a known Jordan structure
# --------------------------------------------------------------------------------------------
def test_mixed_chain_lengths_in_a_random_basis():
    rng = np.random.default_rng(2024)
    S = rng.standard_normal((5, 5))
    D = scipy.linalg.block_diag(_jordan(2), [[0.0]], [[-1.0]], [[-2.0]])
    A = S @ D @ np.linalg.inv(S)
    # independent structure: 2 chains, one of them of length 2
    assert 5 - np.linalg.matrix_rank(A) == 2
    assert _chains_at_least(A, 2) == 1 and _chains_at_least(A, 3) == 0
    table = tl.modes(A)
    print("\n" + str(table))
    assert len(table.rigid) == 3 and all(m.eigenvalue == 0 for m in table.rigid)
    assert sorted(len(dof) for dof in table.rigid_dofs) == [1, 2]
    for dof in table.rigid_dofs:
        assert [m.level for m in dof] == list(range(len(dof)))
        assert dof[-1].kind.endswith("(rate)") == (len(dof) == 2)
    assert all(m.dof >= 0 for m in table.rigid)
    np.testing.assert_allclose(sorted(m.eigenvalue.real for m in table.flexible), [-2.0, -1.0],
                               rtol=1e-10)
    assert _count(table) == 5 and len(table) == 5
    assert len(table.to_markdown().splitlines()) == 2 + 5
    assert table._repr_html_().count("<tr>") == 1 + 5
    assert "3 rigid-body, 2 other (2 rigid-body degrees of freedom)" in str(table)

    chains = _rigid_chains(A, 3)
    _check_chains(A, chains)
    (long,) = [c for c in chains if len(c) == 2]
    assert _same_span(long[0][:, None], S[:, [0]])  # the top of J₂: S e₀
    assert _same_span(np.column_stack([c[0] for c in chains]), S[:, [0, 2]])  # null(A)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("lengths", [[2, 1], [1, 2, 2], [3, 1], [4, 2, 1], [1, 1, 1]],
                         ids=str)
def test_chain_lengths_under_similarity(lengths, seed):
    rng = np.random.default_rng(seed)
    D = scipy.linalg.block_diag(*[_jordan(k) for k in lengths],
                                [[-0.5, 2.0], [-2.0, -0.5]], [[-1.0]])
    n = D.shape[0]
    S = np.linalg.qr(rng.standard_normal((n, n)))[0] if seed % 2 else rng.standard_normal((n, n))
    A = S @ D @ np.linalg.inv(S)
    # a chain of length k perturbs its eigenvalues to ~ (1e-16)^(1/k): widen the zero band
    table = tl.modes(A, zero_tol=1e-3)
    assert sorted(len(dof) for dof in table.rigid_dofs) == sorted(lengths)
    for k in range(1, max(lengths) + 1):
        assert sum(len(dof) >= k for dof in table.rigid_dofs) == _chains_at_least(A, k)
    assert len(table.rigid) == sum(lengths) and all(m.dof >= 0 for m in table.rigid)
    assert _count(table) == n
    _check_chains(A, _rigid_chains(A, sum(lengths)))


def test_unexplained_zero_eigenvalues_are_listed_once():
    """A near-zero pair ±5e-7j (a slightly perturbed double integrator: one chain of length
    2) and a real 3e-7 that is not in the null space (one more, unexplained zero mode)."""
    A = scipy.linalg.block_diag([[0.0, 1.0], [-2.5e-13, 0.0]], [[3e-7]], [[-1.0]])
    table = tl.modes(A)
    assert [(m.kind, m.dof, m.level) for m in table.rigid] == [
        ("rigid-body 1", 0, 0), ("rigid-body 1 (rate)", 0, 1), ("rigid-body", -1, 0)]
    alone = table.rigid[-1]
    assert alone.eigenvalue == pytest.approx(3e-7, rel=1e-6)
    assert alone.dominant[0][0] == "x[2]"
    assert _count(table) == 4 and [m.eigenvalue for m in table.flexible] == [-1.0]


def test_an_unsplittable_pair_replaces_a_chain_vector(monkeypatch):
    """Only a near-zero pair is left for one unexplained vector: it is listed (twice the
    multiplicity) and the chain gives up a vector, so the count stays exact."""
    A = scipy.linalg.block_diag([[0.0, 5e-7], [-5e-7, 0.0]], [[-1.0]])
    module = importlib.import_module("titop_lpv.analysis.modes")  # tl.modes is the function
    monkeypatch.setattr(module, "_rigid_chains", lambda A, n: [[np.eye(3)[0]]])
    table = tl.modes(A)
    (pair,) = table.rigid
    assert pair.dof == -1 and pair.eigenvalue == pytest.approx(5e-7j)
    assert _count(table) == 3 and table.rigid_dofs == ()


# --------------------------------------------------------------------------------------------
# 2. the balloon, aligned with the states and rotated
# --------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def balloon():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tl.TitopWarning)  # the balloon's inertia (expected)
        model = tl.load_model(ROOT / "examples" / "balloon.toml")
    op = tl.trim(model, free=BALLOON_FREE, fixed=BALLOON_FIXED, guess=HANGING)
    assert op.success and op.residual_norm <= 1e-10
    return model, op


def _rotated(sys_, seed: int, rename: bool):
    n = sys_.A.shape[0]
    Q = np.linalg.qr(np.random.default_rng(seed).standard_normal((n, n)))[0]
    states = [f"z{k}" for k in range(n)] if rename else sys_.state_labels
    rot = control.ss(Q @ sys_.A @ Q.T, Q @ sys_.B, sys_.C @ Q.T, sys_.D, states=states,
                     inputs=sys_.input_labels, outputs=sys_.output_labels, name=sys_.name)
    return rot, Q


@pytest.mark.parametrize("rename", [False, True], ids=["same names", "renamed"])
def test_balloon_rigid_modes_in_a_rotated_basis(balloon, rename):
    model, op = balloon
    sys_ = tl.linearize(model, op)
    aligned = tl.modes(sys_)
    rot, Q = _rotated(sys_, 5, rename)
    table = tl.modes(rot)
    print("\n" + str(table))
    A = rot.A
    # independent structure: 8 zero eigenvalues, 4 chains, all of length 2
    assert int(np.sum(np.abs(np.linalg.eigvals(A)) <= 1e-6)) == 8
    assert 18 - np.linalg.matrix_rank(A) == 4
    assert _chains_at_least(A, 2) == 4 and _chains_at_least(A, 3) == 0
    for t in (aligned, table):
        assert len(t.rigid) == 8 and len(t.rigid_dofs) == 4
        assert all([m.level for m in dof] == [0, 1] for dof in t.rigid_dofs)
        assert all(m.eigenvalue == 0 and m.dof >= 0 for m in t.rigid)
        assert len(t.flexible) == 5 and _count(t) == 18
        assert "8 rigid-body, 5 other (4 rigid-body degrees of freedom)" in str(t)
    np.testing.assert_allclose([m.eigenvalue for m in table.flexible],
                               [m.eigenvalue for m in aligned.flexible], rtol=1e-8)
    chains = _rigid_chains(A, 8)
    _check_chains(A, chains)
    idx = [sys_.state_labels.index(f"balloon_{c}") for c in ("x", "y", "z", "psi")]
    tops = Q.T @ np.column_stack([c[0] for c in chains])  # back to the model's states
    assert _same_span(tops, np.eye(18)[:, idx])


@pytest.mark.parametrize("rotate", [False, True], ids=["aligned", "rotated"])
def test_balloon_without_y_accounts_for_every_eigenvalue(balloon, rotate):
    model, op = balloon
    sys_ = tl.linearize(model, op, drop=["balloon_y"])
    assert sys_.A.shape == (17, 17)
    if rotate:
        sys_, _ = _rotated(sys_, 8, rename=False)
    table = tl.modes(sys_)
    print("\n" + str(table))
    A = sys_.A
    lam = np.linalg.eigvals(A)
    n_zero = int(np.sum(np.abs(lam) <= 1e-6))
    assert n_zero == 7
    assert 17 - np.linalg.matrix_rank(A) == 4 and _chains_at_least(A, 2) == 3
    assert len(table.rigid) == n_zero and all(m.dof >= 0 for m in table.rigid)
    assert sorted(len(dof) for dof in table.rigid_dofs) == [1, 2, 2, 2]
    assert _count(table) == 17 and _count(table, table.flexible) == 10
    _check_chains(A, _rigid_chains(A, n_zero))
    if not rotate:
        labels = [[m.dominant[0][0] for m in dof] for dof in table.rigid_dofs]
        assert sorted(labels) == [["balloon_psi", "balloon_wy"], ["balloon_vy"],
                                  ["balloon_x", "balloon_vx"], ["balloon_z", "balloon_vz"]]
        assert all(m.dominant[0][1] >= 1 - 1e-12 for m in table.rigid)
