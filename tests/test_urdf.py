"""URDF import (``tl.load_model("robot.urdf")``) against Pinocchio's own URDF parser.

The robots of the ``example-robot-data`` package are read twice: by ``titop_lpv`` (links →
bodies, joints → revolute/prismatic/weld, origins → ports and joint rotations, inertials →
CoM and rotated inertia, damping) and by ``pinocchio.buildModelFromUrdf`` (with a
``JointModelFreeFlyer`` root for the floating base). At random states and joint torques the
accelerations agree to 1e-9 relative (max-norm over the generalized accelerations): the
forward dynamics of the two translations are the same. Pinocchio's ``aba`` ignores the URDF
damping, so its torque is ``u − damping · q̇`` with Pinocchio's own parsed damping.

State mapping: a 1-d.o.f. joint ``j`` of Pinocchio is the state ``<body>_q`` of the body
``model.urdf_joints[j]`` (a ``continuous`` joint's ``q`` is ``(cos θ, sin θ)`` in Pinocchio);
the free root ``b``: Pinocchio's ``q = [x, y, z, quaternion]`` is ``b_x b_y b_z`` and the
attitude ``P_{b/i}`` of our Euler angles, its ``v`` (the body-frame twist of the root's
origin) is ``b_vx … b_wz``, and so is its acceleration ``a``.

The refusals (planar, floating and mimic joints, cycles, two roots, bad numbers, a DOCTYPE
with entities) and the name rules (sanitising, collisions, joint-name lookup) are checked on
small hand-written URDF strings.
"""

from __future__ import annotations

import importlib.metadata
import sys
from pathlib import Path

import numpy as np
import pytest

import titop_lpv as tl
from titop_lpv.exceptions import ModelError, ModelFileError, TitopWarning
from titop_lpv.model.files import URDFModel
from titop_lpv.model.urdf import parse_urdf, rpy_matrix, sanitize

pin = pytest.importorskip("pinocchio")
if str(Path(__file__).resolve().parent) not in sys.path:
    sys.path.insert(0, str(Path(__file__).resolve().parent))

from peer_pinocchio import euler_to_dcm  # noqa: E402


def robots_dir() -> Path | None:
    """The ``robots`` directory of the installed ``example-robot-data`` package, or None."""
    try:
        files = importlib.metadata.files("example-robot-data") or []
    except importlib.metadata.PackageNotFoundError:
        return None
    for f in files:
        parts = Path(str(f)).parts
        if "example-robot-data" in parts and parts[-1].endswith(".urdf"):
            path = Path(f.locate())
            return path.parents[len(parts) - parts.index("example-robot-data") - 3]
    return None


ROBOTS_DIR = robots_dir()
needs_robots = pytest.mark.skipif(ROBOTS_DIR is None,
                                  reason="example-robot-data is not installed")
# robot file, mimic option (Pinocchio's parser makes mimic joints independent by default)
ROBOTS = [
    ("ur_description/urdf/ur5_robot.urdf", "refuse"),
    ("panda_description/urdf/panda.urdf", "independent"),
    ("double_pendulum_description/urdf/double_pendulum.urdf", "refuse"),
    ("double_pendulum_description/urdf/double_pendulum_continuous.urdf", "refuse"),
    ("solo_description/robots/solo12.urdf", "refuse"),
    ("talos_data/robots/talos_left_arm.urdf", "independent"),
    ("xarm_description/urdf/xarm7.urdf", "refuse"),
    ("z1_description/urdf/z1.urdf", "refuse"),
    ("so_arm_description/urdf/so100.urdf", "refuse"),
    ("anymal_b_simple_description/robots/anymal.urdf", "refuse"),
    # six inertias of rounding noise (ixx = -5.42101e-20: half an ulp of m |PB|²)
    ("icub_description/robots/icub_reduced.urdf", "refuse"),
]
_TWIST = ("vx", "vy", "vz", "wx", "wy", "wz")


def _pinocchio_state(model: URDFModel, pm, x: np.ndarray, u: np.ndarray):
    """Pinocchio's ``q, v, tau`` of our state ``x`` and inputs ``u`` (damping included)."""
    q, v, tau = np.zeros(pm.nq), np.zeros(pm.nv), np.zeros(pm.nv)
    for j in range(1, pm.njoints):
        jm = pm.joints[j]
        if jm.shortname() == "JointModelFreeFlyer":
            b = model.body_names[0]
            s = {k: x[model.state_index(f"{b}_{k}")] for k in
                 ("x", "y", "z", "phi", "theta", "psi", *_TWIST)}
            quat = pin.Quaternion(euler_to_dcm(model.euler, [s["phi"], s["theta"], s["psi"]]))
            q[jm.idx_q:jm.idx_q + 7] = [s["x"], s["y"], s["z"], *quat.coeffs()]
            v[jm.idx_v:jm.idx_v + 6] = [s[k] for k in _TWIST]
            continue
        body = model.urdf_joints[pm.names[j]]
        angle, rate = x[model.state_index(f"{body}_q")], x[model.state_index(f"{body}_qd")]
        q[jm.idx_q:jm.idx_q + jm.nq] = [np.cos(angle), np.sin(angle)] if jm.nq == 2 else angle
        v[jm.idx_v] = rate
        tau[jm.idx_v] = u[model.input_index(f"{body}_tau")] - pm.damping[jm.idx_v] * rate
    return q, v, tau


def _our_acceleration(model: URDFModel, pm, xdot: np.ndarray) -> np.ndarray:
    a = np.zeros(pm.nv)
    for j in range(1, pm.njoints):
        jm = pm.joints[j]
        if jm.shortname() == "JointModelFreeFlyer":
            b = model.body_names[0]
            a[jm.idx_v:jm.idx_v + 6] = [xdot[model.state_index(f"{b}_{k}")] for k in _TWIST]
        else:
            a[jm.idx_v] = xdot[model.state_index(f"{model.urdf_joints[pm.names[j]]}_qd")]
    return a


def _random_state(model: URDFModel, rng: np.random.Generator) -> np.ndarray:
    x = np.zeros(model.n_states)
    for i, name in enumerate(model.state_names):
        kind = name.rsplit("_", 1)[-1]
        x[i] = {"q": rng.uniform(-np.pi, np.pi), "theta": rng.uniform(-1.2, 1.2),
                "phi": rng.uniform(-np.pi, np.pi), "psi": rng.uniform(-np.pi, np.pi)
                }.get(kind, rng.normal())
    return x


def forward_dynamics_error(model: URDFModel, pm, seed: int = 0, n: int = 4) -> float:
    """Largest relative difference of the accelerations over ``n`` random states."""
    rng = np.random.default_rng(seed)
    data = pm.createData()
    worst = 0.0
    for _ in range(n):
        x, u = _random_state(model, rng), rng.normal(scale=5.0, size=model.n_inputs)
        q, v, tau = _pinocchio_state(model, pm, x, u)
        ref = pin.aba(pm, data, q, v, tau)
        ours = _our_acceleration(model, pm, model.dynamics(0.0, x, u))
        worst = max(worst, np.max(np.abs(ours - ref)) / np.max(np.abs(ref)))
    return worst


@needs_robots
@pytest.mark.filterwarnings("ignore::titop_lpv.TitopWarning")  # URDF inertias, name clashes
@pytest.mark.parametrize("floating", [False, True], ids=["fixed", "floating"])
@pytest.mark.parametrize(("robot", "mimic"), ROBOTS, ids=[Path(r).stem for r, _ in ROBOTS])
def test_forward_dynamics_matches_pinocchio(robot: str, mimic: str, floating: bool) -> None:
    path = ROBOTS_DIR / robot
    model = tl.load_model(path, floating=floating, mimic=mimic)
    assert isinstance(model, URDFModel)
    pm = (pin.buildModelFromUrdf(str(path), pin.JointModelFreeFlyer()) if floating
          else pin.buildModelFromUrdf(str(path)))
    assert len(tl.velocity_names(model)) == pm.nv
    assert model.to_dict()["gravity"] == list(pm.gravity.linear)
    assert forward_dynamics_error(model, pm) <= 1e-9


@needs_robots
def test_merged_tool_frame_is_pinocchio_frame() -> None:
    """UR5's massless ``tool0`` and ``base`` links are ports; their positions are
    Pinocchio's frame placements (a chain of fixed joints composed)."""
    path = ROBOTS_DIR / "ur_description/urdf/ur5_robot.urdf"
    model = tl.load_model(path)
    pm = pin.buildModelFromUrdf(str(path))
    data = pm.createData()
    assert "tool0" not in model.body_names and "base" not in model.body_names
    rng = np.random.default_rng(3)
    for _ in range(3):
        x = _random_state(model, rng)
        q, _, _ = _pinocchio_state(model, pm, x, np.zeros(model.n_inputs))
        pin.framesForwardKinematics(pm, data, q)
        for frame, body in (("tool0", "wrist_3_link"), ("base", "base_link")):
            ref = data.oMf[pm.getFrameId(frame)].translation
            np.testing.assert_allclose(model.position(x, body, frame), ref, atol=1e-12)
        np.testing.assert_allclose(  # a URDF joint name designates the body it moves
            model.rotation(x, "wrist_3_joint"),
            data.oMf[pm.getFrameId("wrist_3_link")].rotation, atol=1e-12)


# ---------------------------------------------------------------------------- small URDFs
def urdf(body: str, name: str = "r") -> str:
    return f'<?xml version="1.0"?>\n<robot name="{name}">\n{body}\n</robot>\n'


def link(name: str, mass: float | None = 1.0, extra: str = "") -> str:
    if mass is None:
        return f'<link name="{name}"/>'
    return (f'<link name="{name}"><inertial>{extra}<mass value="{mass}"/>'
            '<inertia ixx="0.1" iyy="0.2" izz="0.25" ixy="0.01" ixz="0" iyz="0.02"/>'
            '</inertial></link>')


def joint(name: str, parent: str, child: str, kind: str = "revolute", extra: str = "") -> str:
    limit = '<limit effort="1" velocity="1" lower="-1" upper="1"/>' if kind in (
        "revolute", "prismatic") else ""  # required by urdfdom (Pinocchio); ignored by us
    return (f'<joint name="{name}" type="{kind}"><parent link="{parent}"/>'
            f'<child link="{child}"/>{extra}{limit}</joint>')


ARM = urdf(link("base", None) + link("a") + link("b") + link("tip", None)
           + joint("j1", "base", "a", extra='<origin xyz="0 0 0.3" rpy="0.1 0.2 0.3"/>'
                   '<axis xyz="0 0 1"/><dynamics damping="0.7" friction="0.1"/>')
           + joint("j2", "a", "b", "prismatic", '<origin xyz="0.5 0 0"/><axis xyz="1 1 0"/>')
           + joint("tool_joint", "b", "tip", "fixed", '<origin xyz="0 0 0.2"/>'))


def write(tmp_path: Path, text: str, name: str = "robot.urdf") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_small_arm_matches_pinocchio_xml(tmp_path: Path) -> None:
    """Joint rpy, inertial rpy, a tilted prismatic axis, damping: same dynamics."""
    text = ARM.replace('<link name="a"><inertial>',
                       '<link name="a"><inertial><origin xyz="0.1 -0.2 0.05" rpy="0.4 -0.3 1.1"/>')
    model = tl.load_model(write(tmp_path, text))
    pm = pin.buildModelFromXML(text)
    assert forward_dynamics_error(model, pm, seed=1) <= 1e-12
    desc = model.to_dict()
    a = next(b for b in desc["bodies"] if b["name"] == "a")
    R = rpy_matrix([0.4, -0.3, 1.1])
    I0 = np.array([[0.1, 0.01, 0], [0.01, 0.2, 0.02], [0, 0.02, 0.25]])
    np.testing.assert_allclose(a["inertia"], R @ I0 @ R.T, atol=1e-15)
    np.testing.assert_allclose(a["com"], [0.1, -0.2, 0.05])
    assert a["joint"]["damping"] == 0.7 and a["joint"]["actuated"] is True
    np.testing.assert_allclose(a["joint"]["rotation"], rpy_matrix([0.1, 0.2, 0.3]))
    assert a["parent"] == "base.j1"
    b = next(b for b in desc["bodies"] if b["name"] == "b")
    assert b["joint"]["type"] == "prismatic" and b["ports"] == {"tip": [0.0, 0.0, 0.2]}
    assert desc["gravity"] == [0.0, 0.0, -9.81]


def test_rpy_matrix_is_fixed_axis_xyz() -> None:
    r, p, y = 0.3, -0.7, 1.9
    Rx = np.array([[1, 0, 0], [0, np.cos(r), -np.sin(r)], [0, np.sin(r), np.cos(r)]])
    Ry = np.array([[np.cos(p), 0, np.sin(p)], [0, 1, 0], [-np.sin(p), 0, np.cos(p)]])
    Rz = np.array([[np.cos(y), -np.sin(y), 0], [np.sin(y), np.cos(y), 0], [0, 0, 1]])
    np.testing.assert_allclose(rpy_matrix([r, p, y]), Rz @ Ry @ Rx, atol=1e-15)
    np.testing.assert_allclose(rpy_matrix([r, p, y]),
                               pin.rpy.rpyToMatrix(r, p, y), atol=1e-15)


def test_joint_names_designate_their_bodies(tmp_path: Path) -> None:
    model = tl.load_model(write(tmp_path, ARM))
    x = _random_state(model, np.random.default_rng(2))
    assert model.urdf_joints == {"j1": "a", "j2": "b"}
    assert model.body_index("j1") == model.body_index("a")
    np.testing.assert_array_equal(model.rotation(x, "j2"), model.rotation(x, "b"))
    np.testing.assert_array_equal(model.position(x, "j2", "tip"),
                                  model.position(x, "b", "tip"))
    np.testing.assert_array_equal(model.position(x, "j1", "com"),
                                  model.position(x, "a", "com"))
    with pytest.raises(tl.UnknownNameError, match="unknown body 'j3'"):
        model.body_index("j3")
    assert model.input_names == ("a_tau", "b_tau")


def test_spin_body_given_by_its_urdf_joint_name(tmp_path: Path) -> None:
    """A steady spin of the turntable named by its URDF joint: the same relative equilibrium
    as with the body name (the arm's prismatic joint held by its actuator)."""
    model = tl.load_model(write(tmp_path, ARM.replace('rpy="0.1 0.2 0.3"', 'rpy="0 0 0"')))
    spin = {"axis": [0.0, 0.0, 1.0], "rate": 2.0}  # j1's axis; its damper needs a_tau
    kw = {"free": ["a_tau", "b_tau"], "fixed": {"b_q": 0.1}, "kind": "spin"}
    by_joint = tl.trim(model, spin={"body": "j1", **spin}, **kw)
    by_body = tl.trim(model, spin={"body": "a", **spin}, **kw)
    assert by_joint.success and by_body.success
    np.testing.assert_array_equal(by_joint.x, by_body.x)
    np.testing.assert_array_equal(by_joint.u, by_body.u)
    with pytest.raises(tl.UnknownNameError, match="spin: unknown body 'j9'"):
        tl.trim(model, spin={"body": "j9", **spin}, **kw)


def test_names_are_sanitised(tmp_path: Path) -> None:
    text = urdf(link("base-link", None) + link("arm.1") + link("2nd link")
                + joint("shoulder joint", "base-link", "arm.1", extra='<origin xyz="0 0 1"/>')
                + joint("elbow/joint", "arm.1", "2nd link", extra='<origin xyz="1 0 0"/>'))
    model = tl.load_model(write(tmp_path, text))
    assert model.body_names == ("base_link", "arm_1", "_2nd_link")
    assert "arm_1_q" in model.state_names and "_2nd_link_tau" in model.input_names
    for alias, body in (("shoulder joint", "arm_1"), ("shoulder_joint", "arm_1"),
                        ("elbow/joint", "_2nd_link"), ("arm.1", "arm_1"),
                        ("2nd link", "_2nd_link"), ("base-link", "base_link")):
        assert model.body_names[model.body_index(alias)] == body, alias
    assert model.to_dict()["bodies"][1]["parent"] == "base_link.shoulder_joint"
    assert sanitize("a b-c.d/é") == "a_b_c_d__"


def test_name_collision_is_an_error() -> None:
    text = urdf(link("base", None) + link("a-b") + link("a.b")
                + joint("j1", "base", "a-b") + joint("j2", "base", "a.b"))
    with pytest.raises(ModelFileError, match=r"'a-b' and 'a\.b' both become the name 'a_b'"):
        parse_urdf(text)


def test_joint_named_like_a_link_warns() -> None:
    text = urdf(link("base", None) + link("gripper") + link("jaw")
                + joint("wrist", "base", "gripper") + joint("gripper", "gripper", "jaw"))
    with pytest.warns(TitopWarning, match="URDF joint 'gripper' .* has the name of a link"):
        desc = parse_urdf(text)
    assert "gripper" not in desc.aliases and desc.joints["gripper"] == "jaw"


def test_floating_root(tmp_path: Path) -> None:
    """A floating root link needs mass of its own: here the base weighs 3 kg."""
    text = ARM.replace('<link name="base"/>', link("base", 3.0))
    model = tl.load_model(write(tmp_path, text), floating=True)
    assert model.floating_base and model.state_names[:3] == ("base_vx", "base_vy", "base_vz")
    assert model.to_dict()["bodies"][0]["joint"] == {"type": "free"}
    pm = pin.buildModelFromXML(text, pin.JointModelFreeFlyer())
    assert np.isfinite(model.dynamics(0.0, model.default_state())).all() and pm.nv == 8


def test_a_massless_floating_root_on_a_revolute_joint_is_refused(tmp_path: Path) -> None:
    """ARM's root link is massless and its child turns on a revolute joint: pushed about that
    axis, the floating base meets no inertia, so its articulated inertia is singular in exact
    arithmetic (smallest eigenvalue ~1e-17 by rounding, exactly 0 on some BLAS kernels).
    It is refused on every kernel, naming the base, instead of being accepted where rounding
    left a tiny pivot and giving accelerations of 1e16."""
    with pytest.raises(tl.ModelError, match=r"body 'base': the articulated inertia of the "
                       r"floating base is singular"):
        tl.load_model(write(tmp_path, ARM), floating=True)


@pytest.mark.parametrize(("text", "match"), [
    (urdf(link("a") + link("b") + joint("slide", "a", "b", "planar")),
     "joint 'slide': joint type 'planar' is not supported"),
    (urdf(link("a") + link("b") + joint("fly", "a", "b", "floating")),
     "joint 'fly': joint type 'floating' is not supported.*floating=True"),
    (urdf(link("a") + link("b") + joint("ball", "a", "b", "spherical")),
     "joint 'ball': unknown joint type 'spherical'"),
    (urdf(link("a") + link("b") + link("c") + joint("j1", "a", "b")
          + joint("j2", "a", "c", extra='<mimic joint="j1" multiplier="2"/>')),
     "joint 'j2': <mimic joint='j1'> is not supported"),
    (urdf(link("a") + link("b") + joint("j1", "a", "b") + joint("j2", "b", "a")),
     "cycle: no link is the root"),
    (urdf(link("r") + link("a") + link("b") + link("c") + joint("j0", "r", "c")
          + joint("j1", "a", "b") + joint("j2", "b", "a")),
     r"cycle through the links \['a', 'b'\]"),
    (urdf(link("a") + link("b") + link("c") + joint("j1", "a", "c") + joint("j2", "b", "c")),
     "link 'c' is the child of two joints"),
    (urdf(link("a") + link("b") + link("c") + joint("j1", "a", "b")),
     r"2 root links \['a', 'c'\]"),
    (urdf(link("a") + link("b") + joint("j1", "a", "b", extra='<origin xyz="0 0 abc"/>')),
     "joint 'j1' origin xyz='0 0 abc': not 3 numbers"),
    (urdf(link("a") + link("b") + joint("j1", "a", "b", extra='<origin xyz="0 0"/>')),
     "joint 'j1' origin xyz='0 0': expected 3 numbers, got 2"),
    (urdf(link("a") + link("b") + joint("j1", "a", "b", extra='<axis xyz="0 nan 1"/>')),
     "joint 'j1' axis xyz='0 nan 1': numbers must be finite"),
    (urdf(link("a") + link("b") + joint("j1", "a", "b", extra='<axis xyz="0 0 0"/>')),
     "joint 'j1': the axis is zero"),
    (urdf(link("a") + link("b", mass="heavy") + joint("j1", "a", "b")),
     "link 'b' inertial mass value='heavy': not 1 numbers"),
    (urdf(link("a") + '<link name="b"><inertial><inertia ixx="1"/></inertial></link>'
          + joint("j1", "a", "b")), r"link 'b' inertial: missing <mass value=\.\.\.>"),
    (urdf(link("a") + link("b") + joint("j1", "a", "c")), "joint 'j1': unknown link 'c'"),
    (urdf(link("a") + link("a")), "link 'a' is defined twice"),
    ('<?xml version="1.0"?>\n<!DOCTYPE robot [<!ENTITY lol "lol"><!ENTITY lol2 '
     '"&lol;&lol;&lol;">]>\n<robot name="&lol2;"><link name="a"/></robot>',
     r"document type declaration \(<!DOCTYPE>/<!ENTITY>\) is not accepted"),
    ("<robot><link name='a'>", "malformed XML"),
    ("<sdf><model/></sdf>", "the root element is <sdf>, not <robot>"),
], ids=["planar", "floating", "unknown-type", "mimic", "cycle", "detached-cycle",
        "two-parents", "two-roots", "bad-number", "count", "nan", "zero-axis", "bad-mass",
        "no-mass", "unknown-link", "duplicate-link", "doctype-entity", "malformed",
        "not-robot"])
def test_refusals(tmp_path: Path, text: str, match: str) -> None:
    path = write(tmp_path, text)
    with pytest.raises(ModelFileError, match=match) as info:
        tl.load_model(path)
    assert str(info.value).startswith("robot.urdf: ")


def test_mimic_independent_and_bad_option(tmp_path: Path) -> None:
    text = urdf(link("a") + link("b") + link("c") + joint("j1", "a", "b")
                + joint("j2", "a", "c", extra='<mimic joint="j1"/>'))
    model = tl.load_model(write(tmp_path, text), mimic="independent")
    assert model.input_names == ("b_tau", "c_tau")
    with pytest.raises(ModelFileError, match="mimic='copy'"):
        tl.load_model(write(tmp_path, text), mimic="copy")


def test_urdf_options_refused_for_other_files(tmp_path: Path) -> None:
    balloon = Path(__file__).resolve().parents[1] / "examples" / "balloon.toml"
    with pytest.raises(ModelFileError, match="floating applies to URDF files only"):
        tl.load_model(balloon, floating=True)
    with pytest.raises(ModelFileError, match="applies to URDF files only"):
        tl.load_model({"bodies": []}, mimic="independent")


def test_translation_is_validated_by_the_schema(tmp_path: Path) -> None:
    """A massless moving link is a body of mass 0: the model validation refuses it."""
    text = urdf(link("a") + link("b", None) + joint("j1", "a", "b"))
    with pytest.raises(ModelError, match="body 'b'"):
        tl.load_model(write(tmp_path, text))
    assert tl.model.read_description(write(tmp_path, text))["bodies"][1]["mass"] == 0.0


def test_port_name_collision_is_an_error() -> None:
    """A joint origin and a merged massless link on one body cannot share a port name."""
    text = urdf(link("base", None) + link("a") + link("b") + link("tool", None)
                + joint("j1", "base", "a") + joint("tool", "a", "b", extra='<origin xyz="1 0 0"/>')
                + joint("t", "a", "tool", "fixed", '<origin xyz="0 1 0"/>'))
    with pytest.raises(ModelFileError, match="'tool' and 'tool' would both be the port 'tool'"):
        parse_urdf(text)
    with pytest.raises(ModelFileError, match="a port named 'com', a reserved point name"):
        parse_urdf(text.replace('"tool"', '"com"'))
