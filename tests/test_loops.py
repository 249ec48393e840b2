"""Loop-closure spring-dampers (paper §3.4, ``[[loops]]``): checked against their potential
(energy conservation, exact power balance with damping), the balance of the wrench pair, the
compiled kernel, inverse dynamics, and the closed-form modes of two coupled pendulums.

The energy checks are instantaneous: dE/dt = ∇E · ẋ with ∇E by complex step of
:func:`titop_lpv.multibody.energy` (the potential route) and ẋ from the forward dynamics (the wrench
route), so no integration error hides a discrepancy.
"""

from __future__ import annotations

import copy

import models
import numpy as np
import pytest

import titop_lpv as tl
from titop_lpv.multibody.dynamics import forward_dynamics
from titop_lpv.multibody.kinematics import kinematics
from titop_lpv.multibody.loops import loop_state, loop_wrenches
from titop_lpv.spatial.algebra import cross

RNG = np.random.default_rng(20261122)


def with_loops(desc: dict, seed: int, damping: bool) -> dict:
    """A random tree closed by two random loops (anisotropic stiffness, optional damping)."""
    rng = np.random.default_rng(seed)
    desc = copy.deepcopy(desc)
    names = [b["name"] for b in desc["bodies"]]
    loops = []
    for _ in range(2):
        a, b = rng.choice(len(names), 2, replace=False)
        ends = []
        for i in (a, b):
            ports = list(desc["bodies"][i].get("ports", {}))
            pick = rng.choice(["", ".com", *(f".{p}" for p in ports)])
            ends.append(names[i] + pick)
        loops.append({"a": ends[0], "b": ends[1],
                      "stiffness": rng.uniform(1.0, 50.0, 6).tolist(),
                      "damping": (rng.uniform(0.1, 2.0, 6) if damping else np.zeros(6)).tolist()})
    desc["loops"] = loops
    return desc


def energy_rate(model: tl.Model, x: np.ndarray) -> tuple[float, float, np.ndarray]:
    """(∇E · ẋ, a scale for it, ẋ)."""
    xdot = forward_dynamics(model, x, backend="numpy")
    h = 1e-30
    E = np.array([sum(tl.energy(model, x + 1j * h * e)).imag / h
                  for e in np.eye(model.n_states)])
    return float(E @ xdot), float(np.abs(E).max() * np.abs(xdot).max()), xdot


CASES = [(seed, root) for seed in range(1, 6) for root in ("free", "fixed")]


@pytest.mark.parametrize(("seed", "root"), CASES)
def test_undamped_loops_conserve_energy(seed, root):
    desc = with_loops(models.random_tree(seed, 5, root=root, gravity=True, loads=False,
                                         springs=True), seed, damping=False)
    for body in desc["bodies"]:  # joint dampers off: only the loops could break conservation
        body["joint"].pop("damping", None)
    model = tl.load_model(desc)
    for k in range(3):
        x = RNG.normal(size=model.n_states)
        rate, scale, _ = energy_rate(model, x)
        assert abs(rate) <= 1e-12 * scale, (seed, root, k, rate, scale)


@pytest.mark.parametrize(("seed", "root"), CASES[:6])
def test_damped_loops_dissipate_exactly_their_rayleigh_power(seed, root):
    desc = with_loops(models.random_tree(seed, 5, root=root, gravity=True, loads=False,
                                         springs=True), seed, damping=True)
    for body in desc["bodies"]:
        body["joint"].pop("damping", None)
    model = tl.load_model(desc)
    x = RNG.normal(size=model.n_states)
    rate, scale, _ = energy_rate(model, x)
    st = loop_state(model, kinematics(model, x))
    dissipated = np.sum(st.d[..., :3] * st.dpd**2) + np.sum(st.d[..., 3:] * st.dw**2)
    assert dissipated > 0
    assert rate == pytest.approx(-dissipated, rel=1e-10, abs=1e-12 * scale)


@pytest.mark.parametrize(("seed", "root"), CASES[:6])
def test_the_wrench_pair_balances(seed, root):
    """Zero net force and zero net moment about the inertial origin (action = reaction)."""
    model = tl.load_model(with_loops(models.random_tree(seed, 5, root=root), seed, True))
    x = RNG.normal(size=(4, model.n_states))  # batched
    kin = kinematics(model, x)
    W = loop_wrenches(model, kin)
    P, r = np.stack(kin.P, -3), np.stack(kin.r, -2)
    F = np.einsum("...ij,...j->...i", P, W[..., :3])  # inertial
    T = np.einsum("...ij,...j->...i", P, W[..., 3:]) + cross(r, F)
    scale = np.abs(W).max()
    assert np.abs(F.sum(-2)).max() <= 1e-13 * scale
    assert np.abs(T.sum(-2)).max() <= 1e-12 * scale * (1 + np.abs(r).max())


@pytest.mark.parametrize(("seed", "root"), CASES)
def test_compiled_kernel_equals_the_numpy_recursion(seed, root):
    model = tl.load_model(with_loops(models.random_tree(seed, 6, root=root), seed, True))
    x = RNG.normal(size=(5, model.n_states))
    u = RNG.normal(size=(5, model.n_inputs))
    ref = forward_dynamics(model, x, u, backend="numpy")
    fast = forward_dynamics(model, x, u, backend="compiled")
    np.testing.assert_allclose(fast, ref, rtol=1e-12, atol=1e-12 * np.abs(ref).max())
    z = x + 1e-30j * RNG.normal(size=x.shape)  # complex step through the kernel
    np.testing.assert_allclose(forward_dynamics(model, z, u, backend="compiled").imag,
                               forward_dynamics(model, z, u, backend="numpy").imag,
                               rtol=1e-10, atol=1e-12 * np.abs(ref).max() * 1e-30)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_inverse_dynamics_returns_the_applied_joint_forces(seed):
    """Inverse dynamics at the forward accelerations gives back the actuator inputs."""
    model = tl.load_model(with_loops(models.random_tree(seed, 5, root="fixed"), seed, True))
    x = RNG.normal(size=model.n_states)
    u = RNG.normal(size=model.n_inputs)
    xdot = forward_dynamics(model, x, u)
    nudot = xdot[[model.state_names.index(n) for n in tl.velocity_names(model)]]
    inv = tl.inverse_dynamics(model, x, nudot, u)
    given = dict(zip(model.input_names, u))  # actuation in joint (velocity) order
    tau = [given.get(n[:-3] + "_tau", 0.0) for n in tl.velocity_names(model)]
    assert model.n_inputs >= 1
    np.testing.assert_allclose(inv.actuation, tau, atol=1e-10 * (1 + np.abs(xdot).max()))


def coupled_pendulums(k: float, m: float = 2.0, length: float = 1.5, g: float = 9.81) -> str:
    """Two point-mass pendulums on one pivot, their bobs joined by an isotropic spring k."""
    return f"""
name = "coupled"
gravity = [0.0, -{g}, 0.0]
[[bodies]]
name = "ground"
joint = {{ type = "weld" }}
mass = 1.0
inertia = [[1, 0, 0], [0, 1, 0], [0, 0, 1]]
ports = {{ pivot = [0.0, 0.0, 0.0] }}
[[bodies]]
name = "p1"
parent = "ground.pivot"
joint = {{ type = "revolute", axis = [0, 0, 1] }}
mass = {m}
com = [0.0, -{length}, 0.0]
[[bodies]]
name = "p2"
parent = "ground.pivot"
joint = {{ type = "revolute", axis = [0, 0, 1] }}
mass = {m}
com = [0.0, -{length}, 0.0]
[[loops]]
a = "p1.com"
b = "p2.com"
stiffness = [{k}, {k}, {k}, 0.0, 0.0, 0.0]
"""


def test_coupled_pendulums_have_the_closed_form_modes(tmp_path):
    k, m, length, g = 7.0, 2.0, 1.5, 9.81
    path = tmp_path / "coupled.toml"
    path.write_text(coupled_pendulums(k, m, length, g))
    model = tl.load_model(path)
    op = tl.trim(model, free=["p1_q", "p2_q"])
    assert np.abs(op.x).max() <= 1e-12
    sys = tl.linearize(model, op)
    w = np.sort(np.abs(np.linalg.eigvals(sys.A).imag))[::2]
    # in phase: the spring is idle, ω² = g/l; in antiphase: ω² = g/l + 2k/m
    np.testing.assert_allclose(w, np.sqrt([g / length, g / length + 2 * k / m]), rtol=1e-10)


def test_schema_builder_and_file_agree(tmp_path):
    text = coupled_pendulums(7.0)
    path = tmp_path / "c.toml"
    path.write_text(text)
    from_file = tl.load_model(path)
    s = tl.System("coupled", gravity=(0.0, -9.81, 0.0))
    s.body("ground", tl.Weld(), mass=1.0, inertia=np.eye(3), ports={"pivot": (0.0, 0.0, 0.0)})
    for name in ("p1", "p2"):
        s.body(name, tl.Revolute(axis=(0, 0, 1)), parent="ground.pivot", mass=2.0,
               com=(0.0, -1.5, 0.0))
    s.loop("p1.com", "p2.com", stiffness=[7.0, 7.0, 7.0, 0.0, 0.0, 0.0])
    built = s.compile()
    assert built == from_file
    assert built.to_dict()["loops"] == [{"a": "p1.com", "b": "p2.com",
                                         "stiffness": [7.0, 7.0, 7.0, 0.0, 0.0, 0.0]}]
    x = RNG.normal(size=built.n_states)
    np.testing.assert_array_equal(built.dynamics(0, x), from_file.dynamics(0, x))


def test_loop_stiffness_can_be_a_parameter(tmp_path):
    text = coupled_pendulums(7.0).replace('name = "coupled"', 'name = "coupled"\n'
                                          "parameters = { k = 7.0 }")
    text = text.replace("stiffness = [7.0, 7.0, 7.0", 'stiffness = ["k", "k", "k"')
    path = tmp_path / "c.toml"
    path.write_text(text)
    model = tl.load_model(path)
    x = RNG.normal(size=model.n_states)
    (tmp_path / "d.toml").write_text(coupled_pendulums(7.0))
    ref = tl.load_model(tmp_path / "d.toml")
    assert model.param_names == ("k",)
    np.testing.assert_allclose(model.dynamics(0, x, params={"k": 7.0}), ref.dynamics(0, x))
    stiff = model.dynamics(0, x, params={"k": 70.0})
    assert not np.allclose(stiff, ref.dynamics(0, x))


@pytest.mark.parametrize(("loop", "message"), [
    ({"a": "p1.com", "b": "p9"}, r"loops\[0\].*b: unknown body 'p9'"),
    ({"a": "p1.tip", "b": "p2"}, r"loops\[0\].*body 'p1' has no point 'tip'"),
    ({"a": "p1", "b": "p1.com"}, r"both ends are on body 'p1'"),
    ({"a": "p1", "b": "p2", "stiffness": [1.0, 2.0, 3.0]}, r"stiffness: must be a vector of 6"),
    ({"a": "p1", "b": "p2", "damping": [1, 1, 1, 1, 1, -1]}, r"damping must be >= 0"),
    ({"a": "p1"}, r"loops\[0\]: missing 'b'"),
    ({"a": "p1", "b": "p2", "spring": 3}, r"loops\[0\].*unknown key 'spring'"),
    ({"a": "p1.", "b": "p2"}, r"a must be 'body' or 'body.point'"),
])
def test_bad_loops_are_named(tmp_path, loop, message):
    import tomllib

    desc = tomllib.loads(coupled_pendulums(7.0))
    desc["loops"] = [loop]
    with pytest.raises(tl.ModelError, match=message):
        tl.load_model(desc)


def test_a_stiff_loop_closes_a_parallelogram_four_bar():
    """examples/four_bar.toml: the slow mode tends to the rigid linkage's closed form as 1/k."""
    from pathlib import Path

    model = tl.load_model(Path(__file__).resolve().parents[1] / "examples" / "four_bar.toml")
    g, m_l, m_c, length = 9.81, 1.0, 2.0, 0.8
    rigid = np.sqrt(g * (m_l + m_c) / (length * (2 * m_l / 3 + m_c)))
    errors = []
    for k in (1e6, 1e8):
        op = tl.trim(model, free=["crank_q", "coupler_q", "rocker_q"],
                     params={"k_loop": k, "d_loop": 0.0})
        slow = np.sort(np.abs(np.linalg.eigvals(tl.linearize(model, op).A)))[0]
        errors.append(slow / rigid - 1)
    assert abs(errors[1]) < 1e-7
    assert errors[0] / errors[1] == pytest.approx(100.0, rel=0.1)  # O(1/k) convergence
