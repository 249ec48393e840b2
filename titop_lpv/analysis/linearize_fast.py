"""The complex-step rows of a linearisation with the Python around the kernels cut down.

:func:`~titop_lpv.analysis.linearize.linearize` of a small model spends as much time in
Python as in the two compiled kernels: argument checks, cache look-ups, the perturbed batch,
the kernels' own dispatch wrappers, the Jacobians read from the batch, the selections and
the ``StateSpace``. Everything that depends on the model and the parameter vector only is
worked out once per :class:`~titop_lpv.multibody.tables.Physics` and kept in a :class:`Plan`
(the model's memo): the kernel arguments and the compiled entry point of the dynamics
kernel for complex rows (called directly: no ``kernel.run`` wrapper), the sensor kernel's
arguments, the rows the dynamics kernel skips (the floating base's position directions,
:func:`~titop_lpv.analysis.complex_step.translation_rows`) and the perturbations ``i h e_k``
of the rows it evaluates, and the entry point of the fused call
(:func:`titop_lpv.multibody.kernel_rows.rows`). :func:`rows` then makes one compiled call
that builds the batch, runs both kernels and writes ``A``, ``B``, ``C``, ``D``,
``f(x₀, u₀)`` and ``h(x₀, u₀)`` (on the balloon of the paper, 18 states and 9 outputs:
about 12 µs above the two kernels' own 98 µs, against about 50 µs for the same glue in
numpy). Until the fused call is compiled or found in numba's disk cache (compile policy,
:mod:`~titop_lpv.multibody.kernel_ready`; looked for again at most every
:data:`~titop_lpv.multibody.sensor_kernel.PROBE_S` seconds), the two kernels' entry points
are called with that glue in numpy. :func:`default_system` serves ``linearize(model, op)``
with its default arguments: the matrices straight into a copy of the cached
``StateSpace`` template, without the selections.

The arithmetic is that of :func:`~titop_lpv.analysis.complex_step.evaluate` and
:func:`~titop_lpv.analysis.linearize.jacobians` (the same compiled specialisations on the
same arguments, the same rows, ``F.imag / h``): the results are bit-identical
(``tests/test_linearize_plan.py``). :func:`rows` returns None for anything else — a model
whose Jacobians come from the analytic derivatives
(:mod:`~titop_lpv.multibody.derivatives_kernel`), a kernel not compiled yet (compile
policy), a model of :data:`~titop_lpv.multibody.kernel.ALLOCATE_BELOW` bodies or more, a
sensor the sensor kernel does not cover, a kernel status other than success, a NaN or
infinite entry — and the caller takes the general route, which evaluates again and raises
the error that names the state, body or output at fault.
"""

from __future__ import annotations

import time
from typing import Any, NamedTuple

import numpy as np

from ..model.call_path import kernel_entry_point
from ..multibody import kernel, kernel_ready, kernel_rows, sensor_kernel
from ..multibody.derivatives_kernel import eligible
from ..multibody.tables import Physics
from ..multibody.tree import Tree
from .attitude_error import quaternion_starts
from .complex_step import STEP, evaluate, finite, perturbed, translation_rows
from .operating_point import OperatingPoint
from .statespace_clone import clone_statespace

__all__ = ["Plan", "compile_fused", "default_system", "matrices", "plan", "rows"]

_OK = -1  # kernel status of a successful run
_F64, _C128 = np.dtype(np.float64), np.dtype(np.complex128)
_KEY = "linearize_plan"
_BASE_KEY = "linearize_plan_model"
_NEVER = "never"  # the model is never served (analytic Jacobians, a large model, ...)
_RETRY = "retry"  # a plan could not be built yet (kernels compiling): try again next call


class Plan(NamedTuple):
    """What the complex-step rows of one model and parameter vector need, worked out once.

    Attributes
    ----------
    entry : callable
        numba's entry point of the dynamics kernel for complex, C-contiguous 2-D states,
        inputs and derivatives and these arguments (no type dispatch).
    args : tuple
        The kernel's model arguments (:attr:`KernelData.args`).
    sdata : SensorData or None
        The sensor kernel's arguments; None for a model without outputs.
    dx, du : ndarray of complex
        The perturbations ``i h e_k`` of the rows the dynamics kernel evaluates (read-only):
        (m, n_x) and (m, n_u), the unperturbed row last.
    dx_all, du_all : ndarray of complex
        The perturbations of every row (n + 1, n_x) and (n + 1, n_u), n = n_x + n_u
        (:func:`~titop_lpv.analysis.complex_step.perturbed`; read-only). The same arrays as
        ``dx`` and ``du`` when no row is skipped.
    a, b : int
        The rows ``a:b`` of the full batch that the dynamics kernel skips (their derivative
        row is exactly the unperturbed one); ``a == b`` when none is.
    n_outputs : int
        Outputs of the model.
    kept : ndarray of int
        The rows of the full batch the dynamics kernel evaluates.
    fused : callable or None
        The entry point of :func:`titop_lpv.multibody.kernel_rows.rows` (the whole batch in
        one compiled call); None while it is not compiled or cached (or the model has no
        outputs): the numpy route of :func:`rows` serves.
    """

    entry: Any
    args: tuple[Any, ...]
    sdata: Any
    dx: np.ndarray
    du: np.ndarray
    dx_all: np.ndarray
    du_all: np.ndarray
    a: int
    b: int
    n_outputs: int
    kept: np.ndarray
    fused: Any


def _readonly(*arrays: np.ndarray) -> None:
    for M in arrays:
        M.flags.writeable = False


def _build(model: Tree, ph: Physics, x: np.ndarray, u: np.ndarray, fuse: bool
           ) -> Plan | str | None:
    """The plan of ``ph``; None when this route never serves the model, :data:`_RETRY`
    while the kernels are not ready (the general route serves meanwhile)."""
    n_bodies = len(model.body_names)
    if n_bodies >= kernel.ALLOCATE_BELOW \
            or model.memo("analytic_jacobians", None, lambda: eligible(model)):
        return None  # large models: the kernel's kept work arrays (kernel.run) serve better
    if model.output_specs and not all(model.memo(
            "sensor_kernel_covered", None, lambda: sensor_kernel.covered(model))):
        return None
    X, U = perturbed(x, u)
    F, Y = evaluate(model, ph, X, U, True)  # compiles or loads both kernels (compile policy)
    if F is None or Y is None:
        return _RETRY
    data = model.memo("kernel", ph, lambda: kernel.kernel_data(model, ph))
    sdata = (model.memo("sensor_kernel", ph, lambda: sensor_kernel.sensor_data(model, ph))
             if model.output_specs else None)
    dx_all, du_all = perturbed(np.zeros(x.size), np.zeros(u.size))
    skip = model.memo("complex_step_rows", None, lambda: translation_rows(model))
    if skip is None:
        dX, dU, a, b = dx_all, du_all, 0, 0
        kept = np.arange(dx_all.shape[0], dtype=np.intp)
    else:
        kept = skip[0]
        dX, dU = dx_all.take(kept, 0), du_all.take(kept, 0)
        a, b = int(skip[1][0]), int(skip[1][-1]) + 1
    _readonly(dX, dU, dx_all, du_all, kept)
    m = dX.shape[0]
    entry = kernel_entry_point((np.zeros((m, x.size), dtype=complex),
                                np.zeros((m, u.size), dtype=complex), *data.args,
                                np.zeros((m, x.size), dtype=complex)))
    if entry is None:
        return _RETRY
    built = Plan(entry, tuple(data.args), sdata, dX, dU, dx_all, du_all, a, b,
                 model.n_outputs, kept, None)
    return _fuse(built, kernel_ready.policy() == "wait") if fuse else built


def _fuse(p: Plan, compile_now: bool) -> Plan:
    """``p`` with the entry point of the fused call when it is compiled, in the disk cache,
    or (``compile_now``) compiled now; ``p`` itself otherwise."""
    if p.sdata is None:
        return p
    n_x, n_u = p.dx.shape[1], p.du.shape[1]
    fused = kernel_rows.ready((
        np.zeros(n_x), np.zeros(n_u), p.dx_all, p.du_all, p.kept, p.a, p.b, p.args,
        tuple(p.sdata.args), bool(p.sdata.needs_xdot), *_outputs(n_x, n_u, p.n_outputs)),
        compile_now)
    return p if fused is None else p._replace(fused=fused)


def _outputs(n_x: int, n_u: int, n_y: int) -> tuple[np.ndarray, ...]:
    """Fresh A, B, C, D, f0, y0 for the fused call (written by it)."""
    return (np.empty((n_x, n_x)), np.empty((n_x, n_u)), np.empty((n_y, n_x)),
            np.empty((n_y, n_u)), np.empty(n_x), np.empty(n_y))


def plan(model: Tree, ph: Physics, x: np.ndarray, u: np.ndarray, fuse: bool = True
         ) -> Plan | None:
    """The model's :class:`Plan` for ``ph`` (built on the first call, kept in the model's
    memo with ``ph``), or None when :func:`rows` cannot serve (module doc).

    Parameters
    ----------
    model : Tree
        The compiled model.
    ph : Physics
        Its physics for one real parameter vector (:meth:`Tree.physics`: checked).
    x, u : ndarray of float
        A finite state (n_x,) and input (n_u,): the point the first evaluation (which
        compiles or loads the kernels) runs at.
    fuse : bool, default True
        Look for the fused call (load it from the disk cache; compile it under the policy
        ``"wait"``) if the plan does not have it yet. False (what ``linear_matrices`` passes:
        a process-pool worker calls it a few times) uses it only when it is loaded already.

    Returns
    -------
    Plan or None
    """
    box = model.memo(_KEY, ph, list)  # per physics: [plan or None (never), next probe]
    if box:
        p = box[0]
        if fuse and p is not None and p.fused is None and p.sdata is not None \
                and time.monotonic() >= box[1]:  # a background compiler may have cached it
            first = box[1] == 0.0  # never looked for: as a first build would
            box[1] = time.monotonic() + sensor_kernel.PROBE_S
            p = box[0] = _fuse(p, first and kernel_ready.policy() == "wait")
            base = model.memo(_BASE_KEY, None, list)
            if p.fused is not None and base and base[0] is not None:
                base[0] = base[0]._replace(fused=p.fused)  # for the next parameter vectors
        return p
    if ph.vals.ndim != 1 or ph.vals.dtype.kind == "c":
        return None  # a batch of parameter vectors, or complex ones: the general route
    built = _again(model, ph)
    if built is _NEVER:
        built = None
    elif built is None:
        built = _build(model, ph, x, u, fuse)
        if built is _RETRY:
            return None
        data = model.memo("kernel", ph, lambda: kernel.kernel_data(model, ph))
        model.memo(_BASE_KEY, None, list)[:] = [built, data.signature, _sensor_signature(
            model, ph) if isinstance(built, Plan) else None]
    box[:] = [built, time.monotonic() + sensor_kernel.PROBE_S if fuse else 0.0]
    return built  # type: ignore[return-value]


def _sensor_signature(model: Tree, ph: Physics) -> int | None:
    if not model.output_specs:
        return None
    return model.memo("sensor_kernel", ph, lambda: sensor_kernel.sensor_data(model, ph)).signature


def _again(model: Tree, ph: Physics) -> Plan | str | None:
    """The plan of another parameter vector of the model with the arguments of ``ph`` (the
    entry points and the batch do not depend on the values: no second look-up of numba's
    types), a string for a model the plan never serves, or None (build it)."""
    base = model.memo(_BASE_KEY, None, list)  # [plan of the model's last build, signatures]
    if not base:
        return None
    if base[0] is None:
        return _NEVER
    data = model.memo("kernel", ph, lambda: kernel.kernel_data(model, ph))
    if data.signature < 0 or data.signature != base[1] \
            or _sensor_signature(model, ph) != base[2] or (base[2] is not None and base[2] < 0):
        return None
    sdata = (model.memo("sensor_kernel", ph, lambda: sensor_kernel.sensor_data(model, ph))
             if base[0].sdata is not None else None)
    return base[0]._replace(args=tuple(data.args), sdata=sdata)


def rows(model: Tree, ph: Physics, x: np.ndarray, u: np.ndarray, fuse: bool = True
         ) -> tuple[Any, ...] | None:
    """The linear matrices, ``f(x, u)`` and ``h(x, u)`` by complex step, or None.

    Parameters
    ----------
    model : Tree
        The compiled model.
    ph : Physics
        Its physics for one real parameter vector (:meth:`Tree.physics`: checked).
    x : ndarray of float (n_x,)
        State (a NaN or infinite entry returns None).
    u : ndarray of float (n_u,)
        Input.
    fuse : bool, default True
        As :func:`plan`.

    Returns
    -------
    tuple or None
        ``(A, B, C, D, f0, y0, residual)``: ``∂f/∂x`` (n_x, n_x), ``∂f/∂u`` (n_x, n_u),
        ``∂h/∂x`` (n_outputs, n_x), ``∂h/∂u`` (n_outputs, n_u), ``f(x, u)`` (n_x,),
        ``h(x, u)`` (n_outputs,), every entry finite, bit-identical to
        :func:`~titop_lpv.analysis.linearize.jacobians`; and ``max |f(x, u)|`` (float).
        None when the general route must serve the call (module doc).
    """
    p = plan(model, ph, x, u, fuse)
    if p is None:
        return None
    n_x = x.shape[0]
    if p.fused is not None:  # one compiled call (kernel_rows)
        out = _outputs(n_x, u.shape[0], p.n_outputs)
        if not x.flags.carray:
            x = x.copy()
        if not u.flags.carray:
            u = u.copy()
        status, residual = p.fused(x, u, p.dx_all, p.du_all, p.kept, p.a, p.b, p.args,
                                   p.sdata.args, p.sdata.needs_xdot, *out)
        return None if status != _OK else (*out, residual)
    if not (finite(x) and finite(u)):
        return None  # the general route names the state or input
    Xk = p.dx.copy()
    Xk.real[...] = x
    Uk = p.du.copy()
    Uk.real[...] = u
    Fk = np.zeros(Xk.shape, dtype=_C128)
    if p.entry(Xk, Uk, *p.args, Fk) != _OK:
        return None  # the general route raises the named error
    a, b = p.a, p.b
    if a == b:
        F, X = Fk, Xk
    else:  # the skipped rows: exactly the unperturbed one
        F = np.empty((Fk.shape[0] + b - a, Fk.shape[1]), dtype=_C128)
        F[:a], F[b:], F[a:b] = Fk[:a], Fk[a:], Fk[-1]
        X = None
    f0 = F[-1].real
    J = F[:-1].imag.T / STEP
    if not finite(J):
        return None
    if p.sdata is None:
        K, y0 = np.zeros((0, J.shape[1])), np.zeros(0)
    else:
        if X is None:
            X = p.dx_all.copy()
            X.real[...] = x
        Y = sensor_kernel.evaluate(p.sdata, X, F if p.sdata.needs_xdot else None,
                                   p.n_outputs)
        if not finite(Y):
            return None
        K, y0 = Y[:-1].imag.T / STEP, Y[-1].real
    return (J[:, :n_x], J[:, n_x:], K[:, :n_x], K[:, n_x:], f0, y0,
            float(np.abs(f0).max(initial=0.0)))


def compile_fused(model: Tree) -> bool | None:
    """Make the fused call of :func:`rows` (:func:`titop_lpv.multibody.kernel_rows.rows`)
    ready for every model: loaded from numba's disk cache, or compiled now (what
    ``titop-lpv compile`` runs; the specialisation does not depend on the model).

    Parameters
    ----------
    model : Tree
        A model with outputs and a state, at its defaults (the first evaluation compiles or
        loads both kernels too).

    Returns
    -------
    bool or None
        True when it was in the disk cache (or compiled in this process), False when it was
        compiled now; None when it cannot serve this model (module doc).
    """
    ph = model.physics()
    x, u = np.asarray(model.default_state(), dtype=float), np.zeros(model.n_inputs)
    built = _build(model, ph, x, u, False)
    if not isinstance(built, Plan) or built.sdata is None:
        return None
    if _fuse(built, False).fused is not None:  # compiled in this process or in the cache
        return True
    return None if _fuse(built, True).fused is None else False


def matrices(model: Tree, x: Any, u: Any, params: Any) -> tuple[np.ndarray, ...] | None:
    """``(A, B, C, D, f0, y0)`` as :func:`~titop_lpv.analysis.linearize.jacobians` gives
    them (bit for bit), for arguments that need no conversion, or None.

    Parameters
    ----------
    model : Tree
        The compiled model.
    x, u, params : any
        Served when they are float64 ndarrays of shapes ``(n_x,)``, ``(n_u,)`` and
        ``(n_params,)`` (an operating point's); anything else returns None: the caller
        calls ``jacobians``, which converts and checks.

    Returns
    -------
    tuple of ndarray or None
        None also whenever :func:`rows` returns None. The fused call serves only when it is
        loaded already (``rows(..., fuse=False)``).
    """
    if type(x) is not np.ndarray or type(u) is not np.ndarray or type(params) is not np.ndarray \
            or not x.dtype is u.dtype is params.dtype is _F64 or x.shape != (model.n_states,) \
            or u.shape != (model.n_inputs,) or params.shape != (len(model.param_names),):
        return None
    out = rows(model, model.physics(params), x, u, False)
    return None if out is None else out[:6]


def default_system(model: Tree, op: OperatingPoint, tol: float, name: str | None) -> Any:
    """``linearize(model, op, tol=tol, name=name)`` with every other argument at its default
    (every state, input and output, nothing dropped), or None.

    The system is what :func:`~titop_lpv.analysis.linearize.linearize` returns for these
    arguments, bit for bit: the rows of :func:`rows`, the matrices as views of ``[A B]``
    and ``[C D]``, the ``StateSpace`` a copy of the cached template of the model's signal
    names (:func:`~titop_lpv.analysis.statespace_clone.clone_statespace`), no state or
    output dropped. None, and the caller takes the general route (which checks, selects and
    raises the named errors), for an operating point of another model or with cyclic
    states, a model with quaternion states or without states, inputs or outputs, a point
    that is not an equilibrium within ``tol``, or whenever :func:`rows` returns None.

    Parameters
    ----------
    model : Tree
        The compiled model.
    op : OperatingPoint
        The operating point (its x, u and parameter values).
    tol : float
        The equilibrium tolerance on ``max |f(x₀, u₀)|`` (finite, ``>= 0``: the caller
        checks).
    name : str or None
        System name, checked by the caller; None: ``"<model>_lin"``.

    Returns
    -------
    control.StateSpace or None
    """
    x, u = op.x, op.u
    n_x, n_u = model.n_states, model.n_inputs
    if op.state_names != model.state_names or op.cyclic or not (n_x and n_u and model.n_outputs) \
            or type(x) is not np.ndarray or x.dtype is not _F64 or x.shape != (n_x,) \
            or type(u) is not np.ndarray or u.dtype is not _F64 or u.shape != (n_u,) \
            or model.memo("quaternion_starts", None, lambda: quaternion_starts(model)):
        return None
    out = rows(model, model.physics(op.param_vector), x, u)
    if out is None or not out[6] <= tol:  # not an equilibrium: the general route names
        return None  # the state and its derivative
    sys = clone_statespace(out[0], out[1], out[2], out[3],
                           states=model.state_names, inputs=model.input_names,
                           outputs=model.output_names, name=name or f"{model.name}_lin",
                           copy=False)
    if sys is not None:
        sys.dropped_states = {}
        sys.dropped_outputs = ()
    return sys
