"""Batched sweeps (analysis/sweep_batch.py, analysis/sweep_linear.py): the points of a walk
trimmed and linearised together give what trimming and linearising them one by one gives.

References: the same sweep with the batched route switched off (``BATCH_BODIES = 0``, the
point-by-point route), ``tl.trim``/``tl.linearize`` at each point, and closed forms: an
arm of mass m, centre of mass at distance L, pushed by a constant torque T about its
hinge hangs at ``sin q = T / (m g L)``, and linearises to ``A = [[0, 1], [−g cos q / L_eff,
−d / J]]`` with ``J = m L²`` (point mass on a massless arm: ``m g L cos q / J``).
"""

from __future__ import annotations

import warnings
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

import titop_lpv as tl
from titop_lpv.analysis import lpv, sweep, sweep_batch, sweep_linear
from titop_lpv.analysis.linearize import LinearizationError, linear_matrices
from titop_lpv.analysis.lpv import _Linearizer
from titop_lpv.model import read_description

ROOT = Path(__file__).resolve().parent.parent
G, M_ARM, L_ARM, DAMPING = 9.81, 2.0, 0.5, 1.0
FREE = ["balloon.phi", "balloon.theta", "slider.q", "pendulum1.q", "pendulum2.q"]
FIXED = {"balloon.x": 0.0, "balloon.z": 0.0, "balloon.psi": 0.0}
HANGING = {"pendulum1.q": 0.2, "pendulum2.q": -0.2}
OPTS = {"inputs": ["slider_tau"], "outputs": ["pendulum2_q"], "drop_integrators": True}


@pytest.fixture(scope="module")
def balloon() -> tl.Model:
    d = read_description(ROOT / "examples" / "balloon.toml")
    d["bodies"][1]["joint"]["actuated"] = True
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tl.TitopWarning)
        return tl.load_model(d)


@pytest.fixture(scope="module")
def pushed() -> tl.Model:
    s = tl.System("pushed", gravity=[0.0, -G, 0.0])
    s.parameter("T", 0.0, unit="N m")
    s.body("arm", tl.Revolute(axis=[0, 0, 1], damping=DAMPING, actuated=True), mass=M_ARM,
           com=[0.0, -L_ARM, 0.0])
    s.torque("arm", [0.0, 0.0, "T"], frame="body")
    return s.compile()


@pytest.fixture
def point_by_point(monkeypatch):
    """Run a sweep with the batched route switched off."""
    def run(fn, *args, **kwargs):
        with monkeypatch.context() as m:
            m.setattr(sweep_batch, "BATCH_BODIES", 0)
            return fn(*args, **kwargs)
    return run


@pytest.fixture
def trims(monkeypatch):
    """Count the point-by-point trims of a sweep."""
    calls = []
    inner = sweep.trim

    def counted(*args, **kwargs):
        calls.append(kwargs.get("params"))
        return inner(*args, **kwargs)

    monkeypatch.setattr(sweep, "trim", counted)
    return calls


def _blocks(sys) -> np.ndarray:
    return np.block([[sys.A, sys.B], [sys.C, sys.D]])


def _same_grid(new: tl.LPVGrid, old: tl.LPVGrid, atol: float) -> None:
    assert (new.state_names, new.input_names, new.output_names) == (
        old.state_names, old.input_names, old.output_names)
    np.testing.assert_array_equal(new.sweep.success, old.sweep.success)
    for a, b in zip(new.sweep, old.sweep):
        assert (a.free, a.fixed, a.pinned, a.rank_deficiency, a.kind) == (
            b.free, b.fixed, b.pinned, b.rank_deficiency, b.kind)
        if a.success:
            np.testing.assert_allclose(a.x, b.x, rtol=0, atol=1e-12)
            assert a.residual_norm <= a.tolerance and a.params == b.params
    for s1, s2 in zip(new.systems.flat, old.systems.flat):
        assert (s1 is None) == (s2 is None)
        if s1 is not None:
            assert s1.dropped_states == s2.dropped_states
            np.testing.assert_allclose(_blocks(s1), _blocks(s2), rtol=0, atol=atol)


def test_balloon_sweep_is_the_point_by_point_sweep(balloon, point_by_point, trims,
                                                   monkeypatch):
    ks = {"k": np.linspace(25.0, 100.0, 12)}
    one_by_one = []
    inner = lpv.linear_matrices
    monkeypatch.setattr(lpv, "linear_matrices",
                        lambda *a, **k: one_by_one.append(a[1]) or inner(*a, **k))
    new = tl.linearize_sweep(balloon, ks, FREE, FIXED, guess=HANGING, progress=False, **OPTS)
    assert len(trims) == 1  # the first point alone; the 11 others in one block
    assert len(one_by_one) == 2  # the first point (its names), then the grid's first again
    old = point_by_point(tl.linearize_sweep, balloon, ks, FREE, FIXED, guess=HANGING,
                         progress=False, **OPTS)
    assert len(trims) == 1 + 12 and len(one_by_one) == 2 + 12 + 1
    scale = max(float(np.max(np.abs(_blocks(s)))) for s in old.systems.flat)
    _same_grid(new, old, atol=1e-12 * scale)
    for i in range(12):  # each point is what tl.linearize gives at it: to rounding, and
        ref = tl.linearize(balloon, new.sweep[i], list(new.input_names),  # exactly for
                           list(new.output_names), states=list(new.state_names))  # the old
        np.testing.assert_allclose(_blocks(new[i]), _blocks(ref), rtol=0, atol=1e-12 * scale)
        ref = tl.linearize(balloon, old.sweep[i], list(old.input_names),
                           list(old.output_names), states=list(old.state_names))
        np.testing.assert_array_equal(_blocks(old[i]), _blocks(ref))
        np.testing.assert_array_equal(new[i].C, ref.C)  # a joint sensor: exactly a state
        np.testing.assert_array_equal(new[i].D, ref.D)


def test_pushed_arm_follows_the_closed_form(pushed, point_by_point, trims):
    torques = np.linspace(0.0, 0.9 * M_ARM * G * L_ARM, 15)
    grid = tl.linearize_sweep(pushed, {"T": torques}, free=["arm_q"], progress=False)
    assert len(trims) == 1
    q = np.arcsin(torques / (M_ARM * G * L_ARM))
    np.testing.assert_allclose(grid.sweep.values("arm_q"), q, rtol=0, atol=1e-10)
    assert max(op.nfev for op in grid.sweep) > 1  # the block iterated: the equilibrium moves
    J = M_ARM * L_ARM**2
    for i, qi in enumerate(q):
        A = grid[i].A
        expected = np.array([[0.0, 1.0], [-M_ARM * G * L_ARM * np.cos(qi) / J, -DAMPING / J]])
        np.testing.assert_allclose(A, expected, rtol=0, atol=1e-9)
    old = point_by_point(tl.linearize_sweep, pushed, {"T": torques}, free=["arm_q"],
                         progress=False)
    _same_grid(grid, old, atol=1e-12)


def test_points_without_equilibrium_are_trimmed_one_by_one(pushed, point_by_point, trims):
    limit = M_ARM * G * L_ARM  # beyond it, no torque balance: no equilibrium
    torques = np.linspace(0.5 * limit, 1.3 * limit, 8)
    new = tl.trim_sweep(pushed, {"T": torques}, free=["arm_q"], progress=False)
    failed = torques > limit
    np.testing.assert_array_equal(new.success, ~failed)
    assert len(trims) == 1 + int(failed.sum())  # the block left them to trim()
    old = point_by_point(tl.trim_sweep, pushed, {"T": torques}, free=["arm_q"],
                         progress=False)
    np.testing.assert_array_equal(old.success, new.success)
    ok = new.success
    np.testing.assert_allclose(new.values("arm_q")[ok], old.values("arm_q")[ok], rtol=0,
                               atol=1e-12)
    with pytest.raises(tl.TrimError, match="grid point"):
        tl.trim_sweep(pushed, {"T": torques}, free=["arm_q"], progress=False, strict=True)


def test_spring_less_angles_stay_near_the_walk(pushed, trims):
    # a guess one turn away: the first point lands there, and the block follows that turn
    torques = np.linspace(0.0, 0.5 * M_ARM * G * L_ARM, 8)
    s = tl.trim_sweep(pushed, {"T": torques}, free=["arm_q"], guess={"arm_q": 2 * np.pi + 0.1},
                      progress=False)
    assert len(trims) == 1  # the points after the first: one block
    q = np.arcsin(torques / (M_ARM * G * L_ARM)) + 2 * np.pi
    np.testing.assert_allclose(s.values("arm_q"), q, rtol=0, atol=1e-10)


def test_executor_and_progress(pushed):
    torques = np.linspace(0.0, 0.8 * M_ARM * G * L_ARM, 40)
    calls = []
    serial = tl.linearize_sweep(pushed, {"T": torques}, free=["arm_q"],
                                progress=lambda d, t: calls.append((d, t)))
    trim_calls = [c for c in calls if c[1] == 40]
    assert [d for d, _ in trim_calls][:40] == list(range(1, 41))  # every point reported
    with ThreadPoolExecutor(2) as ex:
        par = tl.linearize_sweep(pushed, {"T": torques}, free=["arm_q"], executor=ex,
                                 chunks=4, progress=False)
    _same_grid(par, serial, atol=1e-12)


def test_batched_linearisation_leaves_errors_to_linear_matrices(pushed):
    op = tl.trim(pushed, ["arm_q"], params={"T": 1.0})
    lin = linear_matrices(pushed, op)
    names = (lin.state_names, lin.input_names, lin.output_names)
    moved = tl.OperatingPoint(**{**vars(op), "x": op.x + np.array([0.1, 0.0])})
    ops = [op] * sweep_batch.MIN_BLOCK + [moved]
    out = sweep_linear.matrices(pushed, ops, names)
    assert out[-1] is None and all(m is not None for m in out[:-1])
    np.testing.assert_allclose(out[0].A, lin.A, rtol=0, atol=1e-12)
    assert sweep_linear.matrices(pushed, ops[:sweep_batch.MIN_BLOCK - 1], names) == [None] * (
        sweep_batch.MIN_BLOCK - 1)  # too few points for a batch: one by one
    then = _Linearizer({})
    then.names = names
    with pytest.raises(LinearizationError, match="not an equilibrium"):
        then.batch(pushed, ops)


def test_sensor_rows_as_the_outputs_give_them(balloon):
    # every output of the balloon (base position and attitude, joint angles), through the
    # vectorised sensors, and the joint angles alone (their rows of [C D] written directly)
    ks = np.linspace(30.0, 90.0, sweep_batch.MIN_BLOCK)
    ops = list(tl.trim_sweep(balloon, {"k": ks}, FREE, FIXED, guess=HANGING, progress=False))
    for outputs in (None, ["pendulum1_q", "slider_q"]):
        lin = linear_matrices(balloon, ops[0], ["slider_tau"], outputs)
        names = (lin.state_names, lin.input_names, lin.output_names)
        for op, m in zip(ops, sweep_linear.matrices(balloon, ops, names)):
            ref = linear_matrices(balloon, op, list(names[1]), list(names[2]),
                                  states=list(names[0]))
            np.testing.assert_allclose(m.C, ref.C, rtol=0, atol=1e-12)
            np.testing.assert_allclose(m.D, ref.D, rtol=0, atol=1e-12)
            np.testing.assert_allclose(m.A, ref.A, rtol=0, atol=1e-11)


def test_lstsq_is_numpy_lstsq():
    rng = np.random.default_rng(3)
    J = rng.standard_normal((6, 5, 3))
    J[2, :, 2] = J[2, :, 0]  # rank deficient: minimum-norm solution
    J[4] = 0.0
    r = rng.standard_normal((6, 5))
    x = sweep_batch.lstsq(J, r)
    for k in range(6):
        np.testing.assert_allclose(x[k], np.linalg.lstsq(J[k], r[k], rcond=None)[0],
                                   rtol=0, atol=1e-12)


def test_free_input_balances_the_torque(pushed, point_by_point, trims):
    # the arm held at q = 0.3 by its actuator: τ = m g L sin q − T, over T
    torques = np.linspace(-2.0, 2.0, 9)
    new = tl.trim_sweep(pushed, {"T": torques}, free=["arm_tau"], fixed={"arm_q": 0.3},
                        progress=False)
    assert len(trims) == 1
    np.testing.assert_allclose(new.values("arm_tau"),
                               M_ARM * G * L_ARM * np.sin(0.3) - torques, rtol=0, atol=1e-10)
    old = point_by_point(tl.trim_sweep, pushed, {"T": torques}, free=["arm_tau"],
                         fixed={"arm_q": 0.3}, progress=False)
    for a, b in zip(new, old):
        assert (a.success, a.free, a.fixed, a.rank_deficiency) == (
            b.success, b.free, b.fixed, b.rank_deficiency)
        np.testing.assert_allclose(a.u, b.u, rtol=0, atol=1e-12)


def test_tensor_grid_is_the_point_by_point_grid(balloon, point_by_point):
    # two axes, walked in snake order; a second parameter (the slider damping) changes A only
    grid = {"k": np.linspace(30.0, 90.0, 4), "ds": np.array([2.0, 5.0, 8.0])}
    new = tl.linearize_sweep(balloon, grid, FREE, FIXED, guess=HANGING, progress=False,
                             **OPTS)
    old = point_by_point(tl.linearize_sweep, balloon, grid, FREE, FIXED, guess=HANGING,
                         progress=False, **OPTS)
    assert new.shape == (4, 3)
    scale = max(float(np.max(np.abs(_blocks(s)))) for s in old.systems.flat)
    _same_grid(new, old, atol=1e-12 * scale)
    i, j = new.state_names.index("slider_qd"), new.state_names.index("slider_qd")
    assert new[1, 0].A[i, j] != new[1, 2].A[i, j]  # the damping term follows the grid


def test_a_then_without_batch_sees_every_equilibrium_in_order(pushed):
    torques = np.linspace(0.0, 0.8 * M_ARM * G * L_ARM, 20)
    seen = []
    result, extra = sweep.trim_sweep_then(
        pushed, {"T": torques}, free=["arm_q"], progress=False,
        then=lambda model, op: seen.append(op.params["T"]) or op["arm_q"])
    assert seen == torques.tolist()
    np.testing.assert_array_equal(extra.astype(float), result.values("arm_q"))
