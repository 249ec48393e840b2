"""When the compiled kernel runs: the numpy route serves a first session while a background
process compiles; ``titop-lpv compile`` fills the cache ahead of time.

The background policy is checked in a fresh process with an empty numba cache (its own
``NUMBA_CACHE_DIR``): the balloon's derivatives come from the numpy route (bit-identical to
``backend="numpy"``) without waiting for numba, exactly one compiler process is started, and
it is stopped by the test (its work, a numba compile, is not repeated here). The rest runs in
process, under the suite's policy ``wait``.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import titop_lpv as tl
from titop_lpv.cli.kernel_compile import compile_lock
from titop_lpv.cli.main import main
from titop_lpv.exceptions import ArgumentError
from titop_lpv.multibody import kernel, kernel_ready

ROOT = Path(__file__).resolve().parents[1]

FIRST_SESSION = """
import json, time, warnings
import numpy as np
import titop_lpv as tl
from titop_lpv.multibody import kernel_ready
from titop_lpv.multibody.dynamics import forward_dynamics
warnings.simplefilter("ignore")
start = time.perf_counter()
model = tl.load_model({path!r})
x = model.default_state() + 0.1
auto = model.dynamics(0.0, x)
ref = forward_dynamics(model, x, backend="numpy")
proc = kernel_ready.background_process()
close = bool(np.max(np.abs(auto - ref)) <= 1e-13 * np.max(np.abs(ref)))
print(json.dumps({{"equal": close, "seconds": time.perf_counter() - start,
                   "pid": None if proc is None else proc.pid,
                   "args": None if proc is None else list(proc.args)}}))
"""


def test_policy_reads_the_environment(monkeypatch) -> None:
    monkeypatch.setenv(kernel_ready.POLICY_ENV, "Background")
    assert kernel_ready.policy() == "background"
    monkeypatch.setenv(kernel_ready.POLICY_ENV, "wait")
    assert kernel_ready.policy() == "wait"
    monkeypatch.delenv(kernel_ready.POLICY_ENV)
    assert kernel_ready.policy() == "background"
    monkeypatch.setenv(kernel_ready.POLICY_ENV, "soon")
    with pytest.raises(ArgumentError, match="TITOP_LPV_COMPILE='soon'"):
        kernel_ready.policy()


def test_large_models_and_the_wait_policy_use_the_kernel_at_once(monkeypatch) -> None:
    monkeypatch.setenv(kernel_ready.POLICY_ENV, "background")

    def no_look() -> tuple:
        raise AssertionError("the disk cache must not be looked at")

    # more bodies than the numpy route serves well: compile now, no background process
    assert kernel_ready.use_kernel(kernel_ready.BACKGROUND_BODIES + 1, np.dtype("F"), no_look)
    assert kernel_ready.background_process() is None
    monkeypatch.setenv(kernel_ready.POLICY_ENV, "wait")
    assert kernel_ready.use_kernel(1, np.dtype("G"), no_look)
    assert kernel_ready.background_process() is None


def test_a_first_session_takes_the_numpy_route_and_starts_one_compiler(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != kernel_ready.POLICY_ENV}
    env |= {"NUMBA_CACHE_DIR": str(tmp_path / "numba"), "TMPDIR": str(tmp_path),
            "MPLBACKEND": "Agg", "OPENBLAS_NUM_THREADS": "1"}
    code = FIRST_SESSION.format(path=str(ROOT / "examples" / "balloon.toml"))
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         timeout=300, check=True)
    result = json.loads(out.stdout.strip().splitlines()[-1])
    pid = result["pid"]
    try:
        assert result["equal"], "the first session's ẋ is the numpy route's (to rounding)"
        assert result["args"][-3:] == ["titop_lpv", "compile", "--background"]
        assert pid is not None
    finally:
        if pid is not None:
            with_group = True
            try:
                os.killpg(pid, signal.SIGKILL)  # its own session: the group is the process
            except ProcessLookupError:
                with_group = False
            assert with_group or not Path(f"/proc/{pid}").exists()
            deadline = time.monotonic() + 10.0
            while Path(f"/proc/{pid}").exists() and time.monotonic() < deadline:
                time.sleep(0.05)  # reaped by init once killed


def test_compile_lock_is_exclusive_and_taken_over_when_stale(monkeypatch, tmp_path) -> None:
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))  # a lock file of this test only
    path = kernel_ready.lock_path()
    assert not path.exists()
    with compile_lock() as mine:
        assert mine and path.exists()
        with compile_lock() as second:
            assert not second  # a fresh lock held by another compiler
        assert path.exists()
    assert not path.exists()
    path.write_text("12345")
    old = time.time() - kernel_ready.LOCK_STALE_S - 1.0
    os.utime(path, (old, old))
    with compile_lock() as mine:
        assert mine  # left by a compiler that died
    assert not path.exists()


def test_compile_command_reports_each_specialisation(capsys) -> None:
    assert main(["compile"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split(":")[0] for line in lines[:7]] == [
        "kernel for real states", "kernel for complex states", "one state (packed arguments)",
        "sensors (real states)", "sensors (complex states)",
        "linearisation rows (one compiled call)", "Jacobian (analytic derivatives)"]
    assert all(("loaded from the cache" in line) or ("compiled" in line) for line in lines[:7])
    from titop_lpv.multibody import derivatives_kernel, kernel_pack

    assert derivatives_kernel.load_cached() and kernel_pack.load_cached(False)
    # both are ready now: the cache check says so without compiling
    model = tl.load_model(ROOT / "examples" / "balloon.toml")
    args = kernel.kernel_data(model, model.physics()).args
    assert kernel.load_cached(np.float64, args) and kernel.load_cached(np.complex128, args)


def test_compile_command_has_help(capsys) -> None:
    assert main(["compile", "--help"]) == 0
    assert "\nexample:\n  titop-lpv compile" in capsys.readouterr().out
