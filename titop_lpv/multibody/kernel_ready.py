"""When the compiled kernel is used: a first run that never waits for numba.

Compiling the kernel (:mod:`titop_lpv.multibody.kernel`) takes numba 20–60 s per
specialisation (real states; complex states for the complex-step Jacobians), once per
installation: it is cached on disk afterwards. The numpy recursion
(:mod:`titop_lpv.multibody.dynamics`) computes the same derivatives (the reference: equal to
rounding) without compiling, and for small models it is fast enough to serve a whole session.
So, by default (policy ``"background"``), an ``"auto"`` evaluation of a model of at most
:data:`BACKGROUND_BODIES` bodies uses the kernel only when it is ready — compiled in this
process, or loadable from numba's disk cache — and otherwise takes the numpy route while one
background process (``python -m titop_lpv compile --background``) fills the cache; the
session switches to the kernel as soon as that process has finished. Larger models wait for
the compiler, as every model does under the policy ``"wait"``.

The policy is read from the environment variable :data:`POLICY_ENV`
(``TITOP_LPV_COMPILE=background | wait``) at each first use; ``titop-lpv compile`` fills the
cache ahead of time (after installation, or when building an image).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import threading
import time
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from ..exceptions import ArgumentError
from . import kernel

__all__ = ["BACKGROUND_BODIES", "LOCK_STALE_S", "POLICIES", "POLICY_ENV", "background_process",
           "lock_path", "policy", "use_kernel"]

POLICY_ENV = "TITOP_LPV_COMPILE"
POLICIES = ("background", "wait")
BACKGROUND_BODIES = 64  # larger models wait for the compiler: the numpy route is O(n) in Python
LOCK_STALE_S = 900.0  # a compile lock older than this is left by a process that died
_POLL_S = 0.25  # at most one look at the background compiler per quarter second

_LOCK = threading.Lock()
_READY: set[str] = set()  # dtype characters whose specialisation this process has loaded
_STATE: dict[str, Any] = {"proc": None, "owner": 0, "polled": 0.0, "busy": False}


def policy() -> str:
    """The compile policy from :data:`POLICY_ENV` (``"background"`` when unset).

    Returns
    -------
    str
        ``"background"`` or ``"wait"``.

    Raises
    ------
    ArgumentError
        The variable holds another value.
    """
    value = os.environ.get(POLICY_ENV, "background").strip().lower() or "background"
    if value not in POLICIES:
        raise ArgumentError(f"environment variable {POLICY_ENV}={value!r}: expected one of "
                            f"{', '.join(POLICIES)}")
    return value


def lock_path() -> Path:
    """The lock file a background compiler holds while it fills the cache.

    One per package location, numba cache directory and interpreter, in the temporary
    directory, so that concurrent sessions (or the workers of a process pool) start at most
    one compiler between them.

    Returns
    -------
    Path
    """
    key = "|".join((str(Path(kernel.__file__).resolve()), os.environ.get("NUMBA_CACHE_DIR", ""),
                    sys.executable))
    return Path(tempfile.gettempdir()) / f"titop_lpv_compile_{zlib.crc32(key.encode()):08x}.lock"


def background_process() -> subprocess.Popen[bytes] | None:
    """The background compiler this process started, if any (for tests and tools).

    Returns
    -------
    subprocess.Popen or None
    """
    return _STATE["proc"]


def use_kernel(n_bodies: int, dtype: Any, args: Callable[[], tuple[Any, ...]]) -> bool:
    """Whether an ``"auto"`` evaluation should run the compiled kernel now.

    Parameters
    ----------
    n_bodies : int
        Bodies of the model.
    dtype : numpy dtype
        dtype of the states (float64, or complex128 for complex-step derivatives).
    args : callable
        Returns the kernel's model arguments (``KernelData.args``), which fix its signature;
        called only when the disk cache is looked at.

    Returns
    -------
    bool
        True when the kernel is compiled in this process, was just loaded from the disk
        cache, or must be compiled now (policy ``"wait"``, a model of more than
        :data:`BACKGROUND_BODIES` bodies, or a background compiler that ended without
        filling the cache); False while a background compiler fills the cache (the caller
        takes the numpy route).
    """
    char = dtype.char if isinstance(dtype, np.dtype) else np.dtype(dtype).char
    if char in _READY:  # the common case: one set lookup
        return True
    if policy() == "wait" or n_bodies > BACKGROUND_BODIES:
        _READY.add(char)  # the call compiles (or loads) it
        return True
    with _LOCK:
        if _STATE["busy"]:  # a background compiler was running at the last look
            if time.monotonic() - _STATE["polled"] < _POLL_S:
                return False
            _STATE["polled"] = time.monotonic()
            _STATE["busy"] = _compiler_running()
            if _STATE["busy"]:
                return False
        # first look, or the compiler has ended: the disk cache has it, or nobody makes it
        if kernel.load_cached(dtype, args()):
            _READY.add(char)
            return True
        if _STATE["proc"] is None:
            _STATE["proc"], _STATE["owner"] = _start_background(), os.getpid()
            _STATE["polled"] = time.monotonic()
            _STATE["busy"] = _compiler_running()
            if _STATE["busy"]:
                return False
        _READY.add(char)  # the compiler ended without this specialisation: compile here
        return True


def _compiler_running() -> bool:
    proc = _STATE["proc"]  # a forked worker inherits it but cannot wait for it: the lock says
    if proc is not None and _STATE["owner"] == os.getpid() and proc.poll() is None:
        return True
    try:
        age = time.time() - lock_path().stat().st_mtime
    except OSError:
        return False
    return age < LOCK_STALE_S


def _start_background() -> subprocess.Popen[bytes] | None:
    env = dict(os.environ, **{POLICY_ENV: "wait"})
    try:
        return subprocess.Popen(
            [sys.executable, "-m", "titop_lpv", "compile", "--background"], env=env,
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            start_new_session=True)  # outlives this session: the next run finds the cache
    except OSError:
        return None  # cannot start a process here: _compiler_running() says compile in-process
