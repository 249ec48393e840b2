"""The complex-step rows of a linearisation in one compiled call: batch, both kernels, matrices.

:func:`~titop_lpv.analysis.linearize.linearize` of a small model evaluates the dynamics
kernel (:mod:`.kernel`) and the sensor kernel (:mod:`.sensor_kernel`) on a batch of complex
states ``x + i h e_k`` (``h = 1e-30``) and reads ``A = ∂f/∂x`` … from the imaginary parts.
Done with numpy between two kernel calls, that glue (the batch, the rows the dynamics skips,
``F.imag / h``, the finiteness checks: some fifteen operations on arrays of a few hundred
entries) costs about as much as the sensor kernel. :func:`rows` does it in compiled code
around the same two compiled kernels (the same specialisations, called from here: their
machine code is linked into this function), in one call from Python:

1. the batch ``X = x + dX``, ``U = u + dU`` of every direction (real parts exactly ``x``
   and ``u``), and the rows the dynamics kernel evaluates (``kept``);
2. the dynamics kernel on those rows; the skipped rows (the floating base's position
   directions, where the dynamics is exactly independent of them) copied from the
   unperturbed one;
3. the sensor kernel on every row (with the derivatives when a sensor reads them);
4. ``A``, ``B``, ``C``, ``D`` (C-contiguous) as ``imag / h``, ``f(x, u)`` and ``h(x, u)`` as
   the unperturbed row's real parts, and ``max |f(x, u)|``.

The arithmetic is that of the numpy route (the same operations in the same order on the
same values): the results are bit-identical (``tests/test_linearize_plan.py``). A status
other than success (the dynamics kernel's, or :data:`NONFINITE` for a NaN or infinite state,
input, derivative or output) leaves the caller to the general route, which raises the
error naming the state, body or output at fault.

Like the kernel's modules, this one imports numba on first use only (:func:`ready`), and its
function is cached on disk with the kernel: its compiled code contains both kernels, so
:mod:`.kernel_cache` must key it (and :mod:`.sensor_kernel`) by the digest of all the
kernel's sources.
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np

from . import kernel, sensor_kernel

__all__ = ["NONFINITE", "ready", "rows"]

NONFINITE = kernel.NONFINITE  # status: a NaN or infinite entry somewhere
STEP = 1e-30  # the complex step h (analysis.complex_step.STEP)

_LOCK = threading.Lock()
_STATE: dict[str, Any] = {"fn": None}
_SENSORS: Any = None  # the sensor kernel's dispatcher, a global of the compiled function


def _rows(x, u, dx, du, kept, a, b, args, sargs, needs, A, B, C, D, f0, y0,
          ):  # pragma: no cover - run compiled
    """:func:`rows`, compiled (its arguments in that order)."""
    n_x = x.shape[0]
    n_u = u.shape[0]
    R = dx.shape[0]
    m = kept.shape[0]
    for k in range(n_x):  # a NaN or infinite state or input: the general route names it
        if x[k] - x[k] != 0.0:
            return NONFINITE, 0.0
    for k in range(n_u):
        if u[k] - u[k] != 0.0:
            return NONFINITE, 0.0
    X = np.empty((R, n_x), dtype=np.complex128)
    U = np.empty((R, n_u), dtype=np.complex128)
    for r in range(R):
        for k in range(n_x):
            X[r, k] = complex(x[k], dx[r, k].imag)
        for k in range(n_u):
            U[r, k] = complex(u[k], du[r, k].imag)
    F = np.zeros((R, n_x), dtype=np.complex128)
    if m == R:
        status = kernel._forward_kernel(X, U, *args, F)
    else:
        Xk = np.empty((m, n_x), dtype=np.complex128)
        Uk = np.empty((m, n_u), dtype=np.complex128)
        for i in range(m):
            Xk[i] = X[kept[i]]
            Uk[i] = U[kept[i]]
        Fk = np.zeros((m, n_x), dtype=np.complex128)
        status = kernel._forward_kernel(Xk, Uk, *args, Fk)
        for r in range(a):
            F[r] = Fk[r]
        for r in range(b, R):
            F[r] = Fk[r - (b - a)]
        for r in range(a, b):
            F[r] = Fk[m - 1]
    if status != -1:
        return status, 0.0
    n_y = y0.shape[0]
    Y = np.zeros((R, n_y), dtype=np.complex128)
    _SENSORS(X, F if needs else X, Y, 1j, *sargs)
    for r in range(R):
        for k in range(n_y):
            if Y[r, k] - Y[r, k] != 0.0:
                return NONFINITE, 0.0
    worst = 0.0
    for k in range(n_x):
        f0[k] = F[R - 1, k].real
        worst = max(worst, abs(f0[k]))
        for j in range(n_x):
            A[k, j] = F[j, k].imag / STEP
        for j in range(n_u):
            B[k, j] = F[n_x + j, k].imag / STEP
    for k in range(n_y):
        y0[k] = Y[R - 1, k].real
        for j in range(n_x):
            C[k, j] = Y[j, k].imag / STEP
        for j in range(n_u):
            D[k, j] = Y[n_x + j, k].imag / STEP
    for k in range(n_x):
        for j in range(n_x):
            if A[k, j] - A[k, j] != 0.0:
                return NONFINITE, 0.0
        for j in range(n_u):
            if B[k, j] - B[k, j] != 0.0:
                return NONFINITE, 0.0
    for k in range(n_y):
        for j in range(n_x):
            if C[k, j] - C[k, j] != 0.0:
                return NONFINITE, 0.0
        for j in range(n_u):
            if D[k, j] - D[k, j] != 0.0:
                return NONFINITE, 0.0
    return -1, worst


def _compiled() -> Any:
    """The dispatcher of :func:`_rows` (numba imported, the kernels made dispatchers; once)."""
    fn = _STATE["fn"]
    if fn is None:
        with _LOCK:
            fn = _STATE["fn"]
            if fn is None:
                kernel.ensure_compiled()  # installs the disk-cache key (kernel_cache) first
                import numba  # heavy: imported with the kernel, never by ``import titop_lpv``

                globals()["_SENSORS"] = sensor_kernel._compiled()  # its dispatcher
                fn = numba.njit(cache=True, error_model="numpy")(_rows)
                _STATE["fn"] = fn
    return fn


def ready(example: tuple[Any, ...], compile_now: bool) -> Any:
    """numba's entry point of :func:`rows` for arguments of the types of ``example``: compiled
    in this process, loaded from the disk cache, or (``compile_now``) compiled now (a
    minute or so, once per installation); None otherwise.

    Parameters
    ----------
    example : tuple
        Arguments of :func:`rows`, of the types every later call will pass.
    compile_now : bool
        Compile when the disk cache does not hold the specialisation.

    Returns
    -------
    callable or None
        ``entry(*args) -> (status, max |f0|)``, without numba's type dispatch.
    """
    fn = _compiled()
    try:
        sig = tuple(fn.typeof_pyval(v) for v in example)
        if sig not in fn.overloads:
            cache = getattr(fn, "_cache", None)
            if not (cache is not None and cache.load_overload(sig, fn.targetctx) is not None) \
                    and not compile_now:
                return None
            fn.compile(sig)  # a disk-cache hit loads, else numba compiles
        return getattr(fn.overloads.get(sig), "entry_point", None)
    except Exception:  # numba internals changed: the numpy route serves
        return None


def rows(x: np.ndarray, u: np.ndarray, dx: np.ndarray, du: np.ndarray, kept: np.ndarray,
         a: int, b: int, args: tuple[Any, ...], sargs: tuple[Any, ...], needs: bool,
         A: np.ndarray, B: np.ndarray, C: np.ndarray, D: np.ndarray, f0: np.ndarray,
         y0: np.ndarray) -> tuple[int, float]:
    """The complex-step rows and the linear matrices in one compiled call (module doc).

    Parameters
    ----------
    x, u : ndarray of float (n_x,), (n_u,)
        The point, C-contiguous.
    dx, du : ndarray of complex (R, n_x), (R, n_u)
        The perturbations ``i h e_k`` of every row, R = n_x + n_u + 1, the unperturbed row
        last (:func:`titop_lpv.analysis.complex_step.perturbed`).
    kept : ndarray of int (m,)
        The rows the dynamics kernel evaluates, increasing, the unperturbed one last; the
        others are the rows ``a:b``.
    a, b : int
        The skipped rows (``a == b``: none).
    args : tuple
        The dynamics kernel's model arguments (``KernelData.args``).
    sargs : tuple
        The sensor kernel's (``SensorData.args``): a model with outputs.
    needs : bool
        Some sensor reads the derivatives.
    A, B, C, D : ndarray of float
        Written: ``∂f/∂x`` (n_x, n_x), ``∂f/∂u`` (n_x, n_u), ``∂h/∂x`` (n_y, n_x),
        ``∂h/∂u`` (n_y, n_u).
    f0, y0 : ndarray of float (n_x,), (n_y,)
        Written: ``f(x, u)`` and ``h(x, u)``.

    Returns
    -------
    status : int
        ``-1`` success; else the dynamics kernel's status or :data:`NONFINITE`.
    residual : float
        ``max |f(x, u)|`` (0.0 unless successful).
    """
    return _compiled()(x, u, dx, du, kept, a, b, args, sargs, needs, A, B, C, D, f0, y0)
