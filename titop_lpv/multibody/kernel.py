"""Compiled forward dynamics: the two-sweep TITOP recursion of :mod:`titop_lpv.multibody.dynamics`
written as explicit loops and compiled by numba.

Same algorithm, same equations (the paper's eqs. 11, 13, 17, 20–24, 27–28), one state at a
time: about a hundred times faster than the vectorised numpy evaluation for one state, and
faster per state than Pinocchio called from Python for large batches. It serves
evaluations whose physical data (masses, axes, rotations, ...) are not batched; the numpy
path in :mod:`titop_lpv.multibody.dynamics` stays the reference and handles batched parameters.
Complex inputs compile a complex specialisation, so complex-step Jacobians pass through.

This module holds the entry points, the work arrays and the compile machinery; the sweeps
are :mod:`kernel_forward` (root to tips: kinematics, bias wrenches), :mod:`kernel_loads`
(external loads, wrench inputs, loop closures), :mod:`kernel_backward` (tips to root: the
articulated inertias; root to tips: the accelerations), with the joint laws of
:mod:`kernel_joints`; :mod:`kernel_fp` flushes subnormal numbers to zero while they run;
:mod:`kernel_cache` keys numba's disk cache by all of them.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import numpy as np

from . import kernel_backward as kb
from . import kernel_cache
from . import kernel_forward as kf
from . import kernel_fp as kfp
from . import kernel_joints as kj
from . import kernel_loads as kl
from .kernel_args import KernelData, entry_point, kernel_data

__all__ = ["ALLOCATE_BELOW", "FTZ_BODIES", "NONFINITE", "WORK_SHAPES", "KernelData",
           "ensure_compiled", "kernel_data", "load_cached", "run", "workspace"]

NONFINITE = -2  # status of run(): some derivative is NaN or infinite
# Models of at least this many bodies run with subnormal numbers flushed to zero (kernel_fp):
# the influence of a branch decays exponentially along a long chain and reaches the
# subnormal range there. Setting and restoring the register costs about 0.6 µs a call, a
# tenth of a small model's one-state evaluation, which stays exact in IEEE arithmetic.
FTZ_BODIES = 64

# numba is imported, and the functions below compiled, on the first run(): importing the
# package does not pay for numba, and a run that never uses the kernel never compiles it.
_JIT_OPTIONS: dict[str, dict[str, Any]] = {}  # function name -> numba.njit options
_COMPILED = threading.Event()
_COMPILE_LOCK = threading.Lock()


def _jit(**options: Any) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Register a function for numba compilation (``njit(cache=True, **options)``) on first use."""

    def register(fn: Callable[..., Any]) -> Callable[..., Any]:
        _JIT_OPTIONS[fn.__name__] = options
        return fn

    return register


def _compile() -> None:
    """Replace every registered function by its numba dispatcher (once, thread-safe)."""
    with _COMPILE_LOCK:
        if _COMPILED.is_set():
            return
        import numba  # heavy: imported on the first kernel run only

        space = globals()
        kernel_cache.install(numba)  # the disk cache keyed by every kernel module's source
        kfp.compile_all(numba)  # the MXCSR intrinsics (or no-ops)
        for module in (kj, kl, kf, kb):  # callees first, each with its njit options
            for name, opts in module.JIT.items():
                setattr(module, name, numba.njit(cache=True, error_model="numpy", **opts)(
                    getattr(module, name)))
        for name, options in _JIT_OPTIONS.items():
            # error_model="numpy": a division by zero gives inf/NaN (caught as NONFINITE by
            # the kernel) instead of raising a bare ZeroDivisionError from compiled code
            space[name] = numba.njit(cache=True, error_model="numpy", **options)(space[name])
        _COMPILED.set()


def ensure_compiled() -> None:
    """Import numba and make the kernel's functions numba dispatchers (compiled, or loaded
    from the disk cache, on their first call), once per process; cheap afterwards."""
    if not _COMPILED.is_set():
        _compile()


# The work arrays of _forward_work (after xdot), their shapes with None for the number of
# bodies: the per-body P, r, tw, c, XA, dsh, gb, IA, pA, U, J, uu, acc, Sm, Um, Jm, uum
# (kernel_forward, kernel_backward), then the sweeps' scratch arrays w3, w33, w6, w66, w63,
# scratch (their uses: the sweeps' docstrings). Passed in, not allocated by _forward_states,
# so that the sweeps and their loop over states run without reference counting.
WORK_SHAPES = ((None, 3, 3), (None, 3), (None, 6), (None, 6), (None, 3, 3), (None, 3),
               (None, 3), (None, 6, 6), (None, 6), (None, 6), (None,), (None,), (None, 6),
               (None, 6, 3), (None, 6, 3), (None, 3, 3), (None, 3),
               (11, 3), (6, 3, 3), (2, 6), (2, 6, 6), (6, 3), (5, 3, 3))


@_jit()
def _forward_kernel(
    x, u, kind, parent, q_index, qd_index, base, tau_col, S, axis, R0, off, D, K, K2,
    k_s, d_s, rest, g, euler_axes, l_body, l_point, l_force, l_torque, l_damp, l_body_frame,
    w_body, w_point, w_body_frame, w_col, lp_a, lp_b, lp_pa, lp_pb, lp_k, lp_d, nd, a1c,
    extra, qdd_col, base_quat, need, rot_id, xdot,
):
    """The kernel with its work arrays allocated here (the per-body ones uninitialised: every
    entry read is written first)."""
    n = kind.shape[0]
    dt = xdot.dtype
    return _forward_work(
        x, u, kind, parent, q_index, qd_index, base, tau_col, S, axis, R0, off, D, K, K2,
        k_s, d_s, rest, g, euler_axes, l_body, l_point, l_force, l_torque, l_damp,
        l_body_frame, w_body, w_point, w_body_frame, w_col, lp_a, lp_b, lp_pa, lp_pb, lp_k,
        lp_d, nd, a1c, extra, qdd_col, base_quat, need, rot_id, xdot,
        np.empty((n, 3, 3), dtype=dt), np.empty((n, 3), dtype=dt),
        np.empty((n, 6), dtype=dt), np.empty((n, 6), dtype=dt),
        np.empty((n, 3, 3), dtype=dt), np.empty((n, 3), dtype=dt),
        np.empty((n, 3), dtype=dt), np.empty((n, 6, 6), dtype=dt),
        np.empty((n, 6), dtype=dt), np.empty((n, 6), dtype=dt), np.empty(n, dtype=dt),
        np.empty(n, dtype=dt), np.empty((n, 6), dtype=dt), np.empty((n, 6, 3), dtype=dt),
        np.empty((n, 6, 3), dtype=dt), np.empty((n, 3, 3), dtype=dt),
        np.empty((n, 3), dtype=dt), np.zeros((11, 3), dtype=dt), np.zeros((6, 3, 3), dtype=dt),
        np.zeros((2, 6), dtype=dt), np.zeros((2, 6, 6), dtype=dt), np.zeros((6, 3), dtype=dt),
        np.zeros((5, 3, 3), dtype=dt))


@_jit(_nrt=False)  # allocates nothing: no reference counting of its 67 arguments
def _forward_work(
    x, u, kind, parent, q_index, qd_index, base, tau_col, S, axis, R0, off, D, K, K2,
    k_s, d_s, rest, g, euler_axes, l_body, l_point, l_force, l_torque, l_damp, l_body_frame,
    w_body, w_point, w_body_frame, w_col, lp_a, lp_b, lp_pa, lp_pb, lp_k, lp_d, nd, a1c,
    extra, qdd_col, base_quat, need, rot_id, xdot, P, r, tw, c, XA, dsh, gb, IA, pA, U, J, uu,
    acc, Sm, Um, Jm, uum, w3, w33, w6, w66, w63, scratch,
):
    # subnormal numbers flushed to zero while the sweeps of a large model run (kernel_fp;
    # FTZ_BODIES)
    flush = kind.shape[0] >= FTZ_BODIES
    old = kfp.fp_enter() if flush else 0
    status = _forward_states(
        x, u, kind, parent, q_index, qd_index, base, tau_col, S, axis, R0, off, D, K, K2,
        k_s, d_s, rest, g, euler_axes, l_body, l_point, l_force, l_torque, l_damp, l_body_frame,
        w_body, w_point, w_body_frame, w_col, lp_a, lp_b, lp_pa, lp_pb, lp_k, lp_d, nd, a1c,
        extra, qdd_col, base_quat, need, rot_id, xdot, P, r, tw, c, XA, dsh, gb, IA, pA, U, J, uu,
        acc, Sm, Um, Jm, uum, w3, w33, w6, w66, w63, scratch)
    if flush:
        kfp.fp_leave(old)
    return status


@_jit(_nrt=False)
def _forward_states(
    x, u, kind, parent, q_index, qd_index, base, tau_col, S, axis, R0, off, D, K, K2,
    k_s, d_s, rest, g, euler_axes, l_body, l_point, l_force, l_torque, l_damp, l_body_frame,
    w_body, w_point, w_body_frame, w_col, lp_a, lp_b, lp_pa, lp_pb, lp_k, lp_d, nd, a1c,
    extra, qdd_col, base_quat, need, rot_id, xdot, P, r, tw, c, XA, dsh, gb, IA, pA, U, J, uu,
    acc, Sm, Um, Jm, uum, w3, w33, w6, w66, w63, scratch,
):
    # work arrays (P … uum per body, then the sweeps' scratch w3 … scratch): the caller's
    # (every per-body entry read is written first). Three sweeps per state (kernel_forward,
    # kernel_backward), the loads in between (kernel_loads); the transform of body i to its
    # parent port is X = [[XAᵀ, −XAᵀ d̃], [0, XAᵀ]] (XA = P_{a/b}, d = dsh[i]).
    # Compiled without reference counting (_nrt=False), like the sweeps: a reference count is
    # two atomic operations per array, for the ~60 arguments at every call and for the views
    # x[m], u[m], xdot[m] at every state (0.6 µs of the balloon's 2.6 µs per state).
    Gamma = w33[5]  # the free base's Euler Γ, left there by kernel_forward
    n_loads = l_body.shape[0] + w_body.shape[0] + lp_a.shape[0]
    for m in range(x.shape[0]):
        xm = x[m]
        um = u[m]
        xdm = xdot[m]
        # the sweeps take the zero of the state's dtype from w6[0, 0] (0.0 * w6[0, 0]): a
        # finite value, whatever the caller's work arrays held (kernel.workspace reuses them)
        w6[0, 0] = 0.0
        kf.forward_sweep(xm, kind, parent, q_index, qd_index, base, base_quat, axis, R0, rot_id,
                         off, D, K, K2, g, euler_axes, need, a1c, nd, P, r, tw, c, XA, dsh, gb,
                         IA, pA, Sm, w3, w33, w6, scratch)
        if n_loads:
            kl.apply_loads(um, P, r, tw, pA, l_body, l_point, l_force, l_torque, l_damp,
                           l_body_frame, w_body, w_point, w_body_frame, w_col, lp_a, lp_b,
                           lp_pa, lp_pb, lp_k, lp_d, w3, w33, w6)
        status = kb.backward_sweep(xm, um, kind, parent, q_index, qd_index, tau_col, qdd_col, S,
                                   k_s, d_s, rest, extra, nd, XA, dsh, c, IA, pA, U, J, uu, Sm,
                                   Um, Jm, uum, w3, w33, w6, w66, w63)
        if status >= 0:
            return status
        kb.accel_sweep(xm, um, kind, parent, q_index, qd_index, qdd_col, S, nd, XA, dsh, c, IA,
                       pA, U, J, uu, acc, Sm, Um, Jm, uum, xdm, kj.QUATERNION_GAIN, w3, w6,
                       w66)
        if base >= 0:
            for a in range(6):
                xdm[base + a] = acc[0, a]
            for a in range(3):
                xdm[base + 6 + a] = (P[0, a, 0] * tw[0, 0] + P[0, a, 1] * tw[0, 1]
                                     + P[0, a, 2] * tw[0, 2])
            if base_quat:
                kj.quat_rates(xm, base + 9, tw[0, 3], tw[0, 4], tw[0, 5], xdm,
                              kj.QUATERNION_GAIN)
            else:
                for a in range(3):
                    xdm[base + 9 + a] = (Gamma[a, 0] * tw[0, 3] + Gamma[a, 1] * tw[0, 4]
                                         + Gamma[a, 2] * tw[0, 5])
        for a in range(xdm.shape[0]):
            if xdm[a] - xdm[a] != 0.0:  # NaN or ±inf (real or imaginary part)
                return NONFINITE
    return -1


def run(data: KernelData, x: np.ndarray, u: np.ndarray) -> tuple[np.ndarray, int]:
    """State derivatives for states ``x`` (M, n_x) and inputs ``u`` (M, n_u).

    Parameters
    ----------
    data : KernelData
        From :func:`kernel_data`.
    x : ndarray, shape (M, n_x)
        States.
    u : ndarray, shape (M, n_u)
        Inputs.

    Returns
    -------
    xdot : ndarray (M, n_x)
    status : int
        ``-1``; the index of a body whose joint has a non-positive apparent inertia; or
        :data:`NONFINITE` when a derivative is NaN or infinite (the evaluation stops there).

    Notes
    -----
    The first call for a dtype compiles (or loads) the kernel; then the compiled entry point
    of the specialisation is kept, keyed by the dtype and :attr:`KernelData.signature`, and
    called directly: numba's type dispatch of the ~60 arguments (about 10 µs) is paid once,
    not at every call. A model of fewer than :data:`ALLOCATE_BELOW` bodies runs the variant
    that allocates its work arrays (for the balloon, 2–3 µs less than fetching the thread's
    kept arrays and passing them); larger ones run on the kept arrays (:func:`workspace`).
    """
    x = x if type(x) is np.ndarray else np.asarray(x)
    u = u if type(u) is np.ndarray else np.asarray(u)
    dtype = x.dtype if x.dtype is u.dtype else np.result_type(x, u, float)
    if dtype is not _F64 and dtype is not _C128:
        dtype = np.result_type(dtype, float)
    # writable aligned C arrays: numba compiles a separate specialisation for read-only ones
    if type(x) is not np.ndarray or x.dtype is not dtype or not x.flags.carray:
        x = np.require(x, dtype=dtype, requirements=["C", "W", "A"])
    if type(u) is not np.ndarray or u.dtype is not dtype or not u.flags.carray:
        u = np.require(u, dtype=dtype, requirements=["C", "W", "A"])
    xdot = np.zeros(x.shape, dtype=dtype)
    if not _COMPILED.is_set():
        _compile()
    n = len(data.args[0])
    small = n < ALLOCATE_BELOW  # the variant that allocates its work arrays
    key = (dtype.char, data.signature, small)
    entry = _ENTRY_POINTS.get(key) if x.ndim == 2 and u.ndim == 2 else None
    if entry is not None:  # the common case: no numba type dispatch of the ~60 arguments
        status = (entry(x, u, *data.args, xdot) if small
                  else entry(x, u, *data.args, xdot, *workspace(n, dtype)))
    elif small or dtype.str not in _WRAPPED:  # compiles both (the allocating entry serves
        status = _forward_kernel(x, u, *data.args, xdot)  # model.dynamics)
        _WRAPPED.add(dtype.str)
        if small and data.signature >= 0 and x.ndim == 2 and u.ndim == 2:
            entry = entry_point(_forward_kernel, (x, u, *data.args, xdot))
            if entry is not None:
                _ENTRY_POINTS[key] = entry
    else:
        work = workspace(len(data.args[0]), dtype)
        status = _forward_work(x, u, *data.args, xdot, *work)
        if data.signature >= 0 and x.ndim == 2 and u.ndim == 2:
            entry = work_entry_point((x, u, *data.args, xdot, *work))
            if entry is not None:
                _ENTRY_POINTS[key] = entry
    return xdot, int(status)


ALLOCATE_BELOW = 64  # bodies: below, run() takes the variant that allocates its work arrays
_F64, _C128 = np.dtype(np.float64), np.dtype(np.complex128)
# (dtype character, KernelData.signature, allocating) -> numba's entry point of
# _forward_kernel (allocating) or _forward_work for states of that dtype (2-D aligned
# writable C arrays, as run() passes them) and such arguments
_ENTRY_POINTS: dict[tuple[str, int, bool], Any] = {}
_WRAPPED: set[str] = set()  # dtypes for which _forward_kernel is compiled
_LOCAL = threading.local()  # each thread's work arrays: {(n bodies, dtype): arrays}
_KEPT = 2  # work-array sets kept per thread (the latest sizes)


def workspace(n: int, dtype: Any) -> tuple[np.ndarray, ...]:
    """The kernel's work arrays for ``n`` bodies (about 1.2 kB per body), kept from
    call to call in the calling thread: a large model's evaluation then neither allocates
    nor touches fresh memory (page faults: half the time of an evaluation of 10⁴ bodies
    otherwise). The kernel writes every per-body entry before reading it; the sweeps'
    scratch arrays (:data:`WORK_SHAPES`) come last.

    Parameters
    ----------
    n : int
        Number of bodies.
    dtype : data-type
        ``float64`` or ``complex128`` (complex-step derivatives).

    Returns
    -------
    tuple of ndarray
        The trailing arguments of ``_forward_work`` (after ``xdot``), this thread's own.
    """
    kept = getattr(_LOCAL, "work", None)
    if kept is None:
        kept = _LOCAL.work = {}
    key = (n, np.dtype(dtype).str)
    work = kept.pop(key, None)
    if work is None:
        work = tuple(np.zeros(tuple(n if d is None else d for d in shape), dtype=dtype)
                     for shape in WORK_SHAPES)
        while len(kept) >= _KEPT:
            kept.pop(next(iter(kept)))
    kept[key] = work  # the most recent last
    return work


def load_cached(dtype: Any, args: tuple[Any, ...]) -> bool:
    """Make the kernel for states of ``dtype`` ready without compiling it, if possible.

    Parameters
    ----------
    dtype : numpy dtype
        dtype of the states and inputs (float64 or complex128).
    args : tuple
        The model arguments (:attr:`KernelData.args`); with ``dtype`` they fix the signature.

    Returns
    -------
    bool
        True when the specialisation is compiled in this process or was found in numba's
        disk cache (and is now loaded); False when only compiling it would make it ready.
    """
    if not _COMPILED.is_set():
        _compile()
    import numba

    probe = np.zeros((1, 1), dtype=np.result_type(dtype, float))
    sig = tuple(numba.typeof(a) for a in (probe, probe, *args, probe))
    dispatcher = _forward_kernel
    if sig in dispatcher.overloads:
        return True
    cache = getattr(dispatcher, "_cache", None)  # numba's disk cache of this dispatcher
    if cache is None or cache.load_overload(sig, dispatcher.targetctx) is None:
        return False
    dispatcher.compile(sig)  # found: load it through the dispatcher (a cache hit, no compile)
    return True


def work_entry_point(args: tuple[Any, ...]) -> Any:
    """Entry point of the kernel on caller-given work arrays (:func:`workspace`), or None.

    Parameters
    ----------
    args : tuple
        Every argument of that kernel as :func:`run` passes them (states (1, n_x) first).

    Returns
    -------
    callable or None
        numba's ``entry_point`` (no type dispatch) if compiled or in numba's disk cache."""
    try:  # None before the first run() (not compiled) or if numba's internals changed
        sig = tuple(_forward_work.typeof_pyval(a) for a in args)
        if sig not in _forward_work.overloads and _forward_work._cache.load_overload(
                sig, _forward_work.targetctx) is not None:
            _forward_work.compile(sig)  # a disk-cache hit: loaded, not compiled
        return getattr(_forward_work.overloads.get(sig), "entry_point", None)
    except Exception:
        return None
