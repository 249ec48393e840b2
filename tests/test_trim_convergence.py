"""Trim converges from far starts: hanging chains of 30, 100 and 300 revolute links.

The chains (links of 1 m and 1 kg, centre of mass mid-link, joints about z, gravity −y)
start with every joint angle drawn uniformly within ±0.5 rad of the hanging equilibrium
(q = 0): for 300 links the absolute angles of the links wander up to ~5 rad (a coiled
chain). Gauss–Newton on the accelerations diverged from there (|q| of 1e8–1e12 rad);
the static trim with only joint positions free now descends on the potential energy
(trust-region Newton) and must land on the hanging equilibrium, every joint angle within
1e-9 rad of 0 (the 2π representative nearest the start, the joints having no spring), in
a bounded number of evaluations. Further: a chain with a constant torque (no potential)
still trims by Gauss–Newton, a chain with joint springs keeps its non-periodic angles,
and the bad arguments of the issue raise typed errors naming the argument.
"""

from __future__ import annotations

import numpy as np
import pytest

import titop_lpv as tl

G = 9.81


def chain(n: int, stiffness: float = 0.0, torque: float = 0.0) -> tl.Model:
    """A hanging chain of ``n`` revolute links (1 m, 1 kg, centre of mass mid-link)."""
    s = tl.System(f"chain{n}", gravity=[0.0, -G, 0.0])
    parent = None
    for i in range(n):
        kw = {} if parent is None else {"parent": parent}
        s.body(f"l{i}", tl.Revolute(axis=[0, 0, 1], stiffness=stiffness, damping=0.1),
               mass=1.0, com=[0.0, -0.5, 0.0], ports={"tip": [0.0, -1.0, 0.0]}, **kw)
        parent = f"l{i}.tip"
    if torque:
        s.load(tl.Torque(body="l0", torque=(0.0, 0.0, torque)))
    return s.compile()


def start(model: tl.Model, n: int, seed: int, amplitude: float = 0.5) -> np.ndarray:
    x0 = model.default_state()
    q = np.random.default_rng(seed).uniform(-amplitude, amplitude, n)
    x0[[model.state_index(f"l{i}_q") for i in range(n)]] = q
    return x0


# evaluations (residuals, potentials, Hessians) measured: 17-23 for N = 30, 23-35 for
# N = 100, 41-47 for N = 300; the bounds leave a margin
BUDGET = {30: 40, 100: 60, 300: 80}


@pytest.mark.parametrize(("n", "seed"), [(30, 0), (30, 1), (30, 2), (30, 3), (100, 0),
                                         (100, 1), (300, 0), (300, 1)])
def test_hanging_chain_converges_to_the_hanging_equilibrium(n, seed):
    model = chain(n)
    x0 = start(model, n, seed)
    free = [f"l{i}_q" for i in range(n)]
    op = tl.trim(model, free, x0=x0)
    q = np.array([op[name] for name in free])
    assert op.success and op.residual_norm <= 1e-10
    assert np.max(np.abs(q)) <= 1e-9  # the hanging equilibrium, in the start's 2π branch
    assert op.nfev <= BUDGET[n]
    assert op.pinned == () and op.rank_deficiency == 0
    assert "potential energy" in op.message


def test_chain_from_005_rad_the_issue_repro():
    model = chain(30)
    free = [f"l{i}_q" for i in range(30)]
    op = tl.trim(model, free, x0=start(model, 30, 7, amplitude=0.05))
    assert op.success and max(abs(op[n]) for n in free) <= 1e-9 and op.nfev <= 20


def test_spring_chain_angles_are_not_wrapped():
    """With joint springs the angle is not periodic: the solution is the spring's own."""
    k = 200.0
    model = chain(3, stiffness=k)
    free = ["l0_q", "l1_q", "l2_q"]
    x0 = start(model, 3, 0)
    op = tl.trim(model, free, x0=x0)
    assert op.success and max(abs(op[n]) for n in free) <= 1e-12


def test_constant_torque_chain_trims_by_gauss_newton():
    """A constant torque has no potential: the energy route is refused, Gauss–Newton solves."""
    T = 3.0
    model = chain(4, torque=T)
    free = [f"l{i}_q" for i in range(4)]
    op = tl.trim(model, free, x0=start(model, 4, 0, amplitude=0.05))
    assert op.success and "Gauss-Newton" in op.message
    # the torque T on the first link is balanced by the whole chain's weight about joint 0:
    # the centre of mass (4 kg) sits T / (4 g) to the side of the pivot
    com = tl.center_of_mass(model, op.x)
    np.testing.assert_allclose(com[0] * 4.0 * G, T, rtol=1e-9)


@pytest.mark.parametrize(("kwargs", "error", "needle"), [
    ({"free": None}, tl.TrimSpecError, "free must be a list"),
    ({"free": "l0_q"}, tl.TrimSpecError, "free must be a list"),
    ({"free": ["l0_q", 3]}, tl.TrimSpecError, "free[1]"),
    ({"free": ["l0_q"], "fixed": ["l1_q"]}, tl.TrimSpecError, "fixed must be a dict"),
    ({"free": ["l0_q"], "fixed": {3: 1.0}}, tl.TrimSpecError, "fixed: key 3"),
    ({"free": ["l0_q"], "fixed": {"l1_q": "0.5"}}, tl.TrimSpecError, "'l1_q'"),
    ({"free": ["l0_q"], "kind": "spin", "spin": "l0"}, tl.TrimSpecError, "spin must be a dict"),
    ({"free": ["l0_q"], "x0": np.full(6, 1e300)}, None, ""),
    ({"free": ["l0_q"], "x0": ["a"] * 6}, tl.TrimSpecError, "x0"),
    ({"free": ["l0_q"], "guess": [0.1]}, tl.TrimSpecError, "guess must be a dict"),
    ({"free": ["l0_q"], "pin_neutral": 3}, tl.TrimSpecError, "pin_neutral"),
    ({"free": ["l0_q"], "strict": "yes"}, tl.TrimSpecError, "strict"),
    ({"free": ["l0_q"], "tol": True}, tl.TrimSpecError, "tol"),
    ({"free": ["l0_q"], "kind": np.array(["static"])}, tl.TrimSpecError, "kind"),
])
def test_bad_arguments_raise_typed_errors_naming_them(kwargs, error, needle):
    model = chain(3)
    if error is None:  # 1e300 is a finite start: a typed error or a failed trim, no crash
        op = tl.trim(model, **kwargs, strict=False)
        assert not op.success and np.all(np.isfinite(op.x))
        return
    with pytest.raises(error, match=None) as info:
        tl.trim(model, **kwargs)
    assert needle in str(info.value)


def test_string_parameter_value_is_a_parameter_error():
    s = tl.System("pend", gravity=[0.0, -G, 0.0])
    s.parameter("k", 2.0)
    s.body("arm", tl.Revolute(axis=[0, 0, 1], stiffness="k"), mass=1.0, com=[0.0, -1.0, 0.0])
    model = s.compile()
    with pytest.raises(tl.ParameterError, match="'k'"):
        tl.trim(model, ["arm_q"], params={"k": "2.0"})
    with pytest.raises(tl.ParameterError, match="'k'"):
        tl.trim(model, ["arm_q"], params={"k": float("nan")})


def test_nan_spin_rate_is_a_spec_error():
    s = tl.System("hub", gravity=[0.0, 0.0, 0.0])
    s.body("hub", tl.Free(), mass=5.0, inertia=np.diag([2.0, 2.0, 3.0]),
           ports={"p": [0.5, 0.0, 0.0]})
    s.body("panel", tl.Revolute(axis=[0, 1, 0], stiffness=20.0, rest=0.3, q0=0.3),
           parent="hub.p", mass=1.0, com=[0.5, 0.0, 0.0])
    model = s.compile()
    with pytest.raises(tl.TrimSpecError, match="rate"):
        tl.trim(model, ["panel_q"], kind="spin",
                spin={"body": "hub", "axis": [0, 0, 1], "rate": float("nan")})


FOUR_BAR = __import__("pathlib").Path(__file__).resolve().parents[1] / "examples" / "four_bar.toml"


def test_a_stiff_loop_trims_to_its_rounding_floor_on_every_kernel():
    """The four-bar closed by a 1e8 N/m loop spring resolves its accelerations only to about
    1e-7 m/s² (ε × 1 m of position rounding × the spring): its best residual was 1.6e-13 on
    one BLAS kernel and 4.1e-10 > 1e-10 on another. Asking for 1e-16, which no kernel
    reaches, the trim raises the tolerance to the rounding floor, says so, and the point is
    the equilibrium: the loop spring carries the coupler's weight with the crank and rocker
    angles equal (the parallelogram) to the floor's resolution."""
    from titop_lpv.analysis import trim_solver as ts

    model = tl.load_model(FOUR_BAR)
    op = tl.trim(model, free=["crank_q", "coupler_q", "rocker_q"],
                 params={"k_loop": 1e8, "d_loop": 0.0}, tol=1e-16)
    assert op.success and "raised to" in op.message and "rounding floor" in op.message
    assert 1e-9 < op.tolerance < 1e-6 and op.residual_norm <= op.tolerance
    A = tl.linearize(model, op).A
    q = [model.state_names.index(n) for n in ("crank_q", "coupler_q", "rocker_q")]
    J = A[np.ix_([i + 1 for i in q], q)]  # d/dt *_qd against the angles
    eps = np.finfo(float).eps
    assert op.tolerance == pytest.approx(
        ts.FLOOR_ULPS * eps * np.max(np.abs(J).sum(axis=1)), rel=1e-6)  # angles: s_j = 1
    # hanging straight: crank and rocker angles agree, the coupler does not turn, to the
    # spring's static deflection (weight / k ≈ 2e-7 m over 0.8 m) and no further
    assert abs(op["crank_q"] - op["rocker_q"]) < 1e-6
    assert abs(op["crank_q"] + op["coupler_q"]) < 1e-6


def test_the_rounding_floor_does_not_excuse_a_point_that_is_no_equilibrium():
    """With the crank held at 0.3 rad, the four-bar cannot hang still: the trim fails as
    before, the floor (~1e-7) far below the residual (~1 rad/s²), and the tolerance quoted is
    the one applied."""
    model = tl.load_model(FOUR_BAR)
    op = tl.trim(model, free=["coupler_q", "rocker_q"], fixed={"crank_q": 0.3},
                 params={"k_loop": 1e8, "d_loop": 0.0}, strict=False)
    assert not op.success and op.residual_norm > 1e-3
    assert op.tolerance < 1e-6


def test_an_ordinary_model_keeps_its_tolerance():
    """A pendulum chain's floor is ~1e-14: a tolerance of 1e-10 is met and left as given."""
    model = chain(5)
    op = tl.trim(model, free=[f"l{i}.q" for i in range(5)], x0=start(model, 5, 3, 0.1))
    assert op.success and op.tolerance == 1e-10 and "raised" not in op.message
