"""Tests of the model layer: loading, naming, parameters, shapes, outputs, inputs, trajectories.

What is checked against what
----------------------------
* ``examples/balloon.toml`` against the paper's Table 1 and docs/design.md §4: the exact state,
  output and parameter names, the default state (θ1,0 = 170°, θ2,0 = −170°) and parameters,
  and the TitopWarning for the balloon inertia (principal moments 3, 5, 17: 3 + 5 < 17).
* The same model read from TOML, JSON, YAML, a dict and built with the Python ``System``
  builder: equal ``Model`` objects and identical dynamics; ``System.from_dict(d).to_dict()``
  reloads to an equal model.
* Immutability of the compiled ``Model`` (attributes and reachable arrays).
* Parameters: a changed value equals a model file carrying that value; a parameter used in
  several fields changes all of them (closed-form pendulum); dict and array forms agree;
  unknown names and bad shapes raise ``UnknownNameError`` / ``ShapeError``.
* Runtime shapes of ``x``, ``u`` and ``x0`` raise ``ShapeError`` naming the expected shape.
* Every output type against closed forms of a simple pendulum (tip position, velocity,
  acceleration = tangential + centripetal, angular velocity, attitude, q, qd, qdd).
* Wrench inputs against closed-form Newton–Euler of a free rigid body pushed at an offset
  point (body and inertial frames), and an actuated joint against ``θ̈ = u / (m L²)``.
* ``Trajectory`` name lookup (``_`` and dotted alias) and ``plot``.
"""

from __future__ import annotations

import copy
import json
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
import yaml

import titop_lpv as tl

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

if str(Path(__file__).resolve().parent) not in sys.path:
    sys.path.insert(0, str(Path(__file__).resolve().parent))

import models

ROOT = Path(__file__).resolve().parents[1]
BALLOON_TOML = ROOT / "examples" / "balloon.toml"

BALLOON_STATES = (
    "balloon_vx", "balloon_vy", "balloon_vz", "balloon_wx", "balloon_wy", "balloon_wz",
    "balloon_x", "balloon_y", "balloon_z", "balloon_phi", "balloon_theta", "balloon_psi",
    "slider_q", "slider_qd", "pendulum1_q", "pendulum1_qd", "pendulum2_q", "pendulum2_qd",
)  # fmt: skip
BALLOON_OUTPUTS = (
    "balloon_x", "balloon_y", "balloon_z", "balloon_phi", "balloon_theta", "balloon_psi",
    "slider_q", "pendulum1_q", "pendulum2_q",
)  # fmt: skip
BALLOON_PARAMS = {"k": 50.0, "ds": 5.0, "dp1": 0.5, "dp2": 0.5}

# the balloon inertia violates the triangle inequality: expected, silenced where not tested
quiet = pytest.mark.filterwarnings("ignore::titop_lpv.TitopWarning")


# --------------------------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------------------------
def _load_quiet(source):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tl.TitopWarning)
        return tl.load_model(source)


def _balloon_dict() -> dict:
    with open(BALLOON_TOML, "rb") as f:
        return tomllib.load(f)


def _balloon_builder() -> tl.System:
    s = tl.System("balloon", gravity=(0.0, -9.81, 0.0), euler="213")
    s.parameter("k", 50.0, min=25.0, max=100.0, unit="N/m", description="slider stiffness")
    s.parameter("ds", 5.0, unit="N s/m", description="slider damping")
    s.parameter("dp1", 0.5, unit="N m s/rad", description="pendulum 1 damping")
    s.parameter("dp2", 0.5, unit="N m s/rad", description="pendulum 2 damping")
    s.body("balloon", tl.Free(), mass=10.0,
           inertia=[[5.0, 0.0, 0.0], [0.0, 10.0, -7.0], [0.0, -7.0, 10.0]],
           com=[0.0, 0.0, 0.0], ports={"C": [0.0, -2.0, 0.0]})
    s.body("slider", tl.Prismatic(axis=(1.0, 0.0, -1.0), stiffness="k", damping="ds",
                                  actuated=True),
           parent="balloon.C", mass=1.0)
    s.body("pendulum1", tl.Revolute(axis=(0.0, 0.0, 1.0), damping="dp1",
                                    q0=2.9670597283903604),
           parent="slider", mass=2.0, com=[0.0, -1.2, 0.0], ports={"tip": [0.0, -1.2, 0.0]})
    s.body("pendulum2", tl.Revolute(axis=(0.0, 0.0, 1.0), damping="dp2",
                                    q0=-2.9670597283903604),
           parent="pendulum1.tip", mass=3.0, com=[0.0, -1.6, 0.0])
    s.buoyancy("balloon", "com")
    return s


def _generic_balloon_state(model: tl.Model, seed: int = 3) -> np.ndarray:
    """A seeded state away from rest (spring stretched, every rate nonzero)."""
    rng = np.random.default_rng(seed)
    x = rng.uniform(-0.5, 0.5, model.n_states)
    x[model.state_index("pendulum1_q")] = 2.6
    x[model.state_index("slider_q")] = 0.3
    return x


@pytest.fixture(scope="module")
def balloon_model() -> tl.Model:
    return _load_quiet(BALLOON_TOML)


# --------------------------------------------------------------------------------------------
# the balloon example file
# --------------------------------------------------------------------------------------------
def test_balloon_file_warns_about_its_inertia_naming_the_body():
    with pytest.warns(tl.TitopWarning, match="triangle inequality") as rec:
        tl.load_model(BALLOON_TOML)
    msgs = [str(w.message) for w in rec if issubclass(w.category, tl.TitopWarning)]
    assert any("'balloon'" in m and "17" in m for m in msgs), msgs


def test_balloon_names_and_defaults(balloon_model):
    m = balloon_model
    assert m.state_names == BALLOON_STATES
    assert m.output_names == BALLOON_OUTPUTS
    assert m.input_names == ("slider_tau",)
    assert m.param_names == ("k", "ds", "dp1", "dp2")
    assert m.body_names == ("balloon", "slider", "pendulum1", "pendulum2")
    assert m.floating_base
    assert (m.n_states, m.n_inputs, m.n_outputs) == (18, 1, 9)
    assert m.default_params() == BALLOON_PARAMS
    x0 = m.default_state()
    expected = np.zeros(18)
    expected[BALLOON_STATES.index("pendulum1_q")] = np.deg2rad(170.0)
    expected[BALLOON_STATES.index("pendulum2_q")] = np.deg2rad(-170.0)
    np.testing.assert_allclose(x0, expected, rtol=0, atol=1e-15)
    assert m.state_index("pendulum2_q") == 16
    assert m.state_index("pendulum2.q") == 16
    # default outputs: the configuration of the balloon (position, Euler angles, joints)
    y = m.outputs(0.0, x0)
    np.testing.assert_allclose(y, [0, 0, 0, 0, 0, 0, 0, np.deg2rad(170), np.deg2rad(-170)],
                               rtol=0, atol=1e-15)


# --------------------------------------------------------------------------------------------
# every way of describing the same model
# --------------------------------------------------------------------------------------------
def _sources(tmp_path: Path) -> dict:
    d = _balloon_dict()
    json_path = tmp_path / "balloon.json"
    json_path.write_text(json.dumps(d), encoding="utf-8")
    yaml_path = tmp_path / "balloon.yaml"
    yaml_path.write_text(yaml.safe_dump(d), encoding="utf-8")
    return {
        "toml": BALLOON_TOML,
        "toml_str": str(BALLOON_TOML),
        "json": json_path,
        "yaml": yaml_path,
        "dict": copy.deepcopy(d),
        "builder": _balloon_builder(),
        "roundtrip": tl.System.from_dict(copy.deepcopy(d)).to_dict(),
    }


@quiet
def test_same_model_from_every_source(tmp_path, balloon_model):
    ref = balloon_model
    x = _generic_balloon_state(ref)
    f_ref = ref.dynamics(0.0, x)
    for label, source in _sources(tmp_path).items():
        m = tl.load_model(source)
        assert m == ref, label
        assert hash(m) == hash(ref), label
        assert m.state_names == ref.state_names, label
        assert m.default_params() == ref.default_params(), label
        np.testing.assert_array_equal(m.default_state(), ref.default_state(), err_msg=label)
        np.testing.assert_array_equal(m.dynamics(0.0, x), f_ref, err_msg=label)
        np.testing.assert_array_equal(m.dynamics(0.0, m.default_state()),
                                      ref.dynamics(0.0, ref.default_state()), err_msg=label)
    # tests/models.balloon() is the same physics without the parameter metadata
    m = tl.load_model(models.balloon())
    np.testing.assert_allclose(m.dynamics(0.0, x), f_ref, rtol=1e-14, atol=1e-14)


@quiet
def test_to_dict_round_trip():
    d = _balloon_dict()
    m = tl.load_model(d)
    again = tl.load_model(m.to_dict())
    assert again == m
    twice = tl.System.from_dict(tl.System.from_dict(d).to_dict()).to_dict()
    assert twice == tl.System.from_dict(d).to_dict()
    assert tl.load_model(twice) == m
    # the builder and the file give the same schema dict
    assert _balloon_builder().to_dict() == tl.System.from_dict(d).to_dict()


def test_models_with_different_physics_are_not_equal():
    a = models.pendulum(length=1.0)
    b = models.pendulum(length=1.5)
    assert tl.load_model(a) != tl.load_model(b)
    assert tl.load_model(a) == tl.load_model(copy.deepcopy(a))


def test_builder_accepts_lists_and_arrays_in_joints():
    """The builder's own docstring writes ``Revolute(axis=[0, 0, 1], ...)``."""
    def build(axis, position0, rotation):
        s = tl.System("chain", gravity=[0.0, -9.81, 0.0])
        s.body("base", tl.Free(position0=position0), mass=2.0, inertia=np.diag([1.0, 1.0, 1.5]))
        s.body("arm", tl.Revolute(axis=axis, rotation=rotation, q0=0.3), parent="base",
               mass=1.0, com=[0.0, -1.0, 0.0])
        return s.compile()

    ref = build((0.0, 0.0, 1.0), (1.0, 2.0, 3.0), ((1.0, 0.0, 0.0), (0.0, 1.0, 0.0),
                                                    (0.0, 0.0, 1.0)))
    as_lists = build([0.0, 0.0, 1.0], [1.0, 2.0, 3.0], np.eye(3).tolist())
    as_arrays = build(np.array([0.0, 0.0, 1.0]), np.array([1.0, 2.0, 3.0]), np.eye(3))
    x = ref.default_state()
    for m in (as_lists, as_arrays):
        np.testing.assert_array_equal(m.dynamics(0.0, x), ref.dynamics(0.0, x))


# --------------------------------------------------------------------------------------------
# immutability
# --------------------------------------------------------------------------------------------
def test_model_attributes_cannot_be_set(balloon_model):
    m = balloon_model
    for attr, value in (("name", "other"), ("state_names", ()), ("euler", "321"),
                        ("brand_new", 1)):
        with pytest.raises(AttributeError):
            setattr(m, attr, value)
    assert m.name == "balloon" and m.euler == "213" and not hasattr(m, "brand_new")


def test_model_attributes_cannot_be_deleted():
    m = _load_quiet(models.balloon())
    with pytest.raises(AttributeError):
        del m.name
    assert m.name == "balloon"


def test_model_arrays_are_read_only(balloon_model):
    m = balloon_model
    for attr in ("parent", "kind", "q_index", "qd_index", "tau_column"):
        arr = getattr(m, attr)
        assert isinstance(arr, np.ndarray)
        with pytest.raises(ValueError, match="read-only"):
            arr[...] = 0


def test_resolved_physics_cannot_corrupt_the_model():
    """``Model.physics()`` hands out the cached default data: it must not be writable."""
    m = _load_quiet(models.balloon())
    x = _generic_balloon_state(m)
    before = m.dynamics(0.0, x)
    ph = m.physics()
    writable = [k for k, v in vars(ph).items() if isinstance(v, np.ndarray) and v.flags.writeable]
    for k in writable:
        try:
            getattr(ph, k)[...] *= 2.0
        except ValueError:
            pass
    np.testing.assert_array_equal(m.dynamics(0.0, x), before)
    assert not writable, f"writable cached arrays: {writable}"


def test_returned_containers_are_copies(balloon_model):
    m = balloon_model
    p = m.default_params()
    p["k"] = 1.0
    x0 = m.default_state()
    x0[:] = 7.0
    d = m.to_dict()
    d["bodies"][0]["mass"] = 99.0
    assert m.default_params()["k"] == 50.0
    assert m.default_state()[BALLOON_STATES.index("pendulum1_q")] == pytest.approx(
        np.deg2rad(170.0), abs=1e-15)
    assert m.to_dict()["bodies"][0]["mass"] == 10.0


# --------------------------------------------------------------------------------------------
# parameters
# --------------------------------------------------------------------------------------------
@quiet
def test_parameter_change_equals_model_file_with_that_value(balloon_model):
    m = balloon_model
    x = _generic_balloon_state(m)
    f_default = m.dynamics(0.0, x)
    f_k80 = m.dynamics(0.0, x, None, {"k": 80.0})
    # the spring force changes by 30 N/m * 0.3 m = 9 N on the 6 kg chain: O(1) m/s²
    assert np.max(np.abs(f_k80 - f_default)) > 0.5
    d = _balloon_dict()
    d["parameters"]["k"]["value"] = 80.0
    m80 = tl.load_model(d)
    assert m80 != m
    assert m80.default_params()["k"] == 80.0
    np.testing.assert_allclose(f_k80, m80.dynamics(0.0, x), rtol=1e-14, atol=1e-14)
    # array form, in param_names order
    p = np.array([80.0, 5.0, 0.5, 0.5])
    np.testing.assert_allclose(m.dynamics(0.0, x, None, p), f_k80, rtol=1e-14, atol=1e-14)
    # an empty dict and None are the defaults
    np.testing.assert_array_equal(m.dynamics(0.0, x, None, {}), f_default)
    # only k changed: the damping-free kinematic rows are untouched
    np.testing.assert_array_equal(f_k80[6:12], f_default[6:12])


def test_batched_params_broadcast_against_one_state(balloon_model):
    m = balloon_model
    x = _generic_balloon_state(m)
    P = np.array([[50.0, 5.0, 0.5, 0.5], [80.0, 2.0, 0.1, 0.9]])
    rows = [m.dynamics(0.0, x, None, p) for p in P]
    np.testing.assert_allclose(m.dynamics(0.0, np.stack([x, x]), None, P), rows,
                               rtol=1e-14, atol=1e-14)
    # one state, a batch of parameters
    np.testing.assert_allclose(m.dynamics(0.0, x, None, P), rows, rtol=1e-14, atol=1e-14)


def _param_pendulum() -> dict:
    """Pendulum whose rod length appears twice: in ``com`` and in the port ``tip``."""
    return {
        "name": "param_pendulum",
        "gravity": [0.0, -9.81, 0.0],
        "euler": "213",
        "parameters": {"ly": {"value": -1.0, "unit": "m"}, "m": 2.0},
        "bodies": [{
            "name": "arm",
            "joint": {"type": "revolute", "axis": [0.0, 0.0, 1.0], "actuated": True},
            "mass": "m",
            "com": [0.0, "ly", 0.0],
            "ports": {"tip": [0.0, "ly", 0.0]},
        }],
        "outputs": [{"type": "position", "body": "arm", "point": "tip"},
                    {"type": "position", "body": "arm", "point": "com"},
                    {"type": "qdd", "body": "arm"}],
    }


def test_parameter_used_in_several_fields_changes_all_of_them():
    m = tl.load_model(_param_pendulum())
    assert m.param_names == ("ly", "m")
    assert m.output_names == ("arm_tip_x", "arm_tip_y", "arm_tip_z", "arm_com_x", "arm_com_y",
                              "arm_com_z", "arm_qdd")
    th, u, g = 0.7, 3.0, 9.81
    x = np.array([th, 0.0])
    for L, mass in ((1.0, 2.0), (2.0, 2.0), (2.5, 4.0)):
        params = {"ly": -L, "m": mass}
        qdd = (-mass * g * L * np.sin(th) + u) / (mass * L**2)
        tip = [L * np.sin(th), -L * np.cos(th), 0.0]
        y = m.outputs(0.0, x, [u], params)
        np.testing.assert_allclose(y, [*tip, *tip, qdd], rtol=1e-13, atol=1e-14)
        np.testing.assert_allclose(m.dynamics(0.0, x, [u], params), [0.0, qdd],
                                   rtol=1e-13, atol=1e-14)
        np.testing.assert_allclose(m.position(x, "arm", "tip", params=params), tip,
                                   rtol=1e-13, atol=1e-14)
        pv = np.array([-L, mass])
        np.testing.assert_allclose(m.outputs(0.0, x, [u], pv), y, rtol=1e-14, atol=1e-14)


def test_unknown_parameter_name(balloon_model):
    x = balloon_model.default_state()
    with pytest.raises(tl.UnknownNameError, match="stiffness_k"):
        balloon_model.dynamics(0.0, x, None, {"stiffness_k": 80.0})
    with pytest.raises(KeyError):  # UnknownNameError is a KeyError
        balloon_model.outputs(0.0, x, None, {"kk": 1.0})
    with pytest.raises(tl.UnknownNameError, match="kk"):
        balloon_model.default_state({"kk": 1.0})


@pytest.mark.parametrize("shape", [(3,), (5,), (), (4, 3)])
def test_wrong_shape_params(balloon_model, shape):
    x = balloon_model.default_state()
    with pytest.raises(tl.ShapeError, match=r"\(\.\.\., 4\)"):
        balloon_model.dynamics(0.0, x, None, np.ones(shape))


# --------------------------------------------------------------------------------------------
# runtime shapes
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("shape", [(17,), (19,), (), (2, 17), (18, 2)])
def test_wrong_state_shape(balloon_model, shape):
    with pytest.raises(tl.ShapeError, match=r"\(\.\.\., 18\)"):
        balloon_model.dynamics(0.0, np.zeros(shape))
    with pytest.raises(tl.ShapeError, match=r"\(\.\.\., 18\)"):
        balloon_model.outputs(0.0, np.zeros(shape))


def test_wrong_input_shape():
    d = models.pendulum()
    d["bodies"][0]["joint"]["actuated"] = True
    m = tl.load_model(d)
    assert m.input_names == ("pendulum_tau",)
    x = np.array([0.3, 0.0])
    for u in (np.zeros(2), np.zeros((3, 2)), 1.0):
        with pytest.raises(tl.ShapeError, match=r"\(\.\.\., 1\)"):
            m.dynamics(0.0, x, u)
    with pytest.raises(tl.ShapeError, match=r"\(1,\)"):
        tl.simulate(m, (0.0, 0.1), u=np.zeros(3))
    # a model without inputs rejects a nonempty u
    with pytest.raises(tl.ShapeError, match=r"\(\.\.\., 0\)"):
        tl.load_model(models.pendulum()).dynamics(0.0, x, np.zeros(1))


def test_simulate_rejects_bad_x0(balloon_model):
    for x0 in (np.zeros(5), np.zeros((2, 18))):
        with pytest.raises(tl.ShapeError, match=r"\(18,\)"):
            tl.simulate(balloon_model, (0.0, 1.0), x0=x0, n_points=3)


# --------------------------------------------------------------------------------------------
# outputs of every type, against the closed-form pendulum
# --------------------------------------------------------------------------------------------
L_PEND, M_PEND, G = 1.3, 2.0, 9.81


def _sensor_pendulum() -> dict:
    return {
        "name": "sensors",
        "gravity": [0.0, -G, 0.0],
        "euler": "213",
        "bodies": [{
            "name": "arm",
            "joint": {"type": "revolute", "axis": [0.0, 0.0, 1.0]},
            "mass": M_PEND,
            "com": [0.0, -L_PEND, 0.0],
            "ports": {"tip": [0.0, -L_PEND, 0.0]},
        }],
        "outputs": [
            {"type": "q", "body": "arm"},
            {"type": "qd", "body": "arm"},
            {"type": "qdd", "body": "arm"},
            {"type": "position", "body": "arm", "point": "tip"},
            {"type": "attitude", "body": "arm"},
            {"type": "velocity", "body": "arm", "point": "tip"},
            {"type": "velocity", "body": "arm", "point": "tip", "frame": "body", "name": "tipb"},
            {"type": "angular_velocity", "body": "arm"},
            {"type": "angular_velocity", "body": "arm", "frame": "body", "name": "armb"},
            {"type": "acceleration", "body": "arm", "point": "tip"},
            {"type": "acceleration", "body": "arm", "point": "tip", "frame": "body",
             "name": "tipb"},
            {"type": "position", "body": "arm"},
            {"type": "qd", "body": "arm", "name": "rate"},
        ],
    }


SENSOR_NAMES = (
    "arm_q", "arm_qd", "arm_qdd",
    "arm_tip_x", "arm_tip_y", "arm_tip_z",
    "arm_phi", "arm_theta", "arm_psi",
    "arm_tip_vx", "arm_tip_vy", "arm_tip_vz",
    "tipb_vx", "tipb_vy", "tipb_vz",
    "arm_wx", "arm_wy", "arm_wz",
    "armb_wx", "armb_wy", "armb_wz",
    "arm_tip_ax", "arm_tip_ay", "arm_tip_az",
    "tipb_ax", "tipb_ay", "tipb_az",
    "arm_x", "arm_y", "arm_z",
    "rate",
)  # fmt: skip


def _pendulum_closed_form(th: np.ndarray, thd: np.ndarray) -> np.ndarray:
    L = L_PEND
    s, c, z = np.sin(th), np.cos(th), np.zeros_like(th)
    thdd = -(G / L) * s
    r = np.stack([L * s, -L * c, z], -1)                     # tip, inertial
    t = np.stack([L * c, L * s, z], -1)                      # e_z × r
    v = thd[..., None] * t
    a = thdd[..., None] * t - (thd**2)[..., None] * r        # tangential + centripetal
    cols = [
        th[..., None], thd[..., None], thdd[..., None],
        r,
        np.stack([th, z, z], -1),                            # "213": P = Rz(φ), φ = θ
        v,
        np.stack([L * thd, z, z], -1),                       # body frame: θ̇ e_z × (0, −L, 0)
        np.stack([z, z, thd], -1),
        np.stack([z, z, thd], -1),
        a,
        np.stack([L * thdd, L * thd**2, z], -1),
        np.zeros((*th.shape, 3)),                            # the hinge stays at the origin
        thd[..., None],
    ]
    return np.concatenate(cols, -1)


def test_output_names_of_every_type():
    m = tl.load_model(_sensor_pendulum())
    assert m.output_names == SENSOR_NAMES
    assert m.n_outputs == len(SENSOR_NAMES)
    units = m.units()
    assert units["arm_tip_ax"] == "m/s^2" and units["arm_qdd"] == "rad/s^2"
    assert units["armb_wz"] == "rad/s" and units["tipb_vx"] == "m/s"
    assert m.output_index("arm.tip_x") == SENSOR_NAMES.index("arm_tip_x")


def test_outputs_match_pendulum_closed_forms():
    m = tl.load_model(_sensor_pendulum())
    rng = np.random.default_rng(7)
    th = rng.uniform(-3.0, 3.0, 25)
    thd = rng.uniform(-2.0, 2.0, 25)
    x = np.stack([th, thd], -1)
    y = m.outputs(0.0, x)
    assert y.shape == (25, len(SENSOR_NAMES))
    np.testing.assert_allclose(y, _pendulum_closed_form(th, thd), rtol=1e-12, atol=1e-12)
    # single state, and qdd is consistent with the dynamics
    y1 = m.outputs(0.0, x[4])
    np.testing.assert_allclose(y1, y[4], rtol=1e-14, atol=1e-14)
    np.testing.assert_allclose(m.dynamics(0.0, x)[:, 1], y[:, 2], rtol=1e-14, atol=1e-14)


# --------------------------------------------------------------------------------------------
# wrench inputs and actuated joints
# --------------------------------------------------------------------------------------------
M_BODY = 2.5
I_BODY = np.array([[1.5, 0.1, -0.05], [0.1, 2.0, 0.2], [-0.05, 0.2, 3.0]])
P_PORT = np.array([0.3, -0.5, 0.2])
R_PORT = np.array([-0.4, 0.1, 0.6])


def _pushed_body() -> dict:
    return {
        "name": "pushed",
        "gravity": [0.0, 0.0, 0.0],
        "euler": "321",
        "bodies": [{
            "name": "b",
            "joint": {"type": "free"},
            "mass": M_BODY,
            "inertia": I_BODY.tolist(),
            "ports": {"p": P_PORT.tolist(), "r": R_PORT.tolist()},
        }],
        "inputs": [
            {"body": "b", "point": "p", "frame": "body"},
            {"body": "b", "point": "r", "frame": "inertial"},
            {"body": "b"},
        ],
    }


def _newton_euler(v, w, F, T):
    """Body-frame twist derivative of a rigid body (centre of mass at the origin)."""
    vd = F / M_BODY - np.cross(w, v)
    wd = np.linalg.solve(I_BODY, T - np.cross(w, I_BODY @ w))
    return np.concatenate([vd, wd])


def test_wrench_input_names():
    m = tl.load_model(_pushed_body())
    comps = ("Fx", "Fy", "Fz", "Tx", "Ty", "Tz")
    assert m.input_names == (
        *(f"b_p_{c}" for c in comps), *(f"b_r_{c}" for c in comps), *(f"b_{c}" for c in comps)
    )
    assert m.units()["b_p_Fx"] == "N" and m.units()["b_r_Tz"] == "N m"


def test_wrench_inputs_match_newton_euler():
    m = tl.load_model(_pushed_body())
    rng = np.random.default_rng(11)
    worst = 0.0
    for _ in range(5):
        x = np.zeros(12)
        x[:6] = rng.uniform(-1.0, 1.0, 6)           # body-frame twist
        x[6:9] = rng.uniform(-2.0, 2.0, 3)
        x[9:12] = rng.uniform(-1.0, 1.0, 3)         # φ, θ, ψ away from gimbal lock
        v, w = x[:3], x[3:6]
        P = m.rotation(x, "b")                      # body -> inertial
        Fp, Tp, Fr, Tr, Fo, To = rng.uniform(-5.0, 5.0, (6, 3))
        free = _newton_euler(v, w, np.zeros(3), np.zeros(3))
        np.testing.assert_allclose(m.dynamics(0.0, x)[:6], free, rtol=1e-12, atol=1e-12)
        cases = {
            # force at p and torque, body components
            0: (Fp, Tp + np.cross(P_PORT, Fp)),
            # force at r and torque, inertial components
            6: (P.T @ Fr, P.T @ Tr + np.cross(R_PORT, P.T @ Fr)),
            # at the origin, body frame (the default)
            12: (Fo, To),
        }
        wrenches = {0: (Fp, Tp), 6: (Fr, Tr), 12: (Fo, To)}
        u_all = np.zeros(18)
        F_all, T_all = np.zeros(3), np.zeros(3)
        for col, (F_body, T_body) in cases.items():
            u = np.zeros(18)
            u[col:col + 3], u[col + 3:col + 6] = wrenches[col]
            u_all += u
            F_all += F_body
            T_all += T_body
            got = m.dynamics(0.0, x, u)[:6]
            expect = _newton_euler(v, w, F_body, T_body)
            np.testing.assert_allclose(got, expect, rtol=1e-12, atol=1e-12)
            worst = max(worst, float(np.max(np.abs(got - expect))))
        np.testing.assert_allclose(m.dynamics(0.0, x, u_all)[:6],
                                   _newton_euler(v, w, F_all, T_all), rtol=1e-12, atol=1e-12)
    assert worst < 1e-12


def test_actuated_joint_adds_u_over_J():
    L, mass, g = 1.4, 2.0, 9.81
    d = models.pendulum(length=L, mass=mass, g=g, damping=0.3)
    d["bodies"][0]["joint"]["actuated"] = True
    m = tl.load_model(d)
    assert m.input_names == ("pendulum_tau",)
    assert m.units()["pendulum_tau"] == "N m"
    J = mass * L**2
    rng = np.random.default_rng(5)
    x = np.stack([rng.uniform(-3, 3, 8), rng.uniform(-2, 2, 8)], -1)
    u = rng.uniform(-10, 10, (8, 1))
    qdd = m.dynamics(0.0, x, u)[:, 1]
    expect = (-mass * g * L * np.sin(x[:, 0]) - 0.3 * x[:, 1] + u[:, 0]) / J
    np.testing.assert_allclose(qdd, expect, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(qdd - m.dynamics(0.0, x)[:, 1], u[:, 0] / J, rtol=1e-12,
                               atol=1e-12)


def test_actuated_prismatic_adds_u_over_total_mass():
    d = models.spring_pendulum(length=1.0, mass=2.0, carriage_mass=1.0, stiffness=50.0)
    d["bodies"][0]["joint"]["actuated"] = True
    m = tl.load_model(d)
    assert m.input_names == ("carriage_tau",)
    assert m.units()["carriage_tau"] == "N"
    # pendulum hanging straight down at rest: the carriage carries both masses
    x = np.zeros(4)
    du = m.dynamics(0.0, x, [6.0]) - m.dynamics(0.0, x)
    np.testing.assert_allclose(du, [0.0, 6.0 / 3.0, 0.0, 0.0], rtol=1e-13, atol=1e-13)


# --------------------------------------------------------------------------------------------
# trajectories
# --------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def balloon_traj(balloon_model):
    return tl.simulate(balloon_model, (0.0, 1.0), n_points=11)


def test_trajectory_lookup(balloon_traj, balloon_model):
    tr = balloon_traj
    assert tr.t.shape == (11,) and tr.x.shape == (11, 18) and tr.y.shape == (11, 9)
    np.testing.assert_allclose(tr.t, np.linspace(0.0, 1.0, 11), rtol=0, atol=1e-15)
    np.testing.assert_array_equal(tr["pendulum1_q"], tr["pendulum1.q"])
    np.testing.assert_array_equal(tr["pendulum1_q"], tr.x[:, 14])
    np.testing.assert_array_equal(tr.x[0], balloon_model.default_state())
    assert tr["pendulum1_q"][0] == pytest.approx(np.deg2rad(170.0), abs=1e-15)
    # the pendulum starts almost inverted and falls: it must have moved after 1 s
    assert abs(tr["pendulum1_q"][-1] - tr["pendulum1_q"][0]) > 1e-3
    np.testing.assert_array_equal(tr["balloon_x"], tr.y[:, 0])
    assert tr.params == BALLOON_PARAMS
    with pytest.raises(tl.UnknownNameError, match="pendulum3_q"):
        tr["pendulum3_q"]
    with pytest.raises(KeyError):
        tr["nonsense"]


@pytest.mark.parametrize("dotted", [False, True], ids=["underscore", "dotted"])
def test_trajectory_plot(balloon_traj, dotted):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.figure import Figure

    names = ["balloon_x", "balloon_y", "balloon_z", "balloon_phi", "balloon_theta",
             "balloon_psi", "slider_q", "pendulum1_q", "pendulum2_q"]
    if dotted:  # the issue's own call: traj.plot(["balloon.x", ..., "pendulum2.q"])
        names = [n.replace("_", ".") for n in names]
    fig = balloon_traj.plot(names)
    try:
        assert isinstance(fig, Figure)
        visible = [ax for ax in fig.axes if ax.get_visible()]
        assert len(visible) == 9
        for ax, name in zip(visible, names):
            assert len(ax.get_lines()) == 1
            np.testing.assert_array_equal(ax.get_lines()[0].get_ydata(), balloon_traj[name])
        with pytest.raises(tl.UnknownNameError):
            balloon_traj.plot(["balloon_x", "ghost_q"])
    finally:
        plt.close("all")
