"""LPV grids (``tl.linearize_sweep``, ``tl.LPVGrid``) and ``tl.compare_response``.

What is checked against what:

* balloon (slider actuated) over k ∈ [25, 100], 31 points: every grid model equals
  ``tl.linearize`` at the sweep's trim point; one state set for the whole grid (the pure
  integrators x, y, z, ψ dropped); ``poles()`` equals the eigenvalues of each A, lies in the
  closed left half-plane (damped hanging equilibrium) and plots with a colour bar;
  ``bode()`` equals ``C (jωI − A)⁻¹ B + D`` computed by hand (magnitude and phase) and
  plots 31 curves per axis;
* ``LPVGrid.at`` on a pendulum pushed by a body-frame torque T (equilibrium
  θ = asin(T / m g L), so A depends nonlinearly on T): exact at the grid nodes; between
  nodes its error w.r.t. an exact trim + linearise at the query point falls as h² (linear
  interpolation); queries outside the grid, on a cell with a failed trim, or across two
  branches of equilibria (stable and inverted pendulum) raise ``LPVError``;
* a two-parameter balloon grid (k, ds): ``at`` is the bilinear combination of the corners,
  which here is also the exact linearisation (the trim does not depend on k or ds and A is
  affine in each);
* a ``ProcessPoolExecutor(2)`` sweep gives the same models as the serial one, with progress
  reported for the trim and the linearisation stages; dropped states reported per system;
* pole maps and Bode overlays coloured by a chosen parameter on a 2-D grid; dotted channel
  names in ``bode``; a grid without inputs (one output) interpolates and refuses ``bode``
  with ``LPVError``; ``branch_tol`` per variable;
* ``compare_response`` at the balloon trim point: the linear/nonlinear gap is second order
  in the perturbation size (ratio 4 when the perturbation doubles).
"""

from __future__ import annotations

import dataclasses
import warnings
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pytest
from matplotlib.figure import Figure

import titop_lpv as tl
from titop_lpv.model import read_description

plt.switch_backend("Agg")  # no display: figures are only inspected

ROOT = Path(__file__).resolve().parents[1]
G = 9.81
BALLOON_FREE = ["balloon.phi", "balloon.theta", "slider.q", "pendulum1.q", "pendulum2.q"]
BALLOON_FIXED = {"balloon.x": 0.0, "balloon.z": 0.0, "balloon.psi": 0.0}
HANGING = {"pendulum1.q": 0.2, "pendulum2.q": -0.2}
K_GRID = np.linspace(25.0, 100.0, 31)
SWEEP_OPTS = {"inputs": ["slider_tau"], "outputs": ["pendulum2_q"], "drop_integrators": True}
MATRICES = ("A", "B", "C", "D")

# pushed pendulum: mass M at distance L below the hinge, body-frame torque T
M_ARM, L_ARM = 2.0, 0.5
T_LIMIT = M_ARM * G * L_ARM  # no static equilibrium beyond


def _max_diff(s1, s2) -> float:
    return max(float(np.max(np.abs(getattr(s1, m) - getattr(s2, m)))) for m in MATRICES)


@pytest.fixture(scope="module")
def balloon() -> tl.Model:
    d = read_description(ROOT / "examples" / "balloon.toml")
    d["bodies"][1]["joint"]["actuated"] = True  # slider force input slider_tau
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tl.TitopWarning)  # the paper's inertia: expected
        return tl.load_model(d)


@pytest.fixture(scope="module")
def balloon_grid(balloon) -> tl.LPVGrid:
    return tl.linearize_sweep(balloon, {"k": K_GRID}, BALLOON_FREE, BALLOON_FIXED,
                              guess=HANGING, progress=False, **SWEEP_OPTS)


@pytest.fixture(scope="module")
def pushed() -> tl.Model:
    s = tl.System("pushed", gravity=[0.0, -G, 0.0])
    s.parameter("T", 0.0, unit="N m")
    s.body("arm", tl.Revolute(axis=[0, 0, 1], damping=1.0, actuated=True), mass=M_ARM,
           com=[0.0, -L_ARM, 0.0])
    s.torque("arm", [0.0, 0.0, "T"], frame="body")
    return s.compile()


def _pushed_grid(model: tl.Model, values) -> tl.LPVGrid:
    return tl.linearize_sweep(model, {"T": values}, free=["arm_q"], progress=False)


# --------------------------------------------------------------------------------------------
# balloon over k
# --------------------------------------------------------------------------------------------
def test_balloon_grid_points_are_the_linearisations(balloon, balloon_grid):
    grid = balloon_grid
    assert grid.shape == (31,) and len(grid) == 31
    assert np.all(grid.sweep.success)
    np.testing.assert_array_equal(grid.axes["k"], K_GRID)
    np.testing.assert_array_equal(grid.sweep.values("k"), K_GRID)
    # one state set: the floating base's pure integrators (x, y, z, heading) are dropped
    assert set(balloon.state_names) - set(grid.state_names) == {
        "balloon_x", "balloon_y", "balloon_z", "balloon_psi"}
    assert grid.input_names == ("slider_tau",) and grid.output_names == ("pendulum2_q",)
    worst = 0.0
    for i in range(31):
        sys = grid[i]
        assert tuple(sys.state_labels) == grid.state_names
        assert tuple(sys.input_labels) == grid.input_names
        assert tuple(sys.output_labels) == grid.output_names
        ref = tl.linearize(balloon, grid.sweep[i], **SWEEP_OPTS)
        assert tuple(ref.state_labels) == grid.state_names
        worst = max(worst, _max_diff(sys, ref))
    assert worst <= 1e-12, f"max |grid[i] - linearize(sweep[i])| = {worst:.2e} (atol 1e-12)"
    # the grid really varies: the slider's stiffness term ∂(d slider_qd)/∂slider_q changes
    i, j = grid.state_names.index("slider_qd"), grid.state_names.index("slider_q")
    stiff = np.array([grid[n].A[i, j] for n in range(31)])
    assert np.all(np.diff(stiff) < 0)


def test_balloon_pole_map(balloon_grid):
    pm = balloon_grid.poles()
    n = len(balloon_grid.state_names)
    assert pm.poles.shape == (31, n) and pm.name == "k"
    np.testing.assert_array_equal(pm.values, K_GRID)
    for i in range(31):
        eig = np.sort_complex(np.linalg.eigvals(balloon_grid[i].A))
        np.testing.assert_allclose(np.sort_complex(pm.poles[i]), eig, rtol=0, atol=1e-9)
    # damped hanging equilibrium: no unstable pole (neutral translations/heading rate: Re = 0)
    assert np.max(pm.poles.real) <= 1e-9
    fig = pm.plot()
    try:
        assert isinstance(fig, Figure)
        assert len(fig.axes) == 2  # the pole plane and its colour bar
        assert any(ax.get_ylabel() == "k [N/m]" for ax in fig.axes)  # colour bar: k, its unit
        assert len(fig.axes[0].collections) == 1  # one scatter of all the poles
        assert fig.axes[0].collections[0].get_offsets().shape[0] == 31 * n
    finally:
        plt.close(fig)


def test_balloon_bode_overlay_against_hand_computation(balloon_grid):
    omega = np.array([0.05, 0.3, 1.0, 1.8, 3.7, 12.0])
    bo = balloon_grid.bode(omega)
    assert bo.magnitude.shape == (31, 1, 1, omega.size) == bo.phase.shape
    assert bo.inputs == ("slider_tau",) and bo.outputs == ("pendulum2_q",)
    np.testing.assert_array_equal(bo.values, K_GRID)
    worst = 0.0
    for k in range(31):
        sys = balloon_grid[k]
        n = sys.A.shape[0]
        H = np.array([(sys.C @ np.linalg.solve(1j * w * np.eye(n) - sys.A, sys.B) + sys.D)[0, 0]
                      for w in omega])
        np.testing.assert_allclose(bo.magnitude[k, 0, 0], np.abs(H), rtol=1e-10, atol=0)
        got = bo.magnitude[k, 0, 0] * np.exp(1j * bo.phase[k, 0, 0])
        worst = max(worst, float(np.max(np.abs(got - H) / np.abs(H))))
    assert worst <= 1e-10, f"complex frequency response relative error {worst:.2e} (1e-10)"
    fig = balloon_grid.bode().plot()
    try:
        assert isinstance(fig, Figure)
        assert len(fig.axes) == 3  # magnitude, phase, and the colour bar as the key
        for ax in fig.axes[:2]:
            assert len(ax.get_lines()) == 31
        assert fig.axes[2].get_ylabel() == "k [N/m]"
    finally:
        plt.close(fig)


# --------------------------------------------------------------------------------------------
# LPVGrid.at on a model whose trim point depends on the parameter
# --------------------------------------------------------------------------------------------
def test_at_grid_nodes_are_exact(pushed):
    Ts = np.linspace(0.0, 0.8 * T_LIMIT, 9)
    grid = _pushed_grid(pushed, Ts)
    assert np.all(grid.sweep.success)
    np.testing.assert_allclose(grid.sweep.values("arm_q"), np.arcsin(Ts / T_LIMIT), rtol=1e-9,
                               atol=1e-12)
    for i, T in enumerate(Ts):
        sys = grid.at(T=T)
        for m in MATRICES:
            np.testing.assert_array_equal(getattr(sys, m), getattr(grid[i], m))
        assert tuple(sys.state_labels) == grid.state_names


def test_at_interpolation_error_is_second_order(pushed):
    query = 0.3 * T_LIMIT
    exact = tl.linearize(pushed, tl.trim(pushed, free=["arm_q"], params={"T": query}))
    # A[1, 0] = −g cos θ / L with θ = asin(T / mgL): nonlinear in T
    np.testing.assert_allclose(exact.A[1, 0], -G / L_ARM * np.sqrt(1 - 0.3**2), rtol=1e-9)
    errors = []
    for h in (0.4, 0.2):
        nodes = query + h * (np.arange(-2, 3) - 0.5)  # the query at the middle of a cell
        sys = _pushed_grid(pushed, nodes).at(T=query)
        errors.append(_max_diff(sys, exact))
    assert errors[1] > 1e-6  # well above the trim tolerance: a real interpolation error
    ratio = errors[0] / errors[1]
    assert abs(ratio / 4.0 - 1.0) <= 0.2, f"errors {errors}: ratio {ratio:.4f} (4 ± 20 %)"


def test_at_outside_the_grid_names_the_parameter(pushed):
    grid = _pushed_grid(pushed, np.linspace(0.0, 4.0, 5))
    for T in (-0.5, 4.5):
        with pytest.raises(tl.LPVError, match=r"\bT = .*outside the grid"):
            grid.at(T=T)
    with pytest.raises(tl.LPVError, match="missing"):
        grid.at()
    with pytest.raises(tl.LPVError, match=r"unknown \['k'\]"):
        grid.at(T=1.0, k=2.0)


def test_at_refuses_a_cell_with_a_failed_trim(pushed):
    Ts = np.linspace(0.0, 1.2 * T_LIMIT, 13)
    grid = _pushed_grid(pushed, Ts)
    ok = grid.sweep.success
    assert not np.any(ok[Ts > T_LIMIT])  # no static equilibrium beyond m g L
    first_bad = int(np.argmin(ok))
    assert ok[first_bad - 1] and grid[first_bad] is None
    query = 0.5 * (Ts[first_bad - 1] + Ts[first_bad])
    with pytest.raises(tl.LPVError, match="not an equilibrium"):
        grid.at(T=query)


def test_at_refuses_interpolation_across_branches(pushed):
    # a grid assembled from two branches: hanging θ = asin(T/mgL) for T ≤ 4, inverted
    # θ = π − asin(T/mgL) for T ≥ 5 (stable and unstable: A[1, 0] changes sign)
    Ts = np.arange(0.0, 9.0)
    ops = np.empty(Ts.size, dtype=object)
    systems = np.empty(Ts.size, dtype=object)
    for i, T in enumerate(Ts):
        branch = np.arcsin(T / T_LIMIT)
        guess = branch if T <= 4.0 else np.pi - branch
        ops[i] = tl.trim(pushed, free=["arm_q"], params={"T": T}, guess={"arm_q": guess})
        np.testing.assert_allclose(ops[i]["arm_q"], guess, atol=1e-9)
        systems[i] = tl.linearize(pushed, ops[i])
    assert systems[4].A[1, 0] < 0 < systems[5].A[1, 0]
    sweep = tl.TrimSweep(axes={"T": Ts}, points=ops)
    grid = tl.LPVGrid(sweep, systems, tuple(systems[0].state_labels),
                      tuple(systems[0].input_labels), tuple(systems[0].output_labels))
    with pytest.raises(tl.LPVError, match=r"arm_q.*branch"):
        grid.at(T=4.5)
    sys = grid.at(T=2.0)  # a cell on one branch is accepted
    np.testing.assert_array_equal(sys.A, systems[2].A)

    # one branch, but a tolerance below the change of θ over a cell
    smooth = _pushed_grid(pushed, Ts[:5])
    assert smooth.at(T=1.0) is not None
    strict = dataclasses.replace(smooth, branch_tol=1e-9)
    with pytest.raises(tl.LPVError, match="branch"):
        strict.at(T=1.0)


def test_at_on_a_grid_given_in_decreasing_order(pushed):
    """A grid in decreasing order is either refused by linearize_sweep or usable by at()."""
    Ts = np.array([4.0, 3.0, 2.0, 1.0])
    try:
        grid = _pushed_grid(pushed, Ts)
    except (tl.TitopError, ValueError):
        return  # refused up front: fine
    sys = grid.at(T=2.0)
    np.testing.assert_array_equal(sys.A, grid[2].A)


# --------------------------------------------------------------------------------------------
# two parameters, executor
# --------------------------------------------------------------------------------------------
def test_two_parameter_grid_bilinear(balloon):
    grid = tl.linearize_sweep(balloon, {"k": [30.0, 60.0, 90.0], "ds": [1.0, 5.0]},
                              BALLOON_FREE, BALLOON_FIXED, guess=HANGING, progress=False,
                              **SWEEP_OPTS)
    assert grid.shape == (3, 2)
    assert np.all(grid.sweep.success)
    np.testing.assert_array_equal(grid.sweep.values("k"), [[30, 30], [60, 60], [90, 90]])
    np.testing.assert_array_equal(grid.sweep.values("ds"), [[1, 5], [1, 5], [1, 5]])
    sys = grid.at(k=45.0, ds=3.0)  # the centre of the cell [30, 60] × [1, 5]
    for m in MATRICES:
        corners = sum(getattr(grid[i, j], m) for i in (0, 1) for j in (0, 1)) / 4
        np.testing.assert_allclose(getattr(sys, m), corners, rtol=0, atol=1e-12)
    # the trim does not depend on k or ds and A is affine in each: the interpolation is exact
    op = tl.trim(balloon, free=BALLOON_FREE, fixed=BALLOON_FIXED, guess=HANGING,
                 params={"k": 45.0, "ds": 3.0})
    exact = tl.linearize(balloon, op, **SWEEP_OPTS)
    assert _max_diff(sys, exact) <= 1e-9
    assert _max_diff(grid[0, 0], grid[1, 1]) > 1.0  # the corners really differ
    assert grid.poles().poles.shape == (6, len(grid.state_names))
    # the pole map and Bode overlay carry the chosen parameter's value at every point
    by_k, by_ds = grid.poles(), grid.poles(by="ds")
    assert (by_k.name, by_ds.name) == ("k", "ds")
    np.testing.assert_array_equal(by_k.values, grid.sweep.values("k").ravel())
    np.testing.assert_array_equal(by_ds.values, grid.sweep.values("ds").ravel())
    np.testing.assert_array_equal(by_ds.poles, by_k.poles)
    for k, sys_k in enumerate(grid.systems.flat):  # row k of the map is the system at k
        np.testing.assert_allclose(np.sort_complex(np.linalg.eigvals(sys_k.A)),
                                   by_ds.poles[k], rtol=1e-12)
    overlay = grid.bode(np.logspace(-1, 1, 5), by="ds")
    assert overlay.name == "ds"
    np.testing.assert_array_equal(overlay.values, [1, 5, 1, 5, 1, 5])
    assert isinstance(by_ds.plot(), Figure)
    plt.close("all")
    with pytest.raises(tl.UnknownNameError, match="'dp1'"):
        grid.poles(by="dp1")


def test_process_pool_sweep_equals_serial(balloon, balloon_grid):
    calls = []
    with ProcessPoolExecutor(2) as ex:
        par = tl.linearize_sweep(balloon, {"k": K_GRID}, BALLOON_FREE, BALLOON_FIXED,
                                 guess=HANGING, progress=lambda d, t: calls.append((d, t)),
                                 executor=ex, **SWEEP_OPTS)
    # two stages report progress: the trim walk, then the linearisation (on the executor)
    assert calls.count((31, 31)) == 2
    stage2 = calls[calls.index((31, 31)) + 1:]
    assert stage2[0] == (1, 31) and [d for d, _ in stage2] == sorted(d for d, _ in stage2)
    assert par[0].dropped_states == balloon_grid[0].dropped_states == dict.fromkeys(
        ["balloon_x", "balloon_y", "balloon_z", "balloon_psi"], "integrator")
    assert par.state_names == balloon_grid.state_names
    np.testing.assert_array_equal(par.sweep.success, balloon_grid.sweep.success)
    worst = max(_max_diff(par[i], balloon_grid[i]) for i in range(31))
    assert worst <= 1e-12, f"parallel vs serial: {worst:.2e} (atol 1e-12)"


def test_serial_progress_and_text_bar(pushed, capsys):
    calls = []
    grid = tl.linearize_sweep(pushed, {"T": np.linspace(0.0, 4.0, 5)}, free=["arm_q"],
                              progress=lambda d, t: calls.append((d, t)))
    assert calls == [(d, 5) for d in range(1, 6)] * 2 and len(grid) == 5
    tl.linearize_sweep(pushed, {"T": np.linspace(0.0, 4.0, 5)}, free=["arm_q"])
    err = capsys.readouterr().err
    last = {line.split(":")[0]: line for line in err.splitlines()}  # tqdm's last line
    assert "5/5" in last["trim_sweep"] and "5/5" in last["linearize_sweep"]


def test_bode_names_and_a_grid_without_inputs(pushed):
    """Dotted names are accepted like linearize accepts them; a grid with no input (one
    output: the shape python-control 0.10.2 refuses) interpolates but has no Bode."""
    grid = _pushed_grid(pushed, np.linspace(0.0, 4.0, 5))
    w = np.logspace(-1, 1, 7)
    dotted, plain = grid.bode(w, ["arm.tau"], ["arm.q"]), grid.bode(w, ["arm_tau"], ["arm_q"])
    assert dotted.inputs == ("arm_tau",) and dotted.outputs == ("arm_q",)
    np.testing.assert_array_equal(dotted.magnitude, plain.magnitude)
    with pytest.raises(tl.UnknownNameError, match=r"arm\.nope"):
        grid.bode(w, ["arm.nope"])
    bare = tl.linearize_sweep(pushed, {"T": np.linspace(0.0, 4.0, 5)}, free=["arm_q"],
                              inputs=[], progress=False)
    assert bare.input_names == () and bare.output_names == ("arm_q",)
    with pytest.raises(tl.LPVError, match=r"at least one input.*inputs \[\]"):
        bare.bode(w)
    sys = bare.at(T=2.5)  # midway between two nodes: the mean of their A
    assert sys.B.shape == (2, 0) and sys.D.shape == (1, 0)
    np.testing.assert_allclose(sys.A, (bare[2].A + bare[3].A) / 2, rtol=0, atol=1e-14)
    np.testing.assert_array_equal(bare[2].A, grid[2].A)


def test_branch_tol_per_variable(pushed):
    grid = _pushed_grid(pushed, np.linspace(0.0, 4.0, 5))
    step = abs(grid.sweep[2]["arm_q"] - grid.sweep[1]["arm_q"])  # Δθ over the cell [1, 2]
    for tol, ok in ((step * 1.01, True), (step * 0.99, False), ({"arm.q": step * 0.99}, False),
                    ({"arm_q": step * 1.01}, True), ({"other": 1e-9}, True)):
        g = dataclasses.replace(grid, branch_tol=tol)
        if ok:
            assert g.at(T=1.5) is not None
        else:
            with pytest.raises(tl.LPVError, match="arm_q"):
                g.at(T=1.5)


# --------------------------------------------------------------------------------------------
# linear versus nonlinear response
# --------------------------------------------------------------------------------------------
def test_compare_response_error_is_second_order(balloon):
    op = tl.trim(balloon, free=BALLOON_FREE, fixed=BALLOON_FIXED, guess=HANGING)
    sys = tl.linearize(balloon, op, ["slider_tau"], drop_integrators=True)
    results = []
    for eps in (0.02, 0.04):
        r = tl.compare_response(balloon, op, sys, x0_offset={"slider.q": 0.5 * eps},
                                u={"slider_tau": 2.0 * eps}, t_final=5.0, n_points=501)
        assert r.y_nonlinear.shape == r.y_linear.shape == (501, len(sys.output_labels))
        # the linear model is a good approximation: the gap is small against the motion
        motion = float(np.max(np.abs(r.y_linear - r.y_linear[0])))
        assert motion > 1e-3 and r.max_error <= 1e-2 * motion
        results.append(r)
    ratio = results[1].max_error / results[0].max_error
    assert abs(ratio / 4.0 - 1.0) <= 0.15, f"max errors ratio {ratio:.4f} (4 ± 15 %)"
    fig = results[0].plot()
    try:
        assert isinstance(fig, Figure)
        assert len(fig.axes) == len(sys.output_labels)
    finally:
        plt.close(fig)
