"""The one-state route of ``Model.dynamics`` (titop_lpv/model/call_path.py, issue 16 item 2).

It must give the general route's result bit for bit (the same compiled kernel on the same
arguments), on every joint type, input and parameter form; it must refuse what the general
route refuses, with the same typed errors; it checks each distinct parameter vector once;
and its cache stays bounded, survives pickling and is safe under threads.
"""

from __future__ import annotations

import pickle
import threading
import warnings
from pathlib import Path

import models
import numpy as np
import pytest

import titop_lpv as tl
from titop_lpv.model import call_path, compiled
from titop_lpv.multibody.dynamics import forward_dynamics

ROOT = Path(__file__).resolve().parents[1]


def _balloon() -> tl.Model:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tl.TitopWarning)
        return tl.load_model(ROOT / "examples" / "balloon.toml")


def mixed_tree(seed: int) -> dict:
    """A random tree (free quaternion base, parameters, loads) with joints turned spherical,
    universal, driven (acceleration input) and actuated, and a damping load."""
    desc = models.random_tree(seed, 9, "free", params=True)
    root = next(b for b in desc["bodies"] if b.get("parent") is None)
    root["joint"].update(attitude="quaternion", q0=[0.8, -0.2, 0.5, 0.3])
    rng = np.random.default_rng(seed)
    picks = iter(["spherical", "universal", "driven", "actuated"] * 3)
    for body in desc["bodies"]:
        j = body["joint"]
        if j["type"] not in ("revolute", "prismatic"):
            continue
        pick = next(picks)
        keep = {k: j[k] for k in ("rotation",) if k in j}
        if pick == "spherical":
            q = rng.standard_normal(4)
            body["joint"] = {**keep, "type": "spherical", "q0": (q / np.linalg.norm(q)).tolist(),
                             "w0": rng.uniform(-1, 1, 3).tolist(), "stiffness": 2.0,
                             "damping": 0.3, "rest": [1.0, 0.0, 0.0, 0.0]}
        elif pick == "universal":
            body["joint"] = {**keep, "type": "universal",
                             "axis1": rng.standard_normal(3).tolist(),
                             "axis2": rng.standard_normal(3).tolist(),
                             "q0": [0.3, -0.2], "qd0": [0.1, 0.4], "stiffness": [1.0, 2.0]}
        elif pick == "driven":
            body["joint"] = {**keep, "type": j["type"], "axis": j["axis"], "motion": "input"}
        else:
            j["actuated"] = True
    desc["loads"].append({"type": "damping", "body": root["name"], "linear": 0.3,
                          "angular": 0.2})
    return desc


@pytest.fixture(scope="module")
def balloon() -> tl.Model:
    return _balloon()


MODELS = {
    "balloon": _balloon,
    "mixed": lambda: tl.load_model(mixed_tree(3)),
    "fixed": lambda: tl.load_model(models.random_tree(5, 7, "fixed", params=True)),
}


def _in_threads(work, count: int = 4) -> None:
    """Run ``work(seed)`` in ``count`` threads at once (seeds 0, 1, ...) and wait for them."""
    threads = [threading.Thread(target=work, args=(s,)) for s in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


def _states(model: tl.Model, rng: np.random.Generator, count: int) -> np.ndarray:
    return model.default_state() + rng.uniform(-0.5, 0.5, (count, model.n_states))


@pytest.mark.parametrize("name", sorted(MODELS))
def test_bit_identical_to_the_general_route(name):
    model = MODELS[name]()
    rng = np.random.default_rng(7)
    pv = model.param_vector(None) * (1.0 + 0.01 * rng.uniform(size=len(model.param_names)))
    for k, x in enumerate(_states(model, rng, 60)):
        u = rng.uniform(-1, 1, model.n_inputs) if k % 2 else None
        params = (None, pv, dict(zip(model.param_names, pv.tolist())), {})[k % 4]
        fast = model.dynamics(0.0, x, u, params)
        ref = forward_dynamics(model, x, u, params, backend="compiled")
        assert fast.shape == (model.n_states,)
        assert np.array_equal(fast, ref), (name, k)
    # every form of argument it leaves to the general route gives the same numbers too
    x = _states(model, rng, 1)[0]
    ref = model.dynamics(0.0, x)
    ro = x.copy()
    ro.flags.writeable = False
    strided = np.repeat(x, 2)[::2]
    for other in (ro, strided, x.tolist(), x.astype(">f8")):
        assert np.array_equal(model.dynamics(0.0, other), ref)


def test_the_fast_route_serves_repeated_calls(balloon, monkeypatch):
    x = balloon.default_state()
    pv = balloon.param_vector(None) + 1.0
    first = [balloon.dynamics(0.0, x), balloon.dynamics(0.0, x, None, pv)]

    def general(*args, **kwargs):
        raise AssertionError("the general route was taken")

    monkeypatch.setattr(compiled, "forward_dynamics", general)
    again = [balloon.dynamics(0.0, x), balloon.dynamics(0.0, x, np.zeros(balloon.n_inputs), pv),
             balloon.dynamics(0.0, x, None, dict(zip(balloon.param_names, pv.tolist())))]
    assert np.array_equal(again[0], first[0])
    assert np.array_equal(again[1], first[1]) and np.array_equal(again[2], first[1])


def test_each_parameter_vector_is_checked_once(balloon, monkeypatch):
    model = _balloon()  # a fresh cache
    calls = []
    check = model.check_params
    monkeypatch.setattr(type(model), "check_params",
                        lambda self, p: (calls.append(np.array(p)), check(p))[1])
    x = model.default_state()
    pv = model.param_vector(None) + 2.0
    for _ in range(5):
        model.dynamics(0.0, x, None, pv)
    assert len(calls) == 1
    for _ in range(3):
        model.dynamics(0.0, x, None, dict(zip(model.param_names, (pv + 1).tolist())))
    assert len(calls) == 2


@pytest.mark.parametrize("params, error, match", [
    ({"k": 500.0}, tl.ParameterError, r"'k'"),
    (np.array([500.0, 5.0, 0.5, 0.5]), tl.ParameterError, r"'k'"),
    ({"k": float("nan")}, tl.ParameterError, r"'k'"),
    ({"kk": 50.0}, tl.UnknownNameError, r"kk"),
    ({"k": "fifty"}, tl.ParameterError, r"'k'"),
    (np.array([50.0, 5.0]), tl.ShapeError, r"params"),
])
def test_bad_parameters_are_refused_every_time(balloon, params, error, match):
    x = balloon.default_state()
    balloon.dynamics(0.0, x)
    for _ in range(2):  # refused vectors are never cached
        with pytest.raises(error, match=match):
            balloon.dynamics(0.0, x, None, params)


def test_bad_states_and_inputs_are_refused(balloon):
    x = balloon.default_state()
    balloon.dynamics(0.0, x)
    bad = x.copy()
    bad[balloon.state_index("slider_qd")] = np.nan
    with pytest.raises(tl.DynamicsError, match="slider_qd"):
        balloon.dynamics(0.0, bad)
    with pytest.raises(tl.DynamicsError, match="slider_tau"):
        balloon.dynamics(0.0, x, np.array([np.inf]))
    with pytest.raises(tl.ShapeError, match=r"\(\.\.\., 18\)"):
        balloon.dynamics(0.0, x[:-1])
    with pytest.raises(tl.ShapeError):
        balloon.dynamics(0.0, x, np.zeros(3))
    huge = x.copy()
    huge[balloon.state_index("balloon_wx")] = 1e200  # finite, but the derivative overflows
    with pytest.raises(tl.DynamicsError, match=r"from finite state.*overflow.*balloon_wx"):
        balloon.dynamics(0.0, huge)


def test_cache_is_bounded_pickles_and_is_thread_safe(balloon):
    model = _balloon()
    x = model.default_state()
    base = model.param_vector(None)
    vectors = [base + 0.1 * k for k in range(3 * call_path.CACHE_SIZE)]
    refs = [forward_dynamics(model, x, None, p, backend="compiled") for p in vectors]
    for p, ref in zip(vectors, refs):
        assert np.array_equal(model.dynamics(0.0, x, None, p), ref)
    assert len(model._single_call.entries) <= call_path.CACHE_SIZE
    clone = pickle.loads(pickle.dumps(model))
    assert np.array_equal(clone.dynamics(0.0, x, None, vectors[0]), refs[0])
    errors = []

    def work(seed):
        rng = np.random.default_rng(seed)
        for _ in range(200):
            k = int(rng.integers(len(vectors)))
            if not np.array_equal(model.dynamics(0.0, x, None, vectors[k]), refs[k]):
                errors.append(k)

    _in_threads(work)
    assert not errors


@pytest.mark.parametrize("name", sorted(MODELS))
def test_work_array_route_is_bit_identical_and_thread_safe(name, monkeypatch):
    """The route of large models (the kernel on the calling thread's kept work arrays),
    forced on small ones: the general route's numbers bit for bit, from several threads."""
    monkeypatch.setattr(call_path, "WORK_ARRAYS_BODIES", 1)
    model = MODELS[name]()
    rng = np.random.default_rng(11)
    xs = _states(model, rng, 8)
    pv = model.param_vector(None) * (1.0 + 0.01 * rng.uniform(size=len(model.param_names)))
    for _ in range(2):  # the general route runs the work-array kernel from its second call
        forward_dynamics(model, xs[0], None, pv, backend="compiled")
    refs = [forward_dynamics(model, x, None, pv, backend="compiled") for x in xs]
    for x, ref in zip(xs, refs):
        assert np.array_equal(model.dynamics(0.0, x, None, pv), ref)
    (entry,) = model._single_call.entries.values()
    assert entry[2] == len(model.body_names)  # the work-array entry point serves the calls
    errors = []

    def work(seed):
        for k in np.random.default_rng(seed).integers(len(xs), size=100):
            if not np.array_equal(model.dynamics(0.0, xs[k], None, pv), refs[k]):
                errors.append(k)

    _in_threads(work)
    assert not errors


def test_entry_point_type_key_decides_like_numba() -> None:
    # the entry point is memoised by a cheap key of the argument types (numba's typeof
    # costs ~3 ms for the 43 kernel arguments): equal keys must mean equal numba types, and
    # every property numba types on must change the key
    numba = pytest.importorskip("numba")
    from titop_lpv.multibody import kernel

    keys, types = [], []
    for model in (_balloon(), tl.load_model(ROOT / "examples" / "robot_arm.toml"),
                  tl.load_model(mixed_tree(2))):
        data = kernel.kernel_data(model, model.physics(None))
        X = np.zeros((1, model.n_states))
        args = (X, np.zeros((1, model.n_inputs)), *data.args, np.zeros(X.shape))
        keys.append(call_path._type_key(args))
        types.append(tuple(numba.typeof(a) for a in args))
    for i in range(len(keys)):
        for j in range(len(keys)):
            assert (keys[i] == keys[j]) <= (types[i] == types[j])
    a = np.zeros((3, 4))
    ro = a.copy()
    ro.flags.writeable = False
    variants = [a, a.astype(np.float32), a[:, ::2], np.asfortranarray(a), ro, a[0], 1.0, 1,
                True]
    vkeys = [call_path._type_key((v,)) for v in variants]
    assert len(set(vkeys)) == len(variants)
    assert call_path._type_key(((1, 2),)) is None and call_path._type_key((2**64,)) is None


@pytest.mark.parametrize("name", sorted(MODELS))
def test_small_models_take_the_packed_route_with_per_thread_work_arrays(name):
    """Below WORK_ARRAYS_BODIES bodies the kernel's arguments travel packed in one numba
    structure (multibody/kernel_pack.py) and each thread runs on its own work arrays: the
    general route's numbers bit for bit, from several threads at once."""
    model = MODELS[name]()
    rng = np.random.default_rng(5)
    xs = _states(model, rng, 8)
    us = rng.uniform(-1, 1, (8, model.n_inputs))
    refs = [forward_dynamics(model, x, u, None, backend="compiled") for x, u in zip(xs, us)]
    errors = []

    def work(seed):
        for k in np.random.default_rng(seed).integers(len(xs), size=100):
            if not np.array_equal(model.dynamics(0.0, xs[k], us[k]), refs[k]):
                errors.append(k)

    _in_threads(work)
    assert not errors
    pv = model.param_vector(None) * 1.01
    assert np.array_equal(model.dynamics(0.0, xs[1], us[1], pv),
                          forward_dynamics(model, xs[1], us[1], pv, backend="compiled"))
    (entry,) = model._single_call.entries.values()
    assert entry[2] == call_path._PACKED


def test_pack_fields_are_the_kernel_arguments():
    """kernel_pack declares the kernel's argument names and numba types by hand: they must
    be the kernel's own, for every model kind (else the route falls back, see below)."""
    import inspect

    from titop_lpv.multibody import kernel, kernel_pack

    names = list(inspect.signature(kernel._forward_kernel.py_func).parameters)
    assert names[2:-1] == [name for name, _ in kernel_pack.FIELDS]
    work = list(inspect.signature(kernel._forward_work.py_func).parameters)
    assert work[len(names):] == list(kernel_pack.WORK_FIELDS)
    assert len(kernel_pack.WORK_FIELDS) == len(kernel.WORK_SHAPES)
    for model in (_balloon(), tl.load_model(ROOT / "examples" / "robot_arm.toml"),
                  tl.load_model(mixed_tree(2))):
        data = kernel.kernel_data(model, model.physics(None))
        assert kernel_pack.matches(data.args, -1)
    data = kernel.kernel_data(_balloon(), _balloon().physics(None))
    other = list(data.args)
    other[6] = other[6].astype(np.float32)  # S: not the declared type
    assert not kernel_pack.matches(tuple(other), -1)
    assert not kernel_pack.matches(data.args[:-1], -1)


def test_unpackable_arguments_take_the_unpacked_entry(monkeypatch):
    from titop_lpv.multibody import kernel_pack

    monkeypatch.setattr(kernel_pack, "matches", lambda args, signature: False)
    model = _balloon()
    x = _states(model, np.random.default_rng(2), 1)[0]
    pv = model.param_vector(None) + 0.5
    ref = forward_dynamics(model, x, None, pv, backend="compiled")
    assert np.array_equal(model.dynamics(0.0, x, None, pv), ref)
    (entry,) = model._single_call.entries.values()
    assert entry[2] == 0  # numba's entry point of the allocating kernel, arguments unpacked


def test_parameter_dicts_are_kept_by_items_and_value_types():
    """A dict of parameters (what python-control passes at every call) is looked up by its
    items and the types of its values: equal items of other types (an int, a bool, a complex
    number equal to a kept float) take their own way, through the checks, to the general
    route's result."""
    model = _balloon()
    x = _states(model, np.random.default_rng(4), 1)[0]
    first = {"k": 60.0, "ds": 4.0}
    ref = forward_dynamics(model, x, None, first, backend="compiled")
    assert np.array_equal(model.dynamics(0.0, x, None, dict(first)), ref)
    assert len(model._single_call.by_items) == 1
    for other in ({"k": 60, "ds": 4}, {"k": np.float64(60.0), "ds": 4.0}):
        assert np.array_equal(model.dynamics(0.0, x, None, other), ref)
    # equal items of other value types replaced the kept key: the latest types are kept
    ((types, _entry),) = model._single_call.by_items.values()
    assert types == (np.float64, float)
    one = {"dp1": 1.0}
    assert np.array_equal(model.dynamics(0.0, x, None, one),
                          forward_dynamics(model, x, None, one, backend="compiled"))
    for same_value in ({"dp1": True}, {"dp1": 1 + 0j}):
        out = model.dynamics(0.0, x, None, same_value)
        ref_other = forward_dynamics(model, x, None, same_value)  # complex: the numpy route
        assert out.dtype == ref_other.dtype and np.array_equal(out, ref_other)
    with pytest.raises(tl.UnknownNameError, match="kk"):
        model.dynamics(0.0, x, None, {"kk": 1.0})
    with pytest.raises(tl.UnknownNameError, match="kk"):  # refused again: never cached
        model.dynamics(0.0, x, None, {"kk": 1.0})
    assert len(model._single_call.by_items) <= call_path.CACHE_SIZE
