"""One compiled model shared by threads (docs/design.md §1): every result equals a serial run.

The model's only mutable parts are its caches (resolved physics per parameter vector,
compiled-kernel arguments). Threads switching every microsecond, each evaluating with
parameter vectors of its own (more distinct vectors than the cache holds, so entries are
evicted while others read them), must get exactly the serial results, and never an error.
"""

from __future__ import annotations

import pickle
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

import titop_lpv as tl

ROOT = Path(__file__).resolve().parents[1]
N_THREADS = 8
N_ROUNDS = 1500  # physics() per thread; every 20th round a full evaluation


@pytest.fixture(scope="module")
def balloon() -> tl.Model:
    return tl.load_model(ROOT / "examples" / "balloon.toml")


def _cases(model: tl.Model) -> list[tuple[dict[str, float], np.ndarray]]:
    rng = np.random.default_rng(7)
    x0 = model.default_state()
    cases = []
    for k in np.linspace(26.0, 99.0, 3 * N_THREADS):  # 24 vectors: three times the cache
        x = x0 + 0.05 * rng.normal(size=x0.size)
        cases.append(({"k": float(k), "ds": float(rng.uniform(1.0, 9.0))}, x))
    return cases


def _evaluate(model: tl.Model, params: dict[str, float], x: np.ndarray) -> np.ndarray:
    u = np.full(model.n_inputs, 0.1)
    return np.concatenate([
        model.dynamics(0.0, x, u, params),                         # compiled kernel
        model.outputs(0.0, x, u, params),                          # numpy route
        model.physics(params).D.ravel(),                           # the cached physics
        np.atleast_1d(tl.energy(model, x, params)[1]),
    ])


def test_threads_with_different_parameters_match_a_serial_run(balloon: tl.Model) -> None:
    cases = _cases(balloon)
    serial = [_evaluate(balloon, p, x) for p, x in cases]
    physics = [balloon.physics(p).D.ravel().copy() for p, _x in cases]
    errors: list[BaseException] = []
    mismatches: list[str] = []
    start = threading.Barrier(N_THREADS)

    def worker(t: int) -> None:
        try:
            start.wait()
            for r in range(N_ROUNDS):
                k = (t * 7 + r * 5) % len(cases)  # each thread its own order of vectors
                if r % 20:
                    got = balloon.physics(cases[k][0]).D.ravel()
                    want = physics[k]
                else:
                    got, want = _evaluate(balloon, *cases[k]), serial[k]
                if not np.array_equal(got, want):
                    mismatches.append(f"thread {t}, round {r}, case {k}: max difference "
                                      f"{np.max(np.abs(got - want)):.3g}")
        except BaseException as err:  # reported below, with its type
            errors.append(err)

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        threads = [threading.Thread(target=worker, args=(t,)) for t in range(N_THREADS)]
        for th in threads:
            th.start()
        for th in threads:
            th.join(timeout=300)
    finally:
        sys.setswitchinterval(interval)
    assert not errors, f"{len(errors)} threads raised, first: {errors[0]!r}"
    assert not mismatches, mismatches[:5]


def test_a_model_survives_pickling_with_its_caches_rebuilt(balloon: tl.Model) -> None:
    # process pools and Dask workers receive the model pickled: the lock and the caches are
    # not pickled but rebuilt, and the copy evaluates exactly as the original
    params, x = _cases(balloon)[3]
    expected = _evaluate(balloon, params, x)
    copy = pickle.loads(pickle.dumps(balloon))
    assert copy == balloon
    np.testing.assert_array_equal(_evaluate(copy, params, x), expected)
    with pytest.raises(AttributeError, match="immutable"):
        copy.name = "other"
