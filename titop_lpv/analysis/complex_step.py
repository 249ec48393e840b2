"""One batched complex-step evaluation of the dynamics and the outputs, at the kernels' cost.

:func:`~titop_lpv.analysis.linearize.jacobians` evaluates ``f`` and ``h`` at ``x + i h e_k``
and ``u + i h e_j`` for every state and input direction at once (``h = 1e-30``; the last
row unperturbed). Through :func:`~titop_lpv.multibody.dynamics.forward_dynamics` and
:func:`~titop_lpv.multibody.dynamics.evaluate_outputs` that batch pays about 30 µs of
argument conversion, checks and numba type dispatch on the balloon of the paper, a third of
the compiled work; :func:`evaluate` calls the two compiled kernels
(:mod:`~titop_lpv.multibody.kernel`, :mod:`~titop_lpv.multibody.sensor_kernel`) directly on
the arrays that :func:`perturbed` built (complex, C-contiguous, the right shapes: nothing to
convert or check), with the model's cached kernel arguments of the resolved parameters. The
three directions of a floating base's position are not evaluated when the dynamics cannot
depend on it (:func:`translation_rows`): their rows are exactly the unperturbed one.

Anything unusual leaves it to the general route: a kernel that is not ready yet (compile
policy), a sensor the sensor kernel does not cover (``tau``), a status other than success
(a zero apparent inertia, a NaN or infinite derivative) or a NaN or infinite output.
:func:`evaluate` then returns None for what it did not evaluate, and the caller evaluates it
again through the general route, which raises the error naming the state, body or output at
fault. Both routes run the same compiled code on the same arguments: the results are
bit-identical (``tests/test_linearize_fast.py``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..multibody import kernel, kernel_ready, sensor_kernel
from ..multibody.tables import Physics
from ..multibody.tree import Tree
from .arguments import finite_vector

__all__ = ["STEP", "evaluate", "finite", "perturbed", "real_vector", "translation_rows"]

STEP = 1e-30
_F64, _C128 = np.dtype(np.float64), np.dtype(np.complex128)
_OK = -1  # kernel status of a successful run
_ALL, _ISFINITE = np.logical_and.reduce, np.isfinite
_TRANSLATION_FREE_LOADS = (0, 1, 2, 3)  # buoyancy, force, torque, damping (LoadTable.kind)
_PERTURBATIONS: dict[tuple[int, int], tuple[np.ndarray, np.ndarray]] = {}


def _perturbations(n_x: int, n_u: int) -> tuple[np.ndarray, np.ndarray]:
    """``i h e_k`` rows for the states (n + 1, n_x) and inputs (n + 1, n_u), n = n_x + n_u
    (read-only, kept per size)."""
    key = (n_x, n_u)
    hit = _PERTURBATIONS.get(key)
    if hit is None:
        n = n_x + n_u
        dX = np.zeros((n + 1, n_x), dtype=complex)
        dU = np.zeros((n + 1, n_u), dtype=complex)
        dX[np.arange(n_x), np.arange(n_x)] = 1j * STEP
        dU[n_x + np.arange(n_u), np.arange(n_u)] = 1j * STEP
        for M in (dX, dU):
            M.flags.writeable = False
        hit = _PERTURBATIONS.setdefault(key, (dX, dU))
    return hit


def perturbed(x: np.ndarray, u: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The complex-step states and inputs of every direction.

    Parameters
    ----------
    x : ndarray (n_x,)
        Real state.
    u : ndarray (n_u,)
        Real input.

    Returns
    -------
    X : ndarray of complex (n + 1, n_x), n = n_x + n_u
        Row ``k < n_x``: ``x + i h e_k``; the other rows ``x``. The real part is exactly
        ``x`` (the sign of a zero included).
    U : ndarray of complex (n + 1, n_u)
        Row ``n_x + j``: ``u + i h e_j``; the other rows ``u``.
    """
    dX, dU = _perturbations(x.size, u.size)
    X, U = dX.copy(), dU.copy()
    X.real[...] = x
    U.real[...] = u
    return X, U


def finite(M: np.ndarray) -> bool:
    """Whether every entry of ``M`` is finite (``np.isfinite(M).all()`` without its Python
    wrapper: no floating-point warning, whatever the entries).

    Parameters
    ----------
    M : ndarray
        Any shape, real or complex.

    Returns
    -------
    bool
    """
    if M.dtype.kind == "c" and M.flags.c_contiguous:
        M = M.view(M.real.dtype)  # the real and imaginary parts side by side: faster
    return bool(_ALL(_ISFINITE(M), None))


def real_vector(value: Any, what: str, names: Sequence[str], kind: str) -> np.ndarray:
    """:func:`~titop_lpv.analysis.arguments.finite_vector`, with a shortcut for what it
    would return unchanged: a finite float64 ndarray of shape ``(len(names),)``.

    Parameters
    ----------
    value, what, names, kind
        As :func:`~titop_lpv.analysis.arguments.finite_vector`.

    Returns
    -------
    ndarray of float, shape (len(names),)
    """
    if type(value) is np.ndarray and value.dtype is _F64 and value.ndim == 1 \
            and value.shape[0] == len(names) and _ALL(_ISFINITE(value), None):
        return value
    return finite_vector(value, what, names, kind)


def translation_rows(model: Tree) -> tuple[np.ndarray, np.ndarray] | None:
    """The rows of a complex-step batch the kernel evaluates, and those it skips: the
    directions of the floating base's position, when the dynamics cannot depend on it.

    The kernel reads the base position only into the body origins ``r``, and reads those
    only for loop closures; buoyancy, forces, torques and damping act through attitudes and
    body-frame points. Without loops, a perturbation ``x + i h e_k`` of a base-position state
    leaves every other quantity of the sweeps exactly as in the unperturbed row, so its
    derivative row is exactly the unperturbed one (imaginary part 0): not evaluated.

    Parameters
    ----------
    model : Tree
        The compiled model.

    Returns
    -------
    tuple of ndarray (intp) or None
        ``(kept, skipped)`` row indices of the (n_x + n_u + 1)-row batch of
        :func:`perturbed` (the unperturbed row last in ``kept``); None when nothing is
        skipped (fixed base, loop closures, or a load kind other than buoyancy, force,
        torque, damping).
    """
    kinds = np.asarray(model.loads.kind)
    if model.base_index < 0 or np.asarray(model.loops.a).size or not np.isin(
            kinds, _TRANSLATION_FREE_LOADS).all():
        return None
    n = model.n_states + model.n_inputs + 1
    skipped = np.arange(model.base_index + 6, model.base_index + 9)
    kept = np.setdiff1d(np.arange(n), skipped)
    return kept.astype(np.intp), skipped.astype(np.intp)


def _route(model: Tree, ph: Physics) -> tuple[Any, Any, Any]:
    """The kernel arguments of ``ph``, the sensor-kernel arguments (None when some sensor is
    not covered) and the skipped rows (:func:`translation_rows`: kept rows, start and end of
    the skipped ones; or None), from the model's caches (shared with the general route)."""
    data = model.memo("kernel", ph, lambda: kernel.kernel_data(model, ph))
    rows = model.memo("complex_step_rows", None, lambda: translation_rows(model))
    if rows is not None:
        rows = (rows[0], int(rows[1][0]), int(rows[1][-1]) + 1)
    covered = model.memo("sensor_kernel_covered", None, lambda: sensor_kernel.covered(model))
    if not model.output_specs or not all(covered):
        return data, None, rows
    sdata = model.memo("sensor_kernel", ph, lambda: sensor_kernel.sensor_data(model, ph))
    return data, sdata, rows


def evaluate(model: Tree, ph: Physics, X: np.ndarray, U: np.ndarray, outputs: bool
             ) -> tuple[np.ndarray | None, np.ndarray | None]:
    """``F = f(X, U)`` and ``Y = h(X, U)`` by the compiled kernels, where they serve.

    Parameters
    ----------
    model : Tree
        The compiled model.
    ph : Physics
        Its physics for one real parameter vector (:meth:`Tree.physics`: checked).
    X, U : ndarray of complex
        From :func:`perturbed`.
    outputs : bool
        Also evaluate the outputs.

    Returns
    -------
    F : ndarray (n + 1, n_x) or None
        The state derivatives, finite; None when the general route must evaluate them
        (module doc), and then ``Y`` is None too.
    Y : ndarray (n + 1, n_outputs) or None
        The outputs, finite; None when ``outputs`` is false or the general route must
        evaluate them (from ``F``).
    """
    n_bodies = len(model.body_names)
    if ph.vals.ndim != 1 or ph.vals.dtype.kind == "c" or not kernel_ready.use_kernel(
            n_bodies, _C128, lambda: model.memo("kernel", ph,
                                                lambda: kernel.kernel_data(model, ph)).args):
        return None, None
    data, sdata, rows = model.memo("complex_step", ph, lambda: _route(model, ph))
    if rows is None or X.shape[0] != model.n_states + model.n_inputs + 1:
        F, status = kernel.run(data, X, U)
    else:  # the base-position directions: the unperturbed derivative (module doc)
        kept, a, b = rows  # the skipped rows: a slice
        Fk, status = kernel.run(data, X.take(kept, 0), U.take(kept, 0))
        F = np.empty(X.shape, dtype=Fk.dtype)
        F[:a], F[b:], F[a:b] = Fk[:a], Fk[a:], Fk[-1]
    if status != _OK:
        return None, None  # the general route raises the named error
    if not outputs:
        return F, None
    if not model.output_specs:
        return F, np.zeros((X.shape[0], 0), dtype=complex)
    if sdata is None or not sensor_kernel.ready(n_bodies, _C128):
        return F, None
    Y = sensor_kernel.evaluate(sdata, X, F if sdata.needs_xdot else None, model.n_outputs)
    return F, (Y if finite(Y) else None)
