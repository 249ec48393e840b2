"""Batched linearisation of a sweep's equilibria onto the grid's common signals.

:func:`matrices` gives, for many operating points of one model at once, what
:func:`titop_lpv.analysis.linearize.linear_matrices` gives for each with ``states``,
``inputs`` and ``outputs`` fixed to the grid's names (every point of a
:func:`~titop_lpv.analysis.lpv.linearize_sweep` after the first): the complex-step
Jacobians of the dynamics and the outputs of every point come from one call of the
vectorised recursion each (every row with its own parameter vector, checked once for the
batch), the matrices are then cut to the kept states, inputs and outputs. A point that
would raise there (a state that cannot be left out, an output that reads one, not an
equilibrium within ``tol``, a derivative that is not finite) is left to
``linear_matrices`` (``None`` in the result), which raises its named error; so is every
point of a model with quaternions (attitude errors) or of more than
:data:`~titop_lpv.analysis.sweep_batch.BATCH_BODIES` bodies, and every point of a batch of
fewer than :data:`~titop_lpv.analysis.sweep_batch.MIN_BLOCK`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..exceptions import TitopError
from ..model.compiled import Model
from ..multibody.joints import is_one_dof
from . import sweep_batch
from .attitude_error import quaternion_starts
from .linearize import STEP, LinearMatrices
from .operating_point import OperatingPoint
from .sweep_batch import directions

__all__ = ["matrices"]


def matrices(model: Model, ops: Sequence[OperatingPoint],
             names: tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]],
             tol: float = 1e-8, dynamics: Sequence[Any] | None = None
             ) -> list[LinearMatrices | None]:
    """Linear matrices of many operating points on the same states, inputs and outputs.

    Parameters
    ----------
    model : Model
        The compiled model.
    ops : sequence of OperatingPoint
        Equilibria of ``model``.
    names : (states, inputs, outputs)
        The signals to keep (names of the model's states, inputs and outputs).
    tol : float
        Largest ``|f(x₀, u₀)|`` over the kept states (as ``linear_matrices``' default).
    dynamics : sequence of ndarray, optional
        Per point, :func:`~titop_lpv.analysis.sweep_batch.directions` at it, when the trim
        has them (:func:`~titop_lpv.analysis.sweep_batch.trim_block` with ``full``); used
        when every point has them, else evaluated here.

    Returns
    -------
    list of LinearMatrices or None
        One per point; None for a point to linearise one by one (module doc).
    """
    m = len(ops)
    n_x, n_u = model.n_states, model.n_inputs
    if (m < sweep_batch.MIN_BLOCK or len(model.body_names) > sweep_batch.BATCH_BODIES
            or quaternion_starts(model)
            or any(op.state_names != model.state_names for op in ops)):
        return [None] * m
    try:
        keep = [model.state_names.index(s) for s in names[0]]
        cols = [model.input_names.index(s) for s in names[1]]
        rows = [model.output_names.index(s) for s in names[2]]
    except ValueError:
        return [None] * m
    removed = [s for s in range(n_x) if s not in set(keep)]
    n = n_x + n_u
    X = np.stack([op.x for op in ops])
    U = np.stack([op.u for op in ops])
    P = np.stack([op.param_vector for op in ops])
    direct = _direct_reads(model, rows)
    try:
        if dynamics is not None and all(F is not None for F in dynamics):
            F = np.stack(dynamics)
        else:
            F = directions(model, X, U, P)
        if direct is None:  # the sensors' complex steps, the same rows
            Xc = np.empty((m, n + 1, n_x), dtype=complex)
            Xc[:] = X[:, None, :]
            Xc[:, np.arange(n_x), np.arange(n_x)] += 1j * STEP
            Uc = np.empty((m, n + 1, n_u), dtype=complex)
            Uc[:] = U[:, None, :]
            Uc[:, n_x + np.arange(n_u), np.arange(n_u)] += 1j * STEP
            with np.errstate(all="ignore"):
                Y = model.outputs(0.0, Xc, Uc, P[:, None, :])
    except TitopError:
        return [None] * m
    f0 = F[:, -1].real
    J = np.swapaxes(F[:, :-1].imag, 1, 2) / STEP  # (m, n_x, n): [A B]
    ok = np.all(np.isfinite(J), axis=(1, 2))
    if direct is None:
        K = np.swapaxes(Y[:, :-1].imag, 1, 2) / STEP  # (m, n_y, n): [C D]
        ok &= np.all(np.isfinite(K), axis=(1, 2))  # every output, as jacobians checks
        K = K[:, rows]
    else:  # each kept output is a state: its row of [C D] is that state's unit row
        K = np.zeros((m, len(rows), n))
        K[:, np.arange(len(rows)), direct] = 1.0
    A = np.where(ok[:, None, None], J[:, :, :n_x], 0.0)
    if removed and keep:  # a left-out state that a kept one depends on: linear_matrices says so
        absA = np.abs(A)
        scale = np.maximum(1.0, absA.max(axis=(1, 2), initial=0.0))
        ok &= absA[:, keep][:, :, removed].max(axis=(1, 2)) <= 1e-9 * scale
    if removed and rows:
        reads = np.abs(np.where(ok[:, None, None], K, 0.0)[:, :, removed])
        ok &= reads.max(axis=(1, 2)) <= 1e-12
    if keep:
        ok &= np.max(np.abs(np.where(ok[:, None], f0, 0.0)[:, keep]), axis=1) <= tol
    dropped = {model.state_names[s]: "not selected" for s in removed}
    ix_x, ix_u = (np.asarray(i, dtype=np.intp) for i in (keep, cols))
    out: list[LinearMatrices | None] = [None] * m
    for i in np.flatnonzero(ok):
        Ji, Ki = J[i], K[i]
        out[i] = LinearMatrices(
            Ji.take(ix_x, 0).take(ix_x, 1), Ji.take(ix_x, 0).take(n_x + ix_u, 1),
            Ki.take(ix_x, 1), Ki.take(n_x + ix_u, 1),
            tuple(names[0]), tuple(names[1]), tuple(names[2]), dict(dropped), ())
    return out


def _direct_reads(model: Model, rows: list[int]) -> list[int] | None:
    """The state that each output of ``rows`` is, when every one is a one-d.o.f. joint's
    ``q`` or ``qd`` sensor (its complex step is exactly that state's unit row); else None.

    Parameters
    ----------
    model : Model
        The compiled model.
    rows : list of int
        Indices of outputs (``model.output_names``).

    Returns
    -------
    list of int or None
        The state index of each output.
    """
    one = is_one_dof(model.kind)
    state = {}
    for spec in model.output_specs:
        if spec.kind in ("q", "qd") and one[spec.body]:
            index = model.q_index if spec.kind == "q" else model.qd_index
            state[spec.columns.start] = int(index[spec.body])
    if not all(r in state for r in rows):
        return None
    return [state[r] for r in rows]
