"""The compiled kernel's sweeps (``multibody.kernel_forward``, ``kernel_backward``,
``kernel_loads``) on what their shortcuts skip: attitudes computed only for the bodies that
an inertial-frame load, wrench input or loop names (and their ancestors), gravity rotated
along the tree, joint rotations that are the identity, the spherical joint's reduced
transform to its parent port, and a prismatic joint's moving port offset. Compared with the
numpy recursion (real and complex-step states) and with Pinocchio's RNEA (the residual of
the equations of motion on a ball-jointed branch system).
"""

from __future__ import annotations

import models
import numpy as np
import pytest

import titop_lpv as tl
from titop_lpv.multibody import kernel
from titop_lpv.multibody.dynamics import forward_dynamics

ROT = [[0.0, -1.0, 0.0], [0.6, 0.0, 0.8], [-0.8, 0.0, 0.6]]  # a proper rotation


def _ball(name, parent, *, rotation=False, stiffness=0.0, damping=0.0, port=(0.0, 0.0, -1.0)):
    joint = {"type": "spherical", "stiffness": stiffness, "damping": damping,
             "q0": [0.9, 0.3, -0.2, 0.1], "w0": [0.4, -0.7, 0.5]}
    if rotation:
        joint["rotation"] = ROT
    body = {"name": name, "mass": 1.3, "com": [0.1, -0.05, -0.5],
            "inertia": [[0.11, 0.01, 0.0], [0.01, 0.09, 0.02], [0.0, 0.02, 0.05]],
            "ports": {"tip": list(port), "side": [0.3, 0.2, -0.4]}, "joint": joint}
    if parent is not None:
        body["parent"] = parent
    return body


def _tree(loads: bool) -> dict:
    """Fixed root; a main chain a0 … a3 of ball joints (some rotated), a prismatic body p
    on a1's side port, a ball-jointed branch b0, b1 below p, a revolute r on a2."""
    bodies = [_ball("a0", None, rotation=True, damping=0.3),
              _ball("a1", "a0.tip", stiffness=4.0, damping=0.1),
              _ball("a2", "a1.tip", rotation=True),
              _ball("a3", "a2.tip"),
              {"name": "p", "parent": "a1.side", "mass": 0.7, "com": [0.2, 0.0, -0.1],
               "inertia": [[0.02, 0.0, 0.0], [0.0, 0.03, 0.0], [0.0, 0.0, 0.04]],
               "ports": {"tip": [0.0, 0.1, -0.6]},
               "joint": {"type": "prismatic", "axis": [0.0, 0.6, -0.8], "rotation": ROT,
                         "stiffness": 8.0, "q0": 0.2, "qd0": -0.3}},
              _ball("b0", "p.tip", rotation=True),
              _ball("b1", "b0.tip", damping=0.2),
              {"name": "r", "parent": "a2.side", "mass": 0.5, "com": [0.0, 0.3, 0.0],
               "inertia": [[0.01, 0.0, 0.0], [0.0, 0.02, 0.0], [0.0, 0.0, 0.02]],
               "joint": {"type": "revolute", "axis": [1.0, 0.0, 0.0], "q0": 0.4, "qd0": 1.1}}]
    desc = {"name": "sweeps", "gravity": [0.0, 0.0, -9.81], "bodies": bodies}
    if loads:
        desc["loads"] = [{"type": "force", "body": "b1", "point": "com",
                          "force": [1.0, -2.0, 0.5], "frame": "inertial"},
                         {"type": "torque", "body": "a3", "torque": [0.3, 0.1, -0.2],
                          "frame": "body"}]
        desc["inputs"] = [{"body": "r", "frame": "inertial"}]
    return desc


@pytest.mark.parametrize("loads", [False, True])
def test_attitudes_only_where_an_inertial_load_needs_them(loads):
    model = tl.load_model(_tree(loads))
    args = kernel.kernel_data(model, model.physics()).args
    need, rot_id = args[-2], args[-1]
    names = list(model.body_names)
    expected = set()
    if loads:  # b1 (inertial force) and r (inertial wrench input), with their ancestors
        expected = {"b1", "b0", "p", "a1", "a0", "r", "a2"}
    assert {names[i] for i in np.flatnonzero(need)} == expected
    assert {names[i] for i in np.flatnonzero(~rot_id)} == {"a0", "a2", "p", "b0"}


@pytest.mark.parametrize("loads", [False, True])
def test_sweeps_equal_the_numpy_recursion(loads):
    model = tl.load_model(_tree(loads))
    rng = np.random.default_rng(7)
    x = model.default_state() + 0.4 * rng.standard_normal((4, model.n_states))
    u = rng.standard_normal((4, model.n_inputs))
    ref = forward_dynamics(model, x, u, backend="numpy")
    fast = forward_dynamics(model, x, u, backend="compiled")
    assert np.max(np.abs(fast - ref) / np.maximum(1.0, np.abs(ref))) <= 1e-12
    h = 1e-30  # complex step along every state: the Jacobian
    xc = x[0] + 1j * h * np.eye(model.n_states)
    uc = np.broadcast_to(u[0], (model.n_states, model.n_inputs))
    jac_ref = forward_dynamics(model, xc, uc, backend="numpy").imag / h
    jac = forward_dynamics(model, xc, uc, backend="compiled").imag / h
    assert np.max(np.abs(jac - jac_ref)) <= 1e-10 * max(1.0, np.max(np.abs(jac_ref)))


def test_ball_chain_satisfies_pinocchio_rnea():
    """A 30-body ball-jointed branch (rods, ports at the tips, a side branch): Pinocchio's
    RNEA at the kernel's accelerations leaves a residual at rounding level."""
    pin = pytest.importorskip("pinocchio")
    n = 30
    bodies = [_ball(f"c{k}", None if k == 0 else f"c{k - 1}.tip", damping=0.0)
              for k in range(n)]
    bodies[20]["parent"] = "c10.side"  # c20 … c29 hang from c10's side port
    model = tl.load_model({"name": "balls", "gravity": [0.0, 0.0, -9.81], "bodies": bodies})
    rng = np.random.default_rng(2)
    x = model.default_state() + 0.2 * rng.standard_normal(model.n_states)
    xdot = forward_dynamics(model, x, backend="compiled")
    pm = pin.Model()
    pm.gravity.linear = np.array([0.0, 0.0, -9.81])
    jid = {}
    for b in bodies:
        parent = b.get("parent")
        pj, place = 0, np.zeros(3)
        if parent:
            pname, _, port = parent.partition(".")
            pj, place = jid[pname], np.array(bodies[int(pname[1:])]["ports"][port])
        jid[b["name"]] = pm.addJoint(pj, pin.JointModelSpherical(),
                                     pin.SE3(np.eye(3), place), b["name"])
        pm.appendBodyToJoint(jid[b["name"]], pin.Inertia(  # inertia about the com
            b["mass"], np.array(b["com"]), np.array(b["inertia"])), pin.SE3.Identity())
    q, v, a = np.zeros(pm.nq), np.zeros(pm.nv), np.zeros(pm.nv)
    for b in bodies:
        k = model.state_names.index(f"{b['name']}_qw")
        j = pm.joints[jid[b["name"]]]
        w_, qx, qy, qz = x[k:k + 4] / np.linalg.norm(x[k:k + 4])
        q[j.idx_q:j.idx_q + 4] = [qx, qy, qz, w_]
        v[j.idx_v:j.idx_v + 3] = x[k + 4:k + 7]
        a[j.idx_v:j.idx_v + 3] = xdot[k + 4:k + 7]
    tau = pin.rnea(pm, pm.createData(), q, v, a)
    bias = pin.rnea(pm, pm.createData(), q, v, np.zeros(pm.nv))
    assert np.max(np.abs(tau)) <= 1e-9 * max(1.0, np.max(np.abs(bias)))


def test_disk_cache_key_covers_every_kernel_module(tmp_path, monkeypatch):
    """numba keys a cached function by its own file; the kernel's functions are keyed by all
    its modules (kernel_cache), so an edit of a sweep recompiles the kernel that inlines it."""
    from titop_lpv.multibody import kernel_backward, kernel_cache, kernel_forward
    kernel._compile()
    digest = kernel_cache.sources_digest()
    for fn in (kernel._forward_work, kernel._forward_kernel, kernel_forward.forward_sweep,
               kernel_backward.backward_sweep):
        locator = fn._cache._impl._locator  # numba's cache locator of this dispatcher
        assert getattr(locator, "titop_kernel", False)
        assert locator.get_source_stamp() == digest
    for name in kernel_cache.FILES:
        (tmp_path / name).write_text(f"# {name}\n")
    monkeypatch.setattr(kernel_cache, "_paths",
                        lambda: [str(tmp_path / name) for name in kernel_cache.FILES])
    before = kernel_cache.sources_digest()
    (tmp_path / "kernel_backward.py").write_text("# edited\n")
    assert kernel_cache.sources_digest() != before


@pytest.mark.parametrize("large", [False, True])
def test_subnormals_are_flushed_only_inside_the_kernel(large):
    """kernel_fp sets FTZ/DAZ for the sweeps of a model of kernel.FTZ_BODIES bodies or more
    and restores the caller's mode: afterwards a subnormal result in this thread is still
    subnormal, not zero (a small model leaves the register alone)."""
    model = tl.load_model(models.random_tree(3, kernel.FTZ_BODIES, "free") if large
                          else _tree(True))
    assert (len(model.body_names) >= kernel.FTZ_BODIES) == large
    x = model.default_state()
    forward_dynamics(model, x, np.ones(model.n_inputs), backend="compiled")
    model.dynamics(0.0, x, np.ones(model.n_inputs))
    tiny = np.array([1e-308]) / 1e4
    assert 0.0 < tiny[0] < 2.2250738585072014e-308


def _quaternion_base() -> dict:
    """The tree of :func:`_tree` (loads, inputs) on a free base whose attitude is a quaternion."""
    desc = _tree(True)
    desc["bodies"][0]["joint"] = {"type": "free", "attitude": "quaternion"}
    return desc


@pytest.mark.parametrize("desc", [_tree(True), _quaternion_base(), models.balloon(),
                                  models.random_tree(5, 12, "free")],
                         ids=["tree", "quaternion base", "balloon", "random tree"])
def test_work_arrays_may_hold_anything(desc):
    """The caller's work arrays (kernel.workspace: per-body arrays, then the sweeps' scratch)
    are reused from call to call and from model to model: the kernel reads none of their
    entries before writing it. Filled with NaN, they give the derivatives, bit for bit, of the
    variant that allocates fresh ones, and the one-state route equals the batch."""
    from test_universal import cardan

    for d in (desc, cardan()):
        model = tl.load_model(d)
        rng = np.random.default_rng(11)
        x = model.default_state() + 0.3 * rng.standard_normal((3, model.n_states))
        u = rng.standard_normal((3, model.n_inputs))
        data = kernel.kernel_data(model, model.physics())
        fresh, status = kernel.run(data, x, u)
        assert status == -1
        work = kernel.workspace(len(model.body_names), np.float64)
        assert len(work) == len(kernel.WORK_SHAPES)
        for w in work:
            w.fill(np.nan)
        xdot = np.zeros_like(fresh)
        kernel.ensure_compiled()
        assert kernel._forward_work(x, u, *data.args, xdot, *work) == -1
        assert np.array_equal(xdot, fresh)
        for m in range(3):
            assert np.array_equal(model.dynamics(0.0, x[m], u[m]), fresh[m])
